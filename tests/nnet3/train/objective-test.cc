// tests/nnet3/train/objective-test.cc
// Objectives and accuracy on hand-built matrices, against values worked
// out by hand: linear (sparse, full and compressed supervision), quadratic,
// the dimension check, and accuracy with ties.
#include <gtest/gtest.h>

#include "nnet3/train/objective.h"
#include "util/posterior.h"

namespace nnet3 {
namespace {

Matrix<BaseFloat> Mat(int32 rows, int32 cols, std::vector<float> v) {
  Matrix<BaseFloat> m(rows, cols);
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c++) m(r, c) = v[r * cols + c];
  return m;
}

CuMatrix<BaseFloat> CuMat(int32 rows, int32 cols, std::vector<float> v) {
  return CuMatrix<BaseFloat>(Mat(rows, cols, v));
}

SparseMatrix<BaseFloat> Sparse(int32 dim, const Posterior &post) {
  return SparseMatrix<BaseFloat>(dim, post);
}

TEST(ObjectiveTest, LinearSparse) {
  // output rows: log-probabilities; supervision: row 0 -> class 1 (w 1),
  // row 1 -> class 0 (0.5) and class 2 (0.25).
  CuMatrix<BaseFloat> out = CuMat(2, 3, {-1, -2, -3, -4, -5, -6});
  Posterior post = {{{1, 1.0}}, {{0, 0.5}, {2, 0.25}}};
  GeneralMatrix sup(Sparse(3, post));
  BaseFloat w, objf;
  CuMatrix<BaseFloat> deriv;
  ComputeObjective(sup, kLinear, "output", out, &w, &objf, &deriv);
  EXPECT_FLOAT_EQ(w, 1.75);
  EXPECT_FLOAT_EQ(objf, -2.0 + 0.5 * -4 + 0.25 * -6);  // -5.5
  EXPECT_FLOAT_EQ(deriv.Mat()(0, 1), 1.0);
  EXPECT_FLOAT_EQ(deriv.Mat()(1, 0), 0.5);
  EXPECT_FLOAT_EQ(deriv.Mat()(1, 2), 0.25);
  EXPECT_FLOAT_EQ(deriv.Mat()(0, 0), 0.0);
}

TEST(ObjectiveTest, LinearFullAndCompressedAgree) {
  CuMatrix<BaseFloat> out = CuMat(2, 2, {1, 2, 3, 4});
  Matrix<BaseFloat> t = Mat(2, 2, {0.5, 0.5, 0, 1});
  BaseFloat w, objf;
  ComputeObjective(GeneralMatrix(t), kLinear, "output", out, &w, &objf,
                   nullptr);
  EXPECT_FLOAT_EQ(w, 2.0);
  EXPECT_FLOAT_EQ(objf, 0.5 + 1.0 + 4.0);
  GeneralMatrix c(t);
  c.Compress();
  BaseFloat w2, objf2;
  ComputeObjective(c, kLinear, "output", out, &w2, &objf2, nullptr);
  EXPECT_NEAR(w2, 2.0, 0.02);
  EXPECT_NEAR(objf2, 5.5, 0.05);
}

TEST(ObjectiveTest, Quadratic) {
  CuMatrix<BaseFloat> out = CuMat(2, 2, {1, 2, 3, 4});
  Matrix<BaseFloat> t = Mat(2, 2, {1, 0, 0, 4});
  BaseFloat w, objf;
  CuMatrix<BaseFloat> deriv;
  ComputeObjective(GeneralMatrix(t), kQuadratic, "output", out, &w, &objf,
                   &deriv);
  EXPECT_FLOAT_EQ(w, 2.0);  // rows
  EXPECT_FLOAT_EQ(objf, -0.5 * (4.0 + 9.0));
  // d/dy of -0.5 ||t - y||^2 is t - y.
  EXPECT_FLOAT_EQ(deriv.Mat()(0, 1), -2.0);
  EXPECT_FLOAT_EQ(deriv.Mat()(1, 0), -3.0);
  EXPECT_FLOAT_EQ(deriv.Mat()(1, 1), 0.0);
}

TEST(ObjectiveTest, DimensionMismatchNamesOutput) {
  CuMatrix<BaseFloat> out(2, 3);
  Matrix<BaseFloat> t(2, 4);
  BaseFloat w, objf;
  try {
    ComputeObjective(GeneralMatrix(t), kLinear, "out7", out, &w, &objf,
                     nullptr);
    FAIL() << "expected an error";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("'out7': 3 (nnet) vs. 4 (egs)"),
              std::string::npos)
        << e.message();
  }
}

TEST(AccuracyTest, FirstMaximumWinsTies) {
  // Row 0: output max at 2, reference 2 -> correct (weight 1).
  // Row 1: output tie between 0 and 1 -> 0; reference 1 -> wrong (w 2).
  // Row 2: reference with tie 0/2 in a full row -> 0; output 0 -> correct.
  CuMatrix<BaseFloat> out = CuMat(3, 3, {0, 1, 5, 3, 3, 1, 9, 0, 0});
  Matrix<BaseFloat> ref = Mat(3, 3, {0, 0, 1, 0, 2, 0, 0.5, 0, 0.5});
  BaseFloat w, acc;
  Vector<BaseFloat> wv(3), av(3);
  ComputeAccuracy(GeneralMatrix(ref), out, &w, &acc, &wv, &av);
  EXPECT_FLOAT_EQ(w, 4.0);
  EXPECT_FLOAT_EQ(acc, 2.0);
  EXPECT_FLOAT_EQ(wv(0), 1.0);
  EXPECT_FLOAT_EQ(wv(1), 2.0);
  EXPECT_FLOAT_EQ(wv(2), 1.0);
  EXPECT_FLOAT_EQ(av(1), 0.0);
  EXPECT_FLOAT_EQ(av(0), 1.0);
  // The same with sparse supervision.
  Posterior post = {{{2, 1.0}}, {{1, 2.0}}, {{0, 0.5}, {2, 0.5}}};
  BaseFloat w2, acc2;
  ComputeAccuracy(GeneralMatrix(Sparse(3, post)), out, &w2, &acc2);
  EXPECT_FLOAT_EQ(w2, 4.0);
  EXPECT_FLOAT_EQ(acc2, 2.0);
}

}  // namespace
}  // namespace nnet3
