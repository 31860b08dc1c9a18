// nnet3/train/nnet-trainer.h
// NnetTrainer: stochastic gradient descent on a network, one minibatch (a
// merged NnetExample) at a time, as Kaldi's nnet3 NnetTrainer does it:
//   1. compile the example's request (with model derivatives; cached);
//   2. forward with the current network; statistics (StoreStats, e.g.
//      BatchNorm's) go to the network itself;
//   3. objective and its derivative for every output (objective.h); the
//      backward pass accumulates the learning-rate-scaled gradient into
//      delta_nnet_ (a copy of the network scaled to zero, so each component
//      uses its own learning rate, learning-rate-factor and, for
//      natural-gradient components, preconditioner);
//   4. l2 regularization (ApplyL2Regularization, scaled by the number of
//      sequences in the minibatch and --l2-regularize-factor);
//   5. the update nnet += (1 - momentum) * delta with per-component and
//      global max-change (max-change.h);
//   6. BatchNorm statistics scaled by --batchnorm-stats-scale;
//   7. delta_nnet_ scaled by momentum (0 if the update was refused).
// Backstitch training (--backstitch-training-scale = alpha > 0, Kaldi's
// algorithm): on every --backstitch-training-interval'th minibatch (the
// phase fixed by a seed drawn when the trainer is made) the minibatch is
// used twice: first a step of -alpha times the gradient (natural gradient
// frozen, max-change scaled by alpha, orthonormal constraints applied),
// then, from the moved parameters, a step of (1 + alpha) times the new
// gradient (max-change scaled by 1 + alpha, l2 added with scale
// 1 / (1 + alpha), BatchNorm statistics scaled). Both passes see the same
// dropout masks. The second pass's objective is reported under the output's
// name plus "_backstitch". Momentum must be 0.
// Objective totals per output are logged every --print-interval minibatches
// and at the end (PrintTotalStats), in Kaldi's words.
// Affines that read one node at several time offsets (the wide layers of
// a TDNN) are trained as TdnnComponents, without the spliced copy of their
// input (--spliced-affine-min-dim; nnet3/nnet/nnet-splice-tdnn.h): the
// rewrite is applied to the network and the delta network for the length
// of each Train() call and undone after it.
// Invariants: delta_nnet_ has the structure of the network; the network
// keeps its structure while the trainer exists (the compiler caches by it)
// and, between calls, has the components it was given.
#ifndef NNET3_NNET3_TRAIN_NNET_TRAINER_H_
#define NNET3_NNET3_TRAIN_NNET_TRAINER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nnet3/compute/nnet-computer.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/nnet/nnet-splice-tdnn.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "util/options.h"

namespace nnet3 {

struct NnetTrainerOptions {
  bool zero_component_stats = true;
  bool store_component_stats = true;
  int32 print_interval = 100;
  bool debug_computation = false;
  BaseFloat momentum = 0.0;
  BaseFloat l2_regularize_factor = 1.0;
  BaseFloat batchnorm_stats_scale = 0.8;
  BaseFloat max_param_change = 2.0;
  BaseFloat backstitch_training_scale = 0.0;
  int32 backstitch_training_interval = 1;
  // Ours (nnet3/nnet/nnet-splice-tdnn.h): affines reading a node at least
  // this wide at several time offsets are trained as TdnnComponents; 0:
  // never.
  int32 spliced_affine_min_dim = kMinSplicedPartDimForTdnn;
  std::string read_cache, write_cache;
  bool binary_write_cache = true;
  NnetOptimizeOptions optimize_config;
  NnetComputeOptions compute_config;
  CachingOptimizingCompilerOptions compiler_config;
  // Registers the options under Kaldi's names (optimization.*, compiler.*
  // and computation.* as prefixed groups).
  void Register(OptionsItf *opts);
  // UserError for out-of-range values (names the option).
  void Check() const;
};

// Objective totals of one output, with the "phase" (block of
// print_interval minibatches) logging of Kaldi's ObjectiveFunctionInfo.
struct ObjectiveFunctionInfo {
  int32 current_phase = 0;
  int32 minibatches_this_phase = 0;
  double tot_weight = 0.0, tot_objf = 0.0;
  double tot_weight_this_phase = 0.0, tot_objf_this_phase = 0.0;

  // Adds one minibatch (minibatch_counter = its number, from 0); logs the
  // previous phase's average when a new phase starts.
  void UpdateStats(const std::string &output_name, int32 minibatches_per_phase,
                   int32 minibatch_counter, BaseFloat this_minibatch_weight,
                   BaseFloat this_minibatch_tot_objf);
  void PrintStatsForThisPhase(const std::string &output_name,
                              int32 minibatches_per_phase, int32 phase) const;
  // Logs the overall average; returns false if no weight was seen.
  bool PrintTotalStats(const std::string &output_name) const;
};

class NnetTrainer {
 public:
  // 'nnet' is updated in place and must outlive the trainer. Reads
  // --read-cache if it names an existing file.
  NnetTrainer(const NnetTrainerOptions &config, Nnet *nnet);
  ~NnetTrainer();

  // One minibatch. UserError on examples that do not fit the network
  // (unknown node names, wrong dimensions).
  void Train(const NnetExample &eg);

  // Logs the overall objective per output (sorted by name) and the
  // max-change statistics; true if any output had nonzero weight.
  bool PrintTotalStats() const;
  // Writes the computation cache to --write-cache (if set).
  void WriteCache() const;

  int32 NumMinibatchesProcessed() const { return num_minibatches_processed_; }
  // nullptr if no minibatch had this output.
  const ObjectiveFunctionInfo *GetObjective(const std::string &name) const;
  const Nnet &DeltaNnet() const { return *delta_nnet_; }
  // How many affine layers are trained as TdnnComponents.
  int32 NumSplicedAffinesAsTdnn() const {
    return nnet_rewrite_.NumRewritten();
  }

 private:
  // One pass over the minibatch: forward, objectives (reported with
  // "suffix" appended to the output names), backward into delta_nnet_.
  void ForwardBackward(const NnetExample &eg,
                       const NnetComputation &computation,
                       const std::string &suffix);
  // Plain SGD step, and one of the two backstitch steps.
  void TrainConventional(const NnetExample &eg,
                         const NnetComputation &computation);
  void TrainBackstitchStep(const NnetExample &eg,
                           const NnetComputation &computation, bool first);
  void ProcessOutputs(const NnetExample &eg, NnetComputer *computer,
                      const std::string &suffix);
  void PrintMaxChangeStats() const;

  class RewriteScope;

  NnetTrainerOptions config_;
  Nnet *nnet_;
  std::unique_ptr<Nnet> delta_nnet_;
  // The spliced-affine rewrites of nnet_ and delta_nnet_, applied only
  // inside Train() (and while reading the cache): outside, both networks
  // have their own components.
  SplicedAffinesAsTdnn nnet_rewrite_;
  std::unique_ptr<SplicedAffinesAsTdnn> delta_rewrite_;
  CachingOptimizingCompiler compiler_;
  int32 num_minibatches_processed_ = 0;
  std::vector<int32> num_max_change_per_component_applied_;
  int32 num_max_change_global_applied_ = 0;
  // Picks which minibatches get backstitch and seeds their dropout masks.
  int32 srand_seed_ = 0;
  std::map<std::string, ObjectiveFunctionInfo> objf_info_;
};

// Copies the features of every NnetIo that names an input node of nnet
// into the computer.
void ProvideInputs(const Nnet &nnet, const NnetExample &eg,
                   NnetComputer *computer);
// UserError (naming the NnetIo and both dimensions) if an NnetIo that names
// an input or output node has a feature dimension other than the node's.
void CheckExampleDims(const Nnet &nnet, const NnetExample &eg);

}  // namespace nnet3

#endif  // NNET3_NNET3_TRAIN_NNET_TRAINER_H_
