// bin/nnet3-compute.cc
// Runs features through a raw network (or the network of a .mdl) and writes
// the output per utterance, chunk by chunk as Kaldi's nnet3-compute does.
// Our additions: --read-cache / --write-cache keep the compiled (and
// optimized) computations on disk between runs; --num-threads=N computes N
// utterances at once (one NnetComputer each, sharing the network and the
// compiled computations) and writes them in input order, byte-identical to
// one thread.
#include <sys/stat.h>

#include <exception>
#include <memory>

#include "bin/cli.h"
#include "bin/inference-tool.h"
#include "bin/utt-threads.h"
#include "base/timer.h"
#include "matrix/host-memory.h"
#include "matrix/table-types.h"
#include "nnet3/compute/decodable-simple.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

namespace {

// One utterance on its way through the tool. The inputs point at the
// readers' values when the utterance is computed before the readers move on
// (one thread), else at the job's own copies.
struct UttJob {
  std::string utt;
  const Matrix<BaseFloat> *features = nullptr, *online_ivectors = nullptr;
  const Vector<BaseFloat> *ivector = nullptr;
  Matrix<BaseFloat> own_features, own_online_ivectors, output;
  Vector<BaseFloat> own_ivector;
  std::exception_ptr error;

  // Makes the job independent of the readers.
  void CopyInputs() {
    own_features = *features;
    features = &own_features;
    if (ivector != nullptr) {
      own_ivector = *ivector;
      ivector = &own_ivector;
    }
    if (online_ivectors != nullptr) {
      own_online_ivectors = *online_ivectors;
      online_ivectors = &own_online_ivectors;
    }
  }
};

void ComputeUtterance(const NnetSimpleComputationOptions &opts,
                      const Nnet &nnet, const Vector<BaseFloat> &priors,
                      int32 online_ivector_period, bool apply_exp,
                      CachingOptimizingCompiler *compiler, UttJob *job) {
  try {
    try {
      DecodableNnetSimple decodable(opts, nnet, priors, *job->features,
                                    compiler, job->ivector,
                                    job->online_ivectors,
                                    online_ivector_period);
      decodable.ComputeOutput(&job->output);
      if (apply_exp) job->output.ApplyExp();
    } catch (const UserError &e) {
      NNET3_ERR << "Utterance " << job->utt << ": " << e.message();
    }
  } catch (...) {
    // Rethrown by the thread that writes the output, in input order.
    job->error = std::current_exception();
  }
}

}  // namespace

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
  UttThreadsOption threads;
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
  threads.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  tool_opts.Apply();
  threads.Resolve();

  std::string nnet_rxfilename = po.GetArg(1),
              feature_rspecifier = po.GetArg(2),
              matrix_wspecifier = po.GetArg(3);
  Nnet nnet;
  Vector<BaseFloat> priors;
  ReadInferenceNnet(nnet_rxfilename, tool_opts, &nnet, &priors);
  CheckAndFixSimpleComputationOptions(nnet, &opts);

  InferenceInputs inputs(tool_opts);

  CachingOptimizingCompiler compiler(nnet, opts.optimize_config,
                                     opts.compiler_config);
  // A 512-frame request leaves megabytes of the compiler's temporaries
  // free between the structures it keeps; glibc would keep them resident.
  compiler.SetAfterCompile([] { ReleaseFreeHeapPages(); });
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
  // Utterances computed on the threads, written in input order.
  InOrderRunner<UttJob> runner(
      threads.num_threads, threads.Window(),
      [&](UttJob *job) {
        ComputeUtterance(opts, nnet, priors, tool_opts.online_ivector_period,
                         tool_opts.apply_exp, &compiler, job);
      },
      [&](UttJob *job) {
        if (job->error) std::rethrow_exception(job->error);
        matrix_writer.Write(job->utt, job->output);
        frame_count += job->features->NumRows();
        num_success++;
      });
  SequentialBaseFloatMatrixReader feature_reader(feature_rspecifier);
  for (; !feature_reader.Done(); feature_reader.Next()) {
    std::unique_ptr<UttJob> job(new UttJob);
    job->utt = feature_reader.Key();
    job->features = &feature_reader.Value();
    if (!inputs.Get(job->utt, *job->features, &job->ivector,
                    &job->online_ivectors)) {
      num_fail++;
      continue;
    }
    // One thread computes the utterance inside Add, before the readers move
    // on; several need the job to own its inputs.
    if (runner.Threaded()) job->CopyInputs();
    runner.Add(std::move(job));
  }
  runner.Finish();
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
