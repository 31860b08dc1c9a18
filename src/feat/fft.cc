// feat/fft.cc
#include "feat/fft.h"

#include <cmath>

#include "base/log.h"

namespace nnet3 {

int32 RoundUpToPowerOfTwo(int32 n) {
  NNET3_ASSERT(n >= 1 && n <= (1 << 30));
  int32 p = 1;
  while (p < n) p <<= 1;
  return p;
}

ComplexFft::ComplexFft(int32 n) : n_(n), pow2_(IsPowerOfTwo(n)) {
  if (n < 1) NNET3_ERR << "FFT size must be at least 1, got " << n;
  if (pow2_) {
    int32 bits = 0;
    while ((1 << bits) < n) bits++;
    for (int32 i = 0; i < n; i++) {
      int32 r = 0;
      for (int32 b = 0; b < bits; b++)
        if (i & (1 << b)) r |= 1 << (bits - 1 - b);
      if (i < r) {
        swaps_.push_back(i);
        swaps_.push_back(r);
      }
    }
    twiddles_.resize(2 * static_cast<size_t>(n > 1 ? n - 1 : 1));
    for (int32 h = 1; h < n; h *= 2) {
      double *w = &twiddles_[2 * static_cast<size_t>(h - 1)];
      for (int32 j = 0; j < h; j++) {
        double angle = -M_PI * j / h;
        w[2 * j] = std::cos(angle);
        w[2 * j + 1] = std::sin(angle);
      }
    }
    return;
  }
  // Bluestein: X[k] = c[k] * sum_j (x[j] c[j]) conj(c[k - j]), with
  // c[j] = exp(-i pi j^2 / n); the sum is a circular convolution of
  // length L >= 2n - 1 done with power-of-two transforms.
  int32 len = RoundUpToPowerOfTwo(2 * n - 1);
  chirp_.resize(2 * static_cast<size_t>(n));
  for (int32 j = 0; j < n; j++) {
    // j^2 mod 2n keeps the angle small and exact.
    int64 q = (static_cast<int64>(j) * j) % (2 * static_cast<int64>(n));
    double angle = -M_PI * static_cast<double>(q) / n;
    chirp_[2 * j] = std::cos(angle);
    chirp_[2 * j + 1] = std::sin(angle);
  }
  inner_.reset(new ComplexFft(len));
  kernel_fft_.assign(2 * static_cast<size_t>(len), 0.0);
  for (int32 j = 0; j < n; j++) {
    double re = chirp_[2 * j], im = -chirp_[2 * j + 1];  // conj(c[j])
    kernel_fft_[2 * j] = re;
    kernel_fft_[2 * j + 1] = im;
    if (j > 0) {
      kernel_fft_[2 * (len - j)] = re;
      kernel_fft_[2 * (len - j) + 1] = im;
    }
  }
  inner_->Forward(kernel_fft_.data());
  work_.resize(2 * static_cast<size_t>(len));
}

ComplexFft::ComplexFft(const ComplexFft &other)
    : n_(other.n_), pow2_(other.pow2_), swaps_(other.swaps_),
      twiddles_(other.twiddles_), chirp_(other.chirp_),
      kernel_fft_(other.kernel_fft_),
      inner_(other.inner_ ? new ComplexFft(*other.inner_) : nullptr),
      work_(other.work_) {}

ComplexFft &ComplexFft::operator=(const ComplexFft &other) {
  if (this != &other) {
    ComplexFft copy(other);
    n_ = copy.n_;
    pow2_ = copy.pow2_;
    swaps_.swap(copy.swaps_);
    twiddles_.swap(copy.twiddles_);
    chirp_.swap(copy.chirp_);
    kernel_fft_.swap(copy.kernel_fft_);
    inner_.swap(copy.inner_);
    work_.swap(copy.work_);
  }
  return *this;
}

ComplexFft::~ComplexFft() {}

void ComplexFft::Forward(double *data) {
  if (pow2_) PowerOfTwo(data, false);
  else Bluestein(data, false);
}

void ComplexFft::Inverse(double *data) {
  if (pow2_) PowerOfTwo(data, true);
  else Bluestein(data, true);
}

void ComplexFft::PowerOfTwo(double *data, bool inverse) const {
  const int32 n = n_;
  for (size_t s = 0; s < swaps_.size(); s += 2) {
    double *a = data + 2 * swaps_[s], *b = data + 2 * swaps_[s + 1];
    double t0 = a[0], t1 = a[1];
    a[0] = b[0];
    a[1] = b[1];
    b[0] = t0;
    b[1] = t1;
  }
  if (n == 1) return;
  // Half-span 1: no multiplications.
  for (int32 s = 0; s < n; s += 2) {
    double *a = data + 2 * s;
    double r0 = a[0], i0 = a[1], r1 = a[2], i1 = a[3];
    a[0] = r0 + r1;
    a[1] = i0 + i1;
    a[2] = r0 - r1;
    a[3] = i0 - i1;
  }
  if (n == 2) return;
  // Half-span 2: twiddles 1 and -i (forward) or +i (inverse).
  const double sign = inverse ? -1.0 : 1.0;
  for (int32 s = 0; s < n; s += 4) {
    double *a = data + 2 * s;
    double r0 = a[0], i0 = a[1], r1 = a[2], i1 = a[3];
    double r2 = a[4], i2 = a[5], r3 = a[6], i3 = a[7];
    // b3 = a3 * (-i * sign): (r3, i3) -> (i3, -r3) for forward.
    double br3 = sign * i3, bi3 = -sign * r3;
    a[0] = r0 + r2;
    a[1] = i0 + i2;
    a[4] = r0 - r2;
    a[5] = i0 - i2;
    a[2] = r1 + br3;
    a[3] = i1 + bi3;
    a[6] = r1 - br3;
    a[7] = i1 - bi3;
  }
  for (int32 h = 4; h < n; h *= 2) {
    const double *w = &twiddles_[2 * static_cast<size_t>(h - 1)];
    for (int32 s = 0; s < n; s += 2 * h) {
      double *a = data + 2 * s, *b = data + 2 * (s + h);
      for (int32 j = 0; j < h; j++) {
        double wr = w[2 * j], wi = inverse ? -w[2 * j + 1] : w[2 * j + 1];
        double br = b[2 * j] * wr - b[2 * j + 1] * wi;
        double bi = b[2 * j] * wi + b[2 * j + 1] * wr;
        double ar = a[2 * j], ai = a[2 * j + 1];
        a[2 * j] = ar + br;
        a[2 * j + 1] = ai + bi;
        b[2 * j] = ar - br;
        b[2 * j + 1] = ai - bi;
      }
    }
  }
}

void ComplexFft::Bluestein(double *data, bool inverse) {
  const int32 n = n_, len = inner_->Size();
  // The inverse is conj(Forward(conj(x))).
  double conj_in = inverse ? -1.0 : 1.0;
  double *a = work_.data();
  for (int32 j = 0; j < n; j++) {
    double xr = data[2 * j], xi = conj_in * data[2 * j + 1];
    double cr = chirp_[2 * j], ci = chirp_[2 * j + 1];
    a[2 * j] = xr * cr - xi * ci;
    a[2 * j + 1] = xr * ci + xi * cr;
  }
  for (int32 j = 2 * n; j < 2 * len; j++) a[j] = 0.0;
  inner_->Forward(a);
  for (int32 j = 0; j < len; j++) {
    double ar = a[2 * j], ai = a[2 * j + 1];
    double kr = kernel_fft_[2 * j], ki = kernel_fft_[2 * j + 1];
    a[2 * j] = ar * kr - ai * ki;
    a[2 * j + 1] = ar * ki + ai * kr;
  }
  inner_->Inverse(a);
  double scale = 1.0 / len;
  for (int32 k = 0; k < n; k++) {
    double ar = a[2 * k] * scale, ai = a[2 * k + 1] * scale;
    double cr = chirp_[2 * k], ci = chirp_[2 * k + 1];
    data[2 * k] = ar * cr - ai * ci;
    data[2 * k + 1] = conj_in * (ar * ci + ai * cr);
  }
}

RealFft::RealFft(int32 n)
    : n_(n), half_(n >= 2 && n % 2 == 0 ? n / 2 : 1) {
  if (n < 2 || n % 2 != 0)
    NNET3_ERR << "real FFT size must be even and at least 2, got " << n
              << " (use a frame length with an even number of samples, or "
              << "--round-to-power-of-two=true)";
  int32 m = n / 2;
  rotation_.resize(2 * static_cast<size_t>(m + 1));
  for (int32 k = 0; k <= m; k++) {
    double angle = -2.0 * M_PI * k / n;
    rotation_[2 * k] = std::cos(angle);
    rotation_[2 * k + 1] = std::sin(angle);
  }
  work_.resize(static_cast<size_t>(n));
}

template <class Emit>
void RealFft::Run(Emit emit) {
  const int32 m = n_ / 2;
  const double *z = work_.data();
  half_.Forward(work_.data());
  for (int32 k = 0; k <= m; k++) {
    int32 k1 = (k == m) ? 0 : k, k2 = (k == 0) ? 0 : m - k;
    double zr = z[2 * k1], zi = z[2 * k1 + 1];
    double cr = z[2 * k2], ci = z[2 * k2 + 1];
    // Even part E = (Z[k] + conj(Z[m-k])) / 2, odd part
    // O = (Z[k] - conj(Z[m-k])) / (2i); X[k] = E + exp(-2 pi i k / n) O.
    double er = 0.5 * (zr + cr), ei = 0.5 * (zi - ci);
    double or_ = 0.5 * (zi + ci), oi = -0.5 * (zr - cr);
    double wr = rotation_[2 * k], wi = rotation_[2 * k + 1];
    emit(k, er + wr * or_ - wi * oi, ei + wr * oi + wi * or_);
  }
}

void RealFft::Compute(const double *in, double *out) {
  for (int32 j = 0; j < n_; j++) work_[j] = in[j];
  Run([out](int32 k, double re, double im) {
    out[2 * k] = re;
    out[2 * k + 1] = im;
  });
  out[1] = 0.0;
  out[n_ + 1] = 0.0;
}

void RealFft::PowerSpectrum(const double *in, double *power) {
  for (int32 j = 0; j < n_; j++) work_[j] = in[j];
  Run([power](int32 k, double re, double im) {
    power[k] = re * re + im * im;
  });
}

}  // namespace nnet3
