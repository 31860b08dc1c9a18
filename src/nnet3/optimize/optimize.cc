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
                 "Master switch: false skips every optimization pass");
  opts->Register("consolidate-model-update", &consolidate_model_update,
                 "Merge the parameter updates that backprop would make at "
                 "many time steps (recurrent networks) into one update per "
                 "component; false keeps them separate");
  opts->Register("propagate-in-place", &propagate_in_place,
                 "Let a component's forward pass overwrite its input matrix "
                 "when nothing else reads it (false: always a new matrix)");
  opts->Register("backprop-in-place", &backprop_in_place,
                 "Let a component's backward pass overwrite the output "
                 "derivative when nothing else reads it (false: never)");
  opts->Register("extend-matrices", &extend_matrices,
                 "Grow matrices so that neighbouring submatrices share one "
                 "allocation; saves memory in TDNNs, best used with "
                 "--convert-addition=true");
  opts->Register("optimize-row-ops", &optimize_row_ops,
                 "Simplify row-indexed commands (copy/add rows, multi-row "
                 "and range forms) where the indexes allow; false: leave "
                 "them as compiled");
  opts->Register("split-row-ops", &split_row_ops,
                 "Rewrite a kCopyRowsMulti or kAddRowsMulti command as one "
                 "or two cheaper single-source commands where possible; "
                 "false: never");
  opts->Register("convert-addition", &convert_addition,
                 "Turn an Add command whose destination is still undefined "
                 "into a Copy command; false: keep the additions");
  opts->Register("remove-assignments", &remove_assignments,
                 "Drop copies between matrices by letting the two share "
                 "storage (variable merging); false: keep every copy");
  opts->Register("allow-left-merge", &allow_left_merge,
                 "In --remove-assignments, allow the merged variable to take "
                 "the source's storage (rarely worth changing)");
  opts->Register("allow-right-merge", &allow_right_merge,
                 "In --remove-assignments, allow the merged variable to take "
                 "the destination's storage (rarely worth changing)");
  opts->Register("initialize-undefined", &initialize_undefined,
                 "Skip the zeroing of matrices whose first use overwrites "
                 "them; false: always zero new matrices");
  opts->Register("move-sizing-commands", &move_sizing_commands,
                 "Allocate each matrix just before its first use and free it "
                 "right after its last, to lower peak memory; false: keep the "
                 "compiled order");
  opts->Register("allocate-from-other", &allocate_from_other,
                 "When a matrix is freed and another of the same shape is "
                 "allocated later, hand over the memory instead of freeing "
                 "and allocating again");
  opts->Register("min-deriv-time", &min_deriv_time,
                 "Frames with t below this value get no parameter "
                 "derivatives (saves backprop time in recurrent networks; "
                 "default: no limit)");
  opts->Register("max-deriv-time", &max_deriv_time,
                 "Frames with t above this value get no parameter "
                 "derivatives (saves backprop time in recurrent networks; "
                 "default: no limit)");
  opts->Register("max-deriv-time-relative", &max_deriv_time_relative,
                 "Like --max-deriv-time, but counted from the largest t of "
                 "the request's outputs (max-deriv-time = that t plus this "
                 "value); for egs of varying length");
  opts->Register("snip-row-ops", &snip_row_ops,
                 "Trim row-indexed commands whose index lists start or end "
                 "with unused (-1) rows so that they touch fewer rows; "
                 "false: never");
  opts->Register("memory-compression-level", &memory_compression_level,
                 "Training only: how hard to compress values kept for "
                 "backprop to save memory. 0: none; 1: only compression that "
                 "leaves results unchanged; 2: also lossy compression, "
                 "slower and with less exact derivatives");
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
