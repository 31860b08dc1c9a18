// feat/feature-window.h
// Framing: the options shared by every feature type (Kaldi's
// FrameExtractionOptions: names, defaults and meanings), the number and
// placement of frames, the window functions, and the per-frame signal
// processing that comes before the FFT, in Kaldi's order:
//   copy the frame (reflecting at the edges when --snip-edges=false)
//   -> dither -> remove the DC offset -> raw log energy (if asked)
//   -> pre-emphasis -> multiply by the window -> zero-pad to the FFT size.
// Invariants: with --dither=0 nothing random happens and the output is a
// pure function of the samples and options. Dithering draws from a
// DitherSource owned by the caller, so a seeded source gives repeatable
// features (Kaldi's noise is not reproducible and is not imitated).
// Everything after reading the samples is float, as in Kaldi.
#ifndef NNET3_FEAT_FEATURE_WINDOW_H_
#define NNET3_FEAT_FEATURE_WINDOW_H_

#include <string>
#include <vector>

#include "base/types.h"
#include "util/options.h"

namespace nnet3 {

struct FrameExtractionOptions {
  BaseFloat samp_freq = 16000.0f;
  BaseFloat frame_shift_ms = 10.0f;
  BaseFloat frame_length_ms = 25.0f;
  BaseFloat dither = 1.0f;
  BaseFloat preemph_coeff = 0.97f;
  bool remove_dc_offset = true;
  std::string window_type = "povey";
  bool round_to_power_of_two = true;
  BaseFloat blackman_coeff = 0.42f;
  bool snip_edges = true;
  bool allow_downsample = false;
  bool allow_upsample = false;
  int32 max_feature_vectors = -1;  // online extraction only (as in Kaldi)
  int32 dither_seed = 0;           // ours: seeds the dither noise

  void Register(OptionsItf *opts);
  // Samples per frame shift and per frame (truncated, as Kaldi does).
  int32 WindowShift() const {
    return static_cast<int32>(samp_freq * 0.001 * frame_shift_ms);
  }
  int32 WindowSize() const {
    return static_cast<int32>(samp_freq * 0.001 * frame_length_ms);
  }
  // The FFT size: WindowSize() rounded up to a power of two if asked.
  int32 PaddedWindowSize() const;
  // Throws UserError naming the option if the values cannot work.
  void Check() const;
};

// The first sample of frame f (negative for early frames when
// snip_edges is false: frames are then centred on f * shift + shift / 2).
int64 FirstSampleOfFrame(int32 frame, const FrameExtractionOptions &opts);

// Frames in num_samples samples. snip_edges: frames that fit entirely;
// otherwise round(num_samples / shift) (with flush; without flush only
// frames that end inside the signal).
int32 NumFrames(int64 num_samples, const FrameExtractionOptions &opts,
                bool flush = true);

// The window function, one value per sample of a frame:
//   hanning      0.5 - 0.5 cos(2 pi i / (N-1))
//   hamming      0.54 - 0.46 cos(2 pi i / (N-1))
//   povey        (0.5 - 0.5 cos(2 pi i / (N-1)))^0.85
//   sine         sin(pi i / (N-1))
//   rectangular  1
//   blackman     b - 0.5 cos(2 pi i / (N-1)) + (0.5 - b) cos(4 pi i / (N-1))
// computed in double and stored as float.
class FeatureWindowFunction {
 public:
  FeatureWindowFunction() {}
  explicit FeatureWindowFunction(const FrameExtractionOptions &opts);
  const std::vector<float> &Window() const { return window_; }

 private:
  std::vector<float> window_;
};

// Gaussian noise for dithering: a 64-bit xoshiro256+ generator and
// Marsaglia and Tsang's ziggurat (128 layers; the layer index and the value
// come from different bits, which avoids the original's correlation).
// Fast (a few ns per value) and seedable; exact standard normals up to the
// 32-bit resolution of each draw.
class DitherSource {
 public:
  explicit DitherSource(uint64 seed = 0) { Seed(seed); }
  void Seed(uint64 seed);
  // Adds N(0, 1) * scale to each of the n values (the normal value
  // rounded to float, product and sum in float).
  void AddNoise(float scale, float *data, int32 n);
  // One standard normal value.
  double Gauss();

 private:
  uint64 NextU64();
  double Uniform();  // in (0, 1)
  double Tail(int32 hz, int32 iz);
  uint64 s_[4];
};

// A seed for one utterance, from the user's seed and the utterance's key,
// so that dithered features do not depend on the order of processing.
uint64 UtteranceSeed(int32 seed, const std::string &key);

// Extracts frame f of wave[0 .. num_samples) into window (PaddedWindowSize()
// floats) and processes it as described at the top, in float with Kaldi's
// operation order: the frame sum for the DC offset and the energy are BLAS
// dot products (cblas_sdot; the sum as a dot product with a stride-0 one),
// as in Kaldi. If log_energy is not null, it receives
// log(max(sum of squares after DC removal, FLT_EPSILON)).
// dither may be null when opts.dither == 0.
void ExtractWindow(const float *wave, int64 num_samples, int32 f,
                   const FrameExtractionOptions &opts,
                   const FeatureWindowFunction &window_function,
                   DitherSource *dither, float *window, float *log_energy);

}  // namespace nnet3

#endif  // NNET3_FEAT_FEATURE_WINDOW_H_
