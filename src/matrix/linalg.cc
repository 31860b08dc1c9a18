// matrix/linalg.cc
// Cholesky factor, triangular inverse and symmetric eigendecomposition (see
// linalg.h). The eigensolver reduces a full copy of A to tridiagonal form
// with Householder reflections, then diagonalizes that with implicit QR steps
// (Wilkinson shifts, bulge chasing by plane rotations), accumulating every
// transformation into V (kept transposed, so that every update runs along
// contiguous rows): O(n^3) with a small constant, where the cyclic Jacobi
// method it replaced took several sweeps of 3 n^3 each.
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

namespace {

// Householder reduction of the symmetric n x n matrix in 'a' (row-major, full
// copy) to tridiagonal form: on return qt holds Q^T (row-major; row i is
// column i of the orthogonal Q) with Q^T A Q = T, diag holds T's diagonal
// and off[i] its element (i, i+1).
void Tridiagonalize(int32 n, std::vector<double> *a_io,
                    std::vector<double> *qt, std::vector<double> *diag,
                    std::vector<double> *off) {
  std::vector<double> &a = *a_io;
  qt->assign(static_cast<size_t>(n) * n, 0.0);
  for (int32 i = 0; i < n; i++) (*qt)[i * n + i] = 1.0;
  std::vector<double> v(n), p(n), w(n);
  for (int32 k = 0; k + 2 < n; k++) {
    // The reflector H = I - 2 v v^T / (v^T v) maps column k below the
    // diagonal, x = a(k+1.., k), onto alpha e_1.
    double norm2 = 0.0;
    for (int32 i = k + 1; i < n; i++) norm2 += a[i * n + k] * a[i * n + k];
    if (norm2 == 0.0) continue;
    const double x0 = a[(k + 1) * n + k];
    const double alpha = (x0 >= 0.0 ? -1.0 : 1.0) * std::sqrt(norm2);
    double vtv = 0.0;
    for (int32 i = k + 1; i < n; i++) {
      v[i] = a[i * n + k] - (i == k + 1 ? alpha : 0.0);
      vtv += v[i] * v[i];
    }
    if (vtv == 0.0) continue;
    const double beta = 2.0 / vtv;
    // Trailing block B <- H B H = B - v w^T - w v^T with p = beta B v,
    // w = p - (beta/2) (v^T p) v.
    double vtp = 0.0;
    for (int32 i = k + 1; i < n; i++) {
      double s = 0.0;
      const double *ai = &a[i * n];
      for (int32 j = k + 1; j < n; j++) s += ai[j] * v[j];
      p[i] = beta * s;
      vtp += v[i] * p[i];
    }
    for (int32 i = k + 1; i < n; i++) w[i] = p[i] - 0.5 * beta * vtp * v[i];
    for (int32 i = k + 1; i < n; i++) {
      double *ai = &a[i * n];
      for (int32 j = k + 1; j < n; j++) ai[j] -= v[i] * w[j] + w[i] * v[j];
    }
    a[(k + 1) * n + k] = a[k * n + k + 1] = alpha;
    for (int32 i = k + 2; i < n; i++) a[i * n + k] = a[k * n + i] = 0.0;
    // Q^T <- H Q^T, a row at a time (contiguous loops).
    std::fill(p.begin(), p.end(), 0.0);
    for (int32 j = k + 1; j < n; j++) {
      const double *qj = &(*qt)[j * n];
      const double vj = v[j];
      for (int32 r = 0; r < n; r++) p[r] += vj * qj[r];
    }
    for (int32 j = k + 1; j < n; j++) {
      double *qj = &(*qt)[j * n];
      const double bv = beta * v[j];
      for (int32 r = 0; r < n; r++) qj[r] -= bv * p[r];
    }
  }
  diag->resize(n);
  off->assign(n, 0.0);
  for (int32 i = 0; i < n; i++) (*diag)[i] = a[i * n + i];
  for (int32 i = 0; i + 1 < n; i++) (*off)[i] = a[(i + 1) * n + i];
}

// Diagonalizes the symmetric tridiagonal matrix (diag, off) by implicit QR
// steps with Wilkinson shifts, applying every rotation to the rows of qt
// (Q^T, row-major n x n). Returns false if it gave up after 30 n steps.
bool TridiagonalQr(int32 n, std::vector<double> *diag_io,
                   std::vector<double> *off_io, std::vector<double> *qt) {
  std::vector<double> &d = *diag_io, &e = *off_io;
  const double eps = std::numeric_limits<double>::epsilon();
  int32 hi = n - 1, steps = 0;
  const int32 max_steps = 30 * std::max(n, 1);
  while (hi > 0) {
    if (std::abs(e[hi - 1]) <=
        eps * (std::abs(d[hi - 1]) + std::abs(d[hi]))) {
      e[hi - 1] = 0.0;
      hi--;
      continue;
    }
    // lo: the first index of the unreduced block that ends at hi.
    int32 lo = hi - 1;
    while (lo > 0 &&
           std::abs(e[lo - 1]) > eps * (std::abs(d[lo - 1]) + std::abs(d[lo])))
      lo--;
    if (lo > 0) e[lo - 1] = 0.0;
    if (++steps > max_steps) return false;
    // Wilkinson shift: the eigenvalue of the trailing 2 x 2 block nearer to
    // its last diagonal element.
    const double delta = 0.5 * (d[hi - 1] - d[hi]), b = e[hi - 1];
    const double mu =
        d[hi] - b * b / (delta + (delta >= 0.0 ? 1.0 : -1.0) *
                                     std::hypot(delta, b));
    // Chase the bulge from (lo, lo) down the block with plane rotations
    // R = [c s; -s c] on coordinates (k, k+1), T <- R^T T R.
    double x = d[lo] - mu, z = e[lo];
    for (int32 k = lo; k < hi; k++) {
      const double r = std::hypot(x, z);
      double c = 1.0, s = 0.0;
      if (r != 0.0) {
        c = x / r;
        s = -z / r;
      }
      if (k > lo) e[k - 1] = r;  // x was e[k-1], z the bulge
      const double dk = d[k], dk1 = d[k + 1], ek = e[k];
      d[k] = c * c * dk - 2.0 * c * s * ek + s * s * dk1;
      d[k + 1] = s * s * dk + 2.0 * c * s * ek + c * c * dk1;
      e[k] = c * s * (dk - dk1) + (c * c - s * s) * ek;
      if (k + 1 < hi) {
        z = -s * e[k + 1];  // the new bulge at (k, k+2)
        e[k + 1] *= c;
        x = e[k];
      }
      double *qk = &(*qt)[k * n], *qk1 = &(*qt)[(k + 1) * n];
      for (int32 col = 0; col < n; col++) {  // columns k, k+1 of Q
        const double x0 = qk[col], x1 = qk1[col];
        qk[col] = c * x0 - s * x1;
        qk1[col] = s * x0 + c * x1;
      }
    }
  }
  return true;
}

}  // namespace

void SymmetricEigen(const MatrixBase<double> &A, Vector<double> *w,
                    Matrix<double> *V) {
  NNET3_ASSERT(A.NumRows() == A.NumCols());
  const int32 n = A.NumRows();
  std::vector<double> a(static_cast<size_t>(n) * n);
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j <= i; j++) a[i * n + j] = a[j * n + i] = A(i, j);
  std::vector<double> qt, diag, off;
  Tridiagonalize(n, &a, &qt, &diag, &off);
  // QR with Wilkinson shifts always converges on finite input (in about
  // two steps per eigenvalue); the step limit only ends the loop on
  // non-finite input, whose results are then not finite either.
  TridiagonalQr(n, &diag, &off, &qt);

  std::vector<int32> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&diag](int32 x, int32 y) { return diag[x] > diag[y]; });
  w->Resize(n);
  V->Resize(n, n);
  for (int32 j = 0; j < n; j++) {
    (*w)(j) = diag[order[j]];
    const double *col = &qt[order[j] * n];
    for (int32 k = 0; k < n; k++) (*V)(k, j) = col[k];
  }
}

}  // namespace nnet3
