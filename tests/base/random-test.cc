// tests/base/random-test.cc: seeding and the distributions' moments.
#include <gtest/gtest.h>

#include <cmath>

#include "base/random.h"

namespace nnet3 {
namespace {

TEST(Random, SameSeedSameSequence) {
  RandomSource a(123), b(123), c(124);
  bool differs = false;
  for (int i = 0; i < 100; i++) {
    double x = a.Uniform(), y = b.Uniform(), z = c.Uniform();
    EXPECT_EQ(x, y);
    differs = differs || (x != z);
  }
  EXPECT_TRUE(differs);
}

TEST(Random, Moments) {
  RandomSource rs(5);
  const int n = 200000;
  double su = 0, sg = 0, sg2 = 0;
  for (int i = 0; i < n; i++) {
    double u = rs.Uniform();
    ASSERT_GT(u, 0.0);
    ASSERT_LT(u, 1.0);
    su += u;
    double g = rs.Gauss();
    sg += g;
    sg2 += g * g;
  }
  EXPECT_NEAR(su / n, 0.5, 0.01);
  EXPECT_NEAR(sg / n, 0.0, 0.01);
  EXPECT_NEAR(sg2 / n, 1.0, 0.02);
}

TEST(Random, IntIsInclusiveAndCoversRange) {
  RandomSource rs(9);
  int counts[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 5000; i++) {
    int32 k = rs.Int(-2, 2);
    ASSERT_GE(k, -2);
    ASSERT_LE(k, 2);
    counts[k + 2]++;
  }
  for (int c : counts) EXPECT_GT(c, 800);
}

TEST(Random, SrandReseedsDefaultSource) {
  Srand(77);
  double a = RandUniform();
  Srand(77);
  EXPECT_EQ(RandUniform(), a);
}

}  // namespace
}  // namespace nnet3
