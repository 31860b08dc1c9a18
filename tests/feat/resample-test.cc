// tests/feat/resample-test.cc
// LinearResample / ResampleWaveform (feat/resample.h) against band-limited
// signals whose values at the new sampling times are known exactly: sums of
// sines below the cutoff must come out as the same sines sampled at the new
// rate (away from the edges, where the missing input counts as zero), a
// tone above the new Nyquist frequency must be removed, and the output
// length is one sample per output period starting inside the input.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/log.h"
#include "feat/resample.h"

namespace nnet3 {
namespace {

struct Tone {
  double freq, amp, phase;
};

Vector<BaseFloat> Sample(const std::vector<Tone> &tones, int32 rate,
                         int32 num) {
  Vector<BaseFloat> v(num);
  for (int32 i = 0; i < num; i++) {
    double t = i / static_cast<double>(rate), x = 0;
    for (const Tone &tone : tones)
      x += tone.amp * std::sin(2 * M_PI * tone.freq * t + tone.phase);
    v(i) = static_cast<BaseFloat>(x);
  }
  return v;
}

// Largest |a - b| over samples at least 'margin' seconds from both ends.
double InteriorError(const Vector<BaseFloat> &a, const Vector<BaseFloat> &b,
                     int32 rate, double margin) {
  EXPECT_EQ(a.Dim(), b.Dim());
  int32 skip = static_cast<int32>(std::ceil(margin * rate));
  double worst = 0;
  for (int32 i = skip; i + skip < a.Dim(); i++)
    worst = std::max(worst, std::fabs(double(a(i)) - b(i)));
  return worst;
}

TEST(Resample, OutputLengthIsOneSamplePerStartedOutputPeriod) {
  struct Case {
    int32 in, out, n, expected;
  };
  for (const Case &c : {Case{16000, 8000, 16000, 8000},
                        Case{16000, 8000, 16001, 8001},
                        Case{8000, 16000, 100, 200},
                        Case{16000, 11025, 16000, 11025},
                        Case{16000, 11025, 1, 1},
                        Case{44100, 16000, 441, 160},
                        Case{44100, 16000, 442, 161}}) {
    LinearResample r(c.in, c.out, 0.99 * 0.5 * std::min(c.in, c.out), 6);
    EXPECT_EQ(r.NumOutputSamples(c.n), c.expected)
        << c.in << " -> " << c.out << ", " << c.n << " samples";
    Vector<BaseFloat> in(c.n), out;
    r.Resample(in, &out);
    EXPECT_EQ(out.Dim(), c.expected);
  }
}

TEST(Resample, BandLimitedSignalsKeepTheirValues) {
  std::vector<Tone> tones = {{300, 1000, 0.3}, {1234, 500, 1.1},
                             {2500, 250, 2.0}};
  struct Case {
    int32 in, out;
  };
  for (const Case &c : {Case{16000, 8000}, Case{8000, 16000},
                        Case{16000, 11025}, Case{22050, 16000}}) {
    int32 n = c.in / 2;  // half a second
    Vector<BaseFloat> in = Sample(tones, c.in, n), out;
    ResampleWaveform(c.in, in, c.out, &out);
    Vector<BaseFloat> expected = Sample(tones, c.out, out.Dim());
    // The filter reaches 6 / (2 * cutoff) seconds to each side.
    double margin = 6.0 / (0.99 * std::min(c.in, c.out)) + 1e-3;
    // Hann-windowed sinc with 6 zero crossings: pass-band error well under
    // 1% of the largest amplitude at these frequencies.
    EXPECT_LT(InteriorError(out, expected, c.out, margin), 10.0)
        << c.in << " -> " << c.out;
  }
}

TEST(Resample, ToneAboveTheNewNyquistIsRemoved) {
  // 6 kHz cannot exist at 8 kHz sampling; downsampling must filter it out.
  Vector<BaseFloat> in = Sample({{6000, 1000, 0}}, 16000, 8000), out;
  ResampleWaveform(16000, in, 8000, &out);
  Vector<BaseFloat> zero(out.Dim());
  EXPECT_LT(InteriorError(out, zero, 8000, 0.01), 20.0);  // < 2% left
  // Sanity: without filtering (taking every other sample) it would remain.
  double kept = 0;
  for (int32 i = 0; i < in.Dim(); i += 2)
    kept = std::max(kept, std::fabs(static_cast<double>(in(i))));
  EXPECT_GT(kept, 900.0);
}

TEST(Resample, RejectsImpossibleSettings) {
  EXPECT_THROW(LinearResample(16000, 8000, 4100, 6), UserError);  // > Nyquist
  EXPECT_THROW(LinearResample(16000, 0, 100, 6), UserError);
  Vector<BaseFloat> v(10), out;
  EXPECT_THROW(ResampleWaveform(16000.5f, v, 8000, &out), UserError);
}

}  // namespace
}  // namespace nnet3
