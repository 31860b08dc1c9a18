// tests/bench/feat-bench.cc
// Feature-extraction speed on one core: fbank with default options over
// one hour of generated 16 kHz audio, with --dither=0 and with the default
// dither, reported as a real-time factor (seconds of audio per second of
// compute), and as a multiple of the time the same frames' FFTs take alone.
// Usage: feat-bench [seconds-of-audio]   (default 3600)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "base/timer.h"
#include "feat/feature-fbank.h"
#include "feat/feature-mfcc.h"
#include "feat/fft.h"

namespace nnet3 {
namespace {

// Speech-like test audio: a few drifting tones with a slow envelope, plus
// noise, as 16-bit sample values.
Vector<BaseFloat> MakeAudio(int64 num_samples, float fs) {
  Vector<BaseFloat> wave(static_cast<MatrixIndexT>(num_samples));
  std::mt19937 rng(1);
  std::normal_distribution<float> noise(0.0f, 30.0f);
  double phase[3] = {0, 0, 0};
  for (int64 i = 0; i < num_samples; i++) {
    double t = i / fs;
    double env = 0.5 + 0.5 * std::sin(2 * M_PI * 0.7 * t);
    double f[3] = {180 + 40 * std::sin(t), 900 + 300 * std::sin(0.3 * t),
                   2500 + 500 * std::sin(0.11 * t)};
    double v = 0;
    for (int k = 0; k < 3; k++) {
      phase[k] += 2 * M_PI * f[k] / fs;
      v += std::sin(phase[k]) * (3000.0 / (k + 1));
    }
    wave(static_cast<MatrixIndexT>(i)) =
        static_cast<float>(std::round(env * v + noise(rng)));
  }
  return wave;
}

template <class F>
double TimeFeatures(const typename F::Options &opts,
                    const Vector<BaseFloat> &wave, int32 *frames) {
  F extractor(opts);
  Matrix<BaseFloat> feats;
  Timer timer;
  extractor.Compute(wave, 1.0f, 12345, &feats);
  double t = timer.Elapsed();
  *frames = feats.NumRows();
  return t;
}

int Main(int argc, char *argv[]) {
  double seconds = argc > 1 ? std::atof(argv[1]) : 3600.0;
  const float fs = 16000.0f;
  std::printf("generating %.0f s of audio...\n", seconds);
  Vector<BaseFloat> wave = MakeAudio(static_cast<int64>(seconds * fs), fs);

  FbankOptions opts;
  opts.frame_opts.dither = 0.0f;
  int32 frames = 0;
  double t_nodither = TimeFeatures<Fbank>(opts, wave, &frames);
  opts.frame_opts.dither = 1.0f;
  double t_dither = TimeFeatures<Fbank>(opts, wave, &frames);
  MfccOptions mfcc_opts;
  mfcc_opts.frame_opts.dither = 0.0f;
  double t_mfcc = TimeFeatures<Mfcc>(mfcc_opts, wave, &frames);

  // The FFTs alone: the same number of 512-point float power spectra (the
  // transform the features use).
  const int32 n = opts.frame_opts.PaddedWindowSize();
  RealFft fft(n);
  std::vector<float> frame(n);
  const float *w = wave.Data();
  double checksum = 0;
  Timer timer;
  for (int32 f = 0; f < frames; f++) {
    for (int32 i = 0; i < 400; i++) frame[i] = w[f * 160 + i];
    for (int32 i = 400; i < n; i++) frame[i] = 0.0f;
    fft.Compute(frame.data());
    PackedPowerSpectrum(frame.data(), n);
    checksum += frame[7];
  }
  double t_fft = timer.Elapsed();

  std::printf("frames: %d (%d-point FFT), checksum %g\n", frames, n, checksum);
  std::printf("%-28s %9s %14s %12s\n", "", "seconds", "x real time",
              "x FFT time");
  auto row = [&](const char *name, double t) {
    std::printf("%-28s %9.3f %14.0f %12.2f\n", name, t, seconds / t,
                t / t_fft);
  };
  row("fbank --dither=0", t_nodither);
  row("fbank (default dither=1)", t_dither);
  row("mfcc --dither=0", t_mfcc);
  row("FFTs alone", t_fft);
  return 0;
}

}  // namespace
}  // namespace nnet3

int main(int argc, char *argv[]) { return nnet3::Main(argc, argv); }
