// hmm/transition-model.cc
// Building, reading, writing, querying and re-estimating a transition model
// (see transition-model.h).
#include "hmm/transition-model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "base/io.h"
#include "base/log.h"
#include "tree/context-dep.h"

namespace nnet3 {

bool TransitionModel::Tuple::operator<(const Tuple &o) const {
  return std::tie(phone, hmm_state, forward_pdf, self_loop_pdf) <
         std::tie(o.phone, o.hmm_state, o.forward_pdf, o.self_loop_pdf);
}

bool TransitionModel::Tuple::operator==(const Tuple &o) const {
  return phone == o.phone && hmm_state == o.hmm_state &&
         forward_pdf == o.forward_pdf && self_loop_pdf == o.self_loop_pdf;
}

TransitionModel::TransitionModel(const ContextDependency &ctx_dep,
                                 const HmmTopology &topo)
    : topo_(topo) {
  ComputeTuples(ctx_dep);
  ComputeDerived();
  log_probs_.Resize(NumTransitionIds() + 1);
  for (int32 tid = 1; tid <= NumTransitionIds(); tid++) {
    int32 tstate = id2state_[tid];
    BaseFloat prob = StateOf(tstate)
                         .transitions[tid - state2id_[tstate]].second;
    if (prob > 1.0)
      NNET3_WARN << "A transition probability of the topology is above 1: "
                 << prob;
    log_probs_(tid) = std::log(prob);
  }
}

void TransitionModel::ComputeTuples(const ContextDependency &ctx_dep) {
  if (!topo_.IsHmm())
    NNET3_ERR << "Building a transition model for a topology with separate "
              << "self-loop pdf-classes is not supported";
  const std::vector<int32> &phones = topo_.GetPhones();
  std::vector<int32> num_pdf_classes;
  topo_.GetPhoneToNumPdfClasses(&num_pdf_classes);
  std::vector<std::vector<std::pair<int32, int32> > > pdf_info;
  ctx_dep.GetPdfInfo(phones, num_pdf_classes, &pdf_info);
  // (phone, pdf-class) -> the HMM states of that phone with that pdf-class.
  std::map<std::pair<int32, int32>, std::vector<int32> > states_of;
  for (int32 phone : phones) {
    const HmmTopology::TopologyEntry &entry = topo_.TopologyForPhone(phone);
    for (int32 j = 0; j < static_cast<int32>(entry.size()); j++)
      if (entry[j].forward_pdf_class != kNoPdf)
        states_of[std::make_pair(phone, entry[j].forward_pdf_class)]
            .push_back(j);
  }
  tuples_.clear();
  for (int32 pdf = 0; pdf < static_cast<int32>(pdf_info.size()); pdf++) {
    for (const auto &pc : pdf_info[pdf]) {
      const std::vector<int32> &states = states_of[pc];
      NNET3_ASSERT(!states.empty());
      for (int32 hmm_state : states)
        tuples_.push_back(Tuple{pc.first, hmm_state, pdf, pdf});
    }
  }
  std::sort(tuples_.begin(), tuples_.end());
}

void TransitionModel::ComputeDerived() {
  for (size_t i = 0; i < tuples_.size(); i++) {
    const Tuple &t = tuples_[i];
    if (i > 0 && !(tuples_[i - 1] < t))
      NNET3_ERR << "TransitionModel: the tuples are not sorted and unique "
                << "(at transition-state " << i + 1 << ")";
    const HmmTopology::TopologyEntry &entry = topo_.TopologyForPhone(t.phone);
    if (t.hmm_state < 0 || t.hmm_state >= static_cast<int32>(entry.size()) ||
        entry[t.hmm_state].forward_pdf_class == kNoPdf)
      NNET3_ERR << "TransitionModel: transition-state " << i + 1
                << " names HMM state " << t.hmm_state << " of phone "
                << t.phone << ", which is not an emitting state of its "
                << "topology";
    if (t.forward_pdf < 0 || t.self_loop_pdf < 0)
      NNET3_ERR << "TransitionModel: negative pdf-id in transition-state "
                << i + 1;
  }
  state2id_.assign(tuples_.size() + 2, 0);
  int32 cur = 1;
  num_pdfs_ = 0;
  for (size_t s = 1; s <= tuples_.size() + 1; s++) {
    state2id_[s] = cur;
    if (s <= tuples_.size()) {
      const Tuple &t = tuples_[s - 1];
      num_pdfs_ = std::max(num_pdfs_, 1 + t.forward_pdf);
      num_pdfs_ = std::max(num_pdfs_, 1 + t.self_loop_pdf);
      cur += static_cast<int32>(StateOf(static_cast<int32>(s))
                                    .transitions.size());
    }
  }
  id2state_.assign(cur, 0);
  id2pdf_.assign(cur, -1);
  for (int32 s = 1; s <= NumTransitionStates(); s++) {
    for (int32 tid = state2id_[s]; tid < state2id_[s + 1]; tid++) {
      id2state_[tid] = s;
      id2pdf_[tid] = IsSelfLoop(tid) ? tuples_[s - 1].self_loop_pdf
                                     : tuples_[s - 1].forward_pdf;
    }
  }
}

const HmmTopology::HmmState &TransitionModel::StateOf(
    int32 trans_state) const {
  const Tuple &t = tuples_[trans_state - 1];
  return topo_.TopologyForPhone(t.phone)[t.hmm_state];
}

void TransitionModel::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<TransitionModel>");
  topo_.Read(is, binary);
  std::string token;
  ReadToken(is, binary, &token);
  bool tuples = (token == "<Tuples>");
  if (!tuples && token != "<Triples>")
    NNET3_ERR << "TransitionModel: expected <Triples> or <Tuples>, got "
              << PrintableString(token);
  int32 size;
  ReadBasicType(is, binary, &size);
  CheckDeclaredSize(is, size, 6, "TransitionModel: the tuple count");
  tuples_.clear();
  tuples_.reserve(BoundedReserve<Tuple>(size));
  for (int32 i = 0; i < size; i++) {
    Tuple t;
    ReadBasicType(is, binary, &t.phone);
    ReadBasicType(is, binary, &t.hmm_state);
    ReadBasicType(is, binary, &t.forward_pdf);
    if (tuples)
      ReadBasicType(is, binary, &t.self_loop_pdf);
    else
      t.self_loop_pdf = t.forward_pdf;
    tuples_.push_back(t);
  }
  ExpectToken(is, binary, tuples ? "</Tuples>" : "</Triples>");
  ComputeDerived();
  ExpectToken(is, binary, "<LogProbs>");
  log_probs_.Read(is, binary);
  ExpectToken(is, binary, "</LogProbs>");
  ExpectToken(is, binary, "</TransitionModel>");
  if (log_probs_.Dim() != NumTransitionIds() + 1)
    NNET3_ERR << "TransitionModel: " << log_probs_.Dim()
              << " log-probabilities for " << NumTransitionIds()
              << " transition-ids (expected one more than the ids)";
  if (NumTransitionIds() == 0)
    NNET3_ERR << "TransitionModel: no transition-ids";
  for (int32 tid = 1; tid <= NumTransitionIds(); tid++)
    if (!(log_probs_(tid) <= 0.0) || !std::isfinite(log_probs_(tid)))
      NNET3_ERR << "TransitionModel: log-probability " << log_probs_(tid)
                << " of transition-id " << tid
                << " is not a finite value <= 0";
}

void TransitionModel::Write(std::ostream &os, bool binary) const {
  bool is_hmm = IsHmm();
  WriteToken(os, binary, "<TransitionModel>");
  if (!binary) os << "\n";
  topo_.Write(os, binary);
  WriteToken(os, binary, is_hmm ? "<Triples>" : "<Tuples>");
  WriteBasicType(os, binary, static_cast<int32>(tuples_.size()));
  if (!binary) os << "\n";
  for (const Tuple &t : tuples_) {
    WriteBasicType(os, binary, t.phone);
    WriteBasicType(os, binary, t.hmm_state);
    WriteBasicType(os, binary, t.forward_pdf);
    if (!is_hmm) WriteBasicType(os, binary, t.self_loop_pdf);
    if (!binary) os << "\n";
  }
  WriteToken(os, binary, is_hmm ? "</Triples>" : "</Tuples>");
  if (!binary) os << "\n";
  WriteToken(os, binary, "<LogProbs>");
  if (!binary) os << "\n";
  log_probs_.Write(os, binary);
  WriteToken(os, binary, "</LogProbs>");
  if (!binary) os << "\n";
  WriteToken(os, binary, "</TransitionModel>");
  if (!binary) os << "\n";
}

int32 TransitionModel::NumPhones() const {
  int32 ans = 0;
  for (const Tuple &t : tuples_) ans = std::max(ans, t.phone);
  return ans;
}

void TransitionModel::CheckTransitionId(int32 trans_id) const {
  if (trans_id < 1 || trans_id > NumTransitionIds())
    NNET3_ERR << "Transition-id " << trans_id << " is out of range: the "
              << "transition model has ids 1 to " << NumTransitionIds();
}

void TransitionModel::CheckTransitionState(int32 trans_state) const {
  if (trans_state < 1 || trans_state > NumTransitionStates())
    NNET3_ERR << "Transition-state " << trans_state << " is out of range: "
              << "the transition model has states 1 to "
              << NumTransitionStates();
}

int32 TransitionModel::NumTransitionIndices(int32 trans_state) const {
  CheckTransitionState(trans_state);
  return state2id_[trans_state + 1] - state2id_[trans_state];
}

int32 TransitionModel::TransitionIdToTransitionState(int32 trans_id) const {
  CheckTransitionId(trans_id);
  return id2state_[trans_id];
}

int32 TransitionModel::TransitionIdToTransitionIndex(int32 trans_id) const {
  CheckTransitionId(trans_id);
  return trans_id - state2id_[id2state_[trans_id]];
}

int32 TransitionModel::TransitionIdToPdf(int32 trans_id) const {
  CheckTransitionId(trans_id);
  return id2pdf_[trans_id];
}

int32 TransitionModel::TransitionIdToPhone(int32 trans_id) const {
  CheckTransitionId(trans_id);
  return tuples_[id2state_[trans_id] - 1].phone;
}

int32 TransitionModel::TransitionIdToHmmState(int32 trans_id) const {
  CheckTransitionId(trans_id);
  return tuples_[id2state_[trans_id] - 1].hmm_state;
}

int32 TransitionModel::TransitionIdToPdfClass(int32 trans_id) const {
  CheckTransitionId(trans_id);
  const HmmTopology::HmmState &state = StateOf(id2state_[trans_id]);
  return IsSelfLoop(trans_id) ? state.self_loop_pdf_class
                              : state.forward_pdf_class;
}

int32 TransitionModel::TransitionStateToPhone(int32 trans_state) const {
  CheckTransitionState(trans_state);
  return tuples_[trans_state - 1].phone;
}

int32 TransitionModel::TransitionStateToHmmState(int32 trans_state) const {
  CheckTransitionState(trans_state);
  return tuples_[trans_state - 1].hmm_state;
}

int32 TransitionModel::TransitionStateToForwardPdf(int32 trans_state) const {
  CheckTransitionState(trans_state);
  return tuples_[trans_state - 1].forward_pdf;
}

int32 TransitionModel::TransitionStateToSelfLoopPdf(int32 trans_state) const {
  CheckTransitionState(trans_state);
  return tuples_[trans_state - 1].self_loop_pdf;
}

int32 TransitionModel::PairToTransitionId(int32 trans_state,
                                          int32 trans_index) const {
  int32 n = NumTransitionIndices(trans_state);
  if (trans_index < 0 || trans_index >= n)
    NNET3_ERR << "Transition-index " << trans_index << " is out of range for "
              << "transition-state " << trans_state << " (it has " << n
              << " transitions)";
  return state2id_[trans_state] + trans_index;
}

int32 TransitionModel::TupleToTransitionState(int32 phone, int32 hmm_state,
                                              int32 pdf,
                                              int32 self_loop_pdf) const {
  Tuple t{phone, hmm_state, pdf, self_loop_pdf};
  auto it = std::lower_bound(tuples_.begin(), tuples_.end(), t);
  if (it == tuples_.end() || !(*it == t)) return 0;
  return static_cast<int32>(it - tuples_.begin()) + 1;
}

bool TransitionModel::IsFinal(int32 trans_id) const {
  CheckTransitionId(trans_id);
  int32 tstate = id2state_[trans_id];
  const Tuple &t = tuples_[tstate - 1];
  const HmmTopology::TopologyEntry &entry = topo_.TopologyForPhone(t.phone);
  int32 dst = entry[t.hmm_state].transitions[trans_id - state2id_[tstate]]
                  .first;
  return dst + 1 == static_cast<int32>(entry.size());
}

bool TransitionModel::IsSelfLoop(int32 trans_id) const {
  CheckTransitionId(trans_id);
  int32 tstate = id2state_[trans_id];
  const Tuple &t = tuples_[tstate - 1];
  return StateOf(tstate).transitions[trans_id - state2id_[tstate]].first ==
         t.hmm_state;
}

int32 TransitionModel::SelfLoopOf(int32 trans_state) const {
  CheckTransitionState(trans_state);
  const auto &transitions = StateOf(trans_state).transitions;
  for (size_t i = 0; i < transitions.size(); i++)
    if (transitions[i].first == tuples_[trans_state - 1].hmm_state)
      return state2id_[trans_state] + static_cast<int32>(i);
  return 0;
}

BaseFloat TransitionModel::GetTransitionProb(int32 trans_id) const {
  CheckTransitionId(trans_id);
  return std::exp(log_probs_(trans_id));
}

BaseFloat TransitionModel::GetTransitionLogProb(int32 trans_id) const {
  CheckTransitionId(trans_id);
  return log_probs_(trans_id);
}

void TransitionModel::Accumulate(BaseFloat weight, int32 trans_id,
                                 Vector<double> *stats) const {
  CheckTransitionId(trans_id);
  NNET3_ASSERT(stats->Dim() == NumTransitionIds() + 1);
  (*stats)(trans_id) += weight;
}

void TransitionModel::EstimateProbs(const std::vector<double> &counts,
                                    const std::vector<int32> &old_tids,
                                    const MleTransitionUpdateConfig &cfg,
                                    std::vector<BaseFloat> *new_probs,
                                    BaseFloat *objf_impr,
                                    int32 *num_floored) const {
  size_t n = counts.size();
  double total = 0.0;
  for (double c : counts) total += c;
  new_probs->resize(n);
  for (size_t i = 0; i < n; i++)
    (*new_probs)[i] = static_cast<BaseFloat>(counts[i] / total);
  for (int round = 0; round < 3; round++) {  // renormalize, then floor
    BaseFloat sum = 0.0;
    for (BaseFloat p : *new_probs) sum += p;
    BaseFloat scale = static_cast<BaseFloat>(1.0 / sum);
    for (BaseFloat &p : *new_probs) p = std::max(p * scale, cfg.floor);
  }
  for (size_t i = 0; i < n; i++) {
    if ((*new_probs)[i] == cfg.floor) (*num_floored)++;
    BaseFloat old_prob = GetTransitionProb(old_tids[i]);
    *objf_impr += counts[i] * (std::log((*new_probs)[i]) - std::log(old_prob));
  }
}

void TransitionModel::MleUpdate(const Vector<double> &stats,
                                const MleTransitionUpdateConfig &cfg,
                                BaseFloat *objf_impr_out,
                                BaseFloat *count_out) {
  if (stats.Dim() != NumTransitionIds() + 1)
    NNET3_ERR << "MleUpdate: statistics of dimension " << stats.Dim()
              << " for " << NumTransitionIds() << " transition-ids";
  if (cfg.share_for_pdfs) {
    MleUpdateShared(stats, cfg, objf_impr_out, count_out);
    return;
  }
  BaseFloat count_sum = 0.0, objf_impr = 0.0;
  int32 num_skipped = 0, num_floored = 0;
  for (int32 s = 1; s <= NumTransitionStates(); s++) {
    int32 n = NumTransitionIndices(s);
    if (n <= 1) continue;  // nothing to estimate
    std::vector<double> counts(n);
    std::vector<int32> tids(n);
    double total = 0.0;
    for (int32 i = 0; i < n; i++) {
      tids[i] = state2id_[s] + i;
      counts[i] = stats(tids[i]);
      total += counts[i];
    }
    count_sum += total;
    if (total < cfg.mincount) {
      num_skipped++;
      continue;
    }
    std::vector<BaseFloat> new_probs;
    EstimateProbs(counts, tids, cfg, &new_probs, &objf_impr, &num_floored);
    for (int32 i = 0; i < n; i++) log_probs_(tids[i]) = std::log(new_probs[i]);
  }
  NNET3_LOG << "Transition update: objective change " << objf_impr / count_sum
            << " per frame over " << count_sum << " frames; " << num_floored
            << " probabilities floored; " << num_skipped << " of "
            << NumTransitionStates() << " transition-states kept their "
            << "probabilities (count below --transition-min-count)";
  if (objf_impr_out) *objf_impr_out = objf_impr;
  if (count_out) *count_out = count_sum;
}

void TransitionModel::MleUpdateShared(const Vector<double> &stats,
                                      const MleTransitionUpdateConfig &cfg,
                                      BaseFloat *objf_impr_out,
                                      BaseFloat *count_out) {
  std::map<int32, std::set<int32> > pdf_to_states;
  bool is_hmm = IsHmm();
  for (int32 s = 1; s <= NumTransitionStates(); s++) {
    pdf_to_states[tuples_[s - 1].forward_pdf].insert(s);
    if (!is_hmm) pdf_to_states[tuples_[s - 1].self_loop_pdf].insert(s);
  }
  BaseFloat count_sum = 0.0, objf_impr = 0.0;
  int32 num_skipped = 0, num_floored = 0;
  for (const auto &group : pdf_to_states) {
    const std::set<int32> &states = group.second;
    int32 first = *states.begin();
    int32 n = NumTransitionIndices(first);
    if (n <= 1) continue;
    std::vector<double> counts(n, 0.0);
    for (int32 s : states) {
      if (NumTransitionIndices(s) != n)
        NNET3_ERR << "--share-for-pdfs: transition-states " << first
                  << " and " << s << " share pdf " << group.first
                  << " but have different numbers of transitions";
      for (int32 i = 0; i < n; i++) counts[i] += stats(state2id_[s] + i);
    }
    double total = 0.0;
    for (double c : counts) total += c;
    count_sum += total;
    if (total < cfg.mincount) {
      num_skipped++;
      continue;
    }
    std::vector<int32> tids(n);
    for (int32 i = 0; i < n; i++) tids[i] = state2id_[first] + i;
    std::vector<BaseFloat> new_probs;
    EstimateProbs(counts, tids, cfg, &new_probs, &objf_impr, &num_floored);
    for (int32 s : states)
      for (int32 i = 0; i < n; i++)
        log_probs_(state2id_[s] + i) = std::log(new_probs[i]);
  }
  NNET3_LOG << "Transition update (shared per pdf): objective change "
            << objf_impr / count_sum << " per frame over " << count_sum
            << " frames; " << num_floored << " probabilities floored; "
            << num_skipped << " pdfs kept their probabilities (count below "
            << "--transition-min-count)";
  if (objf_impr_out) *objf_impr_out = objf_impr;
  if (count_out) *count_out = count_sum;
}

bool TransitionModel::Compatible(const TransitionModel &other) const {
  return topo_ == other.topo_ && tuples_ == other.tuples_ &&
         state2id_ == other.state2id_ && num_pdfs_ == other.num_pdfs_;
}

void PrintTransitionModelSizes(const TransitionModel &trans_model,
                               std::ostream &os) {
  os << "number of phones " << trans_model.GetPhones().size() << "\n"
     << "number of pdfs " << trans_model.NumPdfs() << "\n"
     << "number of transition-ids " << trans_model.NumTransitionIds() << "\n"
     << "number of transition-states " << trans_model.NumTransitionStates()
     << "\n";
}

}  // namespace nnet3
