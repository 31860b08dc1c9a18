// nnet3/compile/computation-graph.cc
// ComputationGraph bookkeeping and the ComputationGraphBuilder: breadth-first
// expansion from the outputs (two queues, one per distance from the
// outputs), computability decided with the optimistic/pessimistic test
// (unknown inputs counted as present / absent), usable counts so Cindexes
// nothing can use are not expanded, and pruning.
#include "nnet3/compile/computation-graph.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "base/log.h"

namespace nnet3 {

namespace {
void SortAndUniq(std::vector<int32> *v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}
}  // namespace

// ---- ComputationGraph -------------------------------------------------------

int32 ComputationGraph::GetCindexId(const Cindex &cindex, bool input,
                                    bool *is_new) {
  auto result = cindex_to_cindex_id_.insert(
      std::make_pair(cindex, static_cast<int32>(cindexes.size())));
  *is_new = result.second;
  if (result.second) {
    cindexes.push_back(cindex);
    is_input.push_back(input);
    dependencies.resize(cindexes.size());
  }
  return result.first->second;
}

int32 ComputationGraph::GetCindexId(const Cindex &cindex) const {
  auto it = cindex_to_cindex_id_.find(cindex);
  return it == cindex_to_cindex_id_.end() ? -1 : it->second;
}

void ComputationGraph::Renumber(int32 start, const std::vector<bool> &keep) {
  int32 old_size = static_cast<int32>(cindexes.size());
  NNET3_ASSERT(static_cast<int32>(keep.size()) == old_size - start);
  std::vector<int32> old2new(old_size, -1);
  int32 new_size = start;
  for (int32 c = 0; c < start; c++) old2new[c] = c;
  for (int32 c = start; c < old_size; c++)
    if (keep[c - start]) old2new[c] = new_size++;
  for (int32 c = start; c < old_size; c++) {
    int32 n = old2new[c];
    if (n < 0) continue;
    cindexes[n] = cindexes[c];
    is_input[n] = is_input[c];
    std::vector<int32> deps;
    deps.swap(dependencies[c]);
    for (int32 &d : deps) {
      d = old2new[d];
      NNET3_ASSERT(d >= 0);
    }
    dependencies[n].swap(deps);
  }
  cindexes.resize(new_size);
  is_input.resize(new_size);
  dependencies.resize(new_size);
  cindex_to_cindex_id_.clear();
  for (int32 c = 0; c < new_size; c++) cindex_to_cindex_id_[cindexes[c]] = c;
}

// ---- sets --------------------------------------------------------------------

bool GraphCindexSet::operator()(const Cindex &cindex) const {
  int32 id = graph_.GetCindexId(cindex);
  if (id == -1) return false;
  if (info_ == nullptr) return true;
  char c = (*info_)[id];
  if (c == ComputationGraphBuilder::kComputable) return true;
  return unknown_ok_ && c == ComputationGraphBuilder::kUnknown;
}

// ---- builder -------------------------------------------------------------------

ComputationGraphBuilder::ComputationGraphBuilder(const Nnet &nnet,
                                                 ComputationGraph *graph)
    : nnet_(nnet), graph_(graph) {
  NNET3_ASSERT(graph_->cindexes.empty());
}

void ComputationGraphBuilder::AddCindexId(int32 cindex_id, bool is_input,
                                          bool is_output) {
  NNET3_ASSERT(cindex_id == static_cast<int32>(computable_info_.size()));
  if (is_input) {
    computable_info_.push_back(kComputable);
  } else {
    computable_info_.push_back(kUnknown);
    next_queue_.push_back(cindex_id);
  }
  computable_queued_.push_back(false);
  depend_on_this_.push_back(std::vector<int32>());
  usable_count_.push_back(is_output ? 1 : 0);
}

void ComputationGraphBuilder::AddInputs() {
  for (const IoSpecification &io : request_->inputs) {
    int32 n = nnet_.GetNodeIndex(io.name);
    if (n == -1 || !nnet_.IsInputNode(n))
      NNET3_ERR << "The network has no input node named '" << io.name
                << "' (the computation request lists it as an input)";
    for (const Index &index : io.indexes) {
      bool is_new;
      int32 id = graph_->GetCindexId(Cindex(n, index), true, &is_new);
      if (!is_new)
        NNET3_ERR << "Input '" << io.name << "' lists the Index " << index
                  << " more than once";
      AddCindexId(id, true, false);
    }
  }
}

void ComputationGraphBuilder::AddOutputs() {
  int32 num_added = 0;
  for (const IoSpecification &io : request_->outputs) {
    int32 n = nnet_.GetNodeIndex(io.name);
    if (n == -1 || !nnet_.IsOutputNode(n))
      NNET3_ERR << "The network has no output node named '" << io.name
                << "' (the computation request lists it as an output)";
    for (const Index &index : io.indexes) {
      bool is_new;
      int32 id = graph_->GetCindexId(Cindex(n, index), false, &is_new);
      if (!is_new)
        NNET3_ERR << "Output '" << io.name << "' lists the Index " << index
                  << " more than once";
      AddCindexId(id, false, true);
      num_added++;
    }
  }
  if (num_added == 0)
    NNET3_ERR << "The computation request has no output Indexes";
  current_distance_ = 0;
  NNET3_ASSERT(current_queue_.empty());
  current_queue_.swap(next_queue_);
}

void ComputationGraphBuilder::Compute(const ComputationRequest &request) {
  NNET3_ASSERT(request_ == nullptr && "Compute() may be called only once");
  request.Check();
  request_ = &request;
  AddInputs();
  AddOutputs();
  // Each iteration expands the Cindexes at one more step of distance from
  // the outputs; the graph is finite for any valid network, so a huge
  // distance means a loop without a time offset.
  const int32 max_distance = 100000;
  while (current_distance_ < max_distance) {
    BuildGraphOneIter();
    UpdateAllComputableInfo();
    if (current_queue_.empty()) break;
  }
  if (current_distance_ >= max_distance)
    NNET3_ERR << "Loop detected while building the computation graph "
              << "(a recurrence without a time offset?)";
  // Anything still undecided sits on a cycle no input grounds: it cannot be
  // computed.
  for (size_t c = 0; c < computable_info_.size(); c++)
    if (computable_info_[c] == kUnknown) computable_info_[c] = kNotComputable;
}

void ComputationGraphBuilder::BuildGraphOneIter() {
  while (!current_queue_.empty()) {
    int32 cindex_id = current_queue_.back();
    current_queue_.pop_back();
    NNET3_ASSERT(computable_info_[cindex_id] == kUnknown);
    if (usable_count_[cindex_id] == 0)
      SetAsWillNotCompute(cindex_id);
    else
      AddDependencies(cindex_id);
  }
  current_queue_.swap(next_queue_);
  current_distance_++;
}

void ComputationGraphBuilder::AddDependencies(int32 cindex_id) {
  const Cindex cindex = graph_->cindexes[cindex_id];
  int32 node_index = cindex.first;
  const Index &index = cindex.second;
  const NetworkNode &node = nnet_.GetNode(node_index);
  std::vector<Cindex> input_cindexes;
  switch (node.node_type) {
    case kDescriptor:
      node.descriptor.GetDependencies(index, &input_cindexes);
      break;
    case kComponent: {
      const Component *c = nnet_.GetComponent(node.component_index);
      std::vector<Index> input_indexes;
      c->GetInputIndexes(request_->misc_info, index, &input_indexes);
      for (const Index &i : input_indexes)
        input_cindexes.push_back(Cindex(node_index - 1, i));
      break;
    }
    case kDimRange:
      input_cindexes.push_back(Cindex(node.node_index, index));
      break;
    case kInput:
      break;
    default:
      NNET3_ASSERT(false && "invalid node type");
  }
  std::vector<int32> deps(input_cindexes.size());
  for (size_t i = 0; i < input_cindexes.size(); i++) {
    bool is_new;
    deps[i] = graph_->GetCindexId(input_cindexes[i], false, &is_new);
    if (is_new) AddCindexId(deps[i], false, false);
  }
  SortAndUniq(&deps);
  for (int32 d : deps) {
    depend_on_this_[d].push_back(cindex_id);
    IncrementUsableCount(d);
  }
  graph_->dependencies[cindex_id].swap(deps);
  NNET3_ASSERT(!computable_queued_[cindex_id]);
  computable_queue_.push_front(cindex_id);
  computable_queued_[cindex_id] = true;
}

void ComputationGraphBuilder::IncrementUsableCount(int32 cindex_id) {
  // Iterative form of: if the count goes 0 -> 1 (and the Cindex may still be
  // computed), everything it depends on gains a possible user.
  std::vector<int32> stack(1, cindex_id);
  while (!stack.empty()) {
    int32 c = stack.back();
    stack.pop_back();
    if (usable_count_[c]++ == 0 && computable_info_[c] != kNotComputable)
      for (int32 d : graph_->dependencies[c]) stack.push_back(d);
  }
}

void ComputationGraphBuilder::DecrementUsableCount(int32 cindex_id) {
  std::vector<int32> stack(1, cindex_id);
  while (!stack.empty()) {
    int32 c = stack.back();
    stack.pop_back();
    NNET3_ASSERT(usable_count_[c] > 0);
    if (--usable_count_[c] == 0 && computable_info_[c] != kNotComputable)
      for (int32 d : graph_->dependencies[c]) stack.push_back(d);
  }
}

void ComputationGraphBuilder::UpdateAllComputableInfo() {
  while (!computable_queue_.empty()) {
    int32 c = computable_queue_.front();
    computable_queue_.pop_front();
    computable_queued_[c] = false;
    UpdateComputableInfo(c);
  }
}

void ComputationGraphBuilder::UpdateComputableInfo(int32 cindex_id) {
  char &info = computable_info_[cindex_id];
  NNET3_ASSERT(info == kUnknown);
  info = static_cast<char>(ComputeComputableInfo(cindex_id));
  if (info == kUnknown) return;
  for (int32 other : depend_on_this_[cindex_id]) {
    if (computable_info_[other] == kUnknown && !computable_queued_[other]) {
      computable_queue_.push_back(other);
      computable_queued_[other] = true;
    }
  }
  if (info == kNotComputable && usable_count_[cindex_id] != 0) {
    // Something that cannot be computed uses nothing.
    for (int32 d : graph_->dependencies[cindex_id]) DecrementUsableCount(d);
  }
}

void ComputationGraphBuilder::SetAsWillNotCompute(int32 cindex_id) {
  NNET3_ASSERT(usable_count_[cindex_id] == 0);
  computable_info_[cindex_id] = kWillNotCompute;
  for (int32 other : depend_on_this_[cindex_id]) {
    if (computable_info_[other] == kUnknown && !computable_queued_[other]) {
      computable_queue_.push_back(other);
      computable_queued_[other] = true;
    }
  }
}

ComputationGraphBuilder::ComputableInfo
ComputationGraphBuilder::ComputeComputableInfo(int32 cindex_id) const {
  const Cindex &cindex = graph_->cindexes[cindex_id];
  int32 node_index = cindex.first;
  const Index &index = cindex.second;
  const NetworkNode &node = nnet_.GetNode(node_index);
  switch (node.node_type) {
    case kDescriptor: {
      if (node.descriptor.IsComputable(
              index, GraphCindexSet(*graph_, &computable_info_, false),
              nullptr))
        return kComputable;
      if (!node.descriptor.IsComputable(
              index, GraphCindexSet(*graph_, &computable_info_, true),
              nullptr))
        return kNotComputable;
      return kUnknown;
    }
    case kComponent: {
      const Component *c = nnet_.GetComponent(node.component_index);
      if (c->IsComputable(
              request_->misc_info, index,
              GraphIndexSet(*graph_, &computable_info_, node_index - 1, false),
              nullptr))
        return kComputable;
      if (!c->IsComputable(
              request_->misc_info, index,
              GraphIndexSet(*graph_, &computable_info_, node_index - 1, true),
              nullptr))
        return kNotComputable;
      return kUnknown;
    }
    case kDimRange: {
      int32 src = graph_->GetCindexId(Cindex(node.node_index, index));
      if (src == -1) return kUnknown;
      char c = computable_info_[src];
      // A source nobody else will compute leaves this one undecided until
      // its own usable count settles it.
      if (c == kWillNotCompute) return kUnknown;
      return static_cast<ComputableInfo>(c);
    }
    case kInput:
      return graph_->is_input[cindex_id] ? kComputable : kNotComputable;
    default:
      NNET3_ASSERT(false && "invalid node type");
  }
  return kUnknown;
}

bool ComputationGraphBuilder::AllOutputsAreComputable() const {
  for (size_t c = 0; c < computable_info_.size(); c++)
    if (computable_info_[c] != kComputable &&
        nnet_.IsOutputNode(graph_->cindexes[c].first))
      return false;
  return true;
}

void ComputationGraphBuilder::FindMissingInputs(
    int32 cindex_id, std::vector<Cindex> *missing) const {
  // Walk back through Cindexes that are not computable; the input-node
  // Cindexes reached are the ones the request would have to provide.
  std::vector<bool> seen(graph_->cindexes.size(), false);
  std::vector<int32> stack(1, cindex_id);
  seen[cindex_id] = true;
  while (!stack.empty()) {
    int32 c = stack.back();
    stack.pop_back();
    const Cindex &cindex = graph_->cindexes[c];
    if (nnet_.IsInputNode(cindex.first)) {
      if (!graph_->is_input[c]) missing->push_back(cindex);
      continue;
    }
    for (int32 d : graph_->dependencies[c]) {
      if (!seen[d] && computable_info_[d] != kComputable) {
        seen[d] = true;
        stack.push_back(d);
      }
    }
  }
  std::sort(missing->begin(), missing->end());
}

std::string ComputationGraphBuilder::ExplainWhyAllOutputsNotComputable()
    const {
  std::ostringstream os;
  const int32 max_outputs_explained = 3;
  int32 num_bad = 0, num_outputs = 0;
  for (size_t c = 0; c < computable_info_.size(); c++) {
    const Cindex &cindex = graph_->cindexes[c];
    if (!nnet_.IsOutputNode(cindex.first)) continue;
    num_outputs++;
    if (computable_info_[c] == kComputable) continue;
    if (num_bad++ >= max_outputs_explained) continue;
    std::vector<Cindex> missing;
    FindMissingInputs(static_cast<int32>(c), &missing);
    if (num_bad > 1) os << "; ";
    os << "output '" << nnet_.GetNodeName(cindex.first) << "' at "
       << cindex.second << " is not computable";
    if (missing.empty()) {
      os << " (no input could provide it)";
      continue;
    }
    os << ": it needs";
    // Group by input node so each node's missing Indexes print compactly.
    std::map<int32, std::vector<Index> > by_node;
    for (const Cindex &m : missing) by_node[m.first].push_back(m.second);
    bool first = true;
    for (const auto &kv : by_node) {
      os << (first ? " " : " and ") << "input '"
         << nnet_.GetNodeName(kv.first) << "' at ";
      std::vector<Index> v = kv.second;
      std::sort(v.begin(), v.end(), [](const Index &a, const Index &b) {
        if (a.n != b.n) return a.n < b.n;
        if (a.x != b.x) return a.x < b.x;
        return a.t < b.t;
      });
      PrintIndexes(os, v);
      first = false;
    }
    os << ", which the request does not provide";
  }
  std::ostringstream head;
  head << num_bad << " of " << num_outputs
       << " requested output Indexes are not computable: " << os.str();
  if (num_bad > max_outputs_explained) head << "; ...";
  return head.str();
}

void ComputationGraphBuilder::PruneDependencies(int32 cindex_id) {
  char c = computable_info_[cindex_id];
  NNET3_ASSERT(c != kUnknown);
  std::vector<int32> &deps = graph_->dependencies[cindex_id];
  if (c != kComputable) {
    deps.clear();
    return;
  }
  const Cindex &cindex = graph_->cindexes[cindex_id];
  int32 node_index = cindex.first;
  const NetworkNode &node = nnet_.GetNode(node_index);
  std::vector<int32> used;
  switch (node.node_type) {
    case kDescriptor: {
      std::vector<Cindex> used_cindexes;
      bool ok = node.descriptor.IsComputable(
          cindex.second, GraphCindexSet(*graph_, &computable_info_, false),
          &used_cindexes);
      NNET3_ASSERT(ok);
      for (const Cindex &u : used_cindexes) {
        int32 id = graph_->GetCindexId(u);
        NNET3_ASSERT(id != -1);
        used.push_back(id);
      }
      break;
    }
    case kComponent: {
      const Component *comp = nnet_.GetComponent(node.component_index);
      std::vector<Index> used_indexes;
      bool ok = comp->IsComputable(
          request_->misc_info, cindex.second,
          GraphIndexSet(*graph_, &computable_info_, node_index - 1, false),
          &used_indexes);
      NNET3_ASSERT(ok);
      for (const Index &u : used_indexes) {
        int32 id = graph_->GetCindexId(Cindex(node_index - 1, u));
        NNET3_ASSERT(id != -1);
        used.push_back(id);
      }
      break;
    }
    case kDimRange:
    case kInput:
      return;
    default:
      NNET3_ASSERT(false && "invalid node type");
  }
  SortAndUniq(&used);
  deps.swap(used);
}

void ComputationGraphBuilder::ComputeRequiredArray(
    std::vector<bool> *required) const {
  int32 num = static_cast<int32>(graph_->cindexes.size());
  required->assign(num, false);
  std::vector<int32> stack;
  for (int32 c = 0; c < num; c++) {
    if (nnet_.IsOutputNode(graph_->cindexes[c].first)) {
      (*required)[c] = true;
      stack.push_back(c);
    }
  }
  while (!stack.empty()) {
    int32 c = stack.back();
    stack.pop_back();
    for (int32 d : graph_->dependencies[c]) {
      if (!(*required)[d]) {
        (*required)[d] = true;
        stack.push_back(d);
      }
    }
  }
}

void ComputationGraphBuilder::Prune() {
  int32 num = static_cast<int32>(graph_->cindexes.size());
  for (int32 c = 0; c < num; c++) PruneDependencies(c);
  std::vector<bool> required;
  ComputeRequiredArray(&required);
  std::vector<bool> keep(num, false);
  for (int32 c = 0; c < num; c++) {
    if (required[c] || graph_->is_input[c]) {
      NNET3_ASSERT(computable_info_[c] == kComputable &&
                   "a required Cindex is not computable");
      keep[c] = true;
    }
  }
  graph_->Renumber(0, keep);
  int32 new_num = static_cast<int32>(graph_->cindexes.size());
  computable_info_.assign(new_num, static_cast<char>(kComputable));
  usable_count_.assign(new_num, 1);
  computable_queued_.assign(new_num, false);
  depend_on_this_.clear();
}

}  // namespace nnet3
