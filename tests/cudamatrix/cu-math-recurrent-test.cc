// Tests of the CPU implementations in cudamatrix/cu-math-recurrent.h:
//   - ComputeLstmNonlinearity against a naive double-precision cell written
//     here from the LSTM equations (std::tanh and 1 / (1 + exp(-x)));
//   - BackpropLstmNonlinearity against finite differences of the forward
//     pass (no self-repair), and against a naive double-precision backward
//     pass with self-repair for every output (input and parameter
//     derivatives, value/derivative sums, self-repair counts), with and
//     without dropout-mask columns, including deriv_sum_out aliasing
//     deriv_sum_in;
//   - CopyRowsToVec / CopyRowsFromVec against element-by-element copies.
#include "cudamatrix/cu-math-recurrent.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "matrix/matrix-test-util.h"

namespace nnet3 {
namespace test {
namespace {

double Sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// Naive cell of the LSTM equations in double; y gets [c, m] for row r.
struct NaiveCell {
  double i, f, g, c, o, h, m, cp;
};

template <class Real>
NaiveCell NaiveForward(const Matrix<Real> &x, const Matrix<Real> &p, int r,
                       int j) {
  const int C = p.NumCols();
  const bool masks = x.NumCols() == 5 * C + 3;
  double im = masks ? x(r, 5 * C) : 1, fm = masks ? x(r, 5 * C + 1) : 1,
         om = masks ? x(r, 5 * C + 2) : 1;
  NaiveCell s;
  s.cp = x(r, 4 * C + j);
  s.i = Sig(x(r, j) + double(p(0, j)) * s.cp);
  s.f = Sig(x(r, C + j) + double(p(1, j)) * s.cp);
  s.g = std::tanh(double(x(r, 2 * C + j)));
  s.c = fm * s.f * s.cp + im * s.i * s.g;
  s.o = Sig(x(r, 3 * C + j) + double(p(2, j)) * s.c);
  s.h = std::tanh(s.c);
  s.m = om * s.o * s.h;
  return s;
}

template <class Real>
Matrix<Real> RandInput(Rng &rng, int rows, int C, bool masks) {
  Matrix<Real> x(rows, 5 * C + (masks ? 3 : 0));
  FillGauss(&x, rng, 2.0);
  if (masks)
    for (int r = 0; r < rows; r++)
      for (int k = 0; k < 3; k++) x(r, 5 * C + k) = rng.Int(0, 1) ? 1.5 : 0.0;
  return x;
}

template <class Real> double Tol() { return sizeof(Real) == 4 ? 2e-5 : 1e-12; }

template <class Real>
void CheckForward(bool masks) {
  Rng rng(masks ? 11 : 12);
  for (int rows : {0, 1, 9}) {
    const int C = 7;
    Matrix<Real> x = RandInput<Real>(rng, rows, C, masks), p(3, C);
    FillGauss(&p, rng);
    CuMatrix<Real> in(x), params(p), out(rows, 2 * C);
    cu::ComputeLstmNonlinearity(in, params, &out);
    Matrix<Real> y = ToHost(out);
    for (int r = 0; r < rows; r++)
      for (int j = 0; j < C; j++) {
        NaiveCell s = NaiveForward(x, p, r, j);
        EXPECT_NEAR(y(r, j), s.c, Tol<Real>() * (1 + std::fabs(s.c)))
            << rng.Trace();
        EXPECT_NEAR(y(r, C + j), s.m, Tol<Real>()) << rng.Trace();
      }
  }
}

TEST(CuMathRecurrent, ComputeLstmNonlinearityMatchesNaiveCell) {
  CheckForward<float>(false);
  CheckForward<float>(true);
  CheckForward<double>(false);
  CheckForward<double>(true);
}

// Objective sum(y .* dy) of the forward pass, in double.
double Objective(const Matrix<double> &x, const Matrix<double> &p,
                 const Matrix<double> &dy) {
  CuMatrix<double> in(x), params(p), out(x.NumRows(), 2 * p.NumCols());
  cu::ComputeLstmNonlinearity(in, params, &out);
  Matrix<double> y = ToHost(out);
  double sum = 0;
  for (int r = 0; r < y.NumRows(); r++)
    for (int c = 0; c < y.NumCols(); c++) sum += y(r, c) * dy(r, c);
  return sum;
}

TEST(CuMathRecurrent, BackpropMatchesFiniteDifferences) {
  for (bool masks : {false, true}) {
    Rng rng(masks ? 21 : 22);
    const int rows = 4, C = 3;
    Matrix<double> x = RandInput<double>(rng, rows, C, masks), p(3, C),
                   dy(rows, 2 * C);
    FillGauss(&p, rng);
    FillGauss(&dy, rng);
    CuMatrix<double> in(x), params(p), out_deriv(dy), in_deriv(x);
    CuMatrix<double> deriv_sum(5, C), value_sum(5, C), deriv_sum_out(5, C);
    CuMatrix<double> grad(3, C), repaired(5, C);
    CuVector<double> config(10);  // all thresholds 0: no self-repair
    cu::BackpropLstmNonlinearity(in, params, out_deriv, deriv_sum, config, 0.0,
                                 &in_deriv, &grad, &value_sum, &deriv_sum_out,
                                 &repaired);
    Matrix<double> dx = ToHost(in_deriv), dp = ToHost(grad);
    const double eps = 1e-6;
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < x.NumCols(); c++) {
        if (c >= 5 * C) {
          EXPECT_EQ(dx(r, c), 0.0);  // mask columns get no derivative
          continue;
        }
        Matrix<double> xp(x), xm(x);
        xp(r, c) += eps;
        xm(r, c) -= eps;
        double num = (Objective(xp, p, dy) - Objective(xm, p, dy)) / (2 * eps);
        EXPECT_NEAR(dx(r, c), num, 1e-6 * (1 + std::fabs(num)))
            << "row " << r << " col " << c << rng.Trace();
      }
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < C; j++) {
        Matrix<double> pp(p), pm(p);
        pp(k, j) += eps;
        pm(k, j) -= eps;
        double num = (Objective(x, pp, dy) - Objective(x, pm, dy)) / (2 * eps);
        EXPECT_NEAR(dp(k, j), num, 1e-6 * (1 + std::fabs(num)))
            << "param " << k << "," << j << rng.Trace();
      }
    Matrix<double> sr = ToHost(repaired);
    for (int k = 0; k < 5; k++)
      for (int j = 0; j < C; j++) EXPECT_EQ(sr(k, j), 0.0);
  }
}

// Naive backward pass with self-repair, in double; sr(k, j) the repair
// scale of nonlinearity k (i, f, g, o, tanh c) of cell j.
template <class Real>
void NaiveBackprop(const Matrix<Real> &x, const Matrix<Real> &p,
                   const Matrix<Real> &dy, const Matrix<double> &sr,
                   Matrix<double> *dx, Matrix<double> *dp,
                   Matrix<double> *values, Matrix<double> *derivs) {
  const int rows = x.NumRows(), C = p.NumCols();
  const bool masks = x.NumCols() == 5 * C + 3;
  dx->Resize(rows, x.NumCols());
  dp->Resize(3, C);
  values->Resize(5, C);
  derivs->Resize(5, C);
  for (int r = 0; r < rows; r++) {
    double im = masks ? x(r, 5 * C) : 1, fm = masks ? x(r, 5 * C + 1) : 1,
           om = masks ? x(r, 5 * C + 2) : 1;
    for (int j = 0; j < C; j++) {
      NaiveCell s = NaiveForward(x, p, r, j);
      double gi = s.i * (1 - s.i), gf = s.f * (1 - s.f), gg = 1 - s.g * s.g,
             go = s.o * (1 - s.o), gh = 1 - s.h * s.h;
      double vals[5] = {s.i, s.f, s.g, s.o, s.h}, ders[5] = {gi, gf, gg, go, gh};
      for (int k = 0; k < 5; k++) {
        (*values)(k, j) += vals[k];
        (*derivs)(k, j) += ders[k];
      }
      double dm = dy(r, C + j);
      double a_o = dm * om * s.h * go - (2 * s.o - 1) * sr(3, j);
      double dc = dy(r, j) + dm * om * s.o * gh + a_o * p(2, j) -
                  s.h * sr(4, j);
      double a_i = dc * im * s.g * gi - (2 * s.i - 1) * sr(0, j);
      double a_f = dc * fm * s.cp * gf - (2 * s.f - 1) * sr(1, j);
      double a_g = dc * im * s.i * gg - s.g * sr(2, j);
      (*dx)(r, j) = a_i;
      (*dx)(r, C + j) = a_f;
      (*dx)(r, 2 * C + j) = a_g;
      (*dx)(r, 3 * C + j) = a_o;
      (*dx)(r, 4 * C + j) = dc * fm * s.f + a_i * p(0, j) + a_f * p(1, j);
      (*dp)(0, j) += s.cp * a_i;
      (*dp)(1, j) += s.cp * a_f;
      (*dp)(2, j) += s.c * a_o;
    }
  }
}

template <class Real>
void CheckBackpropWithRepair(bool masks, bool alias) {
  Rng rng(31 + masks + 2 * alias + 4 * sizeof(Real));
  for (int rows : {0, 1, 13}) {
    const int C = 6;
    Matrix<Real> x = RandInput<Real>(rng, rows, C, masks), p(3, C),
                 dy(rows, 2 * C);
    FillGauss(&p, rng);
    FillGauss(&dy, rng);
    // Statistics: cells with small average derivative get repaired.
    const double count = 10.0;
    Matrix<double> dsum(5, C), vsum(5, C);
    Vector<Real> config(10);
    for (int k = 0; k < 5; k++) {
      config(k) = (k == 2 || k == 4) ? 0.2 : 0.05;
      config(5 + k) = 1e-2 * (k + 1);
    }
    Matrix<double> sr(5, C);
    for (int k = 0; k < 5; k++)
      for (int j = 0; j < C; j++) {
        dsum(k, j) = (rng.Int(0, 1) ? 0.01 : 2.0) * (count + 1);
        vsum(k, j) = rng.Gauss();
        // The threshold test, done on the average, as documented.
        if (dsum(k, j) / static_cast<Real>(count + 1) < config(k))
          sr(k, j) = config(5 + k);
      }
    Matrix<double> ndx, ndp, nvals, nders;
    NaiveBackprop(x, p, dy, sr, &ndx, &ndp, &nvals, &nders);

    CuMatrix<Real> in(x), params(p), out_deriv(dy),
        in_deriv(rows, x.NumCols()), grad(3, C), repaired(5, C);
    in_deriv.Set(7.0);  // every element must be written
    CuMatrix<double> deriv_sum(dsum), value_sum(vsum), deriv_sum_out(dsum);
    CuVector<Real> cfg(config);
    cu::BackpropLstmNonlinearity(in, params, out_deriv, deriv_sum, cfg, count,
                                 &in_deriv, &grad, &value_sum,
                                 alias ? &deriv_sum : &deriv_sum_out,
                                 &repaired);
    Matrix<Real> dx = ToHost(in_deriv), dp = ToHost(grad),
                 rep = ToHost(repaired);
    Matrix<double> vs = ToHost(value_sum),
                   ds = ToHost(alias ? deriv_sum : deriv_sum_out);
    const double tol = Tol<Real>() * 10;
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < x.NumCols(); c++) {
        double want = c < 5 * C ? ndx(r, c) : 0.0;
        EXPECT_NEAR(dx(r, c), want, tol * (1 + std::fabs(want)))
            << "row " << r << " col " << c << rng.Trace();
      }
    for (int k = 0; k < 3; k++)
      for (int j = 0; j < C; j++)
        EXPECT_NEAR(dp(k, j), ndp(k, j), tol * (1 + rows) *
                                             (1 + std::fabs(ndp(k, j))))
            << rng.Trace();
    for (int k = 0; k < 5; k++)
      for (int j = 0; j < C; j++) {
        EXPECT_EQ(rep(k, j), sr(k, j) != 0 ? Real(rows) : Real(0));
        EXPECT_NEAR(vs(k, j), vsum(k, j) + nvals(k, j), tol * (1 + rows));
        EXPECT_NEAR(ds(k, j), dsum(k, j) + nders(k, j),
                    tol * (1 + rows) * (1 + std::fabs(dsum(k, j))));
      }
    // Without statistics outputs the input derivative is the same.
    CuMatrix<Real> in_deriv2(rows, x.NumCols());
    CuMatrixBase<Real> *none = nullptr;
    cu::BackpropLstmNonlinearity(in, params, out_deriv, CuMatrix<double>(dsum),
                                 cfg, count, &in_deriv2, none, nullptr,
                                 nullptr, none);
    EXPECT_TRUE(ToHost(in_deriv2).Equal(dx));
  }
}

TEST(CuMathRecurrent, BackpropWithSelfRepairMatchesNaivePass) {
  for (bool masks : {false, true})
    for (bool alias : {false, true}) {
      CheckBackpropWithRepair<float>(masks, alias);
      CheckBackpropWithRepair<double>(masks, alias);
    }
}

TEST(CuMathRecurrent, CopyRowsToAndFromVec) {
  Rng rng(41);
  for (int rows : {0, 1, 5})
    for (int cols : {0, 3}) {
      if (rows == 0 && cols != 0) continue;
      Matrix<float> m(rows, cols);
      FillGauss(&m, rng);
      // A sub-matrix view, so that the stride differs from the columns.
      CuMatrix<float> big(rows, cols + 2);
      CuSubMatrix<float> view = big.ColRange(0, cols);
      view.CopyFromMat(m);
      Vector<float> v(rows * cols);
      cu::CopyRowsToVec(view, &v);
      for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) EXPECT_EQ(v(r * cols + c), m(r, c));
      FillGauss(&v, rng);
      cu::CopyRowsFromVec(v, &view);
      Matrix<float> back = ToHost(big);
      for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) EXPECT_EQ(back(r, c), v(r * cols + c));
    }
}

}  // namespace
}  // namespace test
}  // namespace nnet3
