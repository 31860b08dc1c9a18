// Tests of cudamatrix/cu-math-low-rank.h against a naive oracle: the
// rank-R update X - H W and the sum of squares of the result computed
// element by element in double (and SumOfSquares of column blocks). Shapes cover every remainder of the
// kernel's blocks (rows not a multiple of 8, columns not a multiple of 16
// or 32, R of 1), views with strides larger than their widths, and a matrix
// large enough for the row threads, which must give the same bits with one
// thread and with two.
#include "cudamatrix/cu-math-low-rank.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "base/random.h"
#include "matrix/row-threads.h"

namespace nnet3 {
namespace {

// Gaussian values (times 'scale') in a matrix one row and five columns
// larger than the operand; Inner() is the operand, so its stride exceeds
// its width and writes outside it can be seen.
template <typename Real>
CuMatrix<Real> Padded(int32 rows, int32 cols, uint64 seed, Real scale = 1) {
  RandomSource rs(seed);
  Matrix<Real> h(rows + 1, cols + 5);
  h.SetRandn(&rs);
  h.Scale(scale);
  CuMatrix<Real> m(h.NumRows(), h.NumCols(), kUndefined);
  m.CopyFromMat(h);
  return m;
}

template <typename Real>
CuSubMatrix<Real> Inner(const CuMatrix<Real> &padded) {
  return CuSubMatrix<Real>(padded, 1, padded.NumRows() - 1, 2,
                           padded.NumCols() - 5);
}

// Checks SubtractProjection on N x D with rank R against the double oracle.
template <typename Real>
void CheckShape(int32 N, int32 D, int32 R, uint64 seed) {
  SCOPED_TRACE(testing::Message() << "N=" << N << " D=" << D << " R=" << R);
  CuMatrix<Real> x_store = Padded<Real>(N, D, seed),
                 h_store = Padded<Real>(N, R, seed + 1),
                 w_store = Padded<Real>(R, D, seed + 2, 0.3);
  CuSubMatrix<Real> x = Inner(x_store), h = Inner(h_store), w = Inner(w_store);
  Matrix<double> expected(N, D);
  double expected_trace = 0;
  for (int32 i = 0; i < N; i++)
    for (int32 d = 0; d < D; d++) {
      double v = x.GetElement(i, d);
      for (int32 r = 0; r < R; r++)
        v -= static_cast<double>(h.GetElement(i, r)) * w.GetElement(r, d);
      expected(i, d) = v;
      expected_trace += v * v;
    }
  // The columns around the view must not be written.
  Matrix<Real> before(x_store.NumRows(), x_store.NumCols());
  x_store.CopyToMat(&before);
  Real trace = cu::SubtractProjection(h, w, &x);
  const double tol = std::is_same<Real, float>::value ? 2e-5 : 1e-12;
  for (int32 i = 0; i < N; i++)
    for (int32 d = 0; d < D; d++) {
      double scale = 1.0 + std::sqrt(static_cast<double>(R));
      ASSERT_NEAR(x.GetElement(i, d), expected(i, d), tol * scale)
          << "element (" << i << "," << d << ")";
    }
  for (int32 r = 0; r < x_store.NumRows(); r++)
    for (int32 c = 0; c < x_store.NumCols(); c++) {
      bool inside = r >= 1 && r < 1 + N && c >= 2 && c < 2 + D;
      if (!inside) {
        ASSERT_EQ(x_store.GetElement(r, c), before(r, c))
            << "outside element (" << r << "," << c << ") was written";
      }
    }
  EXPECT_NEAR(trace, expected_trace, tol * (1.0 + expected_trace));
}

TEST(SubtractProjection, MatchesTheNaiveProductAndTraceOnEveryRemainder) {
  uint64 seed = 10;
  for (int32 N : {1, 3, 7, 8, 9, 17})
    for (int32 D : {1, 5, 16, 17, 31, 32, 33, 48, 63, 65, 100})
      for (int32 R : {1, 2, 5, 20}) CheckShape<float>(N, D, R, seed++);
}

TEST(SubtractProjection, DoublePrecisionMatchesTheNaiveProduct) {
  uint64 seed = 500;
  for (int32 N : {1, 9})
    for (int32 D : {7, 33})
      for (int32 R : {1, 4}) CheckShape<double>(N, D, R, seed++);
}

TEST(SubtractProjection, NoRowsGiveAZeroTrace) {
  CuMatrix<float> x(0, 10), h(0, 3), w(3, 10);
  EXPECT_EQ(cu::SubtractProjection(h, w, &x), 0.0f);
}

TEST(SubtractProjection, OneAndTwoRowThreadsGiveTheSameBits) {
  // Large enough for ForRowBlocks to split the rows.
  const int32 N = 203, D = 1025, R = 20;
  CuMatrix<float> x1_store = Padded<float>(N, D, 7),
                  x2_store = Padded<float>(N, D, 7),
                  h_store = Padded<float>(N, R, 8),
                  w_store = Padded<float>(R, D, 9, 0.3);
  CuSubMatrix<float> x1 = Inner(x1_store), x2 = Inner(x2_store),
                     h = Inner(h_store), w = Inner(w_store);
  SetRowThreads(1);
  float t1 = cu::SubtractProjection(h, w, &x1);
  SetRowThreads(2);
  float t2 = cu::SubtractProjection(h, w, &x2);
  SetRowThreads(0);
  EXPECT_EQ(std::memcmp(&t1, &t2, sizeof(float)), 0) << t1 << " vs " << t2;
  for (int32 i = 0; i < N; i++)
    for (int32 d = 0; d < D; d++) {
      float a = x1.GetElement(i, d), b = x2.GetElement(i, d);
      ASSERT_EQ(std::memcmp(&a, &b, sizeof(float)), 0)
          << "element (" << i << "," << d << ")";
    }
  // And the threaded result is the product (spot check of a few rows).
  CheckShape<float>(N, D, R, 7);
}

// SumOfSquares on the CPU: the sum of the blocks' TraceMatMat, in block
// order, here against a double-precision oracle on overlapping views.
TEST(SumOfSquares, IsTheSumOverTheBlocks) {
  CuMatrix<float> m = Padded<float>(37, 21, 9);
  const CuSubMatrix<float> inner = Inner(m);  // 37 x 16, stride 21
  std::vector<CuSubMatrix<float> > blocks;
  blocks.push_back(inner.Range(0, 30, 0, 16));
  blocks.push_back(inner.Range(3, 30, 5, 7));  // overlaps the first
  blocks.push_back(inner.Range(7, 30, 15, 1));
  double expected = 0.0;
  const Matrix<float> h = inner.Download();
  const int32 offsets[3][3] = {{0, 0, 16}, {3, 5, 7}, {7, 15, 1}};
  for (const auto &o : offsets)
    for (int32 i = 0; i < 30; i++)
      for (int32 j = 0; j < o[2]; j++)
        expected += double(h(o[0] + i, o[1] + j)) * h(o[0] + i, o[1] + j);
  EXPECT_NEAR(cu::SumOfSquares(blocks), expected, 1e-5 * expected);
  EXPECT_GT(expected, 100.0);
}

// The forms that leave their result in a one-element vector give, on the
// CPU, exactly the value the returning forms give (the natural gradient
// relies on this for unchanged results), and X is changed the same way.
TEST(SumOfSquares, TheVectorFormsGiveTheReturnedValues) {
  CuMatrix<float> m = Padded<float>(37, 21, 9);
  const CuSubMatrix<float> inner = Inner(m);
  std::vector<CuSubMatrix<float> > blocks;
  blocks.push_back(inner.Range(0, 30, 0, 16));
  blocks.push_back(inner.Range(3, 30, 5, 7));
  CuVector<float> slots(3);
  CuSubVector<float> s0(slots, 0, 1), s1(slots, 1, 1), s2(slots, 2, 1);
  cu::SumOfSquares(blocks, &s0);
  cu::SumOfSquares(inner, &s1);
  CuMatrix<float> h = Padded<float>(37, 4, 3), w = Padded<float>(4, 21, 4);
  CuMatrix<float> x1(inner), x2(inner);
  const float returned = cu::SubtractProjection(Inner(h), Inner(w), &x1);
  cu::SubtractProjection(Inner(h), Inner(w), &x2, &s2);
  const Vector<float> got = slots.Download();
  EXPECT_EQ(got(0), cu::SumOfSquares(blocks));
  EXPECT_EQ(got(1), TraceMatMat(inner, inner, kTrans));
  EXPECT_EQ(got(2), returned);
  EXPECT_TRUE(x1.Equal(x2));
  EXPECT_GT(got(2), 0.0f);
  // A matrix and a vector together: TraceMatMat + VecVec.
  CuVector<float> v(13), one(1);
  v.SetRandn();
  cu::SumOfSquares(inner, v, &one);
  EXPECT_EQ(one.Download()(0), TraceMatMat(inner, inner, kTrans) + VecVec(v, v));
  // An empty vector (a TDNN layer without bias) adds nothing.
  cu::SumOfSquares(inner, CuVector<float>(), &one);
  EXPECT_EQ(one.Download()(0), TraceMatMat(inner, inner, kTrans));
}

}  // namespace
}  // namespace nnet3
