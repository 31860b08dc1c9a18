// tests/nnet3/compute/xvector-test-config.h
// The first frame layer of the x-vector test networks (input dim 5, an
// affine layer over offsets -1, 0, 2 and a ReLU named r1), shared by
// xvector-test's template and the GPU replay test's network.
#ifndef NNET3_TESTS_NNET3_COMPUTE_XVECTOR_TEST_CONFIG_H_
#define NNET3_TESTS_NNET3_COMPUTE_XVECTOR_TEST_CONFIG_H_

namespace nnet3 {
namespace test {

constexpr const char *kXvectorFirstFrameLayer =
    "input-node name=input dim=5\n"
    "component name=t1 type=AffineComponent input-dim=15 output-dim=8 "
    "bias-stddev=0.5\n"
    "component-node name=t1 component=t1 "
    "input=Append(Offset(input, -1), input, Offset(input, 2))\n"
    "component name=r1 type=RectifiedLinearComponent dim=8\n"
    "component-node name=r1 component=r1 input=t1\n";

}  // namespace test
}  // namespace nnet3

#endif  // NNET3_TESTS_NNET3_COMPUTE_XVECTOR_TEST_CONFIG_H_
