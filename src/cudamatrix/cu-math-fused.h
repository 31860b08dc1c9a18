// cudamatrix/cu-math-fused.h
// One-pass forms of the short operation sequences that BatchNormComponent
// and RectifiedLinearComponent run on every minibatch (column statistics,
// normalization, their backprop, the rectifier's statistics and its
// backprop with self-repair). Run as separate operations each sequence
// reads and writes whole matrices three to eight times; these read each
// operand once and write the result once, which is what the memory-bound
// part of CPU training and inference costs.
//
// Invariants:
//  - on host operands each function computes exactly the floats of the
//    sequence it replaces (named in its comment): the same operations on
//    each element in the same order and precision, so results do not change
//    by a bit and the Kaldi conformance tests are unaffected;
//  - on device operands each runs that sequence itself, so the GPU backend
//    computes what it computed before;
//  - where an output may share memory with an input it says so; otherwise
//    outputs and inputs do not overlap.
#ifndef NNET3_CUDAMATRIX_CU_MATH_FUSED_H_
#define NNET3_CUDAMATRIX_CU_MATH_FUSED_H_

#include "cudamatrix/cu-matrix.h"

namespace nnet3 {
namespace cu {

// sums(c) = sum_r alpha * M(r, c) and sumsq(c) = sum_r alpha * M(r, c)^2,
// in row order: sums.AddRowSumMat(alpha, M, 0) and
// sumsq.AddDiagMat2(alpha, M, kTrans, 0) in one pass.
template <typename Real>
void ColumnSumsAndSquares(Real alpha, const CuMatrixBase<Real> &M,
                          CuVectorBase<Real> *sums, CuVectorBase<Real> *sumsq);

// sums(c) = sum_r M(r, c) and positive(c) = the number of rows with
// M(r, c) > 0 (NaN counts as not positive): sums.AddRowSumMat(1, M, 0) and
// positive.AddRowSumMat(1, H, 0), H = M with ApplyHeaviside(), without
// making H.
template <typename Real>
void ColumnSumsAndPositiveCounts(const CuMatrixBase<Real> &M,
                                 CuVectorBase<Real> *sums,
                                 CuVectorBase<Real> *positive);

// out = (in - offset) * scale, per column: out.CopyFromMat(in);
// out.AddVecToRows(-1, offset); out.MulColsVec(scale). out may be in.
template <typename Real>
void SubtractAndScaleColumns(const CuMatrixBase<Real> &in,
                             const CuVectorBase<Real> &offset,
                             const CuVectorBase<Real> &scale,
                             CuMatrixBase<Real> *out);

// out = in * scale + offset, per column: out.CopyFromMat(in);
// out.MulColsVec(scale); out.AddVecToRows(1, offset). out may be in.
template <typename Real>
void ScaleAndShiftColumns(const CuMatrixBase<Real> &in,
                          const CuVectorBase<Real> &scale,
                          const CuVectorBase<Real> &offset,
                          CuMatrixBase<Real> *out);

// BatchNormComponent's training-mode backprop through its output y =
// out_value, with e = out_deriv, N rows and the forward pass's scale:
//   var_deriv_mod(c) = scale(c) * coeff * sum_r y(r, c) e(r, c),
//   neg_mean_deriv(c) = sum_r (-1/N) e(r, c),
//   in_deriv = (e + neg_mean_deriv) * scale + y * var_deriv_mod.
// The sequence it replaces: ColumnDotProducts(coeff, y, e, var_deriv_mod);
// var_deriv_mod.MulElements(scale); neg_mean_deriv.AddRowSumMat(-1/N, e, 0);
// in_deriv.CopyFromMat(e); in_deriv.AddVecToRows(1, neg_mean_deriv);
// in_deriv.MulColsVec(scale); in_deriv.AddMatDiagVec(1, y, kNoTrans,
// var_deriv_mod, 1). in_deriv may be out_deriv.
template <typename Real>
void BatchNormBackprop(const CuMatrixBase<Real> &out_value,
                       const CuMatrixBase<Real> &out_deriv,
                       const CuVectorBase<Real> &scale, Real coeff,
                       CuVectorBase<Real> *var_deriv_mod,
                       CuVectorBase<Real> *neg_mean_deriv,
                       CuMatrixBase<Real> *in_deriv);

// The rectifier's backprop with its statistics and self-repair term:
// when deriv_sumsq is given, deriv_sumsq(c) = sum_r out_deriv(r, c)^2 (as
// deriv_sumsq.AddDiagMat2(1, out_deriv, kTrans, 0), read before in_deriv is
// written); then in_deriv = (out_value > 0 ? out_deriv : 0)
// (BackpropRectifiedLinear), plus repair per column when it is given
// (in_deriv.AddVecToRows(1, repair)). in_deriv may be out_deriv.
template <typename Real>
void BackpropRectifiedLinearWithStats(const CuMatrixBase<Real> &out_value,
                                      const CuMatrixBase<Real> &out_deriv,
                                      CuVectorBase<Real> *deriv_sumsq,
                                      const CuVectorBase<Real> *repair,
                                      CuMatrixBase<Real> *in_deriv);

}  // namespace cu
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_MATH_FUSED_H_
