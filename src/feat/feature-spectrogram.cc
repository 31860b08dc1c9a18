// feat/feature-spectrogram.cc
#include "feat/feature-spectrogram.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "matrix/blas.h"

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
}

void SpectrogramComputer::Compute(float raw_log_energy, float,
                                  float *frame, float *feature) {
  const int32 n = opts_.frame_opts.PaddedWindowSize();
  float log_energy = raw_log_energy;
  if (!opts_.raw_energy)
    log_energy = std::log(std::max(blas::dot(n, frame, 1, frame, 1),
                                   FLT_EPSILON));
  fft_.Compute(frame);
  if (opts_.return_raw_fft) {
    std::copy(frame, frame + n, feature);
    return;
  }
  PackedPowerSpectrum(frame, n);
  for (int32 k = 0; k <= n / 2; k++)
    feature[k] = std::log(std::max(frame[k], FLT_EPSILON));
  if (opts_.energy_floor > 0.0f && log_energy < log_energy_floor_)
    log_energy = log_energy_floor_;
  feature[0] = log_energy;
}

}  // namespace nnet3
