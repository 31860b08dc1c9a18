// tests/feat/mel-computations-test.cc
// Mel banks against the definitions recomputed here in double: bin edges
// (first and last FFT bin of every triangle), weights, the partition of
// unity between neighbouring centres, the VTLN warp's fixed points and
// slopes, the DCT's orthonormality and the lifter formula.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/log.h"
#include "feat/feature-window.h"
#include "feat/mel-computations.h"

namespace nnet3 {
namespace {

double Mel(double f) { return 1127.0 * std::log(1.0 + f / 700.0); }

TEST(MelScale, Values) {
  EXPECT_NEAR(MelBanks::MelScale(700.0f), 1127.0 * std::log(2.0), 1e-3);
  EXPECT_NEAR(MelBanks::MelScale(0.0f), 0.0, 1e-6);
  EXPECT_NEAR(MelBanks::InverseMelScale(MelBanks::MelScale(4000.0f)), 4000.0,
              1e-2);
}

struct BankCase {
  float samp_freq, low, high;
  int bins;
  bool pow2;
};

TEST(MelBanks, EdgesAndWeightsMatchTheDefinition) {
  std::vector<BankCase> cases = {{16000, 20, 0, 23, true},
                                 {16000, 20, -400, 23, true},
                                 {16000, 64, 7000, 40, true},
                                 {8000, 20, 0, 15, true},
                                 {16000, 0, 0, 23, false}};
  for (const BankCase &c : cases) {
    FrameExtractionOptions fo;
    fo.samp_freq = c.samp_freq;
    fo.round_to_power_of_two = c.pow2;
    MelBanksOptions mo(c.bins);
    mo.low_freq = c.low;
    mo.high_freq = c.high;
    MelBanks banks(mo, fo, 1.0f);
    ASSERT_EQ(banks.NumBins(), c.bins);
    const int n = fo.PaddedWindowSize();
    const double nyquist = c.samp_freq / 2;
    const double high = c.high > 0 ? c.high : nyquist + c.high;
    const double ml = Mel(c.low), mh = Mel(high);
    const double d = (mh - ml) / (c.bins + 1);
    const double bw = c.samp_freq / n;
    for (int b = 0; b < c.bins; b++) {
      double left = ml + b * d, center = left + d, right = left + 2 * d;
      int first = banks.Offset(b);
      int last = first + static_cast<int>(banks.Weights(b).size()) - 1;
      // FFT bins strictly inside (left, right), up to float rounding at
      // the edges.
      EXPECT_GT(Mel(first * bw), left - 1e-3) << b;
      EXPECT_LE(Mel((first - 1) * bw), left + 1e-3) << b;
      EXPECT_LT(Mel(last * bw), right + 1e-3) << b;
      if (last + 1 < n / 2) {
        EXPECT_GE(Mel((last + 1) * bw), right - 1e-3) << b;
      }
      for (int i = first; i <= last; i++) {
        double m = Mel(i * bw);
        double want = m <= center ? (m - left) / d : (right - m) / d;
        EXPECT_NEAR(banks.Weights(b)[i - first], want, 2e-4) << b << " " << i;
      }
      EXPECT_NEAR(banks.CenterFreqs()[b],
                  700.0 * (std::exp(center / 1127.0) - 1.0), 0.05);
    }
    // Between two neighbouring centres the two triangles sum to one.
    for (int b = 0; b + 1 < c.bins; b++) {
      for (int i = banks.Offset(b + 1);
           i < banks.Offset(b) + static_cast<int>(banks.Weights(b).size());
           i++) {
        double m = Mel(i * bw);
        if (m < ml + (b + 1) * d || m > ml + (b + 2) * d) continue;
        double sum = banks.Weights(b)[i - banks.Offset(b)] +
                     banks.Weights(b + 1)[i - banks.Offset(b + 1)];
        EXPECT_NEAR(sum, 1.0, 1e-4) << b << " " << i;
      }
    }
  }
}

TEST(MelBanks, ComputeIsTheWeightedSum) {
  FrameExtractionOptions fo;
  MelBanks banks(MelBanksOptions(23), fo, 1.0f);
  std::vector<float> power(257), out(23);
  for (int i = 0; i < 257; i++) power[i] = 1.0f + i;
  banks.Compute(power.data(), out.data());
  for (int b = 0; b < 23; b++) {
    double want = 0;
    for (size_t i = 0; i < banks.Weights(b).size(); i++)
      want += banks.Weights(b)[i] * power[banks.Offset(b) + i];
    EXPECT_NEAR(out[b], want, 1e-6 * want);  // a float dot product
  }
}

TEST(MelBanks, VtlnWarp) {
  const float lo = 20, hi = 8000, vl = 100, vh = 7500;
  for (float warp : {0.85f, 1.0f, 1.15f}) {
    EXPECT_NEAR(MelBanks::VtlnWarpFreq(vl, vh, lo, hi, warp, lo), lo, 1e-3);
    EXPECT_NEAR(MelBanks::VtlnWarpFreq(vl, vh, lo, hi, warp, hi), hi, 1e-2);
    // Slope 1/warp in the middle part.
    float f1 = 1000, f2 = 3000;
    float g1 = MelBanks::VtlnWarpFreq(vl, vh, lo, hi, warp, f1);
    float g2 = MelBanks::VtlnWarpFreq(vl, vh, lo, hi, warp, f2);
    EXPECT_NEAR(g1, f1 / warp, 1e-2);
    EXPECT_NEAR((g2 - g1) / (f2 - f1), 1.0 / warp, 1e-5);
    // Continuous at the upper inflection point h = vh * min(1, warp).
    float h = vh * std::min(1.0f, warp);
    EXPECT_NEAR(MelBanks::VtlnWarpFreq(vl, vh, lo, hi, warp, h - 0.01f),
                MelBanks::VtlnWarpFreq(vl, vh, lo, hi, warp, h + 0.01f),
                0.05);
    // Outside [lo, hi] unchanged.
    EXPECT_EQ(MelBanks::VtlnWarpFreq(vl, vh, lo, hi, warp, 10.0f), 10.0f);
  }
  // A warped bank moves its centres by about 1/warp in the middle.
  FrameExtractionOptions fo;
  MelBanks plain(MelBanksOptions(23), fo, 1.0f),
      warped(MelBanksOptions(23), fo, 1.1f);
  EXPECT_NEAR(warped.CenterFreqs()[10], plain.CenterFreqs()[10] / 1.1, 1.0);
}

TEST(MelBanks, BadOptionsAreErrors) {
  FrameExtractionOptions fo;
  MelBanksOptions too_many(200);
  try {
    MelBanks b(too_many, fo, 1.0f);
    ADD_FAILURE();
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("--num-mel-bins"), std::string::npos);
  }
  MelBanksOptions high(23);
  high.high_freq = 9000;
  EXPECT_THROW(MelBanks(high, fo, 1.0f), UserError);
  MelBanksOptions vtln(23);
  vtln.vtln_low = 10;  // below low-freq 20
  EXPECT_THROW(MelBanks(vtln, fo, 0.9f), UserError);
  EXPECT_NO_THROW(MelBanks(vtln, fo, 1.0f));  // not checked without warping
}

TEST(Dct, OrthonormalAndFirstRowConstant) {
  const int n = 23;
  const int stride = 24;  // rows padded; the padding is zero
  std::vector<float> d;
  ComputeDctMatrix(n, n, stride, &d);
  ASSERT_EQ(d.size(), static_cast<size_t>(n * stride));
  for (int i = 0; i < n; i++) {
    EXPECT_EQ(d[i * stride + n], 0.0f);
    for (int j = 0; j < n; j++) {
      double dot = 0;
      for (int k = 0; k < n; k++)
        dot += static_cast<double>(d[i * stride + k]) * d[j * stride + k];
      EXPECT_NEAR(dot, i == j ? 1.0 : 0.0, 1e-6);  // float entries
    }
  }
  for (int k = 0; k < n; k++) EXPECT_NEAR(d[k], 1.0 / std::sqrt(23.0), 1e-7);
  EXPECT_NEAR(d[1 * stride + 0],
              std::sqrt(2.0 / n) * std::cos(M_PI / n * 0.5), 1e-7);
  // Fewer rows than columns: the first rows of the full matrix.
  std::vector<float> d13;
  ComputeDctMatrix(13, n, stride, &d13);
  for (int k = 0; k < 13 * stride; k++) EXPECT_EQ(d13[k], d[k]);
}

TEST(Lifter, Formula) {
  std::vector<float> c;
  ComputeLifterCoeffs(22.0f, 13, &c);
  ASSERT_EQ(c.size(), 13u);
  EXPECT_EQ(c[0], 1.0f);
  EXPECT_NEAR(c[11], 12.0, 1e-6);  // 1 + 11 sin(pi / 2)
  EXPECT_NEAR(c[1], 1 + 11 * std::sin(M_PI / 22), 1e-6);
}

}  // namespace
}  // namespace nnet3
