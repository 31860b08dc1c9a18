// tests/feat/fft-test.cc
// The float FFTs (feat/fft.h) against a naive DFT computed in long double:
// split-radix complex transforms of every power of two up to 4096 and
// mixed-radix ones of every size up to 64 and of random sizes (forward and
// inverse), real transforms of even sizes in Kaldi's packed layout, and the
// float power spectrum. The
// transforms are float, so errors are bounded relative to the scale of the
// outputs by a small multiple of float epsilon times log2(n) (plus, for the
// real transform, a term for its rotation recurrence).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <random>
#include <vector>

#include "base/log.h"
#include "feat/fft.h"

namespace nnet3 {
namespace {

typedef long double ld;

// X[k] = sum_j x[j] exp(sign * 2 pi i j k / n) of n complex values given as
// separate real and imaginary parts; out interleaved (re, im).
std::vector<ld> NaiveDft(const std::vector<float> &re,
                         const std::vector<float> &im, int n, int sign) {
  std::vector<ld> out(2 * n, 0.0L), cos_table(n), sin_table(n);
  const ld pi = 3.141592653589793238462643383279503L;
  for (int q = 0; q < n; q++) {
    cos_table[q] = std::cos(sign * 2 * pi * q / n);
    sin_table[q] = std::sin(sign * 2 * pi * q / n);
  }
  for (int k = 0; k < n; k++) {
    ld sr = 0, si = 0;
    for (int j = 0; j < n; j++) {
      long long q = (static_cast<long long>(j) * k) % n;
      ld c = cos_table[q], s = sin_table[q];
      sr += re[j] * c - im[j] * s;
      si += re[j] * s + im[j] * c;
    }
    out[2 * k] = sr;
    out[2 * k + 1] = si;
  }
  return out;
}

std::vector<float> RandomVector(int size, std::mt19937 *rng) {
  std::normal_distribution<float> g(0.0f, 1.0f);
  std::vector<float> v(size);
  for (float &x : v) x = g(*rng);
  return v;
}

double Norm(const std::vector<float> &a, const std::vector<float> &b) {
  double s = 0;
  for (float v : a) s += static_cast<double>(v) * v;
  for (float v : b) s += static_cast<double>(v) * v;
  return std::sqrt(s) + 1e-300;
}

// Allowed error, relative to the input's 2-norm (= the outputs' 2-norm /
// sqrt(n)): a few float epsilons per stage.
double Tolerance(int n) {
  int log_n = 0;
  while ((1 << log_n) < n) log_n++;
  return 4.0 * FLT_EPSILON * (log_n + 1);
}

void CheckComplex(int n, std::mt19937 *rng) {
  SplitRadixFft fft(n);
  std::vector<float> re = RandomVector(n, rng), im = RandomVector(n, rng);
  const double scale = Norm(re, im);
  for (int sign : {-1, +1}) {
    std::vector<ld> want = NaiveDft(re, im, n, sign);
    std::vector<float> r = re, i = im;
    if (sign < 0) fft.Forward(r.data(), i.data());
    else fft.Inverse(r.data(), i.data());
    double err = 0;
    for (int k = 0; k < n; k++) {
      err = std::max(err, static_cast<double>(std::fabs(r[k] - want[2 * k])));
      err = std::max(err,
                     static_cast<double>(std::fabs(i[k] - want[2 * k + 1])));
    }
    EXPECT_LT(err / scale, Tolerance(n)) << "n=" << n << " sign=" << sign;
  }
}

TEST(SplitRadixFft, PowersOfTwoAgainstNaiveDft) {
  std::mt19937 rng(11);
  for (int p = 0; p <= 12; p++) CheckComplex(1 << p, &rng);
}

void CheckMixed(int n, std::mt19937 *rng) {
  MixedRadixFft fft(n);
  std::vector<float> re = RandomVector(n, rng), im = RandomVector(n, rng);
  const double scale = Norm(re, im);
  // The rotations are float recurrences: w^q' over up to n steps, and for
  // a prime factor P the P-point sums raise a recurrence-built root to
  // powers up to P by repeated multiplication (error ~ P^2 eps). So the
  // bound has terms in n and in the square of the largest prime factor.
  int largest = 1;
  for (int m = n, p = 2; m > 1; p++)
    while (m % p == 0) {
      m /= p;
      largest = p;
    }
  const double tol =
      Tolerance(n) + FLT_EPSILON * (n + static_cast<double>(largest) * largest);
  for (int sign : {-1, +1}) {
    std::vector<ld> want = NaiveDft(re, im, n, sign);
    std::vector<float> data(2 * n);
    for (int j = 0; j < n; j++) {
      data[2 * j] = re[j];
      data[2 * j + 1] = im[j];
    }
    if (sign < 0) fft.Forward(data.data());
    else fft.Inverse(data.data());
    double err = 0;
    for (int k = 0; k < 2 * n; k++)
      err = std::max(err, static_cast<double>(std::fabs(data[k] - want[k])));
    EXPECT_LT(err / scale, tol) << "n=" << n << " sign=" << sign;
  }
}

TEST(MixedRadixFft, AllSmallSizes) {
  std::mt19937 rng(15);
  for (int n = 1; n <= 64; n++) CheckMixed(n, &rng);
}

TEST(MixedRadixFft, RandomAndFrameSizes) {
  std::mt19937 rng(16);
  std::uniform_int_distribution<int> size(65, 1200);
  for (int t = 0; t < 10; t++) CheckMixed(size(rng), &rng);
  for (int n : {97, 100, 200, 256, 441, 1000, 1021})  // primes, frame sizes
    CheckMixed(n, &rng);
}

TEST(SplitRadixFft, ImpulseAndConstant) {
  // An impulse at j = 1 gives exp(-2 pi i k / n); a constant gives n at 0.
  const int n = 64;
  SplitRadixFft fft(n);
  std::vector<float> re(n, 0.0f), im(n, 0.0f);
  re[1] = 1.0f;
  fft.Forward(re.data(), im.data());
  for (int k = 0; k < n; k++) {
    EXPECT_NEAR(re[k], std::cos(2 * M_PI * k / n), 1e-6) << k;
    EXPECT_NEAR(im[k], -std::sin(2 * M_PI * k / n), 1e-6) << k;
  }
  std::vector<float> c(n, 1.0f), z(n, 0.0f);
  fft.Forward(c.data(), z.data());
  EXPECT_EQ(c[0], 64.0f);
  for (int k = 1; k < n; k++) {
    EXPECT_NEAR(c[k], 0.0f, 1e-5) << k;
    EXPECT_NEAR(z[k], 0.0f, 1e-5) << k;
  }
}

// The packed real spectrum against the naive DFT. The real transform's
// rotation exp(-2 pi i k / n) comes from a float recurrence (one complex
// multiplication per bin, up to n/4 of them), whose error grows with k, so
// the bound has a term linear in n on top of the complex transform's.
void CheckPacked(const std::vector<float> &packed,
                 const std::vector<float> &x, int n) {
  std::vector<float> zero(n, 0.0f);
  std::vector<ld> want = NaiveDft(x, zero, n, -1);
  const double tol =
      (Tolerance(n) + FLT_EPSILON * n / 4.0) * Norm(x, zero);
  EXPECT_NEAR(packed[0], static_cast<double>(want[0]), tol) << "n=" << n;
  EXPECT_NEAR(packed[1], static_cast<double>(want[n]), tol) << "n=" << n;
  for (int k = 1; k < n / 2; k++) {
    EXPECT_NEAR(packed[2 * k], static_cast<double>(want[2 * k]), tol)
        << "n=" << n << " k=" << k;
    EXPECT_NEAR(packed[2 * k + 1], static_cast<double>(want[2 * k + 1]), tol)
        << "n=" << n << " k=" << k;
  }
}

TEST(RealFft, PowersOfTwoAgainstNaiveDft) {
  std::mt19937 rng(12);
  for (int p = 1; p <= 12; p++) {
    const int n = 1 << p;
    std::vector<float> x = RandomVector(n, &rng), data = x;
    RealFft fft(n);
    fft.Compute(data.data());
    CheckPacked(data, x, n);
  }
}

TEST(PackedPowerSpectrum, SquaredMagnitudes) {
  std::mt19937 rng(13);
  const int n = 512;
  std::vector<float> x = RandomVector(n, &rng), data = x;
  RealFft fft(n);
  fft.Compute(data.data());
  std::vector<float> packed = data;
  PackedPowerSpectrum(data.data(), n);
  std::vector<float> zero(n, 0.0f);
  std::vector<ld> want = NaiveDft(x, zero, n, -1);
  double energy = 0;
  for (float v : x) energy += static_cast<double>(v) * v;
  for (int k = 0; k <= n / 2; k++) {
    ld p = want[2 * k] * want[2 * k] + want[2 * k + 1] * want[2 * k + 1];
    // |X|^2 <= n * energy; its float error is relative to that scale.
    EXPECT_NEAR(data[k], static_cast<double>(p), 1e-5 * n * energy) << k;
  }
  // Bin k is exactly the float re*re + im*im of the packed values.
  EXPECT_EQ(data[0], packed[0] * packed[0]);
  EXPECT_EQ(data[n / 2], packed[1] * packed[1]);
  EXPECT_EQ(data[7], packed[14] * packed[14] + packed[15] * packed[15]);
}

TEST(RealFft, OtherEvenSizesAndCopies) {
  std::mt19937 rng(14);
  for (int n : {2, 4, 16, 256, 512, 6, 10, 30, 200, 240, 400, 882, 1000}) {
    std::vector<float> x = RandomVector(n, &rng), data = x;
    RealFft fft(n);
    fft.Compute(data.data());
    CheckPacked(data, x, n);
    // A copy is independent and computes the same thing.
    RealFft copy(fft);
    std::vector<float> again = x;
    copy.Compute(again.data());
    EXPECT_EQ(again, data) << "n=" << n;
  }
}

TEST(RealFft, KnownTransforms) {
  // A cosine at bin 3 of a 16-point transform: X[3] = 8, all else 0.
  for (int n : {16, 18}) {
    RealFft fft(n);
    std::vector<float> x(n);
    for (int j = 0; j < n; j++) x[j] = std::cos(2 * M_PI * 3 * j / n);
    fft.Compute(x.data());
    EXPECT_NEAR(x[0], 0.0, 1e-5);
    EXPECT_NEAR(x[1], 0.0, 1e-5);
    for (int k = 1; k < n / 2; k++) {
      EXPECT_NEAR(x[2 * k], k == 3 ? n / 2.0 : 0.0, 1e-5) << n << " " << k;
      EXPECT_NEAR(x[2 * k + 1], 0.0, 1e-5) << n << " " << k;
    }
    // Alternating signs: everything at the Nyquist bin (packed at 1).
    for (int j = 0; j < n; j++) x[j] = (j % 2) ? -1.0f : 1.0f;
    fft.Compute(x.data());
    EXPECT_EQ(x[1], static_cast<float>(n));
    EXPECT_EQ(x[0], 0.0f);
  }
}

TEST(Fft, BadSizesAreRejected) {
  EXPECT_THROW(RealFft(401), UserError);
  EXPECT_THROW(RealFft(0), UserError);
  EXPECT_THROW(MixedRadixFft(0), UserError);
  EXPECT_THROW(SplitRadixFft(12), UserError);
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
