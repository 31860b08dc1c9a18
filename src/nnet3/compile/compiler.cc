// nnet3/compile/compiler.cc
// Graph -> steps -> step matrices -> commands. See compiler.h for the shape
// of the computation produced. Descriptor commands are in
// compiler-descriptor.cc.
#include "nnet3/compile/compiler.h"

#include <algorithm>
#include <sstream>

#include "base/log.h"
#include "nnet3/compile/computation-steps.h"

namespace nnet3 {

void CompilerOptions::Register(OptionsItf *opts) {
  opts->Register("output-debug-info", &output_debug_info,
                 "If true, record which Cindexes each matrix holds "
                 "(shown when computations are printed)");
}

Compiler::Compiler(const ComputationRequest &request, const Nnet &nnet)
    : request_(request), nnet_(nnet) {}

void Compiler::CreateComputation(const CompilerOptions &opts,
                                 NnetComputation *computation) {
  computation->Clear();
  ComputationGraphBuilder builder(nnet_, &graph_);
  builder.Compute(request_);
  if (!builder.AllOutputsAreComputable())
    NNET3_ERR << "Not all outputs were computable, cannot create the "
              << "computation: " << builder.ExplainWhyAllOutputsNotComputable();
  builder.Prune();

  std::vector<std::vector<int32> > phases, steps;
  ComputeComputationPhases(nnet_, graph_, &phases);
  ComputeComputationSteps(nnet_, request_, phases, &graph_, &steps,
                          &cindex_id_to_location_);
  ComputeDerivNeeded(steps, &deriv_needed_);
  CreateStepInfo(deriv_needed_, &steps, computation);
  AddCommands(computation);
  if (opts.output_debug_info) SetDebugInfo(computation);
}

void Compiler::ComputeStepDependencies(const std::vector<int32> &this_step,
                                       std::vector<int32> *dep_steps) const {
  dep_steps->clear();
  for (int32 c : this_step)
    for (int32 d : graph_.dependencies[c])
      dep_steps->push_back(cindex_id_to_location_[d].first);
  std::sort(dep_steps->begin(), dep_steps->end());
  dep_steps->erase(std::unique(dep_steps->begin(), dep_steps->end()),
                   dep_steps->end());
}

void Compiler::ComputeDerivNeeded(const std::vector<std::vector<int32> > &steps,
                                  std::vector<bool> *deriv_needed) const {
  int32 num_steps = static_cast<int32>(steps.size());
  deriv_needed->assign(num_steps, false);
  std::vector<int32> dep_steps;
  for (int32 step = 0; step < num_steps; step++) {
    const std::vector<int32> &this_step = steps[step];
    if (this_step.empty()) continue;
    int32 node_index = graph_.cindexes[this_step[0]].first;
    const std::string &name = nnet_.GetNodeName(node_index);
    // Derivatives flow from anything that needs them to what uses it.
    ComputeStepDependencies(this_step, &dep_steps);
    for (int32 d : dep_steps) {
      NNET3_ASSERT(d < step);
      if ((*deriv_needed)[d]) (*deriv_needed)[step] = true;
    }
    if (nnet_.IsInputNode(node_index)) {
      int32 i = request_.IndexForInput(name);
      if (i != -1 && request_.inputs[i].has_deriv) (*deriv_needed)[step] = true;
    }
    if (nnet_.IsOutputNode(node_index)) {
      int32 i = request_.IndexForOutput(name);
      if (i != -1 && request_.outputs[i].has_deriv)
        (*deriv_needed)[step] = true;
    }
    if (nnet_.IsComponentNode(node_index) && request_.need_model_derivative) {
      const Component *c =
          nnet_.GetComponent(nnet_.GetNode(node_index).component_index);
      if (c->Properties() & kUpdatableComponent) {
        const UpdatableComponent *u =
            dynamic_cast<const UpdatableComponent *>(c);
        NNET3_ASSERT(u != nullptr);
        if (u->LearningRate() != 0.0) (*deriv_needed)[step] = true;
      }
    }
  }
}

void Compiler::CreateStepInfo(const std::vector<bool> &deriv_needed,
                              std::vector<std::vector<int32> > *steps,
                              NnetComputation *computation) {
  int32 num_steps = static_cast<int32>(steps->size());
  steps_.clear();
  steps_.resize(num_steps);
  for (int32 step = 0; step < num_steps; step++) {
    StepInfo &info = steps_[step];
    info.output_cindex_ids.swap((*steps)[step]);
    if (info.output_cindex_ids.empty()) {
      // The input step of a component that needs no input rows (e.g.
      // ConstantComponent): a step with no matrix and no commands;
      // the component's propagate gets the empty submatrix 0 as input.
      NNET3_ASSERT(step + 1 < num_steps && !(*steps)[step + 1].empty());
      info.node_index = graph_.cindexes[(*steps)[step + 1][0]].first - 1;
      NNET3_ASSERT(nnet_.IsComponentInputNode(info.node_index));
      continue;
    }
    int32 num_rows = static_cast<int32>(info.output_cindex_ids.size());
    info.output_indexes.resize(num_rows);
    for (int32 r = 0; r < num_rows; r++)
      info.output_indexes[r] = graph_.cindexes[info.output_cindex_ids[r]].second;
    int32 node_index = graph_.cindexes[info.output_cindex_ids[0]].first;
    info.node_index = node_index;
    const NetworkNode &node = nnet_.GetNode(node_index);
    int32 dim = nnet_.NodeDim(node_index);
    if (node.node_type == kDimRange) {
      // Rule (c): the source step has the same rows, in the same order.
      int32 src = graph_.GetCindexId(
          Cindex(node.node_index, info.output_indexes[0]));
      NNET3_ASSERT(src != -1);
      int32 src_step = cindex_id_to_location_[src].first;
      const StepInfo &src_info = steps_[src_step];
      NNET3_ASSERT(cindex_id_to_location_[src].second == 0 &&
                   src_info.output_indexes == info.output_indexes);
      info.value = computation->NewSubMatrix(src_info.value, 0, -1,
                                             node.dim_offset, dim);
      if (deriv_needed[step]) {
        NNET3_ASSERT(src_info.deriv != 0);
        info.deriv = computation->NewSubMatrix(src_info.deriv, 0, -1,
                                               node.dim_offset, dim);
      }
    } else {
      MatrixStrideType stride = kDefaultStride;
      if (node.node_type == kComponent) {
        int32 props = nnet_.GetComponent(node.component_index)->Properties();
        if (props & kOutputContiguous) stride = kStrideEqualNumCols;
      } else if (step + 1 < num_steps && node_index + 1 < nnet_.NumNodes() &&
                 nnet_.IsComponentNode(node_index + 1) &&
                 node.node_type == kDescriptor &&
                 !nnet_.IsOutputNode(node_index)) {
        int32 props = nnet_.GetComponent(
            nnet_.GetNode(node_index + 1).component_index)->Properties();
        if (props & kInputContiguous) stride = kStrideEqualNumCols;
      }
      info.value = computation->NewMatrix(num_rows, dim, stride);
      if (deriv_needed[step])
        info.deriv = computation->NewMatrix(num_rows, dim, stride);
    }
    if (node.node_type == kComponent) ComputePrecomputedIndexes(step, computation);
    if (node.node_type == kDescriptor) {
      int32 num_parts = node.descriptor.NumParts();
      if (num_parts == 1) {
        info.value_parts.assign(1, info.value);
        if (info.deriv) info.deriv_parts.assign(1, info.deriv);
      } else {
        int32 offset = 0;
        for (int32 p = 0; p < num_parts; p++) {
          int32 part_dim = node.descriptor.Part(p).Dim(
              [this](int32 n) { return nnet_.NodeDim(n); });
          info.value_parts.push_back(
              computation->NewSubMatrix(info.value, 0, -1, offset, part_dim));
          if (info.deriv)
            info.deriv_parts.push_back(computation->NewSubMatrix(
                info.deriv, 0, -1, offset, part_dim));
          offset += part_dim;
        }
        NNET3_ASSERT(offset == dim);
      }
      info.input_locations_list.resize(num_parts);
      for (int32 p = 0; p < num_parts; p++)
        ComputeInputLocationsList(step, p, &info.input_locations_list[p]);
    }
  }
}

void Compiler::ComputePrecomputedIndexes(int32 step,
                                         NnetComputation *computation) {
  NNET3_ASSERT(step > 0);
  StepInfo &info = steps_[step];
  const StepInfo &input_info = steps_[step - 1];
  const Component *c =
      nnet_.GetComponent(nnet_.GetNode(info.node_index).component_index);
  bool need_backprop = info.deriv != 0;
  ComponentPrecomputedIndexes *data =
      c->PrecomputeIndexes(request_.misc_info, input_info.output_indexes,
                           info.output_indexes, need_backprop);
  if (data == nullptr) return;
  std::vector<NnetComputation::PrecomputedIndexesInfo> &v =
      computation->component_precomputed_indexes;
  if (v.empty()) v.emplace_back();  // entry 0 stands for "none"
  v.emplace_back();
  v.back().data = data;
  v.back().input_indexes = input_info.output_indexes;
  v.back().output_indexes = info.output_indexes;
  info.precomputed_indexes_index = static_cast<int32>(v.size()) - 1;
}

namespace {
// The Cindexes a pruned graph says one cindex_id is computed from: after
// pruning these are exactly the inputs used, so asking a descriptor what is
// computable from them gives back its own choice (Failover branch, present
// optional inputs).
class DependencySet : public CindexSet {
 public:
  DependencySet(const ComputationGraph &graph, int32 cindex_id)
      : graph_(graph), deps_(graph.dependencies[cindex_id]) {}
  bool operator()(const Cindex &cindex) const override {
    int32 id = graph_.GetCindexId(cindex);
    return id != -1 && std::binary_search(deps_.begin(), deps_.end(), id);
  }

 private:
  const ComputationGraph &graph_;
  const std::vector<int32> &deps_;
};
}  // namespace

void Compiler::ComputeInputLocationsList(int32 step, int32 part,
                                         LocationsList *locations_list) const {
  const StepInfo &info = steps_[step];
  const SumDescriptor &descriptor =
      nnet_.GetNode(info.node_index).descriptor.Part(part);
  int32 num_rows = static_cast<int32>(info.output_indexes.size());
  locations_list->assign(num_rows, std::vector<std::pair<int32, int32> >());
  std::vector<Cindex> used;
  for (int32 r = 0; r < num_rows; r++) {
    // Blank rows (padding of a non-simple component's input) stay zero.
    if (info.output_indexes[r].t == kNoTime) continue;
    int32 cindex_id = info.output_cindex_ids[r];
    used.clear();
    bool ok = descriptor.IsComputable(info.output_indexes[r],
                                      DependencySet(graph_, cindex_id), &used);
    NNET3_ASSERT(ok && "descriptor input no longer computable");
    for (const Cindex &u : used) {
      int32 id = graph_.GetCindexId(u);
      NNET3_ASSERT(id != -1);
      (*locations_list)[r].push_back(cindex_id_to_location_[id]);
    }
  }
}

void Compiler::SetDebugInfo(NnetComputation *computation) const {
  int32 num_matrices = static_cast<int32>(computation->matrices.size());
  computation->matrix_debug_info.assign(num_matrices,
                                        NnetComputation::MatrixDebugInfo());
  for (const StepInfo &info : steps_) {
    if (nnet_.IsDimRangeNode(info.node_index)) continue;
    std::vector<Cindex> cindexes;
    for (int32 c : info.output_cindex_ids) cindexes.push_back(graph_.cindexes[c]);
    int32 m = computation->submatrices[info.value].matrix_index;
    computation->matrix_debug_info[m].cindexes = cindexes;
    if (info.deriv) {
      int32 d = computation->submatrices[info.deriv].matrix_index;
      computation->matrix_debug_info[d].cindexes = cindexes;
      computation->matrix_debug_info[d].is_deriv = true;
    }
  }
}

void Compiler::AddPropagateStep(int32 step,
                                NnetComputation *computation) const {
  NNET3_ASSERT(step > 0);
  const StepInfo &info = steps_[step], &input_info = steps_[step - 1];
  const NetworkNode &node = nnet_.GetNode(info.node_index);
  NNET3_ASSERT(input_info.node_index == info.node_index - 1);
  const Component *c = nnet_.GetComponent(node.component_index);
  int32 props = c->Properties();
  int32 memo_index = (info.deriv > 0 && (props & kUsesMemo)) ? step : 0;
  int32 store_stats =
      (request_.store_component_stats && (props & kStoresStats)) ? 1 : 0;
  computation->commands.push_back(NnetComputation::Command(
      kPropagate, node.component_index, info.precomputed_indexes_index,
      input_info.value, info.value, memo_index, store_stats));
}

void Compiler::AddBackpropStep(int32 step,
                               NnetComputation *computation) const {
  const StepInfo &info = steps_[step], &input_info = steps_[step - 1];
  const NetworkNode &node = nnet_.GetNode(info.node_index);
  const Component *c = nnet_.GetComponent(node.component_index);
  int32 props = c->Properties();
  bool update = false;
  if (request_.need_model_derivative && (props & kUpdatableComponent)) {
    const UpdatableComponent *u = dynamic_cast<const UpdatableComponent *>(c);
    update = (u != nullptr && u->LearningRate() != 0.0);
  }
  if (input_info.deriv == 0 && !update) return;  // nothing to compute
  NNET3_ASSERT(info.deriv != 0);
  int32 memo_index = (props & kUsesMemo) ? step : 0;
  int32 in_value = (props & kBackpropNeedsInput) ? input_info.value : 0;
  int32 out_value = (props & kBackpropNeedsOutput) ? info.value : 0;
  computation->commands.push_back(NnetComputation::Command(
      update ? kBackprop : kBackpropNoModelUpdate, node.component_index,
      info.precomputed_indexes_index, in_value, out_value, info.deriv,
      input_info.deriv, memo_index));
}

void Compiler::AddCommands(NnetComputation *computation) {
  computation->need_model_derivative = request_.need_model_derivative;
  int32 num_steps = static_cast<int32>(steps_.size());
  std::vector<int32> whole;
  computation->GetWholeSubmatrices(&whole);
  std::vector<NnetComputation::Command> &cmds = computation->commands;

  // Which matrices the user supplies (input values, output derivatives) and
  // which are given back (output values, input derivatives).
  int32 num_matrices = static_cast<int32>(computation->matrices.size());
  std::vector<bool> supplied(num_matrices, false), given(num_matrices, false);
  for (const StepInfo &info : steps_) {
    int32 node = info.node_index;
    int32 vm = computation->submatrices[info.value].matrix_index;
    int32 dm = info.deriv ? computation->submatrices[info.deriv].matrix_index
                          : 0;
    if (nnet_.IsInputNode(node)) {
      supplied[vm] = true;
      if (dm) given[dm] = true;
    } else if (nnet_.IsOutputNode(node)) {
      given[vm] = true;
      int32 i = request_.IndexForOutput(nnet_.GetNodeName(node));
      if (dm && request_.outputs[i].has_deriv) supplied[dm] = true;
    }
  }
  // Allocation leaves a matrix undefined; each is then zeroed (the
  // optimizer removes zeroing that nothing reads).
  for (int32 m = 1; m < num_matrices; m++) {
    if (supplied[m]) continue;
    cmds.push_back(NnetComputation::Command(kAllocMatrix, whole[m]));
    cmds.push_back(NnetComputation::Command(0.0, kSetConst, whole[m]));
  }

  // Forward: inputs first, in request order (their steps come first).
  for (int32 step = 0; step < num_steps; step++)
    if (nnet_.IsInputNode(steps_[step].node_index))
      cmds.push_back(NnetComputation::Command(kAcceptInput, steps_[step].value,
                                              steps_[step].node_index));
  for (int32 step = 0; step < num_steps; step++) {
    const StepInfo &info = steps_[step];
    switch (nnet_.GetNode(info.node_index).node_type) {
      case kInput:
      case kDimRange:
        break;
      case kDescriptor:
        if (info.value != 0) CompileForwardDescriptor(step, computation);
        break;
      case kComponent:
        AddPropagateStep(step, computation);
        break;
      default:
        NNET3_ASSERT(false && "invalid node type");
    }
  }
  for (int32 step = 0; step < num_steps; step++)
    if (nnet_.IsOutputNode(steps_[step].node_index))
      cmds.push_back(NnetComputation::Command(
          kProvideOutput, steps_[step].value, steps_[step].node_index));
  cmds.push_back(NnetComputation::Command(kNoOperationMarker));

  // Backward.
  for (int32 step = 0; step < num_steps; step++) {
    const StepInfo &info = steps_[step];
    if (!nnet_.IsOutputNode(info.node_index) || info.deriv == 0) continue;
    int32 dm = computation->submatrices[info.deriv].matrix_index;
    if (supplied[dm])
      cmds.push_back(NnetComputation::Command(kAcceptInput, info.deriv,
                                              info.node_index));
  }
  for (int32 step = num_steps - 1; step >= 0; step--) {
    const StepInfo &info = steps_[step];
    if (!deriv_needed_[step]) continue;
    switch (nnet_.GetNode(info.node_index).node_type) {
      case kInput:
      case kDimRange:
        break;
      case kDescriptor:
        CompileBackwardDescriptor(step, computation);
        break;
      case kComponent:
        AddBackpropStep(step, computation);
        break;
      default:
        NNET3_ASSERT(false && "invalid node type");
    }
  }
  for (int32 step = 0; step < num_steps; step++) {
    const StepInfo &info = steps_[step];
    if (nnet_.IsInputNode(info.node_index) && info.deriv != 0) {
      int32 i = request_.IndexForInput(nnet_.GetNodeName(info.node_index));
      if (request_.inputs[i].has_deriv)
        cmds.push_back(NnetComputation::Command(kProvideOutput, info.deriv,
                                                info.node_index));
    }
  }
  for (int32 m = 1; m < num_matrices; m++)
    if (!given[m]) cmds.push_back(NnetComputation::Command(kDeallocMatrix, whole[m]));
}

void CompileComputation(const Nnet &nnet, const ComputationRequest &request,
                        const CompilerOptions &opts,
                        NnetComputation *computation) {
  Compiler compiler(request, nnet);
  compiler.CreateComputation(opts, computation);
}

}  // namespace nnet3
