// tests/matrix/matrix-index-test.cc
// The index-driven row/column operations of MatrixBase (CopyRows, AddRows,
// CopyToRows, AddToRows, AddRowRanges, SumColumnRanges, CopyCols, AddCols,
// by index vector and by pointer list) against naive double-precision
// references, in float and double, on owned matrices and strided views.
// Every random iteration prints its seed. (Split from matrix-test.cc.)
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

// A dimension: 0 on iteration 0, otherwise random, 1 often, sometimes large
// enough for BLAS's blocked kernels.
int MDim(Rng &rng, int iter, int max = 20) {
  if (iter == 0) return 0;
  return rng.Prob(0.08) ? rng.Int(60, 130) : rng.Dim(max);
}


// ---------------------------------------------------------------------------
// Row and column gathers/scatters.

std::vector<int32> RandomIndexes(Rng &rng, int n, int range, double p_minus1) {
  std::vector<int32> idx(n);
  for (auto &i : idx)
    i = (range == 0 || rng.Prob(p_minus1)) ? -1 : rng.Int(0, range - 1);
  return idx;
}

// Distinct indexes into [0, range), or -1.
std::vector<int32> DistinctIndexes(Rng &rng, int n, int range,
                                   double p_minus1) {
  std::vector<int32> perm(range);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(rng.Int(0, 1 << 30)));
  std::vector<int32> idx(n);
  size_t next = 0;
  for (auto &i : idx)
    i = (next == perm.size() || rng.Prob(p_minus1)) ? -1 : perm[next++];
  return idx;
}

TYPED_TEST(MatrixTest, CopyRowsAndAddRowsByIndex) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    int src_rows = rows == 0 ? 0 : rng.Dim(15);
    TestMatrix<Real> t(rng, rows, cols), src(rng, src_rows, cols);
    SCOPED_TRACE("this " + t.Describe() + ", src " + src.Describe());
    std::vector<int32> idx = RandomIndexes(rng, rows, src_rows, 0.25);
    RefMat X = ToRef(t.M()), S = ToRef(src.M()), ref(rows, cols);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = idx[r] < 0 ? 0.0 : S(idx[r], c);
    t.M().CopyRows(src.M(), idx);
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyRows";

    double alpha = rng.Scalar();
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = X(r, c) + (idx[r] < 0 ? 0.0 : alpha * S(idx[r], c));
    t.M().AddRows(static_cast<Real>(alpha), src.M(), idx);
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddRows alpha " << alpha;
    EXPECT_TRUE(MatNear(src.M(), S, 0)) << "src changed";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(src.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, CopyRowsAndAddRowsByPointer) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    int src_rows = rows == 0 ? 0 : rng.Dim(15);
    TestMatrix<Real> t(rng, rows, cols), src(rng, src_rows, cols);
    SCOPED_TRACE("this " + t.Describe() + ", src " + src.Describe());
    std::vector<int32> idx = RandomIndexes(rng, rows, src_rows, 0.25);
    std::vector<const Real *> ptrs(rows);
    for (int r = 0; r < rows; r++)
      ptrs[r] = idx[r] < 0 ? nullptr : src.M().RowData(idx[r]);
    RefMat X = ToRef(t.M()), S = ToRef(src.M()), ref(rows, cols);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = idx[r] < 0 ? 0.0 : S(idx[r], c);
    t.M().CopyRows(ptrs);
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyRows(pointers)";
    double alpha = rng.Scalar();
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = X(r, c) + (idx[r] < 0 ? 0.0 : alpha * S(idx[r], c));
    t.M().AddRows(static_cast<Real>(alpha), ptrs);
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddRows(pointers) alpha " << alpha;
    EXPECT_TRUE(MatNear(src.M(), S, 0)) << "src changed";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(src.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, CopyToRowsAndAddToRows) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    int dst_rows = rows == 0 ? 0 : rng.Dim(15);
    TestMatrix<Real> t(rng, rows, cols), dst(rng, dst_rows, cols);
    SCOPED_TRACE("this " + t.Describe() + ", dst " + dst.Describe());
    RefMat X = ToRef(t.M()), D = ToRef(dst.M()), ref;

    // Copy: distinct destinations.
    std::vector<int32> idx = DistinctIndexes(rng, rows, dst_rows, 0.25);
    ref = D;
    for (int r = 0; r < rows; r++)
      if (idx[r] >= 0)
        for (int c = 0; c < cols; c++) ref(idx[r], c) = X(r, c);
    t.M().CopyToRows(idx, &dst.M());
    EXPECT_TRUE(MatNear(dst.M(), ref, 0)) << "CopyToRows";
    Fill(&dst.M(), D);
    std::vector<Real *> ptrs(rows);
    for (int r = 0; r < rows; r++)
      ptrs[r] = idx[r] < 0 ? nullptr : dst.M().RowData(idx[r]);
    t.M().CopyToRows(ptrs);
    EXPECT_TRUE(MatNear(dst.M(), ref, 0)) << "CopyToRows(pointers)";

    // Add: repeated destinations accumulate.
    idx = RandomIndexes(rng, rows, dst_rows, 0.25);
    double alpha = rng.Scalar();
    Fill(&dst.M(), D);
    ref = D;
    for (int r = 0; r < rows; r++)
      if (idx[r] >= 0)
        for (int c = 0; c < cols; c++) ref(idx[r], c) += alpha * X(r, c);
    t.M().AddToRows(static_cast<Real>(alpha), idx, &dst.M());
    EXPECT_TRUE(MatNear(dst.M(), ref, tol)) << "AddToRows alpha " << alpha;
    Fill(&dst.M(), D);
    for (int r = 0; r < rows; r++)
      ptrs[r] = idx[r] < 0 ? nullptr : dst.M().RowData(idx[r]);
    t.M().AddToRows(static_cast<Real>(alpha), ptrs);
    EXPECT_TRUE(MatNear(dst.M(), ref, tol)) << "AddToRows(pointers)";
    EXPECT_TRUE(MatNear(t.M(), X, 0)) << "this changed";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(dst.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, AddRowRanges) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    int src_rows = rows == 0 ? 0 : rng.Dim(15);
    TestMatrix<Real> t(rng, rows, cols), src(rng, src_rows, cols);
    SCOPED_TRACE("this " + t.Describe() + ", src " + src.Describe());
    std::vector<Int32Pair> ranges(rows);
    for (auto &p : ranges) {
      int a = rng.Int(0, src_rows), b = rng.Int(0, src_rows);
      if (rng.Prob(0.25)) b = a;  // empty range
      p.first = std::min(a, b);
      p.second = std::max(a, b);
    }
    RefMat X = ToRef(t.M()), S = ToRef(src.M()), ref = X;
    for (int r = 0; r < rows; r++)
      for (int i = ranges[r].first; i < ranges[r].second; i++)
        for (int c = 0; c < cols; c++) ref(r, c) += S(i, c);
    t.M().AddRowRanges(src.M(), ranges);
    EXPECT_TRUE(MatNear(t.M(), ref, tol));
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, SumColumnRanges) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    int src_cols = rows == 0 ? 0 : rng.Dim(15);
    TestMatrix<Real> t(rng, rows, cols), src(rng, rows, src_cols);
    SCOPED_TRACE("this " + t.Describe() + ", src " + src.Describe());
    std::vector<Int32Pair> ranges(cols);
    for (auto &p : ranges) {
      int a = rng.Int(0, src_cols), b = rng.Int(0, src_cols);
      if (rng.Prob(0.25)) b = a;  // empty range: the column becomes 0
      p.first = std::min(a, b);
      p.second = std::max(a, b);
    }
    RefMat S = ToRef(src.M()), ref(rows, cols);
    for (int c = 0; c < cols; c++)
      for (int r = 0; r < rows; r++)
        for (int i = ranges[c].first; i < ranges[c].second; i++)
          ref(r, c) += S(r, i);
    t.M().SumColumnRanges(src.M(), ranges);
    EXPECT_TRUE(MatNear(t.M(), ref, tol));
    EXPECT_TRUE(t.OutsideUnchanged());
  });
}

TYPED_TEST(MatrixTest, CopyColsAndAddCols) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 40, [tol](Rng &rng, int iter) {
    int rows = MDim(rng, iter), cols = rows == 0 ? 0 : MDim(rng, iter);
    int src_cols = rows == 0 ? 0 : rng.Dim(15);
    TestMatrix<Real> t(rng, rows, cols), src(rng, rows, src_cols);
    SCOPED_TRACE("this " + t.Describe() + ", src " + src.Describe());
    std::vector<int32> idx = RandomIndexes(rng, cols, src_cols, 0.25);
    RefMat X = ToRef(t.M()), S = ToRef(src.M()), ref(rows, cols);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ref(r, c) = idx[c] < 0 ? 0.0 : S(r, idx[c]);
    t.M().CopyCols(src.M(), idx);
    EXPECT_TRUE(MatNear(t.M(), ref, 0)) << "CopyCols";
    Fill(&t.M(), X);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++)
        ref(r, c) = X(r, c) + (idx[c] < 0 ? 0.0 : S(r, idx[c]));
    t.M().AddCols(src.M(), idx);
    EXPECT_TRUE(MatNear(t.M(), ref, tol)) << "AddCols";
    EXPECT_TRUE(t.OutsideUnchanged());
    EXPECT_TRUE(src.OutsideUnchanged());
  });
}


}  // namespace
}  // namespace test
}  // namespace nnet3
