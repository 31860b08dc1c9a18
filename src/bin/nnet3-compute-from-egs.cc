// bin/nnet3-compute-from-egs.cc
// Runs each example's inputs through a raw network and writes the output
// (one matrix per example key, rows in the order of the example's output
// Indexes). The network is used as it is (no test modes are set).
#include "bin/cli.h"
#include "bin/cpu-threads.h"
#include "cudamatrix/cu-device.h"
#include "matrix/table-types.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "nnet3/train/nnet-trainer.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3ComputeFromEgs(int argc, char *argv[]) {
  const char *usage =
      "Writes the network's output for every example read (exponentiated\n"
      "with --apply-exp=true).\n"
      "\n"
      "Usage:  nnet3-compute-from-egs [options] <raw-nnet-in> "
      "<training-examples-in> <matrices-out>\n"
      "e.g.:\n"
      "nnet3-compute-from-egs --use-gpu=no 0.raw ark:valid.egs "
      "ark,t:out.txt\n"
      "See also: nnet3-compute\n";
  ParseOptions po(usage);
  bool binary_write = true, apply_exp = false;
  std::string use_gpu = "yes", output_name = "output";
  po.Register("binary", &binary_write,
              "Accepted for compatibility (archives take b/t from the "
              "wspecifier)");
  po.Register("apply-exp", &apply_exp, "If true, apply exp function to output");
  po.Register("output-name", &output_name,
              "Do computation for specified output");
  po.Register("use-gpu", &use_gpu, CuDevice::OptionHelp());
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  SelectGpuForTool(use_gpu);
  HandBlasThreadsToLibrary();
  std::string nnet_rxfilename = po.GetArg(1),
              examples_rspecifier = po.GetArg(2),
              matrix_wspecifier = po.GetArg(3);
  Nnet nnet;
  ReadKaldiObject(nnet_rxfilename, &nnet);
  int32 node = nnet.GetNodeIndex(output_name);
  if (node < 0 || !nnet.IsOutputNode(node))
    NNET3_ERR << "The network in " << PrintableRxfilename(nnet_rxfilename)
              << " has no output node named '" << output_name << "'";
  CachingOptimizingCompiler compiler(nnet);
  NnetComputeOptions compute_opts;
  if (GetVerboseLevel() >= 3) compute_opts.debug = true;
  int64 num_egs = 0;
  SequentialNnetExampleReader example_reader(examples_rspecifier);
  BaseFloatMatrixWriter matrix_writer(matrix_wspecifier);
  for (; !example_reader.Done(); example_reader.Next(), num_egs++) {
    const std::string key = example_reader.Key();
    const NnetExample &eg = example_reader.Value();
    Matrix<BaseFloat> output;
    try {
      CheckExampleDims(nnet, eg);
      ComputationRequest request;
      GetComputationRequest(nnet, eg, false, false, &request);
      if (request.IndexForOutput(output_name) < 0)
        NNET3_ERR << "the example has no '" << output_name << "'";
      std::shared_ptr<const NnetComputation> computation =
          compiler.Compile(request);
      NnetComputer computer(compute_opts, *computation, nnet, nullptr);
      ProvideInputs(nnet, eg, &computer);
      computer.Run();
      CuMatrix<BaseFloat> cu_output;
      computer.GetOutputDestructive(output_name, &cu_output);
      cu_output.Swap(&output);
    } catch (const UserError &e) {
      NNET3_ERR << "Example " << key << ": " << e.message();
    }
    NNET3_ASSERT(output.NumRows() != 0);
    if (apply_exp) output.ApplyExp();
    matrix_writer.Write(key, output);
  }
  NNET3_LOG << "Processed " << num_egs << " examples.";
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3ComputeFromEgs);
}
