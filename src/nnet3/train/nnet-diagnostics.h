// nnet3/train/nnet-diagnostics.h
// NnetComputeProb: the objective (and optionally accuracy and the gradient)
// of a network on examples, without updating it (Kaldi's
// nnet-diagnostics.h). Used by nnet3-compute-prob, nnet3-combine and
// nnet3-show-progress. Totals are kept per output node name.
// Invariants: the network is not modified unless store_component_stats is
// set and the network was given by non-const pointer (then only its
// statistics change); the gradient network (compute_deriv) has the
// structure of the network, every updatable component set as a plain
// gradient (learning rate 1).
#ifndef NNET3_NNET3_TRAIN_NNET_DIAGNOSTICS_H_
#define NNET3_NNET3_TRAIN_NNET_DIAGNOSTICS_H_

#include <map>
#include <memory>
#include <string>

#include "nnet3/compute/nnet-computer.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "util/options.h"

namespace nnet3 {

struct NnetComputeProbOptions {
  bool debug_computation = false;
  bool compute_deriv = false;
  bool compute_accuracy = true;
  bool compute_per_dim_accuracy = false;
  // Stats are stored in the network (constructor taking Nnet*).
  bool store_component_stats = false;
  NnetOptimizeOptions optimize_config;
  NnetComputeOptions compute_config;
  CachingOptimizingCompilerOptions compiler_config;
  void Register(OptionsItf *opts);
};

struct SimpleObjectiveInfo {
  double tot_weight = 0.0, tot_objective = 0.0;
};
struct PerDimObjectiveInfo : SimpleObjectiveInfo {
  Vector<BaseFloat> tot_weight_vec, tot_objective_vec;
};

class NnetComputeProb {
 public:
  // The network must outlive this object.
  NnetComputeProb(const NnetComputeProbOptions &config, const Nnet &nnet);
  // As above; with config.store_component_stats the statistics go to *nnet.
  NnetComputeProb(const NnetComputeProbOptions &config, Nnet *nnet);

  // Clears the totals (and the gradient).
  void Reset();
  // Adds one (merged) example. UserError if it does not fit the network.
  void Compute(const NnetExample &eg);
  // Logs "Overall log-likelihood for 'output' is X per frame, over W
  // frames." (objective for quadratic outputs) and the accuracy lines;
  // true if any objective had weight.
  bool PrintTotalStats() const;
  // nullptr if no example had this output.
  const SimpleObjectiveInfo *GetObjective(const std::string &name) const;
  const PerDimObjectiveInfo *GetAccuracy(const std::string &name) const;
  const std::map<std::string, SimpleObjectiveInfo> &GetAllObjectiveInfo()
      const {
    return objf_info_;
  }
  // The gradient summed over the examples (compute_deriv only).
  const Nnet &GetDeriv() const;

 private:
  void Init();

  NnetComputeProbOptions config_;
  const Nnet &nnet_;
  Nnet *nnet_to_store_stats_ = nullptr;
  std::unique_ptr<Nnet> deriv_nnet_;
  CachingOptimizingCompiler compiler_;
  std::map<std::string, SimpleObjectiveInfo> objf_info_;
  std::map<std::string, PerDimObjectiveInfo> accuracy_info_;
};

// Recomputes the stored statistics of a network (BatchNorm and nonlinear
// components) from examples: zeroes them, then runs every example forward
// with BatchNorm in training mode and dropout in test mode, storing stats.
// Test modes are restored afterwards to what they were.
void RecomputeStats(const std::vector<NnetExample> &egs, Nnet *nnet);

}  // namespace nnet3

#endif  // NNET3_NNET3_TRAIN_NNET_DIAGNOSTICS_H_
