// tests/bench/train-bench.cc
// Training benchmark (prints figures, asserts nothing). Trains the
// benchmark TDNN (tests/data/bench/tdnn.config: natural-gradient affine +
// ReLU + BatchNorm layers, 3000 log-softmax outputs) with NnetTrainer, as
// nnet3-train does (store stats, max-change, natural gradient), on
// generated egs: minibatches of M sequences x 8 output frames with the
// network's context, random features and one random pdf per frame.
// It prints frames per second and the ratio of the training time to the
// time of the GEMMs alone that the same compiled computation implies:
// per affine component, the forward product (rows x in) * (in x out), the
// input-derivative product (when that derivative is computed) and the
// parameter-gradient product (out x rows) * (rows x in). Training and
// GEMM-only runs alternate; the best of each is compared.
// Usage: train-bench [--config=PATH] [--minibatch=256] [--num-minibatches=8]
//                    [--reps=2] [--threads=1] [--profile] [--use-gpu=no|yes]
//                    [--warmup=12] (minibatches trained before timing)
//                    [--blas-threads] (BLAS keeps its threads; by default
//                    they go to the matrix library as in nnet3-train, see
//                    bench-threads.h; --library-threads is the default)
// (--use-gpu=yes: training and the GEMM-only reference run on the GPU;
// --pin-host-memory=true|false: pin the large host matrices, the default,
// or leave them pageable)
// The default warm-up covers what only the start of a training job pays:
// compilation, the natural gradient's first 10 updates (every minibatch;
// later every 4th) and the matrix memory cache settling on the job's sizes
// (the page faults printed are those of the timed minibatches; 0 once the
// cache has settled). A job trains hundreds of minibatches or more.
// --profile adds one more pass under a Profiler (base/profile.h) and prints
// where its time went: per command type and component type, GEMM,
// GEMV/GER and natural gradient each charged exclusively.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "bench-profile.h"
#include "bench-threads.h"
#include "base/timer.h"
#include "matrix/blas-kernels.h"
#include "cudamatrix/cu-backend.h"
#include "cudamatrix/cu-device.h"
#include "nnet3/components/tdnn.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/train/nnet-trainer.h"


namespace nnet3 {
namespace {

struct GemmShape {
  int32 m, k, n;  // (m x k) * (k x n)
};

bool IsAffineType(const Component &c) {
  std::string type = c.Type();
  return type.find("Affine") != std::string::npos || type == "LinearComponent";
}

// The products a training computation implies for its affine components.
void TrainingGemmShapes(const Nnet &nnet, const NnetComputation &computation,
                        std::vector<GemmShape> *shapes) {
  for (const NnetComputation::Command &c : computation.commands) {
    if (c.command_type != kPropagate && c.command_type != kBackprop &&
        c.command_type != kBackpropNoModelUpdate)
      continue;
    const Component *comp = nnet.GetComponent(c.arg1);
    // A TdnnComponent does the three products once per time offset, with
    // its output rows.
    const TdnnComponent *tdnn = dynamic_cast<const TdnnComponent *>(comp);
    if (!IsAffineType(*comp) && tdnn == nullptr) continue;
    int32 in = comp->InputDim(), out = comp->OutputDim();
    size_t times = tdnn ? tdnn->TimeOffsets().size() : 1;
    for (size_t k = 0; k < times; k++) {
      if (c.command_type == kPropagate) {
        int32 rows = computation.submatrices[tdnn ? c.arg4 : c.arg3].num_rows;
        shapes->push_back({rows, in, out});
        continue;
      }
      int32 rows = computation.submatrices[c.arg5].num_rows;
      if (c.arg6 > 0) shapes->push_back({rows, out, in});  // input derivative
      if (c.command_type == kBackprop)
        shapes->push_back({out, rows, in});  // parameter gradient
    }
  }
}

// The GEMMs on the computing backend (BLAS, or cuBLAS with --use-gpu=yes;
// the clock stops once the device has finished).
double RunGemms(const std::vector<GemmShape> &shapes, int32 times) {
  std::vector<CuMatrix<BaseFloat> > a, b, c;
  for (const GemmShape &s : shapes) {
    a.emplace_back(s.m, s.k);
    a.back().SetRandn();
    b.emplace_back(s.k, s.n);
    b.back().SetRandn();
    c.emplace_back(s.m, s.n);
  }
  cu_backend::Synchronize();
  Timer timer;
  for (int32 i = 0; i < times; i++)
    for (size_t j = 0; j < shapes.size(); j++)
      c[j].AddMatMat(1.0, a[j], kNoTrans, b[j], kNoTrans, 0.0);
  cu_backend::Synchronize();
  return timer.Elapsed();
}

// One merged minibatch of 'minibatch' 8-frame sequences with context.
NnetExample MakeMinibatch(const Nnet &nnet, int32 minibatch, int32 left,
                          int32 right, RandomSource *rng) {
  int32 frames = 8, input_dim = nnet.InputDim("input"),
        num_pdfs = nnet.OutputDim("output");
  std::vector<NnetExample> egs(minibatch);
  for (NnetExample &eg : egs) {
    Matrix<BaseFloat> feats(left + frames + right, input_dim);
    for (int32 r = 0; r < feats.NumRows(); r++)
      for (int32 c = 0; c < input_dim; c++) feats(r, c) = rng->Gauss();
    eg.io.push_back(NnetIo("input", -left, feats));
    Posterior labels(frames);
    for (auto &l : labels)
      l.push_back(std::make_pair(rng->Int(0, num_pdfs - 1), 1.0f));
    eg.io.push_back(NnetIo("output", num_pdfs, 0, labels));
  }
  NnetExample merged;
  MergeExamples(egs, false, &merged);
  return merged;
}

int Main(int argc, char *argv[]) {
  std::string config = std::string(NNET3_TEST_DATA_DIR) + "/bench/tdnn.config";
  int32 minibatch = 256, num_minibatches = 8, reps = 2, threads = 1,
        warmup = 12;
  bool profile = false;
  BenchThreads bench_threads;
  std::string use_gpu = "no";
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--config=", 0) == 0) config = a.substr(9);
    else if (a.rfind("--minibatch=", 0) == 0) minibatch = atoi(a.c_str() + 12);
    else if (a.rfind("--num-minibatches=", 0) == 0)
      num_minibatches = atoi(a.c_str() + 18);
    else if (a.rfind("--reps=", 0) == 0) reps = atoi(a.c_str() + 7);
    else if (a.rfind("--warmup=", 0) == 0) warmup = atoi(a.c_str() + 9);
    else if (a.rfind("--threads=", 0) == 0) threads = atoi(a.c_str() + 10);
    else if (a == "--profile") profile = true;
    else if (bench_threads.ParseOption(a)) continue;
    else if (a.rfind("--use-gpu=", 0) == 0) use_gpu = a.substr(10);
    else if (a == "--pin-host-memory=false" || a == "--pin-host-memory=true")
      cu_backend::SetPinHostBlocks(a == "--pin-host-memory=true");
    else {
      fprintf(stderr, "Unknown option %s\n", a.c_str());
      return 1;
    }
  }
  SelectGpuForTool(use_gpu);
  bench_threads.threads = threads;
  bench_threads.Apply();
  Nnet nnet;
  {
    std::ifstream is(config);
    if (!is) {
      fprintf(stderr, "Cannot open %s\n", config.c_str());
      return 1;
    }
    nnet.ReadConfig(is, config);
  }
  int32 left, right;
  ComputeSimpleNnetContext(nnet, &left, &right);
  RandomSource rng(3);
  std::vector<NnetExample> minibatches;
  for (int32 i = 0; i < num_minibatches; i++)
    minibatches.push_back(MakeMinibatch(nnet, minibatch, left, right, &rng));
  int64 frames_per_pass = static_cast<int64>(num_minibatches) * minibatch * 8;
  printf("train-bench: TDNN, %d minibatches of %d x 8 frames (context %d/%d), "
         "%d thread(s) (%s), best of %d, after %d warm-up minibatch(es)\n",
         num_minibatches, minibatch, left, right, threads,
         bench_threads.Name(), reps, warmup);
  printf("  BLAS kernels: %s\n", BlasKernelSelection().c_str());

  // The GEMM shapes of the optimized training computation.
  ComputationRequest request;
  GetComputationRequest(nnet, minibatches[0], true, true, &request);
  CachingOptimizingCompiler compiler(nnet);
  std::shared_ptr<const NnetComputation> computation =
      compiler.Compile(request);
  std::vector<GemmShape> shapes;
  TrainingGemmShapes(nnet, *computation, &shapes);
  double flops = 0;
  for (const GemmShape &s : shapes) flops += 2.0 * s.m * s.k * s.n;
  printf("  %zu GEMMs per minibatch, %.1f GFLOP\n", shapes.size(), flops / 1e9);

  NnetTrainerOptions opts;
  double best_train = 1e30, best_gemm = 1e30;
  long faults = -1;
  SetVerboseLevel(-1);  // no per-minibatch logging
  for (int32 rep = 0; rep < reps; rep++) {
    Nnet model(nnet);
    {
      NnetTrainer trainer(opts, &model);
      // Start-up costs (see the top of the file) before the clock starts.
      for (int32 w = 0; w < warmup; w++)
        trainer.Train(minibatches[w % minibatches.size()]);
      long faults_before = MinorPageFaults();
      Timer timer;
      for (const NnetExample &eg : minibatches) trainer.Train(eg);
      cu_backend::Synchronize();
      best_train = std::min(best_train, timer.Elapsed());
      long f = MinorPageFaults() - faults_before;
      if (faults < 0 || f < faults) faults = f;
    }
    best_gemm = std::min(best_gemm, bench_threads.FasterOfBoth([&]() {
      return RunGemms(shapes, num_minibatches);
    }));
  }
  SetVerboseLevel(0);
  printf("  training:  %.3f s  %.1f frames/s\n", best_train,
         frames_per_pass / best_train);
  printf("  GEMM-only: %.3f s  %.1f frames/s (%.1f GFLOP/s)\n", best_gemm,
         frames_per_pass / best_gemm, flops * num_minibatches / best_gemm / 1e9);
  printf("  ratio training / GEMM-only: %.3f\n", best_train / best_gemm);
  printf("  page faults while training: %ld (%.1f MiB of fresh pages per "
         "minibatch)\n", faults,
         faults * 4096.0 / num_minibatches / (1 << 20));
  if (profile) {
    std::unique_ptr<Nnet> model;
    std::unique_ptr<NnetTrainer> trainer;
    PrintProfilePasses(
        "  profile of one more pass (exclusive times):",
        "trainer outside the computation",
        [&]() {
          trainer.reset();
          model.reset(new Nnet(nnet));
          trainer.reset(new NnetTrainer(opts, model.get()));
          for (int32 w = 0; w < warmup; w++)
            trainer->Train(minibatches[w % minibatches.size()]);
          SetVerboseLevel(-1);
        },
        [&]() {
          for (const NnetExample &eg : minibatches) trainer->Train(eg);
        });
    SetVerboseLevel(0);
  }
  return 0;
}

}  // namespace
}  // namespace nnet3

int main(int argc, char *argv[]) { return nnet3::Main(argc, argv); }
