// tests/nnet3/components/component-examples.h
// One example initializer (config line) per registered component type,
// shared by the generic component test (registry-test.cc, which also
// checks that every registered type has one here) and the GPU-vs-CPU
// component test (gpu-component-test.cc). The examples are small, so that
// a test can run every type through a compiled network quickly.
#ifndef NNET3_TESTS_NNET3_COMPONENTS_COMPONENT_EXAMPLES_H_
#define NNET3_TESTS_NNET3_COMPONENTS_COMPONENT_EXAMPLES_H_

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/testing.h"

namespace nnet3 {
namespace testing {

// One example initializer per registered type.
inline const std::map<std::string, std::string> &ExampleConfigs() {
  static const std::map<std::string, std::string> configs = {
      {"AffineComponent", "input-dim=6 output-dim=4 param-stddev=0.5"},
      {"NaturalGradientAffineComponent", "input-dim=6 output-dim=4"},
      {"LinearComponent", "input-dim=6 output-dim=4"},
      {"FixedAffineComponent", "matrix=" + DataDir() +
                                   "/kaldi/models/components_a.fixed-affine.mat"},
      {"SigmoidComponent", "dim=5"},
      {"TanhComponent", "dim=5"},
      {"RectifiedLinearComponent", "dim=5"},
      {"SoftmaxComponent", "dim=5"},
      {"LogSoftmaxComponent", "dim=5"},
      {"NoOpComponent", "dim=5"},
      {"ClipGradientComponent", "dim=5"},
      {"PnormComponent", "input-dim=6 output-dim=3"},
      {"SumGroupComponent", "sizes=2:1:3"},
      {"SumBlockComponent", "input-dim=6 output-dim=3"},
      {"ElementwiseProductComponent", "input-dim=6 output-dim=3"},
      {"PermuteComponent", "column-map=2,0,1,4,3"},
      {"FixedScaleComponent", "scales=" + DataDir() +
                                  "/kaldi/models/components_b.scales.vec"},
      {"FixedBiasComponent", "bias=" + DataDir() +
                                 "/kaldi/models/components_b.bias.vec"},
      {"PerElementScaleComponent", "dim=5"},
      {"NaturalGradientPerElementScaleComponent", "dim=5"},
      {"PerElementOffsetComponent", "dim=5"},
      {"ScaleAndOffsetComponent", "dim=5"},
      {"ConstantFunctionComponent", "input-dim=4 output-dim=3"},
      {"NormalizeComponent", "dim=5"},
      {"BatchNormComponent", "dim=5"},
      {"LstmNonlinearityComponent", "cell-dim=3 param-stddev=0.5"},
      {"GruNonlinearityComponent", "cell-dim=4 recurrent-dim=2"},
      {"OutputGruNonlinearityComponent", "cell-dim=3"},
      {"BackpropTruncationComponent", "dim=5"},
      {"DropoutComponent", "dim=5 dropout-proportion=0.0"},
      {"TimeHeightConvolutionComponent",
       "num-filters-in=2 num-filters-out=3 height-in=4 height-out=4 "
       "time-offsets=-1,0,1 height-offsets=-1,0,1"},
      // Periods of 1: the generic checks ask for every t, and with a larger
      // output-period two outputs would share a block (statistics-test
      // covers periods).
      {"StatisticsExtractionComponent", "input-dim=4 include-variance=true"},
      {"StatisticsPoolingComponent",
       "input-dim=9 left-context=2 right-context=2 output-stddevs=true"},
      {"RestrictedAttentionComponent",
       "num-heads=2 key-dim=3 value-dim=4 num-left-inputs=2 "
       "num-right-inputs=1"},
      {"TdnnComponent", "input-dim=4 output-dim=3 time-offsets=-1,0,2"},
      {"BlockAffineComponent", "input-dim=6 output-dim=4 num-blocks=2"},
      {"RepeatedAffineComponent", "input-dim=6 output-dim=4 num-repeats=2"},
      {"NaturalGradientRepeatedAffineComponent",
       "input-dim=6 output-dim=4 num-repeats=2"},
      {"DistributeComponent", "input-dim=6 output-dim=3"},
      {"ConstantComponent", "output-dim=4 output-stddev=1.0"},
      {"CompositeComponent",
       "num-components=2 max-rows-process=4 "
       "component1='type=BlockAffineComponent input-dim=6 output-dim=4 "
       "num-blocks=2' component2='type=TanhComponent dim=4'"},
      {"ConvolutionComponent",
       "input-x-dim=3 input-y-dim=4 input-z-dim=2 filt-x-dim=2 filt-y-dim=2 "
       "filt-x-step=1 filt-y-step=2 num-filters=3"},
      {"MaxpoolingComponent",
       "input-x-dim=3 input-y-dim=4 input-z-dim=2 pool-x-size=2 "
       "pool-y-size=2 pool-z-size=1 pool-x-step=1 pool-y-step=2 "
       "pool-z-step=1"},
      // Random, non-simple (the masks follow the Indexes); the network
      // check reseeds them before each run. dropout-test checks the masks.
      {"GeneralDropoutComponent",
       "dim=6 block-dim=3 time-period=2 dropout-proportion=0.3"},
      {"SpecAugmentTimeMaskComponent",
       "dim=5 zeroed-proportion=0.3 time-mask-max-frames=3"},
      {"DropoutMaskComponent", "output-dim=3 dropout-proportion=0.3"},
  };
  return configs;
}

// The types with an example, in name order (test parameters).
inline std::vector<std::string> ExampleTypes() {
  std::vector<std::string> types;
  for (const auto &kv : ExampleConfigs()) types.push_back(kv.first);
  return types;
}

// A test name of a parameterized test over ExampleTypes(): the type itself.
inline std::string TypeParamName(const ::testing::TestParamInfo<std::string> &i) {
  return i.param;
}

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_NNET3_COMPONENTS_COMPONENT_EXAMPLES_H_
