// nnet3/components/normalize.cc
#include "nnet3/components/normalize.h"

#include <cmath>
#include <sstream>

#include "cudamatrix/cu-math-fused.h"
#include "cudamatrix/cu-math-nonlinear.h"
#include "nnet3/components/parameter-stats.h"

namespace nnet3 {

namespace {

// Views a contiguous rows x cols matrix as (rows * cols / block) x block.
CuSubMatrix<BaseFloat> Reshape(const CuMatrixBase<BaseFloat> &m,
                               int32 block) {
  NNET3_ASSERT(m.Stride() == m.NumCols() || m.NumRows() <= 1);
  int32 ratio = m.NumCols() / block;
  return CuSubMatrix<BaseFloat>(m.Data(), m.NumRows() * ratio, block, block);
}

template <class T>
void ReadValue(std::istream &is, bool binary, const char *token, T *value) {
  ExpectToken(is, binary, token);
  ReadBasicType(is, binary, value);
}

}  // namespace

// ---- NormalizeComponent -------------------------------------------------------

void NormalizeComponent::InitFromConfig(ConfigLine *cfl) {
  input_dim_ = 0;
  if (!cfl->GetValue("dim", &input_dim_)) cfl->GetValue("input-dim", &input_dim_);
  if (input_dim_ <= 0)
    NNET3_ERR << "NormalizeComponent needs dim=... (or input-dim=...) > 0";
  block_dim_ = input_dim_;
  cfl->GetValue("block-dim", &block_dim_);
  target_rms_ = 1.0;
  cfl->GetValue("target-rms", &target_rms_);
  add_log_stddev_ = false;
  cfl->GetValue("add-log-stddev", &add_log_stddev_);
  if (block_dim_ <= 0 || input_dim_ % block_dim_ != 0)
    NNET3_ERR << "NormalizeComponent: block-dim=" << block_dim_
              << " must divide dim=" << input_dim_;
  if (!(target_rms_ > 0.0))
    NNET3_ERR << "NormalizeComponent: target-rms must be positive";
  CheckNoUnusedValues(*cfl, *this);
}

int32 NormalizeComponent::Properties() const {
  return kSimpleComponent | kBackpropNeedsInput | kBackpropAdds |
         (add_log_stddev_ ? 0 : kPropagateInPlace | kBackpropInPlace) |
         (block_dim_ != input_dim_ ? kInputContiguous | kOutputContiguous : 0);
}

void *NormalizeComponent::Propagate(const ComponentPrecomputedIndexes *,
                                    const CuMatrixBase<BaseFloat> &in,
                                    CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               in.NumRows() == out->NumRows());
  if (block_dim_ != input_dim_) {
    int32 out_block = block_dim_ + (add_log_stddev_ ? 1 : 0);
    CuSubMatrix<BaseFloat> in_r = Reshape(in, block_dim_),
                           out_r = Reshape(*out, out_block);
    cu::NormalizePerRow(in_r, target_rms_, add_log_stddev_, &out_r);
  } else {
    cu::NormalizePerRow(in, target_rms_, add_log_stddev_, out);
  }
  return nullptr;
}

void NormalizeComponent::Backprop(const std::string &,
                                  const ComponentPrecomputedIndexes *,
                                  const CuMatrixBase<BaseFloat> &in_value,
                                  const CuMatrixBase<BaseFloat> &,
                                  const CuMatrixBase<BaseFloat> &out_deriv,
                                  void *, Component *,
                                  CuMatrixBase<BaseFloat> *in_deriv) const {
  if (!in_deriv) return;
  if (block_dim_ != input_dim_) {
    int32 out_block = block_dim_ + (add_log_stddev_ ? 1 : 0);
    CuSubMatrix<BaseFloat> in_r = Reshape(in_value, block_dim_),
                           od_r = Reshape(out_deriv, out_block),
                           id_r = Reshape(*in_deriv, block_dim_);
    cu::DiffNormalizePerRow(in_r, od_r, target_rms_, add_log_stddev_, &id_r);
  } else {
    cu::DiffNormalizePerRow(in_value, out_deriv, target_rms_, add_log_stddev_,
                        in_deriv);
  }
}

Component *NormalizeComponent::Copy() const {
  NormalizeComponent *c = new NormalizeComponent();
  c->input_dim_ = input_dim_;
  c->block_dim_ = block_dim_;
  c->target_rms_ = target_rms_;
  c->add_log_stddev_ = add_log_stddev_;
  return c;
}

void NormalizeComponent::Read(std::istream &is, bool binary) {
  std::string token;
  ReadToken(is, binary, &token);
  if (token == OpeningTag(*this)) ReadToken(is, binary, &token);
  if (token != "<Dim>" && token != "<InputDim>")
    NNET3_ERR << "NormalizeComponent: expected <InputDim>, got " << token;
  ReadBasicType(is, binary, &input_dim_);
  ReadToken(is, binary, &token);
  block_dim_ = input_dim_;
  if (token == "<BlockDim>") {
    ReadBasicType(is, binary, &block_dim_);
    ReadToken(is, binary, &token);
  }
  target_rms_ = 1.0;
  if (token == "<TargetRms>") {
    ReadBasicType(is, binary, &target_rms_);
    ReadToken(is, binary, &token);
  }
  add_log_stddev_ = false;
  if (token == "<AddLogStddev>") {
    ReadBasicType(is, binary, &add_log_stddev_);
    ReadToken(is, binary, &token);
  }
  if (token == "<ValueAvg>") {
    // Old models kept statistics here; they are read and dropped.
    Vector<double> temp;
    temp.Read(is, binary);
    ExpectToken(is, binary, "<DerivAvg>");
    temp.Read(is, binary);
    double count;
    ReadValue(is, binary, "<Count>", &count);
    ReadToken(is, binary, &token);
  }
  if (token != ClosingTag(*this))
    NNET3_ERR << "NormalizeComponent: expected " << ClosingTag(*this)
              << ", got " << token;
  if (input_dim_ <= 0 || block_dim_ <= 0 || input_dim_ % block_dim_ != 0)
    NNET3_ERR << "NormalizeComponent: bad dims " << input_dim_ << ", "
              << block_dim_;
}

void NormalizeComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<InputDim>");
  WriteBasicType(os, binary, input_dim_);
  if (block_dim_ != input_dim_) {
    WriteToken(os, binary, "<BlockDim>");
    WriteBasicType(os, binary, block_dim_);
  }
  WriteToken(os, binary, "<TargetRms>");
  WriteBasicType(os, binary, target_rms_);
  WriteToken(os, binary, "<AddLogStddev>");
  WriteBasicType(os, binary, add_log_stddev_);
  WriteToken(os, binary, ClosingTag(*this));
}

std::string NormalizeComponent::Info() const {
  std::ostringstream os;
  os << Component::Info() << ", target-rms=" << target_rms_
     << ", add-log-stddev=" << (add_log_stddev_ ? "true" : "false");
  if (block_dim_ != input_dim_) os << ", block-dim=" << block_dim_;
  return os.str();
}

// ---- BatchNormComponent -------------------------------------------------------

void BatchNormComponent::Check() const {
  if (dim_ <= 0 || block_dim_ <= 0 || dim_ % block_dim_ != 0)
    NNET3_ERR << "BatchNormComponent: block-dim=" << block_dim_
              << " must be positive and divide dim=" << dim_;
  if (!(epsilon_ > 0.0) || !(target_rms_ > 0.0))
    NNET3_ERR << "BatchNormComponent: epsilon and target-rms must be positive";
  if (stats_sum_.Dim() != block_dim_ || stats_sumsq_.Dim() != block_dim_)
    NNET3_ERR << "BatchNormComponent: statistics have dim "
              << stats_sum_.Dim() << ", expected " << block_dim_;
}

void BatchNormComponent::InitFromConfig(ConfigLine *cfl) {
  dim_ = 0;
  if (!cfl->GetValue("dim", &dim_) || dim_ <= 0)
    NNET3_ERR << "BatchNormComponent needs dim=... > 0";
  block_dim_ = dim_;
  cfl->GetValue("block-dim", &block_dim_);
  epsilon_ = 1.0e-03;
  cfl->GetValue("epsilon", &epsilon_);
  target_rms_ = 1.0;
  cfl->GetValue("target-rms", &target_rms_);
  test_mode_ = false;
  cfl->GetValue("test-mode", &test_mode_);
  CheckNoUnusedValues(*cfl, *this);
  count_ = 0.0;
  stats_sum_.Resize(block_dim_ > 0 ? block_dim_ : 0);
  stats_sumsq_.Resize(block_dim_ > 0 ? block_dim_ : 0);
  Check();
  ComputeDerived();
}

int32 BatchNormComponent::Properties() const {
  return kSimpleComponent | kBackpropNeedsOutput | kPropagateInPlace |
         kBackpropInPlace |
         (block_dim_ < dim_ ? kInputContiguous | kOutputContiguous : 0) |
         (test_mode_ ? 0 : kUsesMemo | kStoresStats);
}

void BatchNormComponent::ComputeDerived() {
  if (!test_mode_) {
    offset_.Resize(0);
    scale_.Resize(0);
    return;
  }
  if (count_ == 0.0) {
    NNET3_WARN << "BatchNormComponent in test mode has no statistics; using "
                  "random ones (expected only in tests and diagnostics)";
    count_ = 1.0;
    stats_sum_.SetRandn();
    stats_sumsq_.SetRandn();
    stats_sumsq_.AddVecVec(1.0, stats_sum_, stats_sum_, 1.0);
  }
  offset_.Resize(block_dim_);
  scale_.Resize(block_dim_);
  offset_.CopyFromVec(stats_sum_);
  offset_.Scale(-1.0 / count_);          // -mean
  scale_.CopyFromVec(stats_sumsq_);
  scale_.Scale(1.0 / count_);
  scale_.AddVecVec(-1.0, offset_, offset_, 1.0);  // variance
  scale_.ApplyFloor(0.0);
  scale_.Add(epsilon_);
  scale_.ApplyPow(-0.5);
  scale_.Scale(target_rms_);
  offset_.MulElements(scale_);           // -mean * scale
}

void BatchNormComponent::SetTestMode(bool test_mode) {
  test_mode_ = test_mode;
  ComputeDerived();
}

void *BatchNormComponent::Propagate(const ComponentPrecomputedIndexes *indexes,
                                    const CuMatrixBase<BaseFloat> &in,
                                    CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) &&
               (in.NumCols() == dim_ || in.NumCols() == block_dim_));
  if (in.NumCols() != block_dim_) {
    CuSubMatrix<BaseFloat> in_r = Reshape(in, block_dim_),
                           out_r = Reshape(*out, block_dim_);
    return Propagate(indexes, in_r, &out_r);
  }
  if (!test_mode_) {
    Memo *memo = new Memo;
    int32 num_frames = in.NumRows();
    memo->num_frames = num_frames;
    memo->mean_uvar_scale.Resize(5, block_dim_);
    CuSubVector<BaseFloat> mean(memo->mean_uvar_scale, 0),
        uvar(memo->mean_uvar_scale, 1), scale(memo->mean_uvar_scale, 2);
    cu::ColumnSumsAndSquares<BaseFloat>(1.0 / num_frames, in, &mean, &uvar);
    scale.CopyFromVec(uvar);
    // Scaling by 1/target_rms^2 here saves a multiply later.
    BaseFloat var_scale = 1.0 / (target_rms_ * target_rms_);
    scale.AddVecVec(-var_scale, mean, mean, var_scale);
    scale.ApplyFloor(0.0);
    scale.Add(var_scale * epsilon_);
    scale.ApplyPow(-0.5);
    cu::SubtractAndScaleColumns(in, mean, scale, out);
    return memo;
  }
  if (offset_.Dim() != block_dim_)
    NNET3_ERR << "BatchNormComponent is in test mode but has no statistics";
  cu::ScaleAndShiftColumns(in, scale_, offset_, out);
  return nullptr;
}

void BatchNormComponent::Backprop(const std::string &debug_info,
                                  const ComponentPrecomputedIndexes *indexes,
                                  const CuMatrixBase<BaseFloat> &in_value,
                                  const CuMatrixBase<BaseFloat> &out_value,
                                  const CuMatrixBase<BaseFloat> &out_deriv,
                                  void *memo_in, Component *to_update,
                                  CuMatrixBase<BaseFloat> *in_deriv) const {
  if (!in_deriv) return;
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, *in_deriv) &&
               (out_value.NumCols() == dim_ ||
                out_value.NumCols() == block_dim_));
  if (out_value.NumCols() != block_dim_) {
    CuSubMatrix<BaseFloat> ov = Reshape(out_value, block_dim_),
                           od = Reshape(out_deriv, block_dim_),
                           id = Reshape(*in_deriv, block_dim_);
    Backprop(debug_info, indexes, in_value, ov, od, memo_in, to_update, &id);
    return;
  }
  if (!test_mode_) {
    Memo *memo = static_cast<Memo *>(memo_in);
    NNET3_ASSERT(memo != nullptr && memo->num_frames == out_value.NumRows());
    int32 num_frames = memo->num_frames;
    CuSubVector<BaseFloat> scale(memo->mean_uvar_scale, 2),
        var_deriv_mod(memo->mean_uvar_scale, 3),
        temp(memo->mean_uvar_scale, 4);
    // x' = scale .* (y' - mean(y')) + y .* var_deriv_mod, with
    // var_deriv_mod = -scale / (I * rms^2) .* sum_i y'_i .* y_i (per column);
    // the operations are ordered as Kaldi orders them (same rounding).
    BaseFloat coeff = -1.0 / (target_rms_ * target_rms_ * num_frames);
    // temp = -mean of y'; two passes over the matrices (cu-math-fused.h).
    cu::BatchNormBackprop(out_value, out_deriv, scale, coeff, &var_deriv_mod,
                          &temp, in_deriv);
  } else {
    NNET3_ASSERT(offset_.Dim() == block_dim_);
    in_deriv->CopyFromMat(out_deriv);
    in_deriv->MulColsVec(scale_);
  }
}

void BatchNormComponent::StoreStats(const CuMatrixBase<BaseFloat> &in_value,
                                    const CuMatrixBase<BaseFloat> &out_value,
                                    void *memo_in) {
  NNET3_ASSERT(!test_mode_);
  NNET3_ASSERT(out_value.NumCols() == dim_ || out_value.NumCols() == block_dim_);
  if (out_value.NumCols() != block_dim_) {
    CuSubMatrix<BaseFloat> ov = Reshape(out_value, block_dim_);
    StoreStats(in_value, ov, memo_in);
    return;
  }
  Memo *memo = static_cast<Memo *>(memo_in);
  NNET3_ASSERT(memo != nullptr && out_value.NumRows() == memo->num_frames);
  CuSubVector<BaseFloat> mean(memo->mean_uvar_scale, 0),
      uvar(memo->mean_uvar_scale, 1);
  BaseFloat num_frames = memo->num_frames;
  if (stats_sum_.Dim() != block_dim_) {
    stats_sum_.Resize(block_dim_);
    stats_sumsq_.Resize(block_dim_);
  }
  count_ += num_frames;
  stats_sum_.AddVec(num_frames, mean);
  stats_sumsq_.AddVec(num_frames, uvar);
}

void BatchNormComponent::ZeroStats() {
  // In test mode the statistics define the transform: keep them.
  if (test_mode_) return;
  count_ = 0.0;
  stats_sum_.SetZero();
  stats_sumsq_.SetZero();
}

void BatchNormComponent::DeleteMemo(void *memo) const {
  delete static_cast<Memo *>(memo);
}

Component *BatchNormComponent::Copy() const {
  BatchNormComponent *c = new BatchNormComponent();
  c->dim_ = dim_;
  c->block_dim_ = block_dim_;
  c->epsilon_ = epsilon_;
  c->target_rms_ = target_rms_;
  c->test_mode_ = test_mode_;
  c->count_ = count_;
  c->stats_sum_ = stats_sum_;
  c->stats_sumsq_ = stats_sumsq_;
  c->offset_ = offset_;
  c->scale_ = scale_;
  return c;
}

void BatchNormComponent::Scale(BaseFloat scale) {
  if (scale == 0.0) {
    count_ = 0.0;
    stats_sum_.SetZero();
    stats_sumsq_.SetZero();
  } else {
    count_ *= scale;
    stats_sum_.Scale(scale);
    stats_sumsq_.Scale(scale);
  }
}

void BatchNormComponent::Add(BaseFloat alpha, const Component &other_in) {
  const BatchNormComponent *other =
      dynamic_cast<const BatchNormComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  count_ += alpha * other->count_;
  stats_sum_.AddVec(alpha, other->stats_sum_);
  stats_sumsq_.AddVec(alpha, other->stats_sumsq_);
  ComputeDerived();
}

void BatchNormComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Dim>");
  ReadBasicType(is, binary, &dim_);
  ReadValue(is, binary, "<BlockDim>", &block_dim_);
  ReadValue(is, binary, "<Epsilon>", &epsilon_);
  ReadValue(is, binary, "<TargetRms>", &target_rms_);
  ReadValue(is, binary, "<TestMode>", &test_mode_);
  ReadValue(is, binary, "<Count>", &count_);
  // The file holds mean and variance; we keep sums.
  ExpectToken(is, binary, "<StatsMean>");
  stats_sum_.Read(is, binary);
  ExpectToken(is, binary, "<StatsVar>");
  stats_sumsq_.Read(is, binary);
  if (stats_sum_.Dim() != stats_sumsq_.Dim())
    NNET3_ERR << "BatchNormComponent: mean and variance dims differ";
  stats_sumsq_.AddVecVec(1.0, stats_sum_, stats_sum_, 1.0);
  stats_sum_.Scale(count_);
  stats_sumsq_.Scale(count_);
  ExpectToken(is, binary, ClosingTag(*this));
  Check();
  ComputeDerived();
}

void BatchNormComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<BlockDim>");
  WriteBasicType(os, binary, block_dim_);
  WriteToken(os, binary, "<Epsilon>");
  WriteBasicType(os, binary, epsilon_);
  WriteToken(os, binary, "<TargetRms>");
  WriteBasicType(os, binary, target_rms_);
  WriteToken(os, binary, "<TestMode>");
  WriteBasicType(os, binary, test_mode_);
  WriteToken(os, binary, "<Count>");
  WriteBasicType(os, binary, count_);
  // Mean and variance in single precision, computed as Kaldi does (the sums
  // are converted to float first).
  CuVector<BaseFloat> mean(stats_sum_), var(stats_sumsq_);
  if (count_ != 0) {
    mean.Scale(1.0 / count_);
    var.Scale(1.0 / count_);
    var.AddVecVec(-1.0, mean, mean, 1.0);
  }
  WriteToken(os, binary, "<StatsMean>");
  mean.Write(os, binary);
  WriteToken(os, binary, "<StatsVar>");
  var.Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

std::string BatchNormComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", dim=" << dim_ << ", block-dim=" << block_dim_
     << ", epsilon=" << epsilon_ << ", target-rms=" << target_rms_
     << ", count=" << count_
     << ", test-mode=" << (test_mode_ ? "true" : "false");
  if (count_ > 0) {
    // Summaries of the data mean and stddev, computed in single precision.
    CuVector<BaseFloat> mean(stats_sum_), stddev(stats_sumsq_);
    mean.Scale(1.0 / count_);
    stddev.Scale(1.0 / count_);
    stddev.AddVecVec(-1.0, mean, mean, 1.0);
    stddev.ApplyFloor(0.0);
    stddev.ApplyPow(0.5);
    os << ", data-mean=" << SummarizeVector(mean)
       << ", data-stddev=" << SummarizeVector(stddev);
  }
  return os.str();
}

// ---- DropoutComponent ---------------------------------------------------------

void DropoutComponent::InitFromConfig(ConfigLine *cfl) {
  dim_ = 0;
  if (!cfl->GetValue("dim", &dim_) || dim_ <= 0)
    NNET3_ERR << "DropoutComponent needs dim=... > 0";
  // dropout-proportion is required (Kaldi has no default).
  dropout_proportion_ = 0.0;
  bool have_proportion =
      cfl->GetValue("dropout-proportion", &dropout_proportion_);
  dropout_per_frame_ = false;
  cfl->GetValue("dropout-per-frame", &dropout_per_frame_);
  test_mode_ = false;
  cfl->GetValue("test-mode", &test_mode_);
  CheckNoUnusedValues(*cfl, *this);
  if (!have_proportion)
    NNET3_ERR << "DropoutComponent needs dropout-proportion=...: "
              << cfl->WholeLine();
  if (!(dropout_proportion_ >= 0.0 && dropout_proportion_ <= 1.0))
    NNET3_ERR << "DropoutComponent: dropout-proportion="
              << dropout_proportion_ << " is not in [0, 1]";
}

void *DropoutComponent::Propagate(const ComponentPrecomputedIndexes *,
                                  const CuMatrixBase<BaseFloat> &in,
                                  CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  BaseFloat p = dropout_proportion_;
  if (test_mode_) {
    out->CopyFromMat(in);
    out->Scale(1.0 - p);
    return nullptr;
  }
  // Mask = (uniform - p > 0): zero with probability p, else one.
  if (!dropout_per_frame_) {
    out->SetRandUniform(&random_);
    out->Add(-p);
    out->ApplyHeaviside();
  } else {
    Vector<BaseFloat> mask(out->NumRows());
    mask.SetRandUniform(&random_);
    mask.Add(-p);
    for (int32 r = 0; r < mask.Dim(); r++) mask(r) = mask(r) > 0 ? 1.0 : 0.0;
    out->CopyColsFromVec(CuVector<BaseFloat>(mask));
  }
  out->MulElements(in);
  return nullptr;
}

void DropoutComponent::Backprop(const std::string &,
                                const ComponentPrecomputedIndexes *,
                                const CuMatrixBase<BaseFloat> &in_value,
                                const CuMatrixBase<BaseFloat> &out_value,
                                const CuMatrixBase<BaseFloat> &out_deriv,
                                void *, Component *,
                                CuMatrixBase<BaseFloat> *in_deriv) const {
  if (!in_deriv) return;
  NNET3_ASSERT(SameDim(in_value, out_value) && SameDim(in_value, out_deriv) &&
               SameDim(in_value, *in_deriv));
  // The mask is out / in (where in != 0; elsewhere pass the derivative).
  cu::BackpropDropoutFromValues(in_value, out_value, out_deriv, in_deriv);
}

Component *DropoutComponent::Copy() const {
  DropoutComponent *c = new DropoutComponent();
  c->dim_ = dim_;
  c->dropout_proportion_ = dropout_proportion_;
  c->dropout_per_frame_ = dropout_per_frame_;
  c->test_mode_ = test_mode_;
  return c;
}

void DropoutComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<Dim>");
  ReadBasicType(is, binary, &dim_);
  ReadValue(is, binary, "<DropoutProportion>", &dropout_proportion_);
  std::string token;
  ReadToken(is, binary, &token);
  dropout_per_frame_ = false;
  if (token == "<DropoutPerFrame>") {
    ReadBasicType(is, binary, &dropout_per_frame_);
    ReadToken(is, binary, &token);
  }
  test_mode_ = false;
  if (token == "<TestMode>") {
    ReadBasicType(is, binary, &test_mode_);
    ReadToken(is, binary, &token);
  }
  if (token != ClosingTag(*this))
    NNET3_ERR << "DropoutComponent: expected " << ClosingTag(*this)
              << ", got " << token;
}

void DropoutComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<DropoutProportion>");
  WriteBasicType(os, binary, dropout_proportion_);
  WriteToken(os, binary, "<DropoutPerFrame>");
  WriteBasicType(os, binary, dropout_per_frame_);
  WriteToken(os, binary, "<TestMode>");
  WriteBasicType(os, binary, test_mode_);
  WriteToken(os, binary, ClosingTag(*this));
}

std::string DropoutComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", dim=" << dim_ << ", dropout-proportion="
     << dropout_proportion_ << ", dropout-per-frame="
     << (dropout_per_frame_ ? "true" : "false");
  return os.str();
}

void RegisterNormalizeComponents(ComponentRegistry *registry) {
  registry->Add("NormalizeComponent", [] { return new NormalizeComponent(); });
  registry->Add("BatchNormComponent", [] { return new BatchNormComponent(); });
  registry->Add("DropoutComponent", [] { return new DropoutComponent(); });
}

}  // namespace nnet3
