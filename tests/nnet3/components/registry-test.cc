// tests/nnet3/components/registry-test.cc
// The generic component test, driven from the registry: every registered
// type must have an example config here (so a new type cannot be added
// untested), and each is initialized from it and checked for I/O round
// trips, Copy(), derivatives against finite differences, the claims of its
// property flags, and that Backprop does not read values the flags say it
// does not need. Unknown types must be refused with the list of known ones.
// Every type also goes through a compiled network (network-check.h): finite
// differences through the framework, optimizer and shortcut unchanged; this
// is the generic check of non-simple components, whose rows in and out
// differ and which the row-for-row checks above do not apply to.
#include <gtest/gtest.h>

#include <map>

#include "common/testing.h"
#include "component-examples.h"
#include "component-test-util.h"
#include "network-check.h"

namespace nnet3 {
namespace testing {
namespace {

std::unique_ptr<Component> Make(const std::string &type) {
  std::unique_ptr<Component> c(Component::NewComponentOfType(type));
  EXPECT_TRUE(c != nullptr) << type;
  if (!c) return c;
  ConfigLine cfl;
  std::string line = ExampleConfigs().at(type);
  EXPECT_TRUE(cfl.ParseLine(line)) << line;
  c->InitFromConfig(&cfl);
  EXPECT_FALSE(cfl.HasUnusedValues()) << type << ": " << cfl.UnusedValues();
  return c;
}

TEST(Registry, EveryRegisteredTypeHasAnExampleConfig) {
  for (const std::string &type : ComponentRegistry::Get().Types())
    EXPECT_TRUE(ExampleConfigs().count(type))
        << "registered type " << type << " has no example in component-examples.h";
}

TEST(Registry, UnknownTypeIsRefusedWithTheKnownOnes) {
  EXPECT_EQ(Component::NewComponentOfType("NoSuchComponent"), nullptr);
  std::istringstream is("<NoSuchComponent> <Dim> 3 </NoSuchComponent>");
  try {
    delete Component::ReadNew(is, false);
    FAIL() << "unknown type accepted";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("NoSuchComponent"), std::string::npos);
    EXPECT_NE(e.message().find("AffineComponent"), std::string::npos);
  }
}

// A NaN in a numeric option is refused with one line naming the type,
// like a negative value: "x < 0" lets NaN through, and some of these reach
// assertions (the natural-gradient setters) or fill the parameters with
// NaN. The TimeHeightConvolutionComponent case was found by the
// nnet-config fuzz target.
TEST(Registry, ANaNOptionIsAConfigError) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"AffineComponent", "param-stddev=nan"},
      {"AffineComponent", "bias-stddev=nan"},
      {"AffineComponent", "learning-rate=nan"},
      {"AffineComponent", "max-change=nan"},
      {"AffineComponent", "l2-regularize=nan"},
      {"NaturalGradientAffineComponent", "alpha=nan"},
      {"NaturalGradientAffineComponent", "num-samples-history=nan"},
      {"LinearComponent", "alpha=nan"},
      {"ClipGradientComponent", "clipping-threshold=nan"},
      {"ClipGradientComponent", "self-repair-scale=nan"},
      {"PerElementScaleComponent", "param-stddev=nan"},
      {"NaturalGradientPerElementScaleComponent", "alpha=nan"},
      {"NaturalGradientPerElementScaleComponent", "num-samples-history=nan"},
      {"DropoutComponent", "dropout-proportion=nan"},
      {"TimeHeightConvolutionComponent", "alpha-out=nan"},
      {"TimeHeightConvolutionComponent", "param-stddev=nan"},
      {"TdnnComponent", "alpha-in=nan"},
      {"TdnnComponent", "bias-stddev=nan"},
      {"RepeatedAffineComponent", "param-stddev=nan"},
      {"GruNonlinearityComponent", "alpha=nan"},
      {"GeneralDropoutComponent", "dropout-proportion=nan"},
  };
  for (const auto &c : cases) {
    // The option replaces the example's value for that key, if it has one.
    std::string line = ExampleConfigs().at(c.first);
    const std::string key = c.second.substr(0, c.second.find('=') + 1);
    size_t pos = line.find(key);
    if (pos != std::string::npos && (pos == 0 || line[pos - 1] == ' '))
      line.erase(pos, line.find(' ', pos) == std::string::npos
                          ? std::string::npos
                          : line.find(' ', pos) + 1 - pos);
    line += " " + c.second;
    std::string e = ConfigError(c.first, line);
    EXPECT_FALSE(e.empty()) << c.first << " accepted " << c.second;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

class EachComponent : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string &type = GetParam();
    std::vector<std::string> types = ComponentRegistry::Get().Types();
    if (std::find(types.begin(), types.end(), type) == types.end())
      GTEST_SKIP() << type << " is not registered yet";
    c_ = Make(type);
    ASSERT_TRUE(c_ != nullptr);
    ASSERT_EQ(c_->Type(), type);
  }
  std::unique_ptr<Component> c_;
};

TEST_P(EachComponent, IoRoundTripAndCopy) {
  const std::string type = GetParam();
  CheckIoRoundTrip(*c_, [type]() { return Component::NewComponentOfType(type); });
  std::unique_ptr<Component> copy(c_->Copy());
  EXPECT_EQ(WriteToString(*copy, true), WriteToString(*c_, true));
  // ReadNew (the path the Nnet uses) gives the same component.
  std::istringstream is(WriteToString(*c_, true));
  std::unique_ptr<Component> back(Component::ReadNew(is, true));
  EXPECT_EQ(WriteToString(*back, false), WriteToString(*c_, false));
}

// SquaredNorm (which the trainer's max-change reads for all components at
// once) is DotProduct with itself, to the bit.
TEST_P(EachComponent, SquaredNormIsTheDotProductWithItself) {
  UpdatableComponent *uc = dynamic_cast<UpdatableComponent *>(c_.get());
  if (uc == nullptr) GTEST_SKIP() << "not updatable";
  uc->PerturbParams(0.5);  // nonzero parameters also where they start at 0
  CuVector<BaseFloat> norm(3);
  CuSubVector<BaseFloat> slot(norm, 1, 1);
  uc->SquaredNorm(&slot);
  const Vector<BaseFloat> got = norm.Download();
  EXPECT_EQ(got(1), uc->DotProduct(*uc)) << GetParam();
  EXPECT_GT(got(1), 0.0f) << GetParam();
  EXPECT_EQ(got(0), 0.0f);  // nothing written beside the slot
  EXPECT_EQ(got(2), 0.0f);
}

// Types whose output has kinks almost everywhere (finite differences do
// not apply through the network; each has its own test against a naive
// implementation).
bool IsNonSmooth(const std::string &type) {
  return type == "RectifiedLinearComponent" || type == "MaxpoolingComponent" ||
         type == "PnormComponent";
}

// Types whose Backprop is by design not the full derivative: statistics
// pooling passes nothing back to the count column (as Kaldi); with the
// random inputs used here the counts are arbitrary, so finite differences
// through that column do not match. statistics-test checks the other
// columns with consistent counts.
bool BackpropIsPartial(const std::string &type) {
  return type == "StatisticsPoolingComponent";
}

TEST_P(EachComponent, ChecksThroughACompiledNetwork) {
  CheckComponentInNetwork(GetParam(), ExampleConfigs().at(GetParam()),
                          !IsNonSmooth(GetParam()) &&
                              !BackpropIsPartial(GetParam()));
}

// The row-for-row checks: only for simple components (one output row per
// input row); ChecksThroughACompiledNetwork covers the others.
class EachSimpleComponent : public EachComponent {};

TEST_P(EachSimpleComponent, DerivativesMatchFiniteDifferences) {
  // A kink at 0: random inputs straddle it within the finite-difference
  // step. nonlinear-test checks it with inputs kept away from 0.
  if (GetParam() == "RectifiedLinearComponent")
    GTEST_SKIP() << "non-smooth at 0; checked in nonlinear-test";
  RandomSource rs(17);
  CheckDerivatives(*c_, 7, &rs, 5e-3);
}

TEST_P(EachSimpleComponent, PropertyFlagsHold) {
  RandomSource rs(23);
  CheckPropertyFlags(*c_, 6, &rs);
}

TEST_P(EachSimpleComponent, BackpropReadsOnlyWhatItDeclares) {
  // With the values it does not declare as needed replaced by empty
  // matrices, Backprop must give the same input derivative.
  RandomSource rs(5);
  int32 props = c_->Properties();
  CuMatrix<BaseFloat> in = RandMat(5, c_->InputDim(), &rs);
  CuMatrix<BaseFloat> out = NewMat(5, c_->OutputDim());
  void *memo = c_->Propagate(nullptr, in, &out);
  CuMatrix<BaseFloat> out_deriv = RandMat(5, c_->OutputDim(), &rs);
  CuMatrix<BaseFloat> d1 = NewMat(5, c_->InputDim()),
                      d2 = NewMat(5, c_->InputDim());
  CuMatrix<BaseFloat> empty;
  c_->Backprop("test", nullptr, in, out, out_deriv, memo, nullptr, &d1);
  c_->Backprop("test", nullptr,
               (props & kBackpropNeedsInput) ? in : empty,
               (props & kBackpropNeedsOutput) ? out : empty, out_deriv, memo,
               nullptr, &d2);
  c_->DeleteMemo(memo);
  EXPECT_TRUE(d1.Equal(d2)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Registry, EachComponent,
                         ::testing::ValuesIn(ExampleTypes()), TypeParamName);

std::vector<std::string> SimpleTypes() {
  std::vector<std::string> types;
  for (const auto &kv : ExampleConfigs()) {
    std::unique_ptr<Component> c(Component::NewComponentOfType(kv.first));
    if (c == nullptr) continue;
    ConfigLine cfl;
    if (!cfl.ParseLine(kv.second)) continue;
    c->InitFromConfig(&cfl);
    if (c->Properties() & kSimpleComponent) types.push_back(kv.first);
  }
  return types;
}

INSTANTIATE_TEST_SUITE_P(Registry, EachSimpleComponent,
                         ::testing::ValuesIn(SimpleTypes()), TypeParamName);

}  // namespace
}  // namespace testing
}  // namespace nnet3
