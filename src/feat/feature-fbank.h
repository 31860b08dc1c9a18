// feat/feature-fbank.h
// Log mel filter-bank ("fbank") features, Kaldi's definition and defaults
// (23 bins, no energy, log of power spectra):
//   power spectrum of the processed frame (or its square root with
//   --use-power=false) -> mel bank sums -> log(max(x, FLT_EPSILON)) unless
//   --use-log-fbank=false; with --use-energy, column 0 (the last column
//   with --htk-compat) holds the log energy: the raw one (before
//   pre-emphasis and windowing) by default, else that of the windowed
//   frame; both floored at log(--energy-floor) when that is > 0.
// Every step is float, in Kaldi's order and with its BLAS calls (see
// docs/feat.md), so that the output matches Kaldi's to float rounding.
// Invariant: Dim() = num-mel-bins + (use-energy ? 1 : 0).
#ifndef NNET3_FEAT_FEATURE_FBANK_H_
#define NNET3_FEAT_FEATURE_FBANK_H_

#include <map>
#include <memory>
#include <vector>

#include "feat/feature-common.h"
#include "feat/feature-window.h"
#include "feat/fft.h"
#include "feat/mel-computations.h"

namespace nnet3 {

struct FbankOptions {
  FrameExtractionOptions frame_opts;
  MelBanksOptions mel_opts{23};
  bool use_energy = false;
  BaseFloat energy_floor = 0.0f;
  bool raw_energy = true;
  bool htk_compat = false;
  bool use_log_fbank = true;
  bool use_power = true;
  void Register(OptionsItf *opts);
};

// Mel banks per VTLN warp factor, built on first use and shared between
// copies (they are immutable).
class MelBanksCache {
 public:
  MelBanksCache(const MelBanksOptions &mel, const FrameExtractionOptions &fo)
      : mel_(mel), frame_(fo) {}
  const MelBanks &Get(float vtln_warp);

 private:
  MelBanksOptions mel_;
  FrameExtractionOptions frame_;
  std::map<float, std::shared_ptr<const MelBanks> > banks_;
};

class FbankComputer {
 public:
  typedef FbankOptions Options;
  explicit FbankComputer(const FbankOptions &opts);
  int32 Dim() const {
    return opts_.mel_opts.num_bins + (opts_.use_energy ? 1 : 0);
  }
  bool NeedRawLogEnergy() const { return opts_.use_energy && opts_.raw_energy; }
  const FrameExtractionOptions &GetFrameOptions() const {
    return opts_.frame_opts;
  }
  void Compute(float raw_log_energy, float vtln_warp, float *frame,
               float *feature);

 private:
  FbankOptions opts_;
  float log_energy_floor_ = 0.0f;
  MelBanksCache banks_;
  RealFft fft_;
  std::vector<float> mel_;
};

typedef OfflineFeatureTpl<FbankComputer> Fbank;

}  // namespace nnet3

#endif  // NNET3_FEAT_FEATURE_FBANK_H_
