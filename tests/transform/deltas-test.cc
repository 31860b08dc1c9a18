// tests/transform/deltas-test.cc
// Deltas against the regression formula and hand-derived filters.
#include <gtest/gtest.h>

#include <algorithm>

#include "base/log.h"
#include "transform/deltas.h"
#include "transform/transform-test-util.h"

namespace nnet3 {
namespace {

using transform_test::ExpectNear;
using transform_test::MakeMatrix;
using transform_test::RandomMatrix;

// First-order regression delta with edge frames repeated.
Matrix<double> NaiveDelta(const MatrixBase<double> &x, int32 N) {
  int32 T = x.NumRows(), D = x.NumCols();
  double denom = 0;
  for (int32 j = 1; j <= N; j++) denom += 2.0 * j * j;
  Matrix<double> y(T, D);
  for (int32 t = 0; t < T; t++)
    for (int32 d = 0; d < D; d++) {
      double s = 0;
      for (int32 j = 1; j <= N; j++) {
        int32 ahead = std::min(t + j, T - 1), behind = std::max(t - j, 0);
        s += j * (x(ahead, d) - x(behind, d));
      }
      y(t, d) = s / denom;
    }
  return y;
}

TEST(Deltas, FiltersByHand) {
  DeltaFeatures delta(DeltaFeaturesOptions(2, 1));
  const Vector<BaseFloat> &f1 = delta.Filter(1), &f2 = delta.Filter(2);
  ASSERT_EQ(f1.Dim(), 3);
  EXPECT_FLOAT_EQ(f1(0), -0.5);
  EXPECT_FLOAT_EQ(f1(1), 0.0);
  EXPECT_FLOAT_EQ(f1(2), 0.5);
  ASSERT_EQ(f2.Dim(), 5);
  const double want2[] = {0.25, 0, -0.5, 0, 0.25};
  for (int32 i = 0; i < 5; i++) EXPECT_FLOAT_EQ(f2(i), want2[i]);
  DeltaFeatures delta2(DeltaFeaturesOptions(1, 2));
  const double want_w2[] = {-0.2, -0.1, 0, 0.1, 0.2};  // j / 10
  for (int32 i = 0; i < 5; i++) EXPECT_FLOAT_EQ(delta2.Filter(1)(i), want_w2[i]);
}

TEST(Deltas, RampHandValues) {
  // x[t] = t: interior delta 1; at t = 0 with window 2:
  // (1 * (1 - 0) + 2 * (2 - 0)) / 10 = 0.5.
  Matrix<BaseFloat> x(10, 1);
  for (int32 t = 0; t < 10; t++) x(t, 0) = t;
  Matrix<BaseFloat> y;
  ComputeDeltas(DeltaFeaturesOptions(1, 2), x, &y);
  ASSERT_EQ(y.NumCols(), 2);
  EXPECT_FLOAT_EQ(y(0, 0), 0);
  EXPECT_FLOAT_EQ(y(0, 1), 0.5);
  EXPECT_FLOAT_EQ(y(1, 1), 0.8);  // (1*(2-0) + 2*(3-0)) / 10
  for (int32 t = 2; t < 8; t++) EXPECT_FLOAT_EQ(y(t, 1), 1.0);
  EXPECT_FLOAT_EQ(y(9, 1), 0.5);
}

TEST(Deltas, FirstOrderMatchesRegressionFormula) {
  for (int32 N : {1, 2, 3}) {
    Matrix<BaseFloat> x = RandomMatrix(23, 4, 500 + N);
    Matrix<BaseFloat> y;
    ComputeDeltas(DeltaFeaturesOptions(1, N), x, &y);
    ASSERT_EQ(y.NumRows(), 23);
    ASSERT_EQ(y.NumCols(), 8);
    Matrix<double> xd(x);
    ExpectNear(y.Range(0, 23, 0, 4), xd, 0);
    ExpectNear(y.Range(0, 23, 4, 4), NaiveDelta(xd, N), 1e-5);
  }
}

TEST(Deltas, SecondOrderIsDeltaOfDeltaAwayFromTheEdges) {
  // Away from the edges (2N frames), the second-order filter equals the
  // first-order delta applied twice.
  int32 N = 2, T = 30;
  Matrix<BaseFloat> x = RandomMatrix(T, 3, 600);
  Matrix<BaseFloat> y;
  ComputeDeltas(DeltaFeaturesOptions(2, N), x, &y);
  ASSERT_EQ(y.NumCols(), 9);
  Matrix<double> xd(x);
  Matrix<double> d1 = NaiveDelta(xd, N), d2 = NaiveDelta(d1, N);
  ExpectNear(y.Range(0, T, 3, 3), d1, 1e-5);
  ExpectNear(y.Range(2 * N, T - 4 * N, 6, 3), d2.Range(2 * N, T - 4 * N, 0, 3),
             1e-5);
}

TEST(Deltas, SingleFrameAndOrderZero) {
  Matrix<BaseFloat> x = MakeMatrix({{3, -4}});
  Matrix<BaseFloat> y;
  ComputeDeltas(DeltaFeaturesOptions(), x, &y);
  ASSERT_EQ(y.NumCols(), 6);
  EXPECT_FLOAT_EQ(y(0, 0), 3);
  for (int32 c = 2; c < 6; c++) EXPECT_NEAR(y(0, c), 0, 1e-6);
  ComputeDeltas(DeltaFeaturesOptions(0, 2), x, &y);
  ASSERT_EQ(y.NumCols(), 2);
}

TEST(Deltas, RejectsBadOptions) {
  EXPECT_THROW(DeltaFeatures(DeltaFeaturesOptions(-1, 2)), UserError);
  EXPECT_THROW(DeltaFeatures(DeltaFeaturesOptions(2, 0)), UserError);
  EXPECT_THROW(DeltaFeatures(DeltaFeaturesOptions(2, 1000)), UserError);
}

}  // namespace
}  // namespace nnet3
