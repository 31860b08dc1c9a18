// nnet3/optimize/io-consolidation.h
// consolidate I/O: within each segment of the computation (the parts
// between kNoOperationMarker commands), kAcceptInput commands move to the
// start and kProvideOutput commands to the end, so the NnetComputer can
// take all inputs of a segment before running it and hand all outputs over
// after it.
// Needs: nothing. Keeps: results exactly (an input's matrix is written by
// nothing else; an output's is not written after it is provided).
#ifndef NNET3_NNET3_OPTIMIZE_IO_CONSOLIDATION_H_
#define NNET3_NNET3_OPTIMIZE_IO_CONSOLIDATION_H_

#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

void ConsolidateIoOperations(const Nnet &nnet, NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_IO_CONSOLIDATION_H_
