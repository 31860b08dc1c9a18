// transform/sliding-cmvn.cc
#include "transform/sliding-cmvn.h"

#include <algorithm>
#include <cmath>

namespace nnet3 {

void SlidingWindowCmnOptions::Check() const {
  if (cmn_window <= 0)
    NNET3_ERR << "--cmn-window must be positive, got " << cmn_window;
  if (center && (min_window <= 0 || min_window > cmn_window))
    NNET3_ERR << "--min-cmn-window must be in [1, --cmn-window=" << cmn_window
              << "], got " << min_window;
}

namespace {

// The window [*begin, *end) used for frame t of num_frames.
void WindowForFrame(const SlidingWindowCmnOptions &opts, int32 t,
                    int32 num_frames, int32 *begin, int32 *end) {
  int32 b, e;
  if (opts.center) {
    b = t - opts.cmn_window / 2;
    e = b + opts.cmn_window;
  } else {
    b = t - opts.cmn_window;
    e = t + 1;
  }
  if (b < 0) {  // shift right
    e -= b;
    b = 0;
  }
  if (!opts.center && e > t) e = std::max(t + 1, opts.min_window);
  if (e > num_frames) {  // shift left, clip at the start
    b -= e - num_frames;
    e = num_frames;
    if (b < 0) b = 0;
  }
  *begin = b;
  *end = e;
}

}  // namespace

void SlidingWindowCmn(const SlidingWindowCmnOptions &opts,
                      const MatrixBase<BaseFloat> &input,
                      MatrixBase<BaseFloat> *output) {
  opts.Check();
  int32 num_frames = input.NumRows(), dim = input.NumCols();
  if (num_frames == 0 || output->NumRows() != num_frames ||
      output->NumCols() != dim)
    NNET3_ERR << "SlidingWindowCmn: input is " << num_frames << " x " << dim
              << ", output " << output->NumRows() << " x "
              << output->NumCols() << " (need equal, non-empty)";
  std::vector<double> sum(dim, 0.0), sumsq(dim, 0.0), frame(dim);
  // Adds (sign = 1) or removes (sign = -1) frame r from the running sums.
  auto update = [&](int32 r, double sign) {
    const BaseFloat *x = input.RowData(r);
    for (int32 d = 0; d < dim; d++) {
      double v = x[d];
      sum[d] += sign * v;
      if (opts.normalize_variance) sumsq[d] += sign * v * v;
    }
  };
  int32 cur_begin = 0, cur_end = 0;  // the window the sums describe
  int32 warnings = 0;
  for (int32 t = 0; t < num_frames; t++) {
    int32 begin, end;
    WindowForFrame(opts, t, num_frames, &begin, &end);
    // Windows only move forward, so the sums are updated incrementally.
    NNET3_ASSERT(begin >= cur_begin && end >= cur_end);
    if (t == 0) {
      for (int32 r = begin; r < end; r++) update(r, 1.0);
    } else {
      for (int32 r = cur_end; r < end; r++) update(r, 1.0);
      for (int32 r = cur_begin; r < begin; r++) update(r, -1.0);
    }
    cur_begin = begin;
    cur_end = end;
    int32 n = end - begin;
    NNET3_ASSERT(n > 0);
    const BaseFloat *x = input.RowData(t);
    for (int32 d = 0; d < dim; d++) frame[d] = x[d] - sum[d] / n;
    if (opts.normalize_variance) {
      if (n == 1) {
        std::fill(frame.begin(), frame.end(), 0.0);
      } else {
        int32 num_floored = 0;
        for (int32 d = 0; d < dim; d++) {
          double var = sumsq[d] / n - sum[d] * sum[d] / (double(n) * n);
          if (var < 1.0e-10) {
            var = 1.0e-10;
            num_floored++;
          }
          frame[d] /= std::sqrt(var);
        }
        if (num_floored > 0) {
          if (opts.max_warnings < 0 || warnings < opts.max_warnings)
            NNET3_WARN << "Flooring the variance of " << num_floored
                       << " dimension(s) (window of " << n << " frames)";
          else if (warnings == opts.max_warnings)
            NNET3_WARN << "Further variance-flooring warnings for this "
                       << "utterance are suppressed (--max-warnings="
                       << opts.max_warnings << ")";
          warnings++;
        }
      }
    }
    BaseFloat *y = output->RowData(t);
    for (int32 d = 0; d < dim; d++) y[d] = static_cast<BaseFloat>(frame[d]);
  }
}

}  // namespace nnet3
