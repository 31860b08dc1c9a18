// feat/resample.cc
#include "feat/resample.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/log.h"

namespace nnet3 {

LinearResample::LinearResample(int32 in_rate, int32 out_rate,
                               BaseFloat cutoff, int32 num_zeros)
    : in_rate_(in_rate), out_rate_(out_rate), cutoff_(cutoff),
      num_zeros_(num_zeros) {
  if (in_rate <= 0 || out_rate <= 0 || num_zeros <= 0 || cutoff <= 0 ||
      cutoff * 2 > std::min(in_rate, out_rate))
    NNET3_ERR << "invalid resampling from " << in_rate << " to " << out_rate
              << " Hz with cutoff " << cutoff << " Hz and " << num_zeros
              << " zero crossings";
  int32 period = std::gcd(in_rate, out_rate);
  in_per_unit_ = in_rate / period;
  out_per_unit_ = out_rate / period;
  double window_width = num_zeros_ / (2.0 * cutoff_);
  first_index_.resize(out_per_unit_);
  weights_.resize(out_per_unit_);
  for (int32 i = 0; i < out_per_unit_; i++) {
    double t = i / static_cast<double>(out_rate_);
    int32 lo = static_cast<int32>(std::ceil((t - window_width) * in_rate_));
    int32 hi = static_cast<int32>(std::floor((t + window_width) * in_rate_));
    first_index_[i] = lo;
    weights_[i].Resize(hi - lo + 1);
    for (int32 j = lo; j <= hi; j++)
      weights_[i](j - lo) =
          Filter(j / static_cast<double>(in_rate_) - t) / in_rate_;
  }
}

BaseFloat LinearResample::Filter(double delta_t) const {
  float window = 0.0f, filter;
  if (std::fabs(delta_t) < num_zeros_ / (2.0 * cutoff_))
    window = 0.5 * (1 + std::cos(2 * M_PI * cutoff_ / num_zeros_ * delta_t));
  if (delta_t != 0)
    filter = std::sin(2 * M_PI * cutoff_ * delta_t) / (M_PI * delta_t);
  else
    filter = 2 * cutoff_;
  return filter * window;
}

int64 LinearResample::NumOutputSamples(int64 num_input_samples) const {
  // Outputs at k / out_rate for every k with k / out_rate < n / in_rate.
  int64 num = num_input_samples * out_rate_;
  return (num + in_rate_ - 1) / in_rate_;
}

void LinearResample::Resample(const VectorBase<BaseFloat> &input,
                              Vector<BaseFloat> *output) const {
  int64 num_out = NumOutputSamples(input.Dim());
  output->Resize(static_cast<MatrixIndexT>(num_out), kUndefined);
  const BaseFloat *in = input.Data();
  int64 num_in = input.Dim();
  for (int64 k = 0; k < num_out; k++) {
    int64 unit = k / out_per_unit_;
    int32 pos = static_cast<int32>(k % out_per_unit_);
    int64 first = first_index_[pos] + unit * in_per_unit_;
    const Vector<BaseFloat> &w = weights_[pos];
    int64 n = w.Dim();
    float sum = 0.0f;
    if (first >= 0 && first + n <= num_in) {
      sum = VecVec(w, SubVector<BaseFloat>(input, first, n));
    } else {
      for (int64 j = std::max<int64>(0, -first);
           j < n && first + j < num_in; j++)
        sum += w(j) * in[first + j];
    }
    (*output)(k) = sum;
  }
}

void ResampleWaveform(BaseFloat in_rate, const VectorBase<BaseFloat> &wave,
                      BaseFloat out_rate, Vector<BaseFloat> *out) {
  int32 in = static_cast<int32>(in_rate), o = static_cast<int32>(out_rate);
  if (in != in_rate || o != out_rate)
    NNET3_ERR << "cannot resample between " << in_rate << " and " << out_rate
              << " Hz: only whole numbers of Hz are supported";
  LinearResample resampler(in, o,
                           static_cast<BaseFloat>(0.99 * 0.5 * std::min(in, o)),
                           6);
  resampler.Resample(wave, out);
}

}  // namespace nnet3
