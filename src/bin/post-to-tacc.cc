// bin/post-to-tacc.cc
// Sums posteriors over transition-ids into one vector of (soft) counts,
// indexed by transition-id (entry 0 unused), or with --per-pdf by pdf-id, as
// Kaldi's post-to-tacc does; train_dnn.py uses the per-pdf form for the
// pre-softmax prior scale. The model is read only for its transition model.
// The sums are kept in double and written as float. As in Kaldi, the
// per-pdf sums leave out the last transition-id (Kaldi's loop stops one
// short), so the numbers match Kaldi's.
#include "bin/cli.h"
#include "hmm/transition-model.h"
#include "matrix/table-types.h"
#include "util/stream.h"
#include "util/table-types.h"
#include "util/table.h"

namespace nnet3 {

int PostToTacc(int argc, char *argv[]) {
  const char *usage =
      "Sums posteriors into counts per transition-id (a vector indexed by\n"
      "transition-id, entry 0 unused) or, with --per-pdf, per pdf-id. The\n"
      "model supplies only the transition model (and so the vector's size).\n"
      "Usage:  post-to-tacc [options] <model> <post-rspecifier> <accs-out>\n"
      "e.g.: post-to-tacc --per-pdf=true final.mdl \"ark:ali-to-post "
      "ark:1.ali ark:- |\" prior.acc\n";
  ParseOptions po(usage);
  bool binary = true, per_pdf = false;
  po.Register("binary", &binary, "Write the output in binary mode");
  po.Register("per-pdf", &per_pdf,
              "Sum per pdf-id instead of per transition-id");
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  const std::string model_rxfilename = po.GetArg(1),
                    post_rspecifier = po.GetArg(2),
                    accs_wxfilename = po.GetArg(3);
  TransitionModel trans_model;
  ReadKaldiObject(model_rxfilename, &trans_model);
  const int32 num_tids = trans_model.NumTransitionIds();
  Vector<double> tid_accs(num_tids + 1);
  SequentialPosteriorReader reader(post_rspecifier);
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next(), num_done++) {
    for (const auto &frame : reader.Value())
      for (const auto &pair : frame) {
        if (pair.first <= 0 || pair.first > num_tids)
          NNET3_ERR << "Invalid transition-id " << pair.first
                    << " in the posteriors of utterance " << reader.Key()
                    << " (the model has " << num_tids << ")";
        tid_accs(pair.first) += pair.second;
      }
  }
  Vector<BaseFloat> out;
  if (per_pdf) {
    NNET3_LOG << "Summing the counts per pdf-id";
    Vector<double> pdf_accs(trans_model.NumPdfs());
    for (int32 tid = 1; tid < num_tids; tid++)  // (not num_tids: Kaldi's)
      pdf_accs(trans_model.TransitionIdToPdf(tid)) += tid_accs(tid);
    out.Resize(pdf_accs.Dim());
    out.CopyFromVec(pdf_accs);
  } else {
    out.Resize(tid_accs.Dim());
    out.CopyFromVec(tid_accs);
  }
  WriteKaldiObject(out, accs_wxfilename, binary);
  NNET3_LOG << "Summed the posteriors of " << num_done << " utterances into "
            << PrintableWxfilename(accs_wxfilename);
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::PostToTacc);
}
