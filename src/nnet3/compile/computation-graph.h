// nnet3/compile/computation-graph.h
// The ComputationGraph (every Cindex the computation touches, numbered as
// cindex_ids, with its dependencies) and the ComputationGraphBuilder that
// grows it from a ComputationRequest, works out which Cindexes can be
// computed from the inputs given, and prunes it to what the outputs need
// ("Compilation in the nnet3 setup", first stage).
//
// Invariants kept by the builder:
//  - cindexes[i] <-> i is a bijection (cindex_to_cindex_id_);
//  - is_input[i] is true exactly for the Cindexes listed as request inputs;
//  - after Prune(): every cindex_id is computable and needed by an output
//    (or is an input), and dependencies[i] lists exactly the cindex_ids the
//    value of i is computed from (optional inputs that are absent and
//    Failover branches not taken are removed), sorted and unique.
//  - usable_count_[i] is the number of Cindexes that may use i (outputs
//    count once for the request); a Cindex with usable_count_ == 0 is not
//    expanded (kWillNotCompute), which is what keeps recurrent networks from
//    expanding towards t = -infinity.
#ifndef NNET3_NNET3_COMPILE_COMPUTATION_GRAPH_H_
#define NNET3_NNET3_COMPILE_COMPUTATION_GRAPH_H_

#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

struct ComputationGraph {
  std::vector<Cindex> cindexes;
  std::vector<bool> is_input;
  std::vector<std::vector<int32> > dependencies;

  // Returns the cindex_id of 'cindex', adding it if new (*is_new says
  // which); is_input is recorded for new Cindexes.
  int32 GetCindexId(const Cindex &cindex, bool is_input, bool *is_new);
  // -1 if absent.
  int32 GetCindexId(const Cindex &cindex) const;
  // Keeps the cindex_ids with keep[i - start] true (those below 'start' are
  // all kept) and renumbers cindexes, is_input and dependencies.
  void Renumber(int32 start_cindex_id, const std::vector<bool> &keep);

 private:
  std::unordered_map<Cindex, int32, CindexHasher> cindex_to_cindex_id_;
};

class ComputationGraphBuilder {
 public:
  ComputationGraphBuilder(const Nnet &nnet, ComputationGraph *graph);

  // Adds the request's inputs and outputs and everything the outputs may
  // depend on, and decides computability.
  void Compute(const ComputationRequest &request);
  bool AllOutputsAreComputable() const;
  // One line per non-computable output (up to a few) saying which input
  // Indexes it would need that the request does not provide.
  std::string ExplainWhyAllOutputsNotComputable() const;
  // Removes what is not computable or not needed; see the invariants above.
  void Prune();

  enum ComputableInfo {
    kUnknown = 0,
    kComputable = 1,
    kNotComputable = 2,
    kWillNotCompute = 3
  };
  ComputableInfo GetComputableInfo(int32 cindex_id) const {
    return static_cast<ComputableInfo>(computable_info_[cindex_id]);
  }

 private:
  void AddInputs();
  void AddOutputs();
  void AddCindexId(int32 cindex_id, bool is_input, bool is_output);
  void BuildGraphOneIter();
  void AddDependencies(int32 cindex_id);
  void IncrementUsableCount(int32 cindex_id);
  void DecrementUsableCount(int32 cindex_id);
  void UpdateAllComputableInfo();
  void UpdateComputableInfo(int32 cindex_id);
  void SetAsWillNotCompute(int32 cindex_id);
  ComputableInfo ComputeComputableInfo(int32 cindex_id) const;
  void PruneDependencies(int32 cindex_id);
  void ComputeRequiredArray(std::vector<bool> *required) const;
  // Inputs (input-node Cindexes not provided) that output 'cindex_id'
  // transitively needs; at most 'max' of them.
  void FindMissingInputs(int32 cindex_id, std::vector<Cindex> *missing) const;

  const Nnet &nnet_;
  const ComputationRequest *request_ = nullptr;
  ComputationGraph *graph_;
  std::vector<char> computable_info_;
  std::deque<int32> computable_queue_;
  std::vector<bool> computable_queued_;
  std::vector<int32> usable_count_;
  std::vector<std::vector<int32> > depend_on_this_;
  std::vector<int32> current_queue_, next_queue_;
  int32 current_distance_ = -1;
};

// Sets of Cindexes / Indexes as the graph sees them, for asking descriptors
// and components what is computable. With computable_info == nullptr (after
// pruning) every Cindex in the graph counts as present.
class GraphCindexSet : public CindexSet {
 public:
  GraphCindexSet(const ComputationGraph &graph,
                 const std::vector<char> *computable_info,
                 bool treat_unknown_as_computable)
      : graph_(graph), info_(computable_info),
        unknown_ok_(treat_unknown_as_computable) {}
  bool operator()(const Cindex &cindex) const override;

 private:
  const ComputationGraph &graph_;
  const std::vector<char> *info_;
  bool unknown_ok_;
};

class GraphIndexSet : public IndexSet {
 public:
  GraphIndexSet(const ComputationGraph &graph,
                const std::vector<char> *computable_info, int32 node_index,
                bool treat_unknown_as_computable)
      : set_(graph, computable_info, treat_unknown_as_computable),
        node_(node_index) {}
  bool operator()(const Index &index) const override {
    return set_(Cindex(node_, index));
  }

 private:
  GraphCindexSet set_;
  int32 node_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPILE_COMPUTATION_GRAPH_H_
