// Tests of the CPU implementations in cudamatrix/cu-math-convolution.h
// against naive loops written here from the definitions:
//   - AddTiledBlockSums and AddTiled on views with odd strides, for tiles
//     that divide the matrix and tiles that do not, and a 1 x 1 tile;
//   - the two as adjoints (<sums(M), T> == <M, tiled(T)>);
//   - SelectWhereEqual with ties, and refusing operands of other sizes.
#include "cudamatrix/cu-math-convolution.h"

#include <gtest/gtest.h>

#include "base/log.h"
#include "base/random.h"

namespace nnet3 {
namespace {

template <typename Real>
class CuMathConvolutionTest : public ::testing::Test {};
typedef ::testing::Types<float, double> RealTypes;
TYPED_TEST_SUITE(CuMathConvolutionTest, RealTypes);

TYPED_TEST(CuMathConvolutionTest, TiledSumsAndAdditionMatchNaiveLoops) {
  typedef TypeParam R;
  const double tol = sizeof(R) == 4 ? 1e-4 : 1e-12;
  struct Case {
    int32 rows, cols, tile_rows, tile_cols;
  };
  for (const Case &t : {Case{12, 15, 3, 5}, Case{11, 14, 4, 3}, Case{5, 7, 1, 1},
                        Case{2, 3, 2, 3}}) {
    SCOPED_TRACE(testing::Message() << t.rows << "x" << t.cols << " onto "
                                    << t.tile_rows << "x" << t.tile_cols);
    RandomSource rs(t.rows * 31 + t.cols);
    // Views with strides wider than their columns.
    Matrix<R> store_h(t.rows + 2, t.cols + 3),
        tile_store_h(t.tile_rows + 1, t.tile_cols + 2);
    store_h.SetRandn(&rs);
    tile_store_h.SetRandn(&rs);
    CuMatrix<R> store(store_h), tile_store(tile_store_h);
    CuSubMatrix<R> m(store, 1, t.rows, 2, t.cols),
        tile(tile_store, 1, t.tile_rows, 1, t.tile_cols);
    const Matrix<R> m0 = m.Download(), tile0 = tile.Download();

    cu::AddTiledBlockSums(m, &tile);
    Matrix<R> got = tile.Download();
    for (int32 i = 0; i < t.tile_rows; i++)
      for (int32 f = 0; f < t.tile_cols; f++) {
        double ref = tile0(i, f);
        for (int32 r = i; r < t.rows; r += t.tile_rows)
          for (int32 c = f; c < t.cols; c += t.tile_cols) ref += m0(r, c);
        EXPECT_NEAR(got(i, f), ref, tol * 10) << i << "," << f;
      }

    tile.CopyFromMat(tile0);
    cu::AddTiled(tile, &m);
    got = m.Download();
    for (int32 r = 0; r < t.rows; r++)
      for (int32 c = 0; c < t.cols; c++)
        EXPECT_NEAR(got(r, c), m0(r, c) + double(tile0(r % t.tile_rows,
                                                       c % t.tile_cols)),
                    tol)
            << r << "," << c;

    // Adjoints: <sums(M), T> == <M, tiled(T)>.
    CuMatrix<R> sums(t.tile_rows, t.tile_cols), tiled(t.rows, t.cols);
    CuMatrix<R> M(m0), T(tile0);
    cu::AddTiledBlockSums(M, &sums);
    cu::AddTiled(T, &tiled);
    double lhs = TraceMatMat(sums, T, kTrans), rhs = TraceMatMat(M, tiled, kTrans);
    EXPECT_NEAR(lhs, rhs, tol * 10 * std::max(1.0, std::fabs(rhs)));
  }
}

TYPED_TEST(CuMathConvolutionTest, SelectWhereEqualKeepsTheMaximaOnly) {
  typedef TypeParam R;
  RandomSource rs(3);
  const int32 rows = 6, cols = 9;
  Matrix<R> ref_h(rows, cols), data_h(rows, cols), src_h(rows, cols);
  ref_h.SetRandn(&rs);
  src_h.SetRandn(&rs);
  data_h.SetRandn(&rs);
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c += 2) data_h(r, c) = ref_h(r, c);  // ties
  CuMatrix<R> data(data_h);
  cu::SelectWhereEqual(CuMatrix<R>(ref_h), CuMatrix<R>(src_h), &data);
  Matrix<R> got = data.Download();
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c++)
      EXPECT_EQ(got(r, c), c % 2 == 0 ? src_h(r, c) : R(0)) << r << "," << c;
  CuMatrix<R> narrow(rows, cols - 1);
  EXPECT_THROW(cu::SelectWhereEqual(narrow, CuMatrix<R>(src_h), &data),
               InternalError);
}

}  // namespace
}  // namespace nnet3
