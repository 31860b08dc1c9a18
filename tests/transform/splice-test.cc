// tests/transform/splice-test.cc
// Frame splicing on hand-made inputs.
#include <gtest/gtest.h>

#include "base/log.h"
#include "transform/splice.h"
#include "transform/transform-test-util.h"

namespace nnet3 {
namespace {

using transform_test::MakeMatrix;

TEST(SpliceFrames, HandExampleWithEdgesRepeated) {
  Matrix<BaseFloat> x = MakeMatrix({{1, 10}, {2, 20}, {3, 30}});
  Matrix<BaseFloat> y;
  SpliceFrames(x, 1, 2, &y);
  Matrix<BaseFloat> want = MakeMatrix({
      {1, 10, 1, 10, 2, 20, 3, 30},   // t=0: frames -1(0), 0, 1, 2
      {1, 10, 2, 20, 3, 30, 3, 30},   // t=1: frames 0, 1, 2, 3(2)
      {2, 20, 3, 30, 3, 30, 3, 30}}); // t=2: frames 1, 2, 3(2), 4(2)
  ASSERT_EQ(y.NumRows(), 3);
  ASSERT_EQ(y.NumCols(), 8);
  EXPECT_TRUE(y.Equal(want));
}

TEST(SpliceFrames, ZeroContextIsACopy) {
  Matrix<BaseFloat> x = MakeMatrix({{1, 2, 3}, {4, 5, 6}});
  Matrix<BaseFloat> y;
  SpliceFrames(x, 0, 0, &y);
  EXPECT_TRUE(y.Equal(x));
}

TEST(SpliceFrames, DefaultContextOnOneFrame) {
  Matrix<BaseFloat> x = MakeMatrix({{7, -1}});
  Matrix<BaseFloat> y;
  SpliceFrames(x, 4, 4, &y);
  ASSERT_EQ(y.NumCols(), 18);
  for (int32 j = 0; j < 9; j++) {
    EXPECT_EQ(y(0, 2 * j), 7.0f);
    EXPECT_EQ(y(0, 2 * j + 1), -1.0f);
  }
}

TEST(SpliceFrames, RejectsEmptyInputAndNegativeContext) {
  Matrix<BaseFloat> empty, y;
  EXPECT_THROW(SpliceFrames(empty, 1, 1, &y), UserError);
  Matrix<BaseFloat> x = MakeMatrix({{1}});
  EXPECT_THROW(SpliceFrames(x, -1, 1, &y), UserError);
  EXPECT_THROW(SpliceFrames(x, 1, -2, &y), UserError);
}

}  // namespace
}  // namespace nnet3
