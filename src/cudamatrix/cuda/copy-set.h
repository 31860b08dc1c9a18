// cudamatrix/cuda/copy-set.h
// Filling and copying on the GPU: the device counterparts of the
// MatrixBase methods of the same names (matrix/matrix.h), with the same
// argument order and the same results. The destination comes first; the
// CPU's "this" is `m` or `dst`. Dimensions are checked on the host
// (NNET3_ASSERT); the work is enqueued on Stream() without waiting.
// Real is float or double; CopyFromMat and CopyRowsFromVec also convert
// between them. As on the CPU, Scale(0) writes zeros (clearing NaN/inf).
// Inputs must not overlap the output except where stated (CopyFromMat of a
// view onto itself, untransposed, does nothing).
#ifndef NNET3_CUDAMATRIX_CUDA_COPY_SET_H_
#define NNET3_CUDAMATRIX_CUDA_COPY_SET_H_

#include <type_traits>

#include "cudamatrix/cuda/device-view.h"
#include "matrix/common.h"

namespace nnet3 {
namespace cuda {

template <typename Real> void SetZero(DevMat<Real> m);
template <typename Real> void Set(DevMat<Real> m, Scalar<Real> value);
// Ones on the diagonal (square or not), zeros elsewhere.
template <typename Real> void SetUnit(DevMat<Real> m);

// dst = op(src); with kTrans dst.rows == src.cols.
// src may be DevMat<float>, DevMat<const double>, ... (any precision).
template <typename Real, typename OtherReal>
void CopyFromMatImpl(DevMat<Real> dst, DevMat<const OtherReal> src,
                     MatrixTransposeType trans);
template <typename Real, typename Src>
void CopyFromMat(DevMat<Real> dst, DevMat<Src> src,
                 MatrixTransposeType trans = kNoTrans) {
  CopyFromMatImpl<Real, std::remove_const_t<Src>>(dst, src, trans);
}

template <typename Real> void Add(DevMat<Real> m, Scalar<Real> alpha);
template <typename Real> void Scale(DevMat<Real> m, Scalar<Real> alpha);

// v.dim == rows * cols: the rows of m, concatenated; v.dim == cols: every
// row of m becomes v. v may be of either precision.
template <typename Real, typename OtherReal>
void CopyRowsFromVecImpl(DevMat<Real> m, DevVec<const OtherReal> v);
template <typename Real, typename Src>
void CopyRowsFromVec(DevMat<Real> m, DevVec<Src> v) {
  CopyRowsFromVecImpl<Real, std::remove_const_t<Src>>(m, v);
}
// v.dim == rows * cols: the columns of m, concatenated; v.dim == rows:
// every column of m becomes v.
template <typename Real> void CopyColsFromVec(DevMat<Real> m, InVec<Real> v);
template <typename Real>
void CopyColFromVec(DevMat<Real> m, InVec<Real> v, int32 col);
// v.dim == min(rows, cols).
template <typename Real> void CopyDiagFromVec(DevMat<Real> m, InVec<Real> v);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_COPY_SET_H_
