// cudamatrix/cuda/gemm.cu
// cuBLAS calls behind gemm.h; the row-major to column-major mapping is
// explained there.
#include "cudamatrix/cuda/gemm.h"

#include "cudamatrix/cuda/copy-set.h"
#include "cudamatrix/cuda/cublas-loader.h"
#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

namespace {

cublasOperation_t Op(MatrixTransposeType t) {
  return t == kTrans ? CUBLAS_OP_T : CUBLAS_OP_N;
}

// Overloads by precision; column-major arguments as cuBLAS documents them.
void Gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
          float alpha, const float *a, int lda, const float *b, int ldb,
          float beta, float *c, int ldc) {
  NNET3_CUBLAS_CHECK(Cublas().Sgemm(BlasHandle(), ta, tb, m, n, k, &alpha, a, lda,
                                 b, ldb, &beta, c, ldc));
}
void Gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
          double alpha, const double *a, int lda, const double *b, int ldb,
          double beta, double *c, int ldc) {
  NNET3_CUBLAS_CHECK(Cublas().Dgemm(BlasHandle(), ta, tb, m, n, k, &alpha, a, lda,
                                 b, ldb, &beta, c, ldc));
}
void Gemv(cublasOperation_t t, int m, int n, float alpha, const float *a,
          int lda, const float *x, float beta, float *y) {
  NNET3_CUBLAS_CHECK(
      Cublas().Sgemv(BlasHandle(), t, m, n, &alpha, a, lda, x, 1, &beta, y, 1));
}
void Gemv(cublasOperation_t t, int m, int n, double alpha, const double *a,
          int lda, const double *x, double beta, double *y) {
  NNET3_CUBLAS_CHECK(
      Cublas().Dgemv(BlasHandle(), t, m, n, &alpha, a, lda, x, 1, &beta, y, 1));
}
void Ger(int m, int n, float alpha, const float *x, const float *y, float *a,
         int lda) {
  NNET3_CUBLAS_CHECK(Cublas().Sger(BlasHandle(), m, n, &alpha, x, 1, y, 1, a, lda));
}
void Ger(int m, int n, double alpha, const double *x, const double *y,
         double *a, int lda) {
  NNET3_CUBLAS_CHECK(Cublas().Dger(BlasHandle(), m, n, &alpha, x, 1, y, 1, a, lda));
}

// y = beta * y, zeros when beta == 0 (as VectorBase::Scale).
template <typename Real>
void ScaleVec(DevVec<Real> y, Real beta) {
  if (y.dim == 0 || beta == Real(1)) return;
  if (beta == Real(0)) {
    NNET3_CUDA_CHECK(
        cudaMemsetAsync(y.data, 0, sizeof(Real) * y.dim, Stream()));
    return;
  }
  internal::ForEachIndex(y.dim, [=] __device__(int32 i) { y[i] *= beta; });
}

}  // namespace

template <typename Real>
void AddMatMat(DevMat<Real> C, Scalar<Real> alpha, InMat<Real> A,
               MatrixTransposeType transA, InMat<Real> B,
               MatrixTransposeType transB, Scalar<Real> beta) {
  int32 m = transA == kNoTrans ? A.rows : A.cols,
        k = transA == kNoTrans ? A.cols : A.rows,
        kb = transB == kNoTrans ? B.rows : B.cols,
        n = transB == kNoTrans ? B.cols : B.rows;
  // Empty matrices have no columns either, so 0 may meet a nonzero inner
  // dimension (as on the CPU).
  NNET3_ASSERT(k == kb || A.rows == 0 || B.rows == 0);
  NNET3_ASSERT(m == C.rows || C.rows == 0);
  NNET3_ASSERT(n == C.cols || C.rows == 0);
  NNET3_ASSERT(static_cast<const Real *>(C.data) != A.data || C.rows == 0);
  NNET3_ASSERT(static_cast<const Real *>(C.data) != B.data || C.rows == 0);
  if (C.rows == 0) return;
  if (k == 0 || kb == 0) {
    Scale(C, beta);
    return;
  }
  // Column-major: C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m).
  Gemm(Op(transB), Op(transA), n, m, k, alpha, B.data, B.stride, A.data,
       A.stride, beta, C.data, C.stride);
}

template <typename Real>
void AddMatVec(DevVec<Real> y, Scalar<Real> alpha, InMat<Real> M,
               MatrixTransposeType trans, InVec<Real> x, Scalar<Real> beta) {
  NNET3_ASSERT((trans == kNoTrans && M.cols == x.dim && M.rows == y.dim) ||
               (trans == kTrans && M.rows == x.dim && M.cols == y.dim));
  NNET3_ASSERT(static_cast<const Real *>(y.data) != x.data || y.dim == 0);
  if (y.dim == 0) return;
  if (M.rows == 0 || M.cols == 0) {
    ScaleVec<Real>(y, beta);
    return;
  }
  if (beta == Real(0)) ScaleVec<Real>(y, Real(0));  // NaN cannot leak in
  // Column-major, M is the M.cols x M.rows matrix M^T: y = M x is
  // (M^T)^T x, so the operation flips.
  Gemv(trans == kNoTrans ? CUBLAS_OP_T : CUBLAS_OP_N, M.cols, M.rows, alpha,
       M.data, M.stride, x.data, beta, y.data);
}

template <typename Real>
void AddVecVec(DevMat<Real> M, Scalar<Real> alpha, InVec<Real> a,
               InVec<Real> b) {
  NNET3_ASSERT(a.dim == M.rows && b.dim == M.cols);
  if (M.rows == 0) return;
  // Column-major: M^T (cols x rows) += alpha * b * a^T.
  Ger(M.cols, M.rows, alpha, b.data, a.data, M.data, M.stride);
}

#define NNET3_INSTANTIATE_GEMM(R)                                          \
  template void AddMatMat(DevMat<R>, Scalar<R>, InMat<R>,                  \
                          MatrixTransposeType, InMat<R>,                   \
                          MatrixTransposeType, Scalar<R>);                 \
  template void AddMatVec(DevVec<R>, Scalar<R>, InMat<R>,                  \
                          MatrixTransposeType, InVec<R>, Scalar<R>);       \
  template void AddVecVec(DevMat<R>, Scalar<R>, InVec<R>, InVec<R>);

NNET3_INSTANTIATE_GEMM(float)
NNET3_INSTANTIATE_GEMM(double)

}  // namespace cuda
}  // namespace nnet3
