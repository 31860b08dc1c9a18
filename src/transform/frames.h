// transform/frames.h
// Row (frame) selection and column concatenation on feature matrices, for
// subsample-feats, select-voiced-frames, paste-feats and
// extract-feature-segments. Each function returns false (output untouched
// or emptied) for a per-utterance problem the tool reports and skips, and
// throws UserError for invalid arguments.
#ifndef NNET3_TRANSFORM_FRAMES_H_
#define NNET3_TRANSFORM_FRAMES_H_

#include <string>
#include <vector>

#include "matrix/matrix.h"
#include "matrix/vector.h"
#include "util/options.h"

namespace nnet3 {

// n > 0: rows offset, offset + n, offset + 2n, ... (false if none);
// n < 0: every row repeated -n times (offset must then be 0).
// n == 0 or a negative offset is a UserError.
bool SubsampleFrames(const MatrixBase<BaseFloat> &input, int32 n,
                     int32 offset, Matrix<BaseFloat> *output);

// The rows whose voiced(t) is non-zero, in order. voiced must have one entry
// per row (UserError otherwise) and each entry must be 0 or 1; false if no
// row is voiced.
bool SelectVoicedFrames(const MatrixBase<BaseFloat> &input,
                        const VectorBase<BaseFloat> &voiced,
                        Matrix<BaseFloat> *output);

// Concatenates the columns of the inputs, keeping the shortest length. If the
// lengths differ by more than length_tolerance, or one is empty, *output is
// emptied, *message says why and false is returned.
bool PasteFeats(const std::vector<Matrix<BaseFloat> > &inputs,
                int32 length_tolerance, Matrix<BaseFloat> *output,
                std::string *message);

// Options of extract-feature-segments (times in seconds, frame sizes in ms).
struct FeatureSegmentOptions {
  BaseFloat min_segment_length = 0.1;
  BaseFloat max_overshoot = 0.0;
  int32 frame_shift = 10;
  int32 frame_length = 25;
  bool snip_edges = true;

  void Register(OptionsItf *opts) {
    opts->Register("min-segment-length", &min_segment_length,
                   "Segments not longer than this (seconds) are skipped");
    opts->Register("frame-length", &frame_length,
                   "Frame length of the features, in milliseconds");
    opts->Register("frame-shift", &frame_shift,
                   "Frame shift of the features, in milliseconds");
    opts->Register("max-overshoot", &max_overshoot,
                   "A segment ending less than this (seconds) past the end "
                   "of the features is truncated; one ending further is "
                   "skipped");
    opts->Register("snip-edges", &snip_edges,
                   "If true, drop ceil((frame-length - frame-shift) / "
                   "frame-shift) frames at the end of each segment, so its "
                   "length matches features computed from the segment's "
                   "own audio");
  }
};

// Rows of the segment [start, end) seconds of feats: first row
// round(start * 1000 / frame_shift), end row round(end * 1000 / frame_shift)
// minus the snipped frames, truncated to the matrix when the overshoot is
// allowed. Returns false with *message set if the segment is skipped.
bool ExtractFeatureSegment(const FeatureSegmentOptions &opts,
                           const MatrixBase<BaseFloat> &feats, double start,
                           double end, Matrix<BaseFloat> *output,
                           std::string *message);

}  // namespace nnet3

#endif  // NNET3_TRANSFORM_FRAMES_H_
