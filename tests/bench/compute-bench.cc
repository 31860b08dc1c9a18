// tests/bench/compute-bench.cc
// Inference benchmark for the compiler + computer (prints figures, asserts
// nothing). Builds the benchmark TDNN (tests/data/bench/tdnn.config: 40-dim
// input, six spliced ReLU+BatchNorm layers of 1024, 3000 outputs), prepares
// it as nnet3-compute does (test mode, collapsed), and runs nnet3-compute's
// chunked inference (DecodableNnetSimple, 50-frame chunks) over N random
// utterances of 500 frames. In the same run it times the GEMMs alone: the
// affine layers' matrix products with exactly the shapes of the compiled
// computation, as many times as inference runs them. Prints frames per
// second, the GEMM-only time, their ratio (target <= 1.25), and compile
// time per distinct request. The two timings alternate (order flipped each
// repetition) and the best of each is compared.
// Usage: compute-bench [--config=PATH] [--num-utts=200] [--frames=500]
//                      [--threads=1] [--reps=2]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "base/timer.h"
#include "nnet3/compute/decodable-simple.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-utils.h"

extern "C" void openblas_set_num_threads(int);

namespace nnet3 {
namespace {

struct GemmShape {
  int32 rows, in_dim, out_dim;
};

// The matrix products of one computation: each kPropagate of an affine-type
// component multiplies (rows x in_dim) by (in_dim x out_dim).
void GemmShapes(const Nnet &nnet, const NnetComputation &computation,
                std::vector<GemmShape> *shapes) {
  for (const NnetComputation::Command &c : computation.commands) {
    if (c.command_type != kPropagate) continue;
    const Component *comp = nnet.GetComponent(c.arg1);
    std::string type = comp->Type();
    if (type.find("Affine") == std::string::npos &&
        type != "LinearComponent")
      continue;
    shapes->push_back(GemmShape{computation.submatrices[c.arg3].num_rows,
                                comp->InputDim(), comp->OutputDim()});
  }
}

double RunInference(const Nnet &nnet, NnetSimpleComputationOptions &opts,
                    const std::vector<Matrix<BaseFloat> > &utts,
                    CachingOptimizingCompiler *compiler) {
  Timer timer;
  Vector<BaseFloat> priors;
  for (const Matrix<BaseFloat> &feats : utts) {
    DecodableNnetSimple decodable(opts, nnet, priors, feats, compiler);
    Matrix<BaseFloat> out(decodable.NumFrames(), decodable.OutputDim(),
                          kUndefined);
    for (int32 t = 0; t < decodable.NumFrames(); t++) {
      SubVector<BaseFloat> row(out, t);
      decodable.GetOutputForFrame(t, &row);
    }
  }
  return timer.Elapsed();
}

double RunGemms(const std::vector<GemmShape> &per_chunk, int64 num_chunks) {
  std::vector<Matrix<BaseFloat> > a, b, c;
  for (const GemmShape &s : per_chunk) {
    a.emplace_back(s.rows, s.in_dim);
    a.back().SetRandn();
    b.emplace_back(s.out_dim, s.in_dim);
    b.back().SetRandn();
    c.emplace_back(s.rows, s.out_dim);
  }
  Timer timer;
  for (int64 i = 0; i < num_chunks; i++)
    for (size_t k = 0; k < per_chunk.size(); k++)
      c[k].AddMatMat(1.0, a[k], kNoTrans, b[k], kTrans, 0.0);
  return timer.Elapsed();
}

int Main(int argc, char *argv[]) {
  std::string config = std::string(NNET3_TEST_DATA_DIR) + "/bench/tdnn.config";
  int32 num_utts = 200, frames = 500, threads = 1, reps = 2;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a.rfind("--config=", 0) == 0) config = a.substr(9);
    else if (a.rfind("--num-utts=", 0) == 0) num_utts = atoi(a.c_str() + 11);
    else if (a.rfind("--frames=", 0) == 0) frames = atoi(a.c_str() + 9);
    else if (a.rfind("--threads=", 0) == 0) threads = atoi(a.c_str() + 10);
    else if (a.rfind("--reps=", 0) == 0) reps = atoi(a.c_str() + 7);
    else {
      fprintf(stderr, "Unknown option %s\n", a.c_str());
      return 1;
    }
  }
  openblas_set_num_threads(threads);
  Nnet nnet;
  {
    std::ifstream is(config);
    if (!is) {
      fprintf(stderr, "Cannot open %s\n", config.c_str());
      return 1;
    }
    nnet.ReadConfig(is, config);
  }
  SetBatchnormTestMode(true, &nnet);
  SetDropoutTestMode(true, &nnet);
  CollapseModel(CollapseModelConfig(), &nnet);
  NnetSimpleComputationOptions opts;
  opts.acoustic_scale = 1.0;
  CheckAndFixSimpleComputationOptions(nnet, &opts);

  RandomSource rng(7);
  std::vector<Matrix<BaseFloat> > utts(num_utts);
  for (Matrix<BaseFloat> &m : utts) {
    m.Resize(frames, nnet.InputDim("input"));
    for (int32 r = 0; r < m.NumRows(); r++)
      for (int32 c = 0; c < m.NumCols(); c++) m(r, c) = rng.Gauss();
  }

  // Warm-up (compiles), then the shapes each chunk multiplies.
  CachingOptimizingCompiler compiler(nnet, opts.optimize_config,
                                     opts.compiler_config);
  std::vector<Matrix<BaseFloat> > one(1, utts[0]);
  RunInference(nnet, opts, one, &compiler);
  int32 left, right;
  compiler.GetSimpleNnetContext(&left, &right);
  ComputationRequest request;
  request.inputs.push_back(
      IoSpecification("input", -left, opts.frames_per_chunk + right));
  request.outputs.push_back(IoSpecification("output", 0, opts.frames_per_chunk));
  std::shared_ptr<const NnetComputation> computation = compiler.Compile(request);
  std::vector<GemmShape> shapes;
  GemmShapes(nnet, *computation, &shapes);
  int64 chunks_per_utt = (frames + opts.frames_per_chunk - 1) /
                         opts.frames_per_chunk;
  int64 num_chunks = chunks_per_utt * num_utts;
  double flops = 0;
  for (const GemmShape &s : shapes)
    flops += 2.0 * s.rows * s.in_dim * s.out_dim;

  std::vector<double> t_inf, t_gemm;
  for (int32 r = 0; r < reps; r++) {
    if (r % 2 == 0) {
      t_inf.push_back(RunInference(nnet, opts, utts, &compiler));
      t_gemm.push_back(RunGemms(shapes, num_chunks));
    } else {
      t_gemm.push_back(RunGemms(shapes, num_chunks));
      t_inf.push_back(RunInference(nnet, opts, utts, &compiler));
    }
  }
  double inf = *std::min_element(t_inf.begin(), t_inf.end());
  double gemm = *std::min_element(t_gemm.begin(), t_gemm.end());
  int64 total_frames = static_cast<int64>(num_utts) * frames;
  printf("compute-bench: %d utterances x %d frames, frames-per-chunk %d, "
         "%d BLAS thread(s), best of %d\n",
         num_utts, frames, opts.frames_per_chunk, threads, reps);
  printf("  inference:  %.3f s  (%.1f frames/s)\n", inf, total_frames / inf);
  printf("  GEMMs only: %.3f s  (%zu products per chunk, %.1f GFLOP/s)\n",
         gemm, shapes.size(), flops * num_chunks / gemm * 1e-9);
  printf("  ratio inference / GEMMs: %.3f  (target <= 1.25)\n", inf / gemm);
  printf("  compilations: %lld (%lld cache hits), %.2f ms per distinct "
         "request\n",
         static_cast<long long>(compiler.NumCompilations()),
         static_cast<long long>(compiler.NumHits()),
         1000.0 * compiler.CompileSeconds() /
             std::max<int64>(1, compiler.NumCompilations()));
  return 0;
}

}  // namespace
}  // namespace nnet3

int main(int argc, char *argv[]) { return nnet3::Main(argc, argv); }
