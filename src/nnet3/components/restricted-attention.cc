// nnet3/components/restricted-attention.cc
// RestrictedAttentionComponent: configuration, I/O, index handling and the
// per-head calls into the attention arithmetic (attention.h).
#include "nnet3/components/restricted-attention.h"

#include <cmath>
#include <sstream>

#include "base/io.h"
#include "cudamatrix/cu-math-attention.h"
#include "nnet3/components/attention.h"

namespace nnet3 {

using time_height_convolution::ConvolutionComputationIo;

// ---- PrecomputedIndexes -------------------------------------------------------

void RestrictedAttentionComponent::PrecomputedIndexes::Write(
    std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<" + Type() + ">");
  WriteToken(os, binary, "<Io>");
  io.Write(os, binary);
  WriteToken(os, binary, "</" + Type() + ">");
}

void RestrictedAttentionComponent::PrecomputedIndexes::Read(std::istream &is,
                                                            bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<" + Type() + ">", "<Io>");
  io.Read(is, binary);
  ExpectToken(is, binary, "</" + Type() + ">");
}

// ---- Configuration --------------------------------------------------------------

void RestrictedAttentionComponent::InitFromConfig(ConfigLine *cfl) {
  num_heads_ = 1;
  key_dim_ = -1;
  value_dim_ = -1;
  num_left_inputs_ = -1;
  num_right_inputs_ = -1;
  time_stride_ = 1;
  num_left_inputs_required_ = -1;
  num_right_inputs_required_ = -1;
  output_context_ = true;
  key_scale_ = -1.0;
  const char *required[] = {"key-dim", "value-dim", "num-left-inputs",
                            "num-right-inputs"};
  int32 *targets[] = {&key_dim_, &value_dim_, &num_left_inputs_,
                      &num_right_inputs_};
  for (int32 k = 0; k < 4; k++)
    if (!cfl->GetValue(required[k], targets[k]))
      NNET3_ERR << Type() << ": " << required[k] << "=... is required";
  cfl->GetValue("num-heads", &num_heads_);
  cfl->GetValue("time-stride", &time_stride_);
  cfl->GetValue("num-left-inputs-required", &num_left_inputs_required_);
  cfl->GetValue("num-right-inputs-required", &num_right_inputs_required_);
  cfl->GetValue("output-context", &output_context_);
  cfl->GetValue("key-scale", &key_scale_);
  CheckNoUnusedValues(*cfl, *this);

  // Unset (negative) values take their defaults.
  if (key_scale_ < 0.0 && key_dim_ > 0)
    key_scale_ = 1.0 / std::sqrt(static_cast<BaseFloat>(key_dim_));
  if (num_left_inputs_required_ < 0)
    num_left_inputs_required_ = num_left_inputs_;
  if (num_right_inputs_required_ < 0)
    num_right_inputs_required_ = num_right_inputs_;

  auto bad = [this](const char *option, double value, const char *why) {
    NNET3_ERR << Type() << ": " << option << "=" << value << " " << why;
  };
  if (num_heads_ <= 0) bad("num-heads", num_heads_, "must be > 0");
  if (key_dim_ <= 0) bad("key-dim", key_dim_, "must be > 0");
  if (value_dim_ <= 0) bad("value-dim", value_dim_, "must be > 0");
  if (num_left_inputs_ < 0)
    bad("num-left-inputs", num_left_inputs_, "must be >= 0");
  if (num_right_inputs_ < 0)
    bad("num-right-inputs", num_right_inputs_, "must be >= 0");
  if (num_left_inputs_ + num_right_inputs_ == 0)
    bad("num-right-inputs", num_right_inputs_,
        "with num-left-inputs=0 leaves no context (one must be > 0)");
  if (time_stride_ <= 0) bad("time-stride", time_stride_, "must be > 0");
  if (num_left_inputs_required_ > num_left_inputs_)
    bad("num-left-inputs-required", num_left_inputs_required_,
        "exceeds num-left-inputs");
  if (num_right_inputs_required_ > num_right_inputs_)
    bad("num-right-inputs-required", num_right_inputs_required_,
        "exceeds num-right-inputs");
  if (!(key_scale_ > 0.0 && key_scale_ <= 1.0))
    bad("key-scale", key_scale_, "must be in (0, 1]");
  context_dim_ = num_left_inputs_ + 1 + num_right_inputs_;
  stats_count_ = 0.0;
  entropy_stats_.Resize(0);
  posterior_stats_.Resize(0, 0);
  Check();
}

void RestrictedAttentionComponent::Check() const {
  NNET3_ASSERT(num_heads_ > 0 && key_dim_ > 0 && value_dim_ > 0 &&
               num_left_inputs_ >= 0 && num_right_inputs_ >= 0 &&
               num_left_inputs_ + num_right_inputs_ > 0 && time_stride_ > 0 &&
               context_dim_ == num_left_inputs_ + 1 + num_right_inputs_ &&
               num_left_inputs_required_ >= 0 &&
               num_left_inputs_required_ <= num_left_inputs_ &&
               num_right_inputs_required_ >= 0 &&
               num_right_inputs_required_ <= num_right_inputs_ &&
               key_scale_ > 0.0 && key_scale_ <= 1.0 && stats_count_ >= 0.0);
}

// ---- Indexes --------------------------------------------------------------------

void RestrictedAttentionComponent::GetInputIndexes(
    const MiscComputationInfo &misc_info, const Index &output_index,
    std::vector<Index> *desired_indexes) const {
  (void)misc_info;
  NNET3_ASSERT(output_index.t != kNoTime);
  desired_indexes->clear();
  desired_indexes->reserve(context_dim_);
  for (int32 k = -num_left_inputs_; k <= num_right_inputs_; k++)
    desired_indexes->push_back(Index(output_index.n,
                                     output_index.t + k * time_stride_,
                                     output_index.x));
}

bool RestrictedAttentionComponent::IsComputable(
    const MiscComputationInfo &misc_info, const Index &output_index,
    const IndexSet &input_index_set, std::vector<Index> *used_inputs) const {
  (void)misc_info;
  NNET3_ASSERT(output_index.t != kNoTime);
  if (used_inputs) used_inputs->clear();
  Index probe(output_index);
  // The required offsets must all be present; the others are used when
  // present and zero-padded otherwise.
  for (int32 k = -num_left_inputs_; k <= num_right_inputs_; k++) {
    bool is_required =
        k >= -num_left_inputs_required_ && k <= num_right_inputs_required_;
    if (!is_required && !used_inputs) continue;
    probe.t = output_index.t + k * time_stride_;
    if (input_index_set(probe)) {
      if (used_inputs) used_inputs->push_back(probe);
    } else if (is_required) {
      if (used_inputs) used_inputs->clear();
      return false;
    }
  }
  return true;
}

void RestrictedAttentionComponent::GetComputationStructure(
    const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, ConvolutionComputationIo *io) const {
  using time_height_convolution::Gcd;
  time_height_convolution::GetComputationIo(input_indexes, output_indexes, io);
  // A side with a single t value has no step of its own.
  if (io->t_step_out == 0) io->t_step_out = time_stride_;
  if (io->t_step_in == 0) io->t_step_in = time_stride_;
  // One grid step for both sides that also divides time_stride_; refining a
  // side keeps its first and last t.
  const int32 step = Gcd(Gcd(io->t_step_out, io->t_step_in), time_stride_);
  io->num_t_out = 1 + (io->num_t_out - 1) * (io->t_step_out / step);
  io->num_t_in = 1 + (io->num_t_in - 1) * (io->t_step_in / step);
  io->t_step_out = step;
  io->t_step_in = step;

  // The input must lie within the requested context of the outputs and
  // cover the required context; it is then widened to the full requested
  // context, the extra frames being zero-padding.
  const int32 last_t_out = io->start_t_out + (io->num_t_out - 1) * step,
              last_t_in = io->start_t_in + (io->num_t_in - 1) * step,
              want_first = io->start_t_out - time_stride_ * num_left_inputs_,
              want_last = last_t_out + time_stride_ * num_right_inputs_,
              need_first =
                  io->start_t_out - time_stride_ * num_left_inputs_required_,
              need_last = last_t_out + time_stride_ * num_right_inputs_required_;
  NNET3_ASSERT(io->start_t_in >= want_first && last_t_in <= want_last &&
               io->start_t_in <= need_first && last_t_in >= need_last);
  io->start_t_in = want_first;
  io->num_t_in = 1 + (want_last - want_first) / step;
}

void RestrictedAttentionComponent::ReorderIndexes(
    std::vector<Index> *input_indexes,
    std::vector<Index> *output_indexes) const {
  ConvolutionComputationIo io;
  GetComputationStructure(*input_indexes, *output_indexes, &io);
  std::vector<Index> new_input, new_output;
  time_height_convolution::GetIndexesForComputation(
      io, *input_indexes, *output_indexes, &new_input, &new_output);
  input_indexes->swap(new_input);
  output_indexes->swap(new_output);
}

ComponentPrecomputedIndexes *RestrictedAttentionComponent::PrecomputeIndexes(
    const MiscComputationInfo &misc_info,
    const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool need_backprop) const {
  (void)misc_info;
  (void)need_backprop;
  PrecomputedIndexes *ans = new PrecomputedIndexes();
  GetComputationStructure(input_indexes, output_indexes, &ans->io);
  return ans;
}

int32 RestrictedAttentionComponent::LeadingInputRows(
    const ConvolutionComputationIo &io) {
  NNET3_ASSERT(io.t_step_in == io.t_step_out && io.t_step_in > 0 &&
               (io.start_t_out - io.start_t_in) % io.t_step_in == 0);
  int32 steps = (io.start_t_out - io.start_t_in) / io.t_step_in;
  NNET3_ASSERT(steps >= 0);
  return steps * io.num_images;
}

// ---- Propagate / Backprop -------------------------------------------------------

void *RestrictedAttentionComponent::Propagate(
    const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &in, CuMatrixBase<BaseFloat> *out) const {
  const PrecomputedIndexes *indexes =
      dynamic_cast<const PrecomputedIndexes *>(indexes_in);
  NNET3_ASSERT(indexes != nullptr);
  const ConvolutionComputationIo &io = indexes->io;
  const int32 num_in = in.NumRows(), num_out = out->NumRows();
  NNET3_ASSERT(num_in == io.num_images * io.num_t_in &&
               num_out == io.num_images * io.num_t_out &&
               in.NumCols() == InputDim() && out->NumCols() == OutputDim());
  const int32 lead = LeadingInputRows(io);
  const int32 in_block = 2 * key_dim_ + value_dim_ + context_dim_,
              out_block = value_dim_ + (output_context_ ? context_dim_ : 0);
  Memo *memo = new Memo();
  memo->weights.Resize(num_out, num_heads_ * context_dim_);
  for (int32 h = 0; h < num_heads_; h++) {
    const int32 c0 = h * in_block;
    CuSubMatrix<BaseFloat> keys(in, 0, num_in, c0, key_dim_),
        values(in, 0, num_in, c0 + key_dim_, value_dim_),
        queries(in, lead, num_out, c0 + key_dim_ + value_dim_,
                key_dim_ + context_dim_),
        weights(memo->weights, 0, num_out, h * context_dim_, context_dim_),
        out_part(*out, 0, num_out, h * out_block, out_block);
    attention::AttentionForward(key_scale_, keys, queries, values, &weights,
                                &out_part);
  }
  return memo;
}

void RestrictedAttentionComponent::Backprop(
    const std::string &debug_info,
    const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_value,
    const CuMatrixBase<BaseFloat> &out_deriv, void *memo_in,
    Component *to_update, CuMatrixBase<BaseFloat> *in_deriv) const {
  (void)debug_info;
  (void)out_value;
  (void)to_update;  // no parameters
  if (in_deriv == nullptr) return;
  const PrecomputedIndexes *indexes =
      dynamic_cast<const PrecomputedIndexes *>(indexes_in);
  const Memo *memo = static_cast<const Memo *>(memo_in);
  NNET3_ASSERT(indexes != nullptr && memo != nullptr);
  const ConvolutionComputationIo &io = indexes->io;
  const int32 num_in = in_value.NumRows(), num_out = out_deriv.NumRows();
  NNET3_ASSERT(num_in == io.num_images * io.num_t_in &&
               num_out == io.num_images * io.num_t_out &&
               SameDim(in_value, *in_deriv) &&
               memo->weights.NumRows() == num_out &&
               out_deriv.NumCols() == OutputDim());
  const int32 lead = LeadingInputRows(io);
  const int32 in_block = 2 * key_dim_ + value_dim_ + context_dim_,
              out_block = value_dim_ + (output_context_ ? context_dim_ : 0),
              query_col = key_dim_ + value_dim_,
              query_dim = key_dim_ + context_dim_;
  for (int32 h = 0; h < num_heads_; h++) {
    const int32 c0 = h * in_block;
    CuSubMatrix<BaseFloat> keys(in_value, 0, num_in, c0, key_dim_),
        values(in_value, 0, num_in, c0 + key_dim_, value_dim_),
        queries(in_value, lead, num_out, c0 + query_col, query_dim),
        d_keys(*in_deriv, 0, num_in, c0, key_dim_),
        d_values(*in_deriv, 0, num_in, c0 + key_dim_, value_dim_),
        d_queries(*in_deriv, lead, num_out, c0 + query_col, query_dim),
        weights(memo->weights, 0, num_out, h * context_dim_, context_dim_),
        d_out(out_deriv, 0, num_out, h * out_block, out_block);
    attention::AttentionBackward(key_scale_, keys, queries, values, weights,
                                 d_out, &d_keys, &d_queries, &d_values);
  }
}

void RestrictedAttentionComponent::DeleteMemo(void *memo) const {
  delete static_cast<Memo *>(memo);
}

// ---- Statistics -----------------------------------------------------------------

void RestrictedAttentionComponent::StoreStats(
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_value, void *memo_in) {
  (void)in_value;
  (void)out_value;
  const Memo *memo = static_cast<const Memo *>(memo_in);
  NNET3_ASSERT(memo != nullptr &&
               memo->weights.NumCols() == num_heads_ * context_dim_);
  if (entropy_stats_.Dim() != num_heads_ ||
      posterior_stats_.NumRows() != num_heads_ ||
      posterior_stats_.NumCols() != context_dim_) {
    entropy_stats_.Resize(num_heads_);
    posterior_stats_.Resize(num_heads_, context_dim_);
    stats_count_ = 0.0;
  }
  // Like Kaldi, only about two minibatches in three contribute (to save
  // time); the statistics are normalized by their own count.
  if (RandInt(0, 2) == 0) return;
  // Per (head, position) the weight sum and the -w log w sum, formed in
  // single precision and then added to the double statistics.
  const int32 rows = memo->weights.NumRows();
  cu::AccumulateAttentionStats(memo->weights, num_heads_, &posterior_stats_,
                               &entropy_stats_);
  stats_count_ += rows;
}

void RestrictedAttentionComponent::ZeroStats() {
  entropy_stats_.SetZero();
  posterior_stats_.SetZero();
  stats_count_ = 0.0;
}

void RestrictedAttentionComponent::Scale(BaseFloat scale) {
  entropy_stats_.Scale(scale);
  posterior_stats_.Scale(scale);
  stats_count_ *= scale;
}

void RestrictedAttentionComponent::Add(BaseFloat alpha,
                                       const Component &other_in) {
  const RestrictedAttentionComponent *other =
      dynamic_cast<const RestrictedAttentionComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  if (other->entropy_stats_.Dim() != 0) {
    if (entropy_stats_.Dim() == 0)
      entropy_stats_.Resize(other->entropy_stats_.Dim());
    entropy_stats_.AddVec(alpha, other->entropy_stats_);
  }
  if (other->posterior_stats_.NumRows() != 0) {
    if (posterior_stats_.NumRows() == 0)
      posterior_stats_.Resize(other->posterior_stats_.NumRows(),
                              other->posterior_stats_.NumCols());
    posterior_stats_.AddMat(alpha, other->posterior_stats_);
  }
  stats_count_ += alpha * other->stats_count_;
}

// ---- Copy, I/O, Info ------------------------------------------------------------

Component *RestrictedAttentionComponent::Copy() const {
  RestrictedAttentionComponent *ans = new RestrictedAttentionComponent();
  ans->num_heads_ = num_heads_;
  ans->key_dim_ = key_dim_;
  ans->value_dim_ = value_dim_;
  ans->num_left_inputs_ = num_left_inputs_;
  ans->num_right_inputs_ = num_right_inputs_;
  ans->time_stride_ = time_stride_;
  ans->context_dim_ = context_dim_;
  ans->num_left_inputs_required_ = num_left_inputs_required_;
  ans->num_right_inputs_required_ = num_right_inputs_required_;
  ans->output_context_ = output_context_;
  ans->key_scale_ = key_scale_;
  ans->stats_count_ = stats_count_;
  ans->entropy_stats_ = entropy_stats_;
  ans->posterior_stats_ = posterior_stats_;
  return ans;
}

namespace {
template <typename T>
void WriteField(std::ostream &os, bool binary, const char *token, T value) {
  WriteToken(os, binary, token);
  WriteBasicType(os, binary, value);
}
template <typename T>
void ReadField(std::istream &is, bool binary, const char *token, T *value) {
  ExpectToken(is, binary, token);
  ReadBasicType(is, binary, value);
}
}  // namespace

void RestrictedAttentionComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteField(os, binary, "<NumHeads>", num_heads_);
  WriteField(os, binary, "<KeyDim>", key_dim_);
  WriteField(os, binary, "<ValueDim>", value_dim_);
  WriteField(os, binary, "<NumLeftInputs>", num_left_inputs_);
  WriteField(os, binary, "<NumRightInputs>", num_right_inputs_);
  WriteField(os, binary, "<TimeStride>", time_stride_);
  WriteField(os, binary, "<NumLeftInputsRequired>", num_left_inputs_required_);
  WriteField(os, binary, "<NumRightInputsRequired>",
             num_right_inputs_required_);
  WriteField(os, binary, "<OutputContext>", output_context_);
  WriteField(os, binary, "<KeyScale>", key_scale_);
  WriteField(os, binary, "<StatsCount>", stats_count_);
  WriteToken(os, binary, "<EntropyStats>");
  entropy_stats_.Write(os, binary);
  WriteToken(os, binary, "<PosteriorStats>");
  posterior_stats_.Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

void RestrictedAttentionComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<NumHeads>");
  ReadBasicType(is, binary, &num_heads_);
  ReadField(is, binary, "<KeyDim>", &key_dim_);
  ReadField(is, binary, "<ValueDim>", &value_dim_);
  ReadField(is, binary, "<NumLeftInputs>", &num_left_inputs_);
  ReadField(is, binary, "<NumRightInputs>", &num_right_inputs_);
  ReadField(is, binary, "<TimeStride>", &time_stride_);
  ReadField(is, binary, "<NumLeftInputsRequired>", &num_left_inputs_required_);
  ReadField(is, binary, "<NumRightInputsRequired>",
            &num_right_inputs_required_);
  ReadField(is, binary, "<OutputContext>", &output_context_);
  ReadField(is, binary, "<KeyScale>", &key_scale_);
  ReadField(is, binary, "<StatsCount>", &stats_count_);
  ExpectToken(is, binary, "<EntropyStats>");
  entropy_stats_.Read(is, binary);
  ExpectToken(is, binary, "<PosteriorStats>");
  posterior_stats_.Read(is, binary);
  ExpectToken(is, binary, ClosingTag(*this));
  context_dim_ = num_left_inputs_ + 1 + num_right_inputs_;
  // A file is input: inconsistent values are the file's fault.
  if (num_heads_ <= 0 || key_dim_ <= 0 || value_dim_ <= 0 ||
      num_left_inputs_ < 0 || num_right_inputs_ < 0 ||
      num_left_inputs_ + num_right_inputs_ == 0 || time_stride_ <= 0 ||
      num_left_inputs_required_ < 0 ||
      num_left_inputs_required_ > num_left_inputs_ ||
      num_right_inputs_required_ < 0 ||
      num_right_inputs_required_ > num_right_inputs_ ||
      !(key_scale_ > 0.0 && key_scale_ <= 1.0))
    NNET3_ERR << Type() << ": inconsistent values in the model file (num-heads="
              << num_heads_ << ", key-dim=" << key_dim_
              << ", num-left-inputs=" << num_left_inputs_
              << ", num-right-inputs=" << num_right_inputs_
              << ", key-scale=" << key_scale_ << ")";
  if ((entropy_stats_.Dim() != 0 && entropy_stats_.Dim() != num_heads_) ||
      (posterior_stats_.NumRows() != 0 &&
       (posterior_stats_.NumRows() != num_heads_ ||
        posterior_stats_.NumCols() != context_dim_)))
    NNET3_ERR << Type() << ": statistics dimensions do not match num-heads="
              << num_heads_ << " and context-dim=" << context_dim_;
}

std::string RestrictedAttentionComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", input-dim=" << InputDim()
     << ", output-dim=" << OutputDim() << ", num-heads=" << num_heads_
     << ", time-stride=" << time_stride_ << ", key-dim=" << key_dim_
     << ", value-dim=" << value_dim_
     << ", num-left-inputs=" << num_left_inputs_
     << ", num-right-inputs=" << num_right_inputs_
     << ", context-dim=" << context_dim_
     << ", num-left-inputs-required=" << num_left_inputs_required_
     << ", num-right-inputs-required=" << num_right_inputs_required_
     << ", output-context=" << (output_context_ ? "true" : "false")
     << ", key-scale=" << key_scale_;
  if (stats_count_ != 0.0) {
    // Averages per frame: entropy per head, then the mean weight of each
    // position for (at most) the first five heads.
    os << ", entropy=";
    for (int32 h = 0; h < entropy_stats_.Dim(); h++)
      os << entropy_stats_.GetElement(h) / stats_count_ << ',';
    for (int32 h = 0; h < num_heads_ && h < 5; h++) {
      os << " posterior-stats[" << h << "]=";
      for (int32 p = 0; p < posterior_stats_.NumCols(); p++)
        os << posterior_stats_.GetElement(h, p) / stats_count_ << ',';
    }
    os << " stats-count=" << stats_count_;
  }
  return os.str();
}

void RegisterAttentionComponents(ComponentRegistry *r) {
  r->Add("RestrictedAttentionComponent",
         [] { return new RestrictedAttentionComponent(); });
  r->AddPrecomputedIndexes(
      "RestrictedAttentionComponentPrecomputedIndexes",
      [] { return new RestrictedAttentionComponent::PrecomputedIndexes(); });
}

}  // namespace nnet3
