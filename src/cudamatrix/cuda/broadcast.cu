// cudamatrix/cuda/broadcast.cu
// Matrix-with-vector kernels; see broadcast.h.
#include "cudamatrix/cuda/broadcast.h"

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

using internal::ForEachElement;

template <typename Real>
void MulRowsVec(DevMat<Real> m, InVec<Real> scale) {
  NNET3_ASSERT(scale.dim == m.rows);
  ForEachElement(m.rows, m.cols,
                 [=] __device__(int32 r, int32 c) { m(r, c) *= scale[r]; });
}

template <typename Real>
void DivRowsVec(DevMat<Real> m, InVec<Real> div) {
  NNET3_ASSERT(div.dim == m.rows);
  ForEachElement(m.rows, m.cols,
                 [=] __device__(int32 r, int32 c) { m(r, c) /= div[r]; });
}

template <typename Real>
void MulColsVec(DevMat<Real> m, InVec<Real> scale) {
  NNET3_ASSERT(scale.dim == m.cols);
  ForEachElement(m.rows, m.cols,
                 [=] __device__(int32 r, int32 c) { m(r, c) *= scale[c]; });
}

template <typename Real>
void AddVecToRows(DevMat<Real> m, Scalar<Real> alpha, InVec<Real> v,
                  Scalar<Real> beta) {
  NNET3_ASSERT(v.dim == m.cols);
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    Real a = alpha * v[c];
    if (beta == Real(1)) {
      m(r, c) += a;
    } else if (beta == Real(0)) {
      m(r, c) = a;
    } else {
      m(r, c) = beta * m(r, c) + a;
    }
  });
}

template <typename Real>
void AddVecToCols(DevMat<Real> m, Scalar<Real> alpha, InVec<Real> v,
                  Scalar<Real> beta) {
  NNET3_ASSERT(v.dim == m.rows);
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    Real a = alpha * v[r];
    m(r, c) = beta == Real(0) ? a : beta * m(r, c) + a;
  });
}

namespace {

template <typename Real>
void CheckOpDims(DevMat<Real> dst, DevMat<const Real> M,
                 MatrixTransposeType trans) {
  if (trans == kNoTrans)
    NNET3_ASSERT(M.rows == dst.rows && M.cols == dst.cols);
  else
    NNET3_ASSERT(M.cols == dst.rows && M.rows == dst.cols);
}

}  // namespace

template <typename Real>
void AddDiagVecMat(DevMat<Real> dst, Scalar<Real> alpha, InVec<Real> v,
                   InMat<Real> M, MatrixTransposeType trans,
                   Scalar<Real> beta) {
  NNET3_ASSERT(v.dim == dst.rows);
  CheckOpDims(dst, M, trans);
  const bool t = trans == kTrans;
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Real s = alpha * v[r];
    Real x = t ? M(c, r) : M(r, c);
    Real old = beta == Real(0) ? Real(0) : beta * dst(r, c);
    dst(r, c) = old + s * x;
  });
}

template <typename Real>
void AddMatDiagVec(DevMat<Real> dst, Scalar<Real> alpha, InMat<Real> M,
                   MatrixTransposeType trans, InVec<Real> v,
                   Scalar<Real> beta) {
  NNET3_ASSERT(v.dim == dst.cols);
  CheckOpDims(dst, M, trans);
  const bool t = trans == kTrans;
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Real x = t ? M(c, r) : M(r, c);
    Real old = beta == Real(0) ? Real(0) : beta * dst(r, c);
    dst(r, c) = old + alpha * x * v[c];
  });
}

#define NNET3_INSTANTIATE_BROADCAST(R)                                       \
  template void MulRowsVec(DevMat<R>, InVec<R>);                             \
  template void DivRowsVec(DevMat<R>, InVec<R>);                             \
  template void MulColsVec(DevMat<R>, InVec<R>);                             \
  template void AddVecToRows(DevMat<R>, Scalar<R>, InVec<R>, Scalar<R>);     \
  template void AddVecToCols(DevMat<R>, Scalar<R>, InVec<R>, Scalar<R>);     \
  template void AddDiagVecMat(DevMat<R>, Scalar<R>, InVec<R>, InMat<R>,      \
                              MatrixTransposeType, Scalar<R>);               \
  template void AddMatDiagVec(DevMat<R>, Scalar<R>, InMat<R>,                \
                              MatrixTransposeType, InVec<R>, Scalar<R>);

NNET3_INSTANTIATE_BROADCAST(float)
NNET3_INSTANTIATE_BROADCAST(double)

}  // namespace cuda
}  // namespace nnet3
