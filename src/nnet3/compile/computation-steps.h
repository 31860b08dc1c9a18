// nnet3/compile/computation-steps.h
// Ordering a pruned ComputationGraph into phases and steps.
//
// A phase is a set of Cindexes that can be computed together: nothing in a
// phase depends on anything in the same or a later phase. Phases follow the
// network's computation epochs (strongly connected components in
// topological order); inside an epoch the phase of a Cindex is its depth in
// the dependencies that stay inside the epoch, so a recurrent layer gets one
// phase per time step while a feed-forward layer gets one phase in total.
//
// A step is a list of cindex_ids of one network node, computed by one
// command (or a few); each step becomes one matrix. The steps obey:
//  (a) each requested input and output is exactly one step, with the
//      request's Indexes in the request's order;
//  (b) a component step is immediately preceded by the step of its input
//      descriptor node with the same Indexes in the same order;
//  (c) a dim-range node's step mirrors one step of its source node row for
//      row (Cindexes added to the graph where needed), so it can be a column
//      range of the source's matrix.
// Other steps list their Cindexes sorted by Index (t, then x, then n).
#ifndef NNET3_NNET3_COMPILE_COMPUTATION_STEPS_H_
#define NNET3_NNET3_COMPILE_COMPUTATION_STEPS_H_

#include <utility>
#include <vector>

#include "nnet3/compile/computation-graph.h"

namespace nnet3 {

// phases[p] lists cindex_ids (sorted by Cindex) of phase p.
void ComputeComputationPhases(const Nnet &nnet, const ComputationGraph &graph,
                              std::vector<std::vector<int32> > *phases);

// Splits the phases into steps as described above. May add Cindexes to
// the graph for rule (c). locations[cindex_id] = (step, row).
void ComputeComputationSteps(
    const Nnet &nnet, const ComputationRequest &request,
    const std::vector<std::vector<int32> > &phases, ComputationGraph *graph,
    std::vector<std::vector<int32> > *steps,
    std::vector<std::pair<int32, int32> > *locations);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPILE_COMPUTATION_STEPS_H_
