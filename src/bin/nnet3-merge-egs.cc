// bin/nnet3-merge-egs.cc
// Merges single examples into minibatches (one NnetExample each), grouping
// examples of the same structure, with Kaldi's --minibatch-size rules and
// output keys "merged-K-SIZE" (see nnet3/egs/example-merging.h).
#include "bin/cli.h"
#include "nnet3/egs/example-merging.h"
#include "nnet3/egs/nnet-example.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3MergeEgs(int argc, char *argv[]) {
  const char *usage =
      "Copies examples for nnet3 training from input to output, merging "
      "many\n"
      "of them into one NnetExample per minibatch. Examples are merged only "
      "with\n"
      "examples of the same structure; see --minibatch-size for the sizes.\n"
      "\n"
      "Usage:  nnet3-merge-egs [options] <egs-rspecifier> <egs-wspecifier>\n"
      "e.g.: nnet3-merge-egs --minibatch-size=512 ark:1.egs ark:- | "
      "nnet3-train ...\n"
      "See also: nnet3-copy-egs\n";
  ParseOptions po(usage);
  ExampleMergingConfig config;
  config.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  config.ComputeDerived();
  SequentialNnetExampleReader reader(po.GetArg(1));
  NnetExampleWriter writer(po.GetArg(2));
  ExampleMerger merger(config, &writer);
  for (; !reader.Done(); reader.Next()) {
    NnetExample eg(reader.Value());
    merger.AcceptExample(&eg);
  }
  merger.Finish();
  writer.Close();
  return merger.ExitStatus();
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3MergeEgs);
}
