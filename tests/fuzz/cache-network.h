// tests/fuzz/cache-network.h
// The fixed network and requests of the computation-cache fuzz target,
// shared with make-cache-seeds.cc, which writes the seed caches for them.
// The network splices its input, has a recurrence-free mix of component
// types (affine, ReLU, batch-norm-free normalize, log-softmax) and context
// 2 on each side; the requests are a forward pass on one sequence and a
// forward-backward pass (input and model derivatives) on three.
#ifndef NNET3_TESTS_FUZZ_CACHE_NETWORK_H_
#define NNET3_TESTS_FUZZ_CACHE_NETWORK_H_

#include <sstream>
#include <string>
#include <vector>

#include "common/context-request.h"
#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {
namespace fuzz {

inline Nnet CacheNetwork() {
  const char *config =
      "input-node name=input dim=3\n"
      "component name=affine1 type=AffineComponent input-dim=9 "
      "output-dim=4\n"
      "component-node name=affine1 component=affine1 "
      "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
      "component name=relu type=RectifiedLinearComponent dim=4\n"
      "component-node name=relu component=relu input=affine1\n"
      "component name=norm type=NormalizeComponent dim=4\n"
      "component-node name=norm component=norm input=relu\n"
      "component name=affine2 type=AffineComponent input-dim=8 "
      "output-dim=2\n"
      "component-node name=affine2 component=affine2 "
      "input=Append(Offset(norm, -1), Offset(norm, 1))\n"
      "component name=logsoftmax type=LogSoftmaxComponent dim=2\n"
      "component-node name=logsoftmax component=logsoftmax input=affine2\n"
      "output-node name=output input=logsoftmax\n";
  std::istringstream is(config);
  Nnet nnet;
  nnet.ReadConfig(is, "cache-network");
  return nnet;
}

// Outputs t in [0, num_frames) for num_n sequences, inputs with the
// network's context of 2 on each side.
inline ComputationRequest CacheRequest(int32 num_frames, int32 num_n,
                                       bool backprop) {
  return testing::ContextRequest(num_frames, num_n, 2, backprop, backprop);
}

inline std::vector<ComputationRequest> CacheRequests() {
  return {CacheRequest(5, 1, false), CacheRequest(4, 3, true)};
}

}  // namespace fuzz
}  // namespace nnet3

#endif  // NNET3_TESTS_FUZZ_CACHE_NETWORK_H_
