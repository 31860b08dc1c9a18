// bin/splice-feats.cc
// Splices each frame with its neighbours (edges repeat the first/last frame).
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/splice.h"

namespace nnet3 {

int SpliceFeats(int argc, char *argv[]) {
  const char *usage =
      "Splices each frame with left and right context frames (e.g. before\n"
      "LDA); at the ends of an utterance the first or last frame is\n"
      "repeated.\n"
      "Usage: splice-feats [options] <feats-rspecifier> <feats-wspecifier>\n"
      "e.g.: splice-feats --left-context=3 --right-context=3 scp:feats.scp "
      "ark:-\n"
      "See also: add-deltas\n";
  ParseOptions po(usage);
  int32 left_context = 4, right_context = 4;
  po.Register("left-context", &left_context, "Frames of left context");
  po.Register("right-context", &right_context, "Frames of right context");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  if (left_context < 0 || right_context < 0)
    NNET3_ERR << "--left-context and --right-context must be >= 0, got "
              << left_context << " and " << right_context;
  SequentialBaseFloatMatrixReader reader(po.GetArg(1));
  BaseFloatMatrixWriter writer(po.GetArg(2));
  for (; !reader.Done(); reader.Next()) {
    Matrix<BaseFloat> spliced;
    try {
      SpliceFrames(reader.Value(), left_context, right_context, &spliced);
    } catch (const UserError &e) {
      NNET3_ERR << "Key " << reader.Key() << ": " << e.message();
    }
    writer.Write(reader.Key(), spliced);
  }
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::SpliceFeats);
}
