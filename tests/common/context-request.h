// tests/common/context-request.h
// A ComputationRequest for a network with input "input" and output
// "output": outputs at t in [0, num_frames) for num_n sequences (n varying
// fastest), inputs widened by 'context' frames on each side. Header-only and
// free of GoogleTest, so that both the unit tests and the fuzz targets
// (tests/fuzz) build their requests with it.
#ifndef NNET3_TESTS_COMMON_CONTEXT_REQUEST_H_
#define NNET3_TESTS_COMMON_CONTEXT_REQUEST_H_

#include "nnet3/compile/request.h"

namespace nnet3 {
namespace testing {

// backprop: an output derivative and the model derivative; input_deriv:
// also the derivative with respect to the input.
inline ComputationRequest ContextRequest(int32 num_frames, int32 num_n,
                                         int32 context, bool backprop,
                                         bool input_deriv) {
  ComputationRequest request;
  IoSpecification input, output;
  input.name = "input";
  output.name = "output";
  for (int32 t = -context; t < num_frames + context; t++)
    for (int32 n = 0; n < num_n; n++) input.indexes.push_back(Index(n, t));
  for (int32 t = 0; t < num_frames; t++)
    for (int32 n = 0; n < num_n; n++) output.indexes.push_back(Index(n, t));
  input.has_deriv = input_deriv;
  output.has_deriv = backprop;
  request.need_model_derivative = backprop;
  request.inputs.push_back(input);
  request.outputs.push_back(output);
  return request;
}

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_COMMON_CONTEXT_REQUEST_H_
