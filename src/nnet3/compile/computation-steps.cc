// nnet3/compile/computation-steps.cc
// Phases (by epoch, then depth inside the epoch) and steps (rules a, b, c
// of computation-steps.h).
#include "nnet3/compile/computation-steps.h"

#include <algorithm>

#include "base/log.h"
#include "nnet3/compile/graph.h"

namespace nnet3 {

void ComputeComputationPhases(const Nnet &nnet, const ComputationGraph &graph,
                              std::vector<std::vector<int32> > *phases) {
  std::vector<int32> node_to_epoch;
  ComputeNnetComputationEpochs(nnet, &node_to_epoch);
  int32 num_epochs = 0;
  for (int32 e : node_to_epoch) num_epochs = std::max(num_epochs, e + 1);
  int32 num_cindexes = static_cast<int32>(graph.cindexes.size());
  std::vector<std::vector<int32> > by_epoch(num_epochs);
  for (int32 c = 0; c < num_cindexes; c++)
    by_epoch[node_to_epoch[graph.cindexes[c].first]].push_back(c);

  phases->clear();
  std::vector<int32> depth(num_cindexes, -1);
  std::vector<int32> pending(num_cindexes, 0);
  std::vector<std::vector<int32> > users(num_cindexes);
  for (int32 e = 0; e < num_epochs; e++) {
    const std::vector<int32> &members = by_epoch[e];
    if (members.empty()) continue;
    // Kahn's algorithm over the dependencies that stay inside the epoch;
    // a Cindex's depth is one more than its deepest such dependency.
    std::vector<int32> ready;
    for (int32 c : members) {
      for (int32 d : graph.dependencies[c]) {
        if (node_to_epoch[graph.cindexes[d].first] == e) {
          pending[c]++;
          users[d].push_back(c);
        }
      }
      if (pending[c] == 0) {
        depth[c] = 0;
        ready.push_back(c);
      }
    }
    int32 max_depth = 0, num_done = 0;
    while (!ready.empty()) {
      int32 c = ready.back();
      ready.pop_back();
      num_done++;
      max_depth = std::max(max_depth, depth[c]);
      for (int32 u : users[c]) {
        depth[u] = std::max(depth[u], depth[c] + 1);
        if (--pending[u] == 0) ready.push_back(u);
      }
    }
    NNET3_ASSERT(num_done == static_cast<int32>(members.size()) &&
                 "cycle in the computation graph");
    size_t first = phases->size();
    phases->resize(first + max_depth + 1);
    for (int32 c : members) (*phases)[first + depth[c]].push_back(c);
  }
  for (auto &phase : *phases) {
    std::sort(phase.begin(), phase.end(), [&graph](int32 a, int32 b) {
      return graph.cindexes[a] < graph.cindexes[b];
    });
  }
}

namespace {

class StepsComputer {
 public:
  StepsComputer(const Nnet &nnet, const ComputationRequest &request,
                ComputationGraph *graph,
                std::vector<std::vector<int32> > *steps,
                std::vector<std::pair<int32, int32> > *locations)
      : nnet_(nnet), request_(request), graph_(graph), steps_(steps),
        locations_(locations) {
    steps_->clear();
    locations_->assign(graph_->cindexes.size(), std::make_pair(-1, -1));
  }

  void ProcessPhase(const std::vector<int32> &phase) {
    size_t i = 0;
    while (i < phase.size()) {
      int32 node = graph_->cindexes[phase[i]].first;
      size_t j = i;
      while (j < phase.size() && graph_->cindexes[phase[j]].first == node) j++;
      std::vector<int32> sub_phase(phase.begin() + i, phase.begin() + j);
      ProcessSubPhase(node, sub_phase);
      i = j;
    }
  }

  void Check() const {
    NNET3_ASSERT(locations_->size() == graph_->cindexes.size());
    for (size_t c = 0; c < locations_->size(); c++)
      NNET3_ASSERT((*locations_)[c].first >= 0 &&
                   "a Cindex was not assigned to any step");
  }

 private:
  // Blank Cindexes (t == kNoTime, padding inserted by ReorderIndexes) may
  // appear more than once; the last place they appear is their location.
  void AddStep(const std::vector<int32> &cindex_ids) {
    int32 step = static_cast<int32>(steps_->size());
    for (size_t r = 0; r < cindex_ids.size(); r++) {
      int32 c = cindex_ids[r];
      if (c >= static_cast<int32>(locations_->size()))
        locations_->resize(c + 1, std::make_pair(-1, -1));
      NNET3_ASSERT(((*locations_)[c].first == -1 ||
                    graph_->cindexes[c].second.t == kNoTime) &&
                   "a Cindex appears in two steps");
      (*locations_)[c] = std::make_pair(step, static_cast<int32>(r));
    }
    steps_->push_back(cindex_ids);
  }

  // cindex_ids of (node, indexes[i]); Cindexes the graph does not have (the
  // blanks of ReorderIndexes) are added with no dependencies.
  std::vector<int32> IdsOrAdd(int32 node, const std::vector<Index> &indexes) {
    std::vector<int32> ids(indexes.size());
    for (size_t i = 0; i < indexes.size(); i++) {
      bool is_new = false;
      ids[i] = graph_->GetCindexId(Cindex(node, indexes[i]), false, &is_new);
      NNET3_ASSERT((!is_new || indexes[i].t == kNoTime) &&
                   "ReorderIndexes added an Index that is not blank");
    }
    return ids;
  }

  int32 IdOf(const Cindex &cindex) const {
    int32 id = graph_->GetCindexId(cindex);
    NNET3_ASSERT(id != -1);
    return id;
  }

  void ProcessSubPhase(int32 node, const std::vector<int32> &sub_phase) {
    switch (nnet_.GetNode(node).node_type) {
      case kInput:
        ProcessIo(node, false, sub_phase.size());
        break;
      case kDescriptor:
        // Component-input descriptors are done with their component.
        if (nnet_.IsOutputNode(node)) ProcessIo(node, true, sub_phase.size());
        break;
      case kComponent:
        ProcessComponent(node, sub_phase);
        break;
      case kDimRange:
        ProcessDimRange(node, sub_phase);
        break;
      default:
        NNET3_ASSERT(false && "invalid node type");
    }
  }

  void ProcessIo(int32 node, bool is_output, size_t sub_phase_size) {
    const std::string &name = nnet_.GetNodeName(node);
    int32 i = is_output ? request_.IndexForOutput(name)
                        : request_.IndexForInput(name);
    NNET3_ASSERT(i >= 0);
    const IoSpecification &io =
        is_output ? request_.outputs[i] : request_.inputs[i];
    NNET3_ASSERT(io.indexes.size() == sub_phase_size &&
                 "an input or output was split across phases");
    std::vector<int32> ids(io.indexes.size());
    for (size_t r = 0; r < io.indexes.size(); r++)
      ids[r] = IdOf(Cindex(node, io.indexes[r]));
    AddStep(ids);
  }

  void ProcessComponent(int32 node, const std::vector<int32> &sub_phase) {
    const Component *c =
        nnet_.GetComponent(nnet_.GetNode(node).component_index);
    std::vector<int32> input_ids;
    if (c->Properties() & kSimpleComponent) {
      // Rule (b): same Indexes, same order.
      input_ids.resize(sub_phase.size());
      for (size_t r = 0; r < sub_phase.size(); r++)
        input_ids[r] =
            IdOf(Cindex(node - 1, graph_->cindexes[sub_phase[r]].second));
    } else {
      // The input rows are whatever the outputs use, sorted by Index.
      for (int32 c_id : sub_phase)
        input_ids.insert(input_ids.end(), graph_->dependencies[c_id].begin(),
                         graph_->dependencies[c_id].end());
      std::sort(input_ids.begin(), input_ids.end());
      input_ids.erase(std::unique(input_ids.begin(), input_ids.end()),
                      input_ids.end());
      const ComputationGraph &g = *graph_;
      std::sort(input_ids.begin(), input_ids.end(), [&g](int32 a, int32 b) {
        return g.cindexes[a].second < g.cindexes[b].second;
      });
      // (The input step may be empty: a component can need no input rows.)
      if (c->Properties() & kReordersIndexes) {
        // The component chooses the row order of both steps and may pad
        // them with blank Indexes.
        std::vector<Index> in_indexes(input_ids.size()),
            out_indexes(sub_phase.size());
        for (size_t r = 0; r < input_ids.size(); r++)
          in_indexes[r] = g.cindexes[input_ids[r]].second;
        for (size_t r = 0; r < sub_phase.size(); r++)
          out_indexes[r] = g.cindexes[sub_phase[r]].second;
        c->ReorderIndexes(&in_indexes, &out_indexes);
        AddStep(IdsOrAdd(node - 1, in_indexes));
        AddStep(IdsOrAdd(node, out_indexes));
        return;
      }
    }
    AddStep(input_ids);
    AddStep(sub_phase);
  }

  void ProcessDimRange(int32 node, const std::vector<int32> &sub_phase) {
    int32 src_node = nnet_.GetNode(node).node_index;
    // The source steps holding what this sub-phase needs, in step order.
    std::vector<int32> src_steps;
    for (int32 c : sub_phase) {
      int32 src = IdOf(Cindex(src_node, graph_->cindexes[c].second));
      int32 step = (*locations_)[src].first;
      NNET3_ASSERT(step >= 0);
      src_steps.push_back(step);
    }
    std::sort(src_steps.begin(), src_steps.end());
    src_steps.erase(std::unique(src_steps.begin(), src_steps.end()),
                    src_steps.end());
    for (int32 step : src_steps) {
      const std::vector<int32> source = (*steps_)[step];
      std::vector<int32> ids(source.size());
      for (size_t r = 0; r < source.size(); r++) {
        Cindex cindex(node, graph_->cindexes[source[r]].second);
        bool is_new;
        ids[r] = graph_->GetCindexId(cindex, false, &is_new);
        if (is_new) graph_->dependencies[ids[r]].assign(1, source[r]);
      }
      AddStep(ids);
    }
  }

  const Nnet &nnet_;
  const ComputationRequest &request_;
  ComputationGraph *graph_;
  std::vector<std::vector<int32> > *steps_;
  std::vector<std::pair<int32, int32> > *locations_;
};

}  // namespace

void ComputeComputationSteps(
    const Nnet &nnet, const ComputationRequest &request,
    const std::vector<std::vector<int32> > &phases, ComputationGraph *graph,
    std::vector<std::vector<int32> > *steps,
    std::vector<std::pair<int32, int32> > *locations) {
  StepsComputer computer(nnet, request, graph, steps, locations);
  for (const auto &phase : phases) computer.ProcessPhase(phase);
  computer.Check();
}

}  // namespace nnet3
