// nnet3/train/nnet-combine.h
// Model combination as Kaldi's nnet3-combine does it now: given the models
// of the last training iterations (the first one given is used alone
// first), form the running averages of the first 1, 2, ..., N models and
// keep the average whose objective on held-out examples is best. Networks
// with BatchNorm then get their statistics recomputed on those examples
// (the average of statistics is not the statistics of the average).
// Invariants: all models have the structure of the first; Best() is always
// one of the running averages (the first model alone until a later average
// is strictly better).
#ifndef NNET3_NNET3_TRAIN_NNET_COMBINE_H_
#define NNET3_NNET3_TRAIN_NNET_COMBINE_H_

#include <vector>

#include "nnet3/egs/nnet-example.h"
#include "nnet3/nnet/nnet.h"
#include "nnet3/train/nnet-diagnostics.h"

namespace nnet3 {

struct NnetCombineOptions {
  // Evaluate the objective with BatchNorm / dropout in test mode.
  bool batchnorm_test_mode = false;
  bool dropout_test_mode = true;
  NnetComputeProbOptions compute_prob_opts;
};

// The objective per frame of 'output' on egs (with the options' test
// modes applied to a copy of nnet). UserError if the examples have no
// 'output' or it gets no weight.
BaseFloat ComputeObjectivePerFrame(const NnetCombineOptions &opts,
                                   const std::vector<NnetExample> &egs,
                                   const Nnet &nnet);

class NnetCombiner {
 public:
  // first: the model used alone; egs must outlive this object.
  NnetCombiner(const NnetCombineOptions &opts,
               const std::vector<NnetExample> &egs, const Nnet &first);
  // Adds the next model to the running average and, if 'evaluate',
  // computes the average's objective (only evaluated averages can become
  // Best()).
  void AddModel(const Nnet &nnet, bool evaluate = true);
  // Recomputes BatchNorm statistics of the best average (if it has
  // BatchNorm) and returns it.
  const Nnet &Finish();

  int32 NumModels() const { return num_models_; }
  int32 BestNumModels() const { return best_num_models_; }
  BaseFloat InitialObjective() const { return init_objf_; }
  BaseFloat BestObjective() const { return best_objf_; }

 private:
  NnetCombineOptions opts_;
  const std::vector<NnetExample> &egs_;
  Nnet average_, best_;
  int32 num_models_ = 1, best_num_models_ = 1;
  BaseFloat init_objf_ = 0.0, best_objf_ = 0.0;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_TRAIN_NNET_COMBINE_H_
