// matrix/exp-kernel.h
// The exponential over float arrays, written so that the compiler turns the
// loops into SIMD code (the library's elementwise hot spot: log-softmax and
// its derivative run exp on every output of the network, and the scalar
// libm call cost more than every other non-GEMM step of inference).
//
// Method: x = n ln2 + r with n = round(x / ln2) and |r| <= ln2/2 (ln2 split
// in two parts so that n * ln2_hi is exact), exp(r) by its Taylor series to
// degree 7 (truncation below 6e-9 relative), times 2^n built from the
// exponent bits. The result is within 2 ulp of std::exp on [-87, 88]; Exp()
// sends inputs outside that range, infinities and NaN to std::exp, so it
// equals std::exp's behaviour at the edges (overflow to inf, underflow to
// denormals and zero, NaN propagated); SumExp() counts the terms below
// 2^-125 as zero (see there). Results depend only on the inputs,
// never on the alignment or the length of the array, so every caller is
// deterministic.
//
// Exp, SumExp, Max and AddConstant are compiled (exp-kernel.cc) for
// AVX-512, AVX2 and baseline x86-64, and the loader picks the widest the
// CPU has. No variant uses FMA and the file is built without contraction,
// so every variant does the same float operations in the same order: the
// same inputs give the same bits on every x86-64 CPU. The portable::
// entries are the baseline variant alone, for the test that checks this.
#ifndef NNET3_MATRIX_EXP_KERNEL_H_
#define NNET3_MATRIX_EXP_KERNEL_H_

#include <cmath>
#include <cstdint>
#include <cstring>

namespace nnet3 {
namespace exp_kernel {

// Inputs in [kLow, kHigh] take the polynomial path; n then lies in
// [-126, 127], so 2^n is a normal float.
constexpr float kLow = -87.0f, kHigh = 88.0f;

// exp(v) for v in [kLow, kHigh]; callers keep v in that range (outside it
// the conversion of n to an integer would overflow).
inline float PolyExp(float v) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f;         // 355/512, exact
  constexpr float kLn2Lo = -2.12194440e-4f;      // ln2 - kLn2Hi
  constexpr float kRound = 12582912.0f;          // 1.5 * 2^23
  // Round to nearest by the 1.5 * 2^23 trick (valid for |t| < 2^22).
  const float t = v * kLog2e;
  const float nf = (t + kRound) - kRound;
  const float r = (v - nf * kLn2Hi) - nf * kLn2Lo;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(nf) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof(scale));
  return p * scale;
}

// 1 if some x[i], i < n, lies outside [lo, hi] or is NaN.
inline int AnyOutside(const float *x, int n, float lo, float hi) {
  int outside = 0;
  for (int i = 0; i < n; i++) outside |= !((x[i] >= lo) & (x[i] <= hi));
  return outside;
}

// y[i] = exp(x[i]) for i < n. x and y may be the same array.
void Exp(const float *x, float *y, int n);

// The sum of exp(x[i]) for i < n, accumulated in eight interleaved partial
// sums (lane k takes the elements i = k mod 8) which are then added in a
// fixed order. Terms with x[i] < kLow (each below 2^-125) count as zero:
// the absolute error is below n * 2^-125, which changes nothing where the
// sum is at least 1, as in a log-softmax after subtracting the maximum
// (where the denormal arithmetic they would need is many times slower than
// the rest). Above kHigh, infinities and NaN give what std::exp gives.
float SumExp(const float *x, int n);

// The largest element of x[0..n) that compares greater than -infinity
// (NaN is skipped, as the sequential "if (x > max) max = x" loop skips it),
// in eight partial maxima; the maximum is exact, so the order is immaterial.
float Max(const float *x, int n);

// y[i] = x[i] + c for i < n (x and y may be the same array).
void AddConstant(const float *x, float c, float *y, int n);

// y = log-softmax of x (x and y may be the same array): y[i] = x[i] - max,
// then y[i] += -log(SumExp(y)), where max = Max(x). Returns max + log(sum),
// the log of the normalizer. Exactly the operations of copying x to y and
// calling Vector<float>::ApplyLogSoftMax on y, in one pass fewer.
float LogSoftMax(const float *x, float *y, int n);

// The same four kernels, baseline x86-64 code only (tests compare the
// dispatched ones with these bit for bit).
namespace portable {
void Exp(const float *x, float *y, int n);
float SumExp(const float *x, int n);
float Max(const float *x, int n);
void AddConstant(const float *x, float c, float *y, int n);
}  // namespace portable

}  // namespace exp_kernel
}  // namespace nnet3

#endif  // NNET3_MATRIX_EXP_KERNEL_H_
