// cudamatrix/cuda/convolution.cu
// Kernels of the convolution operations; see convolution.h.
#include "cudamatrix/cuda/convolution.h"

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

namespace {

// Block (x, y) of 32 x 32 threads: column f = blockIdx.x * 32 + x of
// "sums", rows i = blockIdx.y, blockIdx.y + gridDim.y, ...; thread y takes
// every 32nd of the pairs (k, h) of that element's block, which are the
// elements m(i + k R, f + h C). Neighbouring x read neighbouring columns.
template <typename Real>
__global__ void TiledBlockSumsKernel(DevMat<Real> sums, DevMat<const Real> m) {
  __shared__ Real partial[32][33];
  const int32 R = sums.rows, C = sums.cols;
  const int32 f = blockIdx.x * 32 + threadIdx.x;
  for (int32 i = blockIdx.y; i < R; i += gridDim.y) {
    Real s = 0;
    if (f < C && i < m.rows && f < m.cols) {
      const int32 nk = (m.rows - i + R - 1) / R, nh = (m.cols - f + C - 1) / C;
      const int64 n = static_cast<int64>(nk) * nh;
      for (int64 j = threadIdx.y; j < n; j += blockDim.y) {
        const int32 k = static_cast<int32>(j / nh),
                    h = static_cast<int32>(j % nh);
        s += m(i + k * R, f + h * C);
      }
    }
    partial[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && f < C) {
      Real total = 0;
      for (int32 y = 0; y < static_cast<int32>(blockDim.y); y++)
        total += partial[y][threadIdx.x];
      sums(i, f) += total;
    }
    __syncthreads();  // partial is written again for the next i
  }
}

}  // namespace

template <typename Real>
void AddTiledBlockSums(DevMat<Real> sums, InMat<Real> m) {
  if (sums.Empty() || m.Empty()) return;
  dim3 block(32, 32);
  dim3 grid((sums.cols + 31) / 32, std::min(sums.rows, 65535));
  TiledBlockSumsKernel<<<grid, block, 0, Stream()>>>(sums, m);
  NNET3_CUDA_CHECK_LAUNCH();
}

template <typename Real>
void AddTiled(DevMat<Real> m, InMat<Real> tile) {
  if (m.Empty()) return;
  NNET3_ASSERT(!tile.Empty());
  internal::ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    m(r, c) += tile(r % tile.rows, c % tile.cols);
  });
}

template <typename Real>
void SelectWhereEqual(DevMat<Real> data, InMat<Real> ref, InMat<Real> src) {
  NNET3_ASSERT(data.rows == ref.rows && data.cols == ref.cols &&
               data.rows == src.rows && data.cols == src.cols);
  internal::ForEachElement(
      data.rows, data.cols, [=] __device__(int32 r, int32 c) {
        const Real s = src(r, c);
        data(r, c) = data(r, c) == ref(r, c) ? s : Real(0);
      });
}

#define NNET3_INSTANTIATE(R)                                           \
  template void AddTiledBlockSums(DevMat<R>, InMat<R>);               \
  template void AddTiled(DevMat<R>, InMat<R>);                        \
  template void SelectWhereEqual(DevMat<R>, InMat<R>, InMat<R>);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

}  // namespace cuda
}  // namespace nnet3
