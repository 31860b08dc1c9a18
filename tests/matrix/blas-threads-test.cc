// tests/matrix/blas-threads-test.cc
// GEMMs split over the row threads (matrix/blas-threads.h): with BLAS on
// one thread and several row threads, AddMatMat must be split (the count
// moves), give the same bits as the unsplit single-thread call (the oracle
// for the block offsets) and agree with a naive double-precision product,
// for every transpose combination, row and column splits, block counts that
// do not divide the side, strided views and beta != 0, and must not write
// outside C. Small products, one row thread and multi-threaded BLAS are
// left alone.
#include <cmath>
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "matrix/blas-threads.h"
#include "matrix/matrix.h"
#include "matrix/row-threads.h"

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);

namespace nnet3 {
namespace {

// Puts BLAS on one thread and the row threads back to "follow BLAS" when a
// test ends.
struct ThreadsGuard {
  int blas = openblas_get_num_threads();
  ThreadsGuard() { openblas_set_num_threads(1); }
  ~ThreadsGuard() {
    SetRowThreads(0);
    openblas_set_num_threads(blas);
  }
};

struct Shape {
  MatrixIndexT m, n, k;
};

// A view of 'rows' x 'cols' inside a larger random matrix (odd offsets, so
// the stride is not the width and the data is not aligned).
struct PaddedMatrix {
  Matrix<float> whole;
  SubMatrix<float> view;
  PaddedMatrix(MatrixIndexT rows, MatrixIndexT cols)
      : whole(rows + 3, cols + 5), view(whole.Range(1, rows, 3, cols)) {
    whole.SetRandn();
  }
};

// C = alpha op(A) op(B) + beta C in double, from the inputs as stored.
Matrix<double> NaiveProduct(double alpha, const MatrixBase<float> &a,
                            MatrixTransposeType ta, const MatrixBase<float> &b,
                            MatrixTransposeType tb, double beta,
                            const MatrixBase<float> &c) {
  const MatrixIndexT m = c.NumRows(), n = c.NumCols(),
                     k = ta == kNoTrans ? a.NumCols() : a.NumRows();
  Matrix<double> out(m, n);
  for (MatrixIndexT i = 0; i < m; i++)
    for (MatrixIndexT j = 0; j < n; j++) {
      double sum = 0;
      for (MatrixIndexT l = 0; l < k; l++)
        sum += static_cast<double>(ta == kNoTrans ? a(i, l) : a(l, i)) *
               (tb == kNoTrans ? b(l, j) : b(j, l));
      out(i, j) = alpha * sum + beta * c(i, j);
    }
  return out;
}

TEST(BlasThreads, SplitProductsMatchOneCallAndNaive) {
  ThreadsGuard guard;
  const std::vector<Shape> shapes = {
      {1000, 70, 100},  // rows split, 16 blocks of 64 rows in 2 parts
      {130, 129, 300},  // rows split, 3 units: parts of 64 and 66 rows
      {65, 700, 200},   // columns split (C wider than tall)
      {2000, 100, 64},  // rows split in 3 parts with 3 threads
  };
  for (int32_t threads : {2, 3}) {
    for (const Shape &s : shapes) {
      for (MatrixTransposeType ta : {kNoTrans, kTrans}) {
        for (MatrixTransposeType tb : {kNoTrans, kTrans}) {
          PaddedMatrix a(ta == kNoTrans ? s.m : s.k, ta == kNoTrans ? s.k : s.m),
              b(tb == kNoTrans ? s.k : s.n, tb == kNoTrans ? s.n : s.k),
              split(s.m, s.n);
          Matrix<float> c_start(split.view);
          const Matrix<float> whole_before(split.whole);
          const Matrix<double> naive =
              NaiveProduct(0.7, a.view, ta, b.view, tb, 0.5, c_start);

          Matrix<float> one(c_start);
          SetRowThreads(1);
          const int64_t before_one = blas::SplitGemmCount();
          one.AddMatMat(0.7f, a.view, ta, b.view, tb, 0.5f);
          ASSERT_EQ(blas::SplitGemmCount(), before_one) << "one thread split";

          SetRowThreads(threads);
          const int64_t before = blas::SplitGemmCount();
          split.view.AddMatMat(0.7f, a.view, ta, b.view, tb, 0.5f);
          ASSERT_EQ(blas::SplitGemmCount(), before + 1)
              << s.m << "x" << s.n << "x" << s.k << " was not split";

          const std::string where = std::to_string(s.m) + "x" +
                                    std::to_string(s.n) + "x" +
                                    std::to_string(s.k) + " ta=" +
                                    std::to_string(ta) + " tb=" +
                                    std::to_string(tb) + " threads=" +
                                    std::to_string(threads);
          for (MatrixIndexT i = 0; i < s.m; i++) {
            ASSERT_EQ(0, std::memcmp(split.view.RowData(i), one.RowData(i),
                                     sizeof(float) * s.n))
                << where << ": row " << i << " differs from one BLAS call";
            for (MatrixIndexT j = 0; j < s.n; j++)
              ASSERT_NEAR(split.view(i, j), naive(i, j),
                          1e-4 * (1 + std::fabs(naive(i, j))))
                  << where << " at " << i << "," << j;
          }
          // Nothing outside the view of C was written.
          for (MatrixIndexT i = 0; i < split.whole.NumRows(); i++)
            for (MatrixIndexT j = 0; j < split.whole.NumCols(); j++) {
              const bool inside = i >= 1 && i < 1 + s.m && j >= 3 && j < 3 + s.n;
              if (!inside) {
                ASSERT_EQ(split.whole(i, j), whole_before(i, j))
                    << where << ": wrote outside C at " << i << "," << j;
              }
            }
        }
      }
    }
  }
}

TEST(BlasThreads, DoublePrecisionSplits) {
  ThreadsGuard guard;
  Matrix<double> a(600, 90), b(90, 120), one(600, 120), split(600, 120);
  a.SetRandn();
  b.SetRandn();
  SetRowThreads(1);
  one.AddMatMat(1.0, a, kNoTrans, b, kNoTrans, 0.0);
  SetRowThreads(2);
  const int64_t before = blas::SplitGemmCount();
  split.AddMatMat(1.0, a, kNoTrans, b, kNoTrans, 0.0);
  ASSERT_EQ(blas::SplitGemmCount(), before + 1);
  for (MatrixIndexT i = 0; i < 600; i++)
    ASSERT_EQ(0, std::memcmp(split.RowData(i), one.RowData(i),
                             sizeof(double) * 120)) << "row " << i;
}

TEST(BlasThreads, WhatIsNotSplit) {
  ThreadsGuard guard;
  Matrix<float> a(100, 100), b(100, 100), c(100, 100);
  a.SetRandn();
  b.SetRandn();
  SetRowThreads(2);
  int64_t before = blas::SplitGemmCount();
  c.AddMatMat(1.0f, a, kNoTrans, b, kNoTrans, 0.0f);  // 10^6 < the minimum
  EXPECT_EQ(blas::SplitGemmCount(), before);

  // One row of C: nothing to split along rows, and 64 columns are one block.
  Matrix<float> x(1, 5000), w(64, 5000), y(1, 64);
  x.SetRandn();
  w.SetRandn();
  before = blas::SplitGemmCount();
  y.AddMatMat(1.0f, x, kNoTrans, w, kTrans, 0.0f);
  EXPECT_EQ(blas::SplitGemmCount(), before);

  // BLAS on two threads does its own splitting.
  Matrix<float> big_a(512, 512), big_b(512, 512), big_c(512, 512);
  big_a.SetRandn();
  big_b.SetRandn();
  openblas_set_num_threads(2);
  before = blas::SplitGemmCount();
  big_c.AddMatMat(1.0f, big_a, kNoTrans, big_b, kNoTrans, 0.0f);
  EXPECT_EQ(blas::SplitGemmCount(), before);
}

}  // namespace
}  // namespace nnet3
