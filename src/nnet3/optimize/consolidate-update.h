// nnet3/optimize/consolidate-update.h
// consolidate-model-update: in a training computation an updatable
// component may be backpropagated many times (in a recurrent network, once
// per time step), each kBackprop doing its own small model update. This
// pass turns those per-step commands into kBackpropNoModelUpdate (they still
// compute the input derivatives) and adds, right after the last of them,
// one kBackprop that does the whole model update at once. Its input value,
// output value (when the component's Backprop needs it) and output
// derivative are new matrices that concatenate, row range by row range, the
// matrices the per-step commands read; a kMatrixCopy just before each
// per-step command fills its row range with exactly what that command sees.
//
// Needs: need_model_derivative (otherwise nothing to do); components that
// are simple, updatable and memo-free (others are left alone, as are
// commands with precomputed indexes or a memo), and a computation that is
// not looped (no kGotoLabel). Keeps: outputs and input derivatives exactly;
// the model update is the same sum of per-row terms (for components whose
// update is linear in the rows, which is every simple updatable component
// here), computed in one call. Per-step commands left with no input
// derivative to compute become kNoOperation (call RemoveNoOps afterwards).
// The new matrices are allocated just before the first per-step command and
// freed right after the consolidated kBackprop, and get debug info
// (concatenated cindexes) when the computation has it.
#ifndef NNET3_NNET3_OPTIMIZE_CONSOLIDATE_UPDATE_H_
#define NNET3_NNET3_OPTIMIZE_CONSOLIDATE_UPDATE_H_

#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// Consolidates the model update of every component with more than one
// eligible kBackprop command (see above).
void ConsolidateModelUpdate(const Nnet &nnet, NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_CONSOLIDATE_UPDATE_H_
