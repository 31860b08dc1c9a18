// nnet3/train/nnet-combine.cc
#include "nnet3/train/nnet-combine.h"

#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/train/nnet-arith.h"

namespace nnet3 {

BaseFloat ComputeObjectivePerFrame(const NnetCombineOptions &opts,
                                   const std::vector<NnetExample> &egs,
                                   const Nnet &nnet) {
  Nnet copy(nnet);
  if (opts.batchnorm_test_mode) SetBatchnormTestMode(true, &copy);
  if (opts.dropout_test_mode) SetDropoutTestMode(true, &copy);
  NnetComputeProbOptions prob_opts = opts.compute_prob_opts;
  prob_opts.compute_deriv = false;
  prob_opts.store_component_stats = false;
  NnetComputeProb prob(prob_opts, static_cast<const Nnet &>(copy));
  for (const NnetExample &eg : egs) prob.Compute(eg);
  const SimpleObjectiveInfo *info = prob.GetObjective("output");
  if (info == nullptr)
    NNET3_ERR << "Error getting objective info (unsuitable egs?): the "
              << "examples have no 'output'";
  if (!(info->tot_weight > 0.0))
    NNET3_ERR << "The examples give 'output' no weight";
  return info->tot_objective / info->tot_weight;
}

NnetCombiner::NnetCombiner(const NnetCombineOptions &opts,
                           const std::vector<NnetExample> &egs,
                           const Nnet &first)
    : opts_(opts), egs_(egs), average_(first), best_(first) {
  if (egs_.empty()) NNET3_ERR << "No examples to evaluate the models on";
  init_objf_ = best_objf_ = ComputeObjectivePerFrame(opts_, egs_, average_);
  NNET3_LOG << "objective function using the last model is " << init_objf_;
}

void NnetCombiner::AddModel(const Nnet &nnet, bool evaluate) {
  CheckSameStructure(nnet, average_, "nnet3-combine");
  num_models_++;
  // Running average of the first num_models_ models.
  ScaleNnet((num_models_ - 1.0) / num_models_, &average_);
  AddNnet(nnet, 1.0 / num_models_, &average_);
  if (!evaluate) return;
  BaseFloat objf = ComputeObjectivePerFrame(opts_, egs_, average_);
  NNET3_LOG << "Combining last " << num_models_
            << " models, objective function is " << objf;
  if (objf > best_objf_) {
    best_objf_ = objf;
    best_ = average_;
    best_num_models_ = num_models_;
  }
}

const Nnet &NnetCombiner::Finish() {
  NNET3_LOG << "Combining " << best_num_models_
            << " nnets, objective function changed from " << init_objf_
            << " to " << best_objf_;
  if (HasBatchnorm(best_)) RecomputeStats(egs_, &best_);
  return best_;
}

}  // namespace nnet3
