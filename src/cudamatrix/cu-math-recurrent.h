// cudamatrix/cu-math-recurrent.h
// Operations of the recurrent components (nnet3/components/lstm.cc,
// gru.cc) on Cu matrices, as free functions in namespace nnet3::cu, named
// and ordered as Kaldi's cudamatrix/cu-math.h has them:
//   ComputeLstmNonlinearity, BackpropLstmNonlinearity: the LSTM cell of
//     LstmNonlinearityComponent, forward and backward;
//   CopyRowsToVec, CopyRowsFromVec: the explicit crossing between a Cu
//     matrix and a host vector that the Vectorize/UnVectorize functions of
//     the updatable components need (a device-to-host copy on the GPU).
// These are the CPU implementations (they may use the host views Mat() and
// Vec(): this file is the CPU backend). Each computes exactly the floats
// the component code computed before it moved here: same operations, same
// order, same precision, so that results stay byte-identical to Kaldi's CPU
// code. The CUDA counterparts are in cudamatrix/cuda/recurrent.h.
//
// The LSTM layout (C = cell dimension):
//   input: N x 5C, or N x (5C + 3) with dropout masks; column blocks
//     [i_part, f_part, c_part (the g input), o_part, c_{t-1}], then the
//     three masks (input gate, forget gate, output gate) of each row;
//   params: 3 x C, rows w_ic, w_fc, w_oc (the diagonal peephole weights);
//   output: N x 2C, column blocks [c_t, m_t], where
//     i = sigmoid(i_part + w_ic c_{t-1}), f = sigmoid(f_part + w_fc c_{t-1}),
//     g = tanh(c_part), c_t = f_mask f c_{t-1} + i_mask i g,
//     o = sigmoid(o_part + w_oc c_t), m_t = o_mask o tanh(c_t).
#ifndef NNET3_CUDAMATRIX_CU_MATH_RECURRENT_H_
#define NNET3_CUDAMATRIX_CU_MATH_RECURRENT_H_

#include "cudamatrix/cu-matrix.h"
#include "cudamatrix/cu-vector.h"

namespace nnet3 {
namespace cu {

// output = the LSTM cell outputs [c_t, m_t] of every row of input (layout
// above). input.NumCols() is 5C or 5C + 3, params is 3 x C, output N x 2C.
template <typename Real>
void ComputeLstmNonlinearity(const CuMatrixBase<Real> &input,
                             const CuMatrixBase<Real> &params,
                             CuMatrixBase<Real> *output);

// Backward pass of ComputeLstmNonlinearity with Kaldi's self-repair.
//   deriv_sum_in (5 x C), self_repair_config (dim 10), count_in: the
//     statistics deciding the self-repair: nonlinearity k (order i, f, g,
//     o, tanh(c)) of cell j is repaired, with scale self_repair_config(5+k),
//     when deriv_sum_in(k, j) / (1 + count_in) < self_repair_config(k), the
//     divisor rounded to Real; a repaired sigmoid's input derivative gets
//     -(2y - 1) * scale added, a repaired tanh's -y * scale.
//   input_deriv (optional, same size as input): set to the derivative of
//     the objective w.r.t. input; the three mask columns, if any, to 0.
//   The statistics outputs are all nullptr or all non-null:
//   params_deriv (3 x C): set to the gradient w.r.t. params, summed over
//     the rows (in Real, row by row);
//   value_sum_out, deriv_sum_out (5 x C): added to: the sums over the rows
//     of the five nonlinearities' values and derivatives (each sum formed
//     in Real, row by row, then added in double);
//   self_repair_sum_out (5 x C): set to N where the nonlinearity was
//     repaired, else 0.
// deriv_sum_out may be the same matrix as deriv_sum_in (it is read first).
template <typename Real>
void BackpropLstmNonlinearity(const CuMatrixBase<Real> &input,
                              const CuMatrixBase<Real> &params,
                              const CuMatrixBase<Real> &output_deriv,
                              const CuMatrixBase<double> &deriv_sum_in,
                              const CuVectorBase<Real> &self_repair_config,
                              double count_in,
                              CuMatrixBase<Real> *input_deriv,
                              CuMatrixBase<Real> *params_deriv,
                              CuMatrixBase<double> *value_sum_out,
                              CuMatrixBase<double> *deriv_sum_out,
                              CuMatrixBase<Real> *self_repair_sum_out);

// v = the rows of M one after another (v->Dim() == rows * cols).
template <typename Real>
void CopyRowsToVec(const CuMatrixBase<Real> &M, VectorBase<Real> *v);

// The rows of M = consecutive pieces of v (v.Dim() == rows * cols).
template <typename Real>
void CopyRowsFromVec(const VectorBase<Real> &v, CuMatrixBase<Real> *M);

}  // namespace cu
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_MATH_RECURRENT_H_
