// tests/transform/frames-test.cc
// Subsampling, voiced-frame selection, pasting and segment extraction on
// hand-made matrices.
#include <gtest/gtest.h>

#include "base/log.h"
#include "transform/frames.h"
#include "transform/transform-test-util.h"

namespace nnet3 {
namespace {

using transform_test::MakeMatrix;
using transform_test::MakeVector;

// Row r of the result equals row rows[r] of x.
void ExpectRows(const Matrix<BaseFloat> &y, const Matrix<BaseFloat> &x,
                const std::vector<int32> &rows) {
  ASSERT_EQ(y.NumRows(), static_cast<int32>(rows.size()));
  ASSERT_EQ(y.NumCols(), x.NumCols());
  for (size_t r = 0; r < rows.size(); r++)
    for (int32 c = 0; c < x.NumCols(); c++)
      EXPECT_EQ(y(r, c), x(rows[r], c)) << "row " << r;
}

Matrix<BaseFloat> Counting(int32 rows, int32 cols) {
  Matrix<BaseFloat> m(rows, cols);
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c++) m(r, c) = 10 * r + c;
  return m;
}

TEST(SubsampleFrames, EveryNthFromOffset) {
  Matrix<BaseFloat> x = Counting(7, 2), y;
  ASSERT_TRUE(SubsampleFrames(x, 3, 0, &y));
  ExpectRows(y, x, {0, 3, 6});
  ASSERT_TRUE(SubsampleFrames(x, 3, 1, &y));
  ExpectRows(y, x, {1, 4});
  ASSERT_TRUE(SubsampleFrames(x, 1, 6, &y));
  ExpectRows(y, x, {6});
  EXPECT_FALSE(SubsampleFrames(x, 2, 7, &y));
}

TEST(SubsampleFrames, NegativeNRepeatsFrames) {
  Matrix<BaseFloat> x = Counting(3, 2), y;
  ASSERT_TRUE(SubsampleFrames(x, -2, 0, &y));
  ExpectRows(y, x, {0, 0, 1, 1, 2, 2});
}

TEST(SubsampleFrames, RejectsBadArguments) {
  Matrix<BaseFloat> x = Counting(3, 2), y;
  EXPECT_THROW(SubsampleFrames(x, 0, 0, &y), UserError);
  EXPECT_THROW(SubsampleFrames(x, 2, -1, &y), UserError);
  EXPECT_THROW(SubsampleFrames(x, -2, 1, &y), UserError);
}

TEST(SelectVoicedFrames, KeepsVoicedRowsInOrder) {
  Matrix<BaseFloat> x = Counting(5, 3), y;
  ASSERT_TRUE(SelectVoicedFrames(x, MakeVector({0, 1, 1, 0, 1}), &y));
  ExpectRows(y, x, {1, 2, 4});
  EXPECT_FALSE(SelectVoicedFrames(x, MakeVector({0, 0, 0, 0, 0}), &y));
  EXPECT_THROW(SelectVoicedFrames(x, MakeVector({1, 1}), &y), UserError);
  EXPECT_THROW(SelectVoicedFrames(x, MakeVector({0, 0.5, 1, 0, 1}), &y),
               UserError);
}

TEST(PasteFeats, ConcatenatesColumnsAndTrimsWithinTolerance) {
  std::vector<Matrix<BaseFloat> > in = {MakeMatrix({{1, 2}, {3, 4}, {5, 6}}),
                                        MakeMatrix({{7}, {8}})};
  Matrix<BaseFloat> y;
  std::string message;
  EXPECT_FALSE(PasteFeats(in, 0, &y, &message));
  EXPECT_NE(message.find("3 vs. 2"), std::string::npos) << message;
  EXPECT_EQ(y.NumRows(), 0);
  ASSERT_TRUE(PasteFeats(in, 1, &y, &message));
  EXPECT_FALSE(message.empty());  // trimming is reported
  EXPECT_TRUE(y.Equal(MakeMatrix({{1, 2, 7}, {3, 4, 8}})));
  in[1] = MakeMatrix({{7}, {8}, {9}});
  ASSERT_TRUE(PasteFeats(in, 0, &y, &message));
  EXPECT_TRUE(message.empty());
  EXPECT_TRUE(y.Equal(MakeMatrix({{1, 2, 7}, {3, 4, 8}, {5, 6, 9}})));
  in[1] = Matrix<BaseFloat>();
  EXPECT_FALSE(PasteFeats(in, 10, &y, &message));  // an empty input
}

TEST(ExtractFeatureSegment, FrameArithmetic) {
  Matrix<BaseFloat> x = Counting(100, 2), y;
  FeatureSegmentOptions o;  // shift 10 ms, length 25 ms: snip 2 frames
  std::string message;
  // 0.10 s .. 0.50 s -> frames 10 .. 50 - 2 = 48.
  ASSERT_TRUE(ExtractFeatureSegment(o, x, 0.10, 0.50, &y, &message));
  ASSERT_EQ(y.NumRows(), 38);
  EXPECT_EQ(y(0, 0), 100.0f);
  EXPECT_EQ(y(37, 0), 470.0f);
  o.snip_edges = false;
  ASSERT_TRUE(ExtractFeatureSegment(o, x, 0.10, 0.50, &y, &message));
  EXPECT_EQ(y.NumRows(), 40);
  // Past the end: truncated only within --max-overshoot.
  EXPECT_FALSE(ExtractFeatureSegment(o, x, 0.5, 1.02, &y, &message));
  o.max_overshoot = 0.05;
  ASSERT_TRUE(ExtractFeatureSegment(o, x, 0.5, 1.02, &y, &message));
  EXPECT_EQ(y.NumRows(), 50);
  // Too short (not longer than 0.1 s = 10 frames), or starting past the end.
  EXPECT_FALSE(ExtractFeatureSegment(o, x, 0.2, 0.3, &y, &message));
  EXPECT_FALSE(message.empty());
  ASSERT_TRUE(ExtractFeatureSegment(o, x, 0.2, 0.31, &y, &message));
  EXPECT_EQ(y.NumRows(), 11);
  EXPECT_FALSE(ExtractFeatureSegment(o, x, 1.0, 1.5, &y, &message));
}

}  // namespace
}  // namespace nnet3
