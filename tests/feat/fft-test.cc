// tests/feat/fft-test.cc
// Our FFTs against a naive DFT computed in long double: complex transforms
// of every size up to 64 and of random sizes (powers of two and not, which
// exercises the radix-2 and Bluestein paths), forward and inverse, and the
// real transform and power spectrum of even sizes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "base/log.h"
#include "feat/fft.h"

namespace nnet3 {
namespace {

typedef long double ld;

// X[k] = sum_j x[j] exp(sign * 2 pi i j k / n), interleaved (re, im).
std::vector<ld> NaiveDft(const std::vector<double> &x, int n, int sign) {
  std::vector<ld> out(2 * n, 0.0L), cos_table(n), sin_table(n);
  const ld pi = 3.141592653589793238462643383279503L;
  for (int q = 0; q < n; q++) {
    cos_table[q] = std::cos(sign * 2 * pi * q / n);
    sin_table[q] = std::sin(sign * 2 * pi * q / n);
  }
  for (int k = 0; k < n; k++) {
    ld re = 0, im = 0;
    for (int j = 0; j < n; j++) {
      // Reduce j*k mod n first so the angle stays exact.
      long long q = (static_cast<long long>(j) * k) % n;
      ld c = cos_table[q], s = sin_table[q];
      re += x[2 * j] * c - x[2 * j + 1] * s;
      im += x[2 * j] * s + x[2 * j + 1] * c;
    }
    out[2 * k] = re;
    out[2 * k + 1] = im;
  }
  return out;
}

std::vector<double> RandomVector(int size, std::mt19937 *rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<double> v(size);
  for (double &x : v) x = g(*rng);
  return v;
}

// max |a - b| / (sqrt(n) * rms(x) + tiny): the error relative to the scale
// of the transform's outputs.
double RelError(const std::vector<double> &got, const std::vector<ld> &want,
                const std::vector<double> &x) {
  double norm = 0;
  for (double v : x) norm += v * v;
  double scale = std::sqrt(norm) + 1e-300;
  double err = 0;
  for (size_t i = 0; i < want.size(); i++)
    err = std::max(err, static_cast<double>(std::fabs(got[i] - want[i])));
  return err / scale;
}

void CheckComplex(int n, std::mt19937 *rng) {
  ComplexFft fft(n);
  std::vector<double> x = RandomVector(2 * n, rng);
  std::vector<double> y = x;
  fft.Forward(y.data());
  EXPECT_LT(RelError(y, NaiveDft(x, n, -1), x), 1e-13) << "forward n=" << n;
  std::vector<double> z = x;
  fft.Inverse(z.data());
  EXPECT_LT(RelError(z, NaiveDft(x, n, +1), x), 1e-13) << "inverse n=" << n;
  // Inverse(Forward(x)) = n x.
  fft.Inverse(y.data());
  for (int i = 0; i < 2 * n; i++) y[i] /= n;
  std::vector<ld> xl(x.begin(), x.end());
  EXPECT_LT(RelError(y, xl, x), 1e-13) << "round trip n=" << n;
}

TEST(ComplexFft, AllSmallSizes) {
  std::mt19937 rng(1);
  for (int n = 1; n <= 64; n++) CheckComplex(n, &rng);
}

TEST(ComplexFft, RandomSizes) {
  std::mt19937 rng(2);
  for (int p = 7; p <= 12; p++) CheckComplex(1 << p, &rng);
  std::uniform_int_distribution<int> size(65, 1500);
  for (int t = 0; t < 12; t++) CheckComplex(size(rng), &rng);
  for (int n : {97, 200, 256, 400, 441, 1000, 1024})  // primes, frame sizes
    CheckComplex(n, &rng);
}

void CheckReal(int n, std::mt19937 *rng) {
  RealFft fft(n);
  std::vector<double> x = RandomVector(n, rng);
  std::vector<double> xc(2 * n, 0.0);
  for (int j = 0; j < n; j++) xc[2 * j] = x[j];
  std::vector<ld> want = NaiveDft(xc, n, -1);
  want.resize(n + 2);  // bins 0 .. n/2
  std::vector<double> got(n + 2);
  fft.Compute(x.data(), got.data());
  EXPECT_LT(RelError(got, want, x), 1e-13) << "real n=" << n;
  std::vector<double> power(n / 2 + 1);
  fft.PowerSpectrum(x.data(), power.data());
  double norm = 0;
  for (double v : x) norm += v * v;
  for (int k = 0; k <= n / 2; k++) {
    ld p = want[2 * k] * want[2 * k] + want[2 * k + 1] * want[2 * k + 1];
    EXPECT_NEAR(power[k], static_cast<double>(p), 1e-12 * norm * n)
        << "power n=" << n << " k=" << k;
  }
}

TEST(RealFft, PowersOfTwo) {
  std::mt19937 rng(3);
  for (int p = 1; p <= 12; p++) CheckReal(1 << p, &rng);
}

TEST(RealFft, OtherEvenSizes) {
  std::mt19937 rng(4);
  for (int n : {6, 10, 30, 200, 240, 400, 882}) CheckReal(n, &rng);
  std::uniform_int_distribution<int> half(2, 700);
  for (int t = 0; t < 10; t++) CheckReal(2 * half(rng), &rng);
}

TEST(RealFft, KnownTransforms) {
  // A cosine at bin 3 of a 16-point transform: X[3] = 8, all else 0.
  const int n = 16;
  RealFft fft(n);
  std::vector<double> x(n), out(n + 2);
  for (int j = 0; j < n; j++) x[j] = std::cos(2 * M_PI * 3 * j / n);
  fft.Compute(x.data(), out.data());
  for (int k = 0; k <= n / 2; k++) {
    EXPECT_NEAR(out[2 * k], k == 3 ? 8.0 : 0.0, 1e-12) << k;
    EXPECT_NEAR(out[2 * k + 1], 0.0, 1e-12) << k;
  }
  // Alternating signs: everything at the Nyquist bin.
  for (int j = 0; j < n; j++) x[j] = (j % 2) ? -1.0 : 1.0;
  fft.Compute(x.data(), out.data());
  EXPECT_NEAR(out[n], 16.0, 1e-12);
  EXPECT_NEAR(out[0], 0.0, 1e-12);
}

TEST(RealFft, OddSizesAreRejected) {
  EXPECT_THROW(RealFft(401), UserError);
  EXPECT_THROW(RealFft(0), UserError);
}

TEST(Fft, RoundUpToPowerOfTwo) {
  EXPECT_EQ(RoundUpToPowerOfTwo(1), 1);
  EXPECT_EQ(RoundUpToPowerOfTwo(400), 512);
  EXPECT_EQ(RoundUpToPowerOfTwo(512), 512);
  EXPECT_EQ(RoundUpToPowerOfTwo(513), 1024);
  EXPECT_TRUE(IsPowerOfTwo(256));
  EXPECT_FALSE(IsPowerOfTwo(200));
}

}  // namespace
}  // namespace nnet3
