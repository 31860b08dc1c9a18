// Tests of the CPU backend of cudamatrix/cu-math-fused.h. The oracle of
// each one-pass operation is the sequence of separate Cu operations it
// replaces (each tested on its own against naive loops elsewhere); the
// results must be the same bits, in float and double, on views with odd
// strides, with outputs in place where allowed, on shapes with 0 and 1
// rows, and on a matrix large enough for the row threads, with one and with
// two of them.
#include "cudamatrix/cu-math-fused.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <memory>

#include "base/random.h"
#include "cudamatrix/cu-math-nonlinear.h"
#include "matrix/row-threads.h"

namespace nnet3 {
namespace {

// A rows x cols view with a stride larger than cols, filled with Gaussian
// values, some exact zeros, some negative zeros and one NaN (unless
// with_nan is false).
template <typename Real>
struct Operand {
  CuMatrix<Real> store;
  std::unique_ptr<CuSubMatrix<Real>> view;
  Operand(int32 rows, int32 cols, uint64 seed, bool with_nan = true) {
    RandomSource rs(seed);
    Matrix<Real> h(rows + 1, cols + 3);
    h.SetRandn(&rs);
    for (int32 r = 0; r < rows; r++)
      for (int32 c = 0; c < cols; c++) {
        int32 k = rs.Int(0, 19);
        if (k == 0) h(r, c) = 0;
        if (k == 1) h(r, c) = -Real(0);
      }
    if (with_nan && rows > 2 && cols > 2)
      h(rows / 2, cols / 2) = std::numeric_limits<Real>::quiet_NaN();
    store.Resize(h.NumRows(), h.NumCols(), kUndefined);
    store.CopyFromMat(h);
    view.reset(new CuSubMatrix<Real>(store, 1, rows, 2, cols));
  }
  CuSubMatrix<Real> &M() { return *view; }
};

template <typename Real>
::testing::AssertionResult SameBits(const CuMatrixBase<Real> &a,
                                    const CuMatrixBase<Real> &b) {
  if (!SameDim(a, b)) return ::testing::AssertionFailure() << "dims differ";
  for (int32 r = 0; r < a.NumRows(); r++)
    for (int32 c = 0; c < a.NumCols(); c++) {
      Real x = a.GetElement(r, c), y = b.GetElement(r, c);
      if (std::memcmp(&x, &y, sizeof(Real)) != 0)
        return ::testing::AssertionFailure()
               << "element (" << r << "," << c << "): " << x << " vs " << y;
    }
  return ::testing::AssertionSuccess();
}

template <typename Real>
::testing::AssertionResult SameBits(const CuVectorBase<Real> &a,
                                    const CuVectorBase<Real> &b) {
  if (a.Dim() != b.Dim()) return ::testing::AssertionFailure() << "dims differ";
  for (int32 i = 0; i < a.Dim(); i++) {
    Real x = a.GetElement(i), y = b.GetElement(i);
    if (std::memcmp(&x, &y, sizeof(Real)) != 0)
      return ::testing::AssertionFailure()
             << "element " << i << ": " << x << " vs " << y;
  }
  return ::testing::AssertionSuccess();
}

template <typename Real>
CuVector<Real> RandVec(int32 dim, uint64 seed, Real offset = 0) {
  RandomSource rs(seed);
  Vector<Real> v(dim);
  v.SetRandn(&rs);
  v.Add(offset);
  return CuVector<Real>(v);
}

template <typename Real>
class CuMathFusedTest : public ::testing::Test {
 protected:
  void TearDown() override { SetRowThreads(0); }
};
typedef ::testing::Types<float, double> RealTypes;
TYPED_TEST_SUITE(CuMathFusedTest, RealTypes);

// {rows, cols}; the last is above kMinParallelElements.
const int32 kShapes[][2] = {{0, 0}, {1, 1}, {1, 9}, {5, 7},
                            {17, 33}, {301, 257}};

// Runs body(rows, cols, threads) for every shape with 1 and 2 row threads.
template <typename Fn>
void ForShapesAndThreads(const Fn &body) {
  for (int32 threads : {1, 2}) {
    SetRowThreads(threads);
    for (auto &s : kShapes) {
      SCOPED_TRACE(::testing::Message() << s[0] << " x " << s[1] << ", "
                                        << threads << " thread(s)");
      body(s[0], s[1]);
    }
  }
}

TYPED_TEST(CuMathFusedTest, ColumnSumsAndSquares) {
  typedef TypeParam Real;
  ForShapesAndThreads([](int32 rows, int32 cols) {
    Operand<Real> m(rows, cols, 1);
    const Real alpha = 1.0 / 7;
    CuVector<Real> sums(cols), sumsq(cols), ref_sums(cols), ref_sumsq(cols);
    sums.Set(5.0);  // overwritten, not added to
    ref_sums.AddRowSumMat(alpha, m.M(), 0.0);
    ref_sumsq.AddDiagMat2(alpha, m.M(), kTrans, 0.0);
    cu::ColumnSumsAndSquares(alpha, m.M(), &sums, &sumsq);
    EXPECT_TRUE(SameBits(sums, ref_sums));
    EXPECT_TRUE(SameBits(sumsq, ref_sumsq));
  });
}

TYPED_TEST(CuMathFusedTest, ColumnSumsAndPositiveCounts) {
  typedef TypeParam Real;
  ForShapesAndThreads([](int32 rows, int32 cols) {
    Operand<Real> m(rows, cols, 2);
    CuVector<Real> sums(cols), positive(cols), ref_sums(cols),
        ref_positive(cols);
    positive.Set(-1.0);
    ref_sums.AddRowSumMat(1.0, m.M(), 0.0);
    CuMatrix<Real> heaviside(m.M());
    heaviside.ApplyHeaviside();
    ref_positive.AddRowSumMat(1.0, heaviside, 0.0);
    cu::ColumnSumsAndPositiveCounts(m.M(), &sums, &positive);
    EXPECT_TRUE(SameBits(sums, ref_sums));
    EXPECT_TRUE(SameBits(positive, ref_positive));
  });
}

TYPED_TEST(CuMathFusedTest, SubtractAndScaleColumns) {
  typedef TypeParam Real;
  ForShapesAndThreads([](int32 rows, int32 cols) {
    Operand<Real> in(rows, cols, 3), out(rows, cols, 4);
    CuVector<Real> offset = RandVec<Real>(cols, 5),
                   scale = RandVec<Real>(cols, 6, 1.5);
    CuMatrix<Real> ref(in.M());
    ref.AddVecToRows(-1.0, offset, 1.0);
    ref.MulColsVec(scale);
    cu::SubtractAndScaleColumns(in.M(), offset, scale, &out.M());
    EXPECT_TRUE(SameBits(out.M(), ref));
    cu::SubtractAndScaleColumns(in.M(), offset, scale, &in.M());  // in place
    EXPECT_TRUE(SameBits(in.M(), ref));
  });
}

TYPED_TEST(CuMathFusedTest, ScaleAndShiftColumns) {
  typedef TypeParam Real;
  ForShapesAndThreads([](int32 rows, int32 cols) {
    Operand<Real> in(rows, cols, 7), out(rows, cols, 8);
    CuVector<Real> offset = RandVec<Real>(cols, 9),
                   scale = RandVec<Real>(cols, 10, 1.5);
    CuMatrix<Real> ref(in.M());
    ref.MulColsVec(scale);
    ref.AddVecToRows(1.0, offset, 1.0);
    cu::ScaleAndShiftColumns(in.M(), scale, offset, &out.M());
    EXPECT_TRUE(SameBits(out.M(), ref));
    cu::ScaleAndShiftColumns(in.M(), scale, offset, &in.M());  // in place
    EXPECT_TRUE(SameBits(in.M(), ref));
  });
}

TYPED_TEST(CuMathFusedTest, BatchNormBackprop) {
  typedef TypeParam Real;
  ForShapesAndThreads([](int32 rows, int32 cols) {
    // NaN in the value would make every column's sum NaN; keep it in the
    // derivative only.
    Operand<Real> y(rows, cols, 11, false), e(rows, cols, 12),
        d(rows, cols, 13);
    CuVector<Real> scale = RandVec<Real>(cols, 14, 2.0);
    const Real coeff = -1.0 / (Real(0.7) * Real(0.7) * std::max(rows, 1));
    // The sequence BatchNormComponent ran before.
    CuVector<Real> ref_vdm(cols), ref_temp(cols);
    cu::ColumnDotProducts(coeff, y.M(), e.M(), &ref_vdm);
    ref_vdm.MulElements(scale);
    ref_temp.AddRowSumMat(-1.0 / rows, e.M(), 0.0);
    CuMatrix<Real> ref(e.M());
    ref.AddVecToRows(1.0, ref_temp, 1.0);
    ref.MulColsVec(scale);
    ref.AddMatDiagVec(1.0, y.M(), kNoTrans, ref_vdm, 1.0);

    CuVector<Real> vdm(cols), temp(cols);
    vdm.Set(3.0);
    temp.Set(3.0);
    cu::BatchNormBackprop(y.M(), e.M(), scale, coeff, &vdm, &temp, &d.M());
    EXPECT_TRUE(SameBits(vdm, ref_vdm));
    EXPECT_TRUE(SameBits(temp, ref_temp));
    EXPECT_TRUE(SameBits(d.M(), ref));
    cu::BatchNormBackprop(y.M(), e.M(), scale, coeff, &vdm, &temp,
                          &e.M());  // in place
    EXPECT_TRUE(SameBits(e.M(), ref));
  });
}

TYPED_TEST(CuMathFusedTest, BackpropRectifiedLinearWithStats) {
  typedef TypeParam Real;
  ForShapesAndThreads([](int32 rows, int32 cols) {
    for (int32 variant = 0; variant < 4; variant++) {
      const bool stats = variant & 1, repair = variant & 2;
      SCOPED_TRACE(::testing::Message() << "stats " << stats << ", repair "
                                        << repair);
      Operand<Real> y(rows, cols, 21), e(rows, cols, 22), d(rows, cols, 23);
      y.M().ApplyFloor(0.0);
      CuVector<Real> rep = RandVec<Real>(cols, 24);
      CuVector<Real> ref_sumsq(cols);
      if (stats) ref_sumsq.AddDiagMat2(1.0, e.M(), kTrans, 0.0);
      CuMatrix<Real> ref(rows, cols);
      cu::BackpropRectifiedLinear(y.M(), e.M(), &ref);
      if (repair) ref.AddVecToRows(1.0, rep, 1.0);

      CuVector<Real> sumsq(cols);
      sumsq.Set(7.0);
      cu::BackpropRectifiedLinearWithStats(y.M(), e.M(),
                                           stats ? &sumsq : nullptr,
                                           repair ? &rep : nullptr, &d.M());
      EXPECT_TRUE(SameBits(d.M(), ref));
      if (stats) {
        EXPECT_TRUE(SameBits(sumsq, ref_sumsq));
      }
      sumsq.Set(7.0);
      cu::BackpropRectifiedLinearWithStats(y.M(), e.M(),
                                           stats ? &sumsq : nullptr,
                                           repair ? &rep : nullptr,
                                           &e.M());  // in place
      EXPECT_TRUE(SameBits(e.M(), ref));
      if (stats) {
        EXPECT_TRUE(SameBits(sumsq, ref_sumsq));
      }
    }
  });
}

}  // namespace
}  // namespace nnet3
