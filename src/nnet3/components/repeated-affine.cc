// nnet3/components/repeated-affine.cc
#include "nnet3/components/repeated-affine.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cudamatrix/cu-math-recurrent.h"
#include "nnet3/components/parameter-stats.h"

namespace nnet3 {

namespace {

template <class C>
const C &SameTypeOrDie(const Component &other) {
  const C *c = dynamic_cast<const C *>(&other);
  NNET3_ASSERT(c != nullptr);
  return *c;
}

// Reads the fields after the common updatable ones: the count token
// ('count_token', e.g. <NumBlocks>), the linear params and the bias, the
// old-style <IsGradient> if present, and the closing tag.
void ReadBlockFields(std::istream &is, bool binary,
                     const std::string &after_common,
                     const std::string &count_token,
                     const std::string &closing, int32 *count,
                     CuMatrix<BaseFloat> *linear, CuVector<BaseFloat> *bias,
                     bool *is_gradient) {
  if (after_common.empty())
    ExpectToken(is, binary, count_token);
  else if (after_common != count_token)
    NNET3_ERR << "Expected token " << count_token << ", got "
              << PrintableString(after_common);
  ReadBasicType(is, binary, count);
  ExpectToken(is, binary, "<LinearParams>");
  linear->Read(is, binary);
  ExpectToken(is, binary, "<BiasParams>");
  bias->Read(is, binary);
  if (PeekToken(is, binary) == 'I') {
    ExpectToken(is, binary, "<IsGradient>");
    ReadBasicType(is, binary, is_gradient);
  }
  ExpectToken(is, binary, closing);
  if (*count <= 0)
    NNET3_ERR << "Bad value " << *count << " for " << count_token;
}

// Reads input-dim, output-dim and the block-count option 'count_name' of a
// config line; both dims must be positive multiples of the count.
void GetBlockDims(const std::string &type, const std::string &count_name,
                  ConfigLine *cfl, int32 *input_dim, int32 *output_dim,
                  int32 *count) {
  if (!cfl->GetValue("input-dim", input_dim) ||
      !cfl->GetValue("output-dim", output_dim) ||
      !cfl->GetValue(count_name, count))
    NNET3_ERR << type << ": input-dim, output-dim and " << count_name
              << " are required: " << cfl->WholeLine();
  if (*count <= 0)
    NNET3_ERR << type << ": invalid " << count_name << "=" << *count;
  if (*input_dim <= 0 || *input_dim % *count != 0)
    NNET3_ERR << type << ": input-dim=" << *input_dim
              << " is not a positive multiple of " << count_name << "="
              << *count;
  if (*output_dim <= 0 || *output_dim % *count != 0)
    NNET3_ERR << type << ": output-dim=" << *output_dim
              << " is not a positive multiple of " << count_name << "="
              << *count;
}

// Gaussian parameters: stddev * N(0,1) for the weights, mean + stddev *
// N(0,1) for the bias.
void RandomInit(const std::string &type, BaseFloat param_stddev,
                BaseFloat bias_stddev, BaseFloat bias_mean,
                CuMatrix<BaseFloat> *linear, CuVector<BaseFloat> *bias) {
  if (!(param_stddev >= 0.0) || !(bias_stddev >= 0.0))
    NNET3_ERR << type << ": negative param-stddev=" << param_stddev
              << " or bias-stddev=" << bias_stddev;
  linear->SetRandn();
  linear->Scale(param_stddev);
  bias->SetRandn();
  bias->Scale(bias_stddev);
  bias->Add(bias_mean);
}

void VectorizeLinearAndBias(const CuMatrixBase<BaseFloat> &linear,
                            const CuVectorBase<BaseFloat> &bias,
                            VectorBase<BaseFloat> *params) {
  int32 n = linear.NumRows() * linear.NumCols();
  NNET3_ASSERT(params->Dim() == n + bias.Dim());
  SubVector<BaseFloat> linear_part(*params, 0, n);
  cu::CopyRowsToVec(linear, &linear_part);
  SubVector<BaseFloat> bias_part(*params, n, bias.Dim());
  bias.CopyToVec(&bias_part);
}

void UnVectorizeLinearAndBias(const VectorBase<BaseFloat> &params,
                              CuMatrixBase<BaseFloat> *linear,
                              CuVectorBase<BaseFloat> *bias) {
  int32 n = linear->NumRows() * linear->NumCols();
  NNET3_ASSERT(params.Dim() == n + bias->Dim());
  linear->CopyRowsFromVec(params.Range(0, n));
  bias->CopyFromVec(params.Range(n, bias->Dim()));
}

void AddNoise(BaseFloat stddev, CuMatrix<BaseFloat> *linear,
              CuVector<BaseFloat> *bias) {
  CuMatrix<BaseFloat> noise(linear->NumRows(), linear->NumCols());
  noise.SetRandn();
  linear->AddMat(stddev, noise);
  CuVector<BaseFloat> bias_noise(bias->Dim());
  bias_noise.SetRandn();
  bias->AddVec(stddev, bias_noise);
}

void ScaleParams(BaseFloat scale, CuMatrix<BaseFloat> *linear,
                 CuVector<BaseFloat> *bias) {
  if (scale == 0.0) {  // also clears NaN / inf
    linear->SetZero();
    bias->SetZero();
  } else {
    linear->Scale(scale);
    bias->Scale(scale);
  }
}

}  // namespace

// ---- BlockAffineComponent ---------------------------------------------------

BlockAffineComponent::BlockAffineComponent(const BlockAffineComponent &other)
    : UpdatableComponent(), linear_params_(other.linear_params_),
      bias_params_(other.bias_params_), num_blocks_(other.num_blocks_) {
  SetUpdatableConfigs(other);
}

void BlockAffineComponent::InitFromConfig(ConfigLine *cfl) {
  int32 input_dim = 0, output_dim = 0, num_blocks = 0;
  GetBlockDims(Type(), "num-blocks", cfl, &input_dim, &output_dim,
               &num_blocks);
  InitLearningRatesFromConfig(cfl);
  BaseFloat param_stddev =
      1.0 / std::sqrt(static_cast<BaseFloat>(input_dim / num_blocks));
  BaseFloat bias_stddev = 1.0, bias_mean = 0.0;
  cfl->GetValue("param-stddev", &param_stddev);
  cfl->GetValue("bias-stddev", &bias_stddev);
  cfl->GetValue("bias-mean", &bias_mean);
  CheckNoUnusedValues(*cfl, *this);
  num_blocks_ = num_blocks;
  linear_params_.Resize(output_dim, input_dim / num_blocks);
  bias_params_.Resize(output_dim);
  RandomInit(Type(), param_stddev, bias_stddev, bias_mean, &linear_params_,
             &bias_params_);
}

std::string BlockAffineComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", num-blocks=" << num_blocks_;
  PrintParameterStats(os, "linear-params", linear_params_);
  PrintParameterStats(os, "bias", bias_params_, true);
  return os.str();
}

void *BlockAffineComponent::Propagate(const ComponentPrecomputedIndexes *,
                                      const CuMatrixBase<BaseFloat> &in,
                                      CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               in.NumRows() == out->NumRows());
  const int32 in_block = linear_params_.NumCols(),
              out_block = linear_params_.NumRows() / num_blocks_;
  out->CopyRowsFromVec(bias_params_);
  for (int32 b = 0; b < num_blocks_; b++) {
    CuSubMatrix<BaseFloat> out_part = out->ColRange(b * out_block, out_block);
    out_part.AddMatMat(1.0, in.ColRange(b * in_block, in_block), kNoTrans,
                       linear_params_.RowRange(b * out_block, out_block),
                       kTrans, 1.0);
  }
  return nullptr;
}

void BlockAffineComponent::Backprop(const std::string &,
                                    const ComponentPrecomputedIndexes *,
                                    const CuMatrixBase<BaseFloat> &in_value,
                                    const CuMatrixBase<BaseFloat> &,
                                    const CuMatrixBase<BaseFloat> &out_deriv,
                                    void *, Component *to_update_in,
                                    CuMatrixBase<BaseFloat> *in_deriv) const {
  const int32 in_block = linear_params_.NumCols(),
              out_block = linear_params_.NumRows() / num_blocks_;
  // Input derivative first, with the parameters before the update.
  if (in_deriv != nullptr) {
    for (int32 b = 0; b < num_blocks_; b++) {
      CuSubMatrix<BaseFloat> part = in_deriv->ColRange(b * in_block, in_block);
      part.AddMatMat(1.0, out_deriv.ColRange(b * out_block, out_block),
                     kNoTrans,
                     linear_params_.RowRange(b * out_block, out_block),
                     kNoTrans, 1.0);
    }
  }
  if (to_update_in == nullptr) return;
  BlockAffineComponent *to_update =
      dynamic_cast<BlockAffineComponent *>(to_update_in);
  NNET3_ASSERT(to_update != nullptr);
  const BaseFloat lr = to_update->learning_rate_;
  for (int32 b = 0; b < num_blocks_; b++) {
    CuSubMatrix<BaseFloat> w =
        to_update->linear_params_.RowRange(b * out_block, out_block);
    w.AddMatMat(lr, out_deriv.ColRange(b * out_block, out_block), kTrans,
                in_value.ColRange(b * in_block, in_block), kNoTrans, 1.0);
  }
  to_update->bias_params_.AddRowSumMat(lr, out_deriv, 1.0);
}

void BlockAffineComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ReadBlockFields(is, binary, token, "<NumBlocks>", ClosingTag(*this),
                  &num_blocks_, &linear_params_, &bias_params_,
                  &is_gradient_);
  if (bias_params_.Dim() != linear_params_.NumRows() ||
      linear_params_.NumRows() % num_blocks_ != 0)
    NNET3_ERR << Type() << ": parameter dimensions do not match "
              << "<NumBlocks> " << num_blocks_;
}

void BlockAffineComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<NumBlocks>");
  WriteBasicType(os, binary, num_blocks_);
  WriteToken(os, binary, "<LinearParams>");
  linear_params_.Write(os, binary);
  WriteToken(os, binary, "<BiasParams>");
  bias_params_.Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

void BlockAffineComponent::Scale(BaseFloat scale) {
  ScaleParams(scale, &linear_params_, &bias_params_);
}

void BlockAffineComponent::Add(BaseFloat alpha, const Component &other_in) {
  const BlockAffineComponent &other =
      SameTypeOrDie<BlockAffineComponent>(other_in);
  linear_params_.AddMat(alpha, other.linear_params_);
  bias_params_.AddVec(alpha, other.bias_params_);
}

void BlockAffineComponent::PerturbParams(BaseFloat stddev) {
  AddNoise(stddev, &linear_params_, &bias_params_);
}

BaseFloat BlockAffineComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const BlockAffineComponent &other =
      SameTypeOrDie<BlockAffineComponent>(other_in);
  return TraceMatMat(linear_params_, other.linear_params_, kTrans) +
         VecVec(bias_params_, other.bias_params_);
}

void BlockAffineComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  VectorizeLinearAndBias(linear_params_, bias_params_, params);
}

void BlockAffineComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  UnVectorizeLinearAndBias(params, &linear_params_, &bias_params_);
}

// ---- RepeatedAffineComponent ------------------------------------------------

RepeatedAffineComponent::RepeatedAffineComponent(
    const RepeatedAffineComponent &other)
    : UpdatableComponent(), linear_params_(other.linear_params_),
      bias_params_(other.bias_params_), num_repeats_(other.num_repeats_) {
  SetUpdatableConfigs(other);
}

void RepeatedAffineComponent::InitFromConfig(ConfigLine *cfl) {
  int32 input_dim = 0, output_dim = 0, num_repeats = 0;
  InitLearningRatesFromConfig(cfl);
  GetBlockDims(Type(), "num-repeats", cfl, &input_dim, &output_dim,
               &num_repeats);
  BaseFloat param_stddev =
      1.0 / std::sqrt(static_cast<BaseFloat>(input_dim / num_repeats));
  BaseFloat bias_mean = 0.0, bias_stddev = 0.0;
  cfl->GetValue("param-stddev", &param_stddev);
  cfl->GetValue("bias-mean", &bias_mean);
  cfl->GetValue("bias-stddev", &bias_stddev);
  CheckNoUnusedValues(*cfl, *this);
  num_repeats_ = num_repeats;
  linear_params_.Resize(output_dim / num_repeats, input_dim / num_repeats);
  bias_params_.Resize(output_dim / num_repeats);
  RandomInit(Type(), param_stddev, bias_stddev, bias_mean, &linear_params_,
             &bias_params_);
  ResetNaturalGradient();
}

std::string RepeatedAffineComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", num-repeats=" << num_repeats_;
  PrintParameterStats(os, "linear-params", linear_params_);
  PrintParameterStats(os, "bias", bias_params_, true);
  return os.str();
}

void *RepeatedAffineComponent::Propagate(const ComponentPrecomputedIndexes *,
                                         const CuMatrixBase<BaseFloat> &in,
                                         CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               in.NumRows() == out->NumRows());
  const int32 in_block = linear_params_.NumCols(),
              out_block = linear_params_.NumRows();
  for (int32 r = 0; r < num_repeats_; r++) {
    CuSubMatrix<BaseFloat> out_part = out->ColRange(r * out_block, out_block);
    out_part.CopyRowsFromVec(bias_params_);
    out_part.AddMatMat(1.0, in.ColRange(r * in_block, in_block), kNoTrans,
                       linear_params_, kTrans, 1.0);
  }
  return nullptr;
}

void RepeatedAffineComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *,
    const CuMatrixBase<BaseFloat> &in_value, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *, Component *to_update_in,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  const int32 in_block = linear_params_.NumCols(),
              out_block = linear_params_.NumRows();
  if (in_deriv != nullptr) {
    for (int32 r = 0; r < num_repeats_; r++) {
      CuSubMatrix<BaseFloat> part = in_deriv->ColRange(r * in_block, in_block);
      part.AddMatMat(1.0, out_deriv.ColRange(r * out_block, out_block),
                     kNoTrans, linear_params_, kNoTrans, 1.0);
    }
  }
  if (to_update_in == nullptr) return;
  RepeatedAffineComponent *to_update =
      dynamic_cast<RepeatedAffineComponent *>(to_update_in);
  NNET3_ASSERT(to_update != nullptr);
  to_update->Update(in_value, out_deriv);
}

void RepeatedAffineComponent::ComputeGradient(
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_deriv,
    CuMatrix<BaseFloat> *gradient) const {
  const int32 in_block = linear_params_.NumCols(),
              out_block = linear_params_.NumRows();
  NNET3_ASSERT(in_value.NumRows() == out_deriv.NumRows() &&
               in_value.NumCols() == InputDim() &&
               out_deriv.NumCols() == OutputDim());
  gradient->Resize(out_block, in_block + 1);
  CuSubMatrix<BaseFloat> linear_part = gradient->ColRange(0, in_block);
  CuVector<BaseFloat> bias_part(out_block);
  for (int32 r = 0; r < num_repeats_; r++) {
    const CuSubMatrix<BaseFloat> od =
        out_deriv.ColRange(r * out_block, out_block);
    linear_part.AddMatMat(1.0, od, kTrans,
                          in_value.ColRange(r * in_block, in_block), kNoTrans,
                          1.0);
    bias_part.AddRowSumMat(1.0, od, 1.0);
  }
  gradient->CopyColFromVec(bias_part, in_block);
}

void RepeatedAffineComponent::Update(const CuMatrixBase<BaseFloat> &in_value,
                                     const CuMatrixBase<BaseFloat> &out_deriv) {
  CuMatrix<BaseFloat> gradient;
  ComputeGradient(in_value, out_deriv, &gradient);
  const int32 in_block = linear_params_.NumCols();
  linear_params_.AddMat(learning_rate_, gradient.ColRange(0, in_block));
  CuVector<BaseFloat> bias_grad(bias_params_.Dim());
  bias_grad.CopyColFromMat(gradient, in_block);
  bias_params_.AddVec(learning_rate_, bias_grad);
}

void RepeatedAffineComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ReadBlockFields(is, binary, token, "<NumRepeats>", ClosingTag(*this),
                  &num_repeats_, &linear_params_, &bias_params_,
                  &is_gradient_);
  if (bias_params_.Dim() != linear_params_.NumRows())
    NNET3_ERR << Type() << ": bias dimension " << bias_params_.Dim()
              << " does not match " << linear_params_.NumRows()
              << " rows of the linear parameters";
  ResetNaturalGradient();
}

void RepeatedAffineComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<NumRepeats>");
  WriteBasicType(os, binary, num_repeats_);
  WriteToken(os, binary, "<LinearParams>");
  linear_params_.Write(os, binary);
  WriteToken(os, binary, "<BiasParams>");
  bias_params_.Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

void RepeatedAffineComponent::Scale(BaseFloat scale) {
  ScaleParams(scale, &linear_params_, &bias_params_);
}

void RepeatedAffineComponent::Add(BaseFloat alpha, const Component &other_in) {
  const RepeatedAffineComponent &other =
      SameTypeOrDie<RepeatedAffineComponent>(other_in);
  linear_params_.AddMat(alpha, other.linear_params_);
  bias_params_.AddVec(alpha, other.bias_params_);
}

void RepeatedAffineComponent::PerturbParams(BaseFloat stddev) {
  AddNoise(stddev, &linear_params_, &bias_params_);
}

BaseFloat RepeatedAffineComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const RepeatedAffineComponent &other =
      SameTypeOrDie<RepeatedAffineComponent>(other_in);
  return TraceMatMat(linear_params_, other.linear_params_, kTrans) +
         VecVec(bias_params_, other.bias_params_);
}

void RepeatedAffineComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  VectorizeLinearAndBias(linear_params_, bias_params_, params);
}

void RepeatedAffineComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  UnVectorizeLinearAndBias(params, &linear_params_, &bias_params_);
}

// ---- NaturalGradientRepeatedAffineComponent ---------------------------------

void NaturalGradientRepeatedAffineComponent::ResetNaturalGradient() {
  const int32 in_block = linear_params_.NumCols();
  int32 rank = std::max<int32>(1, std::min<int32>(40, in_block / 2));
  preconditioner_ = OnlineNaturalGradient();
  preconditioner_.SetRank(rank);
  preconditioner_.SetUpdatePeriod(4);
}

void NaturalGradientRepeatedAffineComponent::Update(
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_deriv) {
  // The rows of the gradient (one per output dimension of the block, each
  // with the bias derivative appended) are the vectors preconditioned.
  CuMatrix<BaseFloat> gradient;
  ComputeGradient(in_value, out_deriv, &gradient);
  BaseFloat scale = 1.0;
  if (!is_gradient_) preconditioner_.PreconditionDirections(&gradient, &scale);
  const int32 in_block = linear_params_.NumCols();
  const BaseFloat step = learning_rate_ * scale;
  linear_params_.AddMat(step, gradient.ColRange(0, in_block));
  CuVector<BaseFloat> bias_grad(bias_params_.Dim());
  bias_grad.CopyColFromMat(gradient, in_block);
  bias_params_.AddVec(step, bias_grad);
}

// ---- Registration -----------------------------------------------------------

void RegisterRepeatedAffineComponents(ComponentRegistry *r) {
  r->Add("BlockAffineComponent", [] { return new BlockAffineComponent(); });
  r->Add("RepeatedAffineComponent",
         [] { return new RepeatedAffineComponent(); });
  r->Add("NaturalGradientRepeatedAffineComponent",
         [] { return new NaturalGradientRepeatedAffineComponent(); });
}

}  // namespace nnet3
