// nnet3/components/affine.cc
#include "nnet3/components/affine.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "cudamatrix/cu-math-low-rank.h"
#include "cudamatrix/cu-math-recurrent.h"
#include "nnet3/components/parameter-stats.h"
#include "util/stream.h"

namespace nnet3 {

namespace {

// After ReadUpdatableCommon: 'token' is "" if <LearningRate> was read (then
// the next token must be 'expected'), else the token that came instead.
void ExpectAfterCommon(std::istream &is, bool binary, const std::string &token,
                       const char *expected) {
  if (token.empty())
    ExpectToken(is, binary, expected);
  else if (token != expected)
    NNET3_ERR << "Expected token " << expected << ", got "
              << PrintableString(token);
}

// Reads a matrix file for matrix=FILE; errors name the option and the file.
void ReadMatrixOption(const std::string &filename, const std::string &type,
                      CuMatrix<BaseFloat> *mat) {
  try {
    ReadKaldiObject(filename, mat);
  } catch (const UserError &e) {
    NNET3_ERR << type << ": could not read matrix=" << filename << ": "
              << e.message();
  }
  if (mat->NumRows() == 0)
    NNET3_ERR << type << ": empty matrix in matrix=" << filename;
}

// 'other' must be of type C (Add/DotProduct between different types is a
// programming error).
template <class C>
const C &CastOrDie(const Component &other) {
  const C *c = dynamic_cast<const C *>(&other);
  NNET3_ASSERT(c != nullptr);
  return *c;
}

}  // namespace

// ---- AffineComponent --------------------------------------------------------

AffineComponent::AffineComponent(const AffineComponent &other)
    : UpdatableComponent(), linear_params_(other.linear_params_),
      bias_params_(other.bias_params_),
      orthonormal_constraint_(other.orthonormal_constraint_) {
  SetUpdatableConfigs(other);
}

void AffineComponent::Init(int32 input_dim, int32 output_dim,
                           BaseFloat param_stddev, BaseFloat bias_stddev,
                           BaseFloat bias_mean) {
  if (input_dim <= 0 || output_dim <= 0 || !(param_stddev >= 0.0) ||
      !(bias_stddev >= 0.0))
    NNET3_ERR << Type() << ": invalid input-dim=" << input_dim
              << ", output-dim=" << output_dim << ", param-stddev="
              << param_stddev << " or bias-stddev=" << bias_stddev;
  linear_params_.Resize(output_dim, input_dim);
  bias_params_.Resize(output_dim);
  linear_params_.SetRandn();
  linear_params_.Scale(param_stddev);
  bias_params_.SetRandn();
  bias_params_.Scale(bias_stddev);
  bias_params_.Add(bias_mean);
}

void AffineComponent::Init(const std::string &matrix_filename) {
  CuMatrix<BaseFloat> mat;
  ReadMatrixOption(matrix_filename, Type(), &mat);
  if (mat.NumCols() < 2)
    NNET3_ERR << Type() << ": matrix=" << matrix_filename
              << " needs at least 2 columns (the last is the bias), has "
              << mat.NumCols();
  int32 input_dim = mat.NumCols() - 1, output_dim = mat.NumRows();
  linear_params_.Resize(output_dim, input_dim);
  bias_params_.Resize(output_dim);
  linear_params_.CopyFromMat(mat.Range(0, output_dim, 0, input_dim));
  bias_params_.CopyColFromMat(mat, input_dim);
}

void AffineComponent::InitFromConfig(ConfigLine *cfl) {
  std::string matrix_filename;
  int32 input_dim = -1, output_dim = -1;
  InitLearningRatesFromConfig(cfl);
  if (cfl->GetValue("matrix", &matrix_filename)) {
    Init(matrix_filename);
    if (cfl->GetValue("input-dim", &input_dim) && input_dim != InputDim())
      NNET3_ERR << Type() << ": input-dim=" << input_dim
                << " does not match the matrix (" << InputDim() << ")";
    if (cfl->GetValue("output-dim", &output_dim) && output_dim != OutputDim())
      NNET3_ERR << Type() << ": output-dim=" << output_dim
                << " does not match the matrix (" << OutputDim() << ")";
  } else {
    if (!cfl->GetValue("input-dim", &input_dim) ||
        !cfl->GetValue("output-dim", &output_dim))
      NNET3_ERR << Type() << ": input-dim and output-dim (or matrix) are "
                << "required: " << cfl->WholeLine();
    if (input_dim <= 0)
      NNET3_ERR << Type() << ": invalid input-dim=" << input_dim;
    BaseFloat param_stddev = 1.0 / std::sqrt(static_cast<BaseFloat>(input_dim)),
        bias_stddev = 1.0, bias_mean = 0.0;
    cfl->GetValue("param-stddev", &param_stddev);
    cfl->GetValue("bias-stddev", &bias_stddev);
    cfl->GetValue("bias-mean", &bias_mean);
    Init(input_dim, output_dim, param_stddev, bias_stddev, bias_mean);
  }
  orthonormal_constraint_ = 0.0;
  cfl->GetValue("orthonormal-constraint", &orthonormal_constraint_);
  CheckNoUnusedValues(*cfl, *this);
}

std::string AffineComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info();
  if (orthonormal_constraint_ != 0.0)
    os << ", orthonormal-constraint=" << orthonormal_constraint_;
  PrintParameterStats(os, "linear-params", linear_params_, false, true, true);
  PrintParameterStats(os, "bias", bias_params_, true);
  return os.str();
}

void *AffineComponent::Propagate(const ComponentPrecomputedIndexes *,
                                 const CuMatrixBase<BaseFloat> &in,
                                 CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               in.NumRows() == out->NumRows());
  out->CopyRowsFromVec(bias_params_);
  out->AddMatMat(1.0, in, kNoTrans, linear_params_, kTrans, 1.0);
  return nullptr;
}

void AffineComponent::Backprop(const std::string &debug_info,
                               const ComponentPrecomputedIndexes *,
                               const CuMatrixBase<BaseFloat> &in_value,
                               const CuMatrixBase<BaseFloat> &,
                               const CuMatrixBase<BaseFloat> &out_deriv,
                               void *, Component *to_update_in,
                               CuMatrixBase<BaseFloat> *in_deriv) const {
  // The input derivative uses the parameters before any update.
  if (in_deriv != nullptr)
    in_deriv->AddMatMat(1.0, out_deriv, kNoTrans, linear_params_, kNoTrans,
                        1.0);
  if (to_update_in != nullptr) {
    AffineComponent *to_update = dynamic_cast<AffineComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
    if (to_update->is_gradient_)
      to_update->UpdateSimple(in_value, out_deriv);
    else
      to_update->Update(debug_info, in_value, out_deriv);
  }
}

void AffineComponent::UpdateSimple(const CuMatrixBase<BaseFloat> &in_value,
                                   const CuMatrixBase<BaseFloat> &out_deriv) {
  bias_params_.AddRowSumMat(learning_rate_, out_deriv, 1.0);
  linear_params_.AddMatMat(learning_rate_, out_deriv, kTrans, in_value,
                           kNoTrans, 1.0);
}

void AffineComponent::ReadParams(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ExpectAfterCommon(is, binary, token, "<LinearParams>");
  linear_params_.Read(is, binary);
  ExpectToken(is, binary, "<BiasParams>");
  bias_params_.Read(is, binary);
  if (bias_params_.Dim() != linear_params_.NumRows())
    NNET3_ERR << Type() << ": bias dimension " << bias_params_.Dim()
              << " does not match the " << linear_params_.NumRows()
              << " rows of the linear parameters";
  // Old files wrote <IsGradient> here.
  if (PeekToken(is, binary) == 'I') {
    ExpectToken(is, binary, "<IsGradient>");
    ReadBasicType(is, binary, &is_gradient_);
  }
}

void AffineComponent::Read(std::istream &is, bool binary) {
  ReadParams(is, binary);
  orthonormal_constraint_ = 0.0;
  if (PeekToken(is, binary) == 'O') {
    ExpectToken(is, binary, "<OrthonormalConstraint>");
    ReadBasicType(is, binary, &orthonormal_constraint_);
  }
  ExpectToken(is, binary, ClosingTag(*this));
}

void AffineComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<LinearParams>");
  linear_params_.Write(os, binary);
  WriteToken(os, binary, "<BiasParams>");
  bias_params_.Write(os, binary);
  if (orthonormal_constraint_ != 0.0) {
    WriteToken(os, binary, "<OrthonormalConstraint>");
    WriteBasicType(os, binary, orthonormal_constraint_);
  }
  WriteToken(os, binary, ClosingTag(*this));
}

void AffineComponent::Scale(BaseFloat scale) {
  if (scale == 0.0) {
    // SetZero also clears NaNs and infinities.
    linear_params_.SetZero();
    bias_params_.SetZero();
  } else {
    linear_params_.Scale(scale);
    bias_params_.Scale(scale);
  }
}

void AffineComponent::Add(BaseFloat alpha, const Component &other_in) {
  const AffineComponent &other =
      CastOrDie<AffineComponent>(other_in);
  linear_params_.AddMat(alpha, other.linear_params_);
  bias_params_.AddVec(alpha, other.bias_params_);
}

void AffineComponent::PerturbParams(BaseFloat stddev) {
  CuMatrix<BaseFloat> temp_linear(linear_params_.NumRows(),
                                  linear_params_.NumCols());
  temp_linear.SetRandn();
  linear_params_.AddMat(stddev, temp_linear);
  CuVector<BaseFloat> temp_bias(bias_params_.Dim());
  temp_bias.SetRandn();
  bias_params_.AddVec(stddev, temp_bias);
}

BaseFloat AffineComponent::DotProduct(const UpdatableComponent &other_in) const {
  const AffineComponent &other =
      CastOrDie<AffineComponent>(other_in);
  return TraceMatMat(linear_params_, other.linear_params_, kTrans) +
         VecVec(bias_params_, other.bias_params_);
}

void AffineComponent::SquaredNorm(CuVectorBase<BaseFloat> *norm) const {
  cu::SumOfSquares(linear_params_, bias_params_, norm);
}

void AffineComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  int32 linear_size = InputDim() * OutputDim();
  SubVector<BaseFloat> linear_part(*params, 0, linear_size);
  cu::CopyRowsToVec(linear_params_, &linear_part);
  SubVector<BaseFloat> bias_part(*params, linear_size, OutputDim());
  bias_params_.CopyToVec(&bias_part);
}

void AffineComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  int32 linear_size = InputDim() * OutputDim();
  linear_params_.CopyRowsFromVec(params.Range(0, linear_size));
  bias_params_.CopyFromVec(params.Range(linear_size, OutputDim()));
}

void AffineComponent::SetParams(const CuVectorBase<BaseFloat> &bias,
                                const CuMatrixBase<BaseFloat> &linear) {
  NNET3_ASSERT(bias.Dim() == linear.NumRows());
  bias_params_ = bias;
  linear_params_ = linear;
}

// ---- NaturalGradientAffineComponent -----------------------------------------

NaturalGradientAffineComponent::NaturalGradientAffineComponent(
    const NaturalGradientAffineComponent &other)
    : AffineComponent(other), rank_in_(other.rank_in_),
      rank_out_(other.rank_out_), update_period_(other.update_period_),
      num_samples_history_(other.num_samples_history_), alpha_(other.alpha_),
      preconditioner_in_(other.preconditioner_in_),
      preconditioner_out_(other.preconditioner_out_) {}

NaturalGradientAffineComponent::NaturalGradientAffineComponent(
    const CuMatrixBase<BaseFloat> &linear, const CuVectorBase<BaseFloat> &bias)
    : rank_in_(20), rank_out_(80), update_period_(4),
      num_samples_history_(2000.0), alpha_(4.0) {
  NNET3_ASSERT(bias.Dim() == linear.NumRows() && bias.Dim() > 0);
  SetParams(bias, linear);
  ConfigurePreconditioners();
}

namespace {

// Replaces *in and *out by fresh preconditioners with these options (the
// input and output sides of an affine or linear component).
void ResetPreconditioners(const std::string &type, int32 rank_in,
                          int32 rank_out, int32 update_period,
                          BaseFloat num_samples_history, BaseFloat alpha,
                          OnlineNaturalGradient *in,
                          OnlineNaturalGradient *out) {
  if (rank_in <= 0 || rank_out <= 0 || update_period <= 0 ||
      !(num_samples_history > 0.0 && num_samples_history < 1.0e+06) ||
      !(alpha >= 0.0))
    NNET3_ERR << type << ": invalid natural-gradient options rank-in="
              << rank_in << ", rank-out=" << rank_out << ", update-period="
              << update_period << ", num-samples-history="
              << num_samples_history << ", alpha=" << alpha;
  OnlineNaturalGradient *sides[2] = {in, out};
  for (int32 i = 0; i < 2; i++) {
    *sides[i] = OnlineNaturalGradient();
    sides[i]->SetRank(i == 0 ? rank_in : rank_out);
    sides[i]->SetUpdatePeriod(update_period);
    sides[i]->SetNumSamplesHistory(num_samples_history);
    sides[i]->SetAlpha(alpha);
  }
}

}  // namespace

void NaturalGradientAffineComponent::ConfigurePreconditioners() {
  ResetPreconditioners(Type(), rank_in_, rank_out_, update_period_,
                       num_samples_history_, alpha_, &preconditioner_in_,
                       &preconditioner_out_);
}

void NaturalGradientAffineComponent::InitFromConfig(ConfigLine *cfl) {
  // The affine part is configured exactly as for AffineComponent; the
  // natural-gradient options are taken first so that AffineComponent's
  // unused-value check does not see them.
  num_samples_history_ = 2000.0;
  alpha_ = 4.0;
  int32 rank_in = -1, rank_out = -1;
  update_period_ = 4;
  cfl->GetValue("num-samples-history", &num_samples_history_);
  cfl->GetValue("alpha", &alpha_);
  cfl->GetValue("rank-in", &rank_in);
  cfl->GetValue("rank-out", &rank_out);
  cfl->GetValue("update-period", &update_period_);
  AffineComponent::InitFromConfig(cfl);
  rank_in_ = rank_in >= 0 ? rank_in : std::min<int32>(20, (InputDim() + 1) / 2);
  rank_out_ =
      rank_out >= 0 ? rank_out : std::min<int32>(80, (OutputDim() + 1) / 2);
  if (num_samples_history_ <= 0.0 || alpha_ < 0.0 || update_period_ <= 0)
    NNET3_ERR << Type() << ": invalid num-samples-history, alpha or "
              << "update-period in: " << cfl->WholeLine();
  ConfigurePreconditioners();
}

std::string NaturalGradientAffineComponent::Info() const {
  std::ostringstream os;
  os << AffineComponent::Info() << ", rank-in=" << rank_in_
     << ", rank-out=" << rank_out_
     << ", num-samples-history=" << num_samples_history_
     << ", update-period=" << update_period_ << ", alpha=" << alpha_;
  return os.str();
}

void NaturalGradientAffineComponent::Read(std::istream &is, bool binary) {
  ReadParams(is, binary);
  ExpectToken(is, binary, "<RankIn>");
  ReadBasicType(is, binary, &rank_in_);
  ExpectToken(is, binary, "<RankOut>");
  ReadBasicType(is, binary, &rank_out_);
  orthonormal_constraint_ = 0.0;
  if (PeekToken(is, binary) == 'O') {
    ExpectToken(is, binary, "<OrthonormalConstraint>");
    ReadBasicType(is, binary, &orthonormal_constraint_);
  }
  ExpectToken(is, binary, "<UpdatePeriod>");
  ReadBasicType(is, binary, &update_period_);
  ExpectToken(is, binary, "<NumSamplesHistory>");
  ReadBasicType(is, binary, &num_samples_history_);
  ExpectToken(is, binary, "<Alpha>");
  ReadBasicType(is, binary, &alpha_);
  // Fields of older formats, read and dropped.
  std::string token;
  ReadToken(is, binary, &token);
  if (token == "<MaxChangePerSample>") {
    BaseFloat unused;
    ReadBasicType(is, binary, &unused);
    ReadToken(is, binary, &token);
  }
  if (token == "<IsGradient>") {
    ReadBasicType(is, binary, &is_gradient_);
    ReadToken(is, binary, &token);
  }
  if (token == "<UpdateCount>") {
    double unused;
    ReadBasicType(is, binary, &unused);
    ReadToken(is, binary, &token);
  }
  if (token == "<ActiveScalingCount>") {
    double unused;
    ReadBasicType(is, binary, &unused);
    ReadToken(is, binary, &token);
  }
  if (token == "<MaxChangeScaleStats>") {
    double unused;
    ReadBasicType(is, binary, &unused);
    ReadToken(is, binary, &token);
  }
  if (token != ClosingTag(*this) && token != OpeningTag(*this))
    NNET3_ERR << "Expected " << ClosingTag(*this) << ", got "
              << PrintableString(token);
  ConfigurePreconditioners();
}

void NaturalGradientAffineComponent::Write(std::ostream &os,
                                           bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<LinearParams>");
  linear_params_.Write(os, binary);
  WriteToken(os, binary, "<BiasParams>");
  bias_params_.Write(os, binary);
  WriteToken(os, binary, "<RankIn>");
  WriteBasicType(os, binary, preconditioner_in_.GetRank());
  WriteToken(os, binary, "<RankOut>");
  WriteBasicType(os, binary, preconditioner_out_.GetRank());
  if (orthonormal_constraint_ != 0.0) {
    WriteToken(os, binary, "<OrthonormalConstraint>");
    WriteBasicType(os, binary, orthonormal_constraint_);
  }
  WriteToken(os, binary, "<UpdatePeriod>");
  WriteBasicType(os, binary, update_period_);
  WriteToken(os, binary, "<NumSamplesHistory>");
  WriteBasicType(os, binary, num_samples_history_);
  WriteToken(os, binary, "<Alpha>");
  WriteBasicType(os, binary, alpha_);
  WriteToken(os, binary, ClosingTag(*this));
}

void NaturalGradientAffineComponent::SetPreconditioners(
    const OnlineNaturalGradient &in, const OnlineNaturalGradient &out) {
  NNET3_ASSERT(in.GetUpdatePeriod() == update_period_ &&
               out.GetUpdatePeriod() == update_period_);
  preconditioner_in_ = in;
  preconditioner_out_ = out;
}

void NaturalGradientAffineComponent::Update(
    const std::string &debug_info, const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_deriv) {
  (void)debug_info;
  const int32 num_rows = in_value.NumRows(), input_dim = in_value.NumCols(),
              output_dim = out_deriv.NumCols();
  // Nothing to learn from no rows (and the preconditioners do not count
  // such a call).
  if (num_rows == 0) return;
  CuMatrix<BaseFloat> out_deriv_temp(out_deriv);
  BaseFloat in_scale, out_scale;
  // The input-side preconditioner works on [in_value, 1]: the bias is the
  // weight of the column of ones. Forming that matrix costs a copy of the
  // input and a pass that subtracts H W (H = [in_value, 1] W^T, rank
  // columns) from it; when the output is narrower than the input (a TDNN's
  // spliced layers; not its first layer or a wide output layer) the
  // gradient is cheaper from H and W (AddPreconditionedWithOnesProduct).
  if (output_dim < input_dim + 1) {
    std::vector<CuSubMatrix<BaseFloat> > in_blocks;
    in_blocks.push_back(in_value.ColRange(0, input_dim));
    CuMatrix<BaseFloat> H, W;
    preconditioner_in_.PreconditionWithOnes(in_blocks, &H, &W, &in_scale);
    preconditioner_out_.PreconditionDirections(&out_deriv_temp, &out_scale);
    const BaseFloat local_lrate = in_scale * out_scale * learning_rate_;
    AddPreconditionedWithOnesProduct(local_lrate, out_deriv_temp, in_blocks,
                                     H, W, &linear_params_, &bias_params_);
    return;
  }
  CuMatrix<BaseFloat> in_value_temp(num_rows, input_dim + 1, kUndefined);
  in_value_temp.ColRange(0, input_dim).CopyFromMat(in_value);
  in_value_temp.ColRange(input_dim, 1).Set(1.0);
  preconditioner_in_.PreconditionDirections(&in_value_temp, &in_scale);
  preconditioner_out_.PreconditionDirections(&out_deriv_temp, &out_scale);
  const BaseFloat local_lrate = in_scale * out_scale * learning_rate_;
  // What the column of ones became after preconditioning.
  CuVector<BaseFloat> precon_ones(num_rows);
  precon_ones.CopyColFromMat(in_value_temp, input_dim);
  bias_params_.AddMatVec(local_lrate, out_deriv_temp, kTrans, precon_ones,
                         1.0);
  linear_params_.AddMatMat(local_lrate, out_deriv_temp, kTrans,
                           in_value_temp.ColRange(0, input_dim), kNoTrans,
                           1.0);
}

// ---- LinearComponent ---------------------------------------------------------

LinearComponent::LinearComponent(const LinearComponent &other)
    : UpdatableComponent(), params_(other.params_),
      orthonormal_constraint_(other.orthonormal_constraint_),
      use_natural_gradient_(other.use_natural_gradient_),
      rank_in_(other.rank_in_), rank_out_(other.rank_out_),
      update_period_(other.update_period_),
      num_samples_history_(other.num_samples_history_), alpha_(other.alpha_),
      preconditioner_in_(other.preconditioner_in_),
      preconditioner_out_(other.preconditioner_out_) {
  SetUpdatableConfigs(other);
}

LinearComponent::LinearComponent(const CuMatrixBase<BaseFloat> &params)
    : params_(params), orthonormal_constraint_(0.0),
      use_natural_gradient_(true), rank_in_(40), rank_out_(80),
      update_period_(4), num_samples_history_(2000.0), alpha_(4.0) {
  ConfigurePreconditioners();
}

void LinearComponent::ConfigurePreconditioners() {
  ResetPreconditioners(Type(), rank_in_, rank_out_, update_period_,
                       num_samples_history_, alpha_, &preconditioner_in_,
                       &preconditioner_out_);
}

void LinearComponent::InitFromConfig(ConfigLine *cfl) {
  std::string matrix_filename;
  int32 input_dim = -1, output_dim = -1;
  is_gradient_ = false;
  InitLearningRatesFromConfig(cfl);
  if (cfl->GetValue("matrix", &matrix_filename)) {
    ReadMatrixOption(matrix_filename, Type(), &params_);
    if (cfl->GetValue("input-dim", &input_dim) && input_dim != InputDim())
      NNET3_ERR << Type() << ": input-dim=" << input_dim
                << " does not match the matrix (" << InputDim() << ")";
    if (cfl->GetValue("output-dim", &output_dim) && output_dim != OutputDim())
      NNET3_ERR << Type() << ": output-dim=" << output_dim
                << " does not match the matrix (" << OutputDim() << ")";
  } else {
    if (!cfl->GetValue("input-dim", &input_dim) ||
        !cfl->GetValue("output-dim", &output_dim))
      NNET3_ERR << Type() << ": input-dim and output-dim (or matrix) are "
                << "required: " << cfl->WholeLine();
    if (input_dim <= 0 || output_dim <= 0)
      NNET3_ERR << Type() << ": invalid input-dim=" << input_dim
                << " or output-dim=" << output_dim;
    BaseFloat param_stddev =
        1.0 / std::sqrt(static_cast<BaseFloat>(input_dim));
    cfl->GetValue("param-stddev", &param_stddev);
    if (!(param_stddev >= 0.0))
      NNET3_ERR << Type() << ": invalid param-stddev=" << param_stddev;
    params_.Resize(output_dim, input_dim);
    params_.SetRandn();
    params_.Scale(param_stddev);
  }
  int32 rank_in = -1, rank_out = -1;
  update_period_ = 4;
  alpha_ = 4.0;
  num_samples_history_ = 2000.0;
  use_natural_gradient_ = true;
  cfl->GetValue("num-samples-history", &num_samples_history_);
  cfl->GetValue("alpha", &alpha_);
  cfl->GetValue("rank-in", &rank_in);
  cfl->GetValue("rank-out", &rank_out);
  cfl->GetValue("update-period", &update_period_);
  cfl->GetValue("use-natural-gradient", &use_natural_gradient_);
  rank_in_ = rank_in >= 0 ? rank_in : std::min<int32>(20, (InputDim() + 1) / 2);
  rank_out_ =
      rank_out >= 0 ? rank_out : std::min<int32>(80, (OutputDim() + 1) / 2);
  orthonormal_constraint_ = 0.0;
  cfl->GetValue("orthonormal-constraint", &orthonormal_constraint_);
  CheckNoUnusedValues(*cfl, *this);
  ConfigurePreconditioners();
}

std::string LinearComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info();
  PrintParameterStats(os, "params", params_, false, true, true);
  if (orthonormal_constraint_ != 0.0)
    os << ", orthonormal-constraint=" << orthonormal_constraint_;
  os << ", use-natural-gradient="
     << (use_natural_gradient_ ? "true" : "false") << ", rank-in=" << rank_in_
     << ", rank-out=" << rank_out_
     << ", num-samples-history=" << num_samples_history_
     << ", update-period=" << update_period_ << ", alpha=" << alpha_;
  return os.str();
}

void *LinearComponent::Propagate(const ComponentPrecomputedIndexes *,
                                 const CuMatrixBase<BaseFloat> &in,
                                 CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               in.NumRows() == out->NumRows());
  out->AddMatMat(1.0, in, kNoTrans, params_, kTrans, 1.0);
  return nullptr;
}

void LinearComponent::Backprop(const std::string &,
                               const ComponentPrecomputedIndexes *,
                               const CuMatrixBase<BaseFloat> &in_value,
                               const CuMatrixBase<BaseFloat> &,
                               const CuMatrixBase<BaseFloat> &out_deriv,
                               void *, Component *to_update_in,
                               CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv != nullptr)
    in_deriv->AddMatMat(1.0, out_deriv, kNoTrans, params_, kNoTrans, 1.0);
  if (to_update_in != nullptr) {
    LinearComponent *to_update = dynamic_cast<LinearComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
    // As in Kaldi, use_natural_gradient_ is configuration only: every update
    // that is not a gradient is preconditioned.
    if (to_update->is_gradient_) {
      to_update->params_.AddMatMat(to_update->learning_rate_, out_deriv,
                                   kTrans, in_value, kNoTrans, 1.0);
    } else {
      CuMatrix<BaseFloat> in_value_temp(in_value), out_deriv_temp(out_deriv);
      BaseFloat in_scale, out_scale;
      to_update->preconditioner_in_.PreconditionDirections(&in_value_temp,
                                                           &in_scale);
      to_update->preconditioner_out_.PreconditionDirections(&out_deriv_temp,
                                                            &out_scale);
      to_update->params_.AddMatMat(
          in_scale * out_scale * to_update->learning_rate_, out_deriv_temp,
          kTrans, in_value_temp, kNoTrans, 1.0);
    }
  }
}

void LinearComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  ExpectAfterCommon(is, binary, token, "<Params>");
  params_.Read(is, binary);
  orthonormal_constraint_ = 0.0;
  if (PeekToken(is, binary) == 'O') {
    ExpectToken(is, binary, "<OrthonormalConstraint>");
    ReadBasicType(is, binary, &orthonormal_constraint_);
  }
  ExpectToken(is, binary, "<UseNaturalGradient>");
  ReadBasicType(is, binary, &use_natural_gradient_);
  ExpectToken(is, binary, "<RankInOut>");
  ReadBasicType(is, binary, &rank_in_);
  ReadBasicType(is, binary, &rank_out_);
  ExpectToken(is, binary, "<Alpha>");
  ReadBasicType(is, binary, &alpha_);
  ExpectToken(is, binary, "<NumSamplesHistory>");
  ReadBasicType(is, binary, &num_samples_history_);
  ExpectToken(is, binary, "<UpdatePeriod>");
  ReadBasicType(is, binary, &update_period_);
  ExpectToken(is, binary, ClosingTag(*this));
  ConfigurePreconditioners();
}

void LinearComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<Params>");
  params_.Write(os, binary);
  if (orthonormal_constraint_ != 0.0) {
    WriteToken(os, binary, "<OrthonormalConstraint>");
    WriteBasicType(os, binary, orthonormal_constraint_);
  }
  WriteToken(os, binary, "<UseNaturalGradient>");
  WriteBasicType(os, binary, use_natural_gradient_);
  WriteToken(os, binary, "<RankInOut>");
  WriteBasicType(os, binary, preconditioner_in_.GetRank());
  WriteBasicType(os, binary, preconditioner_out_.GetRank());
  WriteToken(os, binary, "<Alpha>");
  WriteBasicType(os, binary, alpha_);
  WriteToken(os, binary, "<NumSamplesHistory>");
  WriteBasicType(os, binary, num_samples_history_);
  WriteToken(os, binary, "<UpdatePeriod>");
  WriteBasicType(os, binary, update_period_);
  WriteToken(os, binary, ClosingTag(*this));
}

void LinearComponent::Scale(BaseFloat scale) {
  if (scale == 0.0)
    params_.SetZero();
  else
    params_.Scale(scale);
}

void LinearComponent::Add(BaseFloat alpha, const Component &other_in) {
  const LinearComponent &other =
      CastOrDie<LinearComponent>(other_in);
  params_.AddMat(alpha, other.params_);
}

void LinearComponent::PerturbParams(BaseFloat stddev) {
  CuMatrix<BaseFloat> temp(params_.NumRows(), params_.NumCols());
  temp.SetRandn();
  params_.AddMat(stddev, temp);
}

BaseFloat LinearComponent::DotProduct(const UpdatableComponent &other_in) const {
  const LinearComponent &other =
      CastOrDie<LinearComponent>(other_in);
  return TraceMatMat(params_, other.params_, kTrans);
}

void LinearComponent::SquaredNorm(CuVectorBase<BaseFloat> *norm) const {
  cu::SumOfSquares(params_, norm);
}

void LinearComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  cu::CopyRowsToVec(params_, params);
}

void LinearComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  params_.CopyRowsFromVec(params);
}

// ---- FixedAffineComponent ----------------------------------------------------

FixedAffineComponent::FixedAffineComponent(const AffineComponent &c)
    : linear_params_(c.LinearParams()), bias_params_(c.BiasParams()) {}

Component *FixedAffineComponent::Copy() const {
  FixedAffineComponent *ans = new FixedAffineComponent();
  ans->linear_params_ = linear_params_;
  ans->bias_params_ = bias_params_;
  return ans;
}

void FixedAffineComponent::Init(const CuMatrixBase<BaseFloat> &mat) {
  if (mat.NumCols() < 2 || mat.NumRows() < 1)
    NNET3_ERR << Type() << ": the matrix must have at least 1 row and 2 "
              << "columns (the last is the bias), has " << mat.NumRows()
              << " x " << mat.NumCols();
  int32 input_dim = mat.NumCols() - 1, output_dim = mat.NumRows();
  linear_params_.Resize(output_dim, input_dim);
  bias_params_.Resize(output_dim);
  linear_params_.CopyFromMat(mat.Range(0, output_dim, 0, input_dim));
  bias_params_.CopyColFromMat(mat, input_dim);
}

void FixedAffineComponent::InitFromConfig(ConfigLine *cfl) {
  std::string filename;
  if (cfl->GetValue("matrix", &filename)) {
    CheckNoUnusedValues(*cfl, *this);
    CuMatrix<BaseFloat> mat;
    ReadMatrixOption(filename, Type(), &mat);
    Init(mat);
  } else {
    int32 input_dim = -1, output_dim = -1;
    if (!cfl->GetValue("input-dim", &input_dim) ||
        !cfl->GetValue("output-dim", &output_dim))
      NNET3_ERR << Type() << ": matrix (or input-dim and output-dim) is "
                << "required: " << cfl->WholeLine();
    CheckNoUnusedValues(*cfl, *this);
    if (input_dim <= 0 || output_dim <= 0)
      NNET3_ERR << Type() << ": invalid input-dim=" << input_dim
                << " or output-dim=" << output_dim;
    CuMatrix<BaseFloat> mat(output_dim, input_dim + 1);
    mat.SetRandn();
    Init(mat);
  }
}

std::string FixedAffineComponent::Info() const {
  std::ostringstream os;
  os << Component::Info();
  PrintParameterStats(os, "linear-params", linear_params_);
  PrintParameterStats(os, "bias", bias_params_, true);
  return os.str();
}

void *FixedAffineComponent::Propagate(const ComponentPrecomputedIndexes *,
                                      const CuMatrixBase<BaseFloat> &in,
                                      CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               in.NumRows() == out->NumRows());
  out->CopyRowsFromVec(bias_params_);
  out->AddMatMat(1.0, in, kNoTrans, linear_params_, kTrans, 1.0);
  return nullptr;
}

void FixedAffineComponent::Backprop(const std::string &,
                                    const ComponentPrecomputedIndexes *,
                                    const CuMatrixBase<BaseFloat> &,
                                    const CuMatrixBase<BaseFloat> &,
                                    const CuMatrixBase<BaseFloat> &out_deriv,
                                    void *, Component *,
                                    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv != nullptr)
    in_deriv->AddMatMat(1.0, out_deriv, kNoTrans, linear_params_, kNoTrans,
                        1.0);
}

void FixedAffineComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<LinearParams>");
  linear_params_.Read(is, binary);
  ExpectToken(is, binary, "<BiasParams>");
  bias_params_.Read(is, binary);
  if (bias_params_.Dim() != linear_params_.NumRows())
    NNET3_ERR << Type() << ": bias dimension " << bias_params_.Dim()
              << " does not match the " << linear_params_.NumRows()
              << " rows of the linear parameters";
  ExpectToken(is, binary, ClosingTag(*this));
}

void FixedAffineComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<LinearParams>");
  linear_params_.Write(os, binary);
  WriteToken(os, binary, "<BiasParams>");
  bias_params_.Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- Registry ----------------------------------------------------------------

void RegisterAffineComponents(ComponentRegistry *registry) {
  registry->Add("AffineComponent", [] { return new AffineComponent(); });
  registry->Add("NaturalGradientAffineComponent",
                [] { return new NaturalGradientAffineComponent(); });
  registry->Add("LinearComponent", [] { return new LinearComponent(); });
  registry->Add("FixedAffineComponent",
                [] { return new FixedAffineComponent(); });
}

}  // namespace nnet3
