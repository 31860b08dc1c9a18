// tests/transform/feature-transform-test.cc
// The preconditioning transform (transform/feature-transform.h) checked
// numerically on synthetic classes, with the within- and between-class
// covariances computed here from the frames by plain loops (not by
// LdaEstimate::GetStats): plain LDA gives A W A^T = I and A B A^T = diag(d)
// with d descending; the within-class factor gives the documented diagonal
// variances; --dim keeps the leading rows; the offset column makes the
// transformed data zero-mean; the singular-value ceiling holds (largest
// singular value by power iteration); smoothing of a singular within-class
// covariance; errors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "base/log.h"
#include "transform/feature-transform.h"
#include "transform/lda-estimate.h"

namespace nnet3 {
namespace {

struct Data {
  int32 dim, classes;
  std::vector<std::vector<double> > x;  // frames (float values)
  std::vector<int32> c;
  LdaEstimate stats;
  std::vector<std::vector<double> > W, B;  // naive covariances
  std::vector<double> mean;
};

// Classes with random means and a shared correlated within-class noise;
// constant_dim >= 0 makes that dimension constant (singular W).
Data MakeData(unsigned seed, int32 dim, int32 classes, int32 per_class,
              int32 constant_dim = -1) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  Data d;
  d.dim = dim;
  d.classes = classes;
  std::vector<std::vector<double> > mix(dim, std::vector<double>(dim));
  for (auto &row : mix)
    for (double &v : row) v = g(gen);
  d.stats.Init(classes, dim);
  for (int32 c = 0; c < classes; c++) {
    std::vector<double> mu(dim);
    for (int32 i = 0; i < dim; i++) mu[i] = 3.0 * g(gen) / (1 + i);
    for (int32 k = 0; k < per_class; k++) {
      std::vector<double> z(dim), x(dim);
      for (double &v : z) v = g(gen);
      for (int32 i = 0; i < dim; i++) {
        double s = mu[i] + 7.0;
        for (int32 j = 0; j < dim; j++) s += mix[i][j] * z[j];
        x[i] = static_cast<float>(i == constant_dim ? 1.5 : s);
      }
      Vector<BaseFloat> v(dim);
      for (int32 i = 0; i < dim; i++) v(i) = x[i];
      d.stats.Accumulate(v, c, 1.0);
      d.x.push_back(x);
      d.c.push_back(c);
    }
  }
  const double n = d.x.size();
  d.mean.assign(dim, 0.0);
  for (const auto &x : d.x)
    for (int32 i = 0; i < dim; i++) d.mean[i] += x[i] / n;
  std::vector<std::vector<double> > cm(classes, std::vector<double>(dim, 0.0));
  std::vector<double> nc(classes, 0.0);
  for (size_t t = 0; t < d.x.size(); t++) {
    nc[d.c[t]] += 1.0;
    for (int32 i = 0; i < dim; i++) cm[d.c[t]][i] += d.x[t][i];
  }
  for (int32 c = 0; c < classes; c++)
    for (int32 i = 0; i < dim; i++) cm[c][i] /= nc[c];
  d.W.assign(dim, std::vector<double>(dim, 0.0));
  d.B.assign(dim, std::vector<double>(dim, 0.0));
  for (size_t t = 0; t < d.x.size(); t++)
    for (int32 i = 0; i < dim; i++)
      for (int32 j = 0; j < dim; j++)
        d.W[i][j] += (d.x[t][i] - cm[d.c[t]][i]) *
                     (d.x[t][j] - cm[d.c[t]][j]) / n;
  for (int32 c = 0; c < classes; c++)
    for (int32 i = 0; i < dim; i++)
      for (int32 j = 0; j < dim; j++)
        d.B[i][j] += nc[c] / n * (cm[c][i] - d.mean[i]) * (cm[c][j] - d.mean[j]);
  return d;
}

// A S A^T for the linear part (first dim columns) of A.
std::vector<std::vector<double> > Sandwich(
    const Matrix<BaseFloat> &a, const std::vector<std::vector<double> > &s) {
  const int32 rows = a.NumRows(), dim = static_cast<int32>(s.size());
  std::vector<std::vector<double> > out(rows, std::vector<double>(rows, 0.0));
  for (int32 p = 0; p < rows; p++)
    for (int32 q = 0; q < rows; q++)
      for (int32 i = 0; i < dim; i++)
        for (int32 j = 0; j < dim; j++)
          out[p][q] += a(p, i) * s[i][j] * a(q, j);
  return out;
}

FeatureTransformOptions PlainLda() {
  FeatureTransformOptions opts;
  opts.remove_offset = false;
  opts.within_class_factor = 1.0;
  opts.max_singular_value = 0.0;
  return opts;
}

TEST(FeatureTransform, PlainLdaProperties) {
  Data d = MakeData(4, 6, 12, 80);
  Matrix<BaseFloat> a;
  FeatureTransformInfo info;
  EstimateFeatureTransform(PlainLda(), d.stats, &a, &info);
  ASSERT_EQ(a.NumRows(), 6);
  ASSERT_EQ(a.NumCols(), 6);
  EXPECT_FALSE(info.smoothed);
  EXPECT_NEAR(info.count, d.x.size(), 1e-9);
  auto w = Sandwich(a, d.W), b = Sandwich(a, d.B);
  for (int32 p = 0; p < 6; p++) {
    if (p + 1 < 6) {
      EXPECT_GE(info.d(p), info.d(p + 1));
    }
    for (int32 q = 0; q < 6; q++) {
      EXPECT_NEAR(w[p][q], p == q ? 1.0 : 0.0, 1e-4) << p << " " << q;
      EXPECT_NEAR(b[p][q], p == q ? info.d(p) : 0.0,
                  1e-4 * (1 + info.d(0))) << p << " " << q;
    }
  }
  EXPECT_GT(info.d(0), 0.1);  // the classes are separable
}

TEST(FeatureTransform, WithinClassFactorScalesVariances) {
  Data d = MakeData(5, 5, 10, 60);
  FeatureTransformOptions opts = PlainLda();
  opts.within_class_factor = 0.1;
  Matrix<BaseFloat> a;
  FeatureTransformInfo info;
  EstimateFeatureTransform(opts, d.stats, &a, &info);
  auto w = Sandwich(a, d.W), b = Sandwich(a, d.B);
  for (int32 p = 0; p < 5; p++) {
    double dp = info.d(p), f = (0.1 + dp) / (1.0 + dp);
    for (int32 q = 0; q < 5; q++) {
      EXPECT_NEAR(w[p][q], p == q ? f : 0.0, 1e-4) << p << " " << q;
      EXPECT_NEAR(b[p][q], p == q ? f * dp : 0.0, 1e-4 * (1 + dp));
    }
  }
}

TEST(FeatureTransform, DimKeepsLeadingRows) {
  Data d = MakeData(6, 6, 9, 50);
  Matrix<BaseFloat> full, part;
  FeatureTransformOptions opts = PlainLda();
  EstimateFeatureTransform(opts, d.stats, &full);
  opts.dim = 2;
  EstimateFeatureTransform(opts, d.stats, &part);
  ASSERT_EQ(part.NumRows(), 2);
  ASSERT_EQ(part.NumCols(), 6);
  // Rows agree up to sign (an eigenvector's sign is arbitrary).
  for (int32 r = 0; r < 2; r++) {
    double sign = (part(r, 0) * full(r, 0) >= 0 ? 1.0 : -1.0);
    for (int32 c = 0; c < 6; c++)
      EXPECT_NEAR(part(r, c), sign * full(r, c), 1e-5);
  }
  opts.dim = 7;
  EXPECT_THROW(EstimateFeatureTransform(opts, d.stats, &part), UserError);
}

TEST(FeatureTransform, OffsetMakesDataZeroMean) {
  Data d = MakeData(7, 4, 8, 40);
  FeatureTransformOptions opts;  // Kaldi's defaults: offset, 0.001, 5.0
  Matrix<BaseFloat> a;
  EstimateFeatureTransform(opts, d.stats, &a);
  ASSERT_EQ(a.NumRows(), 4);
  ASSERT_EQ(a.NumCols(), 5);
  std::vector<double> out_mean(4, 0.0);
  for (const auto &x : d.x)
    for (int32 r = 0; r < 4; r++) {
      double y = a(r, 4);
      for (int32 i = 0; i < 4; i++) y += a(r, i) * x[i];
      out_mean[r] += y / d.x.size();
    }
  for (int32 r = 0; r < 4; r++) EXPECT_NEAR(out_mean[r], 0.0, 1e-4);
}

// Largest singular value of the first n columns of a, by power iteration
// on a^T a.
double LargestSingularValue(const Matrix<BaseFloat> &a, int32 n) {
  std::vector<double> v(n, 1.0), av(a.NumRows());
  double sigma = 0.0;
  for (int32 it = 0; it < 500; it++) {
    for (int32 r = 0; r < a.NumRows(); r++) {
      av[r] = 0.0;
      for (int32 i = 0; i < n; i++) av[r] += a(r, i) * v[i];
    }
    std::vector<double> w(n, 0.0);
    for (int32 i = 0; i < n; i++)
      for (int32 r = 0; r < a.NumRows(); r++) w[i] += a(r, i) * av[r];
    double norm = 0.0;
    for (double x : w) norm += x * x;
    norm = std::sqrt(norm);
    sigma = std::sqrt(norm);
    for (int32 i = 0; i < n; i++) v[i] = w[i] / norm;
  }
  return sigma;
}

TEST(FeatureTransform, SingularValueCeiling) {
  Data d = MakeData(8, 5, 10, 40);
  FeatureTransformOptions opts = PlainLda();
  Matrix<BaseFloat> a, capped;
  EstimateFeatureTransform(opts, d.stats, &a);
  double top = LargestSingularValue(a, 5);
  opts.max_singular_value = 0.5 * top;
  FeatureTransformInfo info;
  EstimateFeatureTransform(opts, d.stats, &capped, &info);
  EXPECT_GE(info.num_ceiled, 1);
  EXPECT_NEAR(LargestSingularValue(capped, 5), 0.5 * top, 1e-3 * top);
  // A ceiling above every singular value changes nothing.
  opts.max_singular_value = 2.0 * top;
  EstimateFeatureTransform(opts, d.stats, &capped, &info);
  EXPECT_EQ(info.num_ceiled, 0);
  for (int32 r = 0; r < 5; r++)
    for (int32 c = 0; c < 5; c++) EXPECT_EQ(capped(r, c), a(r, c));
}

TEST(FeatureTransform, SingularWithinClassCovarianceIsSmoothed) {
  Data d = MakeData(9, 4, 6, 30, /*constant_dim=*/2);
  Matrix<BaseFloat> a;
  FeatureTransformInfo info;
  EstimateFeatureTransform(FeatureTransformOptions(), d.stats, &a, &info);
  EXPECT_TRUE(info.smoothed);
  EXPECT_TRUE(a.IsFinite());
}

TEST(FeatureTransform, Errors) {
  LdaEstimate empty;
  Matrix<BaseFloat> a;
  EXPECT_THROW(EstimateFeatureTransform(FeatureTransformOptions(), empty, &a),
               UserError);
  LdaEstimate zero;
  zero.Init(3, 2);
  EXPECT_THROW(EstimateFeatureTransform(FeatureTransformOptions(), zero, &a),
               UserError);
}

}  // namespace
}  // namespace nnet3
