// cudamatrix/cuda/gemm.h
// BLAS levels 2 and 3 on the GPU through cuBLAS, the device counterparts of
// MatrixBase::AddMatMat, VectorBase::AddMatVec and MatrixBase::AddVecVec
// (matrix/matrix.h, vector.h), same arguments and results:
//   AddMatMat: C = beta * C + alpha * op(A) * op(B)
//   AddMatVec: y = beta * y + alpha * op(M) * x
//   AddVecVec: M += alpha * a * b^T
// As on the CPU, beta == 0 ignores the old contents of the output (NaN
// included), an empty inner dimension only scales the output by beta, and
// inputs must not alias the output. cuBLAS is column-major; a row-major
// matrix is its transpose in column-major terms, so each call is made on
// the transposed problem (C^T = op(B)^T op(A)^T) with the strides as
// leading dimensions. Float GEMMs use TF32 tensor cores only after
// SetTf32(true) (context.h). Enqueued on Stream() without waiting.
#ifndef NNET3_CUDAMATRIX_CUDA_GEMM_H_
#define NNET3_CUDAMATRIX_CUDA_GEMM_H_

#include "cudamatrix/cuda/device-view.h"
#include "matrix/common.h"

namespace nnet3 {
namespace cuda {

template <typename Real>
void AddMatMat(DevMat<Real> C, Scalar<Real> alpha, InMat<Real> A,
               MatrixTransposeType transA, InMat<Real> B,
               MatrixTransposeType transB, Scalar<Real> beta);
template <typename Real>
void AddMatVec(DevVec<Real> y, Scalar<Real> alpha, InMat<Real> M,
               MatrixTransposeType trans, InVec<Real> x, Scalar<Real> beta);
template <typename Real>
void AddVecVec(DevMat<Real> M, Scalar<Real> alpha, InVec<Real> a,
               InVec<Real> b);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_GEMM_H_
