// feat/mel-computations.h
// Triangular mel filter banks (with Kaldi's piecewise-linear VTLN warp of
// the bin edges), the DCT matrix and cepstral liftering used by MFCCs.
// Definitions (Kaldi's, matched to float precision because bin membership
// depends on exact comparisons):
//   mel(f) = 1127 ln(1 + f / 700)   (computed in float)
//   bins are evenly spaced in mel between low-freq and high-freq
//   (high-freq <= 0 means Nyquist + high-freq); bin b spans mel
//   [lo + b d, lo + (b+2) d], d = (hi - lo) / (num_bins + 1), and FFT bin i
//   (frequency i * sample_freq / fft_size, i < fft_size / 2) gets weight
//   rising linearly from 0 at the left edge to 1 at the centre and back to
//   0 at the right edge (both edges excluded).
// Invariant: every bin has at least one FFT bin with non-zero weight, else
// construction fails with a message suggesting fewer bins.
#ifndef NNET3_FEAT_MEL_COMPUTATIONS_H_
#define NNET3_FEAT_MEL_COMPUTATIONS_H_

#include <vector>

#include "base/types.h"
#include "util/options.h"

namespace nnet3 {

struct FrameExtractionOptions;

struct MelBanksOptions {
  int32 num_bins = 25;
  BaseFloat low_freq = 20.0f;
  BaseFloat high_freq = 0.0f;    // <= 0: offset from the Nyquist frequency
  BaseFloat vtln_low = 100.0f;   // lower VTLN inflection point (Hz)
  BaseFloat vtln_high = -500.0f; // upper one; < 0: offset from Nyquist
  bool debug_mel = false;  // logs every bin's offset and weights

  explicit MelBanksOptions(int32 bins = 25) : num_bins(bins) {}
  void Register(OptionsItf *opts);
};

class MelBanks {
 public:
  static float MelScale(float freq);
  static float InverseMelScale(float mel);
  // Kaldi's VTLN warp: piecewise linear in frequency with inflection
  // points l = vtln_low * max(1, warp) and h = vtln_high * min(1, warp),
  // slope 1 / warp between them, and F(low_freq) = low_freq,
  // F(high_freq) = high_freq. Frequencies outside [low, high] unchanged.
  static float VtlnWarpFreq(float vtln_low, float vtln_high, float low_freq,
                            float high_freq, float warp, float freq);
  static float VtlnWarpMelFreq(float vtln_low, float vtln_high,
                               float low_freq, float high_freq, float warp,
                               float mel);

  // Throws UserError on bad frequencies (naming the options).
  MelBanks(const MelBanksOptions &opts,
           const FrameExtractionOptions &frame_opts, float vtln_warp);

  int32 NumBins() const { return static_cast<int32>(offsets_.size()); }
  // First FFT bin with non-zero weight, and the weights from there on.
  int32 Offset(int32 bin) const { return offsets_[bin]; }
  const std::vector<float> &Weights(int32 bin) const { return weights_[bin]; }
  const std::vector<float> &CenterFreqs() const { return center_freqs_; }

  // out[b] = sum_i weight[b][i] * power[offset[b] + i]; power holds
  // fft_size / 2 + 1 values. Each sum is a float BLAS dot product
  // (cblas_sdot), as Kaldi computes it.
  void Compute(const float *power, float *out) const;

 private:
  std::vector<int32> offsets_;
  std::vector<std::vector<float> > weights_;
  std::vector<float> center_freqs_;
};

// Rows 0 .. rows-1 of the N-point DCT-II used for MFCCs, as float values
// computed the way Kaldi does: row 0 is sqrt(1/N); row k > 0 is
// s * cos(pi / N * (n + 0.5) * k) with s = sqrt(2/N) rounded to float and
// the product taken in double. Row-major with row stride `stride`
// (>= n; the padding is zero).
void ComputeDctMatrix(int32 rows, int32 n, int32 stride,
                      std::vector<float> *dct);

// Lifter coefficients 1 + Q/2 sin(pi i / Q), i = 0 .. dim - 1 (in double,
// rounded to float).
void ComputeLifterCoeffs(float q, int32 dim, std::vector<float> *coeffs);

}  // namespace nnet3

#endif  // NNET3_FEAT_MEL_COMPUTATIONS_H_
