// tests/nnet3/compile/request-test.cc: ComputationRequest equality,
// hashing, lookups, printing and duplicate-name checks.
#include <gtest/gtest.h>

#include <sstream>
#include <unordered_set>

#include "nnet3/compile/request.h"

namespace nnet3 {
namespace {

ComputationRequest Example() {
  ComputationRequest r;
  r.inputs.push_back(IoSpecification("input", -2, 8));
  r.inputs.push_back(IoSpecification("ivector", {Index(0, 0)}));
  r.outputs.push_back(IoSpecification("output", 0, 6));
  return r;
}

TEST(ComputationRequest, EqualityHashingAndLookup) {
  ComputationRequest a = Example(), b = Example();
  EXPECT_TRUE(a == b);
  EXPECT_EQ(ComputationRequestHasher()(a), ComputationRequestHasher()(b));
  b.outputs[0].has_deriv = true;
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(b.NeedDerivatives());
  EXPECT_FALSE(a.NeedDerivatives());
  ComputationRequest c = Example();
  c.inputs[0].indexes.back().t = 100;
  EXPECT_FALSE(a == c);
  EXPECT_NE(ComputationRequestHasher()(a), ComputationRequestHasher()(c));
  std::unordered_set<ComputationRequest, ComputationRequestHasher> set = {a, b, c};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(a.IndexForInput("ivector"), 1);
  EXPECT_EQ(a.IndexForInput("output"), -1);
  EXPECT_EQ(a.IndexForOutput("output"), 0);
}

TEST(ComputationRequest, PrintAndCheck) {
  ComputationRequest a = Example();
  a.need_model_derivative = true;
  std::ostringstream os;
  a.Print(os);
  EXPECT_EQ(os.str(),
            " # Computation request:\n"
            "input-0: name=input, has-deriv=false, indexes=[ (0, -2:7) ]\n"
            "input-1: name=ivector, has-deriv=false, indexes=[ (0, 0) ]\n"
            "output-0: name=output, has-deriv=false, indexes=[ (0, 0:5) ]\n"
            "need-model-derivative: true\n"
            "store-component-stats: false\n");
  a.Check();
  a.inputs.push_back(IoSpecification("input", 0, 1));
  EXPECT_THROW(a.Check(), UserError);
}

}  // namespace
}  // namespace nnet3
