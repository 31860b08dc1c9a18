// nnet3/components/structural.cc
#include "nnet3/components/structural.h"

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>

#include "nnet3/components/parameter-stats.h"

namespace nnet3 {

// ---- DistributeComponentPrecomputedIndexes ----------------------------------

void DistributeComponentPrecomputedIndexes::Write(std::ostream &os,
                                                  bool binary) const {
  WriteToken(os, binary, "<DistributeComponentPrecomputedIndexes>");
  WriteToken(os, binary, "<Pairs>");
  WriteIntegerPairVector(os, binary, pairs);
  WriteToken(os, binary, "</DistributeComponentPrecomputedIndexes>");
}

void DistributeComponentPrecomputedIndexes::Read(std::istream &is,
                                                 bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<DistributeComponentPrecomputedIndexes>",
                       "<Pairs>");
  ReadIntegerPairVector(is, binary, &pairs);
  ExpectToken(is, binary, "</DistributeComponentPrecomputedIndexes>");
}

// ---- DistributeComponent ----------------------------------------------------

namespace {

void CheckDistributeDims(int32 input_dim, int32 output_dim) {
  if (output_dim <= 0)
    NNET3_ERR << "DistributeComponent: invalid output-dim=" << output_dim;
  if (input_dim <= 0 || input_dim % output_dim != 0)
    NNET3_ERR << "DistributeComponent: input-dim=" << input_dim
              << " is not a positive multiple of output-dim=" << output_dim;
}

const DistributeComponentPrecomputedIndexes &DistributeIndexes(
    const ComponentPrecomputedIndexes *indexes, int32 num_output_rows) {
  const DistributeComponentPrecomputedIndexes *d =
      dynamic_cast<const DistributeComponentPrecomputedIndexes *>(indexes);
  NNET3_ASSERT(d != nullptr &&
               static_cast<int32>(d->pairs.size()) == num_output_rows);
  return *d;
}

}  // namespace

DistributeComponent::DistributeComponent(int32 input_dim, int32 output_dim)
    : input_dim_(input_dim), output_dim_(output_dim) {
  CheckDistributeDims(input_dim, output_dim);
}

void DistributeComponent::InitFromConfig(ConfigLine *cfl) {
  int32 input_dim = 0, output_dim = 0;
  if (!cfl->GetValue("input-dim", &input_dim) ||
      !cfl->GetValue("output-dim", &output_dim))
    NNET3_ERR << Type() << ": input-dim and output-dim are required: "
              << cfl->WholeLine();
  CheckNoUnusedValues(*cfl, *this);
  CheckDistributeDims(input_dim, output_dim);
  input_dim_ = input_dim;
  output_dim_ = output_dim;
}

void DistributeComponent::InputFor(const Index &output_index,
                                   Index *input_index, int32 *block) const {
  const int32 n = NumBlocks(), x = output_index.x;
  // Division rounding towards minus infinity, so negative x work too.
  int32 q = x / n;
  if (x % n != 0 && x < 0) q--;
  *input_index = output_index;
  input_index->x = q;
  if (block != nullptr) *block = x - q * n;
}

void DistributeComponent::GetInputIndexes(
    const MiscComputationInfo &, const Index &output_index,
    std::vector<Index> *desired_indexes) const {
  desired_indexes->resize(1);
  InputFor(output_index, &(*desired_indexes)[0], nullptr);
}

bool DistributeComponent::IsComputable(const MiscComputationInfo &,
                                       const Index &output_index,
                                       const IndexSet &input_index_set,
                                       std::vector<Index> *used_inputs) const {
  Index input_index;
  InputFor(output_index, &input_index, nullptr);
  bool ok = input_index_set(input_index);
  if (ok && used_inputs != nullptr) used_inputs->assign(1, input_index);
  return ok;
}

ComponentPrecomputedIndexes *DistributeComponent::PrecomputeIndexes(
    const MiscComputationInfo &, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool) const {
  std::map<Index, int32> row_of;
  for (size_t r = 0; r < input_indexes.size(); r++)
    row_of[input_indexes[r]] = static_cast<int32>(r);
  std::unique_ptr<DistributeComponentPrecomputedIndexes> ans(
      new DistributeComponentPrecomputedIndexes());
  ans->pairs.reserve(output_indexes.size());
  for (const Index &out_index : output_indexes) {
    Index in_index;
    int32 block = 0;
    InputFor(out_index, &in_index, &block);
    auto it = row_of.find(in_index);
    if (it == row_of.end())
      NNET3_ERR << "DistributeComponent: the input Index (n=" << in_index.n
                << ", t=" << in_index.t << ", x=" << in_index.x
                << ") needed by an output is not among the step's inputs";
    ans->pairs.emplace_back(it->second, block * output_dim_);
  }
  return ans.release();
}

void *DistributeComponent::Propagate(const ComponentPrecomputedIndexes *indexes,
                                     const CuMatrixBase<BaseFloat> &in,
                                     CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumCols() == input_dim_ && out->NumCols() == output_dim_);
  const DistributeComponentPrecomputedIndexes &d =
      DistributeIndexes(indexes, out->NumRows());
  std::vector<const BaseFloat *> src(out->NumRows());
  for (int32 r = 0; r < out->NumRows(); r++) {
    NNET3_ASSERT(d.pairs[r].first >= 0 && d.pairs[r].first < in.NumRows());
    src[r] = in.Data() +
             static_cast<size_t>(d.pairs[r].first) * in.Stride() +
             d.pairs[r].second;
  }
  out->CopyRows(CuArray<const BaseFloat *>(src));
  return nullptr;
}

void DistributeComponent::Backprop(const std::string &,
                                   const ComponentPrecomputedIndexes *indexes,
                                   const CuMatrixBase<BaseFloat> &,
                                   const CuMatrixBase<BaseFloat> &,
                                   const CuMatrixBase<BaseFloat> &out_deriv,
                                   void *, Component *,
                                   CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  const DistributeComponentPrecomputedIndexes &d =
      DistributeIndexes(indexes, out_deriv.NumRows());
  // Each output row covers one block of one input row; unless every block
  // of every input row is covered, the rest must read as zero.
  if (out_deriv.NumRows() != in_deriv->NumRows() * NumBlocks())
    in_deriv->SetZero();
  std::vector<BaseFloat *> dst(out_deriv.NumRows());
  for (int32 r = 0; r < out_deriv.NumRows(); r++) {
    NNET3_ASSERT(d.pairs[r].first >= 0 &&
                 d.pairs[r].first < in_deriv->NumRows());
    dst[r] = in_deriv->Data() +
             static_cast<size_t>(d.pairs[r].first) * in_deriv->Stride() +
             d.pairs[r].second;
  }
  out_deriv.CopyToRows(CuArray<BaseFloat *>(dst));
}

void DistributeComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, OpeningTag(*this), "<InputDim>");
  ReadBasicType(is, binary, &input_dim_);
  ExpectToken(is, binary, "<OutputDim>");
  ReadBasicType(is, binary, &output_dim_);
  ExpectToken(is, binary, ClosingTag(*this));
  CheckDistributeDims(input_dim_, output_dim_);
}

void DistributeComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  WriteToken(os, binary, "<InputDim>");
  WriteBasicType(os, binary, input_dim_);
  WriteToken(os, binary, "<OutputDim>");
  WriteBasicType(os, binary, output_dim_);
  WriteToken(os, binary, ClosingTag(*this));
}

// ---- ConstantComponent ------------------------------------------------------

ConstantComponent::ConstantComponent(const ConstantComponent &other)
    : UpdatableComponent(), output_(other.output_),
      is_updatable_(other.is_updatable_),
      use_natural_gradient_(other.use_natural_gradient_),
      preconditioner_(other.preconditioner_) {
  SetUpdatableConfigs(other);
}

void ConstantComponent::InitFromConfig(ConfigLine *cfl) {
  InitLearningRatesFromConfig(cfl);
  int32 output_dim = 0;
  bool have_dim = cfl->GetValue("output-dim", &output_dim);
  is_updatable_ = true;
  use_natural_gradient_ = true;
  cfl->GetValue("is-updatable", &is_updatable_);
  cfl->GetValue("use-natural-gradient", &use_natural_gradient_);
  BaseFloat mean = 0.0, stddev = 0.0;
  cfl->GetValue("output-mean", &mean);
  cfl->GetValue("output-stddev", &stddev);
  if (!have_dim)
    NNET3_ERR << Type() << ": output-dim is required: " << cfl->WholeLine();
  if (output_dim <= 0)
    NNET3_ERR << Type() << ": invalid output-dim=" << output_dim;
  CheckNoUnusedValues(*cfl, *this);
  output_.Resize(output_dim);
  output_.SetRandn();
  output_.Scale(stddev);
  output_.Add(mean);
  preconditioner_ = OnlineNaturalGradient();
}

std::string ConstantComponent::Info() const {
  std::ostringstream os;
  os << UpdatableComponent::Info() << ", " << Type()
     << ", output-dim=" << OutputDim()
     << ", is-updatable=" << (is_updatable_ ? "true" : "false")
     << ", use-natural-gradient="
     << (use_natural_gradient_ ? "true" : "false");
  PrintParameterStats(os, "output", output_, true);
  return os.str();
}

void *ConstantComponent::Propagate(const ComponentPrecomputedIndexes *,
                                   const CuMatrixBase<BaseFloat> &,
                                   CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(out->NumCols() == output_.Dim());
  out->CopyRowsFromVec(output_);
  return nullptr;
}

void ConstantComponent::Backprop(const std::string &,
                                 const ComponentPrecomputedIndexes *,
                                 const CuMatrixBase<BaseFloat> &,
                                 const CuMatrixBase<BaseFloat> &,
                                 const CuMatrixBase<BaseFloat> &out_deriv,
                                 void *, Component *to_update_in,
                                 CuMatrixBase<BaseFloat> *in_deriv) const {
  // The output does not depend on the input. The properties do not claim
  // kBackpropAdds (as in Kaldi), so a requested in_deriv is overwritten.
  if (in_deriv != nullptr) in_deriv->SetZero();
  if (to_update_in == nullptr) return;
  ConstantComponent *to_update =
      dynamic_cast<ConstantComponent *>(to_update_in);
  NNET3_ASSERT(to_update != nullptr);
  if (!to_update->is_updatable_) return;
  if (to_update->use_natural_gradient_ && !to_update->is_gradient_) {
    CuMatrix<BaseFloat> directions(out_deriv);
    BaseFloat scale = 1.0;
    to_update->preconditioner_.PreconditionDirections(&directions, &scale);
    to_update->output_.AddRowSumMat(scale * to_update->learning_rate_,
                                    directions, 1.0);
  } else {
    to_update->output_.AddRowSumMat(to_update->learning_rate_, out_deriv,
                                    1.0);
  }
}

void ConstantComponent::GetInputIndexes(
    const MiscComputationInfo &, const Index &,
    std::vector<Index> *desired_indexes) const {
  desired_indexes->clear();
}

bool ConstantComponent::IsComputable(const MiscComputationInfo &,
                                     const Index &, const IndexSet &,
                                     std::vector<Index> *used_inputs) const {
  if (used_inputs != nullptr) used_inputs->clear();
  return true;
}

void ConstantComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  if (!token.empty()) {
    // No <LearningRate> in the file: Kaldi's default.
    learning_rate_ = 0.001;
    if (token != "<Output>")
      NNET3_ERR << "Expected token <Output>, got " << PrintableString(token);
  } else {
    ExpectToken(is, binary, "<Output>");
  }
  output_.Read(is, binary);
  ExpectToken(is, binary, "<IsUpdatable>");
  ReadBasicType(is, binary, &is_updatable_);
  ExpectToken(is, binary, "<UseNaturalGradient>");
  ReadBasicType(is, binary, &use_natural_gradient_);
  ExpectToken(is, binary, ClosingTag(*this));
  preconditioner_ = OnlineNaturalGradient();
}

void ConstantComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<Output>");
  output_.Write(os, binary);
  WriteToken(os, binary, "<IsUpdatable>");
  WriteBasicType(os, binary, is_updatable_);
  WriteToken(os, binary, "<UseNaturalGradient>");
  WriteBasicType(os, binary, use_natural_gradient_);
  WriteToken(os, binary, ClosingTag(*this));
}

void ConstantComponent::Scale(BaseFloat scale) {
  if (!is_updatable_) return;  // a fixed output is not a parameter
  if (scale == 0.0)
    output_.SetZero();
  else
    output_.Scale(scale);
}

void ConstantComponent::Add(BaseFloat alpha, const Component &other_in) {
  if (!is_updatable_) return;
  const ConstantComponent *other =
      dynamic_cast<const ConstantComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  output_.AddVec(alpha, other->output_);
}

void ConstantComponent::PerturbParams(BaseFloat stddev) {
  CuVector<BaseFloat> noise(output_.Dim());
  noise.SetRandn();
  output_.AddVec(stddev, noise);
}

BaseFloat ConstantComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const ConstantComponent *other =
      dynamic_cast<const ConstantComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr);
  return VecVec(output_, other->output_);
}

void ConstantComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  output_.CopyToVec(params);
}

void ConstantComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  output_.CopyFromVec(params);
}

// ---- CompositeComponent -----------------------------------------------------

namespace {

UpdatableComponent *AsUpdatable(Component *c) {
  if (!(c->Properties() & kUpdatableComponent)) return nullptr;
  UpdatableComponent *u = dynamic_cast<UpdatableComponent *>(c);
  NNET3_ASSERT(u != nullptr);
  return u;
}

const UpdatableComponent *AsUpdatable(const Component *c) {
  return AsUpdatable(const_cast<Component *>(c));
}

}  // namespace

CompositeComponent::CompositeComponent(const CompositeComponent &other)
    : UpdatableComponent(), max_rows_process_(other.max_rows_process_) {
  SetUpdatableConfigs(other);
  components_.reserve(other.components_.size());
  for (const Component *c : other.components_)
    components_.push_back(c->Copy());
}

CompositeComponent::~CompositeComponent() {
  for (Component *c : components_) delete c;
}

void CompositeComponent::CheckMembers(
    const std::vector<Component *> &components) const {
  if (components.empty())
    NNET3_ERR << "CompositeComponent: num-components must be at least 1";
  for (size_t i = 0; i < components.size(); i++) {
    const Component *c = components[i];
    int32 props = c->Properties();
    if (c->Type() == Type())
      NNET3_ERR << "CompositeComponent: component" << (i + 1)
                << " is itself a CompositeComponent (not allowed; use a "
                << "smaller max-rows-process instead)";
    if (!(props & kSimpleComponent) || (props & kRandomComponent))
      NNET3_ERR << "CompositeComponent: component" << (i + 1) << " (type "
                << c->Type() << ") is not simple or is random; not allowed";
    if (i > 0 && c->InputDim() != components[i - 1]->OutputDim())
      NNET3_ERR << "CompositeComponent: component" << (i + 1)
                << " has input-dim=" << c->InputDim() << " but component" << i
                << " has output-dim=" << components[i - 1]->OutputDim();
  }
}

void CompositeComponent::Init(const std::vector<Component *> &components,
                              int32 max_rows_process) {
  try {
    CheckMembers(components);
  } catch (...) {
    for (Component *c : components) delete c;
    throw;
  }
  for (Component *c : components_) delete c;
  components_ = components;
  max_rows_process_ = max_rows_process;
}

void CompositeComponent::SetComponent(int32 i, Component *component) {
  NNET3_ASSERT(i >= 0 && i < NumComponents());
  delete components_[i];
  components_[i] = component;
}

int32 CompositeComponent::InputDim() const {
  return components_.empty() ? 0 : components_.front()->InputDim();
}

int32 CompositeComponent::OutputDim() const {
  return components_.empty() ? 0 : components_.back()->OutputDim();
}

bool CompositeComponent::AnyUpdatable() const {
  for (const Component *c : components_)
    if (c->Properties() & kUpdatableComponent) return true;
  return false;
}

int32 CompositeComponent::Properties() const {
  NNET3_ASSERT(!components_.empty());
  const int32 first = components_.front()->Properties(),
              last = components_.back()->Properties();
  int32 props = kSimpleComponent | kBackpropNeedsInput;
  props |= last & (kPropagateAdds | kBackpropNeedsOutput | kOutputContiguous);
  props |= first & (kBackpropAdds | kInputContiguous);
  if (last & kStoresStats) props |= kBackpropNeedsOutput;
  if (AnyUpdatable()) props |= kUpdatableComponent;
  return props;
}

void CompositeComponent::InitFromConfig(ConfigLine *cfl) {
  int32 max_rows_process = 4096, num_components = -1;
  cfl->GetValue("max-rows-process", &max_rows_process);
  if (!cfl->GetValue("num-components", &num_components))
    NNET3_ERR << Type() << ": num-components is required: "
              << cfl->WholeLine();
  if (num_components < 1)
    NNET3_ERR << Type() << ": invalid num-components=" << num_components;
  std::vector<std::unique_ptr<Component> > members;
  for (int32 i = 1; i <= num_components; i++) {
    const std::string key = "component" + std::to_string(i);
    std::string nested;
    if (!cfl->GetValue(key, &nested))
      NNET3_ERR << Type() << ": " << key << " is required (num-components="
                << num_components << ")";
    ConfigLine nested_line;
    std::string error, type;
    if (!nested_line.ParseLine(nested, &error) ||
        !nested_line.FirstToken().empty())
      NNET3_ERR << Type() << ": could not parse " << key << "='" << nested
                << "'" << (error.empty() ? "" : ": ") << error;
    if (!nested_line.GetValue("type", &type))
      NNET3_ERR << Type() << ": " << key << " has no type=: '" << nested
                << "'";
    if (type == Type())
      NNET3_ERR << Type() << ": " << key << " is itself a CompositeComponent "
                << "(not allowed; use a smaller max-rows-process instead)";
    std::unique_ptr<Component> c(NewComponentOfType(type));
    if (!c) NNET3_ERR << Type() << ": " << key << " has unknown type=" << type;
    c->InitFromConfig(&nested_line);
    CheckNoUnusedValues(nested_line, *c);
    members.push_back(std::move(c));
  }
  CheckNoUnusedValues(*cfl, *this);
  std::vector<Component *> raw;
  for (auto &m : members) raw.push_back(m.release());
  Init(raw, max_rows_process);
}

std::string CompositeComponent::Info() const {
  std::ostringstream os;
  os << Type() << " ";
  for (size_t i = 0; i < components_.size(); i++) {
    if (i > 0) os << ", ";
    os << "sub-component" << (i + 1) << " = { " << components_[i]->Info()
       << " }";
  }
  return os.str();
}

void CompositeComponent::PropagateChunk(const CuMatrixBase<BaseFloat> &in,
                                        CuMatrixBase<BaseFloat> *out) const {
  const int32 n = components_.size(), rows = in.NumRows();
  CuMatrix<BaseFloat> prev, cur;
  for (int32 i = 0; i < n; i++) {
    const CuMatrixBase<BaseFloat> &this_in = (i == 0 ? in : prev);
    CuMatrixBase<BaseFloat> *this_out = out;
    if (i + 1 < n) {
      // Zeroed, so that members that add to their output start from zero.
      cur.Resize(rows, components_[i]->OutputDim(), kSetZero,
                 kStrideEqualNumCols);
      this_out = &cur;
    }
    void *memo = components_[i]->Propagate(nullptr, this_in, this_out);
    // Backprop recomputes what it needs, memos included.
    components_[i]->DeleteMemo(memo);
    if (i + 1 < n) prev.Swap(&cur);
  }
}

void *CompositeComponent::Propagate(const ComponentPrecomputedIndexes *,
                                    const CuMatrixBase<BaseFloat> &in,
                                    CuMatrixBase<BaseFloat> *out) const {
  NNET3_ASSERT(in.NumRows() == out->NumRows() && in.NumCols() == InputDim() &&
               out->NumCols() == OutputDim());
  const int32 rows = in.NumRows();
  const int32 chunk =
      (max_rows_process_ > 0 && rows > max_rows_process_) ? max_rows_process_
                                                          : rows;
  if (chunk == rows) {
    PropagateChunk(in, out);
    return nullptr;
  }
  for (int32 start = 0; start < rows; start += chunk) {
    int32 len = std::min(chunk, rows - start);
    CuSubMatrix<BaseFloat> out_part = out->RowRange(start, len);
    PropagateChunk(in.RowRange(start, len), &out_part);
  }
  return nullptr;
}

void CompositeComponent::BackpropChunk(const std::string &debug_info,
                                       const CuMatrixBase<BaseFloat> &in_value,
                                       const CuMatrixBase<BaseFloat> &out_value,
                                       const CuMatrixBase<BaseFloat> &out_deriv,
                                       CompositeComponent *to_update,
                                       CuMatrixBase<BaseFloat> *in_deriv) const {
  const int32 n = components_.size(), rows = in_value.NumRows();
  // values[i]: the output of member i, recomputed (the last member's only
  // when it needs a memo; its output value is the one given).
  std::vector<CuMatrix<BaseFloat> > values(n);
  std::vector<void *> memos(n, nullptr);
  const bool last_uses_memo = (components_[n - 1]->Properties() & kUsesMemo);
  const int32 num_to_run = last_uses_memo ? n : n - 1;
  for (int32 i = 0; i < num_to_run; i++) {
    values[i].Resize(rows, components_[i]->OutputDim(), kSetZero,
                     kStrideEqualNumCols);
    memos[i] = components_[i]->Propagate(
        nullptr, i == 0 ? in_value : values[i - 1], &values[i]);
  }
  // derivs: the derivative w.r.t. the output of the member above.
  CuMatrix<BaseFloat> deriv_above, deriv_below;
  for (int32 i = n - 1; i >= 0; i--) {
    const CuMatrixBase<BaseFloat> &this_in = (i == 0 ? in_value : values[i - 1]);
    const CuMatrixBase<BaseFloat> &this_out =
        (i == n - 1 ? out_value : values[i]);
    const CuMatrixBase<BaseFloat> &this_out_deriv =
        (i == n - 1 ? out_deriv : deriv_above);
    Component *member_to_update =
        to_update == nullptr ? nullptr : to_update->components_[i];
    if (member_to_update != nullptr &&
        (components_[i]->Properties() & kStoresStats))
      member_to_update->StoreStats(this_in, this_out, memos[i]);
    CuMatrixBase<BaseFloat> *this_in_deriv = in_deriv;
    if (i > 0) {
      deriv_below.Resize(rows, components_[i]->InputDim(), kSetZero,
                         kStrideEqualNumCols);
      this_in_deriv = &deriv_below;
    }
    // The first member's Backprop has nothing to do unless it computes the
    // input derivative or updates parameters.
    bool skip = (i == 0 && in_deriv == nullptr &&
                 !(components_[0]->Properties() & kUpdatableComponent));
    if (!skip)
      components_[i]->Backprop(debug_info, nullptr, this_in, this_out,
                               this_out_deriv, memos[i], member_to_update,
                               this_in_deriv);
    if (memos[i] != nullptr) components_[i]->DeleteMemo(memos[i]);
    memos[i] = nullptr;
    if (i > 0) deriv_above.Swap(&deriv_below);
  }
}

void CompositeComponent::Backprop(const std::string &debug_info,
                                  const ComponentPrecomputedIndexes *,
                                  const CuMatrixBase<BaseFloat> &in_value,
                                  const CuMatrixBase<BaseFloat> &out_value,
                                  const CuMatrixBase<BaseFloat> &out_deriv,
                                  void *, Component *to_update_in,
                                  CuMatrixBase<BaseFloat> *in_deriv) const {
  NNET3_ASSERT(in_value.NumRows() == out_deriv.NumRows() &&
               in_value.NumCols() == InputDim() &&
               out_deriv.NumCols() == OutputDim());
  CompositeComponent *to_update = nullptr;
  if (to_update_in != nullptr) {
    to_update = dynamic_cast<CompositeComponent *>(to_update_in);
    NNET3_ASSERT(to_update != nullptr &&
                 to_update->components_.size() == components_.size());
  }
  const int32 rows = in_value.NumRows();
  const int32 chunk =
      (max_rows_process_ > 0 && rows > max_rows_process_) ? max_rows_process_
                                                          : rows;
  if (chunk == rows) {
    BackpropChunk(debug_info, in_value, out_value, out_deriv, to_update,
                  in_deriv);
    return;
  }
  const bool have_out_value = out_value.NumRows() != 0;
  CuMatrix<BaseFloat> empty;
  for (int32 start = 0; start < rows; start += chunk) {
    int32 len = std::min(chunk, rows - start);
    CuSubMatrix<BaseFloat> in_part = in_value.RowRange(start, len),
                           deriv_part = out_deriv.RowRange(start, len);
    if (have_out_value) {
      CuSubMatrix<BaseFloat> out_part = out_value.RowRange(start, len);
      if (in_deriv != nullptr) {
        CuSubMatrix<BaseFloat> in_deriv_part = in_deriv->RowRange(start, len);
        BackpropChunk(debug_info, in_part, out_part, deriv_part, to_update,
                      &in_deriv_part);
      } else {
        BackpropChunk(debug_info, in_part, out_part, deriv_part, to_update,
                      nullptr);
      }
    } else if (in_deriv != nullptr) {
      CuSubMatrix<BaseFloat> in_deriv_part = in_deriv->RowRange(start, len);
      BackpropChunk(debug_info, in_part, empty, deriv_part, to_update,
                    &in_deriv_part);
    } else {
      BackpropChunk(debug_info, in_part, empty, deriv_part, to_update,
                    nullptr);
    }
  }
}

void CompositeComponent::ZeroStats() {
  for (Component *c : components_) c->ZeroStats();
}

void CompositeComponent::Read(std::istream &is, bool binary) {
  std::string token = ReadUpdatableCommon(is, binary);
  if (token.empty())
    ExpectToken(is, binary, "<MaxRowsProcess>");
  else if (token != "<MaxRowsProcess>")
    NNET3_ERR << "Expected token <MaxRowsProcess>, got "
              << PrintableString(token);
  int32 max_rows_process = 0, num_components = 0;
  ReadBasicType(is, binary, &max_rows_process);
  ExpectToken(is, binary, "<NumComponents>");
  ReadBasicType(is, binary, &num_components);
  if (num_components < 1 || num_components > 100000)
    NNET3_ERR << Type() << ": bad <NumComponents> " << num_components;
  std::vector<Component *> members;
  try {
    for (int32 i = 0; i < num_components; i++)
      members.push_back(Component::ReadNew(is, binary));
  } catch (...) {
    for (Component *c : members) delete c;
    throw;
  }
  Init(members, max_rows_process);
  ExpectToken(is, binary, ClosingTag(*this));
}

void CompositeComponent::Write(std::ostream &os, bool binary) const {
  WriteUpdatableCommon(os, binary);
  WriteToken(os, binary, "<MaxRowsProcess>");
  WriteBasicType(os, binary, max_rows_process_);
  WriteToken(os, binary, "<NumComponents>");
  WriteBasicType(os, binary, static_cast<int32>(components_.size()));
  for (const Component *c : components_) c->Write(os, binary);
  WriteToken(os, binary, ClosingTag(*this));
}

void CompositeComponent::Scale(BaseFloat scale) {
  for (Component *c : components_) c->Scale(scale);
}

void CompositeComponent::Add(BaseFloat alpha, const Component &other_in) {
  const CompositeComponent *other =
      dynamic_cast<const CompositeComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr &&
               other->components_.size() == components_.size());
  for (size_t i = 0; i < components_.size(); i++)
    components_[i]->Add(alpha, *other->components_[i]);
}

void CompositeComponent::PerturbParams(BaseFloat stddev) {
  for (Component *c : components_)
    if (UpdatableComponent *u = AsUpdatable(c)) u->PerturbParams(stddev);
}

BaseFloat CompositeComponent::DotProduct(
    const UpdatableComponent &other_in) const {
  const CompositeComponent *other =
      dynamic_cast<const CompositeComponent *>(&other_in);
  NNET3_ASSERT(other != nullptr &&
               other->components_.size() == components_.size());
  BaseFloat sum = 0.0;
  for (size_t i = 0; i < components_.size(); i++) {
    const UpdatableComponent *a = AsUpdatable(components_[i]);
    if (a == nullptr) continue;
    const UpdatableComponent *b = AsUpdatable(other->components_[i]);
    NNET3_ASSERT(b != nullptr);
    sum += a->DotProduct(*b);
  }
  return sum;
}

int32 CompositeComponent::NumParameters() const {
  int32 total = 0;
  for (const Component *c : components_)
    if (const UpdatableComponent *u = AsUpdatable(c))
      total += u->NumParameters();
  return total;
}

void CompositeComponent::Vectorize(VectorBase<BaseFloat> *params) const {
  NNET3_ASSERT(params->Dim() == NumParameters());
  int32 offset = 0;
  for (const Component *c : components_) {
    const UpdatableComponent *u = AsUpdatable(c);
    if (u == nullptr) continue;
    SubVector<BaseFloat> part = params->Range(offset, u->NumParameters());
    u->Vectorize(&part);
    offset += u->NumParameters();
  }
}

void CompositeComponent::UnVectorize(const VectorBase<BaseFloat> &params) {
  NNET3_ASSERT(params.Dim() == NumParameters());
  int32 offset = 0;
  for (Component *c : components_) {
    UpdatableComponent *u = AsUpdatable(c);
    if (u == nullptr) continue;
    u->UnVectorize(params.Range(offset, u->NumParameters()));
    offset += u->NumParameters();
  }
}

void CompositeComponent::SetUnderlyingLearningRate(BaseFloat lrate) {
  UpdatableComponent::SetUnderlyingLearningRate(lrate);
  // Members get the rate scaled by this component's own factor, and then
  // apply their own factors.
  for (Component *c : components_)
    if (UpdatableComponent *u = AsUpdatable(c))
      u->SetUnderlyingLearningRate(learning_rate_);
}

void CompositeComponent::SetActualLearningRate(BaseFloat lrate) {
  UpdatableComponent::SetActualLearningRate(lrate);
  for (Component *c : components_)
    if (UpdatableComponent *u = AsUpdatable(c)) u->SetActualLearningRate(lrate);
}

void CompositeComponent::SetAsGradient() {
  UpdatableComponent::SetAsGradient();
  for (Component *c : components_)
    if (UpdatableComponent *u = AsUpdatable(c)) u->SetAsGradient();
}

void CompositeComponent::FreezeNaturalGradient(bool freeze) {
  for (Component *c : components_)
    if (UpdatableComponent *u = AsUpdatable(c)) u->FreezeNaturalGradient(freeze);
}

// ---- Registration -----------------------------------------------------------

void RegisterStructuralComponents(ComponentRegistry *r) {
  r->Add("DistributeComponent", [] { return new DistributeComponent(); });
  r->Add("ConstantComponent", [] { return new ConstantComponent(); });
  r->Add("CompositeComponent", [] { return new CompositeComponent(); });
  r->AddPrecomputedIndexes("DistributeComponentPrecomputedIndexes", [] {
    return new DistributeComponentPrecomputedIndexes();
  });
}

}  // namespace nnet3
