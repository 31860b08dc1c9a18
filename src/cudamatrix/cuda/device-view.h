// cudamatrix/cuda/device-view.h
// Plain views of device memory that the host functions of the CUDA kernel
// library take (namespace nnet3::cuda). They mirror MatrixBase/VectorBase:
//   DevMat<Real>: element (r, c) at data[r * stride + c], row-major,
//                 stride >= cols; a matrix with zero rows has zero columns
//                 (data may then be nullptr), as on the CPU.
//   DevVec<Real>: dim contiguous elements.
// A view never owns memory. Real is float or double for a writable view and
// const float / const double for an input; a writable view converts to the
// const one implicitly, so callers pass the same view as input or output.
// The views are trivially copyable and are passed to kernels by value.
#ifndef NNET3_CUDAMATRIX_CUDA_DEVICE_VIEW_H_
#define NNET3_CUDAMATRIX_CUDA_DEVICE_VIEW_H_

#include <cstddef>
#include <type_traits>

#include "base/types.h"

// Lets the accessors be called in kernels; plain C++ sees ordinary inlines.
#ifdef __CUDACC__
#define NNET3_HOST_DEVICE __host__ __device__
#else
#define NNET3_HOST_DEVICE
#endif

namespace nnet3 {
namespace cuda {

template <typename Real>
struct DevMat {
  Real *data = nullptr;
  int32 rows = 0, cols = 0, stride = 0;

  DevMat() = default;
  DevMat(Real *d, int32 r, int32 c, int32 s)
      : data(d), rows(r), cols(c), stride(s) {}
  // DevMat<float> -> DevMat<const float> (never the other way).
  template <typename Other,
            typename = std::enable_if_t<std::is_same<const Other, Real>::value &&
                                        !std::is_same<Other, Real>::value>>
  DevMat(const DevMat<Other> &m)  // NOLINT: implicit on purpose
      : data(m.data), rows(m.rows), cols(m.cols), stride(m.stride) {}

  bool Empty() const { return rows == 0 || cols == 0; }
  // Offset of element (r, c) in elements; 64-bit so big matrices are safe.
  NNET3_HOST_DEVICE size_t Index(int32 r, int32 c) const {
    return static_cast<size_t>(r) * static_cast<size_t>(stride) +
           static_cast<size_t>(c);
  }
  NNET3_HOST_DEVICE Real &operator()(int32 r, int32 c) const {
    return data[Index(r, c)];
  }
};

template <typename Real>
struct DevVec {
  Real *data = nullptr;
  int32 dim = 0;

  DevVec() = default;
  DevVec(Real *d, int32 n) : data(d), dim(n) {}
  template <typename Other,
            typename = std::enable_if_t<std::is_same<const Other, Real>::value &&
                                        !std::is_same<Other, Real>::value>>
  DevVec(const DevVec<Other> &v)  // NOLINT: implicit on purpose
      : data(v.data), dim(v.dim) {}

  NNET3_HOST_DEVICE Real &operator[](int32 i) const { return data[i]; }
};

// Input views of a function templated on Real. The extra indirection makes
// Real a non-deduced context here, so it is deduced from the output view
// alone and a writable view converts to these.
template <typename T> struct NoDeduce { typedef T type; };
template <typename Real>
using InMat = DevMat<const typename NoDeduce<Real>::type>;
template <typename Real>
using InVec = DevVec<const typename NoDeduce<Real>::type>;
// A scalar argument of such a function (so 0.5 works for a float matrix).
template <typename Real>
using Scalar = typename NoDeduce<Real>::type;

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_DEVICE_VIEW_H_
