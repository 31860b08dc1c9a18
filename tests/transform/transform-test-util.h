// tests/transform/transform-test-util.h
// Small helpers for the transform tests: matrices from nested lists, random
// matrices with a printed seed, and element-wise comparison with a tolerance.
#ifndef NNET3_TESTS_TRANSFORM_TRANSFORM_TEST_UTIL_H_
#define NNET3_TESTS_TRANSFORM_TRANSFORM_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <random>

#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace transform_test {

inline Matrix<BaseFloat> MakeMatrix(
    std::initializer_list<std::initializer_list<double> > rows) {
  int32 num_rows = static_cast<int32>(rows.size());
  int32 num_cols = num_rows ? static_cast<int32>(rows.begin()->size()) : 0;
  Matrix<BaseFloat> m(num_rows, num_cols);
  int32 r = 0;
  for (const auto &row : rows) {
    int32 c = 0;
    for (double v : row) m(r, c++) = static_cast<BaseFloat>(v);
    r++;
  }
  return m;
}

inline Vector<BaseFloat> MakeVector(std::initializer_list<double> values) {
  Vector<BaseFloat> v(static_cast<int32>(values.size()));
  int32 i = 0;
  for (double x : values) v(i++) = static_cast<BaseFloat>(x);
  return v;
}

// Values uniform in [lo, hi); the seed is printed so a failure can be
// reproduced.
inline Matrix<BaseFloat> RandomMatrix(int32 rows, int32 cols, unsigned seed,
                                      double lo = -10.0, double hi = 10.0) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Matrix<BaseFloat> m(rows, cols);
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c++) m(r, c) = static_cast<BaseFloat>(dist(gen));
  std::cout << "RandomMatrix(" << rows << ", " << cols << ") seed " << seed
            << "\n";
  return m;
}

// Every element within tol * max(1, |want|).
inline void ExpectNear(const MatrixBase<BaseFloat> &got,
                       const MatrixBase<double> &want, double tol) {
  ASSERT_EQ(got.NumRows(), want.NumRows());
  ASSERT_EQ(got.NumCols(), want.NumCols());
  for (int32 r = 0; r < want.NumRows(); r++)
    for (int32 c = 0; c < want.NumCols(); c++)
      ASSERT_LE(std::fabs(got(r, c) - want(r, c)),
                tol * std::max(1.0, std::fabs(want(r, c))))
          << "at (" << r << ", " << c << "): got " << got(r, c) << ", want "
          << want(r, c);
}

}  // namespace transform_test
}  // namespace nnet3

#endif  // NNET3_TESTS_TRANSFORM_TRANSFORM_TEST_UTIL_H_
