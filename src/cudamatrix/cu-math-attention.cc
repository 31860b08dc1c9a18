// cudamatrix/cu-math-attention.cc
// The operations in cu-math-attention.h: on device operands each hands
// over to DeviceOps (the kernels of cuda/attention.cu); otherwise the host
// loops below run on the host views (Mat(), Vec()), legitimately, since
// that branch is the CPU backend.
#include "cudamatrix/cu-math-attention.h"

#include <cmath>

namespace nnet3 {
namespace cu {

namespace {

template <typename Real>
inline Real Dot(const Real *a, const Real *b, int32 dim) {
  Real sum = 0.0;
  for (int32 k = 0; k < dim; k++) sum += a[k] * b[k];
  return sum;
}

template <typename Real>
inline void Axpy(Real alpha, const Real *x, Real *y, int32 dim) {
  for (int32 k = 0; k < dim; k++) y[k] += alpha * x[k];
}

// The rows of the taller matrix that n_pos positions of n_out rows reach.
void CheckShift(int32 n_out, int32 n_pos, int32 shift, int32 tall_rows) {
  NNET3_ASSERT(shift >= 0);
  if (n_out > 0 && n_pos > 0)
    NNET3_ASSERT(n_out - 1 + static_cast<int64>(n_pos - 1) * shift <
                 tall_rows);
}

}  // namespace

template <typename Real>
void ShiftedRowDots(Real alpha, const CuMatrixBase<Real> &A,
                    const CuMatrixBase<Real> &B, int32 shift,
                    CuMatrixBase<Real> *W) {
  const int32 n_out = A.NumRows(), dim = A.NumCols(), n_pos = W->NumCols();
  NNET3_ASSERT(W->NumRows() == n_out &&
               (n_out == 0 || n_pos == 0 || B.NumCols() == dim));
  CheckShift(n_out, n_pos, shift, B.NumRows());
  if (W->Where(A, "ShiftedRowDots") && W->Where(B, "ShiftedRowDots")) {
    cu_backend::Ops<Real>().ShiftedRowDots(W->Dev(), alpha, A.Dev(), B.Dev(),
                                           shift);
    return;
  }
  const MatrixBase<Real> &a = A.Mat(), &b = B.Mat();
  MatrixBase<Real> &w = W->Mat();
  for (int32 i = 0; i < n_out; i++) {
    const Real *a_row = a.RowData(i);
    Real *w_row = w.RowData(i);
    for (int32 p = 0; p < n_pos; p++)
      w_row[p] = alpha * Dot(a_row, b.RowData(i + p * shift), dim);
  }
}

template <typename Real>
void AddWeightedShiftedRows(Real alpha, const CuMatrixBase<Real> &B,
                            const CuMatrixBase<Real> &W, int32 shift,
                            CuMatrixBase<Real> *A) {
  const int32 n_out = A->NumRows(), dim = A->NumCols(), n_pos = W.NumCols();
  NNET3_ASSERT(W.NumRows() == n_out &&
               (n_out == 0 || n_pos == 0 || B.NumCols() == dim));
  CheckShift(n_out, n_pos, shift, B.NumRows());
  if (A->Where(B, "AddWeightedShiftedRows") &&
      A->Where(W, "AddWeightedShiftedRows")) {
    cu_backend::Ops<Real>().AddWeightedShiftedRows(A->Dev(), alpha, B.Dev(),
                                                   W.Dev(), shift);
    return;
  }
  const MatrixBase<Real> &b = B.Mat(), &w = W.Mat();
  MatrixBase<Real> &a = A->Mat();
  for (int32 i = 0; i < n_out; i++) {
    Real *a_row = a.RowData(i);
    const Real *w_row = w.RowData(i);
    for (int32 p = 0; p < n_pos; p++)
      Axpy(alpha * w_row[p], b.RowData(i + p * shift), a_row, dim);
  }
}

template <typename Real>
void ScatterWeightedRows(Real alpha, const CuMatrixBase<Real> &A,
                         const CuMatrixBase<Real> &W, int32 shift,
                         CuMatrixBase<Real> *B) {
  const int32 n_out = A.NumRows(), dim = A.NumCols(), n_pos = W.NumCols();
  NNET3_ASSERT(W.NumRows() == n_out &&
               (n_out == 0 || n_pos == 0 || B->NumCols() == dim));
  CheckShift(n_out, n_pos, shift, B->NumRows());
  if (B->Where(A, "ScatterWeightedRows") &&
      B->Where(W, "ScatterWeightedRows")) {
    cu_backend::Ops<Real>().ScatterWeightedRows(B->Dev(), alpha, A.Dev(),
                                                W.Dev(), shift);
    return;
  }
  const MatrixBase<Real> &a = A.Mat(), &w = W.Mat();
  MatrixBase<Real> &b = B->Mat();
  for (int32 i = 0; i < n_out; i++) {
    const Real *a_row = a.RowData(i);
    const Real *w_row = w.RowData(i);
    for (int32 p = 0; p < n_pos; p++)
      Axpy(alpha * w_row[p], a_row, b.RowData(i + p * shift), dim);
  }
}

template <typename Real>
void AccumulateAttentionStats(const CuMatrixBase<Real> &weights,
                              int32 num_heads,
                              CuMatrixBase<double> *posterior_stats,
                              CuVectorBase<double> *entropy_stats) {
  NNET3_ASSERT(num_heads > 0 && posterior_stats->NumRows() == num_heads &&
               entropy_stats->Dim() == num_heads);
  const int32 context = posterior_stats->NumCols(), rows = weights.NumRows();
  NNET3_ASSERT(rows == 0 || weights.NumCols() == num_heads * context);
  if (weights.Where(*posterior_stats, "AccumulateAttentionStats") &&
      weights.Where(*entropy_stats, "AccumulateAttentionStats")) {
    if (rows == 0) return;
    CuVector<Real> temp(2 * weights.NumCols(), kUndefined);
    cu_backend::Ops<Real>().AccumulateAttentionStats(
        weights.Dev(), num_heads, temp.DevV(), posterior_stats->Dev(),
        entropy_stats->DevV());
    return;
  }
  const MatrixBase<Real> &w = weights.Mat();
  MatrixBase<double> &posterior = posterior_stats->Mat();
  VectorBase<double> &entropy = entropy_stats->Vec();
  const int32 cols = num_heads * context;
  // Per column, the weight sum and the -w log w sum, in Real.
  Vector<Real> weight_sum(cols), neg_wlogw_sum(cols);
  for (int32 r = 0; r < rows; r++) {
    const Real *row = w.RowData(r);
    for (int32 c = 0; c < cols; c++) {
      Real x = row[c], floored = x < Real(1.0e-20) ? Real(1.0e-20) : x;
      weight_sum(c) += x;
      neg_wlogw_sum(c) -= x * std::log(floored);
    }
  }
  for (int32 h = 0; h < num_heads; h++) {
    Real sum = 0.0;
    for (int32 p = 0; p < context; p++) {
      posterior(h, p) += weight_sum(h * context + p);
      sum += neg_wlogw_sum(h * context + p);
    }
    entropy(h) += sum;
  }
}

#define NNET3_INSTANTIATE(Real)                                               \
  template void ShiftedRowDots(Real, const CuMatrixBase<Real> &,             \
                               const CuMatrixBase<Real> &, int32,            \
                               CuMatrixBase<Real> *);                        \
  template void AddWeightedShiftedRows(Real, const CuMatrixBase<Real> &,     \
                                       const CuMatrixBase<Real> &, int32,    \
                                       CuMatrixBase<Real> *);                \
  template void ScatterWeightedRows(Real, const CuMatrixBase<Real> &,        \
                                    const CuMatrixBase<Real> &, int32,       \
                                    CuMatrixBase<Real> *);                   \
  template void AccumulateAttentionStats(const CuMatrixBase<Real> &, int32,  \
                                         CuMatrixBase<double> *,             \
                                         CuVectorBase<double> *);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

}  // namespace cu
}  // namespace nnet3
