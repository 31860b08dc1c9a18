// bin/nnet3-combine.cc
// Chooses, among the running averages of the given models (the first one
// alone, the first two, ...), the one with the best objective on held-out
// examples, and writes it (nnet3/train/nnet-combine.h).
#include "bin/cli.h"
#include "bin/cpu-threads.h"
#include "cudamatrix/cu-device.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/train/nnet-combine.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3Combine(int argc, char *argv[]) {
  const char *usage =
      "Averages the first n of the given nnet3 models, picking the n whose\n"
      "average scores best on the examples (held-out or a training subset).\n"
      "List the models newest first.\n"
      "\n"
      "Usage:  nnet3-combine [options] <nnet-in1> <nnet-in2> ... "
      "<nnet-inN> <valid-examples-in> <nnet-out>\n"
      "\n"
      "e.g.:\n"
      " nnet3-combine 10.raw 9.raw 8.raw ark:valid.egs final.raw\n";
  ParseOptions po(usage);
  bool binary_write = true;
  std::string use_gpu = "yes";
  int32 max_objective_evaluations = 30;
  NnetCombineOptions opts;
  po.Register("binary", &binary_write, "Write output in binary mode");
  po.Register("use-gpu", &use_gpu, CuDevice::OptionHelp());
  po.Register("max-objective-evaluations", &max_objective_evaluations,
              "At most this many averages are evaluated: with more models "
              "than that, the objective is computed after every "
              "ceil(N / this) added models (and for the full average)");
  po.Register("batchnorm-test-mode", &opts.batchnorm_test_mode,
              "Evaluate the objective with every BatchNormComponent in test "
              "mode (stored statistics)");
  po.Register("dropout-test-mode", &opts.dropout_test_mode,
              "Evaluate the objective with dropout switched off "
              "(Dropout and DropoutMask components in test mode)");
  po.Read(argc, argv);
  if (po.NumArgs() < 3) return UsageError(po);
  SelectGpuForTool(use_gpu);
  HandBlasThreadsToLibrary();
  if (max_objective_evaluations < 1)
    NNET3_ERR << "Invalid --max-objective-evaluations="
              << max_objective_evaluations << " (must be >= 1)";
  const int32 num_nnets = po.NumArgs() - 2;
  std::string examples_rspecifier = po.GetArg(num_nnets + 1),
              nnet_wxfilename = po.GetArg(num_nnets + 2);

  std::vector<NnetExample> egs;
  {
    SequentialNnetExampleReader example_reader(examples_rspecifier);
    for (; !example_reader.Done(); example_reader.Next()) {
      CheckExampleIsFinite(example_reader.Key(), example_reader.Value());
      egs.push_back(example_reader.Value());
    }
  }
  if (egs.empty())
    NNET3_ERR << "No examples read from " << examples_rspecifier;
  Nnet nnet;
  ReadKaldiObject(po.GetArg(1), &nnet);
  NnetCombiner combiner(opts, egs, nnet);
  // Evaluate after every num_to_add models (and after the last one).
  const int32 num_to_add =
      (num_nnets + max_objective_evaluations - 1) / max_objective_evaluations;
  for (int32 n = 1; n < num_nnets; n++) {
    ReadKaldiObject(po.GetArg(1 + n), &nnet);
    combiner.AddModel(nnet, (n - 1) % num_to_add == num_to_add - 1 ||
                                n == num_nnets - 1);
  }
  const Nnet &best = combiner.Finish();
  WriteKaldiObject(best, nnet_wxfilename, binary_write);
  NNET3_LOG << "Finished combining neural nets, wrote model to "
            << nnet_wxfilename;
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3Combine);
}
