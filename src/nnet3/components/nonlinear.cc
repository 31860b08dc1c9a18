// nnet3/components/nonlinear.cc
#include "nnet3/components/nonlinear.h"

#include <cmath>
#include <iomanip>
#include <sstream>

#include "cudamatrix/cu-math-fused.h"
#include "cudamatrix/cu-math-nonlinear.h"
#include "nnet3/components/parameter-stats.h"

namespace nnet3 {

namespace {

// Probability with which self-repair runs on a minibatch (Kaldi's constant);
// the repair terms are divided by it.
const BaseFloat kRepairProbability = 0.5;

template <class C>
C *CastUpdate(Component *to_update) {
  if (to_update == nullptr) return nullptr;
  C *c = dynamic_cast<C *>(to_update);
  NNET3_ASSERT(c != nullptr);
  return c;
}

}  // namespace

// ---- NonlinearComponent -----------------------------------------------------

constexpr BaseFloat NonlinearComponent::kUnsetThreshold;

NonlinearComponent::NonlinearComponent()
    : dim_(-1), block_dim_(-1), count_(0.0), oderiv_count_(0.0),
      num_dims_self_repaired_(0.0), num_dims_processed_(0.0),
      self_repair_lower_threshold_(kUnsetThreshold),
      self_repair_upper_threshold_(kUnsetThreshold),
      self_repair_scale_(0.0) {}

NonlinearComponent::NonlinearComponent(const NonlinearComponent &other)
    : Component(), dim_(other.dim_), block_dim_(other.block_dim_),
      value_sum_(other.value_sum_), deriv_sum_(other.deriv_sum_),
      count_(other.count_), oderiv_sumsq_(other.oderiv_sumsq_),
      oderiv_count_(other.oderiv_count_),
      num_dims_self_repaired_(other.num_dims_self_repaired_),
      num_dims_processed_(other.num_dims_processed_),
      self_repair_lower_threshold_(other.self_repair_lower_threshold_),
      self_repair_upper_threshold_(other.self_repair_upper_threshold_),
      self_repair_scale_(other.self_repair_scale_) {}

void NonlinearComponent::Init(int32 dim, int32 block_dim) {
  if (block_dim < 0) block_dim = dim;
  if (dim <= 0 || block_dim <= 0 || dim % block_dim != 0)
    NNET3_ERR << Type() << ": invalid dim=" << dim << " / block-dim="
              << block_dim << " (need dim > 0 and block-dim dividing dim)";
  dim_ = dim;
  block_dim_ = block_dim;
  value_sum_.Resize(0);
  deriv_sum_.Resize(0);
  oderiv_sumsq_.Resize(0);
  count_ = oderiv_count_ = 0.0;
  num_dims_self_repaired_ = num_dims_processed_ = 0.0;
}

void NonlinearComponent::InitFromConfig(ConfigLine *cfl) {
  int32 dim = -1;
  if (!cfl->GetValue("dim", &dim))
    NNET3_ERR << Type() << ": 'dim' not provided in the config line: "
              << cfl->WholeLine();
  int32 block_dim = dim;
  cfl->GetValue("block-dim", &block_dim);
  self_repair_lower_threshold_ = kUnsetThreshold;
  self_repair_upper_threshold_ = kUnsetThreshold;
  self_repair_scale_ = 0.0;
  cfl->GetValue("self-repair-lower-threshold", &self_repair_lower_threshold_);
  cfl->GetValue("self-repair-upper-threshold", &self_repair_upper_threshold_);
  cfl->GetValue("self-repair-scale", &self_repair_scale_);
  CheckNoUnusedValues(*cfl, *this);
  if (dim <= 0 || block_dim <= 0 || dim % block_dim != 0)
    NNET3_ERR << Type() << ": invalid dim=" << dim << " block-dim="
              << block_dim << " in config line: " << cfl->WholeLine();
  Init(dim, block_dim);
}

std::string NonlinearComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", dim=" << dim_;
  if (block_dim_ != dim_) os << ", block-dim=" << block_dim_;
  if (self_repair_lower_threshold_ != kUnsetThreshold)
    os << ", self-repair-lower-threshold=" << self_repair_lower_threshold_;
  if (self_repair_upper_threshold_ != kUnsetThreshold)
    os << ", self-repair-upper-threshold=" << self_repair_upper_threshold_;
  if (self_repair_scale_ != 0.0)
    os << ", self-repair-scale=" << self_repair_scale_;
  if (count_ > 0 && value_sum_.Dim() == dim_) {
    os << ", count=" << std::setprecision(3) << count_
       << std::setprecision(6);
    os << ", self-repaired-proportion="
       << (num_dims_processed_ > 0
               ? num_dims_self_repaired_ / num_dims_processed_
               : 0);
    Vector<BaseFloat> value_avg(value_sum_.Download());
    value_avg.Scale(1.0 / count_);
    os << ", value-avg=" << SummarizeVector(value_avg);
    if (deriv_sum_.Dim() == dim_) {
      Vector<BaseFloat> deriv_avg(deriv_sum_.Download());
      deriv_avg.Scale(1.0 / count_);
      os << ", deriv-avg=" << SummarizeVector(deriv_avg);
    }
  }
  if (oderiv_count_ > 0 && oderiv_sumsq_.Dim() == dim_) {
    Vector<double> rms(oderiv_sumsq_.Download());
    rms.Scale(1.0 / oderiv_count_);
    rms.ApplyFloor(0.0);
    rms.ApplyPow(0.5);
    Vector<BaseFloat> rms_f(rms);
    os << ", oderiv-rms=" << SummarizeVector(rms_f);
  }
  return os.str();
}

void NonlinearComponent::StoreStatsInternal(
    const CuMatrixBase<BaseFloat> &out_value,
    const CuMatrixBase<BaseFloat> *deriv) {
  NNET3_ASSERT(out_value.NumCols() == dim_);
  // Column sums, accumulated where the computation runs.
  CuVector<BaseFloat> value_sums(dim_), deriv_sums;
  value_sums.AddRowSumMat(1.0, out_value, 0.0);
  if (deriv != nullptr) {
    NNET3_ASSERT(SameDim(*deriv, out_value));
    deriv_sums.Resize(dim_);
    deriv_sums.AddRowSumMat(1.0, *deriv, 0.0);
  }
  AddStats(out_value.NumRows(), value_sums,
           deriv != nullptr ? &deriv_sums : nullptr);
}

void NonlinearComponent::AddStats(int32 num_rows,
                                  const CuVectorBase<BaseFloat> &value_sums,
                                  const CuVectorBase<BaseFloat> *deriv_sums) {
  NNET3_ASSERT(value_sums.Dim() == dim_ &&
               (deriv_sums == nullptr || deriv_sums->Dim() == dim_));
  if (value_sum_.Dim() != dim_) {
    value_sum_.Resize(dim_);
    count_ = 0.0;
  }
  if (deriv_sums != nullptr && deriv_sum_.Dim() != dim_) {
    deriv_sum_.Resize(dim_);
    count_ = 0.0;
    value_sum_.SetZero();
  }
  count_ += num_rows;
  value_sum_.AddVec(1.0, value_sums);
  if (deriv_sums != nullptr) deriv_sum_.AddVec(1.0, *deriv_sums);
}

bool NonlinearComponent::FindSaturatedDims(BaseFloat default_lower_threshold,
                                           NonlinearComponent *to_update,
                                           CuVector<BaseFloat> *saturated) const {
  to_update->num_dims_processed_ += dim_;
  if (self_repair_scale_ == 0.0 || count_ == 0.0 || deriv_sum_.Dim() != dim_ ||
      RandUniform() > kRepairProbability)
    return false;
  if (!(self_repair_scale_ > 0.0 && self_repair_scale_ < 0.1))
    NNET3_ERR << Type() << ": self-repair-scale=" << self_repair_scale_
              << " is out of the range (0, 0.1)";
  if (self_repair_upper_threshold_ != kUnsetThreshold)
    NNET3_ERR << Type() << ": do not set self-repair-upper-threshold for "
              << "this component type, it does nothing.";
  BaseFloat lower_threshold =
      (self_repair_lower_threshold_ == kUnsetThreshold
           ? default_lower_threshold
           : self_repair_lower_threshold_) * count_;
  // 1 for the dimensions whose derivative sum is below the threshold.
  saturated->Resize(dim_);
  saturated->AddVec(-1.0, deriv_sum_);
  saturated->Add(lower_threshold);
  saturated->ApplyHeaviside();
  to_update->num_dims_self_repaired_ += saturated->Sum();
  return true;
}

void NonlinearComponent::StoreBackpropStats(
    const CuMatrixBase<BaseFloat> &out_deriv) {
  if (!WantBackpropStats()) return;
  NNET3_ASSERT(out_deriv.NumCols() == dim_);
  CuVector<BaseFloat> sumsq(dim_);
  sumsq.AddDiagMat2(1.0, out_deriv, kTrans, 0.0);
  AddBackpropStats(out_deriv.NumRows(), sumsq);
}

bool NonlinearComponent::WantBackpropStats() {
  // Always on the first minibatch, afterwards skipped one time in four.
  if (RandInt(0, 3) == 0 && oderiv_count_ != 0.0) return false;
  if (oderiv_sumsq_.Dim() != dim_) {
    oderiv_sumsq_.Resize(dim_);
    oderiv_count_ = 0.0;
  }
  return true;
}

void NonlinearComponent::AddBackpropStats(
    int32 num_rows, const CuVectorBase<BaseFloat> &sumsq) {
  NNET3_ASSERT(sumsq.Dim() == dim_ && oderiv_sumsq_.Dim() == dim_);
  oderiv_sumsq_.AddVec(1.0, sumsq);
  oderiv_count_ += num_rows;
}

void NonlinearComponent::ZeroStats() {
  value_sum_.SetZero();
  deriv_sum_.SetZero();
  oderiv_sumsq_.SetZero();
  count_ = 0.0;
  oderiv_count_ = 0.0;
  num_dims_self_repaired_ = 0.0;
  num_dims_processed_ = 0.0;
}

void NonlinearComponent::Scale(BaseFloat scale) {
  value_sum_.Scale(scale);
  deriv_sum_.Scale(scale);
  oderiv_sumsq_.Scale(scale);
  count_ *= scale;
  oderiv_count_ *= scale;
  num_dims_self_repaired_ *= scale;
  num_dims_processed_ *= scale;
}

void NonlinearComponent::Add(BaseFloat alpha, const Component &other_in) {
  const NonlinearComponent *other =
      dynamic_cast<const NonlinearComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  if (value_sum_.Dim() == 0 && other->value_sum_.Dim() != 0)
    value_sum_.Resize(other->value_sum_.Dim());
  if (deriv_sum_.Dim() == 0 && other->deriv_sum_.Dim() != 0)
    deriv_sum_.Resize(other->deriv_sum_.Dim());
  if (oderiv_sumsq_.Dim() == 0 && other->oderiv_sumsq_.Dim() != 0)
    oderiv_sumsq_.Resize(other->oderiv_sumsq_.Dim());
  if (other->value_sum_.Dim() != 0) value_sum_.AddVec(alpha, other->value_sum_);
  if (other->deriv_sum_.Dim() != 0) deriv_sum_.AddVec(alpha, other->deriv_sum_);
  if (other->oderiv_sumsq_.Dim() != 0)
    oderiv_sumsq_.AddVec(alpha, other->oderiv_sumsq_);
  count_ += alpha * other->count_;
  oderiv_count_ += alpha * other->oderiv_count_;
  num_dims_self_repaired_ += alpha * other->num_dims_self_repaired_;
  num_dims_processed_ += alpha * other->num_dims_processed_;
}

void NonlinearComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Dim>");
  ReadBasicType(is, binary, &dim_);
  if (PeekToken(is, binary) == 'B') {
    ExpectToken(is, binary, "<BlockDim>");
    ReadBasicType(is, binary, &block_dim_);
  } else {
    block_dim_ = dim_;
  }
  if (dim_ <= 0 || block_dim_ <= 0 || dim_ % block_dim_ != 0)
    NNET3_ERR << "Reading " << Type() << ": invalid <Dim> " << dim_
              << " / <BlockDim> " << block_dim_;
  // The averages are stored in single precision; the sums are double.
  Vector<BaseFloat> temp;
  ExpectToken(is, binary, "<ValueAvg>");
  temp.Read(is, binary);
  value_sum_.Resize(temp.Dim(), kUndefined);
  value_sum_.CopyFromVec(temp);
  ExpectToken(is, binary, "<DerivAvg>");
  temp.Read(is, binary);
  deriv_sum_.Resize(temp.Dim(), kUndefined);
  deriv_sum_.CopyFromVec(temp);
  ExpectToken(is, binary, "<Count>");
  ReadBasicType(is, binary, &count_);
  value_sum_.Scale(count_);
  deriv_sum_.Scale(count_);

  std::string token;
  ReadToken(is, binary, &token);
  oderiv_sumsq_.Resize(0);
  oderiv_count_ = 0.0;
  if (token == "<OderivRms>") {
    temp.Read(is, binary);
    oderiv_sumsq_.Resize(temp.Dim(), kUndefined);
    oderiv_sumsq_.CopyFromVec(temp);
    ExpectToken(is, binary, "<OderivCount>");
    ReadBasicType(is, binary, &oderiv_count_);
    oderiv_sumsq_.ApplyPow(2.0);
    oderiv_sumsq_.Scale(oderiv_count_);
    ReadToken(is, binary, &token);
  }
  num_dims_self_repaired_ = 0.0;
  num_dims_processed_ = 0.0;
  self_repair_lower_threshold_ = kUnsetThreshold;
  self_repair_upper_threshold_ = kUnsetThreshold;
  self_repair_scale_ = 0.0;
  if (token == "<NumDimsSelfRepaired>") {
    ReadBasicType(is, binary, &num_dims_self_repaired_);
    ReadToken(is, binary, &token);
  }
  if (token == "<NumDimsProcessed>") {
    ReadBasicType(is, binary, &num_dims_processed_);
    ReadToken(is, binary, &token);
  }
  if (token == "<SelfRepairLowerThreshold>") {
    ReadBasicType(is, binary, &self_repair_lower_threshold_);
    ReadToken(is, binary, &token);
  }
  if (token == "<SelfRepairUpperThreshold>") {
    ReadBasicType(is, binary, &self_repair_upper_threshold_);
    ReadToken(is, binary, &token);
  }
  if (token == "<SelfRepairScale>") {
    ReadBasicType(is, binary, &self_repair_scale_);
    ReadToken(is, binary, &token);
  }
  if (token != ClosingTag(*this))
    NNET3_ERR << "Reading " << Type() << ": expected token "
              << ClosingTag(*this) << ", got " << PrintableString(token);
}

void NonlinearComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  if (block_dim_ != dim_) {
    WriteToken(os, binary, "<BlockDim>");
    WriteBasicType(os, binary, block_dim_);
  }
  // Count-normalized, in single precision, as Kaldi writes them.
  WriteToken(os, binary, "<ValueAvg>");
  Vector<BaseFloat> temp(value_sum_.Download());
  if (count_ != 0.0) temp.Scale(1.0 / count_);
  temp.Write(os, binary);
  WriteToken(os, binary, "<DerivAvg>");
  temp = Vector<BaseFloat>(deriv_sum_.Download());
  if (count_ != 0.0) temp.Scale(1.0 / count_);
  temp.Write(os, binary);
  WriteToken(os, binary, "<Count>");
  WriteBasicType(os, binary, count_);
  WriteToken(os, binary, "<OderivRms>");
  temp = Vector<BaseFloat>(oderiv_sumsq_.Download());
  if (oderiv_count_ != 0.0) temp.Scale(1.0 / oderiv_count_);
  temp.ApplyFloor(0.0);
  temp.ApplyPow(0.5);
  temp.Write(os, binary);
  WriteToken(os, binary, "<OderivCount>");
  WriteBasicType(os, binary, oderiv_count_);
  WriteToken(os, binary, "<NumDimsSelfRepaired>");
  WriteBasicType(os, binary, num_dims_self_repaired_);
  WriteToken(os, binary, "<NumDimsProcessed>");
  WriteBasicType(os, binary, num_dims_processed_);
  if (self_repair_lower_threshold_ != kUnsetThreshold) {
    WriteToken(os, binary, "<SelfRepairLowerThreshold>");
    WriteBasicType(os, binary, self_repair_lower_threshold_);
  }
  if (self_repair_upper_threshold_ != kUnsetThreshold) {
    WriteToken(os, binary, "<SelfRepairUpperThreshold>");
    WriteBasicType(os, binary, self_repair_upper_threshold_);
  }
  if (self_repair_scale_ != 0.0) {
    WriteToken(os, binary, "<SelfRepairScale>");
    WriteBasicType(os, binary, self_repair_scale_);
  }
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- SigmoidComponent -------------------------------------------------------

void *SigmoidComponent::Propagate(const ComponentPrecomputedIndexes *,
                                  const CuMatrixBase<BaseFloat> &in,
                                  CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  out->Sigmoid(in);
  return nullptr;
}

void SigmoidComponent::Backprop(const std::string &,
                                const ComponentPrecomputedIndexes *,
                                const CuMatrixBase<BaseFloat> &,
                                const CuMatrixBase<BaseFloat> &out_value,
                                const CuMatrixBase<BaseFloat> &out_deriv,
                                void *, Component *to_update_in,
                                CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  in_deriv->DiffSigmoid(out_value, out_deriv);
  SigmoidComponent *to_update = CastUpdate<SigmoidComponent>(to_update_in);
  if (to_update != nullptr) {
    RepairGradients(out_value, in_deriv, to_update);
    to_update->StoreBackpropStats(out_deriv);
  }
}

void SigmoidComponent::RepairGradients(const CuMatrixBase<BaseFloat> &out_value,
                                       CuMatrixBase<BaseFloat> *in_deriv,
                                       SigmoidComponent *to_update) const {
  // The sigmoid's derivative is at most 0.25; below 0.05 on average a unit
  // counts as saturated.
  CuVector<BaseFloat> saturated;
  if (!FindSaturatedDims(0.05, to_update, &saturated)) return;
  // in_deriv += -scale/p * (2 y - 1) on those dimensions.
  in_deriv->AddMatDiagVec(-2.0 * self_repair_scale_ / kRepairProbability,
                          out_value, kNoTrans, saturated);
  in_deriv->AddVecToRows(self_repair_scale_ / kRepairProbability, saturated);
}

void SigmoidComponent::StoreStats(const CuMatrixBase<BaseFloat> &,
                                  const CuMatrixBase<BaseFloat> &out_value,
                                  void *) {
  // Every other minibatch (always the first one).
  if (RandInt(0, 1) == 0 && count_ != 0) return;
  CuMatrix<BaseFloat> deriv(out_value.NumRows(), out_value.NumCols(),
                            kUndefined);
  deriv.Set(1.0);
  deriv.AddMat(-1.0, out_value);
  deriv.MulElements(out_value);
  StoreStatsInternal(out_value, &deriv);
}

// ---- TanhComponent ----------------------------------------------------------

void *TanhComponent::Propagate(const ComponentPrecomputedIndexes *,
                               const CuMatrixBase<BaseFloat> &in,
                               CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  out->Tanh(in);
  return nullptr;
}

void TanhComponent::Backprop(const std::string &,
                             const ComponentPrecomputedIndexes *,
                             const CuMatrixBase<BaseFloat> &,
                             const CuMatrixBase<BaseFloat> &out_value,
                             const CuMatrixBase<BaseFloat> &out_deriv, void *,
                             Component *to_update_in,
                             CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  in_deriv->DiffTanh(out_value, out_deriv);
  TanhComponent *to_update = CastUpdate<TanhComponent>(to_update_in);
  if (to_update != nullptr) {
    RepairGradients(out_value, in_deriv, to_update);
    to_update->StoreBackpropStats(out_deriv);
  }
}

void TanhComponent::RepairGradients(const CuMatrixBase<BaseFloat> &out_value,
                                    CuMatrixBase<BaseFloat> *in_deriv,
                                    TanhComponent *to_update) const {
  // The tanh's derivative is at most 1; below 0.2 on average a unit counts
  // as saturated.
  CuVector<BaseFloat> saturated;
  if (!FindSaturatedDims(0.2, to_update, &saturated)) return;
  // in_deriv += -scale/p * y on those dimensions.
  in_deriv->AddMatDiagVec(-self_repair_scale_ / kRepairProbability, out_value,
                          kNoTrans, saturated);
}

void TanhComponent::StoreStats(const CuMatrixBase<BaseFloat> &,
                               const CuMatrixBase<BaseFloat> &out_value,
                               void *) {
  if (RandInt(0, 1) == 0 && count_ != 0) return;
  // Derivative 1 - y^2.
  CuMatrix<BaseFloat> deriv(out_value);
  deriv.ApplyPow(2.0);
  deriv.Scale(-1.0);
  deriv.Add(1.0);
  StoreStatsInternal(out_value, &deriv);
}

// ---- RectifiedLinearComponent -----------------------------------------------

void *RectifiedLinearComponent::Propagate(const ComponentPrecomputedIndexes *,
                                          const CuMatrixBase<BaseFloat> &in,
                                          CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  if (out->Data() != in.Data()) out->CopyFromMat(in);
  out->ApplyFloor(0.0);
  return nullptr;
}

void RectifiedLinearComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &, const CuMatrixBase<BaseFloat> &out_value,
    const CuMatrixBase<BaseFloat> &out_deriv, void *, Component *to_update_in,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, *in_deriv));
  RectifiedLinearComponent *to_update =
      CastUpdate<RectifiedLinearComponent>(to_update_in);
  if (to_update == nullptr) {
    cu::BackpropRectifiedLinear(out_value, out_deriv, in_deriv);
    return;
  }
  NNET3_ASSERT(out_deriv.NumCols() == dim_);
  // The statistics, the derivative and the repair term in one pass over the
  // matrices; the random choices are drawn in the same order as when they
  // were separate steps (statistics first, then repair).
  CuVector<BaseFloat> sumsq;
  if (to_update->WantBackpropStats()) sumsq.Resize(dim_);
  CuVector<BaseFloat> repair;
  const bool repairing = RepairTerm(to_update, &repair);
  cu::BackpropRectifiedLinearWithStats(
      out_value, out_deriv, sumsq.Dim() != 0 ? &sumsq : nullptr,
      repairing && block_dim_ == dim_ ? &repair : nullptr, in_deriv);
  if (sumsq.Dim() != 0)
    to_update->AddBackpropStats(out_deriv.NumRows(), sumsq);
  if (repairing && block_dim_ != dim_) {
    // The term is per block position: view the matrix as
    // (rows * dim / block-dim) x block-dim.
    NNET3_ASSERT(in_deriv->NumCols() == in_deriv->Stride());
    CuSubMatrix<BaseFloat> reshaped(in_deriv->Data(),
                                    in_deriv->NumRows() * (dim_ / block_dim_),
                                    block_dim_, block_dim_);
    reshaped.AddVecToRows(1.0, repair, 1.0);
  }
}

bool RectifiedLinearComponent::RepairTerm(RectifiedLinearComponent *to_update,
                                          CuVector<BaseFloat> *repair) const {
  const BaseFloat default_lower_threshold = 0.05,
                  default_upper_threshold = 0.95;
  if (self_repair_scale_ == 0.0 || count_ == 0.0 || deriv_sum_.Dim() != dim_)
    return false;
  if (RandUniform() > kRepairProbability) return false;
  to_update->num_dims_processed_ += block_dim_;
  if (!(self_repair_scale_ > 0.0 && self_repair_scale_ < 0.1))
    NNET3_ERR << Type() << ": self-repair-scale=" << self_repair_scale_
              << " is out of the range (0, 0.1)";
  BaseFloat count = count_;
  BaseFloat lower_threshold =
      (self_repair_lower_threshold_ == kUnsetThreshold
           ? default_lower_threshold
           : self_repair_lower_threshold_) * count;
  BaseFloat upper_threshold =
      (self_repair_upper_threshold_ == kUnsetThreshold
           ? default_upper_threshold
           : self_repair_upper_threshold_) * count;
  // Derivative sums per block position (averaged over the blocks).
  CuVector<BaseFloat> stats(block_dim_, kUndefined);
  if (block_dim_ == dim_) {
    stats.CopyFromVec(deriv_sum_);
  } else {
    CuVector<double> avg(block_dim_);
    int32 num_blocks = dim_ / block_dim_;
    for (int32 b = 0; b < num_blocks; b++)
      avg.AddVec(1.0, deriv_sum_.Range(b * block_dim_, block_dim_));
    avg.Scale(block_dim_ * 1.0 / dim_);
    stats.CopyFromVec(avg);
  }
  // repair(j) = (stats <= lower ? 1 : 0) + (stats > upper ? -1 : 0), i.e.
  // [stats > lower] + [stats > upper] - 1 (negated by the scale below).
  CuVector<BaseFloat> above_upper(stats);
  above_upper.Add(-upper_threshold);
  above_upper.ApplyHeaviside();
  repair->Resize(block_dim_, kUndefined);
  repair->CopyFromVec(stats);
  repair->Add(-lower_threshold);
  repair->ApplyHeaviside();
  repair->AddVec(1.0, above_upper);
  repair->Add(-1.0);
  // The entries are 0, 1 or -1: the sum of squares counts the repaired dims.
  to_update->num_dims_self_repaired_ += VecVec(*repair, *repair);
  repair->Scale(-self_repair_scale_ / kRepairProbability);
  return true;
}

void RectifiedLinearComponent::StoreStats(
    const CuMatrixBase<BaseFloat> &, const CuMatrixBase<BaseFloat> &out_value,
    void *) {
  if (RandInt(0, 1) == 0 && count_ != 0) return;
  NNET3_ASSERT(out_value.NumCols() == dim_);
  // The derivative is 1 where the output is positive: its column sums are
  // counts, taken in the same pass as the value sums.
  CuVector<BaseFloat> value_sums(dim_), deriv_sums(dim_);
  cu::ColumnSumsAndPositiveCounts(out_value, &value_sums, &deriv_sums);
  AddStats(out_value.NumRows(), value_sums, &deriv_sums);
}

// ---- SoftmaxComponent -------------------------------------------------------

void *SoftmaxComponent::Propagate(const ComponentPrecomputedIndexes *,
                                  const CuMatrixBase<BaseFloat> &in,
                                  CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  out->SoftMaxPerRow(in);
  // Keeps outputs away from exact zero, as Kaldi does.
  out->ApplyFloor(1.0e-20);
  return nullptr;
}

void SoftmaxComponent::Backprop(const std::string &,
                                const ComponentPrecomputedIndexes *,
                                const CuMatrixBase<BaseFloat> &,
                                const CuMatrixBase<BaseFloat> &out_value,
                                const CuMatrixBase<BaseFloat> &out_deriv,
                                void *, Component *to_update_in,
                                CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, *in_deriv));
  NonlinearComponent *to_update = CastUpdate<NonlinearComponent>(to_update_in);
  // Stats first: Backprop may run in place.
  if (to_update != nullptr) to_update->StoreBackpropStats(out_deriv);
  // d = y .* (e - (y . e)) per row.
  cu::DiffSoftmaxPerRow(out_value, out_deriv, in_deriv);
}

void SoftmaxComponent::StoreStats(const CuMatrixBase<BaseFloat> &,
                                  const CuMatrixBase<BaseFloat> &out_value,
                                  void *) {
  // Output averages only; no derivative statistics for softmax.
  StoreStatsInternal(out_value, nullptr);
}

// ---- LogSoftmaxComponent ----------------------------------------------------

void *LogSoftmaxComponent::Propagate(const ComponentPrecomputedIndexes *,
                                     const CuMatrixBase<BaseFloat> &in,
                                     CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  out->LogSoftMaxPerRow(in);
  return nullptr;
}

void LogSoftmaxComponent::Backprop(const std::string &,
                                   const ComponentPrecomputedIndexes *,
                                   const CuMatrixBase<BaseFloat> &,
                                   const CuMatrixBase<BaseFloat> &out_value,
                                   const CuMatrixBase<BaseFloat> &out_deriv,
                                   void *, Component *to_update_in,
                                   CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, *in_deriv));
  NonlinearComponent *to_update = CastUpdate<NonlinearComponent>(to_update_in);
  if (to_update != nullptr) to_update->StoreBackpropStats(out_deriv);
  // d = e - exp(y) * sum(e) per row.
  cu::DiffLogSoftmaxPerRow(out_value, out_deriv, in_deriv);
}

// ---- Registration -----------------------------------------------------------

void RegisterNonlinearComponents(ComponentRegistry *registry) {
  registry->Add("SigmoidComponent", [] { return new SigmoidComponent(); });
  registry->Add("TanhComponent", [] { return new TanhComponent(); });
  registry->Add("RectifiedLinearComponent",
                [] { return new RectifiedLinearComponent(); });
  registry->Add("SoftmaxComponent", [] { return new SoftmaxComponent(); });
  registry->Add("LogSoftmaxComponent",
                [] { return new LogSoftmaxComponent(); });
}

}  // namespace nnet3
