// hmm/alignment.h
// Splitting an alignment (a sequence of transition-ids, one per frame) into
// the phones it passes through, as Kaldi's SplitToPhones does. A phone
// ends at a transition into the final state of its HMM; in "reordered"
// alignments (self-loops written after the forward transition of a state,
// which Kaldi detects from the alignment itself) the self-loops that follow
// that transition still belong to the phone. A phone change without a
// final transition, or an alignment that does not end on one, also ends a
// segment (the alignment is then reported as not well formed).
#ifndef NNET3_HMM_ALIGNMENT_H_
#define NNET3_HMM_ALIGNMENT_H_

#include <vector>

#include "hmm/transition-model.h"

namespace nnet3 {

// Fills *split with one vector of transition-ids per phone occurrence (in
// order; their concatenation is "alignment"). Returns false if the
// alignment did not look well formed (a segment not starting in the first
// state of an HMM whose first state emits, or not ending in a final
// transition); the split is made anyway. Transition-ids out of range are a
// UserError.
bool SplitToPhones(const TransitionModel &trans_model,
                   const std::vector<int32> &alignment,
                   std::vector<std::vector<int32> > *split);

}  // namespace nnet3

#endif  // NNET3_HMM_ALIGNMENT_H_
