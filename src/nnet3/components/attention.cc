// nnet3/components/attention.cc
// Single-head restricted attention: see attention.h for the row alignment
// and the equations.
#include "nnet3/components/attention.h"

#include "cudamatrix/cu-math-attention.h"
#include "cudamatrix/cu-math-nonlinear.h"

namespace nnet3 {
namespace attention {

int32 AttentionRowShift(int32 num_in_rows, int32 num_out_rows,
                        int32 num_positions) {
  NNET3_ASSERT(num_positions >= 2 && num_out_rows >= 0 &&
               num_in_rows > num_out_rows);
  int32 extra = num_in_rows - num_out_rows;
  NNET3_ASSERT(extra % (num_positions - 1) == 0);
  return extra / (num_positions - 1);
}

// The three row products run as cu:: operations (cudamatrix/
// cu-math-attention.h), with the shift the shapes imply.
void ShiftedRowDots(BaseFloat alpha, const CuMatrixBase<BaseFloat> &A,
                    const CuMatrixBase<BaseFloat> &B,
                    CuMatrixBase<BaseFloat> *W) {
  NNET3_ASSERT(B.NumCols() == A.NumCols() && W->NumRows() == A.NumRows());
  cu::ShiftedRowDots(alpha, A, B,
                     AttentionRowShift(B.NumRows(), A.NumRows(), W->NumCols()),
                     W);
}

void AddWeightedShiftedRows(BaseFloat alpha, const CuMatrixBase<BaseFloat> &B,
                            const CuMatrixBase<BaseFloat> &W,
                            CuMatrixBase<BaseFloat> *A) {
  NNET3_ASSERT(B.NumCols() == A->NumCols() && W.NumRows() == A->NumRows());
  cu::AddWeightedShiftedRows(
      alpha, B, W, AttentionRowShift(B.NumRows(), A->NumRows(), W.NumCols()),
      A);
}

void ScatterWeightedRows(BaseFloat alpha, const CuMatrixBase<BaseFloat> &A,
                         const CuMatrixBase<BaseFloat> &W,
                         CuMatrixBase<BaseFloat> *B) {
  NNET3_ASSERT(B->NumCols() == A.NumCols() && W.NumRows() == A.NumRows());
  cu::ScatterWeightedRows(
      alpha, A, W, AttentionRowShift(B->NumRows(), A.NumRows(), W.NumCols()),
      B);
}

void AttentionForward(BaseFloat key_scale, const CuMatrixBase<BaseFloat> &keys,
                      const CuMatrixBase<BaseFloat> &queries,
                      const CuMatrixBase<BaseFloat> &values,
                      CuMatrixBase<BaseFloat> *weights,
                      CuMatrixBase<BaseFloat> *output) {
  const int32 key_dim = keys.NumCols(), value_dim = values.NumCols(),
              n_out = queries.NumRows(), n_pos = weights->NumCols();
  NNET3_ASSERT(key_scale > 0.0 && key_dim > 0 &&
               queries.NumCols() == key_dim + n_pos &&
               values.NumRows() == keys.NumRows() &&
               weights->NumRows() == n_out && output->NumRows() == n_out &&
               (output->NumCols() == value_dim ||
                output->NumCols() == value_dim + n_pos));
  CuSubMatrix<BaseFloat> q_key(queries, 0, n_out, 0, key_dim),
      q_pos(queries, 0, n_out, key_dim, n_pos);
  // Pre-softmax scores: scaled key/query products plus the per-position
  // bias that the query carries.
  ShiftedRowDots(key_scale, q_key, keys, weights);
  weights->AddMat(1.0, q_pos);
  weights->SoftMaxPerRow(*weights);
  CuSubMatrix<BaseFloat> out_values(*output, 0, n_out, 0, value_dim);
  AddWeightedShiftedRows(1.0, values, *weights, &out_values);
  if (output->NumCols() > value_dim) {
    CuSubMatrix<BaseFloat> out_pos(*output, 0, n_out, value_dim, n_pos);
    out_pos.CopyFromMat(*weights);
  }
}

void AttentionBackward(BaseFloat key_scale, const CuMatrixBase<BaseFloat> &keys,
                       const CuMatrixBase<BaseFloat> &queries,
                       const CuMatrixBase<BaseFloat> &values,
                       const CuMatrixBase<BaseFloat> &weights,
                       const CuMatrixBase<BaseFloat> &output_deriv,
                       CuMatrixBase<BaseFloat> *keys_deriv,
                       CuMatrixBase<BaseFloat> *queries_deriv,
                       CuMatrixBase<BaseFloat> *values_deriv) {
  const int32 key_dim = keys.NumCols(), value_dim = values.NumCols(),
              n_out = queries.NumRows(), n_pos = weights.NumCols();
  NNET3_ASSERT(key_scale > 0.0 && queries.NumCols() == key_dim + n_pos &&
               weights.NumRows() == n_out &&
               output_deriv.NumRows() == n_out &&
               (output_deriv.NumCols() == value_dim ||
                output_deriv.NumCols() == value_dim + n_pos) &&
               SameDim(keys, *keys_deriv) && SameDim(values, *values_deriv) &&
               SameDim(queries, *queries_deriv));
  CuSubMatrix<BaseFloat> d_out_values(output_deriv, 0, n_out, 0, value_dim);

  // Derivative with respect to the weights W: the value average gives
  // <dOut(i), V(i + p s)>; the copied positions give their own derivative.
  CuMatrix<BaseFloat> d_weights(n_out, n_pos);
  ShiftedRowDots(1.0, d_out_values, values, &d_weights);
  if (output_deriv.NumCols() > value_dim) {
    CuSubMatrix<BaseFloat> d_out_pos(output_deriv, 0, n_out, value_dim,
                                     n_pos);
    d_weights.AddMat(1.0, d_out_pos);
  }
  // Values: each V(i + p s) received W(i,p) * dOut(i).
  ScatterWeightedRows(1.0, d_out_values, weights, values_deriv);

  // Through the softmax: dB(i,p) = W(i,p) (dW(i,p) - sum_q W(i,q) dW(i,q)).
  cu::DiffSoftmaxPerRow(weights, d_weights, &d_weights);
  // d_weights now holds the derivative of the pre-softmax scores.
  CuSubMatrix<BaseFloat> q_key(queries, 0, n_out, 0, key_dim),
      dq_key(*queries_deriv, 0, n_out, 0, key_dim),
      dq_pos(*queries_deriv, 0, n_out, key_dim, n_pos);
  dq_pos.AddMat(1.0, d_weights);
  AddWeightedShiftedRows(key_scale, keys, d_weights, &dq_key);
  ScatterWeightedRows(key_scale, q_key, d_weights, keys_deriv);
}

}  // namespace attention
}  // namespace nnet3
