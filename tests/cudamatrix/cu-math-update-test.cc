// Tests of the CPU implementations in cudamatrix/cu-math-update.h against
// oracles written here:
//   - TruncationRowScales: rows built with chosen norms below, at and above
//     the clipping threshold, with and without zeroing, against the scales
//     and counts computed in double from the definition;
//   - FloorMagnitude: exact values on both sides of the floor, signs kept;
//   - OrthonormalizeRows: M M^T == I, the first row keeps its direction,
//     each row is orthogonal to the original rows before it, and a
//     row that vanishes (a copy of an earlier one) is replaced so that the
//     result is still orthonormal.
#include "cudamatrix/cu-math-update.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/random.h"

namespace nnet3 {
namespace {

template <typename Real>
class CuMathUpdateTest : public ::testing::Test {};
typedef ::testing::Types<float, double> RealTypes;
TYPED_TEST_SUITE(CuMathUpdateTest, RealTypes);

TYPED_TEST(CuMathUpdateTest, TruncationScalesAndCounts) {
  typedef TypeParam R;
  const int32 rows = 6, cols = 5;
  const double clip = 2.0, zero = 3.0;
  // Row norms: below the clipping threshold, far above it, between the
  // two thresholds, above the zeroing one (a boundary row and another), 0.
  const double norms[rows] = {1.0, 10.0, 2.9, 4.0, 5.0, 0.0};
  const bool boundary[rows] = {true, false, true, true, false, true};
  RandomSource rs(4);
  Matrix<R> d(rows, cols);
  for (int32 r = 0; r < rows; r++) {
    SubVector<R> row(d, r);
    row.SetRandn(&rs);
    if (norms[r] == 0.0)
      row.SetZero();
    else
      row.Scale(norms[r] / row.Norm(2.0));
  }
  Vector<R> zeroing_h(rows);
  for (int32 r = 0; r < rows; r++) zeroing_h(r) = boundary[r] ? -1.0 : 0.0;
  CuMatrix<R> deriv(d);
  CuVector<R> zeroing(zeroing_h), scales(rows);
  int32 num_clipped = -1;
  R num_zeroed = -1;
  cu::TruncationRowScales(deriv, &zeroing, R(1.0 / (clip * clip)),
                          R(zero * zero), &scales, &num_clipped, &num_zeroed);
  Vector<R> got = scales.Download();
  int32 want_clipped = 0, want_zeroed = 0;
  for (int32 r = 0; r < rows; r++) {
    double want = 1.0;
    if (norms[r] >= clip) {
      want = clip / norms[r];
      want_clipped++;
    }
    if (norms[r] > zero && boundary[r]) {
      want = 0.0;
      want_zeroed++;
    }
    EXPECT_NEAR(got(r), want, 1e-6) << "row " << r;
  }
  EXPECT_EQ(num_clipped, want_clipped);
  EXPECT_EQ(num_zeroed, R(want_zeroed));
  EXPECT_EQ(want_clipped, 4);
  EXPECT_EQ(want_zeroed, 1);

  // Without zeroing, and without counts: only clipping applies.
  cu::TruncationRowScales(deriv, static_cast<const CuVector<R> *>(nullptr),
                          R(1.0 / (clip * clip)), R(zero * zero), &scales,
                          static_cast<int32 *>(nullptr),
                          static_cast<R *>(nullptr));
  got = scales.Download();
  EXPECT_NEAR(got(3), clip / norms[3], 1e-6);
  EXPECT_EQ(got(5), R(1));
}

TYPED_TEST(CuMathUpdateTest, FloorMagnitudeKeepsSigns) {
  typedef TypeParam R;
  Vector<R> h(6);
  const R in[6] = {0.5, -0.5, 1e-5, -1e-5, 0.0, -0.0};
  const R want[6] = {0.5, -0.5, 1e-4, -1e-4, 1e-4, 1e-4};
  for (int32 i = 0; i < 6; i++) h(i) = in[i];
  CuVector<R> v(h);
  cu::FloorMagnitude(R(1e-4), &v);
  Vector<R> got = v.Download();
  for (int32 i = 0; i < 6; i++) EXPECT_EQ(got(i), want[i]) << i;
}

template <typename Real>
void ExpectOrthonormal(const Matrix<Real> &q, double tol) {
  for (int32 i = 0; i < q.NumRows(); i++)
    for (int32 j = 0; j < q.NumRows(); j++) {
      double dot = 0.0;
      for (int32 c = 0; c < q.NumCols(); c++) dot += double(q(i, c)) * q(j, c);
      EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, tol) << i << "," << j;
    }
}

TYPED_TEST(CuMathUpdateTest, OrthonormalizeRowsIsGramSchmidt) {
  typedef TypeParam R;
  const double tol = sizeof(R) == 4 ? 1e-5 : 1e-12;
  RandomSource rs(8);
  const int32 rows = 5, cols = 9;
  Matrix<R> m(rows, cols);
  m.SetRandn(&rs);
  CuMatrix<R> cu_m(m);
  cu::OrthonormalizeRows(&cu_m);
  Matrix<R> q = cu_m.Download();
  ExpectOrthonormal(q, tol);
  // Row 0 is m's row 0 normalized.
  double norm0 = SubVector<R>(m, 0).Norm(2.0);
  for (int32 c = 0; c < cols; c++) EXPECT_NEAR(q(0, c), m(0, c) / norm0, tol);
  // Gram-Schmidt order: row j is orthogonal to m's rows 0 .. j - 1.
  for (int32 k = 0; k < rows; k++)
    for (int32 j = k + 1; j < rows; j++) {
      double dot = 0.0;
      for (int32 c = 0; c < cols; c++) dot += double(q(j, c)) * m(k, c);
      EXPECT_NEAR(dot, 0.0, tol * 10) << "q row " << j << ", m row " << k;
    }

  // Row 2 a copy of row 1: it vanishes and is replaced by a random row.
  SubVector<R>(m, 2).CopyFromVec(SubVector<R>(m, 1));
  cu_m.CopyFromMat(m);
  cu::OrthonormalizeRows(&cu_m);
  ExpectOrthonormal(cu_m.Download(), tol);
}

}  // namespace
}  // namespace nnet3
