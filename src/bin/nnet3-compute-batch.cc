// bin/nnet3-compute-batch.cc
// nnet3-compute with batching: chunks of several utterances are computed
// together in minibatches (nnet3/compute/batch-compute.h), which is what
// makes a GPU busy. Writes the same archive as nnet3-compute (one matrix
// per utterance, in input order); options and defaults are Kaldi's.
#include "bin/cli.h"
#include "base/timer.h"
#include "cudamatrix/cu-device.h"
#include "matrix/table-types.h"
#include "nnet3/compute/batch-compute.h"
#include "nnet3/nnet/am-nnet-simple.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-utils.h"
#include "util/random-access-reader.h"
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
  bool apply_exp = false, use_priors = false;
  std::string use_gpu = "yes";
  std::string ivector_rspecifier, online_ivector_rspecifier,
      utt2spk_rspecifier;
  int32 online_ivector_period = 0;
  opts.Register(&po);
  po.Register("ivectors", &ivector_rspecifier,
              "iVectors as vectors, one per utterance (or one per speaker "
              "together with --utt2spk)");
  po.Register("utt2spk", &utt2spk_rspecifier,
              "Utterance-to-speaker map, for --ivectors keyed by speaker");
  po.Register("online-ivectors", &online_ivector_rspecifier,
              "Online iVectors as matrices, one row every "
              "--online-ivector-period frames (which must then be set)");
  po.Register("online-ivector-period", &online_ivector_period,
              "Frames per row of the --online-ivectors matrices");
  po.Register("apply-exp", &apply_exp, "If true, apply exp function to output");
  po.Register("use-gpu", &use_gpu, CuDevice::OptionHelp());
  po.Register("use-priors", &use_priors,
              "Subtract the log of the priors kept in the model's .mdl file "
              "(the input must then be a .mdl)");
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  SelectGpuForTool(use_gpu);
  if (!ivector_rspecifier.empty() && !online_ivector_rspecifier.empty())
    NNET3_ERR << "You cannot give both --ivectors and --online-ivectors";
  if (!online_ivector_rspecifier.empty() && online_ivector_period <= 0)
    NNET3_ERR << "You need to set the --online-ivector-period option when "
              << "using --online-ivectors";

  std::string nnet_rxfilename = po.GetArg(1),
              feature_rspecifier = po.GetArg(2),
              matrix_wspecifier = po.GetArg(3);
  Nnet nnet;
  Vector<BaseFloat> priors;
  if (use_priors)
    ReadAmNnetSimple(nnet_rxfilename, &nnet, &priors);
  else
    ReadKaldiObject(nnet_rxfilename, &nnet);
  if (!IsSimpleNnet(nnet))
    NNET3_ERR << "The network in " << PrintableRxfilename(nnet_rxfilename)
              << " is not a simple network (it needs an input named "
              << "'input' and an output named 'output')";
  SetBatchnormTestMode(true, &nnet);
  SetDropoutTestMode(true, &nnet);
  CollapseModel(CollapseModelConfig(), &nnet);

  RandomAccessBaseFloatMatrixReader online_ivector_reader;
  if (!online_ivector_rspecifier.empty())
    online_ivector_reader.Open(online_ivector_rspecifier);
  RandomAccessTableReaderMapped<KaldiObjectHolder<Vector<BaseFloat> > >
      ivector_reader;
  if (!ivector_rspecifier.empty())
    ivector_reader.Open(ivector_rspecifier, utt2spk_rspecifier);

  NnetBatchInference inference(opts, nnet, priors);
  BaseFloatMatrixWriter matrix_writer(matrix_wspecifier);
  int32 num_success = 0, num_fail = 0;
  auto write_ready = [&]() {
    std::string utt;
    Matrix<BaseFloat> output;
    while (inference.GetOutput(&utt, &output)) {
      if (apply_exp) output.ApplyExp();
      matrix_writer.Write(utt, output);
      num_success++;
    }
  };
  SequentialBaseFloatMatrixReader feature_reader(feature_rspecifier);
  for (; !feature_reader.Done(); feature_reader.Next()) {
    std::string utt = feature_reader.Key();
    const Matrix<BaseFloat> &features = feature_reader.Value();
    if (features.NumRows() == 0) {
      NNET3_WARN << "Zero-length utterance: " << utt;
      num_fail++;
      continue;
    }
    const Vector<BaseFloat> *ivector = nullptr;
    const Matrix<BaseFloat> *online_ivectors = nullptr;
    if (!ivector_rspecifier.empty()) {
      if (!ivector_reader.HasKey(utt)) {
        NNET3_WARN << "No iVector available for utterance " << utt;
        num_fail++;
        continue;
      }
      ivector = &ivector_reader.Value(utt);
    }
    if (!online_ivector_rspecifier.empty()) {
      if (!online_ivector_reader.HasKey(utt)) {
        NNET3_WARN << "No online iVector available for utterance " << utt;
        num_fail++;
        continue;
      }
      online_ivectors = &online_ivector_reader.Value(utt);
    }
    try {
      inference.AcceptInput(utt, features, ivector, online_ivectors,
                            online_ivector_period);
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
