// feat/feature-mfcc.h
// Mel-frequency cepstral coefficients, Kaldi's definition and defaults
// (13 coefficients from 23 mel bins, energy in C0, lifter 22):
//   mel bank energies of the power spectrum -> log(max(x, FLT_EPSILON))
//   -> the first num-ceps rows of the orthonormal DCT-II -> multiplied by
//   1 + Q/2 sin(pi i / Q) (Q = --cepstral-lifter, skipped when 0)
//   -> with --use-energy, C0 replaced by the log energy (raw by default;
//   floored at log(--energy-floor) when that is > 0).
// With --htk-compat the first coefficient moves to the end (scaled by
// sqrt(2) when it is C0 rather than the energy). Computed in float with
// Kaldi's operation order and BLAS calls (the DCT is one cblas_sgemv).
// Invariant: Dim() = num-ceps <= num-mel-bins.
#ifndef NNET3_FEAT_FEATURE_MFCC_H_
#define NNET3_FEAT_FEATURE_MFCC_H_

#include <vector>

#include "feat/feature-common.h"
#include "feat/feature-fbank.h"
#include "feat/fft.h"
#include "feat/mel-computations.h"

namespace nnet3 {

struct MfccOptions {
  FrameExtractionOptions frame_opts;
  MelBanksOptions mel_opts{23};
  int32 num_ceps = 13;
  bool use_energy = true;
  BaseFloat energy_floor = 0.0f;
  bool raw_energy = true;
  BaseFloat cepstral_lifter = 22.0f;
  bool htk_compat = false;
  void Register(OptionsItf *opts);
};

class MfccComputer {
 public:
  typedef MfccOptions Options;
  explicit MfccComputer(const MfccOptions &opts);
  int32 Dim() const { return opts_.num_ceps; }
  bool NeedRawLogEnergy() const { return opts_.use_energy && opts_.raw_energy; }
  const FrameExtractionOptions &GetFrameOptions() const {
    return opts_.frame_opts;
  }
  void Compute(float raw_log_energy, float vtln_warp, float *frame,
               float *feature);

 private:
  MfccOptions opts_;
  float log_energy_floor_ = 0.0f;
  MelBanksCache banks_;
  RealFft fft_;
  int32 dct_stride_ = 0;
  std::vector<float> dct_;     // num_ceps x num_bins, row stride dct_stride_
  std::vector<float> lifter_;  // empty when cepstral_lifter == 0
  std::vector<float> mel_;
};

typedef OfflineFeatureTpl<MfccComputer> Mfcc;

}  // namespace nnet3

#endif  // NNET3_FEAT_FEATURE_MFCC_H_
