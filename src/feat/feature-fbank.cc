// feat/feature-fbank.cc
#include "feat/feature-fbank.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "matrix/blas.h"

namespace nnet3 {

void FbankOptions::Register(OptionsItf *opts) {
  frame_opts.Register(opts);
  mel_opts.Register(opts);
  opts->Register("use-energy", &use_energy,
                 "Add a column with the log energy of each frame");
  opts->Register("energy-floor", &energy_floor,
                 "Floor on the energy (absolute, not log; 0 = none)");
  opts->Register("raw-energy", &raw_energy,
                 "Compute the energy before pre-emphasis and windowing");
  opts->Register("htk-compat", &htk_compat,
                 "Put the energy last (alone not enough for HTK features)");
  opts->Register("use-log-fbank", &use_log_fbank,
                 "Output log filter-bank energies (else linear)");
  opts->Register("use-power", &use_power,
                 "Use the power spectrum (else the magnitude)");
}

const MelBanks &MelBanksCache::Get(float vtln_warp) {
  auto it = banks_.find(vtln_warp);
  if (it != banks_.end()) return *it->second;
  std::shared_ptr<const MelBanks> b(new MelBanks(mel_, frame_, vtln_warp));
  banks_[vtln_warp] = b;
  return *b;
}

namespace {
const FrameExtractionOptions &CheckedFrameOptions(
    const FrameExtractionOptions &fo) {
  fo.Check();
  return fo;
}
}  // namespace

FbankComputer::FbankComputer(const FbankOptions &opts)
    : opts_(opts), banks_(opts.mel_opts, CheckedFrameOptions(opts.frame_opts)),
      fft_(opts.frame_opts.PaddedWindowSize()) {
  if (opts_.energy_floor > 0.0f)
    log_energy_floor_ = std::log(opts_.energy_floor);
  mel_.resize(opts_.mel_opts.num_bins);
  banks_.Get(1.0f);  // checks the mel options now
}

void FbankComputer::Compute(float raw_log_energy, float vtln_warp,
                            float *frame, float *feature) {
  const MelBanks &banks = banks_.Get(vtln_warp);
  const int32 n = opts_.frame_opts.PaddedWindowSize();
  float log_energy = raw_log_energy;
  if (opts_.use_energy && !opts_.raw_energy)
    log_energy = std::log(std::max(blas::dot(n, frame, 1, frame, 1),
                                   FLT_EPSILON));
  fft_.Compute(frame);
  PackedPowerSpectrum(frame, n);
  if (!opts_.use_power)
    for (int32 k = 0; k <= n / 2; k++) frame[k] = std::sqrt(frame[k]);
  const int32 num_bins = opts_.mel_opts.num_bins;
  const int32 mel_offset = (opts_.use_energy && !opts_.htk_compat) ? 1 : 0;
  float *out = feature + mel_offset;
  banks.Compute(frame, out);
  if (opts_.use_log_fbank)
    for (int32 b = 0; b < num_bins; b++)
      out[b] = std::log(std::max(out[b], FLT_EPSILON));
  if (opts_.use_energy) {
    if (opts_.energy_floor > 0.0f && log_energy < log_energy_floor_)
      log_energy = log_energy_floor_;
    feature[opts_.htk_compat ? num_bins : 0] = log_energy;
  }
}

}  // namespace nnet3
