// tests/nnet3/compile/compiler-test.cc
// The compiler + computer against independent oracles:
//  - for hundreds of random networks and requests (feed-forward, TDNN,
//    recurrent, iVector, several outputs; random descriptors), outputs,
//    input derivatives and parameter gradients equal the naive evaluator's
//    (which computes each Cindex on its own);
//  - finite differences of a linear objective through compiled
//    computations (inputs and parameters), recurrent networks included;
//  - the structure rules of steps (recurrent layer: one step per frame;
//    component step preceded by its descriptor step with the same rows);
//  - non-computable outputs are explained in user terms.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "base/log.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/compile/computation-graph.h"
#include "nnet3/compile/computation-steps.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/naive-evaluator.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

double MaxAbs(const MatrixBase<BaseFloat> &m) {
  double ans = 0.0;
  for (int32 i = 0; i < m.NumRows(); i++)
    for (int32 j = 0; j < m.NumCols(); j++)
      ans = std::max(ans, std::fabs(static_cast<double>(m(i, j))));
  return ans;
}

// Relative difference of two matrices, scaled by the larger magnitude.
void ExpectClose(const MatrixBase<BaseFloat> &a, const MatrixBase<BaseFloat> &b,
                 double rel, const std::string &what) {
  ASSERT_EQ(a.NumRows(), b.NumRows()) << what;
  ASSERT_EQ(a.NumCols(), b.NumCols()) << what;
  double scale = std::max(MaxAbs(a), MaxAbs(b));
  for (int32 i = 0; i < a.NumRows(); i++)
    for (int32 j = 0; j < a.NumCols(); j++)
      ASSERT_NEAR(a(i, j), b(i, j), rel * scale + 1e-6)
          << what << " row " << i << " col " << j;
}

// Compiles random networks and requests and compares everything with the
// naive evaluator; counts the recurrent networks and backward cases seen.
void CompareRandomNetworksWithNaive(const RandomNnetOptions &opts,
                                    int32 first_seed, int32 num_seeds,
                                    int32 *num_recurrent_out,
                                    int32 *num_backprop_out,
                                    std::map<std::string, int32> *types_seen) {
  int32 num_recurrent = 0, num_backprop = 0;
  for (int32 seed = first_seed; seed < first_seed + num_seeds; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomSource rng(seed);
    std::string description;
    std::string config = GenerateRandomNnetConfig(&rng, opts, &description);
    SCOPED_TRACE(description + "\n" + config);
    Nnet nnet = NnetFromConfigString(config);
    if (config.find("IfDefined") != std::string::npos) num_recurrent++;
    if (types_seen != nullptr)
      for (int32 c = 0; c < nnet.NumComponents(); c++)
        (*types_seen)[nnet.GetComponent(c)->Type()]++;
    ComputationRequest request;
    std::vector<Matrix<BaseFloat> > inputs;
    GenerateRandomRequest(nnet, &rng, &request, &inputs);
    std::ostringstream req_str;
    request.Print(req_str);
    SCOPED_TRACE(req_str.str());

    NnetComputation computation;
    CompilerOptions copts;
    ASSERT_NO_THROW(CompileComputation(nnet, request, copts, &computation));

    NaiveEvaluator naive(nnet, request, inputs);
    std::vector<Matrix<BaseFloat> > naive_outputs(request.outputs.size());
    for (size_t o = 0; o < request.outputs.size(); o++)
      naive.GetOutput(static_cast<int32>(o), &naive_outputs[o]);
    std::vector<Matrix<BaseFloat> > output_derivs;
    RandomOutputDerivs(nnet, request, &rng, &output_derivs);
    // The naive evaluator wants zeros for outputs without derivatives.
    for (size_t o = 0; o < output_derivs.size(); o++)
      if (!request.outputs[o].has_deriv)
        output_derivs[o].Resize(naive_outputs[o].NumRows(),
                                naive_outputs[o].NumCols());

    Nnet delta = MakeGradientNnet(nnet), naive_delta = MakeGradientNnet(nnet);
    ComputationResults result;
    RunComputationForTest(nnet, request, computation, inputs, output_derivs,
                   request.need_model_derivative ? &delta : nullptr, &result);
    for (size_t o = 0; o < request.outputs.size(); o++)
      ExpectClose(result.outputs[o], naive_outputs[o], 1e-4,
                  "output " + request.outputs[o].name);
    if (!request.NeedDerivatives()) continue;
    bool any_output_deriv = false;
    for (const auto &o : request.outputs) any_output_deriv |= o.has_deriv;
    if (!any_output_deriv) continue;
    num_backprop++;
    std::vector<Matrix<BaseFloat> > naive_input_derivs;
    naive.Backward(output_derivs, &naive_input_derivs,
                   request.need_model_derivative ? &naive_delta : nullptr);
    for (size_t i = 0; i < request.inputs.size(); i++)
      if (request.inputs[i].has_deriv)
        ExpectClose(result.input_derivs[i], naive_input_derivs[i], 1e-3,
                    "derivative of input " + request.inputs[i].name);
    if (request.need_model_derivative) {
      for (int32 c = 0; c < nnet.NumComponents(); c++) {
        const UpdatableComponent *a =
            dynamic_cast<const UpdatableComponent *>(delta.GetComponent(c));
        if (!a) continue;
        const UpdatableComponent *b =
            dynamic_cast<const UpdatableComponent *>(
                naive_delta.GetComponent(c));
        Vector<BaseFloat> va(a->NumParameters()), vb(b->NumParameters());
        a->Vectorize(&va);
        b->Vectorize(&vb);
        Matrix<BaseFloat> ma(1, va.Dim()), mb(1, vb.Dim());
        ma.Row(0).CopyFromVec(va);
        mb.Row(0).CopyFromVec(vb);
        ExpectClose(ma, mb, 1e-3,
                    "parameter gradient of " + nnet.GetComponentName(c));
      }
    }
    if (::testing::Test::HasFailure()) break;
  }
  *num_recurrent_out = num_recurrent;
  *num_backprop_out = num_backprop;
}

TEST(Compiler, RandomNetworksMatchNaiveEvaluator) {
  const int32 num_seeds = 500;
  int32 num_recurrent = 0, num_backprop = 0;
  CompareRandomNetworksWithNaive(RandomNnetOptions(), 1, num_seeds,
                                 &num_recurrent, &num_backprop, nullptr);
  // The generator must actually have exercised the interesting cases.
  EXPECT_GT(num_recurrent, num_seeds / 10);
  EXPECT_GT(num_backprop, num_seeds / 4);
}

// The same with the general component types (non-simple index mappings,
// blank rows, precomputed indexes, recurrences through LSTM cells).
TEST(Compiler, RandomGeneralNetworksMatchNaiveEvaluator) {
  const int32 num_seeds = 300;
  RandomNnetOptions opts;
  opts.allow_general_components = true;
  int32 num_recurrent = 0, num_backprop = 0;
  std::map<std::string, int32> types;
  CompareRandomNetworksWithNaive(opts, 1001, num_seeds, &num_recurrent,
                                 &num_backprop, &types);
  EXPECT_GT(num_backprop, num_seeds / 4);
  for (const char *type :
       {"TdnnComponent", "LstmNonlinearityComponent",
        "BackpropTruncationComponent", "TimeHeightConvolutionComponent",
        "StatisticsExtractionComponent", "StatisticsPoolingComponent",
        "RestrictedAttentionComponent", "DistributeComponent",
        "CompositeComponent", "BlockAffineComponent",
        "RepeatedAffineComponent", "NaturalGradientRepeatedAffineComponent"})
    EXPECT_GT(types[type], 5) << type << " was rarely generated";
}

// Objective: sum over outputs of <W_o, output_o>. Its derivative with
// respect to the outputs is W_o.
double Objective(const std::vector<Matrix<BaseFloat> > &outputs,
                 const std::vector<Matrix<BaseFloat> > &weights) {
  double ans = 0.0;
  for (size_t o = 0; o < outputs.size(); o++)
    for (int32 r = 0; r < outputs[o].NumRows(); r++)
      for (int32 c = 0; c < outputs[o].NumCols(); c++)
        ans += static_cast<double>(outputs[o](r, c)) * weights[o](r, c);
  return ans;
}

TEST(Compiler, FiniteDifferencesThroughWholeNetworks) {
  int32 num_checked = 0, num_failed = 0, num_recurrent = 0;
  for (int32 seed = 1; seed <= 60; seed++) {
    RandomSource rng(1000 + seed);
    RandomNnetOptions opts;
    opts.allow_nonsmooth = false;
    std::string description;
    std::string config = GenerateRandomNnetConfig(&rng, opts, &description);
    Nnet nnet = NnetFromConfigString(config);
    if (config.find("IfDefined") != std::string::npos) num_recurrent++;
    ComputationRequest request;
    std::vector<Matrix<BaseFloat> > inputs;
    GenerateRandomRequest(nnet, &rng, &request, &inputs);
    for (auto &in : request.inputs) in.has_deriv = true;
    for (auto &out : request.outputs) out.has_deriv = true;
    request.need_model_derivative = true;
    NnetComputation computation;
    CompileComputation(nnet, request, CompilerOptions(), &computation);

    ComputationResults base;
    std::vector<Matrix<BaseFloat> > no_derivs(request.outputs.size());
    ComputationRequest forward_request = request;
    for (auto &in : forward_request.inputs) in.has_deriv = false;
    for (auto &out : forward_request.outputs) out.has_deriv = false;
    forward_request.need_model_derivative = false;
    NnetComputation forward;
    CompileComputation(nnet, forward_request, CompilerOptions(), &forward);
    RunComputationForTest(nnet, forward_request, forward, inputs, no_derivs, nullptr,
                   &base);
    std::vector<Matrix<BaseFloat> > weights;
    RandomOutputDerivs(nnet, request, &rng, &weights);
    Nnet delta = MakeGradientNnet(nnet);
    ComputationResults with_derivs;
    RunComputationForTest(nnet, request, computation, inputs, weights, &delta,
                   &with_derivs);
    double f0 = Objective(base.outputs, weights);
    const double eps = 1e-3;

    (void)f0;
    // Inputs, along a random direction (central differences, so the
    // second-order term cancels).
    std::vector<Matrix<BaseFloat> > plus = inputs, minus = inputs;
    double predicted = 0.0;
    for (size_t i = 0; i < inputs.size(); i++)
      for (int32 r = 0; r < inputs[i].NumRows(); r++)
        for (int32 c = 0; c < inputs[i].NumCols(); c++) {
          double d = eps * rng.Gauss();
          plus[i](r, c) += d;
          minus[i](r, c) -= d;
          predicted += d * with_derivs.input_derivs[i](r, c);
        }
    ComputationResults moved_plus, moved_minus;
    RunComputationForTest(nnet, forward_request, forward, plus, no_derivs, nullptr,
                   &moved_plus);
    RunComputationForTest(nnet, forward_request, forward, minus, no_derivs, nullptr,
                   &moved_minus);
    double observed = 0.5 * (Objective(moved_plus.outputs, weights) -
                             Objective(moved_minus.outputs, weights));
    num_checked++;
    if (std::fabs(observed - predicted) >
        0.02 * std::max(std::fabs(observed), std::fabs(predicted)) + 1e-4) {
      num_failed++;
      ADD_FAILURE() << "input derivative, seed " << seed << ": predicted "
                    << predicted << " observed " << observed << "\n"
                    << config;
    }

    // Parameters, along a random direction.
    Nnet nnet_plus(nnet), nnet_minus(nnet);
    predicted = 0.0;
    for (int32 c = 0; c < nnet.NumComponents(); c++) {
      UpdatableComponent *up =
          dynamic_cast<UpdatableComponent *>(nnet_plus.GetComponent(c));
      if (!up) continue;
      UpdatableComponent *um =
          dynamic_cast<UpdatableComponent *>(nnet_minus.GetComponent(c));
      const UpdatableComponent *g =
          dynamic_cast<const UpdatableComponent *>(delta.GetComponent(c));
      Vector<BaseFloat> params(up->NumParameters()),
          pp(up->NumParameters()), pm(up->NumParameters()),
          grad(g->NumParameters());
      up->Vectorize(&params);
      g->Vectorize(&grad);
      for (int32 k = 0; k < params.Dim(); k++) {
        double d = eps * rng.Gauss();
        pp(k) = params(k) + d;
        pm(k) = params(k) - d;
        predicted += d * grad(k);
      }
      up->UnVectorize(pp);
      um->UnVectorize(pm);
    }
    ComputationResults out_plus, out_minus;
    NnetComputation comp_plus, comp_minus;
    CompileComputation(nnet_plus, forward_request, CompilerOptions(),
                       &comp_plus);
    CompileComputation(nnet_minus, forward_request, CompilerOptions(),
                       &comp_minus);
    RunComputationForTest(nnet_plus, forward_request, comp_plus, inputs, no_derivs,
                   nullptr, &out_plus);
    RunComputationForTest(nnet_minus, forward_request, comp_minus, inputs, no_derivs,
                   nullptr, &out_minus);
    observed = 0.5 * (Objective(out_plus.outputs, weights) -
                      Objective(out_minus.outputs, weights));
    num_checked++;
    if (std::fabs(observed - predicted) >
        0.02 * std::max(std::fabs(observed), std::fabs(predicted)) + 1e-4) {
      num_failed++;
      ADD_FAILURE() << "parameter derivative, seed " << seed << ": predicted "
                    << predicted << " observed " << observed << "\n"
                    << config;
    }
  }
  EXPECT_EQ(num_failed, 0) << "of " << num_checked;
  EXPECT_GT(num_recurrent, 3);
}

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

TEST(Compiler, RecurrentLayerGetsOneStepPerFrame) {
  Nnet nnet = NnetFromConfigString(kRecurrentConfig);
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", 0, 5));
  request.outputs.push_back(IoSpecification("output", 0, 5));
  ComputationGraph graph;
  ComputationGraphBuilder builder(nnet, &graph);
  builder.Compute(request);
  ASSERT_TRUE(builder.AllOutputsAreComputable());
  builder.Prune();
  // Pruned: nothing before t=0 survives.
  for (const Cindex &c : graph.cindexes) EXPECT_GE(c.second.t, 0) << c;
  std::vector<std::vector<int32> > phases, steps;
  std::vector<std::pair<int32, int32> > locations;
  ComputeComputationPhases(nnet, graph, &phases);
  ComputeComputationSteps(nnet, request, phases, &graph, &steps, &locations);
  int32 r_node = nnet.GetNodeIndex("r"), final_node = nnet.GetNodeIndex("final");
  int32 num_r_steps = 0, num_final_steps = 0;
  for (size_t s = 0; s < steps.size(); s++) {
    int32 node = graph.cindexes[steps[s][0]].first;
    for (int32 c : steps[s]) EXPECT_EQ(graph.cindexes[c].first, node);
    if (node == r_node) {
      num_r_steps++;
      EXPECT_EQ(steps[s].size(), 1u);
    }
    if (node == final_node) {
      num_final_steps++;
      EXPECT_EQ(steps[s].size(), 5u);
    }
    if (nnet.IsComponentNode(node)) {
      // Rule (b): the step before holds the component's input, same rows.
      ASSERT_GT(s, 0u);
      ASSERT_EQ(steps[s - 1].size(), steps[s].size());
      for (size_t r = 0; r < steps[s].size(); r++) {
        EXPECT_EQ(graph.cindexes[steps[s - 1][r]].first, node - 1);
        EXPECT_EQ(graph.cindexes[steps[s - 1][r]].second,
                  graph.cindexes[steps[s][r]].second);
      }
    }
  }
  EXPECT_EQ(num_r_steps, 5);
  EXPECT_EQ(num_final_steps, 1);
  // Rule (a): inputs and outputs are single steps in request order.
  EXPECT_EQ(graph.cindexes[steps.front()[0]].first,
            nnet.GetNodeIndex("input"));
  for (size_t r = 0; r < 5; r++)
    EXPECT_EQ(graph.cindexes[steps.front()[r]].second,
              request.inputs[0].indexes[r]);
}

TEST(Compiler, ExplainsNonComputableOutputs) {
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "component name=a type=AffineComponent input-dim=6 output-dim=2\n"
      "component-node name=a component=a "
      "input=Append(Offset(input, -1), input, Offset(input, 2))\n"
      "output-node name=output input=a\n");
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", 0, 4));
  request.outputs.push_back(IoSpecification("output", 0, 4));
  try {
    NnetComputation computation;
    CompileComputation(nnet, request, CompilerOptions(), &computation);
    FAIL() << "expected an error";
  } catch (const UserError &e) {
    std::string msg = e.message();
    EXPECT_NE(msg.find("Not all outputs were computable"), std::string::npos)
        << msg;
    // t=0 needs input at t=-1; t=2 and t=3 need t=4 and t=5.
    EXPECT_NE(msg.find("3 of 4 requested output Indexes"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("output 'output' at (0, 0) is not computable"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("input 'input' at [ (0, -1) ]"), std::string::npos)
        << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

TEST(Compiler, RecurrenceWithoutInputsDoesNotRunAway) {
  // Only three input frames: the graph builder must stop expanding the
  // recurrence a few frames before them instead of walking to -infinity.
  Nnet nnet = NnetFromConfigString(kRecurrentConfig);
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", 100, 103));
  request.outputs.push_back(IoSpecification("output", 100, 103));
  ComputationGraph graph;
  ComputationGraphBuilder builder(nnet, &graph);
  builder.Compute(request);
  EXPECT_TRUE(builder.AllOutputsAreComputable());
  for (const Cindex &c : graph.cindexes) EXPECT_GE(c.second.t, 90) << c;
}

}  // namespace
}  // namespace nnet3
