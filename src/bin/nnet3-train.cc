// bin/nnet3-train.cc
// Trains a raw network on minibatches of examples (usually from
// nnet3-merge-egs), one SGD step per minibatch (nnet3/train/nnet-trainer.h),
// and writes the updated network. The output is written to a temporary
// file and renamed, so a job killed at any time leaves the old model whole.
#include "bin/cli.h"
#include "bin/cpu-threads.h"
#include "cudamatrix/cu-device.h"
#include "base/random.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/train/nnet-arith.h"
#include "nnet3/train/nnet-trainer.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3Train(int argc, char *argv[]) {
  const char *usage =
      "Train an nnet3 neural network (a raw model, not a .mdl) with simple\n"
      "stochastic gradient descent, one update per (merged) minibatch.\n"
      "\n"
      "Usage:  nnet3-train [options] <raw-model-in> <training-examples-in> "
      "<raw-model-out>\n"
      "\n"
      "e.g.:\n"
      "nnet3-train --use-gpu=no 4.raw \"ark:nnet3-merge-egs ark:egs.4.ark "
      "ark:- |\" 5.raw\n";
  ParseOptions po(usage);
  bool binary_write = true;
  std::string use_gpu = "yes";
  int32 srand_seed = 0;
  NnetTrainerOptions train_config;
  po.Register("binary", &binary_write, "Write output in binary mode");
  po.Register("use-gpu", &use_gpu, CuDevice::OptionHelp());
  po.Register("srand", &srand_seed,
              "Seed for the random number generators (dropout)");
  train_config.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  SelectGpuForTool(use_gpu);
  HandBlasThreadsToLibrary();
  train_config.Check();
  std::string nnet_rxfilename = po.GetArg(1),
              examples_rspecifier = po.GetArg(2),
              nnet_wxfilename = po.GetArg(3);
  Srand(static_cast<uint64>(srand_seed));
  Nnet nnet;
  ReadKaldiObject(nnet_rxfilename, &nnet);
  ResetGenerators(static_cast<uint64>(srand_seed), &nnet);

  bool ok;
  {
    NnetTrainer trainer(train_config, &nnet);
    SequentialNnetExampleReader example_reader(examples_rspecifier);
    for (; !example_reader.Done(); example_reader.Next()) {
      const std::string key = example_reader.Key();
      const NnetExample &eg = example_reader.Value();
      CheckExampleIsFinite(key, eg);
      try {
        trainer.Train(eg);
      } catch (const UserError &e) {
        NNET3_ERR << "Example " << key << ": " << e.message();
      }
    }
    ok = trainer.PrintTotalStats();
    trainer.WriteCache();
  }
  if (!ok)
    NNET3_WARN << "No examples were trained on (or they had no weight); "
               << "writing the model unchanged";
  WriteKaldiObject(nnet, nnet_wxfilename, binary_write);
  NNET3_LOG << "Wrote model to " << nnet_wxfilename;
  return ok ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3Train);
}
