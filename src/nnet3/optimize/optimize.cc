// nnet3/optimize/optimize.cc
// The optimizer's recipe: which passes run, in which order, under which
// options. Each pass lives in its own file.
#include "nnet3/optimize/optimize.h"

#include "base/log.h"
#include "base/timer.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/analyze/checker.h"
#include "nnet3/optimize/allocate-from-other.h"
#include "nnet3/optimize/consolidate-update.h"
#include "nnet3/optimize/convert-addition.h"
#include "nnet3/optimize/deriv-time.h"
#include "nnet3/optimize/extend-matrices.h"
#include "nnet3/optimize/io-consolidation.h"
#include "nnet3/optimize/memory-compression.h"
#include "nnet3/optimize/move-sizing.h"
#include "nnet3/optimize/renumber.h"
#include "nnet3/optimize/row-ops.h"
#include "nnet3/optimize/variable-merging.h"
#include "nnet3/optimize/zeroing.h"

namespace nnet3 {

void NnetOptimizeOptions::Register(OptionsItf *opts) {
  opts->Register("optimize", &optimize,
                 "Set this to false to turn off all optimizations");
  opts->Register("consolidate-model-update", &consolidate_model_update,
                 "Set to false to disable optimization that consolidates the "
                 "model-update phase of backprop (e.g. for recurrent "
                 "architectures");
  opts->Register("propagate-in-place", &propagate_in_place,
                 "Set to false to disable optimization that allows in-place "
                 "propagation");
  opts->Register("backprop-in-place", &backprop_in_place,
                 "Set to false to disable optimization that allows in-place "
                 "backprop");
  opts->Register("extend-matrices", &extend_matrices,
                 "This optimization can reduce memory requirements for TDNNs "
                 "when applied together with --convert-addition=true");
  opts->Register("optimize-row-ops", &optimize_row_ops,
                 "Set to false to disable certain optimizations that act on "
                 "operations of type *Row*.");
  opts->Register("split-row-ops", &split_row_ops,
                 "Set to false to disable an optimization that may replace "
                 "some operations of type kCopyRowsMulti or kAddRowsMulti "
                 "with up to two simpler operations.");
  opts->Register("convert-addition", &convert_addition,
                 "Set to false to disable the optimization that converts "
                 "Add commands into Copy commands wherever possible.");
  opts->Register("remove-assignments", &remove_assignments,
                 "Set to false to disable optimization that removes "
                 "redundant assignments");
  opts->Register("allow-left-merge", &allow_left_merge,
                 "Set to false to disable left-merging of variables in "
                 "remove-assignments (obscure option)");
  opts->Register("allow-right-merge", &allow_right_merge,
                 "Set to false to disable right-merging of variables in "
                 "remove-assignments (obscure option)");
  opts->Register("initialize-undefined", &initialize_undefined,
                 "Set to false to disable optimization that avoids redundant "
                 "zeroing");
  opts->Register("move-sizing-commands", &move_sizing_commands,
                 "Set to false to disable optimization that moves matrix "
                 "allocation and deallocation commands to conserve memory.");
  opts->Register("allocate-from-other", &allocate_from_other,
                 "Instead of deleting a matrix of a given size and then "
                 "allocating a matrix of the same size, allow re-use of that "
                 "memory");
  opts->Register("min-deriv-time", &min_deriv_time,
                 "You can set this to the minimum t value that you want "
                 "derivatives to be computed at when updating the model.  "
                 "This is an optimization that saves time in the backprop "
                 "phase for recurrent frameworks");
  opts->Register("max-deriv-time", &max_deriv_time,
                 "You can set this to the maximum t value that you want "
                 "derivatives to be computed at when updating the model.  "
                 "This is an optimization that saves time in the backprop "
                 "phase for recurrent frameworks");
  opts->Register("max-deriv-time-relative", &max_deriv_time_relative,
                 "An alternative mechanism for setting the --max-deriv-time, "
                 "suitable for situations where the length of the egs is "
                 "variable.  If set, it is equivalent to setting the "
                 "--max-deriv-time to this value plus the largest 't' value "
                 "in any 'output' node of the computation request.");
  opts->Register("snip-row-ops", &snip_row_ops,
                 "Set this to false to disable an optimization that reduces "
                 "the size of certain per-row operations");
  opts->Register("memory-compression-level", &memory_compression_level,
                 "This is only relevant to training, not decoding.  Set this "
                 "to 0,1,2; higher levels are more aggressive at reducing "
                 "memory by compressing quantities needed for backprop, "
                 "potentially at the expense of speed and the accuracy of "
                 "derivatives.  0 means no compression at all; 1 means "
                 "compression that shouldn't affect results at all.");
}

bool NnetOptimizeOptions::operator==(const NnetOptimizeOptions &o) const {
  return optimize == o.optimize &&
         consolidate_model_update == o.consolidate_model_update &&
         propagate_in_place == o.propagate_in_place &&
         backprop_in_place == o.backprop_in_place &&
         optimize_row_ops == o.optimize_row_ops &&
         split_row_ops == o.split_row_ops &&
         extend_matrices == o.extend_matrices &&
         convert_addition == o.convert_addition &&
         remove_assignments == o.remove_assignments &&
         allow_left_merge == o.allow_left_merge &&
         allow_right_merge == o.allow_right_merge &&
         initialize_undefined == o.initialize_undefined &&
         move_sizing_commands == o.move_sizing_commands &&
         allocate_from_other == o.allocate_from_other &&
         min_deriv_time == o.min_deriv_time &&
         max_deriv_time == o.max_deriv_time &&
         max_deriv_time_relative == o.max_deriv_time_relative &&
         snip_row_ops == o.snip_row_ops &&
         memory_compression_level == o.memory_compression_level;
}

namespace {

// Runs one pass; at --verbose >= 4 logs its time and what it saved, and at
// --verbose >= 3 (or in debug builds) checks the computation afterwards.
template <class Pass>
void RunPass(const char *name, const Nnet &nnet, NnetComputation *computation,
             Pass pass) {
  bool log = GetVerboseLevel() >= 4;
  size_t commands_before = 0;
  int64 memory_before = 0;
  if (log) {
    commands_before = computation->commands.size();
    memory_before = GetMaxMemoryUse(*computation);
  }
  Timer timer;
  pass();
  if (log)
    NNET3_LOG << "Optimization pass " << name << ": " << timer.Elapsed() * 1000
              << " ms; commands " << commands_before << " -> "
              << computation->commands.size() << ", peak matrix memory "
              << memory_before << " -> " << GetMaxMemoryUse(*computation)
              << " bytes";
#ifdef NDEBUG
  if (GetVerboseLevel() >= 3)
#endif
  {
    try {
      CheckComputation(nnet, *computation, false);
    } catch (const UserError &e) {
      NNET3_ERR << "Computation check failed after optimization pass " << name
                << ": " << e.message();
    }
  }
}

}  // namespace

void Optimize(const NnetOptimizeOptions &config, const Nnet &nnet,
              int32 max_output_time_in_request, NnetComputation *computation) {
  // Derivative-time limits change what is computed (not just how), so they
  // apply even with --optimization.optimize=false; they need the freshly
  // compiled computation.
  int32 max_deriv_time = config.max_deriv_time;
  if (config.max_deriv_time_relative != INT_MAX)
    max_deriv_time = config.max_deriv_time_relative + max_output_time_in_request;
  if (config.min_deriv_time != INT_MIN || max_deriv_time != INT_MAX)
    RunPass("min/max-deriv-time", nnet, computation, [&] {
      LimitDerivativeTimes(nnet, config.min_deriv_time, max_deriv_time,
                           computation);
    });
  if (!config.optimize) {
    // Even unoptimized computations get their I/O in Kaldi's places.
    ConsolidateIoOperations(nnet, computation);
    return;
  }
  if (config.consolidate_model_update)
    RunPass("consolidate-model-update", nnet, computation, [&] {
      ConsolidateModelUpdate(nnet, computation);
      RemoveNoOps(computation);
    });
  if (config.convert_addition)
    RunPass("convert-addition", nnet, computation,
            [&] { ConvertAdditionToAssignment(nnet, computation); });
  auto row_ops = [&] {
    bool changed = false;
    if (config.snip_row_ops && SnipRowOps(computation)) changed = true;
    if (config.split_row_ops && SplitRowOps(computation)) changed = true;
    if (config.optimize_row_ops && ReplaceRowWithMatrixOps(computation))
      changed = true;
    if (changed) {
      RemoveNoOps(computation);
      RenumberComputation(computation);
    }
  };
  bool any_row_ops =
      config.snip_row_ops || config.split_row_ops || config.optimize_row_ops;
  if (any_row_ops) RunPass("row-ops", nnet, computation, row_ops);
  if (config.extend_matrices)
    RunPass("extend-matrices", nnet, computation,
            [&] { ExtendMatrices(computation); });
  if (config.remove_assignments || config.backprop_in_place ||
      config.propagate_in_place)
    RunPass("variable-merging", nnet, computation, [&] {
      while (VariableMergingOptimization(config, nnet, computation)) {
      }
      // Merged-away matrices are left without allocation; drop them.
      RenumberComputation(computation);
    });
  // Merging can leave row operations between the merged matrices that are
  // now regular.
  if (any_row_ops) RunPass("row-ops (again)", nnet, computation, row_ops);
  if (config.initialize_undefined)
    RunPass("initialize-undefined", nnet, computation, [&] {
      RemoveUnnecessaryZeroing(nnet, computation);
      RemoveNoOps(computation);
    });
  if (config.move_sizing_commands)
    RunPass("move-sizing-commands", nnet, computation,
            [&] { MoveSizingCommands(nnet, computation); });
  if (config.allocate_from_other)
    RunPass("allocate-from-other", nnet, computation, [&] {
      RemoveUnnecessaryAllocation(nnet, computation);
      RemoveNoOps(computation);
    });
  RunPass("consolidate-io", nnet, computation,
          [&] { ConsolidateIoOperations(nnet, computation); });
  if (config.memory_compression_level > 0)
    RunPass("memory-compression", nnet, computation, [&] {
      OptimizeMemoryCompression(nnet, config.memory_compression_level,
                                computation);
    });
  RunPass("renumber", nnet, computation, [&] {
    RemoveNoOps(computation);
    RenumberComputation(computation);
  });
}

}  // namespace nnet3
