// tests/matrix/vector-test.cc
// VectorBase / Vector / SubVector against naive double-precision references,
// in float and double, on owned vectors and on views (ranges of larger
// vectors, matrix rows, raw memory), with the memory around each view
// checked to be untouched. Every random iteration prints its seed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "matrix/matrix-test-util.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace test {
namespace {

template <class Real>
class VectorTest : public ::testing::Test {};
TYPED_TEST_SUITE(VectorTest, RealTypes);

template <class Real> struct Other;
template <> struct Other<float> { typedef double Type; };
template <> struct Other<double> { typedef float Type; };

const int kIters = 30;

// A dimension for iteration iter: 0 on iteration 0, else random (sometimes
// large enough to leave BLAS's small-size paths).
int VecDim(Rng &rng, int iter, int max = 40) {
  if (iter == 0) return 0;
  return rng.Prob(0.1) ? rng.Int(100, 300) : rng.Dim(max);
}

// ---------------------------------------------------------------------------
// Construction, access, memory.

TYPED_TEST(VectorTest, ConstructAndAccess) {
  typedef TypeParam Real;
  Vector<Real> empty;
  EXPECT_EQ(empty.Dim(), 0);
  EXPECT_EQ(empty.Data(), nullptr);
  EXPECT_EQ(empty.SizeInBytes(), 0u);

  Vector<Real> v(5);
  ASSERT_EQ(v.Dim(), 5);
  EXPECT_EQ(v.SizeInBytes(), 5 * sizeof(Real));
  for (int i = 0; i < 5; i++) EXPECT_EQ(v(i), Real(0)) << i;
  for (int i = 0; i < 5; i++) v(i) = Real(i * 1.5);
  for (int i = 0; i < 5; i++) {
    EXPECT_EQ(v.Data()[i], Real(i * 1.5));
    const Vector<Real> &cv = v;
    EXPECT_EQ(cv(i), Real(i * 1.5));
    EXPECT_EQ(cv.Data()[i], Real(i * 1.5));
  }
  Vector<Real> u(7, kUndefined);
  EXPECT_EQ(u.Dim(), 7);
  EXPECT_NE(u.Data(), nullptr);
  Vector<Real> z(4, kSetZero);
  for (int i = 0; i < 4; i++) EXPECT_EQ(z(i), Real(0));
}

TYPED_TEST(VectorTest, OwnedMemoryIs16ByteAligned) {
  typedef TypeParam Real;
  for (int dim = 1; dim <= 67; dim++) {
    Vector<Real> v(dim);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.Data()) % 16, 0u) << "dim " << dim;
    v.Resize(dim + 3, kCopyData);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.Data()) % 16, 0u) << "dim " << dim;
  }
}

TYPED_TEST(VectorTest, CopyConstructAssignMove) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> src(rng, dim);
    SCOPED_TRACE(src.Describe());
    RefVec ref = ToRef(src.v());

    Vector<Real> from_base(src.v());  // explicit Vector(const VectorBase &)
    EXPECT_TRUE(VecNear(from_base, ref, 0));
    Vector<Real> copy(from_base);  // copy constructor
    EXPECT_TRUE(VecNear(copy, ref, 0));
    if (dim > 0) {
      EXPECT_NE(copy.Data(), from_base.Data());
    }

    Vector<OReal> other(src.v());  // converting constructor
    RefVec oref(dim);
    for (int i = 0; i < dim; i++) oref[i] = static_cast<OReal>(ref[i]);
    EXPECT_TRUE(VecNear(other, oref, 0));
    Vector<Real> back(other);
    RefVec bref(dim);
    for (int i = 0; i < dim; i++)
      bref[i] = static_cast<Real>(static_cast<OReal>(ref[i]));
    EXPECT_TRUE(VecNear(back, bref, 0));

    // Assignment into vectors of other sizes.
    Vector<Real> a(rng.Int(0, 9));
    a = copy;
    EXPECT_TRUE(VecNear(a, ref, 0));
    Vector<Real> &a_again = a;  // through a reference: clang warns on a = a
    a = a_again;  // self-assignment keeps the contents
    EXPECT_TRUE(VecNear(a, ref, 0));
    Vector<Real> b(rng.Int(0, 9));
    b = src.v();  // operator=(const VectorBase &)
    EXPECT_TRUE(VecNear(b, ref, 0));

    // Move construction steals the memory and leaves the source empty.
    const Real *ptr = copy.Data();
    Vector<Real> moved(std::move(copy));
    EXPECT_EQ(moved.Data(), ptr);
    EXPECT_TRUE(VecNear(moved, ref, 0));
    EXPECT_EQ(copy.Dim(), 0);  // NOLINT(bugprone-use-after-move)
    Vector<Real> c(3);
    c = std::move(moved);
    EXPECT_EQ(c.Data(), ptr);
    EXPECT_TRUE(VecNear(c, ref, 0));
    EXPECT_TRUE(src.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, Resize) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int d1 = rng.Int(0, 20), d2 = iter == 0 ? 0 : rng.Int(0, 20);
    Vector<Real> v(d1);
    FillGauss(&v, rng);
    RefVec old = ToRef(v);
    for (MatrixResizeType t : {kCopyData, kSetZero, kUndefined}) {
      SCOPED_TRACE("resize " + std::to_string(d1) + " -> " +
                   std::to_string(d2) + " type " + std::to_string(t));
      Vector<Real> w(d1);
      Fill(&w, old);
      w.Resize(d2, t);
      ASSERT_EQ(w.Dim(), d2);
      if (d2 == 0) {
        EXPECT_EQ(w.Data(), nullptr);
      }
      if (t == kCopyData) {
        RefVec ref(d2, 0.0);
        for (int i = 0; i < std::min(d1, d2); i++) ref[i] = old[i];
        EXPECT_TRUE(VecNear(w, ref, 0));
      } else if (t == kSetZero) {
        EXPECT_TRUE(VecNear(w, RefVec(d2, 0.0), 0));
      }
      if (d2 > 0) {
        w(d2 - 1) = 2;  // the memory is usable
        EXPECT_EQ(w(d2 - 1), Real(2));
      }
    }
  });
}

TYPED_TEST(VectorTest, Swap) {
  typedef TypeParam Real;
  Rng rng(7);
  SCOPED_TRACE(rng.Trace());
  Vector<Real> a(5), b(9), e;
  FillGauss(&a, rng);
  FillGauss(&b, rng);
  RefVec ra = ToRef(a), rb = ToRef(b);
  const Real *pa = a.Data(), *pb = b.Data();
  a.Swap(&b);
  EXPECT_EQ(a.Data(), pb);
  EXPECT_EQ(b.Data(), pa);
  EXPECT_TRUE(VecNear(a, rb, 0));
  EXPECT_TRUE(VecNear(b, ra, 0));
  a.Swap(&e);
  EXPECT_EQ(a.Dim(), 0);
  EXPECT_EQ(a.Data(), nullptr);
  EXPECT_TRUE(VecNear(e, rb, 0));
}

TYPED_TEST(VectorTest, RemoveElement) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int) {
    int dim = rng.Int(1, 20);
    Vector<Real> v(dim);
    FillGauss(&v, rng);
    RefVec ref = ToRef(v);
    int i = rng.Int(0, dim - 1);
    v.RemoveElement(i);
    ref.erase(ref.begin() + i);
    EXPECT_TRUE(VecNear(v, ref, 0)) << "removed " << i;
  });
}

// ---------------------------------------------------------------------------
// Views.

TYPED_TEST(VectorTest, RangeSharesMemory) {
  typedef TypeParam Real;
  Vector<Real> v(10);
  for (int i = 0; i < 10; i++) v(i) = Real(i);
  SubVector<Real> r = v.Range(3, 4);
  ASSERT_EQ(r.Dim(), 4);
  EXPECT_EQ(r.Data(), v.Data() + 3);
  for (int i = 0; i < 4; i++) EXPECT_EQ(r(i), Real(3 + i));
  r(0) = Real(-7);
  EXPECT_EQ(v(3), Real(-7));
  v(6) = Real(42);
  EXPECT_EQ(r(3), Real(42));
  // A range of a range.
  SubVector<Real> rr = r.Range(1, 2);
  EXPECT_EQ(rr.Data(), v.Data() + 4);
  rr(1) = Real(11);
  EXPECT_EQ(v(5), Real(11));
  // Copies of a SubVector share the memory too.
  SubVector<Real> rc(rr);
  EXPECT_EQ(rc.Data(), rr.Data());
  rc(0) = Real(0.25);
  EXPECT_EQ(v(4), Real(0.25));
  // Operations through the view touch only the view.
  r.Set(Real(1));
  RefVec ref = {0, 1, 2, 1, 1, 1, 1, 7, 8, 9};
  EXPECT_TRUE(VecNear(v, ref, 0));
  // Const range.
  const Vector<Real> &cv = v;
  const SubVector<Real> cr = cv.Range(7, 3);
  EXPECT_EQ(cr(0), Real(7));
  EXPECT_EQ(cr.Dim(), 3);
  // Raw memory.
  Real buf[6] = {1, 2, 3, 4, 5, 6};
  SubVector<Real> raw(buf + 1, 4);
  EXPECT_EQ(raw.Data(), buf + 1);
  raw(3) = 50;
  EXPECT_EQ(buf[4], Real(50));
  // Empty range.
  SubVector<Real> e = v.Range(10, 0);
  EXPECT_EQ(e.Dim(), 0);
}

TYPED_TEST(VectorTest, MatrixRowSharesMemory) {
  typedef TypeParam Real;
  Matrix<Real> M(4, 5);
  for (int r = 0; r < 4; r++)
    for (int c = 0; c < 5; c++) M(r, c) = Real(10 * r + c);
  SubVector<Real> row(M, 2);
  ASSERT_EQ(row.Dim(), 5);
  EXPECT_EQ(row.Data(), M.RowData(2));
  for (int c = 0; c < 5; c++) EXPECT_EQ(row(c), Real(20 + c));
  row(4) = Real(-1);
  EXPECT_EQ(M(2, 4), Real(-1));
  M(2, 0) = Real(99);
  EXPECT_EQ(row(0), Real(99));
  // A row of a column range.
  SubMatrix<Real> cols = M.ColRange(1, 3);
  SubVector<Real> crow(cols, 3);
  EXPECT_EQ(crow.Dim(), 3);
  EXPECT_EQ(crow.Data(), M.RowData(3) + 1);
  crow.Set(Real(5));
  RefVec ref = {30, 5, 5, 5, 34};
  EXPECT_TRUE(VecNear(M.Row(3), ref, 0));
}

// ---------------------------------------------------------------------------
// Filling.

TYPED_TEST(VectorTest, SetZeroSetIsZero) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe());
    double val = rng.Gauss();
    t.v().Set(static_cast<Real>(val));
    EXPECT_TRUE(VecNear(t.v(), RefVec(dim, static_cast<Real>(val)), 0));
    EXPECT_EQ(t.v().IsZero(), dim == 0);
    t.v().SetZero();
    EXPECT_TRUE(VecNear(t.v(), RefVec(dim, 0.0), 0));
    EXPECT_TRUE(t.v().IsZero());
    if (dim > 0) {
      int i = rng.Int(0, dim - 1);
      t.v()(i) = static_cast<Real>(rng.Prob(0.5) ? 5e-7 : -5e-7);
      EXPECT_TRUE(t.v().IsZero());  // default cutoff 1e-6
      t.v()(i) = static_cast<Real>(rng.Prob(0.5) ? 2e-6 : -2e-6);
      EXPECT_FALSE(t.v().IsZero());
      EXPECT_TRUE(t.v().IsZero(1e-5));
      t.v()(i) = static_cast<Real>(0.5);
      EXPECT_FALSE(t.v().IsZero(0.1));
      EXPECT_TRUE(t.v().IsZero(0.6));
    }
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, SetRandom) {
  typedef TypeParam Real;
  // Views: only the view is written.
  ForEachSeed(TestSeed(), 10, [](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe());
    t.v().SetRandUniform();
    for (int i = 0; i < dim; i++) {
      EXPECT_GT(t.v()(i), Real(0));
      EXPECT_LT(t.v()(i), Real(1));
    }
    t.v().SetRandn();
    EXPECT_TRUE(t.v().IsFinite());
    RandomSource rs(rng.seed());
    t.v().SetRandUniform(&rs);
    for (int i = 0; i < dim; i++) {
      EXPECT_GT(t.v()(i), Real(0));
      EXPECT_LT(t.v()(i), Real(1));
    }
    t.v().SetRandn(&rs);
    EXPECT_TRUE(t.OutsideUnchanged());
  });
  // Statistics and reproducibility.
  const int n = 20000;
  Vector<Real> u(n), g(n), g2(n), g3(n);
  RandomSource rs1(123), rs3(124);
  u.SetRandUniform(&rs1);
  g.SetRandn(&rs1);
  RandomSource rs1b(123);
  Vector<Real> u2(n);
  u2.SetRandUniform(&rs1b);
  g2.SetRandn(&rs1b);
  g3.SetRandn(&rs3);
  double us = 0, gs = 0, gss = 0;
  bool same = true, differ = false;
  for (int i = 0; i < n; i++) {
    us += u(i);
    gs += g(i);
    gss += double(g(i)) * g(i);
    same = same && u(i) == u2(i) && g(i) == g2(i);
    differ = differ || g(i) != g3(i);
  }
  EXPECT_NEAR(us / n, 0.5, 0.01);
  EXPECT_NEAR(gs / n, 0.0, 0.03);
  EXPECT_NEAR(gss / n, 1.0, 0.05);
  EXPECT_TRUE(same) << "the same seed must give the same numbers";
  EXPECT_TRUE(differ) << "different seeds must give different numbers";
}

// ---------------------------------------------------------------------------
// Copying.

TYPED_TEST(VectorTest, CopyFromVecAndPtr) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> src(rng, dim), dst(rng, dim);
    SCOPED_TRACE("src " + src.Describe() + ", dst " + dst.Describe());
    RefVec ref = ToRef(src.v());
    dst.v().CopyFromVec(src.v());
    EXPECT_TRUE(VecNear(dst.v(), ref, 0));
    EXPECT_TRUE(dst.OutsideUnchanged());
    EXPECT_TRUE(VecNear(src.v(), ref, 0));

    TestVector<OReal> osrc(rng, dim);
    RefVec oref = ToRef(osrc.v());
    for (auto &x : oref) x = static_cast<Real>(x);
    dst.v().CopyFromVec(osrc.v());
    EXPECT_TRUE(VecNear(dst.v(), oref, 0));
    EXPECT_TRUE(dst.OutsideUnchanged());

    std::vector<Real> raw(dim);
    for (auto &x : raw) x = static_cast<Real>(rng.Gauss());
    dst.v().CopyFromPtr(raw.data(), dim);
    EXPECT_TRUE(VecNear(dst.v(), RefVec(raw.begin(), raw.end()), 0));
    EXPECT_TRUE(dst.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, CopyFromMatrix) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int rows = iter == 0 ? 0 : rng.Dim(12), cols = iter == 0 ? 0 : rng.Dim(12);
    TestMatrix<Real> M(rng, rows, cols);
    SCOPED_TRACE(M.Describe());
    RefMat R = ToRef(M.M());

    // CopyRowsFromMat: rows concatenated.
    TestVector<Real> all(rng, rows * cols);
    all.v().CopyRowsFromMat(M.M());
    RefVec ref(R.d.begin(), R.d.end());
    EXPECT_TRUE(VecNear(all.v(), ref, 0));
    EXPECT_TRUE(all.OutsideUnchanged());
    if (rows == 0) return;

    int r = rng.Int(0, rows - 1), c = rng.Int(0, cols - 1);
    TestVector<Real> row(rng, cols), col(rng, rows);
    row.v().CopyRowFromMat(M.M(), r);
    RefVec rref(cols);
    for (int j = 0; j < cols; j++) rref[j] = R(r, j);
    EXPECT_TRUE(VecNear(row.v(), rref, 0)) << "row " << r;
    col.v().CopyColFromMat(M.M(), c);
    RefVec cref(rows);
    for (int i = 0; i < rows; i++) cref[i] = R(i, c);
    EXPECT_TRUE(VecNear(col.v(), cref, 0)) << "col " << c;
    EXPECT_TRUE(row.OutsideUnchanged());
    EXPECT_TRUE(col.OutsideUnchanged());

    // From the other precision.
    TestMatrix<OReal> OM(rng, rows, cols);
    RefMat OR = ToRef(OM.M());
    row.v().CopyRowFromMat(OM.M(), r);
    for (int j = 0; j < cols; j++) rref[j] = static_cast<Real>(OR(r, j));
    EXPECT_TRUE(VecNear(row.v(), rref, 0)) << "row " << r;
    col.v().CopyColFromMat(OM.M(), c);
    for (int i = 0; i < rows; i++) cref[i] = static_cast<Real>(OR(i, c));
    EXPECT_TRUE(VecNear(col.v(), cref, 0)) << "col " << c;

    // Diagonal (square or not).
    int d = std::min(rows, cols);
    TestVector<Real> diag(rng, d);
    diag.v().CopyDiagFromMat(M.M());
    RefVec dref(d);
    for (int i = 0; i < d; i++) dref[i] = R(i, i);
    EXPECT_TRUE(VecNear(diag.v(), dref, 0));
    EXPECT_TRUE(diag.OutsideUnchanged());
    EXPECT_TRUE(MatNear(M.M(), R, 0)) << "the source changed";
    EXPECT_TRUE(M.OutsideUnchanged());
  });
}

// ---------------------------------------------------------------------------
// Elementwise functions.

TYPED_TEST(VectorTest, ApplyFloorCeiling) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe());
    // Some values exactly at the threshold: they are not counted.
    Real thr = static_cast<Real>(rng.Gauss() * 0.5);
    for (int i = 0; i < dim; i++)
      if (rng.Prob(0.1)) t.v()(i) = thr;
    RefVec x = ToRef(t.v());
    RefVec ref(dim);
    int count = 0;
    for (int i = 0; i < dim; i++) {
      ref[i] = x[i] < thr ? double(thr) : x[i];
      count += x[i] < thr;
    }
    MatrixIndexT got_count = -5;
    t.v().ApplyFloor(thr, &got_count);
    EXPECT_TRUE(VecNear(t.v(), ref, 0));
    EXPECT_EQ(got_count, count);
    Fill(&t.v(), x);
    t.v().ApplyFloor(thr);  // without a count
    EXPECT_TRUE(VecNear(t.v(), ref, 0));

    Fill(&t.v(), x);
    count = 0;
    for (int i = 0; i < dim; i++) {
      ref[i] = x[i] > thr ? double(thr) : x[i];
      count += x[i] > thr;
    }
    got_count = -5;
    t.v().ApplyCeiling(thr, &got_count);
    EXPECT_TRUE(VecNear(t.v(), ref, 0));
    EXPECT_EQ(got_count, count);
    Fill(&t.v(), x);
    t.v().ApplyCeiling(thr);
    EXPECT_TRUE(VecNear(t.v(), ref, 0));
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, ApplyExpLogAbs) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe());
    FillUniform(&t.v(), rng, -8.0, 8.0);
    RefVec x = ToRef(t.v()), ref(dim);
    for (int i = 0; i < dim; i++) ref[i] = std::exp(x[i]);
    t.v().ApplyExp();
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "ApplyExp";

    FillUniform(&t.v(), rng, 1e-3, 50.0);
    x = ToRef(t.v());
    for (int i = 0; i < dim; i++) ref[i] = std::log(x[i]);
    t.v().ApplyLog();
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "ApplyLog";

    TestVector<Real> src(rng, dim);
    FillUniform(&src.v(), rng, 1e-3, 50.0);
    x = ToRef(src.v());
    for (int i = 0; i < dim; i++) ref[i] = std::log(x[i]);
    t.v().ApplyLogAndCopy(src.v());
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "ApplyLogAndCopy";
    EXPECT_TRUE(VecNear(src.v(), x, 0)) << "ApplyLogAndCopy changed its source";

    FillGauss(&t.v(), rng);
    x = ToRef(t.v());
    for (int i = 0; i < dim; i++) ref[i] = std::abs(x[i]);
    t.v().ApplyAbs();
    EXPECT_TRUE(VecNear(t.v(), ref, 0)) << "ApplyAbs";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(src.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, ApplyPow) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    // Non-negative bases (with exact zeros), any power.
    for (double p : {0.5, 2.0, 1.0, 0.0, 3.0, 1.5, -1.0, -0.5}) {
      TestVector<Real> t(rng, dim);
      SCOPED_TRACE(t.Describe() + ", power " + std::to_string(p));
      FillUniform(&t.v(), rng, 0.05, 4.0);
      if (p >= 0)
        for (int i = 0; i < dim; i++)
          if (rng.Prob(0.1)) t.v()(i) = 0;
      RefVec x = ToRef(t.v()), ref(dim);
      for (int i = 0; i < dim; i++) ref[i] = std::pow(x[i], p);
      t.v().ApplyPow(static_cast<Real>(p));
      EXPECT_TRUE(VecNear(t.v(), ref, tol));
      EXPECT_TRUE(t.OutsideUnchanged());
    }
    // Negative bases with integer powers are fine.
    for (double p : {2.0, 3.0, 1.0, -1.0}) {
      TestVector<Real> t(rng, dim);
      SCOPED_TRACE(t.Describe() + ", negative bases, power " +
                   std::to_string(p));
      FillUniform(&t.v(), rng, -4.0, -0.05);
      RefVec x = ToRef(t.v()), ref(dim);
      for (int i = 0; i < dim; i++) ref[i] = std::pow(x[i], p);
      t.v().ApplyPow(static_cast<Real>(p));
      EXPECT_TRUE(VecNear(t.v(), ref, tol));
    }
  });
}

TYPED_TEST(VectorTest, ApplyPowErrorsOnNaN) {
  typedef TypeParam Real;
  // Header: "errors on NaN results (power 0.5 of negatives)".
  for (double p : {0.5, 1.5, 0.25}) {
    Vector<Real> v(4);
    v(0) = 1;
    v(1) = 4;
    v(2) = -2;
    v(3) = 9;
    EXPECT_THROW(v.ApplyPow(static_cast<Real>(p)), UserError) << "power " << p;
  }
}

TYPED_TEST(VectorTest, ApplyPowAbs) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    for (double p : {1.0, 2.0, 0.5, 3.0, 1.5}) {
      for (bool include_sign : {false, true}) {
        TestVector<Real> t(rng, dim);
        SCOPED_TRACE(t.Describe() + ", power " + std::to_string(p) +
                     (include_sign ? ", include_sign" : ""));
        FillUniform(&t.v(), rng, -4.0, 4.0);
        for (int i = 0; i < dim; i++)
          if (rng.Prob(0.1)) t.v()(i) = 0;
        RefVec x = ToRef(t.v()), ref(dim);
        for (int i = 0; i < dim; i++) {
          ref[i] = std::pow(std::abs(x[i]), p);
          if (include_sign && x[i] < 0) ref[i] = -ref[i];
        }
        t.v().ApplyPowAbs(static_cast<Real>(p), include_sign);
        EXPECT_TRUE(VecNear(t.v(), ref, tol));
        EXPECT_TRUE(t.OutsideUnchanged());
      }
    }
    // A negative power (no zeros: |0|^-1 is infinite).
    TestVector<Real> t(rng, dim);
    FillUniform(&t.v(), rng, 0.1, 4.0);
    for (int i = 0; i < dim; i++)
      if (rng.Prob(0.5)) t.v()(i) = -t.v()(i);
    RefVec x = ToRef(t.v()), ref(dim);
    for (int i = 0; i < dim; i++) ref[i] = std::pow(std::abs(x[i]), -1.0);
    t.v().ApplyPowAbs(static_cast<Real>(-1.0));
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "power -1";
  });
}

TYPED_TEST(VectorTest, ApplyHeaviside) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe());
    for (int i = 0; i < dim; i++) {
      double u = rng.Uniform();
      if (u < 0.1) t.v()(i) = Real(0);
      else if (u < 0.15) t.v()(i) = -Real(0);
      else if (u < 0.2) t.v()(i) = std::numeric_limits<Real>::denorm_min();
    }
    RefVec x = ToRef(t.v()), ref(dim);
    for (int i = 0; i < dim; i++) ref[i] = x[i] > 0 ? 1.0 : 0.0;
    t.v().ApplyHeaviside();
    EXPECT_TRUE(VecNear(t.v(), ref, 0));
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

// Reference softmax in double: returns log(sum(exp(x))).
double RefSoftMax(const RefVec &x, RefVec *p, RefVec *logp) {
  double m = -Inf();
  for (double v : x) m = std::max(m, v);
  double s = 0;
  for (double v : x) s += std::exp(v - m);
  p->resize(x.size());
  logp->resize(x.size());
  for (size_t i = 0; i < x.size(); i++) {
    (*p)[i] = std::exp(x[i] - m) / s;
    (*logp)[i] = x[i] - m - std::log(s);
  }
  return m + std::log(s);
}

// Purely relative comparison (with a tiny absolute floor), for
// probabilities that may be small.
template <class Real>
::testing::AssertionResult VecRelNear(const VectorBase<Real> &v,
                                      const RefVec &ref, double tol) {
  if (v.Dim() != static_cast<int>(ref.size()))
    return ::testing::AssertionFailure() << "dim mismatch";
  for (size_t i = 0; i < ref.size(); i++) {
    double got = v(i);
    if (!(std::abs(got - ref[i]) <= tol * std::abs(ref[i]) + 1e-30))
      return ::testing::AssertionFailure()
             << std::setprecision(17) << "element " << i << ": got " << got
             << ", expected " << ref[i] << " (relative tol " << tol << ")";
  }
  return ::testing::AssertionSuccess();
}

TYPED_TEST(VectorTest, SoftMaxAndLogSoftMax) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = iter == 0 ? 1 : VecDim(rng, iter);
    // Offsets that overflow exp() without the max subtraction.
    double offset = rng.Prob(0.3) ? (rng.Prob(0.5) ? 200.0 : -200.0) : 0.0;
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe() + ", offset " + std::to_string(offset));
    for (int i = 0; i < dim; i++)
      t.v()(i) = static_cast<Real>(offset + 3.0 * rng.Gauss());
    RefVec x = ToRef(t.v()), p, logp;
    double lse = RefSoftMax(x, &p, &logp);
    Real got = t.v().ApplySoftMax();
    EXPECT_TRUE(VecRelNear(t.v(), p, tol)) << "ApplySoftMax";
    EXPECT_TRUE(ScalarNear(got, lse, tol)) << "ApplySoftMax return value";
    double sum = 0;
    for (int i = 0; i < dim; i++) sum += t.v()(i);
    EXPECT_NEAR(sum, 1.0, tol * 10);

    Fill(&t.v(), x);
    got = t.v().ApplyLogSoftMax();
    EXPECT_TRUE(VecNear(t.v(), logp, tol)) << "ApplyLogSoftMax";
    EXPECT_TRUE(ScalarNear(got, lse, tol)) << "ApplyLogSoftMax return value";
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, SigmoidTanh) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> src(rng, dim), dst(rng, dim);
    SCOPED_TRACE("src " + src.Describe() + ", dst " + dst.Describe());
    FillUniform(&src.v(), rng, -12.0, 12.0);
    if (dim > 1) {
      src.v()(0) = Real(30);
      src.v()(dim - 1) = Real(-30);
    }
    RefVec x = ToRef(src.v()), sref(dim), tref(dim);
    for (int i = 0; i < dim; i++) {
      sref[i] = 1.0 / (1.0 + std::exp(-x[i]));
      tref[i] = std::tanh(x[i]);
    }
    dst.v().Sigmoid(src.v());
    EXPECT_TRUE(VecNear(dst.v(), sref, tol)) << "Sigmoid";
    dst.v().Tanh(src.v());
    EXPECT_TRUE(VecNear(dst.v(), tref, tol)) << "Tanh";
    EXPECT_TRUE(VecNear(src.v(), x, 0)) << "the source changed";
    // In place.
    src.v().Sigmoid(src.v());
    EXPECT_TRUE(VecNear(src.v(), sref, tol)) << "Sigmoid in place";
    Fill(&src.v(), x);
    src.v().Tanh(src.v());
    EXPECT_TRUE(VecNear(src.v(), tref, tol)) << "Tanh in place";
    EXPECT_TRUE(src.OutsideUnchanged());
    EXPECT_TRUE(dst.OutsideUnchanged());
  });
}

// ---------------------------------------------------------------------------
// Arithmetic.

TYPED_TEST(VectorTest, AddScalarAndScale) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe());
    RefVec x = ToRef(t.v()), ref(dim);
    double c = rng.Gauss();
    for (int i = 0; i < dim; i++) ref[i] = x[i] + double(Real(c));
    t.v().Add(static_cast<Real>(c));
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "Add";
    Fill(&t.v(), x);
    double a = rng.Scalar();
    for (int i = 0; i < dim; i++) ref[i] = a * x[i];
    t.v().Scale(static_cast<Real>(a));
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "Scale " << a;
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, AddVec) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim), v(rng, dim);
    SCOPED_TRACE("this " + t.Describe() + ", v " + v.Describe());
    RefVec x = ToRef(t.v()), y = ToRef(v.v()), ref(dim);
    double alpha = rng.Scalar();
    for (int i = 0; i < dim; i++) ref[i] = x[i] + alpha * y[i];
    t.v().AddVec(static_cast<Real>(alpha), v.v());
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "AddVec alpha " << alpha;
    EXPECT_TRUE(VecNear(v.v(), y, 0));

    Fill(&t.v(), x);
    for (int i = 0; i < dim; i++) ref[i] = x[i] + alpha * y[i] * y[i];
    t.v().AddVec2(static_cast<Real>(alpha), v.v());
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "AddVec2 alpha " << alpha;

    TestVector<OReal> ov(rng, dim);
    RefVec oy = ToRef(ov.v());
    Fill(&t.v(), x);
    for (int i = 0; i < dim; i++) ref[i] = x[i] + alpha * oy[i];
    t.v().AddVec(static_cast<Real>(alpha), ov.v());
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "AddVec (other precision)";

    // x += alpha * x.
    Fill(&t.v(), x);
    for (int i = 0; i < dim; i++) ref[i] = x[i] + alpha * x[i];
    t.v().AddVec(static_cast<Real>(alpha), t.v());
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "AddVec to itself";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(v.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, MulDivInvertElements) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim), v(rng, dim);
    SCOPED_TRACE("this " + t.Describe() + ", v " + v.Describe());
    for (int i = 0; i < dim; i++)
      v.v()(i) = static_cast<Real>((rng.Prob(0.5) ? 1 : -1) *
                                   rng.Uniform(0.1, 3.0));
    RefVec x = ToRef(t.v()), y = ToRef(v.v()), ref(dim);
    for (int i = 0; i < dim; i++) ref[i] = x[i] * y[i];
    t.v().MulElements(v.v());
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "MulElements";
    Fill(&t.v(), x);
    for (int i = 0; i < dim; i++) ref[i] = x[i] / y[i];
    t.v().DivElements(v.v());
    EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "DivElements";
    for (int i = 0; i < dim; i++) ref[i] = 1.0 / y[i];
    v.v().InvertElements();
    EXPECT_TRUE(VecNear(v.v(), ref, tol)) << "InvertElements";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(v.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, AddMatVec) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 60, [tol](Rng &rng, int iter) {
    int rows = VecDim(rng, iter), cols = rows == 0 ? 0 : VecDim(rng, iter);
    MatrixTransposeType trans = (iter & 1) ? kTrans : kNoTrans;
    int out_dim = trans == kNoTrans ? rows : cols,
        in_dim = trans == kNoTrans ? cols : rows;
    TestMatrix<Real> M(rng, rows, cols);
    TestVector<Real> v(rng, in_dim), t(rng, out_dim);
    double alpha = rng.Scalar(), beta = rng.Scalar();
    bool nan_dest = (iter % 3 == 0);
    if (nan_dest) {
      beta = 0.0;
      FillValue(&t.v(), NaN());
    }
    SCOPED_TRACE("M " + M.Describe() + (trans == kTrans ? " (trans)" : "") +
                 ", v " + v.Describe() + ", this " + t.Describe() +
                 ", alpha " + std::to_string(alpha) + ", beta " +
                 std::to_string(beta) + (nan_dest ? " (this holds NaN)" : ""));
    RefMat A = RefOp(ToRef(M.M()), trans);
    RefVec x = ToRef(t.v()), y = ToRef(v.v()), ref(out_dim);
    for (int i = 0; i < out_dim; i++) {
      double s = 0;
      for (int j = 0; j < in_dim; j++) s += A(i, j) * y[j];
      ref[i] = (beta == 0 ? 0.0 : beta * x[i]) + alpha * s;
    }
    t.v().AddMatVec(static_cast<Real>(alpha), M.M(), trans, v.v(),
                    static_cast<Real>(beta));
    EXPECT_TRUE(VecNear(t.v(), ref, tol));
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(M.OutsideUnchanged());
    EXPECT_TRUE(VecNear(v.v(), y, 0));
  });
}

// Kaldi code relies on beta == 0 meaning "overwrite": BLAS must not read the
// destination, so NaN or Inf there must not leak into the result.
TYPED_TEST(VectorTest, AddMatVecBetaZeroIgnoresNaNDestination) {
  typedef TypeParam Real;
  for (MatrixTransposeType trans : {kNoTrans, kTrans}) {
    for (double alpha : {1.0, 0.0}) {
      Matrix<Real> M(3, 4);
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) M(r, c) = Real(r - c);
      int out = trans == kNoTrans ? 3 : 4, in = trans == kNoTrans ? 4 : 3;
      Vector<Real> v(in), y(out);
      for (int i = 0; i < in; i++) v(i) = Real(i + 1);
      for (int i = 0; i < out; i++)
        y(i) = i % 2 ? std::numeric_limits<Real>::quiet_NaN()
                     : std::numeric_limits<Real>::infinity();
      y.AddMatVec(static_cast<Real>(alpha), M, trans, v, 0);
      RefVec ref(out, 0.0);
      for (int i = 0; i < out; i++)
        for (int j = 0; j < in; j++)
          ref[i] += alpha * (trans == kNoTrans ? (i - j) : (j - i)) * (j + 1);
      EXPECT_TRUE(VecNear(y, ref, 0))
          << "beta = 0 with NaN/Inf in the destination, trans " << trans
          << ", alpha " << alpha;
    }
  }
}

TYPED_TEST(VectorTest, AddVecVecElementwise) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim), v(rng, dim), r(rng, dim);
    SCOPED_TRACE(t.Describe() + ", " + v.Describe() + ", " + r.Describe());
    double alpha = rng.Scalar(), beta = rng.Scalar();
    RefVec x = ToRef(t.v()), a = ToRef(v.v()), b = ToRef(r.v()), ref(dim);
    for (int i = 0; i < dim; i++) ref[i] = beta * x[i] + alpha * a[i] * b[i];
    t.v().AddVecVec(static_cast<Real>(alpha), v.v(), r.v(),
                    static_cast<Real>(beta));
    EXPECT_TRUE(VecNear(t.v(), ref, tol))
        << "alpha " << alpha << " beta " << beta;
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, AddRowSumMatAndColSumMat) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = VecDim(rng, iter, 30), cols = rows == 0 ? 0 : VecDim(rng, iter, 30);
    TestMatrix<Real> M(rng, rows, cols);
    TestVector<Real> rs(rng, cols), cs(rng, rows);
    SCOPED_TRACE("M " + M.Describe() + ", row-sum " + rs.Describe() +
                 ", col-sum " + cs.Describe());
    RefMat A = ToRef(M.M());
    double alpha = rng.Scalar(), beta = rng.Scalar();
    RefVec x = ToRef(rs.v()), ref(cols);
    for (int c = 0; c < cols; c++) {
      double s = 0;
      for (int r = 0; r < rows; r++) s += A(r, c);
      ref[c] = beta * x[c] + alpha * s;
    }
    rs.v().AddRowSumMat(static_cast<Real>(alpha), M.M(),
                        static_cast<Real>(beta));
    EXPECT_TRUE(VecNear(rs.v(), ref, tol)) << "AddRowSumMat";
    // Default beta = 1.
    Fill(&rs.v(), x);
    for (int c = 0; c < cols; c++) ref[c] += (1.0 - beta) * x[c];
    rs.v().AddRowSumMat(static_cast<Real>(alpha), M.M());
    EXPECT_TRUE(VecNear(rs.v(), ref, tol)) << "AddRowSumMat default beta";

    x = ToRef(cs.v());
    ref.assign(rows, 0.0);
    for (int r = 0; r < rows; r++) {
      double s = 0;
      for (int c = 0; c < cols; c++) s += A(r, c);
      ref[r] = beta * x[r] + alpha * s;
    }
    cs.v().AddColSumMat(static_cast<Real>(alpha), M.M(),
                        static_cast<Real>(beta));
    EXPECT_TRUE(VecNear(cs.v(), ref, tol)) << "AddColSumMat";
    Fill(&cs.v(), x);
    for (int r = 0; r < rows; r++) ref[r] += (1.0 - beta) * x[r];
    cs.v().AddColSumMat(static_cast<Real>(alpha), M.M());
    EXPECT_TRUE(VecNear(cs.v(), ref, tol)) << "AddColSumMat default beta";
    EXPECT_TRUE(rs.OutsideUnchanged());
    EXPECT_TRUE(cs.OutsideUnchanged());
    EXPECT_TRUE(M.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, AddDiagMat2) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int rows = VecDim(rng, iter, 30), cols = rows == 0 ? 0 : VecDim(rng, iter, 30);
    MatrixTransposeType trans = (iter & 1) ? kTrans : kNoTrans;
    TestMatrix<Real> M(rng, rows, cols);
    int dim = trans == kNoTrans ? rows : cols;
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE("M " + M.Describe() + (trans == kTrans ? " (trans)" : "") +
                 ", this " + t.Describe());
    RefMat A = RefOp(ToRef(M.M()), trans);  // diag(A A^T)
    double alpha = rng.Scalar(), beta = rng.Scalar();
    RefVec x = ToRef(t.v()), ref(dim);
    for (int i = 0; i < dim; i++) {
      double s = 0;
      for (int j = 0; j < A.cols; j++) s += A(i, j) * A(i, j);
      ref[i] = beta * x[i] + alpha * s;
    }
    t.v().AddDiagMat2(static_cast<Real>(alpha), M.M(), trans,
                      static_cast<Real>(beta));
    EXPECT_TRUE(VecNear(t.v(), ref, tol))
        << "alpha " << alpha << " beta " << beta;
    // Defaults: kNoTrans, beta = 1.
    if (trans == kNoTrans) {
      Fill(&t.v(), x);
      for (int i = 0; i < dim; i++) ref[i] += (1.0 - beta) * x[i];
      t.v().AddDiagMat2(static_cast<Real>(alpha), M.M());
      EXPECT_TRUE(VecNear(t.v(), ref, tol)) << "defaults";
    }
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

// ---------------------------------------------------------------------------
// Reductions.

TYPED_TEST(VectorTest, SumMaxMin) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe());
    RefVec x = ToRef(t.v());
    double sum = 0;
    for (double v : x) sum += v;
    EXPECT_TRUE(ScalarNear(t.v().Sum(), sum, tol)) << "Sum";
    if (dim == 0) {
      // Kaldi: the max of nothing is -inf, the min +inf.
      EXPECT_EQ(t.v().Max(), -std::numeric_limits<Real>::infinity());
      EXPECT_EQ(t.v().Min(), std::numeric_limits<Real>::infinity());
      return;
    }
    int imax = 0, imin = 0;
    for (int i = 1; i < dim; i++) {
      if (x[i] > x[imax]) imax = i;
      if (x[i] < x[imin]) imin = i;
    }
    EXPECT_EQ(t.v().Max(), Real(x[imax]));
    EXPECT_EQ(t.v().Min(), Real(x[imin]));
    MatrixIndexT idx = -1;
    EXPECT_EQ(t.v().Max(&idx), Real(x[imax]));
    EXPECT_EQ(idx, imax);
    idx = -1;
    EXPECT_EQ(t.v().Min(&idx), Real(x[imin]));
    EXPECT_EQ(idx, imin);

    FillUniform(&t.v(), rng, 0.01, 20.0);
    x = ToRef(t.v());
    double sumlog = 0;
    for (double v : x) sumlog += std::log(v);
    EXPECT_TRUE(ScalarNear(t.v().SumLog(), sumlog, tol)) << "SumLog";
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(VectorTest, Norm) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    SCOPED_TRACE(t.Describe());
    for (int i = 0; i < dim; i++)
      if (rng.Prob(0.2)) t.v()(i) = 0;
    RefVec x = ToRef(t.v());
    double n0 = 0, n1 = 0, n2 = 0, n3 = 0, ninf = 0;
    for (double v : x) {
      n0 += v != 0;
      n1 += std::abs(v);
      n2 += v * v;
      n3 += std::pow(std::abs(v), 3.0);
      ninf = std::max(ninf, std::abs(v));
    }
    EXPECT_TRUE(ScalarNear(t.v().Norm(0), n0, 0)) << "Norm(0)";
    EXPECT_TRUE(ScalarNear(t.v().Norm(1), n1, tol)) << "Norm(1)";
    EXPECT_TRUE(ScalarNear(t.v().Norm(2), std::sqrt(n2), tol)) << "Norm(2)";
    EXPECT_TRUE(ScalarNear(t.v().Norm(3), std::cbrt(n3), tol)) << "Norm(3)";
    EXPECT_TRUE(ScalarNear(
        t.v().Norm(std::numeric_limits<Real>::infinity()), ninf, 0))
        << "Norm(inf)";
  });
}

TYPED_TEST(VectorTest, LogSumExp) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = iter == 0 ? 1 : VecDim(rng, iter);
    TestVector<Real> t(rng, dim);
    double offset = rng.Prob(0.3) ? 300.0 : 0.0;
    SCOPED_TRACE(t.Describe() + ", offset " + std::to_string(offset));
    for (int i = 0; i < dim; i++)
      t.v()(i) = static_cast<Real>(offset + 4.0 * rng.Gauss());
    RefVec x = ToRef(t.v());
    double m = -Inf();
    for (double v : x) m = std::max(m, v);
    double s = 0;
    for (double v : x) s += std::exp(v - m);
    EXPECT_TRUE(ScalarNear(t.v().LogSumExp(), m + std::log(s), tol));
    EXPECT_TRUE(ScalarNear(t.v().LogSumExp(-1.0), m + std::log(s), tol));
    // Pruned: terms below max - prune are dropped. Keep values away from
    // the cutoff so float rounding cannot move one across it.
    double prune = 3.0;
    for (int i = 0; i < dim; i++) {
      double d = m - x[i];
      if (std::abs(d - prune) < 0.05) t.v()(i) = static_cast<Real>(m - prune - 0.5);
    }
    x = ToRef(t.v());
    double sp = 0;
    for (double v : x)
      if (v >= m - prune) sp += std::exp(v - m);
    EXPECT_TRUE(ScalarNear(t.v().LogSumExp(static_cast<Real>(prune)),
                           m + std::log(sp), tol))
        << "pruned";
  });
}

TYPED_TEST(VectorTest, ApproxEqualAndIsFinite) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), kIters, [](Rng &rng, int iter) {
    int dim = iter == 0 ? 0 : rng.Int(2, 50);
    TestVector<Real> a(rng, dim), b(rng, dim);
    SCOPED_TRACE(a.Describe() + ", " + b.Describe());
    RefVec x = ToRef(a.v());
    Fill(&b.v(), x);
    EXPECT_TRUE(a.v().ApproxEqual(b.v()));
    EXPECT_TRUE(a.v().ApproxEqual(b.v(), 0.0));
    EXPECT_TRUE(a.v().IsFinite());
    if (dim == 0) return;
    double norm = 0;
    for (double v : x) norm += v * v;
    norm = std::sqrt(norm);
    // Perturb one element by a fraction f of ||a||.
    int i = rng.Int(0, dim - 1);
    b.v()(i) = static_cast<Real>(x[i] + 0.001 * norm);
    EXPECT_TRUE(a.v().ApproxEqual(b.v()));  // 0.001 <= 0.01
    EXPECT_FALSE(a.v().ApproxEqual(b.v(), 0.0001f));
    b.v()(i) = static_cast<Real>(x[i] + 0.1 * norm);
    EXPECT_FALSE(a.v().ApproxEqual(b.v()));
    EXPECT_TRUE(a.v().ApproxEqual(b.v(), 0.5f));

    int j = rng.Int(0, dim - 1);
    a.v()(j) = std::numeric_limits<Real>::infinity();
    EXPECT_FALSE(a.v().IsFinite());
    a.v()(j) = -std::numeric_limits<Real>::infinity();
    EXPECT_FALSE(a.v().IsFinite());
    a.v()(j) = std::numeric_limits<Real>::quiet_NaN();
    EXPECT_FALSE(a.v().IsFinite());
    a.v()(j) = std::numeric_limits<Real>::max();
    EXPECT_TRUE(a.v().IsFinite());
  });
}

TYPED_TEST(VectorTest, VecVec) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), kIters, [tol](Rng &rng, int iter) {
    int dim = VecDim(rng, iter);
    TestVector<Real> a(rng, dim), b(rng, dim);
    TestVector<OReal> ob(rng, dim);
    SCOPED_TRACE(a.Describe() + ", " + b.Describe());
    RefVec x = ToRef(a.v()), y = ToRef(b.v()), oy = ToRef(ob.v());
    double s = 0, os = 0;
    for (int i = 0; i < dim; i++) {
      s += x[i] * y[i];
      os += x[i] * oy[i];
    }
    EXPECT_TRUE(ScalarNear(VecVec(a.v(), b.v()), s, tol));
    EXPECT_TRUE(ScalarNear(VecVec(a.v(), ob.v()), os, tol)) << "mixed precision";
    EXPECT_TRUE(VecNear(a.v(), x, 0));
  });
}

TYPED_TEST(VectorTest, DimensionMismatchIsAnInternalError) {
  typedef TypeParam Real;
  Vector<Real> a(3), b(4);
  Matrix<Real> M(3, 5);
  EXPECT_THROW(a.AddVec(1.0, b), InternalError);
  EXPECT_THROW(a.CopyFromVec(b), InternalError);
  EXPECT_THROW(a.MulElements(b), InternalError);
  EXPECT_THROW(a.AddMatVec(1.0, M, kNoTrans, a, 0.0), InternalError);
  EXPECT_THROW(a.CopyRowsFromMat(M), InternalError);
}

}  // namespace
}  // namespace test
}  // namespace nnet3
