// nnet3/optimize/renumber.h
// Housekeeping passes that every optimization recipe ends with:
//  - RemoveNoOps: drops kNoOperation commands (passes turn commands they
//    delete into kNoOperation so command indexes stay valid while they
//    work); kNoOperationPermanent, markers and labels stay.
//  - RenumberComputation: drops submatrices no command uses, merges
//    identical submatrices, drops matrices with no submatrix left and index
//    vectors no command uses, and renumbers everything densely.
// Both keep the computation's meaning exactly; submatrix 0 and matrix 0
// stay the empty ones.
#ifndef NNET3_NNET3_OPTIMIZE_RENUMBER_H_
#define NNET3_NNET3_OPTIMIZE_RENUMBER_H_

#include <vector>

#include "nnet3/compile/computation.h"

namespace nnet3 {

void RemoveNoOps(NnetComputation *computation);

void RenumberComputation(NnetComputation *computation);

// Pointers to the submatrix arguments of a command (for rewriting them).
void IdentifySubmatrixArgs(NnetComputation::Command *command,
                           std::vector<int32 *> *submatrix_args);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_RENUMBER_H_
