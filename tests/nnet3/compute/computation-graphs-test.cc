// tests/nnet3/compute/computation-graphs-test.cc
// The bookkeeping of CUDA-graph replay without a GPU
// (ComputationGraphs::SetHostTesting): on the CPU backend every recording is
// refused, so with replay enabled a computer runs its first computation of
// a shape ordinarily, then binds the entry's slots, tries to record, falls
// back, and runs ordinarily on the slots. The outputs must equal those of
// ordinary runs exactly, through chunked inference (DecodableNnetSimple)
// and the batch computer, with networks whose computations swap matrices
// and gather rows; and only forward computations get entries.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nnet3/compute/batch-compute.h"
#include "nnet3/compute/computation-graphs.h"
#include "nnet3/compute/decodable-simple.h"
#include "nnet3/compute/graph-test-util.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

class HostTestingScope {
 public:
  HostTestingScope() {
    ComputationGraphs::Clear();
    ComputationGraphs::SetHostTesting(true);
  }
  ~HostTestingScope() {
    ComputationGraphs::SetHostTesting(false);
    ComputationGraphs::Clear();
  }
};

Nnet TestNnet(bool with_ivector) {
  return NnetFromConfigString(
      "input-node name=input dim=5\n" +
      std::string(with_ivector ? "input-node name=ivector dim=2\n" : "") +
      "component name=a1 type=AffineComponent input-dim=" +
      (with_ivector ? "17" : "15") +
      " output-dim=12 bias-stddev=0.5\n"
      "component-node name=a1 component=a1 input=Append(Offset(input, -1), "
      "input, Offset(input, 2)" +
      (with_ivector ? ", ReplaceIndex(ivector, t, 0)" : "") +
      ")\n"
      "component name=r1 type=RectifiedLinearComponent dim=12\n"
      "component-node name=r1 component=r1 input=a1\n"
      "component name=a2 type=AffineComponent input-dim=24 output-dim=6 "
      "bias-stddev=0.5\n"
      "component-node name=a2 component=a2 input=Append(Offset(r1, -3), "
      "Offset(r1, 1))\n"
      "component name=lsm type=LogSoftmaxComponent dim=6\n"
      "component-node name=lsm component=lsm input=a2\n"
      "output-node name=output input=Sum(lsm, Offset(lsm, 1))\n");
}

std::vector<Matrix<BaseFloat> > Infer(const Nnet &nnet, bool graphs,
                                      const std::vector<Matrix<BaseFloat> > &utts,
                                      const Vector<BaseFloat> *ivector) {
  NnetSimpleComputationOptions opts = test::ChunkOptions(nnet, 16, 2, graphs);
  CachingOptimizingCompiler compiler(nnet, opts.optimize_config,
                                     opts.compiler_config);
  return test::InferUtterances(nnet, opts, utts, &compiler, ivector);
}

TEST(ComputationGraphs, RefusedRecordingsFallBackToTheSameOutputs) {
  RandomSource rs(5);
  std::vector<Matrix<BaseFloat> > utts;
  for (int32 frames : {40, 16, 40, 3, 77, 40})
    utts.push_back(RandomGaussMatrix(frames, 5, &rs));
  for (bool with_ivector : {false, true}) {
    Nnet nnet = TestNnet(with_ivector);
    Vector<BaseFloat> iv(RandomGaussMatrix(1, 2, &rs).Row(0));
    const Vector<BaseFloat> *ivector = with_ivector ? &iv : nullptr;
    std::vector<Matrix<BaseFloat> > plain = Infer(nnet, false, utts, ivector);
    HostTestingScope scope;
    GraphReplayStats before = ComputationGraphs::Stats();
    std::vector<Matrix<BaseFloat> > slots = Infer(nnet, true, utts, ivector);
    GraphReplayStats after = ComputationGraphs::Stats();
    // Every shape's second run tried to record and was refused.
    EXPECT_GT(after.refused, before.refused);
    EXPECT_EQ(after.recorded, before.recorded);
    EXPECT_EQ(after.replayed, before.replayed);
    test::ExpectIdentical(slots, plain);
    // Entries live on with their computations; a new compiler's
    // computations get new entries and are refused again.
    std::vector<Matrix<BaseFloat> > slots2 = Infer(nnet, true, utts, ivector);
    test::ExpectIdentical(slots2, plain);
  }
}

TEST(ComputationGraphs, OnlyForwardComputationsAreReplayable) {
  Nnet nnet = TestNnet(false);
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", -5, 14));
  request.outputs.push_back(IoSpecification("output", 0, 8));
  CachingOptimizingCompiler compiler(nnet);
  std::string why;
  EXPECT_TRUE(ComputationGraphs::ComputationIsReplayable(
      *compiler.Compile(request), &why));
  request.outputs[0].has_deriv = true;
  request.need_model_derivative = true;
  EXPECT_FALSE(ComputationGraphs::ComputationIsReplayable(
      *compiler.Compile(request), &why));
  EXPECT_FALSE(why.empty());
}

TEST(ComputationGraphs, BatchComputerOutputsUnchanged) {
  RandomSource rs(9);
  Nnet nnet = TestNnet(false);
  std::vector<Matrix<BaseFloat> > utts;
  for (int32 frames : {40, 33, 50, 12})
    utts.push_back(RandomGaussMatrix(frames, 5, &rs));
  auto run = [&](bool graphs) {
    NnetBatchComputerOptions opts;
    opts.frames_per_chunk = 16;
    opts.minibatch_size = 3;
    opts.compute_config.cuda_graphs = graphs;
    Vector<BaseFloat> priors;
    NnetBatchComputer computer(opts, nnet, priors);
    std::vector<Matrix<BaseFloat> > outs;
    for (const Matrix<BaseFloat> &u : utts) {
      std::vector<NnetInferenceTask> tasks;
      computer.SplitUtteranceIntoTasks(u, nullptr, nullptr, 1, &tasks);
      for (NnetInferenceTask &t : tasks) computer.AcceptTask(&t);
      while (computer.Compute(true)) {}
      Matrix<BaseFloat> out;
      MergeTaskOutput(tasks, &out);
      outs.push_back(out);
    }
    return outs;
  };
  std::vector<Matrix<BaseFloat> > plain = run(false);
  HostTestingScope scope;
  GraphReplayStats before = ComputationGraphs::Stats();
  std::vector<Matrix<BaseFloat> > slots = run(true);
  EXPECT_GT(ComputationGraphs::Stats().refused, before.refused);
  test::ExpectIdentical(slots, plain);
}

}  // namespace
}  // namespace nnet3
