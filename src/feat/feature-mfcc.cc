// feat/feature-mfcc.cc
#include "feat/feature-mfcc.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "matrix/blas.h"

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
  // Rows padded to a multiple of four floats, as Kaldi's matrices are.
  const int32 num_bins = opts_.mel_opts.num_bins;
  dct_stride_ = (num_bins + 3) / 4 * 4;
  ComputeDctMatrix(opts_.num_ceps, num_bins, dct_stride_, &dct_);
  if (opts_.cepstral_lifter != 0.0f)
    ComputeLifterCoeffs(opts_.cepstral_lifter, opts_.num_ceps, &lifter_);
  mel_.resize(num_bins);
  banks_.Get(1.0f);
}

void MfccComputer::Compute(float raw_log_energy, float vtln_warp,
                           float *frame, float *feature) {
  const MelBanks &banks = banks_.Get(vtln_warp);
  const int32 n = opts_.frame_opts.PaddedWindowSize();
  float log_energy = raw_log_energy;
  if (opts_.use_energy && !opts_.raw_energy)
    log_energy = std::log(std::max(blas::dot(n, frame, 1, frame, 1),
                                   FLT_EPSILON));
  fft_.Compute(frame);
  PackedPowerSpectrum(frame, n);
  banks.Compute(frame, mel_.data());
  const int32 num_bins = opts_.mel_opts.num_bins, num_ceps = opts_.num_ceps;
  for (int32 b = 0; b < num_bins; b++)
    mel_[b] = std::log(std::max(mel_[b], FLT_EPSILON));
  // Zeroed first: with beta = 0 some BLAS versions still multiply the old
  // contents (an uninitialized NaN would survive).
  std::fill(feature, feature + num_ceps, 0.0f);
  blas::gemv(kNoTrans, num_ceps, num_bins, 1.0f, dct_.data(), dct_stride_,
             mel_.data(), 1, 0.0f, feature, 1);
  if (!lifter_.empty())
    for (int32 k = 0; k < num_ceps; k++) feature[k] *= lifter_[k];
  if (opts_.use_energy) {
    if (opts_.energy_floor > 0.0f && log_energy < log_energy_floor_)
      log_energy = log_energy_floor_;
    feature[0] = log_energy;
  }
  if (opts_.htk_compat) {
    float c0 = feature[0];
    for (int32 k = 0; k + 1 < num_ceps; k++) feature[k] = feature[k + 1];
    if (!opts_.use_energy) c0 = static_cast<float>(c0 * M_SQRT2);
    feature[num_ceps - 1] = c0;
  }
}

}  // namespace nnet3
