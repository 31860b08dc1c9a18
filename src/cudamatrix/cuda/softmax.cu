// cudamatrix/cuda/softmax.cu
// Row-wise (log-)softmax kernels; see softmax.h.
#include "cudamatrix/cuda/softmax.h"

#include <limits>

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

namespace {

// Block b handles rows b, b + gridDim.x, ...; every thread of a block takes
// the columns threadIdx.x, threadIdx.x + blockDim.x, ... of the row, in all
// three passes, so dst == src is safe.
template <typename Real, bool kLog>
__global__ void SoftMaxKernel(DevMat<Real> dst, DevMat<const Real> src,
                              Real neg_inf) {
  __shared__ Real shared[32];
  for (int32 r = blockIdx.x; r < src.rows; r += gridDim.x) {
    Real max = neg_inf;
    for (int32 c = threadIdx.x; c < src.cols; c += blockDim.x)
      max = internal::MaxOp()(max, src(r, c));
    max = internal::BlockAllReduce(max, internal::MaxOp(), neg_inf, shared);
    Real sum = 0;
    for (int32 c = threadIdx.x; c < src.cols; c += blockDim.x)
      sum += internal::Exp(src(r, c) - max);
    sum = internal::BlockAllReduce(sum, internal::SumOp(), Real(0), shared);
    if (kLog) {
      Real log_sum = internal::Log(sum);
      for (int32 c = threadIdx.x; c < src.cols; c += blockDim.x)
        dst(r, c) = (src(r, c) - max) - log_sum;
    } else {
      Real scale = Real(1) / sum;
      for (int32 c = threadIdx.x; c < src.cols; c += blockDim.x)
        dst(r, c) = internal::Exp(src(r, c) - max) * scale;
    }
  }
}

template <typename Real, bool kLog>
void LaunchSoftMax(DevMat<Real> dst, DevMat<const Real> src) {
  NNET3_ASSERT(dst.rows == src.rows && dst.cols == src.cols);
  if (dst.Empty()) return;
  // Enough threads to cover a short row once, at most 256 per row.
  int threads = std::min(256, (dst.cols + 31) / 32 * 32);
  int blocks = std::min(dst.rows, 1 << 30);
  SoftMaxKernel<Real, kLog><<<blocks, threads, 0, Stream()>>>(
      dst, src, -std::numeric_limits<Real>::infinity());
  NNET3_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <typename Real>
void SoftMaxPerRow(DevMat<Real> dst, InMat<Real> src) {
  LaunchSoftMax<Real, false>(dst, src);
}

template <typename Real>
void LogSoftMaxPerRow(DevMat<Real> dst, InMat<Real> src) {
  LaunchSoftMax<Real, true>(dst, src);
}

template void SoftMaxPerRow(DevMat<float>, InMat<float>);
template void SoftMaxPerRow(DevMat<double>, InMat<double>);
template void LogSoftMaxPerRow(DevMat<float>, InMat<float>);
template void LogSoftMaxPerRow(DevMat<double>, InMat<double>);

}  // namespace cuda
}  // namespace nnet3
