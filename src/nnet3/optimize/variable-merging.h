// nnet3/optimize/variable-merging.h
// Variable merging (Kaldi's remove-assignments, propagate-in-place and
// backprop-in-place). Where one command reads a submatrix s1 and writes a
// submatrix s2 of the same size -- a kMatrixCopy (remove-assignments), the
// kPropagate of a component with kPropagateInPlace (propagate-in-place), or
// the kBackprop / kBackpropNoModelUpdate of a component with
// kBackpropInPlace, s1 being the output derivative and s2 the input
// derivative (backprop-in-place) -- and the data of the two never has to
// exist at the same time, their matrices become one: every submatrix of the
// dropped matrix is redirected into the kept one, a copy with alpha 1
// disappears (other copies stay as in-place scalings), and the allocation,
// deallocation and dead zeroing commands of the dropped matrix become
// kNoOperation. A "left" merge keeps the matrix of s1, a "right" merge the
// matrix of s2 (allow_left_merge / allow_right_merge).
//
// One call is one round: matrices touched by a merge are not considered
// again in that round, so callers repeat it until it returns false (as
// Kaldi's VariableMergingOptimization() does).
//
// Needs: no kGotoLabel (looped computations are left alone). Finds the most
// merges right after compilation and convert-addition, before the zeroing
// removal and the moving of sizing commands (Kaldi's order); elsewhere it
// declines any merge whose safety it cannot establish.
// Keeps: results exactly; peak memory never grows; commands other than the
// ones turned into kNoOperation (which are removed before returning) keep
// their order. The dropped matrices, and submatrices that become
// duplicates, stay in the lists unused until RenumberComputation() drops
// them -- run it before checking the computation.
#ifndef NNET3_NNET3_OPTIMIZE_VARIABLE_MERGING_H_
#define NNET3_NNET3_OPTIMIZE_VARIABLE_MERGING_H_

#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"
#include "nnet3/optimize/optimize.h"

namespace nnet3 {

// One round of merging; returns true if anything changed. Does nothing
// (returns false) if config.optimize is false or none of
// remove_assignments, propagate_in_place and backprop_in_place is set.
bool VariableMergingOptimization(const NnetOptimizeOptions &config,
                                 const Nnet &nnet,
                                 NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_VARIABLE_MERGING_H_
