// nnet3/train/nnet-diagnostics.cc
#include "nnet3/train/nnet-diagnostics.h"

#include <sstream>

#include "nnet3/components/normalize.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/train/nnet-arith.h"
#include "nnet3/train/nnet-trainer.h"
#include "nnet3/train/objective.h"

namespace nnet3 {

void NnetComputeProbOptions::Register(OptionsItf *opts) {
  opts->Register("debug-computation", &debug_computation,
                 "Log every command of the computation as it runs (produces "
                 "a great deal of output)");
  opts->Register("compute-deriv", &compute_deriv,
                 "If true, compute derivatives w.r.t. the parameters");
  opts->Register("compute-accuracy", &compute_accuracy,
                 "Also report the frame accuracy (arg-max agreement with the "
                 "supervision), beside the objective");
  opts->Register("compute-per-dim-accuracy", &compute_per_dim_accuracy,
                 "If true, compute accuracy values per-dim");
  ParseOptions optimization_opts("optimization", opts);
  optimize_config.Register(&optimization_opts);
  ParseOptions compiler_opts("compiler", opts);
  compiler_config.Register(&compiler_opts);
  ParseOptions compute_opts("computation", opts);
  compute_config.Register(&compute_opts);
}

NnetComputeProb::NnetComputeProb(const NnetComputeProbOptions &config,
                                 const Nnet &nnet)
    : config_(config), nnet_(nnet),
      compiler_(nnet, config.optimize_config, config.compiler_config) {
  if (config_.store_component_stats)
    NNET3_ERR << "NnetComputeProb: store-component-stats needs a network "
              << "it may modify";
  Init();
}

NnetComputeProb::NnetComputeProb(const NnetComputeProbOptions &config,
                                 Nnet *nnet)
    : config_(config), nnet_(*nnet),
      nnet_to_store_stats_(config.store_component_stats ? nnet : nullptr),
      compiler_(*nnet, config.optimize_config, config.compiler_config) {
  Init();
}

void NnetComputeProb::Init() {
  if (config_.debug_computation) config_.compute_config.debug = true;
  if (config_.compute_deriv) {
    deriv_nnet_.reset(new Nnet(nnet_));
    ScaleNnet(0.0, deriv_nnet_.get());
    SetNnetAsGradient(deriv_nnet_.get());
  }
}

void NnetComputeProb::Reset() {
  objf_info_.clear();
  accuracy_info_.clear();
  if (deriv_nnet_) {
    ScaleNnet(0.0, deriv_nnet_.get());
    SetNnetAsGradient(deriv_nnet_.get());
  }
}

const Nnet &NnetComputeProb::GetDeriv() const {
  if (!deriv_nnet_)
    NNET3_ERR << "GetDeriv() called when no derivatives were requested.";
  return *deriv_nnet_;
}

void NnetComputeProb::Compute(const NnetExample &eg) {
  CheckExampleDims(nnet_, eg);
  ComputationRequest request;
  GetComputationRequest(nnet_, eg, config_.compute_deriv,
                        nnet_to_store_stats_ != nullptr, &request);
  std::shared_ptr<const NnetComputation> computation =
      compiler_.Compile(request);
  std::unique_ptr<NnetComputer> computer;
  if (nnet_to_store_stats_ != nullptr)
    computer.reset(new NnetComputer(config_.compute_config, *computation,
                                    nnet_to_store_stats_, deriv_nnet_.get()));
  else
    computer.reset(new NnetComputer(config_.compute_config, *computation,
                                    nnet_, deriv_nnet_.get()));
  ProvideInputs(nnet_, eg, computer.get());
  computer->Run();
  for (const NnetIo &io : eg.io) {
    int32 node = nnet_.GetNodeIndex(io.name);
    if (node < 0) NNET3_ERR << "Network has no output named " << io.name;
    if (!nnet_.IsOutputNode(node)) continue;
    const CuMatrixBase<BaseFloat> &output = computer->GetOutput(io.name);
    {
      BaseFloat tot_weight, tot_objf;
      CuMatrix<BaseFloat> deriv;
      ComputeObjective(io.features, nnet_.GetNode(node).objective_type,
                       io.name, output, &tot_weight, &tot_objf,
                       config_.compute_deriv ? &deriv : nullptr);
      SimpleObjectiveInfo &totals = objf_info_[io.name];
      totals.tot_weight += tot_weight;
      totals.tot_objective += tot_objf;
      if (config_.compute_accuracy) {
        PerDimObjectiveInfo &acc = accuracy_info_[io.name];
        if (config_.compute_per_dim_accuracy &&
            acc.tot_objective_vec.Dim() == 0) {
          acc.tot_objective_vec.Resize(output.NumCols());
          acc.tot_weight_vec.Resize(output.NumCols());
        }
        BaseFloat w, a;
        bool per_dim = config_.compute_per_dim_accuracy;
        ComputeAccuracy(io.features, output, &w, &a,
                        per_dim ? &acc.tot_weight_vec : nullptr,
                        per_dim ? &acc.tot_objective_vec : nullptr);
        acc.tot_weight += w;
        acc.tot_objective += a;
      }
      if (config_.compute_deriv)
        computer->AcceptOutputDeriv(io.name, &deriv);
    }
  }
  if (config_.compute_deriv) computer->Run();
}

bool NnetComputeProb::PrintTotalStats() const {
  bool ans = false;
  for (const auto &p : objf_info_) {
    int32 node = nnet_.GetNodeIndex(p.first);
    NNET3_ASSERT(node >= 0);
    ObjectiveType type = nnet_.GetNode(node).objective_type;
    const SimpleObjectiveInfo &info = p.second;
    NNET3_LOG << "Overall "
              << (type == kLinear ? "log-likelihood" : "objective")
              << " for '" << p.first << "' is "
              << (info.tot_objective / info.tot_weight) << " per frame"
              << ", over " << info.tot_weight << " frames.";
    if (info.tot_weight > 0) ans = true;
  }
  for (const auto &p : accuracy_info_) {
    const PerDimObjectiveInfo &info = p.second;
    NNET3_LOG << "Overall accuracy for '" << p.first << "' is "
              << (info.tot_objective / info.tot_weight) << " per frame"
              << ", over " << info.tot_weight << " frames.";
    if (info.tot_weight_vec.Dim() > 0) {
      std::ostringstream os;
      os << " [ ";
      for (int32 j = 0; j < info.tot_weight_vec.Dim(); j++)
        os << (info.tot_weight_vec(j) != 0
                   ? info.tot_objective_vec(j) / info.tot_weight_vec(j)
                   : -1.0)
           << ' ';
      os << ']';
      NNET3_LOG << "Overall per-dim accuracy vector for '" << p.first
                << "' is" << os.str() << " per frame, over "
                << info.tot_weight << " frames.";
    }
  }
  return ans;
}

const SimpleObjectiveInfo *NnetComputeProb::GetObjective(
    const std::string &name) const {
  auto it = objf_info_.find(name);
  return it == objf_info_.end() ? nullptr : &it->second;
}

const PerDimObjectiveInfo *NnetComputeProb::GetAccuracy(
    const std::string &name) const {
  auto it = accuracy_info_.find(name);
  return it == accuracy_info_.end() ? nullptr : &it->second;
}

void RecomputeStats(const std::vector<NnetExample> &egs, Nnet *nnet) {
  NNET3_LOG << "Recomputing stats on nnet (affects batch-norm)";
  std::vector<bool> bn_test_mode;
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    BatchNormComponent *bn =
        dynamic_cast<BatchNormComponent *>(nnet->GetComponent(c));
    if (bn == nullptr) continue;
    bn_test_mode.push_back(bn->TestMode());
    bn->SetTestMode(false);
  }
  ZeroComponentStats(nnet);
  NnetComputeProbOptions opts;
  opts.store_component_stats = true;
  opts.compute_accuracy = false;
  {
    NnetComputeProb prob_computer(opts, nnet);
    for (const NnetExample &eg : egs) prob_computer.Compute(eg);
    prob_computer.PrintTotalStats();
  }
  size_t k = 0;
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    BatchNormComponent *bn =
        dynamic_cast<BatchNormComponent *>(nnet->GetComponent(c));
    if (bn != nullptr) bn->SetTestMode(bn_test_mode[k++]);
  }
  NNET3_LOG << "Done recomputing stats.";
}

}  // namespace nnet3
