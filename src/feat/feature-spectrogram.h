// feat/feature-spectrogram.h
// Log power spectrogram features, Kaldi's definition: for each frame, the
// log(max(|X[k]|^2, FLT_EPSILON)) of FFT bins k = 0 .. fft_size/2, except
// that column 0 holds the frame's log energy (raw, before pre-emphasis and
// windowing, by default; floored at log(--energy-floor) when that is > 0).
// With --return-raw-fft the output is instead the FFT itself in Kaldi's
// packed layout: re(0), re(n/2), then re(k), im(k) for k = 1 .. n/2 - 1.
// Computed in float, as Kaldi does.
// Invariant: Dim() = fft_size/2 + 1 (fft_size with --return-raw-fft).
#ifndef NNET3_FEAT_FEATURE_SPECTROGRAM_H_
#define NNET3_FEAT_FEATURE_SPECTROGRAM_H_

#include <vector>

#include "feat/feature-common.h"
#include "feat/fft.h"

namespace nnet3 {

struct SpectrogramOptions {
  FrameExtractionOptions frame_opts;
  BaseFloat energy_floor = 0.0f;
  bool raw_energy = true;
  bool return_raw_fft = false;
  void Register(OptionsItf *opts);
};

class SpectrogramComputer {
 public:
  typedef SpectrogramOptions Options;
  explicit SpectrogramComputer(const SpectrogramOptions &opts);
  int32 Dim() const {
    int32 n = opts_.frame_opts.PaddedWindowSize();
    return opts_.return_raw_fft ? n : n / 2 + 1;
  }
  bool NeedRawLogEnergy() const { return opts_.raw_energy; }
  const FrameExtractionOptions &GetFrameOptions() const {
    return opts_.frame_opts;
  }
  // vtln_warp is ignored (spectrograms have no mel warping).
  void Compute(float raw_log_energy, float vtln_warp, float *frame,
               float *feature);

 private:
  SpectrogramOptions opts_;
  float log_energy_floor_ = 0.0f;
  RealFft fft_;
};

typedef OfflineFeatureTpl<SpectrogramComputer> Spectrogram;

}  // namespace nnet3

#endif  // NNET3_FEAT_FEATURE_SPECTROGRAM_H_
