// cudamatrix/cuda/nonlinear.h
// GPU counterparts of the operations in cudamatrix/cu-math-nonlinear.h
// (the backprop of ReLU, softmax, log-softmax and dropout, per-row
// normalization and its derivative, batch-norm's column dot products), with
// the same names and meanings; outputs come first, as elsewhere in this
// library. The CPU functions are the oracle: results agree within float
// tolerance, not bit for bit (sums are trees here, loops there).
//   - per-row ops run one block per row; the row's dot products and sums
//     are accumulated in double where the CPU does so (softmax backprops)
//     and in Real elsewhere, and every read of a row finishes before the
//     row is written, so an output may be the same memory as an input
//     (in-place backprop), as on the CPU;
//   - ColumnDotProducts runs one thread per column, adding the rows in the
//     CPU's order.
// Everything is enqueued on Stream() without waiting; zero-size calls
// launch nothing.
#ifndef NNET3_CUDAMATRIX_CUDA_NONLINEAR_H_
#define NNET3_CUDAMATRIX_CUDA_NONLINEAR_H_

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

// in_deriv = (out_value > 0 ? out_deriv : 0).
template <typename Real>
void BackpropRectifiedLinear(DevMat<Real> in_deriv, InMat<Real> out_value,
                             InMat<Real> out_deriv);

// in_deriv = value .* (diff - (value . diff)) per row.
template <typename Real>
void DiffSoftmaxPerRow(DevMat<Real> in_deriv, InMat<Real> value,
                       InMat<Real> diff);

// in_deriv = out_deriv - exp(out_value) * sum(out_deriv) per row.
template <typename Real>
void DiffLogSoftmaxPerRow(DevMat<Real> in_deriv, InMat<Real> out_value,
                          InMat<Real> out_deriv);

// out = in scaled per row to rms target_rms (out has in.cols + 1 columns
// with add_log_stddev, the last one the log of the row's rms).
template <typename Real>
void NormalizePerRow(DevMat<Real> out, InMat<Real> in, Scalar<Real> target_rms,
                     bool add_log_stddev);

// Adds the derivative of NormalizePerRow to in_deriv (sets it when in_deriv
// is out_deriv's first columns, same data and stride).
template <typename Real>
void DiffNormalizePerRow(DevMat<Real> in_deriv, InMat<Real> in_value,
                         InMat<Real> out_deriv, Scalar<Real> target_rms,
                         bool add_log_stddev);

// v(c) = alpha * sum_i A(i, c) * B(i, c).
template <typename Real>
void ColumnDotProducts(DevVec<Real> v, Scalar<Real> alpha, InMat<Real> A,
                       InMat<Real> B);

// in_deriv = (in_value == 0 ? out_deriv : out_deriv * out_value / in_value).
template <typename Real>
void BackpropDropoutFromValues(DevMat<Real> in_deriv, InMat<Real> in_value,
                               InMat<Real> out_value, InMat<Real> out_deriv);

// out(r, j) = sqrt(sum_k src(r, jG+k)^2), G = src.cols / out.cols.
template <typename Real>
void GroupPnorm(DevMat<Real> out, InMat<Real> src);

// in_deriv(r, jG+k) = in_value(r, jG+k) * out_deriv(r, j) / out_value(r, j)
// (0 where out_value(r, j) == 0).
template <typename Real>
void DiffGroupPnorm(DevMat<Real> in_deriv, InMat<Real> in_value,
                    InMat<Real> out_value, InMat<Real> out_deriv);

// out = max(|in| - threshold, 0) * sign(in), sign(0) = -1.
template <typename Real>
void ExcessMagnitude(DevMat<Real> out, InMat<Real> in,
                     Scalar<Real> threshold);

// data(r, b * B + j) *= src(indexes[r * (data.cols / B) + b], j), B =
// src.cols; indexes (device memory) has data.rows * (data.cols / B)
// entries, each in [0, src.rows).
template <typename Real>
void MulRowBlocks(DevMat<Real> data, InMat<Real> src, const int32 *indexes);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_NONLINEAR_H_
