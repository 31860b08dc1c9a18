// cudamatrix/cuda/reductions.cu
// Reduction kernels; see reductions.h. A scalar reduction runs in two
// launches: a grid of blocks each reduces a strided share of the elements
// to one partial value, then one block reduces the partials in a fixed
// order, so results are deterministic; the host then copies the value back
// and waits.
#include "cudamatrix/cuda/reductions.h"

#include <cmath>
#include <limits>

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

using internal::BlockReduce;
using internal::MaxOp;
using internal::MinOp;
using internal::SumOp;

namespace {

constexpr int kReduceThreads = 256;
constexpr int kMaxReduceBlocks = 512;

// Element i of the rows x cols matrix (row-major order over i) goes
// through load(r, c), and partial[blockIdx.x] gets this block's reduction.
template <typename Acc, typename Op, typename Load>
__global__ void ReducePartialKernel(int64 n, int32 cols, Load load, Op op,
                                    Acc identity, Acc *partial) {
  __shared__ Acc shared[32];
  Acc acc = identity;
  for (int64 i = blockIdx.x * static_cast<int64>(blockDim.x) + threadIdx.x;
       i < n; i += static_cast<int64>(gridDim.x) * blockDim.x) {
    int32 r = static_cast<int32>(i / cols), c = static_cast<int32>(i % cols);
    acc = op(acc, load(r, c));
  }
  acc = BlockReduce(acc, op, identity, shared);
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

template <typename Acc, typename Op>
__global__ void ReduceFinalKernel(int32 n, Op op, Acc identity,
                                  const Acc *partial, Acc *result) {
  __shared__ Acc shared[32];
  Acc acc = identity;
  for (int32 i = threadIdx.x; i < n; i += blockDim.x) acc = op(acc, partial[i]);
  acc = BlockReduce(acc, op, identity, shared);
  if (threadIdx.x == 0) *result = acc;
}

// Reduces load(r, c) over a rows x cols matrix with op; returns identity
// for an empty one. Waits for the result.
template <typename Acc, typename Op, typename Load>
Acc Reduce(int32 rows, int32 cols, Load load, Op op, Acc identity) {
  int64 n = static_cast<int64>(rows) * cols;
  if (n == 0) return identity;
  int64 wanted = (n + kReduceThreads - 1) / kReduceThreads;
  int blocks = static_cast<int>(
      wanted < kMaxReduceBlocks ? wanted : kMaxReduceBlocks);
  Acc *buf = static_cast<Acc *>(AllocTemp(sizeof(Acc) * (blocks + 1)));
  ReducePartialKernel<<<blocks, kReduceThreads, 0, Stream()>>>(
      n, cols, load, op, identity, buf);
  NNET3_CUDA_CHECK_LAUNCH();
  ReduceFinalKernel<<<1, kReduceThreads, 0, Stream()>>>(blocks, op, identity,
                                                        buf, buf + blocks);
  NNET3_CUDA_CHECK_LAUNCH();
  Acc result;
  NNET3_CUDA_CHECK(cudaMemcpyAsync(&result, buf + blocks, sizeof(Acc),
                                   cudaMemcpyDeviceToHost, Stream()));
  FreeTemp(buf);
  Synchronize();
  return result;
}

template <typename Real>
Real FetchElement(const Real *ptr) {
  Real x;
  NNET3_CUDA_CHECK(cudaMemcpyAsync(&x, ptr, sizeof(Real),
                                   cudaMemcpyDeviceToHost, Stream()));
  Synchronize();
  return x;
}

template <typename Real>
Real Inf() {
  return std::numeric_limits<Real>::infinity();
}

// Max (want_max) or min of a vector, and the first index where it occurs;
// as the CPU's VectorBase::Max(index): starts from element 0, so a NaN
// there is the answer.
template <typename Real>
Real VecExtremum(DevVec<const Real> v, int32 *index, bool want_max) {
  NNET3_ASSERT(v.dim > 0);
  Real first = FetchElement(v.data);
  *index = 0;
  if (std::isnan(first)) return first;
  Real best = want_max
      ? Reduce(1, v.dim, [=] __device__(int32, int32 c) { return v[c]; },
               MaxOp(), -Inf<Real>())
      : Reduce(1, v.dim, [=] __device__(int32, int32 c) { return v[c]; },
               MinOp(), Inf<Real>());
  const int32 none = v.dim;
  *index = Reduce(1, v.dim,
                  [=] __device__(int32, int32 c) {
                    return v[c] == best ? c : none;
                  },
                  MinOp(), none);
  NNET3_ASSERT(*index < v.dim);
  return best;
}

}  // namespace

template <typename Real>
Real MatSum(DevMat<const Real> m) {
  return static_cast<Real>(Reduce(
      m.rows, m.cols,
      [=] __device__(int32 r, int32 c) { return static_cast<double>(m(r, c)); },
      SumOp(), 0.0));
}

template <typename Real>
Real MatMax(DevMat<const Real> m) {
  NNET3_ASSERT(m.rows > 0 && m.cols > 0);
  Real first = FetchElement(m.data);
  if (std::isnan(first)) return first;
  return Reduce(m.rows, m.cols,
                [=] __device__(int32 r, int32 c) { return m(r, c); }, MaxOp(),
                -Inf<Real>());
}

template <typename Real>
Real MatMin(DevMat<const Real> m) {
  NNET3_ASSERT(m.rows > 0 && m.cols > 0);
  Real first = FetchElement(m.data);
  if (std::isnan(first)) return first;
  return Reduce(m.rows, m.cols,
                [=] __device__(int32 r, int32 c) { return m(r, c); }, MinOp(),
                Inf<Real>());
}

template <typename Real>
Real MatFrobeniusNorm(DevMat<const Real> m) {
  double sum = Reduce(
      m.rows, m.cols,
      [=] __device__(int32 r, int32 c) {
        double x = m(r, c);
        return x * x;
      },
      SumOp(), 0.0);
  return static_cast<Real>(std::sqrt(sum));
}

template <typename Real>
Real VecSum(DevVec<const Real> v) {
  return Reduce(1, v.dim, [=] __device__(int32, int32 c) { return v[c]; },
                SumOp(), Real(0));
}

template <typename Real>
Real VecMax(DevVec<const Real> v) {
  return Reduce(1, v.dim, [=] __device__(int32, int32 c) { return v[c]; },
                MaxOp(), -Inf<Real>());
}

template <typename Real>
Real VecMax(DevVec<const Real> v, int32 *index) {
  return VecExtremum(v, index, true);
}

template <typename Real>
Real VecMin(DevVec<const Real> v) {
  return Reduce(1, v.dim, [=] __device__(int32, int32 c) { return v[c]; },
                MinOp(), Inf<Real>());
}

template <typename Real>
Real VecMin(DevVec<const Real> v, int32 *index) {
  return VecExtremum(v, index, false);
}

template <typename Real>
Real VecNorm(DevVec<const Real> v, Real p) {
  NNET3_ASSERT(p >= 0.0);
  if (p == Real(0)) {
    return static_cast<Real>(Reduce(
        1, v.dim,
        [=] __device__(int32, int32 c) { return v[c] != Real(0) ? 1.0 : 0.0; },
        SumOp(), 0.0));
  }
  if (p == Real(1)) {
    return static_cast<Real>(Reduce(
        1, v.dim,
        [=] __device__(int32, int32 c) {
          return static_cast<double>(internal::Abs(v[c]));
        },
        SumOp(), 0.0));
  }
  if (p == Real(2)) {
    double sum = Reduce(
        1, v.dim,
        [=] __device__(int32, int32 c) {
          double x = v[c];
          return x * x;
        },
        SumOp(), 0.0);
    return static_cast<Real>(std::sqrt(sum));
  }
  if (std::isinf(p)) {
    // The CPU's std::max(m, |x|) from m = 0 ignores NaN, as MaxOp does.
    return static_cast<Real>(Reduce(
        1, v.dim,
        [=] __device__(int32, int32 c) {
          return static_cast<double>(internal::Abs(v[c]));
        },
        MaxOp(), 0.0));
  }
  const double pd = p;
  double sum = Reduce(
      1, v.dim,
      [=] __device__(int32, int32 c) {
        return pow(fabs(static_cast<double>(v[c])), pd);
      },
      SumOp(), 0.0);
  return static_cast<Real>(std::pow(sum, 1.0 / pd));
}

// ---- Row and column sums ---------------------------------------------------

namespace {

using internal::kColumnTile;
using internal::TileColumnSum;

// One block of kColumnTile x kColumnTile threads per kColumnTile columns
// (TileColumnSum).
template <typename Real>
__global__ void AddRowSumMatKernel(DevVec<Real> v, Real alpha,
                                   DevMat<const Real> M, Real beta) {
  const int32 c = blockIdx.x * kColumnTile + threadIdx.x;
  Real total = TileColumnSum<Real>(
      M.rows, M.cols, [&](int32 r, int32 col) { return alpha * M(r, col); });
  if (threadIdx.y == 0 && c < M.cols) {
    Real old = beta == Real(0) ? Real(0)
               : beta == Real(1) ? v[c] : beta * v[c];
    v[c] = old + total;
  }
}

// One warp per row.
template <typename Real>
__global__ void AddColSumMatKernel(DevVec<Real> v, Real alpha,
                                   DevMat<const Real> M, Real beta) {
  int32 warps_per_block = blockDim.x / 32;
  int32 lane = threadIdx.x % 32;
  for (int64 r = static_cast<int64>(blockIdx.x) * warps_per_block +
                 threadIdx.x / 32;
       r < M.rows; r += static_cast<int64>(gridDim.x) * warps_per_block) {
    int32 row = static_cast<int32>(r);
    Real sum = 0;
    for (int32 c = lane; c < M.cols; c += 32) sum += M(row, c);
    sum = internal::WarpReduce(sum, SumOp());
    if (lane == 0) {
      Real old = beta == Real(0) ? Real(0) : beta * v[row];
      v[row] = old + alpha * sum;
    }
  }
}

}  // namespace

template <typename Real>
void AddRowSumMat(DevVec<Real> v, Scalar<Real> alpha, InMat<Real> M,
                  Scalar<Real> beta) {
  NNET3_ASSERT(v.dim == M.cols);
  if (v.dim == 0) return;
  dim3 block(kColumnTile, kColumnTile);
  dim3 grid((M.cols + kColumnTile - 1) / kColumnTile);
  AddRowSumMatKernel<<<grid, block, 0, Stream()>>>(v, Real(alpha), M,
                                                   Real(beta));
  NNET3_CUDA_CHECK_LAUNCH();
}

template <typename Real>
void AddColSumMat(DevVec<Real> v, Scalar<Real> alpha, InMat<Real> M,
                  Scalar<Real> beta) {
  NNET3_ASSERT(v.dim == M.rows);
  if (v.dim == 0) return;
  const int threads = 256, rows_per_block = threads / 32;
  int32 blocks = std::min((v.dim + rows_per_block - 1) / rows_per_block,
                          1 << 20);
  AddColSumMatKernel<<<blocks, threads, 0, Stream()>>>(v, Real(alpha), M,
                                                       Real(beta));
  NNET3_CUDA_CHECK_LAUNCH();
}

#define NNET3_INSTANTIATE_REDUCTIONS(R)                                    \
  template R MatSum(DevMat<const R>);                                      \
  template R MatMax(DevMat<const R>);                                      \
  template R MatMin(DevMat<const R>);                                      \
  template R MatFrobeniusNorm(DevMat<const R>);                            \
  template R VecSum(DevVec<const R>);                                      \
  template R VecMax(DevVec<const R>);                                      \
  template R VecMax(DevVec<const R>, int32 *);                             \
  template R VecMin(DevVec<const R>);                                      \
  template R VecMin(DevVec<const R>, int32 *);                             \
  template R VecNorm(DevVec<const R>, R);                                  \
  template void AddRowSumMat(DevVec<R>, Scalar<R>, InMat<R>, Scalar<R>);   \
  template void AddColSumMat(DevVec<R>, Scalar<R>, InMat<R>, Scalar<R>);

NNET3_INSTANTIATE_REDUCTIONS(float)
NNET3_INSTANTIATE_REDUCTIONS(double)

}  // namespace cuda
}  // namespace nnet3
