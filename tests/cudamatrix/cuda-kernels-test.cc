// GPU-vs-CPU tests of the CUDA kernel library (src/cudamatrix/cuda/): every
// host function runs on random data uploaded to device buffers with padded
// strides, and is compared with the CPU MatrixBase/VectorBase operation of
// the same name (the oracle) in float and double, on shapes that include
// 0 rows, 1 row, odd strides, a large 1031 x 1537 matrix and a tall one
// with more row blocks than a grid's y extent. The padding around each
// device view must stay untouched. Without a CUDA GPU every GPU test skips
// with one line saying why; the tests of the error checks run anyway.
//
// Tolerances (|gpu - cpu| <= tol * max(1, |cpu|) unless stated):
//   elementwise, broadcast, copies, gathers: 1e-5 float, 1e-12 double
//     (copies and selections are exact in fact);
//   transcendental (exp, log, pow, tanh, sigmoid, softmax): 1e-5 float
//     (the device math library is within 2-4 ulp), 1e-12 double;
//   sums (reductions, row/column sums, GEMM): relative to the sum of the
//     magnitudes of the terms: 1e-4 float, 1e-12 double, since the order
//     of the additions differs from the CPU's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "cudamatrix/cuda/broadcast.h"
#include "cudamatrix/cuda/context.h"
#include "cudamatrix/cuda/copy-set.h"
#include "cudamatrix/cuda/cuda-check.h"
#include "cudamatrix/cuda/elementwise.h"
#include "cudamatrix/cuda/gemm.h"
#include "cudamatrix/cuda/reductions.h"
#include "cudamatrix/cuda/row-ops.h"
#include "cudamatrix/cuda/softmax.h"
#include "cudamatrix/cuda-test-util.h"
#include "matrix/matrix-test-util.h"

namespace nnet3 {
namespace test {
namespace {

namespace cu = ::nnet3::cuda;

template <class Real> double ElemTol() { return sizeof(Real) == 4 ? 1e-5 : 1e-12; }
template <class Real> double SumTol() { return sizeof(Real) == 4 ? 1e-4 : 1e-12; }

struct Shape {
  int32 rows, cols, pad;
};

std::string Describe(const Shape &s) {
  return std::to_string(s.rows) + "x" + std::to_string(s.cols) + ", stride " +
         std::to_string(s.cols + s.pad);
}

// Matrix shapes: empty, one row, odd strides, large, and tall (600000 rows
// need more than 65535 blocks of 8 rows, so the kernels' row loop runs).
const std::vector<Shape> &MatShapes() {
  static const std::vector<Shape> shapes = {
      {0, 0, 0},   {0, 0, 3},  {1, 1, 0},       {1, 17, 3},
      {7, 5, 0},   {7, 5, 3},  {33, 65, 3},     {64, 32, 1},
      {1031, 1537, 3},         {600000, 3, 2}};
  return shapes;
}
const std::vector<int32> &VecDims() {
  static const std::vector<int32> dims = {0, 1, 17, 1031, 100003, 1600000};
  return dims;
}

// |gpu - cpu| <= tol * scale elementwise (scale: the sum of |terms|).
template <class Real>
::testing::AssertionResult MatchesScaled(const DeviceMatrix<Real> &gpu,
                                         const MatrixBase<Real> &cpu,
                                         const MatrixBase<Real> &scale,
                                         double tol) {
  Matrix<Real> got = gpu.ToHost();
  for (int32 r = 0; r < cpu.NumRows(); r++)
    for (int32 c = 0; c < cpu.NumCols(); c++) {
      double d = std::abs(static_cast<double>(got(r, c)) - cpu(r, c));
      if (!(d <= tol * scale(r, c) + 1e-30))
        return ::testing::AssertionFailure()
               << std::setprecision(17) << "element (" << r << "," << c
               << "): gpu " << got(r, c) << ", cpu " << cpu(r, c)
               << ", allowed " << tol * scale(r, c);
    }
  return gpu.PaddingIntact();
}

template <class Real>
::testing::AssertionResult ScalarMatches(double gpu, double cpu,
                                         double scale, double tol) {
  if (std::isnan(cpu) && std::isnan(gpu)) return ::testing::AssertionSuccess();
  if (cpu == gpu) return ::testing::AssertionSuccess();  // infinities too
  if (std::abs(gpu - cpu) <= tol * std::max(1.0, scale))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << std::setprecision(17) << "gpu " << gpu << ", cpu " << cpu
         << " (allowed " << tol * std::max(1.0, scale) << ")";
}

template <class Real>
Matrix<Real> AbsOf(const MatrixBase<Real> &M) {
  Matrix<Real> A(M);
  A.ApplyAbs();
  return A;
}

template <typename Real>
class CudaKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why = NoGpuReason();
    if (!why.empty()) GTEST_SKIP() << "no CUDA GPU: " << why;
  }
};
TYPED_TEST_SUITE(CudaKernelsTest, RealTypes);

// Runs body(rng, shape) for every matrix shape, with a trace naming the
// shape and the seed.
template <class F>
void ForEachShape(F body) {
  uint64_t base = TestSeed();
  int iter = 0;
  for (const Shape &s : MatShapes()) {
    Rng rng(SeedFor(base, iter++));
    SCOPED_TRACE(Describe(s) + ", " + rng.Trace());
    body(rng, s);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Compares an in-place operation: cpu_op(MatrixBase&) against
// gpu_op(DevMat) on a device copy of M.
template <class Real, class CpuOp, class GpuOp>
void CheckInPlace(const Matrix<Real> &M, int32 pad, double tol,
                  const char *what, CpuOp cpu_op, GpuOp gpu_op) {
  SCOPED_TRACE(what);
  Matrix<Real> cpu(M);
  DeviceMatrix<Real> gpu(M, pad);
  cpu_op(cpu);
  gpu_op(gpu.View());
  EXPECT_TRUE(Matches(gpu, cpu, tol));
}

// ---- Errors (run without a GPU too) ----------------------------------------

TEST(CudaCheck, CodingErrorsThrowInternalErrorOnOneLine) {
  try {
    NNET3_CUDA_CHECK(cudaErrorInvalidValue);
    FAIL() << "no exception";
  } catch (const InternalError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cudaErrorInvalidValue"), std::string::npos) << what;
    EXPECT_NE(what.find(cudaGetErrorString(cudaErrorInvalidValue)),
              std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_THROW(NNET3_CUBLAS_CHECK(CUBLAS_STATUS_INVALID_VALUE), InternalError);
}

TEST(CudaCheck, EnvironmentErrorsThrowUserError) {
  try {
    NNET3_CUDA_CHECK(cudaErrorMemoryAllocation);
    FAIL() << "no exception";
  } catch (const UserError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("cudaErrorMemoryAllocation"), std::string::npos);
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_THROW(NNET3_CUBLAS_CHECK(CUBLAS_STATUS_ALLOC_FAILED), UserError);
  EXPECT_NO_THROW(NNET3_CUDA_CHECK(cudaSuccess));
  EXPECT_NO_THROW(NNET3_CUBLAS_CHECK(CUBLAS_STATUS_SUCCESS));
}

// ---- copy-set --------------------------------------------------------------

TYPED_TEST(CudaKernelsTest, SetScaleAdd) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    if (s.rows > 0) M(0, 0) = static_cast<Real>(NaN());  // Scale(0) clears it
    const double tol = ElemTol<Real>();
    CheckInPlace(M, s.pad, tol, "SetZero",
                 [](MatrixBase<Real> &m) { m.SetZero(); },
                 [](cu::DevMat<Real> m) { cu::SetZero(m); });
    CheckInPlace(M, s.pad, tol, "Set",
                 [](MatrixBase<Real> &m) { m.Set(-1.25); },
                 [](cu::DevMat<Real> m) { cu::Set(m, -1.25); });
    CheckInPlace(M, s.pad, tol, "SetUnit",
                 [](MatrixBase<Real> &m) { m.SetUnit(); },
                 [](cu::DevMat<Real> m) { cu::SetUnit(m); });
    CheckInPlace(M, s.pad, tol, "Add",
                 [](MatrixBase<Real> &m) { m.Add(0.75); },
                 [](cu::DevMat<Real> m) { cu::Add(m, 0.75); });
    for (double alpha : {0.0, 1.0, -2.5}) {
      SCOPED_TRACE("alpha " + std::to_string(alpha));
      CheckInPlace(M, s.pad, tol, "Scale",
                   [&](MatrixBase<Real> &m) { m.Scale(alpha); },
                   [&](cu::DevMat<Real> m) { cu::Scale(m, alpha); });
    }
  });
}

TYPED_TEST(CudaKernelsTest, CopyFromMat) {
  typedef TypeParam Real;
  typedef typename std::conditional<sizeof(Real) == 4, double, float>::type
      Other;
  ForEachShape([](Rng &rng, const Shape &s) {
    for (MatrixTransposeType t : {kNoTrans, kTrans}) {
      SCOPED_TRACE(t == kTrans ? "kTrans" : "kNoTrans");
      int32 sr = t == kNoTrans ? s.rows : s.cols,
            sc = t == kNoTrans ? s.cols : s.rows;
      Matrix<Real> src = RandMat<Real>(rng, sr, sc);
      Matrix<Other> src_other = RandMat<Other>(rng, sr, sc);
      Matrix<Real> dst0 = RandMat<Real>(rng, s.rows, s.cols);
      DeviceMatrix<Real> gsrc(src, 1);
      DeviceMatrix<Other> gsrc_other(src_other, 2);

      Matrix<Real> cpu(dst0);
      cpu.CopyFromMat(src, t);
      DeviceMatrix<Real> gpu(dst0, s.pad);
      cu::CopyFromMat(gpu.View(), gsrc.View(), t);
      EXPECT_TRUE(Matches(gpu, cpu, 0.0));

      Matrix<Real> cpu2(dst0);
      cpu2.CopyFromMat(src_other, t);
      DeviceMatrix<Real> gpu2(dst0, s.pad);
      cu::CopyFromMat(gpu2.View(), gsrc_other.View(), t);
      EXPECT_TRUE(Matches(gpu2, cpu2, 0.0)) << "from the other precision";
    }
    // Copy of a view onto itself.
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    DeviceMatrix<Real> g(M, s.pad);
    cu::CopyFromMat(g.View(), g.View());
    EXPECT_TRUE(Matches(g, M, 0.0)) << "self copy";
  });
}

// A transpose whose output has more row tiles (of 32) than a grid's y
// extent, so that the transpose kernel's tile loop runs.
TYPED_TEST(CudaKernelsTest, CopyFromMatTransposeTall) {
  typedef TypeParam Real;
  Rng rng(SeedFor(TestSeed(), 0));
  SCOPED_TRACE(rng.Trace());
  Matrix<Real> src = RandMat<Real>(rng, 2, 65535 * 32 + 77);
  Matrix<Real> cpu(src.NumCols(), 2);
  cpu.CopyFromMat(src, kTrans);
  DeviceMatrix<Real> gsrc(src, 3), gpu(Matrix<Real>(src.NumCols(), 2), 1);
  cu::CopyFromMat(gpu.View(), gsrc.View(), kTrans);
  EXPECT_TRUE(Matches(gpu, cpu, 0.0));
  // And the transposed AddMat on the same shape.
  Matrix<Real> dst = RandMat<Real>(rng, src.NumCols(), 2);
  DeviceMatrix<Real> gdst(dst, 2);
  dst.AddMat(-0.5, src, kTrans);
  cu::AddMat(gdst.View(), -0.5, gsrc.View(), kTrans);
  EXPECT_TRUE(Matches(gdst, dst, ElemTol<Real>()));
}

TYPED_TEST(CudaKernelsTest, CopyFromVec) {
  typedef TypeParam Real;
  typedef typename std::conditional<sizeof(Real) == 4, double, float>::type
      Other;
  ForEachShape([](Rng &rng, const Shape &s) {
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    int32 n = s.rows * s.cols;
    {
      Vector<Real> all = RandVec<Real>(rng, n), row = RandVec<Real>(rng, s.cols);
      DeviceVector<Real> gall(all), grow(row);
      CheckInPlace(M, s.pad, 0.0, "CopyRowsFromVec (rows*cols)",
                   [&](MatrixBase<Real> &m) { m.CopyRowsFromVec(all); },
                   [&](cu::DevMat<Real> m) { cu::CopyRowsFromVec(m, gall.View()); });
      CheckInPlace(M, s.pad, 0.0, "CopyRowsFromVec (cols)",
                   [&](MatrixBase<Real> &m) { m.CopyRowsFromVec(row); },
                   [&](cu::DevMat<Real> m) { cu::CopyRowsFromVec(m, grow.View()); });
      Vector<Other> other = RandVec<Other>(rng, n);
      DeviceVector<Other> gother(other);
      CheckInPlace(M, s.pad, 0.0, "CopyRowsFromVec (other precision)",
                   [&](MatrixBase<Real> &m) { m.CopyRowsFromVec(other); },
                   [&](cu::DevMat<Real> m) { cu::CopyRowsFromVec(m, gother.View()); });
    }
    {
      Vector<Real> all = RandVec<Real>(rng, n), col = RandVec<Real>(rng, s.rows);
      DeviceVector<Real> gall(all), gcol(col);
      CheckInPlace(M, s.pad, 0.0, "CopyColsFromVec (rows*cols)",
                   [&](MatrixBase<Real> &m) { m.CopyColsFromVec(all); },
                   [&](cu::DevMat<Real> m) { cu::CopyColsFromVec(m, gall.View()); });
      CheckInPlace(M, s.pad, 0.0, "CopyColsFromVec (rows)",
                   [&](MatrixBase<Real> &m) { m.CopyColsFromVec(col); },
                   [&](cu::DevMat<Real> m) { cu::CopyColsFromVec(m, gcol.View()); });
      if (s.cols > 0) {
        int32 c = s.cols / 2;
        CheckInPlace(M, s.pad, 0.0, "CopyColFromVec",
                     [&](MatrixBase<Real> &m) { m.CopyColFromVec(col, c); },
                     [&](cu::DevMat<Real> m) { cu::CopyColFromVec(m, gcol.View(), c); });
      }
    }
    Vector<Real> diag = RandVec<Real>(rng, std::min(s.rows, s.cols));
    DeviceVector<Real> gdiag(diag);
    CheckInPlace(M, s.pad, 0.0, "CopyDiagFromVec",
                 [&](MatrixBase<Real> &m) { m.CopyDiagFromVec(diag); },
                 [&](cu::DevMat<Real> m) { cu::CopyDiagFromVec(m, gdiag.View()); });
  });
}

// ---- elementwise -----------------------------------------------------------

TYPED_TEST(CudaKernelsTest, UnaryFunctions) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = ElemTol<Real>();
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols, 2.0);
    Matrix<Real> P = Positive<Real>(rng, s.rows, s.cols);
    CheckInPlace(M, s.pad, tol, "ApplyFloor",
                 [](MatrixBase<Real> &m) { m.ApplyFloor(0.1); },
                 [](cu::DevMat<Real> m) { cu::ApplyFloor(m, 0.1); });
    CheckInPlace(M, s.pad, tol, "ApplyCeiling",
                 [](MatrixBase<Real> &m) { m.ApplyCeiling(-0.2); },
                 [](cu::DevMat<Real> m) { cu::ApplyCeiling(m, -0.2); });
    CheckInPlace(M, s.pad, tol, "ApplyExp",
                 [](MatrixBase<Real> &m) { m.ApplyExp(); },
                 [](cu::DevMat<Real> m) { cu::ApplyExp(m); });
    CheckInPlace(P, s.pad, tol, "ApplyLog",
                 [](MatrixBase<Real> &m) { m.ApplyLog(); },
                 [](cu::DevMat<Real> m) { cu::ApplyLog(m); });
    CheckInPlace(M, s.pad, tol, "ApplyAbs",
                 [](MatrixBase<Real> &m) { m.ApplyAbs(); },
                 [](cu::DevMat<Real> m) { cu::ApplyAbs(m); });
    for (double p : {1.0, 2.0, 3.0}) {
      SCOPED_TRACE("power " + std::to_string(p));
      CheckInPlace(M, s.pad, tol, "ApplyPow",
                   [&](MatrixBase<Real> &m) { m.ApplyPow(p); },
                   [&](cu::DevMat<Real> m) { cu::ApplyPow(m, p); });
    }
    for (double p : {0.5, 1.7, -0.3}) {
      SCOPED_TRACE("power " + std::to_string(p));
      CheckInPlace(P, s.pad, tol, "ApplyPow (positive input)",
                   [&](MatrixBase<Real> &m) { m.ApplyPow(p); },
                   [&](cu::DevMat<Real> m) { cu::ApplyPow(m, p); });
    }
    for (bool sign : {false, true}) {
      SCOPED_TRACE(sign ? "include_sign" : "no sign");
      CheckInPlace(M, s.pad, tol, "ApplyPowAbs",
                   [&](MatrixBase<Real> &m) { m.ApplyPowAbs(1.5, sign); },
                   [&](cu::DevMat<Real> m) { cu::ApplyPowAbs(m, 1.5, sign); });
    }
    CheckInPlace(M, s.pad, tol, "ApplyHeaviside",
                 [](MatrixBase<Real> &m) { m.ApplyHeaviside(); },
                 [](cu::DevMat<Real> m) { cu::ApplyHeaviside(m); });
    CheckInPlace(P, s.pad, tol, "InvertElements",
                 [](MatrixBase<Real> &m) { m.InvertElements(); },
                 [](cu::DevMat<Real> m) { cu::InvertElements(m); });
    Matrix<Real> W = RandMat<Real>(rng, s.rows, s.cols, 8.0);  // wide range
    CheckInPlace(W, s.pad, tol, "Sigmoid (in place)",
                 [](MatrixBase<Real> &m) { m.Sigmoid(m); },
                 [](cu::DevMat<Real> m) { cu::Sigmoid(m, m); });
    CheckInPlace(W, s.pad, tol, "Tanh (in place)",
                 [](MatrixBase<Real> &m) { m.Tanh(m); },
                 [](cu::DevMat<Real> m) { cu::Tanh(m, m); });
    DeviceMatrix<Real> gW(W, 1);
    CheckInPlace(M, s.pad, tol, "Sigmoid",
                 [&](MatrixBase<Real> &m) { m.Sigmoid(W); },
                 [&](cu::DevMat<Real> m) { cu::Sigmoid(m, gW.View()); });
    CheckInPlace(M, s.pad, tol, "Tanh",
                 [&](MatrixBase<Real> &m) { m.Tanh(W); },
                 [&](cu::DevMat<Real> m) { cu::Tanh(m, gW.View()); });
  });
}

TYPED_TEST(CudaKernelsTest, BinaryFunctions) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = ElemTol<Real>();
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    Matrix<Real> A = RandMat<Real>(rng, s.rows, s.cols);
    Matrix<Real> B = RandMat<Real>(rng, s.rows, s.cols);
    Matrix<Real> P = Positive<Real>(rng, s.rows, s.cols);
    DeviceMatrix<Real> gA(A, 3), gB(B, 0), gP(P, 1);
    CheckInPlace(M, s.pad, tol, "DiffSigmoid",
                 [&](MatrixBase<Real> &m) { m.DiffSigmoid(A, B); },
                 [&](cu::DevMat<Real> m) { cu::DiffSigmoid(m, gA.View(), gB.View()); });
    CheckInPlace(M, s.pad, tol, "DiffTanh",
                 [&](MatrixBase<Real> &m) { m.DiffTanh(A, B); },
                 [&](cu::DevMat<Real> m) { cu::DiffTanh(m, gA.View(), gB.View()); });
    CheckInPlace(M, s.pad, tol, "DiffTanh (diff in place)",
                 [&](MatrixBase<Real> &m) { m.DiffTanh(A, m); },
                 [&](cu::DevMat<Real> m) { cu::DiffTanh(m, gA.View(), m); });
    CheckInPlace(M, s.pad, tol, "MulElements",
                 [&](MatrixBase<Real> &m) { m.MulElements(A); },
                 [&](cu::DevMat<Real> m) { cu::MulElements(m, gA.View()); });
    CheckInPlace(M, s.pad, tol, "DivElements",
                 [&](MatrixBase<Real> &m) { m.DivElements(P); },
                 [&](cu::DevMat<Real> m) { cu::DivElements(m, gP.View()); });
    // NaN on either side, as std::max/std::min treat it.
    Matrix<Real> N(M), AN(A);
    if (s.rows > 0) {
      N(0, 0) = static_cast<Real>(NaN());
      AN(s.rows - 1, s.cols - 1) = static_cast<Real>(NaN());
    }
    DeviceMatrix<Real> gAN(AN, 2);
    CheckInPlace(N, s.pad, 0.0, "Max",
                 [&](MatrixBase<Real> &m) { m.Max(AN); },
                 [&](cu::DevMat<Real> m) { cu::Max(m, gAN.View()); });
    CheckInPlace(N, s.pad, 0.0, "Min",
                 [&](MatrixBase<Real> &m) { m.Min(AN); },
                 [&](cu::DevMat<Real> m) { cu::Min(m, gAN.View()); });
    for (double alpha : {1.0, -0.5}) {
      SCOPED_TRACE("alpha " + std::to_string(alpha));
      CheckInPlace(M, s.pad, tol, "AddMat",
                   [&](MatrixBase<Real> &m) { m.AddMat(alpha, A); },
                   [&](cu::DevMat<Real> m) { cu::AddMat(m, alpha, gA.View()); });
      Matrix<Real> At(A, kTrans);
      DeviceMatrix<Real> gAt(At, 3);
      CheckInPlace(M, s.pad, tol, "AddMat kTrans",
                   [&](MatrixBase<Real> &m) { m.AddMat(alpha, At, kTrans); },
                   [&](cu::DevMat<Real> m) { cu::AddMat(m, alpha, gAt.View(), kTrans); });
      if (s.rows == s.cols || s.rows <= 64) {
        int32 n = std::min(s.rows, s.cols);
        Matrix<Real> S = RandMat<Real>(rng, n, n);
        CheckInPlace(S, s.pad, tol, "AddMat kTrans onto itself",
                     [&](MatrixBase<Real> &m) { m.AddMat(alpha, m, kTrans); },
                     [&](cu::DevMat<Real> m) { cu::AddMat(m, alpha, m, kTrans); });
      }
    }
    for (double beta : {0.0, 1.0, 0.3}) {
      SCOPED_TRACE("beta " + std::to_string(beta));
      CheckInPlace(N, s.pad, tol, "AddMatMatElements",
                   [&](MatrixBase<Real> &m) { m.AddMatMatElements(0.7, A, B, beta); },
                   [&](cu::DevMat<Real> m) {
                     cu::AddMatMatElements(m, 0.7, gA.View(), gB.View(), beta);
                   });
    }
  });
}

// ---- broadcast -------------------------------------------------------------

TYPED_TEST(CudaKernelsTest, Broadcast) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = ElemTol<Real>();
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    Matrix<Real> N(M);  // NaN for beta == 0
    if (s.rows > 0) N(s.rows - 1, 0) = static_cast<Real>(NaN());
    Vector<Real> vr = RandVec<Real>(rng, s.rows), vc = RandVec<Real>(rng, s.cols);
    DeviceVector<Real> gvr(vr), gvc(vc);
    CheckInPlace(M, s.pad, tol, "MulRowsVec",
                 [&](MatrixBase<Real> &m) { m.MulRowsVec(vr); },
                 [&](cu::DevMat<Real> m) { cu::MulRowsVec(m, gvr.View()); });
    CheckInPlace(M, s.pad, tol, "MulColsVec",
                 [&](MatrixBase<Real> &m) { m.MulColsVec(vc); },
                 [&](cu::DevMat<Real> m) { cu::MulColsVec(m, gvc.View()); });
    Matrix<Real> A = RandMat<Real>(rng, s.rows, s.cols);
    Matrix<Real> At(A, kTrans);
    DeviceMatrix<Real> gA(A, 1), gAt(At, 2);
    for (double beta : {0.0, 1.0, 0.5}) {
      SCOPED_TRACE("beta " + std::to_string(beta));
      const Matrix<Real> &D = beta == 0.0 ? N : M;
      CheckInPlace(D, s.pad, tol, "AddVecToRows",
                   [&](MatrixBase<Real> &m) { m.AddVecToRows(-1.5, vc, beta); },
                   [&](cu::DevMat<Real> m) { cu::AddVecToRows(m, -1.5, gvc.View(), beta); });
      CheckInPlace(D, s.pad, tol, "AddVecToCols",
                   [&](MatrixBase<Real> &m) { m.AddVecToCols(-1.5, vr, beta); },
                   [&](cu::DevMat<Real> m) { cu::AddVecToCols(m, -1.5, gvr.View(), beta); });
      CheckInPlace(D, s.pad, tol, "AddDiagVecMat",
                   [&](MatrixBase<Real> &m) { m.AddDiagVecMat(0.7, vr, A, kNoTrans, beta); },
                   [&](cu::DevMat<Real> m) {
                     cu::AddDiagVecMat(m, 0.7, gvr.View(), gA.View(), kNoTrans, beta);
                   });
      CheckInPlace(D, s.pad, tol, "AddDiagVecMat kTrans",
                   [&](MatrixBase<Real> &m) { m.AddDiagVecMat(0.7, vr, At, kTrans, beta); },
                   [&](cu::DevMat<Real> m) {
                     cu::AddDiagVecMat(m, 0.7, gvr.View(), gAt.View(), kTrans, beta);
                   });
      CheckInPlace(D, s.pad, tol, "AddMatDiagVec",
                   [&](MatrixBase<Real> &m) { m.AddMatDiagVec(0.7, A, kNoTrans, vc, beta); },
                   [&](cu::DevMat<Real> m) {
                     cu::AddMatDiagVec(m, 0.7, gA.View(), kNoTrans, gvc.View(), beta);
                   });
      CheckInPlace(D, s.pad, tol, "AddMatDiagVec kTrans",
                   [&](MatrixBase<Real> &m) { m.AddMatDiagVec(0.7, At, kTrans, vc, beta); },
                   [&](cu::DevMat<Real> m) {
                     cu::AddMatDiagVec(m, 0.7, gAt.View(), kTrans, gvc.View(), beta);
                   });
    }
  });
}

// ---- reductions ------------------------------------------------------------

TYPED_TEST(CudaKernelsTest, MatrixReductions) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = SumTol<Real>();
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    DeviceMatrix<Real> g(M, s.pad);
    double abs_sum = 0, sq_sum = 0;
    for (int32 r = 0; r < s.rows; r++)
      for (int32 c = 0; c < s.cols; c++) {
        abs_sum += std::abs(M(r, c));
        sq_sum += static_cast<double>(M(r, c)) * M(r, c);
      }
    EXPECT_TRUE(ScalarMatches<Real>(cu::Sum(g.View()), M.Sum(), abs_sum, tol));
    EXPECT_TRUE(ScalarMatches<Real>(cu::FrobeniusNorm(g.View()),
                                    M.FrobeniusNorm(), std::sqrt(sq_sum), tol));
    if (s.rows == 0) return;
    EXPECT_EQ(cu::Max(g.View()), M.Max());
    EXPECT_EQ(cu::Min(g.View()), M.Min());
    // NaN: ignored unless it is the first element.
    Matrix<Real> N(M);
    N(s.rows - 1, s.cols - 1) = static_cast<Real>(NaN());
    if (s.rows * s.cols > 1) {
      DeviceMatrix<Real> gN(N, s.pad);
      EXPECT_EQ(cu::Max(gN.View()), N.Max());
      EXPECT_EQ(cu::Min(gN.View()), N.Min());
    }
    N(0, 0) = static_cast<Real>(NaN());
    DeviceMatrix<Real> gN0(N, s.pad);
    EXPECT_TRUE(std::isnan(cu::Max(gN0.View())) && std::isnan(N.Max()));
    EXPECT_TRUE(std::isnan(cu::Min(gN0.View())) && std::isnan(N.Min()));
  });
}

TYPED_TEST(CudaKernelsTest, VectorReductions) {
  typedef TypeParam Real;
  uint64_t base = TestSeed();
  int iter = 0;
  for (int32 dim : VecDims()) {
    Rng rng(SeedFor(base, iter++));
    SCOPED_TRACE("dim " + std::to_string(dim) + ", " + rng.Trace());
    const double tol = SumTol<Real>();
    Vector<Real> v = RandVec<Real>(rng, dim);
    if (dim > 3) v(dim - 1) = v(2) = v.Max();  // a tie for the maximum
    if (dim > 5) v(4) = 0;                     // a zero for Norm(0)
    DeviceVector<Real> g(v);
    double abs_sum = 0;
    for (int32 i = 0; i < dim; i++) abs_sum += std::abs(v(i));
    EXPECT_TRUE(ScalarMatches<Real>(cu::Sum(g.View()), v.Sum(), abs_sum, tol));
    EXPECT_EQ(cu::Max(g.View()), v.Max());
    EXPECT_EQ(cu::Min(g.View()), v.Min());
    for (double p : {0.0, 1.0, 2.0, 3.5, std::numeric_limits<double>::infinity()}) {
      SCOPED_TRACE("Norm(" + std::to_string(p) + ")");
      double scale = p == 1.0 ? abs_sum : std::abs(v.Norm(p));
      EXPECT_TRUE(ScalarMatches<Real>(cu::Norm(g.View(), p), v.Norm(p), scale, tol));
    }
    if (dim == 0) continue;
    int32 gi = -1, ci = -1;
    EXPECT_EQ(cu::Max(g.View(), &gi), v.Max(&ci));
    EXPECT_EQ(gi, ci);
    EXPECT_EQ(cu::Min(g.View(), &gi), v.Min(&ci));
    EXPECT_EQ(gi, ci);
    // NaN elsewhere is ignored; NaN first is the answer (indexed forms).
    Vector<Real> n(v);
    n(dim - 1) = static_cast<Real>(NaN());
    if (dim > 1) {
      DeviceVector<Real> gn(n);
      EXPECT_EQ(cu::Max(gn.View()), n.Max());
      EXPECT_EQ(cu::Max(gn.View(), &gi), n.Max(&ci));
      EXPECT_EQ(gi, ci);
      EXPECT_EQ(cu::Min(gn.View(), &gi), n.Min(&ci));
      EXPECT_EQ(gi, ci);
    }
    n(0) = static_cast<Real>(NaN());
    DeviceVector<Real> gn0(n);
    EXPECT_TRUE(std::isnan(cu::Max(gn0.View(), &gi)) && std::isnan(n.Max(&ci)));
    EXPECT_EQ(gi, ci);
    EXPECT_TRUE(std::isnan(cu::Min(gn0.View(), &gi)) && std::isnan(n.Min(&ci)));
    EXPECT_EQ(gi, ci);
  }
}

TYPED_TEST(CudaKernelsTest, RowAndColumnSums) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = SumTol<Real>();
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    DeviceMatrix<Real> gM(M, s.pad);
    Matrix<Real> absM = AbsOf(M);
    for (double beta : {0.0, 1.0, 0.5}) {
      SCOPED_TRACE("beta " + std::to_string(beta));
      Vector<Real> vc = RandVec<Real>(rng, s.cols), vr = RandVec<Real>(rng, s.rows);
      if (beta == 0.0 && s.rows > 0) {
        vc(0) = static_cast<Real>(NaN());
        vr(0) = static_cast<Real>(NaN());
      }
      DeviceVector<Real> gvc(vc), gvr(vr);
      // Allowed error: tol * (sum of |terms| + |beta * old|).
      Vector<Real> sc(s.cols), sr(s.rows);
      sc.AddRowSumMat(0.7, absM, 0.0);
      sr.AddColSumMat(0.7, absM, 0.0);
      for (int32 c = 0; c < s.cols; c++)
        sc(c) += beta == 0.0 ? 0 : std::abs(beta * vc(c));
      for (int32 r = 0; r < s.rows; r++)
        sr(r) += beta == 0.0 ? 0 : std::abs(beta * vr(r));
      vc.AddRowSumMat(0.7, M, beta);
      vr.AddColSumMat(0.7, M, beta);
      cu::AddRowSumMat(gvc.View(), 0.7, gM.View(), beta);
      cu::AddColSumMat(gvr.View(), 0.7, gM.View(), beta);
      Vector<Real> got_c = gvc.ToHost(), got_r = gvr.ToHost();
      for (int32 c = 0; c < s.cols; c++)
        ASSERT_TRUE(ScalarMatches<Real>(got_c(c), vc(c), sc(c), tol))
            << "AddRowSumMat, column " << c;
      for (int32 r = 0; r < s.rows; r++)
        ASSERT_TRUE(ScalarMatches<Real>(got_r(r), vr(r), sr(r), tol))
            << "AddColSumMat, row " << r;
      EXPECT_TRUE(gvc.PaddingIntact());
      EXPECT_TRUE(gvr.PaddingIntact());
    }
  });
}

// ---- softmax ---------------------------------------------------------------

TYPED_TEST(CudaKernelsTest, SoftMax) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = ElemTol<Real>();
    // Large values: exp would overflow without the max subtraction.
    Matrix<Real> X = RandMat<Real>(rng, s.rows, s.cols, 40.0);
    if (s.rows > 0) X(0, 0) = 500;
    DeviceMatrix<Real> gX(X, 2);
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    CheckInPlace(M, s.pad, tol, "SoftMaxPerRow",
                 [&](MatrixBase<Real> &m) { m.SoftMaxPerRow(X); },
                 [&](cu::DevMat<Real> m) { cu::SoftMaxPerRow(m, gX.View()); });
    CheckInPlace(M, s.pad, tol, "LogSoftMaxPerRow",
                 [&](MatrixBase<Real> &m) { m.LogSoftMaxPerRow(X); },
                 [&](cu::DevMat<Real> m) { cu::LogSoftMaxPerRow(m, gX.View()); });
    CheckInPlace(X, s.pad, tol, "SoftMaxPerRow (in place)",
                 [&](MatrixBase<Real> &m) { m.SoftMaxPerRow(m); },
                 [&](cu::DevMat<Real> m) { cu::SoftMaxPerRow(m, m); });
    CheckInPlace(X, s.pad, tol, "LogSoftMaxPerRow (in place)",
                 [&](MatrixBase<Real> &m) { m.LogSoftMaxPerRow(m); },
                 [&](cu::DevMat<Real> m) { cu::LogSoftMaxPerRow(m, m); });
  });
}

// ---- row-ops ---------------------------------------------------------------

// n indexes into [0, range), about a quarter of them -1 (never when
// range == 0 forces all -1).
std::vector<int32> RandIndexes(Rng &rng, int32 n, int32 range) {
  std::vector<int32> idx(n);
  for (int32 &i : idx)
    i = (range == 0 || rng.Int(0, 3) == 0) ? -1 : rng.Int(0, range - 1);
  return idx;
}

TYPED_TEST(CudaKernelsTest, RowGathersAndScatters) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = ElemTol<Real>();
    int32 src_rows = s.rows == 0 ? 0 : rng.Int(1, 40);
    Matrix<Real> src = RandMat<Real>(rng, src_rows, s.cols);
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    DeviceMatrix<Real> gsrc(src, 1);
    std::vector<int32> idx = RandIndexes(rng, s.rows, src_rows);
    DeviceArray<int32> gidx(idx);
    std::vector<const Real *> cptr(s.rows), gptr(s.rows);
    for (int32 r = 0; r < s.rows; r++) {
      int32 i = idx[r];
      cptr[r] = i < 0 ? nullptr : src.RowData(i);
      gptr[r] = i < 0 ? nullptr : gsrc.View().data + static_cast<size_t>(i) * gsrc.Stride();
    }
    DeviceArray<const Real *> gptrs(gptr);
    CheckInPlace(M, s.pad, 0.0, "CopyRows",
                 [&](MatrixBase<Real> &m) { m.CopyRows(src, idx); },
                 [&](cu::DevMat<Real> m) { cu::CopyRows(m, gsrc.View(), gidx.Data()); });
    CheckInPlace(M, s.pad, 0.0, "CopyRows (pointers)",
                 [&](MatrixBase<Real> &m) { m.CopyRows(cptr); },
                 [&](cu::DevMat<Real> m) { cu::CopyRows(m, gptrs.Data()); });
    CheckInPlace(M, s.pad, tol, "AddRows",
                 [&](MatrixBase<Real> &m) { m.AddRows(-0.5, src, idx); },
                 [&](cu::DevMat<Real> m) { cu::AddRows(m, -0.5, gsrc.View(), gidx.Data()); });
    CheckInPlace(M, s.pad, tol, "AddRows (pointers)",
                 [&](MatrixBase<Real> &m) { m.AddRows(-0.5, cptr); },
                 [&](cu::DevMat<Real> m) { cu::AddRows(m, -0.5, gptrs.Data()); });

    // Scatters from M into a destination with more rows: CopyToRows with
    // distinct indexes, AddToRows with repeats.
    int32 dst_rows = s.rows == 0 ? 0 : s.rows + 3;
    Matrix<Real> dst = RandMat<Real>(rng, dst_rows, s.cols);
    std::vector<int32> perm(dst_rows);
    std::iota(perm.begin(), perm.end(), 0);
    for (int32 i = dst_rows - 1; i > 0; i--) std::swap(perm[i], perm[rng.Int(0, i)]);
    std::vector<int32> uniq(s.rows);
    for (int32 r = 0; r < s.rows; r++) uniq[r] = rng.Int(0, 4) == 0 ? -1 : perm[r];
    // About four sources per destination row.
    std::vector<int32> rep = RandIndexes(rng, s.rows, std::max(1, dst_rows / 4));
    DeviceMatrix<Real> gM(M, s.pad);
    for (int pass = 0; pass < 2; pass++) {
      const std::vector<int32> &ix = pass == 0 ? uniq : rep;
      SCOPED_TRACE(pass == 0 ? "distinct indexes" : "repeated indexes");
      DeviceArray<int32> gix(ix);
      std::vector<Real *> cdp(s.rows), gdp(s.rows);
      Matrix<Real> cpu(dst);
      DeviceMatrix<Real> gpu(dst, 2);
      for (int32 r = 0; r < s.rows; r++) {
        cdp[r] = ix[r] < 0 ? nullptr : cpu.RowData(ix[r]);
        gdp[r] = ix[r] < 0 ? nullptr : gpu.View().data + static_cast<size_t>(ix[r]) * gpu.Stride();
      }
      DeviceArray<Real *> gdps(gdp);
      if (pass == 0) {
        M.CopyToRows(ix, &cpu);
        cu::CopyToRows(gM.View(), gix.Data(), gpu.View());
        EXPECT_TRUE(Matches(gpu, cpu, 0.0)) << "CopyToRows";
        M.CopyToRows(cdp);
        cu::CopyToRows(gM.View(), gdps.MutableData());
        EXPECT_TRUE(Matches(gpu, cpu, 0.0)) << "CopyToRows (pointers)";
      }
      M.AddToRows(0.25, ix, &cpu);
      cu::AddToRows(gM.View(), 0.25, gix.Data(), gpu.View());
      EXPECT_TRUE(Matches(gpu, cpu, tol)) << "AddToRows";
      M.AddToRows(-1.5, cdp);
      cu::AddToRows(gM.View(), -1.5, gdps.MutableData());
      EXPECT_TRUE(Matches(gpu, cpu, tol)) << "AddToRows (pointers)";
    }
  });
}

TYPED_TEST(CudaKernelsTest, RangesAndColumns) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = ElemTol<Real>();
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    // AddRowRanges: ranges of rows of src (some empty).
    int32 src_rows = s.rows == 0 ? 0 : rng.Int(1, 30);
    Matrix<Real> src = RandMat<Real>(rng, src_rows, s.cols);
    DeviceMatrix<Real> gsrc(src, 3);
    std::vector<Int32Pair> rr(s.rows);
    for (Int32Pair &p : rr) {
      p.first = rng.Int(0, src_rows);
      p.second = rng.Int(0, 2) == 0 ? p.first : rng.Int(p.first, src_rows);
    }
    DeviceArray<Int32Pair> grr(rr);
    CheckInPlace(M, s.pad, tol, "AddRowRanges",
                 [&](MatrixBase<Real> &m) { m.AddRowRanges(src, rr); },
                 [&](cu::DevMat<Real> m) { cu::AddRowRanges(m, gsrc.View(), grr.Data()); });
    // Column ops: src with the same rows and other columns.
    int32 src_cols = s.rows == 0 ? 0 : rng.Int(1, 40);
    Matrix<Real> csrc = RandMat<Real>(rng, s.rows, src_cols);
    DeviceMatrix<Real> gcsrc(csrc, 1);
    std::vector<Int32Pair> cr(s.cols);
    for (Int32Pair &p : cr) {
      p.first = rng.Int(0, src_cols);
      p.second = rng.Int(0, 3) == 0 ? p.first : rng.Int(p.first, src_cols);
    }
    DeviceArray<Int32Pair> gcr(cr);
    CheckInPlace(M, s.pad, tol, "SumColumnRanges",
                 [&](MatrixBase<Real> &m) { m.SumColumnRanges(csrc, cr); },
                 [&](cu::DevMat<Real> m) { cu::SumColumnRanges(m, gcsrc.View(), gcr.Data()); });
    std::vector<int32> ci = RandIndexes(rng, s.cols, src_cols);
    DeviceArray<int32> gci(ci);
    CheckInPlace(M, s.pad, 0.0, "CopyCols",
                 [&](MatrixBase<Real> &m) { m.CopyCols(csrc, ci); },
                 [&](cu::DevMat<Real> m) { cu::CopyCols(m, gcsrc.View(), gci.Data()); });
    CheckInPlace(M, s.pad, tol, "AddCols",
                 [&](MatrixBase<Real> &m) { m.AddCols(csrc, ci); },
                 [&](cu::DevMat<Real> m) { cu::AddCols(m, gcsrc.View(), gci.Data()); });
  });
}

// ---- gemm ------------------------------------------------------------------

struct GemmShape {
  int32 m, n, k;
};

TYPED_TEST(CudaKernelsTest, AddMatMat) {
  typedef TypeParam Real;
  const std::vector<GemmShape> shapes = {{0, 0, 0},   {1, 1, 1},  {1, 17, 5},
                                         {7, 5, 3},   {33, 65, 17}, {64, 1, 128},
                                         {1031, 515, 1537}};
  uint64_t base = TestSeed();
  int iter = 0;
  for (const GemmShape &g : shapes) {
    for (MatrixTransposeType ta : {kNoTrans, kTrans})
      for (MatrixTransposeType tb : {kNoTrans, kTrans})
        for (double beta : {0.0, 1.0, -0.5}) {
          Rng rng(SeedFor(base, iter++));
          SCOPED_TRACE("m " + std::to_string(g.m) + " n " + std::to_string(g.n) +
                       " k " + std::to_string(g.k) + (ta ? " A^T" : " A") +
                       (tb ? " B^T" : " B") + " beta " + std::to_string(beta) +
                       ", " + rng.Trace());
          bool empty = g.m == 0;
          Matrix<Real> A = ta == kNoTrans ? RandMat<Real>(rng, g.m, g.k)
                                          : RandMat<Real>(rng, g.k, g.m);
          Matrix<Real> B = tb == kNoTrans ? RandMat<Real>(rng, g.k, g.n)
                                          : RandMat<Real>(rng, g.n, g.k);
          Matrix<Real> C = RandMat<Real>(rng, g.m, g.n);
          if (beta == 0.0 && !empty) C(0, 0) = static_cast<Real>(NaN());
          // Allowed error: tol * (|alpha| |op(A)| |op(B)| + |beta C|).
          Matrix<Real> scale(g.m, g.n);
          if (!empty) {
            scale.AddMatMat(0.75, AbsOf(A), ta, AbsOf(B), tb, 0.0);
            if (beta != 0.0) scale.AddMat(std::abs(beta), AbsOf(C));
          }
          DeviceMatrix<Real> gA(A, rng.Int(0, 3)), gB(B, rng.Int(0, 3)),
              gC(C, rng.Int(0, 3));
          C.AddMatMat(0.75, A, ta, B, tb, beta);
          cu::AddMatMat(gC.View(), 0.75, gA.View(), ta, gB.View(), tb, beta);
          ASSERT_TRUE(MatchesScaled(gC, C, scale, SumTol<Real>()));
        }
  }
}

TYPED_TEST(CudaKernelsTest, AddMatMatTf32) {
  typedef TypeParam Real;
  Rng rng(SeedFor(TestSeed(), 0));
  SCOPED_TRACE(rng.Trace());
  Matrix<Real> A = RandMat<Real>(rng, 130, 257), B = RandMat<Real>(rng, 257, 65);
  Matrix<Real> C(130, 65), scale(130, 65);
  scale.AddMatMat(1.0, AbsOf(A), kNoTrans, AbsOf(B), kNoTrans, 0.0);
  DeviceMatrix<Real> gA(A, 1), gB(B, 2), gC(C, 3);
  C.AddMatMat(1.0, A, kNoTrans, B, kNoTrans, 0.0);
  cu::SetTf32(true);
  cu::AddMatMat(gC.View(), 1.0, gA.View(), kNoTrans, gB.View(), kNoTrans, 0.0);
  cu::SetTf32(false);
  EXPECT_FALSE(cu::Tf32Enabled());
  // TF32 keeps 10 mantissa bits of the inputs (float only; double is
  // unaffected).
  EXPECT_TRUE(MatchesScaled(gC, C, scale, sizeof(Real) == 4 ? 2e-3 : 1e-12));
}

TYPED_TEST(CudaKernelsTest, AddMatVecAndAddVecVec) {
  typedef TypeParam Real;
  ForEachShape([](Rng &rng, const Shape &s) {
    const double tol = SumTol<Real>();
    Matrix<Real> M = RandMat<Real>(rng, s.rows, s.cols);
    DeviceMatrix<Real> gM(M, s.pad);
    Matrix<Real> absM = AbsOf(M);
    for (MatrixTransposeType t : {kNoTrans, kTrans})
      for (double beta : {0.0, 1.0, 0.5}) {
        SCOPED_TRACE(std::string(t == kTrans ? "kTrans" : "kNoTrans") +
                     " beta " + std::to_string(beta));
        int32 xd = t == kNoTrans ? s.cols : s.rows, yd = t == kNoTrans ? s.rows : s.cols;
        Vector<Real> x = RandVec<Real>(rng, xd), y = RandVec<Real>(rng, yd);
        if (beta == 0.0 && yd > 0) y(0) = static_cast<Real>(NaN());
        Vector<Real> absx(x), sc(yd);
        absx.ApplyAbs();
        if (yd > 0) sc.AddMatVec(1.25, absM, t, absx, 0.0);
        for (int32 i = 0; i < yd; i++) sc(i) += beta == 0.0 ? 0 : std::abs(beta * y(i));
        DeviceVector<Real> gx(x), gy(y);
        y.AddMatVec(1.25, M, t, x, beta);
        cu::AddMatVec(gy.View(), 1.25, gM.View(), t, gx.View(), beta);
        Vector<Real> got = gy.ToHost();
        for (int32 i = 0; i < yd; i++)
          ASSERT_TRUE(ScalarMatches<Real>(got(i), y(i), sc(i), tol)) << "element " << i;
        EXPECT_TRUE(gy.PaddingIntact());
      }
    Vector<Real> a = RandVec<Real>(rng, s.rows), b = RandVec<Real>(rng, s.cols);
    DeviceVector<Real> ga(a), gb(b);
    CheckInPlace(M, s.pad, ElemTol<Real>(), "AddVecVec",
                 [&](MatrixBase<Real> &m) { m.AddVecVec(-0.5, a, b); },
                 [&](cu::DevMat<Real> m) { cu::AddVecVec(m, -0.5, ga.View(), gb.View()); });
  });
}

}  // namespace
}  // namespace test
}  // namespace nnet3
