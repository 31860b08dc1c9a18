// hmm/alignment.cc
// Splitting alignments into phones (see alignment.h).
#include "hmm/alignment.h"

#include "base/log.h"

namespace nnet3 {

namespace {

// Whether self-loops come after the forward transition of their state:
// decided by the first change of transition-state that touches a self-loop;
// with one transition-state throughout, by the self-loop at either end.
bool IsReordered(const TransitionModel &tm,
                 const std::vector<int32> &alignment) {
  for (size_t i = 0; i + 1 < alignment.size(); i++) {
    int32 a = alignment[i], b = alignment[i + 1];
    if (tm.TransitionIdToTransitionState(a) ==
        tm.TransitionIdToTransitionState(b))
      continue;
    bool loop_a = tm.IsSelfLoop(a), loop_b = tm.IsSelfLoop(b);
    if (loop_a && loop_b)
      NNET3_ERR << "Invalid alignment: self-loops of two different states "
                << "(transition-ids " << a << " and " << b
                << ") follow each other at frame " << i;
    if (loop_a) return true;
    if (loop_b) return false;
  }
  if (alignment.empty()) return false;
  if (tm.IsSelfLoop(alignment.front())) return false;
  return tm.IsSelfLoop(alignment.back());
}

}  // namespace

bool SplitToPhones(const TransitionModel &tm,
                   const std::vector<int32> &alignment,
                   std::vector<std::vector<int32> > *split) {
  split->clear();
  if (alignment.empty()) return true;
  bool reordered = IsReordered(tm, alignment);
  bool ok = true;
  std::vector<size_t> ends;  // one past the last frame of each phone
  for (size_t i = 0; i < alignment.size(); i++) {
    int32 tid = alignment[i];
    if (tm.IsFinal(tid)) {
      if (reordered) {
        while (i + 1 < alignment.size() && tm.IsSelfLoop(alignment[i + 1])) {
          if (tm.TransitionIdToTransitionState(alignment[i + 1]) !=
              tm.TransitionIdToTransitionState(tid))
            NNET3_ERR << "Invalid alignment: the self-loop at frame " << i + 1
                      << " belongs to another state than the final "
                      << "transition before it";
          i++;
        }
      }
      ends.push_back(i + 1);
    } else if (i + 1 == alignment.size()) {
      ok = false;  // the last phone does not end in its final state
      ends.push_back(i + 1);
    } else {
      int32 s1 = tm.TransitionIdToTransitionState(tid),
            s2 = tm.TransitionIdToTransitionState(alignment[i + 1]);
      if (s1 != s2 &&
          tm.TransitionStateToPhone(s1) != tm.TransitionStateToPhone(s2)) {
        ok = false;  // the phone changes without a final transition
        ends.push_back(i + 1);
      }
    }
  }
  size_t begin = 0;
  for (size_t end : ends) {
    int32 tstate = tm.TransitionIdToTransitionState(alignment[begin]);
    int32 phone = tm.TransitionStateToPhone(tstate);
    if (tm.GetTopo().TopologyForPhone(phone)[0].forward_pdf_class != kNoPdf &&
        tm.TransitionStateToHmmState(tstate) != 0)
      ok = false;  // a phone that does not start in its first state
    split->push_back(std::vector<int32>(alignment.begin() + begin,
                                        alignment.begin() + end));
    begin = end;
  }
  return ok;
}

}  // namespace nnet3
