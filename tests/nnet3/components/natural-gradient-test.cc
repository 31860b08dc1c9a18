// tests/nnet3/components/natural-gradient-test.cc
// OnlineNaturalGradient and the components that use it. Oracles: the
// algebra of the method checked in double on the exposed state (the
// preconditioned rows equal x (I - W^T W), and beta G^{-1} = I - W^T W for
// G = R^T D R + beta I, R = E^{-1/2} W, which needs no inversion: G P =
// beta I), positive definiteness by a Cholesky in the test, norm
// preservation, orthonormal rows, convergence to a known covariance, the
// schedule of updates, and one SGD step (and three with momentum) of Kaldi's
// nnet3-train on a NaturalGradientAffineComponent network, compared with
// Kaldi's trained models (tests/data/kaldi/train/natgrad.*).
#include "nnet3/components/natural-gradient-online.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "nnet3/components/affine.h"
#include "nnet3/components/component-test-util.h"
#include "nnet3/components/per-element.h"
#include "nnet3/nnet/nnet.h"
#include "util/stream.h"

namespace nnet3 {
namespace {

typedef std::vector<std::vector<double>> DMat;

// I - W^T W (D x D), in double.
DMat Projector(const MatrixBase<BaseFloat> &W) {
  int32 R = W.NumRows(), D = W.NumCols();
  DMat p(D, std::vector<double>(D, 0.0));
  for (int32 i = 0; i < D; i++)
    for (int32 j = 0; j < D; j++) {
      double s = (i == j ? 1.0 : 0.0);
      for (int32 r = 0; r < R; r++) s -= double(W(r, i)) * W(r, j);
      p[i][j] = s;
    }
  return p;
}

// True if the symmetric matrix a is positive definite (Cholesky succeeds).
bool IsPositiveDefinite(const DMat &a) {
  int32 n = a.size();
  DMat c(n, std::vector<double>(n, 0.0));
  for (int32 j = 0; j < n; j++) {
    double d = a[j][j];
    for (int32 k = 0; k < j; k++) d -= c[j][k] * c[j][k];
    if (!(d > 0.0)) return false;
    c[j][j] = std::sqrt(d);
    for (int32 i = j + 1; i < n; i++) {
      double s = a[i][j];
      for (int32 k = 0; k < j; k++) s -= c[i][k] * c[j][k];
      c[i][j] = s / c[j][j];
    }
  }
  return true;
}

double FrobeniusSq(const MatrixBase<BaseFloat> &m) {
  double s = 0.0;
  for (int32 i = 0; i < m.NumRows(); i++)
    for (int32 j = 0; j < m.NumCols(); j++) s += double(m(i, j)) * m(i, j);
  return s;
}

// Random N x D data whose rows have covariance V diag(stddev^2) V^T for a
// fixed random rotation V (given as a D x D matrix with orthonormal columns).
Matrix<BaseFloat> CorrelatedData(int32 N, const DMat &V,
                                 const std::vector<double> &stddev,
                                 RandomSource *rs) {
  int32 D = V.size();
  Matrix<BaseFloat> x(N, D);
  for (int32 n = 0; n < N; n++) {
    std::vector<double> z(D);
    for (int32 k = 0; k < D; k++) z[k] = rs->Gauss() * stddev[k];
    for (int32 i = 0; i < D; i++) {
      double s = 0.0;
      for (int32 k = 0; k < D; k++) s += V[i][k] * z[k];
      x(n, i) = s;
    }
  }
  return x;
}

// A random orthogonal D x D matrix (Gram-Schmidt of Gaussian columns).
DMat RandomRotation(int32 D, RandomSource *rs) {
  DMat v(D, std::vector<double>(D));
  for (int32 k = 0; k < D; k++) {
    std::vector<double> c(D);
    for (int32 i = 0; i < D; i++) c[i] = rs->Gauss();
    for (int32 pass = 0; pass < 2; pass++)
      for (int32 m = 0; m < k; m++) {
        double dot = 0.0;
        for (int32 i = 0; i < D; i++) dot += c[i] * v[i][m];
        for (int32 i = 0; i < D; i++) c[i] -= dot * v[i][m];
      }
    double norm = 0.0;
    for (double x : c) norm += x * x;
    norm = std::sqrt(norm);
    for (int32 i = 0; i < D; i++) v[i][k] = c[i] / norm;
  }
  return v;
}

OnlineNaturalGradient MakePreconditioner(int32 rank, int32 update_period,
                                         BaseFloat num_samples_history,
                                         BaseFloat alpha) {
  OnlineNaturalGradient p;
  p.SetRank(rank);
  p.SetUpdatePeriod(update_period);
  p.SetNumSamplesHistory(num_samples_history);
  p.SetAlpha(alpha);
  return p;
}

std::unique_ptr<Component> FromConfig(Component *c, const std::string &line) {
  std::unique_ptr<Component> ans(c);
  ConfigLine cfl;
  std::string error;
  EXPECT_TRUE(cfl.ParseLine(line, &error)) << error;
  ans->InitFromConfig(&cfl);
  return ans;
}

Matrix<BaseFloat> RandomMatrix(int32 rows, int32 cols, RandomSource *rs) {
  Matrix<BaseFloat> m(rows, cols);
  m.SetRandn(rs);
  return m;
}

// Checks the state invariants against the definitions: R = E^{-1/2} W has
// orthonormal rows (max |R R^T - I| <= tol), e_i = d_i / (d_i + beta) with
// beta = rho (1 + alpha) + alpha tr(D) / dim, and G P = beta I for
// G = R^T D R + beta I, P = I - W^T W.
void CheckStateAlgebra(const OnlineNaturalGradient &p, double tol) {
  const Matrix<BaseFloat> W = ToHost(p.W());
  int32 R = W.NumRows(), D = W.NumCols();
  double alpha = p.GetAlpha(), rho = p.Rho(), tr_d = 0.0;
  ASSERT_EQ(p.DiagD().Dim(), R);
  for (int32 i = 0; i < R; i++) {
    EXPECT_GT(p.DiagD()(i), 0.0);
    tr_d += p.DiagD()(i);
  }
  EXPECT_GT(rho, 0.0);
  double beta = rho * (1.0 + alpha) + alpha * tr_d / D;
  std::vector<double> e(R);
  for (int32 i = 0; i < R; i++) e[i] = p.DiagD()(i) / (p.DiagD()(i) + beta);
  DMat Rm(R, std::vector<double>(D));
  for (int32 i = 0; i < R; i++)
    for (int32 j = 0; j < D; j++) Rm[i][j] = W(i, j) / std::sqrt(e[i]);
  double worst = 0.0;
  for (int32 i = 0; i < R; i++)
    for (int32 k = 0; k < R; k++) {
      double s = 0.0;
      for (int32 j = 0; j < D; j++) s += Rm[i][j] * Rm[k][j];
      worst = std::max(worst, std::fabs(s - (i == k ? 1.0 : 0.0)));
    }
  EXPECT_LT(worst, tol) << "rows of R_t not orthonormal";
  DMat P = Projector(W);
  double worst_g = 0.0;
  for (int32 i = 0; i < D; i++)
    for (int32 j = 0; j < D; j++) {
      double s = 0.0;  // (G P)(i, j)
      for (int32 k = 0; k < D; k++) {
        double g = (i == k ? beta : 0.0);
        for (int32 r = 0; r < R; r++)
          g += Rm[r][i] * p.DiagD()(r) * Rm[r][k];
        s += g * P[k][j];
      }
      worst_g = std::max(worst_g,
                         std::fabs(s - (i == j ? beta : 0.0)) / beta);
    }
  EXPECT_LT(worst_g, 10 * tol) << "G P != beta I";
}

// One call of the preconditioner: the output rows equal x (I - W^T W) with
// the state before the call, the returned scale restores the Frobenius
// norm, and the map is symmetric positive definite.
void CheckOneCall(OnlineNaturalGradient *p, const Matrix<BaseFloat> &X) {
  bool initialized = p->NumCalls() > 0;
  Matrix<BaseFloat> W_before = ToHost(p->W());
  CuMatrix<BaseFloat> cu_Y(X);
  BaseFloat scale = -1.0;
  p->PreconditionDirections(&cu_Y, &scale);
  Matrix<BaseFloat> Y = ToHost(cu_Y);
  double in_norm = FrobeniusSq(X), out_norm = FrobeniusSq(Y);
  EXPECT_NEAR(scale * scale * out_norm, in_norm, 1e-4 * in_norm);
  if (initialized) {
    DMat P = Projector(W_before);
    EXPECT_TRUE(IsPositiveDefinite(P));
    for (int32 n = 0; n < X.NumRows(); n++)
      for (int32 j = 0; j < X.NumCols(); j++) {
        double s = 0.0;
        for (int32 k = 0; k < X.NumCols(); k++) s += X(n, k) * P[k][j];
        ASSERT_NEAR(Y(n, j), s, 1e-4 * std::sqrt(in_norm / X.NumRows()) + 1e-6);
      }
  }
  // A descent direction: tr(Y X^T) > 0.
  EXPECT_GT(TraceMatMat(Y, X, kTrans), 0.0);
}

TEST(NaturalGradientTest, PreconditionedRowsAndScale) {
  RandomSource rs(11);
  DMat V = RandomRotation(12, &rs);
  std::vector<double> sd(12, 1.0);
  sd[0] = 10.0; sd[1] = 5.0; sd[2] = 3.0;
  OnlineNaturalGradient p = MakePreconditioner(4, 1, 2000.0, 4.0);
  for (int32 it = 0; it < 30; it++) {
    Matrix<BaseFloat> X = CorrelatedData(it % 3 == 0 ? 3 : 50, V, sd, &rs);
    CheckOneCall(&p, X);
    CheckStateAlgebra(p, 2e-3);
  }
  EXPECT_EQ(p.NumCalls(), 30);
}

// PreconditionWithOnes on X against PreconditionDirections on [X, 1]
// formed: the same preconditioned matrix ([X, 1] - H W), scale and state
// after every call, through the initial updates, the periodic ones and the
// calls in between. With a large common offset in the data, the projection
// takes nearly all of [X, 1], so the algebraic trace would cancel and the
// formed one must be taken instead: the test checks that each data set
// was in the regime it is meant for.
// X is passed whole and, as a TdnnComponent passes its spliced input, as
// column blocks (here of unequal widths).
TEST(NaturalGradientTest, UnformedColumnOfOnesMatchesTheFormedMatrix) {
  RandomSource rs(17);
  for (int32 num_blocks : {1, 3})
  for (BaseFloat offset : {0.0f, 1000.0f}) {
    const int32 D = (offset == 0.0f ? 12 : 120);
    DMat V = RandomRotation(D, &rs);
    std::vector<double> sd(D, 1.0);
    sd[0] = 6.0; sd[1] = 3.0;
    OnlineNaturalGradient formed = MakePreconditioner(4, 2, 500.0, 4.0),
                          unformed = formed;
    int32 small_remainders = 0, large_remainders = 0;
    for (int32 t = 0; t < 24; t++) {
      SCOPED_TRACE("blocks " + std::to_string(num_blocks) + " offset " +
                   std::to_string(offset) + " call " + std::to_string(t));
      Matrix<BaseFloat> X = CorrelatedData(t % 5 == 0 ? 3 : 30, V, sd, &rs);
      X.Add(offset);
      Matrix<BaseFloat> X1(X.NumRows(), D + 1);
      X1.ColRange(0, D).CopyFromMat(X);
      X1.ColRange(D, 1).Set(1.0);
      const double before = TraceMatMat(X1, X1, kTrans);
      const Matrix<BaseFloat> W_before = ToHost(unformed.W());
      ASSERT_EQ(formed.Updating(), unformed.Updating());

      CuMatrix<BaseFloat> Y(X1);
      BaseFloat scale_formed, scale_unformed;
      formed.PreconditionDirections(&Y, &scale_formed);
      CuMatrix<BaseFloat> H, W, X_cu(X);
      if (num_blocks == 1) {
        unformed.PreconditionWithOnes(X_cu, &H, &W, &scale_unformed);
      } else {
        const int32 widths[3] = {D / 2, D / 3, D - D / 2 - D / 3};
        std::vector<CuSubMatrix<BaseFloat> > blocks;
        for (int32 b = 0, col = 0; b < 3; col += widths[b++])
          blocks.push_back(X_cu.ColRange(col, widths[b]));
        unformed.PreconditionWithOnes(blocks, &H, &W, &scale_unformed);
      }
      const Matrix<BaseFloat> y = ToHost(Y), h = ToHost(H), w = ToHost(W);
      ASSERT_EQ(h.NumRows(), X.NumRows());
      ASSERT_EQ(w.NumCols(), D + 1);
      if (t > 0) {  // the estimate applied is the one before the call
        ASSERT_EQ(w.NumRows(), W_before.NumRows());
        EXPECT_TRUE(w.Equal(W_before));
      }
      double max_abs = 0.0, after = 0.0;
      for (int32 n = 0; n < X.NumRows(); n++)
        for (int32 j = 0; j <= D; j++) {
          max_abs = std::max(max_abs, std::fabs(double(X1(n, j))));
          after += double(y(n, j)) * y(n, j);
        }
      for (int32 n = 0; n < X.NumRows(); n++)
        for (int32 j = 0; j <= D; j++) {
          double v = X1(n, j);
          for (int32 r = 0; r < h.NumCols(); r++)
            v -= double(h(n, r)) * w(r, j);
          ASSERT_NEAR(v, y(n, j), 1e-5 * max_abs) << n << "," << j;
        }
      (after < 0.1 * before ? small_remainders : large_remainders)++;
      EXPECT_NEAR(scale_unformed, scale_formed, 2e-5 * scale_formed);
      const Matrix<BaseFloat> Wf = ToHost(formed.W()),
                              Wu = ToHost(unformed.W());
      // W^T W rather than W: the rows of W (eigenvectors) whose variances
      // are (nearly) equal may come out with another sign or rotated among
      // themselves when rounding differs, which leaves W^T W (nearly) as it
      // is.
      Matrix<BaseFloat> Pf(D + 1, D + 1), Pu(D + 1, D + 1);
      Pf.AddMatMat(1.0, Wf, kTrans, Wf, kNoTrans, 0.0);
      Pu.AddMatMat(1.0, Wu, kTrans, Wu, kNoTrans, 0.0);
      ASSERT_EQ(Wu.NumRows(), Wf.NumRows());
      for (int32 i = 0; i <= D; i++)
        for (int32 j = 0; j <= D; j++)
          ASSERT_NEAR(Pu(i, j), Pf(i, j), 1e-5) << i << "," << j;
      EXPECT_NEAR(unformed.Rho(), formed.Rho(), 1e-4 * formed.Rho());
      for (int32 r = 0; r < formed.DiagD().Dim(); r++)
        EXPECT_NEAR(unformed.DiagD()(r), formed.DiagD()(r),
                    1e-4 * formed.DiagD()(r));
      EXPECT_EQ(unformed.NumCalls(), formed.NumCalls());
    }
    if (offset == 0.0f) {
      EXPECT_EQ(small_remainders, 0);
      EXPECT_EQ(large_remainders, 24);
    } else {
      EXPECT_GT(small_remainders, 0);
    }
  }
}

// After many updates with data of a known covariance, F_t approximates it:
// R_t spans the top eigenvectors and d_i + rho their variances.
TEST(NaturalGradientTest, ConvergesToCovariance) {
  RandomSource rs(5);
  const int32 D = 10;
  DMat V = RandomRotation(D, &rs);
  std::vector<double> sd(D, 1.0);
  sd[0] = 10.0; sd[1] = 7.0; sd[2] = 4.0;  // variances 100, 49, 16, then 1
  OnlineNaturalGradient p = MakePreconditioner(3, 1, 2000.0, 4.0);
  for (int32 it = 0; it < 400; it++) {
    CuMatrix<BaseFloat> X(CorrelatedData(100, V, sd, &rs));
    BaseFloat scale;
    p.PreconditionDirections(&X, &scale);
  }
  CheckStateAlgebra(p, 2e-3);
  const Matrix<BaseFloat> W = ToHost(p.W());
  double rho = p.Rho(), tr_d = 0.0;
  for (int32 i = 0; i < 3; i++) tr_d += p.DiagD()(i);
  double beta = rho * 5.0 + 4.0 * tr_d / D;
  EXPECT_NEAR(rho, 1.0, 0.25);
  const double expected_var[3] = {100.0, 49.0, 16.0};
  for (int32 i = 0; i < 3; i++) {
    double d = p.DiagD()(i), e = d / (d + beta);
    // Row i of R_t against the i'th eigenvector of the covariance.
    double dot = 0.0;
    for (int32 j = 0; j < D; j++) dot += W(i, j) / std::sqrt(e) * V[j][i];
    EXPECT_GT(std::fabs(dot), 0.97) << i;
    EXPECT_NEAR(d + rho, expected_var[i], 0.2 * expected_var[i]) << i;
  }
}

// Isotropic data: the preconditioner is close to a multiple of the identity,
// so the rescaled output is close to the input.
TEST(NaturalGradientTest, IsotropicDataIsNearlyUnchanged) {
  RandomSource rs(9);
  const int32 D = 16;
  DMat V = RandomRotation(D, &rs);
  std::vector<double> sd(D, 2.0);
  OnlineNaturalGradient p = MakePreconditioner(5, 1, 2000.0, 4.0);
  double rel = 1.0;
  for (int32 it = 0; it < 100; it++) {
    Matrix<BaseFloat> X = CorrelatedData(200, V, sd, &rs);
    CuMatrix<BaseFloat> cu_Y(X);
    BaseFloat scale;
    p.PreconditionDirections(&cu_Y, &scale);
    Matrix<BaseFloat> Y = ToHost(cu_Y);
    Y.Scale(scale);
    Y.AddMat(-1.0, X);
    rel = std::sqrt(FrobeniusSq(Y) / FrobeniusSq(X));
  }
  EXPECT_LT(rel, 0.05);
}

// Updates happen on the first 11 calls and then on every update-period-th
// call; frozen means never (after the initializing first call).
TEST(NaturalGradientTest, UpdatePeriodAndFreeze) {
  RandomSource rs(3);
  DMat V = RandomRotation(8, &rs);
  std::vector<double> sd = {5, 4, 3, 2, 1, 1, 1, 1};
  OnlineNaturalGradient p = MakePreconditioner(3, 3, 500.0, 4.0);
  for (int32 t = 0; t < 30; t++) {
    Matrix<BaseFloat> W_before = ToHost(p.W());
    BaseFloat rho_before = p.Rho();
    bool expect_update = t <= 10 || (t - 10) % 3 == 0;
    EXPECT_EQ(p.Updating(), expect_update) << t;
    Matrix<BaseFloat> X = CorrelatedData(20, V, sd, &rs);
    CheckOneCall(&p, X);
    if (t > 0) {
      bool changed = !W_before.Equal(ToHost(p.W())) || rho_before != p.Rho();
      EXPECT_EQ(changed, expect_update) << t;
    }
  }
  p.Freeze(true);
  Matrix<BaseFloat> W_frozen = ToHost(p.W());
  BaseFloat rho_frozen = p.Rho();
  for (int32 t = 0; t < 12; t++) {
    EXPECT_FALSE(p.Updating());
    CheckOneCall(&p, CorrelatedData(20, V, sd, &rs));
  }
  EXPECT_TRUE(W_frozen.Equal(ToHost(p.W())));
  EXPECT_EQ(rho_frozen, p.Rho());
  // A frozen, fresh preconditioner still initializes on its first call,
  // then stays fixed.
  OnlineNaturalGradient q = MakePreconditioner(3, 1, 500.0, 4.0);
  q.Freeze(true);
  CheckOneCall(&q, CorrelatedData(20, V, sd, &rs));
  ASSERT_EQ(q.W().NumRows(), 3);
  Matrix<BaseFloat> W_q = ToHost(q.W());
  CheckOneCall(&q, CorrelatedData(20, V, sd, &rs));
  EXPECT_TRUE(W_q.Equal(ToHost(q.W())));
}

// Orthonormality of R_t survives many updates with badly scaled and
// rank-deficient data, and all-zero minibatches leave the output zero.
TEST(NaturalGradientTest, StaysOrthonormalOnHardData) {
  RandomSource rs(21);
  const int32 D = 20;
  DMat V = RandomRotation(D, &rs);
  OnlineNaturalGradient p = MakePreconditioner(8, 1, 200.0, 4.0);
  for (int32 it = 0; it < 200; it++) {
    std::vector<double> sd(D, 0.0);
    int32 rank = 1 + it % 7;  // rank below the preconditioner's
    for (int32 k = 0; k < rank; k++)
      sd[k] = std::pow(10.0, (it % 5) - 2) * (k + 1);
    Matrix<BaseFloat> X = CorrelatedData(16, V, sd, &rs);
    if (it % 37 == 36) X.SetZero();
    CuMatrix<BaseFloat> Y(X);
    BaseFloat scale;
    p.PreconditionDirections(&Y, &scale);
    ASSERT_TRUE(Y.IsFinite());
    if (it % 37 == 36) {
      EXPECT_EQ(scale, 1.0);
      EXPECT_TRUE(Y.IsZero(0.0));
    }
  }
  CheckStateAlgebra(p, 2e-3);
  EXPECT_GE(p.Rho(), 1e-10);
}

TEST(NaturalGradientTest, SpecialCases) {
  // Dimension 1: identity, scale 1, no state.
  OnlineNaturalGradient p = MakePreconditioner(4, 1, 2000.0, 4.0);
  Matrix<BaseFloat> X(5, 1);
  for (int32 i = 0; i < 5; i++) X(i, 0) = i - 2.0;
  CuMatrix<BaseFloat> Y(X);
  BaseFloat scale = 0.0;
  p.PreconditionDirections(&Y, &scale);
  EXPECT_EQ(scale, 1.0);
  EXPECT_TRUE(ToHost(Y).Equal(X));
  // Rank not below the dimension: reduced to dimension - 1.
  RandomSource rs(2);
  OnlineNaturalGradient q = MakePreconditioner(6, 1, 2000.0, 4.0);
  Matrix<BaseFloat> Z(10, 4);
  Z.SetRandn(&rs);
  CheckOneCall(&q, Z);
  EXPECT_EQ(q.GetRank(), 3);
  EXPECT_EQ(q.W().NumRows(), 3);
  CheckOneCall(&q, Z);
  CheckStateAlgebra(q, 2e-3);
  // A component writes the rank its preconditioner actually uses (as Kaldi
  // does): per-element scale of dimension 4 with rank 8 trains with rank 3.
  auto c = FromConfig(new NaturalGradientPerElementScaleComponent(),
                      "dim=4 rank=8 learning-rate=0.1");
  EXPECT_NE(testing::WriteToString(*c, false).find("<Rank> 8 "),
            std::string::npos);
  CuMatrix<BaseFloat> in(10, 4), out_deriv(10, 4), out(10, 4);
  in.SetRandn(&rs);
  out_deriv.SetRandn(&rs);
  c->Backprop("", nullptr, in, out, out_deriv, nullptr, c.get(), nullptr);
  EXPECT_NE(testing::WriteToString(*c, false).find("<Rank> 3 "),
            std::string::npos);
}

// A copy continues exactly as the original.
TEST(NaturalGradientTest, CopyCarriesState) {
  RandomSource rs(8);
  OnlineNaturalGradient p = MakePreconditioner(3, 2, 1000.0, 2.0);
  for (int32 i = 0; i < 5; i++) {
    CuMatrix<BaseFloat> X(30, 9);
    X.SetRandn(&rs);
    BaseFloat s;
    p.PreconditionDirections(&X, &s);
  }
  OnlineNaturalGradient c(p);
  for (int32 i = 0; i < 15; i++) {
    CuMatrix<BaseFloat> X(30, 9);
    X.SetRandn(&rs);
    CuMatrix<BaseFloat> X2(X);
    BaseFloat s1, s2;
    p.PreconditionDirections(&X, &s1);
    c.PreconditionDirections(&X2, &s2);
    EXPECT_TRUE(X.Equal(X2));
    EXPECT_EQ(s1, s2);
  }
}

// ---- components ---------------------------------------------------------

// The update of NaturalGradientAffineComponent equals lr * s_in * s_out *
// Ohat^T [Ihat | bhat], with the preconditioned [in, 1] and out_deriv from
// two preconditioners with the component's options driven the same way.
TEST(NaturalGradientComponentTest, AffineUpdateComposition) {
  RandomSource rs(4);
  auto c = FromConfig(new NaturalGradientAffineComponent(),
                      "input-dim=6 output-dim=5 learning-rate=0.1 rank-in=3 "
                      "rank-out=2 update-period=1 num-samples-history=500 "
                      "alpha=3");
  auto *ng = dynamic_cast<NaturalGradientAffineComponent *>(c.get());
  OnlineNaturalGradient pin = MakePreconditioner(3, 1, 500.0, 3.0),
                        pout = MakePreconditioner(2, 1, 500.0, 3.0);
  for (int32 step = 0; step < 4; step++) {
    CuMatrix<BaseFloat> in(20, 6), out_deriv(20, 5), out(20, 5);
    in.SetRandn(&rs);
    out_deriv.SetRandn(&rs);
    Matrix<BaseFloat> W0 = ToHost(ng->LinearParams());
    Vector<BaseFloat> b0 = ToHost(ng->BiasParams());
    ng->Backprop("", nullptr, in, out, out_deriv, nullptr, ng, nullptr);
    Matrix<BaseFloat> ia(20, 7);
    for (int32 r = 0; r < 20; r++) {
      for (int32 j = 0; j < 6; j++) ia(r, j) = in.Mat()(r, j);
      ia(r, 6) = 1.0;
    }
    CuMatrix<BaseFloat> cu_ia(ia), cu_od(out_deriv);
    BaseFloat s_in, s_out;
    pin.PreconditionDirections(&cu_ia, &s_in);
    pout.PreconditionDirections(&cu_od, &s_out);
    cu_ia.CopyToMat(&ia);
    Matrix<BaseFloat> od = ToHost(cu_od);
    double lr = 0.1 * double(s_in) * s_out;
    for (int32 i = 0; i < 5; i++) {
      for (int32 j = 0; j <= 6; j++) {
        double s = 0.0;
        for (int32 r = 0; r < 20; r++) s += double(od(r, i)) * ia(r, j);
        double expected = (j < 6 ? W0(i, j) : b0(i)) + lr * s;
        double got = (j < 6 ? ng->LinearParams().Mat()(i, j)
                              : ng->BiasParams().Vec()(i));
        EXPECT_NEAR(got, expected, 1e-5) << step << " " << i << " " << j;
      }
    }
  }
  EXPECT_EQ(ng->PreconditionerIn().NumCalls(), 4);
  // Copies carry the state; a component read back from disk starts fresh.
  std::unique_ptr<Component> copy(ng->Copy());
  EXPECT_EQ(dynamic_cast<NaturalGradientAffineComponent *>(copy.get())
                ->PreconditionerOut().NumCalls(), 4);
  std::string text = testing::WriteToString(*ng, false);
  NaturalGradientAffineComponent back;
  std::istringstream is(text);
  back.Read(is, false);
  EXPECT_EQ(back.PreconditionerIn().NumCalls(), 0);
  EXPECT_EQ(back.PreconditionerIn().GetRank(), 3);
  EXPECT_EQ(back.PreconditionerOut().GetRank(), 2);
}

// Plain SGD where Kaldi does it: only for a gradient (is_gradient_).
// LinearComponent's use-natural-gradient=false does not change Kaldi's update
// (the flag is only stored), so it is preconditioned too; the natural-gradient
// update differs from plain SGD.
TEST(NaturalGradientComponentTest, WhenPlainSgd) {
  RandomSource rs(6);
  CuMatrix<BaseFloat> in(30, 6), out_deriv(30, 4), out(30, 4);
  in.SetRandn(&rs);
  out_deriv.SetRandn(&rs);
  Matrix<BaseFloat> sgd(4, 6);
  sgd.AddMatMat(0.5, ToHost(out_deriv), kTrans, ToHost(in), kNoTrans, 0.0);
  for (int32 variant = 0; variant < 4; variant++) {
    std::unique_ptr<Component> c;
    if (variant < 2) {
      c = FromConfig(new NaturalGradientAffineComponent(),
                     "input-dim=6 output-dim=4 learning-rate=0.5");
    } else {
      c = FromConfig(new LinearComponent(),
                     std::string("input-dim=6 output-dim=4 learning-rate=0.5 "
                                 "use-natural-gradient=") +
                         (variant == 2 ? "false" : "true"));
    }
    auto *u = dynamic_cast<UpdatableComponent *>(c.get());
    bool gradient = (variant == 1);
    if (gradient) {
      u->SetAsGradient();
      u->SetActualLearningRate(0.5);
    }
    Matrix<BaseFloat> before(4, 6);
    if (variant < 2)
      dynamic_cast<AffineComponent *>(u)->LinearParams().CopyToMat(&before);
    else
      dynamic_cast<LinearComponent *>(u)->Params().CopyToMat(&before);
    c->Backprop("", nullptr, in, out, out_deriv, nullptr, c.get(), nullptr);
    Matrix<BaseFloat> delta(4, 6);
    if (variant < 2)
      dynamic_cast<AffineComponent *>(u)->LinearParams().CopyToMat(&delta);
    else
      dynamic_cast<LinearComponent *>(u)->Params().CopyToMat(&delta);
    delta.AddMat(-1.0, before);
    delta.AddMat(-1.0, sgd);
    double diff = std::sqrt(FrobeniusSq(delta) / FrobeniusSq(sgd));
    bool plain = (variant == 1);
    if (plain)
      EXPECT_LT(diff, 1e-5) << variant;
    else
      EXPECT_GT(diff, 1e-2) << variant;
  }
}

// NaturalGradientPerElementScaleComponent: the scales move by lr * s times
// the column sums of the preconditioned per-frame derivatives in .* out_deriv.
TEST(NaturalGradientComponentTest, PerElementScaleUpdate) {
  RandomSource rs(12);
  auto c = FromConfig(new NaturalGradientPerElementScaleComponent(),
                      "dim=7 learning-rate=0.2 param-stddev=1 rank=3 "
                      "update-period=2 num-samples-history=300 alpha=2");
  auto *pe = dynamic_cast<NaturalGradientPerElementScaleComponent *>(c.get());
  OnlineNaturalGradient oracle = MakePreconditioner(3, 2, 300.0, 2.0);
  for (int32 step = 0; step < 15; step++) {
    CuMatrix<BaseFloat> in(25, 7), out_deriv(25, 7), out(25, 7);
    in.SetRandn(&rs);
    out_deriv.SetRandn(&rs);
    Vector<BaseFloat> s0 = ToHost(pe->Scales());
    pe->Backprop("", nullptr, in, out, out_deriv, nullptr, pe, nullptr);
    CuMatrix<BaseFloat> g(in);
    g.MulElements(out_deriv);
    BaseFloat scale;
    oracle.PreconditionDirections(&g, &scale);
    for (int32 j = 0; j < 7; j++) {
      double s = 0.0;
      for (int32 r = 0; r < 25; r++) s += g.Mat()(r, j);
      EXPECT_NEAR(pe->Scales().Vec()(j), s0(j) + 0.2 * scale * s, 1e-5);
    }
  }
  std::unique_ptr<Component> frozen(pe->Copy());
  frozen->Scale(1.0);
  dynamic_cast<UpdatableComponent *>(frozen.get())->FreezeNaturalGradient(true);
  auto *pf =
      dynamic_cast<NaturalGradientPerElementScaleComponent *>(frozen.get());
  EXPECT_EQ(pf->Preconditioner().NumCalls(), 15);
  EXPECT_TRUE(pf->Preconditioner().Frozen());
}

// PerElementOffsetComponent (rank 20, update period 4, on out_deriv seen as
// rows of block-dim), ScaleAndOffsetComponent (rank from the config, update
// period 4; offsets from out_deriv, scales from in .* out_deriv) and
// ConstantFunctionComponent (rank 40, update period 1): the parameters move
// by lr * s times the column sums of the preconditioned derivatives; with
// use-natural-gradient=false by the plain gradient.
TEST(NaturalGradientComponentTest, OffsetScaleAndOffsetConstantFunction) {
  RandomSource rs(15);
  for (bool ng : {true, false}) {
    std::string ng_opt = ng ? "" : " use-natural-gradient=false";
    auto off = FromConfig(new PerElementOffsetComponent(),
                          "dim=12 block-dim=6 learning-rate=0.3" + ng_opt);
    auto so = FromConfig(new ScaleAndOffsetComponent(),
                         "dim=12 block-dim=6 rank=3 learning-rate=0.3" +
                             ng_opt);
    auto cf = FromConfig(new ConstantFunctionComponent(),
                         "input-dim=2 output-dim=50 learning-rate=0.3" +
                             ng_opt);
    auto *po = dynamic_cast<PerElementOffsetComponent *>(off.get());
    auto *ps = dynamic_cast<ScaleAndOffsetComponent *>(so.get());
    auto *pc = dynamic_cast<ConstantFunctionComponent *>(cf.get());
    OnlineNaturalGradient o_off = MakePreconditioner(20, 4, 2000.0, 4.0),
                          o_so_off = MakePreconditioner(3, 4, 2000.0, 4.0),
                          o_so_scale = MakePreconditioner(3, 4, 2000.0, 4.0),
                          o_cf = MakePreconditioner(40, 1, 2000.0, 4.0);
    for (int32 step = 0; step < 14; step++) {
      const int32 N = 9;
      CuMatrix<BaseFloat> in = testing::Contig(RandomMatrix(N, 12, &rs));
      CuMatrix<BaseFloat> od = testing::Contig(RandomMatrix(N, 12, &rs));
      // Rows of block-dim 6: row (r, half) = columns half*6 .. half*6+5.
      Matrix<BaseFloat> od_blocks(2 * N, 6), in_blocks(2 * N, 6);
      for (int32 r = 0; r < N; r++)
        for (int32 j = 0; j < 12; j++) {
          od_blocks(2 * r + j / 6, j % 6) = od.Mat()(r, j);
          in_blocks(2 * r + j / 6, j % 6) = in.Mat()(r, j);
        }
      // PerElementOffsetComponent.
      Vector<BaseFloat> o0 = ToHost(po->Offsets());
      CuMatrix<BaseFloat> out = testing::Forward(*po, in);
      po->Backprop("", nullptr, in, out, od, nullptr, po, nullptr);
      CuMatrix<BaseFloat> g(od_blocks);
      BaseFloat sc = 1.0;
      if (ng) o_off.PreconditionDirections(&g, &sc);
      for (int32 k = 0; k < 6; k++) {
        double sum = 0.0;
        for (int32 r = 0; r < 2 * N; r++) sum += g.Mat()(r, k);
        EXPECT_NEAR(po->Offsets().Vec()(k), o0(k) + 0.3 * sc * sum, 1e-5);
      }
      // ScaleAndOffsetComponent (the input is recovered from the output).
      Vector<BaseFloat> s0 = ToHost(ps->Scales()), so0 = ToHost(ps->Offsets());
      out = testing::Forward(*ps, in);
      ps->Backprop("", nullptr, in, out, od, nullptr, ps, nullptr);
      Matrix<BaseFloat> gs_host(in_blocks);
      gs_host.MulElements(od_blocks);
      CuMatrix<BaseFloat> go(od_blocks), gs(gs_host);
      BaseFloat sc_o = 1.0, sc_s = 1.0;
      if (ng) {
        o_so_off.PreconditionDirections(&go, &sc_o);
        o_so_scale.PreconditionDirections(&gs, &sc_s);
      }
      for (int32 k = 0; k < 6; k++) {
        double sum_o = 0.0, sum_s = 0.0;
        for (int32 r = 0; r < 2 * N; r++) {
          sum_o += go.Mat()(r, k);
          sum_s += gs.Mat()(r, k);
        }
        EXPECT_NEAR(ps->Offsets().Vec()(k), so0(k) + 0.3 * sc_o * sum_o, 1e-4);
        EXPECT_NEAR(ps->Scales().Vec()(k), s0(k) + 0.3 * sc_s * sum_s, 1e-4);
      }
      // ConstantFunctionComponent.
      Vector<BaseFloat> c0 = ToHost(pc->Output());
      CuMatrix<BaseFloat> cin(N, 2), cout(N, 50);
      CuMatrix<BaseFloat> cod(RandomMatrix(N, 50, &rs));
      pc->Backprop("", nullptr, cin, cout, cod, nullptr, pc, nullptr);
      CuMatrix<BaseFloat> gc(cod);
      BaseFloat sc_c = 1.0;
      if (ng) o_cf.PreconditionDirections(&gc, &sc_c);
      for (int32 k = 0; k < 50; k++) {
        double sum = 0.0;
        for (int32 r = 0; r < N; r++) sum += gc.Mat()(r, k);
        EXPECT_NEAR(pc->Output().Vec()(k), c0(k) + 0.3 * sc_c * sum, 1e-5);
      }
    }
    if (ng) {
      EXPECT_EQ(po->Preconditioner().NumCalls(), 14);
      EXPECT_EQ(po->Preconditioner().GetRank(), 5);  // reduced to block-dim - 1
    }
  }
}

// ---- one SGD step of Kaldi's nnet3-train ----------------------------------

struct Minibatch {
  Matrix<BaseFloat> input;    // (n, t = -1..8) rows, n-major
  Matrix<BaseFloat> targets;  // (n, t = 0..7) rows, n-major
};

std::string DataPath(const std::string &name) {
  return std::string(NNET3_TEST_DATA_DIR) + "/kaldi/train/" + name;
}

// Parses the minibatches of a text egs archive of the natgrad case (input
// dim 12, 10 input frames and 8 output frames per example).
std::vector<Minibatch> ReadMinibatches(const std::string &path) {
  std::ifstream is(path);
  std::stringstream ss;
  ss << is.rdbuf();
  std::string text = ss.str();
  std::vector<Minibatch> ans;
  size_t pos = 0;
  while ((pos = text.find("<Nnet3Eg>", pos)) != std::string::npos) {
    Minibatch mb;
    size_t in_pos = text.find("<NnetIo> input", pos);
    size_t open = text.find('[', in_pos), close = text.find(']', open);
    std::istringstream fs(text.substr(open + 1, close - open - 1));
    std::vector<float> v;
    float f;
    while (fs >> f) v.push_back(f);
    int32 rows = v.size() / 12;
    mb.input.Resize(rows, 12);
    for (int32 r = 0; r < rows; r++)
      for (int32 c = 0; c < 12; c++) mb.input(r, c) = v[r * 12 + c];
    size_t out_pos = text.find("<NnetIo> output", close);
    size_t rows_pos = text.find("rows=", out_pos);
    int32 out_rows = std::stoi(text.substr(rows_pos + 5));
    mb.targets.Resize(out_rows, 14);
    size_t p = rows_pos;
    for (int32 r = 0; r < out_rows; r++) {
      size_t o = text.find('[', p), e = text.find(']', o);
      std::istringstream ps(text.substr(o + 1, e - o - 1));
      int32 idx;
      float w;
      while (ps >> idx >> w) mb.targets(r, idx) += w;
      p = e + 1;
    }
    ans.push_back(std::move(mb));
    pos = p;
  }
  return ans;
}

UpdatableComponent *Named(Nnet *nnet, const std::string &name) {
  int32 c = nnet->GetComponentIndex(name);
  EXPECT_GE(c, 0) << name;
  return dynamic_cast<UpdatableComponent *>(nnet->GetComponent(c));
}

// Forward and backward of the natgrad network (affine1 on the frames spliced
// with offsets -1, 0, 1; ReLU; affine2; log-softmax; linear objective) on one
// minibatch, updating the delta network's components. Returns the objective.
double TrainStep(Nnet *nnet, Nnet *delta, const Minibatch &mb) {
  int32 num_egs = mb.input.NumRows() / 10, N = num_egs * 8;
  Matrix<BaseFloat> spliced_host(N, 36);
  for (int32 n = 0; n < num_egs; n++)
    for (int32 t = 0; t < 8; t++)
      for (int32 o = 0; o < 3; o++)
        for (int32 c = 0; c < 12; c++)
          spliced_host(n * 8 + t, o * 12 + c) = mb.input(n * 10 + t + o, c);
  CuMatrix<BaseFloat> spliced(spliced_host), targets(mb.targets);
  Component *a1 = Named(nnet, "affine1"), *a2 = Named(nnet, "affine2");
  Component *relu = nnet->GetComponent(nnet->GetComponentIndex("relu1"));
  Component *lsm = nnet->GetComponent(nnet->GetComponentIndex("logsoftmax"));
  CuMatrix<BaseFloat> h1(N, 32), r1(N, 32), h2(N, 14), y(N, 14);
  a1->Propagate(nullptr, spliced, &h1);
  relu->Propagate(nullptr, h1, &r1);
  a2->Propagate(nullptr, r1, &h2);
  lsm->Propagate(nullptr, h2, &y);
  double objf = TraceMatMat(y, targets, kTrans);
  CuMatrix<BaseFloat> dh2(N, 14), dr1(N, 32), dh1(N, 32);
  lsm->Backprop("", nullptr, h2, y, targets, nullptr, nullptr, &dh2);
  a2->Backprop("affine2", nullptr, r1, h2, dh2, nullptr,
               Named(delta, "affine2"), &dr1);
  relu->Backprop("", nullptr, h1, r1, dr1, nullptr, nullptr, &dh1);
  a1->Backprop("affine1", nullptr, spliced, h1, dh1, nullptr,
               Named(delta, "affine1"), nullptr);
  return objf;
}

// max |a - b| / max |b| over one matrix or vector.
template <class M>
double RelDiff(const M &a, const M &b, int32 rows, int32 cols,
               double (*get)(const M &, int32, int32)) {
  double max_b = 0.0, max_d = 0.0;
  for (int32 i = 0; i < rows; i++)
    for (int32 j = 0; j < cols; j++) {
      max_b = std::max(max_b, std::fabs(get(b, i, j)));
      max_d = std::max(max_d, std::fabs(get(a, i, j) - get(b, i, j)));
    }
  return max_d / max_b;
}
double GetM(const CuMatrix<BaseFloat> &m, int32 i, int32 j) {
  return m.Mat()(i, j);
}
double GetV(const CuVector<BaseFloat> &v, int32, int32 j) { return v.Vec()(j); }

// Compares affine1 and affine2 of two networks: the largest difference per
// matrix/vector relative to the largest magnitude of the reference.
double WorstParamDiff(Nnet *ours, Nnet *kaldi) {
  double worst = 0.0;
  for (const char *name : {"affine1", "affine2"}) {
    auto *a = dynamic_cast<AffineComponent *>(Named(ours, name));
    auto *b = dynamic_cast<AffineComponent *>(Named(kaldi, name));
    worst = std::max(worst, RelDiff(a->LinearParams(), b->LinearParams(),
                                    b->LinearParams().NumRows(),
                                    b->LinearParams().NumCols(), &GetM));
    worst = std::max(worst, RelDiff(a->BiasParams(), b->BiasParams(), 1,
                                    b->BiasParams().Dim(), &GetV));
  }
  return worst;
}

// nnet3-train --momentum=m --max-param-change=0 over the minibatches: the
// delta network is a zeroed copy whose components hold the preconditioner
// state; after each minibatch nnet += (1 - m) delta and delta *= m.
void Train(Nnet *nnet, const std::vector<Minibatch> &mbs, BaseFloat momentum,
           std::vector<double> *objfs) {
  Nnet delta(*nnet);
  for (int32 c = 0; c < delta.NumComponents(); c++)
    delta.GetComponent(c)->Scale(0.0);
  for (const Minibatch &mb : mbs) {
    objfs->push_back(TrainStep(nnet, &delta, mb));
    for (int32 c = 0; c < nnet->NumComponents(); c++) {
      if (dynamic_cast<UpdatableComponent *>(nnet->GetComponent(c)) == nullptr)
        continue;
      nnet->GetComponent(c)->Add(1.0 - momentum, *delta.GetComponent(c));
      delta.GetComponent(c)->Scale(momentum);
    }
  }
}

TEST(NaturalGradientKaldiTest, OneStepMatchesNnet3Train) {
  Nnet nnet, kaldi;
  ReadKaldiObject(DataPath("natgrad.raw"), &nnet);
  ReadKaldiObject(DataPath("natgrad.step1.txt"), &kaldi);
  std::vector<Minibatch> mbs = ReadMinibatches(DataPath("natgrad.mb1.txt"));
  ASSERT_EQ(mbs.size(), 1u);
  ASSERT_EQ(mbs[0].input.NumRows(), 160);
  ASSERT_EQ(mbs[0].targets.NumRows(), 128);
  Nnet plain(nnet);
  std::vector<double> objfs;
  Train(&nnet, mbs, 0.0, &objfs);
  // Kaldi printed objective -3.19737 over 124 frames (the target weights).
  EXPECT_NEAR(objfs[0] / 124.0, -3.19737, 1e-4);
  double diff = WorstParamDiff(&nnet, &kaldi);
  EXPECT_LT(diff, 1e-5);
  std::cout << "one step: worst relative difference " << diff << "\n";
  // The same step with plain SGD is far from Kaldi's result.
  for (const char *name : {"affine1", "affine2"})
    Named(&plain, name)->SetAsGradient();
  for (const char *name : {"affine1", "affine2"})
    Named(&plain, name)->SetActualLearningRate(0.01);
  std::vector<double> unused;
  Train(&plain, mbs, 0.0, &unused);
  double plain_diff = WorstParamDiff(&plain, &kaldi);
  EXPECT_GT(plain_diff, 1e-3);
  std::cout << "plain SGD instead: " << plain_diff << "\n";
}

TEST(NaturalGradientKaldiTest, ThreeStepsWithMomentumMatchNnet3Train) {
  Nnet nnet, kaldi;
  ReadKaldiObject(DataPath("natgrad.raw"), &nnet);
  ReadKaldiObject(DataPath("natgrad.momentum3.txt"), &kaldi);
  std::vector<Minibatch> mbs = ReadMinibatches(DataPath("natgrad.merged.txt"));
  ASSERT_EQ(mbs.size(), 3u);
  std::vector<double> objfs;
  Train(&nnet, mbs, 0.5, &objfs);
  double diff = WorstParamDiff(&nnet, &kaldi);
  EXPECT_LT(diff, 1e-5);
  std::cout << "three steps: worst relative difference " << diff << "\n";
}

}  // namespace
}  // namespace nnet3
