// bin/nnet3-acc-lda-stats.cc
// Accumulates LDA statistics (Kaldi's <LDAACCS> format) from training
// examples: each example goes through the raw network, whose "output" rows
// are the data, and the example's "output" supervision gives each row's
// class posteriors (randomly pruned with --rand-prune). Used by Kaldi's
// train_dnn.py / train_raw_dnn.py, with the init.raw network that ends at
// the input of the fixed-affine-layer, to estimate that layer's matrix.
// Pruning draws from a fixed-seed source, so a run is reproducible (Kaldi
// draws from the C library's rand(); the random stream is not Kaldi's).
#include <memory>

#include "bin/cli.h"
#include "bin/cpu-threads.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "nnet3/train/nnet-trainer.h"
#include "transform/lda-estimate.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3AccLdaStats(int argc, char *argv[]) {
  const char *usage =
      "Accumulates LDA-type statistics from training examples: the examples\n"
      "are put through the network, whose output supplies the data, and the\n"
      "examples' 'output' supervision the class labels. The statistics feed\n"
      "nnet-get-feature-transform.\n"
      "\n"
      "Usage:  nnet3-acc-lda-stats [options] <raw-nnet-in> "
      "<training-examples-in> <lda-stats-out>\n"
      "e.g.:\n"
      "nnet3-acc-lda-stats --rand-prune=4.0 init.raw ark:egs.1.ark 1.lda_stats\n"
      "See also: sum-lda-accs, nnet-get-feature-transform\n";
  ParseOptions po(usage);
  bool binary_write = true;
  BaseFloat rand_prune = 0.0;
  po.Register("binary", &binary_write, "Write output in binary mode");
  po.Register("rand-prune", &rand_prune,
              "Posteriors below this are randomly rounded to 0 or to this "
              "value (keeping their expectation)");
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  HandBlasThreadsToLibrary();
  if (rand_prune < 0.0) NNET3_ERR << "--rand-prune must be >= 0";
  const std::string nnet_rxfilename = po.GetArg(1),
                    examples_rspecifier = po.GetArg(2),
                    stats_wxfilename = po.GetArg(3);
  Nnet nnet;
  ReadKaldiObject(nnet_rxfilename, &nnet);
  int32 node = nnet.GetNodeIndex("output");
  if (node < 0 || !nnet.IsOutputNode(node))
    NNET3_ERR << "The network in " << PrintableRxfilename(nnet_rxfilename)
              << " has no output node named 'output'";
  CachingOptimizingCompiler compiler(nnet);
  NnetComputeOptions compute_opts;
  if (GetVerboseLevel() >= 3) compute_opts.debug = true;
  RandomSource random(0);
  LdaEstimate stats;
  const Vector<BaseFloat> no_weights;
  int64 num_egs = 0;
  SequentialNnetExampleReader example_reader(examples_rspecifier);
  for (; !example_reader.Done(); example_reader.Next(), num_egs++) {
    const std::string key = example_reader.Key();
    const NnetExample &eg = example_reader.Value();
    try {
      const NnetIo *supervision = nullptr;
      for (const NnetIo &io : eg.io)
        if (io.name == "output") supervision = &io;
      if (supervision == nullptr)
        NNET3_ERR << "it has no supervision named 'output'";
      // Only the inputs must fit: the supervision has one column per
      // class, the network's output one per data dimension.
      for (const NnetIo &io : eg.io) {
        int32 n = nnet.GetNodeIndex(io.name);
        if (n >= 0 && nnet.IsInputNode(n) &&
            io.features.NumCols() != nnet.InputDim(io.name))
          NNET3_ERR << "its '" << io.name << "' has dimension "
                    << io.features.NumCols() << " but the network's input "
                    << "node has dimension " << nnet.InputDim(io.name);
      }
      ComputationRequest request;
      GetComputationRequest(nnet, eg, false, false, &request);
      std::shared_ptr<const NnetComputation> computation =
          compiler.Compile(request);
      NnetComputer computer(compute_opts, *computation, nnet, nullptr);
      ProvideInputs(nnet, eg, &computer);
      computer.Run();
      CuMatrix<BaseFloat> cu_output;
      computer.GetOutputDestructive("output", &cu_output);
      Matrix<BaseFloat> output;
      cu_output.Swap(&output);
      AccumulateLdaStats(output, supervision->features, no_weights,
                         rand_prune, &random, &stats);
    } catch (const UserError &e) {
      NNET3_ERR << "Example " << key << ": " << e.message();
    }
  }
  NNET3_LOG << "Processed " << num_egs << " examples.";
  if (stats.TotCount() == 0.0) NNET3_ERR << "Accumulated no stats.";
  WriteKaldiObject(stats, stats_wxfilename, binary_write);
  NNET3_LOG << "Accumulated stats, soft frame count = " << stats.TotCount()
            << ".  Wrote to " << PrintableWxfilename(stats_wxfilename);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3AccLdaStats);
}
