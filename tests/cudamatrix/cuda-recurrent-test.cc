// GPU-vs-CPU tests of the LSTM cell kernels (src/cudamatrix/cuda/
// recurrent.h): each runs on random data uploaded with padded strides and
// is compared with the CPU implementation of the same name in
// cudamatrix/cu-math-recurrent.h (the oracle), in float and double, with
// and without dropout-mask columns, on shapes that include 0 rows, 1 row,
// odd strides and a large 1031 x 300-cell case, with deriv_sum_out both
// separate from and the same as deriv_sum_in. The padding around each
// device view must stay untouched. Without a CUDA GPU every test skips
// with one line saying why.
//
// Tolerances: |gpu - cpu| <= tol * max(1, |cpu|) for the cell outputs and
// input derivatives (tol 1e-4 float: exp differs by a few ulp and the
// device contracts multiply-adds; 1e-10 double); the sums over rows
// (parameter gradient, value/derivative sums) within tol * (rows + |cpu|);
// the self-repair counts exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cudamatrix/cu-math-recurrent.h"
#include "cudamatrix/cuda/recurrent.h"
#include "cudamatrix/cuda-test-util.h"
#include "matrix/matrix-test-util.h"

namespace nnet3 {
namespace test {
namespace {

template <class Real> double Tol() { return sizeof(Real) == 4 ? 1e-4 : 1e-10; }

struct Case {
  int32 rows, cells, pad;
};

const std::vector<Case> &Cases() {
  static const std::vector<Case> cases = {{0, 4, 3},  {1, 1, 0},   {1, 7, 3},
                                          {7, 5, 1},  {33, 65, 3}, {64, 32, 0},
                                          {1031, 300, 3}};
  return cases;
}

template <class Real>
::testing::AssertionResult Near(const MatrixBase<Real> &gpu,
                                const MatrixBase<Real> &cpu, double tol,
                                double sum_terms, const char *what) {
  if (gpu.NumRows() != cpu.NumRows() || gpu.NumCols() != cpu.NumCols())
    return ::testing::AssertionFailure() << what << ": size differs";
  for (int32 r = 0; r < cpu.NumRows(); r++)
    for (int32 c = 0; c < cpu.NumCols(); c++) {
      double a = gpu(r, c), b = cpu(r, c);
      double allowed = tol * (sum_terms > 0 ? sum_terms + std::fabs(b)
                                            : std::max(1.0, std::fabs(b)));
      if (!(std::fabs(a - b) <= allowed))
        return ::testing::AssertionFailure()
               << what << "(" << r << ", " << c << "): gpu " << a << ", cpu "
               << b << " (allowed " << allowed << ")";
    }
  return ::testing::AssertionSuccess();
}

template <class Real>
Matrix<Real> RandInput(Rng &rng, int32 rows, int32 C, bool masks) {
  Matrix<Real> x(rows, rows == 0 ? 0 : 5 * C + (masks ? 3 : 0));
  FillGauss(&x, rng, 2.0);
  if (masks)
    for (int32 r = 0; r < rows; r++)
      for (int32 k = 0; k < 3; k++) x(r, 5 * C + k) = rng.Int(0, 1) ? 1.5 : 0.0;
  return x;
}

template <typename Real>
class CudaRecurrentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = NoGpuReason();
    if (!why.empty()) GTEST_SKIP() << "no CUDA GPU: " << why;
  }
};
typedef ::testing::Types<float, double> RealTypes;
TYPED_TEST_SUITE(CudaRecurrentTest, RealTypes);

TYPED_TEST(CudaRecurrentTest, ComputeLstmNonlinearity) {
  typedef TypeParam Real;
  int iter = 0;
  for (bool masks : {false, true})
    for (const Case &k : Cases()) {
      Rng rng(100 + iter++);
      SCOPED_TRACE("rows " + std::to_string(k.rows) + ", cells " +
                   std::to_string(k.cells) + ", pad " + std::to_string(k.pad) +
                   (masks ? ", masks, " : ", ") + rng.Trace());
      const int32 C = k.cells;
      Matrix<Real> x = RandInput<Real>(rng, k.rows, C, masks), p(3, C);
      FillGauss(&p, rng);
      CuMatrix<Real> out_cpu(k.rows, 2 * C);
      cu::ComputeLstmNonlinearity(CuMatrix<Real>(x), CuMatrix<Real>(p),
                                  &out_cpu);
      DeviceMatrix<Real> in(x, k.pad), params(p, k.pad),
          out(Matrix<Real>(k.rows, 2 * C), k.pad);
      cuda::ComputeLstmNonlinearity<Real>(in.View(), params.View(), out.View());
      EXPECT_TRUE(Near(out.ToHost(), ToHost(out_cpu), Tol<Real>(), 0, "out"));
      EXPECT_TRUE(out.PaddingIntact());
    }
}

TYPED_TEST(CudaRecurrentTest, BackpropLstmNonlinearity) {
  typedef TypeParam Real;
  int iter = 0;
  for (bool masks : {false, true})
    for (bool alias : {false, true})
      for (const Case &k : Cases()) {
        Rng rng(200 + iter++);
        SCOPED_TRACE("rows " + std::to_string(k.rows) + ", cells " +
                     std::to_string(k.cells) + ", pad " +
                     std::to_string(k.pad) + (masks ? ", masks" : "") +
                     (alias ? ", aliased sums, " : ", ") + rng.Trace());
        const int32 C = k.cells, rows = k.rows;
        Matrix<Real> x = RandInput<Real>(rng, rows, C, masks), p(3, C),
                     dy(rows, 2 * C);
        FillGauss(&p, rng);
        FillGauss(&dy, rng);
        const double count = 20.0;
        Matrix<double> dsum(5, C), vsum(5, C);
        Vector<Real> config(10);
        for (int32 n = 0; n < 5; n++) {
          config(n) = (n == 2 || n == 4) ? 0.2 : 0.05;
          config(5 + n) = 1e-2 * (n + 1);
        }
        for (int32 n = 0; n < 5; n++)
          for (int32 j = 0; j < C; j++) {
            dsum(n, j) = (rng.Int(0, 1) ? 0.01 : 2.0) * (count + 1);
            vsum(n, j) = rng.Gauss();
          }
        // CPU oracle.
        CuMatrix<Real> dx_cpu(rows, x.NumCols()), grad_cpu(3, C),
            rep_cpu(5, C);
        CuMatrix<double> dsum_cpu(dsum), vsum_cpu(vsum), dsum_out_cpu(dsum);
        cu::BackpropLstmNonlinearity(
            CuMatrix<Real>(x), CuMatrix<Real>(p), CuMatrix<Real>(dy), dsum_cpu,
            CuVector<Real>(config), count, &dx_cpu, &grad_cpu, &vsum_cpu,
            alias ? &dsum_cpu : &dsum_out_cpu, &rep_cpu);
        // GPU.
        DeviceMatrix<Real> in(x, k.pad), params(p, k.pad), out_deriv(dy, k.pad),
            dx(Matrix<Real>(rows, x.NumCols()), k.pad),
            grad(Matrix<Real>(3, C), k.pad), rep(Matrix<Real>(5, C), k.pad);
        DeviceMatrix<double> dsum_dev(dsum, k.pad), vsum_dev(vsum, k.pad),
            dsum_out_dev(dsum, k.pad);
        DeviceVector<Real> cfg(config);
        cuda::BackpropLstmNonlinearity<Real>(
            in.View(), params.View(), out_deriv.View(), dsum_dev.View(),
            cfg.View(), count, dx.View(), grad.View(), vsum_dev.View(),
            alias ? dsum_dev.View() : dsum_out_dev.View(), rep.View());
        const double tol = Tol<Real>();
        EXPECT_TRUE(Near(dx.ToHost(), ToHost(dx_cpu), tol, 0, "input_deriv"));
        EXPECT_TRUE(Near(grad.ToHost(), ToHost(grad_cpu), tol, rows + 1.0,
                         "params_deriv"));
        EXPECT_TRUE(Near(vsum_dev.ToHost(), ToHost(vsum_cpu), tol, rows + 1.0,
                         "value_sum"));
        EXPECT_TRUE(Near((alias ? dsum_dev : dsum_out_dev).ToHost(),
                         ToHost(alias ? dsum_cpu : dsum_out_cpu), tol,
                         rows + 1.0, "deriv_sum"));
        EXPECT_TRUE(rep.ToHost().Equal(ToHost(rep_cpu)));
        for (const DeviceMatrix<Real> *m : {&dx, &grad, &rep})
          EXPECT_TRUE(m->PaddingIntact());
        for (const DeviceMatrix<double> *m : {&dsum_dev, &vsum_dev, &dsum_out_dev})
          EXPECT_TRUE(m->PaddingIntact());

        // Without the statistics: the same input derivative.
        DeviceMatrix<Real> dx2(Matrix<Real>(rows, x.NumCols()), k.pad);
        cuda::BackpropLstmNonlinearity<Real>(
            in.View(), params.View(), out_deriv.View(),
            DeviceMatrix<double>(dsum, 0).View(), cfg.View(), count,
            dx2.View(), cuda::DevMat<Real>(), cuda::DevMat<double>(),
            cuda::DevMat<double>(), cuda::DevMat<Real>());
        EXPECT_TRUE(Near(dx2.ToHost(), ToHost(dx_cpu), tol, 0, "input_deriv"));
      }
}

}  // namespace
}  // namespace test
}  // namespace nnet3
