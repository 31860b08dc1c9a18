// nnet3/components/tdnn.cc
// TdnnComponent; see tdnn.h.
#include "nnet3/components/tdnn.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <unordered_set>

#include "cudamatrix/cu-math-low-rank.h"
#include "cudamatrix/cu-math-recurrent.h"
#include "nnet3/components/convolution-io.h"
#include "nnet3/components/parameter-stats.h"
#include "util/text.h"

namespace nnet3 {

namespace {

// The rows first_row, first_row + stride, ... (num_rows of them) of m, as a
// matrix view (the view's stride is m's stride times 'stride').
CuSubMatrix<BaseFloat> StridedRows(const CuMatrixBase<BaseFloat> &m,
                                   int32 first_row, int32 stride,
                                   int32 num_rows) {
  NNET3_ASSERT(first_row >= 0 && stride >= 1 && num_rows > 0 &&
               first_row + stride * (num_rows - 1) < m.NumRows());
  const BaseFloat *base =
      m.Data() + static_cast<size_t>(first_row) * m.Stride();
  return CuSubMatrix<BaseFloat>(base, num_rows, m.NumCols(),
                                m.Stride() * stride);
}

const TdnnComponentPrecomputedIndexes &GetIndexes(
    const ComponentPrecomputedIndexes *p, size_t num_offsets) {
  const TdnnComponentPrecomputedIndexes *ans =
      dynamic_cast<const TdnnComponentPrecomputedIndexes *>(p);
  NNET3_ASSERT(ans != nullptr && ans->row_offsets.size() == num_offsets);
  return *ans;
}

}  // namespace

// ---- TdnnComponentPrecomputedIndexes -----------------------------------------

void TdnnComponentPrecomputedIndexes::Write(std::ostream &os,
                                            bool binary) const {
  WriteToken(os, binary, "<TdnnComponentPrecomputedIndexes>");
  WriteToken(os, binary, "<RowStride>");
  WriteBasicType(os, binary, row_stride);
  WriteToken(os, binary, "<RowOffsets>");
  WriteIntegerVector(os, binary, row_offsets);
  WriteToken(os, binary, "</TdnnComponentPrecomputedIndexes>");
}

void TdnnComponentPrecomputedIndexes::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<TdnnComponentPrecomputedIndexes>",
                       "<RowStride>");
  ReadBasicType(is, binary, &row_stride);
  ExpectToken(is, binary, "<RowOffsets>");
  ReadIntegerVector(is, binary, &row_offsets);
  ExpectToken(is, binary, "</TdnnComponentPrecomputedIndexes>");
}

// ---- TdnnComponent: setup and I/O ---------------------------------------------

TdnnComponent::TdnnComponent()
    : orthonormal_constraint_(0.0), use_natural_gradient_(true) {}

TdnnComponent::TdnnComponent(const TdnnComponent &other)
    : UpdatableComponent(), time_offsets_(other.time_offsets_),
      linear_params_(other.linear_params_),
      bias_params_(other.bias_params_),
      orthonormal_constraint_(other.orthonormal_constraint_),
      use_natural_gradient_(other.use_natural_gradient_),
      preconditioner_in_(other.preconditioner_in_),
      preconditioner_out_(other.preconditioner_out_) {
  SetUpdatableConfigs(other);
}

void TdnnComponent::Check() const {
  std::vector<int32> sorted(time_offsets_);
  std::sort(sorted.begin(), sorted.end());
  if (time_offsets_.empty() ||
      std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    NNET3_ERR << Type() << ": time-offsets must be nonempty and distinct";
  int32 num_offsets = static_cast<int32>(time_offsets_.size());
  if (linear_params_.NumRows() == 0 || linear_params_.NumCols() == 0 ||
      linear_params_.NumCols() % num_offsets != 0)
    NNET3_ERR << Type() << ": linear parameters of size "
              << linear_params_.NumRows() << " x " << linear_params_.NumCols()
              << " do not fit " << num_offsets << " time offsets";
  if (bias_params_.Dim() != 0 && bias_params_.Dim() != linear_params_.NumRows())
    NNET3_ERR << Type() << ": bias dimension " << bias_params_.Dim()
              << " does not match output dimension "
              << linear_params_.NumRows();
}

void TdnnComponent::SetPreconditioners(int32 rank_in, int32 rank_out,
                                       BaseFloat alpha_in, BaseFloat alpha_out,
                                       BaseFloat num_samples_history) {
  const int32 ranks[2] = {rank_in, rank_out};
  const BaseFloat alphas[2] = {alpha_in, alpha_out};
  OnlineNaturalGradient *sides[2] = {&preconditioner_in_,
                                     &preconditioner_out_};
  for (int32 i = 0; i < 2; i++) {
    *sides[i] = OnlineNaturalGradient();
    sides[i]->SetRank(ranks[i]);
    sides[i]->SetNumSamplesHistory(num_samples_history);
    sides[i]->SetAlpha(alphas[i]);
    sides[i]->SetUpdatePeriod(4);  // fixed, as in Kaldi
  }
}

void TdnnComponent::InitFromConfig(ConfigLine *cfl) {
  InitLearningRatesFromConfig(cfl);
  const std::string type = Type();

  std::string offsets_str;
  if (!cfl->GetValue("time-offsets", &offsets_str))
    NNET3_ERR << type << ": time-offsets is required";
  std::vector<int32> offsets;
  if (!SplitStringToIntegers(offsets_str, ",", false, &offsets) ||
      offsets.empty())
    NNET3_ERR << type << ": bad time-offsets=" << offsets_str
              << " (expected comma-separated integers)";
  for (size_t i = 1; i < offsets.size(); i++)
    if (offsets[i] <= offsets[i - 1])
      NNET3_ERR << type << ": time-offsets=" << offsets_str
                << " must be strictly increasing (sorted, no repeats)";
  int32 input_dim = -1, output_dim = -1;
  if (!cfl->GetValue("input-dim", &input_dim))
    NNET3_ERR << type << ": input-dim is required";
  if (!cfl->GetValue("output-dim", &output_dim))
    NNET3_ERR << type << ": output-dim is required";
  if (input_dim <= 0) NNET3_ERR << type << ": invalid input-dim=" << input_dim;
  if (output_dim <= 0)
    NNET3_ERR << type << ": invalid output-dim=" << output_dim;
  time_offsets_ = offsets;
  int32 num_offsets = static_cast<int32>(offsets.size()),
        spliced_dim = input_dim * num_offsets;

  BaseFloat param_stddev = -1.0, bias_stddev = 1.0, bias_mean = 0.0;
  bool use_bias = true;
  cfl->GetValue("param-stddev", &param_stddev);
  cfl->GetValue("bias-stddev", &bias_stddev);
  cfl->GetValue("bias-mean", &bias_mean);
  cfl->GetValue("use-bias", &use_bias);
  orthonormal_constraint_ = 0.0;
  cfl->GetValue("orthonormal-constraint", &orthonormal_constraint_);
  // Negative (the default) asks for the default scale; NaN is an error.
  if (std::isnan(param_stddev))
    NNET3_ERR << type << ": invalid param-stddev=" << param_stddev;
  if (param_stddev < 0.0)
    param_stddev = 1.0 / std::sqrt(static_cast<BaseFloat>(spliced_dim));
  if (!(bias_stddev >= 0.0))
    NNET3_ERR << type << ": invalid bias-stddev=" << bias_stddev;

  linear_params_.Resize(output_dim, spliced_dim);
  linear_params_.SetRandn();
  linear_params_.Scale(param_stddev);
  if (use_bias) {
    bias_params_.Resize(output_dim);
    bias_params_.SetRandn();
    bias_params_.Scale(bias_stddev);
    bias_params_.Add(bias_mean);
  } else {
    bias_params_.Resize(0);
  }

  use_natural_gradient_ = true;
  cfl->GetValue("use-natural-gradient", &use_natural_gradient_);
  int32 rank_in = -1, rank_out = -1;
  BaseFloat alpha_in = 4.0, alpha_out = 4.0, num_samples_history = 2000.0;
  cfl->GetValue("rank-in", &rank_in);
  cfl->GetValue("rank-out", &rank_out);
  cfl->GetValue("alpha-in", &alpha_in);
  cfl->GetValue("alpha-out", &alpha_out);
  cfl->GetValue("num-samples-history", &num_samples_history);
  if (rank_in < 0) rank_in = std::min<int32>(20, (spliced_dim + 1) / 2);
  if (rank_out < 0) rank_out = std::min<int32>(80, (output_dim + 1) / 2);
  if (rank_in == 0) NNET3_ERR << type << ": invalid rank-in=" << rank_in;
  if (rank_out == 0) NNET3_ERR << type << ": invalid rank-out=" << rank_out;
  if (!(alpha_in >= 0.0))
    NNET3_ERR << type << ": invalid alpha-in=" << alpha_in;
  if (!(alpha_out >= 0.0))
    NNET3_ERR << type << ": invalid alpha-out=" << alpha_out;
  if (!(num_samples_history > 0.0 && num_samples_history < 1.0e+06))
    NNET3_ERR << type << ": invalid num-samples-history="
              << num_samples_history;
  SetPreconditioners(rank_in, rank_out, alpha_in, alpha_out,
                     num_samples_history);
  CheckNoUnusedValues(*cfl, *this);
  Check();
}

void TdnnComponent::InitFromSplicedAffine(
    const std::vector<int32> &time_offsets,
    const UpdatableComponent &configs_from, bool use_natural_gradient,
    CuMatrix<BaseFloat> *linear_params, CuVector<BaseFloat> *bias_params) {
  SetUpdatableConfigs(configs_from);
  time_offsets_ = time_offsets;
  linear_params_.Swap(linear_params);
  bias_params_.Swap(bias_params);
  orthonormal_constraint_ = 0.0;
  use_natural_gradient_ = use_natural_gradient;
  // The ranks from the affine's dimensions: the parameters may be given
  // later (nnet3/nnet/nnet-splice-tdnn.h lends them for each Apply()).
  const int32 spliced_dim = configs_from.InputDim(),
              output_dim = configs_from.OutputDim();
  SetPreconditioners(std::min(20, (spliced_dim + 1) / 2),
                     std::min(80, (output_dim + 1) / 2), 4.0, 4.0, 2000.0);
  if (linear_params_.NumCols() != 0) Check();  // else checked when given
}

std::string TdnnComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info();
  if (orthonormal_constraint_ != 0.0)
    os << ", orthonormal-constraint=" << orthonormal_constraint_;
  os << ", time-offsets=";
  for (size_t i = 0; i < time_offsets_.size(); i++)
    os << (i == 0 ? "" : ",") << time_offsets_[i];
  PrintParameterStats(os, "linear-params", linear_params_, false, true, true);
  if (bias_params_.Dim() == 0)
    os << ", has-bias=false";
  else
    PrintParameterStats(os, "bias", bias_params_, true);
  if (use_natural_gradient_) {
    os << ", rank-in=" << preconditioner_in_.GetRank()
       << ", rank-out=" << preconditioner_out_.GetRank()
       << ", num-samples-history="
       << preconditioner_in_.GetNumSamplesHistory()
       << ", update-period=" << preconditioner_in_.GetUpdatePeriod()
       << ", alpha-in=" << preconditioner_in_.GetAlpha()
       << ", alpha-out=" << preconditioner_out_.GetAlpha();
  } else {
    os << ", use-natural-gradient=false";
  }
  return os.str();
}

void TdnnComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<TimeOffsets>");
  WriteIntegerVector(os, binary, time_offsets_);
  WriteToken(os, binary, "<LinearParams>");
  linear_params_.Write(os, binary);
  WriteToken(os, binary, "<BiasParams>");
  bias_params_.Write(os, binary);
  WriteToken(os, binary, "<OrthonormalConstraint>");
  WriteBasicType(os, binary, orthonormal_constraint_);
  WriteToken(os, binary, "<UseNaturalGradient>");
  WriteBasicType(os, binary, use_natural_gradient_);
  WriteToken(os, binary, "<NumSamplesHistory>");
  WriteBasicType(os, binary, preconditioner_in_.GetNumSamplesHistory());
  WriteToken(os, binary, "<AlphaInOut>");
  WriteBasicType(os, binary, preconditioner_in_.GetAlpha());
  WriteBasicType(os, binary, preconditioner_out_.GetAlpha());
  WriteToken(os, binary, "<RankInOut>");
  WriteBasicType(os, binary, preconditioner_in_.GetRank());
  WriteBasicType(os, binary, preconditioner_out_.GetRank());
  WriteToken(os, binary, ClosingTag(*this));
}

void TdnnComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  if (token.empty())
    ExpectToken(is, binary, "<TimeOffsets>");
  else if (token != "<TimeOffsets>")
    NNET3_ERR << Type() << ": expected <LearningRate> or <TimeOffsets>, got "
              << token;
  ReadIntegerVector(is, binary, &time_offsets_);
  ExpectToken(is, binary, "<LinearParams>");
  linear_params_.Read(is, binary);
  ExpectToken(is, binary, "<BiasParams>");
  bias_params_.Read(is, binary);
  ExpectToken(is, binary, "<OrthonormalConstraint>");
  ReadBasicType(is, binary, &orthonormal_constraint_);
  ExpectToken(is, binary, "<UseNaturalGradient>");
  ReadBasicType(is, binary, &use_natural_gradient_);
  BaseFloat num_samples_history, alpha_in = 0.0, alpha_out = 0.0;
  int32 rank_in, rank_out;
  ExpectToken(is, binary, "<NumSamplesHistory>");
  ReadBasicType(is, binary, &num_samples_history);
  // Some early files have a single <Alpha> for both sides.
  ReadToken(is, binary, &token);
  if (token == "<AlphaInOut>") {
    ReadBasicType(is, binary, &alpha_in);
    ReadBasicType(is, binary, &alpha_out);
  } else if (token == "<Alpha>") {
    ReadBasicType(is, binary, &alpha_in);
    alpha_out = alpha_in;
  } else {
    NNET3_ERR << Type() << ": expected <AlphaInOut>, got " << token;
  }
  ExpectToken(is, binary, "<RankInOut>");
  ReadBasicType(is, binary, &rank_in);
  ReadBasicType(is, binary, &rank_out);
  ExpectToken(is, binary, ClosingTag(*this));
  if (rank_in <= 0 || rank_out <= 0 || !(alpha_in >= 0.0) ||
      !(alpha_out >= 0.0) ||
      !(num_samples_history > 0.0 && num_samples_history < 1.0e+06))
    NNET3_ERR << Type() << ": bad natural-gradient fields: ranks " << rank_in
              << "," << rank_out << ", alphas " << alpha_in << ","
              << alpha_out << ", num-samples-history " << num_samples_history;
  SetPreconditioners(rank_in, rank_out, alpha_in, alpha_out,
                     num_samples_history);
  Check();
}

// ---- TdnnComponent: the computation's structure --------------------------------

void TdnnComponent::GetInputIndexes(const MiscComputationInfo &,
                                    const Index &output_index,
                                    std::vector<Index> *desired_indexes) const {
  NNET3_ASSERT(output_index.t != kNoTime);
  desired_indexes->clear();
  desired_indexes->reserve(time_offsets_.size());
  for (int32 offset : time_offsets_)
    desired_indexes->push_back(
        Index(output_index.n, output_index.t + offset, output_index.x));
}

bool TdnnComponent::IsComputable(const MiscComputationInfo &,
                                 const Index &output_index,
                                 const IndexSet &input_index_set,
                                 std::vector<Index> *used_inputs) const {
  NNET3_ASSERT(output_index.t != kNoTime);
  if (used_inputs != nullptr) used_inputs->clear();
  for (int32 offset : time_offsets_) {
    Index needed(output_index.n, output_index.t + offset, output_index.x);
    if (!input_index_set(needed)) {
      if (used_inputs != nullptr) used_inputs->clear();
      return false;
    }
    if (used_inputs != nullptr) used_inputs->push_back(needed);
  }
  return true;
}

void TdnnComponent::ReorderIndexes(std::vector<Index> *input_indexes,
                                   std::vector<Index> *output_indexes) const {
  using namespace time_height_convolution;
  ConvolutionComputationIo io;
  GetComputationIo(*input_indexes, *output_indexes, &io);
  ModifyComputationIo(&io);
  std::vector<Index> new_input, new_output;
  GetIndexesForComputation(io, *input_indexes, *output_indexes, &new_input,
                           &new_output);
  input_indexes->swap(new_input);
  output_indexes->swap(new_output);
}

ComponentPrecomputedIndexes *TdnnComponent::PrecomputeIndexes(
    const MiscComputationInfo &, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool) const {
  using namespace time_height_convolution;
  ConvolutionComputationIo io;
  GetComputationIo(input_indexes, output_indexes, &io);
  ModifyComputationIo(&io);
  {
    // The rows must already be in the layout ReorderIndexes produces.
    std::vector<Index> expect_in, expect_out;
    GetIndexesForComputation(io, input_indexes, output_indexes, &expect_in,
                             &expect_out);
    NNET3_ASSERT(expect_in == input_indexes && expect_out == output_indexes);
  }
  TdnnComponentPrecomputedIndexes *ans = new TdnnComponentPrecomputedIndexes();
  const int32 r = io.reorder_t_in;
  ans->row_stride = r;
  for (int32 offset : time_offsets_) {
    // Position of t = (first output t + offset) in the input's t grid,
    // then its row: whole blocks of r frames span r * num_images rows, and
    // within a block the frames of one image are adjacent.
    int32 rel = io.start_t_out + offset - io.start_t_in;
    NNET3_ASSERT(rel >= 0 && rel % io.t_step_in == 0);
    int32 pos = rel / io.t_step_in;
    ans->row_offsets.push_back((pos / r) * r * io.num_images + pos % r);
  }
  return ans;
}

// ---- TdnnComponent: computation ------------------------------------------------

void *TdnnComponent::Propagate(const ComponentPrecomputedIndexes *indexes_in,
                               const CuMatrixBase<BaseFloat> &in,
                               CuMatrixBase<BaseFloat> *out) const {
  const TdnnComponentPrecomputedIndexes &indexes =
      GetIndexes(indexes_in, time_offsets_.size());
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim());
  if (bias_params_.Dim() != 0) out->CopyRowsFromVec(bias_params_);
  int32 input_dim = InputDim(), num_rows = out->NumRows();
  if (num_rows == 0) return nullptr;
  for (size_t k = 0; k < time_offsets_.size(); k++) {
    CuSubMatrix<BaseFloat> in_part =
        StridedRows(in, indexes.row_offsets[k], indexes.row_stride, num_rows);
    CuSubMatrix<BaseFloat> w_k =
        linear_params_.ColRange(static_cast<int32>(k) * input_dim, input_dim);
    out->AddMatMat(1.0, in_part, kNoTrans, w_k, kTrans, 1.0);
  }
  return nullptr;
}

void TdnnComponent::Backprop(const std::string &,
                             const ComponentPrecomputedIndexes *indexes_in,
                             const CuMatrixBase<BaseFloat> &in_value,
                             const CuMatrixBase<BaseFloat> &,
                             const CuMatrixBase<BaseFloat> &out_deriv, void *,
                             Component *to_update_in,
                             CuMatrixBase<BaseFloat> *in_deriv) const {
  const TdnnComponentPrecomputedIndexes &indexes =
      GetIndexes(indexes_in, time_offsets_.size());
  int32 input_dim = InputDim(), num_rows = out_deriv.NumRows();
  if (num_rows == 0) return;
  if (in_deriv != nullptr) {
    // Uses the parameters before any update (to_update may be this).
    for (size_t k = 0; k < time_offsets_.size(); k++) {
      CuSubMatrix<BaseFloat> deriv_part = StridedRows(
          *in_deriv, indexes.row_offsets[k], indexes.row_stride, num_rows);
      CuSubMatrix<BaseFloat> w_k = linear_params_.ColRange(
          static_cast<int32>(k) * input_dim, input_dim);
      deriv_part.AddMatMat(1.0, out_deriv, kNoTrans, w_k, kNoTrans, 1.0);
    }
  }
  if (to_update_in != nullptr) {
    TdnnComponent *to_update = dynamic_cast<TdnnComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
    if (to_update->learning_rate_ == 0.0) return;
    if (to_update->is_gradient_ || !to_update->use_natural_gradient_)
      to_update->UpdateSimple(indexes, in_value, out_deriv);
    else
      to_update->UpdateNaturalGradient(indexes, in_value, out_deriv);
  }
}

void TdnnComponent::UpdateSimple(const TdnnComponentPrecomputedIndexes &indexes,
                                 const CuMatrixBase<BaseFloat> &in_value,
                                 const CuMatrixBase<BaseFloat> &out_deriv) {
  int32 input_dim = in_value.NumCols(), num_rows = out_deriv.NumRows();
  if (bias_params_.Dim() != 0)
    bias_params_.AddRowSumMat(learning_rate_, out_deriv, 1.0);
  for (size_t k = 0; k < time_offsets_.size(); k++) {
    CuSubMatrix<BaseFloat> in_part = StridedRows(
        in_value, indexes.row_offsets[k], indexes.row_stride, num_rows);
    CuSubMatrix<BaseFloat> w_k = linear_params_.ColRange(
        static_cast<int32>(k) * input_dim, input_dim);
    w_k.AddMatMat(learning_rate_, out_deriv, kTrans, in_part, kNoTrans, 1.0);
  }
}

void TdnnComponent::UpdateNaturalGradient(
    const TdnnComponentPrecomputedIndexes &indexes,
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_deriv) {
  int32 input_dim = in_value.NumCols(), num_rows = out_deriv.NumRows(),
        num_offsets = static_cast<int32>(time_offsets_.size()),
        spliced_dim = input_dim * num_offsets;
  bool has_bias = bias_params_.Dim() != 0;
  CuMatrix<BaseFloat> deriv(out_deriv);
  BaseFloat in_scale, out_scale;
  if (has_bias && OutputDim() < spliced_dim + 1) {
    // The spliced input [in_0 in_1 ... 1] left unformed: its column blocks
    // are the row-shifted views of the input, and the gradient comes from
    // the preconditioner's H and W (natural-gradient-online.h), which pays
    // when the output is narrower than the spliced input.
    std::vector<CuSubMatrix<BaseFloat> > blocks;
    for (int32 k = 0; k < num_offsets; k++)
      blocks.push_back(StridedRows(in_value, indexes.row_offsets[k],
                                   indexes.row_stride, num_rows));
    CuMatrix<BaseFloat> H, W;
    preconditioner_in_.PreconditionWithOnes(blocks, &H, &W, &in_scale);
    preconditioner_out_.PreconditionDirections(&deriv, &out_scale);
    AddPreconditionedWithOnesProduct(learning_rate_ * in_scale * out_scale,
                                     deriv, blocks, H, W, &linear_params_,
                                     &bias_params_);
    return;
  }
  // The spliced input, plus a column of ones standing for the bias.
  CuMatrix<BaseFloat> spliced(num_rows, spliced_dim + (has_bias ? 1 : 0));
  for (int32 k = 0; k < num_offsets; k++)
    spliced.ColRange(k * input_dim, input_dim)
        .CopyFromMat(StridedRows(in_value, indexes.row_offsets[k],
                                 indexes.row_stride, num_rows));
  if (has_bias) spliced.ColRange(spliced_dim, 1).Set(1.0);
  preconditioner_in_.PreconditionDirections(&spliced, &in_scale);
  preconditioner_out_.PreconditionDirections(&deriv, &out_scale);
  BaseFloat lrate = learning_rate_ * in_scale * out_scale;
  if (has_bias) {
    CuVector<BaseFloat> ones_precon(num_rows);
    ones_precon.CopyColFromMat(spliced, spliced_dim);
    bias_params_.AddMatVec(lrate, deriv, kTrans, ones_precon, 1.0);
  }
  linear_params_.AddMatMat(lrate, deriv, kTrans,
                           spliced.ColRange(0, spliced_dim), kNoTrans, 1.0);
}

// ---- TdnnComponent: parameter arithmetic ----------------------------------------

void TdnnComponent::Scale(BaseFloat scale) {
  if (scale == 0.0) {
    linear_params_.SetZero();
    bias_params_.SetZero();
  } else {
    linear_params_.Scale(scale);
    bias_params_.Scale(scale);
  }
}

void TdnnComponent::Add(BaseFloat alpha, const Component &other_in) {
  const TdnnComponent *other = dynamic_cast<const TdnnComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  linear_params_.AddMat(alpha, other->linear_params_);
  if (bias_params_.Dim() != 0) bias_params_.AddVec(alpha, other->bias_params_);
}

void TdnnComponent::PerturbParams(BaseFloat stddev) {
  CuMatrix<BaseFloat> noise(linear_params_.NumRows(), linear_params_.NumCols());
  noise.SetRandn();
  linear_params_.AddMat(stddev, noise);
  if (bias_params_.Dim() != 0) {
    CuVector<BaseFloat> bias_noise(bias_params_.Dim());
    bias_noise.SetRandn();
    bias_params_.AddVec(stddev, bias_noise);
  }
}

BaseFloat TdnnComponent::DotProduct(const UpdatableComponent &other_in) const {
  const TdnnComponent *other = dynamic_cast<const TdnnComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  BaseFloat ans = TraceMatMat(linear_params_, other->linear_params_, kTrans);
  if (bias_params_.Dim() != 0) ans += VecVec(bias_params_, other->bias_params_);
  return ans;
}

void TdnnComponent::SquaredNorm(CuVectorBase<BaseFloat> *norm) const {
  cu::SumOfSquares(linear_params_, bias_params_, norm);  // bias may be empty
}

void TdnnComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  int32 linear_size = linear_params_.NumRows() * linear_params_.NumCols();
  SubVector<BaseFloat> linear_part(*params, 0, linear_size);
  cu::CopyRowsToVec(linear_params_, &linear_part);
  if (bias_params_.Dim() != 0) {
    SubVector<BaseFloat> bias_part(*params, linear_size, bias_params_.Dim());
    bias_params_.CopyToVec(&bias_part);
  }
}

void TdnnComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  int32 linear_size = linear_params_.NumRows() * linear_params_.NumCols();
  linear_params_.CopyRowsFromVec(params.Range(0, linear_size));
  if (bias_params_.Dim() != 0)
    bias_params_.CopyFromVec(params.Range(linear_size, bias_params_.Dim()));
}

void TdnnComponent::FreezeNaturalGradient(bool freeze) {
  preconditioner_in_.Freeze(freeze);
  preconditioner_out_.Freeze(freeze);
}

void RegisterTdnnComponents(ComponentRegistry *registry) {
  registry->Add("TdnnComponent", [] { return new TdnnComponent(); });
  registry->AddPrecomputedIndexes(
      "TdnnComponentPrecomputedIndexes",
      [] { return new TdnnComponentPrecomputedIndexes(); });
}

}  // namespace nnet3
