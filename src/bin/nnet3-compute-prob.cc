// bin/nnet3-compute-prob.cc
// Computes the objective (log-likelihood for linear outputs) and the
// accuracy of a raw network on examples, as Kaldi's nnet3-compute-prob: by
// default BatchNorm and dropout are put in test mode and the model is
// collapsed first.
#include "bin/cli.h"
#include "bin/cpu-threads.h"
#include "cudamatrix/cu-device.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/train/nnet-diagnostics.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3ComputeProb(int argc, char *argv[]) {
  const char *usage =
      "Logs the objective (average log-probability per frame for\n"
      "log-softmax outputs) of an nnet3 network on examples, such as those\n"
      "made by nnet3-get-egs and merged by nnet3-merge-egs.\n"
      "\n"
      "Usage:  nnet3-compute-prob [options] <raw-model-in> "
      "<training-examples-in>\n"
      "e.g.: nnet3-compute-prob 0.raw ark:valid.egs\n";
  ParseOptions po(usage);
  bool batchnorm_test_mode = true, dropout_test_mode = true,
       collapse_model = true;
  std::string use_gpu = "no";
  NnetComputeProbOptions opts;
  po.Register("use-gpu", &use_gpu, CuDevice::OptionHelp());
  po.Register("batchnorm-test-mode", &batchnorm_test_mode,
              "Put every BatchNormComponent in test mode (stored "
              "statistics)");
  po.Register("dropout-test-mode", &dropout_test_mode,
              "Switch dropout off (Dropout and DropoutMask components in "
              "test mode)");
  po.Register("collapse-model", &collapse_model,
              "Fold components into their neighbours where the result is "
              "the same, to evaluate faster");
  opts.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  SelectGpuForTool(use_gpu);
  HandBlasThreadsToLibrary();
  std::string nnet_rxfilename = po.GetArg(1),
              examples_rspecifier = po.GetArg(2);
  Nnet nnet;
  ReadKaldiObject(nnet_rxfilename, &nnet);
  if (batchnorm_test_mode) SetBatchnormTestMode(true, &nnet);
  if (dropout_test_mode) SetDropoutTestMode(true, &nnet);
  if (collapse_model) CollapseModel(CollapseModelConfig(), &nnet);

  NnetComputeProb prob_computer(opts, static_cast<const Nnet &>(nnet));
  SequentialNnetExampleReader example_reader(examples_rspecifier);
  for (; !example_reader.Done(); example_reader.Next()) {
    const std::string key = example_reader.Key();
    const NnetExample &eg = example_reader.Value();
    CheckExampleIsFinite(key, eg);
    try {
      prob_computer.Compute(eg);
    } catch (const UserError &e) {
      NNET3_ERR << "Example " << key << ": " << e.message();
    }
  }
  bool ok = prob_computer.PrintTotalStats();
  return ok ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3ComputeProb);
}
