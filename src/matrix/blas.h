// matrix/blas.h
// Thin overloads that pick cblas_s* or cblas_d* by the element type, so the
// templated matrix code calls one name for float and double. Row-major
// throughout. Only this header includes cblas.h. Large GEMMs go to the
// library's row threads when BLAS runs on one thread (matrix/blas-threads.h).
#ifndef NNET3_MATRIX_BLAS_H_
#define NNET3_MATRIX_BLAS_H_

#include <cblas.h>

#include "base/profile.h"
#include "matrix/blas-threads.h"
#include "matrix/common.h"

namespace nnet3 {
namespace blas {

inline CBLAS_TRANSPOSE Trans(MatrixTransposeType t) {
  return t == kTrans ? CblasTrans : CblasNoTrans;
}

inline void gemm(MatrixTransposeType ta, MatrixTransposeType tb, int m, int n,
                 int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc) {
  ProfileScope scope("GEMM", kProfileNaturalGradient,
                     "GEMM in natural gradient");
  if (static_cast<double>(m) * n * k >= kMinSplitGemmWork &&
      GemmOnRowThreads(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
    return;
  cblas_sgemm(CblasRowMajor, Trans(ta), Trans(tb), m, n, k, alpha, a, lda, b,
              ldb, beta, c, ldc);
}
inline void gemm(MatrixTransposeType ta, MatrixTransposeType tb, int m, int n,
                 int k, double alpha, const double *a, int lda,
                 const double *b, int ldb, double beta, double *c, int ldc) {
  ProfileScope scope("GEMM", kProfileNaturalGradient,
                     "GEMM in natural gradient");
  if (static_cast<double>(m) * n * k >= kMinSplitGemmWork &&
      GemmOnRowThreads(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc))
    return;
  cblas_dgemm(CblasRowMajor, Trans(ta), Trans(tb), m, n, k, alpha, a, lda, b,
              ldb, beta, c, ldc);
}
inline void gemv(MatrixTransposeType t, int m, int n, float alpha,
                 const float *a, int lda, const float *x, int incx,
                 float beta, float *y, int incy) {
  ProfileScope scope("GEMV/GER");
  cblas_sgemv(CblasRowMajor, Trans(t), m, n, alpha, a, lda, x, incx, beta, y,
              incy);
}
inline void gemv(MatrixTransposeType t, int m, int n, double alpha,
                 const double *a, int lda, const double *x, int incx,
                 double beta, double *y, int incy) {
  ProfileScope scope("GEMV/GER");
  cblas_dgemv(CblasRowMajor, Trans(t), m, n, alpha, a, lda, x, incx, beta, y,
              incy);
}
inline void ger(int m, int n, float alpha, const float *x, int incx,
                const float *y, int incy, float *a, int lda) {
  ProfileScope scope("GEMV/GER");
  cblas_sger(CblasRowMajor, m, n, alpha, x, incx, y, incy, a, lda);
}
inline void ger(int m, int n, double alpha, const double *x, int incx,
                const double *y, int incy, double *a, int lda) {
  ProfileScope scope("GEMV/GER");
  cblas_dger(CblasRowMajor, m, n, alpha, x, incx, y, incy, a, lda);
}
inline void axpy(int n, float alpha, const float *x, int incx, float *y,
                 int incy) {
  cblas_saxpy(n, alpha, x, incx, y, incy);
}
inline void axpy(int n, double alpha, const double *x, int incx, double *y,
                 int incy) {
  cblas_daxpy(n, alpha, x, incx, y, incy);
}
inline float dot(int n, const float *x, int incx, const float *y, int incy) {
  return cblas_sdot(n, x, incx, y, incy);
}
inline double dot(int n, const double *x, int incx, const double *y,
                  int incy) {
  return cblas_ddot(n, x, incx, y, incy);
}
inline void scal(int n, float alpha, float *x, int incx) {
  cblas_sscal(n, alpha, x, incx);
}
inline void scal(int n, double alpha, double *x, int incx) {
  cblas_dscal(n, alpha, x, incx);
}

}  // namespace blas
}  // namespace nnet3

#endif  // NNET3_MATRIX_BLAS_H_
