// nnet3/optimize/extend-matrices.h
// extend-matrices: an enabler for variable merging. When a whole-width copy
// (kMatrixCopy, alpha 1) reads the first rows of a source matrix (at least
// 80% of them, but not all) into a row range that ends at the last row of
// the destination matrix, the destination matrix is given extra rows so
// that the copy can take the *whole* source matrix; a copy of a whole
// matrix is what remove-assignments can merge away.
// Needs: no kSwapMatrix commands yet (it runs before allocate-from-other);
// matrices involved in kAcceptInput/kProvideOutput are never resized.
// Keeps: every value the computation used before (the added rows are written
// by the widened copy and read by nobody); allocation, deallocation and
// whole-matrix zeroing cover the grown matrices; debug info gets one Cindex
// per added row (a copy of an earlier row with t = kNoTime). The checker
// tolerates the unused added rows because they lie in the last 20%.
#ifndef NNET3_NNET3_OPTIMIZE_EXTEND_MATRICES_H_
#define NNET3_NNET3_OPTIMIZE_EXTEND_MATRICES_H_

#include "nnet3/compile/computation.h"

namespace nnet3 {

// Returns true if anything changed (the computation is then renumbered).
bool ExtendMatrices(NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_EXTEND_MATRICES_H_
