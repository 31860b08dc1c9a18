// GPU-vs-CPU tests of cudamatrix/cuda/nonlinear.h: each kernel runs on
// random data uploaded with padded strides and is compared with the CPU
// backend of the same operation (cudamatrix/cu-math-nonlinear.h, the
// oracle) in float and double, on shapes that include 0 rows, 1 row, odd
// strides, a large 1031 x 1537 matrix and a tall 600000-row one; the in-place
// forms are checked too, and nothing outside a device view may change.
// Without a CUDA GPU every test skips with one line saying why.
//
// Tolerances (|gpu - cpu| <= tol * max(1, |cpu|)): 1e-5 float / 1e-12 double
// for the elementwise ops and the softmax backprops (whose row sums are in
// double on both sides); 1e-4 float / 1e-11 double for the normalization,
// whose row sums are in Real in another order; the column dot products
// relative to the sum of |terms|.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cudamatrix/cu-math-nonlinear.h"
#include "cudamatrix/cuda-test-util.h"
#include "cudamatrix/cuda/nonlinear.h"
#include "matrix/matrix-test-util.h"

namespace nnet3 {
namespace test {
namespace {

namespace gpu = ::nnet3::cuda;

template <class Real>
double ElemTol() {
  return sizeof(Real) == 4 ? 1e-5 : 1e-12;
}
template <class Real>
double SumTol() {
  return sizeof(Real) == 4 ? 1e-4 : 1e-11;
}

struct Shape {
  int32 rows, cols, pad;
};

const std::vector<Shape> &Shapes() {
  static const std::vector<Shape> shapes = {
      {0, 0, 0}, {0, 0, 3},   {1, 1, 0},       {1, 17, 3},    {7, 5, 0},
      {7, 5, 3}, {33, 65, 3}, {1031, 1537, 3}, {600000, 3, 2}};
  return shapes;
}

template <class Real>
Matrix<Real> Host(const CuMatrixBase<Real> &m) {
  Matrix<Real> h(m.NumRows(), m.NumCols());
  m.CopyToMat(&h);
  return h;
}

template <typename Real>
class CudaNonlinearTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = NoGpuReason();
    if (!why.empty()) GTEST_SKIP() << "no CUDA GPU: " << why;
  }
};
TYPED_TEST_SUITE(CudaNonlinearTest, RealTypes);

template <class F>
void ForEachShape(F body) {
  uint64_t base = TestSeed();
  int iter = 0;
  for (const Shape &s : Shapes()) {
    Rng rng(SeedFor(base, iter++));
    SCOPED_TRACE(std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                 ", stride " + std::to_string(s.cols + s.pad) + ", " +
                 rng.Trace());
    body(rng, s);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Runs a backprop op (in_deriv from two inputs) on the CPU and the GPU,
// out of place and in place (in_deriv = the second input).
template <class Real, class CpuOp, class GpuOp>
void CheckBackprop(const Matrix<Real> &a, const Matrix<Real> &b, int32 pad,
                   double tol, const char *what, CpuOp cpu_op, GpuOp gpu_op) {
  SCOPED_TRACE(what);
  CuMatrix<Real> ca(a), cb(b), cd(a.NumRows(), a.NumCols());
  cpu_op(ca, cb, &cd);
  Matrix<Real> ref = Host(cd);
  DeviceMatrix<Real> ga(a, pad), gb(b, pad + 1), gd(Matrix<Real>(a), pad);
  gpu_op(gd.View(), ga.View(), gb.View());
  EXPECT_TRUE(Matches(gd, ref, tol));
  gpu_op(gb.View(), ga.View(), gb.View());  // in place
  EXPECT_TRUE(Matches(gb, ref, tol));
}

TYPED_TEST(CudaNonlinearTest, RectifierAndSoftmaxBackprop) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    Matrix<Real> x = RandMat<Real>(rng, s.rows, s.cols, 3.0),
                 e = RandMat<Real>(rng, s.rows, s.cols);
    Matrix<Real> relu(x), sm(s.rows, s.cols), lsm(s.rows, s.cols);
    relu.ApplyFloor(0.0);
    sm.SoftMaxPerRow(x);
    lsm.LogSoftMaxPerRow(x);
    CheckBackprop(
        relu, e, s.pad, ElemTol<Real>(), "BackpropRectifiedLinear",
        [](const CuMatrix<Real> &y, const CuMatrix<Real> &d,
           CuMatrix<Real> *o) { cu::BackpropRectifiedLinear(y, d, o); },
        [](gpu::DevMat<Real> o, gpu::DevMat<Real> y, gpu::DevMat<Real> d) {
          gpu::BackpropRectifiedLinear(o, y, d);
        });
    CheckBackprop(
        sm, e, s.pad, ElemTol<Real>(), "DiffSoftmaxPerRow",
        [](const CuMatrix<Real> &y, const CuMatrix<Real> &d,
           CuMatrix<Real> *o) { cu::DiffSoftmaxPerRow(y, d, o); },
        [](gpu::DevMat<Real> o, gpu::DevMat<Real> y, gpu::DevMat<Real> d) {
          gpu::DiffSoftmaxPerRow(o, y, d);
        });
    CheckBackprop(
        lsm, e, s.pad, ElemTol<Real>(), "DiffLogSoftmaxPerRow",
        [](const CuMatrix<Real> &y, const CuMatrix<Real> &d,
           CuMatrix<Real> *o) { cu::DiffLogSoftmaxPerRow(y, d, o); },
        [](gpu::DevMat<Real> o, gpu::DevMat<Real> y, gpu::DevMat<Real> d) {
          gpu::DiffLogSoftmaxPerRow(o, y, d);
        });
  });
}

TYPED_TEST(CudaNonlinearTest, DropoutBackprop) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    Matrix<Real> x = RandMat<Real>(rng, s.rows, s.cols),
                 e = RandMat<Real>(rng, s.rows, s.cols);
    Matrix<Real> y(x);
    for (int32 r = 0; r < s.rows; r++)
      for (int32 c = 0; c < s.cols; c++) {
        if (rng.Prob(0.1)) x(r, c) = 0;
        y(r, c) = rng.Prob(0.3) ? 0 : 2 * x(r, c);
      }
    CuMatrix<Real> cx(x), cy(y), ce(e);
    CuMatrix<Real> cd(s.rows, s.cols);
    cu::BackpropDropoutFromValues(cx, cy, ce, &cd);
    Matrix<Real> ref = Host(cd);
    DeviceMatrix<Real> gx(x, s.pad), gy(y, s.pad + 1), ge(e, s.pad + 2),
        gd(x, s.pad);
    gpu::BackpropDropoutFromValues(gd.View(), gx.View(), gy.View(), ge.View());
    EXPECT_TRUE(Matches(gd, ref, ElemTol<Real>()));
    gpu::BackpropDropoutFromValues(ge.View(), gx.View(), gy.View(), ge.View());
    EXPECT_TRUE(Matches(ge, ref, ElemTol<Real>()));
  });
}

TYPED_TEST(CudaNonlinearTest, NormalizePerRowAndDerivative) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    for (bool add_log : {false, true})
      for (Real rms : {Real(1.0), Real(0.7)}) {
        SCOPED_TRACE(std::string("add_log ") + (add_log ? "true" : "false") +
                     ", target_rms " + std::to_string(rms));
        int32 d = s.cols, oc = s.rows == 0 ? 0 : d + (add_log ? 1 : 0);
        Matrix<Real> x = RandMat<Real>(rng, s.rows, d, 2.0);
        if (s.rows > 1) x.Row(1).SetZero();  // hits the floor
        Matrix<Real> od = RandMat<Real>(rng, s.rows, oc),
                     base = RandMat<Real>(rng, s.rows, d);
        // Forward.
        CuMatrix<Real> cx(x), cy(s.rows, oc);
        cu::NormalizePerRow(cx, rms, add_log, &cy);
        DeviceMatrix<Real> gx(x, s.pad),
            gy(Matrix<Real>(s.rows, oc), s.pad + 1);
        gpu::NormalizePerRow(gy.View(), gx.View(), rms, add_log);
        EXPECT_TRUE(Matches(gy, Host(cy), SumTol<Real>()));
        if (!add_log) {
          gpu::NormalizePerRow(gx.View(), gx.View(), rms, false);
          EXPECT_TRUE(Matches(gx, Host(cy), SumTol<Real>()));
        }
        // Derivative, added to base.
        CuMatrix<Real> cod(od), cid(base);
        cu::DiffNormalizePerRow(cx, cod, rms, add_log, &cid);
        DeviceMatrix<Real> gx2(x, s.pad + 2), god(od, s.pad),
            gid(base, s.pad + 1);
        gpu::DiffNormalizePerRow(gid.View(), gx2.View(), god.View(), rms,
                                 add_log);
        EXPECT_TRUE(Matches(gid, Host(cid), SumTol<Real>()));
        if (!add_log) {
          // In place: in_deriv is out_deriv (set, not added to).
          CuMatrix<Real> cin(od);
          cu::DiffNormalizePerRow(cx, cin, rms, false, &cin);
          gpu::DiffNormalizePerRow(god.View(), gx2.View(), god.View(), rms,
                                   false);
          EXPECT_TRUE(Matches(god, Host(cin), SumTol<Real>()));
        }
      }
  });
}

TYPED_TEST(CudaNonlinearTest, ColumnDotProducts) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    Matrix<Real> a = RandMat<Real>(rng, s.rows, s.cols),
                 b = RandMat<Real>(rng, s.rows, s.cols);
    CuMatrix<Real> ca(a), cb(b);
    CuVector<Real> cv(s.cols);
    cu::ColumnDotProducts(Real(-0.375), ca, cb, &cv);
    Vector<Real> v0(s.cols);
    v0.Set(5.0);  // overwritten
    DeviceMatrix<Real> ga(a, s.pad), gb(b, s.pad + 1);
    DeviceVector<Real> gv(v0);
    gpu::ColumnDotProducts(gv.View(), Real(-0.375), ga.View(), gb.View());
    Vector<Real> got = gv.ToHost();
    for (int32 c = 0; c < s.cols; c++) {
      double scale = 0;
      for (int32 i = 0; i < s.rows; i++)
        scale += std::abs(0.375 * a(i, c) * b(i, c));
      double diff = std::abs(double(got(c)) - cv.GetElement(c));
      ASSERT_LE(diff, SumTol<Real>() * std::max(1.0, scale))
          << "column " << c << ": gpu " << got(c) << ", cpu "
          << cv.GetElement(c);
    }
    EXPECT_TRUE(gv.PaddingIntact());
  });
}

TYPED_TEST(CudaNonlinearTest, GroupPnormAndDerivative) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    for (int32 group : {1, 3}) {
      SCOPED_TRACE("group " + std::to_string(group));
      int32 in_dim = s.cols * group;
      Matrix<Real> x = RandMat<Real>(rng, s.rows, in_dim),
                   e = RandMat<Real>(rng, s.rows, s.cols);
      if (s.rows > 1 && s.cols > 0)
        for (int32 k = 0; k < group; k++) x(1, k) = 0;  // y == 0
      CuMatrix<Real> cx(x), cy(s.rows, s.cols), ce(e), cd(s.rows, in_dim);
      cu::GroupPnorm(cx, &cy);
      cu::DiffGroupPnorm(cx, cy, ce, &cd);
      Matrix<Real> y = Host(cy);
      DeviceMatrix<Real> gx(x, s.pad),
          gy(Matrix<Real>(s.rows, s.cols), s.pad + 1);
      gpu::GroupPnorm(gy.View(), gx.View());
      EXPECT_TRUE(Matches(gy, y, ElemTol<Real>()));
      // The derivative from the CPU's y, so that both use the same divisor.
      DeviceMatrix<Real> gyc(y, s.pad), ge(e, s.pad + 2),
          gd(Matrix<Real>(s.rows, in_dim), s.pad + 1);
      gpu::DiffGroupPnorm(gd.View(), gx.View(), gyc.View(), ge.View());
      EXPECT_TRUE(Matches(gd, Host(cd), ElemTol<Real>()));
    }
  });
}

TYPED_TEST(CudaNonlinearTest, ExcessMagnitude) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    Matrix<Real> x = RandMat<Real>(rng, s.rows, s.cols);
    if (s.rows > 0 && s.cols > 0) x(0, 0) = 0;
    CuMatrix<Real> cx(x), cres(s.rows, s.cols);
    cu::ExcessMagnitude(cx, Real(0.25), &cres);
    DeviceMatrix<Real> gx(x, s.pad), gout(x, s.pad + 1);
    gpu::ExcessMagnitude(gout.View(), gx.View(), Real(0.25));
    EXPECT_TRUE(Matches(gout, Host(cres), ElemTol<Real>()));
    gpu::ExcessMagnitude(gx.View(), gx.View(), Real(0.25));  // in place
    EXPECT_TRUE(Matches(gx, Host(cres), ElemTol<Real>()));
  });
}

TYPED_TEST(CudaNonlinearTest, MulRowBlocks) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    // Blocks of the whole row, and of 1 column where the row allows more.
    for (int32 block : {s.cols, 1}) {
      if (block == 0) continue;
      SCOPED_TRACE("block " + std::to_string(block));
      int32 multiple = s.cols / block, src_rows = rng.Int(1, 9);
      Matrix<Real> src = RandMat<Real>(rng, src_rows, block),
                   data = RandMat<Real>(rng, s.rows, s.cols);
      std::vector<int32> idx(static_cast<size_t>(s.rows) * multiple);
      for (int32 &i : idx) i = rng.Int(0, src_rows - 1);
      CuMatrix<Real> cs(src), cd(data);
      cu::MulRowBlocks(cs, CuArray<int32>(idx), &cd);
      DeviceMatrix<Real> gs(src, s.pad + 1), gd(data, s.pad);
      DeviceArray<int32> gidx(idx);
      gpu::MulRowBlocks(gd.View(), gs.View(), gidx.Data());
      EXPECT_TRUE(Matches(gd, Host(cd), ElemTol<Real>()));
    }
  });
}

}  // namespace
}  // namespace test
}  // namespace nnet3
