// nnet3/components/attention.h
// The arithmetic of time-restricted self-attention for one head, used by
// RestrictedAttentionComponent (restricted-attention.h). Kept free of any
// Index bookkeeping: the caller hands over plain row-aligned matrices.
//
// Row alignment (the one invariant every function here relies on):
//   - K (keys) and V (values) have one row per input frame slot, N_in rows;
//   - Q (queries) and the weights W have one row per output frame slot,
//     N_out rows, N_out < N_in;
//   - W has P >= 2 columns (the context positions), and
//     N_in - N_out == (P - 1) * s for a positive integer "row shift" s;
//   - output row i attends to input rows i, i + s, ..., i + (P - 1) * s
//     (position p <-> input row i + p * s).
// Each query row is [ key-part (key_dim) | position-bias part (P) ].
//
// Forward:  b(i,p) = key_scale * <Qk(i), K(i + p s)> + Qp(i,p)
//           W(i,:) = softmax(b(i,:))
//           out(i, 0:value_dim) += sum_p W(i,p) V(i + p s)
//           out(i, value_dim + p) = W(i,p)   (only when out has those columns)
#ifndef NNET3_NNET3_COMPONENTS_ATTENTION_H_
#define NNET3_NNET3_COMPONENTS_ATTENTION_H_

#include "cudamatrix/cu-matrix.h"

namespace nnet3 {
namespace attention {

// The row shift s implied by the shapes (N_in - N_out) / (P - 1); checks
// that it is a positive integer.
int32 AttentionRowShift(int32 num_in_rows, int32 num_out_rows,
                        int32 num_positions);

// W(i,p) = alpha * <A(i), B(i + p s)>, overwriting W. A: N_out x d,
// B: N_in x d, W: N_out x P.
void ShiftedRowDots(BaseFloat alpha, const CuMatrixBase<BaseFloat> &A,
                    const CuMatrixBase<BaseFloat> &B,
                    CuMatrixBase<BaseFloat> *W);

// A(i) += alpha * sum_p W(i,p) B(i + p s). B: N_in x d, W: N_out x P,
// A: N_out x d.
void AddWeightedShiftedRows(BaseFloat alpha, const CuMatrixBase<BaseFloat> &B,
                            const CuMatrixBase<BaseFloat> &W,
                            CuMatrixBase<BaseFloat> *A);

// B(i + p s) += alpha * W(i,p) A(i) for all i, p (the transpose of
// AddWeightedShiftedRows with respect to B). A: N_out x d, W: N_out x P,
// B: N_in x d.
void ScatterWeightedRows(BaseFloat alpha, const CuMatrixBase<BaseFloat> &A,
                         const CuMatrixBase<BaseFloat> &W,
                         CuMatrixBase<BaseFloat> *B);

// The forward pass above. weights (N_out x P) receives W; output has
// value_dim or value_dim + P columns; its value part is added to, its
// position part (if any) overwritten.
void AttentionForward(BaseFloat key_scale, const CuMatrixBase<BaseFloat> &keys,
                      const CuMatrixBase<BaseFloat> &queries,
                      const CuMatrixBase<BaseFloat> &values,
                      CuMatrixBase<BaseFloat> *weights,
                      CuMatrixBase<BaseFloat> *output);

// Derivatives of the forward pass given the weights it produced and the
// output derivative; all three derivative matrices are added to.
void AttentionBackward(BaseFloat key_scale, const CuMatrixBase<BaseFloat> &keys,
                       const CuMatrixBase<BaseFloat> &queries,
                       const CuMatrixBase<BaseFloat> &values,
                       const CuMatrixBase<BaseFloat> &weights,
                       const CuMatrixBase<BaseFloat> &output_deriv,
                       CuMatrixBase<BaseFloat> *keys_deriv,
                       CuMatrixBase<BaseFloat> *queries_deriv,
                       CuMatrixBase<BaseFloat> *values_deriv);

}  // namespace attention
}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_ATTENTION_H_
