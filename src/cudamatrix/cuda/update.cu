// cudamatrix/cuda/update.cu
// Kernels of the update operations; see update.h.
#include "cudamatrix/cuda/update.h"

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

namespace {

template <typename Real>
__global__ void TruncationRowScalesKernel(DevVec<Real> scales,
                                          DevMat<Real> flags,
                                          DevMat<const Real> deriv,
                                          DevVec<const Real> zeroing,
                                          Real inv_clip_sq, Real zero_sq) {
  __shared__ Real shared[32];
  for (int32 r = blockIdx.x; r < deriv.rows; r += gridDim.x) {
    Real sumsq = 0;
    for (int32 c = threadIdx.x; c < deriv.cols; c += blockDim.x) {
      const Real x = deriv(r, c);
      sumsq += x * x;
    }
    sumsq = internal::BlockReduce(sumsq, internal::SumOp(), Real(0), shared);
    if (threadIdx.x == 0) {
      const Real ratio_sq = inv_clip_sq * sumsq;
      Real scale = 1;
      const bool clipped = !(ratio_sq < Real(1));
      if (clipped) scale = internal::Pow(ratio_sq, Real(-0.5));
      const bool zeroed =
          (sumsq - zero_sq) > Real(0) && zeroing.dim > 0 && zeroing[r] != Real(0);
      if (zeroed) scale = 0;
      scales[r] = scale;
      if (flags.data != nullptr) {
        flags(0, r) = clipped ? Real(1) : Real(0);
        flags(1, r) = zeroed ? Real(1) : Real(0);
      }
    }
  }
}

// One block runs Gram-Schmidt over the rows in order. Thread t owns the
// columns t, t + blockDim.x, ... of every row, so between the block
// reductions (which synchronize) no thread reads what another wrote.
template <typename Real>
__global__ void OrthonormalizeRowsKernel(DevMat<Real> m, double *q,
                                         int32 *failed) {
  __shared__ double shared[32];
  const int32 rows = m.rows, cols = m.cols;
  for (int32 r = 0; r < rows; r++) {
    double *x = q + static_cast<size_t>(r) * cols;
    for (int32 c = threadIdx.x; c < cols; c += blockDim.x) x[c] = m(r, c);
    for (int32 pass = 0; pass < 2; pass++)
      for (int32 s = 0; s < r; s++) {
        const double *qs = q + static_cast<size_t>(s) * cols;
        double dot = 0.0;
        for (int32 c = threadIdx.x; c < cols; c += blockDim.x)
          dot += x[c] * qs[c];
        dot = internal::BlockAllReduce(dot, internal::SumOp(), 0.0, shared);
        for (int32 c = threadIdx.x; c < cols; c += blockDim.x)
          x[c] -= dot * qs[c];
      }
    double norm = 0.0;
    for (int32 c = threadIdx.x; c < cols; c += blockDim.x) norm += x[c] * x[c];
    norm = sqrt(internal::BlockAllReduce(norm, internal::SumOp(), 0.0, shared));
    if (!(norm > 1.0e-10)) {  // the same value in every thread
      if (threadIdx.x == 0) *failed = 1;
      return;
    }
    for (int32 c = threadIdx.x; c < cols; c += blockDim.x) x[c] /= norm;
  }
  for (int32 r = 0; r < rows; r++)
    for (int32 c = threadIdx.x; c < cols; c += blockDim.x)
      m(r, c) = static_cast<Real>(q[static_cast<size_t>(r) * cols + c]);
}

}  // namespace

template <typename Real>
void TruncationRowScales(DevVec<Real> scales, DevMat<Real> flags,
                         InMat<Real> deriv, InVec<Real> zeroing,
                         Scalar<Real> inv_clip_sq, Scalar<Real> zero_sq) {
  NNET3_ASSERT(scales.dim == deriv.rows &&
               (zeroing.dim == 0 || zeroing.dim == deriv.rows) &&
               (flags.data == nullptr ||
                (flags.rows == 2 && flags.cols == deriv.rows)));
  if (deriv.rows == 0) return;
  const int threads = std::min(256, std::max(32, (deriv.cols + 31) / 32 * 32));
  const int blocks = std::min(deriv.rows, 1 << 30);
  TruncationRowScalesKernel<<<blocks, threads, 0, Stream()>>>(
      scales, flags, deriv, zeroing, Real(inv_clip_sq), Real(zero_sq));
  NNET3_CUDA_CHECK_LAUNCH();
}

template <typename Real>
void FloorMagnitude(DevVec<Real> v, Scalar<Real> floor) {
  const Real f = floor;
  internal::ForEachIndex(v.dim, [=] __device__(int32 i) {
    const Real s = v[i];
    if (internal::Abs(s) < f) v[i] = (s >= Real(0) ? f : -f);
  });
}

template <typename Real>
bool OrthonormalizeRows(DevMat<Real> m, double *work) {
  if (m.Empty()) return true;
  int32 *failed = static_cast<int32 *>(AllocTemp(sizeof(int32)));
  NNET3_CUDA_CHECK(cudaMemsetAsync(failed, 0, sizeof(int32), Stream()));
  OrthonormalizeRowsKernel<<<1, 512, 0, Stream()>>>(m, work, failed);
  NNET3_CUDA_CHECK_LAUNCH();
  int32 result = 0;
  NNET3_CUDA_CHECK(cudaMemcpyAsync(&result, failed, sizeof(int32),
                                   cudaMemcpyDeviceToHost, Stream()));
  FreeTemp(failed);
  Synchronize();
  return result == 0;
}

#define NNET3_INSTANTIATE(R)                                              \
  template void TruncationRowScales(DevVec<R>, DevMat<R>, InMat<R>,      \
                                    InVec<R>, Scalar<R>, Scalar<R>);     \
  template void FloorMagnitude(DevVec<R>, Scalar<R>);                    \
  template bool OrthonormalizeRows(DevMat<R>, double *);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

}  // namespace cuda
}  // namespace nnet3
