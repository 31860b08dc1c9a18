// tests/nnet3/train/orthonormal-test.cc
// The orthonormal constraint (train/orthonormal.h), checked by the property
// it exists for: repeated steps from a matrix near a semi-orthogonal one
// make M M^T equal c^2 I (fixed scale c, or the floating scale for c < 0),
// with the error shrinking at every step near the solution; parameters
// with more rows than columns are constrained through their transpose;
// components without the constraint are left alone; a TdnnComponent's
// whole linear parameter matrix (all offsets) is constrained.
#include <gtest/gtest.h>

#include <cmath>

#include "nnet3/components/affine.h"
#include "nnet3/components/tdnn.h"
#include "nnet3/testing/random-nnet.h"
#include "nnet3/train/orthonormal.h"

namespace nnet3 {
namespace {

// A rows x cols matrix (rows <= cols) with orthonormal rows (Gram-Schmidt
// of Gaussian rows), times 'scale', plus noise of stddev 'noise'.
Matrix<BaseFloat> NearSemiOrthogonal(int32 rows, int32 cols, double scale,
                                     double noise, RandomSource *rng) {
  Matrix<double> q(rows, cols);
  for (int32 i = 0; i < rows; i++) {
    for (int32 j = 0; j < cols; j++) q(i, j) = rng->Gauss();
    for (int32 k = 0; k < i; k++) {
      double dot = 0;
      for (int32 j = 0; j < cols; j++) dot += q(i, j) * q(k, j);
      for (int32 j = 0; j < cols; j++) q(i, j) -= dot * q(k, j);
    }
    double norm = 0;
    for (int32 j = 0; j < cols; j++) norm += q(i, j) * q(i, j);
    for (int32 j = 0; j < cols; j++) q(i, j) /= std::sqrt(norm);
  }
  Matrix<BaseFloat> m(rows, cols);
  for (int32 i = 0; i < rows; i++)
    for (int32 j = 0; j < cols; j++)
      m(i, j) = static_cast<BaseFloat>(scale * q(i, j) + noise * rng->Gauss());
  return m;
}

// Largest |(M M^T)(i,j) - target * delta(i,j)|.
double GramError(const MatrixBase<BaseFloat> &m, double target) {
  double worst = 0;
  for (int32 i = 0; i < m.NumRows(); i++)
    for (int32 k = 0; k < m.NumRows(); k++) {
      double dot = 0;
      for (int32 j = 0; j < m.NumCols(); j++) dot += double(m(i, j)) * m(k, j);
      worst = std::max(worst, std::fabs(dot - (i == k ? target : 0.0)));
    }
  return worst;
}
double GramError(const CuMatrixBase<BaseFloat> &m, double target) {
  return GramError(m.Mat(), target);
}

TEST(Orthonormal, FixedScaleConvergesToScaledIdentity) {
  RandomSource rng(1);
  for (double scale : {1.0, 2.0, 0.5}) {
    CuMatrix<BaseFloat> m(NearSemiOrthogonal(6, 15, scale, 0.03 * scale, &rng));
    double before = GramError(m, scale * scale);
    ASSERT_GT(before, 1e-3);
    double previous = before;
    for (int32 step = 0; step < 8; step++) {
      ConstrainOrthonormalInternal(scale, &m);
      double err = GramError(m, scale * scale);
      EXPECT_LT(err, previous + 1e-6 * scale * scale) << "step " << step;
      previous = err;
    }
    EXPECT_LT(previous, 1e-4 * scale * scale) << "scale " << scale;
  }
}

TEST(Orthonormal, FloatingScaleMakesRowsOrthogonalWithEqualNorms) {
  RandomSource rng(2);
  CuMatrix<BaseFloat> cu_m(NearSemiOrthogonal(5, 9, 1.7, 0.05, &rng));
  for (int32 step = 0; step < 15; step++)
    ConstrainOrthonormalInternal(-1, &cu_m);
  const MatrixBase<BaseFloat> &m = cu_m.Mat();
  double mean_sq = 0;
  for (int32 i = 0; i < m.NumRows(); i++) {
    double norm = 0;
    for (int32 j = 0; j < m.NumCols(); j++) norm += double(m(i, j)) * m(i, j);
    mean_sq += norm / m.NumRows();
  }
  EXPECT_NEAR(std::sqrt(mean_sq), 1.7, 0.1);  // the scale floats near 1.7
  EXPECT_LT(GramError(m, mean_sq), 1e-4 * mean_sq);
}

TEST(Orthonormal, NnetComponentsTallParamsAndUnconstrained) {
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=5\n"
      "component name=lin type=LinearComponent input-dim=5 output-dim=12 "
      "orthonormal-constraint=1.0\n"
      "component-node name=lin component=lin input=input\n"
      "component name=aff type=AffineComponent input-dim=12 output-dim=4\n"
      "component-node name=aff component=aff input=lin\n"
      "output-node name=output input=aff\n");
  auto *lin = dynamic_cast<LinearComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex("lin")));
  auto *aff = dynamic_cast<AffineComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex("aff")));
  ASSERT_TRUE(lin != nullptr && aff != nullptr);
  RandomSource rng(3);
  // 12 x 5 parameters: the columns are what becomes orthonormal.
  Matrix<BaseFloat> tall(12, 5);
  tall.CopyFromMat(NearSemiOrthogonal(5, 12, 1.0, 0.03, &rng), kTrans);
  lin->Params().CopyFromMat(tall);
  Matrix<BaseFloat> aff_before = ToHost(aff->LinearParams());
  Srand(5);
  for (int32 call = 0; call < 100; call++) ConstrainOrthonormal(&nnet);
  Matrix<BaseFloat> cols(5, 12);
  lin->Params().CopyToMat(&cols, kTrans);
  EXPECT_LT(GramError(cols, 1.0), 1e-4);
  EXPECT_GT(GramError(tall, 1.0), 1e-3);  // it did have to change
  for (int32 i = 0; i < aff_before.NumRows(); i++)
    for (int32 j = 0; j < aff_before.NumCols(); j++)
      ASSERT_EQ(aff->LinearParams().Mat()(i, j), aff_before(i, j));
}

TEST(Orthonormal, TdnnComponentLinearParams) {
  // 6 outputs, 2 offsets x 4 inputs: the 6 x 8 matrix [W_-1 W_0] gets
  // orthonormal rows with the floating scale (c = -1).
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=4\n"
      "component name=tdnn type=TdnnComponent input-dim=4 output-dim=6 "
      "time-offsets=-1,0 use-bias=false orthonormal-constraint=-1\n"
      "component-node name=tdnn component=tdnn input=input\n"
      "output-node name=output input=tdnn\n");
  auto *tdnn = dynamic_cast<TdnnComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex("tdnn")));
  ASSERT_TRUE(tdnn != nullptr);
  RandomSource rng(7);
  Matrix<BaseFloat> start = NearSemiOrthogonal(6, 8, 0.7, 0.03, &rng);
  tdnn->LinearParams().CopyFromMat(start);
  Srand(11);
  for (int32 call = 0; call < 100; call++) ConstrainOrthonormal(&nnet);
  const MatrixBase<BaseFloat> &m = tdnn->LinearParams().Mat();
  double mean_sq = 0;
  for (int32 i = 0; i < 6; i++)
    for (int32 j = 0; j < 8; j++) mean_sq += double(m(i, j)) * m(i, j) / 6;
  EXPECT_NEAR(mean_sq, 0.49, 0.05);
  EXPECT_LT(GramError(m, mean_sq), 1e-4);
  EXPECT_GT(GramError(start, mean_sq), 1e-3);  // it did have to change
}

}  // namespace
}  // namespace nnet3
