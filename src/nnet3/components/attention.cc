// nnet3/components/attention.cc
// Single-head restricted attention: see attention.h for the row alignment
// and the equations.
#include "nnet3/components/attention.h"

#include <cmath>

#include "cudamatrix/cu-host-view.h"

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

namespace {

inline BaseFloat Dot(const BaseFloat *a, const BaseFloat *b, int32 dim) {
  BaseFloat sum = 0.0;
  for (int32 k = 0; k < dim; k++) sum += a[k] * b[k];
  return sum;
}

inline void Axpy(BaseFloat alpha, const BaseFloat *x, BaseFloat *y,
                 int32 dim) {
  for (int32 k = 0; k < dim; k++) y[k] += alpha * x[k];
}

}  // namespace

void ShiftedRowDots(BaseFloat alpha, const CuMatrixBase<BaseFloat> &A,
                    const CuMatrixBase<BaseFloat> &B,
                    CuMatrixBase<BaseFloat> *W) {
  const int32 n_out = A.NumRows(), dim = A.NumCols(),
              n_pos = W->NumCols();
  NNET3_ASSERT(B.NumCols() == dim && W->NumRows() == n_out);
  const int32 shift = AttentionRowShift(B.NumRows(), n_out, n_pos);
  // Host views (row by row on the host).
  HostMatRead<BaseFloat> a_host(A), b_host(B);
  HostMatWrite<BaseFloat> w_host(W);
  const MatrixBase<BaseFloat> &a = *a_host, &b = *b_host;
  MatrixBase<BaseFloat> &w = *w_host;
  for (int32 i = 0; i < n_out; i++) {
    const BaseFloat *a_row = a.RowData(i);
    BaseFloat *w_row = w.RowData(i);
    for (int32 p = 0; p < n_pos; p++)
      w_row[p] = alpha * Dot(a_row, b.RowData(i + p * shift), dim);
  }
  w_host.Commit();
}

void AddWeightedShiftedRows(BaseFloat alpha, const CuMatrixBase<BaseFloat> &B,
                            const CuMatrixBase<BaseFloat> &W,
                            CuMatrixBase<BaseFloat> *A) {
  const int32 n_out = A->NumRows(), dim = A->NumCols(),
              n_pos = W.NumCols();
  NNET3_ASSERT(B.NumCols() == dim && W.NumRows() == n_out);
  const int32 shift = AttentionRowShift(B.NumRows(), n_out, n_pos);
  // Host views (row by row on the host).
  HostMatRead<BaseFloat> b_host(B), w_host(W);
  HostMatWrite<BaseFloat> a_host(A);
  const MatrixBase<BaseFloat> &b = *b_host, &w = *w_host;
  MatrixBase<BaseFloat> &a = *a_host;
  for (int32 i = 0; i < n_out; i++) {
    BaseFloat *a_row = a.RowData(i);
    const BaseFloat *w_row = w.RowData(i);
    for (int32 p = 0; p < n_pos; p++)
      Axpy(alpha * w_row[p], b.RowData(i + p * shift), a_row, dim);
  }
  a_host.Commit();
}

void ScatterWeightedRows(BaseFloat alpha, const CuMatrixBase<BaseFloat> &A,
                         const CuMatrixBase<BaseFloat> &W,
                         CuMatrixBase<BaseFloat> *B) {
  const int32 n_out = A.NumRows(), dim = A.NumCols(), n_pos = W.NumCols();
  NNET3_ASSERT(B->NumCols() == dim && W.NumRows() == n_out);
  const int32 shift = AttentionRowShift(B->NumRows(), n_out, n_pos);
  // Host views (row by row on the host).
  HostMatRead<BaseFloat> a_host(A), w_host(W);
  HostMatWrite<BaseFloat> b_host(B);
  const MatrixBase<BaseFloat> &a = *a_host, &w = *w_host;
  MatrixBase<BaseFloat> &b = *b_host;
  for (int32 i = 0; i < n_out; i++) {
    const BaseFloat *a_row = a.RowData(i);
    const BaseFloat *w_row = w.RowData(i);
    for (int32 p = 0; p < n_pos; p++)
      Axpy(alpha * w_row[p], a_row, b.RowData(i + p * shift), dim);
  }
  b_host.Commit();
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
  // Host views (row by row on the host).
  {
    HostMatRead<BaseFloat> w_host(weights);
    HostMatWrite<BaseFloat> dw_host(&d_weights);
    const MatrixBase<BaseFloat> &w = *w_host;
    MatrixBase<BaseFloat> &dw = *dw_host;
    for (int32 i = 0; i < n_out; i++) {
      const BaseFloat *w_row = w.RowData(i);
      BaseFloat *d_row = dw.RowData(i);
      BaseFloat inner = Dot(w_row, d_row, n_pos);
      for (int32 p = 0; p < n_pos; p++)
        d_row[p] = w_row[p] * (d_row[p] - inner);
    }
    dw_host.Commit();
  }
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
