// tests/matrix/row-threads-test.cc
// The matrix library's row threads (matrix/row-threads.h): every row
// visited exactly once for any number of threads, the operations that use
// them giving the same bits with 1 and with several threads (the one-thread
// loop is the oracle), overlapping views falling back to the sequential
// order, exceptions carried to the caller, and several callers at once.
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "matrix/matrix.h"
#include "matrix/row-threads.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace {

// Restores "follow BLAS" when a test ends.
struct RowThreadsGuard {
  ~RowThreadsGuard() { SetRowThreads(0); }
};

bool SameBits(const MatrixBase<float> &a, const MatrixBase<float> &b) {
  if (a.NumRows() != b.NumRows() || a.NumCols() != b.NumCols()) return false;
  for (MatrixIndexT r = 0; r < a.NumRows(); r++)
    if (std::memcmp(a.RowData(r), b.RowData(r), sizeof(float) * a.NumCols()))
      return false;
  return true;
}

TEST(RowThreads, EveryRowExactlyOnce) {
  RowThreadsGuard guard;
  for (int32_t threads : {1, 2, 3, 7, 64}) {
    SetRowThreads(threads);
    for (MatrixIndexT rows : {1, 2, 3, 5, 63, 64, 65, 1000, 4097}) {
      for (MatrixIndexT cols : {1, 100, 1 << 16}) {
        std::vector<std::atomic<int>> seen(rows);
        for (auto &s : seen) s = 0;
        ForRowBlocks(rows, cols, [&](MatrixIndexT b, MatrixIndexT e) {
          ASSERT_LE(0, b);
          ASSERT_LT(b, e);
          ASSERT_LE(e, rows);
          for (MatrixIndexT r = b; r < e; r++) seen[r]++;
        });
        for (MatrixIndexT r = 0; r < rows; r++)
          ASSERT_EQ(seen[r].load(), 1) << threads << " threads, " << rows
                                       << " x " << cols << ", row " << r;
      }
    }
  }
  ForRowBlocks(0, 100, [](MatrixIndexT, MatrixIndexT) { FAIL(); });
}

TEST(RowThreads, SmallWorkStaysOnTheCallingThread) {
  RowThreadsGuard guard;
  SetRowThreads(4);
  const std::thread::id me = std::this_thread::get_id();
  ForRowBlocks(100, 10, [&](MatrixIndexT b, MatrixIndexT e) {
    EXPECT_EQ(std::this_thread::get_id(), me);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(e, 100);
  });
}

TEST(RowThreads, LargeWorkUsesSeveralThreads) {
  RowThreadsGuard guard;
  SetRowThreads(3);
  std::mutex m;
  std::vector<std::thread::id> ids;
  ForRowBlocks(300, 1 << 12, [&](MatrixIndexT, MatrixIndexT) {
    std::lock_guard<std::mutex> lock(m);
    ids.push_back(std::this_thread::get_id());
  });
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_NE(ids[1], ids[2]);
  EXPECT_NE(ids[0], ids[2]);
}

// Runs 'op' on a copy of 'start' with 1 and with 'threads' threads.
template <typename Op>
void ExpectSameBits(const char *name, const Matrix<float> &start,
                    int32_t threads, const Op &op) {
  RowThreadsGuard guard;
  Matrix<float> one(start), many(start);
  SetRowThreads(1);
  op(&one);
  SetRowThreads(threads);
  op(&many);
  EXPECT_TRUE(SameBits(one, many)) << name << " with " << threads
                                   << " threads";
}

TEST(RowThreads, OperationsGiveTheSameBitsForAnyThreadCount) {
  Matrix<float> start(517, 1031), other(517, 1031);
  start.SetRandn();
  other.SetRandn();
  Vector<float> col_vec(1031), row_vec(517);
  col_vec.SetRandn();
  row_vec.SetRandn();
  // Row r of the result takes source row 516 - r (row 5 of every 7: none),
  // so every block reads rows that another block writes.
  std::vector<int32> gather(517);
  for (int32 r = 0; r < 517; r++) gather[r] = r % 7 == 5 ? -1 : 516 - r;
  Vector<float> whole_vec(517 * 1031);
  whole_vec.SetRandn();
  Matrix<float> dense(300, 1024, kUndefined, kStrideEqualNumCols);
  dense.SetRandn();
  for (int32_t threads : {2, 3, 5}) {
    ExpectSameBits("Add", start, threads, [](Matrix<float> *m) { m->Add(0.3f); });
    ExpectSameBits("Scale", start, threads, [](Matrix<float> *m) { m->Scale(-1.7f); });
    ExpectSameBits("MulColsVec", start, threads,
                   [&](Matrix<float> *m) { m->MulColsVec(col_vec); });
    ExpectSameBits("AddVecToRows", start, threads,
                   [&](Matrix<float> *m) { m->AddVecToRows(0.5f, col_vec, 1.0f); });
    ExpectSameBits("AddVecToRows beta=0", start, threads,
                   [&](Matrix<float> *m) { m->AddVecToRows(0.5f, col_vec, 0.0f); });
    ExpectSameBits("ApplyFloor", start, threads,
                   [](Matrix<float> *m) { m->ApplyFloor(0.0f); });
    ExpectSameBits("ApplyExp", start, threads, [](Matrix<float> *m) { m->ApplyExp(); });
    ExpectSameBits("ApplyHeaviside", start, threads,
                   [](Matrix<float> *m) { m->ApplyHeaviside(); });
    ExpectSameBits("CopyFromMat", start, threads,
                   [&](Matrix<float> *m) { m->CopyFromMat(other); });
    ExpectSameBits("SetZero", start, threads, [](Matrix<float> *m) { m->SetZero(); });
    ExpectSameBits("Set", start, threads, [](Matrix<float> *m) { m->Set(-2.5f); });
    ExpectSameBits("CopyRows", start, threads,
                   [&](Matrix<float> *m) { m->CopyRows(other, gather); });
    ExpectSameBits("AddRows", start, threads,
                   [&](Matrix<float> *m) { m->AddRows(0.5f, other, gather); });
    // A gather from the matrix itself: blocks would read rows that other
    // blocks are writing, so it must keep the sequential order.
    ExpectSameBits("CopyRows from itself", start, threads,
                   [&](Matrix<float> *m) { m->CopyRows(*m, gather); });
    ExpectSameBits("AddRows from itself", start, threads,
                   [&](Matrix<float> *m) { m->AddRows(1.0f, *m, gather); });
    ExpectSameBits("CopyRowsFromVec", start, threads,
                   [&](Matrix<float> *m) { m->CopyRowsFromVec(col_vec); });
    ExpectSameBits("CopyRowsFromVec whole", start, threads,
                   [&](Matrix<float> *m) { m->CopyRowsFromVec(whole_vec); });
    // The vector is one of the matrix's own rows: every row becomes it.
    ExpectSameBits("CopyRowsFromVec of its own row", start, threads,
                   [&](Matrix<float> *m) {
                     const Vector<float> row(m->Row(300));
                     m->CopyRowsFromVec(m->Row(300));
                     for (MatrixIndexT r = 0; r < m->NumRows(); r++)
                       ASSERT_EQ(0, std::memcmp(m->RowData(r), row.Data(),
                                                sizeof(float) * m->NumCols()));
                   });
    // TraceMatMat's sum (both forms) written into the matrix.
    ExpectSameBits("TraceMatMat", start, threads, [&](Matrix<float> *m) {
      const float t = TraceMatMat(*m, other, kTrans);
      Matrix<float> square(517, 517);
      square.CopyFromMat(other.ColRange(0, 517));
      const float u = TraceMatMat(m->ColRange(0, 517), square, kNoTrans);
      (*m)(0, 0) = t;
      (*m)(0, 1) = u;
    });
    ExpectSameBits("SetZero, stride == columns", dense, threads,
                   [](Matrix<float> *m) { m->SetZero(); });
    ExpectSameBits("AddMat", start, threads,
                   [&](Matrix<float> *m) { m->AddMat(0.25f, other); });
    ExpectSameBits("AddMat self", start, threads,
                   [&](Matrix<float> *m) { m->AddMat(0.25f, *m); });
    ExpectSameBits("MulElements", start, threads,
                   [&](Matrix<float> *m) { m->MulElements(other); });
    ExpectSameBits("LogSoftMaxPerRow", start, threads,
                   [&](Matrix<float> *m) { m->LogSoftMaxPerRow(other); });
    ExpectSameBits("LogSoftMaxPerRow in place", start, threads,
                   [&](Matrix<float> *m) { m->LogSoftMaxPerRow(*m); });
    // Column reductions, cut into blocks of columns: the results go to
    // row 0 (beta 0 and 1), and once into a row of the matrix summed.
    ExpectSameBits("AddRowSumMat", start, threads, [&](Matrix<float> *m) {
      SubVector<float> row0(*m, 0);
      row0.AddRowSumMat(0.7f, other, 0.0f);
      SubVector<float> row1(*m, 1);
      row1.AddRowSumMat(-0.3f, other, 1.0f);
    });
    ExpectSameBits("AddRowSumMat into a row of itself", start, threads,
                   [&](Matrix<float> *m) {
                     SubVector<float> row(*m, 7);
                     row.AddRowSumMat(1.0f, *m, 1.0f);
                   });
    ExpectSameBits("AddDiagMat2 kTrans", start, threads,
                   [&](Matrix<float> *m) {
                     SubVector<float> row0(*m, 0);
                     row0.AddDiagMat2(0.5f, other, kTrans, 0.25f);
                   });
  }
}

TEST(RowThreads, OverlappingViewsKeepTheSequentialOrder) {
  // A copy from the same storage shifted by one row: the rows depend on
  // each other, so only the sequential loop gives the defined result.
  Matrix<float> start(600, 300);
  start.SetRandn();
  auto shifted_copy = [](Matrix<float> *m) {
    SubMatrix<float> dst(*m, 1, m->NumRows() - 1, 0, m->NumCols());
    SubMatrix<float> src(*m, 0, m->NumRows() - 1, 0, m->NumCols());
    dst.CopyFromMat(src);
  };
  ExpectSameBits("shifted CopyFromMat", start, 4, shifted_copy);
  auto shifted_add = [](Matrix<float> *m) {
    SubMatrix<float> dst(*m, 1, m->NumRows() - 1, 0, m->NumCols());
    SubMatrix<float> src(*m, 0, m->NumRows() - 1, 0, m->NumCols());
    dst.AddMat(1.0f, src);
  };
  ExpectSameBits("shifted AddMat", start, 4, shifted_add);
  // The sequential result itself: every row became the first one (copied
  // down one row at a time).
  Matrix<float> m(start);
  SetRowThreads(4);
  shifted_copy(&m);
  SetRowThreads(0);
  for (MatrixIndexT r = 1; r < m.NumRows(); r++)
    ASSERT_EQ(0, std::memcmp(m.RowData(r), start.RowData(0),
                             sizeof(float) * m.NumCols()));
}

TEST(RowThreads, AnExceptionReachesTheCallerAndThePoolStaysUsable) {
  RowThreadsGuard guard;
  SetRowThreads(4);
  EXPECT_THROW(ForRowBlocks(400, 1 << 10,
                            [](MatrixIndexT b, MatrixIndexT) {
                              if (b > 0) throw std::runtime_error("block");
                            }),
               std::runtime_error);
  std::atomic<int64_t> rows(0);
  ForRowBlocks(400, 1 << 10,
               [&](MatrixIndexT b, MatrixIndexT e) { rows += e - b; });
  EXPECT_EQ(rows.load(), 400);
}

TEST(RowThreads, SeveralCallersAtOnce) {
  RowThreadsGuard guard;
  SetRowThreads(3);
  Matrix<float> start(300, 700);
  start.SetRandn();
  Matrix<float> want(start);
  for (int i = 0; i < 20; i++) {
    want.ApplyExp();
    want.ApplyFloor(0.5f);
    want.Scale(0.5f);
  }
  std::vector<Matrix<float>> results(4, start);
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; t++)
    callers.emplace_back([&, t]() {
      for (int i = 0; i < 20; i++) {
        results[t].ApplyExp();
        results[t].ApplyFloor(0.5f);
        results[t].Scale(0.5f);
      }
    });
  for (std::thread &c : callers) c.join();
  for (int t = 0; t < 4; t++)
    EXPECT_TRUE(SameBits(results[t], want)) << "caller " << t;
}

}  // namespace
}  // namespace nnet3
