// cudamatrix/cuda/compressed.cu
// Memory-compression kernels; see compressed.h. The scale and its inverse
// are computed on the host exactly as cu-compressed-matrix.cc does, so the
// per-element work (one float multiply, round to nearest even, clamp) gives
// the host's integers.
#include "cudamatrix/cuda/compressed.h"

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "base/log.h"
#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

using internal::ForEachElement;

namespace {

// lo and hi: the type's range as floats (computed on the host).
template <typename I>
__device__ inline I QuantizeOnDevice(float f, bool truncate, float lo,
                                     float hi) {
  if (isnan(f)) return static_cast<I>(0);
  float rounded = rintf(f);
  if (truncate) {
    rounded = rounded < lo ? lo : rounded;
    rounded = rounded > hi ? hi : rounded;
    return static_cast<I>(rounded);
  }
  const float int_lo = -2147483648.0f, int_hi = 2147483520.0f;
  rounded = rounded < int_lo ? int_lo : rounded;
  rounded = rounded > int_hi ? int_hi : rounded;
  return static_cast<I>(static_cast<int32>(rounded));
}

template <typename I, typename Real>
void Compress(DevMat<const Real> src, float range, bool truncate, I *dst) {
  const float scale =
      range / static_cast<float>(std::numeric_limits<I>::max());
  const float inv_scale =
      (scale == 0.0f ? 0.0f : static_cast<float>(1.0 / scale));
  const bool sign_only = (scale == 0.0f);
  const float lo = static_cast<float>(std::numeric_limits<I>::min()),
              hi = static_cast<float>(std::numeric_limits<I>::max());
  const int32 cols = src.cols;
  ForEachElement(src.rows, src.cols, [=] __device__(int32 r, int32 c) {
    const float x = static_cast<float>(src(r, c));
    I out;
    if (sign_only) {
      out = x > 0 ? static_cast<I>(1)
                  : (x < 0 && std::is_signed<I>::value ? static_cast<I>(-1)
                                                       : static_cast<I>(0));
    } else {
      out = QuantizeOnDevice<I>(x * inv_scale, truncate, lo, hi);
    }
    dst[static_cast<size_t>(r) * cols + c] = out;
  });
}

template <typename I, typename Real>
void Decompress(const I *src, float range, DevMat<Real> dst) {
  float scale = range / static_cast<float>(std::numeric_limits<I>::max());
  if (scale == 0.0f) scale = 1.0f;
  const int32 cols = dst.cols;
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    dst(r, c) = static_cast<Real>(
        scale * static_cast<float>(src[static_cast<size_t>(r) * cols + c]));
  });
}

template <class F>
void WithType(int32 type, F f) {
  switch (type) {
    case 1: f(static_cast<int8_t>(0)); break;
    case 2: f(static_cast<uint8_t>(0)); break;
    case 3: f(static_cast<int16_t>(0)); break;
    case 4: f(static_cast<uint16_t>(0)); break;
    default:
      throw InternalError("invalid compression type " + std::to_string(type));
  }
}

}  // namespace

template <typename Real>
void CompressMatrix(int32 type, InMat<Real> src, Scalar<Real> range,
                    bool truncate, void *dst) {
  if (src.Empty()) return;
  WithType(type, [&](auto zero) {
    typedef decltype(zero) I;
    Compress<I, Real>(src, static_cast<float>(range), truncate,
                      static_cast<I *>(dst));
  });
}

template <typename Real>
void DecompressMatrix(int32 type, const void *src, Scalar<Real> range,
                      DevMat<Real> dst) {
  if (dst.Empty()) return;
  WithType(type, [&](auto zero) {
    typedef decltype(zero) I;
    Decompress<I, Real>(static_cast<const I *>(src),
                        static_cast<float>(range), dst);
  });
}

template void CompressMatrix<float>(int32, InMat<float>, float, bool, void *);
template void CompressMatrix<double>(int32, InMat<double>, double, bool,
                                     void *);
template void DecompressMatrix<float>(int32, const void *, float,
                                      DevMat<float>);
template void DecompressMatrix<double>(int32, const void *, double,
                                       DevMat<double>);

}  // namespace cuda
}  // namespace nnet3
