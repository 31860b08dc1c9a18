// hmm/transition-model.h
// TransitionModel: Kaldi's <TransitionModel>, the HMM topology plus the
// transition probabilities and the integer mappings every alignment uses.
//   transition-state (1-based): one per tuple (phone, hmm-state,
//       forward-pdf, self-loop-pdf), tuples sorted, which fixes the
//       numbering;
//   transition-index (0-based): a transition out of that HMM state, in the
//       order of the topology;
//   transition-id (1-based): one per (transition-state, transition-index),
//       numbered state by state. Alignments are sequences of
//       transition-ids; a self-loop maps to the self-loop pdf, any other
//       transition to the forward pdf.
// File layout (binary or text), as Kaldi writes it:
//   <TransitionModel> <Topology>...</Topology>
//   <Triples> n (phone hmm-state pdf)*n </Triples>       if the topology is
//                                                        an ordinary HMM
//   <Tuples> n (phone hmm-state fwd-pdf loop-pdf)*n </Tuples>  otherwise
//   <LogProbs> <float vector indexed by transition-id, entry 0 unused>
//   </LogProbs> </TransitionModel>
// Reading accepts either section. After Read the tuples are sorted and
// unique, every tuple names a phone, an emitting state and a pdf the
// topology allows, and the log-probabilities (one per transition-id plus
// entry 0) are finite and <= 0; anything else is a UserError.
#ifndef NNET3_HMM_TRANSITION_MODEL_H_
#define NNET3_HMM_TRANSITION_MODEL_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "hmm/topology.h"
#include "matrix/vector.h"
#include "util/options.h"

namespace nnet3 {

class ContextDependency;

// Options of the maximum-likelihood transition update (Kaldi's names and
// defaults).
struct MleTransitionUpdateConfig {
  BaseFloat floor = 0.01;
  BaseFloat mincount = 5.0;
  bool share_for_pdfs = false;
  void Register(OptionsItf *opts) {
    opts->Register("transition-floor", &floor,
                   "Lower bound on each updated transition probability");
    opts->Register("transition-min-count", &mincount,
                   "A transition-state (or, with --share-for-pdfs, a pdf) "
                   "seen fewer times than this keeps its probabilities");
    opts->Register("share-for-pdfs", &share_for_pdfs,
                   "Estimate one set of transition probabilities for all the "
                   "transition-states that share a pdf");
  }
};

class TransitionModel {
 public:
  TransitionModel() {}
  // Builds the model of every phone of "topo" under the tree, with the
  // topology's probabilities. Only ordinary HMM topologies (one pdf-class
  // per state) are supported here; others are a UserError.
  TransitionModel(const ContextDependency &ctx_dep, const HmmTopology &topo);

  void Read(std::istream &is, bool binary);
  void Write(std::ostream &os, bool binary) const;

  const HmmTopology &GetTopo() const { return topo_; }
  const std::vector<int32> &GetPhones() const { return topo_.GetPhones(); }
  bool IsHmm() const { return topo_.IsHmm(); }

  int32 NumTransitionIds() const {
    return static_cast<int32>(id2state_.size()) - 1;
  }
  int32 NumTransitionStates() const {
    return static_cast<int32>(tuples_.size());
  }
  // One plus the largest pdf-id of any tuple.
  int32 NumPdfs() const { return num_pdfs_; }
  // The largest phone of any tuple.
  int32 NumPhones() const;
  int32 NumTransitionIndices(int32 trans_state) const;

  // Mappings. A transition-id or transition-state out of range is a
  // UserError naming the value and the range.
  int32 TransitionIdToTransitionState(int32 trans_id) const;
  int32 TransitionIdToTransitionIndex(int32 trans_id) const;
  int32 TransitionIdToPdf(int32 trans_id) const;
  int32 TransitionIdToPhone(int32 trans_id) const;
  int32 TransitionIdToHmmState(int32 trans_id) const;
  int32 TransitionIdToPdfClass(int32 trans_id) const;
  int32 TransitionStateToPhone(int32 trans_state) const;
  int32 TransitionStateToHmmState(int32 trans_state) const;
  int32 TransitionStateToForwardPdf(int32 trans_state) const;
  int32 TransitionStateToSelfLoopPdf(int32 trans_state) const;
  int32 PairToTransitionId(int32 trans_state, int32 trans_index) const;
  // 0 if the tuple does not exist.
  int32 TupleToTransitionState(int32 phone, int32 hmm_state, int32 pdf,
                               int32 self_loop_pdf) const;
  // True if the transition enters the last (non-emitting) state of its HMM.
  bool IsFinal(int32 trans_id) const;
  bool IsSelfLoop(int32 trans_id) const;
  // The self-loop transition-id of the state, or 0 if it has none.
  int32 SelfLoopOf(int32 trans_state) const;

  BaseFloat GetTransitionProb(int32 trans_id) const;
  BaseFloat GetTransitionLogProb(int32 trans_id) const;
  const Vector<BaseFloat> &LogProbs() const { return log_probs_; }

  // Statistics for MleUpdate: a count per transition-id (entry 0 unused).
  void InitStats(Vector<double> *stats) const {
    stats->Resize(NumTransitionIds() + 1);
  }
  void Accumulate(BaseFloat weight, int32 trans_id,
                  Vector<double> *stats) const;
  // Kaldi's maximum-likelihood update: for each transition-state (or each
  // pdf, with share_for_pdfs) with more than one transition and a total
  // count of at least cfg.mincount, the probabilities become the
  // normalized counts, floored at cfg.floor and renormalized (three
  // rounds). Returns through the pointers (if not null) the total
  // log-likelihood improvement and the total count. Logs a summary.
  void MleUpdate(const Vector<double> &stats,
                 const MleTransitionUpdateConfig &cfg,
                 BaseFloat *objf_impr_out, BaseFloat *count_out);

  // Same topology, tuples and numbering (probabilities may differ).
  bool Compatible(const TransitionModel &other) const;

 private:
  struct Tuple {
    int32 phone, hmm_state, forward_pdf, self_loop_pdf;
    bool operator<(const Tuple &o) const;
    bool operator==(const Tuple &o) const;
  };
  void ComputeTuples(const ContextDependency &ctx_dep);
  void ComputeDerived();
  void CheckTransitionId(int32 trans_id) const;
  void CheckTransitionState(int32 trans_state) const;
  const HmmTopology::HmmState &StateOf(int32 trans_state) const;
  void MleUpdateShared(const Vector<double> &stats,
                       const MleTransitionUpdateConfig &cfg,
                       BaseFloat *objf_impr_out, BaseFloat *count_out);
  // New probabilities of one group of transitions from its counts (the
  // flooring rounds of MleUpdate); adds to *objf_impr and *num_floored.
  void EstimateProbs(const std::vector<double> &counts,
                     const std::vector<int32> &old_tids,
                     const MleTransitionUpdateConfig &cfg,
                     std::vector<BaseFloat> *new_probs, BaseFloat *objf_impr,
                     int32 *num_floored) const;

  HmmTopology topo_;
  std::vector<Tuple> tuples_;        // indexed by transition-state - 1
  std::vector<int32> state2id_;      // first transition-id of each state,
                                     // plus one entry past the last
  std::vector<int32> id2state_;      // indexed by transition-id
  std::vector<int32> id2pdf_;        // indexed by transition-id
  Vector<BaseFloat> log_probs_;      // indexed by transition-id
  int32 num_pdfs_ = 0;
};

// The four size lines that am-info and hmm-info print (Kaldi's format):
// numbers of phones, pdfs, transition-ids and transition-states.
void PrintTransitionModelSizes(const TransitionModel &trans_model,
                               std::ostream &os);

}  // namespace nnet3

#endif  // NNET3_HMM_TRANSITION_MODEL_H_
