// tests/nnet3/components/network-check.h
// The generic component checks that go through the whole framework, so that
// they apply to non-simple components too (statistics pooling, TDNN,
// convolution, attention, distribute, ...), whose output rows are not the
// input rows: a network "input -> component -> output" is built from the
// component's example config, the outputs the component can compute from a
// window of inputs are requested for two sequences, and the compiled
// computation is checked against oracles that do not use the component's
// Backprop: central finite differences of a random linear objective in
// random directions (input and, for updatable types, parameters). Then the
// optimized computation and the shortcut-compiled one (three sequences,
// expanded from a two-sequence computation, which recomputes precomputed
// indexes) must give the unoptimized computation's results.
// Random components are reseeded before every run so that each run draws
// the same numbers.
#ifndef NNET3_TESTS_NNET3_COMPONENTS_NETWORK_CHECK_H_
#define NNET3_TESTS_NNET3_COMPONENTS_NETWORK_CHECK_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "nnet3/compile/compiler.h"
#include "nnet3/compile/shortcut.h"
#include "nnet3/components/component.h"
#include "nnet3/nnet/nnet.h"
#include "nnet3/optimize/optimize.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace testing {

// The input Indexes offered to the component: t in [kNetFirstT, kNetEndT)
// for each sequence.
const int32 kNetFirstT = -24, kNetEndT = 36;

class InputWindow : public IndexSet {
 public:
  explicit InputWindow(int32 num_n) : num_n_(num_n) {}
  bool operator()(const Index &index) const override {
    return index.n >= 0 && index.n < num_n_ && index.x == 0 &&
           index.t >= kNetFirstT && index.t < kNetEndT;
  }

 private:
  int32 num_n_;
};

// "input -> component -> output" for a registered type and its config.
inline Nnet ComponentNetwork(const std::string &type, const std::string &line,
                             int32 input_dim) {
  std::string config =
      "input-node name=input dim=" + std::to_string(input_dim) + "\n" +
      "component name=c type=" + type + " " + line + "\n" +
      "component-node name=c component=c input=input\n"
      "output-node name=output input=c objective=linear\n";
  return NnetFromConfigString(config);
}

// Outputs t in [0, 12) (x = 0) that the component can compute from the
// input window, for num_n sequences, in Kaldi's (t, x, n) order.
inline std::vector<Index> ComputableOutputs(const Component &c, int32 num_n) {
  std::vector<Index> ans;
  InputWindow window(num_n);
  MiscComputationInfo misc;
  for (int32 t = 0; t < 12; t++) {
    for (int32 n = 0; n < num_n; n++) {
      Index index(n, t, 0);
      if (c.IsComputable(misc, index, window, nullptr)) ans.push_back(index);
    }
  }
  return ans;
}

inline ComputationRequest NetworkRequest(const Nnet &nnet,
                                         const std::vector<Index> &outputs,
                                         int32 num_n, bool derivs) {
  ComputationRequest request;
  std::vector<Index> inputs;
  for (int32 t = kNetFirstT; t < kNetEndT; t++)
    for (int32 n = 0; n < num_n; n++) inputs.push_back(Index(n, t, 0));
  request.inputs.push_back(IoSpecification("input", inputs, derivs));
  request.outputs.push_back(IoSpecification("output", outputs, derivs));
  const Component *c = nnet.GetComponent(0);
  request.need_model_derivative =
      derivs && (c->Properties() & kUpdatableComponent) != 0;
  return request;
}

inline void ReseedRandom(Nnet *nnet) {
  RandomComponent *r = dynamic_cast<RandomComponent *>(nnet->GetComponent(0));
  if (r != nullptr) r->ResetGenerator(12345);
}

// sum(out .* weights) of a forward run.
inline double LinearObjective(Nnet *nnet, const ComputationRequest &request,
                              const NnetComputation &computation,
                              const Matrix<BaseFloat> &input,
                              const Matrix<BaseFloat> &weights) {
  ReseedRandom(nnet);
  ComputationResults results;
  std::vector<Matrix<BaseFloat> > inputs(1, input), no_derivs(1);
  RunComputationForTest(*nnet, request, computation, inputs, no_derivs,
                        nullptr, &results);
  double ans = 0.0;
  const Matrix<BaseFloat> &out = results.outputs[0];
  for (int32 i = 0; i < out.NumRows(); i++)
    for (int32 j = 0; j < out.NumCols(); j++)
      ans += static_cast<double>(out(i, j)) * weights(i, j);
  return ans;
}

inline double Dot(const Matrix<BaseFloat> &a, const Matrix<BaseFloat> &b) {
  double ans = 0.0;
  for (int32 i = 0; i < a.NumRows(); i++)
    for (int32 j = 0; j < a.NumCols(); j++)
      ans += static_cast<double>(a(i, j)) * b(i, j);
  return ans;
}

// Runs every check on one type; smooth=false skips the finite differences
// (for components with kinks everywhere, e.g. max-pooling).
inline void CheckComponentInNetwork(const std::string &type,
                                    const std::string &line, bool smooth) {
  std::unique_ptr<Component> proto(Component::NewComponentOfType(type));
  ASSERT_TRUE(proto != nullptr);
  {
    ConfigLine cfl;
    ASSERT_TRUE(cfl.ParseLine(line));
    proto->InitFromConfig(&cfl);
  }
  Nnet nnet = ComponentNetwork(type, line, proto->InputDim());
  const int32 num_n = 2;
  std::vector<Index> outputs = ComputableOutputs(*nnet.GetComponent(0), num_n);
  ASSERT_FALSE(outputs.empty())
      << type << ": no output in t=[0,12) is computable from inputs "
      << "t=[" << kNetFirstT << "," << kNetEndT << ")";
  ComputationRequest request = NetworkRequest(nnet, outputs, num_n, true),
                     fwd_request = NetworkRequest(nnet, outputs, num_n, false);
  CompilerOptions copts;
  copts.output_debug_info = true;
  NnetComputation computation, fwd_computation;
  ASSERT_NO_THROW(CompileComputation(nnet, request, copts, &computation))
      << type;
  ASSERT_NO_THROW(
      CompileComputation(nnet, fwd_request, copts, &fwd_computation))
      << type;

  RandomSource rng(7);
  int32 num_inputs = static_cast<int32>(request.inputs[0].indexes.size());
  Matrix<BaseFloat> input(num_inputs, nnet.GetComponent(0)->InputDim());
  for (int32 i = 0; i < input.NumRows(); i++)
    for (int32 j = 0; j < input.NumCols(); j++) input(i, j) = rng.Gauss();
  Matrix<BaseFloat> weights(static_cast<int32>(outputs.size()),
                            nnet.GetComponent(0)->OutputDim());
  for (int32 i = 0; i < weights.NumRows(); i++)
    for (int32 j = 0; j < weights.NumCols(); j++)
      weights(i, j) = rng.Gauss();

  // Analytic derivatives.
  Nnet delta = MakeGradientNnet(nnet);
  ComputationResults results;
  std::vector<Matrix<BaseFloat> > inputs(1, input), derivs(1, weights);
  ReseedRandom(&nnet);
  RunComputationForTest(nnet, request, computation, inputs, derivs, &delta,
                        &results);
  ASSERT_EQ(results.outputs[0].NumRows(), static_cast<int32>(outputs.size()));

  if (smooth) {
    const double eps = 1e-3;
    for (int32 trial = 0; trial < 3; trial++) {
      Matrix<BaseFloat> dir(input.NumRows(), input.NumCols());
      for (int32 i = 0; i < dir.NumRows(); i++)
        for (int32 j = 0; j < dir.NumCols(); j++) dir(i, j) = rng.Gauss();
      Matrix<BaseFloat> plus(input), minus(input);
      plus.AddMat(eps, dir);
      minus.AddMat(-eps, dir);
      double numeric =
          (LinearObjective(&nnet, fwd_request, fwd_computation, plus, weights) -
           LinearObjective(&nnet, fwd_request, fwd_computation, minus,
                           weights)) / (2 * eps);
      double analytic = Dot(results.input_derivs[0], dir);
      EXPECT_NEAR(numeric, analytic,
                  0.02 * std::max(std::fabs(analytic), 1.0))
          << type << ": input derivative, direction " << trial;
    }
    const UpdatableComponent *uc =
        dynamic_cast<const UpdatableComponent *>(nnet.GetComponent(0));
    if (uc != nullptr && uc->NumParameters() > 0 && request.need_model_derivative) {
      int32 np = uc->NumParameters();
      Vector<BaseFloat> params(np), grad(np);
      uc->Vectorize(&params);
      dynamic_cast<const UpdatableComponent *>(delta.GetComponent(0))
          ->Vectorize(&grad);
      for (int32 trial = 0; trial < 3; trial++) {
        Vector<BaseFloat> dir(np);
        for (int32 i = 0; i < np; i++) dir(i) = rng.Gauss();
        double numeric = 0.0;
        for (int32 sign = -1; sign <= 1; sign += 2) {
          Nnet perturbed(nnet);
          Vector<BaseFloat> p(params);
          p.AddVec(sign * eps, dir);
          dynamic_cast<UpdatableComponent *>(perturbed.GetComponent(0))
              ->UnVectorize(p);
          numeric += sign * LinearObjective(&perturbed, fwd_request,
                                            fwd_computation, input, weights);
        }
        numeric /= 2 * eps;
        double analytic = 0.0;
        for (int32 i = 0; i < np; i++)
          analytic += static_cast<double>(grad(i)) * dir(i);
        EXPECT_NEAR(numeric, analytic,
                    0.02 * std::max(std::fabs(analytic), 1.0))
            << type << ": parameter derivative, direction " << trial;
      }
    }
  }

  // For the comparisons below a random component is put in test mode:
  // the expanded computation draws its numbers in another order.
  if (RandomComponent *r =
          dynamic_cast<RandomComponent *>(nnet.GetComponent(0)))
    r->SetTestMode(true);

  // The optimizer must not change anything.
  {
    ReseedRandom(&nnet);
    ReferenceRun reference(nnet, request, inputs, derivs, computation);
    NnetComputation optimized(computation);
    NnetOptimizeOptions oopts;
    int32 max_t = outputs.back().t;
    for (const Index &i : outputs) max_t = std::max(max_t, i.t);
    ASSERT_NO_THROW(Optimize(oopts, nnet, max_t, &optimized)) << type;
    ReseedRandom(&nnet);
    EXPECT_EQ(reference.Compare(optimized, 1e-4), "") << type << " (optimized)";
  }

  // Shortcut compilation: a two-sequence computation expanded to three
  // must equal the directly compiled three-sequence one.
  {
    const int32 big_n = 3;
    std::vector<Index> big_outputs =
        ComputableOutputs(*nnet.GetComponent(0), big_n);
    ComputationRequest big = NetworkRequest(nnet, big_outputs, big_n, true);
    ComputationRequest mini;
    int32 num_n_values = 0;
    ASSERT_TRUE(RequestIsDecomposable(big, &mini, &num_n_values)) << type;
    NnetComputation direct, mini_computation, expanded;
    ASSERT_NO_THROW(CompileComputation(nnet, big, copts, &direct));
    ASSERT_NO_THROW(CompileComputation(nnet, mini, copts, &mini_computation));
    ASSERT_TRUE(TryExpandComputation(nnet, mini.misc_info, mini_computation,
                                     true, num_n_values, &expanded))
        << type << ": the shortcut could not expand the computation";
    int32 rows = static_cast<int32>(big.inputs[0].indexes.size());
    Matrix<BaseFloat> big_input(rows, input.NumCols());
    for (int32 i = 0; i < rows; i++)
      for (int32 j = 0; j < input.NumCols(); j++)
        big_input(i, j) = rng.Gauss();
    Matrix<BaseFloat> big_weights(static_cast<int32>(big_outputs.size()),
                                  weights.NumCols());
    for (int32 i = 0; i < big_weights.NumRows(); i++)
      for (int32 j = 0; j < big_weights.NumCols(); j++)
        big_weights(i, j) = rng.Gauss();
    std::vector<Matrix<BaseFloat> > big_inputs(1, big_input),
        big_derivs(1, big_weights);
    ReseedRandom(&nnet);
    ReferenceRun reference(nnet, big, big_inputs, big_derivs, direct);
    ReseedRandom(&nnet);
    EXPECT_EQ(reference.Compare(expanded, 1e-4), "") << type << " (shortcut)";
  }
}

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_NNET3_COMPONENTS_NETWORK_CHECK_H_
