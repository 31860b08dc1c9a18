// feat/mel-computations.cc
#include "feat/mel-computations.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/log.h"
#include "feat/feature-window.h"
#include "matrix/blas.h"

namespace nnet3 {

void MelBanksOptions::Register(OptionsItf *opts) {
  opts->Register("num-mel-bins", &num_bins,
                 "Number of triangular mel-frequency bins");
  opts->Register("low-freq", &low_freq, "Low cutoff frequency of the mel bins (Hz)");
  opts->Register("high-freq", &high_freq,
                 "High cutoff frequency of the mel bins (Hz; if <= 0, an "
                 "offset from the Nyquist frequency)");
  opts->Register("vtln-low", &vtln_low,
                 "Low inflection point of the piecewise-linear VTLN warp (Hz)");
  opts->Register("vtln-high", &vtln_high,
                 "High inflection point of the piecewise-linear VTLN warp "
                 "(Hz; if negative, an offset from the Nyquist frequency)");
  opts->Register("debug-mel", &debug_mel,
                 "Log the offset and weights of every mel bin");
}

float MelBanks::MelScale(float freq) {
  return 1127.0f * logf(1.0f + freq / 700.0f);
}

float MelBanks::InverseMelScale(float mel) {
  return 700.0f * (expf(mel / 1127.0f) - 1.0f);
}

float MelBanks::VtlnWarpFreq(float vtln_low, float vtln_high, float low_freq,
                             float high_freq, float warp, float freq) {
  if (freq < low_freq || freq > high_freq) return freq;
  float l = vtln_low * std::max(1.0f, warp);
  float h = vtln_high * std::min(1.0f, warp);
  float scale = 1.0f / warp;
  if (!(l > low_freq && h < high_freq))
    NNET3_ERR << "VTLN warp factor " << warp << " moves the inflection points ("
              << l << ", " << h << ") outside (--low-freq=" << low_freq
              << ", high frequency " << high_freq
              << "): check --vtln-low, --vtln-high and the warp factor";
  float fl = scale * l, fh = scale * h;
  float scale_left = (fl - low_freq) / (l - low_freq);
  float scale_right = (high_freq - fh) / (high_freq - h);
  if (freq < l) return low_freq + scale_left * (freq - low_freq);
  if (freq < h) return scale * freq;
  return high_freq + scale_right * (freq - high_freq);
}

float MelBanks::VtlnWarpMelFreq(float vtln_low, float vtln_high,
                                float low_freq, float high_freq, float warp,
                                float mel) {
  return MelScale(VtlnWarpFreq(vtln_low, vtln_high, low_freq, high_freq, warp,
                               InverseMelScale(mel)));
}

MelBanks::MelBanks(const MelBanksOptions &opts,
                   const FrameExtractionOptions &frame_opts,
                   float vtln_warp) {
  const int32 num_bins = opts.num_bins;
  if (num_bins < 3)
    NNET3_ERR << "Invalid --num-mel-bins=" << num_bins
              << " (at least 3 are needed)";
  const float sample_freq = frame_opts.samp_freq;
  const int32 padded = frame_opts.PaddedWindowSize();
  NNET3_ASSERT(padded % 2 == 0);
  const int32 num_fft_bins = padded / 2;
  const float nyquist = 0.5f * sample_freq;
  float low_freq = opts.low_freq;
  float high_freq = opts.high_freq > 0.0f ? opts.high_freq
                                          : nyquist + opts.high_freq;
  if (low_freq < 0.0f || low_freq >= nyquist || high_freq <= 0.0f ||
      high_freq > nyquist || high_freq <= low_freq)
    NNET3_ERR << "Bad mel bank frequencies: --low-freq=" << opts.low_freq
              << " and --high-freq=" << opts.high_freq << " give " << low_freq
              << " .. " << high_freq << " Hz, but the Nyquist frequency is "
              << nyquist << " Hz";
  const float fft_bin_width = sample_freq / padded;
  const float mel_low = MelScale(low_freq), mel_high = MelScale(high_freq);
  const float mel_delta = (mel_high - mel_low) / (num_bins + 1);

  float vtln_low = opts.vtln_low, vtln_high = opts.vtln_high;
  if (vtln_high < 0.0f) vtln_high += nyquist;
  if (vtln_warp != 1.0f &&
      (vtln_low < 0.0f || vtln_low <= low_freq || vtln_low >= high_freq ||
       vtln_high <= 0.0f || vtln_high >= high_freq || vtln_high <= vtln_low))
    NNET3_ERR << "Bad VTLN options: --vtln-low=" << opts.vtln_low
              << " and --vtln-high=" << opts.vtln_high << " give " << vtln_low
              << " .. " << vtln_high << " Hz, which must lie strictly inside "
              << "the mel range " << low_freq << " .. " << high_freq << " Hz";

  // The mel value of every FFT bin, once.
  std::vector<float> fft_mel(num_fft_bins);
  for (int32 i = 0; i < num_fft_bins; i++)
    fft_mel[i] = MelScale(fft_bin_width * i);

  offsets_.resize(num_bins);
  weights_.resize(num_bins);
  center_freqs_.resize(num_bins);
  for (int32 b = 0; b < num_bins; b++) {
    float left = mel_low + b * mel_delta, center = mel_low + (b + 1) * mel_delta,
          right = mel_low + (b + 2) * mel_delta;
    if (vtln_warp != 1.0f) {
      left = VtlnWarpMelFreq(vtln_low, vtln_high, low_freq, high_freq,
                             vtln_warp, left);
      center = VtlnWarpMelFreq(vtln_low, vtln_high, low_freq, high_freq,
                               vtln_warp, center);
      right = VtlnWarpMelFreq(vtln_low, vtln_high, low_freq, high_freq,
                              vtln_warp, right);
    }
    center_freqs_[b] = InverseMelScale(center);
    int32 first = -1, last = -1;
    std::vector<float> w(num_fft_bins, 0.0f);
    for (int32 i = 0; i < num_fft_bins; i++) {
      float mel = fft_mel[i];
      if (mel > left && mel < right) {
        w[i] = (mel <= center) ? (mel - left) / (center - left)
                               : (right - mel) / (right - center);
        if (first < 0) first = i;
        last = i;
      }
    }
    if (first < 0)
      NNET3_ERR << "Mel bin " << b << " of " << num_bins
                << " covers no FFT bin: --num-mel-bins is too large for an "
                << "FFT of " << padded << " points (try fewer bins)";
    offsets_[b] = first;
    weights_[b].assign(w.begin() + first, w.begin() + last + 1);
  }
  if (opts.debug_mel) {
    for (int32 b = 0; b < num_bins; b++) {
      std::ostringstream os;
      for (float x : weights_[b]) os << ' ' << x;
      NNET3_LOG << "mel bin " << b << ": offset " << offsets_[b]
                << ", weights [" << os.str() << " ]";
    }
  }
}

void MelBanks::Compute(const float *power, float *out) const {
  const int32 num_bins = NumBins();
  for (int32 b = 0; b < num_bins; b++) {
    const int32 n = static_cast<int32>(weights_[b].size());
    out[b] = blas::dot(n, weights_[b].data(), 1, power + offsets_[b], 1);
  }
}

void ComputeDctMatrix(int32 rows, int32 n, int32 stride,
                      std::vector<float> *dct) {
  NNET3_ASSERT(rows >= 1 && rows <= n && stride >= n);
  dct->assign(static_cast<size_t>(rows) * stride, 0.0f);
  const float norm0 = static_cast<float>(std::sqrt(1.0 / static_cast<float>(n)));
  const float norm = static_cast<float>(std::sqrt(2.0 / static_cast<float>(n)));
  for (int32 k = 0; k < rows; k++) {
    float *row = dct->data() + static_cast<size_t>(k) * stride;
    for (int32 j = 0; j < n; j++) {
      row[j] = (k == 0) ? norm0
                        : static_cast<float>(
                              norm * std::cos(M_PI / n * (j + 0.5) * k));
    }
  }
}

void ComputeLifterCoeffs(float q, int32 dim, std::vector<float> *coeffs) {
  coeffs->resize(dim);
  for (int32 i = 0; i < dim; i++)
    (*coeffs)[i] = static_cast<float>(1.0 + 0.5 * q * std::sin(M_PI * i / q));
}

}  // namespace nnet3
