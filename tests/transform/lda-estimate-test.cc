// tests/transform/lda-estimate-test.cc
// LDA statistics (transform/lda-estimate.h): accumulation and the derived
// covariances against naive sums over the frames; AccumulateLdaStats with
// sparse and full targets and deriv weights; the randomized pruning's values
// and mean; the <LDAACCS> format against hand-written bytes (binary and
// text), round trips, adding files, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "matrix/general.h"
#include "matrix/sparse.h"
#include "transform/lda-estimate.h"

namespace nnet3 {
namespace {

struct Frame {
  std::vector<double> x;
  int32 c;
  double w;
};

std::vector<Frame> RandomFrames(unsigned seed, int32 n, int32 dim,
                                int32 classes) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_int_distribution<int32> cls(0, classes - 1);
  std::uniform_real_distribution<double> wt(0.1, 2.0);
  std::vector<Frame> frames(n);
  for (auto &f : frames) {
    f.c = cls(gen);
    f.w = wt(gen);
    for (int32 d = 0; d < dim; d++)
      f.x.push_back(static_cast<float>(g(gen) + 0.5 * f.c * (d % 3)));
  }
  return frames;
}

Vector<BaseFloat> ToVector(const std::vector<double> &x) {
  Vector<BaseFloat> v(static_cast<int32>(x.size()));
  for (size_t i = 0; i < x.size(); i++) v(i) = static_cast<BaseFloat>(x[i]);
  return v;
}

// Naive zero, first and total second-order sums.
void NaiveSums(const std::vector<Frame> &frames, int32 dim, int32 classes,
               std::vector<double> *zero, std::vector<std::vector<double> > *first,
               std::vector<std::vector<double> > *second) {
  zero->assign(classes, 0.0);
  first->assign(classes, std::vector<double>(dim, 0.0));
  second->assign(dim, std::vector<double>(dim, 0.0));
  for (const auto &f : frames) {
    (*zero)[f.c] += static_cast<float>(f.w);
    for (int32 i = 0; i < dim; i++) {
      (*first)[f.c][i] += static_cast<float>(f.w) * f.x[i];
      for (int32 j = 0; j < dim; j++)
        (*second)[i][j] += static_cast<float>(f.w) * f.x[i] * f.x[j];
    }
  }
}

TEST(LdaEstimate, AccumulateMatchesNaiveSums) {
  const int32 dim = 5, classes = 4;
  std::vector<Frame> frames = RandomFrames(7, 300, dim, classes);
  LdaEstimate lda;
  lda.Init(classes, dim);
  for (const auto &f : frames) lda.Accumulate(ToVector(f.x), f.c, f.w);
  std::vector<double> zero;
  std::vector<std::vector<double> > first, second;
  NaiveSums(frames, dim, classes, &zero, &first, &second);
  for (int32 c = 0; c < classes; c++) {
    EXPECT_NEAR(lda.ZeroAcc()(c), zero[c], 1e-9);
    for (int32 i = 0; i < dim; i++)
      EXPECT_NEAR(lda.FirstAcc()(c, i), first[c][i], 1e-9);
  }
  for (int32 i = 0; i < dim; i++)
    for (int32 j = 0; j < dim; j++)
      EXPECT_NEAR(lda.TotalSecondAcc()(i, j), second[i][j], 1e-8);
  double total = 0.0;
  for (double z : zero) total += z;
  EXPECT_NEAR(lda.TotCount(), total, 1e-9);
}

TEST(LdaEstimate, GetStatsMatchesNaiveCovariances) {
  const int32 dim = 4, classes = 5;
  std::vector<Frame> frames = RandomFrames(9, 200, dim, classes);
  LdaEstimate lda;
  lda.Init(classes + 1, dim);  // one class never seen: must be skipped
  for (const auto &f : frames) lda.Accumulate(ToVector(f.x), f.c, f.w);
  Matrix<double> total, between;
  Vector<double> mean;
  double count;
  lda.GetStats(&total, &between, &mean, &count);
  // Naive: weighted mean, covariance around it, class means.
  double n = 0.0;
  std::vector<double> m(dim, 0.0), nc(classes, 0.0);
  std::vector<std::vector<double> > mc(classes, std::vector<double>(dim, 0.0));
  for (const auto &f : frames) {
    double w = static_cast<float>(f.w);
    n += w;
    nc[f.c] += w;
    for (int32 i = 0; i < dim; i++) {
      m[i] += w * f.x[i];
      mc[f.c][i] += w * f.x[i];
    }
  }
  for (int32 i = 0; i < dim; i++) m[i] /= n;
  for (int32 c = 0; c < classes; c++)
    for (int32 i = 0; i < dim; i++) mc[c][i] /= nc[c];
  EXPECT_NEAR(count, n, 1e-9);
  for (int32 i = 0; i < dim; i++) {
    EXPECT_NEAR(mean(i), m[i], 1e-9);
    for (int32 j = 0; j < dim; j++) {
      double t = 0.0, b = 0.0;
      for (const auto &f : frames)
        t += static_cast<float>(f.w) * (f.x[i] - m[i]) * (f.x[j] - m[j]);
      for (int32 c = 0; c < classes; c++)
        b += nc[c] * (mc[c][i] - m[i]) * (mc[c][j] - m[j]);
      EXPECT_NEAR(total(i, j), t / n, 1e-9);
      EXPECT_NEAR(between(i, j), b / n, 1e-9);
    }
  }
}

TEST(LdaEstimate, AccumulateErrors) {
  LdaEstimate lda;
  lda.Init(3, 2);
  Vector<BaseFloat> x(2), y(3);
  EXPECT_THROW(lda.Accumulate(x, 3, 1.0), UserError);
  EXPECT_THROW(lda.Accumulate(x, -1, 1.0), UserError);
  EXPECT_THROW(lda.Accumulate(y, 0, 1.0), UserError);
  Matrix<double> t, b;
  Vector<double> m;
  double n;
  EXPECT_THROW(lda.GetStats(&t, &b, &m, &n), UserError);  // count 0
}

// The small case used for the format tests: frames (1, 2) in class 0 and
// (3, 0), (1, 0) in class 1, weight 1. Counts [1 2], sums [1 2; 4 0],
// total second-order sum [11 2; 2 4], within-class scatter [2 0; 0 0].
LdaEstimate SmallStats() {
  LdaEstimate lda;
  lda.Init(2, 2);
  Vector<BaseFloat> x(2);
  x(0) = 1; x(1) = 2;
  lda.Accumulate(x, 0, 1.0);
  x(0) = 3; x(1) = 0;
  lda.Accumulate(x, 1, 1.0);
  x(0) = 1; x(1) = 0;
  lda.Accumulate(x, 1, 1.0);
  return lda;
}

std::string Int32Bytes(int32 v) {
  std::string s(1, '\x04');
  s.append(reinterpret_cast<const char *>(&v), 4);
  return s;
}

std::string FloatBytes(std::initializer_list<float> values) {
  std::string s;
  for (float f : values) s.append(reinterpret_cast<const char *>(&f), 4);
  return s;
}

TEST(LdaEstimateIo, TextBytesByHand) {
  std::ostringstream os;
  os.precision(7);
  SmallStats().Write(os, false);
  EXPECT_EQ(os.str(),
            "<LDAACCS> <VECSIZE> 2 <NUMCLASSES> 2 <ZERO_ACCS>  [ 1 2 ]\n"
            "<FIRST_ACCS>  [\n  1 2 \n  4 0 ]\n"
            "<SECOND_ACCS> [\n2 \n0 0 ]\n</LDAACCS> ");
}

TEST(LdaEstimateIo, BinaryBytesByHand) {
  std::ostringstream os;
  SmallStats().Write(os, true);
  std::string want = "<LDAACCS> <VECSIZE> " + Int32Bytes(2) + "<NUMCLASSES> " +
                     Int32Bytes(2) + "<ZERO_ACCS> FV " + Int32Bytes(2) +
                     FloatBytes({1, 2}) + "<FIRST_ACCS> FM " + Int32Bytes(2) +
                     Int32Bytes(2) + FloatBytes({1, 2, 4, 0}) +
                     "<SECOND_ACCS> FP " + Int32Bytes(2) +
                     FloatBytes({2, 0, 0}) + "</LDAACCS> ";
  EXPECT_EQ(os.str(), want);
}

void ExpectSameStats(const LdaEstimate &a, const LdaEstimate &b, double tol) {
  ASSERT_EQ(a.NumClasses(), b.NumClasses());
  ASSERT_EQ(a.Dim(), b.Dim());
  for (int32 c = 0; c < a.NumClasses(); c++) {
    EXPECT_NEAR(a.ZeroAcc()(c), b.ZeroAcc()(c), tol * (1 + std::abs(a.ZeroAcc()(c))));
    for (int32 i = 0; i < a.Dim(); i++)
      EXPECT_NEAR(a.FirstAcc()(c, i), b.FirstAcc()(c, i),
                  tol * (1 + std::abs(a.FirstAcc()(c, i))));
  }
  // Stored in float, the second-order sum is exact only relative to its
  // largest elements (the diagonal).
  double scale = 0.0;
  for (int32 i = 0; i < a.Dim(); i++)
    scale = std::max(scale, std::abs(a.TotalSecondAcc()(i, i)));
  for (int32 i = 0; i < a.Dim(); i++)
    for (int32 j = 0; j < a.Dim(); j++)
      EXPECT_NEAR(a.TotalSecondAcc()(i, j), b.TotalSecondAcc()(i, j),
                  tol * (1 + scale));
}

TEST(LdaEstimateIo, RoundTripAndAdd) {
  const int32 dim = 6, classes = 7;
  std::vector<Frame> frames = RandomFrames(21, 400, dim, classes);
  LdaEstimate part1, part2, all;
  part1.Init(classes, dim);
  part2.Init(classes, dim);
  all.Init(classes, dim);
  for (size_t i = 0; i < frames.size(); i++) {
    Vector<BaseFloat> x = ToVector(frames[i].x);
    (i % 3 == 0 ? part1 : part2).Accumulate(x, frames[i].c, frames[i].w);
    all.Accumulate(x, frames[i].c, frames[i].w);
  }
  for (bool binary : {true, false}) {
    std::ostringstream os1, os2;
    os1.precision(7);
    os2.precision(7);
    part1.Write(os1, binary);
    part2.Write(os2, binary);
    LdaEstimate back;
    std::istringstream is1(os1.str());
    back.Read(is1, binary, false);
    ExpectSameStats(part1, back, 2e-6);  // stored as float
    std::istringstream is2(os2.str());
    back.Read(is2, binary, true);
    ExpectSameStats(all, back, 2e-6);
    // Reading without add replaces.
    std::istringstream is3(os1.str());
    back.Read(is3, binary, false);
    ExpectSameStats(part1, back, 2e-6);
  }
}

TEST(LdaEstimateIo, ReadErrors) {
  std::ostringstream os;
  SmallStats().Write(os, false);
  std::string good = os.str();
  LdaEstimate other;
  other.Init(3, 2);
  std::istringstream is(good);
  EXPECT_THROW(other.Read(is, false, true), UserError);  // size mismatch
  LdaEstimate lda;
  std::string bad = good;
  bad.replace(bad.find("<FIRST_ACCS>"), 12, "<FIRST_ACCX>");
  std::istringstream is2(bad);
  EXPECT_THROW(lda.Read(is2, false, false), UserError);
  std::istringstream is3(good.substr(0, good.size() / 2));
  EXPECT_THROW(lda.Read(is3, false, false), UserError);
  std::istringstream is4("<LDAACCS> <VECSIZE> 2 <NUMCLASSES> 2 <ZERO_ACCS> "
                         "[ 1 2 3 ] </LDAACCS> ");
  EXPECT_THROW(lda.Read(is4, false, false), UserError);
}

TEST(RandPrune, ValuesAndMean) {
  RandomSource rs(5);
  EXPECT_EQ(RandPrune(0.0f, 4.0f, &rs), 0.0f);
  EXPECT_EQ(RandPrune(5.0f, 4.0f, &rs), 5.0f);
  EXPECT_EQ(RandPrune(-4.0f, 4.0f, &rs), -4.0f);
  EXPECT_EQ(RandPrune(0.3f, 0.0f, &rs), 0.3f);  // no pruning
  const int32 n = 200000;
  double sum = 0.0, neg_sum = 0.0;
  for (int32 i = 0; i < n; i++) {
    BaseFloat p = RandPrune(1.0f, 4.0f, &rs);
    EXPECT_TRUE(p == 0.0f || p == 4.0f);
    sum += p;
    BaseFloat q = RandPrune(-0.5f, 4.0f, &rs);
    EXPECT_TRUE(q == 0.0f || q == -4.0f);
    neg_sum += q;
  }
  // Means 1 and -0.5; the standard errors are about 0.004 and 0.003.
  EXPECT_NEAR(sum / n, 1.0, 0.02);
  EXPECT_NEAR(neg_sum / n, -0.5, 0.02);
}

TEST(AccumulateLdaStats, SparseAndFullTargetsWithDerivWeights) {
  const int32 rows = 6, dim = 3, classes = 4;
  std::mt19937 gen(2);
  std::normal_distribution<double> g(0.0, 1.0);
  Matrix<BaseFloat> feats(rows, dim);
  for (int32 r = 0; r < rows; r++)
    for (int32 d = 0; d < dim; d++) feats(r, d) = g(gen);
  // Row r: class r % 4 with 0.75, class (r + 1) % 4 with 0.25.
  Matrix<BaseFloat> post(rows, classes);
  std::vector<std::vector<std::pair<MatrixIndexT, BaseFloat> > > sparse_rows;
  for (int32 r = 0; r < rows; r++) {
    post(r, r % 4) = 0.75;
    post(r, (r + 1) % 4) = 0.25;
    sparse_rows.push_back({{r % 4, 0.75f}, {(r + 1) % 4, 0.25f}});
  }
  SparseMatrix<BaseFloat> smat(classes, sparse_rows);
  // deriv weights for the first 4 rows only: the rest count fully.
  Vector<BaseFloat> dw(4);
  dw(0) = 1; dw(1) = 0; dw(2) = 0.5; dw(3) = 2;
  LdaEstimate naive;
  naive.Init(classes, dim);
  for (int32 r = 0; r < rows; r++) {
    BaseFloat w = r < 4 ? dw(r) : 1.0;
    for (int32 c = 0; c < classes; c++)
      if (post(r, c) * w != 0.0) naive.Accumulate(feats.Row(r), c, post(r, c) * w);
  }
  RandomSource rs(1);
  LdaEstimate from_full, from_sparse;
  AccumulateLdaStats(feats, GeneralMatrix(post), dw, 0.0, &rs, &from_full);
  AccumulateLdaStats(feats, GeneralMatrix(smat), dw, 0.0, &rs, &from_sparse);
  ExpectSameStats(naive, from_full, 1e-12);
  ExpectSameStats(naive, from_sparse, 1e-12);
  // A second example adds; one of another size is refused.
  AccumulateLdaStats(feats, GeneralMatrix(smat), dw, 0.0, &rs, &from_sparse);
  EXPECT_NEAR(from_sparse.TotCount(), 2 * naive.TotCount(), 1e-9);
  Matrix<BaseFloat> short_feats(rows - 1, dim);
  EXPECT_THROW(AccumulateLdaStats(short_feats, GeneralMatrix(post), dw, 0.0,
                                  &rs, &from_full),
               UserError);
  Matrix<BaseFloat> wide(rows, dim + 1);
  EXPECT_THROW(AccumulateLdaStats(wide, GeneralMatrix(post), dw, 0.0, &rs,
                                  &from_full),
               UserError);
}

}  // namespace
}  // namespace nnet3
