// tests/feat/feature-window-test.cc
// Framing and per-frame processing against hand-derived values and the
// window formulas: frame counts and positions (both --snip-edges modes),
// reflection at the edges, the order DC removal -> energy -> pre-emphasis
// -> window, padding, and dithering (seeded, unbiased, exact when 0).
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <vector>

#include "base/log.h"
#include "feat/feature-window.h"

namespace nnet3 {
namespace {

TEST(FrameExtraction, DefaultSizes) {
  FrameExtractionOptions o;
  EXPECT_EQ(o.WindowSize(), 400);
  EXPECT_EQ(o.WindowShift(), 160);
  EXPECT_EQ(o.PaddedWindowSize(), 512);
  o.round_to_power_of_two = false;
  EXPECT_EQ(o.PaddedWindowSize(), 400);
  o.samp_freq = 8000;
  EXPECT_EQ(o.WindowSize(), 200);
  EXPECT_EQ(o.WindowShift(), 80);
}

TEST(FrameExtraction, NumFramesAndFirstSample) {
  FrameExtractionOptions o;  // 400 / 160
  EXPECT_EQ(NumFrames(399, o), 0);
  EXPECT_EQ(NumFrames(400, o), 1);
  EXPECT_EQ(NumFrames(559, o), 1);
  EXPECT_EQ(NumFrames(560, o), 2);
  EXPECT_EQ(NumFrames(16000, o), 98);  // 1 + (16000 - 400) / 160
  EXPECT_EQ(FirstSampleOfFrame(3, o), 480);
  o.snip_edges = false;
  // round(samples / shift): 16000 / 160 = 100; 239 / 160 -> 1; 240 -> 2.
  EXPECT_EQ(NumFrames(16000, o), 100);
  EXPECT_EQ(NumFrames(239, o), 1);
  EXPECT_EQ(NumFrames(240, o), 2);
  EXPECT_EQ(NumFrames(79, o), 0);
  // Centred on f * 160 + 80: first sample 80 - 200 = -120.
  EXPECT_EQ(FirstSampleOfFrame(0, o), -120);
  EXPECT_EQ(FirstSampleOfFrame(2, o), 200);
  // Without flush only frames ending inside the signal: frame f ends at
  // 160 f + 280 <= 1000 -> f <= 4.
  EXPECT_EQ(NumFrames(1000, o, false), 5);
}

FrameExtractionOptions PlainOptions() {
  FrameExtractionOptions o;
  o.samp_freq = 1000;  // 1 sample per ms
  o.frame_length_ms = 4;
  o.frame_shift_ms = 2;
  o.dither = 0;
  o.preemph_coeff = 0;
  o.remove_dc_offset = false;
  o.window_type = "rectangular";
  return o;
}

TEST(FrameExtraction, ProcessingOrderByHand) {
  FrameExtractionOptions o = PlainOptions();
  o.remove_dc_offset = true;
  o.preemph_coeff = 0.5;
  FeatureWindowFunction w(o);
  std::vector<float> wave = {1, 2, 3, 4, 100};
  std::vector<float> frame(4);
  float log_energy;
  ExtractWindow(wave.data(), 5, 0, o, w, nullptr, frame.data(), &log_energy);
  // DC removal: -1.5 -0.5 0.5 1.5; energy 5; pre-emphasis with 0.5
  // (x[0] -= 0.5 x[0]): -0.75 0.25 0.75 1.25.
  EXPECT_NEAR(log_energy, std::log(5.0), 1e-6);
  std::vector<double> want = {-0.75, 0.25, 0.75, 1.25};
  for (int i = 0; i < 4; i++) EXPECT_NEAR(frame[i], want[i], 1e-6) << i;
}

TEST(FrameExtraction, PaddingAndWindowing) {
  FrameExtractionOptions o = PlainOptions();
  o.frame_length_ms = 5;  // 5 samples padded to 8
  o.window_type = "hanning";
  FeatureWindowFunction w(o);
  std::vector<float> wave(20, 2.0f);
  std::vector<float> frame(8, 99.0f);
  ExtractWindow(wave.data(), 20, 1, o, w, nullptr, frame.data(), nullptr);
  // hanning over 5 points: 0, 0.5, 1, 0.5, 0.
  std::vector<double> want = {0, 1, 2, 1, 0, 0, 0, 0};
  for (int i = 0; i < 8; i++) EXPECT_NEAR(frame[i], want[i], 1e-6) << i;
  float log_energy;
  ExtractWindow(wave.data(), 20, 0, o, w, nullptr, frame.data(), &log_energy);
  EXPECT_NEAR(log_energy, std::log(20.0), 1e-6);  // raw: before windowing
}

TEST(FrameExtraction, ReflectionAtTheEdges) {
  FrameExtractionOptions o = PlainOptions();
  o.snip_edges = false;  // length 4, shift 2: frame f starts at 2f + 1 - 2
  FeatureWindowFunction w(o);
  std::vector<float> wave = {10, 11, 12, 13, 14};
  EXPECT_EQ(NumFrames(5, o), 3);  // (5 + 1) / 2
  std::vector<float> frame(4);
  // Frame 0 covers -1 .. 2: -1 reflects to 0.
  ExtractWindow(wave.data(), 5, 0, o, w, nullptr, frame.data(), nullptr);
  EXPECT_EQ(frame, (std::vector<float>{10, 10, 11, 12}));
  // Frame 2 covers 3 .. 6: 5 -> 4, 6 -> 3.
  ExtractWindow(wave.data(), 5, 2, o, w, nullptr, frame.data(), nullptr);
  EXPECT_EQ(frame, (std::vector<float>{13, 14, 14, 13}));
  // A signal shorter than a frame reflects repeatedly: 2 samples, frame
  // 0 covers -1 .. 2 -> 0, 0, 1, 1.
  std::vector<float> tiny = {5, 6};
  ExtractWindow(tiny.data(), 2, 0, o, w, nullptr, frame.data(), nullptr);
  EXPECT_EQ(frame, (std::vector<float>{5, 5, 6, 6}));
}

TEST(WindowFunctions, MatchTheirFormulas) {
  FrameExtractionOptions o;
  const int n = o.WindowSize();
  const double a = 2 * M_PI / (n - 1);
  for (const char *type :
       {"povey", "hamming", "hanning", "sine", "rectangular", "blackman"}) {
    o.window_type = type;
    o.blackman_coeff = 0.4f;
    FeatureWindowFunction w(o);
    ASSERT_EQ(static_cast<int>(w.Window().size()), n);
    for (int i = 0; i < n; i++) {
      double c = std::cos(a * i), want;
      std::string t = type;
      if (t == "povey") want = std::pow(0.5 - 0.5 * c, 0.85);
      else if (t == "hamming") want = 0.54 - 0.46 * c;
      else if (t == "hanning") want = 0.5 - 0.5 * c;
      else if (t == "sine") want = std::sin(M_PI * i / (n - 1));
      else if (t == "rectangular") want = 1.0;
      else want = 0.4 - 0.5 * c + 0.1 * std::cos(2 * a * i);
      EXPECT_NEAR(w.Window()[i], want, 1e-7) << type << " " << i;
      // Symmetric.
      EXPECT_NEAR(w.Window()[i], w.Window()[n - 1 - i], 1e-6) << type;
    }
  }
  o.window_type = "povey";
  FeatureWindowFunction povey(o);
  EXPECT_EQ(povey.Window()[0], 0.0f);
  o.window_type = "hamming";
  FeatureWindowFunction hamming(o);
  EXPECT_NEAR(hamming.Window()[0], 0.08f, 1e-7);
}

TEST(FrameExtraction, BadOptionsAreNamed) {
  FrameExtractionOptions o;
  o.window_type = "kaiser";
  try {
    o.Check();
    ADD_FAILURE();
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("--window-type=kaiser"), std::string::npos);
  }
  o = PlainOptions();
  o.round_to_power_of_two = false;
  o.frame_length_ms = 5;  // 5 samples: an odd FFT size
  EXPECT_THROW(o.Check(), UserError);
  o = FrameExtractionOptions();
  o.frame_shift_ms = 0;
  EXPECT_THROW(o.Check(), UserError);
}

TEST(Dither, SeededUnbiasedAndExactWhenZero) {
  FrameExtractionOptions o = PlainOptions();
  o.frame_length_ms = 1000;  // 1000 samples
  o.dither = 2.0;
  FeatureWindowFunction w(o);
  std::vector<float> wave(1000, 0.0f);
  std::vector<float> a(1024), b(1024), c(1024);
  DitherSource s1(7), s2(7), s3(8);
  ExtractWindow(wave.data(), 1000, 0, o, w, &s1, a.data(), nullptr);
  ExtractWindow(wave.data(), 1000, 0, o, w, &s2, b.data(), nullptr);
  ExtractWindow(wave.data(), 1000, 0, o, w, &s3, c.data(), nullptr);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Many draws: mean 0, standard deviation 2, Gaussian tails (within 5
  // standard errors).
  DitherSource s(123);
  const int n = 200000;
  std::vector<float> x(n, 0.0f);
  s.AddNoise(2.0f, x.data(), n);
  double sum = 0, sum2 = 0, sum4 = 0;
  long beyond3 = 0, beyond35 = 0;
  for (double v : x) {  // float noise, statistics in double
    sum += v;
    sum2 += v * v;
    sum4 += v * v * v * v;
    beyond3 += std::fabs(v) > 2 * 3.0;
    beyond35 += std::fabs(v) > 2 * 3.5;  // the ziggurat's tail algorithm
  }
  // P(|z| > 3) = 0.0026998, P(|z| > 3.5) = 0.00046525; within 5 sigma.
  EXPECT_NEAR(beyond3, 0.0026998 * n, 5 * std::sqrt(0.0026998 * n));
  EXPECT_NEAR(beyond35, 0.00046525 * n, 5 * std::sqrt(0.00046525 * n));
  double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_LT(std::fabs(mean), 5 * 2.0 / std::sqrt(n));
  EXPECT_NEAR(var, 4.0, 5 * 4.0 * std::sqrt(2.0 / n));
  EXPECT_NEAR(sum4 / n / (var * var), 3.0, 0.1);  // Gaussian kurtosis
  // With --dither=0 nothing changes.
  o.dither = 0;
  std::vector<float> ramp(1000);
  for (int i = 0; i < 1000; i++) ramp[i] = i;
  ExtractWindow(ramp.data(), 1000, 0, o, w, nullptr, a.data(), nullptr);
  for (int i = 0; i < 1000; i++) ASSERT_EQ(a[i], i);
  // Per-utterance seeds depend on the key and the seed.
  EXPECT_NE(UtteranceSeed(0, "a"), UtteranceSeed(0, "b"));
  EXPECT_NE(UtteranceSeed(0, "a"), UtteranceSeed(1, "a"));
  EXPECT_EQ(UtteranceSeed(3, "utt"), UtteranceSeed(3, "utt"));
}

}  // namespace
}  // namespace nnet3
