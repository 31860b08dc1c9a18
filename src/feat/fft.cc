// feat/fft.cc
#include "feat/fft.h"

#include <cmath>
#include <utility>

#include "base/log.h"

namespace nnet3 {

namespace {
const double kTwoPi = 2.0 * M_PI;
const float kSqrtHalf = static_cast<float>(M_SQRT1_2);

// a, b <- a + b, a - b
inline void SumDiff(float *a, float *b) {
  float s = *a + *b;
  *b = *a - *b;
  *a = s;
}

// (re, im) <- (re, im) * (w_re, w_im), in float.
inline void Rotate(float w_re, float w_im, float *re, float *im) {
  float r = *re * w_re - *im * w_im;
  *im = *re * w_im + *im * w_re;
  *re = r;
}

// (acc_re, acc_im) += (x_re, x_im) * (w_re, w_im), in float.
inline void AddProduct(float x_re, float x_im, float w_re, float w_im,
                       float *acc_re, float *acc_im) {
  *acc_re += x_re * w_re - x_im * w_im;
  *acc_im += x_re * w_im + x_im * w_re;
}
}  // namespace

int32 RoundUpToPowerOfTwo(int32 n) {
  NNET3_ASSERT(n >= 1 && n <= (1 << 30));
  int32 p = 1;
  while (p < n) p <<= 1;
  return p;
}

SplitRadixFft::SplitRadixFft(int32 n) : n_(n) {
  if (!IsPowerOfTwo(n))
    NNET3_ERR << "split-radix FFT size must be a power of two, got " << n;
  while ((1 << log_n_) < n) log_n_++;
  // Levels of size m = 2^k, k >= 4, need twiddles for j = 1 .. m/4 - 1
  // except j = m/8 (a rotation by sqrt(1/2), done without a table). The
  // angle is rounded to float first and its cosine/sine taken in float.
  for (int32 k = 4; k <= log_n_; k++) {
    const int32 m = 1 << k, m4 = m / 4, m8 = m / 8;
    std::vector<Twiddle> level;
    level.reserve(m4 - 2);
    for (int32 j = 1; j < m4; j++) {
      if (j == m8) continue;
      Twiddle t;
      float a = static_cast<float>(j * kTwoPi / m);
      float c = std::cos(a), s = std::sin(a);
      t.c1 = c;
      t.sum1 = -(s + c);
      t.diff1 = s - c;
      a = static_cast<float>(3 * j * kTwoPi / m);
      c = std::cos(a);
      s = std::sin(a);
      t.c3 = c;
      t.sum3 = -(s + c);
      t.diff3 = s - c;
      level.push_back(t);
    }
    levels_.push_back(std::move(level));
  }
  for (int32 i = 0; i < n; i++) {
    int32 r = 0;
    for (int32 b = 0; b < log_n_; b++)
      if (i & (1 << b)) r |= 1 << (log_n_ - 1 - b);
    if (i < r) {
      swaps_.push_back(i);
      swaps_.push_back(r);
    }
  }
}

void SplitRadixFft::Forward(float *re, float *im) const {
  Transform(re, im, log_n_);
  for (size_t p = 0; p < swaps_.size(); p += 2) {
    std::swap(re[swaps_[p]], re[swaps_[p + 1]]);
    std::swap(im[swaps_[p]], im[swaps_[p + 1]]);
  }
}

// One level of size m = 2^log_size, output in bit-reversed order.
void SplitRadixFft::Transform(float *re, float *im, int32 log_size) const {
  if (log_size == 0) return;
  if (log_size == 1) {
    SumDiff(&re[0], &re[1]);
    SumDiff(&im[0], &im[1]);
    return;
  }
  if (log_size == 2) {
    SumDiff(&re[0], &re[2]);
    SumDiff(&im[0], &im[2]);
    SumDiff(&re[1], &re[3]);
    SumDiff(&im[1], &im[3]);
    SumDiff(&re[0], &re[1]);
    SumDiff(&im[0], &im[1]);
    // points 2 and 3: the second one turned by -i first
    float r2 = re[2] + im[3], i3 = im[2] + re[3];
    im[2] = im[2] - re[3];
    re[3] = re[2] - im[3];
    re[2] = r2;
    im[3] = i3;
    return;
  }
  const int32 m = 1 << log_size, m2 = m / 2, m4 = m / 4, m8 = m / 8;
  // The even half: sums of the two halves.
  for (int32 j = 0; j < m2; j++) {
    SumDiff(&re[j], &re[j + m2]);
    SumDiff(&im[j], &im[j + m2]);
  }
  // The differences, split into the two odd quarters (times -i and +i).
  float *ar = re + m2, *ai = im + m2, *br = re + m2 + m4, *bi = im + m2 + m4;
  for (int32 j = 0; j < m4; j++) {
    float u = ar[j] + bi[j], v = ai[j] + br[j];
    ai[j] = ai[j] - br[j];
    br[j] = ar[j] - bi[j];
    ar[j] = u;
    bi[j] = v;
  }
  // Rotate the quarters by w^j and w^3j (w = exp(-2 pi i / m)) with three
  // multiplications each.
  const Twiddle *t = log_size >= 4 ? levels_[log_size - 4].data() : nullptr;
  for (int32 j = 1; j < m4; j++) {
    if (j == m8) {
      float u = kSqrtHalf * (ar[j] + ai[j]);
      ai[j] = kSqrtHalf * (ai[j] - ar[j]);
      ar[j] = u;
      float v = kSqrtHalf * (bi[j] - br[j]);
      bi[j] = -kSqrtHalf * (br[j] + bi[j]);
      br[j] = v;
      continue;
    }
    float common = t->c1 * (ar[j] + ai[j]);
    float u = t->sum1 * ar[j] + common;
    ar[j] = t->diff1 * ai[j] + common;
    ai[j] = u;
    common = t->c3 * (br[j] + bi[j]);
    u = t->sum3 * br[j] + common;
    br[j] = t->diff3 * bi[j] + common;
    bi[j] = u;
    t++;
  }
  Transform(re, im, log_size - 1);
  Transform(re + m2, im + m2, log_size - 2);
  Transform(re + 3 * m4, im + 3 * m4, log_size - 2);
}

MixedRadixFft::MixedRadixFft(int32 n) : n_(n) {
  if (n < 1) NNET3_ERR << "FFT size must be at least 1, got " << n;
  int32 m = n;
  for (int32 p = 2; m > 1; p += (p == 2 ? 1 : 2)) {
    while (m % p == 0) {
      factors_.push_back(p);
      m /= p;
    }
  }
  work_.resize(2 * static_cast<size_t>(n));
}

// Size n = P Q, P the first remaining factor. With input a and output d:
// b[pQ + q] = a[qP + p] (P interleaved sub-sequences made contiguous),
// c = the size-Q transforms of the P blocks of b, and
// d[p'Q + q'] = sum_p c[pQ + q'] w^(p (p'Q + q')), w = exp(sign 2 pi i / n),
// with the powers of w built by float complex multiplications: w^(p'Q+q')
// from w^q' (advanced by w once per q') times exp(sign 2 pi i / P) once per
// p', and its p-th power by repeated multiplication.
void MixedRadixFft::Run(float *data, int32 count, int32 n, size_t f,
                        int sign) {
  if (f == factors_.size()) return;  // n == 1
  const int32 P = factors_[f], Q = n / P;
  float *tmp = work_.data();
  if (Q > 1) {
    for (int32 t = 0; t < count; t++) {
      float *block = data + 2 * static_cast<size_t>(t) * n;
      for (int32 part = 0; part < 2; part++) {
        for (int32 p = 0; p < P; p++)
          for (int32 q = 0; q < Q; q++)
            tmp[p * Q + q] = block[2 * (q * P + p) + part];
        for (int32 i = 0; i < n; i++) block[2 * i + part] = tmp[i];
      }
    }
  }
  Run(data, count * P, Q, f + 1, sign);

  const float angle_n = static_cast<float>(sign * kTwoPi / n),
              angle_p = static_cast<float>(sign * kTwoPi / P);
  const float wn_re = std::cos(angle_n), wn_im = std::sin(angle_n);
  const float wp_re = std::cos(angle_p), wp_im = std::sin(angle_p);
  for (int32 t = 0; t < count; t++) {
    float *x = data + 2 * static_cast<size_t>(t) * n;
    float q_re = 1.0f, q_im = 0.0f;  // w^q'
    for (int32 qd = 0; qd < Q; qd++) {
      float b_re = q_re, b_im = q_im;  // w^(p'Q + q')
      for (int32 pd = 0; pd < P; pd++) {
        float s_re = x[2 * qd], s_im = x[2 * qd + 1];
        AddProduct(x[2 * (qd + Q)], x[2 * (qd + Q) + 1], b_re, b_im, &s_re,
                   &s_im);
        float c_re = b_re, c_im = b_im;  // w^(p (p'Q + q'))
        for (int32 p = 2; p < P; p++) {
          Rotate(b_re, b_im, &c_re, &c_im);
          const int32 idx = p * Q + qd;
          AddProduct(x[2 * idx], x[2 * idx + 1], c_re, c_im, &s_re, &s_im);
        }
        tmp[2 * pd] = s_re;
        tmp[2 * pd + 1] = s_im;
        if (pd != P - 1) Rotate(wp_re, wp_im, &b_re, &b_im);
      }
      for (int32 pd = 0; pd < P; pd++) {
        x[2 * (pd * Q + qd)] = tmp[2 * pd];
        x[2 * (pd * Q + qd) + 1] = tmp[2 * pd + 1];
      }
      Rotate(wn_re, wn_im, &q_re, &q_im);
    }
  }
}

RealFft::RealFft(int32 n) : n_(n) {
  if (n < 2 || n % 2 != 0)
    NNET3_ERR << "real FFT size must be even and >= 2, got " << n;
  if (IsPowerOfTwo(n)) {
    split_radix_.reset(new SplitRadixFft(n / 2));
    re_.resize(n / 2);
    im_.resize(n / 2);
  } else {
    mixed_radix_.reset(new MixedRadixFft(n / 2));
  }
  const float a = static_cast<float>(-kTwoPi / n);
  root_re_ = std::cos(a);
  root_im_ = std::sin(a);
}

RealFft::RealFft(const RealFft &other)
    : n_(other.n_), root_re_(other.root_re_), root_im_(other.root_im_),
      re_(other.re_), im_(other.im_) {
  if (other.split_radix_)
    split_radix_.reset(new SplitRadixFft(*other.split_radix_));
  if (other.mixed_radix_)
    mixed_radix_.reset(new MixedRadixFft(*other.mixed_radix_));
}

void RealFft::Compute(float *data) {
  const int32 n = n_, h = n / 2;
  if (split_radix_) {
    for (int32 i = 0; i < h; i++) {
      re_[i] = data[2 * i];
      im_[i] = data[2 * i + 1];
    }
    split_radix_->Forward(re_.data(), im_.data());
    for (int32 i = 0; i < h; i++) {
      data[2 * i] = re_[i];
      data[2 * i + 1] = im_[i];
    }
  } else {
    mixed_radix_->Forward(data);
  }
  // B = the half-size transform of z[j] = x[2j] + i x[2j+1]. For
  // 1 <= k <= h/2, with C = (B[k] + conj B[h-k]) / 2 and
  // D = (B[k] - conj B[h-k]) / 2i: X[k] = C + w^k D and
  // X[h-k] = conj C - conj(w^k) conj D, where w^k = exp(-2 pi i k / n) is
  // advanced by one complex multiplication per k.
  float w_re = 1.0f, w_im = 0.0f;
  for (int32 k = 1; 2 * k <= h; k++) {
    Rotate(root_re_, root_im_, &w_re, &w_im);
    float *p = data + 2 * k, *q = data + n - 2 * k;
    const float c_re = 0.5f * (p[0] + q[0]), c_im = 0.5f * (p[1] - q[1]);
    const float d_re = 0.5f * (p[1] + q[1]), d_im = -0.5f * (p[0] - q[0]);
    p[0] = c_re;
    p[1] = c_im;
    AddProduct(d_re, d_im, w_re, w_im, &p[0], &p[1]);
    if (h - k != k) {
      q[0] = c_re;
      q[1] = -c_im;
      AddProduct(d_re, -d_im, -w_re, w_im, &q[0], &q[1]);
    }
  }
  const float dc = data[0] + data[1], nyquist = data[0] - data[1];
  data[0] = dc;
  data[1] = nyquist;
}

void PackedPowerSpectrum(float *data, int32 n) {
  const int32 h = n / 2;
  const float first = data[0] * data[0], last = data[1] * data[1];
  for (int32 k = 1; k < h; k++) {
    const float re = data[2 * k], im = data[2 * k + 1];
    data[k] = re * re + im * im;
  }
  data[0] = first;
  data[h] = last;
}

}  // namespace nnet3
