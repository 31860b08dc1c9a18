// nnet3/train/nnet-trainer.cc
#include "nnet3/train/nnet-trainer.h"

#include <sys/stat.h>

#include <limits>

#include "base/random.h"

#include "nnet3/egs/example-utils.h"
#include "nnet3/train/max-change.h"
#include "nnet3/train/nnet-arith.h"
#include "nnet3/train/objective.h"
#include "nnet3/train/orthonormal.h"
#include "util/stream.h"

namespace nnet3 {

void NnetTrainerOptions::Register(OptionsItf *opts) {
  opts->Register("store-component-stats", &store_component_stats,
                 "Accumulate the value and derivative statistics of "
                 "nonlinear components while training");
  opts->Register("zero-component-stats", &zero_component_stats,
                 "With --store-component-stats, start those statistics from "
                 "zero");
  opts->Register("print-interval", &print_interval,
                 "Log the average objective every this many minibatches");
  opts->Register("debug-computation", &debug_computation,
                 "Log every command of the computation as it runs (a lot of "
                 "output)");
  opts->Register("momentum", &momentum,
                 "Momentum of the parameter updates, e.g. 0.9; the learning "
                 "rate is scaled by (1 - momentum) so that the long-run step "
                 "size stays that of the learning rate");
  opts->Register("l2-regularize-factor", &l2_regularize_factor,
                 "Multiplies each component's l2-regularize (set in the "
                 "network config); scripts lower it when several jobs are "
                 "averaged");
  opts->Register("batchnorm-stats-scale", &batchnorm_stats_scale,
                 "BatchNorm statistics are multiplied by this after each "
                 "minibatch, so the written model's statistics are recent");
  opts->Register("max-param-change", &max_param_change,
                 "Largest Euclidean norm of one minibatch's change to the "
                 "whole model; bigger changes are scaled down to it (0: no "
                 "limit)");
  opts->Register("backstitch-training-scale", &backstitch_training_scale,
                 "Backstitch strength alpha: each selected minibatch first "
                 "moves the model by -alpha times its gradient, then by "
                 "(1 + alpha) times the gradient at that point (0: plain "
                 "SGD)");
  opts->Register("backstitch-training-interval",
                 &backstitch_training_interval,
                 "With --backstitch-training-scale > 0, use backstitch on "
                 "one minibatch in this many (the others get plain SGD)");
  opts->Register("spliced-affine-min-dim", &spliced_affine_min_dim,
                 "Ours: an affine layer that reads one node at several time "
                 "offsets (input=Append(Offset(x, -1), x, Offset(x, 1))), "
                 "with x at least this wide, is computed during training "
                 "without the spliced copy of x, as a TdnnComponent; the "
                 "model is still read and written with Kaldi's components "
                 "(0: never)");
  opts->Register("read-cache", &read_cache,
                 "The location from which to read the cached computation.");
  opts->Register("write-cache", &write_cache,
                 "The location to which to write the cached computation.");
  opts->Register("binary-write-cache", &binary_write_cache,
                 "Write computation cache in binary mode");
  ParseOptions optimization_opts("optimization", opts);
  optimize_config.Register(&optimization_opts);
  ParseOptions compiler_opts("compiler", opts);
  compiler_config.Register(&compiler_opts);
  ParseOptions compute_opts("computation", opts);
  compute_config.Register(&compute_opts);
}

void NnetTrainerOptions::Check() const {
  if (spliced_affine_min_dim < 0)
    NNET3_ERR << "--spliced-affine-min-dim must be >= 0, got "
              << spliced_affine_min_dim;
  if (!(momentum >= 0.0 && momentum < 1.0))
    NNET3_ERR << "--momentum must be in [0, 1), got " << momentum;
  if (!(max_param_change >= 0.0))
    NNET3_ERR << "--max-param-change must be >= 0, got " << max_param_change;
  if (!(backstitch_training_scale >= 0.0))
    NNET3_ERR << "--backstitch-training-scale must be >= 0, got "
              << backstitch_training_scale;
  if (backstitch_training_interval <= 0)
    NNET3_ERR << "--backstitch-training-interval must be > 0, got "
              << backstitch_training_interval;
  if (backstitch_training_scale > 0.0 && momentum != 0.0)
    NNET3_ERR << "--backstitch-training-scale cannot be combined with "
                 "--momentum (got momentum " << momentum << ")";
  if (!(batchnorm_stats_scale >= 0.0 && batchnorm_stats_scale <= 1.0))
    NNET3_ERR << "--batchnorm-stats-scale must be in [0, 1], got "
              << batchnorm_stats_scale;
  if (print_interval <= 0)
    NNET3_ERR << "--print-interval must be > 0, got " << print_interval;
  if (!(l2_regularize_factor >= 0.0))
    NNET3_ERR << "--l2-regularize-factor must be >= 0, got "
              << l2_regularize_factor;
}

// ---- ObjectiveFunctionInfo ------------------------------------------------

void ObjectiveFunctionInfo::UpdateStats(const std::string &output_name,
                                        int32 minibatches_per_phase,
                                        int32 minibatch_counter,
                                        BaseFloat this_minibatch_weight,
                                        BaseFloat this_minibatch_tot_objf) {
  int32 phase = minibatch_counter / minibatches_per_phase;
  if (phase != current_phase) {
    NNET3_ASSERT(phase > current_phase);
    PrintStatsForThisPhase(output_name, minibatches_per_phase, phase);
    current_phase = phase;
    tot_weight_this_phase = 0.0;
    tot_objf_this_phase = 0.0;
    minibatches_this_phase = 0;
  }
  minibatches_this_phase++;
  tot_weight_this_phase += this_minibatch_weight;
  tot_objf_this_phase += this_minibatch_tot_objf;
  tot_weight += this_minibatch_weight;
  tot_objf += this_minibatch_tot_objf;
}

void ObjectiveFunctionInfo::PrintStatsForThisPhase(
    const std::string &output_name, int32 minibatches_per_phase,
    int32 phase) const {
  int32 start = current_phase * minibatches_per_phase,
        end = phase * minibatches_per_phase - 1;
  BaseFloat avg = tot_objf_this_phase / tot_weight_this_phase;
  if (minibatches_this_phase == minibatches_per_phase)
    NNET3_LOG << "Average objective function for '" << output_name
              << "' for minibatches " << start << '-' << end << " is "
              << avg << " over " << tot_weight_this_phase << " frames.";
  else
    NNET3_LOG << "Average objective function for '" << output_name
              << "' using " << minibatches_this_phase
              << " minibatches in minibatch range " << start << '-' << end
              << " is " << avg << " over " << tot_weight_this_phase
              << " frames.";
}

bool ObjectiveFunctionInfo::PrintTotalStats(const std::string &name) const {
  BaseFloat objf = tot_objf / tot_weight;
  NNET3_LOG << "Overall average objective function for '" << name << "' is "
            << objf << " over " << tot_weight << " frames.";
  NNET3_LOG << "[this line is to be parsed by a script:] "
            << "log-prob-per-frame=" << objf;
  return tot_weight != 0.0;
}

// ---- helpers ---------------------------------------------------------------

void ProvideInputs(const Nnet &nnet, const NnetExample &eg,
                   NnetComputer *computer) {
  for (const NnetIo &io : eg.io) {
    int32 node = nnet.GetNodeIndex(io.name);
    if (node < 0 || !nnet.IsInputNode(node)) continue;
    CuMatrix<BaseFloat> feats(io.features.NumRows(), io.features.NumCols(),
                              kUndefined);
    feats.CopyFromGeneralMat(io.features);
    computer->AcceptInput(io.name, &feats);
  }
}

void CheckExampleDims(const Nnet &nnet, const NnetExample &eg) {
  for (const NnetIo &io : eg.io) {
    int32 node = nnet.GetNodeIndex(io.name);
    if (node < 0) continue;  // GetComputationRequest reports these.
    int32 dim = -1;
    const char *kind = nullptr;
    if (nnet.IsInputNode(node)) {
      dim = nnet.InputDim(io.name);
      kind = "input";
    } else if (nnet.IsOutputNode(node)) {
      dim = nnet.OutputDim(io.name);
      kind = "output";
    } else {
      continue;
    }
    if (io.features.NumCols() != dim)
      NNET3_ERR << "The example's '" << io.name << "' has dimension "
                << io.features.NumCols() << " but the network's " << kind
                << " node '" << io.name << "' has dimension " << dim;
  }
}

// ---- NnetTrainer -------------------------------------------------------------

namespace {

// The part width from which spliced affines are rewritten, for
// --spliced-affine-min-dim (0, or a bad value that Check() reports: none).
int32 RewriteMinDim(int32 option) {
  return option <= 0 ? std::numeric_limits<int32>::max() : option;
}

// 'nnet' with 'rewrite' applied (see the constructor).
const Nnet &Rewritten(SplicedAffinesAsTdnn *rewrite, Nnet *nnet) {
  if (rewrite->NumRewritten() > 0) rewrite->Apply(nnet);
  return *nnet;
}

}  // namespace

// Applies the spliced-affine rewrite to the network and the delta network
// while it exists; undone also when an error leaves the scope.
class NnetTrainer::RewriteScope {
 public:
  explicit RewriteScope(NnetTrainer *trainer) : trainer_(trainer) {
    if (trainer_->nnet_rewrite_.NumRewritten() == 0) return;
    trainer_->nnet_rewrite_.Apply(trainer_->nnet_);
    trainer_->delta_rewrite_->Apply(trainer_->delta_nnet_.get());
  }
  ~RewriteScope() {
    if (trainer_->nnet_rewrite_.NumRewritten() == 0) return;
    trainer_->nnet_rewrite_.Undo(trainer_->nnet_);
    trainer_->delta_rewrite_->Undo(trainer_->delta_nnet_.get());
  }

 private:
  NnetTrainer *trainer_;
};

NnetTrainer::NnetTrainer(const NnetTrainerOptions &config, Nnet *nnet)
    : config_(config), nnet_(nnet),
      nnet_rewrite_(RewriteMinDim(config.spliced_affine_min_dim), *nnet),
      // The compiler keys its cache by the structure it compiles for: the
      // rewritten one.
      compiler_(Rewritten(&nnet_rewrite_, nnet), config.optimize_config,
                config.compiler_config) {
  if (nnet_rewrite_.Applied()) nnet_rewrite_.Undo(nnet_);
  config_.Check();
  if (config_.debug_computation) config_.compute_config.debug = true;
  if (config_.zero_component_stats) ZeroComponentStats(nnet_);
  delta_nnet_.reset(new Nnet(*nnet_));
  ScaleNnet(0.0, delta_nnet_.get());
  delta_rewrite_.reset(new SplicedAffinesAsTdnn(
      RewriteMinDim(config_.spliced_affine_min_dim), *delta_nnet_));
  NNET3_ASSERT(delta_rewrite_->NumRewritten() == nnet_rewrite_.NumRewritten());
  if (nnet_rewrite_.NumRewritten() > 0) {
    NNET3_VLOG(1) << "Training " << nnet_rewrite_.NumRewritten()
                  << " spliced affine layers as TdnnComponents";
  }
  num_max_change_per_component_applied_.assign(
      NumUpdatableComponents(*delta_nnet_), 0);
  // Drawn only when needed, so that plain SGD leaves the random stream as
  // it was.
  if (config_.backstitch_training_scale > 0.0) srand_seed_ = RandInt(0, 100000);
  if (!config_.read_cache.empty()) {
    struct stat st;
    if (ClassifyRxfilename(config_.read_cache) == kFileInput &&
        stat(config_.read_cache.c_str(), &st) != 0) {
      NNET3_WARN << "Could not open cached computation " << config_.read_cache
                 << ". Probably this is the first training iteration.";
    } else {
      RewriteScope rewritten(this);  // cached computations are checked
      compiler_.ReadCacheFile(config_.read_cache);
      NNET3_LOG << "Read computation cache from " << config_.read_cache;
    }
  }
}

NnetTrainer::~NnetTrainer() {}

void NnetTrainer::WriteCache() const {
  if (config_.write_cache.empty()) return;
  compiler_.WriteCacheFile(config_.write_cache, config_.binary_write_cache);
  NNET3_LOG << "Wrote computation cache to " << config_.write_cache;
}

void NnetTrainer::Train(const NnetExample &eg) {
  CheckExampleDims(*nnet_, eg);
  RewriteScope rewritten(this);
  ComputationRequest request;
  GetComputationRequest(*nnet_, eg, true, config_.store_component_stats,
                        &request);
  std::shared_ptr<const NnetComputation> computation =
      compiler_.Compile(request);
  const int32 interval = config_.backstitch_training_interval;
  if (config_.backstitch_training_scale > 0.0 &&
      num_minibatches_processed_ % interval == srand_seed_ % interval) {
    const uint64 seed = static_cast<uint64>(srand_seed_) +
                        static_cast<uint64>(num_minibatches_processed_);
    FreezeNaturalGradient(true, delta_nnet_.get());
    ResetGenerators(seed, nnet_);
    TrainBackstitchStep(eg, *computation, true);
    FreezeNaturalGradient(false, delta_nnet_.get());
    ResetGenerators(seed, nnet_);  // the same dropout masks again
    TrainBackstitchStep(eg, *computation, false);
  } else {
    TrainConventional(eg, *computation);
  }
  num_minibatches_processed_++;
}

void NnetTrainer::ForwardBackward(const NnetExample &eg,
                                  const NnetComputation &computation,
                                  const std::string &suffix) {
  // Statistics go to nnet_ itself; the gradient to delta_nnet_.
  NnetComputer computer(config_.compute_config, computation, nnet_,
                        delta_nnet_.get());
  ProvideInputs(*nnet_, eg, &computer);
  computer.Run();
  ProcessOutputs(eg, &computer, suffix);
  computer.Run();
}

void NnetTrainer::TrainConventional(const NnetExample &eg,
                                    const NnetComputation &computation) {
  ForwardBackward(eg, computation, "");
  ApplyL2Regularization(
      *nnet_, GetNumNvalues(eg.io) * config_.l2_regularize_factor,
      delta_nnet_.get());
  bool success = UpdateNnetWithMaxChange(
      *delta_nnet_, config_.max_param_change, 1.0, 1.0 - config_.momentum,
      nnet_, &num_max_change_per_component_applied_,
      &num_max_change_global_applied_);
  ScaleBatchnormStats(config_.batchnorm_stats_scale, nnet_);
  ConstrainOrthonormal(nnet_);
  ScaleNnet(success ? config_.momentum : 0.0, delta_nnet_.get());
}

void NnetTrainer::TrainBackstitchStep(const NnetExample &eg,
                                      const NnetComputation &computation,
                                      bool first) {
  const BaseFloat alpha = config_.backstitch_training_scale;
  ForwardBackward(eg, computation, first ? "" : "_backstitch");
  // Step 1 goes back by alpha times the gradient, step 2 forward by
  // (1 + alpha) times the gradient at the new point; max-change scales
  // with the size of the step.
  const BaseFloat max_change_scale = first ? alpha : 1.0 + alpha,
                  scale = first ? -alpha : 1.0 + alpha;
  if (!first)
    ApplyL2Regularization(*nnet_,
                          1.0 / scale * GetNumNvalues(eg.io) *
                              config_.l2_regularize_factor,
                          delta_nnet_.get());
  UpdateNnetWithMaxChange(*delta_nnet_, config_.max_param_change,
                          max_change_scale, scale, nnet_,
                          &num_max_change_per_component_applied_,
                          &num_max_change_global_applied_);
  if (first)
    ConstrainOrthonormal(nnet_);
  else
    ScaleBatchnormStats(config_.batchnorm_stats_scale, nnet_);
  ScaleNnet(0.0, delta_nnet_.get());
}

void NnetTrainer::ProcessOutputs(const NnetExample &eg,
                                 NnetComputer *computer,
                                 const std::string &suffix) {
  for (const NnetIo &io : eg.io) {
    int32 node = nnet_->GetNodeIndex(io.name);
    NNET3_ASSERT(node >= 0);
    if (!nnet_->IsOutputNode(node)) continue;
    BaseFloat tot_weight, tot_objf;
    ComputeObjectiveFunction(io.features,
                             nnet_->GetNode(node).objective_type, io.name,
                             true, computer, &tot_weight, &tot_objf);
    objf_info_[io.name + suffix].UpdateStats(
        io.name + suffix, config_.print_interval, num_minibatches_processed_,
        tot_weight, tot_objf);
  }
}

bool NnetTrainer::PrintTotalStats() const {
  bool ans = false;
  for (const auto &p : objf_info_)  // std::map: sorted by name
    if (p.second.PrintTotalStats(p.first)) ans = true;
  PrintMaxChangeStats();
  return ans;
}

void NnetTrainer::PrintMaxChangeStats() const {
  // Backstitch updates twice on one minibatch in every interval.
  const double updates =
      num_minibatches_processed_ *
      (config_.backstitch_training_scale == 0.0
           ? 1.0
           : 1.0 + 1.0 / config_.backstitch_training_interval);
  int32 i = 0;
  for (int32 c = 0; c < delta_nnet_->NumComponents(); c++) {
    if (!(delta_nnet_->GetComponent(c)->Properties() & kUpdatableComponent))
      continue;
    if (num_max_change_per_component_applied_[i] > 0)
      NNET3_LOG << "For " << delta_nnet_->GetComponentName(c)
                << ", per-component max-change was enforced "
                << (100.0 * num_max_change_per_component_applied_[i]) /
                       updates
                << " % of the time.";
    i++;
  }
  if (num_max_change_global_applied_ > 0)
    NNET3_LOG << "The global max-change was enforced "
              << (100.0 * num_max_change_global_applied_) / updates
              << " % of the time.";
}

const ObjectiveFunctionInfo *NnetTrainer::GetObjective(
    const std::string &name) const {
  auto it = objf_info_.find(name);
  return it == objf_info_.end() ? nullptr : &it->second;
}

}  // namespace nnet3
