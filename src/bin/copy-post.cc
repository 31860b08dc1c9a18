// bin/copy-post.cc
// Copies archives of posteriors, optionally scaling the weights.
#include "bin/cli.h"
#include "util/posterior.h"
#include "util/table.h"

namespace nnet3 {

int CopyPost(int argc, char *argv[]) {
  const char *usage =
      "Copies tables of posteriors, optionally scaling their weights.\n"
      "Usage: copy-post [options] <post-rspecifier> <post-wspecifier>\n"
      "e.g.: copy-post ark:post.ark ark,t:-\n";
  ParseOptions po(usage);
  BaseFloat scale = 1.0;
  po.Register("scale", &scale, "Multiply every posterior weight by this");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  SequentialPosteriorReader reader(po.GetArg(1));
  PosteriorWriter writer(po.GetArg(2));
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next(), num_done++) {
    if (scale == 1.0) {
      writer.Write(reader.Key(), reader.Value());
    } else {
      Posterior post = reader.Value();
      for (auto &frame : post)
        for (auto &p : frame) p.second *= scale;
      writer.Write(reader.Key(), post);
    }
  }
  NNET3_LOG << "Done copying " << num_done << " posteriors.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::CopyPost);
}
