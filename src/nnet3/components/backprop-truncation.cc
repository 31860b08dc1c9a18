// nnet3/components/backprop-truncation.cc
#include "nnet3/components/backprop-truncation.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "cudamatrix/cu-math-update.h"

namespace nnet3 {

namespace {

// floor(a / b) for b > 0, also for negative a.
inline int32 FloorDiv(int32 a, int32 b) {
  int32 q = a / b;
  if (a % b != 0 && a < 0) q--;
  return q;
}

}  // namespace

// ---- BackpropTruncationComponentPrecomputedIndexes --------------------------

void BackpropTruncationComponentPrecomputedIndexes::Write(std::ostream &os,
                                                          bool binary) const {
  WriteToken(os, binary, "<" + Type() + ">");
  WriteToken(os, binary, "<Zeroing>");
  zeroing.Write(os, binary);
  WriteToken(os, binary, "<ZeroingSum>");
  WriteBasicType(os, binary, zeroing_sum);
  WriteToken(os, binary, "</" + Type() + ">");
}

void BackpropTruncationComponentPrecomputedIndexes::Read(std::istream &is,
                                                         bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<" + Type() + ">", "<Zeroing>");
  zeroing.Read(is, binary);
  ExpectToken(is, binary, "<ZeroingSum>");
  ReadBasicType(is, binary, &zeroing_sum);
  ExpectToken(is, binary, "</" + Type() + ">");
}

// ---- BackpropTruncationComponent ---------------------------------------------

void BackpropTruncationComponent::Init(int32 dim, BaseFloat scale,
                                       BaseFloat clipping_threshold,
                                       BaseFloat zeroing_threshold,
                                       int32 zeroing_interval,
                                       int32 recurrence_interval) {
  dim_ = dim;
  scale_ = scale;
  clipping_threshold_ = clipping_threshold;
  zeroing_threshold_ = zeroing_threshold;
  zeroing_interval_ = zeroing_interval;
  recurrence_interval_ = recurrence_interval;
  ZeroStats();
}

void BackpropTruncationComponent::InitFromConfig(ConfigLine *cfl) {
  int32 dim = 0, zeroing_interval = 20, recurrence_interval = 1;
  BaseFloat scale = 1.0, clipping_threshold = 30.0, zeroing_threshold = 15.0;
  if (!cfl->GetValue("dim", &dim))
    NNET3_ERR << Type() << ": dim is required: " << cfl->WholeLine();
  cfl->GetValue("scale", &scale);
  cfl->GetValue("clipping-threshold", &clipping_threshold);
  cfl->GetValue("zeroing-threshold", &zeroing_threshold);
  cfl->GetValue("zeroing-interval", &zeroing_interval);
  cfl->GetValue("recurrence-interval", &recurrence_interval);
  CheckNoUnusedValues(*cfl, *this);
  if (dim <= 0) NNET3_ERR << Type() << ": invalid dim=" << dim;
  if (!(scale > 0.0)) NNET3_ERR << Type() << ": invalid scale=" << scale;
  if (!(clipping_threshold >= 0.0))
    NNET3_ERR << Type() << ": invalid clipping-threshold="
              << clipping_threshold;
  if (!(zeroing_threshold >= 0.0))
    NNET3_ERR << Type() << ": invalid zeroing-threshold=" << zeroing_threshold;
  if (zeroing_interval < 1)
    NNET3_ERR << Type() << ": invalid zeroing-interval=" << zeroing_interval;
  if (recurrence_interval < 1)
    NNET3_ERR << Type() << ": invalid recurrence-interval="
              << recurrence_interval;
  Init(dim, scale, clipping_threshold, zeroing_threshold, zeroing_interval,
       recurrence_interval);
}

std::string BackpropTruncationComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", dim=" << dim_ << ", scale=" << scale_
     << ", count=" << std::setprecision(3) << count_ << std::setprecision(6)
     << ", recurrence-interval=" << recurrence_interval_
     << ", clipping-threshold=" << clipping_threshold_
     << ", clipped-proportion="
     << (count_ > 0.0 ? num_clipped_ / count_ : 0)
     << ", zeroing-threshold=" << zeroing_threshold_
     << ", zeroing-interval=" << zeroing_interval_
     << ", zeroed-proportion="
     << (count_zeroing_boundaries_ > 0.0
             ? num_zeroed_ / count_zeroing_boundaries_
             : 0)
     << ", count-zeroing-boundaries="
     << static_cast<int32>(count_zeroing_boundaries_);
  return os.str();
}

Component *BackpropTruncationComponent::Copy() const {
  BackpropTruncationComponent *ans = new BackpropTruncationComponent();
  ans->dim_ = dim_;
  ans->scale_ = scale_;
  ans->clipping_threshold_ = clipping_threshold_;
  ans->zeroing_threshold_ = zeroing_threshold_;
  ans->zeroing_interval_ = zeroing_interval_;
  ans->recurrence_interval_ = recurrence_interval_;
  ans->num_clipped_ = num_clipped_;
  ans->num_zeroed_ = num_zeroed_;
  ans->count_ = count_;
  ans->count_zeroing_boundaries_ = count_zeroing_boundaries_;
  return ans;
}

ComponentPrecomputedIndexes *BackpropTruncationComponent::PrecomputeIndexes(
    const MiscComputationInfo &, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool) const {
  NNET3_ASSERT(input_indexes.size() == output_indexes.size());
  const int32 num_rows = static_cast<int32>(output_indexes.size());
  BackpropTruncationComponentPrecomputedIndexes *ans =
      new BackpropTruncationComponentPrecomputedIndexes();
  Vector<BaseFloat> zeroing(num_rows);
  int32 num_boundaries = 0;
  for (int32 r = 0; r < num_rows; r++) {
    const Index &index = output_indexes[r];
    // The n offset moves the boundaries between sequences, so that not every
    // sequence is cut at the same frames.
    int32 now = index.t - index.n, before = now - recurrence_interval_;
    if (FloorDiv(now, zeroing_interval_) !=
        FloorDiv(before, zeroing_interval_)) {
      zeroing(r) = -1.0;
      num_boundaries++;
    }
  }
  ans->zeroing.Swap(&zeroing);
  ans->zeroing_sum = static_cast<BaseFloat>(num_boundaries);
  return ans;
}

void *BackpropTruncationComponent::Propagate(
    const ComponentPrecomputedIndexes *, const CuMatrixBase<BaseFloat> &in,
    CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  if (out->Data() != in.Data()) out->CopyFromMat(in);
  if (scale_ != 1.0) out->Scale(scale_);
  return nullptr;
}

void BackpropTruncationComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *, Component *to_update_in,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  NNET3_ASSERT(SameDim(out_deriv, *in_deriv));
  const int32 num_rows = out_deriv.NumRows();
  // Without precomputed indexes (e.g. a component tested on its own) no row
  // is a zeroing boundary; only clipping applies.
  const BackpropTruncationComponentPrecomputedIndexes *indexes = nullptr;
  if (indexes_in != nullptr) {
    indexes = dynamic_cast<const BackpropTruncationComponentPrecomputedIndexes *>(
        indexes_in);
    NNET3_ASSERT(indexes != nullptr && indexes->zeroing.Dim() == num_rows);
  }
  BackpropTruncationComponent *to_update = nullptr;
  if (to_update_in != nullptr) {
    to_update = dynamic_cast<BackpropTruncationComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
  }

  if (in_deriv->Data() != out_deriv.Data()) in_deriv->CopyFromMat(out_deriv);
  if (scale_ != 1.0) in_deriv->Scale(scale_);

  // A threshold <= 0 means "never".
  const BaseFloat clip = clipping_threshold_ <= 0.0 ? 1.0e+10f
                                                    : clipping_threshold_,
                  zero = zeroing_threshold_ <= 0.0 ? 1.0e+10f
                                                   : zeroing_threshold_;
  const BaseFloat inv_clip_sq = static_cast<BaseFloat>(std::pow(clip, -2)),
                  zero_sq = static_cast<BaseFloat>(std::pow(zero, 2));
  // Rows whose norm reaches the clipping threshold are scaled to it;
  // boundary rows (nonzero "zeroing") whose norm exceeds the zeroing
  // threshold are zeroed. The counts are only needed for the statistics.
  int32 num_clipped = 0;
  BaseFloat num_zeroed = 0.0;
  CuVector<BaseFloat> row_scales(num_rows, kUndefined);
  cu::TruncationRowScales(*in_deriv,
                          indexes != nullptr ? &indexes->zeroing : nullptr,
                          inv_clip_sq, zero_sq, &row_scales,
                          to_update != nullptr ? &num_clipped : nullptr,
                          to_update != nullptr ? &num_zeroed : nullptr);
  if (to_update != nullptr) {
    to_update->num_clipped_ += num_clipped;
    to_update->count_ += num_rows;
    to_update->num_zeroed_ += num_zeroed;
    if (indexes != nullptr)
      to_update->count_zeroing_boundaries_ += indexes->zeroing_sum;
  }
  in_deriv->MulRowsVec(row_scales);
}

void BackpropTruncationComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Dim>");
  ReadBasicType(is, binary, &dim_);
  std::string token;
  ReadToken(is, binary, &token);
  scale_ = 1.0;
  if (token == "<Scale>") {
    ReadBasicType(is, binary, &scale_);
    ReadToken(is, binary, &token);
  }
  if (token != "<ClippingThreshold>")
    NNET3_ERR << "Expected token <ClippingThreshold>, got "
              << PrintableString(token);
  ReadBasicType(is, binary, &clipping_threshold_);
  ExpectToken(is, binary, "<ZeroingThreshold>");
  ReadBasicType(is, binary, &zeroing_threshold_);
  ExpectToken(is, binary, "<ZeroingInterval>");
  ReadBasicType(is, binary, &zeroing_interval_);
  ExpectToken(is, binary, "<RecurrenceInterval>");
  ReadBasicType(is, binary, &recurrence_interval_);
  ExpectToken(is, binary, "<NumElementsClipped>");
  ReadBasicType(is, binary, &num_clipped_);
  ExpectToken(is, binary, "<NumElementsZeroed>");
  ReadBasicType(is, binary, &num_zeroed_);
  ExpectToken(is, binary, "<NumElementsProcessed>");
  ReadBasicType(is, binary, &count_);
  ExpectToken(is, binary, "<NumZeroingBoundaries>");
  ReadBasicType(is, binary, &count_zeroing_boundaries_);
  ExpectToken(is, binary, ClosingTag(*this));
  if (dim_ <= 0 || zeroing_interval_ <= 0 || recurrence_interval_ <= 0)
    NNET3_ERR << "Reading " << Type() << ": invalid <Dim> " << dim_
              << ", <ZeroingInterval> " << zeroing_interval_
              << " or <RecurrenceInterval> " << recurrence_interval_;
}

void BackpropTruncationComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<Scale>");
  WriteBasicType(os, binary, scale_);
  WriteToken(os, binary, "<ClippingThreshold>");
  WriteBasicType(os, binary, clipping_threshold_);
  WriteToken(os, binary, "<ZeroingThreshold>");
  WriteBasicType(os, binary, zeroing_threshold_);
  WriteToken(os, binary, "<ZeroingInterval>");
  WriteBasicType(os, binary, zeroing_interval_);
  WriteToken(os, binary, "<RecurrenceInterval>");
  WriteBasicType(os, binary, recurrence_interval_);
  WriteToken(os, binary, "<NumElementsClipped>");
  WriteBasicType(os, binary, num_clipped_);
  WriteToken(os, binary, "<NumElementsZeroed>");
  WriteBasicType(os, binary, num_zeroed_);
  WriteToken(os, binary, "<NumElementsProcessed>");
  WriteBasicType(os, binary, count_);
  WriteToken(os, binary, "<NumZeroingBoundaries>");
  WriteBasicType(os, binary, count_zeroing_boundaries_);
  WriteToken(os, binary, ClosingTag(*this));
}

void BackpropTruncationComponent::ZeroStats() {
  num_clipped_ = 0.0;
  num_zeroed_ = 0.0;
  count_ = 0.0;
  count_zeroing_boundaries_ = 0.0;
}

void BackpropTruncationComponent::Scale(BaseFloat scale) {
  num_clipped_ *= scale;
  num_zeroed_ *= scale;
  count_ *= scale;
  count_zeroing_boundaries_ *= scale;
}

void BackpropTruncationComponent::Add(BaseFloat alpha,
                                      const Component &other_in) {
  const BackpropTruncationComponent *other =
      dynamic_cast<const BackpropTruncationComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  num_clipped_ += alpha * other->num_clipped_;
  num_zeroed_ += alpha * other->num_zeroed_;
  count_ += alpha * other->count_;
  count_zeroing_boundaries_ += alpha * other->count_zeroing_boundaries_;
}

void RegisterBackpropTruncationComponents(ComponentRegistry *registry) {
  registry->Add("BackpropTruncationComponent",
                [] { return new BackpropTruncationComponent(); });
  registry->AddPrecomputedIndexes(
      "BackpropTruncationComponentPrecomputedIndexes",
      [] { return new BackpropTruncationComponentPrecomputedIndexes(); });
}

}  // namespace nnet3
