// nnet3/core/descriptor.cc
// The Descriptor classes: index mapping, dependencies, computability,
// dimensions, moduli, scales and the printed form. Parsing and
// normalisation are in descriptor-parse.cc.
#include "nnet3/core/descriptor.h"

#include <limits>
#include <sstream>
#include <utility>

#include "base/log.h"

namespace nnet3 {

namespace {

int32 Gcd(int32 a, int32 b) {
  while (b != 0) {
    int32 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

int32 Lcm(int32 a, int32 b) {
  NNET3_ASSERT(a > 0 && b > 0);
  return a / Gcd(a, b) * b;
}

// "Mathematical" modulus, in [0, m) for m > 0.
int32 PositiveMod(int32 a, int32 m) {
  int32 r = a % m;
  return r < 0 ? r + m : r;
}

const BaseFloat kInfinity = std::numeric_limits<BaseFloat>::infinity();

bool IsFinite(BaseFloat f) { return f - f == 0; }

void WriteNodeName(std::ostream &os, int32 node,
                   const std::vector<std::string> &node_names) {
  NNET3_ASSERT(node >= 0 && static_cast<size_t>(node) < node_names.size());
  os << node_names[node];
}

}  // namespace

// ---------------------------------------------------------------- Simple
SimpleForwardingDescriptor::SimpleForwardingDescriptor(int32 src_node,
                                                       BaseFloat scale)
    : src_node_(src_node), scale_(scale) {
  NNET3_ASSERT(src_node >= 0);
}

Cindex SimpleForwardingDescriptor::MapToInput(const Index &index) const {
  return Cindex(src_node_, index);
}

int32 SimpleForwardingDescriptor::Dim(const NodeDimFunction &node_dim) const {
  return node_dim(src_node_);
}

std::unique_ptr<ForwardingDescriptor> SimpleForwardingDescriptor::Copy()
    const {
  return std::make_unique<SimpleForwardingDescriptor>(src_node_, scale_);
}

void SimpleForwardingDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &node_names) const {
  if (scale_ == 1.0) {
    WriteNodeName(os, src_node_, node_names);
  } else {
    os << "Scale(" << scale_ << ", ";
    WriteNodeName(os, src_node_, node_names);
    os << ")";
  }
}

void SimpleForwardingDescriptor::GetNodeDependencies(
    std::vector<int32> *node_indexes) const {
  node_indexes->push_back(src_node_);
}

BaseFloat SimpleForwardingDescriptor::GetScaleForNode(int32 node_index) const {
  return node_index == src_node_ ? scale_ : kInfinity;
}

// ---------------------------------------------------------------- Offset
OffsetForwardingDescriptor::OffsetForwardingDescriptor(
    std::unique_ptr<ForwardingDescriptor> src, const Index &offset)
    : src_(std::move(src)), offset_(offset) {
  NNET3_ASSERT(src_ != nullptr && offset_.n == 0);
}

Cindex OffsetForwardingDescriptor::MapToInput(const Index &index) const {
  return src_->MapToInput(index + offset_);
}

int32 OffsetForwardingDescriptor::Dim(const NodeDimFunction &node_dim) const {
  return src_->Dim(node_dim);
}

std::unique_ptr<ForwardingDescriptor> OffsetForwardingDescriptor::Copy()
    const {
  return std::make_unique<OffsetForwardingDescriptor>(src_->Copy(), offset_);
}

void OffsetForwardingDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &node_names) const {
  os << "Offset(";
  src_->WriteConfig(os, node_names);
  os << ", " << offset_.t;
  if (offset_.x != 0) os << ", " << offset_.x;
  os << ")";
}

void OffsetForwardingDescriptor::GetNodeDependencies(
    std::vector<int32> *node_indexes) const {
  src_->GetNodeDependencies(node_indexes);
}

BaseFloat OffsetForwardingDescriptor::GetScaleForNode(int32 node_index) const {
  return src_->GetScaleForNode(node_index);
}

// ---------------------------------------------------------------- Switch
SwitchingForwardingDescriptor::SwitchingForwardingDescriptor(
    std::vector<std::unique_ptr<ForwardingDescriptor>> src)
    : src_(std::move(src)) {
  NNET3_ASSERT(!src_.empty());
}

Cindex SwitchingForwardingDescriptor::MapToInput(const Index &index) const {
  int32 which = PositiveMod(index.t, static_cast<int32>(src_.size()));
  return src_[which]->MapToInput(index);
}

int32 SwitchingForwardingDescriptor::Dim(
    const NodeDimFunction &node_dim) const {
  int32 dim = src_[0]->Dim(node_dim);
  for (size_t i = 1; i < src_.size(); i++) {
    int32 this_dim = src_[i]->Dim(node_dim);
    if (this_dim != dim)
      NNET3_ERR << "Switch expression with inconsistent dimension: " << dim
                << " vs. " << this_dim;
  }
  return dim;
}

std::unique_ptr<ForwardingDescriptor> SwitchingForwardingDescriptor::Copy()
    const {
  std::vector<std::unique_ptr<ForwardingDescriptor>> copy;
  for (const auto &s : src_) copy.push_back(s->Copy());
  return std::make_unique<SwitchingForwardingDescriptor>(std::move(copy));
}

int32 SwitchingForwardingDescriptor::Modulus() const {
  int32 ans = static_cast<int32>(src_.size());
  for (const auto &s : src_) ans = Lcm(ans, s->Modulus());
  return ans;
}

void SwitchingForwardingDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &node_names) const {
  os << "Switch(";
  for (size_t i = 0; i < src_.size(); i++) {
    if (i > 0) os << ", ";
    src_[i]->WriteConfig(os, node_names);
  }
  os << ")";
}

void SwitchingForwardingDescriptor::GetNodeDependencies(
    std::vector<int32> *node_indexes) const {
  for (const auto &s : src_) s->GetNodeDependencies(node_indexes);
}

BaseFloat SwitchingForwardingDescriptor::GetScaleForNode(
    int32 node_index) const {
  BaseFloat ans = kInfinity;
  for (const auto &s : src_) {
    BaseFloat this_ans = s->GetScaleForNode(node_index);
    if (this_ans == kInfinity) continue;
    if (ans != kInfinity && ans != this_ans)
      NNET3_ERR << "Invalid Descriptor: node " << node_index
                << " appears in Switch() with two different scales, "
                << this_ans << " vs. " << ans;
    ans = this_ans;
  }
  return ans;
}

// ---------------------------------------------------------------- Round
RoundingForwardingDescriptor::RoundingForwardingDescriptor(
    std::unique_ptr<ForwardingDescriptor> src, int32 t_modulus)
    : src_(std::move(src)), t_modulus_(t_modulus) {
  NNET3_ASSERT(src_ != nullptr && t_modulus_ >= 1);
}

Cindex RoundingForwardingDescriptor::MapToInput(const Index &index) const {
  Index rounded(index);
  rounded.t -= PositiveMod(rounded.t, t_modulus_);
  return src_->MapToInput(rounded);
}

int32 RoundingForwardingDescriptor::Dim(const NodeDimFunction &node_dim) const {
  return src_->Dim(node_dim);
}

std::unique_ptr<ForwardingDescriptor> RoundingForwardingDescriptor::Copy()
    const {
  return std::make_unique<RoundingForwardingDescriptor>(src_->Copy(),
                                                        t_modulus_);
}

void RoundingForwardingDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &node_names) const {
  os << "Round(";
  src_->WriteConfig(os, node_names);
  os << ", " << t_modulus_ << ")";
}

void RoundingForwardingDescriptor::GetNodeDependencies(
    std::vector<int32> *node_indexes) const {
  src_->GetNodeDependencies(node_indexes);
}

BaseFloat RoundingForwardingDescriptor::GetScaleForNode(
    int32 node_index) const {
  return src_->GetScaleForNode(node_index);
}

// ---------------------------------------------------------- ReplaceIndex
ReplaceIndexForwardingDescriptor::ReplaceIndexForwardingDescriptor(
    std::unique_ptr<ForwardingDescriptor> src, VariableName variable_name,
    int32 value)
    : src_(std::move(src)), variable_name_(variable_name), value_(value) {
  NNET3_ASSERT(src_ != nullptr &&
               (variable_name_ == kT || variable_name_ == kX));
}

Cindex ReplaceIndexForwardingDescriptor::MapToInput(const Index &index) const {
  Index replaced(index);
  if (variable_name_ == kT)
    replaced.t = value_;
  else
    replaced.x = value_;
  return src_->MapToInput(replaced);
}

int32 ReplaceIndexForwardingDescriptor::Dim(
    const NodeDimFunction &node_dim) const {
  return src_->Dim(node_dim);
}

std::unique_ptr<ForwardingDescriptor> ReplaceIndexForwardingDescriptor::Copy()
    const {
  return std::make_unique<ReplaceIndexForwardingDescriptor>(
      src_->Copy(), variable_name_, value_);
}

void ReplaceIndexForwardingDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &node_names) const {
  os << "ReplaceIndex(";
  src_->WriteConfig(os, node_names);
  os << ", " << (variable_name_ == kT ? "t" : "x") << ", " << value_ << ")";
}

void ReplaceIndexForwardingDescriptor::GetNodeDependencies(
    std::vector<int32> *node_indexes) const {
  src_->GetNodeDependencies(node_indexes);
}

BaseFloat ReplaceIndexForwardingDescriptor::GetScaleForNode(
    int32 node_index) const {
  return src_->GetScaleForNode(node_index);
}

// ---------------------------------------------------------------- Optional
OptionalSumDescriptor::OptionalSumDescriptor(std::unique_ptr<SumDescriptor> src)
    : src_(std::move(src)) {
  NNET3_ASSERT(src_ != nullptr);
}

void OptionalSumDescriptor::GetDependencies(
    const Index &index, std::vector<Cindex> *dependencies) const {
  src_->GetDependencies(index, dependencies);
}

bool OptionalSumDescriptor::IsComputable(
    const Index &index, const CindexSet &cindex_set,
    std::vector<Cindex> *used_inputs) const {
  // The inner expression adds its inputs only if it is computable; either
  // way the IfDefined() is (so without a list to fill there is nothing to
  // ask).
  if (used_inputs != nullptr) src_->IsComputable(index, cindex_set, used_inputs);
  return true;
}

int32 OptionalSumDescriptor::Dim(const NodeDimFunction &node_dim) const {
  return src_->Dim(node_dim);
}

std::unique_ptr<SumDescriptor> OptionalSumDescriptor::Copy() const {
  return std::make_unique<OptionalSumDescriptor>(src_->Copy());
}

void OptionalSumDescriptor::GetNodeDependencies(
    std::vector<int32> *node_indexes) const {
  src_->GetNodeDependencies(node_indexes);
}

BaseFloat OptionalSumDescriptor::GetScaleForNode(int32 node_index) const {
  BaseFloat ans = src_->GetScaleForNode(node_index);
  if (node_index < 0 && ans != 0.0)
    NNET3_ERR << "Illegal combination of IfDefined() and Const() in a "
                 "Descriptor (a Const() inside IfDefined() is not supported)";
  return ans;
}

void OptionalSumDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &node_names) const {
  os << "IfDefined(";
  src_->WriteConfig(os, node_names);
  os << ")";
}

// ---------------------------------------------------------------- SimpleSum
SimpleSumDescriptor::SimpleSumDescriptor(
    std::unique_ptr<ForwardingDescriptor> src)
    : src_(std::move(src)) {
  NNET3_ASSERT(src_ != nullptr);
}

void SimpleSumDescriptor::GetDependencies(
    const Index &index, std::vector<Cindex> *dependencies) const {
  dependencies->push_back(src_->MapToInput(index));
}

bool SimpleSumDescriptor::IsComputable(const Index &index,
                                       const CindexSet &cindex_set,
                                       std::vector<Cindex> *used_inputs) const {
  Cindex input = src_->MapToInput(index);
  bool present = cindex_set(input);
  if (present && used_inputs != nullptr) used_inputs->push_back(input);
  return present;
}

int32 SimpleSumDescriptor::Dim(const NodeDimFunction &node_dim) const {
  return src_->Dim(node_dim);
}

std::unique_ptr<SumDescriptor> SimpleSumDescriptor::Copy() const {
  return std::make_unique<SimpleSumDescriptor>(src_->Copy());
}

void SimpleSumDescriptor::GetNodeDependencies(
    std::vector<int32> *node_indexes) const {
  src_->GetNodeDependencies(node_indexes);
}

BaseFloat SimpleSumDescriptor::GetScaleForNode(int32 node_index) const {
  // A forwarding expression has no constant term.
  return node_index >= 0 ? src_->GetScaleForNode(node_index) : 0.0f;
}

void SimpleSumDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &node_names) const {
  src_->WriteConfig(os, node_names);
}

// ---------------------------------------------------------------- Constant
ConstantSumDescriptor::ConstantSumDescriptor(BaseFloat value, int32 dim)
    : value_(value), dim_(dim) {
  NNET3_ASSERT(dim > 0 && IsFinite(value));
}

std::unique_ptr<SumDescriptor> ConstantSumDescriptor::Copy() const {
  return std::make_unique<ConstantSumDescriptor>(value_, dim_);
}

BaseFloat ConstantSumDescriptor::GetScaleForNode(int32 node_index) const {
  return node_index < 0 ? value_ : kInfinity;
}

void ConstantSumDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &) const {
  os << "Const(" << value_ << ", " << dim_ << ")";
}

// ---------------------------------------------------------------- Binary
BinarySumDescriptor::BinarySumDescriptor(Operation op,
                                         std::unique_ptr<SumDescriptor> src1,
                                         std::unique_ptr<SumDescriptor> src2)
    : op_(op), src1_(std::move(src1)), src2_(std::move(src2)) {
  NNET3_ASSERT(src1_ != nullptr && src2_ != nullptr);
}

void BinarySumDescriptor::GetDependencies(
    const Index &index, std::vector<Cindex> *dependencies) const {
  src1_->GetDependencies(index, dependencies);
  src2_->GetDependencies(index, dependencies);
}

bool BinarySumDescriptor::IsComputable(const Index &index,
                                       const CindexSet &cindex_set,
                                       std::vector<Cindex> *used_inputs) const {
  // Short-circuits: a Sum whose first term is missing, or a Failover whose
  // first branch is present, never asks about the other side (so a
  // recursive evaluator does not walk back through a recurrence for
  // nothing).
  const bool want = (used_inputs != nullptr);
  std::vector<Cindex> inputs1, inputs2;
  bool ok1 = src1_->IsComputable(index, cindex_set, want ? &inputs1 : nullptr);
  if (op_ == kSumOperation) {
    if (!ok1) return false;
    if (!src2_->IsComputable(index, cindex_set, want ? &inputs2 : nullptr))
      return false;
    if (want) {
      used_inputs->insert(used_inputs->end(), inputs1.begin(), inputs1.end());
      used_inputs->insert(used_inputs->end(), inputs2.begin(), inputs2.end());
    }
    return true;
  }
  if (ok1) {
    if (want)
      used_inputs->insert(used_inputs->end(), inputs1.begin(), inputs1.end());
    return true;
  }
  if (!src2_->IsComputable(index, cindex_set, want ? &inputs2 : nullptr))
    return false;
  if (want)
    used_inputs->insert(used_inputs->end(), inputs2.begin(), inputs2.end());
  return true;
}

int32 BinarySumDescriptor::Dim(const NodeDimFunction &node_dim) const {
  int32 dim1 = src1_->Dim(node_dim), dim2 = src2_->Dim(node_dim);
  if (dim1 != dim2)
    NNET3_ERR << (op_ == kSumOperation ? "Sum" : "Failover")
              << " expression with inconsistent dimension: " << dim1
              << " vs. " << dim2;
  return dim1;
}

std::unique_ptr<SumDescriptor> BinarySumDescriptor::Copy() const {
  return std::make_unique<BinarySumDescriptor>(op_, src1_->Copy(),
                                               src2_->Copy());
}

void BinarySumDescriptor::GetNodeDependencies(
    std::vector<int32> *node_indexes) const {
  src1_->GetNodeDependencies(node_indexes);
  src2_->GetNodeDependencies(node_indexes);
}

BaseFloat BinarySumDescriptor::GetScaleForNode(int32 node_index) const {
  BaseFloat ans1 = src1_->GetScaleForNode(node_index),
            ans2 = src2_->GetScaleForNode(node_index);
  bool valid1 = IsFinite(ans1), valid2 = IsFinite(ans2);
  if (node_index < 0) {  // asking for the constant term
    NNET3_ASSERT(valid1 && valid2);
    if (op_ == kSumOperation) return ans1 + ans2;
    if (ans1 != ans2)
      NNET3_ERR << "Illegal combination of Failover() and Const() in a "
                   "Descriptor (not supported)";
  }
  if (valid1 && valid2 && ans1 != ans2)
    NNET3_ERR << "Invalid Descriptor: node " << node_index
              << " appears with two different scales, " << ans1 << " vs. "
              << ans2 << " (unsupported combination of expressions)";
  return valid2 ? ans2 : ans1;
}

int32 BinarySumDescriptor::Modulus() const {
  return Lcm(src1_->Modulus(), src2_->Modulus());
}

void BinarySumDescriptor::WriteConfig(
    std::ostream &os, const std::vector<std::string> &node_names) const {
  os << (op_ == kSumOperation ? "Sum(" : "Failover(");
  src1_->WriteConfig(os, node_names);
  os << ", ";
  src2_->WriteConfig(os, node_names);
  os << ")";
}

// ---------------------------------------------------------------- Descriptor
Descriptor::Descriptor(std::vector<std::unique_ptr<SumDescriptor>> parts)
    : parts_(std::move(parts)) {
  for (const auto &p : parts_) NNET3_ASSERT(p != nullptr);
}

Descriptor::Descriptor(const Descriptor &other) {
  for (const auto &p : other.parts_) parts_.push_back(p->Copy());
}

Descriptor &Descriptor::operator=(const Descriptor &other) {
  if (this != &other) {
    std::vector<std::unique_ptr<SumDescriptor>> parts;
    for (const auto &p : other.parts_) parts.push_back(p->Copy());
    parts_.swap(parts);
  }
  return *this;
}

void Descriptor::Parse(const std::string &text,
                       const std::vector<std::string> &node_names) {
  std::string error;
  if (!ParseDescriptor(text, node_names, this, &error)) NNET3_ERR << error;
}

int32 Descriptor::Dim(const NodeDimFunction &node_dim) const {
  if (parts_.empty()) NNET3_ERR << "Dim() of an empty Descriptor";
  int32 dim = 0;
  for (const auto &p : parts_) dim += p->Dim(node_dim);
  return dim;
}

int32 Descriptor::Dim(const std::vector<int32> &node_dims) const {
  return Dim([&node_dims](int32 node) -> int32 {
    NNET3_ASSERT(node >= 0 && static_cast<size_t>(node) < node_dims.size());
    return node_dims[node];
  });
}

int32 Descriptor::Modulus() const {
  int32 ans = 1;
  for (const auto &p : parts_) ans = Lcm(ans, p->Modulus());
  return ans;
}

void Descriptor::GetDependencies(const Index &index,
                                 std::vector<Cindex> *dependencies) const {
  dependencies->clear();
  for (const auto &p : parts_) p->GetDependencies(index, dependencies);
}

bool Descriptor::IsComputable(const Index &index, const CindexSet &cindex_set,
                              std::vector<Cindex> *used_inputs) const {
  if (used_inputs != nullptr) used_inputs->clear();
  for (const auto &p : parts_) {
    if (!p->IsComputable(index, cindex_set, used_inputs)) {
      if (used_inputs != nullptr) used_inputs->clear();
      return false;
    }
  }
  return true;
}

void Descriptor::GetNodeDependencies(std::vector<int32> *node_indexes) const {
  node_indexes->clear();
  for (const auto &p : parts_) p->GetNodeDependencies(node_indexes);
}

void Descriptor::WriteConfig(std::ostream &os,
                             const std::vector<std::string> &node_names) const {
  NNET3_ASSERT(!parts_.empty());
  if (parts_.size() == 1) {
    parts_[0]->WriteConfig(os, node_names);
    return;
  }
  os << "Append(";
  for (size_t i = 0; i < parts_.size(); i++) {
    if (i > 0) os << ", ";
    parts_[i]->WriteConfig(os, node_names);
  }
  os << ")";
}

std::string Descriptor::ToString(
    const std::vector<std::string> &node_names) const {
  std::ostringstream os;
  WriteConfig(os, node_names);
  return os.str();
}

const SumDescriptor &Descriptor::Part(int32 n) const {
  NNET3_ASSERT(n >= 0 && static_cast<size_t>(n) < parts_.size());
  return *parts_[n];
}

}  // namespace nnet3
