// transform/sliding-cmvn.h
// Sliding-window cepstral mean (and optionally variance) normalization, as
// Kaldi's apply-cmvn-sliding: each frame t is normalized with the statistics
// of a window of frames around it.
//  - center=false (default): the window is the cmn_window frames before t
//    plus t itself, but always ends at max(t + 1, min_cmn_window): near the
//    start it is [0, max(t + 1, min_cmn_window)), i.e. at least
//    min_cmn_window frames even if that means looking ahead.
//  - center=true: the window is [t - cmn_window/2, t - cmn_window/2 +
//    cmn_window), shifted right at the start.
// In both cases a window running past the end is shifted left (and clipped
// at 0), so short utterances use all their frames. Sums are kept in double.
// With norm_vars, the variance is floored at 1e-10 (a warning, limited by
// max_warnings per utterance), and a one-frame window gives zeros.
#ifndef NNET3_TRANSFORM_SLIDING_CMVN_H_
#define NNET3_TRANSFORM_SLIDING_CMVN_H_

#include "matrix/matrix.h"
#include "util/options.h"

namespace nnet3 {

struct SlidingWindowCmnOptions {
  int32 cmn_window = 600;
  int32 min_window = 100;
  int32 max_warnings = 5;
  bool normalize_variance = false;
  bool center = false;

  void Register(OptionsItf *opts) {
    opts->Register("cmn-window", &cmn_window,
                   "Number of frames in the window over which the running "
                   "mean (and variance) is computed");
    opts->Register("min-cmn-window", &min_window,
                   "Minimum window length at the start of an utterance "
                   "(frames are looked ahead to reach it); only used with "
                   "--center=false");
    opts->Register("max-warnings", &max_warnings,
                   "Most variance-flooring warnings printed per utterance "
                   "(0: none, -1: all)");
    opts->Register("norm-vars", &normalize_variance,
                   "If true, also normalize the variance to one");
    opts->Register("center", &center,
                   "If true, center the window on the current frame (as far "
                   "as the utterance ends allow); if false, the window "
                   "precedes the current frame");
  }
  // UserError if cmn_window <= 0, or (with center) min_window is not in
  // [1, cmn_window].
  void Check() const;
};

// Normalizes input into *output (same size, at least one row; a mismatch
// is a UserError).
void SlidingWindowCmn(const SlidingWindowCmnOptions &opts,
                      const MatrixBase<BaseFloat> &input,
                      MatrixBase<BaseFloat> *output);

}  // namespace nnet3

#endif  // NNET3_TRANSFORM_SLIDING_CMVN_H_
