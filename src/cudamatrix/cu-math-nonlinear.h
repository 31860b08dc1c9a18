// cudamatrix/cu-math-nonlinear.h
// Named operations of the nonlinear, normalizing and dropout components
// (softmax, log-softmax and ReLU backprop, per-row normalization and its
// derivative, the column sums of batch-norm's backprop, dropout's backprop
// and blockwise masks, p-norm pooling, gradient
// clipping's repair term), as free functions in namespace
// nnet3::cu, the way Kaldi's cudamatrix/cu-math.h keeps cu::NormalizePerRow
// and cu::DiffNormalizePerRow. Kaldi's names and argument order are kept
// where Kaldi has the operation; outputs come last.
//
// Invariants:
//  - these are the CPU backend of each operation: they compute exactly the
//    floats that the component code computed before it was moved here (same
//    operations, same order, same precision), so the Kaldi conformance
//    tests stay byte-identical; the CUDA counterparts are in
//    cudamatrix/cuda/nonlinear.h and agree within float tolerance;
//  - unless stated, an output may be the same memory as an input of the same
//    shape (in-place backprop), never a partial overlap.
#ifndef NNET3_CUDAMATRIX_CU_MATH_NONLINEAR_H_
#define NNET3_CUDAMATRIX_CU_MATH_NONLINEAR_H_

#include "cudamatrix/cu-matrix.h"

namespace nnet3 {
namespace cu {

// in_deriv = (out_value > 0 ? out_deriv : 0), elementwise (the backprop of
// a rectifier through its output).
template <typename Real>
void BackpropRectifiedLinear(const CuMatrixBase<Real> &out_value,
                             const CuMatrixBase<Real> &out_deriv,
                             CuMatrixBase<Real> *in_deriv);

// Backprop of a row-wise softmax through its output y = value and the
// derivative e = diff: in_deriv = y .* (e - y.e) per row, the dot product
// accumulated in double. (Kaldi: CuMatrixBase::DiffSoftmaxPerRow.)
template <typename Real>
void DiffSoftmaxPerRow(const CuMatrixBase<Real> &value,
                       const CuMatrixBase<Real> &diff,
                       CuMatrixBase<Real> *in_deriv);

// Backprop of a row-wise log-softmax through its output y = out_value:
// in_deriv = e - exp(y) * sum(e) per row, the sum accumulated in double.
// (Kaldi: CuMatrixBase::DiffLogSoftmaxPerRow.)
template <typename Real>
void DiffLogSoftmaxPerRow(const CuMatrixBase<Real> &out_value,
                          const CuMatrixBase<Real> &out_deriv,
                          CuMatrixBase<Real> *in_deriv);

// out(r, 0:D) = in(r) * target_rms * sqrt(D) / |in(r)|, D = in.NumCols(),
// with |in(r)|^2 / (D target_rms^2) floored at 2^-66 (Kaldi's floor). With
// add_log_stddev out has D + 1 columns and out(r, D) = log(target_rms) -
// log of that scale, i.e. the log of the row's rms. out's first D columns
// may be in itself.
template <typename Real>
void NormalizePerRow(const CuMatrixBase<Real> &in, Real target_rms,
                     bool add_log_stddev, CuMatrixBase<Real> *out);

// Adds to in_deriv the derivative of NormalizePerRow with respect to its
// input, given in_value and the derivative w.r.t. the output (D + 1
// columns with add_log_stddev). in_deriv may be out_deriv's first D columns,
// in which case it is set rather than added to.
template <typename Real>
void DiffNormalizePerRow(const CuMatrixBase<Real> &in_value,
                         const CuMatrixBase<Real> &out_deriv, Real target_rms,
                         bool add_log_stddev, CuMatrixBase<Real> *in_deriv);

// v(c) = alpha * sum_i A(i, c) * B(i, c), the sum in Real in row order;
// Kaldi writes it v.AddDiagMatMat(alpha, A, kTrans, B, kNoTrans, 0.0).
template <typename Real>
void ColumnDotProducts(Real alpha, const CuMatrixBase<Real> &A,
                       const CuMatrixBase<Real> &B, CuVectorBase<Real> *v);

// Backprop of dropout from the values alone (the mask is out / in):
// in_deriv = (in_value == 0 ? out_deriv : out_deriv * out_value / in_value).
template <typename Real>
void BackpropDropoutFromValues(const CuMatrixBase<Real> &in_value,
                               const CuMatrixBase<Real> &out_value,
                               const CuMatrixBase<Real> &out_deriv,
                               CuMatrixBase<Real> *in_deriv);

// Group 2-norms (PnormComponent, Kaldi's GroupPnorm with power 2): with
// G = src.NumCols() / out->NumCols(), out(r, j) = sqrt(sum_k src(r, jG+k)^2),
// the sum in Real in k order.
template <typename Real>
void GroupPnorm(const CuMatrixBase<Real> &src, CuMatrixBase<Real> *out);

// Backprop of GroupPnorm: in_deriv(r, jG+k) = in_value(r, jG+k) *
// out_deriv(r, j) / out_value(r, j), 0 where out_value(r, j) == 0.
// (Kaldi: CuMatrixBase::DiffGroupPnorm with power 2.)
template <typename Real>
void DiffGroupPnorm(const CuMatrixBase<Real> &in_value,
                    const CuMatrixBase<Real> &out_value,
                    const CuMatrixBase<Real> &out_deriv,
                    CuMatrixBase<Real> *in_deriv);

// out = max(|in| - threshold, 0) * sign(in), with sign(0) = -1 (Kaldi's
// convention), elementwise: how far each element lies beyond +-threshold
// (ClipGradientComponent's self-repair term). out may be in.
template <typename Real>
void ExcessMagnitude(const CuMatrixBase<Real> &in, Real threshold,
                     CuMatrixBase<Real> *out);

// Blockwise row scaling (the masks of GeneralDropoutComponent): data's
// columns are NumCols() / B blocks of B = src.NumCols() columns, and
// data(r, b * B + j) *= src(indexes[r * (NumCols() / B) + b], j). indexes
// has data.NumRows() * (NumCols() / B) entries, each in [0, src.NumRows()).
// (Kaldi: MulRows(src, indexes) on data viewed as (rows * cols / B) x B.)
template <typename Real>
void MulRowBlocks(const CuMatrixBase<Real> &src, const CuArray<int32> &indexes,
                  CuMatrixBase<Real> *data);

}  // namespace cu
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_MATH_NONLINEAR_H_
