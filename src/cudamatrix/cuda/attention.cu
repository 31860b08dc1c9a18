// cudamatrix/cuda/attention.cu
// Kernels of the attention operations; see attention.h.
#include "cudamatrix/cuda/attention.h"

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

namespace {

constexpr int kWarpsPerBlock = 8;

// One warp per element (i, p) of W; the lanes share the row product.
template <typename Real>
__global__ void ShiftedRowDotsKernel(DevMat<Real> W, Real alpha,
                                     DevMat<const Real> A,
                                     DevMat<const Real> B, int32 shift) {
  const int32 lane = threadIdx.x % 32;
  const int64 total = static_cast<int64>(W.rows) * W.cols;
  for (int64 e = static_cast<int64>(blockIdx.x) * kWarpsPerBlock +
                 threadIdx.x / 32;
       e < total; e += static_cast<int64>(gridDim.x) * kWarpsPerBlock) {
    const int32 i = static_cast<int32>(e / W.cols),
                p = static_cast<int32>(e % W.cols), j = i + p * shift;
    Real sum = 0;
    for (int32 k = lane; k < A.cols; k += 32) sum += A(i, k) * B(j, k);
    sum = internal::WarpReduce(sum, internal::SumOp());
    if (lane == 0) W(i, p) = alpha * sum;
  }
}

// Per column c of w: temp[c] = sum of w(:, c), temp[cols + c] = sum of
// -w log max(w, 1e-20); a 32 x 32 block per 32 columns, the partial sums
// of the 32 row classes added in order.
template <typename Real>
__global__ void AttentionColumnSumsKernel(DevMat<const Real> w,
                                          DevVec<Real> temp) {
  __shared__ Real part_sum[32][33], part_neg[32][33];
  const int32 c = blockIdx.x * 32 + threadIdx.x;
  Real s = 0, n = 0;
  if (c < w.cols)
    for (int32 r = threadIdx.y; r < w.rows; r += blockDim.y) {
      const Real x = w(r, c),
                 f = x < Real(1.0e-20) ? Real(1.0e-20) : x;
      s += x;
      n -= x * internal::Log(f);
    }
  part_sum[threadIdx.y][threadIdx.x] = s;
  part_neg[threadIdx.y][threadIdx.x] = n;
  __syncthreads();
  if (threadIdx.y == 0 && c < w.cols) {
    Real ts = 0, tn = 0;
    for (int32 k = 0; k < static_cast<int32>(blockDim.y); k++) {
      ts += part_sum[k][threadIdx.x];
      tn += part_neg[k][threadIdx.x];
    }
    temp[c] = ts;
    temp[w.cols + c] = tn;
  }
}

}  // namespace

template <typename Real>
void ShiftedRowDots(DevMat<Real> W, Scalar<Real> alpha, InMat<Real> A,
                    InMat<Real> B, int32 shift) {
  NNET3_ASSERT(W.rows == A.rows && (W.Empty() || B.cols == A.cols));
  if (W.Empty()) return;
  NNET3_ASSERT(shift >= 0 && A.rows - 1 + (W.cols - 1) * shift < B.rows);
  const int64 total = static_cast<int64>(W.rows) * W.cols;
  const int blocks = static_cast<int>(
      std::min<int64>((total + kWarpsPerBlock - 1) / kWarpsPerBlock, 65536));
  ShiftedRowDotsKernel<<<blocks, kWarpsPerBlock * 32, 0, Stream()>>>(
      W, Real(alpha), A, B, shift);
  NNET3_CUDA_CHECK_LAUNCH();
}

template <typename Real>
void AddWeightedShiftedRows(DevMat<Real> A, Scalar<Real> alpha, InMat<Real> B,
                            InMat<Real> W, int32 shift) {
  if (A.Empty() || W.Empty()) return;
  NNET3_ASSERT(W.rows == A.rows && B.cols == A.cols && shift >= 0 &&
               A.rows - 1 + (W.cols - 1) * shift < B.rows);
  const Real a = alpha;
  internal::ForEachElement(A.rows, A.cols, [=] __device__(int32 i, int32 k) {
    Real acc = A(i, k);
    for (int32 p = 0; p < W.cols; p++) acc += (a * W(i, p)) * B(i + p * shift, k);
    A(i, k) = acc;
  });
}

template <typename Real>
void ScatterWeightedRows(DevMat<Real> B, Scalar<Real> alpha, InMat<Real> A,
                         InMat<Real> W, int32 shift) {
  if (B.Empty() || W.Empty() || A.Empty()) return;
  NNET3_ASSERT(W.rows == A.rows && B.cols == A.cols && shift >= 0 &&
               A.rows - 1 + (W.cols - 1) * shift < B.rows);
  const Real a = alpha;
  // The CPU adds the terms of row r in increasing i, i.e. decreasing p
  // (with shift 0, r's own row in increasing p).
  internal::ForEachElement(B.rows, B.cols, [=] __device__(int32 r, int32 k) {
    Real acc = B(r, k);
    if (shift == 0) {
      if (r < A.rows)
        for (int32 p = 0; p < W.cols; p++) acc += (a * W(r, p)) * A(r, k);
    } else {
      for (int32 p = W.cols - 1; p >= 0; p--) {
        const int32 i = r - p * shift;
        if (i >= 0 && i < A.rows) acc += (a * W(i, p)) * A(i, k);
      }
    }
    B(r, k) = acc;
  });
}

template <typename Real>
void AccumulateAttentionStats(InMat<Real> weights, int32 num_heads,
                              DevVec<Real> temp, DevMat<double> posterior,
                              DevVec<double> entropy) {
  if (weights.Empty()) return;
  NNET3_ASSERT(num_heads > 0 && weights.cols % num_heads == 0 &&
               temp.dim == 2 * weights.cols && entropy.dim == num_heads &&
               posterior.rows == num_heads &&
               posterior.cols == weights.cols / num_heads);
  dim3 block(32, 32);
  dim3 grid((weights.cols + 31) / 32);
  AttentionColumnSumsKernel<<<grid, block, 0, Stream()>>>(weights, temp);
  NNET3_CUDA_CHECK_LAUNCH();
  const int32 context = posterior.cols, cols = weights.cols;
  DevVec<const Real> sums = temp;
  internal::ForEachIndex(num_heads, [=] __device__(int32 h) {
    Real ent = 0;
    for (int32 p = 0; p < context; p++) {
      posterior(h, p) += sums[h * context + p];
      ent += sums[cols + h * context + p];
    }
    entropy[h] += ent;
  });
}

#define NNET3_INSTANTIATE(R)                                                 \
  template void ShiftedRowDots(DevMat<R>, Scalar<R>, InMat<R>, InMat<R>,    \
                               int32);                                      \
  template void AddWeightedShiftedRows(DevMat<R>, Scalar<R>, InMat<R>,      \
                                       InMat<R>, int32);                    \
  template void ScatterWeightedRows(DevMat<R>, Scalar<R>, InMat<R>,         \
                                    InMat<R>, int32);                       \
  template void AccumulateAttentionStats(InMat<R>, int32, DevVec<R>,        \
                                         DevMat<double>, DevVec<double>);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

}  // namespace cuda
}  // namespace nnet3
