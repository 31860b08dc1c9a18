// tests/matrix/linalg-test.cc
// matrix/linalg.h against plain loops: L L^T == A with L lower triangular
// and a positive diagonal; failure on indefinite and singular input; L
// inv(L) == I; A V == V diag(w), V^T V == I, w descending; hand-derived 2x2
// eigenvalues; repeated eigenvalues; only the lower triangle is read;
// matrices built as U diag(lambda) U^T with a known spectrum (wide ranges,
// clusters, exact repeats, sizes up to 200) give back lambda.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "matrix/linalg.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace {

Matrix<double> RandomSpd(std::mt19937 *gen, int32 n, double ridge) {
  std::normal_distribution<double> dist(0.0, 1.0);
  Matrix<double> x(n + 3, n), a(n, n);
  for (int32 i = 0; i < x.NumRows(); i++)
    for (int32 j = 0; j < n; j++) x(i, j) = dist(*gen);
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j < n; j++) {
      double s = (i == j ? ridge : 0.0);
      for (int32 k = 0; k < x.NumRows(); k++) s += x(k, i) * x(k, j);
      a(i, j) = s;
    }
  return a;
}

Matrix<double> RandomSymmetric(std::mt19937 *gen, int32 n) {
  std::normal_distribution<double> dist(0.0, 1.0);
  Matrix<double> a(n, n);
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j <= i; j++) a(i, j) = a(j, i) = dist(*gen);
  return a;
}

double MaxAbs(const MatrixBase<double> &m) {
  double x = 0.0;
  for (int32 i = 0; i < m.NumRows(); i++)
    for (int32 j = 0; j < m.NumCols(); j++) x = std::max(x, std::abs(m(i, j)));
  return x;
}

TEST(Cholesky, ReconstructsRandomSpd) {
  std::mt19937 gen(11);
  for (int32 n : {1, 2, 5, 17, 40}) {
    Matrix<double> a = RandomSpd(&gen, n, 0.1), l;
    ASSERT_TRUE(CholeskyLower(a, &l)) << n;
    ASSERT_EQ(l.NumRows(), n);
    for (int32 i = 0; i < n; i++) {
      EXPECT_GT(l(i, i), 0.0);
      for (int32 j = i + 1; j < n; j++) EXPECT_EQ(l(i, j), 0.0);
    }
    for (int32 i = 0; i < n; i++)
      for (int32 j = 0; j < n; j++) {
        double s = 0.0;
        for (int32 k = 0; k < n; k++) s += l(i, k) * l(j, k);
        EXPECT_NEAR(s, a(i, j), 1e-10 * MaxAbs(a)) << n << " " << i << " " << j;
      }
  }
}

TEST(Cholesky, KnownFactorAndLowerTriangleOnly) {
  // [4 2; 2 5] = [2 0; 1 2] [2 1; 0 2]; the 99 above the diagonal is ignored.
  Matrix<double> a(2, 2), l;
  a(0, 0) = 4; a(0, 1) = 99; a(1, 0) = 2; a(1, 1) = 5;
  ASSERT_TRUE(CholeskyLower(a, &l));
  EXPECT_DOUBLE_EQ(l(0, 0), 2.0);
  EXPECT_DOUBLE_EQ(l(1, 0), 1.0);
  EXPECT_DOUBLE_EQ(l(1, 1), 2.0);
  EXPECT_EQ(l(0, 1), 0.0);
}

TEST(Cholesky, RejectsIndefiniteAndSingular) {
  Matrix<double> a(2, 2), l;
  a(0, 0) = 1; a(1, 0) = a(0, 1) = 2; a(1, 1) = 1;  // eigenvalues 3, -1
  EXPECT_FALSE(CholeskyLower(a, &l));
  a(1, 1) = 4;  // singular: [1 2; 2 4]
  EXPECT_FALSE(CholeskyLower(a, &l));
  Matrix<double> z(3, 3);
  EXPECT_FALSE(CholeskyLower(z, &l));
}

TEST(InvertLowerTriangular, ProductIsIdentity) {
  std::mt19937 gen(5);
  for (int32 n : {1, 3, 12, 33}) {
    Matrix<double> a = RandomSpd(&gen, n, 0.5), l, li;
    ASSERT_TRUE(CholeskyLower(a, &l));
    InvertLowerTriangular(l, &li);
    for (int32 i = 0; i < n; i++)
      for (int32 j = 0; j < n; j++) {
        if (j > i) {
          EXPECT_EQ(li(i, j), 0.0);
        }
        double s = 0.0;
        for (int32 k = 0; k < n; k++) s += l(i, k) * li(k, j);
        EXPECT_NEAR(s, i == j ? 1.0 : 0.0, 1e-9) << n << " " << i << " " << j;
      }
  }
}

void CheckEigen(const Matrix<double> &a, const Vector<double> &w,
                const Matrix<double> &v, double tol) {
  const int32 n = a.NumRows();
  ASSERT_EQ(w.Dim(), n);
  ASSERT_EQ(v.NumRows(), n);
  ASSERT_EQ(v.NumCols(), n);
  for (int32 j = 0; j + 1 < n; j++) EXPECT_GE(w(j), w(j + 1));
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j < n; j++) {
      double av = 0.0, vtv = 0.0;
      for (int32 k = 0; k < n; k++) {
        av += a(i, k) * v(k, j);
        vtv += v(k, i) * v(k, j);
      }
      EXPECT_NEAR(av, w(j) * v(i, j), tol) << i << " " << j;
      EXPECT_NEAR(vtv, i == j ? 1.0 : 0.0, 1e-10) << i << " " << j;
    }
}

TEST(SymmetricEigen, RandomSymmetricMatrices) {
  std::mt19937 gen(3);
  for (int32 n : {1, 2, 3, 8, 25, 60}) {
    Matrix<double> a = RandomSymmetric(&gen, n), v;
    Vector<double> w;
    SymmetricEigen(a, &w, &v);
    CheckEigen(a, w, v, 1e-10 * std::max(1.0, MaxAbs(a)) * n);
    // The trace is the sum of the eigenvalues.
    double tr = 0.0;
    for (int32 i = 0; i < n; i++) tr += a(i, i);
    EXPECT_NEAR(w.Sum(), tr, 1e-9 * n);
  }
}

// U diag(lambda) U^T with U orthogonal (Gram-Schmidt of a Gaussian matrix).
Matrix<double> WithSpectrum(std::mt19937 *gen, const std::vector<double> &lambda) {
  const int32 n = lambda.size();
  std::normal_distribution<double> dist(0.0, 1.0);
  Matrix<double> u(n, n);
  for (int32 c = 0; c < n; c++) {
    std::vector<double> x(n);
    for (double &xi : x) xi = dist(*gen);
    for (int32 pass = 0; pass < 2; pass++)
      for (int32 prev = 0; prev < c; prev++) {
        double dot = 0.0;
        for (int32 r = 0; r < n; r++) dot += x[r] * u(r, prev);
        for (int32 r = 0; r < n; r++) x[r] -= dot * u(r, prev);
      }
    double norm = 0.0;
    for (double xi : x) norm += xi * xi;
    for (int32 r = 0; r < n; r++) u(r, c) = x[r] / std::sqrt(norm);
  }
  Matrix<double> a(n, n);
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j < n; j++) {
      double s = 0.0;
      for (int32 k = 0; k < n; k++) s += u(i, k) * lambda[k] * u(j, k);
      a(i, j) = s;
    }
  for (int32 i = 0; i < n; i++)  // exactly symmetric
    for (int32 j = 0; j < i; j++) a(j, i) = a(i, j);
  return a;
}

TEST(SymmetricEigen, KnownSpectra) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<double> unif(0.0, 1.0);
  for (int32 n : {2, 5, 20, 80, 200}) {
    // (a) log-uniform over 1e-6 .. 1e3, the shape of the natural gradient's
    // R x R matrices; (b) clusters and exact repeats of mixed sign.
    for (int32 kind = 0; kind < 2; kind++) {
      std::vector<double> lambda(n);
      for (int32 i = 0; i < n; i++)
        lambda[i] = kind == 0 ? std::pow(10.0, -6.0 + 9.0 * unif(gen))
                              : (i % 4 == 0 ? 3.0 : (i % 4 == 1 ? -1.0 : 
                                 3.0 + 1e-9 * i));
      Matrix<double> a = WithSpectrum(&gen, lambda), v;
      Vector<double> w;
      SymmetricEigen(a, &w, &v);
      std::vector<double> sorted(lambda);
      std::sort(sorted.rbegin(), sorted.rend());
      const double scale = std::max(std::abs(sorted.front()),
                                    std::abs(sorted.back()));
      for (int32 i = 0; i < n; i++)
        EXPECT_NEAR(w(i), sorted[i], 1e-12 * scale * n) << n << " " << i;
      CheckEigen(a, w, v, 1e-12 * scale * n);
    }
  }
}

TEST(SymmetricEigen, TridiagonalAndZeroColumns) {
  // Already tridiagonal (the reduction has nothing to do), with a zero
  // off-diagonal splitting it into blocks; and a matrix whose first column
  // is zero below the diagonal.
  const int32 n = 7;
  Matrix<double> t(n, n);
  for (int32 i = 0; i < n; i++) t(i, i) = 1.0 + i;
  for (int32 i = 0; i + 1 < n; i++)
    t(i + 1, i) = t(i, i + 1) = (i == 3 ? 0.0 : 0.5);
  Matrix<double> v;
  Vector<double> w;
  SymmetricEigen(t, &w, &v);
  CheckEigen(t, w, v, 1e-13);
  std::mt19937 gen(5);
  Matrix<double> z = RandomSymmetric(&gen, n);
  for (int32 i = 1; i < n; i++) z(i, 0) = z(0, i) = 0.0;
  SymmetricEigen(z, &w, &v);
  CheckEigen(z, w, v, 1e-12 * n * MaxAbs(z));
}

TEST(SymmetricEigen, HandDerived2x2AndRepeated) {
  // [2 1; 1 2]: eigenvalues 3 and 1, vectors (1, 1)/sqrt2 and (1, -1)/sqrt2.
  Matrix<double> a(2, 2), v;
  a(0, 0) = 2; a(1, 0) = 1; a(0, 1) = -50; a(1, 1) = 2;  // upper ignored
  Vector<double> w;
  SymmetricEigen(a, &w, &v);
  EXPECT_NEAR(w(0), 3.0, 1e-14);
  EXPECT_NEAR(w(1), 1.0, 1e-14);
  EXPECT_NEAR(std::abs(v(0, 0)), std::sqrt(0.5), 1e-14);
  EXPECT_NEAR(v(0, 0), v(1, 0), 1e-14);
  EXPECT_NEAR(v(0, 1), -v(1, 1), 1e-14);
  // A multiple of the identity (all eigenvalues equal) and a diagonal
  // matrix out of order.
  Matrix<double> id(4, 4);
  id.SetUnit();
  id.Scale(2.5);
  SymmetricEigen(id, &w, &v);
  CheckEigen(id, w, v, 1e-14);
  for (int32 i = 0; i < 4; i++) EXPECT_DOUBLE_EQ(w(i), 2.5);
  Matrix<double> d(3, 3);
  d(0, 0) = -1; d(1, 1) = 7; d(2, 2) = 0.5;
  SymmetricEigen(d, &w, &v);
  EXPECT_DOUBLE_EQ(w(0), 7.0);
  EXPECT_DOUBLE_EQ(w(1), 0.5);
  EXPECT_DOUBLE_EQ(w(2), -1.0);
  Matrix<double> empty;
  SymmetricEigen(empty, &w, &v);
  EXPECT_EQ(w.Dim(), 0);
}

TEST(GeneralizedEigen, SolvesBxEqualsLambdaWx) {
  // The composition that LDA uses: W = L L^T, C = inv(L) B inv(L)^T = U D U^T,
  // X = inv(L)^T U; then B X = W X D and X^T W X = I.
  std::mt19937 gen(8);
  const int32 n = 9;
  Matrix<double> w_mat = RandomSpd(&gen, n, 0.3), b = RandomSpd(&gen, n, 0.0);
  Matrix<double> l, li, tmp(n, n), c(n, n), u, x(n, n);
  ASSERT_TRUE(CholeskyLower(w_mat, &l));
  InvertLowerTriangular(l, &li);
  tmp.AddMatMat(1.0, li, kNoTrans, b, kNoTrans, 0.0);
  c.AddMatMat(1.0, tmp, kNoTrans, li, kTrans, 0.0);
  Vector<double> d;
  SymmetricEigen(c, &d, &u);
  x.AddMatMat(1.0, li, kTrans, u, kNoTrans, 0.0);
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j < n; j++) {
      double bx = 0.0, wx = 0.0, xwx = 0.0;
      for (int32 k = 0; k < n; k++) {
        bx += b(i, k) * x(k, j);
        wx += w_mat(i, k) * x(k, j);
      }
      for (int32 k = 0; k < n; k++)
        for (int32 m = 0; m < n; m++) xwx += x(k, i) * w_mat(k, m) * x(m, j);
      EXPECT_NEAR(bx, d(j) * wx, 1e-8 * MaxAbs(b));
      EXPECT_NEAR(xwx, i == j ? 1.0 : 0.0, 1e-9);
    }
}

}  // namespace
}  // namespace nnet3
