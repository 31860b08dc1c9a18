// Tests of the CPU backend of cudamatrix/cu-math-nonlinear.h: every
// operation against a naive loop written here (in double), the derivative
// of NormalizePerRow against central finite differences of NormalizePerRow
// itself, and the in-place forms against the out-of-place ones.
#include "cudamatrix/cu-math-nonlinear.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/random.h"

namespace nnet3 {
namespace {

template <typename Real>
CuMatrix<Real> Rand(int32 rows, int32 cols, uint64 seed, Real scale = 1.0) {
  RandomSource rs(seed);
  Matrix<Real> m(rows, cols);
  m.SetRandn(&rs);
  m.Scale(scale);
  return CuMatrix<Real>(m);
}

// |a - b| <= tol * max(1, |b|) for every element.
template <typename Real>
::testing::AssertionResult Near(const CuMatrixBase<Real> &a,
                                const std::vector<std::vector<double>> &b,
                                double tol) {
  for (int32 r = 0; r < a.NumRows(); r++)
    for (int32 c = 0; c < a.NumCols(); c++) {
      double x = a.GetElement(r, c), y = b[r][c];
      if (!(std::abs(x - y) <= tol * std::max(1.0, std::abs(y))))
        return ::testing::AssertionFailure()
               << "element (" << r << "," << c << "): " << x << " vs " << y;
    }
  return ::testing::AssertionSuccess();
}

std::vector<std::vector<double>> Table(int32 rows, int32 cols) {
  return std::vector<std::vector<double>>(rows, std::vector<double>(cols, 0.0));
}

template <typename Real>
double Tol() {
  return sizeof(Real) == 4 ? 1e-5 : 1e-12;
}

template <typename Real>
class CuMathNonlinearTest : public ::testing::Test {};
typedef ::testing::Types<float, double> RealTypes;
TYPED_TEST_SUITE(CuMathNonlinearTest, RealTypes);

const int32 kShapes[][2] = {{0, 0}, {1, 1}, {1, 9}, {5, 7}, {17, 33}};

TYPED_TEST(CuMathNonlinearTest, BackpropRectifiedLinear) {
  typedef TypeParam Real;
  for (auto &s : kShapes) {
    CuMatrix<Real> y = Rand<Real>(s[0], s[1], 1), e = Rand<Real>(s[0], s[1], 2);
    y.ApplyFloor(0.0);  // outputs of a rectifier: some exactly 0
    CuMatrix<Real> d(s[0], s[1]);
    cu::BackpropRectifiedLinear(y, e, &d);
    auto ref = Table(s[0], s[1]);
    for (int32 r = 0; r < s[0]; r++)
      for (int32 c = 0; c < s[1]; c++)
        ref[r][c] = y.GetElement(r, c) > 0 ? e.GetElement(r, c) : 0.0;
    EXPECT_TRUE(Near(d, ref, 0.0));
    cu::BackpropRectifiedLinear(y, e, &e);  // in place
    EXPECT_TRUE(Near(e, ref, 0.0));
  }
}

TYPED_TEST(CuMathNonlinearTest, DiffSoftmaxAndLogSoftmaxPerRow) {
  typedef TypeParam Real;
  for (auto &s : kShapes) {
    CuMatrix<Real> x = Rand<Real>(s[0], s[1], 3), e = Rand<Real>(s[0], s[1], 4);
    CuMatrix<Real> y(s[0], s[1]), logy(s[0], s[1]);
    y.SoftMaxPerRow(x);
    logy.LogSoftMaxPerRow(x);
    auto ref = Table(s[0], s[1]), ref_log = Table(s[0], s[1]);
    for (int32 r = 0; r < s[0]; r++) {
      double dot = 0, sum = 0;
      for (int32 c = 0; c < s[1]; c++) {
        dot += double(y.GetElement(r, c)) * e.GetElement(r, c);
        sum += e.GetElement(r, c);
      }
      for (int32 c = 0; c < s[1]; c++) {
        ref[r][c] = y.GetElement(r, c) * (e.GetElement(r, c) - dot);
        ref_log[r][c] =
            e.GetElement(r, c) - std::exp(double(logy.GetElement(r, c))) * sum;
      }
    }
    CuMatrix<Real> d(s[0], s[1]), d_log(s[0], s[1]);
    cu::DiffSoftmaxPerRow(y, e, &d);
    cu::DiffLogSoftmaxPerRow(logy, e, &d_log);
    EXPECT_TRUE(Near(d, ref, Tol<Real>()));
    EXPECT_TRUE(Near(d_log, ref_log, Tol<Real>()));
    CuMatrix<Real> e2(e);
    cu::DiffSoftmaxPerRow(y, e2, &e2);  // in place
    EXPECT_TRUE(Near(e2, ref, Tol<Real>()));
    cu::DiffLogSoftmaxPerRow(logy, e, &e);
    EXPECT_TRUE(Near(e, ref_log, Tol<Real>()));
  }
}

TYPED_TEST(CuMathNonlinearTest, NormalizePerRow) {
  typedef TypeParam Real;
  const double floor = 1.3552527156068805425e-20;
  for (auto &s : kShapes)
    for (bool add_log : {false, true})
      for (Real rms : {Real(1.0), Real(0.5)}) {
        int32 rows = s[0], d = s[1];
        CuMatrix<Real> x = Rand<Real>(rows, d, 5, Real(3.0));
        if (rows > 1) x.Row(1).SetZero();  // the floor
        CuMatrix<Real> y(rows, rows == 0 ? 0 : d + (add_log ? 1 : 0));
        cu::NormalizePerRow(x, rms, add_log, &y);
        auto ref = Table(rows, y.NumCols());
        for (int32 r = 0; r < rows; r++) {
          double ss = 0;
          for (int32 c = 0; c < d; c++)
            ss += double(x.GetElement(r, c)) * x.GetElement(r, c);
          double n = std::max(ss / (d * double(rms) * rms), floor);
          for (int32 c = 0; c < d; c++)
            ref[r][c] = x.GetElement(r, c) / std::sqrt(n);
          if (add_log) ref[r][d] = 0.5 * std::log(n) + std::log(double(rms));
        }
        EXPECT_TRUE(Near(y, ref, 10 * Tol<Real>())) << add_log << " " << rms;
        if (!add_log) {
          cu::NormalizePerRow(x, rms, false, &x);  // in place
          EXPECT_TRUE(Near(x, ref, 10 * Tol<Real>()));
        }
      }
}

// f(x) = sum(NormalizePerRow(x) .* od); DiffNormalizePerRow adds df/dx.
TEST(CuMathNonlinear, DiffNormalizePerRowIsTheGradient) {
  for (bool add_log : {false, true})
    for (double rms : {1.0, 0.3}) {
      int32 rows = 4, d = 6, out_cols = d + (add_log ? 1 : 0);
      CuMatrix<double> x = Rand<double>(rows, d, 6),
                       od = Rand<double>(rows, out_cols, 7),
                       base = Rand<double>(rows, d, 8);
      CuMatrix<double> grad(base);
      cu::DiffNormalizePerRow(x, od, rms, add_log, &grad);
      auto f = [&](const CuMatrix<double> &xx) {
        CuMatrix<double> y(rows, out_cols);
        cu::NormalizePerRow(xx, rms, add_log, &y);
        double sum = 0;
        for (int32 r = 0; r < rows; r++)
          for (int32 c = 0; c < out_cols; c++)
            sum += y.GetElement(r, c) * od.GetElement(r, c);
        return sum;
      };
      const double eps = 1e-6;
      for (int32 r = 0; r < rows; r++)
        for (int32 c = 0; c < d; c++) {
          CuMatrix<double> xp(x), xm(x);
          xp.SetElement(r, c, x.GetElement(r, c) + eps);
          xm.SetElement(r, c, x.GetElement(r, c) - eps);
          double fd = (f(xp) - f(xm)) / (2 * eps);
          EXPECT_NEAR(grad.GetElement(r, c) - base.GetElement(r, c), fd, 1e-6)
              << "add_log " << add_log << " rms " << rms << " at (" << r << ","
              << c << ")";
        }
      if (!add_log) {
        // In place: in_deriv is out_deriv and is set, not added to.
        CuMatrix<double> zero(rows, d), in_place(od);
        cu::DiffNormalizePerRow(x, od, rms, false, &zero);
        cu::DiffNormalizePerRow(x, in_place, rms, false, &in_place);
        auto ref = Table(rows, d);
        for (int32 r = 0; r < rows; r++)
          for (int32 c = 0; c < d; c++) ref[r][c] = zero.GetElement(r, c);
        EXPECT_TRUE(Near(in_place, ref, 1e-12));
      }
    }
}

TEST(CuMathNonlinear, DiffNormalizePerRowAtTheFloor) {
  // A zero row: the scale is the constant 2^33, so the derivative is
  // 2^33 * od (the second term vanishes).
  CuMatrix<float> x(2, 3), od = Rand<float>(2, 3, 9), grad(2, 3);
  x.SetElement(1, 0, 1.0);
  cu::DiffNormalizePerRow(x, od, 1.0f, false, &grad);
  for (int32 c = 0; c < 3; c++)
    EXPECT_EQ(grad.GetElement(0, c), od.GetElement(0, c) * 8589934592.0f);
}

TYPED_TEST(CuMathNonlinearTest, ColumnDotProducts) {
  typedef TypeParam Real;
  for (auto &s : kShapes) {
    CuMatrix<Real> a = Rand<Real>(s[0], s[1], 10),
                   b = Rand<Real>(s[0], s[1], 11);
    CuVector<Real> v(s[1]);
    v.Set(7.0);  // overwritten
    cu::ColumnDotProducts(Real(-0.25), a, b, &v);
    for (int32 c = 0; c < s[1]; c++) {
      double sum = 0;
      for (int32 i = 0; i < s[0]; i++)
        sum += double(a.GetElement(i, c)) * b.GetElement(i, c);
      EXPECT_NEAR(v.GetElement(c), -0.25 * sum,
                  10 * Tol<Real>() * std::max(1.0, std::abs(sum)));
    }
  }
}

TYPED_TEST(CuMathNonlinearTest, BackpropDropoutFromValues) {
  typedef TypeParam Real;
  for (auto &s : kShapes) {
    int32 rows = s[0], cols = s[1];
    CuMatrix<Real> x = Rand<Real>(rows, cols, 12),
                   mask = Rand<Real>(rows, cols, 13),
                   e = Rand<Real>(rows, cols, 14);
    mask.ApplyHeaviside();
    mask.Scale(2.0);
    if (rows > 0 && cols > 1) x.SetElement(0, 1, 0.0);  // the pass-through case
    CuMatrix<Real> y(x);
    y.MulElements(mask);
    auto ref = Table(rows, cols);
    for (int32 r = 0; r < rows; r++)
      for (int32 c = 0; c < cols; c++) {
        double xv = x.GetElement(r, c);
        ref[r][c] = xv == 0 ? e.GetElement(r, c)
                            : e.GetElement(r, c) * y.GetElement(r, c) / xv;
      }
    CuMatrix<Real> d(rows, cols);
    cu::BackpropDropoutFromValues(x, y, e, &d);
    EXPECT_TRUE(Near(d, ref, Tol<Real>()));
    cu::BackpropDropoutFromValues(x, y, e, &e);  // in place
    EXPECT_TRUE(Near(e, ref, Tol<Real>()));
  }
}

TYPED_TEST(CuMathNonlinearTest, GroupPnormAndDerivative) {
  typedef TypeParam Real;
  for (int32 group : {1, 3})
    for (int32 rows : {0, 1, 6}) {
      int32 out_dim = rows == 0 ? 0 : 4, in_dim = out_dim * group;
      CuMatrix<Real> x = Rand<Real>(rows, in_dim, 18),
                     e = Rand<Real>(rows, out_dim, 19);
      if (rows > 1)  // a zero group: y == 0, no derivative
        for (int32 k = 0; k < group; k++) x.SetElement(1, k, 0.0);
      CuMatrix<Real> y(rows, out_dim), d(rows, in_dim);
      cu::GroupPnorm(x, &y);
      auto ref_y = Table(rows, out_dim), ref_d = Table(rows, in_dim);
      for (int32 r = 0; r < rows; r++)
        for (int32 j = 0; j < out_dim; j++) {
          double ss = 0;
          for (int32 k = 0; k < group; k++)
            ss += double(x.GetElement(r, j * group + k)) *
                  x.GetElement(r, j * group + k);
          ref_y[r][j] = std::sqrt(ss);
          for (int32 k = 0; k < group; k++)
            ref_d[r][j * group + k] =
                ss == 0 ? 0.0
                        : x.GetElement(r, j * group + k) * e.GetElement(r, j) /
                              std::sqrt(ss);
        }
      EXPECT_TRUE(Near(y, ref_y, Tol<Real>())) << group << " " << rows;
      cu::DiffGroupPnorm(x, y, e, &d);
      EXPECT_TRUE(Near(d, ref_d, 10 * Tol<Real>())) << group << " " << rows;
    }
}

TYPED_TEST(CuMathNonlinearTest, ExcessMagnitude) {
  typedef TypeParam Real;
  for (auto &s : kShapes) {
    CuMatrix<Real> x = Rand<Real>(s[0], s[1], 20), out(s[0], s[1]);
    if (s[0] > 0) x.SetElement(0, 0, 0.0);  // sign(0) = -1, but |0| - t <= 0
    cu::ExcessMagnitude(x, Real(0.5), &out);
    auto ref = Table(s[0], s[1]);
    for (int32 r = 0; r < s[0]; r++)
      for (int32 c = 0; c < s[1]; c++) {
        double v = x.GetElement(r, c), m = std::abs(v) - 0.5;
        ref[r][c] = m <= 0 ? 0.0 : (v > 0 ? m : -m);
      }
    EXPECT_TRUE(Near(out, ref, Tol<Real>()));
    cu::ExcessMagnitude(x, Real(0.5), &x);  // in place
    EXPECT_TRUE(Near(x, ref, Tol<Real>()));
  }
}

TYPED_TEST(CuMathNonlinearTest, MulRowBlocks) {
  typedef TypeParam Real;
  for (int32 block : {1, 3, 6})
    for (int32 rows : {0, 1, 5}) {
      int32 cols = rows == 0 ? 0 : 6, multiple = rows == 0 ? 0 : 6 / block;
      CuMatrix<Real> src = Rand<Real>(4, block, 15),
                     data = Rand<Real>(rows, cols, 16);
      RandomSource rs(17);
      std::vector<int32> idx(rows * multiple);
      for (int32 &i : idx) i = rs.Int(0, 3);
      auto ref = Table(rows, cols);
      for (int32 r = 0; r < rows; r++)
        for (int32 c = 0; c < cols; c++)
          ref[r][c] = double(data.GetElement(r, c)) *
                      src.GetElement(idx[r * multiple + c / block], c % block);
      cu::MulRowBlocks(src, CuArray<int32>(idx), &data);
      EXPECT_TRUE(Near(data, ref, Tol<Real>())) << block << " " << rows;
    }
}

}  // namespace
}  // namespace nnet3
