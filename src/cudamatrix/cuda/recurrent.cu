// cudamatrix/cuda/recurrent.cu
// LSTM cell kernels; see recurrent.h. The cell arithmetic below follows
// cudamatrix/cu-math-recurrent.cc expression by expression.
#include "cudamatrix/cuda/recurrent.h"

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

using internal::Exp;
using internal::ForEachElement;
using internal::ForEachIndex;

namespace {

// Overflow-free logistic function and tanh, as on the CPU.
template <typename Real>
__device__ inline Real LogisticOf(Real x) {
  if (x > Real(0)) return Real(1) / (Real(1) + Exp(-x));
  Real e = Exp(x);
  return e / (e + Real(1));
}

template <typename Real>
__device__ inline Real TanhOf(Real x) {
  if (x > Real(0)) {
    Real e = Exp(-x);
    return Real(-1) + Real(2) / (Real(1) + e * e);
  }
  Real e = Exp(x);
  return Real(1) - Real(2) / (Real(1) + e * e);
}

// Everything the backward pass of cell j of row r computes.
template <typename Real>
struct CellState {
  Real i, f, g, c, o, tanh_c;            // forward values
  Real di_da, df_da, dg_da, do_da, dtc_dc;  // function derivatives
  Real di_in, df_in, dg_in, do_in, dc_prev;  // input derivatives
  Real c_prev;
};

// The three dropout scales of row r (all 1 without dropout columns).
template <typename Real>
__device__ inline void RowMasks(DevMat<const Real> x, int32 r, int32 C,
                                Real *i_mask, Real *f_mask, Real *o_mask) {
  if (x.cols == 5 * C) {
    *i_mask = *f_mask = *o_mask = Real(1);
  } else {
    *i_mask = x(r, 5 * C);
    *f_mask = x(r, 5 * C + 1);
    *o_mask = x(r, 5 * C + 2);
  }
}

// Forward quantities only (in s.i .. s.tanh_c); returns m_t.
template <typename Real>
__device__ inline Real ForwardCell(DevMat<const Real> x,
                                   DevMat<const Real> params, int32 r,
                                   int32 j, CellState<Real> *s) {
  const int32 C = params.cols;
  Real i_mask, f_mask, o_mask;
  RowMasks(x, r, C, &i_mask, &f_mask, &o_mask);
  s->c_prev = x(r, 4 * C + j);
  s->i = LogisticOf(x(r, j) + params(0, j) * s->c_prev);
  s->f = LogisticOf(x(r, C + j) + params(1, j) * s->c_prev);
  s->g = TanhOf(x(r, 2 * C + j));
  s->c = s->f * f_mask * s->c_prev + s->i * i_mask * s->g;
  s->o = LogisticOf(x(r, 3 * C + j) + params(2, j) * s->c);
  s->tanh_c = TanhOf(s->c);
  return s->o * o_mask * s->tanh_c;
}

// The self-repair scales sr[0..4] of cell j.
template <typename Real>
__device__ inline void RepairScales(DevMat<const double> deriv_sum_in,
                                    DevVec<const Real> config,
                                    Real count_plus_one, int32 j, Real *sr) {
  for (int32 k = 0; k < 5; k++)
    sr[k] = deriv_sum_in(k, j) / count_plus_one < config[k] ? config[5 + k]
                                                            : Real(0);
}

template <typename Real>
__device__ inline void BackpropCell(DevMat<const Real> x,
                                    DevMat<const Real> params,
                                    DevMat<const Real> dy, const Real *sr,
                                    int32 r, int32 j, CellState<Real> *s) {
  const int32 C = params.cols;
  ForwardCell(x, params, r, j, s);
  Real i_mask, f_mask, o_mask;
  RowMasks(x, r, C, &i_mask, &f_mask, &o_mask);
  s->di_da = s->i * (Real(1) - s->i);
  s->df_da = s->f * (Real(1) - s->f);
  s->dg_da = Real(1) - s->g * s->g;
  s->do_da = s->o * (Real(1) - s->o);
  s->dtc_dc = Real(1) - s->tanh_c * s->tanh_c;
  const Real dc_direct = dy(r, j), dm = dy(r, C + j);
  const Real dtanh_c = s->o * o_mask * dm;
  const Real d_out_gate = o_mask * s->tanh_c * dm;
  s->do_in = s->do_da * d_out_gate - (Real(2) * s->o - Real(1)) * sr[3];
  const Real dcell =
      (s->dtc_dc * dtanh_c + dc_direct + s->do_in * params(2, j)) -
      s->tanh_c * sr[4];
  const Real dg = s->i * i_mask * dcell;
  const Real d_forget = dcell * f_mask * s->c_prev;
  s->df_in = d_forget * s->df_da - (Real(2) * s->f - Real(1)) * sr[1];
  const Real d_input = dcell * i_mask * s->g;
  s->di_in = d_input * s->di_da - (Real(2) * s->i - Real(1)) * sr[0];
  s->dg_in = s->dg_da * dg - s->g * sr[2];
  s->dc_prev = params(0, j) * s->di_in + params(1, j) * s->df_in +
               s->f * f_mask * dcell;
}

}  // namespace

template <typename Real>
void ComputeLstmNonlinearity(InMat<Real> input, InMat<Real> params,
                             DevMat<Real> output) {
  const int32 C = params.cols;
  NNET3_ASSERT(params.rows == 3 || C == 0);
  NNET3_ASSERT(input.rows == output.rows &&
               (output.rows == 0 || output.cols == 2 * C));
  NNET3_ASSERT(input.rows == 0 || input.cols == 5 * C ||
               input.cols == 5 * C + 3);
  ForEachElement(output.rows, C, [=] __device__(int32 r, int32 j) {
    CellState<Real> s;
    Real m = ForwardCell(input, params, r, j, &s);
    output(r, j) = s.c;
    output(r, C + j) = m;
  });
}

template <typename Real>
void BackpropLstmNonlinearity(InMat<Real> input, InMat<Real> params,
                              InMat<Real> output_deriv,
                              DevMat<const double> deriv_sum_in,
                              InVec<Real> self_repair_config, double count_in,
                              DevMat<Real> input_deriv,
                              DevMat<Real> params_deriv,
                              DevMat<double> value_sum_out,
                              DevMat<double> deriv_sum_out,
                              DevMat<Real> self_repair_sum_out) {
  const int32 C = params.cols, rows = input.rows;
  NNET3_ASSERT(params.rows == 3 || C == 0);
  NNET3_ASSERT(rows == 0 || input.cols == 5 * C || input.cols == 5 * C + 3);
  NNET3_ASSERT(output_deriv.rows == rows &&
               (rows == 0 || output_deriv.cols == 2 * C));
  NNET3_ASSERT(self_repair_config.dim == 10);
  NNET3_ASSERT(C == 0 || (deriv_sum_in.rows == 5 && deriv_sum_in.cols == C));
  const bool want_in_deriv = input_deriv.data != nullptr;
  const bool stats = params_deriv.data != nullptr;
  if (want_in_deriv)
    NNET3_ASSERT(input_deriv.rows == rows && input_deriv.cols == input.cols);
  if (stats)
    NNET3_ASSERT(params_deriv.rows == 3 && params_deriv.cols == C &&
                 value_sum_out.rows == 5 && value_sum_out.cols == C &&
                 deriv_sum_out.rows == 5 && deriv_sum_out.cols == C &&
                 self_repair_sum_out.rows == 5 &&
                 self_repair_sum_out.cols == C);
  const Real count_plus_one = 1.0 + count_in;
  const bool has_masks = input.cols > 5 * C;

  // Input derivative: one thread per (row, cell); the thread of cell 0
  // also zeroes the row's mask columns. Runs before the statistics kernel
  // (same stream), which may overwrite deriv_sum_in.
  if (want_in_deriv) {
    ForEachElement(rows, C, [=] __device__(int32 r, int32 j) {
      Real sr[5];
      RepairScales(deriv_sum_in, self_repair_config, count_plus_one, j, sr);
      CellState<Real> s;
      BackpropCell(input, params, output_deriv, sr, r, j, &s);
      input_deriv(r, j) = s.di_in;
      input_deriv(r, C + j) = s.df_in;
      input_deriv(r, 2 * C + j) = s.dg_in;
      input_deriv(r, 3 * C + j) = s.do_in;
      input_deriv(r, 4 * C + j) = s.dc_prev;
      if (has_masks && j == 0)
        for (int32 k = 5 * C; k < input_deriv.cols; k++) input_deriv(r, k) = 0;
    });
  }
  if (!stats) return;

  // Statistics: one thread per cell, over the rows in order.
  ForEachIndex(C, [=] __device__(int32 j) {
    Real sr[5];
    RepairScales(deriv_sum_in, self_repair_config, count_plus_one, j, sr);
    Real value_acc[5] = {0, 0, 0, 0, 0}, deriv_acc[5] = {0, 0, 0, 0, 0};
    Real g_ic = 0, g_fc = 0, g_oc = 0;
    for (int32 r = 0; r < rows; r++) {
      CellState<Real> s;
      BackpropCell(input, params, output_deriv, sr, r, j, &s);
      value_acc[0] += s.i;
      deriv_acc[0] += s.di_da;
      value_acc[1] += s.f;
      deriv_acc[1] += s.df_da;
      value_acc[2] += s.g;
      deriv_acc[2] += s.dg_da;
      value_acc[3] += s.o;
      deriv_acc[3] += s.do_da;
      value_acc[4] += s.tanh_c;
      deriv_acc[4] += s.dtc_dc;
      g_ic += s.c_prev * s.di_in;
      g_fc += s.c_prev * s.df_in;
      g_oc += s.c * s.do_in;
    }
    for (int32 k = 0; k < 5; k++) {
      // Read deriv_sum_in before deriv_sum_out is written (may alias).
      self_repair_sum_out(k, j) =
          deriv_sum_in(k, j) / count_plus_one < self_repair_config[k]
              ? static_cast<Real>(rows)
              : Real(0);
      value_sum_out(k, j) += value_acc[k];
      deriv_sum_out(k, j) += deriv_acc[k];
    }
    params_deriv(0, j) = g_ic;
    params_deriv(1, j) = g_fc;
    params_deriv(2, j) = g_oc;
  });
}

#define NNET3_INSTANTIATE_RECURRENT(R)                                        \
  template void ComputeLstmNonlinearity(InMat<R>, InMat<R>, DevMat<R>);       \
  template void BackpropLstmNonlinearity(                                     \
      InMat<R>, InMat<R>, InMat<R>, DevMat<const double>, InVec<R>, double,   \
      DevMat<R>, DevMat<R>, DevMat<double>, DevMat<double>, DevMat<R>);

NNET3_INSTANTIATE_RECURRENT(float)
NNET3_INSTANTIATE_RECURRENT(double)

}  // namespace cuda
}  // namespace nnet3
