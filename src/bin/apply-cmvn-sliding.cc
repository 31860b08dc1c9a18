// bin/apply-cmvn-sliding.cc
// Sliding-window cepstral mean (and optionally variance) normalization of
// each utterance; see transform/sliding-cmvn.h for the window rules.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/sliding-cmvn.h"

namespace nnet3 {

int ApplyCmvnSliding(int argc, char *argv[]) {
  const char *usage =
      "Applies sliding-window cepstral mean (and optionally variance)\n"
      "normalization to each utterance. The window precedes the frame, or\n"
      "is centered on it with --center=true.\n"
      "Usage: apply-cmvn-sliding [options] <feats-rspecifier> "
      "<feats-wspecifier>\n"
      "e.g.: apply-cmvn-sliding --cmn-window=300 scp:feats.scp ark:-\n"
      "See also: apply-cmvn, compute-cmvn-stats\n";
  ParseOptions po(usage);
  SlidingWindowCmnOptions opts;
  opts.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  opts.Check();
  SequentialBaseFloatMatrixReader reader(po.GetArg(1));
  BaseFloatMatrixWriter writer(po.GetArg(2));
  int32 num_done = 0, num_err = 0;
  for (; !reader.Done(); reader.Next()) {
    const std::string &utt = reader.Key();
    const Matrix<BaseFloat> &feats = reader.Value();
    if (feats.NumRows() == 0) {
      NNET3_WARN << "Empty feature matrix for utterance " << utt;
      num_err++;
      continue;
    }
    Matrix<BaseFloat> normalized(feats.NumRows(), feats.NumCols(),
                                 kUndefined);
    SlidingWindowCmn(opts, feats, &normalized);
    writer.Write(utt, normalized);
    num_done++;
  }
  NNET3_LOG << "Applied sliding-window cepstral mean "
            << (opts.normalize_variance ? "and variance " : "")
            << "normalization to " << num_done << " utterances, " << num_err
            << " had errors.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ApplyCmvnSliding);
}
