// tests/bench/compute-bench.cc
// Benchmark for the compiler, optimizer and computer (prints figures,
// asserts nothing). On the benchmark TDNN (tests/data/bench/tdnn.config:
// 40-dim input, six spliced ReLU+BatchNorm layers of 1024, 3000 outputs),
// prepared as nnet3-compute does (test mode, collapsed, spliced affines
// computed as TdnnComponents):
//  1. nnet3-compute's inference over N random 500-frame utterances with
//     Kaldi's 50-frame chunks, unoptimized and optimized, and with the large
//     chunks we use for chunking-invariant networks; each against the time of
//     its GEMMs alone (the affine products with exactly the shapes of the
//     compiled computation, as many times as inference runs them). The two
//     timings alternate and the best of each is compared. Each line ends
//     with the page faults of the timed inference pass that had the most
//     (fresh pages: about 0 once the matrix memory cache has settled on the
//     utterance's sizes, which the warm-up utterance lets it do).
//  2. A training computation (8-frame egs with context, minibatch M, model
//     update): peak matrix memory and run time, unoptimized vs optimized.
//  3. A recurrent network (two recurrent ReLU layers): chunked inference
//     with extra left context, unoptimized vs optimized.
//  4. Compile time per distinct request, and the time of a cache hit.
// Usage: compute-bench [--config=PATH] [--num-utts=200] [--frames=500]
//                      [--threads=1] [--reps=2] [--minibatch=64] [--profile]
//                      [--use-gpu=no|yes] (yes: everything, the GEMM-only
//                      reference included, runs on the GPU)
// --profile adds one more large-chunk inference pass under a Profiler
// (base/profile.h) and prints where its time went, by command type and
// component type, GEMM and output copying, each charged exclusively.
//                      [--utt-threads=N] (N utterances at once, one BLAS
//                      thread each; the GEMM-only reference likewise)
//                      [--library-threads] (--threads go to the matrix
//                      library as in nnet3-train; by default BLAS keeps
//                      them as in nnet3-compute: --blas-threads; see
//                      bench-threads.h)
//                      [--spliced-affine-min-dim=N] (as nnet3-compute:
//                      spliced affines over inputs at least N wide run as
//                      TdnnComponents; 0: never. The GEMM-only reference
//                      keeps the spliced products either way)
//                      [--inference-only] [--large-chunks-only] (only the
//                      large-chunk inference line; tests/bench/cpu-speed.sh)
//                      [--cuda-graphs=true|false] (GPU: replay computations
//                      as CUDA graphs, as nnet3-compute does by default)
//                      [--pin-host-memory=true|false] (GPU: pin the large
//                      host matrices, the default, or leave them pageable)
//                      [--compare-cuda-graphs] (GPU: the optimized 50-frame
//                      and large-chunk lines with graph replay off, on, off
//                      and on again)
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench-profile.h"
#include "bench-threads.h"
#include "base/timer.h"
#include "matrix/blas-kernels.h"
#include "cudamatrix/cu-backend.h"
#include "cudamatrix/cu-device.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/components/tdnn.h"
#include "nnet3/compute/computation-graphs.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/optimize/optimize.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"
#include "nnet3/compute/decodable-simple.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-splice-tdnn.h"
#include "nnet3/nnet/nnet-utils.h"

namespace nnet3 {
namespace {

struct GemmShape {
  int32 rows, in_dim, out_dim;
};

// The matrix products of one computation: each kPropagate of an affine-type
// component multiplies (rows x in_dim) by (in_dim x out_dim); a
// TdnnComponent does one such product per time offset, with its output rows.
void GemmShapes(const Nnet &nnet, const NnetComputation &computation,
                std::vector<GemmShape> *shapes) {
  for (const NnetComputation::Command &c : computation.commands) {
    if (c.command_type != kPropagate) continue;
    const Component *comp = nnet.GetComponent(c.arg1);
    std::string type = comp->Type();
    if (const TdnnComponent *tdnn = dynamic_cast<const TdnnComponent *>(comp)) {
      for (size_t i = 0; i < tdnn->TimeOffsets().size(); i++)
        shapes->push_back(GemmShape{computation.submatrices[c.arg4].num_rows,
                                    comp->InputDim(), comp->OutputDim()});
      continue;
    }
    if (type.find("Affine") == std::string::npos &&
        type != "LinearComponent")
      continue;
    shapes->push_back(GemmShape{computation.submatrices[c.arg3].num_rows,
                                comp->InputDim(), comp->OutputDim()});
  }
}

// Utterances computed at once, one computer and one BLAS thread each
// (--utt-threads, as nnet3-compute --num-threads does); 1: one utterance at
// a time on the --threads threads (g_threads).
int32 g_utt_threads = 1;
BenchThreads g_threads{1, true};

// Runs 'work(i)' for i < n on g_utt_threads threads (each taking the next
// index), with one BLAS thread each when there are several.
template <typename Work>
void ForEachIndex(size_t n, const Work &work) {
  if (g_utt_threads <= 1) {
    for (size_t i = 0; i < n; i++) work(i);
    return;
  }
  openblas_set_num_threads(1);
  SetRowThreads(1);
  std::atomic<size_t> next(0);
  auto loop = [&]() {
    for (size_t i = next++; i < n; i = next++) work(i);
  };
  std::vector<std::thread> threads;
  for (int32 t = 1; t < g_utt_threads; t++) threads.emplace_back(loop);
  loop();
  for (std::thread &th : threads) th.join();
  g_threads.Apply();
}

// Returns the seconds taken; *faults (if not null) gets the page faults.
double RunInference(const Nnet &nnet, NnetSimpleComputationOptions &opts,
                    const std::vector<Matrix<BaseFloat> > &utts,
                    CachingOptimizingCompiler *compiler,
                    long *faults = nullptr) {
  Timer timer;
  const long faults_before = MinorPageFaults();
  Vector<BaseFloat> priors;
  ForEachIndex(utts.size(), [&](size_t u) {
    DecodableNnetSimple decodable(opts, nnet, priors, utts[u], compiler);
    Matrix<BaseFloat> out;
    decodable.ComputeOutput(&out);  // as nnet3-compute
  });
  const double seconds = timer.Elapsed();
  if (faults != nullptr) *faults = MinorPageFaults() - faults_before;
  return seconds;
}

// The GEMMs on the computing backend (BLAS, or cuBLAS with --use-gpu=yes;
// the clock stops once the device has finished).
// With --utt-threads=N the chunks are shared out over N threads of one
// BLAS thread each, as inference shares out the utterances.
double RunGemms(const std::vector<GemmShape> &per_chunk, int64 num_chunks) {
  const int32 copies = std::max(1, g_utt_threads);
  std::vector<std::vector<CuMatrix<BaseFloat> > > a(copies), b(copies),
      c(copies);
  for (int32 t = 0; t < copies; t++) {
    for (const GemmShape &s : per_chunk) {
      a[t].emplace_back(s.rows, s.in_dim);
      a[t].back().SetRandn();
      b[t].emplace_back(s.out_dim, s.in_dim);
      b[t].back().SetRandn();
      c[t].emplace_back(s.rows, s.out_dim);
    }
  }
  cu_backend::Synchronize();
  Timer timer;
  std::atomic<int32> next_copy(0);
  ForEachIndex(copies, [&](size_t t) {
    (void)t;
    const int32 mine = next_copy++;
    for (int64 i = mine; i < num_chunks; i += copies)
      for (size_t k = 0; k < per_chunk.size(); k++)
        c[mine][k].AddMatMat(1.0, a[mine][k], kNoTrans, b[mine][k], kTrans,
                             0.0);
  });
  cu_backend::Synchronize();
  return timer.Elapsed();
}

struct InferenceFigures {
  double seconds, gemm_seconds, compile_ms;
  long faults;  // page faults of the timed pass with the most
};

// The network before ComputeSplicedAffinesAsTdnn: the GEMM-only reference
// takes its products (one per spliced affine, as Kaldi computes them), so
// that how the spliced layers are computed does not move the floor.
const Nnet *g_reference_nnet = nullptr;

// Chunked inference with 'opts' against its GEMMs alone.
InferenceFigures BenchInference(const Nnet &nnet,
                                NnetSimpleComputationOptions opts,
                                const std::vector<Matrix<BaseFloat> > &utts,
                                int32 reps) {
  CheckAndFixSimpleComputationOptions(nnet, &opts);
  CachingOptimizingCompiler compiler(nnet, opts.optimize_config,
                                     opts.compiler_config);
  std::vector<Matrix<BaseFloat> > one(1, utts[0]);
  RunInference(nnet, opts, one, &compiler);  // warm-up: compiles
  int32 frames = utts[0].NumRows();
  bool large = opts.large_chunk_size > opts.frames_per_chunk &&
               NnetIsChunkingInvariant(nnet);
  int32 chunk = large ? std::min(opts.large_chunk_size, 64 * ((frames + 63) / 64))
                      : opts.frames_per_chunk;
  int64 chunks_per_utt =
      (frames + (large ? opts.large_chunk_size : chunk) - 1) /
      (large ? opts.large_chunk_size : chunk);
  int32 left, right;
  compiler.GetSimpleNnetContext(&left, &right);
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", -left, chunk + right));
  request.outputs.push_back(IoSpecification("output", 0, chunk));
  std::vector<GemmShape> shapes;
  const Nnet &reference =
      g_reference_nnet != nullptr ? *g_reference_nnet : nnet;
  CachingOptimizingCompiler reference_compiler(
      reference, opts.optimize_config, opts.compiler_config);
  GemmShapes(reference, *reference_compiler.Compile(request), &shapes);
  int64 num_chunks = chunks_per_utt * static_cast<int64>(utts.size());
  // With utterance threads both arrangements are one BLAS thread each.
  const auto gemms = [&]() {
    const auto run = [&]() { return RunGemms(shapes, num_chunks); };
    return g_utt_threads > 1 ? run() : g_threads.FasterOfBoth(run);
  };
  std::vector<double> t_inf, t_gemm;
  long faults = -1;
  const auto infer = [&]() {
    long f = 0;
    t_inf.push_back(RunInference(nnet, opts, utts, &compiler, &f));
    faults = std::max(faults, f);
  };
  for (int32 r = 0; r < reps; r++) {
    if (r % 2 == 0) {
      infer();
      t_gemm.push_back(gemms());
    } else {
      t_gemm.push_back(gemms());
      infer();
    }
  }
  InferenceFigures f;
  f.faults = faults;
  f.seconds = *std::min_element(t_inf.begin(), t_inf.end());
  f.gemm_seconds = *std::min_element(t_gemm.begin(), t_gemm.end());
  f.compile_ms = 1000.0 * compiler.CompileSeconds() /
                 std::max<int64>(1, compiler.NumCompilations());
  return f;
}

void PrintInference(const char *label, const InferenceFigures &f,
                    int64 total_frames) {
  printf("  %-34s %8.1f frames/s  GEMM-only %7.3f s  ratio %.3f  "
         "compile %.1f ms/request  page faults %ld\n",
         label, total_frames / f.seconds, f.gemm_seconds,
         f.seconds / f.gemm_seconds, f.compile_ms, f.faults);
}

// Runs 'computation' forward (and backward if the request has output
// derivatives), returning seconds.
double TimeComputation(const Nnet &nnet, const ComputationRequest &request,
                       const NnetComputation &computation, RandomSource *rng) {
  std::vector<Matrix<BaseFloat> > inputs, derivs;
  for (const IoSpecification &io : request.inputs)
    inputs.push_back(RandomGaussMatrix(static_cast<int32>(io.indexes.size()),
                                       nnet.InputDim(io.name), rng));
  for (const IoSpecification &io : request.outputs)
    derivs.push_back(RandomGaussMatrix(static_cast<int32>(io.indexes.size()),
                                       nnet.OutputDim(io.name), rng));
  Nnet delta = MakeGradientNnet(nnet);
  ComputationResults results;
  Timer timer;
  RunComputationForTest(nnet, request, computation, inputs, derivs,
                        request.need_model_derivative ? &delta : nullptr,
                        &results);
  return timer.Elapsed();
}

// Unoptimized vs optimized: peak memory and run time.
void BenchComputation(const char *label, const Nnet &nnet,
                      const ComputationRequest &request) {
  NnetComputation raw;
  Timer compile_timer;
  CompileComputation(nnet, request, CompilerOptions(), &raw);
  double compile_ms = compile_timer.Elapsed() * 1000;
  NnetComputation opt(raw);
  Timer optimize_timer;
  Optimize(NnetOptimizeOptions(), nnet, 0, &opt);
  double optimize_ms = optimize_timer.Elapsed() * 1000;
  RandomSource rng(3);
  double t_raw = 1e30, t_opt = 1e30;
  for (int32 r = 0; r < 2; r++) {
    t_raw = std::min(t_raw, TimeComputation(nnet, request, raw, &rng));
    t_opt = std::min(t_opt, TimeComputation(nnet, request, opt, &rng));
  }
  int64 m_raw = GetMaxMemoryUse(raw), m_opt = GetMaxMemoryUse(opt);
  printf("  %s\n", label);
  printf("    peak matrix memory %.1f MB -> %.1f MB (%.1f%%), commands %zu -> "
         "%zu\n",
         m_raw / 1048576.0, m_opt / 1048576.0, 100.0 * m_opt / m_raw,
         raw.commands.size(), opt.commands.size());
  printf("    run time %.3f s -> %.3f s (ratio %.3f); compile %.1f ms, "
         "optimize %.1f ms\n",
         t_raw, t_opt, t_opt / t_raw, compile_ms, optimize_ms);
}

const char *kRecurrentConfig =
    "input-node name=input dim=40\n"
    "component name=l1 type=AffineComponent input-dim=632 output-dim=512\n"
    "component-node name=l1 component=l1 input=Append(Offset(input, -1), "
    "input, Offset(input, 1), IfDefined(Offset(r1, -1)))\n"
    "component name=r1 type=RectifiedLinearComponent dim=512\n"
    "component-node name=r1 component=r1 input=l1\n"
    "component name=l2 type=AffineComponent input-dim=1024 output-dim=512\n"
    "component-node name=l2 component=l2 input=Append(r1, "
    "IfDefined(Offset(r2, -3)))\n"
    "component name=r2 type=RectifiedLinearComponent dim=512\n"
    "component-node name=r2 component=r2 input=l2\n"
    "component name=out type=AffineComponent input-dim=512 output-dim=2000\n"
    "component-node name=out component=out input=r2\n"
    "component name=lsm type=LogSoftmaxComponent dim=2000\n"
    "component-node name=lsm component=lsm input=out\n"
    "output-node name=output input=lsm\n";

int Main(int argc, char *argv[]) {
  std::string config = std::string(NNET3_TEST_DATA_DIR) + "/bench/tdnn.config";
  int32 num_utts = 200, frames = 500, threads = 1, reps = 2, minibatch = 64;
  bool inference_only = false, profile = false, large_only = false;
  bool cuda_graphs = true, compare_graphs = false;
  int32 spliced_min_dim = kMinSplicedPartDimForTdnn;
  std::string use_gpu = "no";
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--config=", 0) == 0) config = a.substr(9);
    else if (a.rfind("--num-utts=", 0) == 0) num_utts = atoi(a.c_str() + 11);
    else if (a.rfind("--frames=", 0) == 0) frames = atoi(a.c_str() + 9);
    else if (a.rfind("--threads=", 0) == 0) threads = atoi(a.c_str() + 10);
    else if (a.rfind("--utt-threads=", 0) == 0)
      g_utt_threads = atoi(a.c_str() + 14);
    else if (a.rfind("--reps=", 0) == 0) reps = atoi(a.c_str() + 7);
    else if (a.rfind("--minibatch=", 0) == 0) minibatch = atoi(a.c_str() + 12);
    else if (a == "--inference-only") inference_only = true;
    else if (a == "--large-chunks-only") large_only = inference_only = true;
    else if (a == "--profile") profile = true;
    else if (a.rfind("--spliced-affine-min-dim=", 0) == 0)
      spliced_min_dim = atoi(a.c_str() + 25);
    else if (a == "--cuda-graphs" || a == "--cuda-graphs=true")
      cuda_graphs = true;
    else if (a == "--cuda-graphs=false") cuda_graphs = false;
    else if (a == "--compare-cuda-graphs") compare_graphs = true;
    else if (a == "--pin-host-memory=false" || a == "--pin-host-memory=true")
      cu_backend::SetPinHostBlocks(a == "--pin-host-memory=true");
    else if (g_threads.ParseOption(a)) continue;
    else if (a.rfind("--use-gpu=", 0) == 0) use_gpu = a.substr(10);
    else {
      fprintf(stderr, "Unknown option %s\n", a.c_str());
      return 1;
    }
  }
  if (g_utt_threads > 1 && use_gpu != "no") {
    fprintf(stderr, "--utt-threads is for the CPU (--use-gpu=no)\n");
    return 1;
  }
  SelectGpuForTool(use_gpu);
  g_threads.threads = threads;
  g_threads.Apply();
  Nnet train_nnet;
  {
    std::ifstream is(config);
    if (!is) {
      fprintf(stderr, "Cannot open %s\n", config.c_str());
      return 1;
    }
    train_nnet.ReadConfig(is, config);
  }
  Nnet nnet(train_nnet);
  SetBatchnormTestMode(true, &nnet);
  SetDropoutTestMode(true, &nnet);
  CollapseModel(CollapseModelConfig(), &nnet);
  const Nnet reference_nnet(nnet);
  g_reference_nnet = &reference_nnet;
  if (spliced_min_dim > 0) ComputeSplicedAffinesAsTdnn(spliced_min_dim, &nnet);

  RandomSource rng(7);
  std::vector<Matrix<BaseFloat> > utts(num_utts);
  for (Matrix<BaseFloat> &m : utts)
    m = RandomGaussMatrix(frames, nnet.InputDim("input"), &rng);
  int64 total_frames = static_cast<int64>(num_utts) * frames;
  std::string name = config.substr(config.find_last_of('/') + 1);
  if (g_utt_threads > 1)
    printf("compute-bench: %s, %d utterances x %d frames, %d at once "
           "(1 BLAS thread each), best of %d\n", name.c_str(), num_utts,
           frames, g_utt_threads, reps);
  else
    printf("compute-bench: %s, %d utterances x %d frames, %d "
           "thread(s) (%s), best of %d\n", name.c_str(), num_utts, frames,
           threads, g_threads.Name(), reps);
  printf("  BLAS kernels: %s\n", BlasKernelSelection().c_str());

  NnetSimpleComputationOptions opts;
  opts.compute_config.cuda_graphs = cuda_graphs;
  opts.acoustic_scale = 1.0;
  opts.large_chunk_size = 0;
  opts.optimize_config.optimize = false;
  InferenceFigures kaldi_opt{};
  if (!large_only) {
    InferenceFigures kaldi_raw = BenchInference(nnet, opts, utts, reps);
    PrintInference("50-frame chunks, unoptimized:", kaldi_raw, total_frames);
    opts.optimize_config.optimize = true;
    kaldi_opt = BenchInference(nnet, opts, utts, reps);
    PrintInference("50-frame chunks, optimized:", kaldi_opt, total_frames);
  }
  opts.optimize_config.optimize = true;
  opts.large_chunk_size = 512;
  if (compare_graphs) {
    for (int32 large_size : {0, 512}) {
      for (int32 r = 0; r < 2; r++) {
        for (bool on : {false, true}) {
          opts.compute_config.cuda_graphs = on;
          opts.large_chunk_size = large_size;
          GraphReplayStats before = ComputationGraphs::Stats();
          InferenceFigures f = BenchInference(nnet, opts, utts, reps);
          GraphReplayStats after = ComputationGraphs::Stats();
          PrintInference(large_size == 0
                             ? (on ? "50-frame chunks, CUDA graphs on:"
                                   : "50-frame chunks, CUDA graphs off:")
                             : (on ? "large chunks, CUDA graphs on:"
                                   : "large chunks, CUDA graphs off:"),
                         f, total_frames);
          printf("    segments recorded %lld, replayed %lld, refused %lld\n",
                 after.recorded - before.recorded,
                 after.replayed - before.replayed,
                 after.refused - before.refused);
          ComputationGraphs::Clear();
        }
      }
    }
    opts.compute_config.cuda_graphs = cuda_graphs;
    opts.large_chunk_size = 512;
  }
  InferenceFigures large = BenchInference(nnet, opts, utts, reps);
  PrintInference("large chunks (invariant), optimized:", large, total_frames);
  if (!large_only)
    printf("  speed-up of large chunks over 50-frame chunks (optimized): "
           "%.2fx\n", kaldi_opt.seconds / large.seconds);
  if (profile) {
    CachingOptimizingCompiler compiler(nnet, opts.optimize_config,
                                       opts.compiler_config);
    RunInference(nnet, opts, utts, &compiler);  // compile outside the profile
    PrintProfilePasses(
        "  profile of one more large-chunk pass (exclusive times):",
        "decodable: chunking, output rows", []() {},
        [&]() { RunInference(nnet, opts, utts, &compiler); });
  }

  if (inference_only) return 0;
  // Training: 8 output frames per sequence with the network's context.
  int32 left, right;
  ComputeSimpleNnetContext(train_nnet, &left, &right);
  ComputationRequest train;
  IoSpecification in("input", -left, 8 + right), out("output", 0, 8);
  for (IoSpecification *io : {&in, &out}) {
    std::vector<Index> indexes;
    for (const Index &i : io->indexes)
      for (int32 n = 0; n < minibatch; n++) indexes.push_back(Index(n, i.t, 0));
    io->indexes = indexes;
  }
  out.has_deriv = true;
  train.inputs.push_back(in);
  train.outputs.push_back(out);
  train.need_model_derivative = true;
  char label[128];
  snprintf(label, sizeof(label),
           "%s training computation (minibatch %d x 8 frames, model update):",
           name.c_str(), minibatch);
  BenchComputation(label, train_nnet, train);

  Nnet rnn = NnetFromConfigString(kRecurrentConfig);
  ComputationRequest rnn_request;
  rnn_request.inputs.push_back(IoSpecification("input", -21, 51));
  rnn_request.outputs.push_back(IoSpecification("output", 0, 50));
  BenchComputation("recurrent network inference (50-frame chunk, 20 frames "
                   "extra left context):", rnn, rnn_request);
  rnn_request.outputs[0].has_deriv = true;
  rnn_request.need_model_derivative = true;
  BenchComputation("recurrent network training (same chunk, model update):",
                   rnn, rnn_request);

  // Compile time with and without the cache.
  CachingOptimizingCompiler compiler(train_nnet);
  Timer miss;
  compiler.Compile(train);
  double miss_ms = miss.Elapsed() * 1000;
  Timer hit;
  const int32 num_hits = 1000;
  for (int32 i = 0; i < num_hits; i++) compiler.Compile(train);
  printf("  training request: compile+optimize (cache miss, shortcut) %.1f ms; "
         "cache hit %.4f ms\n", miss_ms, hit.Elapsed() * 1000 / num_hits);
  return 0;
}

}  // namespace
}  // namespace nnet3

int main(int argc, char *argv[]) { return nnet3::Main(argc, argv); }
