// feat/fft.h
// Our own discrete Fourier transforms for feature extraction (no external
// FFT library):
//   ComplexFft  any size n >= 1. Powers of two use an iterative radix-2
//               decimation-in-time transform with per-stage twiddle tables
//               (contiguous, so every stage reads them in order); other
//               sizes use Bluestein's chirp-z algorithm on top of a
//               power-of-two transform, so every size is O(n log n).
//   RealFft     any even size n: one complex transform of size n/2 on the
//               even/odd samples packed as real/imaginary parts, then the
//               standard split into the n/2 + 1 bins of the real signal.
// All arithmetic is in double: features are computed from float samples,
// and double keeps the transform's own rounding far below the float
// rounding of the input (Kaldi computes in float; see docs/feat.md).
// Sign convention: X[k] = sum_j x[j] exp(-2 pi i j k / n) (forward), and
// Inverse() is the unscaled transform with the opposite sign.
// Objects hold workspace, so one object must not be used by two threads at
// once; copies are independent.
#ifndef NNET3_FEAT_FFT_H_
#define NNET3_FEAT_FFT_H_

#include <memory>
#include <vector>

#include "base/types.h"

namespace nnet3 {

class ComplexFft {
 public:
  // n >= 1.
  explicit ComplexFft(int32 n);
  ComplexFft(const ComplexFft &other);
  ComplexFft &operator=(const ComplexFft &other);
  ~ComplexFft();

  int32 Size() const { return n_; }
  // In place; data holds n complex numbers as (re, im) pairs.
  void Forward(double *data);
  void Inverse(double *data);

 private:
  void PowerOfTwo(double *data, bool inverse) const;
  void Bluestein(double *data, bool inverse);

  int32 n_ = 0;
  bool pow2_ = false;
  // Power-of-two case: bit-reversal permutation (pairs to swap) and the
  // twiddles of every stage, stage with half-span h at offset 2 * (h - 1).
  std::vector<int32> swaps_;
  std::vector<double> twiddles_;
  // Bluestein case: the chirp exp(-i pi j^2 / n), the transformed
  // convolution kernel, the inner power-of-two transform and workspace.
  std::vector<double> chirp_;
  std::vector<double> kernel_fft_;
  std::unique_ptr<ComplexFft> inner_;
  std::vector<double> work_;
};

class RealFft {
 public:
  // n even, n >= 2.
  explicit RealFft(int32 n);

  int32 Size() const { return n_; }
  // Transforms n real values; out receives the bins 0 .. n/2 as (re, im)
  // pairs (n + 2 doubles; the imaginary parts of bins 0 and n/2 are 0).
  void Compute(const double *in, double *out);
  // |X[k]|^2 for k = 0 .. n/2 (n/2 + 1 values) of n samples.
  void PowerSpectrum(const double *in, double *power);

 private:
  // Packs n samples as n/2 complex values in work_, transforms them, and
  // writes bin k (k = 0 .. n/2) through emit(k, re, im).
  template <class Emit>
  void Run(Emit emit);

  int32 n_;
  ComplexFft half_;
  std::vector<double> rotation_;  // exp(-2 pi i k / n), k = 0 .. n/2
  std::vector<double> work_;      // n doubles
};

// True if n is a power of two (n >= 1).
inline bool IsPowerOfTwo(int64 n) { return n > 0 && (n & (n - 1)) == 0; }
// The smallest power of two >= n (n >= 1).
int32 RoundUpToPowerOfTwo(int32 n);

}  // namespace nnet3

#endif  // NNET3_FEAT_FFT_H_
