// feat/feature-spectrogram.cc
#include "feat/feature-spectrogram.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace nnet3 {

void SpectrogramOptions::Register(OptionsItf *opts) {
  frame_opts.Register(opts);
  opts->Register("energy-floor", &energy_floor,
                 "Floor on the energy (absolute, not log; 0 = none)");
  opts->Register("raw-energy", &raw_energy,
                 "Compute the energy before pre-emphasis and windowing");
  opts->Register("return-raw-fft", &return_raw_fft,
                 "Output the raw FFT (packed real/imaginary parts) instead "
                 "of the log power spectrum");
}

namespace {
const SpectrogramOptions &CheckedSpectrogramOptions(
    const SpectrogramOptions &opts) {
  opts.frame_opts.Check();
  return opts;
}
}  // namespace

SpectrogramComputer::SpectrogramComputer(const SpectrogramOptions &opts)
    : opts_(CheckedSpectrogramOptions(opts)),
      fft_(opts.frame_opts.PaddedWindowSize()) {
  if (opts_.energy_floor > 0.0f)
    log_energy_floor_ = std::log(opts_.energy_floor);
  int32 n = opts_.frame_opts.PaddedWindowSize();
  out_.resize(n + 2);
}

void SpectrogramComputer::Compute(float raw_log_energy, float,
                                  double *frame, float *feature) {
  const int32 n = opts_.frame_opts.PaddedWindowSize();
  float log_energy = raw_log_energy;
  if (!opts_.raw_energy) {
    double e = 0.0;
    for (int32 i = 0; i < n; i++) e += frame[i] * frame[i];
    log_energy = static_cast<float>(
        std::log(std::max(e, static_cast<double>(FLT_EPSILON))));
  }
  if (opts_.return_raw_fft) {
    fft_.Compute(frame, out_.data());
    feature[0] = static_cast<float>(out_[0]);
    feature[1] = static_cast<float>(out_[n]);
    for (int32 i = 2; i < n; i++) feature[i] = static_cast<float>(out_[i]);
    return;
  }
  fft_.PowerSpectrum(frame, out_.data());
  for (int32 k = 0; k <= n / 2; k++)
    feature[k] = static_cast<float>(
        std::log(std::max(out_[k], static_cast<double>(FLT_EPSILON))));
  if (opts_.energy_floor > 0.0f && log_energy < log_energy_floor_)
    log_energy = log_energy_floor_;
  feature[0] = log_energy;
}

}  // namespace nnet3
