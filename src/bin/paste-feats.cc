// bin/paste-feats.cc
// Concatenates the columns of several feature tables or matrix files, like
// the Unix "paste" command on rows.
#include <memory>

#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/frames.h"
#include "util/stream.h"

namespace nnet3 {

int PasteFeatsTool(int argc, char *argv[]) {
  const char *usage =
      "Pastes features side by side (frame t of the output is frame t of\n"
      "each input, concatenated), like the Unix command paste a b.\n"
      "Usage: paste-feats [options] <in-rspecifier1> <in-rspecifier2> "
      "[<in-rspecifier3> ...] <out-wspecifier>\n"
      " or:   paste-feats [options] <in-rxfilename1> <in-rxfilename2> "
      "[<in-rxfilename3> ...] <out-wxfilename>\n"
      "e.g.: paste-feats ark:mfcc.ark ark:pitch.ark ark:out.ark\n"
      "      paste-feats foo.mat bar.mat baz.mat\n";
  ParseOptions po(usage);
  int32 length_tolerance = 0;
  bool binary = true;
  po.Register("length-tolerance", &length_tolerance,
              "If the lengths differ by at most this many frames, trim to the "
              "shortest; otherwise skip the utterance");
  po.Register("binary", &binary,
              "Write single-file output in binary (tables take b/t from the "
              "wspecifier)");
  po.Read(argc, argv);
  if (po.NumArgs() < 3) return UsageError(po);
  int32 num_inputs = po.NumArgs() - 1;
  std::string out = po.GetArg(po.NumArgs());

  if (TablesNotFiles(po.GetArg(1), out)) {
    BaseFloatMatrixWriter writer(out);
    SequentialBaseFloatMatrixReader first(po.GetArg(1));
    std::vector<std::unique_ptr<RandomAccessBaseFloatMatrixReader> > others;
    for (int32 i = 2; i <= num_inputs; i++)
      others.emplace_back(new RandomAccessBaseFloatMatrixReader(po.GetArg(i)));
    int32 num_done = 0, num_err = 0;
    for (; !first.Done(); first.Next()) {
      const std::string &utt = first.Key();
      std::vector<Matrix<BaseFloat> > feats(num_inputs);
      feats[0] = first.Value();
      bool missing = false;
      for (int32 i = 1; i < num_inputs && !missing; i++) {
        if (others[i - 1]->HasKey(utt)) {
          feats[i] = others[i - 1]->Value(utt);
        } else {
          NNET3_WARN << "Missing utterance " << utt << " in input "
                     << po.GetArg(i + 1);
          missing = true;
        }
      }
      Matrix<BaseFloat> pasted;
      std::string message;
      if (missing) {
        num_err++;
        continue;
      }
      if (!PasteFeats(feats, length_tolerance, &pasted, &message)) {
        NNET3_WARN << message << " for utterance " << utt;
        num_err++;
        continue;
      }
      if (!message.empty()) NNET3_LOG << message << " for utterance " << utt;
      writer.Write(utt, pasted);
      num_done++;
    }
    NNET3_LOG << "Pasted " << num_done << " utterances, errors on " << num_err;
    return num_done != 0 ? 0 : 1;
  }
  std::vector<Matrix<BaseFloat> > feats(num_inputs);
  for (int32 i = 0; i < num_inputs; i++)
    ReadKaldiObject(po.GetArg(i + 1), &feats[i]);
  Matrix<BaseFloat> pasted;
  std::string message;
  if (!PasteFeats(feats, length_tolerance, &pasted, &message))
    NNET3_ERR << message;
  if (!message.empty()) NNET3_LOG << message;
  WriteKaldiObject(pasted, out, binary);
  NNET3_LOG << "Wrote pasted features to " << PrintableWxfilename(out);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::PasteFeatsTool);
}
