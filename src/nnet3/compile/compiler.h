// nnet3/compile/compiler.h
// The Compiler turns an Nnet plus a ComputationRequest into an
// NnetComputation ("Compilation in the nnet3 setup"): it builds and prunes
// the ComputationGraph, orders it into steps, gives each step a value matrix
// (and a derivative matrix where derivatives are needed), and emits the
// forward commands, a kNoOperationMarker, and the backward commands.
//
// Properties of the computation produced (the optimizer of a later issue
// relies on them):
//  - inputs are taken by kAcceptInput commands at the start and outputs
//    given by kProvideOutput at the end of the forward part; output
//    derivatives are taken right after the marker, input derivatives given
//    at the end;
//  - every other matrix is allocated and zeroed (kAllocMatrix, then
//    kSetConst with 0) at the start and freed at the end, except the
//    matrices given to the user;
//  - a component step reads only the matrix of the step just before it
//    (its input descriptor), and a dim-range step is a column range of its
//    source step's matrix;
//  - the first term written into a descriptor's matrix is a copy, later
//    terms are additions (a Const() term is set with kSetConst first).
#ifndef NNET3_NNET3_COMPILE_COMPILER_H_
#define NNET3_NNET3_COMPILE_COMPILER_H_

#include <string>
#include <utility>
#include <vector>

#include "nnet3/compile/computation-graph.h"
#include "nnet3/compile/computation.h"
#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"
#include "util/options.h"

namespace nnet3 {

struct CompilerOptions {
  bool output_debug_info = true;
  void Register(OptionsItf *opts);
};

class Compiler {
 public:
  Compiler(const ComputationRequest &request, const Nnet &nnet);
  // Errors (UserError) if some requested output cannot be computed from
  // the inputs provided, with an explanation.
  void CreateComputation(const CompilerOptions &opts,
                         NnetComputation *computation);

 private:
  struct StepInfo {
    int32 node_index = -1;
    int32 value = 0;  // submatrix of the values
    int32 deriv = 0;  // submatrix of the derivatives (0 if none)
    std::vector<Index> output_indexes;
    std::vector<int32> output_cindex_ids;
    // For component steps: the entry of
    // NnetComputation::component_precomputed_indexes made for this step by
    // Component::PrecomputeIndexes (0 if it returned nothing).
    int32 precomputed_indexes_index = 0;
    // For descriptor steps: one submatrix per part (column ranges).
    std::vector<int32> value_parts, deriv_parts;
    // input_locations_list[part][row] = (step, row) of each input summed
    // into that row.
    std::vector<std::vector<std::vector<std::pair<int32, int32> > > >
        input_locations_list;
  };
  typedef std::vector<std::vector<std::pair<int32, int32> > > LocationsList;

  void ComputeDerivNeeded(const std::vector<std::vector<int32> > &steps,
                          std::vector<bool> *deriv_needed) const;
  void ComputeStepDependencies(const std::vector<int32> &this_step,
                               std::vector<int32> *dep_steps) const;
  void CreateStepInfo(const std::vector<bool> &deriv_needed,
                      std::vector<std::vector<int32> > *steps,
                      NnetComputation *computation);
  void ComputePrecomputedIndexes(int32 step, NnetComputation *computation);
  void ComputeInputLocationsList(int32 step, int32 part,
                                 LocationsList *locations_list) const;
  void SetDebugInfo(NnetComputation *computation) const;
  void AddCommands(NnetComputation *computation);

  void CompileForwardDescriptor(int32 step, NnetComputation *computation) const;
  void CompileForwardSumDescriptor(int32 step, int32 part,
                                   NnetComputation *computation) const;
  void CompileForwardFromSubmatLocationsList(
      int32 value_submatrix, BaseFloat alpha, bool first_is_copy,
      const LocationsList &submat_lists, NnetComputation *computation) const;
  void CompileForwardFromSubmatLocations(
      int32 value_submatrix, BaseFloat alpha, bool is_copy,
      const std::vector<std::pair<int32, int32> > &submat_locations,
      NnetComputation *computation) const;
  void AddPropagateStep(int32 step, NnetComputation *computation) const;

  void CompileBackwardDescriptor(int32 step,
                                 NnetComputation *computation) const;
  void CompileBackwardSumDescriptor(int32 step, int32 part,
                                    NnetComputation *computation) const;
  void CompileBackwardFromSubmatLocationsList(
      int32 deriv_submatrix, BaseFloat alpha, const LocationsList &submat_lists,
      NnetComputation *computation) const;
  bool CompileBackwardFromIndexes(int32 deriv_submatrix,
                                  int32 input_deriv_submatrix,
                                  const std::vector<int32> &indexes,
                                  BaseFloat alpha,
                                  NnetComputation *computation) const;
  void AddBackpropStep(int32 step, NnetComputation *computation) const;

  // Splits locations lists into groups with one scale each.
  void SplitByScale(const SumDescriptor &descriptor,
                    const LocationsList &input_locations_list,
                    std::vector<std::pair<BaseFloat, LocationsList> > *split)
      const;
  // (step, row) -> (value or deriv submatrix, row).
  void ConvertToSubmatLocations(const LocationsList &locations, bool deriv,
                                LocationsList *submat_locations) const;

  const ComputationRequest &request_;
  const Nnet &nnet_;
  ComputationGraph graph_;
  std::vector<StepInfo> steps_;
  std::vector<std::pair<int32, int32> > cindex_id_to_location_;
  std::vector<bool> deriv_needed_;
};

// Convenience: compile 'request' for 'nnet'.
void CompileComputation(const Nnet &nnet, const ComputationRequest &request,
                        const CompilerOptions &opts,
                        NnetComputation *computation);

// Helpers the compiler uses, exposed for tests.
// Turns row lists of (submatrix, row) locations into columns: the result's
// lists each have one entry per row ((-1,-1) where a row has no more
// inputs), grouped so that a submatrix's entries share lists where possible.
void SplitLocations(
    const std::vector<std::vector<std::pair<int32, int32> > > &submat_lists,
    std::vector<std::vector<std::pair<int32, int32> > > *split_lists);
// As SplitLocations, but each output list names every (submatrix, row) at
// most once (so derivatives can be added to those rows in one command).
void SplitLocationsBackward(
    const std::vector<std::vector<std::pair<int32, int32> > > &submat_lists,
    std::vector<std::vector<std::pair<int32, int32> > > *split_lists);
// If all valid entries name one submatrix: *submat = it, *indexes = the
// rows (-1 for (-1,-1)); returns false otherwise.
bool ConvertToIndexes(
    const std::vector<std::pair<int32, int32> > &location_vector,
    int32 *first_value, std::vector<int32> *second_values);
// True if, for each value v >= 0 in 'indexes', the positions holding v are
// contiguous; then (*ranges)[v] = [first, last+1) of those positions, or
// (-1,-1) for values that do not occur (ranges has max-value + 1 entries).
bool HasContiguousProperty(const std::vector<int32> &indexes,
                           std::vector<std::pair<int32, int32> > *ranges);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPILE_COMPILER_H_
