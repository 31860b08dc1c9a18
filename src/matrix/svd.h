// matrix/svd.h
// Thin singular value decomposition of a dense matrix, A = U diag(s) Vt,
// computed by one-sided (Hestenes) Jacobi rotations in double precision
// whatever the element type of A.
//
// For A with m rows and n columns and k = min(m, n) the outputs are resized
// to: s with k elements, U with m rows and k columns, Vt with k rows and n
// columns. Guarantees: the singular values are >= 0 and sorted from largest
// to smallest; the columns of U and the rows of Vt are orthonormal (a zero
// singular value gets a unit vector orthogonal to the others, so U and Vt
// stay orthonormal even for rank-deficient A); U diag(s) Vt reproduces A to
// about machine precision of double relative to the largest singular value.
//
// Used by the nnet3 edit directives reduce-rank and apply-svd. Cost is
// O(k^2 max(m, n)) per sweep, with typically 6-12 sweeps.
#ifndef NNET3_MATRIX_SVD_H_
#define NNET3_MATRIX_SVD_H_

#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {

// Computes the thin SVD described above. A may be empty (0 x 0), giving
// empty outputs. Works for Real = float and double; the computation is done
// in double and the results are rounded to Real.
template <typename Real>
void ThinSvd(const MatrixBase<Real> &A, Vector<Real> *s, Matrix<Real> *U,
             Matrix<Real> *Vt);

}  // namespace nnet3

#endif  // NNET3_MATRIX_SVD_H_
