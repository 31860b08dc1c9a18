// matrix/linalg.cc
// Cholesky factor, triangular inverse and symmetric eigendecomposition (see
// linalg.h). The eigensolver works on a full copy of A: for each pair
// (p, q) with p < q it applies the plane rotation that zeroes a(p, q) to
// rows and columns p and q (A <- J^T A J) and accumulates V <- V J, sweeping
// over all pairs until the off-diagonal mass is negligible next to the
// diagonal.
#include "matrix/linalg.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "base/log.h"

namespace nnet3 {

bool CholeskyLower(const MatrixBase<double> &A, Matrix<double> *L) {
  NNET3_ASSERT(A.NumRows() == A.NumCols());
  const int32 n = A.NumRows();
  L->Resize(n, n);  // zeroed
  for (int32 j = 0; j < n; j++) {
    const double *lj = L->RowData(j);
    double d = A(j, j);
    for (int32 k = 0; k < j; k++) d -= lj[k] * lj[k];
    if (!(d > 0.0) || !std::isfinite(d)) return false;
    const double ljj = std::sqrt(d);
    (*L)(j, j) = ljj;
    for (int32 i = j + 1; i < n; i++) {
      const double *li = L->RowData(i);
      double s = A(i, j);
      for (int32 k = 0; k < j; k++) s -= li[k] * lj[k];
      (*L)(i, j) = s / ljj;
    }
  }
  return true;
}

void InvertLowerTriangular(const MatrixBase<double> &L, Matrix<double> *L_inv) {
  NNET3_ASSERT(L.NumRows() == L.NumCols());
  const int32 n = L.NumRows();
  L_inv->Resize(n, n);  // zeroed
  // Column j of inv(L) solves L x = e_j; x is zero above row j.
  for (int32 j = 0; j < n; j++) {
    for (int32 i = j; i < n; i++) {
      double s = (i == j ? 1.0 : 0.0);
      for (int32 k = j; k < i; k++) s -= L(i, k) * (*L_inv)(k, j);
      NNET3_ASSERT(L(i, i) != 0.0);
      (*L_inv)(i, j) = s / L(i, i);
    }
  }
}

void SymmetricEigen(const MatrixBase<double> &A, Vector<double> *w,
                    Matrix<double> *V) {
  NNET3_ASSERT(A.NumRows() == A.NumCols());
  const int32 n = A.NumRows();
  Matrix<double> a(n, n);
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j <= i; j++) a(i, j) = a(j, i) = A(i, j);
  Matrix<double> v(n, n);
  v.SetUnit();

  double total = 0.0;
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j < n; j++) total += a(i, j) * a(i, j);
  const double eps = std::numeric_limits<double>::epsilon();
  for (int32 sweep = 0; sweep < 100; sweep++) {
    double off = 0.0;
    for (int32 p = 0; p < n; p++)
      for (int32 q = p + 1; q < n; q++) off += a(p, q) * a(p, q);
    if (off <= eps * eps * total || off == 0.0) break;
    for (int32 p = 0; p < n; p++) {
      for (int32 q = p + 1; q < n; q++) {
        const double apq = a(p, q);
        if (apq == 0.0) continue;
        // Skip elements already negligible next to both diagonal entries.
        if (std::abs(apq) < eps * 1e-3 * std::sqrt(std::abs(a(p, p) * a(q, q))))
          continue;
        // t = tan(angle) is the smaller root of t^2 + 2 theta t - 1 = 0,
        // which makes the rotated a(p, q) zero.
        const double theta = (a(q, q) - a(p, p)) / (2.0 * apq);
        const double t = (theta >= 0.0 ? 1.0 : -1.0) /
                         (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int32 k = 0; k < n; k++) {  // columns p, q of a
          const double akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq;
          a(k, q) = s * akp + c * akq;
        }
        double *rp = a.RowData(p), *rq = a.RowData(q);
        for (int32 k = 0; k < n; k++) {  // rows p, q of a
          const double apk = rp[k], aqk = rq[k];
          rp[k] = c * apk - s * aqk;
          rq[k] = s * apk + c * aqk;
        }
        a(p, q) = a(q, p) = 0.0;
        for (int32 k = 0; k < n; k++) {  // columns p, q of v
          const double vkp = v(k, p), vkq = v(k, q);
          v(k, p) = c * vkp - s * vkq;
          v(k, q) = s * vkp + c * vkq;
        }
      }
    }
  }

  std::vector<int32> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&a](int32 x, int32 y) { return a(x, x) > a(y, y); });
  w->Resize(n);
  V->Resize(n, n);
  for (int32 j = 0; j < n; j++) {
    (*w)(j) = a(order[j], order[j]);
    for (int32 k = 0; k < n; k++) (*V)(k, j) = v(k, order[j]);
  }
}

}  // namespace nnet3
