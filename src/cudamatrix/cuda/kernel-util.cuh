// cudamatrix/cuda/kernel-util.cuh
// Internal to the .cu files of the kernel library (not a public header):
// the launch patterns the op families share.
//   ForEachElement(rows, cols, f): calls f(r, c) on the device once for
//     every element of a rows x cols matrix; blocks of 32 columns x 8 rows,
//     the grid's y extent capped at 65535 with the rows strided, so any
//     int32 size works. A zero-size call launches nothing.
//   BlockReduce: a block-wide reduction (warp shuffles, then one value per
//     warp through shared memory); blockDim.x a multiple of 32, <= 1024.
//   TileColumnSum: per-column sums for blocks of kColumnTile x kColumnTile
//     threads, one block per kColumnTile columns.
// All launches go to Stream() and are checked with NNET3_CUDA_CHECK_LAUNCH.
#ifndef NNET3_CUDAMATRIX_CUDA_KERNEL_UTIL_CUH_
#define NNET3_CUDAMATRIX_CUDA_KERNEL_UTIL_CUH_

#include <algorithm>

#include "base/log.h"
#include "cudamatrix/cuda/context.h"
#include "cudamatrix/cuda/cuda-check.h"
#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {
namespace internal {

// Math functions by precision (float calls the f-suffixed CUDA versions;
// no fast-math approximations are used).
__device__ inline float Exp(float x) { return expf(x); }
__device__ inline double Exp(double x) { return exp(x); }
__device__ inline float Log(float x) { return logf(x); }
__device__ inline double Log(double x) { return log(x); }
__device__ inline float Pow(float x, float y) { return powf(x, y); }
__device__ inline double Pow(double x, double y) { return pow(x, y); }
__device__ inline float Sqrt(float x) { return sqrtf(x); }
__device__ inline double Sqrt(double x) { return sqrt(x); }
__device__ inline float Tanh(float x) { return tanhf(x); }
__device__ inline double Tanh(double x) { return tanh(x); }
__device__ inline float Abs(float x) { return fabsf(x); }
__device__ inline double Abs(double x) { return fabs(x); }

constexpr int kBlockCols = 32;
constexpr int kBlockRows = 8;
constexpr int kMaxGridY = 65535;

template <typename F>
__global__ void ForEachElementKernel(int32 rows, int32 cols, F f) {
  int32 c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  // 64-bit so that the last step cannot overflow near INT32_MAX rows.
  for (int64 r = blockIdx.y * blockDim.y + threadIdx.y; r < rows;
       r += gridDim.y * blockDim.y)
    f(static_cast<int32>(r), c);
}

template <typename F>
void ForEachElement(int32 rows, int32 cols, F f) {
  if (rows <= 0 || cols <= 0) return;
  dim3 block(kBlockCols, kBlockRows);
  dim3 grid((cols + kBlockCols - 1) / kBlockCols,
            std::min((rows + kBlockRows - 1) / kBlockRows, kMaxGridY));
  ForEachElementKernel<<<grid, block, 0, Stream()>>>(rows, cols, f);
  NNET3_CUDA_CHECK_LAUNCH();
}

// Calls f(i) for i in [0, n).
template <typename F>
__global__ void ForEachIndexKernel(int32 n, F f) {
  for (int64 i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    f(static_cast<int32>(i));
}

template <typename F>
void ForEachIndex(int32 n, F f) {
  if (n <= 0) return;
  const int threads = 256;
  int blocks = std::min((n + threads - 1) / threads, 65536);
  ForEachIndexKernel<<<blocks, threads, 0, Stream()>>>(n, f);
  NNET3_CUDA_CHECK_LAUNCH();
}

// Transposed elementwise update: calls f(dst(r, c), src(c, r)) for every
// element of dst (dst.rows == src.cols, dst.cols == src.rows), through a
// 32 x 33 shared tile so that both matrices are read and written along
// their rows. f's second argument is a Src value.
constexpr int kTile = 32;

template <typename Real, typename Src, typename F>
__global__ void TransposeKernel(DevMat<Real> dst, DevMat<const Src> src, F f) {
  __shared__ Src tile[kTile][kTile + 1];
  int32 row_tiles = (dst.rows + kTile - 1) / kTile;
  int32 c0 = blockIdx.x * kTile;  // first column of dst = first row of src
  for (int32 t = blockIdx.y; t < row_tiles; t += gridDim.y) {
    int32 r0 = t * kTile;  // first row of dst = first column of src
    for (int32 k = threadIdx.y; k < kTile; k += blockDim.y) {
      int32 sr = c0 + k, sc = r0 + threadIdx.x;
      if (sr < src.rows && sc < src.cols) tile[k][threadIdx.x] = src(sr, sc);
    }
    __syncthreads();
    // tile[x][k] holds src(c0 + x, r0 + k), which goes to dst(r0 + k, c0 + x).
    for (int32 k = threadIdx.y; k < kTile; k += blockDim.y) {
      int32 dr = r0 + k, dc = c0 + threadIdx.x;
      if (dr < dst.rows && dc < dst.cols) f(dst(dr, dc), tile[threadIdx.x][k]);
    }
    __syncthreads();
  }
}

template <typename Real, typename Src, typename F>
void ForEachTransposed(DevMat<Real> dst, DevMat<const Src> src, F f) {
  NNET3_ASSERT(dst.rows == src.cols && dst.cols == src.rows);
  if (dst.Empty()) return;
  dim3 block(kTile, kBlockRows);
  dim3 grid((dst.cols + kTile - 1) / kTile,
            std::min((dst.rows + kTile - 1) / kTile, kMaxGridY));
  TransposeKernel<<<grid, block, 0, Stream()>>>(dst, src, f);
  NNET3_CUDA_CHECK_LAUNCH();
}

// Reduction operators (device functors). Max and Min ignore NaN operands
// (a NaN never wins), as the CPU loops "if (x > ans) ans = x" do.
struct SumOp {
  template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct MaxOp {
  template <typename T> __device__ T operator()(T a, T b) const {
    return b > a ? b : a;
  }
};
struct MinOp {
  template <typename T> __device__ T operator()(T a, T b) const {
    return b < a ? b : a;
  }
};

template <typename T, typename Op>
__device__ T WarpReduce(T v, Op op) {
  for (int offset = 16; offset > 0; offset /= 2)
    v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

// Returns the reduction of v over the block in thread 0 (other threads get
// partial values). shared must hold 32 T. Every thread must call it.
template <typename T, typename Op>
__device__ T BlockReduce(T v, Op op, T identity, T *shared) {
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = WarpReduce(v, op);
  __syncthreads();  // shared may still be read by a previous reduction
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  int num_warps = blockDim.x / 32;
  if (warp == 0) {
    v = lane < num_warps ? shared[lane] : identity;
    v = WarpReduce(v, op);
  }
  return v;
}

// As BlockReduce, but every thread gets the result.
template <typename T, typename Op>
__device__ T BlockAllReduce(T v, Op op, T identity, T *shared) {
  v = BlockReduce(v, op, identity, shared);
  __syncthreads();
  if (threadIdx.x == 0) shared[0] = v;
  __syncthreads();
  return shared[0];
}

constexpr int kColumnTile = 32;

// For a block of kColumnTile x kColumnTile threads covering columns
// blockIdx.x * kColumnTile + threadIdx.x: thread (x, y) sums term(r, c) over
// rows r = y, y + kColumnTile, ... of its column c, and the threads with
// y == 0 then add the kColumnTile partial sums in order and return the
// column's total (the others, and columns past 'cols', return 0). Every
// thread of the block must call it (it synchronizes the block).
template <typename Real, typename Term>
__device__ Real TileColumnSum(int32 rows, int32 cols, Term term) {
  __shared__ Real partial[kColumnTile][kColumnTile + 1];
  const int32 c = blockIdx.x * kColumnTile + threadIdx.x;
  Real sum = 0;
  if (c < cols)
    for (int32 r = threadIdx.y; r < rows; r += blockDim.y) sum += term(r, c);
  partial[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  Real total = 0;
  if (threadIdx.y == 0 && c < cols)
    for (int32 k = 0; k < static_cast<int32>(blockDim.y); k++)
      total += partial[k][threadIdx.x];
  return total;
}

}  // namespace internal
}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_KERNEL_UTIL_CUH_
