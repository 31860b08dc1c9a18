// nnet3/components/per-element.cc
#include "nnet3/components/per-element.h"

#include <cmath>
#include <sstream>

#include "cudamatrix/cu-math-update.h"
#include "nnet3/components/parameter-stats.h"
#include "util/stream.h"

namespace nnet3 {

namespace {

void ExpectAfterCommon(std::istream &is, bool binary, const std::string &token,
                       const char *expected) {
  if (token.empty())
    ExpectToken(is, binary, expected);
  else if (token != expected)
    NNET3_ERR << "Expected token " << expected << ", got "
              << PrintableString(token);
}

void ReadVectorOption(const std::string &key, const std::string &filename,
                      const std::string &type, CuVector<BaseFloat> *vec) {
  try {
    ReadKaldiObject(filename, vec);
  } catch (const UserError &e) {
    NNET3_ERR << type << ": could not read " << key << "=" << filename << ": "
              << e.message();
  }
  if (vec->Dim() == 0)
    NNET3_ERR << type << ": empty vector in " << key << "=" << filename;
}

// Views a contiguous rows x dim matrix as (rows * dim / block_dim) x
// block_dim, so that a block_dim vector can be applied to every block; for
// block_dim == dim just a view of the same matrix (any stride).
CuSubMatrix<BaseFloat> BlockView(const CuMatrixBase<BaseFloat> &m,
                                 int32 block_dim) {
  const BaseFloat *data = m.Data();
  if (block_dim == m.NumCols())
    return CuSubMatrix<BaseFloat>(data, m.NumRows(), m.NumCols(), m.Stride());
  NNET3_ASSERT(m.NumCols() % block_dim == 0 && m.Stride() == m.NumCols());
  return CuSubMatrix<BaseFloat>(data, m.NumRows() * (m.NumCols() / block_dim),
                                block_dim, block_dim);
}

template <class C>
const C &CastOrDie(const Component &other) {
  const C *c = dynamic_cast<const C *>(&other);
  NNET3_ASSERT(c != nullptr);
  return *c;
}

void PerturbVector(BaseFloat stddev, CuVector<BaseFloat> *v) {
  CuVector<BaseFloat> temp(v->Dim());
  temp.SetRandn();
  v->AddVec(stddev, temp);
}

}  // namespace

// ---- PerElementScaleComponent -----------------------------------------------

PerElementScaleComponent::PerElementScaleComponent(
    const PerElementScaleComponent &other)
    : UpdatableComponent(), scales_(other.scales_) {
  SetUpdatableConfigs(other);
}

void PerElementScaleComponent::Init(int32 dim, BaseFloat param_mean,
                                    BaseFloat param_stddev) {
  if (dim <= 0 || !(param_stddev >= 0.0))
    NNET3_ERR << Type() << ": invalid dim=" << dim << " or param-stddev="
              << param_stddev;
  scales_.Resize(dim);
  scales_.SetRandn();
  scales_.Scale(param_stddev);
  scales_.Add(param_mean);
}

void PerElementScaleComponent::InitFromConfig(ConfigLine *cfl) {
  std::string vector_filename;
  int32 dim = -1;
  InitLearningRatesFromConfig(cfl);
  if (cfl->GetValue("vector", &vector_filename)) {
    ReadVectorOption("vector", vector_filename, Type(), &scales_);
    if (cfl->GetValue("dim", &dim) && dim != InputDim())
      NNET3_ERR << Type() << ": dim=" << dim << " does not match the vector ("
                << InputDim() << ")";
  } else {
    if (!cfl->GetValue("dim", &dim))
      NNET3_ERR << Type() << ": 'dim' not provided in the config line: "
                << cfl->WholeLine();
    BaseFloat param_mean = 1.0, param_stddev = 0.0;
    cfl->GetValue("param-mean", &param_mean);
    cfl->GetValue("param-stddev", &param_stddev);
    Init(dim, param_mean, param_stddev);
  }
  CheckNoUnusedValues(*cfl, *this);
}

std::string PerElementScaleComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", scales-min=" << scales_.Min()
     << ", scales-max=" << scales_.Max();
  PrintParameterStats(os, "scales", scales_, true);
  return os.str();
}

void *PerElementScaleComponent::Propagate(const ComponentPrecomputedIndexes *,
                                          const CuMatrixBase<BaseFloat> &in,
                                          CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == InputDim());
  if (out->Data() != in.Data()) out->CopyFromMat(in);
  out->MulColsVec(scales_);
  return nullptr;
}

void PerElementScaleComponent::Backprop(
    const std::string &debug_info, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &in_value, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *,
    Component *to_update_in, CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv != nullptr) {
    if (in_deriv->Data() != out_deriv.Data()) in_deriv->CopyFromMat(out_deriv);
    in_deriv->MulColsVec(scales_);
  }
  if (to_update_in != nullptr) {
    // After the input derivative, so that it uses the old scales when
    // to_update == this.
    PerElementScaleComponent *to_update =
        dynamic_cast<PerElementScaleComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
    if (to_update->is_gradient_)
      to_update->UpdateSimple(in_value, out_deriv);
    else
      to_update->Update(debug_info, in_value, out_deriv);
  }
}

void PerElementScaleComponent::UpdateSimple(
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_deriv) {
  NNET3_ASSERT(SameDim(in_value, out_deriv));
  CuMatrix<BaseFloat> prod(in_value);
  prod.MulElements(out_deriv);
  scales_.AddRowSumMat(learning_rate_, prod, 1.0);
}

void PerElementScaleComponent::ReadScales(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ExpectAfterCommon(is, binary, token, "<Params>");
  scales_.Read(is, binary);
}

void PerElementScaleComponent::Read(std::istream &is, bool binary) {
  ReadScales(is, binary);
  // Old files wrote <IsGradient> here.
  if (PeekToken(is, binary) == 'I') {
    ExpectToken(is, binary, "<IsGradient>");
    ReadBasicType(is, binary, &is_gradient_);
  }
  ExpectToken(is, binary, ClosingTag(*this));
}

void PerElementScaleComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<Params>");
  scales_.Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

void PerElementScaleComponent::Scale(BaseFloat scale) {
  if (scale == 0.0)
    scales_.SetZero();
  else
    scales_.Scale(scale);
}

void PerElementScaleComponent::Add(BaseFloat alpha, const Component &other) {
  scales_.AddVec(alpha, CastOrDie<PerElementScaleComponent>(other).scales_);
}

void PerElementScaleComponent::PerturbParams(BaseFloat stddev) {
  PerturbVector(stddev, &scales_);
}

BaseFloat PerElementScaleComponent::DotProduct(
    const UpdatableComponent &other) const {
  return VecVec(scales_, CastOrDie<PerElementScaleComponent>(other).scales_);
}

void PerElementScaleComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  scales_.CopyToVec(params);
}

void PerElementScaleComponent::UnVectorize(
    const VectorBase<BaseFloat> &params) {
  scales_.CopyFromVec(params);
}

// ---- NaturalGradientPerElementScaleComponent --------------------------------

NaturalGradientPerElementScaleComponent::
    NaturalGradientPerElementScaleComponent(
        const NaturalGradientPerElementScaleComponent &other)
    : PerElementScaleComponent(other), rank_(other.rank_),
      update_period_(other.update_period_),
      num_samples_history_(other.num_samples_history_), alpha_(other.alpha_),
      preconditioner_(other.preconditioner_) {}

void NaturalGradientPerElementScaleComponent::ConfigurePreconditioner() {
  if (rank_ <= 0 || update_period_ <= 0 ||
      !(num_samples_history_ > 0.0 && num_samples_history_ < 1.0e+06) ||
      !(alpha_ >= 0.0))
    NNET3_ERR << Type() << ": invalid natural-gradient options rank="
              << rank_ << ", update-period=" << update_period_
              << ", num-samples-history=" << num_samples_history_
              << ", alpha=" << alpha_;
  preconditioner_ = OnlineNaturalGradient();
  preconditioner_.SetRank(rank_);
  preconditioner_.SetUpdatePeriod(update_period_);
  preconditioner_.SetNumSamplesHistory(num_samples_history_);
  preconditioner_.SetAlpha(alpha_);
}

void NaturalGradientPerElementScaleComponent::InitFromConfig(ConfigLine *cfl) {
  rank_ = 8;
  update_period_ = 10;
  num_samples_history_ = 2000.0;
  alpha_ = 4.0;
  cfl->GetValue("rank", &rank_);
  cfl->GetValue("update-period", &update_period_);
  cfl->GetValue("num-samples-history", &num_samples_history_);
  cfl->GetValue("alpha", &alpha_);
  InitLearningRatesFromConfig(cfl);
  std::string filename;
  if (cfl->GetValue("scales", &filename)) {
    CheckNoUnusedValues(*cfl, *this);
    ReadVectorOption("scales", filename, Type(), &scales_);
  } else {
    BaseFloat param_mean = 1.0, param_stddev = 0.0;
    cfl->GetValue("param-mean", &param_mean);
    cfl->GetValue("param-stddev", &param_stddev);
    int32 dim = -1;
    if (!cfl->GetValue("dim", &dim))
      NNET3_ERR << Type() << ": 'dim' (or scales) not provided in the config "
                << "line: " << cfl->WholeLine();
    CheckNoUnusedValues(*cfl, *this);
    Init(dim, param_mean, param_stddev);
  }
  if (rank_ <= 0 || update_period_ <= 0 || !(num_samples_history_ > 0.0) ||
      !(alpha_ >= 0.0))
    NNET3_ERR << Type() << ": invalid rank, update-period, "
              << "num-samples-history or alpha in: " << cfl->WholeLine();
  ConfigurePreconditioner();
}

std::string NaturalGradientPerElementScaleComponent::Info() const {
  std::ostringstream os;
  os << PerElementScaleComponent::Info() << ", rank=" << rank_
     << ", update-period=" << update_period_
     << ", num-samples-history=" << num_samples_history_
     << ", alpha=" << alpha_;
  return os.str();
}

void NaturalGradientPerElementScaleComponent::Read(std::istream &is,
                                                   bool binary) {
  ReadScales(is, binary);
  ExpectToken(is, binary, "<IsGradient>");
  ReadBasicType(is, binary, &is_gradient_);
  ExpectToken(is, binary, "<Rank>");
  ReadBasicType(is, binary, &rank_);
  ExpectToken(is, binary, "<UpdatePeriod>");
  ReadBasicType(is, binary, &update_period_);
  ExpectToken(is, binary, "<NumSamplesHistory>");
  ReadBasicType(is, binary, &num_samples_history_);
  ExpectToken(is, binary, "<Alpha>");
  ReadBasicType(is, binary, &alpha_);
  std::string token;
  ReadToken(is, binary, &token);
  if (token == "<MaxChangePerMinibatch>") {  // older format
    BaseFloat unused;
    ReadBasicType(is, binary, &unused);
    ReadToken(is, binary, &token);
  }
  if (token != ClosingTag(*this) && token != OpeningTag(*this))
    NNET3_ERR << "Expected " << ClosingTag(*this) << ", got "
              << PrintableString(token);
  ConfigurePreconditioner();
}

void NaturalGradientPerElementScaleComponent::Write(std::ostream &os,
                                                    bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<Params>");
  scales_.Write(os, binary);
  WriteToken(os, binary, "<IsGradient>");
  WriteBasicType(os, binary, is_gradient_);
  WriteToken(os, binary, "<Rank>");
  WriteBasicType(os, binary, preconditioner_.GetRank());
  WriteToken(os, binary, "<UpdatePeriod>");
  WriteBasicType(os, binary, update_period_);
  WriteToken(os, binary, "<NumSamplesHistory>");
  WriteBasicType(os, binary, num_samples_history_);
  WriteToken(os, binary, "<Alpha>");
  WriteBasicType(os, binary, alpha_);
  WriteToken(os, binary, ClosingTag(*this));
}

void NaturalGradientPerElementScaleComponent::Update(
    const std::string &debug_info, const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_deriv) {
  (void)debug_info;
  NNET3_ASSERT(SameDim(in_value, out_deriv));
  // Row r is the derivative of the objective w.r.t. the scales from frame r.
  CuMatrix<BaseFloat> derivs_per_frame(in_value);
  derivs_per_frame.MulElements(out_deriv);
  BaseFloat scale;
  preconditioner_.PreconditionDirections(&derivs_per_frame, &scale);
  CuVector<BaseFloat> delta_scales(scales_.Dim());
  delta_scales.AddRowSumMat(scale * learning_rate_, derivs_per_frame, 0.0);
  scales_.AddVec(1.0, delta_scales);
}

// ---- PerElementOffsetComponent ----------------------------------------------

PerElementOffsetComponent::PerElementOffsetComponent(
    const PerElementOffsetComponent &other)
    : UpdatableComponent(), offsets_(other.offsets_), dim_(other.dim_),
      use_natural_gradient_(other.use_natural_gradient_),
      preconditioner_(other.preconditioner_) {
  SetUpdatableConfigs(other);
}

void PerElementOffsetComponent::ConfigurePreconditioner() {
  // Not configurable in Kaldi.
  preconditioner_ = OnlineNaturalGradient();
  preconditioner_.SetRank(20);
  preconditioner_.SetUpdatePeriod(4);
}

void PerElementOffsetComponent::InitFromConfig(ConfigLine *cfl) {
  std::string vector_filename;
  InitLearningRatesFromConfig(cfl);
  if (cfl->GetValue("vector", &vector_filename)) {
    ReadVectorOption("vector", vector_filename, Type(), &offsets_);
    dim_ = offsets_.Dim();
    if (cfl->GetValue("dim", &dim_) &&
        (dim_ <= 0 || dim_ % offsets_.Dim() != 0))
      NNET3_ERR << Type() << ": invalid dimension dim=" << dim_
                << " (must be a multiple of the vector's " << offsets_.Dim()
                << ")";
  } else {
    if (!cfl->GetValue("dim", &dim_))
      NNET3_ERR << Type() << ": 'dim' not provided in the config line: "
                << cfl->WholeLine();
    if (dim_ <= 0) NNET3_ERR << Type() << ": invalid dimension dim=" << dim_;
    BaseFloat param_mean = 0.0, param_stddev = 0.0;
    cfl->GetValue("param-mean", &param_mean);
    cfl->GetValue("param-stddev", &param_stddev);
    int32 block_dim = dim_;
    cfl->GetValue("block-dim", &block_dim);
    if (block_dim <= 0 || dim_ % block_dim != 0)
      NNET3_ERR << Type() << ": invalid value block-dim=" << block_dim
                << " (must divide dim=" << dim_ << ")";
    if (!(param_stddev >= 0.0))
      NNET3_ERR << Type() << ": invalid param-stddev=" << param_stddev;
    offsets_.Resize(block_dim);
    offsets_.SetRandn();
    offsets_.Scale(param_stddev);
    offsets_.Add(param_mean);
  }
  use_natural_gradient_ = true;
  cfl->GetValue("use-natural-gradient", &use_natural_gradient_);
  CheckNoUnusedValues(*cfl, *this);
  ConfigurePreconditioner();
}

std::string PerElementOffsetComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", offsets-min=" << offsets_.Min()
     << ", offsets-max=" << offsets_.Max() << ", block-dim=" << offsets_.Dim()
     << ", use-natural-gradient="
     << (use_natural_gradient_ ? "true" : "false");
  PrintParameterStats(os, "offsets", offsets_, true);
  return os.str();
}

void *PerElementOffsetComponent::Propagate(const ComponentPrecomputedIndexes *,
                                           const CuMatrixBase<BaseFloat> &in,
                                           CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  if (out->Data() != in.Data()) out->CopyFromMat(in);
  CuSubMatrix<BaseFloat> view = BlockView(*out, offsets_.Dim());
  view.AddVecToRows(1.0, offsets_);
  return nullptr;
}

void PerElementOffsetComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *,
    Component *to_update_in, CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv != nullptr && in_deriv->Data() != out_deriv.Data())
    in_deriv->CopyFromMat(out_deriv);
  if (to_update_in != nullptr) {
    PerElementOffsetComponent *to_update =
        dynamic_cast<PerElementOffsetComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
    // Kaldi reads out_deriv here even in-place; in_deriv == out_deriv then,
    // with the same values.
    CuSubMatrix<BaseFloat> view = BlockView(out_deriv, offsets_.Dim());
    if (!to_update->use_natural_gradient_ || to_update->is_gradient_) {
      to_update->offsets_.AddRowSumMat(to_update->learning_rate_, view, 1.0);
    } else {
      CuMatrix<BaseFloat> derivs(view);
      BaseFloat scale = 1.0;
      to_update->preconditioner_.PreconditionDirections(&derivs, &scale);
      to_update->offsets_.AddRowSumMat(scale * to_update->learning_rate_,
                                       derivs, 1.0);
    }
  }
}

void PerElementOffsetComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ExpectAfterCommon(is, binary, token, "<Offsets>");
  offsets_.Read(is, binary);
  if (PeekToken(is, binary) == 'I') {  // older format
    ExpectToken(is, binary, "<IsGradient>");
    ReadBasicType(is, binary, &is_gradient_);
  }
  if (PeekToken(is, binary) != '/') {
    ExpectToken(is, binary, "<Dim>");
    ReadBasicType(is, binary, &dim_);
    ExpectToken(is, binary, "<UseNaturalGradient>");
    ReadBasicType(is, binary, &use_natural_gradient_);
  } else {
    dim_ = offsets_.Dim();
    use_natural_gradient_ = true;
  }
  if (offsets_.Dim() == 0 || dim_ <= 0 || dim_ % offsets_.Dim() != 0)
    NNET3_ERR << Type() << ": <Dim> " << dim_
              << " is not a multiple of the offsets' dimension "
              << offsets_.Dim();
  ExpectToken(is, binary, ClosingTag(*this));
  ConfigurePreconditioner();
}

void PerElementOffsetComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<Offsets>");
  offsets_.Write(os, binary);
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<UseNaturalGradient>");
  WriteBasicType(os, binary, use_natural_gradient_);
  WriteToken(os, binary, ClosingTag(*this));
}

void PerElementOffsetComponent::Scale(BaseFloat scale) {
  if (scale == 0.0)
    offsets_.SetZero();
  else
    offsets_.Scale(scale);
}

void PerElementOffsetComponent::Add(BaseFloat alpha, const Component &other) {
  offsets_.AddVec(alpha, CastOrDie<PerElementOffsetComponent>(other).offsets_);
}

void PerElementOffsetComponent::PerturbParams(BaseFloat stddev) {
  PerturbVector(stddev, &offsets_);
}

BaseFloat PerElementOffsetComponent::DotProduct(
    const UpdatableComponent &other) const {
  return VecVec(offsets_,
                CastOrDie<PerElementOffsetComponent>(other).offsets_);
}

void PerElementOffsetComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  offsets_.CopyToVec(params);
}

void PerElementOffsetComponent::UnVectorize(
    const VectorBase<BaseFloat> &params) {
  offsets_.CopyFromVec(params);
}

// ---- ScaleAndOffsetComponent -------------------------------------------------

ScaleAndOffsetComponent::ScaleAndOffsetComponent(
    const ScaleAndOffsetComponent &other)
    : UpdatableComponent(), dim_(other.dim_), scales_(other.scales_),
      offsets_(other.offsets_),
      use_natural_gradient_(other.use_natural_gradient_), rank_(other.rank_),
      scale_preconditioner_(other.scale_preconditioner_),
      offset_preconditioner_(other.offset_preconditioner_) {
  SetUpdatableConfigs(other);
}

void ScaleAndOffsetComponent::ConfigurePreconditioners() {
  if (rank_ <= 0)
    NNET3_ERR << Type() << ": invalid rank=" << rank_;
  OnlineNaturalGradient *sides[2] = {&scale_preconditioner_,
                                     &offset_preconditioner_};
  for (OnlineNaturalGradient *p : sides) {
    *p = OnlineNaturalGradient();
    p->SetRank(rank_);
    p->SetUpdatePeriod(4);  // not configurable in Kaldi
  }
}

void ScaleAndOffsetComponent::InitFromConfig(ConfigLine *cfl) {
  InitLearningRatesFromConfig(cfl);
  if (!cfl->GetValue("dim", &dim_) || dim_ <= 0)
    NNET3_ERR << Type() << ": dimension 'dim' must be specified and >0: "
              << cfl->WholeLine();
  int32 block_dim = dim_;
  cfl->GetValue("block-dim", &block_dim);
  if (block_dim <= 0 || dim_ % block_dim != 0)
    NNET3_ERR << Type() << ": invalid value block-dim=" << block_dim
              << " (must divide dim=" << dim_ << ")";
  rank_ = 20;
  cfl->GetValue("rank", &rank_);
  scales_.Resize(block_dim);
  scales_.Set(1.0);
  offsets_.Resize(block_dim);  // zero
  use_natural_gradient_ = true;
  cfl->GetValue("use-natural-gradient", &use_natural_gradient_);
  CheckNoUnusedValues(*cfl, *this);
  ConfigurePreconditioners();
}

std::string ScaleAndOffsetComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", rank=" << rank_;
  if (dim_ != scales_.Dim()) os << ", block-size=" << scales_.Dim();
  PrintParameterStats(os, "scales", scales_, true);
  PrintParameterStats(os, "offsets", offsets_, true);
  return os.str();
}

void *ScaleAndOffsetComponent::Propagate(const ComponentPrecomputedIndexes *,
                                         const CuMatrixBase<BaseFloat> &in,
                                         CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(SameDim(in, *out) && in.NumCols() == dim_);
  if (out->Data() != in.Data()) out->CopyFromMat(in);
  CuSubMatrix<BaseFloat> view = BlockView(*out, scales_.Dim());
  view.MulColsVec(scales_);
  view.AddVecToRows(1.0, offsets_);
  return nullptr;
}

void ScaleAndOffsetComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &, const CuMatrixBase<BaseFloat> &out_value,
    const CuMatrixBase<BaseFloat> &out_deriv, void *,
    Component *to_update_in, CuMatrixBase<BaseFloat> *in_deriv) const {
  int32 block_dim = scales_.Dim();
  // Scales as they were before any update (to_update may be this).
  CuVector<BaseFloat> scales(scales_);
  if (to_update_in != nullptr) {
    ScaleAndOffsetComponent *to_update =
        dynamic_cast<ScaleAndOffsetComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
    CuSubMatrix<BaseFloat> out_deriv_view = BlockView(out_deriv, block_dim);
    CuSubMatrix<BaseFloat> out_value_view = BlockView(out_value, block_dim);
    // The input, reconstructed: (out - offsets) / scales, with each scale
    // moved away from zero to magnitude at least 1e-4.
    CuVector<BaseFloat> scales_nonzero(scales_);
    const BaseFloat epsilon = 1.0e-04;
    cu::FloorMagnitude(epsilon, &scales_nonzero);
    scales_nonzero.InvertElements();
    CuMatrix<BaseFloat> in_value(out_value_view);
    in_value.AddVecToRows(-1.0, offsets_);
    in_value.MulColsVec(scales_nonzero);
    // d objf / d scale = sum over rows of in .* out_deriv.
    in_value.MulElements(out_deriv_view);
    if (to_update->use_natural_gradient_ && !to_update->is_gradient_) {
      CuMatrix<BaseFloat> offset_derivs(out_deriv_view);
      BaseFloat offset_scale = 1.0, scale_scale = 1.0;
      to_update->offset_preconditioner_.PreconditionDirections(&offset_derivs,
                                                               &offset_scale);
      to_update->scale_preconditioner_.PreconditionDirections(&in_value,
                                                              &scale_scale);
      to_update->offsets_.AddRowSumMat(
          offset_scale * to_update->learning_rate_, offset_derivs, 1.0);
      to_update->scales_.AddRowSumMat(scale_scale * to_update->learning_rate_,
                                      in_value, 1.0);
    } else {
      to_update->offsets_.AddRowSumMat(to_update->learning_rate_,
                                       out_deriv_view, 1.0);
      to_update->scales_.AddRowSumMat(to_update->learning_rate_, in_value,
                                      1.0);
    }
  }
  if (in_deriv != nullptr) {
    if (in_deriv->Data() != out_deriv.Data()) in_deriv->CopyFromMat(out_deriv);
    CuSubMatrix<BaseFloat> view = BlockView(*in_deriv, block_dim);
    view.MulColsVec(scales);
  }
}

void ScaleAndOffsetComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ExpectAfterCommon(is, binary, token, "<Dim>");
  ReadBasicType(is, binary, &dim_);
  ExpectToken(is, binary, "<Scales>");
  scales_.Read(is, binary);
  ExpectToken(is, binary, "<Offsets>");
  offsets_.Read(is, binary);
  ExpectToken(is, binary, "<UseNaturalGradient>");
  ReadBasicType(is, binary, &use_natural_gradient_);
  ExpectToken(is, binary, "<Rank>");
  ReadBasicType(is, binary, &rank_);
  if (scales_.Dim() == 0 || scales_.Dim() != offsets_.Dim() || dim_ <= 0 ||
      dim_ % scales_.Dim() != 0)
    NNET3_ERR << Type() << ": inconsistent <Dim> " << dim_ << ", <Scales> dim "
              << scales_.Dim() << " and <Offsets> dim " << offsets_.Dim();
  ExpectToken(is, binary, ClosingTag(*this));
  ConfigurePreconditioners();
}

void ScaleAndOffsetComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<Dim>");
  WriteBasicType(os, binary, dim_);
  WriteToken(os, binary, "<Scales>");
  scales_.Write(os, binary);
  WriteToken(os, binary, "<Offsets>");
  offsets_.Write(os, binary);
  WriteToken(os, binary, "<UseNaturalGradient>");
  WriteBasicType(os, binary, use_natural_gradient_);
  WriteToken(os, binary, "<Rank>");
  WriteBasicType(os, binary, scale_preconditioner_.GetRank());
  WriteToken(os, binary, ClosingTag(*this));
}

void ScaleAndOffsetComponent::Scale(BaseFloat scale) {
  if (scale == 0.0) {
    scales_.SetZero();
    offsets_.SetZero();
  } else {
    scales_.Scale(scale);
    offsets_.Scale(scale);
  }
}

void ScaleAndOffsetComponent::Add(BaseFloat alpha, const Component &other_in) {
  const ScaleAndOffsetComponent &other =
      CastOrDie<ScaleAndOffsetComponent>(other_in);
  scales_.AddVec(alpha, other.scales_);
  offsets_.AddVec(alpha, other.offsets_);
}

void ScaleAndOffsetComponent::PerturbParams(BaseFloat stddev) {
  PerturbVector(stddev, &scales_);
  PerturbVector(stddev, &offsets_);
}

BaseFloat ScaleAndOffsetComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const ScaleAndOffsetComponent &other =
      CastOrDie<ScaleAndOffsetComponent>(other_in);
  return VecVec(scales_, other.scales_) + VecVec(offsets_, other.offsets_);
}

void ScaleAndOffsetComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  int32 n = scales_.Dim();
  SubVector<BaseFloat> scales_part(*params, 0, n), offsets_part(*params, n, n);
  scales_.CopyToVec(&scales_part);
  offsets_.CopyToVec(&offsets_part);
}

void ScaleAndOffsetComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  int32 n = scales_.Dim();
  scales_.CopyFromVec(params.Range(0, n));
  offsets_.CopyFromVec(params.Range(n, n));
}

// ---- ConstantFunctionComponent -----------------------------------------------

ConstantFunctionComponent::ConstantFunctionComponent(
    const ConstantFunctionComponent &other)
    : UpdatableComponent(), input_dim_(other.input_dim_),
      output_(other.output_), is_updatable_(other.is_updatable_),
      use_natural_gradient_(other.use_natural_gradient_),
      preconditioner_(other.preconditioner_) {
  SetUpdatableConfigs(other);
}

void ConstantFunctionComponent::InitFromConfig(ConfigLine *cfl) {
  int32 output_dim = 0;
  InitLearningRatesFromConfig(cfl);
  bool ok = cfl->GetValue("output-dim", &output_dim) &&
            cfl->GetValue("input-dim", &input_dim_);
  cfl->GetValue("is-updatable", &is_updatable_);
  cfl->GetValue("use-natural-gradient", &use_natural_gradient_);
  BaseFloat output_mean = 0.0, output_stddev = 0.0;
  cfl->GetValue("output-mean", &output_mean);
  cfl->GetValue("output-stddev", &output_stddev);
  if (!ok || input_dim_ <= 0 || output_dim <= 0)
    NNET3_ERR << Type() << ": input-dim and output-dim must be given and "
              << ">0: " << cfl->WholeLine();
  CheckNoUnusedValues(*cfl, *this);
  output_.Resize(output_dim);
  output_.SetRandn();
  output_.Scale(output_stddev);
  output_.Add(output_mean);
  preconditioner_ = OnlineNaturalGradient();
}

std::string ConstantFunctionComponent::Info() const {
  std::ostringstream os;
  // Kaldi repeats the type and dimensions after the learning-rate fields.
  os << UpdatableComponent::Info() << ", " << Type()
     << ", input-dim=" << InputDim() << ", output-dim=" << OutputDim()
     << ", is-updatable=" << (is_updatable_ ? "true" : "false")
     << ", use-natural-gradient="
     << (use_natural_gradient_ ? "true" : "false");
  PrintParameterStats(os, "output", output_, true);
  return os.str();
}

void *ConstantFunctionComponent::Propagate(const ComponentPrecomputedIndexes *,
                                           const CuMatrixBase<BaseFloat> &in,
                                           CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumRows() == out->NumRows() && out->NumCols() == OutputDim());
  out->CopyRowsFromVec(output_);
  return nullptr;
}

void ConstantFunctionComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *,
    Component *to_update_in, CuMatrixBase<BaseFloat> *) const {
  // The output does not depend on the input: the input derivative is zero,
  // and with kBackpropAdds nothing is added to it.
  if (to_update_in != nullptr) {
    ConstantFunctionComponent *to_update =
        dynamic_cast<ConstantFunctionComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
    if (to_update->is_updatable_) {
      if (to_update->use_natural_gradient_ && !to_update->is_gradient_) {
        CuMatrix<BaseFloat> derivs(out_deriv);
        BaseFloat scale = 1.0;
        to_update->preconditioner_.PreconditionDirections(&derivs, &scale);
        to_update->output_.AddRowSumMat(scale * to_update->learning_rate_,
                                        derivs, 1.0);
      } else {
        to_update->output_.AddRowSumMat(to_update->learning_rate_, out_deriv,
                                        1.0);
      }
    }
  }
}

void ConstantFunctionComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  // Without <LearningRate> (older files) the default rate applies.
  if (!token.empty()) learning_rate_ = 0.001;
  ExpectAfterCommon(is, binary, token, "<InputDim>");
  ReadBasicType(is, binary, &input_dim_);
  ExpectToken(is, binary, "<Output>");
  output_.Read(is, binary);
  ExpectToken(is, binary, "<IsUpdatable>");
  ReadBasicType(is, binary, &is_updatable_);
  ExpectToken(is, binary, "<UseNaturalGradient>");
  ReadBasicType(is, binary, &use_natural_gradient_);
  ExpectToken(is, binary, ClosingTag(*this));
  preconditioner_ = OnlineNaturalGradient();
}

void ConstantFunctionComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<InputDim>");
  WriteBasicType(os, binary, input_dim_);
  WriteToken(os, binary, "<Output>");
  output_.Write(os, binary);
  WriteToken(os, binary, "<IsUpdatable>");
  WriteBasicType(os, binary, is_updatable_);
  WriteToken(os, binary, "<UseNaturalGradient>");
  WriteBasicType(os, binary, use_natural_gradient_);
  WriteToken(os, binary, ClosingTag(*this));
}

void ConstantFunctionComponent::Scale(BaseFloat scale) {
  if (!is_updatable_) return;
  if (scale == 0.0)
    output_.SetZero();
  else
    output_.Scale(scale);
}

void ConstantFunctionComponent::Add(BaseFloat alpha, const Component &other) {
  if (is_updatable_)
    output_.AddVec(alpha, CastOrDie<ConstantFunctionComponent>(other).output_);
}

void ConstantFunctionComponent::PerturbParams(BaseFloat stddev) {
  PerturbVector(stddev, &output_);
}

BaseFloat ConstantFunctionComponent::DotProduct(
    const UpdatableComponent &other) const {
  return VecVec(output_, CastOrDie<ConstantFunctionComponent>(other).output_);
}

void ConstantFunctionComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  output_.CopyToVec(params);
}

void ConstantFunctionComponent::UnVectorize(
    const VectorBase<BaseFloat> &params) {
  output_.CopyFromVec(params);
}

// ---- Registry ----------------------------------------------------------------

void RegisterPerElementComponents(ComponentRegistry *registry) {
  registry->Add("PerElementScaleComponent",
                [] { return new PerElementScaleComponent(); });
  registry->Add("NaturalGradientPerElementScaleComponent",
                [] { return new NaturalGradientPerElementScaleComponent(); });
  registry->Add("PerElementOffsetComponent",
                [] { return new PerElementOffsetComponent(); });
  registry->Add("ScaleAndOffsetComponent",
                [] { return new ScaleAndOffsetComponent(); });
  registry->Add("ConstantFunctionComponent",
                [] { return new ConstantFunctionComponent(); });
}

}  // namespace nnet3
