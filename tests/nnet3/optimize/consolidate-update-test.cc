// tests/nnet3/optimize/consolidate-update-test.cc
// consolidate-model-update (ConsolidateModelUpdate):
//  - a recurrent layer (Append(input, IfDefined(Offset(r, -1))) into an
//    affine, tanh r, affine output) trained on t = 0..7, n = 0..1: after
//    the pass the recurrent affine has exactly one kBackprop (reading all
//    16 rows, no input derivative) and its per-step commands are
//    kBackpropNoModelUpdate; the computation passes the checker and gives
//    the same outputs, input derivatives and parameter gradient (1e-5
//    relative); likewise without the input derivative, where the t=0 step
//    has nothing left to compute;
//  - no model derivative, or one backprop per component: nothing changes;
//  - 200 random networks and requests with model update: after the pass
//    (+ RemoveNoOps, RenumberComputation) the checker passes and results
//    agree, and again after the rest of the optimizer runs on the result.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "nnet3/analyze/analyze.h"
#include "nnet3/analyze/checker.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/optimize/consolidate-update.h"
#include "nnet3/optimize/optimize.h"
#include "nnet3/optimize/renumber.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Command;

std::string ToString(const NnetComputation &computation, const Nnet &nnet) {
  std::ostringstream os;
  computation.Print(os, nnet);
  return os.str();
}

void Tidy(NnetComputation *computation) {
  RemoveNoOps(computation);
  RenumberComputation(computation);
}

// Commands of type t for component 'component'.
std::vector<int32> BackpropsOf(const NnetComputation &computation,
                               CommandType t, int32 component) {
  std::vector<int32> ans;
  for (size_t c = 0; c < computation.commands.size(); c++)
    if (computation.commands[c].command_type == t &&
        computation.commands[c].arg1 == component)
      ans.push_back(static_cast<int32>(c));
  return ans;
}

// Largest number of kBackprop commands any one component has.
int32 MaxBackpropsPerComponent(const Nnet &nnet,
                               const NnetComputation &computation) {
  int32 ans = 0;
  for (int32 comp = 0; comp < nnet.NumComponents(); comp++)
    ans = std::max(ans, static_cast<int32>(
                            BackpropsOf(computation, kBackprop, comp).size()));
  return ans;
}

// Same results as the reference computation, with a parameter change that
// is not trivially zero (every request here updates the model).
void ExpectSame(const ReferenceRun &ref, const Nnet &nnet,
                const NnetComputation &opt) {
  ASSERT_EQ(ref.Compare(opt), "");
  ASSERT_GT(ParameterDifference(ref.delta(), MakeGradientNnet(nnet)), 0.0)
      << "the parameter change is zero";
}

// ---------------------------------------------------------------------------
// A recurrent layer

const char *kRecurrentConfig =
    "input-node name=input dim=3\n"
    "component name=affine type=AffineComponent input-dim=7 output-dim=4\n"
    "component-node name=affine component=affine "
    "input=Append(input, IfDefined(Offset(r, -1)))\n"
    "component name=r type=TanhComponent dim=4\n"
    "component-node name=r component=r input=affine\n"
    "component name=final type=AffineComponent input-dim=4 output-dim=2\n"
    "component-node name=final component=final input=r\n"
    "output-node name=output input=final\n";

ComputationRequest RecurrentRequest(bool input_deriv) {
  std::vector<Index> indexes;
  for (int32 n = 0; n < 2; n++)
    for (int32 t = 0; t < 8; t++) indexes.push_back(Index(n, t, 0));
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", indexes, input_deriv));
  request.outputs.push_back(IoSpecification("output", indexes, true));
  request.need_model_derivative = true;
  return request;
}

void CheckRecurrent(bool input_deriv) {
  Nnet nnet = NnetFromConfigString(kRecurrentConfig);
  ComputationRequest request = RecurrentRequest(input_deriv);
  NnetComputation raw;
  CompileComputation(nnet, request, CompilerOptions(), &raw);
  CheckComputation(nnet, raw, false);
  int32 affine = nnet.GetComponentIndex("affine"),
        final_affine = nnet.GetComponentIndex("final");
  ASSERT_GE(affine, 0);
  ASSERT_GE(final_affine, 0);
  // One step per frame before the pass.
  ASSERT_EQ(BackpropsOf(raw, kBackprop, affine).size(), 8u)
      << ToString(raw, nnet);
  ASSERT_EQ(BackpropsOf(raw, kBackprop, final_affine).size(), 1u);

  NnetComputation opt(raw);
  ConsolidateModelUpdate(nnet, &opt);
  SCOPED_TRACE(ToString(opt, nnet));
  ASSERT_NO_THROW(CheckComputation(nnet, opt, false));
  std::vector<int32> updates = BackpropsOf(opt, kBackprop, affine),
                     steps = BackpropsOf(opt, kBackpropNoModelUpdate, affine);
  ASSERT_EQ(updates.size(), 1u);
  // With the input derivative every step has an input derivative to
  // compute; without it the t=0 step (whose recurrent input is undefined)
  // has none and is dropped.
  EXPECT_EQ(steps.size(), input_deriv ? 8u : 7u);
  for (int32 s : steps) EXPECT_LT(s, updates[0]);
  const Command &update = opt.commands[updates[0]];
  EXPECT_EQ(update.arg2, 0);
  EXPECT_EQ(update.arg4, 0);  // AffineComponent needs no output value
  EXPECT_EQ(update.arg6, 0);  // no input derivative
  EXPECT_EQ(update.arg7, 0);
  ASSERT_GT(update.arg3, 0);
  ASSERT_GT(update.arg5, 0);
  EXPECT_TRUE(opt.IsWholeMatrix(update.arg3));
  EXPECT_TRUE(opt.IsWholeMatrix(update.arg5));
  EXPECT_EQ(opt.submatrices[update.arg3].num_rows, 16);
  EXPECT_EQ(opt.submatrices[update.arg3].num_cols, 7);
  EXPECT_EQ(opt.submatrices[update.arg5].num_rows, 16);
  EXPECT_EQ(opt.submatrices[update.arg5].num_cols, 4);
  // The final affine was already a single update.
  EXPECT_EQ(BackpropsOf(opt, kBackprop, final_affine),
            std::vector<int32>(1, BackpropsOf(opt, kBackprop,
                                              final_affine)[0]));
  EXPECT_TRUE(BackpropsOf(opt, kBackpropNoModelUpdate, final_affine).empty());
  // Debug info for the new matrices: cindexes of the affine node's input
  // and of its output derivative, each (n, t) once.
  if (!opt.matrix_debug_info.empty()) {
    int32 m = opt.submatrices[update.arg5].matrix_index;
    const NnetComputation::MatrixDebugInfo &info = opt.matrix_debug_info[m];
    EXPECT_TRUE(info.is_deriv);
    ASSERT_EQ(info.cindexes.size(), 16u);
    std::vector<Index> seen;
    for (const Cindex &c : info.cindexes) {
      EXPECT_EQ(c.first, nnet.GetNodeIndex("affine"));
      seen.push_back(c.second);
    }
    std::sort(seen.begin(), seen.end());
    std::vector<Index> expected = request.outputs[0].indexes;
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(seen, expected);
  }

  RandomSource rng(17);
  std::vector<Matrix<BaseFloat> > inputs(
      1, RandomGaussMatrix(16, 3, &rng));
  std::vector<Matrix<BaseFloat> > output_derivs;
  RandomOutputDerivs(nnet, request, &rng, &output_derivs);
  ReferenceRun ref(nnet, request, inputs, output_derivs, raw);
  ExpectSame(ref, nnet, opt);
  // Tidied, and then through the rest of the optimizer.
  Tidy(&opt);
  ASSERT_NO_THROW(CheckComputation(nnet, opt, false));
  ExpectSame(ref, nnet, opt);
  NnetOptimizeOptions rest;
  rest.consolidate_model_update = false;
  Optimize(rest, nnet, 7, &opt);
  ASSERT_NO_THROW(CheckComputation(nnet, opt, false));
  EXPECT_EQ(MaxBackpropsPerComponent(nnet, opt), 1);
  ExpectSame(ref, nnet, opt);
}

TEST(ConsolidateModelUpdate, RecurrentAffineGetsOneUpdate) {
  CheckRecurrent(true);
}

TEST(ConsolidateModelUpdate, RecurrentAffineWithoutInputDerivative) {
  CheckRecurrent(false);
}

TEST(ConsolidateModelUpdate, NoRepeatedBackpropLeavesTheComputationAlone) {
  Nnet nnet = NnetFromConfigString(kRecurrentConfig);
  // No model derivative: the per-step backprops stay as they are.
  ComputationRequest request = RecurrentRequest(true);
  request.need_model_derivative = false;
  NnetComputation raw;
  CompileComputation(nnet, request, CompilerOptions(), &raw);
  NnetComputation opt(raw);
  ConsolidateModelUpdate(nnet, &opt);
  EXPECT_EQ(ToString(opt, nnet), ToString(raw, nnet));

  // A feed-forward network: one backprop per component already.
  Nnet ff = NnetFromConfigString(
      "input-node name=input dim=3\n"
      "component name=a type=AffineComponent input-dim=3 output-dim=4\n"
      "component-node name=a component=a input=input\n"
      "component name=r type=TanhComponent dim=4\n"
      "component-node name=r component=r input=a\n"
      "output-node name=output input=r\n");
  ComputationRequest ff_request = RecurrentRequest(true);
  NnetComputation ff_raw;
  CompileComputation(ff, ff_request, CompilerOptions(), &ff_raw);
  NnetComputation ff_opt(ff_raw);
  ConsolidateModelUpdate(ff, &ff_opt);
  EXPECT_EQ(ToString(ff_opt, ff), ToString(ff_raw, ff));
}

// ---------------------------------------------------------------------------
// Random networks

TEST(ConsolidateModelUpdate, RandomNetworksGiveTheSameResults) {
  const int32 num_seeds = 200;
  int32 num_consolidated = 0, num_steps_merged = 0;
  for (int32 seed = 1; seed <= num_seeds; seed++) {
    RandomSource rng(4100 + seed);
    RandomBackwardCase c;
    GenerateRandomBackwardCase(&rng, seed % 2 == 0, true, &c);
    SCOPED_TRACE("seed " + std::to_string(seed) + " " + c.trace);
    const Nnet &nnet = c.nnet;
    const ComputationRequest &request = c.request;
    const std::vector<Matrix<BaseFloat> > &inputs = c.inputs;

    NnetComputation raw;
    CompileComputation(nnet, request, CompilerOptions(), &raw);
    std::vector<Matrix<BaseFloat> > output_derivs;
    RandomOutputDerivs(nnet, request, &rng, &output_derivs);
    ReferenceRun ref(nnet, request, inputs, output_derivs, raw);

    NnetComputation opt(raw);
    ConsolidateModelUpdate(nnet, &opt);
    Tidy(&opt);
    ASSERT_NO_THROW(CheckComputation(nnet, opt, false))
        << ToString(raw, nnet) << "\n--- became ---\n" << ToString(opt, nnet);
    ASSERT_LE(MaxBackpropsPerComponent(nnet, opt), 1) << ToString(opt, nnet);
    ExpectSame(ref, nnet, opt);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << ToString(raw, nnet) << "\n--- became ---\n"
                    << ToString(opt, nnet);
      return;
    }
    int32 before = MaxBackpropsPerComponent(nnet, raw);
    if (before > 1) {
      num_consolidated++;
      num_steps_merged += before;
    }

    // The rest of the optimizer must cope with the new matrices and copies.
    int32 max_t = 0;
    for (const IoSpecification &o : request.outputs)
      for (const Index &index : o.indexes) max_t = std::max(max_t, index.t);
    NnetOptimizeOptions rest;
    rest.consolidate_model_update = false;
    Optimize(rest, nnet, max_t, &opt);
    ASSERT_NO_THROW(CheckComputation(nnet, opt, false))
        << ToString(opt, nnet);
    ExpectSame(ref, nnet, opt);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "after Optimize: " << ToString(opt, nnet);
      return;
    }
  }
  std::cout << "consolidated " << num_consolidated << " of " << num_seeds
            << " computations (" << num_steps_merged
            << " per-step updates of the most-stepped components)\n";
  EXPECT_GT(num_consolidated, 10);
}

}  // namespace
}  // namespace nnet3
