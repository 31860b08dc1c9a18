// matrix/svd.cc
// One-sided Jacobi SVD (see svd.h).
//
// Method: let G be the k x L "wide" orientation of A (G = A^T when A has at
// least as many rows as columns, else G = A; k = min(m, n), L = max(m, n)).
// Plane rotations are applied to pairs of rows of G until every pair is
// orthogonal to within a relative tolerance; the same rotations are applied
// to R, a k x k matrix that starts as the identity. Afterwards R G0 = G with
// R orthogonal, the row norms of G are the singular values, the normalized
// rows of G are one set of singular vectors and the rows of R the other.
#include "matrix/svd.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace nnet3 {

namespace {

double RowDot(const double *a, const double *b, int32 len) {
  // Four interleaved partial sums let the compiler use vector registers.
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int32 i = 0;
  for (; i + 4 <= len; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < len; i++) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

// Replaces (x, y) by (c x - s y, s x + c y) elementwise.
void RotatePair(double c, double s, int32 len, double *x, double *y) {
  for (int32 i = 0; i < len; i++) {
    double xi = x[i], yi = y[i];
    x[i] = c * xi - s * yi;
    y[i] = s * xi + c * yi;
  }
}

// Rotates pairs of rows of g (num x len) until they are mutually orthogonal,
// applying each rotation also to the rows of r (num x num).
void OrthogonalizeRows(int32 num, int32 len, std::vector<double> *g,
                       std::vector<double> *r) {
  // A pair counts as orthogonal when |<gp, gq>| <= tol |gp| |gq|; the
  // tolerance allows for the rounding error of a length-len dot product.
  const double tol =
      1.0e-15 * std::max(1.0, std::sqrt(static_cast<double>(len)));
  const int32 max_sweeps = 80;
  std::vector<double> sq_norm(num);
  for (int32 sweep = 0; sweep < max_sweeps; sweep++) {
    for (int32 p = 0; p < num; p++) {
      const double *gp = g->data() + static_cast<size_t>(p) * len;
      sq_norm[p] = RowDot(gp, gp, len);
    }
    bool any_rotation = false;
    for (int32 p = 0; p + 1 < num; p++) {
      double *gp = g->data() + static_cast<size_t>(p) * len;
      for (int32 q = p + 1; q < num; q++) {
        double a = sq_norm[p], b = sq_norm[q];
        if (a == 0.0 || b == 0.0) continue;
        double *gq = g->data() + static_cast<size_t>(q) * len;
        double cross = RowDot(gp, gq, len);
        if (std::fabs(cross) <= tol * std::sqrt(a) * std::sqrt(b)) continue;
        any_rotation = true;
        // tan of the angle that zeroes the cross term, smaller root.
        double zeta = (b - a) / (2.0 * cross);
        double t = (zeta >= 0.0 ? 1.0 : -1.0) /
                   (std::fabs(zeta) + std::sqrt(1.0 + zeta * zeta));
        double c = 1.0 / std::sqrt(1.0 + t * t), s = c * t;
        RotatePair(c, s, len, gp, gq);
        RotatePair(c, s, num, r->data() + static_cast<size_t>(p) * num,
                   r->data() + static_cast<size_t>(q) * num);
        sq_norm[p] = a - t * cross;
        sq_norm[q] = b + t * cross;
      }
    }
    if (!any_rotation) break;
  }
}

// Makes row 'j' of q (rows of length len) a unit vector orthogonal to the
// rows listed in 'done', using the coordinate axis that survives
// projection best enough (one always exists because done.size() < len).
void CompleteRow(int32 j, const std::vector<int32> &done, int32 len,
                 std::vector<double> *q) {
  double *row = q->data() + static_cast<size_t>(j) * len;
  const double min_sq_norm = 0.5 / len;
  for (int32 axis = 0; axis < len; axis++) {
    std::fill(row, row + len, 0.0);
    row[axis] = 1.0;
    for (int32 pass = 0; pass < 2; pass++) {
      for (int32 other : done) {
        const double *o = q->data() + static_cast<size_t>(other) * len;
        double proj = RowDot(row, o, len);
        for (int32 i = 0; i < len; i++) row[i] -= proj * o[i];
      }
    }
    double sq = RowDot(row, row, len);
    if (sq >= min_sq_norm) {
      double scale = 1.0 / std::sqrt(sq);
      for (int32 i = 0; i < len; i++) row[i] *= scale;
      return;
    }
  }
  NNET3_ASSERT(false && "could not complete an orthonormal basis");
}

}  // namespace

template <typename Real>
void ThinSvd(const MatrixBase<Real> &A, Vector<Real> *s, Matrix<Real> *U,
             Matrix<Real> *Vt) {
  const int32 m = A.NumRows(), n = A.NumCols();
  const bool tall = m >= n;
  const int32 k = std::min(m, n), len = std::max(m, n);
  s->Resize(k);
  U->Resize(m, k);
  Vt->Resize(k, n);
  if (k == 0) return;

  std::vector<double> g(static_cast<size_t>(k) * len), r(
      static_cast<size_t>(k) * k, 0.0);
  for (int32 i = 0; i < m; i++)
    for (int32 j = 0; j < n; j++) {
      // Row index of g is the short dimension.
      size_t pos = tall ? static_cast<size_t>(j) * len + i
                        : static_cast<size_t>(i) * len + j;
      g[pos] = static_cast<double>(A(i, j));
    }
  for (int32 i = 0; i < k; i++) r[static_cast<size_t>(i) * k + i] = 1.0;

  OrthogonalizeRows(k, len, &g, &r);

  std::vector<double> sv(k);
  for (int32 i = 0; i < k; i++) {
    const double *gi = g.data() + static_cast<size_t>(i) * len;
    sv[i] = std::sqrt(RowDot(gi, gi, len));
  }
  std::vector<int32> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&sv](int32 a, int32 b) { return sv[a] > sv[b]; });

  // Normalize the rows of g; rows with a (numerically) zero norm are
  // replaced afterwards by unit vectors orthogonal to all the others.
  const double zero_norm = 1.0e-280;
  std::vector<int32> normalized, null_rows;
  for (int32 idx : order) {
    double *gi = g.data() + static_cast<size_t>(idx) * len;
    if (sv[idx] > zero_norm) {
      double scale = 1.0 / sv[idx];
      for (int32 i = 0; i < len; i++) gi[i] *= scale;
      normalized.push_back(idx);
    } else {
      sv[idx] = 0.0;
      null_rows.push_back(idx);
    }
  }
  for (int32 idx : null_rows) {
    CompleteRow(idx, normalized, len, &g);
    normalized.push_back(idx);
  }

  for (int32 j = 0; j < k; j++) {
    int32 idx = order[j];
    (*s)(j) = static_cast<Real>(sv[idx]);
    const double *gi = g.data() + static_cast<size_t>(idx) * len;
    const double *ri = r.data() + static_cast<size_t>(idx) * k;
    if (tall) {
      // A = G^T R: the normalized rows of G are columns of U, R's rows are
      // rows of Vt.
      for (int32 i = 0; i < m; i++) (*U)(i, j) = static_cast<Real>(gi[i]);
      for (int32 c = 0; c < n; c++) (*Vt)(j, c) = static_cast<Real>(ri[c]);
    } else {
      // A = R^T G: R's rows are columns of U, the rows of G rows of Vt.
      for (int32 i = 0; i < m; i++) (*U)(i, j) = static_cast<Real>(ri[i]);
      for (int32 c = 0; c < n; c++) (*Vt)(j, c) = static_cast<Real>(gi[c]);
    }
  }
}

template void ThinSvd(const MatrixBase<float> &A, Vector<float> *s,
                      Matrix<float> *U, Matrix<float> *Vt);
template void ThinSvd(const MatrixBase<double> &A, Vector<double> *s,
                      Matrix<double> *U, Matrix<double> *Vt);

}  // namespace nnet3
