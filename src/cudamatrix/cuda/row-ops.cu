// cudamatrix/cuda/row-ops.cu
// Gather/scatter kernels; see row-ops.h. One thread per element of the
// matrix whose rows (columns) the index array runs over; the thread reads
// its index from the (cached) device array.
#include "cudamatrix/cuda/row-ops.h"

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

using internal::ForEachElement;

template <typename Real>
void CopyRows(DevMat<Real> dst, InMat<Real> src, const int32 *indexes) {
  NNET3_ASSERT(src.cols == dst.cols);
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    int32 i = indexes[r];
    dst(r, c) = i < 0 ? Real(0) : src(i, c);
  });
}

template <typename Real>
void CopyRows(DevMat<Real> dst, const Scalar<Real> *const *src) {
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    const Real *p = src[r];
    dst(r, c) = p == nullptr ? Real(0) : p[c];
  });
}

template <typename Real>
void CopyToRows(InMat<Real> src, const int32 *indexes, DevMat<Real> dst) {
  NNET3_ASSERT(src.cols == dst.cols);
  ForEachElement(src.rows, src.cols, [=] __device__(int32 r, int32 c) {
    int32 i = indexes[r];
    if (i >= 0) dst(i, c) = src(r, c);
  });
}

template <typename Real>
void CopyToRows(InMat<Real> src, Real *const *dst) {
  ForEachElement(src.rows, src.cols, [=] __device__(int32 r, int32 c) {
    Real *p = dst[r];
    if (p != nullptr) p[c] = src(r, c);
  });
}

template <typename Real>
void AddRows(DevMat<Real> dst, Scalar<Real> alpha, InMat<Real> src,
             const int32 *indexes) {
  NNET3_ASSERT(src.cols == dst.cols);
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    int32 i = indexes[r];
    if (i >= 0) dst(r, c) += alpha * src(i, c);
  });
}

template <typename Real>
void AddRows(DevMat<Real> dst, Scalar<Real> alpha,
             const Scalar<Real> *const *src) {
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    const Real *p = src[r];
    if (p != nullptr) dst(r, c) += alpha * p[c];
  });
}

template <typename Real>
void AddToRows(InMat<Real> src, Scalar<Real> alpha, const int32 *indexes,
               DevMat<Real> dst) {
  NNET3_ASSERT(src.cols == dst.cols);
  ForEachElement(src.rows, src.cols, [=] __device__(int32 r, int32 c) {
    int32 i = indexes[r];
    if (i >= 0) atomicAdd(&dst(i, c), alpha * src(r, c));
  });
}

template <typename Real>
void AddToRows(InMat<Real> src, Scalar<Real> alpha, Real *const *dst) {
  ForEachElement(src.rows, src.cols, [=] __device__(int32 r, int32 c) {
    Real *p = dst[r];
    if (p != nullptr) atomicAdd(p + c, alpha * src(r, c));
  });
}

template <typename Real>
void AddRowRanges(DevMat<Real> dst, InMat<Real> src,
                  const Int32Pair *indexes) {
  NNET3_ASSERT(src.cols == dst.cols);
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Int32Pair p = indexes[r];
    Real sum = dst(r, c);  // added one row at a time, as on the CPU
    for (int32 j = p.first; j < p.second; j++) sum += src(j, c);
    dst(r, c) = sum;
  });
}

template <typename Real>
void SumColumnRanges(DevMat<Real> dst, InMat<Real> src,
                     const Int32Pair *indexes) {
  NNET3_ASSERT(src.rows == dst.rows);
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Int32Pair p = indexes[c];
    Real sum = 0;
    for (int32 j = p.first; j < p.second; j++) sum += src(r, j);
    dst(r, c) = sum;
  });
}

template <typename Real>
void CopyCols(DevMat<Real> dst, InMat<Real> src, const int32 *indexes) {
  NNET3_ASSERT(src.rows == dst.rows);
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    int32 j = indexes[c];
    dst(r, c) = j < 0 ? Real(0) : src(r, j);
  });
}

template <typename Real>
void AddCols(DevMat<Real> dst, InMat<Real> src, const int32 *indexes) {
  NNET3_ASSERT(src.rows == dst.rows);
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    int32 j = indexes[c];
    if (j >= 0) dst(r, c) += src(r, j);
  });
}

#define NNET3_INSTANTIATE_ROW_OPS(R)                                          \
  template void CopyRows(DevMat<R>, InMat<R>, const int32 *);                 \
  template void CopyRows(DevMat<R>, const Scalar<R> *const *);                \
  template void CopyToRows(InMat<R>, const int32 *, DevMat<R>);               \
  template void CopyToRows(InMat<R>, R *const *);                             \
  template void AddRows(DevMat<R>, Scalar<R>, InMat<R>, const int32 *);       \
  template void AddRows(DevMat<R>, Scalar<R>, const Scalar<R> *const *);      \
  template void AddToRows(InMat<R>, Scalar<R>, const int32 *, DevMat<R>);     \
  template void AddToRows(InMat<R>, Scalar<R>, R *const *);                   \
  template void AddRowRanges(DevMat<R>, InMat<R>, const Int32Pair *);         \
  template void SumColumnRanges(DevMat<R>, InMat<R>, const Int32Pair *);      \
  template void CopyCols(DevMat<R>, InMat<R>, const int32 *);                 \
  template void AddCols(DevMat<R>, InMat<R>, const int32 *);

NNET3_INSTANTIATE_ROW_OPS(float)
NNET3_INSTANTIATE_ROW_OPS(double)

}  // namespace cuda
}  // namespace nnet3
