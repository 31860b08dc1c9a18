// tests/nnet3/nnet/chunking-invariance-test.cc
// NnetIsChunkingInvariant: true exactly for networks without recurrence,
// IfDefined/Failover and non-simple components other than TdnnComponent
// (fixed time offsets), on hand-written configs
// and on Kaldi's reference models whose descriptors are known.
#include <gtest/gtest.h>

#include <sstream>

#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/nnet/nnet.h"
#include "util/stream.h"

namespace nnet3 {
namespace {

bool Invariant(const std::string &body) {
  Nnet nnet;
  std::istringstream is("input-node name=input dim=2\n" + body);
  nnet.ReadConfig(is);
  return NnetIsChunkingInvariant(nnet);
}

const char *kAffine =
    "component name=a type=AffineComponent input-dim=6 output-dim=2\n";

TEST(ChunkingInvariance, SplicingAndSumsAreInvariant) {
  EXPECT_TRUE(Invariant(std::string(kAffine) +
                        "component-node name=a component=a "
                        "input=Append(Offset(input, -1), input, Offset(input, 3))\n"
                        "output-node name=output input=Sum(a, Scale(2, Offset(a, 1)))\n"));
  EXPECT_TRUE(Invariant(std::string(kAffine) +
                        "component-node name=a component=a "
                        "input=Append(Switch(input, Offset(input, 1)), "
                        "Round(input, 2), input)\n"
                        "output-node name=output input=a\n"));
}

TEST(ChunkingInvariance, AvailabilityDependentDescriptorsAreNot) {
  EXPECT_FALSE(Invariant(std::string(kAffine) +
                         "component-node name=a component=a "
                         "input=Append(IfDefined(Offset(input, -1)), input, input)\n"
                         "output-node name=output input=a\n"));
  EXPECT_FALSE(Invariant(std::string(kAffine) +
                         "component-node name=a component=a input=Append("
                         "Failover(Offset(input, -1), input), input, input)\n"
                         "output-node name=output input=a\n"));
  // Inside a Sum too.
  EXPECT_FALSE(Invariant(std::string(kAffine) +
                         "component-node name=a component=a input=Append("
                         "Sum(input, IfDefined(Offset(input, 2))), input, input)\n"
                         "output-node name=output input=a\n"));
}

TEST(ChunkingInvariance, RecurrenceIsNot) {
  // A recurrence must go through IfDefined in practice; a Round()-based
  // one does not, and is still a cycle.
  EXPECT_FALSE(Invariant(
      "component name=a type=AffineComponent input-dim=4 output-dim=2\n"
      "component-node name=a component=a "
      "input=Append(input, Offset(r, -1))\n"
      "component name=r type=TanhComponent dim=2\n"
      "component-node name=r component=r input=a\n"
      "output-node name=output input=r\n"));
}

TEST(ChunkingInvariance, NonSimpleComponentsAreNot) {
  EXPECT_FALSE(Invariant(
      "component name=c type=ConstantFunctionComponent input-dim=2 "
      "output-dim=3\n"
      "component-node name=c component=c input=input\n"
      "output-node name=output input=c\n"));
}

TEST(ChunkingInvariance, TdnnComponentsAreInvariant) {
  EXPECT_TRUE(Invariant(
      "component name=t type=TdnnComponent input-dim=2 output-dim=3 "
      "time-offsets=-3,0,3\n"
      "component-node name=t component=t input=input\n"
      "output-node name=output input=t\n"));
  // But not behind an IfDefined.
  EXPECT_FALSE(Invariant(
      "component name=t type=TdnnComponent input-dim=2 output-dim=3 "
      "time-offsets=-1,0\n"
      "component-node name=t component=t input=IfDefined(Offset(input, 1))\n"
      "output-node name=output input=t\n"));
}

TEST(ChunkingInvariance, KaldiModels) {
  const std::string dir = std::string(NNET3_TEST_DATA_DIR) + "/kaldi/models/";
  struct {
    const char *name;
    bool invariant;
  } cases[] = {{"tdnn", true}, {"tdnn_real", true}, {"seed", true},
               {"rnn", false}, {"descriptors", false}};
  for (const auto &c : cases) {
    Nnet nnet;
    ReadKaldiObject(dir + c.name + ".raw", &nnet);
    EXPECT_EQ(NnetIsChunkingInvariant(nnet), c.invariant) << c.name;
  }
}

}  // namespace
}  // namespace nnet3
