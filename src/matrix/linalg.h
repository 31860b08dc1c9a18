// matrix/linalg.h
// Dense symmetric linear algebra in double precision: the Cholesky factor of
// a symmetric positive definite matrix, the inverse of a lower-triangular
// matrix, and the eigendecomposition of a symmetric matrix. Together they
// solve the generalized symmetric eigenproblem B x = lambda W x (W positive
// definite) that LDA-like transforms need: with W = L L^T, the eigenvectors
// of inv(L) B inv(L)^T, mapped back through inv(L)^T.
//
// Inputs are square; only the lower triangle (diagonal included) of a
// "symmetric" input is read, so a matrix whose upper triangle holds rounding
// noise gives the same result as its exact symmetric counterpart.
// Guarantees are stated with each function. Sizes are small (feature
// dimensions, a few hundred), so the code favours clarity over blocking.
#ifndef NNET3_MATRIX_LINALG_H_
#define NNET3_MATRIX_LINALG_H_

#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {

// Computes the lower-triangular L with a positive diagonal such that
// L L^T = A, A symmetric (lower triangle read). Returns false, leaving *L
// unspecified, if A is not numerically positive definite (a pivot <= 0 or
// not finite). *L is resized to A's size; its upper triangle is zero.
bool CholeskyLower(const MatrixBase<double> &A, Matrix<double> *L);

// *L_inv = inv(L) for lower-triangular L (upper triangle ignored) by
// forward substitution; L_inv is lower triangular. A zero diagonal element
// is an internal error (callers pass Cholesky factors).
void InvertLowerTriangular(const MatrixBase<double> &L, Matrix<double> *L_inv);

// A = V diag(w) V^T for symmetric A (lower triangle read), by Householder
// tridiagonalization and implicit QR. On return w holds the eigenvalues from largest to smallest and
// the columns of V the matching orthonormal eigenvectors. A 0 x 0 input
// gives empty outputs.
void SymmetricEigen(const MatrixBase<double> &A, Vector<double> *w,
                    Matrix<double> *V);

}  // namespace nnet3

#endif  // NNET3_MATRIX_LINALG_H_
