// bin/subsample-feats.cc
// Keeps every n'th frame (or, with negative n, repeats each frame -n times).
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/frames.h"

namespace nnet3 {

int SubsampleFeats(int argc, char *argv[]) {
  const char *usage =
      "Sub-samples features by keeping every n'th frame, starting at\n"
      "--offset; with a negative n, repeats each frame -n times instead.\n"
      "Usage: subsample-feats [options] <feats-rspecifier> "
      "<feats-wspecifier>\n"
      "e.g.: subsample-feats --n=2 ark:- ark:-\n";
  ParseOptions po(usage);
  int32 n = 1, offset = 0;
  po.Register("n", &n,
              "Keep every n'th frame; if negative, repeat each frame -n "
              "times");
  po.Register("offset", &offset,
              "Index of the first frame kept (then every n'th)");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  if (n == 0) NNET3_ERR << "--n must be non-zero";
  if (offset < 0 || (n < 0 && offset != 0))
    NNET3_ERR << "Invalid --offset=" << offset
              << " (must be >= 0, and 0 when --n is negative)";
  SequentialBaseFloatMatrixReader reader(po.GetArg(1));
  BaseFloatMatrixWriter writer(po.GetArg(2));
  int32 num_done = 0, num_err = 0;
  int64 frames_in = 0, frames_out = 0;
  for (; !reader.Done(); reader.Next()) {
    const std::string &utt = reader.Key();
    const Matrix<BaseFloat> &feats = reader.Value();
    Matrix<BaseFloat> out;
    frames_in += feats.NumRows();
    if (!SubsampleFrames(feats, n, offset, &out)) {
      NNET3_WARN << "For utterance " << utt << ", the output would have no "
                 << "rows; producing no output.";
      num_err++;
      continue;
    }
    frames_out += out.NumRows();
    writer.Write(utt, out);
    num_done++;
  }
  NNET3_LOG << "Sub-sampled " << num_done << " feature matrices; " << num_err
            << " with errors.";
  NNET3_LOG << "Changed " << frames_in << " frames to " << frames_out;
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::SubsampleFeats);
}
