// nnet3/components/convolution-3d.cc
#include "nnet3/components/convolution-3d.h"

#include <cmath>
#include <sstream>

#include "cudamatrix/cu-math-convolution.h"
#include "cudamatrix/cu-math-recurrent.h"
#include "nnet3/components/parameter-stats.h"
#include "util/stream.h"

namespace nnet3 {

namespace {

// Reads "name" (required) from the config line into *value.
void RequiredInt(const std::string &type, const char *name, ConfigLine *cfl,
                 int32 *value) {
  if (!cfl->GetValue(name, value))
    NNET3_ERR << type << ": " << name << " is required: " << cfl->WholeLine();
}

// One axis of a sliding window: size and step positive, size <= input,
// (input - size) a multiple of step.
void CheckAxis(const std::string &type, const char *input_name, int32 input,
               const char *size_name, int32 size, const char *step_name,
               int32 step) {
  if (input <= 0)
    NNET3_ERR << type << ": invalid " << input_name << "=" << input;
  if (size <= 0) NNET3_ERR << type << ": invalid " << size_name << "=" << size;
  if (step <= 0) NNET3_ERR << type << ": invalid " << step_name << "=" << step;
  if (size > input)
    NNET3_ERR << type << ": " << size_name << "=" << size << " is larger than "
              << input_name << "=" << input;
  if ((input - size) % step != 0)
    NNET3_ERR << type << ": " << input_name << "=" << input << " minus "
              << size_name << "=" << size << " is not a multiple of "
              << step_name << "=" << step;
}

// in_deriv column map[c] (when >= 0) += column c of src, for every row.
// 'map' must not repeat a destination column.
void ScatterAddColumns(const CuMatrixBase<BaseFloat> &src,
                       const std::vector<int32> &map,
                       CuMatrixBase<BaseFloat> *dst) {
  std::vector<int32> reverse(dst->NumCols(), -1);
  for (size_t c = 0; c < map.size(); c++) {
    if (map[c] < 0) continue;
    NNET3_ASSERT(reverse[map[c]] == -1);
    reverse[map[c]] = static_cast<int32>(c);
  }
  dst->AddCols(src, CuArray<int32>(reverse));
}

}  // namespace

// ---- ConvolutionComponent ---------------------------------------------------

ConvolutionComponent::ConvolutionComponent(const ConvolutionComponent &other)
    : UpdatableComponent(), input_x_dim_(other.input_x_dim_),
      input_y_dim_(other.input_y_dim_), input_z_dim_(other.input_z_dim_),
      filt_x_dim_(other.filt_x_dim_), filt_y_dim_(other.filt_y_dim_),
      filt_x_step_(other.filt_x_step_), filt_y_step_(other.filt_y_step_),
      vectorization_(other.vectorization_),
      filter_params_(other.filter_params_),
      bias_params_(other.bias_params_) {
  SetUpdatableConfigs(other);
}

void ConvolutionComponent::CheckGeometry() const {
  CheckAxis(Type(), "input-x-dim", input_x_dim_, "filt-x-dim", filt_x_dim_,
            "filt-x-step", filt_x_step_);
  CheckAxis(Type(), "input-y-dim", input_y_dim_, "filt-y-dim", filt_y_dim_,
            "filt-y-step", filt_y_step_);
  if (input_z_dim_ <= 0)
    NNET3_ERR << Type() << ": invalid input-z-dim=" << input_z_dim_;
}

void ConvolutionComponent::InitFromConfig(ConfigLine *cfl) {
  InitLearningRatesFromConfig(cfl);
  RequiredInt(Type(), "input-x-dim", cfl, &input_x_dim_);
  RequiredInt(Type(), "input-y-dim", cfl, &input_y_dim_);
  RequiredInt(Type(), "input-z-dim", cfl, &input_z_dim_);
  RequiredInt(Type(), "filt-x-dim", cfl, &filt_x_dim_);
  RequiredInt(Type(), "filt-y-dim", cfl, &filt_y_dim_);
  RequiredInt(Type(), "filt-x-step", cfl, &filt_x_step_);
  RequiredInt(Type(), "filt-y-step", cfl, &filt_y_step_);
  std::string order = "zyx";
  cfl->GetValue("input-vectorization-order", &order);
  if (order == "zyx")
    vectorization_ = kZyx;
  else if (order == "yzx")
    vectorization_ = kYzx;
  else
    NNET3_ERR << Type() << ": input-vectorization-order=" << order
              << " is not supported (use zyx or yzx)";
  CheckGeometry();
  const int32 filter_dim = filt_x_dim_ * filt_y_dim_ * input_z_dim_;
  std::string matrix_filename;
  if (cfl->GetValue("matrix", &matrix_filename)) {
    CuMatrix<BaseFloat> mat;
    try {
      ReadKaldiObject(matrix_filename, &mat);
    } catch (const UserError &e) {
      NNET3_ERR << Type() << ": could not read matrix=" << matrix_filename
                << ": " << e.message();
    }
    if (mat.NumRows() == 0 || mat.NumCols() != filter_dim + 1)
      NNET3_ERR << Type() << ": matrix=" << matrix_filename << " is "
                << mat.NumRows() << " x " << mat.NumCols() << ", expected "
                << "num-filters x " << (filter_dim + 1);
    filter_params_ = CuMatrix<BaseFloat>(mat.ColRange(0, filter_dim));
    bias_params_.Resize(mat.NumRows());
    bias_params_.CopyColFromMat(mat, filter_dim);
  } else {
    int32 num_filters = 0;
    RequiredInt(Type(), "num-filters", cfl, &num_filters);
    if (num_filters <= 0)
      NNET3_ERR << Type() << ": invalid num-filters=" << num_filters;
    BaseFloat param_stddev =
        1.0 / std::sqrt(static_cast<BaseFloat>(filter_dim));
    BaseFloat bias_stddev = 1.0;
    cfl->GetValue("param-stddev", &param_stddev);
    cfl->GetValue("bias-stddev", &bias_stddev);
    if (!(param_stddev >= 0.0) || !(bias_stddev >= 0.0))
      NNET3_ERR << Type() << ": negative param-stddev=" << param_stddev
                << " or bias-stddev=" << bias_stddev;
    filter_params_.Resize(num_filters, filter_dim);
    filter_params_.SetRandn();
    filter_params_.Scale(param_stddev);
    bias_params_.Resize(num_filters);
    bias_params_.SetRandn();
    bias_params_.Scale(bias_stddev);
  }
  CheckNoUnusedValues(*cfl, *this);
}

std::string ConvolutionComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", input-x-dim=" << input_x_dim_
     << ", input-y-dim=" << input_y_dim_ << ", input-z-dim=" << input_z_dim_
     << ", filt-x-dim=" << filt_x_dim_ << ", filt-y-dim=" << filt_y_dim_
     << ", filt-x-step=" << filt_x_step_ << ", filt-y-step=" << filt_y_step_
     << ", input-vectorization=" << static_cast<int32>(vectorization_)
     << ", num-filters=" << filter_params_.NumRows();
  PrintParameterStats(os, "filter-params", filter_params_);
  PrintParameterStats(os, "bias-params", bias_params_, true);
  return os.str();
}

int32 ConvolutionComponent::InputColumn(int32 x, int32 y, int32 z) const {
  const int32 plane = input_y_dim_ * input_z_dim_;
  if (vectorization_ == kZyx) return x * plane + y * input_z_dim_ + z;
  return x * plane + z * input_y_dim_ + y;
}

std::vector<int32> ConvolutionComponent::PatchColumns(int32 sx,
                                                      int32 sy) const {
  std::vector<int32> cols;
  cols.reserve(FilterDim());
  const int32 x0 = sx * filt_x_step_, y0 = sy * filt_y_step_;
  for (int32 dx = 0; dx < filt_x_dim_; dx++)
    for (int32 dy = 0; dy < filt_y_dim_; dy++)
      for (int32 z = 0; z < input_z_dim_; z++)
        cols.push_back(InputColumn(x0 + dx, y0 + dy, z));
  return cols;
}

void *ConvolutionComponent::Propagate(const ComponentPrecomputedIndexes *,
                                      const CuMatrixBase<BaseFloat> &in,
                                      CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               in.NumRows() == out->NumRows());
  const int32 num_filters = filter_params_.NumRows();
  CuMatrix<BaseFloat> patch(in.NumRows(), FilterDim(), kUndefined);
  for (int32 sx = 0; sx < NumXSteps(); sx++) {
    for (int32 sy = 0; sy < NumYSteps(); sy++) {
      patch.CopyCols(in, CuArray<int32>(PatchColumns(sx, sy)));
      CuSubMatrix<BaseFloat> block =
          out->ColRange((sx * NumYSteps() + sy) * num_filters, num_filters);
      block.AddVecToRows(1.0, bias_params_);
      block.AddMatMat(1.0, patch, kNoTrans, filter_params_, kTrans, 1.0);
    }
  }
  return nullptr;
}

void ConvolutionComponent::Backprop(const std::string &,
                                    const ComponentPrecomputedIndexes *,
                                    const CuMatrixBase<BaseFloat> &in_value,
                                    const CuMatrixBase<BaseFloat> &,
                                    const CuMatrixBase<BaseFloat> &out_deriv,
                                    void *, Component *to_update_in,
                                    CuMatrixBase<BaseFloat> *in_deriv) const {
  const int32 num_filters = filter_params_.NumRows(),
              rows = out_deriv.NumRows();
  NNET3_ASSERT(out_deriv.NumCols() == OutputDim());
  ConvolutionComponent *to_update = nullptr;
  if (to_update_in != nullptr) {
    to_update = dynamic_cast<ConvolutionComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr);
  }
  // Gradients are accumulated over all steps before the update, so that
  // the input derivative of a later step does not see updated filters
  // when to_update == this.
  CuMatrix<BaseFloat> filter_grad, patch, patch_deriv;
  CuVector<BaseFloat> bias_grad;
  if (to_update != nullptr) {
    filter_grad.Resize(num_filters, FilterDim());
    bias_grad.Resize(num_filters);
    patch.Resize(rows, FilterDim(), kUndefined);
  }
  if (in_deriv != nullptr) patch_deriv.Resize(rows, FilterDim(), kUndefined);
  for (int32 sx = 0; sx < NumXSteps(); sx++) {
    for (int32 sy = 0; sy < NumYSteps(); sy++) {
      const std::vector<int32> cols = PatchColumns(sx, sy);
      const CuSubMatrix<BaseFloat> block = out_deriv.ColRange(
          (sx * NumYSteps() + sy) * num_filters, num_filters);
      if (in_deriv != nullptr) {
        patch_deriv.AddMatMat(1.0, block, kNoTrans, filter_params_, kNoTrans,
                              0.0);
        ScatterAddColumns(patch_deriv, cols, in_deriv);
      }
      if (to_update != nullptr) {
        patch.CopyCols(in_value, CuArray<int32>(cols));
        filter_grad.AddMatMat(1.0, block, kTrans, patch, kNoTrans, 1.0);
        bias_grad.AddRowSumMat(1.0, block, 1.0);
      }
    }
  }
  if (to_update != nullptr) {
    to_update->filter_params_.AddMat(to_update->learning_rate_, filter_grad);
    to_update->bias_params_.AddVec(to_update->learning_rate_, bias_grad);
  }
}

void ConvolutionComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  if (token.empty())
    ExpectToken(is, binary, "<InputXDim>");
  else if (token != "<InputXDim>")
    NNET3_ERR << "Expected token <InputXDim>, got " << PrintableString(token);
  ReadBasicType(is, binary, &input_x_dim_);
  ExpectToken(is, binary, "<InputYDim>");
  ReadBasicType(is, binary, &input_y_dim_);
  ExpectToken(is, binary, "<InputZDim>");
  ReadBasicType(is, binary, &input_z_dim_);
  ExpectToken(is, binary, "<FiltXDim>");
  ReadBasicType(is, binary, &filt_x_dim_);
  ExpectToken(is, binary, "<FiltYDim>");
  ReadBasicType(is, binary, &filt_y_dim_);
  ExpectToken(is, binary, "<FiltXStep>");
  ReadBasicType(is, binary, &filt_x_step_);
  ExpectToken(is, binary, "<FiltYStep>");
  ReadBasicType(is, binary, &filt_y_step_);
  ExpectToken(is, binary, "<InputVectorization>");
  int32 order = 0;
  ReadBasicType(is, binary, &order);
  if (order != kYzx && order != kZyx)
    NNET3_ERR << Type() << ": bad <InputVectorization> " << order;
  vectorization_ = static_cast<Vectorization>(order);
  ExpectToken(is, binary, "<FilterParams>");
  filter_params_.Read(is, binary);
  ExpectToken(is, binary, "<BiasParams>");
  bias_params_.Read(is, binary);
  ReadToken(is, binary, &token);
  if (token == "<IsGradient>") {
    ReadBasicType(is, binary, &is_gradient_);
    ReadToken(is, binary, &token);
  }
  if (token != ClosingTag(*this))
    NNET3_ERR << "Expected token " << ClosingTag(*this) << ", got "
              << PrintableString(token);
  CheckGeometry();
  if (filter_params_.NumCols() != filt_x_dim_ * filt_y_dim_ * input_z_dim_ ||
      bias_params_.Dim() != filter_params_.NumRows())
    NNET3_ERR << Type() << ": parameter dimensions do not match the geometry";
}

void ConvolutionComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<InputXDim>");
  WriteBasicType(os, binary, input_x_dim_);
  WriteToken(os, binary, "<InputYDim>");
  WriteBasicType(os, binary, input_y_dim_);
  WriteToken(os, binary, "<InputZDim>");
  WriteBasicType(os, binary, input_z_dim_);
  WriteToken(os, binary, "<FiltXDim>");
  WriteBasicType(os, binary, filt_x_dim_);
  WriteToken(os, binary, "<FiltYDim>");
  WriteBasicType(os, binary, filt_y_dim_);
  WriteToken(os, binary, "<FiltXStep>");
  WriteBasicType(os, binary, filt_x_step_);
  WriteToken(os, binary, "<FiltYStep>");
  WriteBasicType(os, binary, filt_y_step_);
  WriteToken(os, binary, "<InputVectorization>");
  WriteBasicType(os, binary, static_cast<int32>(vectorization_));
  WriteToken(os, binary, "<FilterParams>");
  filter_params_.Write(os, binary);
  WriteToken(os, binary, "<BiasParams>");
  bias_params_.Write(os, binary);
  WriteToken(os, binary, "<IsGradient>");
  WriteBasicType(os, binary, is_gradient_);
  WriteToken(os, binary, ClosingTag(*this));
}

void ConvolutionComponent::Scale(BaseFloat scale) {
  if (scale == 0.0) {
    filter_params_.SetZero();
    bias_params_.SetZero();
  } else {
    filter_params_.Scale(scale);
    bias_params_.Scale(scale);
  }
}

void ConvolutionComponent::Add(BaseFloat alpha, const Component &other_in) {
  const ConvolutionComponent *other =
      dynamic_cast<const ConvolutionComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  filter_params_.AddMat(alpha, other->filter_params_);
  bias_params_.AddVec(alpha, other->bias_params_);
}

void ConvolutionComponent::PerturbParams(BaseFloat stddev) {
  CuMatrix<BaseFloat> noise(filter_params_.NumRows(), filter_params_.NumCols());
  noise.SetRandn();
  filter_params_.AddMat(stddev, noise);
  CuVector<BaseFloat> bias_noise(bias_params_.Dim());
  bias_noise.SetRandn();
  bias_params_.AddVec(stddev, bias_noise);
}

BaseFloat ConvolutionComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const ConvolutionComponent *other =
      dynamic_cast<const ConvolutionComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  return TraceMatMat(filter_params_, other->filter_params_, kTrans) +
         VecVec(bias_params_, other->bias_params_);
}

void ConvolutionComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  const int32 n = filter_params_.NumRows() * filter_params_.NumCols();
  SubVector<BaseFloat> filter_part(*params, 0, n);
  cu::CopyRowsToVec(filter_params_, &filter_part);
  SubVector<BaseFloat> bias_part(*params, n, bias_params_.Dim());
  bias_params_.CopyToVec(&bias_part);
}

void ConvolutionComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  const int32 n = filter_params_.NumRows() * filter_params_.NumCols();
  filter_params_.CopyRowsFromVec(params.Range(0, n));
  bias_params_.CopyFromVec(params.Range(n, bias_params_.Dim()));
}

// ---- MaxpoolingComponent ----------------------------------------------------

Component *MaxpoolingComponent::Copy() const {
  MaxpoolingComponent *ans = new MaxpoolingComponent();
  ans->input_x_dim_ = input_x_dim_;
  ans->input_y_dim_ = input_y_dim_;
  ans->input_z_dim_ = input_z_dim_;
  ans->pool_x_size_ = pool_x_size_;
  ans->pool_y_size_ = pool_y_size_;
  ans->pool_z_size_ = pool_z_size_;
  ans->pool_x_step_ = pool_x_step_;
  ans->pool_y_step_ = pool_y_step_;
  ans->pool_z_step_ = pool_z_step_;
  return ans;
}

void MaxpoolingComponent::CheckGeometry() const {
  CheckAxis(Type(), "input-x-dim", input_x_dim_, "pool-x-size", pool_x_size_,
            "pool-x-step", pool_x_step_);
  CheckAxis(Type(), "input-y-dim", input_y_dim_, "pool-y-size", pool_y_size_,
            "pool-y-step", pool_y_step_);
  CheckAxis(Type(), "input-z-dim", input_z_dim_, "pool-z-size", pool_z_size_,
            "pool-z-step", pool_z_step_);
  // Kaldi also refuses pools that skip input (step larger than size).
  const int32 sizes[3] = {pool_x_size_, pool_y_size_, pool_z_size_},
              steps[3] = {pool_x_step_, pool_y_step_, pool_z_step_};
  const char *axis = "xyz";
  for (int32 i = 0; i < 3; i++)
    if (steps[i] > sizes[i])
      NNET3_ERR << Type() << ": pool-" << axis[i] << "-step=" << steps[i]
                << " is larger than pool-" << axis[i] << "-size=" << sizes[i];
}

void MaxpoolingComponent::InitFromConfig(ConfigLine *cfl) {
  RequiredInt(Type(), "input-x-dim", cfl, &input_x_dim_);
  RequiredInt(Type(), "input-y-dim", cfl, &input_y_dim_);
  RequiredInt(Type(), "input-z-dim", cfl, &input_z_dim_);
  RequiredInt(Type(), "pool-x-size", cfl, &pool_x_size_);
  RequiredInt(Type(), "pool-y-size", cfl, &pool_y_size_);
  RequiredInt(Type(), "pool-z-size", cfl, &pool_z_size_);
  RequiredInt(Type(), "pool-x-step", cfl, &pool_x_step_);
  RequiredInt(Type(), "pool-y-step", cfl, &pool_y_step_);
  RequiredInt(Type(), "pool-z-step", cfl, &pool_z_step_);
  CheckNoUnusedValues(*cfl, *this);
  CheckGeometry();
}

std::string MaxpoolingComponent::Info() const {
  std::ostringstream os;
  os << Type() << ", input-x-dim=" << input_x_dim_
     << ", input-y-dim=" << input_y_dim_ << ", input-z-dim=" << input_z_dim_
     << ", pool-x-size=" << pool_x_size_ << ", pool-y-size=" << pool_y_size_
     << ", pool-z-size=" << pool_z_size_ << ", pool-x-step=" << pool_x_step_
     << ", pool-y-step=" << pool_y_step_ << ", pool-z-step=" << pool_z_step_;
  return os.str();
}

std::vector<int32> MaxpoolingComponent::OffsetColumns(int32 dx, int32 dy,
                                                      int32 dz) const {
  const int32 npx = NumPools(input_x_dim_, pool_x_size_, pool_x_step_),
              npy = NumPools(input_y_dim_, pool_y_size_, pool_y_step_),
              npz = NumPools(input_z_dim_, pool_z_size_, pool_z_step_);
  std::vector<int32> cols;
  cols.reserve(npx * npy * npz);
  for (int32 px = 0; px < npx; px++)
    for (int32 py = 0; py < npy; py++)
      for (int32 pz = 0; pz < npz; pz++) {
        const int32 x = px * pool_x_step_ + dx, y = py * pool_y_step_ + dy,
                    z = pz * pool_z_step_ + dz;
        cols.push_back((x * input_y_dim_ + y) * input_z_dim_ + z);
      }
  return cols;
}

void *MaxpoolingComponent::Propagate(const ComponentPrecomputedIndexes *,
                                     const CuMatrixBase<BaseFloat> &in,
                                     CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == InputDim() && out->NumCols() == OutputDim() &&
               in.NumRows() == out->NumRows());
  CuMatrix<BaseFloat> gathered(in.NumRows(), OutputDim(), kUndefined);
  bool first = true;
  for (int32 dx = 0; dx < pool_x_size_; dx++)
    for (int32 dy = 0; dy < pool_y_size_; dy++)
      for (int32 dz = 0; dz < pool_z_size_; dz++) {
        if (first) {
          out->CopyCols(in, CuArray<int32>(OffsetColumns(dx, dy, dz)));
          first = false;
        } else {
          gathered.CopyCols(in, CuArray<int32>(OffsetColumns(dx, dy, dz)));
          out->Max(gathered);
        }
      }
  return nullptr;
}

void MaxpoolingComponent::Backprop(const std::string &,
                                   const ComponentPrecomputedIndexes *,
                                   const CuMatrixBase<BaseFloat> &in_value,
                                   const CuMatrixBase<BaseFloat> &out_value,
                                   const CuMatrixBase<BaseFloat> &out_deriv,
                                   void *, Component *,
                                   CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  const int32 rows = out_deriv.NumRows(), num_out = OutputDim();
  NNET3_ASSERT(in_value.NumRows() == rows && out_value.NumRows() == rows &&
               out_value.NumCols() == num_out);
  CuMatrix<BaseFloat> routed(rows, num_out, kUndefined);
  for (int32 dx = 0; dx < pool_x_size_; dx++)
    for (int32 dy = 0; dy < pool_y_size_; dy++)
      for (int32 dz = 0; dz < pool_z_size_; dz++) {
        const std::vector<int32> cols = OffsetColumns(dx, dy, dz);
        routed.CopyCols(in_value, CuArray<int32>(cols));
        // Keep the derivative where this pool element is the maximum.
        cu::SelectWhereEqual(out_value, out_deriv, &routed);
        ScatterAddColumns(routed, cols, in_deriv);
      }
}

void MaxpoolingComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<InputXDim>");
  ReadBasicType(is, binary, &input_x_dim_);
  ExpectToken(is, binary, "<InputYDim>");
  ReadBasicType(is, binary, &input_y_dim_);
  ExpectToken(is, binary, "<InputZDim>");
  ReadBasicType(is, binary, &input_z_dim_);
  ExpectToken(is, binary, "<PoolXSize>");
  ReadBasicType(is, binary, &pool_x_size_);
  ExpectToken(is, binary, "<PoolYSize>");
  ReadBasicType(is, binary, &pool_y_size_);
  ExpectToken(is, binary, "<PoolZSize>");
  ReadBasicType(is, binary, &pool_z_size_);
  ExpectToken(is, binary, "<PoolXStep>");
  ReadBasicType(is, binary, &pool_x_step_);
  ExpectToken(is, binary, "<PoolYStep>");
  ReadBasicType(is, binary, &pool_y_step_);
  ExpectToken(is, binary, "<PoolZStep>");
  ReadBasicType(is, binary, &pool_z_step_);
  ExpectToken(is, binary, ClosingTag(*this));
  CheckGeometry();
}

void MaxpoolingComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<InputXDim>");
  WriteBasicType(os, binary, input_x_dim_);
  WriteToken(os, binary, "<InputYDim>");
  WriteBasicType(os, binary, input_y_dim_);
  WriteToken(os, binary, "<InputZDim>");
  WriteBasicType(os, binary, input_z_dim_);
  WriteToken(os, binary, "<PoolXSize>");
  WriteBasicType(os, binary, pool_x_size_);
  WriteToken(os, binary, "<PoolYSize>");
  WriteBasicType(os, binary, pool_y_size_);
  WriteToken(os, binary, "<PoolZSize>");
  WriteBasicType(os, binary, pool_z_size_);
  WriteToken(os, binary, "<PoolXStep>");
  WriteBasicType(os, binary, pool_x_step_);
  WriteToken(os, binary, "<PoolYStep>");
  WriteBasicType(os, binary, pool_y_step_);
  WriteToken(os, binary, "<PoolZStep>");
  WriteBasicType(os, binary, pool_z_step_);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- Registration -----------------------------------------------------------

void RegisterConvolution3dComponents(ComponentRegistry *r) {
  r->Add("ConvolutionComponent", [] { return new ConvolutionComponent(); });
  r->Add("MaxpoolingComponent", [] { return new MaxpoolingComponent(); });
}

}  // namespace nnet3
