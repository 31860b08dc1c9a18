// feat/feature-mfcc.cc
#include "feat/feature-mfcc.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace nnet3 {

void MfccOptions::Register(OptionsItf *opts) {
  frame_opts.Register(opts);
  mel_opts.Register(opts);
  opts->Register("num-ceps", &num_ceps,
                 "Number of cepstra in the output (including C0)");
  opts->Register("use-energy", &use_energy,
                 "Replace C0 by the log energy of the frame");
  opts->Register("energy-floor", &energy_floor,
                 "Floor on the energy (absolute, not log; 0 = none)");
  opts->Register("raw-energy", &raw_energy,
                 "Compute the energy before pre-emphasis and windowing");
  opts->Register("cepstral-lifter", &cepstral_lifter,
                 "Cepstral liftering coefficient Q (0 = no liftering)");
  opts->Register("htk-compat", &htk_compat,
                 "Put C0/energy last (alone not enough for HTK features)");
}

namespace {
const MfccOptions &CheckedMfccOptions(const MfccOptions &opts) {
  opts.frame_opts.Check();
  if (opts.num_ceps < 1)
    NNET3_ERR << "Invalid --num-ceps=" << opts.num_ceps;
  if (opts.num_ceps > opts.mel_opts.num_bins)
    NNET3_ERR << "--num-ceps=" << opts.num_ceps
              << " cannot be larger than --num-mel-bins="
              << opts.mel_opts.num_bins;
  return opts;
}
}  // namespace

MfccComputer::MfccComputer(const MfccOptions &opts)
    : opts_(CheckedMfccOptions(opts)),
      banks_(opts.mel_opts, opts.frame_opts),
      fft_(opts.frame_opts.PaddedWindowSize()) {
  if (opts_.energy_floor > 0.0f)
    log_energy_floor_ = std::log(opts_.energy_floor);
  ComputeDctMatrix(opts_.num_ceps, opts_.mel_opts.num_bins, &dct_);
  if (opts_.cepstral_lifter != 0.0f)
    ComputeLifterCoeffs(opts_.cepstral_lifter, opts_.num_ceps, &lifter_);
  power_.resize(opts_.frame_opts.PaddedWindowSize() / 2 + 1);
  mel_.resize(opts_.mel_opts.num_bins);
  banks_.Get(1.0f);
}

void MfccComputer::Compute(float raw_log_energy, float vtln_warp,
                           double *frame, float *feature) {
  const MelBanks &banks = banks_.Get(vtln_warp);
  const int32 n = opts_.frame_opts.PaddedWindowSize();
  float log_energy = raw_log_energy;
  if (opts_.use_energy && !opts_.raw_energy) {
    double e = 0.0;
    for (int32 i = 0; i < n; i++) e += frame[i] * frame[i];
    log_energy = static_cast<float>(
        std::log(std::max(e, static_cast<double>(FLT_EPSILON))));
  }
  fft_.PowerSpectrum(frame, power_.data());
  banks.Compute(power_.data(), mel_.data());
  const int32 num_bins = opts_.mel_opts.num_bins, num_ceps = opts_.num_ceps;
  for (int32 b = 0; b < num_bins; b++)
    mel_[b] = std::log(std::max(mel_[b], static_cast<double>(FLT_EPSILON)));
  for (int32 k = 0; k < num_ceps; k++) {
    const double *row = &dct_[static_cast<size_t>(k) * num_bins];
    double sum = 0.0;
    for (int32 b = 0; b < num_bins; b++) sum += row[b] * mel_[b];
    if (!lifter_.empty()) sum *= lifter_[k];
    feature[k] = static_cast<float>(sum);
  }
  if (opts_.use_energy) {
    if (opts_.energy_floor > 0.0f && log_energy < log_energy_floor_)
      log_energy = log_energy_floor_;
    feature[0] = log_energy;
  }
  if (opts_.htk_compat) {
    float c0 = feature[0];
    for (int32 k = 0; k + 1 < num_ceps; k++) feature[k] = feature[k + 1];
    if (!opts_.use_energy) c0 *= static_cast<float>(M_SQRT2);
    feature[num_ceps - 1] = c0;
  }
}

}  // namespace nnet3
