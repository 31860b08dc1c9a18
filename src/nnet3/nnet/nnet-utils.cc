// nnet3/nnet/nnet-utils.cc
#include "nnet3/nnet/nnet-utils.h"

#include "nnet3/components/dropout.h"
#include "nnet3/components/normalize.h"
#include "nnet3/components/tdnn.h"
#include "nnet3/nnet/nnet-edit.h"

#include <algorithm>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace nnet3 {

namespace {
// Node -> the nodes it reads from.
std::vector<std::vector<int32> > NodeInputs(const Nnet &nnet) {
  std::vector<std::vector<int32> > inputs(nnet.NumNodes());
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    const NetworkNode &node = nnet.GetNode(n);
    switch (node.node_type) {
      case kDescriptor:
        node.descriptor.GetNodeDependencies(&inputs[n]);
        break;
      case kComponent:
        inputs[n].push_back(n - 1);
        break;
      case kDimRange:
        inputs[n].push_back(node.node_index);
        break;
      case kInput:
      case kNone:
        break;
    }
  }
  return inputs;
}
}  // namespace

void FindOrphanNodes(const Nnet &nnet, std::vector<int32> *nodes) {
  std::vector<std::vector<int32> > inputs = NodeInputs(nnet);
  std::vector<bool> used(nnet.NumNodes(), false);
  std::vector<int32> queue;
  for (int32 n = 0; n < nnet.NumNodes(); n++)
    if (nnet.IsOutputNode(n)) {
      used[n] = true;
      queue.push_back(n);
    }
  while (!queue.empty()) {
    int32 n = queue.back();
    queue.pop_back();
    for (int32 m : inputs[n])
      if (!used[m]) {
        used[m] = true;
        queue.push_back(m);
      }
  }
  nodes->clear();
  for (int32 n = 0; n < nnet.NumNodes(); n++)
    if (!used[n]) nodes->push_back(n);
}

void FindOrphanComponents(const Nnet &nnet, std::vector<int32> *components) {
  std::vector<bool> used(nnet.NumComponents(), false);
  for (int32 n = 0; n < nnet.NumNodes(); n++)
    if (nnet.IsComponentNode(n)) used[nnet.GetNode(n).component_index] = true;
  components->clear();
  for (int32 c = 0; c < nnet.NumComponents(); c++)
    if (!used[c]) components->push_back(c);
}

int32 NumParameters(const Nnet &nnet) {
  int32 ans = 0;
  for (int32 c = 0; c < nnet.NumComponents(); c++) {
    const UpdatableComponent *u =
        dynamic_cast<const UpdatableComponent *>(nnet.GetComponent(c));
    if (u) ans += u->NumParameters();
  }
  return ans;
}

int32 NumInputNodes(const Nnet &nnet) {
  int32 ans = 0;
  for (int32 n = 0; n < nnet.NumNodes(); n++) ans += nnet.IsInputNode(n);
  return ans;
}

int32 NumOutputNodes(const Nnet &nnet) {
  int32 ans = 0;
  for (int32 n = 0; n < nnet.NumNodes(); n++) ans += nnet.IsOutputNode(n);
  return ans;
}

bool IsSimpleNnet(const Nnet &nnet) {
  int32 out = nnet.GetNodeIndex("output"), in = nnet.GetNodeIndex("input");
  if (out == -1 || !nnet.IsOutputNode(out)) return false;
  if (in == -1 || !nnet.IsInputNode(in)) return false;
  if (NumInputNodes(nnet) == 1) return true;
  int32 iv = nnet.GetNodeIndex("ivector");
  return iv != -1 && nnet.IsInputNode(iv) && NumInputNodes(nnet) == 2;
}

// ---- Computability ---------------------------------------------------------------

namespace {

// Memoized evaluation of "can (node, Index) be computed from the inputs".
// A Cindex whose evaluation is in progress counts as not computable, which
// only matters for malformed (instantaneously cyclic) networks.
// The deepest chain of Cindexes waiting on each other that
// ComputabilityEvaluator follows. Each level costs a few stack frames:
// about 0.7 KB in a release build and 1.4 KB under ASan, so an 8 MiB stack
// overflowed at about 12000 (release) and 6000 (ASan) levels. Ordinary
// networks stay far below: outputs are evaluated in ascending t, so
// recurrences into the past are memoized one frame at a time, and one into
// the future costs (frames in the window) x (nodes in the loop) levels.
const int32 kMaxComputabilityDepth = 4000;
// The most Cindexes ComputabilityEvaluator remembers (about 60 bytes each):
// a component whose context spans millions of frames (a statistics-pooling
// left-context of 10^8, as a damaged model can hold) would otherwise fill
// memory. An x-vector network pooling over 10,000 frames visits a few
// hundred thousand.
const size_t kMaxComputabilityCindexes = 4000000;
// The most lookups (memoized or not) one evaluation makes. Few distinct
// Cindexes can still cost without bound when each is reached again and
// again: a statistics-extraction block of millions of frames is scanned
// once for every pooling frame that asks for it. In a table of millions of
// Cindexes a lookup takes about 150 ns in a release build (about 1 us
// under AddressSanitizer), so the limit is 1.5 seconds of work; the
// x-vector benchmark network (pooling over 10,000 frames, to the left or
// to the right) needs under a million.
const size_t kMaxComputabilityLookups = 10000000;

class ComputabilityEvaluator {
 public:
  ComputabilityEvaluator(const Nnet &nnet,
                         const std::vector<InputAvailability> &inputs)
      : nnet_(nnet) {
    for (const InputAvailability &in : inputs) {
      int32 node = nnet.GetNodeIndex(in.name);
      if (node == -1 || !nnet.IsInputNode(node)) continue;
      for (const Index &index : in.indexes)
        available_.insert(Cindex(node, index));
    }
  }

  bool Computable(const Cindex &c) {
    if (++lookups_ > kMaxComputabilityLookups) Fail(kTooManyLookups, c);
    auto it = state_.find(c);
    if (it != state_.end()) return it->second == kYes;
    // Each level of this recursion is one Cindex waiting on another. A
    // recurrence that only IfDefined or Failover guards, from a node that
    // needs no input, never reaches the edge of the input and would recurse
    // until the stack overflows: stop with an error instead.
    if (depth_ >= kMaxComputabilityDepth) Fail(kTooDeep, c);
    if (state_.size() >= kMaxComputabilityCindexes) Fail(kTooManyCindexes, c);
    depth_++;
    state_[c] = kInProgress;
    bool ans;
    try {
      ans = Evaluate(c);
    } catch (...) {
      depth_--;
      throw;
    }
    depth_--;
    state_[c] = ans ? kYes : kNo;
    return ans;
  }

 private:
  enum State { kInProgress, kYes, kNo };
  enum Limit { kTooManyLookups, kTooDeep, kTooManyCindexes };

  // The error for a limit reached at c. Out of line, so that the message's
  // temporaries do not enlarge the stack frame of Computable(), which
  // recurses thousands of levels deep (under AddressSanitizer each
  // temporary of an inlined message costs its own redzones on every level).
  __attribute__((noinline, cold)) void Fail(Limit limit,
                                            const Cindex &c) const {
    std::ostringstream what;
    if (limit == kTooManyLookups)
      what << "took more than " << kMaxComputabilityLookups << " lookups";
    else if (limit == kTooDeep)
      what << "needed a chain of more than " << kMaxComputabilityDepth
           << " dependencies";
    else
      what << "visited more than " << kMaxComputabilityCindexes
           << " (node, time) pairs";
    const char *why =
        limit == kTooDeep
            ? "a recurrence that never reaches the input?"
            : "the network's context is too large (check the components' "
              "left and right context and periods)";
    NNET3_ERR << "Working out which outputs are computable " << what.str()
              << " (at node '" << nnet_.GetNodeName(c.first) << "', t = "
              << c.second.t << "): " << why;
  }

  class NodeIndexSet : public IndexSet {
   public:
    NodeIndexSet(ComputabilityEvaluator *e, int32 node) : e_(e), node_(node) {}
    bool operator()(const Index &index) const override {
      return e_->Computable(Cindex(node_, index));
    }
   private:
    ComputabilityEvaluator *e_;
    int32 node_;
  };

  class AllCindexSet : public CindexSet {
   public:
    explicit AllCindexSet(ComputabilityEvaluator *e) : e_(e) {}
    bool operator()(const Cindex &c) const override {
      return e_->Computable(c);
    }
   private:
    ComputabilityEvaluator *e_;
  };

  bool Evaluate(const Cindex &c) {
    const NetworkNode &node = nnet_.GetNode(c.first);
    switch (node.node_type) {
      case kInput:
        return available_.count(c) != 0;
      case kDescriptor: {
        AllCindexSet set(this);
        return node.descriptor.IsComputable(c.second, set, nullptr);
      }
      case kComponent: {
        NodeIndexSet set(this, c.first - 1);
        MiscComputationInfo misc;
        return nnet_.GetComponent(node.component_index)
            ->IsComputable(misc, c.second, set, nullptr);
      }
      case kDimRange:
        return Computable(Cindex(node.node_index, c.second));
      case kNone:
        break;
    }
    return false;
  }

  const Nnet &nnet_;
  int32 depth_ = 0;
  size_t lookups_ = 0;
  std::unordered_set<Cindex, CindexHasher> available_;
  std::unordered_map<Cindex, State, CindexHasher> state_;
};

}  // namespace

void EvaluateComputability(const Nnet &nnet,
                           const std::vector<InputAvailability> &inputs,
                           const std::string &output_name,
                           const std::vector<Index> &output_indexes,
                           std::vector<bool> *computable) {
  int32 out = nnet.GetNodeIndex(output_name);
  if (out == -1 || !nnet.IsOutputNode(out))
    NNET3_ERR << "Network has no output node named " << output_name;
  ComputabilityEvaluator evaluator(nnet, inputs);
  computable->resize(output_indexes.size());
  // Ascending t keeps the recursion (which walks back in time through
  // recurrences) shallow: earlier frames are already memoized.
  for (size_t i = 0; i < output_indexes.size(); i++)
    (*computable)[i] = evaluator.Computable(Cindex(out, output_indexes[i]));
}

namespace {
// False if no output frame is computable from this window.
bool ContextForShift(const Nnet &nnet, int32 input_start, int32 window_size,
                     int32 *left_context, int32 *right_context) {
  int32 input_end = input_start + window_size;
  InputAvailability input{"input", {}}, ivector{"ivector", {}};
  std::vector<Index> output_indexes;
  const int32 n = 0;
  for (int32 t = input_start; t < input_end; t++) {
    input.indexes.push_back(Index(n, t));
    output_indexes.push_back(Index(n, t));
  }
  // The iVector may be wanted at rounded-down times before the window.
  for (int32 t = input_start - nnet.Modulus(); t < input_end; t++)
    ivector.indexes.push_back(Index(n, t));
  std::vector<bool> ok;
  EvaluateComputability(nnet, {input, ivector}, "output", output_indexes, &ok);
  auto first = std::find(ok.begin(), ok.end(), true);
  int32 first_ok = static_cast<int32>(first - ok.begin());
  int32 first_not_ok =
      static_cast<int32>(std::find(first, ok.end(), false) - ok.begin());
  if (first_ok == window_size || first_not_ok <= first_ok) return false;
  *left_context = first_ok;
  *right_context = window_size - first_not_ok;
  return true;
}
}  // namespace

void ComputeSimpleNnetContext(const Nnet &nnet, int32 *left_context,
                              int32 *right_context) {
  if (!IsSimpleNnet(nnet))
    NNET3_ERR << "Cannot compute the context of a network that is not simple "
                 "(it needs an input node 'input', optionally 'ivector', and "
                 "an output node 'output')";
  int32 modulus = nnet.Modulus();
  std::vector<int32> lefts(modulus + 1), rights(modulus + 1);
  for (int32 window = 40; window <= 800; window *= 2) {
    bool all_ok = true;
    for (int32 shift = 0; shift <= modulus; shift++)
      all_ok = all_ok &&
               ContextForShift(nnet, shift, window, &lefts[shift], &rights[shift]);
    if (!all_ok) continue;  // context wider than the window: try a wider one
    // Shifting by the modulus must not change anything.
    if (lefts[0] != lefts[modulus] || rights[0] != rights[modulus])
      NNET3_ERR << "The network's context changes under a time shift by its "
                   "modulus " << modulus;
    *left_context = *std::max_element(lefts.begin(), lefts.end());
    *right_context = *std::max_element(rights.begin(), rights.end());
    if (*left_context + *right_context < window) return;
  }
  NNET3_ERR << "Failed to work out the context of the network: no output "
               "frame is computable from 800 frames of input (is 'output' "
               "reachable from 'input'?)";
}

namespace {
bool SumDescriptorDependsOnAvailability(const SumDescriptor &d) {
  if (dynamic_cast<const OptionalSumDescriptor *>(&d) != nullptr) return true;
  if (const BinarySumDescriptor *b =
          dynamic_cast<const BinarySumDescriptor *>(&d)) {
    if (b->Op() == BinarySumDescriptor::kFailoverOperation) return true;
    return SumDescriptorDependsOnAvailability(b->Src1()) ||
           SumDescriptorDependsOnAvailability(b->Src2());
  }
  return false;
}
}  // namespace

namespace {

// Simple components compute each frame from that frame; a TdnnComponent
// from its input at fixed time offsets, which chunking does not change.
bool IsChunkingInvariantComponent(const Component &c) {
  return (c.Properties() & kSimpleComponent) ||
         dynamic_cast<const TdnnComponent *>(&c) != nullptr;
}

}  // namespace

bool NnetIsChunkingInvariant(const Nnet &nnet) {
  int32 num_nodes = nnet.NumNodes();
  // node -> nodes it reads.
  std::vector<std::vector<int32> > inputs(num_nodes);
  for (int32 n = 0; n < num_nodes; n++) {
    const NetworkNode &node = nnet.GetNode(n);
    switch (node.node_type) {
      case kDescriptor:
        for (int32 p = 0; p < node.descriptor.NumParts(); p++)
          if (SumDescriptorDependsOnAvailability(node.descriptor.Part(p)))
            return false;
        node.descriptor.GetNodeDependencies(&inputs[n]);
        break;
      case kComponent:
        if (!IsChunkingInvariantComponent(
                *nnet.GetComponent(node.component_index)))
          return false;
        inputs[n].push_back(n - 1);
        break;
      case kDimRange:
        inputs[n].push_back(node.node_index);
        break;
      default:
        break;
    }
  }
  // Cycle check by iterative depth-first search (0 new, 1 open, 2 done).
  std::vector<char> state(num_nodes, 0);
  for (int32 start = 0; start < num_nodes; start++) {
    if (state[start] != 0) continue;
    std::vector<std::pair<int32, size_t> > stack(1, std::make_pair(start, 0));
    state[start] = 1;
    while (!stack.empty()) {
      int32 n = stack.back().first;
      size_t &next = stack.back().second;
      if (next < inputs[n].size()) {
        int32 m = inputs[n][next++];
        if (state[m] == 1) return false;
        if (state[m] == 0) {
          state[m] = 1;
          stack.push_back(std::make_pair(m, 0));
        }
      } else {
        state[n] = 2;
        stack.pop_back();
      }
    }
  }
  return true;
}

void SetDropoutTestMode(bool test_mode, Nnet *nnet) {
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    RandomComponent *r = dynamic_cast<RandomComponent *>(nnet->GetComponent(c));
    if (r) r->SetTestMode(test_mode);
  }
}


void SetBatchnormTestMode(bool test_mode, Nnet *nnet) {
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    BatchNormComponent *bn =
        dynamic_cast<BatchNormComponent *>(nnet->GetComponent(c));
    if (bn) bn->SetTestMode(test_mode);
  }
}

int32 SetDropoutProportion(const std::string &pattern, BaseFloat proportion,
                           Nnet *nnet) {
  int32 n = 0;
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    if (!NameMatchesPattern(nnet->GetComponentName(c), pattern)) continue;
    // The types Kaldi's set-dropout-proportion changes (SpecAugment's
    // zeroed-proportion is not a dropout proportion and is left alone).
    Component *comp = nnet->GetComponent(c);
    if (DropoutComponent *d = dynamic_cast<DropoutComponent *>(comp)) {
      d->SetDropoutProportion(proportion);
      n++;
    } else if (DropoutMaskComponent *m =
                   dynamic_cast<DropoutMaskComponent *>(comp)) {
      m->SetDropoutProportion(proportion);
      n++;
    } else if (GeneralDropoutComponent *g =
                   dynamic_cast<GeneralDropoutComponent *>(comp)) {
      g->SetDropoutProportion(proportion);
      n++;
    }
  }
  return n;
}

}  // namespace nnet3
