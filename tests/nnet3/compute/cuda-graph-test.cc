// tests/nnet3/compute/cuda-graph-test.cc
// CUDA-graph replay of inference computations (nnet3/compute/
// computation-graphs.h), on a GPU (label gpu; skips without one):
//  - chunked inference with replay gives exactly the outputs of the same
//    inference without it (the same kernels on the same data), and both
//    agree with the CPU backend to float tolerance; replays did happen;
//  - after the compiler (and so its computations) is gone, a new compiler's
//    computations are recorded afresh, never replayed from stale graphs
//    (whose pointers named freed memory);
//  - --cuda-graphs=false records nothing;
//  - the x-vector plan's replayed block and segment computations give the
//    x-vectors of ordinary runs;
//  - an upload from a pinned host block is complete when it returns.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "cudamatrix/cu-backend.h"
#include "cudamatrix/gpu-backend-test-util.h"
#include "nnet3/compute/computation-graphs.h"
#include "nnet3/compute/decodable-simple.h"
#include "nnet3/compute/xvector.h"
#include "nnet3/compute/graph-test-util.h"
#include "nnet3/compute/xvector-test-config.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

class CudaGraphTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string &why = test::GpuBackendUnavailable();
    if (!why.empty()) GTEST_SKIP() << why;
    ComputationGraphs::Clear();
  }
};

// A small TDNN: spliced affine layers with ReLU and a fixed normalization,
// then log-softmax.
Nnet TdnnNnet() {
  return NnetFromConfigString(
      "input-node name=input dim=13\n"
      "component name=a1 type=AffineComponent input-dim=39 output-dim=64 "
      "bias-stddev=0.5\n"
      "component-node name=a1 component=a1 input=Append(Offset(input, -1), "
      "input, Offset(input, 1))\n"
      "component name=r1 type=RectifiedLinearComponent dim=64\n"
      "component-node name=r1 component=r1 input=a1\n"
      "component name=n1 type=NormalizeComponent dim=64\n"
      "component-node name=n1 component=n1 input=r1\n"
      "component name=a2 type=AffineComponent input-dim=192 output-dim=48 "
      "bias-stddev=0.5\n"
      "component-node name=a2 component=a2 input=Append(Offset(n1, -2), n1, "
      "Offset(n1, 2))\n"
      "component name=r2 type=RectifiedLinearComponent dim=48\n"
      "component-node name=r2 component=r2 input=a2\n"
      "component name=a3 type=AffineComponent input-dim=48 output-dim=10 "
      "bias-stddev=0.5\n"
      "component-node name=a3 component=a3 input=r2\n"
      "component name=lsm type=LogSoftmaxComponent dim=10\n"
      "component-node name=lsm component=lsm input=a3\n"
      "output-node name=output input=lsm\n");
}

std::vector<Matrix<BaseFloat> > Utterances() {
  RandomSource rs(23);
  std::vector<Matrix<BaseFloat> > utts;
  for (int32 frames : {100, 37, 100, 250, 64, 100, 5, 96})
    utts.push_back(RandomGaussMatrix(frames, 13, &rs));
  return utts;
}

TEST_F(CudaGraphTest, ReplayedChunksEqualOrdinaryRuns) {
  std::vector<Matrix<BaseFloat> > utts = Utterances();
  std::vector<Matrix<BaseFloat> > cpu_out;
  Nnet cpu_nnet;
  {
    cu_backend::Scope host(false);
    cpu_nnet = TdnnNnet();
    NnetSimpleComputationOptions opts =
        test::ChunkOptions(cpu_nnet, 32, 3, true);
    CachingOptimizingCompiler compiler(cpu_nnet, opts.optimize_config,
                                       opts.compiler_config);
    cpu_out = test::InferUtterances(cpu_nnet, opts, utts, &compiler);
  }
  cu_backend::Scope device(true);
  // The same parameters, read into device memory.
  std::ostringstream written;
  cpu_nnet.Write(written, true);
  std::istringstream read_back(written.str());
  Nnet nnet;
  nnet.Read(read_back, true);
  NnetSimpleComputationOptions off = test::ChunkOptions(nnet, 32, 3, false),
                               on = test::ChunkOptions(nnet, 32, 3, true);
  CachingOptimizingCompiler compiler(nnet, on.optimize_config,
                                     on.compiler_config);
  GraphReplayStats s0 = ComputationGraphs::Stats();
  std::vector<Matrix<BaseFloat> > plain =
      test::InferUtterances(nnet, off, utts, &compiler);
  GraphReplayStats s1 = ComputationGraphs::Stats();
  EXPECT_EQ(s1.recorded, s0.recorded);
  EXPECT_EQ(s1.replayed, s0.replayed);
  std::vector<Matrix<BaseFloat> > replayed =
      test::InferUtterances(nnet, on, utts, &compiler);
  std::vector<Matrix<BaseFloat> > again =
      test::InferUtterances(nnet, on, utts, &compiler);
  GraphReplayStats s2 = ComputationGraphs::Stats();
  EXPECT_GT(s2.recorded, s1.recorded);
  // Every chunk after the first of its shape replays.
  EXPECT_GT(s2.replayed - s1.replayed, 2 * (s2.recorded - s1.recorded));
  EXPECT_EQ(s2.refused, s1.refused);
  test::ExpectIdentical(replayed, plain);
  test::ExpectIdentical(again, plain);
  ASSERT_EQ(replayed.size(), cpu_out.size());
  for (size_t u = 0; u < cpu_out.size(); u++) {
    ASSERT_EQ(replayed[u].NumRows(), cpu_out[u].NumRows());
    double worst = 0.0;
    for (int32 r = 0; r < cpu_out[u].NumRows(); r++)
      for (int32 c = 0; c < cpu_out[u].NumCols(); c++)
        worst = std::max(worst, std::fabs(static_cast<double>(
                                    replayed[u](r, c) - cpu_out[u](r, c))));
    EXPECT_LT(worst, 1e-3) << "utterance " << u;
  }
}

TEST_F(CudaGraphTest, GraphsFollowTheirComputations) {
  std::vector<Matrix<BaseFloat> > utts = Utterances();
  cu_backend::Scope device(true);
  Nnet nnet = TdnnNnet();
  NnetSimpleComputationOptions off = test::ChunkOptions(nnet, 32, 3, false),
                               on = test::ChunkOptions(nnet, 32, 3, true);
  std::vector<Matrix<BaseFloat> > plain;
  {
    CachingOptimizingCompiler compiler(nnet, off.optimize_config,
                                       off.compiler_config);
    plain = test::InferUtterances(nnet, off, utts, &compiler);
  }
  for (int32 round = 0; round < 3; round++) {
    // A fresh compiler: its computations are new objects (possibly at the
    // addresses of the old ones), so they must be recorded again.
    CachingOptimizingCompiler compiler(nnet, on.optimize_config,
                                       on.compiler_config);
    GraphReplayStats before = ComputationGraphs::Stats();
    std::vector<Matrix<BaseFloat> > outs =
        test::InferUtterances(nnet, on, utts, &compiler);
    GraphReplayStats after = ComputationGraphs::Stats();
    EXPECT_GT(after.recorded, before.recorded) << "round " << round;
    EXPECT_GT(after.replayed, before.replayed) << "round " << round;
    test::ExpectIdentical(outs, plain);
  }
}

// nnet3-xvector-compute's block-wise plan replays its two computations:
// the x-vectors must equal those computed without replay, bit for bit.
TEST_F(CudaGraphTest, XvectorPlanReplaysGiveTheSameXvectors) {
  cu_backend::Scope device(true);
  Nnet nnet = NnetFromConfigString(
      std::string(test::kXvectorFirstFrameLayer) +
      "component name=t2 type=AffineComponent input-dim=16 output-dim=6 "
      "bias-stddev=0.5\n"
      "component-node name=t2 component=t2 input=Append(Offset(r1, -2), r1)\n"
      "component name=r2 type=RectifiedLinearComponent dim=6\n"
      "component-node name=r2 component=r2 input=t2\n"
      "component name=extract type=StatisticsExtractionComponent "
      "input-dim=6 input-period=1 output-period=1 include-variance=true\n"
      "component-node name=extract component=extract input=r2\n"
      "component name=pool type=StatisticsPoolingComponent input-dim=13 "
      "input-period=1 left-context=0 right-context=10000 "
      "output-stddevs=true\n"
      "component-node name=pool component=pool input=extract\n"
      "component name=t3 type=AffineComponent input-dim=12 output-dim=7 "
      "bias-stddev=0.5\n"
      "component-node name=t3 component=t3 input=Round(pool, 1)\n"
      "component name=r3 type=RectifiedLinearComponent dim=7\n"
      "component-node name=r3 component=r3 input=t3\n"
      "output-node name=output input=r3\n");
  RandomSource rs(31);
  std::vector<Matrix<BaseFloat> > utts;
  for (int32 frames : {120, 200, 77, 300, 150})
    utts.push_back(RandomGaussMatrix(frames, 5, &rs));
  auto run = [&](bool graphs) {
    XvectorExtractionOptions opts;
    opts.block_size = 16;
    opts.cuda_graphs = graphs;
    CachingOptimizingCompiler compiler(nnet);
    XvectorComputer computer(opts, nnet, &compiler);
    EXPECT_NE(computer.Plan(), nullptr);
    std::vector<Matrix<BaseFloat> > xvectors;
    for (const Matrix<BaseFloat> &u : utts) {
      Vector<BaseFloat> x;
      std::string why;
      EXPECT_TRUE(computer.ComputeUtterance(u, &x, &why)) << why;
      Matrix<BaseFloat> row(1, x.Dim());
      row.Row(0).CopyFromVec(x);
      xvectors.push_back(row);
    }
    EXPECT_GT(computer.NumChunksThroughPlan(), 0);
    return xvectors;
  };
  std::vector<Matrix<BaseFloat> > plain = run(false);
  GraphReplayStats before = ComputationGraphs::Stats();
  std::vector<Matrix<BaseFloat> > replayed = run(true);
  GraphReplayStats after = ComputationGraphs::Stats();
  EXPECT_GT(after.replayed, before.replayed);
  test::ExpectIdentical(replayed, plain);
}

// Large host matrices are pinned while a GPU computes (matrix/host-memory.h
// hooks): an upload from one must still be complete when it returns, so that
// overwriting or freeing the source at once cannot change what arrived.
TEST_F(CudaGraphTest, UploadsFromPinnedBlocksAreCompleteOnReturn) {
  cu_backend::Scope device(true);
  RandomSource rs(3);
  for (int32 round = 0; round < 5; round++) {
    Matrix<BaseFloat> host = RandomGaussMatrix(4096, 256, &rs);  // 4 MiB
    Matrix<BaseFloat> expected(host);
    CuMatrix<BaseFloat> dev(host.NumRows(), host.NumCols(), kUndefined);
    dev.CopyFromMat(host);
    host.Set(-7.0);  // at once, before anything else waits for the device
    Matrix<BaseFloat> back(host.NumRows(), host.NumCols(), kUndefined);
    dev.CopyToMat(&back);
    int32 differ = 0;
    for (int32 r = 0; r < back.NumRows(); r++)
      for (int32 c = 0; c < back.NumCols(); c++)
        if (back(r, c) != expected(r, c)) differ++;
    EXPECT_EQ(differ, 0) << "round " << round;
  }
}

}  // namespace
}  // namespace nnet3
