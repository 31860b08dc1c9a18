// cudamatrix/cuda/copy-set.cu
// Filling and copying kernels; see copy-set.h.
#include "cudamatrix/cuda/copy-set.h"

#include <type_traits>

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

using internal::ForEachElement;
using internal::ForEachIndex;

template <typename Real>
void SetZero(DevMat<Real> m) {
  if (m.Empty()) return;
  NNET3_CUDA_CHECK(cudaMemset2DAsync(m.data, sizeof(Real) * m.stride, 0,
                                     sizeof(Real) * m.cols, m.rows, Stream()));
}

template <typename Real>
void Set(DevMat<Real> m, Scalar<Real> value) {
  ForEachElement(m.rows, m.cols,
                 [=] __device__(int32 r, int32 c) { m(r, c) = value; });
}

template <typename Real>
void SetUnit(DevMat<Real> m) {
  SetZero(m);
  ForEachIndex(std::min(m.rows, m.cols),
               [=] __device__(int32 i) { m(i, i) = Real(1); });
}

template <typename Real, typename OtherReal>
void CopyFromMatImpl(DevMat<Real> dst, DevMat<const OtherReal> src,
                     MatrixTransposeType trans) {
  if (trans == kNoTrans) {
    NNET3_ASSERT(dst.rows == src.rows && dst.cols == src.cols);
    if (dst.Empty()) return;
    if constexpr (std::is_same<Real, OtherReal>::value) {
      if (dst.data == src.data && dst.stride == src.stride) return;
      NNET3_CUDA_CHECK(cudaMemcpy2DAsync(
          dst.data, sizeof(Real) * dst.stride, src.data,
          sizeof(Real) * src.stride, sizeof(Real) * dst.cols, dst.rows,
          cudaMemcpyDeviceToDevice, Stream()));
    } else {
      ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
        dst(r, c) = static_cast<Real>(src(r, c));
      });
    }
  } else {
    NNET3_ASSERT(dst.rows == src.cols && dst.cols == src.rows);
    NNET3_ASSERT(static_cast<const void *>(dst.data) !=
                     static_cast<const void *>(src.data) ||
                 dst.Empty());
    internal::ForEachTransposed(
        dst, src, [] __device__(Real & y, OtherReal x) {
          y = static_cast<Real>(x);
        });
  }
}

template <typename Real>
void Add(DevMat<Real> m, Scalar<Real> alpha) {
  ForEachElement(m.rows, m.cols,
                 [=] __device__(int32 r, int32 c) { m(r, c) += alpha; });
}

template <typename Real>
void Scale(DevMat<Real> m, Scalar<Real> alpha) {
  if (alpha == Real(1)) return;
  if (alpha == Real(0)) {
    SetZero(m);
    return;
  }
  ForEachElement(m.rows, m.cols,
                 [=] __device__(int32 r, int32 c) { m(r, c) *= alpha; });
}

template <typename Real, typename OtherReal>
void CopyRowsFromVecImpl(DevMat<Real> m, DevVec<const OtherReal> v) {
  if (static_cast<int64>(v.dim) ==
      static_cast<int64>(m.rows) * static_cast<int64>(m.cols)) {
    const int32 cols = m.cols;
    ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
      m(r, c) = static_cast<Real>(
          v.data[static_cast<size_t>(r) * static_cast<size_t>(cols) + c]);
    });
  } else {
    NNET3_ASSERT(v.dim == m.cols);
    ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
      m(r, c) = static_cast<Real>(v[c]);
    });
  }
}

template <typename Real>
void CopyColsFromVec(DevMat<Real> m, InVec<Real> v) {
  if (static_cast<int64>(v.dim) ==
      static_cast<int64>(m.rows) * static_cast<int64>(m.cols)) {
    const int32 rows = m.rows;
    ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
      m(r, c) = v.data[static_cast<size_t>(c) * static_cast<size_t>(rows) + r];
    });
  } else {
    NNET3_ASSERT(v.dim == m.rows);
    ForEachElement(m.rows, m.cols,
                   [=] __device__(int32 r, int32 c) { m(r, c) = v[r]; });
  }
}

template <typename Real>
void CopyColFromVec(DevMat<Real> m, InVec<Real> v, int32 col) {
  NNET3_ASSERT(v.dim == m.rows && col >= 0 && col < m.cols);
  ForEachIndex(m.rows, [=] __device__(int32 i) { m(i, col) = v[i]; });
}

template <typename Real>
void CopyDiagFromVec(DevMat<Real> m, InVec<Real> v) {
  NNET3_ASSERT(v.dim == std::min(m.rows, m.cols));
  ForEachIndex(v.dim, [=] __device__(int32 i) { m(i, i) = v[i]; });
}

#define NNET3_INSTANTIATE_COPY_SET(R, O)                                     \
  template void SetZero(DevMat<R>);                                          \
  template void Set(DevMat<R>, Scalar<R>);                                   \
  template void SetUnit(DevMat<R>);                                          \
  template void CopyFromMatImpl(DevMat<R>, DevMat<const R>,                  \
                                MatrixTransposeType);                        \
  template void CopyFromMatImpl(DevMat<R>, DevMat<const O>,                  \
                                MatrixTransposeType);                        \
  template void Add(DevMat<R>, Scalar<R>);                                   \
  template void Scale(DevMat<R>, Scalar<R>);                                 \
  template void CopyRowsFromVecImpl(DevMat<R>, DevVec<const R>);             \
  template void CopyRowsFromVecImpl(DevMat<R>, DevVec<const O>);             \
  template void CopyColsFromVec(DevMat<R>, InVec<R>);                        \
  template void CopyColFromVec(DevMat<R>, InVec<R>, int32);                  \
  template void CopyDiagFromVec(DevMat<R>, InVec<R>);

NNET3_INSTANTIATE_COPY_SET(float, double)
NNET3_INSTANTIATE_COPY_SET(double, float)

}  // namespace cuda
}  // namespace nnet3
