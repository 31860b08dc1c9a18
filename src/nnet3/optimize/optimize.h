// nnet3/optimize/optimize.h
// The optimizer's options (Kaldi's names, registered under the
// "optimization." prefix on the tools) and its entry point, Optimize(),
// which runs the enabled passes over a compiled computation in a fixed
// order (listed in optimize.cc like a recipe). Every pass keeps the
// computation's results unchanged: same outputs, input derivatives and
// model updates.
#ifndef NNET3_NNET3_OPTIMIZE_OPTIMIZE_H_
#define NNET3_NNET3_OPTIMIZE_OPTIMIZE_H_

#include <climits>

#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"
#include "util/options.h"

namespace nnet3 {

struct NnetOptimizeOptions {
  bool optimize = true;
  bool consolidate_model_update = true;
  bool propagate_in_place = true;
  bool backprop_in_place = true;
  bool optimize_row_ops = true;
  bool split_row_ops = true;
  bool extend_matrices = true;
  bool convert_addition = true;
  bool remove_assignments = true;
  bool allow_left_merge = true;
  bool allow_right_merge = true;
  bool initialize_undefined = true;
  bool move_sizing_commands = true;
  bool allocate_from_other = true;
  int32 min_deriv_time = INT_MIN;
  int32 max_deriv_time = INT_MAX;
  int32 max_deriv_time_relative = INT_MAX;
  bool snip_row_ops = true;
  int32 memory_compression_level = 1;

  void Register(OptionsItf *opts);
  bool operator==(const NnetOptimizeOptions &other) const;
};

// Optimizes 'computation' (compiled for 'nnet') in place.
// max_output_time_in_request is the largest t of any output in the request
// (used by --max-deriv-time-relative).
void Optimize(const NnetOptimizeOptions &config, const Nnet &nnet,
              int32 max_output_time_in_request, NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_OPTIMIZE_H_
