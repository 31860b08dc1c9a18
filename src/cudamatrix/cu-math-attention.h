// cudamatrix/cu-math-attention.h
// Operations of the attention components (nnet3/components/attention.cc,
// restricted-attention.cc) on Cu matrices, as free functions in namespace
// nnet3::cu. Attention pairs row i of an n_out-row matrix with the rows
// i + p * shift (p = 0 .. n_pos - 1) of a taller one, which the row
// products and sums here do without forming the shifted copies:
//   ShiftedRowDots, AddWeightedShiftedRows, ScatterWeightedRows: the three
//     products of attention's forward and backward passes;
//   AccumulateAttentionStats: the per-head posterior and entropy statistics
//     of the attention weights.
// The CPU implementations are the components' former loops, moved
// unchanged (same operations, same order, same precision). On device
// operands each calls its DeviceOps entry (cuda/attention.h), which agrees
// with the CPU to rounding. Every function requires, with n_out rows in
// the smaller matrix and n_pos columns in W, that the taller one has at
// least n_out + (n_pos - 1) * shift rows, and shift >= 0.
#ifndef NNET3_CUDAMATRIX_CU_MATH_ATTENTION_H_
#define NNET3_CUDAMATRIX_CU_MATH_ATTENTION_H_

#include "cudamatrix/cu-matrix.h"
#include "cudamatrix/cu-vector.h"

namespace nnet3 {
namespace cu {

// W(i, p) = alpha * A(i, :) . B(i + p * shift, :)  (W: n_out x n_pos).
template <typename Real>
void ShiftedRowDots(Real alpha, const CuMatrixBase<Real> &A,
                    const CuMatrixBase<Real> &B, int32 shift,
                    CuMatrixBase<Real> *W);

// A(i, :) += alpha * sum_p W(i, p) * B(i + p * shift, :).
template <typename Real>
void AddWeightedShiftedRows(Real alpha, const CuMatrixBase<Real> &B,
                            const CuMatrixBase<Real> &W, int32 shift,
                            CuMatrixBase<Real> *A);

// B(i + p * shift, :) += alpha * W(i, p) * A(i, :) for every i and p.
template <typename Real>
void ScatterWeightedRows(Real alpha, const CuMatrixBase<Real> &A,
                         const CuMatrixBase<Real> &W, int32 shift,
                         CuMatrixBase<Real> *B);

// weights: rows x (num_heads * C), each row's block h the attention
// weights of head h over C positions. Adds, per head h and position p,
// the column sum of weights(:, h C + p) to posterior_stats(h, p), and the
// sum over the head's columns and the rows of -w log max(w, 1e-20) to
// entropy_stats(h). The column sums are formed in Real, then added in
// double.
template <typename Real>
void AccumulateAttentionStats(const CuMatrixBase<Real> &weights,
                              int32 num_heads,
                              CuMatrixBase<double> *posterior_stats,
                              CuVectorBase<double> *entropy_stats);

}  // namespace cu
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_MATH_ATTENTION_H_
