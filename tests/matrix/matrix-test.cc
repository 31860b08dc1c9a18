// tests/matrix/matrix-test.cc
// MatrixBase / Matrix / SubMatrix against naive double-precision references,
// in float and double, on owned matrices, packed matrices, strided windows
// of larger matrices (row and column ranges, stride > cols) and views of raw
// padded memory; the memory around each view is checked to be untouched.
// Every random iteration prints its seed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "matrix/compressed.h"
#include "matrix/matrix-test-util.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace test {
namespace {

template <class Real>
class MatrixTest : public ::testing::Test {};
TYPED_TEST_SUITE(MatrixTest, RealTypes);

template <class Real> struct Other;
template <> struct Other<float> { typedef double Type; };
template <> struct Other<double> { typedef float Type; };

const int kIters = 30;

// A dimension: 0 on iteration 0, otherwise random, 1 often, sometimes large
// enough for BLAS's blocked kernels.
int MDim(Rng &rng, int iter, int max = 20) {
  if (iter == 0) return 0;
  return rng.Prob(0.08) ? rng.Int(60, 130) : rng.Dim(max);
}

std::string TransName(MatrixTransposeType t) {
  return t == kTrans ? "kTrans" : "kNoTrans";
}

// ---------------------------------------------------------------------------
// Construction, layout, views.

TYPED_TEST(MatrixTest, ConstructAndAccess) {
  typedef TypeParam Real;
  Matrix<Real> empty;
  EXPECT_EQ(empty.NumRows(), 0);
  EXPECT_EQ(empty.NumCols(), 0);
  EXPECT_EQ(empty.Data(), nullptr);
  EXPECT_EQ(empty.SizeInBytes(), 0u);
  Matrix<Real> zero(0, 0);
  EXPECT_EQ(zero.NumRows(), 0);
  EXPECT_EQ(zero.NumCols(), 0);

  Matrix<Real> M(3, 5);
  ASSERT_EQ(M.NumRows(), 3);
  ASSERT_EQ(M.NumCols(), 5);
  EXPECT_GE(M.Stride(), 5);
  EXPECT_EQ(M.SizeInBytes(), size_t(3) * M.Stride() * sizeof(Real));
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 5; c++) EXPECT_EQ(M(r, c), Real(0));
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 5; c++) M(r, c) = Real(10 * r + c);
  const Matrix<Real> &cM = M;
  for (int r = 0; r < 3; r++) {
    EXPECT_EQ(M.RowData(r), M.Data() + r * M.Stride());
    EXPECT_EQ(cM.RowData(r), cM.Data() + r * M.Stride());
    for (int c = 0; c < 5; c++) {
      EXPECT_EQ(M.Data()[r * M.Stride() + c], Real(10 * r + c));
      EXPECT_EQ(cM(r, c), Real(10 * r + c));
    }
  }
  Matrix<Real> P(4, 3, kSetZero, kStrideEqualNumCols);
  EXPECT_EQ(P.Stride(), 3);
  // "A matrix with zero rows has zero columns": a 0 x n request either
  // gives 0 x 0 or is refused as a programming error.
  try {
    Matrix<Real> Z(0, 5);
    EXPECT_EQ(Z.NumRows(), 0);
    EXPECT_EQ(Z.NumCols(), 0);
  } catch (const InternalError &) {
  }
  Matrix<Real> U(4, 3, kUndefined);
  EXPECT_EQ(U.NumRows(), 4);
  EXPECT_EQ(U.NumCols(), 3);
}

TYPED_TEST(MatrixTest, RowsAre16ByteAligned) {
  typedef TypeParam Real;
  for (int rows = 1; rows <= 5; rows++)
    for (int cols = 1; cols <= 19; cols++) {
      Matrix<Real> M(rows, cols);
      for (int r = 0; r < rows; r++)
        EXPECT_EQ(reinterpret_cast<uintptr_t>(M.RowData(r)) % 16, 0u)
            << rows << "x" << cols << " row " << r << " stride "
            << M.Stride();
      EXPECT_EQ(M.Stride() * sizeof(Real) % 16, 0u);
      M.Resize(rows + 1, cols + 1, kCopyData);
      for (int r = 0; r <= rows; r++)
        EXPECT_EQ(reinterpret_cast<uintptr_t>(M.RowData(r)) % 16, 0u)
            << "after Resize, " << rows + 1 << "x" << cols + 1 << " row "
            << r;
      Matrix<Real> P(rows, cols, kUndefined, kStrideEqualNumCols);
      EXPECT_EQ(P.Stride(), cols);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(P.Data()) % 16, 0u);
    }
}

TYPED_TEST(MatrixTest, ViewsShareMemory) {
  typedef TypeParam Real;
  Matrix<Real> M(5, 7);
  for (int r = 0; r < 5; r++)
    for (int c = 0; c < 7; c++) M(r, c) = Real(10 * r + c);
  // Row.
  SubVector<Real> row = M.Row(2);
  EXPECT_EQ(row.Dim(), 7);
  EXPECT_EQ(row.Data(), M.RowData(2));
  row(3) = Real(-1);
  EXPECT_EQ(M(2, 3), Real(-1));
  M(2, 4) = Real(-2);
  EXPECT_EQ(row(4), Real(-2));
  // Range.
  SubMatrix<Real> R = M.Range(1, 3, 2, 4);
  EXPECT_EQ(R.NumRows(), 3);
  EXPECT_EQ(R.NumCols(), 4);
  EXPECT_EQ(R.Stride(), M.Stride());
  EXPECT_EQ(R.Data(), M.RowData(1) + 2);
  EXPECT_EQ(R(0, 0), M(1, 2));
  R(2, 3) = Real(99);
  EXPECT_EQ(M(3, 5), Real(99));
  M(1, 2) = Real(77);
  EXPECT_EQ(R(0, 0), Real(77));
  // RowRange and ColRange.
  SubMatrix<Real> rr = M.RowRange(3, 2);
  EXPECT_EQ(rr.NumRows(), 2);
  EXPECT_EQ(rr.NumCols(), 7);
  EXPECT_EQ(rr.Data(), M.RowData(3));
  rr(1, 6) = Real(-6);
  EXPECT_EQ(M(4, 6), Real(-6));
  SubMatrix<Real> cr = M.ColRange(5, 2);
  EXPECT_EQ(cr.NumRows(), 5);
  EXPECT_EQ(cr.NumCols(), 2);
  EXPECT_EQ(cr.Stride(), M.Stride());
  cr(0, 1) = Real(-8);
  EXPECT_EQ(M(0, 6), Real(-8));
  // Nested views and a row of a view.
  SubMatrix<Real> nested = R.Range(1, 2, 1, 2);
  EXPECT_EQ(nested.Data(), M.RowData(2) + 3);
  EXPECT_EQ(nested.Stride(), M.Stride());
  nested.Row(1)(1) = Real(1234);
  EXPECT_EQ(M(3, 4), Real(1234));
  // An operation through a view changes only the view.
  Matrix<Real> N(4, 6);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 6; c++) N(r, c) = Real(r * 6 + c);
  N.Range(1, 2, 1, 3).Set(Real(-1));
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 6; c++) {
      bool in = r >= 1 && r < 3 && c >= 1 && c < 4;
      EXPECT_EQ(N(r, c), in ? Real(-1) : Real(r * 6 + c)) << r << "," << c;
    }
  // SubMatrix constructors.
  SubMatrix<Real> s1(M, 1, 2, 3, 4);
  EXPECT_EQ(s1.Data(), M.RowData(1) + 3);
  SubMatrix<Real> s2(s1);
  EXPECT_EQ(s2.Data(), s1.Data());
  EXPECT_EQ(s2.NumRows(), 2);
  EXPECT_EQ(s2.NumCols(), 4);
  Real buf[20];
  for (int i = 0; i < 20; i++) buf[i] = Real(i);
  SubMatrix<Real> raw(buf + 1, 3, 4, 6);
  EXPECT_EQ(raw.Stride(), 6);
  EXPECT_EQ(raw(2, 3), Real(1 + 12 + 3));
  raw(1, 0) = Real(-5);
  EXPECT_EQ(buf[7], Real(-5));
  // Const views.
  const Matrix<Real> &cM = M;
  const SubVector<Real> crow = cM.Row(4);
  EXPECT_EQ(crow(6), Real(-6));
  // Empty range.
  SubMatrix<Real> e = M.Range(2, 0, 3, 0);
  EXPECT_EQ(e.NumRows(), 0);
  EXPECT_EQ(e.NumCols(), 0);
}

TYPED_TEST(MatrixTest, CopyConstructAssignMove) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> src(rng, rows, cols);
    SCOPED_TRACE(src.Describe());
    RefMat R = ToRef(src.M());

    Matrix<Real> a(src.M());
    EXPECT_TRUE(MatNear(a, R, 0));
    Matrix<Real> at(src.M(), kTrans);
    EXPECT_TRUE(MatNear(at, R.T(), 0));
    Matrix<Real> copy(a);
    EXPECT_TRUE(MatNear(copy, R, 0));
    if (rows > 0) {
      EXPECT_NE(copy.Data(), a.Data());
    }

    RefMat OR = R, ORt = R.T();
    for (auto &x : OR.d) x = static_cast<OReal>(x);
    for (auto &x : ORt.d) x = static_cast<OReal>(x);
    Matrix<OReal> o(src.M());
    EXPECT_TRUE(MatNear(o, OR, 0));
    Matrix<OReal> ot(src.M(), kTrans);
    EXPECT_TRUE(MatNear(ot, ORt, 0));

    Matrix<Real> b(rng.Int(0, 5), rng.Int(1, 5));
    b = a;
    EXPECT_TRUE(MatNear(b, R, 0));
    Matrix<Real> &b_again = b;  // through a reference: clang warns on b = b
    b = b_again;  // self-assignment keeps the contents
    EXPECT_TRUE(MatNear(b, R, 0));
    Matrix<Real> c(rng.Int(1, 5), rng.Int(1, 5));
    c = src.M();  // operator=(const MatrixBase &)
    EXPECT_TRUE(MatNear(c, R, 0));

    const Real *ptr = copy.Data();
    Matrix<Real> moved(std::move(copy));
    EXPECT_EQ(moved.Data(), ptr);
    EXPECT_TRUE(MatNear(moved, R, 0));
    EXPECT_EQ(copy.NumRows(), 0);  // NOLINT(bugprone-use-after-move)
    Matrix<Real> d(2, 2);
    d = std::move(moved);
    EXPECT_EQ(d.Data(), ptr);
    EXPECT_TRUE(MatNear(d, R, 0));
    EXPECT_TRUE(src.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, Resize) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), 40, [](Rng &rng, int iter) {
    int r1 = rng.Int(0, 8), c1 = r1 == 0 ? 0 : rng.Int(1, 8);
    int r2 = iter == 0 ? 0 : rng.Int(0, 8), c2 = r2 == 0 ? 0 : rng.Int(1, 8);
    MatrixStrideType st1 = rng.Prob(0.5) ? kDefaultStride : kStrideEqualNumCols;
    MatrixStrideType st2 = rng.Prob(0.5) ? kDefaultStride : kStrideEqualNumCols;
    Matrix<Real> M0(r1, c1, kSetZero, st1);
    FillGauss(&M0, rng);
    RefMat old = ToRef(M0);
    for (MatrixResizeType t : {kCopyData, kSetZero, kUndefined}) {
      SCOPED_TRACE("resize " + std::to_string(r1) + "x" + std::to_string(c1) +
                   " -> " + std::to_string(r2) + "x" + std::to_string(c2) +
                   " type " + std::to_string(t) + " stride types " +
                   std::to_string(st1) + "," + std::to_string(st2));
      Matrix<Real> M(r1, c1, kSetZero, st1);
      Fill(&M, old);
      M.Resize(r2, c2, t, st2);
      ASSERT_EQ(M.NumRows(), r2);
      ASSERT_EQ(M.NumCols(), c2);
      if (r2 > 0 && st2 == kStrideEqualNumCols) {
        EXPECT_EQ(M.Stride(), c2);
      }
      if (r2 == 0) {
        EXPECT_EQ(M.Data(), nullptr);
      }
      if (t == kCopyData) {
        RefMat ref(r2, c2);
        for (int r = 0; r < std::min(r1, r2); r++)
          for (int c = 0; c < std::min(c1, c2); c++) ref(r, c) = old(r, c);
        EXPECT_TRUE(MatNear(M, ref, 0));
      } else if (t == kSetZero) {
        EXPECT_TRUE(MatNear(M, RefMat(r2, c2), 0));
      }
      if (r2 > 0) {
        M(r2 - 1, c2 - 1) = 3;
        EXPECT_EQ(M(r2 - 1, c2 - 1), Real(3));
      }
    }
  });
}

TYPED_TEST(MatrixTest, SwapTransposeRemoveRow) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    Matrix<Real> A(rows, cols), B(rng.Int(1, 6), rng.Int(1, 6));
    FillGauss(&A, rng);
    FillGauss(&B, rng);
    SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
    RefMat RA = ToRef(A), RB = ToRef(B);
    const Real *pa = A.Data(), *pb = B.Data();
    A.Swap(&B);
    EXPECT_EQ(A.Data(), pb);
    EXPECT_EQ(B.Data(), pa);
    EXPECT_TRUE(MatNear(A, RB, 0));
    EXPECT_TRUE(MatNear(B, RA, 0));

    B.Transpose();
    EXPECT_TRUE(MatNear(B, RA.T(), 0)) << "Transpose";
    B.Transpose();
    EXPECT_TRUE(MatNear(B, RA, 0)) << "Transpose twice";

    if (rows > 0) {
      int i = rng.Int(0, rows - 1);
      B.RemoveRow(i);
      RefMat ref(rows - 1, rows - 1 == 0 ? 0 : cols);
      for (int r = 0, k = 0; r < rows; r++) {
        if (r == i) continue;
        if (ref.cols > 0)
          for (int c = 0; c < cols; c++) ref(k, c) = RA(r, c);
        k++;
      }
      if (rows - 1 > 0) {
        EXPECT_TRUE(MatNear(B, ref, 0)) << "RemoveRow " << i;
      } else {
        EXPECT_EQ(B.NumRows(), 0) << "RemoveRow of the only row";
      }
    }
  });
}

// ---------------------------------------------------------------------------
// Filling and copying.

TYPED_TEST(MatrixTest, SetZeroSetSetUnit) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols);
    SCOPED_TRACE(t.Describe());
    double v = rng.Gauss();
    t.M().Set(static_cast<Real>(v));
    EXPECT_TRUE(MatNear(t.M(), RefMat(rows, cols, static_cast<Real>(v)), 0));
    t.M().SetZero();
    EXPECT_TRUE(MatNear(t.M(), RefMat(rows, cols), 0));
    FillGauss(&t.M(), rng);
    t.M().SetUnit();
    RefMat I(rows, cols);
    for (int i = 0; i < std::min(rows, cols); i++) I(i, i) = 1;
    EXPECT_TRUE(MatNear(t.M(), I, 0)) << "SetUnit";
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, SetRandom) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), 10, [](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols);
    SCOPED_TRACE(t.Describe());
    t.M().SetRandUniform();
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) {
        EXPECT_GT(t.M()(r, c), Real(0));
        EXPECT_LT(t.M()(r, c), Real(1));
      }
    t.M().SetRandn();
    RandomSource rs(rng.seed());
    t.M().SetRandUniform(&rs);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) {
        EXPECT_GT(t.M()(r, c), Real(0));
        EXPECT_LT(t.M()(r, c), Real(1));
      }
    t.M().SetRandn(&rs);
    EXPECT_TRUE(t.OutsideUnchanged());
  });
  // Statistics (every column gets numbers, not just the first row's
  // worth) and reproducibility.
  Matrix<Real> U(200, 101), G(200, 101), G2(200, 101);
  RandomSource a(5);
  U.SetRandUniform(&a);
  G.SetRandn(&a);
  RandomSource a2(5);
  Matrix<Real> U2(200, 101);
  U2.SetRandUniform(&a2);
  G2.SetRandn(&a2);
  double us = 0, gs = 0, gss = 0;
  bool same = true;
  for (int r = 0; r < 200; r++)
    for (int c = 0; c < 101; c++) {
      us += U(r, c);
      gs += G(r, c);
      gss += double(G(r, c)) * G(r, c);
      same = same && U(r, c) == U2(r, c) && G(r, c) == G2(r, c);
    }
  int n = 200 * 101;
  EXPECT_NEAR(us / n, 0.5, 0.01);
  EXPECT_NEAR(gs / n, 0.0, 0.03);
  EXPECT_NEAR(gss / n, 1.0, 0.05);
  EXPECT_TRUE(same);
  EXPECT_NE(G(0, 0), G(1, 0));
  EXPECT_NE(G(0, 0), G(0, 1));
}

TYPED_TEST(MatrixTest, CopyFromMat) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  ForEachSeed(TestSeed(), 40, [](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    MatrixTransposeType trans = (iter & 1) ? kTrans : kNoTrans;
    int sr = trans == kNoTrans ? rows : cols, sc = trans == kNoTrans ? cols : rows;
    TestMatrix<Real> src(rng, sr, sc), dst(rng, rows, cols);
    TestMatrix<OReal> osrc(rng, sr, sc);
    SCOPED_TRACE("src " + src.Describe() + ", dst " + dst.Describe() + ", " +
                 TransName(trans));
    RefMat R = RefOp(ToRef(src.M()), trans);
    dst.M().CopyFromMat(src.M(), trans);
    EXPECT_TRUE(MatNear(dst.M(), R, 0));
    if (trans == kNoTrans) {
      FillGauss(&dst.M(), rng);
      dst.M().CopyFromMat(src.M());  // default kNoTrans
      EXPECT_TRUE(MatNear(dst.M(), R, 0));
    }
    // Copying a matrix onto itself is a no-op (as in Kaldi).
    if (trans == kNoTrans) {
      RefMat before = ToRef(dst.M());
      dst.M().CopyFromMat(dst.M());
      EXPECT_TRUE(MatNear(dst.M(), before, 0)) << "self-copy";
    }
    RefMat OR = RefOp(ToRef(osrc.M()), trans);
    for (auto &x : OR.d) x = static_cast<Real>(x);
    dst.M().CopyFromMat(osrc.M(), trans);
    EXPECT_TRUE(MatNear(dst.M(), OR, 0)) << "other precision";
    EXPECT_TRUE(dst.OutsideUnchanged());
    EXPECT_TRUE(src.OutsideUnchanged());
  });
}

// The MatrixBase side of decompression (the formats themselves are tested
// in compressed-test.cc): integer values in the two-byte integer format
// come back to within rounding, into any destination layout.
TYPED_TEST(MatrixTest, CopyFromCompressedMatrix) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), 20, [](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    Matrix<float> src(rows, cols);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) src(r, c) = float(rng.Int(-1000, 1000));
    CompressedMatrix cm(src, kTwoByteSignedInteger);
    TestMatrix<Real> dst(rng, rows, cols);
    SCOPED_TRACE(dst.Describe());
    RefMat ref = ToRef(src);
    dst.M().CopyFromMat(cm);
    EXPECT_TRUE(MatNear(dst.M(), ref, 1e-3));
    EXPECT_TRUE(dst.OutsideUnchanged());
    Matrix<Real> m(cm);
    EXPECT_TRUE(MatNear(m, ref, 1e-3));
  });
}

TYPED_TEST(MatrixTest, CopyFromVectors) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    // Two or more rows/cols so the "one copy per row" form is distinct
    // from the concatenated form.
    int rows = iter == 0 ? 0 : rng.Int(2, 12);
    int cols = iter == 0 ? 0 : rng.Int(2, 12);
    TestMatrix<Real> t(rng, rows, cols);
    SCOPED_TRACE(t.Describe());

    // CopyRowsFromVec: rows concatenated.
    TestVector<Real> all(rng, rows * cols);
    RefVec a = ToRef(all.v());
    t.M().CopyRowsFromVec(all.v());
    RefMat ref(rows, cols);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = a[r * cols + c];
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyRowsFromVec, rows*cols";
    TestVector<OReal> oall(rng, rows * cols);
    RefVec oa = ToRef(oall.v());
    t.M().CopyRowsFromVec(oall.v());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = static_cast<Real>(oa[r * cols + c]);
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyRowsFromVec, other precision";
    // CopyColsFromVec: columns concatenated.
    t.M().CopyColsFromVec(all.v());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = a[c * rows + r];
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyColsFromVec, rows*cols";
    if (rows == 0) return;

    // One row (cols values) copied to every row.
    TestVector<Real> rowv(rng, cols);
    RefVec rv = ToRef(rowv.v());
    t.M().CopyRowsFromVec(rowv.v());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = rv[c];
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyRowsFromVec, cols";
    TestVector<OReal> orowv(rng, cols);
    RefVec orv = ToRef(orowv.v());
    t.M().CopyRowsFromVec(orowv.v());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = static_cast<Real>(orv[c]);
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyRowsFromVec, cols, other";
    // One column (rows values) copied to every column.
    TestVector<Real> colv(rng, rows);
    RefVec cv = ToRef(colv.v());
    t.M().CopyColsFromVec(colv.v());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = cv[r];
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyColsFromVec, rows";

    // CopyColFromVec: only column c changes.
    FillGauss(&t.M(), rng);
    ref = ToRef(t.M());
    FillGauss(&colv.v(), rng);
    cv = ToRef(colv.v());
    int c = rng.Int(0, cols - 1);
    t.M().CopyColFromVec(colv.v(), c);
    for (int r = 0; r < rows; r++) ref(r, c) = cv[r];
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyColFromVec " << c;

    // CopyDiagFromVec: only the diagonal changes.
    int d = std::min(rows, cols);
    TestVector<Real> diag(rng, d);
    RefVec dv = ToRef(diag.v());
    t.M().CopyDiagFromVec(diag.v());
    for (int i = 0; i < d; i++) ref(i, i) = dv[i];
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyDiagFromVec";
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

// ---------------------------------------------------------------------------
// Elementwise arithmetic.

TYPED_TEST(MatrixTest, AddScaleAddMat) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    MatrixTransposeType trans = (iter & 1) ? kTrans : kNoTrans;
    TestMatrix<Real> t(rng, rows, cols);
    TestMatrix<Real> a(rng, trans == kNoTrans ? rows : cols,
                       trans == kNoTrans ? cols : rows);
    SCOPED_TRACE("this " + t.Describe() + ", A " + a.Describe() + " " +
                 TransName(trans));
    RefMat X = ToRef(t.M()), A = RefOp(ToRef(a.M()), trans), ref(rows, cols);
    double s = rng.Gauss();
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = X.d[i] + double(Real(s));
    t.M().Add(static_cast<Real>(s));
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "Add";

    Fill(&t.M(), X);
    double alpha = rng.Scalar();
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = alpha * X.d[i];
    t.M().Scale(static_cast<Real>(alpha));
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "Scale " << alpha;

    Fill(&t.M(), X);
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = X.d[i] + alpha * A.d[i];
    t.M().AddMat(static_cast<Real>(alpha), a.M(), trans);
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddMat alpha " << alpha;
    if (trans == kNoTrans) {
      Fill(&t.M(), X);
      t.M().AddMat(static_cast<Real>(alpha), a.M());
      EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddMat default trans";
    }
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(a.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, AddMatToItself) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 20, [tol](Rng &rng, int iter) {
    int n = iter == 0 ? 0 : rng.Dim(25);
    MatrixTransposeType trans = (iter & 1) ? kTrans : kNoTrans;
    TestMatrix<Real> t(rng, n, n);
    SCOPED_TRACE(t.Describe() + " " + TransName(trans));
    RefMat X = ToRef(t.M()), XT = RefOp(X, trans), ref(n, n);
    double alpha = rng.Scalar();
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = X.d[i] + alpha * XT.d[i];
    t.M().AddMat(static_cast<Real>(alpha), t.M(), trans);
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "M += " << alpha << " op(M)";
  });
}

TYPED_TEST(MatrixTest, ElementwiseBinary) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols), a(rng, rows, cols);
    SCOPED_TRACE("this " + t.Describe() + ", A " + a.Describe());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        a.M()(r, c) = static_cast<Real>((rng.Prob(0.5) ? 1 : -1) *
                                        rng.Uniform(0.1, 3.0));
    RefMat X = ToRef(t.M()), A = ToRef(a.M()), ref(rows, cols);
    size_t n = X.d.size();
    for (size_t i = 0; i < n; i++) ref.d[i] = X.d[i] * A.d[i];
    t.M().MulElements(a.M());
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "MulElements";
    Fill(&t.M(), X);
    for (size_t i = 0; i < n; i++) ref.d[i] = X.d[i] / A.d[i];
    t.M().DivElements(a.M());
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "DivElements";
    Fill(&t.M(), X);
    for (size_t i = 0; i < n; i++) ref.d[i] = std::max(X.d[i], A.d[i]);
    t.M().Max(a.M());
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "Max";
    Fill(&t.M(), X);
    for (size_t i = 0; i < n; i++) ref.d[i] = std::min(X.d[i], A.d[i]);
    t.M().Min(a.M());
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "Min";
    for (size_t i = 0; i < n; i++) ref.d[i] = 1.0 / A.d[i];
    a.M().InvertElements();
    EXPECT_TRUE(MatNear(a.M(), ref, tol)) << "InvertElements";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(a.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, RowAndColumnVectorOps) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols);
    TestVector<Real> rv(rng, rows), cv(rng, cols);
    SCOPED_TRACE(t.Describe() + ", " + rv.Describe() + ", " + cv.Describe());
    RefMat X = ToRef(t.M()), ref(rows, cols);
    RefVec R = ToRef(rv.v()), C = ToRef(cv.v());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = X(r, c) * R[r];
    t.M().MulRowsVec(rv.v());
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "MulRowsVec";
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = R[r] == 0 ? X(r, c) : X(r, c) / R[r];
    {
      // Zero divisors would give inf/NaN; use 1 there on both sides.
      Vector<Real> div(rv.v());
      for (int r = 0; r < rows; r++)
        if (div(r) == 0) div(r) = 1;
      t.M().DivRowsVec(div);
    }
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "DivRowsVec";
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = X(r, c) * C[c];
    t.M().MulColsVec(cv.v());
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "MulColsVec";

    double alpha = rng.Scalar(), beta = rng.Scalar();
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = beta * X(r, c) + alpha * C[c];
    t.M().AddVecToRows(static_cast<Real>(alpha), cv.v(), static_cast<Real>(beta));
    EXPECT_TRUE(MatNear(t.M(), ref, tol))
        << "AddVecToRows alpha " << alpha << " beta " << beta;
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = X(r, c) + alpha * C[c];
    t.M().AddVecToRows(static_cast<Real>(alpha), cv.v());
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddVecToRows default beta";

    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = beta * X(r, c) + alpha * R[r];
    t.M().AddVecToCols(static_cast<Real>(alpha), rv.v(), static_cast<Real>(beta));
    EXPECT_TRUE(MatNear(t.M(), ref, tol))
        << "AddVecToCols alpha " << alpha << " beta " << beta;
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = X(r, c) + alpha * R[r];
    t.M().AddVecToCols(static_cast<Real>(alpha), rv.v());
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddVecToCols default beta";
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

// ---------------------------------------------------------------------------
// BLAS level 2/3.

TYPED_TEST(MatrixTest, AddMatMat) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 80, [tol](Rng &rng, int iter) {
    int m = MDim(rng, iter), n = m == 0 ? 0 : MDim(rng, iter),
        k = m == 0 ? 0 : MDim(rng, iter);
    // Every transpose combination, in turn.
    MatrixTransposeType ta = (iter & 1) ? kTrans : kNoTrans,
                        tb = (iter & 2) ? kTrans : kNoTrans;
    TestMatrix<Real> a(rng, ta == kNoTrans ? m : k, ta == kNoTrans ? k : m);
    TestMatrix<Real> b(rng, tb == kNoTrans ? k : n, tb == kNoTrans ? n : k);
    TestMatrix<Real> c(rng, m, n);
    double alpha = rng.Scalar(), beta = rng.Scalar();
    bool nan_dest = iter % 5 == 0 || iter % 7 == 0;
    if (nan_dest) {
      beta = 0.0;
      FillValue(&c.M(), (iter % 2) ? NaN() : Inf());
    }
    SCOPED_TRACE("C " + c.Describe() + " = " + std::to_string(beta) +
                 " C + " + std::to_string(alpha) + " op(A) op(B), A " +
                 a.Describe() + " " + TransName(ta) + ", B " + b.Describe() +
                 " " + TransName(tb) +
                 (nan_dest ? ", C holds NaN/Inf" : ""));
    RefMat A = RefOp(ToRef(a.M()), ta), B = RefOp(ToRef(b.M()), tb);
    RefMat X = ToRef(c.M()), AB = RefMul(A, B), ref(m, n);
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        ref(i, j) = (beta == 0 ? 0.0 : beta * X(i, j)) + alpha * AB(i, j);
    RefMat RA = ToRef(a.M()), RB = ToRef(b.M());
    c.M().AddMatMat(static_cast<Real>(alpha), a.M(), ta, b.M(), tb,
                    static_cast<Real>(beta));
    EXPECT_TRUE(MatNear(c.M(), ref, tol));
    EXPECT_TRUE(MatNear(a.M(), RA, 0)) << "A changed";
    EXPECT_TRUE(MatNear(b.M(), RB, 0)) << "B changed";
    EXPECT_TRUE(c.OutsideUnchanged());
    EXPECT_TRUE(a.OutsideUnchanged());
    EXPECT_TRUE(b.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, AddMatMatSameOperand) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 20, [tol](Rng &rng, int iter) {
    int m = iter == 0 ? 0 : rng.Dim(30), k = m == 0 ? 0 : rng.Dim(30);
    bool first_trans = iter & 1;  // A A^T or A^T A
    TestMatrix<Real> a(rng, m, k);
    int n = first_trans ? k : m;
    TestMatrix<Real> c(rng, n, n);
    SCOPED_TRACE(a.Describe() + (first_trans ? ": A^T A" : ": A A^T"));
    RefMat A = ToRef(a.M());
    RefMat ref = first_trans ? RefMul(A.T(), A) : RefMul(A, A.T());
    FillValue(&c.M(), NaN());
    c.M().AddMatMat(1.0, a.M(), first_trans ? kTrans : kNoTrans, a.M(),
                    first_trans ? kNoTrans : kTrans, 0.0);
    EXPECT_TRUE(MatNear(c.M(), ref, tol));
  });
}

// Kaldi code relies on beta == 0 meaning "overwrite": BLAS must not read the
// destination, so NaN/Inf there must not leak into the result.
TYPED_TEST(MatrixTest, AddMatMatBetaZeroIgnoresNaNDestination) {
  typedef TypeParam Real;
  for (int ta = 0; ta < 2; ta++)
    for (int tb = 0; tb < 2; tb++)
      for (double alpha : {1.0, 0.0}) {
        Matrix<Real> A(3, 3), B(3, 3), C(3, 3);
        for (int r = 0; r < 3; r++)
          for (int c = 0; c < 3; c++) {
            A(r, c) = Real(r + 2 * c);
            B(r, c) = Real(r - c);
            C(r, c) = (r + c) % 2 ? std::numeric_limits<Real>::quiet_NaN()
                                  : std::numeric_limits<Real>::infinity();
          }
        C.AddMatMat(static_cast<Real>(alpha), A, ta ? kTrans : kNoTrans, B,
                    tb ? kTrans : kNoTrans, 0.0);
        RefMat ref(3, 3);
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++)
            for (int l = 0; l < 3; l++) {
              double a = ta ? (l + 2 * i) : (i + 2 * l);
              double b = tb ? (j - l) : (l - j);
              ref(i, j) += alpha * a * b;
            }
        EXPECT_TRUE(MatNear(C, ref, 0))
            << "beta = 0 with NaN/Inf in C; transA " << ta << " transB " << tb
            << " alpha " << alpha;
      }
}

TYPED_TEST(MatrixTest, AddVecVecRankOne) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols);
    TestVector<Real> a(rng, rows), b(rng, cols);
    SCOPED_TRACE(t.Describe() + ", a " + a.Describe() + ", b " + b.Describe());
    double alpha = rng.Scalar();
    RefMat X = ToRef(t.M()), ref(rows, cols);
    RefVec va = ToRef(a.v()), vb = ToRef(b.v());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = X(r, c) + alpha * va[r] * vb[c];
    t.M().AddVecVec(static_cast<Real>(alpha), a.v(), b.v());
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "alpha " << alpha;
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, AddDiagVecMatAndAddMatDiagVec) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    MatrixTransposeType trans = (iter & 1) ? kTrans : kNoTrans;
    TestMatrix<Real> t(rng, rows, cols);
    TestMatrix<Real> m(rng, trans == kNoTrans ? rows : cols,
                       trans == kNoTrans ? cols : rows);
    TestVector<Real> rv(rng, rows), cv(rng, cols);
    SCOPED_TRACE(t.Describe() + ", M " + m.Describe() + " " + TransName(trans));
    double alpha = rng.Scalar(), beta = rng.Scalar();
    RefMat X = ToRef(t.M()), M = RefOp(ToRef(m.M()), trans), ref(rows, cols);
    RefVec R = ToRef(rv.v()), C = ToRef(cv.v());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = beta * X(r, c) + alpha * R[r] * M(r, c);
    t.M().AddDiagVecMat(static_cast<Real>(alpha), rv.v(), m.M(), trans,
                        static_cast<Real>(beta));
    EXPECT_TRUE(MatNear(t.M(), ref, tol))
        << "AddDiagVecMat alpha " << alpha << " beta " << beta;
    if (trans == kNoTrans) {
      Fill(&t.M(), X);
      for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
          ref(r, c) = X(r, c) + alpha * R[r] * M(r, c);
      t.M().AddDiagVecMat(static_cast<Real>(alpha), rv.v(), m.M());
      EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddDiagVecMat defaults";
    }

    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = beta * X(r, c) + alpha * M(r, c) * C[c];
    t.M().AddMatDiagVec(static_cast<Real>(alpha), m.M(), trans, cv.v(),
                        static_cast<Real>(beta));
    EXPECT_TRUE(MatNear(t.M(), ref, tol))
        << "AddMatDiagVec alpha " << alpha << " beta " << beta;
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = X(r, c) + alpha * M(r, c) * C[c];
    t.M().AddMatDiagVec(static_cast<Real>(alpha), m.M(), trans, cv.v());
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddMatDiagVec default beta";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(m.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, AddMatMatElements) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols), a(rng, rows, cols), b(rng, rows, cols);
    SCOPED_TRACE(t.Describe() + ", " + a.Describe() + ", " + b.Describe());
    double alpha = rng.Scalar(), beta = rng.Scalar();
    RefMat X = ToRef(t.M()), A = ToRef(a.M()), B = ToRef(b.M()), ref(rows, cols);
    for (size_t i = 0; i < X.d.size(); i++)
      ref.d[i] = beta * X.d[i] + alpha * A.d[i] * B.d[i];
    t.M().AddMatMatElements(static_cast<Real>(alpha), a.M(), b.M(),
                            static_cast<Real>(beta));
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "alpha " << alpha << " beta " << beta;
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

// ---------------------------------------------------------------------------
// Elementwise functions.

TYPED_TEST(MatrixTest, ApplyFloorCeilingHeaviside) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols);
    SCOPED_TRACE(t.Describe());
    Real thr = static_cast<Real>(0.5 * rng.Gauss());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        if (rng.Prob(0.1)) t.M()(r, c) = rng.Prob(0.5) ? thr : Real(0);
    RefMat X = ToRef(t.M()), ref(rows, cols);
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = std::max(X.d[i], double(thr));
    t.M().ApplyFloor(thr);
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "ApplyFloor " << thr;
    Fill(&t.M(), X);
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = std::min(X.d[i], double(thr));
    t.M().ApplyCeiling(thr);
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "ApplyCeiling " << thr;
    Fill(&t.M(), X);
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = X.d[i] > 0 ? 1.0 : 0.0;
    t.M().ApplyHeaviside();
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "ApplyHeaviside";
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, ApplyExpLogAbs) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols);
    SCOPED_TRACE(t.Describe());
    FillUniform(&t.M(), rng, -8.0, 8.0);
    RefMat X = ToRef(t.M()), ref(rows, cols);
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = std::exp(X.d[i]);
    t.M().ApplyExp();
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "ApplyExp";
    FillUniform(&t.M(), rng, 1e-3, 50.0);
    X = ToRef(t.M());
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = std::log(X.d[i]);
    t.M().ApplyLog();
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "ApplyLog";
    FillGauss(&t.M(), rng);
    X = ToRef(t.M());
    for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = std::abs(X.d[i]);
    t.M().ApplyAbs();
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "ApplyAbs";
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, ApplyPowAndPowAbs) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 20, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    for (double p : {0.5, 2.0, 1.0, 0.0, 3.0, 1.5, -1.0}) {
      TestMatrix<Real> t(rng, rows, cols);
      SCOPED_TRACE(t.Describe() + ", power " + std::to_string(p));
      FillUniform(&t.M(), rng, 0.05, 4.0);
      RefMat X = ToRef(t.M()), ref(rows, cols);
      for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = std::pow(X.d[i], p);
      t.M().ApplyPow(static_cast<Real>(p));
      EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "ApplyPow";
      EXPECT_TRUE(t.OutsideUnchanged());
    }
    for (double p : {2.0, 3.0, -1.0}) {  // negative bases, integer powers
      TestMatrix<Real> t(rng, rows, cols);
      SCOPED_TRACE(t.Describe() + ", negative bases, power " + std::to_string(p));
      FillUniform(&t.M(), rng, -4.0, -0.05);
      RefMat X = ToRef(t.M()), ref(rows, cols);
      for (size_t i = 0; i < X.d.size(); i++) ref.d[i] = std::pow(X.d[i], p);
      t.M().ApplyPow(static_cast<Real>(p));
      EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "ApplyPow";
    }
    for (double p : {1.0, 2.0, 0.5, 3.0}) {
      for (bool sign : {false, true}) {
        TestMatrix<Real> t(rng, rows, cols);
        SCOPED_TRACE(t.Describe() + ", ApplyPowAbs " + std::to_string(p) +
                     (sign ? " include_sign" : ""));
        FillUniform(&t.M(), rng, -4.0, 4.0);
        RefMat X = ToRef(t.M()), ref(rows, cols);
        for (size_t i = 0; i < X.d.size(); i++) {
          ref.d[i] = std::pow(std::abs(X.d[i]), p);
          if (sign && X.d[i] < 0) ref.d[i] = -ref.d[i];
        }
        if (sign)
          t.M().ApplyPowAbs(static_cast<Real>(p), true);
        else
          t.M().ApplyPowAbs(static_cast<Real>(p));
        EXPECT_TRUE(MatNear(t.M(), ref, tol));
        EXPECT_TRUE(t.OutsideUnchanged());
      }
    }
  });
}

TYPED_TEST(MatrixTest, ApplyPowErrorsOnNaN) {
  typedef TypeParam Real;
  // As VectorBase::ApplyPow (Kaldi's matrix version applies the vector one
  // to each row): a NaN result, e.g. the square root of a negative number,
  // is an error.
  for (double p : {0.5, 1.5}) {
    Matrix<Real> M(2, 3);
    M.Set(2);
    M(1, 2) = -3;
    EXPECT_THROW(M.ApplyPow(static_cast<Real>(p)), UserError) << "power " << p;
  }
}

TYPED_TEST(MatrixTest, SigmoidTanhAndDiffs) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> src(rng, rows, cols), dst(rng, rows, cols);
    SCOPED_TRACE("src " + src.Describe() + ", dst " + dst.Describe());
    FillUniform(&src.M(), rng, -12.0, 12.0);
    if (rows > 1) {
      src.M()(0, 0) = Real(30);
      src.M()(rows - 1, cols - 1) = Real(-30);
    }
    RefMat X = ToRef(src.M()), sref(rows, cols), tref(rows, cols);
    for (size_t i = 0; i < X.d.size(); i++) {
      sref.d[i] = 1.0 / (1.0 + std::exp(-X.d[i]));
      tref.d[i] = std::tanh(X.d[i]);
    }
    dst.M().Sigmoid(src.M());
    EXPECT_TRUE(MatNear(dst.M(), sref, tol)) << "Sigmoid";
    dst.M().Tanh(src.M());
    EXPECT_TRUE(MatNear(dst.M(), tref, tol)) << "Tanh";
    EXPECT_TRUE(MatNear(src.M(), X, 0)) << "the source changed";
    src.M().Sigmoid(src.M());
    EXPECT_TRUE(MatNear(src.M(), sref, tol)) << "Sigmoid in place";
    Fill(&src.M(), X);
    src.M().Tanh(src.M());
    EXPECT_TRUE(MatNear(src.M(), tref, tol)) << "Tanh in place";

    // Backprop: value in (0, 1) for sigmoid, (-1, 1) for tanh.
    TestMatrix<Real> value(rng, rows, cols), diff(rng, rows, cols);
    FillUniform(&value.M(), rng, 0.0, 1.0);
    RefMat V = ToRef(value.M()), D = ToRef(diff.M()), ref(rows, cols);
    for (size_t i = 0; i < V.d.size(); i++)
      ref.d[i] = D.d[i] * V.d[i] * (1.0 - V.d[i]);
    dst.M().DiffSigmoid(value.M(), diff.M());
    EXPECT_TRUE(MatNear(dst.M(), ref, tol)) << "DiffSigmoid";
    diff.M().DiffSigmoid(value.M(), diff.M());
    EXPECT_TRUE(MatNear(diff.M(), ref, tol)) << "DiffSigmoid in place (diff)";
    Fill(&diff.M(), D);
    FillUniform(&value.M(), rng, -1.0, 1.0);
    V = ToRef(value.M());
    for (size_t i = 0; i < V.d.size(); i++)
      ref.d[i] = D.d[i] * (1.0 - V.d[i] * V.d[i]);
    dst.M().DiffTanh(value.M(), diff.M());
    EXPECT_TRUE(MatNear(dst.M(), ref, tol)) << "DiffTanh";
    diff.M().DiffTanh(value.M(), diff.M());
    EXPECT_TRUE(MatNear(diff.M(), ref, tol)) << "DiffTanh in place (diff)";
    EXPECT_TRUE(MatNear(value.M(), V, 0)) << "value changed";
    EXPECT_TRUE(src.OutsideUnchanged());
    EXPECT_TRUE(dst.OutsideUnchanged());
    EXPECT_TRUE(diff.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, SoftMaxPerRowAndLogSoftMaxPerRow) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter, 60);
    TestMatrix<Real> src(rng, rows, cols), dst(rng, rows, cols);
    SCOPED_TRACE("src " + src.Describe() + ", dst " + dst.Describe());
    // Each row has its own offset; large ones overflow a naive exp().
    for (int r = 0; r < rows; r++) {
      double off = rng.Prob(0.3) ? rng.Uniform(-300, 300) : 0.0;
      for (int c = 0; c < cols; c++)
        src.M()(r, c) = static_cast<Real>(off + 3.0 * rng.Gauss());
    }
    RefMat X = ToRef(src.M()), P(rows, cols), L(rows, cols);
    for (int r = 0; r < rows; r++) {
      double m = -Inf(), s = 0;
      for (int c = 0; c < cols; c++) m = std::max(m, X(r, c));
      for (int c = 0; c < cols; c++) s += std::exp(X(r, c) - m);
      for (int c = 0; c < cols; c++) {
        P(r, c) = std::exp(X(r, c) - m) / s;
        L(r, c) = X(r, c) - m - std::log(s);
      }
    }
    dst.M().SoftMaxPerRow(src.M());
    // Relative comparison of probabilities (with a tiny absolute floor).
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) {
        double got = dst.M()(r, c);
        EXPECT_LE(std::abs(got - P(r, c)), tol * P(r, c) + 1e-30)
            << "SoftMaxPerRow (" << r << "," << c << ") got " << got
            << " expected " << P(r, c);
      }
    dst.M().LogSoftMaxPerRow(src.M());
    EXPECT_TRUE(MatNear(dst.M(), L, tol)) << "LogSoftMaxPerRow";
    EXPECT_TRUE(MatNear(src.M(), X, 0)) << "the source changed";
    src.M().LogSoftMaxPerRow(src.M());
    EXPECT_TRUE(MatNear(src.M(), L, tol)) << "LogSoftMaxPerRow in place";
    Fill(&src.M(), X);
    src.M().SoftMaxPerRow(src.M());
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        EXPECT_LE(std::abs(src.M()(r, c) - P(r, c)), tol * P(r, c) + 1e-30)
            << "SoftMaxPerRow in place (" << r << "," << c << ")";
    EXPECT_TRUE(src.OutsideUnchanged());
    EXPECT_TRUE(dst.OutsideUnchanged());
  });
}

// ---------------------------------------------------------------------------
// Reductions.

TYPED_TEST(MatrixTest, Reductions) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> t(rng, rows, cols);
    SCOPED_TRACE(t.Describe());
    RefMat X = ToRef(t.M());
    double sum = 0, sq = 0, tr = 0;
    for (double v : X.d) {
      sum += v;
      sq += v * v;
    }
    for (int i = 0; i < std::min(rows, cols); i++) tr += X(i, i);
    EXPECT_TRUE(ScalarNear(t.M().Sum(), sum, tol)) << "Sum";
    EXPECT_TRUE(ScalarNear(t.M().FrobeniusNorm(), std::sqrt(sq), tol))
        << "FrobeniusNorm";
    EXPECT_TRUE(ScalarNear(t.M().Trace(false), tr, tol)) << "Trace(false)";
    if (rows == cols) {
      EXPECT_TRUE(ScalarNear(t.M().Trace(), tr, tol)) << "Trace";
    } else {
      EXPECT_THROW(t.M().Trace(), InternalError) << "Trace of a non-square";
    }
    if (rows > 0) {
      double mx = -Inf(), mn = Inf();
      for (double v : X.d) {
        mx = std::max(mx, v);
        mn = std::min(mn, v);
      }
      EXPECT_EQ(t.M().Max(), Real(mx));
      EXPECT_EQ(t.M().Min(), Real(mn));
    }
    EXPECT_TRUE(t.M().IsFinite());
    EXPECT_EQ(t.M().IsZero(), rows == 0);
    EXPECT_TRUE(t.OutsideUnchanged());
    if (rows == 0) return;
    int r = rng.Int(0, rows - 1), c = rng.Int(0, cols - 1);
    Real saved = t.M()(r, c);
    t.M()(r, c) = std::numeric_limits<Real>::quiet_NaN();
    EXPECT_FALSE(t.M().IsFinite());
    t.M()(r, c) = -std::numeric_limits<Real>::infinity();
    EXPECT_FALSE(t.M().IsFinite());
    t.M()(r, c) = saved;
    EXPECT_TRUE(t.M().IsFinite());
    // IsZero with its default cutoff 1e-5 and an explicit one.
    t.M().SetZero();
    EXPECT_TRUE(t.M().IsZero());
    t.M()(r, c) = static_cast<Real>(rng.Prob(0.5) ? 5e-6 : -5e-6);
    EXPECT_TRUE(t.M().IsZero());
    t.M()(r, c) = static_cast<Real>(rng.Prob(0.5) ? 2e-5 : -2e-5);
    EXPECT_FALSE(t.M().IsZero());
    EXPECT_TRUE(t.M().IsZero(1e-4));
  });
}

TYPED_TEST(MatrixTest, EqualAndApproxEqual) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    TestMatrix<Real> a(rng, rows, cols), b(rng, rows, cols);
    SCOPED_TRACE(a.Describe() + ", " + b.Describe());
    RefMat X = ToRef(a.M());
    Fill(&b.M(), X);
    EXPECT_TRUE(a.M().Equal(b.M()));
    EXPECT_TRUE(a.M().ApproxEqual(b.M()));
    EXPECT_TRUE(a.M().ApproxEqual(b.M(), 0.0f));
    EXPECT_TRUE(SameDim(a.M(), b.M()));
    if (rows == 0) return;
    double norm = 0;
    for (double v : X.d) norm += v * v;
    norm = std::sqrt(norm);
    int r = rng.Int(0, rows - 1), c = rng.Int(0, cols - 1);
    b.M()(r, c) = static_cast<Real>(X(r, c) + 0.001 * norm);
    EXPECT_FALSE(a.M().Equal(b.M()));
    EXPECT_TRUE(a.M().ApproxEqual(b.M()));
    EXPECT_FALSE(a.M().ApproxEqual(b.M(), 0.0001f));
    b.M()(r, c) = static_cast<Real>(X(r, c) + 0.1 * norm);
    EXPECT_FALSE(a.M().ApproxEqual(b.M()));
    EXPECT_TRUE(a.M().ApproxEqual(b.M(), 0.5f));
    Matrix<Real> other(rows + 1, cols);
    EXPECT_FALSE(SameDim(a.M(), other));
  });
}

TYPED_TEST(MatrixTest, TraceMatMat) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int m = MDim(rng, iter), n = m == 0 ? 0 : MDim(rng, iter);
    MatrixTransposeType trans = (iter & 1) ? kTrans : kNoTrans;
    // tr(A B) with B n x m, or tr(A B^T) with B m x n.
    TestMatrix<Real> a(rng, m, n);
    TestMatrix<Real> b(rng, trans == kNoTrans ? n : m, trans == kNoTrans ? m : n);
    SCOPED_TRACE("A " + a.Describe() + ", B " + b.Describe() + " " +
                 TransName(trans));
    RefMat A = ToRef(a.M()), B = RefOp(ToRef(b.M()), trans);
    RefMat AB = RefMul(A, B);
    double tr = 0;
    for (int i = 0; i < m; i++) tr += AB(i, i);
    EXPECT_TRUE(ScalarNear(TraceMatMat(a.M(), b.M(), trans), tr, tol));
    if (trans == kNoTrans) {
      EXPECT_TRUE(ScalarNear(TraceMatMat(a.M(), b.M()), tr, tol)) << "default";
    }
  });
}

TYPED_TEST(MatrixTest, DimensionMismatchIsAnInternalError) {
  typedef TypeParam Real;
  Matrix<Real> A(3, 4), B(4, 3), C(3, 3);
  EXPECT_THROW(A.AddMat(1.0, B), InternalError);
  EXPECT_THROW(A.CopyFromMat(B), InternalError);
  EXPECT_THROW(C.AddMatMat(1.0, A, kNoTrans, A, kNoTrans, 0.0), InternalError);
  EXPECT_THROW(A.MulElements(B), InternalError);
  Vector<Real> v(5);
  EXPECT_THROW(A.MulRowsVec(v), InternalError);
  EXPECT_THROW(A.CopyRowsFromVec(v), InternalError);
}

}  // namespace
}  // namespace test
}  // namespace nnet3
