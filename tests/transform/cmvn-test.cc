// tests/transform/cmvn-test.cc
// CMVN statistics and their application against naive computations.
#include <gtest/gtest.h>

#include "base/log.h"
#include "transform/cmvn.h"
#include "transform/transform-test-util.h"

namespace nnet3 {
namespace {

using transform_test::ExpectNear;
using transform_test::MakeMatrix;
using transform_test::MakeVector;
using transform_test::RandomMatrix;

TEST(CmvnStats, LayoutAndSums) {
  Matrix<BaseFloat> feats = MakeMatrix({{1, -2}, {3, 4}, {5, 0.5}});
  Matrix<double> stats;
  InitCmvnStats(2, &stats);
  ASSERT_EQ(stats.NumRows(), 2);
  ASSERT_EQ(stats.NumCols(), 3);
  AccCmvnStats(feats, nullptr, &stats);
  EXPECT_DOUBLE_EQ(stats(0, 0), 9.0);
  EXPECT_DOUBLE_EQ(stats(0, 1), 2.5);
  EXPECT_DOUBLE_EQ(stats(0, 2), 3.0);  // the count
  EXPECT_DOUBLE_EQ(stats(1, 0), 1 + 9 + 25);
  EXPECT_DOUBLE_EQ(stats(1, 1), 4 + 16 + 0.25);
  EXPECT_DOUBLE_EQ(stats(1, 2), 0.0);
}

TEST(CmvnStats, WeightsScaleAndSkipFrames) {
  Matrix<BaseFloat> feats = MakeMatrix({{1, -2}, {3, 4}, {5, 0.5}});
  Vector<BaseFloat> weights = MakeVector({0.5, 0.0, 2.0});
  Matrix<double> stats;
  InitCmvnStats(2, &stats);
  AccCmvnStats(feats, &weights, &stats);
  EXPECT_DOUBLE_EQ(stats(0, 0), 0.5 * 1 + 2 * 5);
  EXPECT_DOUBLE_EQ(stats(0, 1), 0.5 * -2 + 2 * 0.5);
  EXPECT_DOUBLE_EQ(stats(0, 2), 2.5);
  EXPECT_DOUBLE_EQ(stats(1, 0), 0.5 * 1 + 2 * 25);
  Vector<BaseFloat> short_weights = MakeVector({1, 1});
  EXPECT_THROW(AccCmvnStats(feats, &short_weights, &stats), UserError);
}

TEST(CmvnStats, DimensionMismatchIsAnError) {
  Matrix<double> stats;
  InitCmvnStats(3, &stats);
  Matrix<BaseFloat> feats = MakeMatrix({{1, 2}});
  EXPECT_THROW(AccCmvnStats(feats, nullptr, &stats), UserError);
  EXPECT_THROW(ApplyCmvn(stats, false, &feats), UserError);
  EXPECT_THROW(InitCmvnStats(0, &stats), UserError);
}

TEST(ApplyCmvn, MeanNormalizationMatchesNaive) {
  Matrix<BaseFloat> feats = RandomMatrix(37, 5, 11);
  Matrix<double> stats;
  InitCmvnStats(5, &stats);
  AccCmvnStats(feats, nullptr, &stats);
  Matrix<double> want(37, 5);
  for (int32 c = 0; c < 5; c++) {
    double mean = 0;
    for (int32 r = 0; r < 37; r++) mean += feats(r, c);
    mean /= 37;
    for (int32 r = 0; r < 37; r++) want(r, c) = feats(r, c) - mean;
  }
  ApplyCmvn(stats, false, &feats);
  ExpectNear(feats, want, 1e-5);
}

TEST(ApplyCmvn, VarianceNormalizationMatchesNaive) {
  Matrix<BaseFloat> feats = RandomMatrix(50, 4, 12, -3.0, 20.0);
  Matrix<double> stats;
  InitCmvnStats(4, &stats);
  AccCmvnStats(feats, nullptr, &stats);
  Matrix<double> want(50, 4);
  for (int32 c = 0; c < 4; c++) {
    double mean = 0, var = 0;
    for (int32 r = 0; r < 50; r++) mean += feats(r, c);
    mean /= 50;
    for (int32 r = 0; r < 50; r++)
      var += (feats(r, c) - mean) * (feats(r, c) - mean);
    var /= 50;  // population variance, as CMVN uses
    for (int32 r = 0; r < 50; r++)
      want(r, c) = (feats(r, c) - mean) / std::sqrt(var);
  }
  ApplyCmvn(stats, true, &feats);
  ExpectNear(feats, want, 1e-5);
}

TEST(ApplyCmvn, OtherStatsAndHandValues) {
  // Stats of {1, 3} in one dimension: mean 2, variance 1.
  Matrix<double> stats(2, 2);
  stats(0, 0) = 4;
  stats(0, 1) = 2;
  stats(1, 0) = 10;
  Matrix<BaseFloat> feats = MakeMatrix({{0}, {5}});
  ApplyCmvn(stats, false, &feats);
  EXPECT_FLOAT_EQ(feats(0, 0), -2);
  EXPECT_FLOAT_EQ(feats(1, 0), 3);
  stats(1, 0) = 2 * (4 + 4);  // E[x^2] = 8 -> var = 8 - 4 = 4
  feats = MakeMatrix({{0}, {6}});
  ApplyCmvn(stats, true, &feats);
  EXPECT_FLOAT_EQ(feats(0, 0), -1);
  EXPECT_FLOAT_EQ(feats(1, 0), 2);
}

TEST(ApplyCmvn, ConstantColumnIsFlooredNotNan) {
  Matrix<BaseFloat> feats = MakeMatrix({{3, 1}, {3, 2}, {3, 6}});
  Matrix<double> stats;
  InitCmvnStats(2, &stats);
  AccCmvnStats(feats, nullptr, &stats);
  ApplyCmvn(stats, true, &feats);
  for (int32 r = 0; r < 3; r++) EXPECT_EQ(feats(r, 0), 0.0f);
  EXPECT_TRUE(feats.IsFinite());
}

TEST(ApplyCmvn, RejectsBadStats) {
  Matrix<BaseFloat> feats = MakeMatrix({{1, 2}});
  Matrix<double> stats(2, 3);
  stats(0, 2) = 0.5;  // count below 1
  EXPECT_THROW(ApplyCmvn(stats, false, &feats), UserError);
  Matrix<double> one_row(1, 3);
  one_row(0, 0) = 2;
  one_row(0, 2) = 1;
  EXPECT_THROW(ApplyCmvn(one_row, true, &feats), UserError);
  // Mean-only stats of one row are fine.
  ApplyCmvn(one_row, false, &feats);
  EXPECT_FLOAT_EQ(feats(0, 0), -1);
  EXPECT_FLOAT_EQ(feats(0, 1), 2);
  Matrix<double> three_rows(3, 3);
  EXPECT_THROW(ApplyCmvn(three_rows, false, &feats), UserError);
}

TEST(ApplyCmvnReverse, UndoesApplyCmvn) {
  Matrix<BaseFloat> feats = RandomMatrix(20, 3, 13, 0.0, 50.0);
  Matrix<double> stats;
  InitCmvnStats(3, &stats);
  AccCmvnStats(feats, nullptr, &stats);
  Matrix<double> original(feats);
  for (bool norm_vars : {false, true}) {
    Matrix<BaseFloat> x(feats);
    ApplyCmvn(stats, norm_vars, &x);
    ApplyCmvnReverse(stats, norm_vars, &x);
    ExpectNear(x, original, 1e-5);
  }
}

TEST(FakeStatsForSomeDims, DisablesNormalizationOfThoseDims) {
  Matrix<BaseFloat> feats = RandomMatrix(10, 3, 14);
  Matrix<double> stats;
  InitCmvnStats(3, &stats);
  AccCmvnStats(feats, nullptr, &stats);
  FakeStatsForSomeDims({1}, &stats);
  Matrix<BaseFloat> x(feats);
  ApplyCmvn(stats, true, &x);
  for (int32 r = 0; r < 10; r++) EXPECT_FLOAT_EQ(x(r, 1), feats(r, 1));
  EXPECT_NE(x(0, 0), feats(0, 0));
  EXPECT_THROW(FakeStatsForSomeDims({3}, &stats), UserError);
  EXPECT_THROW(FakeStatsForSomeDims({-1}, &stats), UserError);
}

}  // namespace
}  // namespace nnet3
