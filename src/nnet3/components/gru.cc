// nnet3/components/gru.cc
#include "nnet3/components/gru.h"

#include <cmath>
#include <iomanip>

#include "cudamatrix/cu-math-recurrent.h"
#include "nnet3/components/parameter-stats.h"

namespace nnet3 {

namespace {

// After ReadUpdatableCommon: "" if <LearningRate> was read (then the next
// token must be 'expected'), else the token read instead.
void ExpectNextToken(std::istream &is, bool binary, const std::string &token,
                     const char *expected) {
  if (token.empty())
    ExpectToken(is, binary, expected);
  else if (token != expected)
    NNET3_ERR << "Expected token " << expected << ", got "
              << PrintableString(token);
}

// The probability with which a minibatch contributes to the tanh
// statistics and gets self-repair (fixed in Kaldi).
const BaseFloat kStatsProbability = 0.5;

// The backward pass through c_t = (1 - z_t) .* h_t + z_t .* c_{t-1}, shared
// by both components. Returns in *h_t_deriv the derivative w.r.t. the tanh
// input (h_t's own output derivative included), and adds to z_t_deriv and
// c_t1_deriv (if non-null) their parts from this expression.
void BackpropGruCell(const CuMatrixBase<BaseFloat> &z_t,
                     const CuMatrixBase<BaseFloat> &c_t1,
                     const CuMatrixBase<BaseFloat> &h_t,
                     const CuMatrixBase<BaseFloat> &h_t_out_deriv,
                     const CuMatrixBase<BaseFloat> &c_t_deriv,
                     CuMatrixBase<BaseFloat> *z_t_deriv,
                     CuMatrixBase<BaseFloat> *c_t1_deriv,
                     CuMatrix<BaseFloat> *h_t_deriv) {
  h_t_deriv->Resize(h_t.NumRows(), h_t.NumCols(), kUndefined);
  // dF/dh_t = h_t's output derivative + c_t_deriv .* (1 - z_t).
  h_t_deriv->CopyFromMat(h_t_out_deriv);
  h_t_deriv->AddMat(1.0, c_t_deriv);
  h_t_deriv->AddMatMatElements(-1.0, c_t_deriv, z_t, 1.0);
  if (z_t_deriv != nullptr) {
    // dF/dz_t = c_t_deriv .* (c_{t-1} - h_t); dF/dc_{t-1} += c_t_deriv .* z_t.
    z_t_deriv->AddMatMatElements(-1.0, c_t_deriv, h_t, 1.0);
    z_t_deriv->AddMatMatElements(1.0, c_t_deriv, c_t1, 1.0);
    c_t1_deriv->AddMatMatElements(1.0, c_t_deriv, z_t, 1.0);
  }
  // Through the tanh.
  h_t_deriv->DiffTanh(h_t, *h_t_deriv);
}

// c_t = (1 - z_t) .* h_t + z_t .* c_{t-1}.
void ForwardGruCell(const CuMatrixBase<BaseFloat> &z_t,
                    const CuMatrixBase<BaseFloat> &c_t1,
                    const CuMatrixBase<BaseFloat> &h_t,
                    CuMatrixBase<BaseFloat> *c_t) {
  c_t->CopyFromMat(h_t);
  c_t->AddMatMatElements(-1.0, z_t, h_t, 1.0);
  c_t->AddMatMatElements(1.0, z_t, c_t1, 1.0);
}

}  // namespace

// ---- GruTanhStats ------------------------------------------------------------

void GruTanhStats::AccumulateAndRepair(const CuMatrixBase<BaseFloat> &h_t,
                                       CuMatrixBase<BaseFloat> *h_t_deriv) {
  NNET3_ASSERT(SameDim(h_t, *h_t_deriv));
  if (RandUniform() > kStatsProbability) return;
  const int32 dim = h_t.NumCols();
  // tanh'(x) = 1 - tanh(x)^2.
  CuMatrix<BaseFloat> tanh_deriv(h_t);
  tanh_deriv.ApplyPow(2.0);
  tanh_deriv.Scale(-1.0);
  tanh_deriv.Add(1.0);
  count_ += h_t.NumRows();
  CuVector<BaseFloat> col_sums(dim);
  col_sums.AddRowSumMat(1.0, h_t, 0.0);
  value_sum_.AddVec(1.0, col_sums);
  col_sums.AddRowSumMat(1.0, tanh_deriv, 0.0);
  deriv_sum_.AddVec(1.0, col_sums);
  if (count_ <= 0.0) return;
  // A dimension is repaired when its average derivative is below the
  // threshold, i.e. threshold * count - deriv_sum > 0.
  CuVector<BaseFloat> repair(dim);
  repair.AddVec(-1.0, deriv_sum_);
  repair.Add(self_repair_threshold_ * count_);
  repair.ApplyHeaviside();
  self_repair_total_ += repair.Sum();
  // The term pushes the tanh input towards zero; it is divided by the
  // probability so that its expected size does not depend on it.
  h_t_deriv->AddMatDiagVec(-self_repair_scale_ / kStatsProbability, h_t,
                           kNoTrans, repair);
}

void GruTanhStats::Zero() {
  value_sum_.SetZero();
  deriv_sum_.SetZero();
  self_repair_total_ = 0.0;
  count_ = 0.0;
}

void GruTanhStats::Scale(BaseFloat scale) {
  if (scale == 0.0) {
    Zero();
    return;
  }
  value_sum_.Scale(scale);
  deriv_sum_.Scale(scale);
  self_repair_total_ *= scale;
  count_ *= scale;
}

void GruTanhStats::Add(BaseFloat alpha, const GruTanhStats &other) {
  value_sum_.AddVec(alpha, other.value_sum_);
  deriv_sum_.AddVec(alpha, other.deriv_sum_);
  self_repair_total_ += alpha * other.self_repair_total_;
  count_ += alpha * other.count_;
}

void GruTanhStats::PrintStats(std::ostringstream &os) const {
  if (!(count_ > 0)) return;
  const int32 dim = value_sum_.Dim();
  os << ", count=" << std::setprecision(3) << count_ << std::setprecision(6)
     << ", self-repaired-proportion=" << (self_repair_total_ / (count_ * dim));
  CuVector<BaseFloat> value_avg(value_sum_), deriv_avg(deriv_sum_);
  value_avg.Scale(1.0 / count_);
  deriv_avg.Scale(1.0 / count_);
  os << ", value-avg=" << SummarizeVector(value_avg)
     << ", deriv-avg=" << SummarizeVector(deriv_avg);
}

void GruTanhStats::Write(std::ostream &os, bool binary) const {
  // Averages on disk, sums in memory.
  CuVector<BaseFloat> avg(value_sum_);
  if (count_ != 0.0) avg.Scale(1.0 / count_);
  WriteToken(os, binary, "<ValueAvg>");
  avg.Write(os, binary);
  avg.CopyFromVec(deriv_sum_);
  if (count_ != 0.0) avg.Scale(1.0 / count_);
  WriteToken(os, binary, "<DerivAvg>");
  avg.Write(os, binary);
  WriteToken(os, binary, "<SelfRepairTotal>");
  WriteBasicType(os, binary, self_repair_total_);
  WriteToken(os, binary, "<Count>");
  WriteBasicType(os, binary, count_);
  WriteToken(os, binary, "<SelfRepairThreshold>");
  WriteBasicType(os, binary, self_repair_threshold_);
  WriteToken(os, binary, "<SelfRepairScale>");
  WriteBasicType(os, binary, self_repair_scale_);
}

void GruTanhStats::Read(std::istream &is, bool binary) {
  Vector<BaseFloat> avg;
  ExpectToken(is, binary, "<ValueAvg>");
  avg.Read(is, binary);
  value_sum_ = Vector<double>(avg);
  ExpectToken(is, binary, "<DerivAvg>");
  avg.Read(is, binary);
  deriv_sum_ = Vector<double>(avg);
  ExpectToken(is, binary, "<SelfRepairTotal>");
  ReadBasicType(is, binary, &self_repair_total_);
  ExpectToken(is, binary, "<Count>");
  ReadBasicType(is, binary, &count_);
  value_sum_.Scale(count_);
  deriv_sum_.Scale(count_);
  ExpectToken(is, binary, "<SelfRepairThreshold>");
  ReadBasicType(is, binary, &self_repair_threshold_);
  ExpectToken(is, binary, "<SelfRepairScale>");
  ReadBasicType(is, binary, &self_repair_scale_);
}

// ---- GruNonlinearityComponent -------------------------------------------------

GruNonlinearityComponent::GruNonlinearityComponent(
    const GruNonlinearityComponent &other)
    : UpdatableComponent(), cell_dim_(other.cell_dim_),
      recurrent_dim_(other.recurrent_dim_), w_h_(other.w_h_),
      stats_(other.stats_), preconditioner_in_(other.preconditioner_in_),
      preconditioner_out_(other.preconditioner_out_) {
  SetUpdatableConfigs(other);
}

void GruNonlinearityComponent::SetNaturalGradientOptions(BaseFloat alpha,
                                                         int32 rank_in,
                                                         int32 rank_out,
                                                         int32 update_period) {
  if (!(alpha >= 0.0) || rank_in <= 0 || rank_out <= 0 || update_period <= 0)
    NNET3_ERR << Type() << ": invalid natural-gradient options alpha="
              << alpha << ", rank-in=" << rank_in << ", rank-out=" << rank_out
              << ", update-period=" << update_period;
  preconditioner_in_ = OnlineNaturalGradient();
  preconditioner_out_ = OnlineNaturalGradient();
  preconditioner_in_.SetAlpha(alpha);
  preconditioner_in_.SetRank(rank_in);
  preconditioner_in_.SetUpdatePeriod(update_period);
  preconditioner_out_.SetAlpha(alpha);
  preconditioner_out_.SetRank(rank_out);
  preconditioner_out_.SetUpdatePeriod(update_period);
}

void GruNonlinearityComponent::InitFromConfig(ConfigLine *cfl) {
  InitLearningRatesFromConfig(cfl);
  int32 cell_dim = -1, recurrent_dim = -1;
  if (!cfl->GetValue("cell-dim", &cell_dim) || cell_dim <= 0)
    NNET3_ERR << Type() << ": cell-dim > 0 is required: " << cfl->WholeLine();
  BaseFloat param_stddev = 1.0 / std::sqrt(static_cast<BaseFloat>(cell_dim)),
            alpha = 4.0;
  int32 rank_in = 20, rank_out = 80, update_period = 4;
  GruTanhStats stats;
  cfl->GetValue("recurrent-dim", &recurrent_dim);
  cfl->GetValue("self-repair-threshold", &stats.self_repair_threshold_);
  cfl->GetValue("self-repair-scale", &stats.self_repair_scale_);
  cfl->GetValue("param-stddev", &param_stddev);
  cfl->GetValue("alpha", &alpha);
  cfl->GetValue("rank-in", &rank_in);
  cfl->GetValue("rank-out", &rank_out);
  cfl->GetValue("update-period", &update_period);
  CheckNoUnusedValues(*cfl, *this);
  if (recurrent_dim < 0) recurrent_dim = cell_dim;
  if (recurrent_dim == 0 || recurrent_dim > cell_dim)
    NNET3_ERR << Type() << ": invalid recurrent-dim=" << recurrent_dim
              << " (must be in [1, cell-dim=" << cell_dim << "])";
  if (!(stats.self_repair_threshold_ >= 0.0) ||
      !(stats.self_repair_scale_ >= 0.0))
    NNET3_ERR << Type() << ": invalid self-repair-threshold="
              << stats.self_repair_threshold_ << " or self-repair-scale="
              << stats.self_repair_scale_;
  if (!(param_stddev >= 0.0))
    NNET3_ERR << Type() << ": invalid param-stddev=" << param_stddev;
  cell_dim_ = cell_dim;
  recurrent_dim_ = recurrent_dim;
  w_h_.Resize(cell_dim_, recurrent_dim_);
  w_h_.SetRandn();
  w_h_.Scale(param_stddev);
  SetNaturalGradientOptions(alpha, rank_in, rank_out, update_period);
  stats_ = stats;
  stats_.Resize(cell_dim_);
}

std::string GruNonlinearityComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", cell-dim=" << cell_dim_
     << ", recurrent-dim=" << recurrent_dim_;
  PrintParameterStats(os, "w_h", w_h_);
  os << ", self-repair-threshold=" << stats_.self_repair_threshold_
     << ", self-repair-scale=" << stats_.self_repair_scale_;
  stats_.PrintStats(os);
  os << ", alpha=" << preconditioner_in_.GetAlpha()
     << ", rank-in=" << preconditioner_in_.GetRank()
     << ", rank-out=" << preconditioner_out_.GetRank()
     << ", update-period=" << preconditioner_in_.GetUpdatePeriod();
  return os.str();
}

void *GruNonlinearityComponent::Propagate(const ComponentPrecomputedIndexes *,
                                          const CuMatrixBase<BaseFloat> &in,
                                          CuMatrixBase<BaseFloat> *out) const {
  const int32 C = cell_dim_, R = recurrent_dim_, rows = in.NumRows();
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               out->NumRows() == rows);
  // Without projection (R == C), c_{t-1} and s_{t-1} are the same columns.
  CuSubMatrix<BaseFloat> z_t = in.ColRange(0, C), r_t = in.ColRange(C, R),
                         hpart_t = in.ColRange(C + R, C),
                         c_t1 = in.ColRange(2 * C + R, C),
                         s_t1 = in.ColRange(in.NumCols() - R, R);
  CuSubMatrix<BaseFloat> h_t = out->ColRange(0, C), c_t = out->ColRange(C, C);
  CuMatrix<BaseFloat> sdotr(rows, R);
  sdotr.AddMatMatElements(1.0, r_t, s_t1, 0.0);
  h_t.CopyFromMat(hpart_t);
  h_t.AddMatMat(1.0, sdotr, kNoTrans, w_h_, kTrans, 1.0);
  h_t.Tanh(h_t);
  ForwardGruCell(z_t, c_t1, h_t, &c_t);
  return nullptr;
}

void GruNonlinearityComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_value,
    const CuMatrixBase<BaseFloat> &out_deriv, void *, Component *to_update_in,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  const int32 C = cell_dim_, R = recurrent_dim_, rows = in_value.NumRows(),
              in_cols = in_value.NumCols();
  NNET3_ASSERT(in_cols == InputDim() && out_value.NumRows() == rows &&
               out_value.NumCols() == OutputDim() &&
               SameDim(out_value, out_deriv) &&
               (in_deriv == nullptr || SameDim(*in_deriv, in_value)));
  GruNonlinearityComponent *to_update = nullptr;
  if (to_update_in != nullptr) {
    to_update = dynamic_cast<GruNonlinearityComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
  }
  CuSubMatrix<BaseFloat> z_t = in_value.ColRange(0, C),
                         r_t = in_value.ColRange(C, R),
                         c_t1 = in_value.ColRange(2 * C + R, C),
                         s_t1 = in_value.ColRange(in_cols - R, R);
  CuSubMatrix<BaseFloat> h_t = out_value.ColRange(0, C);
  CuMatrix<BaseFloat> sdotr(rows, R);
  sdotr.AddMatMatElements(1.0, r_t, s_t1, 0.0);

  CuMatrix<BaseFloat> h_t_deriv;
  if (in_deriv != nullptr) {
    CuSubMatrix<BaseFloat> z_t_deriv = in_deriv->ColRange(0, C),
                           c_t1_deriv = in_deriv->ColRange(2 * C + R, C);
    BackpropGruCell(z_t, c_t1, h_t, out_deriv.ColRange(0, C),
                    out_deriv.ColRange(C, C), &z_t_deriv, &c_t1_deriv,
                    &h_t_deriv);
  } else {
    BackpropGruCell(z_t, c_t1, h_t, out_deriv.ColRange(0, C),
                    out_deriv.ColRange(C, C), nullptr, nullptr, &h_t_deriv);
  }
  if (to_update != nullptr) {
    to_update->stats_.AccumulateAndRepair(h_t, &h_t_deriv);
    // As in Kaldi, the update comes before the input derivative (which then
    // sees the updated W_h if to_update is this component).
    to_update->UpdateParameters(sdotr, h_t_deriv);
  }
  if (in_deriv != nullptr) {
    CuSubMatrix<BaseFloat> r_t_deriv = in_deriv->ColRange(C, R),
                           hpart_t_deriv = in_deriv->ColRange(C + R, C),
                           s_t1_deriv = in_deriv->ColRange(in_cols - R, R);
    hpart_t_deriv.AddMat(1.0, h_t_deriv);
    // Derivative w.r.t. r_t .* s_{t-1}, then to each factor.
    CuMatrix<BaseFloat> sdotr_deriv(rows, R);
    sdotr_deriv.AddMatMat(1.0, h_t_deriv, kNoTrans, w_h_, kNoTrans, 0.0);
    r_t_deriv.AddMatMatElements(1.0, sdotr_deriv, s_t1, 1.0);
    s_t1_deriv.AddMatMatElements(1.0, sdotr_deriv, r_t, 1.0);
  }
}

void GruNonlinearityComponent::UpdateParameters(
    const CuMatrixBase<BaseFloat> &sdotr,
    const CuMatrixBase<BaseFloat> &h_t_deriv) {
  if (is_gradient_) {
    w_h_.AddMatMat(learning_rate_, h_t_deriv, kTrans, sdotr, kNoTrans, 1.0);
    return;
  }
  CuMatrix<BaseFloat> in_dirs(sdotr), out_dirs(h_t_deriv);
  BaseFloat in_scale, out_scale;
  preconditioner_in_.PreconditionDirections(&in_dirs, &in_scale);
  preconditioner_out_.PreconditionDirections(&out_dirs, &out_scale);
  w_h_.AddMatMat(learning_rate_ * in_scale * out_scale, out_dirs, kTrans,
                 in_dirs, kNoTrans, 1.0);
}

void GruNonlinearityComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ExpectNextToken(is, binary, token, "<CellDim>");
  ReadBasicType(is, binary, &cell_dim_);
  ExpectToken(is, binary, "<RecurrentDim>");
  ReadBasicType(is, binary, &recurrent_dim_);
  ExpectToken(is, binary, "<w_h>");
  w_h_.Read(is, binary);
  stats_.Read(is, binary);
  BaseFloat alpha;
  int32 rank_in, rank_out, update_period;
  ExpectToken(is, binary, "<Alpha>");
  ReadBasicType(is, binary, &alpha);
  ExpectToken(is, binary, "<RankInOut>");
  ReadBasicType(is, binary, &rank_in);
  ReadBasicType(is, binary, &rank_out);
  ExpectToken(is, binary, "<UpdatePeriod>");
  ReadBasicType(is, binary, &update_period);
  ExpectToken(is, binary, ClosingTag(*this));
  if (cell_dim_ <= 0 || recurrent_dim_ <= 0 || recurrent_dim_ > cell_dim_ ||
      w_h_.NumRows() != cell_dim_ || w_h_.NumCols() != recurrent_dim_ ||
      stats_.value_sum_.Dim() != cell_dim_ ||
      stats_.deriv_sum_.Dim() != cell_dim_)
    NNET3_ERR << "Reading " << Type() << ": inconsistent <CellDim> "
              << cell_dim_ << ", <RecurrentDim> " << recurrent_dim_
              << " and parameter/statistics dimensions";
  SetNaturalGradientOptions(alpha, rank_in, rank_out, update_period);
}

void GruNonlinearityComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<CellDim>");
  WriteBasicType(os, binary, cell_dim_);
  WriteToken(os, binary, "<RecurrentDim>");
  WriteBasicType(os, binary, recurrent_dim_);
  WriteToken(os, binary, "<w_h>");
  w_h_.Write(os, binary);
  stats_.Write(os, binary);
  WriteToken(os, binary, "<Alpha>");
  WriteBasicType(os, binary, preconditioner_in_.GetAlpha());
  WriteToken(os, binary, "<RankInOut>");
  WriteBasicType(os, binary, preconditioner_in_.GetRank());
  WriteBasicType(os, binary, preconditioner_out_.GetRank());
  WriteToken(os, binary, "<UpdatePeriod>");
  WriteBasicType(os, binary, preconditioner_in_.GetUpdatePeriod());
  WriteToken(os, binary, ClosingTag(*this));
}

void GruNonlinearityComponent::Scale(BaseFloat scale) {
  if (scale == 0.0)
    w_h_.SetZero();
  else
    w_h_.Scale(scale);
  stats_.Scale(scale);
}

void GruNonlinearityComponent::Add(BaseFloat alpha, const Component &other_in) {
  const GruNonlinearityComponent *other =
      dynamic_cast<const GruNonlinearityComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  w_h_.AddMat(alpha, other->w_h_);
  stats_.Add(alpha, other->stats_);
}

void GruNonlinearityComponent::PerturbParams(BaseFloat stddev) {
  CuMatrix<BaseFloat> noise(w_h_.NumRows(), w_h_.NumCols());
  noise.SetRandn();
  w_h_.AddMat(stddev, noise);
}

BaseFloat GruNonlinearityComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const GruNonlinearityComponent *other =
      dynamic_cast<const GruNonlinearityComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  return TraceMatMat(w_h_, other->w_h_, kTrans);
}

void GruNonlinearityComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  cu::CopyRowsToVec(w_h_, params);
}

void GruNonlinearityComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  cu::CopyRowsFromVec(params, &w_h_);
}

// ---- OutputGruNonlinearityComponent -------------------------------------------

OutputGruNonlinearityComponent::OutputGruNonlinearityComponent(
    const OutputGruNonlinearityComponent &other)
    : UpdatableComponent(), cell_dim_(other.cell_dim_), w_h_(other.w_h_),
      stats_(other.stats_), preconditioner_(other.preconditioner_) {
  SetUpdatableConfigs(other);
}

namespace {

OnlineNaturalGradient MakeOutputGruPreconditioner(const std::string &type,
                                                  BaseFloat alpha, int32 rank,
                                                  int32 update_period) {
  if (!(alpha >= 0.0) || rank <= 0 || update_period <= 0)
    NNET3_ERR << type << ": invalid natural-gradient options alpha=" << alpha
              << ", rank=" << rank << ", update-period=" << update_period;
  OnlineNaturalGradient ans;
  ans.SetAlpha(alpha);
  ans.SetRank(rank);
  ans.SetUpdatePeriod(update_period);
  return ans;
}

}  // namespace

void OutputGruNonlinearityComponent::InitFromConfig(ConfigLine *cfl) {
  InitLearningRatesFromConfig(cfl);
  int32 cell_dim = -1;
  if (!cfl->GetValue("cell-dim", &cell_dim) || cell_dim <= 0)
    NNET3_ERR << Type() << ": cell-dim > 0 is required: " << cfl->WholeLine();
  BaseFloat param_mean = 0.0, param_stddev = 1.0, alpha = 4.0;
  int32 rank = 8, update_period = 10;
  GruTanhStats stats;
  cfl->GetValue("self-repair-threshold", &stats.self_repair_threshold_);
  cfl->GetValue("self-repair-scale", &stats.self_repair_scale_);
  cfl->GetValue("param-mean", &param_mean);
  cfl->GetValue("param-stddev", &param_stddev);
  cfl->GetValue("alpha", &alpha);
  cfl->GetValue("rank", &rank);
  cfl->GetValue("update-period", &update_period);
  CheckNoUnusedValues(*cfl, *this);
  if (!(stats.self_repair_threshold_ >= 0.0) ||
      !(stats.self_repair_scale_ >= 0.0))
    NNET3_ERR << Type() << ": invalid self-repair-threshold="
              << stats.self_repair_threshold_ << " or self-repair-scale="
              << stats.self_repair_scale_;
  if (!(param_stddev >= 0.0))
    NNET3_ERR << Type() << ": invalid param-stddev=" << param_stddev;
  preconditioner_ =
      MakeOutputGruPreconditioner(Type(), alpha, rank, update_period);
  cell_dim_ = cell_dim;
  w_h_.Resize(cell_dim_);
  w_h_.SetRandn();
  w_h_.Scale(param_stddev);
  w_h_.Add(param_mean);
  stats_ = stats;
  stats_.Resize(cell_dim_);
}

std::string OutputGruNonlinearityComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", cell-dim=" << cell_dim_;
  PrintParameterStats(os, "w_h", w_h_);
  os << ", self-repair-threshold=" << stats_.self_repair_threshold_
     << ", self-repair-scale=" << stats_.self_repair_scale_;
  stats_.PrintStats(os);
  os << ", alpha=" << preconditioner_.GetAlpha()
     << ", rank=" << preconditioner_.GetRank()
     << ", update-period=" << preconditioner_.GetUpdatePeriod();
  return os.str();
}

void *OutputGruNonlinearityComponent::Propagate(
    const ComponentPrecomputedIndexes *, const CuMatrixBase<BaseFloat> &in,
    CuMatrixBase<BaseFloat> *out) const {
  const int32 C = cell_dim_;
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               out->NumRows() == in.NumRows());
  CuSubMatrix<BaseFloat> z_t = in.ColRange(0, C), hpart_t = in.ColRange(C, C),
                         c_t1 = in.ColRange(2 * C, C);
  CuSubMatrix<BaseFloat> h_t = out->ColRange(0, C), c_t = out->ColRange(C, C);
  h_t.CopyFromMat(c_t1);
  h_t.MulColsVec(w_h_);
  h_t.AddMat(1.0, hpart_t);
  h_t.Tanh(h_t);
  ForwardGruCell(z_t, c_t1, h_t, &c_t);
  return nullptr;
}

void OutputGruNonlinearityComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_value,
    const CuMatrixBase<BaseFloat> &out_deriv, void *, Component *to_update_in,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  const int32 C = cell_dim_;
  NNET3_ASSERT(in_value.NumCols() == InputDim() &&
               out_value.NumRows() == in_value.NumRows() &&
               out_value.NumCols() == OutputDim() &&
               SameDim(out_value, out_deriv) &&
               (in_deriv == nullptr || SameDim(*in_deriv, in_value)));
  OutputGruNonlinearityComponent *to_update = nullptr;
  if (to_update_in != nullptr) {
    to_update = dynamic_cast<OutputGruNonlinearityComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
  }
  CuSubMatrix<BaseFloat> z_t = in_value.ColRange(0, C),
                         c_t1 = in_value.ColRange(2 * C, C);
  CuSubMatrix<BaseFloat> h_t = out_value.ColRange(0, C);
  CuMatrix<BaseFloat> h_t_deriv;
  if (in_deriv != nullptr) {
    CuSubMatrix<BaseFloat> z_t_deriv = in_deriv->ColRange(0, C),
                           c_t1_deriv = in_deriv->ColRange(2 * C, C);
    BackpropGruCell(z_t, c_t1, h_t, out_deriv.ColRange(0, C),
                    out_deriv.ColRange(C, C), &z_t_deriv, &c_t1_deriv,
                    &h_t_deriv);
  } else {
    BackpropGruCell(z_t, c_t1, h_t, out_deriv.ColRange(0, C),
                    out_deriv.ColRange(C, C), nullptr, nullptr, &h_t_deriv);
  }
  if (to_update != nullptr) {
    to_update->stats_.AccumulateAndRepair(h_t, &h_t_deriv);
    to_update->UpdateParameters(c_t1, h_t_deriv);
  }
  if (in_deriv != nullptr) {
    CuSubMatrix<BaseFloat> hpart_t_deriv = in_deriv->ColRange(C, C),
                           c_t1_deriv = in_deriv->ColRange(2 * C, C);
    hpart_t_deriv.AddMat(1.0, h_t_deriv);
    // Through w_h .* c_{t-1}.
    h_t_deriv.MulColsVec(w_h_);
    c_t1_deriv.AddMat(1.0, h_t_deriv);
  }
}

void OutputGruNonlinearityComponent::UpdateParameters(
    const CuMatrixBase<BaseFloat> &c_t1,
    const CuMatrixBase<BaseFloat> &h_t_deriv) {
  // The gradient of w_h for each frame is c_{t-1} .* h_t_deriv.
  CuMatrix<BaseFloat> per_frame(c_t1);
  per_frame.MulElements(h_t_deriv);
  BaseFloat scale = 1.0;
  if (!is_gradient_)
    preconditioner_.PreconditionDirections(&per_frame, &scale);
  CuVector<BaseFloat> delta(w_h_.Dim());
  delta.AddRowSumMat(scale * learning_rate_, per_frame, 0.0);
  w_h_.AddVec(1.0, delta);
}

void OutputGruNonlinearityComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ExpectNextToken(is, binary, token, "<CellDim>");
  ReadBasicType(is, binary, &cell_dim_);
  ExpectToken(is, binary, "<w_h>");
  w_h_.Read(is, binary);
  stats_.Read(is, binary);
  BaseFloat alpha;
  int32 rank, update_period;
  ExpectToken(is, binary, "<Alpha>");
  ReadBasicType(is, binary, &alpha);
  ExpectToken(is, binary, "<Rank>");
  ReadBasicType(is, binary, &rank);
  ExpectToken(is, binary, "<UpdatePeriod>");
  ReadBasicType(is, binary, &update_period);
  ExpectToken(is, binary, ClosingTag(*this));
  if (cell_dim_ <= 0 || w_h_.Dim() != cell_dim_ ||
      stats_.value_sum_.Dim() != cell_dim_ ||
      stats_.deriv_sum_.Dim() != cell_dim_)
    NNET3_ERR << "Reading " << Type() << ": inconsistent <CellDim> "
              << cell_dim_ << " and parameter/statistics dimensions";
  preconditioner_ =
      MakeOutputGruPreconditioner(Type(), alpha, rank, update_period);
}

void OutputGruNonlinearityComponent::Write(std::ostream &os,
                                           bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<CellDim>");
  WriteBasicType(os, binary, cell_dim_);
  WriteToken(os, binary, "<w_h>");
  w_h_.Write(os, binary);
  stats_.Write(os, binary);
  WriteToken(os, binary, "<Alpha>");
  WriteBasicType(os, binary, preconditioner_.GetAlpha());
  WriteToken(os, binary, "<Rank>");
  WriteBasicType(os, binary, preconditioner_.GetRank());
  WriteToken(os, binary, "<UpdatePeriod>");
  WriteBasicType(os, binary, preconditioner_.GetUpdatePeriod());
  WriteToken(os, binary, ClosingTag(*this));
}

void OutputGruNonlinearityComponent::Scale(BaseFloat scale) {
  if (scale == 0.0)
    w_h_.SetZero();
  else
    w_h_.Scale(scale);
  stats_.Scale(scale);
}

void OutputGruNonlinearityComponent::Add(BaseFloat alpha,
                                         const Component &other_in) {
  const OutputGruNonlinearityComponent *other =
      dynamic_cast<const OutputGruNonlinearityComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  w_h_.AddVec(alpha, other->w_h_);
  stats_.Add(alpha, other->stats_);
}

void OutputGruNonlinearityComponent::PerturbParams(BaseFloat stddev) {
  CuVector<BaseFloat> noise(w_h_.Dim());
  noise.SetRandn();
  w_h_.AddVec(stddev, noise);
}

BaseFloat OutputGruNonlinearityComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const OutputGruNonlinearityComponent *other =
      dynamic_cast<const OutputGruNonlinearityComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  return VecVec(w_h_, other->w_h_);
}

void OutputGruNonlinearityComponent::Vectorize(
    VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  w_h_.CopyToVec(params);
}

void OutputGruNonlinearityComponent::UnVectorize(
    const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  w_h_.CopyFromVec(params);
}

void RegisterGruComponents(ComponentRegistry *registry) {
  registry->Add("GruNonlinearityComponent",
                [] { return new GruNonlinearityComponent(); });
  registry->Add("OutputGruNonlinearityComponent",
                [] { return new OutputGruNonlinearityComponent(); });
}

}  // namespace nnet3
