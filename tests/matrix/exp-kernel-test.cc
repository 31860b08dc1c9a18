// tests/matrix/exp-kernel-test.cc
// The vectorized exponential (matrix/exp-kernel.h) against the C library's
// exp in double precision: the error in ulp over a dense sweep of the
// polynomial range, the edges (overflow, underflow, infinities, NaN), the
// independence of the results from array offset and length, the partial
// sums against a double-precision sum, the maximum against the sequential
// loop, the variant the loader picks against the baseline code bit for
// bit, and the float log-softmax that uses them against a naive one in
// double.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "matrix/exp-kernel.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace {

// Distance in units in the last place between a float and the correctly
// rounded float nearest to the double reference.
double UlpError(float got, double want) {
  const float want_f = static_cast<float>(want);
  if (want_f == 0.0f) return got == 0.0f ? 0.0 : 1e9;
  const float ulp = std::nextafter(std::fabs(want_f),
                                   std::numeric_limits<float>::infinity()) -
                    std::fabs(want_f);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

TEST(ExpKernel, WithinTwoUlpOverThePolynomialRange) {
  std::vector<float> x;
  for (float v = exp_kernel::kLow; v <= exp_kernel::kHigh; v += 0.000731f)
    x.push_back(v);
  // Points next to the rounding boundaries of n = round(x / ln2).
  for (int n = -125; n <= 126; n++) {
    const float mid = (n + 0.5f) * 0.69314718f;
    x.push_back(std::nextafter(mid, -1e9f));
    x.push_back(mid);
    x.push_back(std::nextafter(mid, 1e9f));
  }
  std::vector<float> y(x.size());
  exp_kernel::Exp(x.data(), y.data(), static_cast<int>(x.size()));
  double worst = 0.0;
  float worst_x = 0.0f;
  for (size_t i = 0; i < x.size(); i++) {
    const double e = UlpError(y[i], std::exp(static_cast<double>(x[i])));
    if (e > worst) {
      worst = e;
      worst_x = x[i];
    }
  }
  EXPECT_LE(worst, 2.0) << "at x = " << worst_x;
}

TEST(ExpKernel, EdgesFollowTheCLibrary) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> x = {-inf, -1000.0f, -103.5f, -100.0f, -87.5f,
                          -87.0f, 0.0f,   -0.0f,   88.0f,   88.5f,
                          88.8f,  100.0f, inf,     nan};
  std::vector<float> y(x.size());
  exp_kernel::Exp(x.data(), y.data(), static_cast<int>(x.size()));
  for (size_t i = 0; i < x.size(); i++) {
    const float want = std::exp(x[i]);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(y[i])) << "x = " << x[i];
    } else if (x[i] < exp_kernel::kLow || x[i] > exp_kernel::kHigh) {
      // The fallback is the C library itself.
      EXPECT_EQ(y[i], want) << "x = " << x[i];
    } else {
      EXPECT_LE(UlpError(y[i], std::exp(static_cast<double>(x[i]))), 2.0)
          << "x = " << x[i];
    }
  }
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_TRUE(std::isinf(y[11]) && y[11] > 0);
}

TEST(ExpKernel, ResultsDoNotDependOnOffsetOrLength) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-95.0f, 90.0f);
  std::vector<float> x(1000);
  for (float &v : x) v = dist(rng);
  x[17] = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> whole(x.size());
  exp_kernel::Exp(x.data(), whole.data(), static_cast<int>(x.size()));
  for (int offset : {0, 1, 3, 63, 64, 65, 200}) {
    for (int len : {0, 1, 7, 64, 65, 129, 500}) {
      if (offset + len > static_cast<int>(x.size())) continue;
      std::vector<float> part(len);
      exp_kernel::Exp(x.data() + offset, part.data(), len);
      for (int i = 0; i < len; i++)
        ASSERT_EQ(0, std::memcmp(&part[i], &whole[offset + i], sizeof(float)))
            << "offset " << offset << " length " << len << " element " << i;
    }
  }
  // In place gives the same bits.
  std::vector<float> in_place(x);
  exp_kernel::Exp(in_place.data(), in_place.data(),
                  static_cast<int>(in_place.size()));
  EXPECT_EQ(0, std::memcmp(in_place.data(), whole.data(),
                           whole.size() * sizeof(float)));
}

TEST(ExpKernel, SumMatchesDoublePrecision) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> dist(-30.0f, 0.0f);
  for (int n : {0, 1, 5, 8, 63, 64, 65, 1000, 3000, 3001}) {
    std::vector<float> x(n);
    for (float &v : x) v = dist(rng);
    double want = 0.0;
    for (float v : x) want += std::exp(static_cast<double>(v));
    const float got = exp_kernel::SumExp(x.data(), n);
    EXPECT_NEAR(got, want, 1e-6 * want + 1e-30) << "n = " << n;
  }
}

TEST(ExpKernel, MaxMatchesTheSequentialLoop) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int n : {0, 1, 7, 8, 9, 100, 3000}) {
    std::vector<float> x(n);
    for (float &v : x) v = dist(rng);
    if (n > 3) x[n / 2] = nan;
    float want = -std::numeric_limits<float>::infinity();
    for (float v : x)
      if (v > want) want = v;
    EXPECT_EQ(exp_kernel::Max(x.data(), n), want) << "n = " << n;
  }
  std::vector<float> all_nan(9, nan);
  EXPECT_EQ(exp_kernel::Max(all_nan.data(), 9),
            -std::numeric_limits<float>::infinity());
}

// memcmp of n floats; an empty vector's data() may be null.
bool SameBits(const float *a, const float *b, int n) {
  return n == 0 || std::memcmp(a, b, n * sizeof(float)) == 0;
}

// The loader picks the widest variant this CPU has (AVX-512 or AVX2 on
// the machines we test on); its bits must equal the baseline code's, on
// ordinary inputs, every edge case and lengths that leave vector tails.
TEST(ExpKernel, DispatchedVariantGivesTheBaselineBits) {
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> wide(-120.0f, 120.0f),
      normal(-30.0f, 0.0f);
  const float inf = std::numeric_limits<float>::infinity(),
              nan = std::numeric_limits<float>::quiet_NaN();
  for (int n : {0, 1, 7, 8, 15, 16, 17, 31, 255, 256, 257, 1000, 3000, 4099}) {
    for (int kind = 0; kind < 3; kind++) {
      std::vector<float> x(n);
      for (float &v : x) v = kind == 0 ? normal(rng) : wide(rng);
      if (kind == 2 && n > 4) {  // the edges: inf, -inf, NaN, huge, tiny
        x[0] = inf;
        x[n / 4] = -inf;
        x[n / 3] = nan;
        x[n / 2] = 88.5f;
        x[n - 1] = -1e30f;
      }
      std::vector<float> got(n), want(n);
      exp_kernel::Exp(x.data(), got.data(), n);
      exp_kernel::portable::Exp(x.data(), want.data(), n);
      EXPECT_TRUE(SameBits(got.data(), want.data(), n))
          << "Exp, n = " << n << " kind " << kind;
      const float sum = exp_kernel::SumExp(x.data(), n),
                  sum_want = exp_kernel::portable::SumExp(x.data(), n);
      EXPECT_EQ(0, std::memcmp(&sum, &sum_want, sizeof(float)))
          << "SumExp, n = " << n << " kind " << kind << ": " << sum
          << " vs " << sum_want;
      const float max = exp_kernel::Max(x.data(), n),
                  max_want = exp_kernel::portable::Max(x.data(), n);
      EXPECT_EQ(0, std::memcmp(&max, &max_want, sizeof(float)))
          << "Max, n = " << n << " kind " << kind;
      const float c = kind == 0 ? -3.25f : normal(rng);
      exp_kernel::AddConstant(x.data(), c, got.data(), n);
      exp_kernel::portable::AddConstant(x.data(), c, want.data(), n);
      EXPECT_TRUE(SameBits(got.data(), want.data(), n))
          << "AddConstant, n = " << n << " kind " << kind;
    }
  }
}

TEST(ExpKernel, FloatLogSoftMaxMatchesNaiveDouble) {
  std::mt19937 rng(3);
  std::normal_distribution<float> dist(0.0f, 8.0f);
  for (int n : {1, 2, 9, 100, 3000}) {
    Vector<float> v(n);
    for (int i = 0; i < n; i++) v(i) = dist(rng);
    std::vector<double> x(n);
    for (int i = 0; i < n; i++) x[i] = v(i);
    double max = x[0];
    for (double d : x) max = std::max(max, d);
    double sum = 0.0;
    for (double d : x) sum += std::exp(d - max);
    const double log_norm = max + std::log(sum);
    const float returned = v.ApplyLogSoftMax();
    EXPECT_NEAR(returned, log_norm, 1e-5 * std::fabs(log_norm) + 1e-5);
    for (int i = 0; i < n; i++)
      ASSERT_NEAR(v(i), x[i] - log_norm, 2e-5 * std::fabs(x[i] - log_norm) + 2e-5)
          << "n = " << n << " element " << i;
  }
}

}  // namespace
}  // namespace nnet3

namespace nnet3 {
namespace {

// The one-pass-fewer log-softmax of a float matrix gives the bits of the
// sequence it replaces (copy, maximum, subtract, sum of exponentials, log,
// add), done here with the baseline kernels.
TEST(ExpKernel, LogSoftMaxPerRowGivesTheBitsOfTheStepByStepSequence) {
  std::mt19937 rng(41);
  std::normal_distribution<float> dist(0.0f, 6.0f);
  for (int cols : {1, 3, 16, 100, 3001}) {
    Matrix<float> src(7, cols), dst(7, cols);
    for (int r = 0; r < 7; r++)
      for (int c = 0; c < cols; c++) src(r, c) = dist(rng);
    if (cols > 2) src(3, 1) = -std::numeric_limits<float>::infinity();
    dst.LogSoftMaxPerRow(src);
    for (int r = 0; r < 7; r++) {
      std::vector<float> want(src.RowData(r), src.RowData(r) + cols);
      const float max = exp_kernel::portable::Max(want.data(), cols);
      for (float &v : want) v -= max;
      const float log_sum =
          std::log(exp_kernel::portable::SumExp(want.data(), cols));
      for (float &v : want) v += -log_sum;
      ASSERT_EQ(0, std::memcmp(want.data(), dst.RowData(r),
                               cols * sizeof(float)))
          << "row " << r << " of " << cols << " columns";
    }
    // In place, as Vector<float>::ApplyLogSoftMax does it.
    Matrix<float> in_place(src);
    in_place.LogSoftMaxPerRow(in_place);
    for (int r = 0; r < 7; r++)
      EXPECT_EQ(0, std::memcmp(in_place.RowData(r), dst.RowData(r),
                               cols * sizeof(float)))
          << "in place, row " << r;
  }
}

}  // namespace
}  // namespace nnet3
