// cudamatrix/cuda/sparse.h
// Kernels for sparse matrices given as device arrays of (row, column,
// value) triplets (one per stored element): dst += alpha * op(S) and
// trace(op(A) S) with the CPU's meaning (matrix/sparse.h). Elements of the
// same position are summed (atomically), so the triplets need no order.
#ifndef NNET3_CUDAMATRIX_CUDA_SPARSE_H_
#define NNET3_CUDAMATRIX_CUDA_SPARSE_H_

#include "cudamatrix/cuda/device-view.h"
#include "matrix/common.h"

namespace nnet3 {
namespace cuda {

// trans == kNoTrans: dst(r, c) += alpha * v; kTrans: dst(c, r) += alpha * v.
template <typename Real>
void AddSparseToMat(DevMat<Real> dst, Scalar<Real> alpha, const int32 *rows,
                    const int32 *cols, const Real *values, int32 nnz,
                    MatrixTransposeType trans);
// kNoTrans: sum of A(c, r) * v (trace(A S)); kTrans: sum of A(r, c) * v
// (trace(A^T S)). Waits for the result.
template <typename Real>
Real TraceMatSparse(InMat<Real> a, const int32 *rows, const int32 *cols,
                    const Real *values, int32 nnz, MatrixTransposeType trans);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_SPARSE_H_
