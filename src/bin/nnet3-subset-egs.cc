// bin/nnet3-subset-egs.cc
// Writes a random subset of --n examples (reservoir sampling: the first n
// are kept, and example k > n replaces a random one with probability n/k),
// in random order unless --randomize-order=false. Memory: the subset only.
// As in Kaldi: the reservoir draws (WithProb, RandInt) come from glibc's
// rand() in its unseeded state (seed 1; Kaldi's tool does not call srand()),
// and the final order from KaldiShuffle(--srand), so --srand changes the
// order of the subset but not which examples are in it.
#include <utility>

#include "bin/cli.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/egs/utterance-splitter.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3SubsetEgs(int argc, char *argv[]) {
  const char *usage =
      "Writes --n examples drawn at random from the input archive,\n"
      "holding only those n in memory.\n"
      "\n"
      "Usage:  nnet3-subset-egs [options] <egs-rspecifier> "
      "<egs-wspecifier>\n"
      "e.g.: nnet3-subset-egs --n=1000 ark:train.egs ark:subset.egs\n"
      "See also: nnet3-copy-egs, nnet3-shuffle-egs\n";
  ParseOptions po(usage);
  int32 srand_seed = 0, n = 1000;
  bool randomize_order = true;
  po.Register("srand", &srand_seed,
              "Seed for the order of the output (as in Kaldi, which "
              "examples are chosen does not depend on it)");
  po.Register("n", &n, "Number of examples to output");
  po.Register("randomize-order", &randomize_order,
              "If true, randomize the order of the output");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  // --n=0 is allowed, as in Kaldi (get_egs.sh asks for it): the output
  // archive is empty.
  if (n < 0) NNET3_ERR << "Invalid --n=" << n << " (must be >= 0)";
  KaldiRand rand;  // glibc rand() never seeded: seed 1
  std::vector<std::pair<std::string, NnetExample> > egs;
  SequentialNnetExampleReader reader(po.GetArg(1));
  int64 num_read = 0;
  for (; !reader.Done(); reader.Next()) {
    num_read++;
    if (num_read <= n) {
      egs.emplace_back(reader.Key(), reader.Value());
    } else {
      float keep_prob = n / static_cast<float>(num_read);
      if (rand.WithProb(keep_prob)) {
        int32 index = rand.RandInt(0, n - 1);
        egs[index].first = reader.Key();
        egs[index].second = reader.Value();
      }
    }
  }
  if (randomize_order) KaldiShuffle(static_cast<uint32>(srand_seed), &egs);
  NnetExampleWriter writer(po.GetArg(2));
  for (const auto &eg : egs) writer.Write(eg.first, eg.second);
  writer.Close();
  NNET3_LOG << "Selected a subset of " << egs.size() << " out of " << num_read
            << " neural-network training examples ";
  return num_read != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3SubsetEgs);
}
