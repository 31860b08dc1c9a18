// nnet3/optimize/row-ops.h
// Three passes that make row-selection commands cheaper:
//  - optimize-row-ops (ReplaceRowWithMatrixOps): a kCopyRows/kAddRows whose
//    index vector is a run of consecutive source rows becomes a plain
//    kMatrixCopy/kMatrixAdd between row ranges. For kAddRows the run may be
//    flanked by -1 entries (they add nothing); for kCopyRows it must cover
//    every row, since a -1 there zeroes its row. An index vector of only -1
//    removes a kAddRows and turns a kCopyRows into kSetConst 0.
//  - snip-row-ops (SnipRowOps): the leading and trailing rows a command
//    leaves untouched are cut off its destination (a new row-range
//    submatrix) and off its index vector: kAddRows (-1 entries),
//    kAddRowsMulti / kAddToRowsMulti / kCopyToRowsMulti ((-1,-1) pairs) and
//    kAddRowRanges (empty ranges). Copies into rows (kCopyRows,
//    kCopyRowsMulti) are left alone: their -1 entries zero the row.
//  - split-row-ops (SplitRowOps): a kAddRowsMulti / kCopyRowsMulti /
//    kAddToRowsMulti / kCopyToRowsMulti whose pairs form at most two blocks,
//    each naming a single submatrix and no (-1,-1), with each block's rows
//    spanning at most twice the block's length, becomes one or two
//    kMatrixCopy/kMatrixAdd (rows consecutive) or kCopyRows/kAddRows
//    commands. A kCopyToRowsMulti block whose rows are not consecutive is
//    not split (an inverted kCopyRows would zero rows it must not touch),
//    nor a kAddToRowsMulti block naming the same row twice.
// Needs: a valid computation (any command order, looped or not). Keeps:
// results exactly; new submatrices and index vectors are appended, and
// commands a pass deletes become kNoOperation (RemoveNoOps and
// RenumberComputation tidy up afterwards). Each returns true if it changed
// anything.
#ifndef NNET3_NNET3_OPTIMIZE_ROW_OPS_H_
#define NNET3_NNET3_OPTIMIZE_ROW_OPS_H_

#include "nnet3/compile/computation.h"

namespace nnet3 {

bool ReplaceRowWithMatrixOps(NnetComputation *computation);

bool SnipRowOps(NnetComputation *computation);

bool SplitRowOps(NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_ROW_OPS_H_
