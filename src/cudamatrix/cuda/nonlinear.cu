// cudamatrix/cuda/nonlinear.cu
// Kernels of the nonlinear and normalizing components; see nonlinear.h.
#include "cudamatrix/cuda/nonlinear.h"

#include <cmath>

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

namespace {

bool SameDim(DevMat<const float> a, DevMat<const float> b) {
  return a.rows == b.rows && a.cols == b.cols;
}
bool SameDim(DevMat<const double> a, DevMat<const double> b) {
  return a.rows == b.rows && a.cols == b.cols;
}

// Launch shape of the one-block-per-row kernels: enough threads to cover a
// short row once (at least one warp), at most 256; the kernels stride over
// rows by gridDim.x.
struct RowLaunch {
  int threads, blocks;
  RowLaunch(int32 rows, int32 cols)
      : threads(std::min(256, std::max(32, (cols + 31) / 32 * 32))),
        blocks(std::min(rows, 1 << 30)) {}
};

// kLog false: in_deriv = y .* (e - y.e); true: in_deriv = e - exp(y) sum(e).
// The row's sum is accumulated in double, as on the CPU. The reduction's
// barriers order every read of the row before any write, so in_deriv may be
// y or e.
template <typename Real, bool kLog>
__global__ void DiffSoftmaxKernel(DevMat<Real> in_deriv, DevMat<const Real> y,
                                  DevMat<const Real> e) {
  __shared__ double shared[32];
  for (int32 r = blockIdx.x; r < y.rows; r += gridDim.x) {
    double sum = 0.0;
    for (int32 c = threadIdx.x; c < y.cols; c += blockDim.x)
      sum += kLog ? static_cast<double>(e(r, c))
                  : static_cast<double>(y(r, c)) * e(r, c);
    sum = internal::BlockAllReduce(sum, internal::SumOp(), 0.0, shared);
    Real s = static_cast<Real>(sum);
    for (int32 c = threadIdx.x; c < y.cols; c += blockDim.x) {
      Real yv = y(r, c), ev = e(r, c);
      in_deriv(r, c) = kLog ? ev - internal::Exp(yv) * s : yv * (ev - s);
    }
  }
}

template <typename Real, bool kLog>
void LaunchDiffSoftmax(DevMat<Real> in_deriv, DevMat<const Real> y,
                       DevMat<const Real> e) {
  NNET3_ASSERT(SameDim(y, e) && SameDim(y, in_deriv));
  if (in_deriv.Empty()) return;
  RowLaunch l(y.rows, y.cols);
  DiffSoftmaxKernel<Real, kLog><<<l.blocks, l.threads, 0, Stream()>>>(
      in_deriv, y, e);
  NNET3_CUDA_CHECK_LAUNCH();
}

// scale(r) = max(|in(r)|^2 * inv_d_scaled, floor)^-0.5; out(r, c) = in(r, c)
// * scale; with add_log out(r, in.cols) = -log(scale) + log_rms.
template <typename Real>
__global__ void NormalizeKernel(DevMat<Real> out, DevMat<const Real> in,
                                Real inv_d_scaled, Real floor, Real log_rms,
                                bool add_log) {
  __shared__ Real shared[32];
  for (int32 r = blockIdx.x; r < in.rows; r += gridDim.x) {
    Real sumsq = 0;
    for (int32 c = threadIdx.x; c < in.cols; c += blockDim.x) {
      Real x = in(r, c);
      sumsq += x * x;
    }
    sumsq = internal::BlockAllReduce(sumsq, internal::SumOp(), Real(0), shared);
    Real n = sumsq * inv_d_scaled;
    if (n < floor) n = floor;
    Real scale = internal::Pow(n, Real(-0.5));
    for (int32 c = threadIdx.x; c < in.cols; c += blockDim.x)
      out(r, c) = in(r, c) * scale;
    if (add_log && threadIdx.x == 0)
      out(r, in.cols) = -internal::Log(scale) + log_rms;
  }
}

// The derivative of NormalizeKernel, added to in_deriv (in place: in_deriv
// is od's first columns and is scaled instead). Per row, with x = in_value,
// s = scale as above, dot = od[0:D] . x, ss = |x|^2:
//   in_deriv += [add_log] od(r, D) / max(ss, log_floor) * x;
//   in_deriv += s * od[0:D]   (in place: in_deriv *= s);
//   in_deriv += neg_inv_d_scaled * dot * s'^3 * x, s' = 0 where the floor
//   was hit (s == floor_scale).
template <typename Real>
__global__ void DiffNormalizeKernel(DevMat<Real> in_deriv,
                                    DevMat<const Real> x,
                                    DevMat<const Real> od, Real inv_d_scaled,
                                    Real neg_inv_d_scaled, Real floor,
                                    Real log_floor, Real floor_scale,
                                    bool add_log, bool in_place) {
  __shared__ Real shared[32];
  const int32 d = x.cols;
  for (int32 r = blockIdx.x; r < x.rows; r += gridDim.x) {
    Real dot = 0, ss = 0;
    for (int32 c = threadIdx.x; c < d; c += blockDim.x) {
      Real xv = x(r, c);
      dot += od(r, c) * xv;
      ss += xv * xv;
    }
    dot = internal::BlockAllReduce(dot, internal::SumOp(), Real(0), shared);
    ss = internal::BlockAllReduce(ss, internal::SumOp(), Real(0), shared);
    Real log_coeff = 0;
    if (add_log) {
      Real t = ss < log_floor ? log_floor : ss;
      log_coeff = internal::Pow(t, Real(-1)) * od(r, d);
    }
    Real n = ss * inv_d_scaled;
    if (n < floor) n = floor;
    Real s = internal::Pow(n, Real(-0.5));
    Real s3 = s == floor_scale ? Real(0) : s;
    Real x_coeff = neg_inv_d_scaled * (dot * (s3 * s3 * s3));
    for (int32 c = threadIdx.x; c < d; c += blockDim.x) {
      Real xv = x(r, c), v = in_deriv(r, c);
      if (add_log) v += log_coeff * xv;
      if (in_place)
        v *= s;
      else
        v += s * od(r, c);
      v += x_coeff * xv;
      in_deriv(r, c) = v;
    }
  }
}

}  // namespace

template <typename Real>
void BackpropRectifiedLinear(DevMat<Real> in_deriv, InMat<Real> out_value,
                             InMat<Real> out_deriv) {
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, in_deriv));
  internal::ForEachElement(in_deriv.rows, in_deriv.cols,
                 [=] __device__(int32 r, int32 c) {
                   in_deriv(r, c) =
                       out_value(r, c) > Real(0) ? out_deriv(r, c) : Real(0);
                 });
}

template <typename Real>
void DiffSoftmaxPerRow(DevMat<Real> in_deriv, InMat<Real> value,
                       InMat<Real> diff) {
  LaunchDiffSoftmax<Real, false>(in_deriv, value, diff);
}

template <typename Real>
void DiffLogSoftmaxPerRow(DevMat<Real> in_deriv, InMat<Real> out_value,
                          InMat<Real> out_deriv) {
  LaunchDiffSoftmax<Real, true>(in_deriv, out_value, out_deriv);
}

template <typename Real>
void NormalizePerRow(DevMat<Real> out, InMat<Real> in, Scalar<Real> target_rms,
                     bool add_log_stddev) {
  NNET3_ASSERT(out.rows == in.rows &&
               (in.rows == 0 ||
                out.cols == in.cols + (add_log_stddev ? 1 : 0)));
  if (in.rows == 0) return;
  // In place only over the same rows: same data means same stride (checked
  // after the empty case, where both pointers may be null).
  NNET3_ASSERT(out.data != in.data || out.stride == in.stride);
  Real d_scaled = in.cols * target_rms * target_rms;
  RowLaunch l(in.rows, in.cols);
  NormalizeKernel<Real><<<l.blocks, l.threads, 0, Stream()>>>(
      out, in, static_cast<Real>(1.0 / d_scaled),
      static_cast<Real>(1.3552527156068805425e-20),
      static_cast<Real>(std::log(target_rms)), add_log_stddev);
  NNET3_CUDA_CHECK_LAUNCH();
}

template <typename Real>
void DiffNormalizePerRow(DevMat<Real> in_deriv, InMat<Real> in_value,
                         InMat<Real> out_deriv, Scalar<Real> target_rms,
                         bool add_log_stddev) {
  const int32 d = in_value.cols;
  NNET3_ASSERT(SameDim(in_value, in_deriv) && out_deriv.rows == in_value.rows &&
               (in_value.rows == 0 ||
                out_deriv.cols == d + (add_log_stddev ? 1 : 0)));
  if (in_value.rows == 0) return;
  const bool in_place = in_deriv.data == out_deriv.data;
  NNET3_ASSERT(!in_place || in_deriv.stride == out_deriv.stride);
  const Real floor = static_cast<Real>(1.3552527156068805425e-20);
  Real d_scaled = d * target_rms * target_rms;
  RowLaunch l(in_value.rows, d);
  DiffNormalizeKernel<Real><<<l.blocks, l.threads, 0, Stream()>>>(
      in_deriv, in_value, out_deriv, static_cast<Real>(1.0 / d_scaled),
      static_cast<Real>(-1.0 / d_scaled), floor, d * floor,
      static_cast<Real>(1.0 / std::sqrt(floor)), add_log_stddev, in_place);
  NNET3_CUDA_CHECK_LAUNCH();
}

namespace {

// One block of kColumnTile x kColumnTile threads per kColumnTile columns
// (internal::TileColumnSum). One thread per column, looping over every row,
// left most of the GPU idle: 1024 columns of 2048 rows took about 0.6 ms.
template <typename Real>
__global__ void ColumnDotProductsKernel(DevVec<Real> v, Real alpha,
                                        DevMat<const Real> A,
                                        DevMat<const Real> B) {
  const int32 c = blockIdx.x * internal::kColumnTile + threadIdx.x;
  Real total = internal::TileColumnSum<Real>(
      A.rows, A.cols,
      [&](int32 r, int32 col) { return A(r, col) * B(r, col); });
  if (threadIdx.y == 0 && c < A.cols) v[c] = alpha * total;
}

}  // namespace

template <typename Real>
void ColumnDotProducts(DevVec<Real> v, Scalar<Real> alpha, InMat<Real> A,
                       InMat<Real> B) {
  NNET3_ASSERT(SameDim(A, B) && v.dim == A.cols);
  if (v.dim == 0) return;
  dim3 block(internal::kColumnTile, internal::kColumnTile);
  dim3 grid((A.cols + internal::kColumnTile - 1) / internal::kColumnTile);
  ColumnDotProductsKernel<<<grid, block, 0, Stream()>>>(v, Real(alpha), A, B);
  NNET3_CUDA_CHECK_LAUNCH();
}

template <typename Real>
void BackpropDropoutFromValues(DevMat<Real> in_deriv, InMat<Real> in_value,
                               InMat<Real> out_value, InMat<Real> out_deriv) {
  NNET3_ASSERT(SameDim(in_value, out_value) && SameDim(in_value, out_deriv) &&
               SameDim(in_value, in_deriv));
  internal::ForEachElement(in_deriv.rows, in_deriv.cols,
                 [=] __device__(int32 r, int32 c) {
                   Real x = in_value(r, c), d = out_deriv(r, c);
                   in_deriv(r, c) = x == Real(0) ? d : d * out_value(r, c) / x;
                 });
}

template <typename Real>
void GroupPnorm(DevMat<Real> out, InMat<Real> src) {
  NNET3_ASSERT(out.rows == src.rows);
  if (out.Empty()) return;
  NNET3_ASSERT(src.cols % out.cols == 0);
  const int32 group = src.cols / out.cols;
  internal::ForEachElement(out.rows, out.cols,
                           [=] __device__(int32 r, int32 j) {
                             Real sum = 0;
                             for (int32 k = 0; k < group; k++) {
                               Real x = src(r, j * group + k);
                               sum += x * x;
                             }
                             out(r, j) = internal::Sqrt(sum);
                           });
}

template <typename Real>
void DiffGroupPnorm(DevMat<Real> in_deriv, InMat<Real> in_value,
                    InMat<Real> out_value, InMat<Real> out_deriv) {
  NNET3_ASSERT(SameDim(in_value, in_deriv) && SameDim(out_value, out_deriv) &&
               in_value.rows == out_value.rows);
  if (in_deriv.Empty()) return;
  NNET3_ASSERT(out_value.cols > 0 && in_value.cols % out_value.cols == 0);
  const int32 group = in_value.cols / out_value.cols;
  internal::ForEachElement(
      in_deriv.rows, in_deriv.cols, [=] __device__(int32 r, int32 c) {
        int32 j = c / group;
        Real y = out_value(r, j);
        Real factor = y != Real(0) ? out_deriv(r, j) / y : Real(0);
        in_deriv(r, c) = in_value(r, c) * factor;
      });
}

template <typename Real>
void ExcessMagnitude(DevMat<Real> out, InMat<Real> in,
                     Scalar<Real> threshold) {
  NNET3_ASSERT(SameDim(in, out));
  internal::ForEachElement(out.rows, out.cols,
                           [=] __device__(int32 r, int32 c) {
                             Real x = in(r, c);
                             Real sign = x > Real(0) ? Real(1) : Real(-1);
                             Real mag = internal::Abs(x) - threshold;
                             out(r, c) = (mag > Real(0) ? mag : Real(0)) * sign;
                           });
}

template <typename Real>
void MulRowBlocks(DevMat<Real> data, InMat<Real> src, const int32 *indexes) {
  if (data.Empty()) return;
  const int32 block = src.cols;
  NNET3_ASSERT(block > 0 && data.cols % block == 0);
  const int32 multiple = data.cols / block;
  internal::ForEachElement(
      data.rows, data.cols, [=] __device__(int32 r, int32 c) {
        int32 b = c / block, j = c - b * block;
        int32 i = indexes[static_cast<size_t>(r) * multiple + b];
        data(r, c) *= src(i, j);
      });
}

#define NNET3_INSTANTIATE(R)                                                 \
  template void BackpropRectifiedLinear(DevMat<R>, InMat<R>, InMat<R>);     \
  template void DiffSoftmaxPerRow(DevMat<R>, InMat<R>, InMat<R>);           \
  template void DiffLogSoftmaxPerRow(DevMat<R>, InMat<R>, InMat<R>);        \
  template void NormalizePerRow(DevMat<R>, InMat<R>, Scalar<R>, bool);      \
  template void DiffNormalizePerRow(DevMat<R>, InMat<R>, InMat<R>,          \
                                    Scalar<R>, bool);                       \
  template void ColumnDotProducts(DevVec<R>, Scalar<R>, InMat<R>, InMat<R>); \
  template void BackpropDropoutFromValues(DevMat<R>, InMat<R>, InMat<R>,    \
                                          InMat<R>);                        \
  template void GroupPnorm(DevMat<R>, InMat<R>);                            \
  template void DiffGroupPnorm(DevMat<R>, InMat<R>, InMat<R>, InMat<R>);    \
  template void ExcessMagnitude(DevMat<R>, InMat<R>, Scalar<R>);            \
  template void MulRowBlocks(DevMat<R>, InMat<R>, const int32 *);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

}  // namespace cuda
}  // namespace nnet3
