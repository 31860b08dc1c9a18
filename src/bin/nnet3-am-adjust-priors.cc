// bin/nnet3-am-adjust-priors.cc
// Sets the priors of an nnet3 acoustic model to a normalized vector of
// summed posteriors (e.g. the network's average output on training data).
#include <cmath>

#include "bin/am-tool.h"
#include "bin/cli.h"
#include "util/stream.h"

namespace nnet3 {

namespace {
// Logs how far the new priors are from the old ones, as Kaldi does: the
// pdf that moved most and the K-L divergence from old to new.
void LogPriorChange(const Vector<BaseFloat> &old_priors,
                    const Vector<BaseFloat> &new_priors) {
  if (old_priors.Dim() == 0) {
    NNET3_LOG << "The model had no priors before.";
    return;
  }
  Vector<BaseFloat> diff(new_priors);
  diff.AddVec(-1.0, old_priors);
  diff.ApplyAbs();
  MatrixIndexT max_index;
  diff.Max(&max_index);
  NNET3_LOG << "Largest change of a prior: pdf " << max_index << ", "
            << old_priors(max_index) << " -> " << new_priors(max_index);
  BaseFloat sum_p = old_priors.Sum(), sum_q = new_priors.Sum();
  double kl = 0.0;
  for (MatrixIndexT i = 0; i < old_priors.Dim(); i++) {
    BaseFloat p = old_priors(i) / sum_p, q = new_priors(i) / sum_q;
    kl += p * std::log(p / q);
  }
  NNET3_LOG << "K-L divergence from the old priors to the new: " << kl;
}
}  // namespace

int Nnet3AmAdjustPriors(int argc, char *argv[]) {
  const char *usage =
      "Sets the priors of an nnet3 acoustic model to a vector of summed pdf\n"
      "posteriors, normalized to sum to one. The posteriors are typically the\n"
      "network's own outputs on training data (nnet3-compute or\n"
      "nnet3-compute-from-egs, summed with matrix-sum-rows and vector-sum),\n"
      "which suits more situations than the label counts of the alignments.\n"
      "Usage:  nnet3-am-adjust-priors [options] <nnet-in> <summed-posterior-vector-in> <nnet-out>\n"
      "e.g.: nnet3-am-adjust-priors final.mdl post.vec final.mdl\n";
  ParseOptions po(usage);
  bool binary = true;
  BaseFloat prior_floor = 1.0e-15;
  po.Register("binary", &binary, "Write the output in binary");
  po.Register("prior-floor", &prior_floor,
              "Accepted for compatibility; as in Kaldi, the priors are not "
              "floored by this tool");
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  std::string model_in = po.GetArg(1), post_in = po.GetArg(2),
              model_out = po.GetArg(3);
  TransitionModel trans_model;
  AmNnetSimple am_nnet;
  ReadAmModel(model_in, &trans_model, &am_nnet);
  Vector<BaseFloat> priors;
  ReadKaldiObject(post_in, &priors);
  BaseFloat sum = priors.Sum();
  if (!(sum > 0.0))
    NNET3_ERR << "The posterior vector " << PrintableRxfilename(post_in)
              << " sums to " << sum << " (it must be positive)";
  if (priors.Dim() != am_nnet.NumPdfs())
    NNET3_ERR << "The posterior vector " << PrintableRxfilename(post_in)
              << " has dimension " << priors.Dim() << " but the model has "
              << am_nnet.NumPdfs() << " pdfs";
  priors.Scale(1.0 / sum);
  LogPriorChange(am_nnet.Priors(), priors);
  am_nnet.SetPriors(priors);
  WriteAmModel(trans_model, am_nnet, model_out, binary);
  NNET3_LOG << "Set the priors and wrote the model to "
            << PrintableWxfilename(model_out);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3AmAdjustPriors);
}
