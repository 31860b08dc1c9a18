// tests/nnet3/nnet/nnet-utils-test.cc
// nnet-utils.h: ComputeSimpleNnetContext on ordinary recurrences and on a
// recurrence that never reaches the input (found by the nnet-config fuzz
// target: it recursed until the stack overflowed).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {
namespace {

Nnet FromConfig(const std::string &config) {
  std::istringstream is(config);
  Nnet nnet;
  nnet.ReadConfig(is);
  return nnet;
}

TEST(NnetUtils, ContextOfARecurrenceThroughTheInput) {
  Nnet nnet = FromConfig(
      "input-node name=input dim=2\n"
      "component name=a type=AffineComponent input-dim=4 output-dim=2\n"
      "component-node name=a component=a "
      "input=Append(Offset(input, -2), IfDefined(Offset(a, -1)))\n"
      "output-node name=output input=a\n");
  int32 left = -1, right = -1;
  ComputeSimpleNnetContext(nnet, &left, &right);
  EXPECT_EQ(left, 2);
  EXPECT_EQ(right, 0);
}

// ComputeSimpleNnetContext must fail with a UserError containing fragment.
void ExpectContextError(const Nnet &nnet, const std::string &fragment) {
  int32 left, right;
  try {
    ComputeSimpleNnetContext(nnet, &left, &right);
    FAIL() << "no error";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find(fragment), std::string::npos) << e.message();
  }
}

TEST(NnetUtils, ARecurrenceThatNeverReachesTheInputIsAnError) {
  // r(t) is r(t-1) if that is computable, else a constant: every r(t) is
  // computable, and finding that out walks back in time without end.
  Nnet nnet = FromConfig(
      "input-node name=input dim=2\n"
      "component name=r type=RectifiedLinearComponent dim=2\n"
      "component-node name=r component=r "
      "input=Failover(Offset(r, -1), Const(1.0, 2))\n"
      "component name=a type=AffineComponent input-dim=4 output-dim=2\n"
      "component-node name=a component=a input=Append(input, r)\n"
      "output-node name=output input=a\n");
  ExpectContextError(nnet, "never reaches the input");
}

// input (4 dims) -> statistics extraction -> statistics pooling (means only,
// 4 dims), read by the output as "use" says; "extract" and "pool" are the
// two components' period and context options.
Nnet PoolingNnet(const std::string &extract, const std::string &pool,
                 const std::string &use) {
  return FromConfig(
      "input-node name=input dim=4\n"
      "component name=extract type=StatisticsExtractionComponent "
      "input-dim=4 " + extract + " include-variance=false\n"
      "component-node name=extract component=extract input=input\n"
      "component name=pool type=StatisticsPoolingComponent input-dim=5 " +
      pool + " num-log-count-features=0 output-stddevs=false\n"
      "component-node name=pool component=pool input=extract\n" + use);
}

// The output: an affine over the input and the pooled statistics.
const char kAppendPool[] =
    "component name=a type=AffineComponent input-dim=8 output-dim=2\n"
    "component-node name=a component=a input=Append(input, pool)\n"
    "output-node name=output input=a\n";

TEST(NnetUtils, AContextOfMillionsOfFramesIsAnErrorNotAnOutOfMemory) {
  // Found by fuzzing (tests/data/fuzz/nnet-read): statistics pooling over
  // 10^8 frames made working out the context explore every one of them.
  Nnet nnet = PoolingNnet("input-period=1 output-period=1",
                          "input-period=1 left-context=100000000 "
                          "right-context=0",
                          kAppendPool);
  ExpectContextError(nnet, "context is too large");
}

TEST(NnetUtils, RescanningAHugeStatisticsBlockIsAnErrorNotAHang) {
  // Found by fuzzing (tests/data/fuzz/nnet-read): an extraction block of
  // 3 million frames, read by a pooling window of 134 million. Few distinct
  // (node, time) pairs, but every pooling frame scanned the whole block
  // again: hours of work before the lookup limit.
  Nnet nnet = PoolingNnet(
      "input-period=2 output-period=3080196",
      "input-period=4 left-context=134217732 right-context=16",
      "component name=a type=AffineComponent input-dim=4 output-dim=4\n"
      "component-node name=a component=a input=input\n"
      "output-node name=output input=Sum(a, Round(pool, 4))\n");
  ExpectContextError(nnet, "context is too large");
}

TEST(NnetUtils, ContextsNearTheInt32LimitsDoNotOverflow) {
  // Pooling windows that reach past INT32_MIN and INT32_MAX: the times
  // an Index cannot hold are skipped, not wrapped around (UBSan checks).
  Nnet nnet = PoolingNnet("input-period=1 output-period=1",
                          "input-period=1 left-context=2147483647 "
                          "right-context=2147483647",
                          kAppendPool);
  ExpectContextError(nnet, "context is too large");
}

}  // namespace
}  // namespace nnet3
