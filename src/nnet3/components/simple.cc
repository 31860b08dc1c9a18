// nnet3/components/simple.cc
#include "nnet3/components/simple.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "cudamatrix/cu-math-nonlinear.h"
#include "nnet3/components/parameter-stats.h"
#include "util/stream.h"

namespace nnet3 {

namespace {

// Reads "input-dim" and "output-dim" (both required, output-dim dividing
// input-dim).
void GetInputOutputDims(ConfigLine *cfl, const Component &c, int32 *input_dim,
                        int32 *output_dim) {
  if (!cfl->GetValue("input-dim", input_dim))
    NNET3_ERR << c.Type() << ": 'input-dim' not provided in the config line: "
              << cfl->WholeLine();
  if (!cfl->GetValue("output-dim", output_dim))
    NNET3_ERR << c.Type() << ": 'output-dim' not provided in the config line: "
              << cfl->WholeLine();
}

void CheckDivides(const Component &c, int32 input_dim, int32 output_dim) {
  if (input_dim <= 0 || output_dim <= 0 || input_dim % output_dim != 0)
    NNET3_ERR << c.Type() << ": invalid input-dim=" << input_dim
              << " output-dim=" << output_dim
              << " (need positive dims, output-dim dividing input-dim)";
}

void ReadVectorFile(const std::string &key, const std::string &filename,
                    const Component &c, CuVector<BaseFloat> *vec) {
  try {
    ReadKaldiObject(filename, vec);
  } catch (const UserError &e) {
    NNET3_ERR << c.Type() << ": could not read " << key << "=" << filename
              << ": " << e.message();
  }
  if (vec->Dim() == 0)
    NNET3_ERR << c.Type() << ": empty vector in " << key << "=" << filename;
}

void ExpectClosingTag(std::istream &is, bool binary, const Component &c) {
  ExpectToken(is, binary, ClosingTag(c));
}

// Copies src to dest unless they are the same matrix (in-place operation).
void CopyUnlessSame(const CuMatrixBase<BaseFloat> &src,
                    CuMatrixBase<BaseFloat> *dest) {
  NNET3_ASSERT(SameDim(src, *dest));
  if (dest->Data() != src.Data()) dest->CopyFromMat(src);
}

// Sum over rows of the per-row 2-norms of m.
double SumOfRowNorms(const CuMatrixBase<BaseFloat> &m) {
  CuVector<BaseFloat> norms(m.NumRows());
  norms.AddDiagMat2(1.0, m, kNoTrans, 0.0);
  norms.ApplyPow(0.5);
  return norms.Sum();
}

}  // namespace

// ---- NoOpComponent ----------------------------------------------------------

void NoOpComponent::InitFromConfig(ConfigLine *cfl) {
  backprop_scale_ = 1.0;
  cfl->GetValue("backprop-scale", &backprop_scale_);
  if (!cfl->GetValue("dim", &dim_))
    NNET3_ERR << Type() << ": 'dim' not provided in the config line: "
              << cfl->WholeLine();
  CheckNoUnusedValues(*cfl, *this);
  if (dim_ <= 0)
    NNET3_ERR << Type() << ": invalid dim=" << dim_;
}

std::string NoOpComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", dim=" << dim_;
  if (backprop_scale_ != 1.0) os << ", backprop-scale=" << backprop_scale_;
  return os.str();
}

void *NoOpComponent::Propagate(const ComponentPrecomputedIndexes *,
                               const CuMatrixBase<BaseFloat> &in,
                               CuMatrixBase<BaseFloat> *out) const {
  CopyUnlessSame(in, out);
  return nullptr;
}

void NoOpComponent::Backprop(const std::string &,
                             const ComponentPrecomputedIndexes *,
                             const CuMatrixBase<BaseFloat> &,
                             const CuMatrixBase<BaseFloat> &,
                             const CuMatrixBase<BaseFloat> &out_deriv, void *,
                             Component *,
                             CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  CopyUnlessSame(out_deriv, in_deriv);
  if (backprop_scale_ != 1.0) in_deriv->Scale(backprop_scale_);
}

void NoOpComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<BackpropScale>");
  WriteBasicType(os, binary, backprop_scale_);
  WriteToken(os, binary, ClosingTag(*this));
}

void NoOpComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Dim>");
  ReadBasicType(is, binary, &dim_);
  if (PeekToken(is, binary) == 'V') {
    // Old format, from when NoOpComponent was a NonlinearComponent: skip the
    // statistics.
    backprop_scale_ = 1.0;
    Vector<BaseFloat> temp_vec;
    double temp;
    ExpectToken(is, binary, "<ValueAvg>");
    temp_vec.Read(is, binary);
    ExpectToken(is, binary, "<DerivAvg>");
    temp_vec.Read(is, binary);
    ExpectToken(is, binary, "<Count>");
    ReadBasicType(is, binary, &temp);
    std::string token;
    ReadToken(is, binary, &token);
    if (token == "<OderivRms>") {
      temp_vec.Read(is, binary);
      ExpectToken(is, binary, "<OderivCount>");
      ReadBasicType(is, binary, &temp);
      ReadToken(is, binary, &token);
    }
    if (token == "<NumDimsSelfRepaired>") {
      ReadBasicType(is, binary, &temp);
      ReadToken(is, binary, &token);
    }
    if (token == "<NumDimsProcessed>") {
      ReadBasicType(is, binary, &temp);
      ReadToken(is, binary, &token);
    }
    if (token != ClosingTag(*this))
      NNET3_ERR << "Reading " << Type() << ": expected " << ClosingTag(*this)
                << ", got " << PrintableString(token);
    return;
  }
  ExpectToken(is, binary, "<BackpropScale>");
  ReadBasicType(is, binary, &backprop_scale_);
  ExpectClosingTag(is, binary, *this);
}

// ---- ClipGradientComponent --------------------------------------------------

ClipGradientComponent::ClipGradientComponent(const ClipGradientComponent &other)
    : Component(), dim_(other.dim_),
      clipping_threshold_(other.clipping_threshold_),
      norm_based_clipping_(other.norm_based_clipping_),
      self_repair_clipped_proportion_threshold_(
          other.self_repair_clipped_proportion_threshold_),
      self_repair_target_(other.self_repair_target_),
      self_repair_scale_(other.self_repair_scale_),
      num_clipped_(other.num_clipped_), count_(other.count_),
      num_self_repaired_(other.num_self_repaired_),
      num_backpropped_(other.num_backpropped_) {}

void ClipGradientComponent::InitFromConfig(ConfigLine *cfl) {
  int32 dim = 0;
  if (!cfl->GetValue("dim", &dim))
    NNET3_ERR << Type() << ": 'dim' not provided in the config line: "
              << cfl->WholeLine();
  bool norm_based_clipping = false;
  BaseFloat clipping_threshold = 15.0;
  BaseFloat self_repair_clipped_proportion_threshold = 0.01;
  BaseFloat self_repair_target = 0.0;
  BaseFloat self_repair_scale = 1.0;
  cfl->GetValue("clipping-threshold", &clipping_threshold);
  cfl->GetValue("norm-based-clipping", &norm_based_clipping);
  cfl->GetValue("self-repair-clipped-proportion-threshold",
                &self_repair_clipped_proportion_threshold);
  cfl->GetValue("self-repair-target", &self_repair_target);
  cfl->GetValue("self-repair-scale", &self_repair_scale);
  CheckNoUnusedValues(*cfl, *this);
  if (!(clipping_threshold >= 0) || dim <= 0 ||
      !(self_repair_clipped_proportion_threshold >= 0.0) ||
      !(self_repair_target >= 0.0) || !(self_repair_scale >= 0.0))
    NNET3_ERR << Type() << ": invalid value in config line (negative "
              << "threshold/target/scale or dim <= 0): " << cfl->WholeLine();
  dim_ = dim;
  clipping_threshold_ = clipping_threshold;
  norm_based_clipping_ = norm_based_clipping;
  self_repair_clipped_proportion_threshold_ =
      self_repair_clipped_proportion_threshold;
  self_repair_target_ = self_repair_target;
  self_repair_scale_ = self_repair_scale;
  num_clipped_ = count_ = num_self_repaired_ = num_backpropped_ = 0;
}

std::string ClipGradientComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", dim=" << dim_ << ", norm-based-clipping="
     << (norm_based_clipping_ ? "true" : "false")
     << ", clipping-threshold=" << clipping_threshold_
     << ", clipped-proportion="
     << (count_ > 0 ? static_cast<BaseFloat>(num_clipped_) / count_ : 0);
  if (self_repair_scale_ != 0.0)
    os << ", self-repair-clipped-proportion-threshold="
       << self_repair_clipped_proportion_threshold_
       << ", self-repair-target=" << self_repair_target_
       << ", self-repair-scale=" << self_repair_scale_;
  return os.str();
}

void *ClipGradientComponent::Propagate(const ComponentPrecomputedIndexes *,
                                       const CuMatrixBase<BaseFloat> &in,
                                       CuMatrixBase<BaseFloat> *out) const {
  CopyUnlessSame(in, out);
  return nullptr;
}

void ClipGradientComponent::Backprop(const std::string &debug_info,
                                     const ComponentPrecomputedIndexes *,
                                     const CuMatrixBase<BaseFloat> &in_value,
                                     const CuMatrixBase<BaseFloat> &,
                                     const CuMatrixBase<BaseFloat> &out_deriv,
                                     void *, Component *to_update_in,
                                     CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  CopyUnlessSame(out_deriv, in_deriv);
  ClipGradientComponent *to_update = nullptr;
  if (to_update_in != nullptr) {
    to_update = dynamic_cast<ClipGradientComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
  }
  if (clipping_threshold_ > 0) {
    if (norm_based_clipping_) {
      // Rows whose norm exceeds the threshold are scaled down to it.
      CuVector<BaseFloat> scales(in_deriv->NumRows());
      scales.AddDiagMat2(std::pow(clipping_threshold_, -2), *in_deriv,
                         kNoTrans, 0.0);
      MatrixIndexT num_not_scaled = 0;
      scales.ApplyFloor(1.0, &num_not_scaled);
      if (num_not_scaled != scales.Dim()) {
        scales.ApplyPow(-0.5);
        in_deriv->MulRowsVec(scales);
        if (to_update != nullptr)
          to_update->num_clipped_ += (scales.Dim() - num_not_scaled);
      }
      if (to_update != nullptr) to_update->count_ += scales.Dim();
    } else {
      in_deriv->ApplyCeiling(clipping_threshold_);
      in_deriv->ApplyFloor(-clipping_threshold_);
    }
    if (to_update != nullptr) {
      to_update->num_backpropped_ += 1;
      RepairGradients(debug_info, in_value, in_deriv, to_update);
    }
  } else if (clipping_threshold_ == 0.0) {
    in_deriv->SetZero();
  }
}

void ClipGradientComponent::RepairGradients(
    const std::string &debug_info, const CuMatrixBase<BaseFloat> &in_value,
    CuMatrixBase<BaseFloat> *in_deriv, ClipGradientComponent *to_update) const {
  const BaseFloat repair_probability = 0.5;
  if (self_repair_clipped_proportion_threshold_ >= 1.0 ||
      self_repair_scale_ == 0.0 || count_ == 0 ||
      RandUniform() > repair_probability)
    return;
  BaseFloat clipped_proportion =
      (count_ > 0 ? static_cast<BaseFloat>(num_clipped_) / count_ : 0);
  if (clipped_proportion <= self_repair_clipped_proportion_threshold_) return;
  to_update->num_self_repaired_ += 1;
  if (to_update->debug_info_.empty()) to_update->debug_info_ = debug_info;
  if (to_update->num_self_repaired_ == 1)
    NNET3_LOG << "ClipGradientComponent(node_name=" << debug_info
              << "): self-repair started at Backprop() call "
              << to_update->num_backpropped_ << " of this training job";
  // repair = max(|x| - target, 0) .* sign(x), with sign(0) = -1 as in Kaldi.
  CuMatrix<BaseFloat> repair(in_value.NumRows(), in_value.NumCols(),
                             kUndefined);
  cu::ExcessMagnitude(in_value, self_repair_target_, &repair);
  // The term's average row norm is scale * clipped-proportion * (average
  // row norm of in_deriv), divided by the repair probability.
  double in_deriv_norm_sum = SumOfRowNorms(*in_deriv);
  BaseFloat magnitude = self_repair_scale_ * clipped_proportion *
                        (in_deriv_norm_sum / in_deriv->NumRows());
  double repair_norm_sum = SumOfRowNorms(repair);
  double scale = 0.0;
  if (repair_norm_sum != 0.0)
    scale = magnitude / (repair_norm_sum / repair.NumRows());
  in_deriv->AddMat(-scale / repair_probability, repair);
  // Rescale so the total norm is what it was before the repair term.
  double repaired_norm_sum = SumOfRowNorms(*in_deriv);
  if (repaired_norm_sum != 0.0)
    in_deriv->Scale(in_deriv_norm_sum / repaired_norm_sum);
}

void ClipGradientComponent::ZeroStats() {
  count_ = 0;
  num_clipped_ = 0;
  num_self_repaired_ = 0;
  num_backpropped_ = 0;
}

void ClipGradientComponent::Scale(BaseFloat scale) {
  count_ *= scale;
  num_clipped_ *= scale;
}

void ClipGradientComponent::Add(BaseFloat alpha, const Component &other_in) {
  const ClipGradientComponent *other =
      dynamic_cast<const ClipGradientComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  count_ += alpha * other->count_;
  num_clipped_ += alpha * other->num_clipped_;
}

void ClipGradientComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<ClippingThreshold>");
  WriteBasicType(os, binary, clipping_threshold_);
  WriteToken(os, binary, "<NormBasedClipping>");
  WriteBasicType(os, binary, norm_based_clipping_);
  WriteToken(os, binary, "<SelfRepairClippedProportionThreshold>");
  WriteBasicType(os, binary, self_repair_clipped_proportion_threshold_);
  WriteToken(os, binary, "<SelfRepairTarget>");
  WriteBasicType(os, binary, self_repair_target_);
  WriteToken(os, binary, "<SelfRepairScale>");
  WriteBasicType(os, binary, self_repair_scale_);
  WriteToken(os, binary, "<NumElementsClipped>");
  WriteBasicType(os, binary, num_clipped_);
  WriteToken(os, binary, "<NumElementsProcessed>");
  WriteBasicType(os, binary, count_);
  WriteToken(os, binary, "<NumSelfRepaired>");
  WriteBasicType(os, binary, num_self_repaired_);
  WriteToken(os, binary, "<NumBackpropped>");
  WriteBasicType(os, binary, num_backpropped_);
  WriteToken(os, binary, ClosingTag(*this));
}

void ClipGradientComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Dim>");
  ReadBasicType(is, binary, &dim_);
  ExpectToken(is, binary, "<ClippingThreshold>");
  ReadBasicType(is, binary, &clipping_threshold_);
  ExpectToken(is, binary, "<NormBasedClipping>");
  ReadBasicType(is, binary, &norm_based_clipping_);
  std::string token;
  ReadToken(is, binary, &token);
  if (token == "<SelfRepairClippedProportionThreshold>") {
    ReadBasicType(is, binary, &self_repair_clipped_proportion_threshold_);
    ExpectToken(is, binary, "<SelfRepairTarget>");
    ReadBasicType(is, binary, &self_repair_target_);
    ExpectToken(is, binary, "<SelfRepairScale>");
    ReadBasicType(is, binary, &self_repair_scale_);
    ExpectToken(is, binary, "<NumElementsClipped>");
  } else {
    // Older format without self-repair.
    self_repair_clipped_proportion_threshold_ = 1.0;
    self_repair_target_ = 0.0;
    self_repair_scale_ = 0.0;
    if (token != "<NumElementsClipped>")
      NNET3_ERR << "Reading " << Type() << ": expected <NumElementsClipped>, "
                << "got " << PrintableString(token);
  }
  ReadBasicType(is, binary, &num_clipped_);
  ExpectToken(is, binary, "<NumElementsProcessed>");
  ReadBasicType(is, binary, &count_);
  ReadToken(is, binary, &token);
  if (token == "<NumSelfRepaired>") {
    ReadBasicType(is, binary, &num_self_repaired_);
    ExpectToken(is, binary, "<NumBackpropped>");
    ReadBasicType(is, binary, &num_backpropped_);
    ExpectClosingTag(is, binary, *this);
  } else {
    num_self_repaired_ = 0;
    num_backpropped_ = 0;
    if (token != ClosingTag(*this))
      NNET3_ERR << "Reading " << Type() << ": expected " << ClosingTag(*this)
                << ", got " << PrintableString(token);
  }
}

// ---- PnormComponent ---------------------------------------------------------

void PnormComponent::Init(int32 input_dim, int32 output_dim) {
  CheckDivides(*this, input_dim, output_dim);
  input_dim_ = input_dim;
  output_dim_ = output_dim;
}

void PnormComponent::InitFromConfig(ConfigLine *cfl) {
  int32 input_dim = 0, output_dim = 0;
  GetInputOutputDims(cfl, *this, &input_dim, &output_dim);
  CheckNoUnusedValues(*cfl, *this);
  Init(input_dim, output_dim);
}

void *PnormComponent::Propagate(const ComponentPrecomputedIndexes *,
                                const CuMatrixBase<BaseFloat> &in,
                                CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == input_dim_ && out->NumCols() == output_dim_ &&
               in.NumRows() == out->NumRows());
  cu::GroupPnorm(in, out);
  return nullptr;
}

void PnormComponent::Backprop(const std::string &,
                              const ComponentPrecomputedIndexes *,
                              const CuMatrixBase<BaseFloat> &in_value,
                              const CuMatrixBase<BaseFloat> &out_value,
                              const CuMatrixBase<BaseFloat> &out_deriv, void *,
                              Component *,
                              CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  // d x_i = e_j * x_i / y_j (0 where y_j == 0).
  cu::DiffGroupPnorm(in_value, out_value, out_deriv, in_deriv);
}

void PnormComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<InputDim>");
  ReadBasicType(is, binary, &input_dim_);
  ExpectToken(is, binary, "<OutputDim>");
  ReadBasicType(is, binary, &output_dim_);
  ExpectClosingTag(is, binary, *this);
}

void PnormComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<InputDim>");
  WriteBasicType(os, binary, input_dim_);
  WriteToken(os, binary, "<OutputDim>");
  WriteBasicType(os, binary, output_dim_);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- SumGroupComponent ------------------------------------------------------

void SumGroupComponent::Init(const std::vector<int32> &sizes) {
  if (sizes.empty())
    NNET3_ERR << Type() << ": empty sizes";
  // The sizes come from a file or config line: check them all (positive,
  // a total that fits in int32 and whose reverse index stays under the
  // limit on declared sizes) before allocating anything for them.
  int64 total = 0;
  for (size_t j = 0; j < sizes.size(); j++) {
    if (sizes[j] <= 0)
      NNET3_ERR << Type() << ": invalid group size " << sizes[j]
                << " (sizes must be positive)";
    total += sizes[j];
    if (total > std::numeric_limits<int32>::max())
      NNET3_ERR << Type() << ": the group sizes add up to more than "
                << std::numeric_limits<int32>::max()
                << " (the input dimension would overflow int32) at group "
                << j;
  }
  if (total * static_cast<int64>(sizeof(int32)) > MaxDeclaredBytes())
    NNET3_ERR << Type() << ": the group sizes add up to " << total
              << ", whose index would exceed the limit of "
              << MaxDeclaredBytes() << " bytes on declared sizes "
              << "(NNET3_MAX_DECLARED_BYTES, see docs/io.md)";
  std::vector<Int32Pair> indexes;
  std::vector<int32> reverse_indexes;
  indexes.reserve(sizes.size());
  reverse_indexes.reserve(static_cast<size_t>(total));
  int32 cur = 0;
  for (size_t j = 0; j < sizes.size(); j++) {
    Int32Pair p;
    p.first = cur;
    p.second = cur + sizes[j];
    indexes.push_back(p);
    for (int32 k = 0; k < sizes[j]; k++)
      reverse_indexes.push_back(static_cast<int32>(j));
    cur += sizes[j];
  }
  indexes_.CopyFromVec(indexes);
  reverse_indexes_.CopyFromVec(reverse_indexes);
  input_dim_ = cur;
  output_dim_ = static_cast<int32>(sizes.size());
}

void SumGroupComponent::Init(int32 input_dim, int32 output_dim) {
  CheckDivides(*this, input_dim, output_dim);
  // The group list and the reverse index hold output-dim and input-dim
  // entries: refuse dimensions whose index would pass the limit on declared
  // sizes before building either.
  if (static_cast<int64>(input_dim) * static_cast<int64>(sizeof(int32)) >
      MaxDeclaredBytes())
    NNET3_ERR << Type() << ": input-dim=" << input_dim
              << " needs an index over the limit of " << MaxDeclaredBytes()
              << " bytes on declared sizes (NNET3_MAX_DECLARED_BYTES, see "
              << "docs/io.md)";
  Init(std::vector<int32>(output_dim, input_dim / output_dim));
}

void SumGroupComponent::GetSizes(std::vector<int32> *sizes) const {
  std::vector<Int32Pair> indexes;
  indexes_.CopyToVec(&indexes);
  sizes->clear();
  for (const Int32Pair &p : indexes) sizes->push_back(p.second - p.first);
}

void SumGroupComponent::InitFromConfig(ConfigLine *cfl) {
  std::vector<int32> sizes;
  if (cfl->GetValue("sizes", &sizes)) {
    CheckNoUnusedValues(*cfl, *this);
    if (sizes.empty())
      NNET3_ERR << Type() << ": empty sizes in config line: "
                << cfl->WholeLine();
    Init(sizes);
  } else {
    int32 input_dim = -1, output_dim = -1;
    if (!cfl->GetValue("input-dim", &input_dim) ||
        !cfl->GetValue("output-dim", &output_dim))
      NNET3_ERR << Type() << ": need 'sizes' or 'input-dim' and 'output-dim' "
                << "in the config line: " << cfl->WholeLine();
    CheckNoUnusedValues(*cfl, *this);
    Init(input_dim, output_dim);
  }
}

void *SumGroupComponent::Propagate(const ComponentPrecomputedIndexes *,
                                   const CuMatrixBase<BaseFloat> &in,
                                   CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == input_dim_ && out->NumCols() == output_dim_);
  out->SumColumnRanges(in, indexes_);
  return nullptr;
}

void SumGroupComponent::Backprop(const std::string &,
                                 const ComponentPrecomputedIndexes *,
                                 const CuMatrixBase<BaseFloat> &,
                                 const CuMatrixBase<BaseFloat> &,
                                 const CuMatrixBase<BaseFloat> &out_deriv,
                                 void *, Component *,
                                 CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  in_deriv->CopyCols(out_deriv, reverse_indexes_);
}

void SumGroupComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Sizes>");
  std::vector<int32> sizes;
  ReadIntegerVector(is, binary, &sizes);
  ExpectClosingTag(is, binary, *this);
  Init(sizes);
}

void SumGroupComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Sizes>");
  std::vector<int32> sizes;
  GetSizes(&sizes);
  WriteIntegerVector(os, binary, sizes);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- SumBlockComponent ------------------------------------------------------

void SumBlockComponent::InitFromConfig(ConfigLine *cfl) {
  int32 input_dim = 0, output_dim = 0;
  GetInputOutputDims(cfl, *this, &input_dim, &output_dim);
  scale_ = 1.0;
  cfl->GetValue("scale", &scale_);
  CheckNoUnusedValues(*cfl, *this);
  CheckDivides(*this, input_dim, output_dim);
  input_dim_ = input_dim;
  output_dim_ = output_dim;
}

std::string SumBlockComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", input-dim=" << input_dim_
     << ", output-dim=" << output_dim_ << ", scale=" << scale_;
  return os.str();
}

void *SumBlockComponent::Propagate(const ComponentPrecomputedIndexes *,
                                   const CuMatrixBase<BaseFloat> &in,
                                   CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == input_dim_ && out->NumCols() == output_dim_ &&
               in.NumRows() == out->NumRows());
  int32 num_blocks = input_dim_ / output_dim_;
  for (int32 b = 0; b < num_blocks; b++)
    out->AddMat(scale_, in.ColRange(b * output_dim_, output_dim_));
  return nullptr;
}

void SumBlockComponent::Backprop(const std::string &,
                                 const ComponentPrecomputedIndexes *,
                                 const CuMatrixBase<BaseFloat> &,
                                 const CuMatrixBase<BaseFloat> &,
                                 const CuMatrixBase<BaseFloat> &out_deriv,
                                 void *, Component *,
                                 CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  int32 num_blocks = input_dim_ / output_dim_;
  for (int32 b = 0; b < num_blocks; b++) {
    CuSubMatrix<BaseFloat> block = in_deriv->ColRange(b * output_dim_,
                                                      output_dim_);
    block.AddMat(scale_, out_deriv);
  }
}

void SumBlockComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<InputDim>");
  ReadBasicType(is, binary, &input_dim_);
  ExpectToken(is, binary, "<OutputDim>");
  ReadBasicType(is, binary, &output_dim_);
  ExpectToken(is, binary, "<Scale>");
  ReadBasicType(is, binary, &scale_);
  ExpectClosingTag(is, binary, *this);
}

void SumBlockComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<InputDim>");
  WriteBasicType(os, binary, input_dim_);
  WriteToken(os, binary, "<OutputDim>");
  WriteBasicType(os, binary, output_dim_);
  WriteToken(os, binary, "<Scale>");
  WriteBasicType(os, binary, scale_);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- ElementwiseProductComponent --------------------------------------------

void ElementwiseProductComponent::Init(int32 input_dim, int32 output_dim) {
  CheckDivides(*this, input_dim, output_dim);
  if (input_dim == output_dim)
    NNET3_ERR << Type() << ": input-dim=" << input_dim
              << " must be larger than output-dim=" << output_dim;
  input_dim_ = input_dim;
  output_dim_ = output_dim;
}

void ElementwiseProductComponent::InitFromConfig(ConfigLine *cfl) {
  int32 input_dim = 0, output_dim = 0;
  GetInputOutputDims(cfl, *this, &input_dim, &output_dim);
  CheckNoUnusedValues(*cfl, *this);
  Init(input_dim, output_dim);
}

void *ElementwiseProductComponent::Propagate(
    const ComponentPrecomputedIndexes *, const CuMatrixBase<BaseFloat> &in,
    CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == input_dim_ && out->NumCols() == output_dim_);
  int32 num_inputs = input_dim_ / output_dim_;
  for (int32 i = 0; i < num_inputs; i++) {
    CuSubMatrix<BaseFloat> block = in.ColRange(i * output_dim_, output_dim_);
    if (i == 0)
      out->CopyFromMat(block);
    else
      out->MulElements(block);
  }
  return nullptr;
}

void ElementwiseProductComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &in_value, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *, Component *,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  int32 num_inputs = input_dim_ / output_dim_;
  for (int32 i = 0; i < num_inputs; i++) {
    CuSubMatrix<BaseFloat> d =
        in_deriv->ColRange(i * output_dim_, output_dim_);
    d.CopyFromMat(out_deriv);
    for (int32 j = 0; j < num_inputs; j++)
      if (j != i) d.MulElements(in_value.ColRange(j * output_dim_, output_dim_));
  }
}

void ElementwiseProductComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<InputDim>");
  ReadBasicType(is, binary, &input_dim_);
  ExpectToken(is, binary, "<OutputDim>");
  ReadBasicType(is, binary, &output_dim_);
  ExpectClosingTag(is, binary, *this);
}

void ElementwiseProductComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<InputDim>");
  WriteBasicType(os, binary, input_dim_);
  WriteToken(os, binary, "<OutputDim>");
  WriteBasicType(os, binary, output_dim_);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- PermuteComponent -------------------------------------------------------

void PermuteComponent::Init(const std::vector<int32> &column_map) {
  if (column_map.empty()) NNET3_ERR << Type() << ": empty column-map";
  int32 dim = static_cast<int32>(column_map.size());
  std::vector<int32> reverse(dim, -1);
  for (int32 i = 0; i < dim; i++) {
    int32 c = column_map[i];
    if (c < 0 || c >= dim || reverse[c] != -1)
      NNET3_ERR << Type() << ": column-map does not represent a permutation "
                << "of 0.." << (dim - 1) << " (bad element " << c
                << " at position " << i << ")";
    reverse[c] = i;
  }
  column_map_.CopyFromVec(column_map);
  reverse_column_map_.CopyFromVec(reverse);
}

void PermuteComponent::InitFromConfig(ConfigLine *cfl) {
  std::vector<int32> column_map;
  if (!cfl->GetValue("column-map", &column_map))
    NNET3_ERR << Type() << ": 'column-map' not provided in the config line: "
              << cfl->WholeLine();
  CheckNoUnusedValues(*cfl, *this);
  Init(column_map);
}

std::string PermuteComponent::Info() const {
  std::ostringstream os;
  std::vector<int32> column_map;
  column_map_.CopyToVec(&column_map);
  os << Type() << ", dim=" << column_map.size() << " , column-map=[ ";
  const size_t max_shown = 5;
  for (size_t i = 0; i < column_map.size() && i < max_shown; i++)
    os << column_map[i] << ' ';
  if (column_map.size() > max_shown) os << "... ";
  os << "]";
  return os.str();
}

void *PermuteComponent::Propagate(const ComponentPrecomputedIndexes *,
                                  const CuMatrixBase<BaseFloat> &in,
                                  CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == InputDim());
  out->CopyCols(in, column_map_);
  return nullptr;
}

void PermuteComponent::Backprop(const std::string &,
                                const ComponentPrecomputedIndexes *,
                                const CuMatrixBase<BaseFloat> &,
                                const CuMatrixBase<BaseFloat> &,
                                const CuMatrixBase<BaseFloat> &out_deriv,
                                void *, Component *,
                                CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  in_deriv->CopyCols(out_deriv, reverse_column_map_);
}

void PermuteComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<ColumnMap>");
  std::vector<int32> column_map;
  ReadIntegerVector(is, binary, &column_map);
  ExpectClosingTag(is, binary, *this);
  Init(column_map);
}

void PermuteComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<ColumnMap>");
  std::vector<int32> column_map;
  column_map_.CopyToVec(&column_map);
  WriteIntegerVector(os, binary, column_map);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- FixedScaleComponent ----------------------------------------------------

void FixedScaleComponent::Init(const CuVectorBase<BaseFloat> &scales) {
  if (scales.Dim() == 0) NNET3_ERR << Type() << ": empty scales";
  scales_ = scales;
}

void FixedScaleComponent::InitFromConfig(ConfigLine *cfl) {
  std::string filename;
  if (cfl->GetValue("scales", &filename)) {
    CheckNoUnusedValues(*cfl, *this);
    CuVector<BaseFloat> vec;
    ReadVectorFile("scales", filename, *this, &vec);
    Init(vec);
  } else {
    int32 dim = 0;
    BaseFloat scale = 1.0;
    bool scale_is_set = cfl->GetValue("scale", &scale);
    if (!cfl->GetValue("dim", &dim))
      NNET3_ERR << Type() << ": need 'scales' or 'dim' in the config line: "
                << cfl->WholeLine();
    CheckNoUnusedValues(*cfl, *this);
    if (dim <= 0) NNET3_ERR << Type() << ": invalid dim=" << dim;
    CuVector<BaseFloat> vec(dim);
    if (scale_is_set)
      vec.Set(scale);
    else
      vec.SetRandn();
    Init(vec);
  }
}

std::string FixedScaleComponent::Info() const {
  std::ostringstream os;
  os << Component::Info();
  PrintParameterStats(os, "scales", scales_, true);
  return os.str();
}

void *FixedScaleComponent::Propagate(const ComponentPrecomputedIndexes *,
                                     const CuMatrixBase<BaseFloat> &in,
                                     CuMatrixBase<BaseFloat> *out) const {
  CopyUnlessSame(in, out);
  out->MulColsVec(scales_);
  return nullptr;
}

void FixedScaleComponent::Backprop(const std::string &,
                                   const ComponentPrecomputedIndexes *,
                                   const CuMatrixBase<BaseFloat> &,
                                   const CuMatrixBase<BaseFloat> &,
                                   const CuMatrixBase<BaseFloat> &out_deriv,
                                   void *, Component *,
                                   CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  CopyUnlessSame(out_deriv, in_deriv);
  in_deriv->MulColsVec(scales_);
}

void FixedScaleComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Scales>");
  scales_.Read(is, binary);
  ExpectClosingTag(is, binary, *this);
}

void FixedScaleComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Scales>");
  scales_.Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- FixedBiasComponent -----------------------------------------------------

void FixedBiasComponent::Init(const CuVectorBase<BaseFloat> &bias) {
  if (bias.Dim() == 0) NNET3_ERR << Type() << ": empty bias";
  bias_ = bias;
}

void FixedBiasComponent::InitFromConfig(ConfigLine *cfl) {
  std::string filename;
  if (cfl->GetValue("bias", &filename)) {
    CheckNoUnusedValues(*cfl, *this);
    CuVector<BaseFloat> vec;
    ReadVectorFile("bias", filename, *this, &vec);
    Init(vec);
  } else {
    int32 dim = 0;
    if (!cfl->GetValue("dim", &dim))
      NNET3_ERR << Type() << ": need 'bias' or 'dim' in the config line: "
                << cfl->WholeLine();
    CheckNoUnusedValues(*cfl, *this);
    if (dim <= 0) NNET3_ERR << Type() << ": invalid dim=" << dim;
    CuVector<BaseFloat> vec(dim);
    vec.SetRandn();
    Init(vec);
  }
}

std::string FixedBiasComponent::Info() const {
  std::ostringstream os;
  os << Component::Info();
  PrintParameterStats(os, "bias", bias_, true);
  return os.str();
}

void *FixedBiasComponent::Propagate(const ComponentPrecomputedIndexes *,
                                    const CuMatrixBase<BaseFloat> &in,
                                    CuMatrixBase<BaseFloat> *out) const {
  CopyUnlessSame(in, out);
  out->AddVecToRows(1.0, bias_, 1.0);
  return nullptr;
}

void FixedBiasComponent::Backprop(const std::string &,
                                  const ComponentPrecomputedIndexes *,
                                  const CuMatrixBase<BaseFloat> &,
                                  const CuMatrixBase<BaseFloat> &,
                                  const CuMatrixBase<BaseFloat> &out_deriv,
                                  void *, Component *,
                                  CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  CopyUnlessSame(out_deriv, in_deriv);
}

void FixedBiasComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Bias>");
  bias_.Read(is, binary);
  ExpectClosingTag(is, binary, *this);
}

void FixedBiasComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Bias>");
  bias_.Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- Registration -----------------------------------------------------------

void RegisterSimpleComponents(ComponentRegistry *registry) {
  registry->Add("NoOpComponent", [] { return new NoOpComponent(); });
  registry->Add("ClipGradientComponent",
                [] { return new ClipGradientComponent(); });
  registry->Add("PnormComponent", [] { return new PnormComponent(); });
  registry->Add("SumGroupComponent", [] { return new SumGroupComponent(); });
  registry->Add("SumBlockComponent", [] { return new SumBlockComponent(); });
  registry->Add("ElementwiseProductComponent",
                [] { return new ElementwiseProductComponent(); });
  registry->Add("PermuteComponent", [] { return new PermuteComponent(); });
  registry->Add("FixedScaleComponent",
                [] { return new FixedScaleComponent(); });
  registry->Add("FixedBiasComponent", [] { return new FixedBiasComponent(); });
}

}  // namespace nnet3
