// matrix/exp-kernel.cc
// The array loops of exp-kernel.h, each compiled once per instruction set
// (target clones, chosen by the loader) and once more as plain baseline
// code (exp_kernel::portable). The file is built with -ffp-contract=off
// (src/matrix/CMakeLists.txt) and no variant enables FMA, so the variants
// differ only in vector width, never in the float operations they do.
#include "matrix/exp-kernel.h"

#include <cmath>

// GCC on x86-64 with an ifunc-capable C library (glibc) gets the clones;
// anything else builds the baseline code alone. Not clang: clang 14, seeing
// the header's declarations without the attribute, emits one function with
// the first target's (AVX-512) code and no resolver, which faults on CPUs
// without AVX-512 (the sanitizer build did, on a 2-core AVX2 machine).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    defined(__linux__)
#define NNET3_KERNEL_CLONES \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define NNET3_KERNEL_CLONES
#endif
#define NNET3_KERNEL_BODY static inline __attribute__((always_inline))

namespace nnet3 {
namespace exp_kernel {
namespace {

NNET3_KERNEL_BODY void ExpBody(const float *x, float *y, int n) {
  constexpr int kBlock = 256;
  for (int start = 0; start < n; start += kBlock) {
    const int len = (n - start < kBlock ? n - start : kBlock);
    const float *xb = x + start;
    float *yb = y + start;
    if (!AnyOutside(xb, len, kLow, kHigh)) {
      for (int i = 0; i < len; i++) yb[i] = PolyExp(xb[i]);
    } else {
      // Rare: the C library for the elements outside the range (it makes
      // infinities, denormals and zeros exactly as std::exp does).
      for (int i = 0; i < len; i++) {
        const float v = xb[i];
        yb[i] = ((v >= kLow) & (v <= kHigh)) ? PolyExp(v) : std::exp(v);
      }
    }
  }
}

NNET3_KERNEL_BODY float SumExpBody(const float *x, int n) {
  constexpr int kBlock = 256, kLanes = 8;
  float partial[kLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  float tail = 0.0f;
  float buf[kBlock];
  for (int start = 0; start < n; start += kBlock) {
    const int len = (n - start < kBlock ? n - start : kBlock);
    const float *xb = x + start;
    if (AnyOutside(xb, len, -INFINITY, kHigh)) {
      for (int i = 0; i < len; i++) {
        const float v = xb[i];
        tail += (v < kLow ? 0.0f : v <= kHigh ? PolyExp(v) : std::exp(v));
      }
      continue;
    }
    // Computed for every element (finite, as the argument is clamped) and
    // multiplied by 0 or 1: no branch in the loop.
    for (int i = 0; i < len; i++) {
      const float v = xb[i];
      const float keep = static_cast<float>(v >= kLow);
      buf[i] = PolyExp(v >= kLow ? v : kLow) * keep;
    }
    int i = 0;
    for (; i + kLanes <= len; i += kLanes)
      for (int k = 0; k < kLanes; k++) partial[k] += buf[i + k];
    for (; i < len; i++) tail += buf[i];
  }
  float sum = 0.0f;
  for (int k = 0; k < kLanes; k++) sum += partial[k];
  return sum + tail;
}

NNET3_KERNEL_BODY float MaxBody(const float *x, int n) {
  constexpr int kLanes = 8;
  const float neg_inf = -INFINITY;
  float m[kLanes] = {neg_inf, neg_inf, neg_inf, neg_inf,
                     neg_inf, neg_inf, neg_inf, neg_inf};
  int i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; k++) m[k] = (x[i + k] > m[k] ? x[i + k] : m[k]);
  float ans = neg_inf;
  for (int k = 0; k < kLanes; k++) ans = (m[k] > ans ? m[k] : ans);
  for (; i < n; i++) ans = (x[i] > ans ? x[i] : ans);
  return ans;
}

NNET3_KERNEL_BODY void AddConstantBody(const float *x, float c, float *y,
                                       int n) {
  for (int i = 0; i < n; i++) y[i] = x[i] + c;
}

}  // namespace

NNET3_KERNEL_CLONES void Exp(const float *x, float *y, int n) {
  ExpBody(x, y, n);
}
NNET3_KERNEL_CLONES float SumExp(const float *x, int n) {
  return SumExpBody(x, n);
}
NNET3_KERNEL_CLONES float Max(const float *x, int n) { return MaxBody(x, n); }
NNET3_KERNEL_CLONES void AddConstant(const float *x, float c, float *y,
                                     int n) {
  AddConstantBody(x, c, y, n);
}

float LogSoftMax(const float *x, float *y, int n) {
  const float max = Max(x, n);
  AddConstant(x, -max, y, n);  // x - max, as the same bits
  const float log_sum = std::log(SumExp(y, n));
  AddConstant(y, -log_sum, y, n);
  return max + log_sum;
}

namespace portable {
void Exp(const float *x, float *y, int n) { ExpBody(x, y, n); }
float SumExp(const float *x, int n) { return SumExpBody(x, n); }
float Max(const float *x, int n) { return MaxBody(x, n); }
void AddConstant(const float *x, float c, float *y, int n) {
  AddConstantBody(x, c, y, n);
}
}  // namespace portable

}  // namespace exp_kernel
}  // namespace nnet3
