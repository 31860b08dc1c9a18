// cudamatrix/cuda/broadcast.h
// Matrix-with-vector operations on the GPU (a vector broadcast along the
// rows or the columns of a matrix): the device counterparts of the
// MatrixBase methods of the same names (matrix/matrix.h), same argument
// order and results, the CPU's "this" first. Enqueued on Stream() without
// waiting; dimensions are checked on the host.
// As on the CPU, beta == 0 ignores the old contents of the destination (a
// NaN there does not survive); for AddVecToRows and AddVecToCols beta == 1
// adds. AddDiagVecMat/AddMatDiagVec with kNoTrans may have M == dst; with
// kTrans, M must not overlap dst.
#ifndef NNET3_CUDAMATRIX_CUDA_BROADCAST_H_
#define NNET3_CUDAMATRIX_CUDA_BROADCAST_H_

#include "cudamatrix/cuda/device-view.h"
#include "matrix/common.h"

namespace nnet3 {
namespace cuda {

// Row r of m *= scale[r] (scale.dim == rows).
template <typename Real> void MulRowsVec(DevMat<Real> m, InVec<Real> scale);
template <typename Real> void DivRowsVec(DevMat<Real> m, InVec<Real> div);
// Column c of m *= scale[c] (scale.dim == cols).
template <typename Real> void MulColsVec(DevMat<Real> m, InVec<Real> scale);
// m(r, c) = beta * m(r, c) + alpha * v[c]   (v.dim == cols).
template <typename Real>
void AddVecToRows(DevMat<Real> m, Scalar<Real> alpha, InVec<Real> v,
                  Scalar<Real> beta = 1.0);
// m(r, c) = beta * m(r, c) + alpha * v[r]   (v.dim == rows).
template <typename Real>
void AddVecToCols(DevMat<Real> m, Scalar<Real> alpha, InVec<Real> v,
                  Scalar<Real> beta = 1.0);
// dst = beta * dst + alpha * diag(v) * op(M).
template <typename Real>
void AddDiagVecMat(DevMat<Real> dst, Scalar<Real> alpha, InVec<Real> v,
                   InMat<Real> M, MatrixTransposeType trans = kNoTrans,
                   Scalar<Real> beta = 1.0);
// dst = beta * dst + alpha * op(M) * diag(v).
template <typename Real>
void AddMatDiagVec(DevMat<Real> dst, Scalar<Real> alpha, InMat<Real> M,
                   MatrixTransposeType trans, InVec<Real> v,
                   Scalar<Real> beta = 1.0);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_BROADCAST_H_
