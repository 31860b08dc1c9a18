// tests/nnet3/compile/request-test.cc: ComputationRequest equality,
// hashing, lookups, printing and duplicate-name checks, and Kaldi-format
// Read/Write (round trips and one hand-derived binary layout).
#include <gtest/gtest.h>

#include <sstream>
#include <unordered_set>

#include "base/io.h"
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

TEST(ComputationRequest, ReadWriteRoundTrip) {
  ComputationRequest a = Example();
  a.inputs[0].has_deriv = true;
  a.inputs[1].indexes = {Index(0, 0), Index(1, 0), Index(2, 7, 3),
                         Index(-1, -300, 0)};
  a.outputs[0].has_deriv = true;
  a.need_model_derivative = true;
  a.store_component_stats = true;
  for (bool binary : {true, false}) {
    std::ostringstream os;
    a.Write(os, binary);
    std::istringstream is(os.str());
    ComputationRequest b;
    b.Read(is, binary);
    EXPECT_TRUE(a == b) << "binary=" << binary;
    EXPECT_EQ(b.inputs[1].indexes, a.inputs[1].indexes);
    // Writing what was read gives the same bytes.
    std::ostringstream os2;
    b.Write(os2, binary);
    EXPECT_EQ(os.str(), os2.str());
    EXPECT_EQ(Peek(is, binary), -1) << "trailing data, binary=" << binary;
  }
  // An empty request too.
  ComputationRequest empty, back;
  back = a;
  std::ostringstream os;
  empty.Write(os, true);
  std::istringstream is(os.str());
  back.Read(is, true);
  EXPECT_TRUE(back == empty);
}

TEST(ComputationRequest, BinaryLayoutMatchesKaldi) {
  ComputationRequest r;
  r.inputs.push_back(IoSpecification("in", 0, 2));
  r.outputs.push_back(IoSpecification("out", {Index(0, 0)}, true));
  std::ostringstream os;
  r.Write(os, true);
  // Counts are size_t: size byte -8 (0xF8) then 8 little-endian bytes;
  // the Index vector is "<I1V> ", int32 count (size byte 4), then one byte
  // per Index (t, then t steps); bools are 'T'/'F' with no space.
  const std::string size_t_one("\xF8\x01\0\0\0\0\0\0\0", 9);
  const std::string size_t_two("\xF8\x02\0\0\0\0\0\0\0", 9);
  std::string want =
      "<ComputationRequest> <NumInputs> " + size_t_one + "<Inputs> " +
      "<IoSpecification> in <NumIndexes> " + size_t_two + "<Indexes> " +
      "<I1V> " + std::string("\x04\x02\0\0\0\x00\x01", 7) +
      "<HasDeriv> F</IoSpecification> " +
      "<NumOutputs> " + size_t_one + "<Outputs> " +
      "<IoSpecification> out <NumIndexes> " + size_t_one + "<Indexes> " +
      "<I1V> " + std::string("\x04\x01\0\0\0\x00", 6) +
      "<HasDeriv> T</IoSpecification> " +
      "<NeedModelDerivative> F<StoreComponentStats> F</ComputationRequest> ";
  EXPECT_EQ(os.str(), want);
}

TEST(ComputationRequest, TextLayoutMatchesKaldi) {
  ComputationRequest r;
  r.outputs.push_back(IoSpecification("out", {Index(0, 0)}, true));
  std::ostringstream os;
  r.Write(os, false);
  EXPECT_EQ(os.str(),
            "<ComputationRequest> \n<NumInputs> 0 \n<Inputs> \n"
            "<NumOutputs> 1 \n<Outputs> <IoSpecification> \n"
            "out <NumIndexes> 1 <Indexes> <I1V> 1 <I1> 0 0 0 "
            "<HasDeriv> T \n</IoSpecification> \n\n"
            "<NeedModelDerivative> F <StoreComponentStats> F "
            "</ComputationRequest> \n");
}

TEST(ComputationRequest, ReadErrors) {
  ComputationRequest a = Example();
  std::ostringstream os;
  a.Write(os, true);
  const std::string bytes = os.str();
  // Every truncation is an error, and leaves the request as it was.
  for (size_t len = 0; len < bytes.size(); len += 7) {
    std::istringstream is(bytes.substr(0, len));
    ComputationRequest b = a;
    b.need_model_derivative = true;
    EXPECT_THROW(b.Read(is, true), UserError) << "length " << len;
    EXPECT_TRUE(b.need_model_derivative);
    EXPECT_EQ(b.inputs, a.inputs);
  }
  // <NumIndexes> disagreeing with the Index vector.
  std::ostringstream text;
  a.Write(text, false);
  std::string t = text.str();
  size_t pos = t.find("<NumIndexes> 10 ");
  ASSERT_NE(pos, std::string::npos) << t;
  t.replace(pos, 16, "<NumIndexes> 11 ");
  std::istringstream is(t);
  ComputationRequest c;
  try {
    c.Read(is, false);
    ADD_FAILURE() << "expected an error";
  } catch (const UserError &e) {
    EXPECT_NE(std::string(e.message()).find("says <NumIndexes> 11 but holds "
                                            "10 Indexes"),
              std::string::npos)
        << e.message();
  }
}

}  // namespace
}  // namespace nnet3
