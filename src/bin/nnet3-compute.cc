// bin/nnet3-compute.cc
// Runs features through a raw network (or the network of a .mdl) and writes
// the output per utterance, chunk by chunk as Kaldi's nnet3-compute does.
// Our addition: --read-cache / --write-cache keep the compiled (and
// optimized) computations on disk between runs.
#include <sys/stat.h>

#include "bin/cli.h"
#include "cudamatrix/cu-device.h"
#include "base/timer.h"
#include "matrix/table-types.h"
#include "nnet3/compute/decodable-simple.h"
#include "nnet3/nnet/am-nnet-simple.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-utils.h"
#include "util/random-access-reader.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3Compute(int argc, char *argv[]) {
  const char *usage =
      "Runs a raw nnet3 network on each utterance's features and writes the\n"
      "output matrices (exponentiated with --apply-exp=true).\n"
      "\n"
      "Usage: nnet3-compute [options] <nnet-in> <features-rspecifier> "
      "<matrix-wspecifier>\n"
      " e.g.: nnet3-compute final.raw scp:feats.scp "
      "ark:nnet_prediction.ark\n";
  ParseOptions po(usage);
  Timer timer;
  NnetSimpleComputationOptions opts;
  opts.acoustic_scale = 1.0;  // nnet3-compute does no scaling by default
  bool apply_exp = false, use_priors = false;
  std::string use_gpu = "yes";
  std::string ivector_rspecifier, online_ivector_rspecifier,
      utt2spk_rspecifier;
  int32 online_ivector_period = 0;
  std::string cache_rxfilename, cache_wxfilename;
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
  po.Register("read-cache", &cache_rxfilename,
              "If set, read compiled computations from this file (written "
              "by --write-cache) before starting; a file that does not "
              "exist yet is not an error. A cache made for a different "
              "network structure or options is ignored with a warning.");
  po.Register("write-cache", &cache_wxfilename,
              "If set, write the compiled computations to this file at the "
              "end (for --read-cache in a later run)");
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
  CheckAndFixSimpleComputationOptions(nnet, &opts);

  RandomAccessBaseFloatMatrixReader online_ivector_reader;
  if (!online_ivector_rspecifier.empty())
    online_ivector_reader.Open(online_ivector_rspecifier);
  RandomAccessTableReaderMapped<KaldiObjectHolder<Vector<BaseFloat> > >
      ivector_reader;
  if (!ivector_rspecifier.empty())
    ivector_reader.Open(ivector_rspecifier, utt2spk_rspecifier);

  CachingOptimizingCompiler compiler(nnet, opts.optimize_config,
                                     opts.compiler_config);
  if (!cache_rxfilename.empty()) {
    struct stat st;
    if (ClassifyRxfilename(cache_rxfilename) == kFileInput &&
        stat(cache_rxfilename.c_str(), &st) != 0) {
      NNET3_LOG << "Computation cache " << cache_rxfilename
                << " does not exist yet; starting with an empty cache";
    } else {
      compiler.ReadCacheFile(cache_rxfilename);
      NNET3_VLOG(1) << "Read " << compiler.NumCached()
                    << " computations from "
                    << PrintableRxfilename(cache_rxfilename);
    }
  }
  BaseFloatMatrixWriter matrix_writer(matrix_wspecifier);
  int32 num_success = 0, num_fail = 0;
  int64 frame_count = 0;
  SequentialBaseFloatMatrixReader feature_reader(feature_rspecifier);
  for (; !feature_reader.Done(); feature_reader.Next()) {
    std::string utt = feature_reader.Key();
    const Matrix<BaseFloat> &features = feature_reader.Value();
    if (features.NumRows() == 0) {
      NNET3_WARN << "Zero-length utterance: " << utt;
      num_fail++;
      continue;
    }
    const Matrix<BaseFloat> *online_ivectors = nullptr;
    const Vector<BaseFloat> *ivector = nullptr;
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
    Matrix<BaseFloat> output;
    try {
      DecodableNnetSimple decodable(opts, nnet, priors, features, &compiler,
                                    ivector, online_ivectors,
                                    online_ivector_period);
      output.Resize(decodable.NumFrames(), decodable.OutputDim());
      for (int32 t = 0; t < decodable.NumFrames(); t++) {
        SubVector<BaseFloat> row(output, t);
        decodable.GetOutputForFrame(t, &row);
      }
    } catch (const UserError &e) {
      NNET3_ERR << "Utterance " << utt << ": " << e.message();
    }
    if (apply_exp) output.ApplyExp();
    matrix_writer.Write(utt, output);
    frame_count += features.NumRows();
    num_success++;
  }
  double elapsed = timer.Elapsed();
  NNET3_LOG << "Time taken " << elapsed
            << "s: real-time factor assuming 100 frames/sec is "
            << (frame_count > 0 ? elapsed * 100.0 / frame_count : 0.0);
  NNET3_LOG << "Done " << num_success << " utterances, failed for "
            << num_fail;
  NNET3_VLOG(1) << "Compiled " << compiler.NumCompilations()
                << " computations (" << compiler.NumHits()
                << " cache hits) in " << compiler.CompileSeconds() << "s";
  if (!cache_wxfilename.empty()) {
    compiler.WriteCacheFile(cache_wxfilename, true);
    NNET3_VLOG(1) << "Wrote " << compiler.NumCached() << " computations to "
                  << PrintableWxfilename(cache_wxfilename);
  }
  return num_success != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3Compute);
}
