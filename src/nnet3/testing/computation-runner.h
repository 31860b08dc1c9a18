// nnet3/testing/computation-runner.h
// Runs a compiled computation the way tests need it: given inputs, forward;
// then, if any output has a derivative, backward with the given output
// derivatives, collecting outputs, input derivatives and (into a gradient
// copy of the network) the parameter gradient. Shared by the compiler,
// shortcut and optimizer tests so they all compare the same things.
#ifndef NNET3_NNET3_TESTING_COMPUTATION_RUNNER_H_
#define NNET3_NNET3_TESTING_COMPUTATION_RUNNER_H_

#include <string>
#include <vector>

#include "base/random.h"
#include "nnet3/compile/computation.h"
#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

struct ComputationResults {
  std::vector<Matrix<BaseFloat> > outputs;       // one per request output
  std::vector<Matrix<BaseFloat> > input_derivs;  // one per request input
                                                 // (empty without has_deriv)
};

// A copy of 'nnet' with every updatable component zeroed and made a
// gradient (plain SGD, learning rate 1), for collecting parameter
// gradients.
Nnet MakeGradientNnet(const Nnet &nnet);

// Random Gaussian derivatives for the request's outputs that have
// has_deriv (empty matrices for the others), shaped like the outputs.
void RandomOutputDerivs(const Nnet &nnet, const ComputationRequest &request,
                        RandomSource *rng,
                        std::vector<Matrix<BaseFloat> > *derivs);

// Forward and (if derivatives are requested) backward. 'delta' receives the
// model update when the request needs the model derivative (may be nullptr
// otherwise).
void RunComputationForTest(const Nnet &nnet, const ComputationRequest &request,
                           const NnetComputation &computation,
                           const std::vector<Matrix<BaseFloat> > &inputs,
                           const std::vector<Matrix<BaseFloat> > &output_derivs,
                           Nnet *delta, ComputationResults *results);

// The first output of 'request' (forward only) on 'inputs' (one matrix per
// request input), through the computation compiled for it, unoptimized.
Matrix<BaseFloat> CompiledOutputForTest(
    const Nnet &nnet, const ComputationRequest &request,
    const std::vector<Matrix<BaseFloat> > &inputs);

// A computation's results on fixed inputs and output derivatives, against
// which other computations for the same request are compared (the
// optimizer tests: a pass must not change outputs, input derivatives or the
// parameter change).
class ReferenceRun {
 public:
  // Runs 'reference' (the references are kept: they must outlive this).
  ReferenceRun(const Nnet &nnet, const ComputationRequest &request,
               const std::vector<Matrix<BaseFloat> > &inputs,
               const std::vector<Matrix<BaseFloat> > &output_derivs,
               const NnetComputation &reference);
  // Runs 'other' on the same data; "" if every output, every input
  // derivative the request asks for and (with need_model_derivative) the
  // parameter change agree to 'tolerance' (relative), else a description
  // of the first difference.
  std::string Compare(const NnetComputation &other,
                      double tolerance = 1e-5) const;
  const ComputationResults &results() const { return results_; }
  // The parameter change of the reference (zero without a model update).
  const Nnet &delta() const { return delta_; }

 private:
  const Nnet &nnet_;
  const ComputationRequest &request_;
  const std::vector<Matrix<BaseFloat> > &inputs_;
  const std::vector<Matrix<BaseFloat> > &output_derivs_;
  ComputationResults results_;
  Nnet delta_;
};

// Largest |a - b| relative to the larger magnitude of a and b (0 if both
// are zero); a and b must have the same shape.
double RelativeDifference(const MatrixBase<BaseFloat> &a,
                          const MatrixBase<BaseFloat> &b);

// The same for the parameters of two networks of the same structure (the
// largest over updatable components).
double ParameterDifference(const Nnet &a, const Nnet &b);

}  // namespace nnet3

#endif  // NNET3_NNET3_TESTING_COMPUTATION_RUNNER_H_
