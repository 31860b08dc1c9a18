// nnet3/components/time-height-convolution.cc
#include "nnet3/components/time-height-convolution.h"

#include <algorithm>
#include <cmath>
#include <climits>
#include <memory>
#include <sstream>

#include "base/io.h"
#include "cudamatrix/cu-math-recurrent.h"
#include "nnet3/components/parameter-stats.h"

namespace nnet3 {

using time_height_convolution::ConvolutionComputation;
using time_height_convolution::ConvolutionComputationOptions;
using time_height_convolution::ConvolutionModel;

namespace {

// Parses a decimal integer that must span all of 's'.
bool ParseInt(const std::string &s, int32 *value) {
  if (s.empty()) return false;
  size_t pos = 0;
  long long v;
  try {
    v = std::stoll(s, &pos);
  } catch (...) {
    return false;
  }
  if (pos != s.size() || v < INT32_MIN || v > INT32_MAX) return false;
  *value = static_cast<int32>(v);
  return true;
}

// "a,b,c" -> {a, b, c}; false on any malformed element.
bool ParseIntList(const std::string &s, char sep, std::vector<int32> *out) {
  out->clear();
  size_t start = 0;
  while (true) {
    size_t end = s.find(sep, start);
    std::string piece = s.substr(start, end == std::string::npos
                                            ? std::string::npos
                                            : end - start);
    int32 v;
    if (!ParseInt(piece, &v)) return false;
    out->push_back(v);
    if (end == std::string::npos) return true;
    start = end + 1;
  }
}

bool SortedAndUnique(const std::vector<int32> &v) {
  for (size_t i = 1; i < v.size(); i++)
    if (v[i] <= v[i - 1]) return false;
  return true;
}

// Reads a required integer option (errors name the option).
int32 RequiredInt(ConfigLine *cfl, const char *key) {
  int32 value = 0;
  if (!cfl->GetValue(key, &value))
    NNET3_ERR << "TimeHeightConvolutionComponent: option " << key
              << " is required";
  return value;
}

const TimeHeightConvolutionComponent::PrecomputedIndexes &GetIndexes(
    const ComponentPrecomputedIndexes *indexes) {
  auto *ans = dynamic_cast<
      const TimeHeightConvolutionComponent::PrecomputedIndexes *>(indexes);
  NNET3_ASSERT(ans != nullptr);
  return *ans;
}

}  // namespace

TimeHeightConvolutionComponent::TimeHeightConvolutionComponent()
    : max_memory_mb_(200.0), use_natural_gradient_(true) {}

TimeHeightConvolutionComponent::TimeHeightConvolutionComponent(
    const TimeHeightConvolutionComponent &other)
    : UpdatableComponent(), model_(other.model_),
      all_time_offsets_(other.all_time_offsets_),
      time_offset_required_(other.time_offset_required_),
      linear_params_(other.linear_params_), bias_params_(other.bias_params_),
      max_memory_mb_(other.max_memory_mb_),
      use_natural_gradient_(other.use_natural_gradient_),
      preconditioner_in_(other.preconditioner_in_),
      preconditioner_out_(other.preconditioner_out_) {
  SetUpdatableConfigs(other);
}

void TimeHeightConvolutionComponent::ComputeDerived() {
  all_time_offsets_.assign(model_.all_time_offsets.begin(),
                           model_.all_time_offsets.end());
  time_offset_required_.clear();
  for (int32 t : all_time_offsets_)
    time_offset_required_.push_back(model_.required_time_offsets.count(t) > 0);
}

void TimeHeightConvolutionComponent::InitUnit() {
  if (model_.num_filters_in != model_.num_filters_out)
    NNET3_ERR << Type() << ": init-unit=true needs num-filters-in ("
              << model_.num_filters_in << ") == num-filters-out ("
              << model_.num_filters_out << ")";
  ConvolutionModel::Offset zero{0, 0};
  auto it = std::find(model_.offsets.begin(), model_.offsets.end(), zero);
  if (it == model_.offsets.end())
    NNET3_ERR << Type() << ": init-unit=true needs the offset (0,0) among "
              << "the offsets";
  int32 block = static_cast<int32>(it - model_.offsets.begin());
  int32 nf = model_.num_filters_in;
  for (int32 f = 0; f < nf; f++) {
    const int32 col = block * nf + f;
    linear_params_.SetElement(f, col, linear_params_.GetElement(f, col) + 1.0f);
  }
}

void TimeHeightConvolutionComponent::InitFromConfig(ConfigLine *cfl) {
  InitLearningRatesFromConfig(cfl);
  const std::string type = Type();
  model_ = ConvolutionModel();
  model_.num_filters_in = RequiredInt(cfl, "num-filters-in");
  model_.num_filters_out = RequiredInt(cfl, "num-filters-out");
  model_.height_in = RequiredInt(cfl, "height-in");
  model_.height_out = RequiredInt(cfl, "height-out");
  model_.height_subsample_out = 1;
  cfl->GetValue("height-subsample-out", &model_.height_subsample_out);
  max_memory_mb_ = 200.0;
  cfl->GetValue("max-memory-mb", &max_memory_mb_);
  if (!(max_memory_mb_ > 0.0))
    NNET3_ERR << type << ": max-memory-mb=" << max_memory_mb_
              << " must be positive";

  // The kernel: an explicit list of (time, height) pairs, or the product of
  // a time list and a height list.
  std::string offsets_str, height_str, time_str;
  if (cfl->GetValue("offsets", &offsets_str)) {
    size_t start = 0;
    while (true) {
      size_t end = offsets_str.find(';', start);
      std::string pair = offsets_str.substr(
          start, end == std::string::npos ? std::string::npos : end - start);
      std::vector<int32> v;
      if (!ParseIntList(pair, ',', &v) || v.size() != 2)
        NNET3_ERR << type << ": bad offsets=" << offsets_str
                  << " (expected t1,h1;t2,h2;...)";
      model_.offsets.push_back(ConvolutionModel::Offset{v[0], v[1]});
      if (end == std::string::npos) break;
      start = end + 1;
    }
    std::sort(model_.offsets.begin(), model_.offsets.end());
    for (size_t i = 1; i < model_.offsets.size(); i++)
      if (model_.offsets[i] == model_.offsets[i - 1])
        NNET3_ERR << type << ": repeated pair "
                  << model_.offsets[i].time_offset << ","
                  << model_.offsets[i].height_offset
                  << " in offsets=" << offsets_str;
  } else {
    bool have_h = cfl->GetValue("height-offsets", &height_str),
         have_t = cfl->GetValue("time-offsets", &time_str);
    if (!have_h || !have_t)
      NNET3_ERR << type << ": either offsets, or both height-offsets and "
                << "time-offsets, must be given";
    std::vector<int32> hv, tv;
    if (!ParseIntList(height_str, ',', &hv) || !SortedAndUnique(hv))
      NNET3_ERR << type << ": height-offsets=" << height_str
                << " must be a sorted, unique, comma-separated list";
    if (!ParseIntList(time_str, ',', &tv) || !SortedAndUnique(tv))
      NNET3_ERR << type << ": time-offsets=" << time_str
                << " must be a sorted, unique, comma-separated list";
    for (int32 t : tv)
      for (int32 h : hv) model_.offsets.push_back(ConvolutionModel::Offset{t, h});
  }
  // (kNoTime, kNoTime), written -2147483648,-2147483648, is the image
  // average; a half-kNoTime pair is refused by the model check below.

  std::string required_str;
  std::vector<int32> required;
  if (cfl->GetValue("required-time-offsets", &required_str)) {
    if (!ParseIntList(required_str, ',', &required) ||
        !SortedAndUnique(required))
      NNET3_ERR << type << ": required-time-offsets=" << required_str
                << " must be a sorted, unique, comma-separated list";
  } else {
    for (const auto &o : model_.offsets)
      if (o.time_offset != kNoTime) required.push_back(o.time_offset);
    std::sort(required.begin(), required.end());
    required.erase(std::unique(required.begin(), required.end()),
                   required.end());
  }
  model_.required_time_offsets.clear();
  model_.required_time_offsets.insert(required.begin(), required.end());
  model_.ComputeDerived();
  std::string why;
  if (!model_.Check(false, true, &why))
    NNET3_ERR << type << ": inconsistent geometry: " << why;
  if (!model_.Check(true, true, &why))
    NNET3_WARN << type << ": " << why
               << "; consider a larger height-out or a smaller height-in";

  // Parameters.
  BaseFloat param_stddev = -1.0, bias_stddev = 0.0;
  bool init_unit = false;
  cfl->GetValue("param-stddev", &param_stddev);
  cfl->GetValue("bias-stddev", &bias_stddev);
  cfl->GetValue("init-unit", &init_unit);
  // Negative (the default) asks for the default scale; NaN is an error.
  if (std::isnan(param_stddev))
    NNET3_ERR << type << ": invalid param-stddev=" << param_stddev;
  if (param_stddev < 0.0)
    param_stddev = 1.0 / std::sqrt(static_cast<BaseFloat>(
                             model_.num_filters_in * model_.offsets.size()));
  if (!(bias_stddev >= 0.0))
    NNET3_ERR << type << ": bias-stddev=" << bias_stddev
              << " must not be negative";
  linear_params_.Resize(model_.ParamRows(), model_.ParamCols());
  if (init_unit) {
    InitUnit();
  } else {
    linear_params_.SetRandn();
    linear_params_.Scale(param_stddev);
  }
  bias_params_.Resize(model_.num_filters_out);
  bias_params_.SetRandn();
  bias_params_.Scale(bias_stddev);

  // Natural gradient.
  use_natural_gradient_ = true;
  int32 rank_in = -1, rank_out = -1;
  BaseFloat alpha_in = 4.0, alpha_out = 4.0, num_minibatches_history = 4.0;
  cfl->GetValue("use-natural-gradient", &use_natural_gradient_);
  cfl->GetValue("rank-in", &rank_in);
  cfl->GetValue("rank-out", &rank_out);
  cfl->GetValue("alpha-in", &alpha_in);
  cfl->GetValue("alpha-out", &alpha_out);
  cfl->GetValue("num-minibatches-history", &num_minibatches_history);
  int32 rows_in = linear_params_.NumCols() + 1,  // filters plus the bias
      rows_out = linear_params_.NumRows();
  if (rank_in < 0) rank_in = std::min<int32>(80, (rows_in + 1) / 2);
  if (rank_out < 0) rank_out = std::min<int32>(80, (rows_out + 1) / 2);
  if (rank_in == 0 || rank_out == 0)
    NNET3_ERR << type << ": rank-in=" << rank_in << " and rank-out="
              << rank_out << " must be positive";
  if (!(num_minibatches_history > 1.0))
    NNET3_ERR << type << ": num-minibatches-history="
              << num_minibatches_history << " must be greater than 1";
  if (!(alpha_in >= 0.0 && alpha_out >= 0.0))  // NaN fails too
    NNET3_ERR << type << ": alpha-in=" << alpha_in << " and alpha-out="
              << alpha_out << " must be numbers >= 0";
  preconditioner_in_ = OnlineNaturalGradient();
  preconditioner_out_ = OnlineNaturalGradient();
  preconditioner_in_.SetRank(rank_in);
  preconditioner_out_.SetRank(rank_out);
  preconditioner_in_.SetNumMinibatchesHistory(num_minibatches_history);
  preconditioner_out_.SetNumMinibatchesHistory(num_minibatches_history);
  preconditioner_in_.SetAlpha(alpha_in);
  preconditioner_out_.SetAlpha(alpha_out);
  ComputeDerived();
  CheckNoUnusedValues(*cfl, *this);
}

std::string TimeHeightConvolutionComponent::Info() const {
  std::ostringstream os;
  // Kaldi separates the model description with a space, not a comma.
  os << UpdatableComponent::Info() << ' ' << model_.Info();
  PrintParameterStats(os, "filter-params", linear_params_);
  PrintParameterStats(os, "bias-params", bias_params_, true);
  os << ", num-params=" << NumParameters()
     << ", max-memory-mb=" << max_memory_mb_
     << ", use-natural-gradient=" << use_natural_gradient_;
  if (use_natural_gradient_)
    os << ", num-minibatches-history="
       << preconditioner_in_.GetNumMinibatchesHistory()
       << ", rank-in=" << preconditioner_in_.GetRank()
       << ", rank-out=" << preconditioner_out_.GetRank()
       << ", alpha=" << preconditioner_in_.GetAlpha();
  return os.str();
}

// ---- Computation -----------------------------------------------------------

void TimeHeightConvolutionComponent::BiasDeriv(
    const CuMatrixBase<BaseFloat> &out_deriv, BaseFloat alpha,
    CuVectorBase<BaseFloat> *bias_deriv) const {
  NNET3_ASSERT(out_deriv.Stride() == out_deriv.NumCols() &&
               out_deriv.NumCols() == model_.OutputDim());
  int32 nf = model_.num_filters_out;
  CuSubMatrix<BaseFloat> by_filter(
      const_cast<BaseFloat *>(out_deriv.Data()),
      out_deriv.NumRows() * model_.height_out, nf, nf);
  bias_deriv->AddRowSumMat(alpha, by_filter, 1.0);
}

void *TimeHeightConvolutionComponent::Propagate(
    const ComponentPrecomputedIndexes *indexes,
    const CuMatrixBase<BaseFloat> &in, CuMatrixBase<BaseFloat> *out) const {
  const PrecomputedIndexes &pi = GetIndexes(indexes);
  NNET3_ASSERT(out->Stride() == out->NumCols() &&
               out->NumCols() == model_.OutputDim());
  // Every (frame, height) starts from the bias of its filters.
  int32 nf = model_.num_filters_out;
  CuSubMatrix<BaseFloat> by_filter(out->Data(),
                                   out->NumRows() * model_.height_out, nf, nf);
  by_filter.CopyRowsFromVec(bias_params_);
  time_height_convolution::ConvolveForward(pi.computation, in, linear_params_,
                                           out);
  return nullptr;
}

void TimeHeightConvolutionComponent::Backprop(
    const std::string &debug_info, const ComponentPrecomputedIndexes *indexes,
    const CuMatrixBase<BaseFloat> &in_value, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *, Component *to_update_in,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  (void)debug_info;
  const PrecomputedIndexes &pi = GetIndexes(indexes);
  if (in_deriv != nullptr)
    time_height_convolution::ConvolveBackwardData(pi.computation,
                                                  linear_params_, out_deriv,
                                                  in_deriv);
  if (to_update_in == nullptr) return;
  auto *to_update =
      dynamic_cast<TimeHeightConvolutionComponent *>(to_update_in);
  NNET3_ASSERT(to_update != nullptr);
  if (to_update->learning_rate_ == 0.0) return;
  if (to_update->is_gradient_ || !to_update->use_natural_gradient_)
    to_update->UpdateSimple(pi, in_value, out_deriv);
  else
    to_update->UpdateNaturalGradient(pi, in_value, out_deriv);
}

void TimeHeightConvolutionComponent::UpdateSimple(
    const PrecomputedIndexes &pi, const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_deriv) {
  BiasDeriv(out_deriv, learning_rate_, &bias_params_);
  time_height_convolution::ConvolveBackwardParams(
      pi.computation, in_value, out_deriv, learning_rate_, &linear_params_);
}

void TimeHeightConvolutionComponent::UpdateNaturalGradient(
    const PrecomputedIndexes &pi, const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_deriv) {
  // The gradient as one matrix [filters | bias], one row per output filter.
  int32 rows = linear_params_.NumRows(), cols = linear_params_.NumCols();
  CuMatrix<BaseFloat> grad(rows, cols + 1);
  {
    CuVector<BaseFloat> bias_grad(rows);
    BiasDeriv(out_deriv, 1.0, &bias_grad);
    grad.CopyColFromVec(bias_grad, cols);
  }
  CuSubMatrix<BaseFloat> filter_grad = grad.ColRange(0, cols);
  time_height_convolution::ConvolveBackwardParams(pi.computation, in_value,
                                                  out_deriv, 1.0,
                                                  &filter_grad);
  // Rows of 'grad' are samples for preconditioner_in_ (dimension cols + 1);
  // rows of its transpose for preconditioner_out_ (dimension rows).
  BaseFloat scale_in = 1.0, scale_out = 1.0;
  preconditioner_in_.PreconditionDirections(&grad, &scale_in);
  CuMatrix<BaseFloat> grad_t(grad, kTrans);
  preconditioner_out_.PreconditionDirections(&grad_t, &scale_out);
  BaseFloat lr = learning_rate_ * scale_in * scale_out;
  linear_params_.AddMat(lr, grad_t.RowRange(0, cols), kTrans);
  bias_params_.AddVec(lr, grad_t.Row(cols));
}

void TimeHeightConvolutionComponent::GetInputIndexes(
    const MiscComputationInfo &, const Index &output_index,
    std::vector<Index> *desired_indexes) const {
  NNET3_ASSERT(output_index.t != kNoTime);
  desired_indexes->clear();
  for (int32 offset : all_time_offsets_)
    desired_indexes->push_back(
        Index(output_index.n, output_index.t + offset, output_index.x));
}

bool TimeHeightConvolutionComponent::IsComputable(
    const MiscComputationInfo &, const Index &output_index,
    const IndexSet &input_index_set, std::vector<Index> *used_inputs) const {
  NNET3_ASSERT(output_index.t != kNoTime);
  if (used_inputs != nullptr) used_inputs->clear();
  Index probe(output_index);
  for (size_t i = 0; i < all_time_offsets_.size(); i++) {
    probe.t = output_index.t + all_time_offsets_[i];
    bool present = input_index_set(probe);
    if (!present && time_offset_required_[i]) {
      if (used_inputs != nullptr) used_inputs->clear();
      return false;
    }
    if (present && used_inputs != nullptr) used_inputs->push_back(probe);
  }
  return true;
}

void TimeHeightConvolutionComponent::Compile(
    const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes,
    ConvolutionComputation *computation, std::vector<Index> *input_modified,
    std::vector<Index> *output_modified) const {
  ConvolutionComputationOptions opts;
  opts.max_memory_mb = max_memory_mb_;
  time_height_convolution::CompileConvolutionComputation(
      model_, input_indexes, output_indexes, opts, computation,
      input_modified, output_modified);
}

void TimeHeightConvolutionComponent::ReorderIndexes(
    std::vector<Index> *input_indexes,
    std::vector<Index> *output_indexes) const {
  ConvolutionComputation unused;
  std::vector<Index> in_mod, out_mod;
  Compile(*input_indexes, *output_indexes, &unused, &in_mod, &out_mod);
  input_indexes->swap(in_mod);
  output_indexes->swap(out_mod);
}

ComponentPrecomputedIndexes *TimeHeightConvolutionComponent::PrecomputeIndexes(
    const MiscComputationInfo &, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool) const {
  std::unique_ptr<PrecomputedIndexes> ans(new PrecomputedIndexes());
  std::vector<Index> in_mod, out_mod;
  Compile(input_indexes, output_indexes, &ans->computation, &in_mod, &out_mod);
  if (in_mod != input_indexes || out_mod != output_indexes)
    NNET3_ERR << Type() << ": PrecomputeIndexes was given Indexes that "
              << "ReorderIndexes had not arranged";
  return ans.release();
}

// ---- I/O -------------------------------------------------------------------

void TimeHeightConvolutionComponent::Write(std::ostream &os,
                                           bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<Model>");
  model_.Write(os, binary);
  WriteToken(os, binary, "<LinearParams>");
  linear_params_.Write(os, binary);
  WriteToken(os, binary, "<BiasParams>");
  bias_params_.Write(os, binary);
  WriteToken(os, binary, "<MaxMemoryMb>");
  WriteBasicType(os, binary, max_memory_mb_);
  WriteToken(os, binary, "<UseNaturalGradient>");
  WriteBasicType(os, binary, use_natural_gradient_);
  WriteToken(os, binary, "<NumMinibatchesHistory>");
  WriteBasicType(os, binary, preconditioner_in_.GetNumMinibatchesHistory());
  WriteToken(os, binary, "<AlphaInOut>");
  WriteBasicType(os, binary, preconditioner_in_.GetAlpha());
  WriteBasicType(os, binary, preconditioner_out_.GetAlpha());
  WriteToken(os, binary, "<RankInOut>");
  WriteBasicType(os, binary, preconditioner_in_.GetRank());
  WriteBasicType(os, binary, preconditioner_out_.GetRank());
  WriteToken(os, binary, ClosingTag(*this));
}

void TimeHeightConvolutionComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  if (token.empty())
    ExpectToken(is, binary, "<Model>");
  else if (token != "<Model>")
    NNET3_ERR << Type() << ": expected <Model>, got " << token;
  model_.Read(is, binary);
  ExpectToken(is, binary, "<LinearParams>");
  linear_params_.Read(is, binary);
  ExpectToken(is, binary, "<BiasParams>");
  bias_params_.Read(is, binary);
  if (linear_params_.NumRows() != model_.ParamRows() ||
      linear_params_.NumCols() != model_.ParamCols() ||
      bias_params_.Dim() != model_.num_filters_out)
    NNET3_ERR << Type() << ": parameter sizes " << linear_params_.NumRows()
              << "x" << linear_params_.NumCols() << " and "
              << bias_params_.Dim() << " do not match the model ("
              << model_.ParamRows() << "x" << model_.ParamCols() << ", "
              << model_.num_filters_out << ")";
  ExpectToken(is, binary, "<MaxMemoryMb>");
  ReadBasicType(is, binary, &max_memory_mb_);
  ExpectToken(is, binary, "<UseNaturalGradient>");
  ReadBasicType(is, binary, &use_natural_gradient_);
  BaseFloat history, alpha_in, alpha_out;
  int32 rank_in, rank_out;
  ExpectToken(is, binary, "<NumMinibatchesHistory>");
  ReadBasicType(is, binary, &history);
  ExpectToken(is, binary, "<AlphaInOut>");
  ReadBasicType(is, binary, &alpha_in);
  ReadBasicType(is, binary, &alpha_out);
  ExpectToken(is, binary, "<RankInOut>");
  ReadBasicType(is, binary, &rank_in);
  ReadBasicType(is, binary, &rank_out);
  if (!(history > 1.0) || !(alpha_in >= 0.0) || !(alpha_out >= 0.0) ||
      rank_in <= 0 || rank_out <= 0 || !(max_memory_mb_ > 0.0))
    NNET3_ERR << Type() << ": bad natural-gradient or memory options "
              << "(num-minibatches-history " << history << ", alpha "
              << alpha_in << "/" << alpha_out << ", rank " << rank_in << "/"
              << rank_out << ", max-memory-mb " << max_memory_mb_ << ")";
  preconditioner_in_ = OnlineNaturalGradient();
  preconditioner_out_ = OnlineNaturalGradient();
  preconditioner_in_.SetAlpha(alpha_in);
  preconditioner_out_.SetAlpha(alpha_out);
  preconditioner_in_.SetRank(rank_in);
  preconditioner_out_.SetRank(rank_out);
  preconditioner_in_.SetNumMinibatchesHistory(history);
  preconditioner_out_.SetNumMinibatchesHistory(history);
  ExpectToken(is, binary, ClosingTag(*this));
  ComputeDerived();
}

void TimeHeightConvolutionComponent::PrecomputedIndexes::Write(
    std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<TimeHeightConvolutionComponentPrecomputedIndexes>");
  WriteToken(os, binary, "<Computation>");
  computation.Write(os, binary);
  WriteToken(os, binary,
             "</TimeHeightConvolutionComponentPrecomputedIndexes>");
}

void TimeHeightConvolutionComponent::PrecomputedIndexes::Read(
    std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary,
                       "<TimeHeightConvolutionComponentPrecomputedIndexes>",
                       "<Computation>");
  computation.Read(is, binary);
  ExpectToken(is, binary,
              "</TimeHeightConvolutionComponentPrecomputedIndexes>");
}

// ---- Parameters ------------------------------------------------------------

void TimeHeightConvolutionComponent::Scale(BaseFloat scale) {
  if (scale == 0.0) {
    // Avoids NaN * 0.
    linear_params_.SetZero();
    bias_params_.SetZero();
  } else {
    linear_params_.Scale(scale);
    bias_params_.Scale(scale);
  }
}

void TimeHeightConvolutionComponent::Add(BaseFloat alpha,
                                         const Component &other_in) {
  auto *other = dynamic_cast<const TimeHeightConvolutionComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  linear_params_.AddMat(alpha, other->linear_params_);
  bias_params_.AddVec(alpha, other->bias_params_);
}

void TimeHeightConvolutionComponent::PerturbParams(BaseFloat stddev) {
  CuMatrix<BaseFloat> noise(linear_params_.NumRows(), linear_params_.NumCols(),
                            kUndefined);
  noise.SetRandn();
  linear_params_.AddMat(stddev, noise);
  CuVector<BaseFloat> bias_noise(bias_params_.Dim(), kUndefined);
  bias_noise.SetRandn();
  bias_params_.AddVec(stddev, bias_noise);
}

BaseFloat TimeHeightConvolutionComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  auto *other = dynamic_cast<const TimeHeightConvolutionComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  return TraceMatMat(linear_params_, other->linear_params_, kTrans) +
         VecVec(bias_params_, other->bias_params_);
}

void TimeHeightConvolutionComponent::Vectorize(
    VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  int32 n = linear_params_.NumRows() * linear_params_.NumCols();
  SubVector<BaseFloat> linear_part(*params, 0, n);
  cu::CopyRowsToVec(linear_params_, &linear_part);
  SubVector<BaseFloat> bias_part(*params, n, bias_params_.Dim());
  bias_params_.CopyToVec(&bias_part);
}

void TimeHeightConvolutionComponent::UnVectorize(
    const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  int32 n = linear_params_.NumRows() * linear_params_.NumCols();
  linear_params_.CopyRowsFromVec(params.Range(0, n));
  bias_params_.CopyFromVec(params.Range(n, bias_params_.Dim()));
}

void RegisterConvolutionComponents(ComponentRegistry *r) {
  r->Add("TimeHeightConvolutionComponent",
         [] { return new TimeHeightConvolutionComponent(); });
  r->AddPrecomputedIndexes(
      "TimeHeightConvolutionComponentPrecomputedIndexes",
      [] { return new TimeHeightConvolutionComponent::PrecomputedIndexes(); });
}

}  // namespace nnet3
