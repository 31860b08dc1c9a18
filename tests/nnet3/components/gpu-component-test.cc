// tests/nnet3/components/gpu-component-test.cc
// Every registered component type on the GPU against the same type on the
// CPU (the oracle), through a compiled network "input -> component ->
// output" built from its example config (component-examples.h): the
// forward pass, the backward pass (input derivative), the parameter
// gradient (a gradient network, plain SGD) and, for updatable types, three
// training updates into a network that is not a gradient (so natural
// gradient preconditions them, and its state carries from call to call).
// The network, inputs and output derivatives are the same on both
// backends, and random components are reseeded before each run (their
// masks are drawn on the host, so both backends get the same ones).
// Without a GPU every case skips with one line.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "component-examples.h"
#include "cudamatrix/cu-backend.h"
#include "cudamatrix/gpu-backend-test-util.h"
#include "network-check.h"
#include "nnet3/nnet/nnet-edit.h"

namespace nnet3 {
namespace testing {
namespace {

// What one backend computed.
struct BackendRun {
  ComputationResults results;
  std::unique_ptr<Nnet> gradient, trained;  // on the host
};

// 'nnet' read into the memory of the given backend (a written and read
// copy: Cu objects do not copy across places).
std::unique_ptr<Nnet> CopyTo(bool device, const Nnet &nnet) {
  std::ostringstream written;
  nnet.Write(written, true);
  cu_backend::Scope place(device);
  std::istringstream read_back(written.str());
  std::unique_ptr<Nnet> ans(new Nnet());
  ans->Read(read_back, true);
  return ans;
}

BackendRun RunOn(bool device, const Nnet &host_nnet,
                 const ComputationRequest &request,
                 const NnetComputation &computation,
                 const Matrix<BaseFloat> &input,
                 const Matrix<BaseFloat> &output_deriv) {
  std::unique_ptr<Nnet> nnet_ptr = CopyTo(device, host_nnet);
  Nnet &nnet = *nnet_ptr;
  cu_backend::Scope place(device);
  BackendRun run;
  std::vector<Matrix<BaseFloat> > inputs(1, input), derivs(1, output_deriv);
  Nnet gradient = MakeGradientNnet(nnet);
  ReseedRandom(&nnet);
  RunComputationForTest(nnet, request, computation, inputs, derivs,
                        request.need_model_derivative ? &gradient : nullptr,
                        &run.results);
  run.gradient = CopyTo(false, gradient);
  if (request.need_model_derivative) {
    // Training updates: a zeroed copy that keeps its learning rate and
    // preconditioners, updated three times.
    Nnet trained(nnet);
    ScaleNnet(0.0, &trained);
    for (int32 step = 0; step < 3; step++) {
      ComputationResults unused;
      ReseedRandom(&nnet);
      RunComputationForTest(nnet, request, computation, inputs, derivs,
                            &trained, &unused);
    }
    run.trained = CopyTo(false, trained);
  }
  return run;
}

class EachComponentOnGpu : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string &why = test::GpuBackendUnavailable();
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(EachComponentOnGpu, MatchesTheCpu) {
  const std::string type = GetParam(), line = ExampleConfigs().at(type);
  std::unique_ptr<Component> proto(Component::NewComponentOfType(type));
  ASSERT_TRUE(proto != nullptr) << type;
  {
    ConfigLine cfl;
    ASSERT_TRUE(cfl.ParseLine(line));
    proto->InitFromConfig(&cfl);
  }
  std::unique_ptr<Nnet> nnet;
  {
    cu_backend::Scope host(false);
    nnet.reset(new Nnet(ComponentNetwork(type, line, proto->InputDim())));
  }
  const int32 num_n = 2;
  std::vector<Index> outputs = ComputableOutputs(*nnet->GetComponent(0), num_n);
  ASSERT_FALSE(outputs.empty()) << type;
  ComputationRequest request = NetworkRequest(*nnet, outputs, num_n, true);
  CompilerOptions copts;
  NnetComputation computation;
  CompileComputation(*nnet, request, copts, &computation);

  RandomSource rng(11);
  Matrix<BaseFloat> input(static_cast<int32>(request.inputs[0].indexes.size()),
                          nnet->GetComponent(0)->InputDim());
  input.SetRandn(&rng);
  Matrix<BaseFloat> output_deriv(static_cast<int32>(outputs.size()),
                                 nnet->GetComponent(0)->OutputDim());
  output_deriv.SetRandn(&rng);

  BackendRun cpu = RunOn(false, *nnet, request, computation, input,
                         output_deriv),
             gpu = RunOn(true, *nnet, request, computation, input,
                         output_deriv);
  // Float sums in other orders: differences relative to the largest
  // element. Training goes through the natural gradient's eigenvalue
  // problem (on values computed on each backend), hence its looser bound.
  EXPECT_LE(RelativeDifference(gpu.results.outputs[0], cpu.results.outputs[0]),
            1e-4)
      << type << ": output";
  ASSERT_EQ(gpu.results.input_derivs.size(), cpu.results.input_derivs.size());
  EXPECT_LE(RelativeDifference(gpu.results.input_derivs[0],
                               cpu.results.input_derivs[0]),
            1e-4)
      << type << ": input derivative";
  if (request.need_model_derivative) {
    EXPECT_LE(ParameterDifference(*gpu.gradient, *cpu.gradient), 1e-4)
        << type << ": parameter gradient";
    EXPECT_LE(ParameterDifference(*gpu.trained, *cpu.trained), 1e-3)
        << type << ": three training updates";
    // Where the gradient is not zero, the updates moved the parameters (so
    // the comparison above is not of zeros).
    Nnet zero(*nnet);
    ScaleNnet(0.0, &zero);
    if (ParameterDifference(*cpu.gradient, zero) > 0.0) {
      EXPECT_GT(ParameterDifference(*cpu.trained, zero), 0.0) << type;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Gpu, EachComponentOnGpu,
                         ::testing::ValuesIn(ExampleTypes()), TypeParamName);

}  // namespace
}  // namespace testing
}  // namespace nnet3
