// nnet3/optimize/move-sizing.h
// move-sizing-commands: moves each kAllocMatrix (with the zeroing that
// follows it) to just before the first command that uses the matrix, and
// each kDeallocMatrix to just after the last, so matrices live only as long
// as they are needed and peak memory drops.
// Needs: no kGotoLabel (not for looped computations). Keeps: results
// exactly; the relative order of all other commands.
#ifndef NNET3_NNET3_OPTIMIZE_MOVE_SIZING_H_
#define NNET3_NNET3_OPTIMIZE_MOVE_SIZING_H_

#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

void MoveSizingCommands(const Nnet &nnet, NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_MOVE_SIZING_H_
