// nnet3/components/dropout.cc
#include "nnet3/components/dropout.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <tuple>
#include <utility>

#include "cudamatrix/cu-math-nonlinear.h"
namespace nnet3 {

namespace {

// floor(a / b) for b > 0, also for negative a.
int32 FloorDiv(int32 a, int32 b) {
  int32 q = a / b;
  if (a % b != 0 && a < 0) q--;
  return q;
}

// Reads the next token into *token.
std::string NextToken(std::istream &is, bool binary) {
  std::string token;
  ReadToken(is, binary, &token);
  return token;
}

void CheckClosingTag(const Component &c, const std::string &token) {
  if (token != ClosingTag(c))
    NNET3_ERR << c.Type() << ": expected " << ClosingTag(c) << ", got "
              << PrintableString(token);
}

}  // namespace

// ---- GeneralDropoutComponentPrecomputedIndexes -------------------------------

void GeneralDropoutComponentPrecomputedIndexes::Write(std::ostream &os,
                                                      bool binary) const {
  WriteToken(os, binary, "<" + Type() + ">");
  WriteToken(os, binary, "<NumMaskRows>");
  WriteBasicType(os, binary, num_mask_rows);
  WriteToken(os, binary, "<Indexes>");
  std::vector<int32> host_indexes;
  indexes.CopyToVec(&host_indexes);
  WriteIntegerVector(os, binary, host_indexes);
  WriteToken(os, binary, "</" + Type() + ">");
}

void GeneralDropoutComponentPrecomputedIndexes::Read(std::istream &is,
                                                     bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<" + Type() + ">", "<NumMaskRows>");
  ReadBasicType(is, binary, &num_mask_rows);
  ExpectToken(is, binary, "<Indexes>");
  std::vector<int32> host_indexes;
  ReadIntegerVector(is, binary, &host_indexes);
  ExpectToken(is, binary, "</" + Type() + ">");
  for (int32 i : host_indexes)
    if (i < 0 || i >= num_mask_rows)
      NNET3_ERR << Type() << ": index " << i << " is outside [0, "
                << num_mask_rows << ")";
  indexes.CopyFromVec(host_indexes);
}

// ---- GeneralDropoutComponent -------------------------------------------------

void GeneralDropoutComponent::InitFromConfig(ConfigLine *cfl) {
  dim_ = 0;
  if (!cfl->GetValue("dim", &dim_))
    NNET3_ERR << Type() << ": dim=... is required";
  block_dim_ = dim_;
  cfl->GetValue("block-dim", &block_dim_);
  time_period_ = 0;
  cfl->GetValue("time-period", &time_period_);
  dropout_proportion_ = 0.5;
  cfl->GetValue("dropout-proportion", &dropout_proportion_);
  specaugment_max_proportion_ = 0.0;
  cfl->GetValue("specaugment-max-proportion", &specaugment_max_proportion_);
  specaugment_max_regions_ = 1;
  cfl->GetValue("specaugment-max-regions", &specaugment_max_regions_);
  continuous_ = false;
  cfl->GetValue("continuous", &continuous_);
  test_mode_ = false;
  cfl->GetValue("test-mode", &test_mode_);
  CheckNoUnusedValues(*cfl, *this);

  if (dim_ <= 0) NNET3_ERR << Type() << ": dim=" << dim_ << " must be > 0";
  if (block_dim_ <= 0 || dim_ % block_dim_ != 0)
    NNET3_ERR << Type() << ": block-dim=" << block_dim_
              << " must be > 0 and divide dim=" << dim_;
  if (time_period_ < 0)
    NNET3_ERR << Type() << ": time-period=" << time_period_
              << " must be >= 0";
  if (!(dropout_proportion_ >= 0.0 && dropout_proportion_ <= 1.0))
    NNET3_ERR << Type() << ": dropout-proportion=" << dropout_proportion_
              << " is not in [0, 1]";
  if (specaugment_max_proportion_ != 0.0 &&
      (!(specaugment_max_proportion_ > 0.0 &&
         specaugment_max_proportion_ <= 1.0) || continuous_ ||
       specaugment_max_regions_ < 1))
    NNET3_ERR << Type() << ": specaugment-max-proportion="
              << specaugment_max_proportion_
              << " needs a value in (0, 1], continuous=false and "
                 "specaugment-max-regions >= 1 (continuous="
              << (continuous_ ? "true" : "false")
              << ", specaugment-max-regions=" << specaugment_max_regions_
              << ")";
}

void GeneralDropoutComponent::FrequencyMaskRow(BaseFloat *row) const {
  const int32 bins = block_dim_;
  int32 max_zeroed = static_cast<int32>(
      bins * specaugment_max_proportion_ + 0.5);
  int32 num_zeroed = random_.Int(0, max_zeroed);
  if (num_zeroed == 0) return;
  // One run of zeros, which may wrap past the last bin to the first.
  int32 first = random_.Int(0, bins - 1);
  for (int32 k = 0; k < num_zeroed; k++) row[(first + k) % bins] = 0.0;
  // Each further region: reverse the order of a random quarter-length stretch
  // against the end of a half circle starting at a random bin, which may cut
  // the run in pieces.
  for (int32 region = 1; region < specaugment_max_regions_; region++) {
    int32 half = bins / 2, quarter = half / 2;
    int32 lo = random_.Int(0, bins - 1), hi = lo + half;
    for (int32 k = 0; k < quarter; k++)
      std::swap(row[(lo + k) % bins], row[(hi - k) % bins]);
  }
}

CuMatrix<BaseFloat> *GeneralDropoutComponent::NewMask(int32 num_rows) const {
  NNET3_ASSERT(num_rows >= 0 && DrawsMask());
  // The mask is drawn on the host (the random sequence is the host
  // generator's) and then copied to the computing backend.
  Matrix<BaseFloat> host_mask(num_rows, block_dim_);
  if (specaugment_max_proportion_ != 0.0) {
    host_mask.Set(1.0);
    for (int32 r = 0; r < num_rows; r++)
      FrequencyMaskRow(host_mask.RowData(r));
    return new CuMatrix<BaseFloat>(host_mask);
  }
  const double p = dropout_proportion_;
  // Non-zero values are 1 / (1 - p), so that the expected scale is one;
  // p == 1 drops everything.
  const BaseFloat kept = (p < 1.0 ? static_cast<BaseFloat>(1.0 / (1.0 - p))
                                  : 0.0f);
  for (int32 r = 0; r < num_rows; r++) {
    BaseFloat *row = host_mask.RowData(r);
    for (int32 j = 0; j < block_dim_; j++) {
      BaseFloat u = static_cast<BaseFloat>(random_.Uniform());
      if (continuous_)
        row[j] = u * static_cast<BaseFloat>(4.0 * p) +
                 static_cast<BaseFloat>(1.0 - 2.0 * p);
      else
        row[j] = (u - static_cast<BaseFloat>(p) > 0.0f ? kept : 0.0f);
    }
  }
  return new CuMatrix<BaseFloat>(host_mask);
}

void GeneralDropoutComponent::ApplyMask(
    const GeneralDropoutComponentPrecomputedIndexes &indexes,
    const CuMatrixBase<BaseFloat> &mask, CuMatrixBase<BaseFloat> *data) const {
  const int32 multiple = dim_ / block_dim_, rows = data->NumRows();
  NNET3_ASSERT(data->NumCols() == dim_ && mask.NumCols() == block_dim_ &&
               indexes.indexes.Dim() == rows * multiple &&
               mask.NumRows() == indexes.num_mask_rows);
  cu::MulRowBlocks(mask, indexes.indexes, data);
}

void *GeneralDropoutComponent::Propagate(
    const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &in, CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  if (out->Data() != in.Data()) out->CopyFromMat(in);
  if (!DrawsMask()) return nullptr;
  const GeneralDropoutComponentPrecomputedIndexes *indexes =
      dynamic_cast<const GeneralDropoutComponentPrecomputedIndexes *>(
          indexes_in);
  NNET3_ASSERT(indexes != nullptr &&
               "GeneralDropoutComponent needs its precomputed indexes");
  CuMatrix<BaseFloat> *mask = NewMask(indexes->num_mask_rows);
  ApplyMask(*indexes, *mask, out);
  return mask;
}

void GeneralDropoutComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *memo, Component *,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  NNET3_ASSERT(SameDim(out_deriv, *in_deriv));
  if (in_deriv->Data() != out_deriv.Data()) in_deriv->CopyFromMat(out_deriv);
  if (memo == nullptr) {
    NNET3_ASSERT(!DrawsMask() && "GeneralDropoutComponent: memo missing");
    return;
  }
  const GeneralDropoutComponentPrecomputedIndexes *indexes =
      dynamic_cast<const GeneralDropoutComponentPrecomputedIndexes *>(
          indexes_in);
  NNET3_ASSERT(indexes != nullptr);
  ApplyMask(*indexes, *static_cast<const CuMatrix<BaseFloat> *>(memo),
            in_deriv);
}

ComponentPrecomputedIndexes *GeneralDropoutComponent::PrecomputeIndexes(
    const MiscComputationInfo &, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool) const {
  NNET3_ASSERT(input_indexes == output_indexes);
  // Mask rows are numbered in order of first appearance of each
  // (n, floor(t / time-period)) pair (t is ignored when time-period is 0).
  std::map<std::pair<int32, int32>, int32> mask_row_of;
  std::vector<int32> row_to_mask(input_indexes.size());
  for (size_t i = 0; i < input_indexes.size(); i++) {
    const Index &index = input_indexes[i];
    std::pair<int32, int32> key(
        index.n, time_period_ == 0 ? 0 : FloorDiv(index.t, time_period_));
    auto it = mask_row_of.find(key);
    if (it == mask_row_of.end())
      it = mask_row_of.emplace(key, static_cast<int32>(mask_row_of.size()))
               .first;
    row_to_mask[i] = it->second;
  }
  const int32 multiple = dim_ / block_dim_,
              num_keys = static_cast<int32>(mask_row_of.size());
  GeneralDropoutComponentPrecomputedIndexes *ans =
      new GeneralDropoutComponentPrecomputedIndexes();
  // All dim / block-dim blocks of a row use the same mask row, so the mask
  // repeats across the row. Kaldi sizes the mask as num_keys * multiple rows
  // all the same (the rows past num_keys are drawn but never used); the
  // written indexes must agree with Kaldi's, so the size is kept.
  ans->num_mask_rows = num_keys * multiple;
  std::vector<int32> host_indexes;
  host_indexes.reserve(row_to_mask.size() * multiple);
  for (int32 k : row_to_mask)
    for (int32 b = 0; b < multiple; b++) host_indexes.push_back(k);
  ans->indexes.CopyFromVec(host_indexes);
  return ans;
}

Component *GeneralDropoutComponent::Copy() const {
  GeneralDropoutComponent *c = new GeneralDropoutComponent();
  c->dim_ = dim_;
  c->block_dim_ = block_dim_;
  c->time_period_ = time_period_;
  c->dropout_proportion_ = dropout_proportion_;
  c->specaugment_max_proportion_ = specaugment_max_proportion_;
  c->specaugment_max_regions_ = specaugment_max_regions_;
  c->continuous_ = continuous_;
  c->test_mode_ = test_mode_;
  return c;
}

void GeneralDropoutComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Dim>");
  ReadBasicType(is, binary, &dim_);
  ExpectToken(is, binary, "<BlockDim>");
  ReadBasicType(is, binary, &block_dim_);
  ExpectToken(is, binary, "<TimePeriod>");
  ReadBasicType(is, binary, &time_period_);
  ExpectToken(is, binary, "<DropoutProportion>");
  ReadBasicType(is, binary, &dropout_proportion_);
  std::string token = NextToken(is, binary);
  specaugment_max_proportion_ = 0.0;
  specaugment_max_regions_ = 1;
  if (token == "<SpecAugmentMaxProportion>") {
    ReadBasicType(is, binary, &specaugment_max_proportion_);
    token = NextToken(is, binary);
    if (token == "<SpecAugmentMaxRegions>") {
      ReadBasicType(is, binary, &specaugment_max_regions_);
      token = NextToken(is, binary);
    }
  }
  // The two flags are bare tokens, present only when true.
  test_mode_ = (token == "<TestMode>");
  if (test_mode_) token = NextToken(is, binary);
  continuous_ = (token == "<Continuous>");
  if (continuous_) token = NextToken(is, binary);
  CheckClosingTag(*this, token);
  if (dim_ <= 0 || block_dim_ <= 0 || dim_ % block_dim_ != 0)
    NNET3_ERR << Type() << ": bad dimensions dim=" << dim_
              << ", block-dim=" << block_dim_;
}

void GeneralDropoutComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<BlockDim>");
  WriteBasicType(os, binary, block_dim_);
  WriteToken(os, binary, "<TimePeriod>");
  WriteBasicType(os, binary, time_period_);
  WriteToken(os, binary, "<DropoutProportion>");
  WriteBasicType(os, binary, dropout_proportion_);
  if (specaugment_max_proportion_ != 0.0) {
    WriteToken(os, binary, "<SpecAugmentMaxProportion>");
    WriteBasicType(os, binary, specaugment_max_proportion_);
    if (specaugment_max_regions_ != 1) {
      WriteToken(os, binary, "<SpecAugmentMaxRegions>");
      WriteBasicType(os, binary, specaugment_max_regions_);
    }
  }
  if (test_mode_) WriteToken(os, binary, "<TestMode>");
  if (continuous_) WriteToken(os, binary, "<Continuous>");
  WriteToken(os, binary, ClosingTag(*this));
}

std::string GeneralDropoutComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", dim=" << dim_ << ", block-dim=" << block_dim_
     << ", dropout-proportion=" << dropout_proportion_;
  if (continuous_) os << ", continuous=true";
  if (specaugment_max_proportion_ != 0.0)
    os << ", specaugment-max-proportion=" << specaugment_max_proportion_
       << ", specaugment-max-regions=" << specaugment_max_regions_;
  if (time_period_ > 0) os << ", time-period=" << time_period_;
  return os.str();
}

// ---- SpecAugmentTimeMaskComponentPrecomputedIndexes ---------------------------

void SpecAugmentTimeMaskComponentPrecomputedIndexes::Write(std::ostream &os,
                                                           bool binary) const {
  WriteToken(os, binary, "<" + Type() + ">");
  WriteToken(os, binary, "<Indexes>");
  WriteBasicType(os, binary, static_cast<int32>(indexes.size()));
  for (const std::vector<int32> &rows : indexes)
    WriteIntegerVector(os, binary, rows);
  WriteToken(os, binary, "</" + Type() + ">");
}

void SpecAugmentTimeMaskComponentPrecomputedIndexes::Read(std::istream &is,
                                                          bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<" + Type() + ">", "<Indexes>");
  int32 num_sequences = 0;
  ReadBasicType(is, binary, &num_sequences);
  if (num_sequences < 0)
    NNET3_ERR << Type() << ": bad number of sequences " << num_sequences;
  indexes.assign(num_sequences, std::vector<int32>());
  for (std::vector<int32> &rows : indexes) ReadIntegerVector(is, binary, &rows);
  ExpectToken(is, binary, "</" + Type() + ">");
  tot_size = 0;
  for (const std::vector<int32> &rows : indexes)
    tot_size += static_cast<int32>(rows.size());
  for (const std::vector<int32> &rows : indexes)
    for (int32 r : rows)
      if (r < 0 || r >= tot_size)
        NNET3_ERR << Type() << ": row " << r << " is outside [0, " << tot_size
                  << ")";
}

// ---- SpecAugmentTimeMaskComponent ---------------------------------------------

namespace {

// Longest run of kept frames: the kept runs are drawn from 1..this so that,
// with zeroed runs from 1..time-mask-max-frames, about a proportion z is
// zeroed. Computed in single precision as Kaldi does; 0 if z is 0.
int32 MaxKeptFrames(int32 time_mask_max_frames, BaseFloat z) {
  if (z == 0.0) return 0;
  return static_cast<int32>(static_cast<BaseFloat>(time_mask_max_frames) *
                            (1.0f - z) / z);
}

}  // namespace

void SpecAugmentTimeMaskComponent::InitFromConfig(ConfigLine *cfl) {
  dim_ = 0;
  if (!cfl->GetValue("dim", &dim_))
    NNET3_ERR << Type() << ": dim=... is required";
  zeroed_proportion_ = 0.25;
  cfl->GetValue("zeroed-proportion", &zeroed_proportion_);
  time_mask_max_frames_ = 10;
  cfl->GetValue("time-mask-max-frames", &time_mask_max_frames_);
  CheckNoUnusedValues(*cfl, *this);
  if (dim_ <= 0) NNET3_ERR << Type() << ": dim=" << dim_ << " must be > 0";
  if (time_mask_max_frames_ <= 1)
    NNET3_ERR << Type() << ": time-mask-max-frames=" << time_mask_max_frames_
              << " must be > 1";
  if (!(zeroed_proportion_ >= 0.0 && zeroed_proportion_ < 1.0))
    NNET3_ERR << Type() << ": zeroed-proportion=" << zeroed_proportion_
              << " is not in [0, 1)";
  if (zeroed_proportion_ != 0.0 &&
      MaxKeptFrames(time_mask_max_frames_, zeroed_proportion_) < 1)
    NNET3_ERR << Type() << ": zeroed-proportion=" << zeroed_proportion_
              << " is too large for time-mask-max-frames="
              << time_mask_max_frames_ << " (no room for unmasked frames)";
}

CuVector<BaseFloat> *SpecAugmentTimeMaskComponent::NewMask(
    const SpecAugmentTimeMaskComponentPrecomputedIndexes &indexes) const {
  const BaseFloat z = zeroed_proportion_;
  const int32 max_kept = MaxKeptFrames(time_mask_max_frames_, z);
  NNET3_ASSERT(max_kept > 0 && time_mask_max_frames_ > 0);
  // Drawn on the host (the host generator's sequence), then copied.
  Vector<BaseFloat> host_mask(indexes.tot_size);
  for (const std::vector<int32> &rows : indexes.indexes) {
    const int32 length = static_cast<int32>(rows.size());
    int32 t = 0;
    // Alternate kept and zeroed runs; only the very first kept run is
    // optional (taken with probability z, as Kaldi does).
    while (t < length) {
      if (t > 0 || random_.WithProb(z)) {
        int32 run = random_.Int(1, max_kept);
        for (; t < length && run > 0; t++, run--) host_mask(rows[t]) = 1.0;
      }
      int32 run = random_.Int(1, time_mask_max_frames_);
      for (; t < length && run > 0; t++, run--) host_mask(rows[t]) = 0.0;
    }
  }
  return new CuVector<BaseFloat>(host_mask);
}

void *SpecAugmentTimeMaskComponent::Propagate(
    const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &in, CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  if (out->Data() != in.Data()) out->CopyFromMat(in);
  if (!DrawsMask()) return nullptr;
  const SpecAugmentTimeMaskComponentPrecomputedIndexes *indexes =
      dynamic_cast<const SpecAugmentTimeMaskComponentPrecomputedIndexes *>(
          indexes_in);
  NNET3_ASSERT(indexes != nullptr &&
               "SpecAugmentTimeMaskComponent needs its precomputed indexes");
  NNET3_ASSERT(indexes->tot_size == out->NumRows());
  CuVector<BaseFloat> *mask = NewMask(*indexes);
  out->MulRowsVec(*mask);
  return mask;
}

void SpecAugmentTimeMaskComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *memo, Component *,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  NNET3_ASSERT(SameDim(out_deriv, *in_deriv));
  if (in_deriv->Data() != out_deriv.Data()) in_deriv->CopyFromMat(out_deriv);
  if (memo == nullptr) {
    NNET3_ASSERT(!DrawsMask() && "SpecAugmentTimeMaskComponent: memo missing");
    return;
  }
  const CuVector<BaseFloat> &mask =
      *static_cast<const CuVector<BaseFloat> *>(memo);
  NNET3_ASSERT(mask.Dim() == in_deriv->NumRows());
  in_deriv->MulRowsVec(mask);
}

ComponentPrecomputedIndexes *SpecAugmentTimeMaskComponent::PrecomputeIndexes(
    const MiscComputationInfo &, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool) const {
  NNET3_ASSERT(input_indexes == output_indexes);
  // Sort the rows on (n, t); each distinct n becomes one sequence.
  std::vector<std::tuple<int32, int32, int32> > order;
  order.reserve(input_indexes.size());
  for (size_t i = 0; i < input_indexes.size(); i++)
    order.emplace_back(input_indexes[i].n, input_indexes[i].t,
                       static_cast<int32>(i));
  std::sort(order.begin(), order.end());
  SpecAugmentTimeMaskComponentPrecomputedIndexes *ans =
      new SpecAugmentTimeMaskComponentPrecomputedIndexes();
  for (size_t i = 0; i < order.size(); i++) {
    if (i == 0 || std::get<0>(order[i]) != std::get<0>(order[i - 1]))
      ans->indexes.emplace_back();
    ans->indexes.back().push_back(std::get<2>(order[i]));
  }
  ans->tot_size = static_cast<int32>(input_indexes.size());
  return ans;
}

Component *SpecAugmentTimeMaskComponent::Copy() const {
  SpecAugmentTimeMaskComponent *c = new SpecAugmentTimeMaskComponent();
  c->dim_ = dim_;
  c->zeroed_proportion_ = zeroed_proportion_;
  c->time_mask_max_frames_ = time_mask_max_frames_;
  c->test_mode_ = test_mode_;
  return c;
}

void SpecAugmentTimeMaskComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Dim>");
  ReadBasicType(is, binary, &dim_);
  ExpectToken(is, binary, "<ZeroedProportion>");
  ReadBasicType(is, binary, &zeroed_proportion_);
  ExpectToken(is, binary, "<TimeMaskMaxFrames>");
  ReadBasicType(is, binary, &time_mask_max_frames_);
  std::string token = NextToken(is, binary);
  test_mode_ = (token == "<TestMode>");  // a bare token
  if (test_mode_) token = NextToken(is, binary);
  CheckClosingTag(*this, token);
}

void SpecAugmentTimeMaskComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<ZeroedProportion>");
  WriteBasicType(os, binary, zeroed_proportion_);
  WriteToken(os, binary, "<TimeMaskMaxFrames>");
  WriteBasicType(os, binary, time_mask_max_frames_);
  if (test_mode_) WriteToken(os, binary, "<TestMode>");
  WriteToken(os, binary, ClosingTag(*this));
}

std::string SpecAugmentTimeMaskComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", dim=" << dim_
     << ", zeroed-proportion=" << zeroed_proportion_
     << ", time-mask-max-frames=" << time_mask_max_frames_;
  return os.str();
}

// ---- DropoutMaskComponent -----------------------------------------------------

void DropoutMaskComponent::InitFromConfig(ConfigLine *cfl) {
  output_dim_ = 0;
  if (!cfl->GetValue("output-dim", &output_dim_))
    NNET3_ERR << Type() << ": output-dim=... is required";
  dropout_proportion_ = 0.5;
  cfl->GetValue("dropout-proportion", &dropout_proportion_);
  continuous_ = false;
  cfl->GetValue("continuous", &continuous_);
  test_mode_ = false;
  cfl->GetValue("test-mode", &test_mode_);
  CheckNoUnusedValues(*cfl, *this);
  if (output_dim_ <= 0)
    NNET3_ERR << Type() << ": output-dim=" << output_dim_ << " must be > 0";
  if (!(dropout_proportion_ >= 0.0 && dropout_proportion_ <= 1.0))
    NNET3_ERR << Type() << ": dropout-proportion=" << dropout_proportion_
              << " is not in [0, 1]";
}

void *DropoutMaskComponent::Propagate(const ComponentPrecomputedIndexes *,
                                      const CuMatrixBase<BaseFloat> &,
                                      CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(out->NumCols() == output_dim_);
  const BaseFloat p = dropout_proportion_;
  const int32 rows = out->NumRows(), cols = out->NumCols();
  if (p == 0.0 || (test_mode_ && continuous_)) {
    out->Set(1.0);
    return nullptr;
  }
  if (test_mode_) {
    out->Set(1.0 - p);
    return nullptr;
  }
  // Drawn on the host (the host generator's sequence), then copied to out.
  Matrix<BaseFloat> mask(rows, cols);
  if (continuous_) {
    // 1 + 4p (u - 1/2): mean one, uniform on [1 - 2p, 1 + 2p].
    for (int32 r = 0; r < rows; r++)
      for (int32 c = 0; c < cols; c++)
        mask(r, c) = static_cast<BaseFloat>(random_.Uniform()) * (4.0f * p) +
                       (1.0f - 2.0f * p);
    out->CopyFromMat(mask);
    return nullptr;
  }
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c++)
      mask(r, c) =
          (static_cast<BaseFloat>(random_.Uniform()) - p > 0.0f ? 1.0f : 0.0f);
  if (cols == 2 || cols == 3) {
    // The LSTM case: one uniform u per row decides the first two columns,
    // column 0 kept iff u > p and column 1 kept iff u < 1 - p, so (for
    // p <= 0.5) they are never dropped together. Column 2 keeps its own draw.
    for (int32 r = 0; r < rows; r++) {
      BaseFloat u = static_cast<BaseFloat>(random_.Uniform());
      mask(r, 0) = (u - p > 0.0f ? 1.0f : 0.0f);
      mask(r, 1) = ((1.0f - p) - u > 0.0f ? 1.0f : 0.0f);
    }
  }
  out->CopyFromMat(mask);
  return nullptr;
}

void DropoutMaskComponent::Backprop(const std::string &,
                                    const ComponentPrecomputedIndexes *,
                                    const CuMatrixBase<BaseFloat> &,
                                    const CuMatrixBase<BaseFloat> &,
                                    const CuMatrixBase<BaseFloat> &, void *,
                                    Component *,
                                    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv != nullptr) in_deriv->SetZero();
}

void DropoutMaskComponent::GetInputIndexes(
    const MiscComputationInfo &, const Index &,
    std::vector<Index> *desired_indexes) const {
  desired_indexes->clear();
}

bool DropoutMaskComponent::IsComputable(const MiscComputationInfo &,
                                        const Index &, const IndexSet &,
                                        std::vector<Index> *used_inputs) const {
  if (used_inputs != nullptr) used_inputs->clear();
  return true;
}

Component *DropoutMaskComponent::Copy() const {
  DropoutMaskComponent *c = new DropoutMaskComponent();
  c->output_dim_ = output_dim_;
  c->dropout_proportion_ = dropout_proportion_;
  c->continuous_ = continuous_;
  c->test_mode_ = test_mode_;
  return c;
}

void DropoutMaskComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<OutputDim>");
  ReadBasicType(is, binary, &output_dim_);
  ExpectToken(is, binary, "<DropoutProportion>");
  ReadBasicType(is, binary, &dropout_proportion_);
  std::string token = NextToken(is, binary);
  test_mode_ = false;
  if (token == "<TestMode>") {  // followed by its value (older files omit it)
    ReadBasicType(is, binary, &test_mode_);
    token = NextToken(is, binary);
  }
  continuous_ = (token == "<Continuous>");  // a bare token
  if (continuous_) token = NextToken(is, binary);
  CheckClosingTag(*this, token);
}

void DropoutMaskComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<OutputDim>");
  WriteBasicType(os, binary, output_dim_);
  WriteToken(os, binary, "<DropoutProportion>");
  WriteBasicType(os, binary, dropout_proportion_);
  WriteToken(os, binary, "<TestMode>");
  WriteBasicType(os, binary, test_mode_);
  if (continuous_) WriteToken(os, binary, "<Continuous>");
  WriteToken(os, binary, ClosingTag(*this));
}

std::string DropoutMaskComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", output-dim=" << output_dim_
     << ", dropout-proportion=" << dropout_proportion_;
  if (continuous_) os << ", continuous=true";
  return os.str();
}

// ---- Registration -------------------------------------------------------------

void RegisterDropoutComponents(ComponentRegistry *registry) {
  registry->Add("GeneralDropoutComponent",
                [] { return new GeneralDropoutComponent(); });
  registry->Add("SpecAugmentTimeMaskComponent",
                [] { return new SpecAugmentTimeMaskComponent(); });
  registry->Add("DropoutMaskComponent",
                [] { return new DropoutMaskComponent(); });
  registry->AddPrecomputedIndexes(
      "GeneralDropoutComponentPrecomputedIndexes",
      [] { return new GeneralDropoutComponentPrecomputedIndexes(); });
  registry->AddPrecomputedIndexes(
      "SpecAugmentTimeMaskComponentPrecomputedIndexes",
      [] { return new SpecAugmentTimeMaskComponentPrecomputedIndexes(); });
}

}  // namespace nnet3
