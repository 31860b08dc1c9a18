// nnet3/optimize/convert-addition.h
// convert-addition: an addition into a destination that nothing but its
// zeroing has touched yet (kMatrixAdd, kAddRows, kAddRowsMulti, and
// kAddToRowsMulti with alpha 1) becomes the corresponding copy, which lets
// initialize-undefined drop the zeroing afterwards.
// Needs: nothing. Keeps: results exactly (adding to zeros equals copying;
// rows a copy leaves out are zeroed by the copy or were zero already).
#ifndef NNET3_NNET3_OPTIMIZE_CONVERT_ADDITION_H_
#define NNET3_NNET3_OPTIMIZE_CONVERT_ADDITION_H_

#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

void ConvertAdditionToAssignment(const Nnet &nnet,
                                 NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_CONVERT_ADDITION_H_
