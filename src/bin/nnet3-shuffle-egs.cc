// bin/nnet3-shuffle-egs.cc
// Copies examples in a random order: all in memory (a full shuffle), or,
// with --buffer-size, through a buffer of that many slots (each example
// read goes to a random slot, writing out the one there first). Both give
// Kaldi's bytes: the full shuffle is KaldiShuffle(--srand) (std::shuffle
// over std::mt19937), and the slots are Kaldi's RandInt over glibc's rand()
// in its unseeded state (seed 1), because Kaldi's tool does not call
// srand(): with --buffer-size the order does not depend on --srand.
#include <memory>
#include <utility>

#include "bin/cli.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/egs/utterance-splitter.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3ShuffleEgs(int argc, char *argv[]) {
  const char *usage =
      "Copies examples for nnet3 training from input to output in a random\n"
      "order. All examples are kept in memory, unless --buffer-size is "
      "given.\n"
      "\n"
      "Usage:  nnet3-shuffle-egs [options] <egs-rspecifier> "
      "<egs-wspecifier>\n"
      "e.g.: nnet3-shuffle-egs --srand=1 ark:train.egs ark:shuffled.egs\n"
      "See also: nnet3-copy-egs, nnet3-subset-egs\n";
  ParseOptions po(usage);
  int32 srand_seed = 0, buffer_size = 0;
  po.Register("srand", &srand_seed,
              "Seed for the full shuffle (as in Kaldi, not used with "
              "--buffer-size)");
  po.Register("buffer-size", &buffer_size,
              "If > 0, the size of a buffer used for limited-memory partial "
              "randomization; otherwise the whole input is shuffled.");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  if (buffer_size < 0) NNET3_ERR << "Invalid --buffer-size=" << buffer_size;
  KaldiRand rand;  // glibc rand() never seeded: seed 1
  SequentialNnetExampleReader reader(po.GetArg(1));
  NnetExampleWriter writer(po.GetArg(2));
  typedef std::pair<std::string, std::unique_ptr<NnetExample> > Entry;
  std::vector<Entry> egs;
  int64 num_done = 0;
  if (buffer_size == 0) {
    for (; !reader.Done(); reader.Next())
      egs.emplace_back(reader.Key(),
                       std::unique_ptr<NnetExample>(
                           new NnetExample(reader.Value())));
    KaldiShuffle(static_cast<uint32>(srand_seed), &egs);
  } else {
    egs.resize(buffer_size);
    for (; !reader.Done(); reader.Next()) {
      int32 index = rand.RandInt(0, buffer_size - 1);
      Entry &slot = egs[index];
      if (slot.second == nullptr) {
        slot.second.reset(new NnetExample(reader.Value()));
      } else {
        writer.Write(slot.first, *slot.second);
        *slot.second = reader.Value();
        num_done++;
      }
      slot.first = reader.Key();
    }
  }
  for (const Entry &entry : egs) {
    if (entry.second == nullptr) continue;
    writer.Write(entry.first, *entry.second);
    num_done++;
  }
  writer.Close();
  NNET3_LOG << "Shuffled order of " << num_done
            << " neural-network training examples "
            << (buffer_size ? "using a buffer (partial randomization)" : "");
  return num_done == 0 ? 1 : 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3ShuffleEgs);
}
