// tests/bench/xvector-bench.cc
// Benchmark for x-vector extraction (prints figures, asserts nothing).
// The network is tests/data/bench/xvector.config with random parameters;
// its BatchNorm statistics come from one training-mode pass over a few
// random utterances, then it is put in test mode, collapsed and its spliced
// affines computed as TdnnComponents as nnet3-xvector-compute does
// (--spliced-affine-min-dim, 0: not). By default the x-vector is read at
// tdnn6.affine, as Kaldi's recipes extract it (--extract-at= keeps the
// config's own output, whose last affine layer is all zeros).
// N utterances (default 40) of random lengths uniform in [200, 3000] frames
// (fixed seed), each one chunk (--chunk-size=-1), computed three ways,
// alternating (a b c a b c ...) and keeping the best of --reps:
//  (a) each utterance with a fresh CachingOptimizingCompiler (a fresh
//      compilation per utterance), compilation reuse off;
//  (b) one compiler for the pass (cache by length), reuse off;
//  (c) one XvectorComputer for the pass with reuse on (its two
//      compilations included in the time).
// Prints x-vectors per second, the ratios (a)/(c) and (b)/(c), the share of
// each pass spent compiling, the ratio (c) would reach if it cost only (a)'s
// time minus compilation (the frame layers' matrix products, which every
// way must do, bound it), and the largest difference between the x-vectors
// of (a) and (c).
// Usage: xvector-bench [--config=PATH] [--num-utts=40] [--min-frames=200]
//                      [--max-frames=3000] [--reps=2] [--block-size=256]
//                      [--threads=1] [--extract-at=tdnn6.affine]
//                      [--spliced-affine-min-dim=256]
//                      [--only=abc] (a subset of the passes, for profiling)
//                      [--library-threads] (--threads go to the matrix
//                      library as in nnet3-train; by default BLAS keeps
//                      them as in nnet3-xvector-compute: --blas-threads;
//                      see bench-threads.h)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "base/timer.h"
#include "bench-threads.h"
#include "nnet3/components/normalize.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/compute/xvector.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-splice-tdnn.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/testing/random-nnet.h"


namespace nnet3 {
namespace {

// BatchNorm statistics from one training-mode pass: 'num_seqs' random
// sequences of 'frames' frames, output read at t=0 of each (so the
// segment-level BatchNorms see num_seqs rows).
void TrainBatchnormStats(Nnet *nnet, int32 num_seqs, int32 frames,
                         RandomSource *rng) {
  ComputationRequest request;
  IoSpecification in, out;
  in.name = "input";
  out.name = "output";
  for (int32 n = 0; n < num_seqs; n++) {
    for (int32 t = 0; t < frames; t++) in.indexes.push_back(Index(n, t, 0));
    out.indexes.push_back(Index(n, 0, 0));
  }
  request.inputs.push_back(in);
  request.outputs.push_back(out);
  request.store_component_stats = true;
  CachingOptimizingCompiler compiler(*nnet);
  std::shared_ptr<const NnetComputation> computation =
      compiler.Compile(request);
  NnetComputer computer(NnetComputeOptions(), *computation, nnet, nullptr);
  CuMatrix<BaseFloat> input(RandomGaussMatrix(
      static_cast<int32>(in.indexes.size()), nnet->InputDim("input"), rng));
  computer.AcceptInput("input", &input);
  computer.Run();
}

struct Pass {
  double seconds = 0.0, compile_seconds = 0.0;
  int64 compilations = 0;
  std::vector<Vector<BaseFloat> > xvectors;
};

void Check(bool ok, const std::string &why) {
  if (!ok) {
    fprintf(stderr, "xvector-bench: no x-vector: %s\n", why.c_str());
    exit(1);
  }
}

// (a): a fresh compiler per utterance.
Pass FreshCompilerPass(const Nnet &nnet, const XvectorExtractionOptions &opts,
                       const std::vector<Matrix<BaseFloat> > &utts) {
  Pass p;
  p.xvectors.resize(utts.size());
  Timer timer;
  for (size_t u = 0; u < utts.size(); u++) {
    CachingOptimizingCompiler compiler(nnet);
    std::string why;
    Check(ComputeUtteranceXvector(opts, nnet, &compiler, utts[u],
                                  &p.xvectors[u], &why), why);
    p.compile_seconds += compiler.CompileSeconds();
    p.compilations += compiler.NumCompilations();
  }
  p.seconds = timer.Elapsed();
  return p;
}

// (b) with reuse_compilation false, (c) with it true.
Pass ComputerPass(const Nnet &nnet, const XvectorExtractionOptions &opts,
                  const std::vector<Matrix<BaseFloat> > &utts) {
  Pass p;
  p.xvectors.resize(utts.size());
  Timer timer;
  CachingOptimizingCompiler compiler(nnet);
  XvectorComputer computer(opts, nnet, &compiler);
  for (size_t u = 0; u < utts.size(); u++) {
    std::string why;
    Check(computer.ComputeUtterance(utts[u], &p.xvectors[u], &why), why);
  }
  p.seconds = timer.Elapsed();
  p.compile_seconds = computer.CompileSeconds();
  p.compilations = computer.NumCompilations();
  if (opts.reuse_compilation &&
      computer.NumChunksThroughPlan() != static_cast<int64>(utts.size())) {
    fprintf(stderr, "xvector-bench: only %lld of %zu utterances used the "
            "plan (%s)\n", static_cast<long long>(computer.NumChunksThroughPlan()),
            utts.size(), computer.Plan()->WhyNot().c_str());
  }
  return p;
}

void Keep(const Pass &p, Pass *best) {
  if (best->xvectors.empty() || p.seconds < best->seconds) *best = p;
}

void Print(const char *label, const Pass &p, size_t n) {
  printf("  %-44s %8.2f x-vectors/s  (%.2f s, %lld compilations, "
         "%.1f%% compiling)\n",
         label, n / p.seconds, p.seconds,
         static_cast<long long>(p.compilations),
         100.0 * p.compile_seconds / p.seconds);
}

}  // namespace
}  // namespace nnet3

int main(int argc, char *argv[]) {
  using namespace nnet3;
  std::string config = std::string(NNET3_TEST_DATA_DIR) +
                       "/bench/xvector.config";
  std::string extract_at = "tdnn6.affine", only = "abc";
  int32 num_utts = 40, min_frames = 200, max_frames = 3000, reps = 2,
        block_size = 256, threads = 1,
        spliced_min_dim = kMinSplicedPartDimForTdnn;
  BenchThreads bench_threads{1, true};
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&a](const char *key, std::string *v) {
      std::string k = std::string("--") + key + "=";
      if (a.compare(0, k.size(), k) != 0) return false;
      *v = a.substr(k.size());
      return true;
    };
    std::string v;
    if (value("config", &v)) config = v;
    else if (value("extract-at", &v)) extract_at = v;
    else if (value("only", &v)) only = v;
    else if (value("num-utts", &v)) num_utts = atoi(v.c_str());
    else if (value("min-frames", &v)) min_frames = atoi(v.c_str());
    else if (value("max-frames", &v)) max_frames = atoi(v.c_str());
    else if (value("reps", &v)) reps = atoi(v.c_str());
    else if (value("block-size", &v)) block_size = atoi(v.c_str());
    else if (value("threads", &v)) threads = atoi(v.c_str());
    else if (value("spliced-affine-min-dim", &v))
      spliced_min_dim = atoi(v.c_str());
    else if (bench_threads.ParseOption(a)) continue;
    else {
      fprintf(stderr, "Unknown option %s\n", a.c_str());
      return 1;
    }
  }
  bench_threads.threads = threads;
  bench_threads.Apply();
  SetVerboseLevel(-1);
  Nnet nnet;
  {
    std::ifstream is(config);
    if (!is) {
      fprintf(stderr, "Cannot open %s\n", config.c_str());
      return 1;
    }
    nnet.ReadConfig(is, config);
  }
  RandomSource rng(17);
  TrainBatchnormStats(&nnet, 8, 300, &rng);
  if (!extract_at.empty()) {
    // Re-pointing the output node in place (a config line would warn
    // about the nodes it leaves unused).
    nnet.GetNode(nnet.GetNodeIndex("output"))
        .descriptor.Parse(extract_at, nnet.GetNodeNames());
    nnet.RemoveOrphanNodes();
    nnet.RemoveOrphanComponents();
  }
  SetBatchnormTestMode(true, &nnet);
  SetDropoutTestMode(true, &nnet);
  CollapseModel(CollapseModelConfig(), &nnet);
  if (spliced_min_dim > 0) ComputeSplicedAffinesAsTdnn(spliced_min_dim, &nnet);

  std::vector<Matrix<BaseFloat> > utts(num_utts);
  int64 total_frames = 0;
  for (Matrix<BaseFloat> &m : utts) {
    m = RandomGaussMatrix(rng.Int(min_frames, max_frames),
                          nnet.InputDim("input"), &rng);
    total_frames += m.NumRows();
  }
  XvectorExtractionOptions off, on;
  off.reuse_compilation = false;
  on.block_size = block_size;
  {
    CachingOptimizingCompiler compiler(nnet);
    XvectorPlan plan(nnet, block_size);
    if (!plan.Applies()) {
      fprintf(stderr, "The plan does not apply: %s\n", plan.WhyNot().c_str());
      return 1;
    }
    printf("xvector-bench: %s (x-vector at %s, dim %d), %d utterances of "
           "%d..%d frames (%lld in all), block %d rows (context %d/%d), "
           "%d thread(s) (%s), best of %d\n",
           config.substr(config.find_last_of('/') + 1).c_str(),
           extract_at.empty() ? "output" : extract_at.c_str(),
           nnet.OutputDim("output"), num_utts, min_frames, max_frames,
           static_cast<long long>(total_frames), block_size,
           plan.LeftContext(), plan.RightContext(), threads,
           bench_threads.Name(), reps);
  }
  Pass a, b, c;
  for (int32 r = 0; r < reps; r++) {
    if (only.find('a') != std::string::npos)
      Keep(FreshCompilerPass(nnet, off, utts), &a);
    if (only.find('b') != std::string::npos)
      Keep(ComputerPass(nnet, off, utts), &b);
    if (only.find('c') != std::string::npos)
      Keep(ComputerPass(nnet, on, utts), &c);
  }
  if (only != "abc") {
    // Profiling runs: no comparison.
    if (!a.xvectors.empty()) Print("(a) fresh compilation per utterance:", a, utts.size());
    if (!b.xvectors.empty()) Print("(b) one compiler, cache by length:", b, utts.size());
    if (!c.xvectors.empty()) Print("(c) reused compilations (blocks + stats):", c, utts.size());
    return 0;
  }
  Print("(a) fresh compilation per utterance:", a, utts.size());
  Print("(b) one compiler, cache by length:", b, utts.size());
  Print("(c) reused compilations (blocks + stats):", c, utts.size());
  printf("  speed-up (a)/(c): %.2fx   (b)/(c): %.2fx\n",
         a.seconds / c.seconds, b.seconds / c.seconds);
  // What (c) could reach if its frame computation cost no more than (a)'s
  // whole-utterance computation (the work left once compiling is gone).
  printf("  (a)/(c) if (c) took only (a)'s non-compiling time: %.2fx\n",
         a.seconds / (a.seconds - a.compile_seconds));
  double max_abs = 0.0, max_rel = 0.0;
  for (size_t u = 0; u < utts.size(); u++) {
    double diff = 0.0, scale = 0.0;
    for (int32 i = 0; i < a.xvectors[u].Dim(); i++) {
      diff = std::max(diff, std::fabs(double(a.xvectors[u](i)) -
                                      double(c.xvectors[u](i))));
      scale = std::max(scale, std::fabs(double(a.xvectors[u](i))));
    }
    max_abs = std::max(max_abs, diff);
    if (scale > 0.0) max_rel = std::max(max_rel, diff / scale);
  }
  printf("  largest difference (a) vs (c): %.3g absolute, %.3g relative to "
         "the x-vector's largest element\n", max_abs, max_rel);
  return 0;
}
