// nnet3/optimize/allocate-from-other.h
// allocate-from-other (Kaldi's RemoveUnnecessaryAllocation): where a matrix
// is freed (kDeallocMatrix) and a later kAllocMatrix asks for a matrix of
// the same size and stride type, the deallocation goes and the allocation
// becomes kSwapMatrix(new, freed): the new matrix takes over the freed
// one's memory, whose old contents are as undefined to it as a fresh
// allocation's (kAllocMatrix leaves contents undefined). Pairs are chosen
// as Kaldi chooses them -- for each size, deallocations from the latest to
// the earliest, each with the earliest allocation after it not yet taken --
// except that a pair is skipped when keeping the memory until the
// allocation would raise the peak of GetMaxMemoryUse().
// Needs: no kGotoLabel (looped computations are left alone, as Kaldi does).
// Most effective after MoveSizingCommands(), which puts deallocations right
// after last uses and allocations right before first uses.
// Keeps: results exactly; peak memory (never higher); the order of all
// other commands. The dropped deallocations are removed (RemoveNoOps).
#ifndef NNET3_NNET3_OPTIMIZE_ALLOCATE_FROM_OTHER_H_
#define NNET3_NNET3_OPTIMIZE_ALLOCATE_FROM_OTHER_H_

#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

void RemoveUnnecessaryAllocation(const Nnet &nnet,
                                 NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_ALLOCATE_FROM_OTHER_H_
