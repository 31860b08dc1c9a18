// tests/nnet3/optimize/memory-compression-test.cc
// memory compression (OptimizeMemoryCompression):
//  - a TDNN-like network (spliced affine -> ReLU -> spliced affine -> ReLU
//    -> affine output) trained on 8 frames x 4 sequences, compiled and
//    optimized with the default options, then the pass at level 1: the
//    first ReLU's output (whose splicing copies feed the next affine, so
//    its only backward use is the ReLU backprop) is compressed sign-only
//    (uint8, range 0) in the forward pass and decompressed in the backward
//    pass just before the ReLU backprop; the second ReLU's output is not
//    (the final affine's backprop reads it as its input); the checker passes, GetMaxMemoryUse does not grow, and
//    outputs, input derivatives and the parameter gradient equal the
//    uncompressed computation's (1e-6 relative);
//  - level 0, or a computation with no backward pass: nothing changes;
//  - 100 random networks and requests with model update: after the pass at
//    level 1 the checker passes and results agree (1e-5); at level 2 the
//    checker passes too and the computation runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "nnet3/analyze/analyze.h"
#include "nnet3/analyze/checker.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/optimize/memory-compression.h"
#include "nnet3/optimize/optimize.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

// The optimizer's own options, but without memory compression (the recipe
// runs this pass itself; the tests apply it by hand).
NnetOptimizeOptions NoCompression() {
  NnetOptimizeOptions opts;
  opts.memory_compression_level = 0;
  return opts;
}

std::string ToString(const NnetComputation &computation, const Nnet &nnet) {
  std::ostringstream os;
  computation.Print(os, nnet);
  return os.str();
}

// Runs both computations on the same data and compares everything.
void ExpectSameResults(const Nnet &nnet, const ComputationRequest &request,
                       const std::vector<Matrix<BaseFloat> > &inputs,
                       const std::vector<Matrix<BaseFloat> > &output_derivs,
                       const NnetComputation &reference,
                       const NnetComputation &other, double tolerance) {
  ReferenceRun ref(nnet, request, inputs, output_derivs, reference);
  ASSERT_EQ(ref.Compare(other, tolerance), "");
}

int32 CountCommands(const NnetComputation &computation, CommandType t) {
  std::vector<int32> v;
  GetCommandsOfType(computation, t, &v);
  return static_cast<int32>(v.size());
}

int32 MarkerIndex(const NnetComputation &computation) {
  std::vector<int32> v;
  GetCommandsOfType(computation, kNoOperationMarker, &v);
  return v.size() == 1 ? v[0] : -1;
}

// ---------------------------------------------------------------------------
// TDNN

const char *kTdnnConfig =
    "input-node name=input dim=5\n"
    "component name=affine1 type=AffineComponent input-dim=15 output-dim=8\n"
    "component-node name=affine1 component=affine1 "
    "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
    "component name=relu1 type=RectifiedLinearComponent dim=8\n"
    "component-node name=relu1 component=relu1 input=affine1\n"
    "component name=affine2 type=AffineComponent input-dim=24 output-dim=6\n"
    "component-node name=affine2 component=affine2 "
    "input=Append(Offset(relu1, -1), relu1, Offset(relu1, 1))\n"
    "component name=relu2 type=RectifiedLinearComponent dim=6\n"
    "component-node name=relu2 component=relu2 input=affine2\n"
    "component name=final type=AffineComponent input-dim=6 output-dim=3\n"
    "component-node name=final component=final input=relu2\n"
    "output-node name=output input=final\n";

ComputationRequest TdnnRequest(bool with_backward) {
  std::vector<Index> in_indexes, out_indexes;
  for (int32 n = 0; n < 4; n++) {
    for (int32 t = -2; t < 10; t++) in_indexes.push_back(Index(n, t, 0));
    for (int32 t = 0; t < 8; t++) out_indexes.push_back(Index(n, t, 0));
  }
  ComputationRequest request;
  request.inputs.push_back(
      IoSpecification("input", in_indexes, with_backward));
  request.outputs.push_back(
      IoSpecification("output", out_indexes, with_backward));
  request.need_model_derivative = with_backward;
  return request;
}

TEST(MemoryCompression, TdnnReluOutputsAreCompressedLosslessly) {
  Nnet nnet = NnetFromConfigString(kTdnnConfig);
  ComputationRequest request = TdnnRequest(true);
  NnetComputation computation;
  CompileComputation(nnet, request, CompilerOptions(), &computation);
  // With extend-matrices, relu1's output is merged into the spliced input of
  // affine2 (which affine2's backprop reads), leaving nothing to compress;
  // keep the two apart here to see the pass at work.
  NnetOptimizeOptions opts = NoCompression();
  opts.extend_matrices = false;
  Optimize(opts, nnet, 7, &computation);
  // The recipe does not run the pass yet; start from no compression.
  ASSERT_EQ(CountCommands(computation, kCompressMatrix), 0);
  NnetComputation compressed(computation);
  OptimizeMemoryCompression(nnet, 1, &compressed);
  SCOPED_TRACE(ToString(compressed, nnet));
  ASSERT_NO_THROW(CheckComputation(nnet, compressed, false));

  int32 marker = MarkerIndex(compressed);
  ASSERT_GE(marker, 0);
  int32 relu1 = nnet.GetComponentIndex("relu1"),
        relu2 = nnet.GetComponentIndex("relu2");
  ASSERT_GE(relu1, 0);
  ASSERT_GE(relu2, 0);
  int32 num_compressed = 0;
  for (size_t c = 0; c < compressed.commands.size(); c++) {
    const NnetComputation::Command &cmd = compressed.commands[c];
    if (cmd.command_type != kCompressMatrix) continue;
    num_compressed++;
    EXPECT_LT(static_cast<int32>(c), marker);
    EXPECT_EQ(cmd.arg2, 2);  // uint8
    EXPECT_EQ(cmd.alpha, 0.0f);
    EXPECT_TRUE(compressed.IsWholeMatrix(cmd.arg1));
    int32 m = compressed.submatrices[cmd.arg1].matrix_index;
    // The matching decompression is followed by the ReLU backprop reading
    // this matrix as its output value.
    size_t d = c + 1;
    while (d < compressed.commands.size() &&
           !(compressed.commands[d].command_type == kDecompressMatrix &&
             compressed.commands[d].arg1 == cmd.arg1))
      d++;
    ASSERT_LT(d + 1, compressed.commands.size());
    EXPECT_GT(static_cast<int32>(d), marker);
    const NnetComputation::Command &b = compressed.commands[d + 1];
    EXPECT_TRUE(b.command_type == kBackprop ||
                b.command_type == kBackpropNoModelUpdate);
    EXPECT_EQ(b.arg1, relu1);
    ASSERT_GT(b.arg4, 0);
    EXPECT_EQ(compressed.submatrices[b.arg4].matrix_index, m);
  }
  EXPECT_EQ(num_compressed, 1);
  EXPECT_EQ(CountCommands(compressed, kDecompressMatrix), 1);
  // relu2's output is still read by the final affine's backprop.
  for (const NnetComputation::Command &cmd : compressed.commands) {
    if ((cmd.command_type == kBackprop ||
         cmd.command_type == kBackpropNoModelUpdate) && cmd.arg1 == relu2) {
      int32 m = compressed.submatrices[cmd.arg4].matrix_index;
      for (const NnetComputation::Command &other : compressed.commands) {
        if (other.command_type == kCompressMatrix) {
          EXPECT_NE(compressed.submatrices[other.arg1].matrix_index, m);
        }
      }
    }
  }
  EXPECT_LE(GetMaxMemoryUse(compressed), GetMaxMemoryUse(computation));

  RandomSource rng(5);
  std::vector<Matrix<BaseFloat> > inputs(
      1, RandomGaussMatrix(48, 5, &rng)), output_derivs;
  RandomOutputDerivs(nnet, request, &rng, &output_derivs);
  ExpectSameResults(nnet, request, inputs, output_derivs, computation,
                    compressed, 1e-6);
}

TEST(MemoryCompression, NoCandidatesLeavesTheComputationAlone) {
  Nnet nnet = NnetFromConfigString(kTdnnConfig);
  // Level 0.
  {
    ComputationRequest request = TdnnRequest(true);
    NnetComputation computation;
    CompileComputation(nnet, request, CompilerOptions(), &computation);
    Optimize(NoCompression(), nnet, 7, &computation);
    NnetComputation copy(computation);
    OptimizeMemoryCompression(nnet, 0, &copy);
    EXPECT_EQ(ToString(copy, nnet), ToString(computation, nnet));
  }
  // No backward pass.
  {
    ComputationRequest request = TdnnRequest(false);
    NnetComputation computation;
    CompileComputation(nnet, request, CompilerOptions(), &computation);
    Optimize(NoCompression(), nnet, 7, &computation);
    NnetComputation copy(computation);
    OptimizeMemoryCompression(nnet, 2, &copy);
    EXPECT_EQ(ToString(copy, nnet), ToString(computation, nnet));
  }
}

// ---------------------------------------------------------------------------
// Random networks

TEST(MemoryCompression, RandomNetworksGiveTheSameResults) {
  const int32 num_seeds = 100;
  int32 num_with_compression = 0, num_more_at_level2 = 0;
  for (int32 seed = 1; seed <= num_seeds; seed++) {
    RandomSource rng(9300 + seed);
    RandomBackwardCase c;
    GenerateRandomBackwardCase(&rng, seed % 2 == 0, true, &c);
    SCOPED_TRACE("seed " + std::to_string(seed) + " " + c.trace);
    const Nnet &nnet = c.nnet;
    const ComputationRequest &request = c.request;
    const std::vector<Matrix<BaseFloat> > &inputs = c.inputs;

    NnetComputation computation;
    CompileComputation(nnet, request, CompilerOptions(), &computation);
    // A third unoptimized, the rest through the default recipe.
    if (seed % 3 != 0) {
      int32 max_t = 0;
      for (const IoSpecification &o : request.outputs)
        for (const Index &index : o.indexes) max_t = std::max(max_t, index.t);
      Optimize(NoCompression(), nnet, max_t, &computation);
    }
    NnetComputation level1(computation), level2(computation);
    OptimizeMemoryCompression(nnet, 1, &level1);
    OptimizeMemoryCompression(nnet, 2, &level2);
    ASSERT_NO_THROW(CheckComputation(nnet, level1, false))
        << ToString(level1, nnet);
    ASSERT_NO_THROW(CheckComputation(nnet, level2, false))
        << ToString(level2, nnet);
    EXPECT_GE(CountCommands(level2, kCompressMatrix),
              CountCommands(level1, kCompressMatrix));
    if (CountCommands(level1, kCompressMatrix) > 0) num_with_compression++;
    if (CountCommands(level2, kCompressMatrix) >
        CountCommands(level1, kCompressMatrix))
      num_more_at_level2++;
    EXPECT_LE(GetMaxMemoryUse(level1), GetMaxMemoryUse(computation));
    std::vector<Matrix<BaseFloat> > output_derivs;
    RandomOutputDerivs(nnet, request, &rng, &output_derivs);
    ExpectSameResults(nnet, request, inputs, output_derivs, computation,
                      level1, 1e-5);
    // Level 2 is lossy (int16 over [-10, 10]); it must at least run.
    {
      Nnet delta = MakeGradientNnet(nnet);
      ComputationResults results;
      ASSERT_NO_THROW(RunComputationForTest(nnet, request, level2, inputs,
                                            output_derivs, &delta, &results));
    }
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << ToString(computation, nnet) << "\n--- became ---\n"
                    << ToString(level1, nnet);
      return;
    }
  }
  std::cout << num_with_compression << " of " << num_seeds
            << " random computations had a ReLU output compressed, "
            << num_more_at_level2 << " compressed more at level 2\n";
  EXPECT_GT(num_with_compression, 0);
  EXPECT_GT(num_more_at_level2, 0);
}

}  // namespace
}  // namespace nnet3
