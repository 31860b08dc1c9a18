// nnet3/components/lstm.cc
#include "nnet3/components/lstm.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "nnet3/components/parameter-stats.h"

namespace nnet3 {

namespace {

// Overflow-free logistic function and tanh in single precision (the
// formulas Kaldi's CPU code evaluates, so results agree to rounding).
inline BaseFloat LogisticOf(BaseFloat x) {
  if (x > 0.0f) return 1.0f / (1.0f + std::exp(-x));
  BaseFloat e = std::exp(x);
  return e / (e + 1.0f);
}

inline BaseFloat TanhOf(BaseFloat x) {
  if (x > 0.0f) {
    BaseFloat e = std::exp(-x);
    return -1.0f + 2.0f / (1.0f + e * e);
  }
  BaseFloat e = std::exp(x);
  return 1.0f - 2.0f / (1.0f + e * e);
}

// Indexes of the five nonlinearities in the statistics and self-repair
// arrays.
enum LstmNonlin { kSigI = 0, kSigF = 1, kTanhG = 2, kSigO = 3, kTanhC = 4 };

const char *const kNonlinNames[5] = {"i_t_sigmoid", "f_t_sigmoid",
                                     "c_t_tanh", "o_t_sigmoid", "m_t_tanh"};

// The quantities of the forward pass for one cell of one frame.
struct LstmCell {
  BaseFloat i, f, g, c, o, tanh_c, m;
};

inline LstmCell ForwardCell(BaseFloat i_part, BaseFloat f_part,
                            BaseFloat c_part, BaseFloat o_part,
                            BaseFloat c_prev, BaseFloat w_ic, BaseFloat w_fc,
                            BaseFloat w_oc, BaseFloat i_mask, BaseFloat f_mask,
                            BaseFloat o_mask) {
  LstmCell s;
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
inline void RowMasks(const MatrixBase<BaseFloat> &in, int32 r, int32 C,
                     BaseFloat *i_mask, BaseFloat *f_mask, BaseFloat *o_mask) {
  if (in.NumCols() == 5 * C) {
    *i_mask = *f_mask = *o_mask = 1.0f;
  } else {
    *i_mask = in(r, 5 * C);
    *f_mask = in(r, 5 * C + 1);
    *o_mask = in(r, 5 * C + 2);
  }
}

// After ReadUpdatableCommon: "" if <LearningRate> was read (then the next
// token must be 'expected'), else the token read instead.
void ExpectNext(std::istream &is, bool binary, const std::string &token,
                const char *expected) {
  if (token.empty())
    ExpectToken(is, binary, expected);
  else if (token != expected)
    NNET3_ERR << "Expected token " << expected << ", got "
              << PrintableString(token);
}

}  // namespace

LstmNonlinearityComponent::LstmNonlinearityComponent(
    const LstmNonlinearityComponent &other)
    : UpdatableComponent(), params_(other.params_),
      use_dropout_(other.use_dropout_), value_sum_(other.value_sum_),
      deriv_sum_(other.deriv_sum_),
      self_repair_config_(other.self_repair_config_),
      self_repair_total_(other.self_repair_total_), count_(other.count_),
      preconditioner_(other.preconditioner_) {
  SetUpdatableConfigs(other);
}

void LstmNonlinearityComponent::ConfigurePreconditioner() {
  // Fixed options (not configurable in Kaldi either): the preconditioner
  // only sees a 3-row gradient per minibatch, hence the small values.
  preconditioner_ = OnlineNaturalGradient();
  preconditioner_.SetRank(20);
  preconditioner_.SetUpdatePeriod(2);
  preconditioner_.SetNumSamplesHistory(1000.0);
}

void LstmNonlinearityComponent::Init(int32 cell_dim, bool use_dropout,
                                     BaseFloat param_stddev,
                                     BaseFloat tanh_self_repair_threshold,
                                     BaseFloat sigmoid_self_repair_threshold,
                                     BaseFloat self_repair_scale) {
  if (cell_dim <= 0)
    NNET3_ERR << Type() << ": invalid cell-dim=" << cell_dim;
  if (!(param_stddev >= 0.0))
    NNET3_ERR << Type() << ": invalid param-stddev=" << param_stddev;
  if (!(tanh_self_repair_threshold >= 0.0 && tanh_self_repair_threshold <= 1.0))
    NNET3_ERR << Type() << ": invalid tanh-self-repair-threshold="
              << tanh_self_repair_threshold << " (must be in [0, 1])";
  if (!(sigmoid_self_repair_threshold >= 0.0 &&
        sigmoid_self_repair_threshold <= 0.25))
    NNET3_ERR << Type() << ": invalid sigmoid-self-repair-threshold="
              << sigmoid_self_repair_threshold << " (must be in [0, 0.25])";
  if (!(self_repair_scale >= 0.0 && self_repair_scale <= 0.1))
    NNET3_ERR << Type() << ": invalid self-repair-scale=" << self_repair_scale
              << " (must be in [0, 0.1])";
  use_dropout_ = use_dropout;
  params_.Resize(3, cell_dim);
  params_.SetRandn();
  params_.Scale(param_stddev);
  value_sum_.Resize(5, cell_dim);
  deriv_sum_.Resize(5, cell_dim);
  Vector<BaseFloat> config(10);
  for (int32 k = 0; k < 5; k++) {
    bool is_tanh = (k == kTanhG || k == kTanhC);
    config(k) =
        is_tanh ? tanh_self_repair_threshold : sigmoid_self_repair_threshold;
    config(5 + k) = self_repair_scale;
  }
  self_repair_config_.Swap(&config);
  self_repair_total_.Resize(5);
  count_ = 0.0;
  ConfigurePreconditioner();
}

void LstmNonlinearityComponent::InitFromConfig(ConfigLine *cfl) {
  InitLearningRatesFromConfig(cfl);
  int32 cell_dim = -1;
  bool use_dropout = false;
  BaseFloat param_stddev = 1.0, tanh_threshold = 0.2,
            sigmoid_threshold = 0.05, self_repair_scale = 1.0e-05;
  if (!cfl->GetValue("cell-dim", &cell_dim))
    NNET3_ERR << Type() << ": cell-dim is required: " << cfl->WholeLine();
  cfl->GetValue("param-stddev", &param_stddev);
  cfl->GetValue("tanh-self-repair-threshold", &tanh_threshold);
  cfl->GetValue("sigmoid-self-repair-threshold", &sigmoid_threshold);
  cfl->GetValue("self-repair-scale", &self_repair_scale);
  cfl->GetValue("use-dropout", &use_dropout);
  CheckNoUnusedValues(*cfl, *this);
  Init(cell_dim, use_dropout, param_stddev, tanh_threshold, sigmoid_threshold,
       self_repair_scale);
}

std::string LstmNonlinearityComponent::Info() const {
  std::ostringstream os;
  const int32 C = CellDim();
  os << UpdatableComponent::Info() << ", cell-dim=" << C
     << ", use-dropout=" << (use_dropout_ ? "true" : "false");
  static const char *const kParamNames[3] = {"w_ic", "w_fc", "w_oc"};
  for (int32 k = 0; k < 3; k++)
    PrintParameterStats(os, kParamNames[k], params_.Row(k));
  if (count_ > 0)
    os << ", count=" << std::setprecision(3) << count_ << std::setprecision(6);
  for (int32 k = 0; k < 5; k++) {
    os << ", " << kNonlinNames[k] << "={"
       << " self-repair-lower-threshold=" << self_repair_config_.GetElement(k)
       << ", self-repair-scale=" << self_repair_config_.GetElement(5 + k);
    if (count_ != 0) {
      BaseFloat proportion = self_repair_total_.GetElement(k) / (count_ * C);
      CuVector<BaseFloat> value_avg(value_sum_.Row(k)),
          deriv_avg(deriv_sum_.Row(k));
      value_avg.Scale(1.0 / count_);
      deriv_avg.Scale(1.0 / count_);
      os << ", self-repaired-proportion=" << proportion
         << ", value-avg=" << SummarizeVector(value_avg)
         << ", deriv-avg=" << SummarizeVector(deriv_avg);
    }
    os << " }";
  }
  return os.str();
}

void *LstmNonlinearityComponent::Propagate(
    const ComponentPrecomputedIndexes *, const CuMatrixBase<BaseFloat> &in,
    CuMatrixBase<BaseFloat> *out) const {
  const int32 C = CellDim(), rows = in.NumRows();
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == 2 * C &&
               out->NumRows() == rows);
  // Host views: the cells are computed element by element on the host.
  const MatrixBase<BaseFloat> &in_host = in.Mat(), &params = params_.Mat();
  MatrixBase<BaseFloat> &out_host = out->Mat();
  for (int32 r = 0; r < rows; r++) {
    BaseFloat i_mask, f_mask, o_mask;
    RowMasks(in_host, r, C, &i_mask, &f_mask, &o_mask);
    const BaseFloat *x = in_host.RowData(r);
    BaseFloat *y = out_host.RowData(r);
    for (int32 j = 0; j < C; j++) {
      LstmCell s = ForwardCell(x[j], x[C + j], x[2 * C + j], x[3 * C + j],
                               x[4 * C + j], params(0, j), params(1, j),
                               params(2, j), i_mask, f_mask, o_mask);
      y[j] = s.c;
      y[C + j] = s.m;
    }
  }
  return nullptr;
}

void LstmNonlinearityComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &in_value, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *,
    Component *to_update_in, CuMatrixBase<BaseFloat> *in_deriv) const {
  const int32 C = CellDim(), rows = in_value.NumRows();
  NNET3_ASSERT(in_value.NumCols() == InputDim() &&
               out_deriv.NumCols() == 2 * C && out_deriv.NumRows() == rows);
  LstmNonlinearityComponent *to_update = nullptr;
  if (to_update_in != nullptr) {
    to_update = dynamic_cast<LstmNonlinearityComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
  }
  if (in_deriv != nullptr) {
    NNET3_ASSERT(SameDim(*in_deriv, in_value));
    // The dropout-mask columns get no derivative.
    if (in_deriv->NumCols() > 5 * C)
      in_deriv->ColRange(5 * C, in_deriv->NumCols() - 5 * C).SetZero();
  }

  // Self-repair decisions use this component's statistics; the count gets 1
  // added so that fresh statistics do not divide by zero. repair(k, j) is
  // the self-repair scale of nonlinearity k in cell j, or 0.
  // Host views: the cells are computed element by element on the host, the
  // per-minibatch sums are host matrices.
  const MatrixBase<BaseFloat> &x_host = in_value.Mat(),
                              &dy_host = out_deriv.Mat(),
                              &params = params_.Mat();
  MatrixBase<BaseFloat> *dx_host =
      in_deriv != nullptr ? &in_deriv->Mat() : nullptr;
  const MatrixBase<double> &deriv_sum = deriv_sum_.Mat();
  const VectorBase<BaseFloat> &config = self_repair_config_.Vec();
  const BaseFloat count_plus_one = 1.0 + count_;
  Matrix<BaseFloat> repair(5, C);
  for (int32 k = 0; k < 5; k++)
    for (int32 j = 0; j < C; j++)
      if (deriv_sum(k, j) / count_plus_one < config(k))
        repair(k, j) = config(5 + k);

  // Per-cell sums over the rows of this minibatch, in single precision (then
  // added to the double-precision totals, as Kaldi does): the values and
  // derivatives of the five nonlinearities, and the parameter gradient.
  Matrix<BaseFloat> value_acc(5, C), deriv_acc(5, C), grad(3, C);
  BaseFloat *v_i = value_acc.RowData(kSigI), *v_f = value_acc.RowData(kSigF),
            *v_g = value_acc.RowData(kTanhG), *v_o = value_acc.RowData(kSigO),
            *v_c = value_acc.RowData(kTanhC);
  BaseFloat *d_i = deriv_acc.RowData(kSigI), *d_f = deriv_acc.RowData(kSigF),
            *d_g = deriv_acc.RowData(kTanhG), *d_o = deriv_acc.RowData(kSigO),
            *d_c = deriv_acc.RowData(kTanhC);
  BaseFloat *g_ic = grad.RowData(0), *g_fc = grad.RowData(1),
            *g_oc = grad.RowData(2);
  const BaseFloat *w_ic = params.RowData(0), *w_fc = params.RowData(1),
                  *w_oc = params.RowData(2);
  const BaseFloat *sr_i = repair.RowData(kSigI), *sr_f = repair.RowData(kSigF),
                  *sr_g = repair.RowData(kTanhG), *sr_o = repair.RowData(kSigO),
                  *sr_c = repair.RowData(kTanhC);

  for (int32 r = 0; r < rows; r++) {
    BaseFloat i_mask, f_mask, o_mask;
    RowMasks(x_host, r, C, &i_mask, &f_mask, &o_mask);
    const BaseFloat *x = x_host.RowData(r), *dy = dy_host.RowData(r);
    BaseFloat *dx = (dx_host != nullptr ? dx_host->RowData(r) : nullptr);
    for (int32 j = 0; j < C; j++) {
      const BaseFloat c_prev = x[4 * C + j];
      const LstmCell s = ForwardCell(x[j], x[C + j], x[2 * C + j],
                                     x[3 * C + j], c_prev, w_ic[j], w_fc[j],
                                     w_oc[j], i_mask, f_mask, o_mask);
      // Function derivatives of the five nonlinearities at this point.
      const BaseFloat di_da = s.i * (1.0f - s.i), df_da = s.f * (1.0f - s.f),
                      dg_da = 1.0f - s.g * s.g, do_da = s.o * (1.0f - s.o),
                      dtc_dc = 1.0f - s.tanh_c * s.tanh_c;
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
      const BaseFloat dc_direct = dy[j], dm = dy[C + j];
      const BaseFloat dtanh_c = s.o * o_mask * dm;
      const BaseFloat d_out_gate = o_mask * s.tanh_c * dm;
      const BaseFloat do_in = do_da * d_out_gate - (2.0f * s.o - 1.0f) * sr_o[j];
      const BaseFloat dcell = (dtc_dc * dtanh_c + dc_direct + do_in * w_oc[j]) -
                              s.tanh_c * sr_c[j];
      // Backwards through c_t = f_mask f_t c_{t-1} + i_mask i_t g_t.
      const BaseFloat dg = s.i * i_mask * dcell;
      const BaseFloat d_forget = dcell * f_mask * c_prev;
      const BaseFloat df_in = d_forget * df_da - (2.0f * s.f - 1.0f) * sr_f[j];
      const BaseFloat d_input = dcell * i_mask * s.g;
      const BaseFloat di_in = d_input * di_da - (2.0f * s.i - 1.0f) * sr_i[j];

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

  if (to_update == nullptr) return;
  // Frames on which each nonlinearity was repaired, summed over the cells.
  Vector<BaseFloat> repaired_frames(5);
  for (int32 k = 0; k < 5; k++)
    for (int32 j = 0; j < C; j++)
      if (deriv_sum(k, j) / count_plus_one < config(k))
        repaired_frames(k) += static_cast<BaseFloat>(rows);
  {
    // Host views of the statistics being updated.
    MatrixBase<double> &value_sum = to_update->value_sum_.Mat(),
                       &deriv_sum_upd = to_update->deriv_sum_.Mat();
    for (int32 k = 0; k < 5; k++)
      for (int32 j = 0; j < C; j++) {
        value_sum(k, j) += value_acc(k, j);
        deriv_sum_upd(k, j) += deriv_acc(k, j);
      }
  }
  to_update->self_repair_total_.AddVec(1.0,
                                       CuVector<BaseFloat>(repaired_frames));
  to_update->count_ += static_cast<double>(rows);
  CuMatrix<BaseFloat> grad_cu;
  grad_cu.Swap(&grad);
  BaseFloat scale = 1.0;
  if (!to_update->is_gradient_)
    to_update->preconditioner_.PreconditionDirections(&grad_cu, &scale);
  to_update->params_.AddMat(to_update->learning_rate_ * scale, grad_cu);
}

void LstmNonlinearityComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ExpectNext(is, binary, token, "<Params>");
  params_.Read(is, binary);
  if (params_.NumRows() != 3 || params_.NumCols() == 0)
    NNET3_ERR << Type() << ": <Params> must have 3 rows and some columns, has "
              << params_.NumRows() << " x " << params_.NumCols();
  const int32 C = params_.NumCols();
  // The statistics are stored as single-precision averages.
  CuMatrix<BaseFloat> avg;
  ExpectToken(is, binary, "<ValueAvg>");
  avg.Read(is, binary);
  value_sum_ = CuMatrix<double>(avg);
  ExpectToken(is, binary, "<DerivAvg>");
  avg.Read(is, binary);
  deriv_sum_ = CuMatrix<double>(avg);
  ExpectToken(is, binary, "<SelfRepairConfig>");
  self_repair_config_.Read(is, binary);
  ExpectToken(is, binary, "<SelfRepairProb>");
  CuVector<BaseFloat> prob;
  prob.Read(is, binary);
  self_repair_total_ = CuVector<double>(prob);
  if (value_sum_.NumRows() != 5 || value_sum_.NumCols() != C ||
      deriv_sum_.NumRows() != 5 || deriv_sum_.NumCols() != C ||
      self_repair_config_.Dim() != 10 || self_repair_total_.Dim() != 5)
    NNET3_ERR << Type() << ": inconsistent dimensions of the statistics for "
              << "cell-dim " << C;
  ReadToken(is, binary, &token);
  use_dropout_ = false;
  if (token == "<UseDropout>") {
    ReadBasicType(is, binary, &use_dropout_);
    ReadToken(is, binary, &token);
  }
  if (token != "<Count>")
    NNET3_ERR << "Expected token <Count>, got " << PrintableString(token);
  ReadBasicType(is, binary, &count_);
  // In memory the statistics are sums.
  value_sum_.Scale(count_);
  deriv_sum_.Scale(count_);
  self_repair_total_.Scale(count_ * C);
  ConfigurePreconditioner();
  ExpectToken(is, binary, ClosingTag(*this));
}

void LstmNonlinearityComponent::Write(std::ostream &os, bool binary) const {
  const int32 C = CellDim();
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<Params>");
  params_.Write(os, binary);
  WriteToken(os, binary, "<ValueAvg>");
  {
    CuMatrix<BaseFloat> avg(value_sum_);
    if (count_ != 0.0) avg.Scale(1.0 / count_);
    avg.Write(os, binary);
  }
  WriteToken(os, binary, "<DerivAvg>");
  {
    CuMatrix<BaseFloat> avg(deriv_sum_);
    if (count_ != 0.0) avg.Scale(1.0 / count_);
    avg.Write(os, binary);
  }
  WriteToken(os, binary, "<SelfRepairConfig>");
  self_repair_config_.Write(os, binary);
  WriteToken(os, binary, "<SelfRepairProb>");
  {
    CuVector<BaseFloat> prob(self_repair_total_);
    if (count_ != 0.0) prob.Scale(1.0 / (count_ * C));
    prob.Write(os, binary);
  }
  // Written only when set, so that files without dropout stay readable by
  // older readers (Kaldi does the same).
  if (use_dropout_) {
    WriteToken(os, binary, "<UseDropout>");
    WriteBasicType(os, binary, use_dropout_);
  }
  WriteToken(os, binary, "<Count>");
  WriteBasicType(os, binary, count_);
  WriteToken(os, binary, ClosingTag(*this));
}

void LstmNonlinearityComponent::ZeroStats() {
  value_sum_.SetZero();
  deriv_sum_.SetZero();
  self_repair_total_.SetZero();
  count_ = 0.0;
}

void LstmNonlinearityComponent::Scale(BaseFloat scale) {
  if (scale == 0.0) {
    params_.SetZero();
    ZeroStats();
    return;
  }
  params_.Scale(scale);
  value_sum_.Scale(scale);
  deriv_sum_.Scale(scale);
  self_repair_total_.Scale(scale);
  count_ *= scale;
}

void LstmNonlinearityComponent::Add(BaseFloat alpha, const Component &other_in) {
  const LstmNonlinearityComponent *other =
      dynamic_cast<const LstmNonlinearityComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  params_.AddMat(alpha, other->params_);
  value_sum_.AddMat(alpha, other->value_sum_);
  deriv_sum_.AddMat(alpha, other->deriv_sum_);
  self_repair_total_.AddVec(alpha, other->self_repair_total_);
  count_ += alpha * other->count_;
}

void LstmNonlinearityComponent::PerturbParams(BaseFloat stddev) {
  CuMatrix<BaseFloat> noise(params_.NumRows(), params_.NumCols());
  noise.SetRandn();
  params_.AddMat(stddev, noise);
}

BaseFloat LstmNonlinearityComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const LstmNonlinearityComponent *other =
      dynamic_cast<const LstmNonlinearityComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  return TraceMatMat(params_, other->params_, kTrans);
}

void LstmNonlinearityComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  params->CopyRowsFromMat(params_.Mat());
}

void LstmNonlinearityComponent::UnVectorize(
    const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  params_.CopyRowsFromVec(params);
}

void RegisterLstmComponents(ComponentRegistry *registry) {
  registry->Add("LstmNonlinearityComponent",
                [] { return new LstmNonlinearityComponent(); });
}

}  // namespace nnet3
