// feat/fft.h
// The FFTs of feature extraction, in float. Kaldi computes features in
// float; a transform with another operation order (or in double) differs
// from its output by float rounding, and on spectral bins far below the
// frame's energy that is more than the conformance tolerance. So these
// classes use Kaldi's algorithms with the same float operations in the same
// order (our code; the algorithms are described in docs/feat.md):
//   SplitRadixFft  complex, n = 2^k points, real and imaginary parts in
//                  separate arrays: the recursive split-radix decimation in
//                  frequency (one half-size and two quarter-size transforms
//                  per level, the quarters rotated by w^j and w^3j with
//                  three real multiplications each, twiddles cos/sin of
//                  float angles in float), then the bit-reversal
//                  permutation.
//   MixedRadixFft  complex, any n >= 1, interleaved (re, im): n is split
//                  into its prime factors in increasing order; each level
//                  of size N = P Q permutes the data into P sub-sequences,
//                  transforms them recursively (size Q), and combines them
//                  with direct P-point sums whose rotations are float
//                  recurrences (as Kaldi's general-size FFT does).
//   RealFft        real, any even n >= 2: the complex transform of the n/2
//                  (even, odd) sample pairs (split radix when n is a power
//                  of two, else mixed radix), then the split into bins
//                  with the rotation exp(-2 pi i k / n) advanced by one
//                  float complex multiplication per bin. Output packed as
//                  Kaldi packs it, n floats:
//                  [Re X0, Re X(n/2), Re X1, Im X1, ..., Im X(n/2-1)].
// Sign convention: forward X[k] = sum_j x[j] exp(-2 pi i j k / n); the
// inverse complex transforms use the opposite sign and do not scale.
// Invariants: tables are immutable after construction; Compute()/Forward()
// use the object's workspace, so one object must not be used by two
// threads at once (copies are independent).
#ifndef NNET3_FEAT_FFT_H_
#define NNET3_FEAT_FFT_H_

#include <memory>
#include <vector>

#include "base/types.h"

namespace nnet3 {

class SplitRadixFft {
 public:
  // n a power of two, n >= 1.
  explicit SplitRadixFft(int32 n);
  int32 Size() const { return n_; }
  // In place on n real parts re[] and n imaginary parts im[].
  void Forward(float *re, float *im) const;
  // The opposite sign: the forward transform with re and im exchanged.
  void Inverse(float *re, float *im) const { Forward(im, re); }

 private:
  // The constants of index j of one level of size m (j = 1 .. m/4 - 1,
  // j != m/8), for a = 2 pi j / m and for 3a.
  struct Twiddle {
    float c1, sum1, diff1;  // cos a, -(sin a + cos a), sin a - cos a
    float c3, sum3, diff3;
  };
  void Transform(float *re, float *im, int32 log_size) const;

  int32 n_ = 0, log_n_ = 0;
  // levels_[k]: the twiddles of the level of size 2^(k + 4).
  std::vector<std::vector<Twiddle> > levels_;
  std::vector<int32> swaps_;  // bit-reversal pairs
};

class MixedRadixFft {
 public:
  // n >= 1.
  explicit MixedRadixFft(int32 n);
  int32 Size() const { return n_; }
  // In place on n complex values stored as (re, im) pairs.
  void Forward(float *data) { Run(data, 1, n_, 0, -1); }
  void Inverse(float *data) { Run(data, 1, n_, 0, +1); }

 private:
  // count transforms of size n, stored one after another, using the
  // factors from index f on.
  void Run(float *data, int32 count, int32 n, size_t f, int sign);

  int32 n_;
  std::vector<int32> factors_;  // prime factors of n, increasing
  std::vector<float> work_;
};

class RealFft {
 public:
  // n even, n >= 2.
  explicit RealFft(int32 n);
  RealFft(const RealFft &other);
  RealFft &operator=(const RealFft &other) = delete;
  int32 Size() const { return n_; }
  // In place: n real samples in, the packed spectrum (layout above) out.
  void Compute(float *data);

 private:
  int32 n_;
  std::unique_ptr<SplitRadixFft> split_radix_;  // n a power of two
  std::unique_ptr<MixedRadixFft> mixed_radix_;  // other sizes
  float root_re_ = 1.0f, root_im_ = 0.0f;  // exp(-2 pi i / n), in float
  std::vector<float> re_, im_;
};

// |X[k]|^2 for k = 0 .. n/2 of a packed spectrum of n points, in float and
// in place: data[k] receives bin k (data[n/2 + 1 ..] keeps its values).
void PackedPowerSpectrum(float *data, int32 n);

// True if n is a power of two (n >= 1).
inline bool IsPowerOfTwo(int64 n) { return n > 0 && (n & (n - 1)) == 0; }
// The smallest power of two >= n (n >= 1).
int32 RoundUpToPowerOfTwo(int32 n);

}  // namespace nnet3

#endif  // NNET3_FEAT_FFT_H_
