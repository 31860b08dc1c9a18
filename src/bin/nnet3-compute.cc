// bin/nnet3-compute.cc
// Runs features through a raw network (or the network of a .mdl) and writes
// the output per utterance, chunk by chunk as Kaldi's nnet3-compute does.
// Our addition: --read-cache / --write-cache keep the compiled (and
// optimized) computations on disk between runs.
#include <sys/stat.h>

#include "bin/cli.h"
#include "bin/inference-tool.h"
#include "base/timer.h"
#include "matrix/table-types.h"
#include "nnet3/compute/decodable-simple.h"
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
  InferenceToolOptions tool_opts;
  std::string cache_rxfilename, cache_wxfilename;
  opts.Register(&po);
  tool_opts.Register(&po);
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
  tool_opts.Apply();

  std::string nnet_rxfilename = po.GetArg(1),
              feature_rspecifier = po.GetArg(2),
              matrix_wspecifier = po.GetArg(3);
  Nnet nnet;
  Vector<BaseFloat> priors;
  ReadInferenceNnet(nnet_rxfilename, tool_opts.use_priors, &nnet, &priors);
  CheckAndFixSimpleComputationOptions(nnet, &opts);

  InferenceInputs inputs(tool_opts);

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
    const Matrix<BaseFloat> *online_ivectors = nullptr;
    const Vector<BaseFloat> *ivector = nullptr;
    if (!inputs.Get(utt, features, &ivector, &online_ivectors)) {
      num_fail++;
      continue;
    }
    Matrix<BaseFloat> output;
    try {
      DecodableNnetSimple decodable(opts, nnet, priors, features, &compiler,
                                    ivector, online_ivectors,
                                    tool_opts.online_ivector_period);
      output.Resize(decodable.NumFrames(), decodable.OutputDim());
      for (int32 t = 0; t < decodable.NumFrames(); t++) {
        SubVector<BaseFloat> row(output, t);
        decodable.GetOutputForFrame(t, &row);
      }
    } catch (const UserError &e) {
      NNET3_ERR << "Utterance " << utt << ": " << e.message();
    }
    if (tool_opts.apply_exp) output.ApplyExp();
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
