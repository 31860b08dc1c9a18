// feat/feature-window.cc
#include "feat/feature-window.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "base/log.h"
#include "feat/fft.h"
#include "matrix/blas.h"

namespace nnet3 {

void FrameExtractionOptions::Register(OptionsItf *opts) {
  opts->Register("sample-frequency", &samp_freq,
                 "Sample frequency of the audio in Hz (must match the wav "
                 "files)");
  opts->Register("frame-length", &frame_length_ms, "Frame length in ms");
  opts->Register("frame-shift", &frame_shift_ms, "Frame shift in ms");
  opts->Register("preemphasis-coefficient", &preemph_coeff,
                 "Pre-emphasis coefficient: x[i] -= c * x[i-1]");
  opts->Register("remove-dc-offset", &remove_dc_offset,
                 "Subtract each frame's mean before further processing");
  opts->Register("dither", &dither,
                 "Standard deviation of the Gaussian noise added to each "
                 "frame (0 = none; then consider --energy-floor)");
  opts->Register("dither-seed", &dither_seed,
                 "Seed of the dither noise (with the utterance key); the "
                 "same seed gives the same features");
  opts->Register("window-type", &window_type,
                 "Window function: povey, hamming, hanning, sine, "
                 "rectangular or blackman");
  opts->Register("blackman-coeff", &blackman_coeff,
                 "Constant of the generalized Blackman window");
  opts->Register("round-to-power-of-two", &round_to_power_of_two,
                 "Zero-pad each frame to a power of two for the FFT");
  opts->Register("snip-edges", &snip_edges,
                 "If true, only frames that fit entirely in the audio are "
                 "output (the count depends on the frame length); if false, "
                 "the count is round(samples / shift) and the audio is "
                 "reflected at the edges");
  opts->Register("allow-downsample", &allow_downsample,
                 "If true, audio at a higher rate than --sample-frequency is "
                 "resampled down to it (else that is an error)");
  opts->Register("allow-upsample", &allow_upsample,
                 "If true, audio at a lower rate than --sample-frequency is "
                 "resampled up to it (else that is an error)");
  opts->Register("max-feature-vectors", &max_feature_vectors,
                 "Memory limit of online feature extraction (frames kept); "
                 "offline extraction keeps all frames, so it does not apply "
                 "to these tools");
}

int32 FrameExtractionOptions::PaddedWindowSize() const {
  int32 size = WindowSize();
  return round_to_power_of_two ? RoundUpToPowerOfTwo(std::max(size, 1))
                               : size;
}

void FrameExtractionOptions::Check() const {
  if (!(samp_freq > 0))
    NNET3_ERR << "Invalid --sample-frequency=" << samp_freq;
  if (WindowShift() <= 0)
    NNET3_ERR << "Invalid --frame-shift=" << frame_shift_ms
              << " (less than one sample at " << samp_freq << " Hz)";
  if (WindowSize() < 2)
    NNET3_ERR << "Invalid --frame-length=" << frame_length_ms
              << " (fewer than two samples at " << samp_freq << " Hz)";
  if (!(preemph_coeff >= 0.0f && preemph_coeff <= 1.0f))
    NNET3_ERR << "Invalid --preemphasis-coefficient=" << preemph_coeff
              << " (must be in [0, 1])";
  if (window_type != "povey" && window_type != "hamming" &&
      window_type != "hanning" && window_type != "sine" &&
      window_type != "rectangular" && window_type != "blackman")
    NNET3_ERR << "Invalid --window-type=" << window_type
              << " (expected povey, hamming, hanning, sine, rectangular or "
              << "blackman)";
  if (PaddedWindowSize() % 2 != 0)
    NNET3_ERR << "The FFT size " << PaddedWindowSize()
              << " is odd: with --round-to-power-of-two=false the frame "
              << "must have an even number of samples (--frame-length="
              << frame_length_ms << " at " << samp_freq << " Hz)";
}

int64 FirstSampleOfFrame(int32 frame, const FrameExtractionOptions &opts) {
  int64 shift = opts.WindowShift();
  if (opts.snip_edges) return frame * shift;
  int64 midpoint = shift * frame + shift / 2;
  return midpoint - opts.WindowSize() / 2;
}

int32 NumFrames(int64 num_samples, const FrameExtractionOptions &opts,
                bool flush) {
  int64 shift = opts.WindowShift(), length = opts.WindowSize();
  if (opts.snip_edges) {
    if (num_samples < length) return 0;
    return static_cast<int32>(1 + (num_samples - length) / shift);
  }
  int64 num_frames = (num_samples + shift / 2) / shift;
  if (flush) return static_cast<int32>(num_frames);
  // Without flush, only frames that end inside the signal.
  while (num_frames > 0 &&
         FirstSampleOfFrame(static_cast<int32>(num_frames - 1), opts) +
                 length > num_samples)
    num_frames--;
  return static_cast<int32>(num_frames);
}

FeatureWindowFunction::FeatureWindowFunction(
    const FrameExtractionOptions &opts) {
  int32 n = opts.WindowSize();
  NNET3_ASSERT(n >= 2);
  window_.resize(n);
  double a = 2.0 * M_PI / (n - 1);
  const std::string &type = opts.window_type;
  for (int32 i = 0; i < n; i++) {
    double x = a * i, w = 1.0;
    if (type == "hanning") {
      w = 0.5 - 0.5 * std::cos(x);
    } else if (type == "hamming") {
      w = 0.54 - 0.46 * std::cos(x);
    } else if (type == "povey") {
      w = std::pow(0.5 - 0.5 * std::cos(x), 0.85);
    } else if (type == "sine") {
      w = std::sin(0.5 * x);
    } else if (type == "rectangular") {
      w = 1.0;
    } else if (type == "blackman") {
      double b = opts.blackman_coeff;
      w = b - 0.5 * std::cos(x) + (0.5 - b) * std::cos(2.0 * x);
    } else {
      NNET3_ERR << "Invalid --window-type=" << type;
    }
    window_[i] = static_cast<float>(w);
  }
}

namespace {
inline uint64 Rotl(uint64 x, int k) { return (x << k) | (x >> (64 - k)); }
inline uint64 SplitMix64(uint64 *state) {
  uint64 z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Ziggurat tables for the standard normal (Marsaglia and Tsang, 2000):
// layer i is accepted at once when |hz| < k[i]; its value is hz * w[i];
// f[i] is the density at the layer's edge.
struct ZigguratTables {
  uint32 k[128];
  double w[128], f[128];
  ZigguratTables() {
    const double m1 = 2147483648.0;  // 2^31
    double dn = 3.442619855899, tn = dn;
    const double vn = 9.91256303526217e-3;
    double q = vn / std::exp(-0.5 * dn * dn);
    k[0] = static_cast<uint32>((dn / q) * m1);
    k[1] = 0;
    w[0] = q / m1;
    w[127] = dn / m1;
    f[0] = 1.0;
    f[127] = std::exp(-0.5 * dn * dn);
    for (int i = 126; i >= 1; i--) {
      dn = std::sqrt(-2.0 * std::log(vn / dn + std::exp(-0.5 * dn * dn)));
      k[i + 1] = static_cast<uint32>((dn / tn) * m1);
      tn = dn;
      f[i] = std::exp(-0.5 * dn * dn);
      w[i] = dn / m1;
    }
  }
};
const ZigguratTables &Ziggurat() {
  static const ZigguratTables tables;
  return tables;
}
const double kZigguratR = 3.442620;
}  // namespace

void DitherSource::Seed(uint64 seed) {
  uint64 st = seed;
  for (int i = 0; i < 4; i++) s_[i] = SplitMix64(&st);
}

inline uint64 DitherSource::NextU64() {
  uint64 result = s_[0] + s_[3];
  uint64 t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

double DitherSource::Uniform() {
  // 53 high bits, shifted off zero.
  return (static_cast<double>(NextU64() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

double DitherSource::Tail(int32 hz, int32 iz) {
  const ZigguratTables &z = Ziggurat();
  while (true) {
    double x = hz * z.w[iz];
    if (iz == 0) {  // the base strip: sample the tail beyond r
      double y;
      do {
        x = -std::log(Uniform()) / kZigguratR;
        y = -std::log(Uniform());
      } while (y + y < x * x);
      return hz > 0 ? kZigguratR + x : -kZigguratR - x;
    }
    if (z.f[iz] + Uniform() * (z.f[iz - 1] - z.f[iz]) < std::exp(-0.5 * x * x))
      return x;
    uint64 u = NextU64();
    hz = static_cast<int32>(u >> 32);
    iz = static_cast<int32>((u >> 8) & 127);
    if (static_cast<uint32>(std::abs(static_cast<int64>(hz))) < z.k[iz])
      return hz * z.w[iz];
  }
}

double DitherSource::Gauss() {
  const ZigguratTables &z = Ziggurat();
  uint64 u = NextU64();
  int32 hz = static_cast<int32>(u >> 32);        // value and sign: high bits
  int32 iz = static_cast<int32>((u >> 8) & 127);  // layer: other bits
  if (static_cast<uint32>(std::abs(static_cast<int64>(hz))) < z.k[iz])
    return hz * z.w[iz];
  return Tail(hz, iz);
}

void DitherSource::AddNoise(float scale, float *data, int32 n) {
  for (int32 i = 0; i < n; i++) data[i] += static_cast<float>(Gauss()) * scale;
}

uint64 UtteranceSeed(int32 seed, const std::string &key) {
  // FNV-1a over the key, mixed with the seed.
  uint64 h = 1469598103934665603ULL;
  for (unsigned char c : key) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  uint64 st = h ^ (static_cast<uint64>(static_cast<uint32>(seed)) << 32);
  return SplitMix64(&st);
}

void ExtractWindow(const float *wave, int64 num_samples, int32 f,
                   const FrameExtractionOptions &opts,
                   const FeatureWindowFunction &window_function,
                   DitherSource *dither, float *window, float *log_energy) {
  const int32 length = opts.WindowSize(), padded = opts.PaddedWindowSize();
  NNET3_ASSERT(num_samples > 0);
  int64 start = FirstSampleOfFrame(f, opts);
  if (start >= 0 && start + length <= num_samples) {
    std::memcpy(window, wave + start, sizeof(float) * length);
  } else {
    // Reflect at the edges: -1 -> 0, -2 -> 1; n -> n-1, n+1 -> n-2
    // (repeatedly, for audio shorter than a frame).
    for (int32 s = 0; s < length; s++) {
      int64 j = start + s;
      while (j < 0 || j >= num_samples) {
        if (j < 0) j = -j - 1;
        else j = 2 * num_samples - 1 - j;
      }
      window[s] = wave[j];
    }
  }
  for (int32 s = length; s < padded; s++) window[s] = 0.0f;

  if (opts.dither != 0.0f) {
    NNET3_ASSERT(dither != nullptr);
    dither->AddNoise(opts.dither, window, length);
  }
  if (opts.remove_dc_offset) {
    const float one = 1.0f;
    float offset = -blas::dot(length, window, 1, &one, 0) / length;
    for (int32 s = 0; s < length; s++) window[s] += offset;
  }
  if (log_energy != nullptr) {
    float energy = blas::dot(length, window, 1, window, 1);
    *log_energy = std::log(std::max(energy, FLT_EPSILON));
  }
  if (opts.preemph_coeff != 0.0f) {
    const float c = opts.preemph_coeff;
    for (int32 s = length - 1; s > 0; s--) window[s] -= c * window[s - 1];
    window[0] -= c * window[0];
  }
  const float *w = window_function.Window().data();
  for (int32 s = 0; s < length; s++) window[s] *= w[s];
}

}  // namespace nnet3
