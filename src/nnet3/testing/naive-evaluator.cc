// nnet3/testing/naive-evaluator.cc
// The reference evaluator: lazy, memoized computability and values per
// Cindex, and reverse-mode derivatives over the recorded evaluation order.
// See naive-evaluator.h for the definitions it implements.
#include "nnet3/testing/naive-evaluator.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "nnet3/components/normalize.h"

namespace nnet3 {

namespace {
// Deeper recursion than this means a recurrence with no IfDefined() (which
// can never be computed) or an absurdly long chain; both are errors.
const int32 kMaxDepth = 3000;

std::string CindexName(const Nnet &nnet, const Cindex &cindex) {
  std::ostringstream os;
  os << nnet.GetNodeName(cindex.first) << cindex.second;
  return os.str();
}

// Counts recursion depth for the lifetime of the object.
class DepthGuard {
 public:
  DepthGuard(int32 *depth, const Nnet &nnet, const Cindex &cindex)
      : depth_(depth) {
    if (++*depth_ > kMaxDepth) {
      --*depth_;
      NNET3_ERR << "NaiveEvaluator: recursion deeper than " << kMaxDepth
                << " at " << CindexName(nnet, cindex)
                << " (a recurrence that does not go through IfDefined()?)";
    }
  }
  ~DepthGuard() { --*depth_; }

 private:
  int32 *depth_;
};
}  // namespace

// "Computable Cindexes": asks the evaluator.
class NaiveEvaluator::AllCindexSet : public CindexSet {
 public:
  explicit AllCindexSet(NaiveEvaluator *e) : e_(e) {}
  bool operator()(const Cindex &c) const override { return e_->Computable(c); }

 private:
  NaiveEvaluator *e_;
};

// "Computable Indexes of one node".
class NaiveEvaluator::NodeIndexSet : public IndexSet {
 public:
  NodeIndexSet(NaiveEvaluator *e, int32 node) : e_(e), node_(node) {}
  bool operator()(const Index &index) const override {
    return e_->Computable(Cindex(node_, index));
  }

 private:
  NaiveEvaluator *e_;
  int32 node_;
};

NaiveEvaluator::NaiveEvaluator(const Nnet &nnet,
                               const ComputationRequest &request,
                               const std::vector<Matrix<BaseFloat>> &inputs)
    : nnet_(nnet), request_(request), inputs_(inputs) {
  if (inputs.size() != request.inputs.size())
    NNET3_ERR << "NaiveEvaluator: " << inputs.size() << " input matrices for "
              << request.inputs.size() << " request inputs";
  for (size_t i = 0; i < request.inputs.size(); i++) {
    const IoSpecification &io = request.inputs[i];
    int32 node = nnet.GetNodeIndex(io.name);
    if (node == -1 || !nnet.IsInputNode(node))
      NNET3_ERR << "NaiveEvaluator: the network has no input node named "
                << io.name;
    if (inputs[i].NumRows() != static_cast<int32>(io.indexes.size()) ||
        inputs[i].NumCols() != nnet.NodeDim(node))
      NNET3_ERR << "NaiveEvaluator: input " << io.name << " should be "
                << io.indexes.size() << " x " << nnet.NodeDim(node) << ", got "
                << inputs[i].NumRows() << " x " << inputs[i].NumCols();
    input_nodes_.push_back(node);
    for (size_t r = 0; r < io.indexes.size(); r++) {
      Cindex c(node, io.indexes[r]);
      if (!input_rows_
               .emplace(c, std::make_pair(static_cast<int32>(i),
                                          static_cast<int32>(r)))
               .second)
        NNET3_ERR << "NaiveEvaluator: input " << io.name << " lists Index "
                  << io.indexes[r] << " twice";
    }
  }
  for (const IoSpecification &io : request.outputs) {
    int32 node = nnet.GetNodeIndex(io.name);
    if (node == -1 || !nnet.IsOutputNode(node))
      NNET3_ERR << "NaiveEvaluator: the network has no output node named "
                << io.name;
    output_nodes_.push_back(node);
  }
  // Components must be deterministic.
  for (int32 c = 0; c < nnet.NumComponents(); c++) {
    const Component *comp = nnet.GetComponent(c);
    const RandomComponent *rc = dynamic_cast<const RandomComponent *>(comp);
    if (rc != nullptr && !rc->TestMode())
      NNET3_ERR << "NaiveEvaluator: component " << nnet.GetComponentName(c)
                << " is random and not in test mode";
    const BatchNormComponent *bn =
        dynamic_cast<const BatchNormComponent *>(comp);
    if (bn != nullptr && !bn->TestMode())
      NNET3_ERR << "NaiveEvaluator: component " << nnet.GetComponentName(c)
                << " is a BatchNormComponent not in test mode";
  }
}

NaiveEvaluator::~NaiveEvaluator() {
  for (auto &kv : info_) {
    if (kv.second->memo != nullptr) {
      const NetworkNode &node = nnet_.GetNode(kv.first.first);
      nnet_.GetComponent(node.component_index)->DeleteMemo(kv.second->memo);
    }
  }
}

NaiveEvaluator::CindexInfo &NaiveEvaluator::Info(const Cindex &cindex) {
  auto it = info_.find(cindex);
  NNET3_ASSERT(it != info_.end());
  return *it->second;
}

// ---- Computability ----------------------------------------------------------

bool NaiveEvaluator::Computable(const Cindex &cindex) {
  auto it = info_.find(cindex);
  if (it != info_.end()) {
    if (it->second->status == kInProgress)
      NNET3_ERR << "NaiveEvaluator: " << CindexName(nnet_, cindex)
                << " depends on itself (the network has a cycle that does "
                   "not go back in time)";
    return it->second->status == kComputable;
  }
  DepthGuard guard(&depth_, nnet_, cindex);
  CindexInfo *info = new CindexInfo;
  info_[cindex].reset(info);
  bool ans;
  try {
    ans = EvaluateComputable(cindex);
  } catch (...) {
    info_.erase(cindex);
    throw;
  }
  info->status = ans ? kComputable : kNotComputable;
  return ans;
}

bool NaiveEvaluator::SumComputable(const SumDescriptor &desc,
                                   const Index &index) {
  if (const BinarySumDescriptor *b =
          dynamic_cast<const BinarySumDescriptor *>(&desc)) {
    if (b->Op() == BinarySumDescriptor::kSumOperation)
      return SumComputable(b->Src1(), index) && SumComputable(b->Src2(), index);
    return SumComputable(b->Src1(), index) || SumComputable(b->Src2(), index);
  }
  if (dynamic_cast<const OptionalSumDescriptor *>(&desc) != nullptr)
    return true;  // IfDefined: what it uses is asked only for values
  if (dynamic_cast<const ConstantSumDescriptor *>(&desc) != nullptr)
    return true;
  if (const SimpleSumDescriptor *s =
          dynamic_cast<const SimpleSumDescriptor *>(&desc))
    return Computable(s->Src().MapToInput(index));
  // A kind this file does not know: the descriptor's own answer.
  AllCindexSet set(this);
  return desc.IsComputable(index, set, nullptr);
}

bool NaiveEvaluator::EvaluateComputable(const Cindex &cindex) {
  const NetworkNode &node = nnet_.GetNode(cindex.first);
  switch (node.node_type) {
    case kInput:
      return input_rows_.count(cindex) != 0;
    case kDescriptor:
      for (int32 p = 0; p < node.descriptor.NumParts(); p++)
        if (!SumComputable(node.descriptor.Part(p), cindex.second))
          return false;
      return true;
    case kComponent: {
      NodeIndexSet set(this, cindex.first - 1);
      MiscComputationInfo misc;
      return nnet_.GetComponent(node.component_index)
          ->IsComputable(misc, cindex.second, set, nullptr);
    }
    case kDimRange:
      return Computable(Cindex(node.node_index, cindex.second));
    case kNone:
      break;
  }
  NNET3_ERR << "NaiveEvaluator: node " << nnet_.GetNodeName(cindex.first)
            << " has no type";
  return false;
}

bool NaiveEvaluator::OutputIsComputable(int32 output_index, int32 row) {
  NNET3_ASSERT(output_index >= 0 &&
               output_index < static_cast<int32>(output_nodes_.size()));
  const std::vector<Index> &indexes = request_.outputs[output_index].indexes;
  NNET3_ASSERT(row >= 0 && row < static_cast<int32>(indexes.size()));
  return Computable(Cindex(output_nodes_[output_index], indexes[row]));
}

// ---- Values -----------------------------------------------------------------

const Matrix<BaseFloat> &NaiveEvaluator::Value(const Cindex &cindex) {
  if (!Computable(cindex))
    NNET3_ERR << "NaiveEvaluator: " << CindexName(nnet_, cindex)
              << " is not computable";
  CindexInfo &info = Info(cindex);
  if (info.has_value) return info.value;
  if (info.value_in_progress)
    NNET3_ERR << "NaiveEvaluator: the value of " << CindexName(nnet_, cindex)
              << " depends on itself";
  DepthGuard guard(&depth_, nnet_, cindex);
  info.value_in_progress = true;
  ComputeValue(cindex, &info);
  info.value_in_progress = false;
  info.has_value = true;
  order_.push_back(cindex);
  return info.value;
}

void NaiveEvaluator::ComputeValue(const Cindex &cindex, CindexInfo *info) {
  const NetworkNode &node = nnet_.GetNode(cindex.first);
  const int32 dim = nnet_.NodeDim(cindex.first);
  info->value.Resize(1, dim, kSetZero, kStrideEqualNumCols);
  switch (node.node_type) {
    case kInput: {
      const std::pair<int32, int32> &where = input_rows_.at(cindex);
      info->value.Row(0).CopyFromVec(inputs_[where.first].Row(where.second));
      return;
    }
    case kDescriptor: {
      const Descriptor &desc = node.descriptor;
      AllCindexSet set(this);
      info->part_inputs.resize(desc.NumParts());
      int32 offset = 0;
      for (int32 p = 0; p < desc.NumParts(); p++) {
        const SumDescriptor &part = desc.Part(p);
        int32 part_dim = part.Dim([this](int32 n) { return nnet_.NodeDim(n); });
        std::vector<Cindex> &used = info->part_inputs[p];
        // The descriptor's own answer must agree with the lazy one.
        bool ok = part.IsComputable(cindex.second, set, &used);
        NNET3_ASSERT(ok);
        SubMatrix<BaseFloat> out = info->value.ColRange(offset, part_dim);
        BaseFloat constant = part.GetScaleForNode(-1);
        if (constant != 0.0) out.Add(constant);
        for (const Cindex &in : used) {
          BaseFloat scale = part.GetScaleForNode(in.first);
          NNET3_ASSERT(std::isfinite(scale));
          const Matrix<BaseFloat> &v = Value(in);
          NNET3_ASSERT(v.NumCols() == part_dim);
          out.AddMat(scale, v);
        }
        offset += part_dim;
      }
      NNET3_ASSERT(offset == dim);
      return;
    }
    case kComponent: {
      const Component *c = nnet_.GetComponent(node.component_index);
      MiscComputationInfo misc;
      NodeIndexSet set(this, cindex.first - 1);
      std::vector<Index> used;
      bool ok = c->IsComputable(misc, cindex.second, set, &used);
      NNET3_ASSERT(ok);
      std::sort(used.begin(), used.end());
      used.erase(std::unique(used.begin(), used.end()), used.end());
      info->step_inputs = used;
      info->step_outputs.assign(1, cindex.second);
      if (c->Properties() & kReordersIndexes)
        c->ReorderIndexes(&info->step_inputs, &info->step_outputs);
      int32 num_in = static_cast<int32>(info->step_inputs.size()),
            num_out = static_cast<int32>(info->step_outputs.size());
      info->step_in.Resize(num_in, c->InputDim(), kSetZero,
                           kStrideEqualNumCols);
      for (int32 r = 0; r < num_in; r++) {
        const Index &index = info->step_inputs[r];
        if (index.t == kNoTime) continue;  // blank padding row: zero
        info->step_in.Row(r).CopyFromVec(
            Value(Cindex(cindex.first - 1, index)).Row(0));
      }
      info->out_row = -1;
      for (int32 r = 0; r < num_out; r++)
        if (info->step_outputs[r] == cindex.second) info->out_row = r;
      NNET3_ASSERT(info->out_row >= 0 && "ReorderIndexes lost the output");
      info->indexes.reset(c->PrecomputeIndexes(misc, info->step_inputs,
                                               info->step_outputs, true));
      info->step_out.Resize(num_out, c->OutputDim(), kSetZero,
                            kStrideEqualNumCols);
      info->memo =
          c->Propagate(info->indexes.get(), info->step_in, &info->step_out);
      SubVector<BaseFloat> value_row(info->value, 0);
      info->step_out.Row(info->out_row).CopyToVec(&value_row);
      return;
    }
    case kDimRange: {
      const Matrix<BaseFloat> &src =
          Value(Cindex(node.node_index, cindex.second));
      info->value.CopyFromMat(src.ColRange(node.dim_offset, node.dim));
      return;
    }
    case kNone:
      break;
  }
  NNET3_ASSERT(false);
}

void NaiveEvaluator::GetOutput(int32 output_index, Matrix<BaseFloat> *out) {
  NNET3_ASSERT(output_index >= 0 &&
               output_index < static_cast<int32>(output_nodes_.size()));
  const int32 node = output_nodes_[output_index];
  const std::vector<Index> &indexes = request_.outputs[output_index].indexes;
  out->Resize(static_cast<int32>(indexes.size()), nnet_.NodeDim(node),
              kSetZero);
  // Rows in order of time: a recurrence then finds the previous frame
  // already computed, which keeps the recursion shallow.
  std::vector<size_t> rows(indexes.size());
  for (size_t r = 0; r < rows.size(); r++) rows[r] = r;
  std::stable_sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
    return indexes[a].t < indexes[b].t;
  });
  for (size_t r : rows) {
    Cindex c(node, indexes[r]);
    if (!Computable(c))
      NNET3_ERR << "NaiveEvaluator: output " << nnet_.GetNodeName(node)
                << " is not computable at Index " << indexes[r]
                << " from the inputs given";
    out->Row(static_cast<int32>(r)).CopyFromVec(Value(c).Row(0));
  }
}

void NaiveEvaluator::GetUsedInputs(std::vector<Cindex> *used) const {
  used->clear();
  for (const Cindex &c : order_)
    if (nnet_.IsInputNode(c.first)) used->push_back(c);
}

// ---- Derivatives ------------------------------------------------------------

void NaiveEvaluator::Backward(
    const std::vector<Matrix<BaseFloat>> &output_derivs,
    std::vector<Matrix<BaseFloat>> *input_derivs, Nnet *gradient) {
  if (output_derivs.size() != output_nodes_.size())
    NNET3_ERR << "NaiveEvaluator::Backward: " << output_derivs.size()
              << " derivative matrices for " << output_nodes_.size()
              << " outputs";
  if (gradient != nullptr && gradient->NumComponents() != nnet_.NumComponents())
    NNET3_ERR << "NaiveEvaluator::Backward: the gradient network has "
              << gradient->NumComponents() << " components, expected "
              << nnet_.NumComponents();
  // Forward first (everything the outputs need).
  {
    Matrix<BaseFloat> tmp;
    for (size_t o = 0; o < output_nodes_.size(); o++)
      GetOutput(static_cast<int32>(o), &tmp);
  }
  std::unordered_map<Cindex, Matrix<BaseFloat>, CindexHasher> deriv;
  auto deriv_of = [&](const Cindex &c) -> Matrix<BaseFloat> & {
    auto it = deriv.find(c);
    if (it != deriv.end()) return it->second;
    Matrix<BaseFloat> &m = deriv[c];
    m.Resize(1, nnet_.NodeDim(c.first), kSetZero, kStrideEqualNumCols);
    return m;
  };
  for (size_t o = 0; o < output_nodes_.size(); o++) {
    const std::vector<Index> &indexes = request_.outputs[o].indexes;
    const Matrix<BaseFloat> &d = output_derivs[o];
    if (d.NumRows() != static_cast<int32>(indexes.size()) ||
        d.NumCols() != nnet_.NodeDim(output_nodes_[o]))
      NNET3_ERR << "NaiveEvaluator::Backward: derivative for output "
                << request_.outputs[o].name << " has the wrong size";
    for (size_t r = 0; r < indexes.size(); r++)
      deriv_of(Cindex(output_nodes_[o], indexes[r]))
          .Row(0)
          .AddVec(1.0, d.Row(static_cast<int32>(r)));
  }
  // Reverse evaluation order: each Cindex after everything that read it.
  for (auto it = order_.rbegin(); it != order_.rend(); ++it) {
    const Cindex &c = *it;
    auto d_it = deriv.find(c);
    if (d_it == deriv.end()) continue;  // nothing depends on it
    // References into an unordered_map survive insertions, and nothing
    // below adds to c itself (no Cindex depends on itself).
    const Matrix<BaseFloat> &d = d_it->second;
    const NetworkNode &node = nnet_.GetNode(c.first);
    CindexInfo &info = Info(c);
    switch (node.node_type) {
      case kInput:
        break;
      case kDescriptor: {
        int32 offset = 0;
        for (int32 p = 0; p < node.descriptor.NumParts(); p++) {
          const SumDescriptor &part = node.descriptor.Part(p);
          int32 part_dim =
              part.Dim([this](int32 n) { return nnet_.NodeDim(n); });
          SubMatrix<BaseFloat> part_deriv = d.ColRange(offset, part_dim);
          for (const Cindex &in : info.part_inputs[p])
            deriv_of(in).AddMat(part.GetScaleForNode(in.first), part_deriv);
          offset += part_dim;
        }
        break;
      }
      case kComponent: {
        const int32 ci = node.component_index;
        const Component *comp = nnet_.GetComponent(ci);
        int32 num_in = static_cast<int32>(info.step_inputs.size());
        CuMatrix<BaseFloat> out_deriv(info.step_out.NumRows(),
                                      comp->OutputDim(), kSetZero,
                                      kStrideEqualNumCols);
        out_deriv.Row(info.out_row).CopyFromVec(d.Row(0));
        CuMatrix<BaseFloat> cu_in_deriv(num_in, comp->InputDim(), kSetZero,
                                        kStrideEqualNumCols);
        Component *to_update = nullptr;
        if (gradient != nullptr && (comp->Properties() & kUpdatableComponent))
          to_update = gradient->GetComponent(ci);
        comp->Backprop(nnet_.GetNodeName(c.first), info.indexes.get(),
                       info.step_in, info.step_out, out_deriv, info.memo,
                       to_update, &cu_in_deriv);
        Matrix<BaseFloat> in_deriv(num_in, comp->InputDim(), kUndefined);
        cu_in_deriv.CopyToMat(&in_deriv);
        for (int32 r = 0; r < num_in; r++) {
          if (info.step_inputs[r].t == kNoTime) continue;
          deriv_of(Cindex(c.first - 1, info.step_inputs[r]))
              .Row(0)
              .AddVec(1.0, in_deriv.Row(r));
        }
        break;
      }
      case kDimRange: {
        Cindex src(node.node_index, c.second);
        deriv_of(src).ColRange(node.dim_offset, node.dim).AddMat(1.0, d);
        break;
      }
      case kNone:
        NNET3_ASSERT(false);
    }
  }
  input_derivs->resize(request_.inputs.size());
  for (size_t i = 0; i < request_.inputs.size(); i++) {
    const std::vector<Index> &indexes = request_.inputs[i].indexes;
    Matrix<BaseFloat> &m = (*input_derivs)[i];
    m.Resize(static_cast<int32>(indexes.size()), nnet_.NodeDim(input_nodes_[i]),
             kSetZero);
    for (size_t r = 0; r < indexes.size(); r++) {
      auto d_it = deriv.find(Cindex(input_nodes_[i], indexes[r]));
      if (d_it != deriv.end())
        m.Row(static_cast<int32>(r)).CopyFromVec(d_it->second.Row(0));
    }
  }
}

}  // namespace nnet3
