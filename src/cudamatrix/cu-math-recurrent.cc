// cudamatrix/cu-math-recurrent.cc
// The operations of cu-math-recurrent.h: device operands go to DeviceOps
// (cuda/recurrent.cu); otherwise host loops over the host views of the Cu
// matrices, one cell at a time (the CPU backend).
#include "cudamatrix/cu-math-recurrent.h"

#include <cmath>

#include "base/log.h"

namespace nnet3 {
namespace cu {

namespace {

// Overflow-free logistic function and tanh (the formulas Kaldi's CPU code
// evaluates, so that results agree to rounding).
template <typename Real>
inline Real LogisticOf(Real x) {
  if (x > Real(0)) return Real(1) / (Real(1) + std::exp(-x));
  Real e = std::exp(x);
  return e / (e + Real(1));
}

template <typename Real>
inline Real TanhOf(Real x) {
  if (x > Real(0)) {
    Real e = std::exp(-x);
    return Real(-1) + Real(2) / (Real(1) + e * e);
  }
  Real e = std::exp(x);
  return Real(1) - Real(2) / (Real(1) + e * e);
}

// The quantities of the forward pass for one cell of one frame.
template <typename Real>
struct LstmCell {
  Real i, f, g, c, o, tanh_c, m;
};

template <typename Real>
inline LstmCell<Real> ForwardCell(Real i_part, Real f_part, Real c_part,
                                  Real o_part, Real c_prev, Real w_ic,
                                  Real w_fc, Real w_oc, Real i_mask,
                                  Real f_mask, Real o_mask) {
  LstmCell<Real> s;
  s.i = LogisticOf(i_part + w_ic * c_prev);
  s.f = LogisticOf(f_part + w_fc * c_prev);
  s.g = TanhOf(c_part);
  s.c = s.f * f_mask * c_prev + s.i * i_mask * s.g;
  s.o = LogisticOf(o_part + w_oc * s.c);
  s.tanh_c = TanhOf(s.c);
  s.m = s.o * o_mask * s.tanh_c;
  return s;
}

// The three dropout scales of row r (all 1 without dropout columns).
template <typename Real>
inline void RowMasks(const MatrixBase<Real> &in, int32 r, int32 C,
                     Real *i_mask, Real *f_mask, Real *o_mask) {
  if (in.NumCols() == 5 * C) {
    *i_mask = *f_mask = *o_mask = Real(1);
  } else {
    *i_mask = in(r, 5 * C);
    *f_mask = in(r, 5 * C + 1);
    *o_mask = in(r, 5 * C + 2);
  }
}

// Indexes of the five nonlinearities in the statistics rows.
enum { kSigI = 0, kSigF = 1, kTanhG = 2, kSigO = 3, kTanhC = 4 };

}  // namespace

template <typename Real>
void ComputeLstmNonlinearity(const CuMatrixBase<Real> &input,
                             const CuMatrixBase<Real> &params,
                             CuMatrixBase<Real> *output) {
  const int32 C = params.NumCols(), rows = input.NumRows();
  // (A matrix with no rows has no columns.)
  NNET3_ASSERT(params.NumRows() == 3 && output->NumRows() == rows);
  NNET3_ASSERT(rows == 0 || ((input.NumCols() == 5 * C ||
                              input.NumCols() == 5 * C + 3) &&
                             output->NumCols() == 2 * C));
  if (output->Where(input, "ComputeLstmNonlinearity") &&
      output->Where(params, "ComputeLstmNonlinearity")) {
    if (rows == 0) return;
    cu_backend::Ops<Real>().ComputeLstmNonlinearity(input.Dev(), params.Dev(),
                                                    output->Dev());
    return;
  }
  const MatrixBase<Real> &in_host = input.Mat(), &p = params.Mat();
  MatrixBase<Real> &out_host = output->Mat();
  for (int32 r = 0; r < rows; r++) {
    Real i_mask, f_mask, o_mask;
    RowMasks(in_host, r, C, &i_mask, &f_mask, &o_mask);
    const Real *x = in_host.RowData(r);
    Real *y = out_host.RowData(r);
    for (int32 j = 0; j < C; j++) {
      LstmCell<Real> s = ForwardCell(x[j], x[C + j], x[2 * C + j],
                                     x[3 * C + j], x[4 * C + j], p(0, j),
                                     p(1, j), p(2, j), i_mask, f_mask, o_mask);
      y[j] = s.c;
      y[C + j] = s.m;
    }
  }
}

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
                              CuMatrixBase<Real> *self_repair_sum_out) {
  const int32 C = params.NumCols(), rows = input.NumRows();
  NNET3_ASSERT(rows == 0 || ((input.NumCols() == 5 * C ||
                              input.NumCols() == 5 * C + 3) &&
                             output_deriv.NumCols() == 2 * C));
  NNET3_ASSERT(params.NumRows() == 3 && output_deriv.NumRows() == rows &&
               deriv_sum_in.NumRows() == 5 && deriv_sum_in.NumCols() == C &&
               self_repair_config.Dim() == 10);
  const bool stats = (params_deriv != nullptr);
  NNET3_ASSERT((value_sum_out != nullptr) == stats &&
               (deriv_sum_out != nullptr) == stats &&
               (self_repair_sum_out != nullptr) == stats);
  if (stats)
    NNET3_ASSERT(params_deriv->NumRows() == 3 && params_deriv->NumCols() == C &&
                 value_sum_out->NumRows() == 5 && value_sum_out->NumCols() == C &&
                 deriv_sum_out->NumRows() == 5 && deriv_sum_out->NumCols() == C &&
                 self_repair_sum_out->NumRows() == 5 &&
                 self_repair_sum_out->NumCols() == C);
  if (input_deriv != nullptr) {
    NNET3_ASSERT(input_deriv->NumRows() == rows &&
                 input_deriv->NumCols() == input.NumCols());
    // The dropout-mask columns get no derivative.
    if (input_deriv->NumCols() > 5 * C)
      input_deriv->ColRange(5 * C, input_deriv->NumCols() - 5 * C).SetZero();
  }
  if (input.Where(params, "BackpropLstmNonlinearity") &&
      input.Where(output_deriv, "BackpropLstmNonlinearity") &&
      input.Where(deriv_sum_in, "BackpropLstmNonlinearity") &&
      input.Where(self_repair_config, "BackpropLstmNonlinearity")) {
    if (input_deriv != nullptr)
      input.Where(*input_deriv, "BackpropLstmNonlinearity");
    if (stats) {
      input.Where(*params_deriv, "BackpropLstmNonlinearity");
      input.Where(*value_sum_out, "BackpropLstmNonlinearity");
      input.Where(*deriv_sum_out, "BackpropLstmNonlinearity");
      input.Where(*self_repair_sum_out, "BackpropLstmNonlinearity");
    }
    // Absent outputs are passed as empty views (null data).
    cuda::DevMat<Real> no_real;
    cuda::DevMat<double> no_double;
    cu_backend::Ops<Real>().BackpropLstmNonlinearity(
        input.Dev(), params.Dev(), output_deriv.Dev(), deriv_sum_in.Dev(),
        self_repair_config.DevV(), count_in,
        input_deriv != nullptr ? input_deriv->Dev() : no_real,
        stats ? params_deriv->Dev() : no_real,
        stats ? value_sum_out->Dev() : no_double,
        stats ? deriv_sum_out->Dev() : no_double,
        stats ? self_repair_sum_out->Dev() : no_real);
    return;
  }

  const MatrixBase<Real> &x_host = input.Mat(), &dy_host = output_deriv.Mat(),
                         &params_host = params.Mat();
  MatrixBase<Real> *dx_host =
      input_deriv != nullptr ? &input_deriv->Mat() : nullptr;
  const MatrixBase<double> &deriv_sum = deriv_sum_in.Mat();
  const VectorBase<Real> &config = self_repair_config.Vec();
  // repair(k, j): the self-repair scale of nonlinearity k in cell j, or 0.
  // Decided before anything is written (deriv_sum_out may alias
  // deriv_sum_in).
  const Real count_plus_one = 1.0 + count_in;
  Matrix<Real> repair(5, C);
  for (int32 k = 0; k < 5; k++)
    for (int32 j = 0; j < C; j++)
      if (deriv_sum(k, j) / count_plus_one < config(k))
        repair(k, j) = config(5 + k);

  // Per-cell sums over the rows, in Real: the values and derivatives of the
  // five nonlinearities and the parameter gradient.
  Matrix<Real> value_acc(5, C), deriv_acc(5, C), grad(3, C);
  Real *v_i = value_acc.RowData(kSigI), *v_f = value_acc.RowData(kSigF),
       *v_g = value_acc.RowData(kTanhG), *v_o = value_acc.RowData(kSigO),
       *v_c = value_acc.RowData(kTanhC);
  Real *d_i = deriv_acc.RowData(kSigI), *d_f = deriv_acc.RowData(kSigF),
       *d_g = deriv_acc.RowData(kTanhG), *d_o = deriv_acc.RowData(kSigO),
       *d_c = deriv_acc.RowData(kTanhC);
  Real *g_ic = grad.RowData(0), *g_fc = grad.RowData(1),
       *g_oc = grad.RowData(2);
  const Real *w_ic = params_host.RowData(0), *w_fc = params_host.RowData(1),
             *w_oc = params_host.RowData(2);
  const Real *sr_i = repair.RowData(kSigI), *sr_f = repair.RowData(kSigF),
             *sr_g = repair.RowData(kTanhG), *sr_o = repair.RowData(kSigO),
             *sr_c = repair.RowData(kTanhC);

  for (int32 r = 0; r < rows; r++) {
    Real i_mask, f_mask, o_mask;
    RowMasks(x_host, r, C, &i_mask, &f_mask, &o_mask);
    const Real *x = x_host.RowData(r), *dy = dy_host.RowData(r);
    Real *dx = (dx_host != nullptr ? dx_host->RowData(r) : nullptr);
    for (int32 j = 0; j < C; j++) {
      const Real c_prev = x[4 * C + j];
      const LstmCell<Real> s =
          ForwardCell(x[j], x[C + j], x[2 * C + j], x[3 * C + j], c_prev,
                      w_ic[j], w_fc[j], w_oc[j], i_mask, f_mask, o_mask);
      // Function derivatives of the five nonlinearities at this point.
      const Real di_da = s.i * (Real(1) - s.i), df_da = s.f * (Real(1) - s.f),
                 dg_da = Real(1) - s.g * s.g, do_da = s.o * (Real(1) - s.o),
                 dtc_dc = Real(1) - s.tanh_c * s.tanh_c;
      v_i[j] += s.i;
      d_i[j] += di_da;
      v_f[j] += s.f;
      d_f[j] += df_da;
      v_g[j] += s.g;
      d_g[j] += dg_da;
      v_o[j] += s.o;
      d_o[j] += do_da;
      v_c[j] += s.tanh_c;
      d_c[j] += dtc_dc;

      // Backwards through m_t = o_mask o_t tanh(c_t) and o_t's sigmoid;
      // the self-repair terms push a saturated sigmoid's input towards 0
      // (-(2y - 1) scale) and a saturated tanh's likewise (-y scale).
      const Real dc_direct = dy[j], dm = dy[C + j];
      const Real dtanh_c = s.o * o_mask * dm;
      const Real d_out_gate = o_mask * s.tanh_c * dm;
      const Real do_in = do_da * d_out_gate - (Real(2) * s.o - Real(1)) * sr_o[j];
      const Real dcell = (dtc_dc * dtanh_c + dc_direct + do_in * w_oc[j]) -
                         s.tanh_c * sr_c[j];
      // Backwards through c_t = f_mask f_t c_{t-1} + i_mask i_t g_t.
      const Real dg = s.i * i_mask * dcell;
      const Real d_forget = dcell * f_mask * c_prev;
      const Real df_in = d_forget * df_da - (Real(2) * s.f - Real(1)) * sr_f[j];
      const Real d_input = dcell * i_mask * s.g;
      const Real di_in = d_input * di_da - (Real(2) * s.i - Real(1)) * sr_i[j];

      g_ic[j] += c_prev * di_in;
      g_fc[j] += c_prev * df_in;
      g_oc[j] += s.c * do_in;

      if (dx != nullptr) {
        dx[j] = di_in;
        dx[C + j] = df_in;
        dx[2 * C + j] = dg_da * dg - s.g * sr_g[j];
        dx[3 * C + j] = do_in;
        dx[4 * C + j] = w_ic[j] * di_in + w_fc[j] * df_in + s.f * f_mask * dcell;
      }
    }
  }

  if (!stats) return;
  MatrixBase<Real> &sr_out = self_repair_sum_out->Mat();
  for (int32 k = 0; k < 5; k++)
    for (int32 j = 0; j < C; j++)
      sr_out(k, j) = deriv_sum(k, j) / count_plus_one < config(k)
                         ? static_cast<Real>(rows)
                         : Real(0);
  MatrixBase<double> &value_sum = value_sum_out->Mat(),
                     &deriv_sum_upd = deriv_sum_out->Mat();
  for (int32 k = 0; k < 5; k++)
    for (int32 j = 0; j < C; j++) {
      value_sum(k, j) += value_acc(k, j);
      deriv_sum_upd(k, j) += deriv_acc(k, j);
    }
  params_deriv->CopyFromMat(grad);
}

template <typename Real>
void CopyRowsToVec(const CuMatrixBase<Real> &M, VectorBase<Real> *v) {
  NNET3_ASSERT(v->Dim() == M.NumRows() * M.NumCols());
  if (!M.OnDevice()) {
    v->CopyRowsFromMat(M.Mat());
    return;
  }
  cu_backend::CopyToHost(v->Data(), sizeof(Real) * M.NumCols(), M.Data(),
                         sizeof(Real) * M.Stride(), sizeof(Real) * M.NumCols(),
                         M.NumRows());
}

template <typename Real>
void CopyRowsFromVec(const VectorBase<Real> &v, CuMatrixBase<Real> *M) {
  NNET3_ASSERT(v.Dim() == M->NumRows() * M->NumCols());
  if (!M->OnDevice()) {
    M->Mat().CopyRowsFromVec(v);
    return;
  }
  cu_backend::CopyToDevice(M->Data(), sizeof(Real) * M->Stride(), v.Data(),
                           sizeof(Real) * M->NumCols(),
                           sizeof(Real) * M->NumCols(), M->NumRows());
}

#define NNET3_INSTANTIATE_CU_MATH_RECURRENT(R)                               \
  template void ComputeLstmNonlinearity(const CuMatrixBase<R> &,             \
                                        const CuMatrixBase<R> &,             \
                                        CuMatrixBase<R> *);                  \
  template void BackpropLstmNonlinearity(                                    \
      const CuMatrixBase<R> &, const CuMatrixBase<R> &,                      \
      const CuMatrixBase<R> &, const CuMatrixBase<double> &,                 \
      const CuVectorBase<R> &, double, CuMatrixBase<R> *, CuMatrixBase<R> *, \
      CuMatrixBase<double> *, CuMatrixBase<double> *, CuMatrixBase<R> *);    \
  template void CopyRowsToVec(const CuMatrixBase<R> &, VectorBase<R> *);     \
  template void CopyRowsFromVec(const VectorBase<R> &, CuMatrixBase<R> *);

NNET3_INSTANTIATE_CU_MATH_RECURRENT(float)
NNET3_INSTANTIATE_CU_MATH_RECURRENT(double)

}  // namespace cu
}  // namespace nnet3
