// bin/nnet3-am-train-transitions.cc
// Re-estimates the transition probabilities of an nnet3 acoustic model
// from alignments, and (by default) sets its priors to the pdf counts.
#include "bin/am-tool.h"
#include "bin/cli.h"
#include "util/table.h"

namespace nnet3 {

namespace {
// Priors from transition-id counts: pdf counts normalized, floored at
// prior_floor and normalized again (Kaldi's formula).
void SetPriorsFromCounts(const TransitionModel &trans_model,
                         const Vector<double> &counts, double prior_floor,
                         AmNnetSimple *am_nnet) {
  Vector<BaseFloat> pdf_counts(trans_model.NumPdfs());
  for (int32 tid = 1; tid < counts.Dim(); tid++)
    pdf_counts(trans_model.TransitionIdToPdf(tid)) += counts(tid);
  BaseFloat sum = pdf_counts.Sum();
  if (sum == 0.0) NNET3_ERR << "The alignments hold no frames";
  if (!(prior_floor > 0.0 && prior_floor < 1.0))
    NNET3_ERR << "--prior-floor must be between 0 and 1, got " << prior_floor;
  pdf_counts.Scale(1.0 / sum);
  pdf_counts.ApplyFloor(prior_floor);
  pdf_counts.Scale(1.0 / pdf_counts.Sum());
  am_nnet->SetPriors(pdf_counts);
}
}  // namespace

int Nnet3AmTrainTransitions(int argc, char *argv[]) {
  const char *usage =
      "Re-estimates the transition probabilities of an nnet3 acoustic model\n"
      "from alignments (maximum likelihood), and with --set-priors=true (the\n"
      "default) sets the priors to the normalized pdf counts.\n"
      "Usage:  nnet3-am-train-transitions [options] <nnet-in> <alignments-rspecifier> <nnet-out>\n"
      "e.g.: nnet3-am-train-transitions 1.mdl \"ark:gunzip -c ali.*.gz|\" 2.mdl\n";
  ParseOptions po(usage);
  bool binary = true, set_priors = true;
  BaseFloat prior_floor = 5.0e-06;
  MleTransitionUpdateConfig update_config;
  po.Register("binary", &binary, "Write the output in binary");
  po.Register("set-priors", &set_priors,
              "Also set the priors of the model (the decoder divides by them)");
  po.Register("prior-floor", &prior_floor, "Lower bound on the priors");
  update_config.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  std::string model_in = po.GetArg(1), ali_in = po.GetArg(2),
              model_out = po.GetArg(3);
  TransitionModel trans_model;
  AmNnetSimple am_nnet;
  ReadAmModel(model_in, &trans_model, &am_nnet);
  Vector<double> counts;
  trans_model.InitStats(&counts);
  int32 num_done = 0;
  SequentialInt32VectorReader reader(ali_in);
  for (; !reader.Done(); reader.Next(), num_done++)
    for (int32 tid : reader.Value()) trans_model.Accumulate(1.0, tid, &counts);
  NNET3_LOG << "Accumulated transition counts from " << num_done
            << " utterances.";
  BaseFloat objf_impr, count;
  trans_model.MleUpdate(counts, update_config, &objf_impr, &count);
  NNET3_LOG << "Transition model update: " << objf_impr / count
            << " log-likelihood improvement per frame over " << count
            << " frames.";
  if (set_priors) {
    NNET3_LOG << "Setting the priors of the pdfs.";
    SetPriorsFromCounts(trans_model, counts, prior_floor, &am_nnet);
  }
  WriteAmModel(trans_model, am_nnet, model_out, binary);
  NNET3_LOG << "Wrote the model with trained transitions to "
            << PrintableWxfilename(model_out);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3AmTrainTransitions);
}
