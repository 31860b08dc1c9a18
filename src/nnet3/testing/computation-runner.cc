// nnet3/testing/computation-runner.cc
// See computation-runner.h.
#include "nnet3/testing/computation-runner.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "nnet3/compile/compiler.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/nnet/nnet-edit.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {

Nnet MakeGradientNnet(const Nnet &nnet) {
  Nnet grad(nnet);
  ScaleNnet(0.0, &grad);
  for (int32 c = 0; c < grad.NumComponents(); c++) {
    UpdatableComponent *u =
        dynamic_cast<UpdatableComponent *>(grad.GetComponent(c));
    if (u) u->SetAsGradient();
  }
  return grad;
}

void RandomOutputDerivs(const Nnet &nnet, const ComputationRequest &request,
                        RandomSource *rng,
                        std::vector<Matrix<BaseFloat> > *derivs) {
  derivs->clear();
  for (const IoSpecification &o : request.outputs) {
    if (o.has_deriv)
      derivs->push_back(RandomGaussMatrix(static_cast<int32>(o.indexes.size()),
                                          nnet.OutputDim(o.name), rng));
    else
      derivs->push_back(Matrix<BaseFloat>());
  }
}

Matrix<BaseFloat> CompiledOutputForTest(
    const Nnet &nnet, const ComputationRequest &request,
    const std::vector<Matrix<BaseFloat> > &inputs) {
  NnetComputation computation;
  CompileComputation(nnet, request, CompilerOptions(), &computation);
  ComputationResults results;
  std::vector<Matrix<BaseFloat> > no_derivs(request.outputs.size());
  RunComputationForTest(nnet, request, computation, inputs, no_derivs, nullptr,
                        &results);
  return results.outputs[0];
}

void RunComputationForTest(const Nnet &nnet, const ComputationRequest &request,
                           const NnetComputation &computation,
                           const std::vector<Matrix<BaseFloat> > &inputs,
                           const std::vector<Matrix<BaseFloat> > &output_derivs,
                           Nnet *delta, ComputationResults *results) {
  NnetComputer computer(NnetComputeOptions(), computation, nnet, delta);
  for (size_t i = 0; i < request.inputs.size(); i++) {
    CuMatrix<BaseFloat> m(inputs[i]);
    computer.AcceptInput(request.inputs[i].name, &m);
  }
  computer.Run();
  results->outputs.clear();
  results->input_derivs.clear();
  for (const IoSpecification &o : request.outputs)
    results->outputs.push_back(ToHost(computer.GetOutput(o.name)));
  bool any_output_deriv = false;
  for (size_t i = 0; i < request.outputs.size(); i++) {
    if (!request.outputs[i].has_deriv) continue;
    CuMatrix<BaseFloat> d(output_derivs[i]);
    computer.AcceptOutputDeriv(request.outputs[i].name, &d);
    any_output_deriv = true;
  }
  if (!any_output_deriv) return;
  computer.Run();
  for (const IoSpecification &in : request.inputs) {
    if (in.has_deriv)
      results->input_derivs.push_back(ToHost(computer.GetInputDeriv(in.name)));
    else
      results->input_derivs.push_back(Matrix<BaseFloat>());
  }
}

double RelativeDifference(const MatrixBase<BaseFloat> &a,
                          const MatrixBase<BaseFloat> &b) {
  NNET3_ASSERT(a.NumRows() == b.NumRows() && a.NumCols() == b.NumCols());
  double max_abs = 0.0, max_diff = 0.0;
  for (int32 i = 0; i < a.NumRows(); i++)
    for (int32 j = 0; j < a.NumCols(); j++) {
      max_abs = std::max(max_abs, std::max(std::fabs(double(a(i, j))),
                                           std::fabs(double(b(i, j)))));
      max_diff = std::max(max_diff, std::fabs(double(a(i, j)) - b(i, j)));
    }
  return max_abs == 0.0 ? 0.0 : max_diff / max_abs;
}

double ParameterDifference(const Nnet &a, const Nnet &b) {
  double ans = 0.0;
  for (int32 c = 0; c < a.NumComponents(); c++) {
    const UpdatableComponent *ua =
        dynamic_cast<const UpdatableComponent *>(a.GetComponent(c));
    const UpdatableComponent *ub =
        dynamic_cast<const UpdatableComponent *>(b.GetComponent(c));
    if (!ua || !ub) continue;
    Matrix<BaseFloat> va(1, ua->NumParameters()), vb(1, ub->NumParameters());
    SubVector<BaseFloat> ra(va, 0), rb(vb, 0);
    ua->Vectorize(&ra);
    ub->Vectorize(&rb);
    ans = std::max(ans, RelativeDifference(va, vb));
  }
  return ans;
}

ReferenceRun::ReferenceRun(const Nnet &nnet, const ComputationRequest &request,
                           const std::vector<Matrix<BaseFloat> > &inputs,
                           const std::vector<Matrix<BaseFloat> > &output_derivs,
                           const NnetComputation &reference)
    : nnet_(nnet), request_(request), inputs_(inputs),
      output_derivs_(output_derivs), delta_(MakeGradientNnet(nnet)) {
  RunComputationForTest(nnet_, request_, reference, inputs_, output_derivs_,
                        request_.need_model_derivative ? &delta_ : nullptr,
                        &results_);
}

std::string ReferenceRun::Compare(const NnetComputation &other,
                                  double tolerance) const {
  Nnet other_delta = MakeGradientNnet(nnet_);
  ComputationResults got;
  RunComputationForTest(nnet_, request_, other, inputs_, output_derivs_,
                        request_.need_model_derivative ? &other_delta
                                                       : nullptr,
                        &got);
  std::ostringstream diff;
  if (got.outputs.size() != results_.outputs.size() ||
      got.input_derivs.size() != results_.input_derivs.size())
    return "different number of outputs or input derivatives";
  for (size_t o = 0; o < results_.outputs.size(); o++) {
    double d = RelativeDifference(got.outputs[o], results_.outputs[o]);
    if (!(d <= tolerance)) {
      diff << "output " << request_.outputs[o].name << " differs by " << d;
      return diff.str();
    }
  }
  for (size_t i = 0; i < results_.input_derivs.size(); i++) {
    if (!request_.inputs[i].has_deriv) continue;
    double d = RelativeDifference(got.input_derivs[i], results_.input_derivs[i]);
    if (!(d <= tolerance)) {
      diff << "derivative of input " << request_.inputs[i].name
           << " differs by " << d;
      return diff.str();
    }
  }
  if (request_.need_model_derivative) {
    double d = ParameterDifference(other_delta, delta_);
    if (!(d <= tolerance)) {
      diff << "parameter change differs by " << d;
      return diff.str();
    }
  }
  return "";
}

}  // namespace nnet3
