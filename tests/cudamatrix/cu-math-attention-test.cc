// Tests of the CPU implementations in cudamatrix/cu-math-attention.h
// against naive double-precision sums written here from the definitions:
//   - ShiftedRowDots, AddWeightedShiftedRows and ScatterWeightedRows on
//     views with odd strides, for shifts 1 and 3 and a single row;
//   - ScatterWeightedRows as the adjoint of AddWeightedShiftedRows
//     (<Scatter(A), X> == <A, AddWeighted(X)>);
//   - AccumulateAttentionStats with zero weights (0 log 0 taken as 0 via the
//     1e-20 floor), added to statistics that were not zero;
//   - a taller matrix too short for the shift is refused.
#include "cudamatrix/cu-math-attention.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/log.h"
#include "base/random.h"

namespace nnet3 {
namespace {

template <typename Real>
CuMatrix<Real> RandomMat(int32 rows, int32 cols, RandomSource *rs) {
  Matrix<Real> h(rows, cols);
  h.SetRandn(rs);
  return CuMatrix<Real>(h);
}

// A view with a stride wider than its columns.
template <typename Real>
CuSubMatrix<Real> Padded(CuMatrix<Real> *store, int32 rows, int32 cols) {
  return CuSubMatrix<Real>(*store, 1, rows, 2, cols);
}

template <typename Real>
double Tol() {
  return sizeof(Real) == 4 ? 2e-5 : 1e-12;
}

template <typename Real>
class CuMathAttentionTest : public ::testing::Test {};
typedef ::testing::Types<float, double> RealTypes;
TYPED_TEST_SUITE(CuMathAttentionTest, RealTypes);

TYPED_TEST(CuMathAttentionTest, RowProductsMatchNaiveSums) {
  typedef TypeParam R;
  struct Case {
    int32 n_out, dim, n_pos, shift;
  };
  for (const Case &t : {Case{7, 5, 4, 1}, Case{6, 9, 3, 3}, Case{1, 4, 2, 2}}) {
    SCOPED_TRACE(testing::Message() << t.n_out << " rows, shift " << t.shift);
    RandomSource rs(11 + t.shift);
    const int32 n_in = t.n_out + (t.n_pos - 1) * t.shift;
    CuMatrix<R> sa = RandomMat<R>(t.n_out + 2, t.dim + 3, &rs),
                sb = RandomMat<R>(n_in + 2, t.dim + 3, &rs),
                sw = RandomMat<R>(t.n_out + 2, t.n_pos + 3, &rs);
    CuSubMatrix<R> A = Padded(&sa, t.n_out, t.dim), B = Padded(&sb, n_in, t.dim),
                   W = Padded(&sw, t.n_out, t.n_pos);
    const Matrix<R> a = A.Download(), b = B.Download(), w = W.Download();
    const R alpha = 0.75;

    cu::ShiftedRowDots(alpha, A, B, t.shift, &W);
    Matrix<R> got = W.Download();
    for (int32 i = 0; i < t.n_out; i++)
      for (int32 p = 0; p < t.n_pos; p++) {
        double ref = 0.0;
        for (int32 k = 0; k < t.dim; k++)
          ref += double(a(i, k)) * b(i + p * t.shift, k);
        EXPECT_NEAR(got(i, p), alpha * ref, Tol<R>() * 10) << i << "," << p;
      }

    W.CopyFromMat(w);
    cu::AddWeightedShiftedRows(alpha, B, W, t.shift, &A);
    got = A.Download();
    for (int32 i = 0; i < t.n_out; i++)
      for (int32 k = 0; k < t.dim; k++) {
        double ref = a(i, k);
        for (int32 p = 0; p < t.n_pos; p++)
          ref += alpha * double(w(i, p)) * b(i + p * t.shift, k);
        EXPECT_NEAR(got(i, k), ref, Tol<R>() * 10) << i << "," << k;
      }

    A.CopyFromMat(a);
    const Matrix<R> store_before = sb.Download();
    cu::ScatterWeightedRows(alpha, A, W, t.shift, &B);
    got = B.Download();
    Matrix<double> ref(n_in, t.dim);
    for (int32 r = 0; r < n_in; r++)
      for (int32 k = 0; k < t.dim; k++) ref(r, k) = b(r, k);
    for (int32 i = 0; i < t.n_out; i++)
      for (int32 p = 0; p < t.n_pos; p++)
        for (int32 k = 0; k < t.dim; k++)
          ref(i + p * t.shift, k) += alpha * double(w(i, p)) * a(i, k);
    for (int32 r = 0; r < n_in; r++)
      for (int32 k = 0; k < t.dim; k++)
        EXPECT_NEAR(got(r, k), ref(r, k), Tol<R>() * 10) << r << "," << k;
    // Nothing of B's store outside the view was written.
    const Matrix<R> store_after = sb.Download();
    for (int32 r = 0; r < store_after.NumRows(); r++)
      for (int32 c = 0; c < store_after.NumCols(); c++)
        if (r < 1 || r > n_in || c < 2 || c >= 2 + t.dim) {
          EXPECT_EQ(store_after(r, c), store_before(r, c)) << r << "," << c;
        }
  }
}

TYPED_TEST(CuMathAttentionTest, ScatterIsTheAdjointOfTheWeightedSum) {
  typedef TypeParam R;
  RandomSource rs(5);
  const int32 n_out = 8, dim = 6, n_pos = 3, shift = 2,
              n_in = n_out + (n_pos - 1) * shift;
  CuMatrix<R> A = RandomMat<R>(n_out, dim, &rs), X = RandomMat<R>(n_in, dim, &rs),
              W = RandomMat<R>(n_out, n_pos, &rs);
  CuMatrix<R> scattered(n_in, dim), summed(n_out, dim);
  cu::ScatterWeightedRows(R(1), A, W, shift, &scattered);
  cu::AddWeightedShiftedRows(R(1), X, W, shift, &summed);
  double lhs = TraceMatMat(scattered, X, kTrans),
         rhs = TraceMatMat(A, summed, kTrans);
  EXPECT_NEAR(lhs, rhs, 1e-4 * std::max(1.0, std::fabs(rhs)));
}

TYPED_TEST(CuMathAttentionTest, StatisticsMatchNaiveSums) {
  typedef TypeParam R;
  RandomSource rs(9);
  const int32 rows = 13, heads = 3, context = 4;
  Matrix<R> w(rows, heads * context);
  w.SetRandn(&rs);
  w.ApplyAbs();
  for (int32 r = 0; r < rows; r += 3) w(r, r % (heads * context)) = 0.0;
  CuMatrix<double> posterior(heads, context);
  CuVector<double> entropy(heads);
  posterior.Set(0.5);
  entropy.Set(-1.0);
  cu::AccumulateAttentionStats(CuMatrix<R>(w), heads, &posterior, &entropy);
  Matrix<double> p = posterior.Download();
  Vector<double> e = entropy.Download();
  for (int32 h = 0; h < heads; h++) {
    double ent = -1.0;
    for (int32 c = 0; c < context; c++) {
      double sum = 0.5;
      for (int32 r = 0; r < rows; r++) {
        double x = w(r, h * context + c);
        sum += x;
        if (x > 0) ent -= x * std::log(x);
      }
      EXPECT_NEAR(p(h, c), sum, Tol<R>() * 10) << h << "," << c;
    }
    EXPECT_NEAR(e(h), ent, Tol<R>() * 20) << h;
  }
}

TEST(CuMathAttention, ATallMatrixTooShortForTheShiftIsRefused) {
  CuMatrix<float> A(4, 3), B(6, 3), W(4, 3);
  // Positions 0..2 with shift 2 reach row 3 + 4 = 7 of B.
  EXPECT_THROW(cu::ShiftedRowDots(1.0f, A, B, 2, &W), InternalError);
  EXPECT_THROW(cu::AddWeightedShiftedRows(1.0f, B, W, 2, &A), InternalError);
  EXPECT_THROW(cu::ScatterWeightedRows(1.0f, A, W, 2, &B), InternalError);
}

}  // namespace
}  // namespace nnet3
