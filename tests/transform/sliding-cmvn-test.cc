// tests/transform/sliding-cmvn-test.cc
// Sliding-window CMN against a naive per-frame computation: for each frame,
// the window bounds written in closed form, then a two-pass mean (and
// variance) over the window.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/log.h"
#include "transform/sliding-cmvn.h"
#include "transform/transform-test-util.h"

namespace nnet3 {
namespace {

using transform_test::ExpectNear;
using transform_test::MakeMatrix;
using transform_test::RandomMatrix;

// The window of frame t in closed form.
void NaiveWindow(const SlidingWindowCmnOptions &o, int32 t, int32 T,
                 int32 *b, int32 *e) {
  int32 W = o.cmn_window;
  if (!o.center) {
    // The W frames before t and t itself, extended to at least min_window
    // frames from the start; a window past the end moves left.
    *b = std::max(0, t - W);
    *e = std::max(t + 1, o.min_window);
    if (*e > T) {
      *b = std::max(0, *b - (*e - T));
      *e = T;
    }
  } else {
    *b = std::max(0, std::min(std::max(t - W / 2, 0), T - W));
    *e = std::min(*b + W, T);
  }
}

Matrix<double> NaiveSlidingCmn(const SlidingWindowCmnOptions &o,
                               const Matrix<BaseFloat> &x) {
  int32 T = x.NumRows(), D = x.NumCols();
  Matrix<double> y(T, D);
  for (int32 t = 0; t < T; t++) {
    int32 b, e;
    NaiveWindow(o, t, T, &b, &e);
    for (int32 d = 0; d < D; d++) {
      double mean = 0, var = 0;
      for (int32 s = b; s < e; s++) mean += x(s, d);
      mean /= (e - b);
      for (int32 s = b; s < e; s++) var += (x(s, d) - mean) * (x(s, d) - mean);
      var /= (e - b);
      y(t, d) = x(t, d) - mean;
      if (o.normalize_variance)
        y(t, d) = (e - b == 1) ? 0.0 : y(t, d) / std::sqrt(std::max(var, 1e-10));
    }
  }
  return y;
}

void CheckAgainstNaive(const SlidingWindowCmnOptions &o,
                       const Matrix<BaseFloat> &x) {
  Matrix<BaseFloat> y(x.NumRows(), x.NumCols());
  SlidingWindowCmn(o, x, &y);
  ExpectNear(y, NaiveSlidingCmn(o, x), 2e-4);
}

TEST(SlidingWindowCmn, ShortUtteranceUsesAllFrames) {
  // 3 frames, defaults (window 600, min 100): every window is all 3 frames.
  Matrix<BaseFloat> x = MakeMatrix({{1, 10}, {2, 20}, {6, 0}});
  Matrix<BaseFloat> y(3, 2);
  SlidingWindowCmn(SlidingWindowCmnOptions(), x, &y);
  EXPECT_FLOAT_EQ(y(0, 0), -2);
  EXPECT_FLOAT_EQ(y(1, 0), -1);
  EXPECT_FLOAT_EQ(y(2, 0), 3);
  EXPECT_FLOAT_EQ(y(0, 1), 0);
  EXPECT_FLOAT_EQ(y(2, 1), -10);
}

TEST(SlidingWindowCmn, LeftWindowWithMinimumMatchesNaive) {
  SlidingWindowCmnOptions o;
  o.cmn_window = 6;
  o.min_window = 4;
  for (int32 T : {1, 3, 4, 5, 9, 30}) CheckAgainstNaive(o, RandomMatrix(T, 3, 100 + T));
  o.min_window = 1;
  CheckAgainstNaive(o, RandomMatrix(20, 2, 7));
  o.min_window = 10;  // larger than the window: early frames look ahead
  CheckAgainstNaive(o, RandomMatrix(25, 2, 8));
}

TEST(SlidingWindowCmn, CenteredWindowMatchesNaive) {
  SlidingWindowCmnOptions o;
  o.center = true;
  o.cmn_window = 7;
  o.min_window = 3;
  for (int32 T : {1, 4, 7, 8, 31}) CheckAgainstNaive(o, RandomMatrix(T, 3, 200 + T));
  o.cmn_window = 6;  // even window
  CheckAgainstNaive(o, RandomMatrix(19, 2, 9));
}

TEST(SlidingWindowCmn, VarianceNormalizationMatchesNaive) {
  SlidingWindowCmnOptions o;
  o.normalize_variance = true;
  o.cmn_window = 8;
  o.min_window = 3;
  CheckAgainstNaive(o, RandomMatrix(40, 4, 300));
  o.center = true;
  CheckAgainstNaive(o, RandomMatrix(40, 4, 301));
  o.center = false;
  o.min_window = 1;  // frame 0 has a one-frame window: zeros
  Matrix<BaseFloat> x = RandomMatrix(5, 2, 302);
  Matrix<BaseFloat> y(5, 2);
  SlidingWindowCmn(o, x, &y);
  EXPECT_EQ(y(0, 0), 0.0f);
  EXPECT_EQ(y(0, 1), 0.0f);
  CheckAgainstNaive(o, x);
}

TEST(SlidingWindowCmn, DefaultOptionsOnALongUtterance) {
  // Longer than the 600-frame window, so the window slides.
  CheckAgainstNaive(SlidingWindowCmnOptions(), RandomMatrix(750, 2, 400));
  SlidingWindowCmnOptions o;
  o.center = true;
  CheckAgainstNaive(o, RandomMatrix(750, 2, 401));
}

TEST(SlidingWindowCmn, RejectsBadOptionsAndShapes) {
  Matrix<BaseFloat> x = MakeMatrix({{1}, {2}});
  Matrix<BaseFloat> y(2, 1), wrong(3, 1), empty;
  SlidingWindowCmnOptions o;
  o.cmn_window = 0;
  EXPECT_THROW(SlidingWindowCmn(o, x, &y), UserError);
  o = SlidingWindowCmnOptions();
  o.center = true;
  o.min_window = 700;  // larger than the window
  EXPECT_THROW(SlidingWindowCmn(o, x, &y), UserError);
  o = SlidingWindowCmnOptions();
  EXPECT_THROW(SlidingWindowCmn(o, x, &wrong), UserError);
  EXPECT_THROW(SlidingWindowCmn(o, empty, &empty), UserError);
}

}  // namespace
}  // namespace nnet3
