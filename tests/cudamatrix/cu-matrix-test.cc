// Tests of the Cu* types on the CPU backend: the explicit crossings between
// host and Cu data (copies, swaps, ToHost), views aliasing their parent,
// and the operations that are not plain forwards of a CPU method
// (FindRowMaxId, AddToDiag, CopyFromGeneralMat, CuArray, CuSparseMatrix),
// each against naive loops on host matrices; CuCompressedMatrix on the row
// threads against the one-thread loop and the format's formula.
#include "cudamatrix/cu-copy-cache.h"
#include "cudamatrix/cu-matrix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "base/random.h"
#include "cudamatrix/cu-compressed-matrix.h"
#include "matrix/general.h"
#include "matrix/row-threads.h"

namespace nnet3 {
namespace {

Matrix<BaseFloat> RandomHost(int32 rows, int32 cols, uint64 seed) {
  RandomSource rs(seed);
  Matrix<BaseFloat> m(rows, cols);
  m.SetRandn(&rs);
  return m;
}

TEST(CuMatrix, CrossingsKeepEveryValue) {
  Matrix<BaseFloat> host = RandomHost(7, 5, 1);
  CuMatrix<BaseFloat> cu(host);
  EXPECT_TRUE(ToHost(cu).Equal(host));
  CuMatrix<BaseFloat> t(host, kTrans);
  Matrix<BaseFloat> back(7, 5);
  t.CopyToMat(&back, kTrans);
  EXPECT_TRUE(back.Equal(host));
  // Swapping with a host matrix exchanges contents without copying.
  Matrix<BaseFloat> other = RandomHost(3, 2, 2), other_copy(other);
  const BaseFloat *other_data = other.Data();
  cu.Swap(&other);
  EXPECT_EQ(cu.Data(), other_data);
  EXPECT_TRUE(ToHost(cu).Equal(other_copy));
  EXPECT_TRUE(other.Equal(host));
  // Double precision both ways.
  CuMatrix<double> d(host);
  Matrix<double> dh = ToHost(d);
  for (int32 r = 0; r < 7; r++)
    for (int32 c = 0; c < 5; c++) EXPECT_EQ(dh(r, c), double(host(r, c)));
}

TEST(CuMatrix, ViewsAliasTheirParent) {
  CuMatrix<BaseFloat> m(RandomHost(6, 4, 3));
  CuSubMatrix<BaseFloat> sub = m.Range(1, 3, 2, 2);
  sub.Set(7.0);
  m.Row(5).Set(-1.0);
  Matrix<BaseFloat> h = ToHost(m);
  for (int32 r = 0; r < 6; r++)
    for (int32 c = 0; c < 4; c++) {
      if (r == 5)
        EXPECT_EQ(h(r, c), -1.0);
      else if (r >= 1 && r < 4 && c >= 2)
        EXPECT_EQ(h(r, c), 7.0);
      else
        EXPECT_NE(h(r, c), 7.0);
    }
  EXPECT_EQ(sub.Stride(), m.Stride());
  CuSubMatrix<BaseFloat> empty = m.RowRange(2, 0);
  EXPECT_EQ(empty.NumRows(), 0);
  EXPECT_EQ(empty.NumCols(), 0);
  CuSubMatrix<BaseFloat> raw(m.Data() + m.Stride(), 2, 4, m.Stride());
  EXPECT_EQ(raw.GetElement(0, 3), h(1, 3));
}

TEST(CuMatrix, FindRowMaxIdTakesTheFirstLargest) {
  Matrix<BaseFloat> host = RandomHost(9, 6, 4);
  host(2, 1) = host(2, 4) = 50.0;  // a tie: the first wins
  const BaseFloat nan = std::numeric_limits<BaseFloat>::quiet_NaN();
  for (int32 c = 0; c < 6; c++) host(5, c) = nan;  // no maximum: 0
  host(7, 3) = nan;
  CuArray<int32> ids;
  CuMatrix<BaseFloat>(host).FindRowMaxId(&ids);
  std::vector<int32> got;
  ids.CopyToVec(&got);
  ASSERT_EQ(got.size(), 9u);
  for (int32 r = 0; r < 9; r++) {
    int32 best = 0;
    BaseFloat best_value = -std::numeric_limits<BaseFloat>::infinity();
    for (int32 c = 0; c < 6; c++)
      if (host(r, c) > best_value) {
        best_value = host(r, c);
        best = c;
      }
    EXPECT_EQ(got[r], best) << "row " << r;
  }
  EXPECT_EQ(got[2], 1);
  EXPECT_EQ(got[5], 0);
}

TEST(CuMatrix, AddToDiagTouchesOnlyTheDiagonal) {
  for (int32 rows : {3, 5}) {
    Matrix<BaseFloat> host = RandomHost(rows, 4, 5);
    CuMatrix<BaseFloat> cu(host);
    cu.AddToDiag(-2.5);
    Matrix<BaseFloat> got = ToHost(cu);
    for (int32 r = 0; r < rows; r++)
      for (int32 c = 0; c < 4; c++)
        EXPECT_EQ(got(r, c), r == c ? host(r, c) + BaseFloat(-2.5)
                                    : host(r, c));
  }
}

TEST(CuMatrix, CopyFromGeneralMatMatchesEachKind) {
  Matrix<BaseFloat> full = RandomHost(4, 6, 6);
  std::vector<std::vector<std::pair<int32, BaseFloat> > > rows = {
      {{1, 0.5f}}, {}, {{0, 2.0f}, {5, -1.0f}}, {{3, 1.0f}}};
  SparseMatrix<BaseFloat> sparse(6, rows);
  CompressedMatrix compressed(full);
  for (const GeneralMatrix &g :
       {GeneralMatrix(full), GeneralMatrix(sparse), GeneralMatrix(compressed)}) {
    Matrix<BaseFloat> expected;
    g.GetMatrix(&expected);
    CuMatrix<BaseFloat> cu(g.NumRows(), g.NumCols(), kUndefined);
    cu.CopyFromGeneralMat(g);
    EXPECT_TRUE(ToHost(cu).Equal(expected)) << "type " << int(g.Type());
    CuMatrix<BaseFloat> t(g.NumCols(), g.NumRows(), kUndefined);
    t.CopyFromGeneralMat(g, kTrans);
    Matrix<BaseFloat> expected_t(expected, kTrans);
    EXPECT_TRUE(ToHost(t).Equal(expected_t)) << "type " << int(g.Type());
  }
}

TEST(CuSparseMatrix, TraceAndCopiesAgreeWithDense) {
  std::vector<std::vector<std::pair<int32, BaseFloat> > > rows = {
      {{1, 0.5f}, {2, 0.25f}}, {{0, 1.0f}}, {}};
  SparseMatrix<BaseFloat> host_sparse(4, rows);
  CuSparseMatrix<BaseFloat> s(host_sparse);
  EXPECT_EQ(s.NumRows(), 3);
  EXPECT_EQ(s.NumCols(), 4);
  EXPECT_FLOAT_EQ(s.Sum(), 1.75);
  Matrix<BaseFloat> dense(3, 4);
  host_sparse.CopyToMat(&dense);
  CuMatrix<BaseFloat> cu_dense(3, 4);
  s.CopyToMat(&cu_dense);
  EXPECT_TRUE(ToHost(cu_dense).Equal(dense));
  Matrix<BaseFloat> a = RandomHost(3, 4, 7);
  double naive = 0.0;
  for (int32 r = 0; r < 3; r++)
    for (int32 c = 0; c < 4; c++) naive += double(a(r, c)) * dense(r, c);
  EXPECT_NEAR(TraceMatSmat(CuMatrix<BaseFloat>(a), s, kTrans), naive, 1e-5);
  CuMatrix<BaseFloat> acc(a);
  acc.AddSmat(2.0, s);
  Matrix<BaseFloat> expected(a);
  expected.AddMat(2.0, dense);
  EXPECT_TRUE(ToHost(acc).ApproxEqual(expected, 1e-6));
}

TEST(CuVector, CrossingsAndViews) {
  Vector<BaseFloat> host(6);
  RandomSource rs(8);
  host.SetRandn(&rs);
  CuVector<BaseFloat> cu(host);
  EXPECT_TRUE(ToHost(cu).ApproxEqual(host, 0.0));
  cu.Range(2, 3).Set(4.0);
  Vector<BaseFloat> got = ToHost(cu);
  for (int32 i = 0; i < 6; i++)
    EXPECT_EQ(got(i), (i >= 2 && i < 5) ? 4.0f : host(i));
  Vector<BaseFloat> other(2);
  other.Set(9.0);
  const BaseFloat *other_data = other.Data();
  cu.Swap(&other);
  EXPECT_EQ(cu.Data(), other_data);
  EXPECT_EQ(cu.Dim(), 2);
  EXPECT_EQ(other.Dim(), 6);
  CuMatrix<BaseFloat> m(RandomHost(3, 6, 9));
  CuSubVector<BaseFloat> row(m, 1);
  EXPECT_EQ(row.Data(), m.Data() + m.Stride());
}

TEST(CuArray, HoldsWhatItWasGiven) {
  std::vector<int32> v = {3, -1, 0, 7};
  CuArray<int32> a(v);
  EXPECT_EQ(a.Dim(), 4);
  std::vector<int32> back;
  a.CopyToVec(&back);
  EXPECT_EQ(back, v);
  CuArray<int32> empty;
  EXPECT_EQ(empty.Dim(), 0);
  EXPECT_EQ(empty.Data(), nullptr);
  a.Swap(&empty);
  EXPECT_EQ(a.Dim(), 0);
  EXPECT_EQ(empty.Dim(), 4);
}

// Compression and decompression run in row blocks on the row threads: the
// same bytes and values as one thread, and (uint8, range 4) each value the
// nearest multiple of 4/255 clamped to [0, 4].
TEST(CuCompressedMatrix, RowThreadsGiveTheSameValues) {
  const Matrix<BaseFloat> host = RandomHost(700, 300, 9);
  const CuMatrix<BaseFloat> src(host);
  for (int32 type = 1; type <= 4; type++) {
    for (BaseFloat range : {0.0f, 4.0f}) {
      CuMatrix<BaseFloat> one(700, 300), many(700, 300);
      SetRowThreads(1);
      CuCompressedMatrix(type, src, range, true).CopyToMat(&one);
      SetRowThreads(3);
      CuCompressedMatrix(type, src, range, true).CopyToMat(&many);
      SetRowThreads(0);
      EXPECT_TRUE(ToHost(one).Equal(ToHost(many)))
          << "type " << type << " range " << range;
      if (type == 2 && range == 4.0f) {
        const Matrix<BaseFloat> got = ToHost(many);
        const double step = 4.0 / 255;
        for (int32 r = 0; r < 700; r++)
          for (int32 c = 0; c < 300; c++) {
            const double want =
                std::min(255.0, std::max(0.0, std::nearbyint(host(r, c) / step))) *
                step;
            ASSERT_NEAR(got(r, c), want, 1e-5) << r << "," << c;
          }
      }
    }
  }
}

// CuCopyCache: one copy per place, made once from the source, none shared
// by a copied owner, remade after Clear().
TEST(CuCopyCache, MakesOneCopyAndKeepsIt) {
  std::vector<int32> src = {3, 1, 4, 1, 5};
  CuCopyCache<CuArray<int32> > cache;
  const CuArray<int32> &first = cache.Get(src, false);
  EXPECT_EQ(first.Dim(), 5);
  EXPECT_FALSE(first.OnDevice());
  std::vector<int32> changed = {9};
  EXPECT_EQ(&cache.Get(changed, false), &first);  // kept, not remade
  EXPECT_EQ(cache.Get(changed, false).Dim(), 5);
  CuCopyCache<CuArray<int32> > copy(cache);
  EXPECT_EQ(copy.Get(changed, false).Dim(), 1);
  cache.Clear();
  EXPECT_EQ(cache.Get(changed, false).Dim(), 1);
}

}  // namespace
}  // namespace nnet3
