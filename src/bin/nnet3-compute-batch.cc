// bin/nnet3-compute-batch.cc
// nnet3-compute with batching: chunks of several utterances are computed
// together in minibatches (nnet3/compute/batch-compute.h), which is what
// makes a GPU busy. Writes the same archive as nnet3-compute (one matrix
// per utterance, in input order); options and defaults are Kaldi's.
#include "bin/cli.h"
#include "bin/inference-tool.h"
#include "base/timer.h"
#include "matrix/table-types.h"
#include "nnet3/compute/batch-compute.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3ComputeBatch(int argc, char *argv[]) {
  const char *usage =
      "Runs a raw nnet3 network on each utterance's features and writes the\n"
      "output matrices (exponentiated with --apply-exp=true), like\n"
      "nnet3-compute, but computes fixed-size chunks of many utterances\n"
      "together in minibatches (for GPUs).\n"
      "\n"
      "Usage: nnet3-compute-batch [options] <nnet-in> <features-rspecifier> "
      "<matrix-wspecifier>\n"
      " e.g.: nnet3-compute-batch final.raw scp:feats.scp "
      "ark:nnet_prediction.ark\n";
  ParseOptions po(usage);
  Timer timer;
  NnetBatchComputerOptions opts;
  opts.acoustic_scale = 1.0;  // no scaling unless asked
  InferenceToolOptions tool_opts;
  opts.Register(&po);
  tool_opts.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  tool_opts.Apply();

  std::string nnet_rxfilename = po.GetArg(1),
              feature_rspecifier = po.GetArg(2),
              matrix_wspecifier = po.GetArg(3);
  Nnet nnet;
  Vector<BaseFloat> priors;
  ReadInferenceNnet(nnet_rxfilename, tool_opts, &nnet, &priors);

  InferenceInputs inputs(tool_opts);
  NnetBatchInference inference(opts, nnet, priors);
  BaseFloatMatrixWriter matrix_writer(matrix_wspecifier);
  int32 num_success = 0, num_fail = 0;
  auto write_ready = [&]() {
    std::string utt;
    Matrix<BaseFloat> output;
    while (inference.GetOutput(&utt, &output)) {
      if (tool_opts.apply_exp) output.ApplyExp();
      matrix_writer.Write(utt, output);
      num_success++;
    }
  };
  SequentialBaseFloatMatrixReader feature_reader(feature_rspecifier);
  for (; !feature_reader.Done(); feature_reader.Next()) {
    std::string utt = feature_reader.Key();
    const Matrix<BaseFloat> &features = feature_reader.Value();
    const Vector<BaseFloat> *ivector = nullptr;
    const Matrix<BaseFloat> *online_ivectors = nullptr;
    if (!inputs.Get(utt, features, &ivector, &online_ivectors)) {
      num_fail++;
      continue;
    }
    try {
      inference.AcceptInput(utt, features, ivector, online_ivectors,
                            tool_opts.online_ivector_period);
    } catch (const UserError &e) {
      NNET3_ERR << "Utterance " << utt << ": " << e.message();
    }
    write_ready();
  }
  inference.Finished();
  write_ready();
  NNET3_LOG << inference.Computer().MinibatchStats();
  NNET3_LOG << "Time taken " << timer.Elapsed() << "s";
  NNET3_LOG << "Done " << num_success << " utterances, failed for "
            << num_fail;
  NNET3_VLOG(1) << "Compiled " << inference.Computer().Compiler().NumCompilations()
                << " computations";
  return num_success != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3ComputeBatch);
}
