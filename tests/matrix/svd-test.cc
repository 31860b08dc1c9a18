// tests/matrix/svd-test.cc
// ThinSvd (matrix/svd.h): shapes of the outputs, U diag(s) Vt == A, the
// orthonormality of U's columns and Vt's rows, descending non-negative
// singular values, and cases with known answers (diagonal, 2x2 by hand,
// scaled orthogonal, rank-deficient, zero, ill-conditioned), in float and
// double. All checks use plain loops in double, not the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "matrix/matrix.h"
#include "matrix/svd.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace {

template <class Real> double Eps();
template <> double Eps<float>() { return 2e-6; }
template <> double Eps<double>() { return 1e-12; }

template <class Real>
void FillRandom(std::mt19937 *gen, MatrixBase<Real> *m) {
  std::normal_distribution<double> dist(0.0, 1.0);
  for (int32 i = 0; i < m->NumRows(); i++)
    for (int32 j = 0; j < m->NumCols(); j++) (*m)(i, j) = dist(*gen);
}

// Checks every property promised by svd.h for A (the reconstruction
// tolerance is relative to the largest singular value).
template <class Real>
void CheckSvd(const MatrixBase<Real> &A, const Vector<Real> &s,
              const Matrix<Real> &U, const Matrix<Real> &Vt) {
  const int32 m = A.NumRows(), n = A.NumCols(), k = std::min(m, n);
  ASSERT_EQ(s.Dim(), k);
  ASSERT_EQ(U.NumRows(), m);
  ASSERT_EQ(U.NumCols(), k);
  ASSERT_EQ(Vt.NumRows(), k);
  ASSERT_EQ(Vt.NumCols(), n);
  const double tol = Eps<Real>() * std::max(1, std::max(m, n));
  for (int32 j = 0; j < k; j++) {
    EXPECT_GE(s(j), 0.0) << j;
    if (j > 0) {
      EXPECT_GE(s(j - 1), s(j)) << j;
    }
  }
  double smax = k > 0 ? s(0) : 0.0;
  for (int32 i = 0; i < m; i++)
    for (int32 c = 0; c < n; c++) {
      double sum = 0.0;
      for (int32 j = 0; j < k; j++)
        sum += static_cast<double>(U(i, j)) * s(j) * Vt(j, c);
      EXPECT_NEAR(sum, A(i, c), tol * std::max(1.0, smax))
          << "reconstruction at " << i << "," << c;
    }
  for (int32 a = 0; a < k; a++)
    for (int32 b = 0; b < k; b++) {
      double uu = 0.0, vv = 0.0;
      for (int32 i = 0; i < m; i++) uu += static_cast<double>(U(i, a)) * U(i, b);
      for (int32 c = 0; c < n; c++) vv += static_cast<double>(Vt(a, c)) * Vt(b, c);
      double want = a == b ? 1.0 : 0.0;
      EXPECT_NEAR(uu, want, tol) << "U columns " << a << "," << b;
      EXPECT_NEAR(vv, want, tol) << "Vt rows " << a << "," << b;
    }
}

template <class Real>
class SvdTest : public ::testing::Test {};
typedef ::testing::Types<float, double> RealTypes;
TYPED_TEST_SUITE(SvdTest, RealTypes);

TYPED_TEST(SvdTest, RandomShapes) {
  typedef TypeParam Real;
  std::mt19937 gen(1234);
  const int32 shapes[][2] = {{1, 1}, {1, 7}, {7, 1}, {2, 2}, {5, 3},
                             {3, 5}, {8, 8}, {20, 6}, {6, 20}, {31, 17},
                             {17, 31}, {40, 40}};
  for (const auto &shape : shapes) {
    SCOPED_TRACE(::testing::Message() << shape[0] << "x" << shape[1]);
    Matrix<Real> A(shape[0], shape[1]);
    FillRandom(&gen, &A);
    Vector<Real> s;
    Matrix<Real> U, Vt;
    ThinSvd(A, &s, &U, &Vt);
    CheckSvd(A, s, U, Vt);
    // sum of squared singular values == squared Frobenius norm.
    double fro = 0.0, ss = 0.0;
    for (int32 i = 0; i < A.NumRows(); i++)
      for (int32 j = 0; j < A.NumCols(); j++)
        fro += static_cast<double>(A(i, j)) * A(i, j);
    for (int32 j = 0; j < s.Dim(); j++) ss += static_cast<double>(s(j)) * s(j);
    EXPECT_NEAR(ss, fro, 1e-5 * fro);
  }
}

TYPED_TEST(SvdTest, DiagonalIsSortedWithSignsMovedIntoVectors) {
  typedef TypeParam Real;
  Matrix<Real> A(4, 3);
  A(0, 0) = 1.0;
  A(1, 1) = -3.0;
  A(2, 2) = 2.0;
  Vector<Real> s;
  Matrix<Real> U, Vt;
  ThinSvd(A, &s, &U, &Vt);
  CheckSvd(A, s, U, Vt);
  EXPECT_NEAR(s(0), 3.0, 1e-6);
  EXPECT_NEAR(s(1), 2.0, 1e-6);
  EXPECT_NEAR(s(2), 1.0, 1e-6);
  // The vectors for 3 are +-e_1 in both spaces, with opposite signs.
  EXPECT_NEAR(std::fabs(U(1, 0)), 1.0, 1e-6);
  EXPECT_NEAR(std::fabs(Vt(0, 1)), 1.0, 1e-6);
  EXPECT_NEAR(U(1, 0) * Vt(0, 1), -1.0, 1e-6);
}

TYPED_TEST(SvdTest, TwoByTwoByHand) {
  typedef TypeParam Real;
  // A^T A = [25 20; 20 25], eigenvalues 45 and 5.
  Matrix<Real> A(2, 2);
  A(0, 0) = 3.0;
  A(1, 0) = 4.0;
  A(1, 1) = 5.0;
  Vector<Real> s;
  Matrix<Real> U, Vt;
  ThinSvd(A, &s, &U, &Vt);
  CheckSvd(A, s, U, Vt);
  EXPECT_NEAR(s(0), std::sqrt(45.0), 1e-6);
  EXPECT_NEAR(s(1), std::sqrt(5.0), 1e-6);
  // Right singular vectors are (1, 1)/sqrt2 and (1, -1)/sqrt2 up to sign.
  EXPECT_NEAR(std::fabs(Vt(0, 0)), std::sqrt(0.5), 1e-6);
  EXPECT_NEAR(Vt(0, 0), Vt(0, 1), 1e-6);
  EXPECT_NEAR(Vt(1, 0), -Vt(1, 1), 1e-6);
}

TYPED_TEST(SvdTest, ScaledOrthogonalHasEqualSingularValues) {
  typedef TypeParam Real;
  // A rotation in the (0, 2) plane times 2.5, with the other axes swapped.
  double c = std::cos(0.7), sn = std::sin(0.7);
  Matrix<Real> A(4, 4);
  A(0, 0) = 2.5 * c;
  A(0, 2) = -2.5 * sn;
  A(2, 0) = 2.5 * sn;
  A(2, 2) = 2.5 * c;
  A(1, 3) = 2.5;
  A(3, 1) = 2.5;
  Vector<Real> s;
  Matrix<Real> U, Vt;
  ThinSvd(A, &s, &U, &Vt);
  CheckSvd(A, s, U, Vt);
  for (int32 j = 0; j < 4; j++) EXPECT_NEAR(s(j), 2.5, 1e-5);
}

TYPED_TEST(SvdTest, RankDeficientAndZero) {
  typedef TypeParam Real;
  std::mt19937 gen(99);
  for (int32 rank : {0, 1, 3}) {
    for (int32 trans = 0; trans < 2; trans++) {
      SCOPED_TRACE(::testing::Message() << "rank " << rank << " trans " << trans);
      int32 m = trans ? 6 : 9, n = trans ? 9 : 6;
      Matrix<Real> X(m, std::max(rank, 1)), Y(std::max(rank, 1), n), A(m, n);
      if (rank > 0) {
        FillRandom(&gen, &X);
        FillRandom(&gen, &Y);
        for (int32 i = 0; i < m; i++)
          for (int32 c = 0; c < n; c++) {
            double sum = 0.0;
            for (int32 r = 0; r < rank; r++) sum += X(i, r) * Y(r, c);
            A(i, c) = sum;
          }
      }
      Vector<Real> s;
      Matrix<Real> U, Vt;
      ThinSvd(A, &s, &U, &Vt);
      CheckSvd(A, s, U, Vt);
      double smax = rank > 0 ? static_cast<double>(s(0)) : 1.0;
      for (int32 j = rank; j < s.Dim(); j++)
        EXPECT_LE(s(j), 20 * Eps<Real>() * smax) << j;
      for (int32 j = 0; j < rank; j++) EXPECT_GT(s(j), 1e-3 * smax) << j;
    }
  }
}

TYPED_TEST(SvdTest, IllConditionedKeepsSmallValues) {
  typedef TypeParam Real;
  // Q1 diag(1, 1e-3, 1e-6) Q2 with exact orthogonal Q1, Q2 (Householder
  // reflections): one-sided Jacobi keeps small singular values accurately.
  const double want[3] = {1.0, 1e-3, 1e-6};
  double v1[3] = {1, 2, 2}, v2[3] = {2, -1, 3};
  auto reflect = [](const double *v, double (*h)[3]) {
    double n2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) h[a][b] = (a == b) - 2 * v[a] * v[b] / n2;
  };
  double h1[3][3], h2[3][3];
  reflect(v1, h1);
  reflect(v2, h2);
  Matrix<Real> A(3, 3);
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      double sum = 0.0;
      for (int j = 0; j < 3; j++) sum += h1[a][j] * want[j] * h2[j][b];
      A(a, b) = sum;
    }
  Vector<Real> s;
  Matrix<Real> U, Vt;
  ThinSvd(A, &s, &U, &Vt);
  CheckSvd(A, s, U, Vt);
  // In float the input itself is rounded at ~6e-8 relative to 1.
  double abs_tol = sizeof(Real) == 4 ? 3e-7 : 1e-14;
  for (int j = 0; j < 3; j++) EXPECT_NEAR(s(j), want[j], abs_tol) << j;
}

TEST(SvdEmpty, EmptyGivesEmpty) {
  Matrix<double> A;
  Vector<double> s(3);
  Matrix<double> U(2, 2), Vt(2, 2);
  ThinSvd(A, &s, &U, &Vt);
  EXPECT_EQ(s.Dim(), 0);
  EXPECT_EQ(U.NumRows(), 0);
  EXPECT_EQ(Vt.NumRows(), 0);
}

TEST(SvdLarger, ReconstructsA100By60) {
  std::mt19937 gen(7);
  Matrix<double> A(100, 60);
  FillRandom(&gen, &A);
  Vector<double> s;
  Matrix<double> U, Vt;
  ThinSvd(A, &s, &U, &Vt);
  CheckSvd(A, s, U, Vt);
}

}  // namespace
}  // namespace nnet3
