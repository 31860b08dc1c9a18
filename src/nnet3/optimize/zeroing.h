// nnet3/optimize/zeroing.h
// initialize-undefined: removes the zeroing (kSetConst 0 on a whole matrix,
// the first thing done to it) of matrices whose every part is next fully
// overwritten before anything reads it, so the matrix may start undefined.
// Needs: nothing. Keeps: results exactly; outputs that nothing writes keep
// their zeroing.
#ifndef NNET3_NNET3_OPTIMIZE_ZEROING_H_
#define NNET3_NNET3_OPTIMIZE_ZEROING_H_

#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// Turns the unnecessary zeroing commands into kNoOperation.
void RemoveUnnecessaryZeroing(const Nnet &nnet, NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_ZEROING_H_
