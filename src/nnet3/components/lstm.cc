// nnet3/components/lstm.cc
#include "nnet3/components/lstm.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "cudamatrix/cu-math-recurrent.h"
#include "nnet3/components/parameter-stats.h"

namespace nnet3 {

namespace {

// Indexes of the five nonlinearities in the statistics and self-repair
// arrays.
enum LstmNonlin { kSigI = 0, kSigF = 1, kTanhG = 2, kSigO = 3, kTanhC = 4 };

const char *const kNonlinNames[5] = {"i_t_sigmoid", "f_t_sigmoid",
                                     "c_t_tanh", "o_t_sigmoid", "m_t_tanh"};

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
  cu::ComputeLstmNonlinearity(in, params_, out);
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
  if (in_deriv != nullptr) NNET3_ASSERT(SameDim(*in_deriv, in_value));

  // Self-repair decisions use this component's statistics (the op adds 1 to
  // the count so that fresh statistics do not divide by zero); the
  // minibatch's statistics and parameter gradient go to the one updated.
  if (to_update == nullptr) {
    CuMatrixBase<BaseFloat> *no_stats = nullptr;
    cu::BackpropLstmNonlinearity(in_value, params_, out_deriv, deriv_sum_,
                                 self_repair_config_, count_, in_deriv,
                                 no_stats, nullptr, nullptr, no_stats);
    return;
  }
  CuMatrix<BaseFloat> grad(3, C, kUndefined), self_repaired(5, C, kUndefined);
  cu::BackpropLstmNonlinearity(in_value, params_, out_deriv, deriv_sum_,
                               self_repair_config_, count_, in_deriv, &grad,
                               &to_update->value_sum_, &to_update->deriv_sum_,
                               &self_repaired);
  // Frames on which each nonlinearity was repaired, summed over the cells.
  CuVector<BaseFloat> repaired_frames(5);
  repaired_frames.AddColSumMat(1.0, self_repaired, 0.0);
  to_update->self_repair_total_.AddVec(1.0, repaired_frames);
  to_update->count_ += static_cast<double>(rows);
  BaseFloat scale = 1.0;
  if (!to_update->is_gradient_)
    to_update->preconditioner_.PreconditionDirections(&grad, &scale);
  to_update->params_.AddMat(to_update->learning_rate_ * scale, grad);
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
  cu::CopyRowsToVec(params_, params);
}

void LstmNonlinearityComponent::UnVectorize(
    const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  cu::CopyRowsFromVec(params, &params_);
}

void RegisterLstmComponents(ComponentRegistry *registry) {
  registry->Add("LstmNonlinearityComponent",
                [] { return new LstmNonlinearityComponent(); });
}

}  // namespace nnet3
