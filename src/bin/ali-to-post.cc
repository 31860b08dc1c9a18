// bin/ali-to-post.cc
// Turns alignments (one integer per frame) into posteriors: each frame gets
// the single pair (id, 1.0).
#include "bin/cli.h"
#include "util/holders.h"
#include "util/posterior.h"
#include "util/table.h"

namespace nnet3 {

int AliToPost(int argc, char *argv[]) {
  const char *usage =
      "Turns alignments (one integer per frame) into posteriors: frame t\n"
      "becomes the single pair (ali[t], 1.0). The integers are kept as they\n"
      "are (transition-ids or pdf-ids, whichever the alignment holds).\n"
      "Usage:  ali-to-post [options] <alignments-rspecifier> <posteriors-wspecifier>\n"
      "e.g.: ali-to-post ark:pdf_ali.ark ark:post.ark\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  SequentialInt32VectorReader reader(po.GetArg(1));
  PosteriorWriter writer(po.GetArg(2));
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next(), num_done++) {
    const std::vector<int32> &ali = reader.Value();
    Posterior post(ali.size());
    for (size_t i = 0; i < ali.size(); i++)
      post[i].push_back(std::make_pair(ali[i], BaseFloat(1.0)));
    writer.Write(reader.Key(), post);
  }
  NNET3_LOG << "Converted " << num_done << " alignments.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::AliToPost);
}
