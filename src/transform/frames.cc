// transform/frames.cc
#include "transform/frames.h"

#include <cmath>
#include <sstream>

namespace nnet3 {

bool SubsampleFrames(const MatrixBase<BaseFloat> &input, int32 n,
                     int32 offset, Matrix<BaseFloat> *output) {
  if (n == 0) NNET3_ERR << "--n must be non-zero";
  if (offset < 0) NNET3_ERR << "--offset must be >= 0, got " << offset;
  int32 rows = input.NumRows(), cols = input.NumCols();
  if (n < 0) {
    if (offset != 0)
      NNET3_ERR << "--offset must be 0 with a negative --n (repeating frames)";
    int32 repeat = -n;
    output->Resize(rows * repeat, cols, kUndefined);
    for (int32 r = 0; r < rows * repeat; r++)
      output->Row(r).CopyFromVec(input.Row(r / repeat));
    return rows > 0;
  }
  int32 count = offset < rows ? (rows - offset + n - 1) / n : 0;
  if (count == 0) return false;
  output->Resize(count, cols, kUndefined);
  for (int32 i = 0; i < count; i++)
    output->Row(i).CopyFromVec(input.Row(offset + i * n));
  return true;
}

bool SelectVoicedFrames(const MatrixBase<BaseFloat> &input,
                        const VectorBase<BaseFloat> &voiced,
                        Matrix<BaseFloat> *output) {
  if (voiced.Dim() != input.NumRows())
    NNET3_ERR << "Voice activity vector has " << voiced.Dim()
              << " entries but the features have " << input.NumRows()
              << " frames";
  int32 count = 0;
  for (int32 t = 0; t < voiced.Dim(); t++) {
    if (voiced(t) != 0.0f && voiced(t) != 1.0f)
      NNET3_ERR << "Voice activity decisions must be 0 or 1, got "
                << voiced(t) << " at frame " << t;
    if (voiced(t) != 0.0f) count++;
  }
  if (count == 0) return false;
  output->Resize(count, input.NumCols(), kUndefined);
  int32 i = 0;
  for (int32 t = 0; t < voiced.Dim(); t++)
    if (voiced(t) != 0.0f) output->Row(i++).CopyFromVec(input.Row(t));
  return true;
}

bool PasteFeats(const std::vector<Matrix<BaseFloat> > &inputs,
                int32 length_tolerance, Matrix<BaseFloat> *output,
                std::string *message) {
  NNET3_ASSERT(!inputs.empty());
  int32 min_len = inputs[0].NumRows(), max_len = min_len, total_dim = 0;
  for (const Matrix<BaseFloat> &m : inputs) {
    min_len = std::min(min_len, m.NumRows());
    max_len = std::max(max_len, m.NumRows());
    total_dim += m.NumCols();
  }
  message->clear();
  if (max_len - min_len > length_tolerance || min_len == 0) {
    std::ostringstream os;
    os << "Length mismatch " << max_len << " vs. " << min_len
       << " exceeds tolerance " << length_tolerance;
    *message = os.str();
    output->Resize(0, 0);
    return false;
  }
  if (max_len != min_len) {
    std::ostringstream os;
    os << "Length mismatch " << max_len << " vs. " << min_len
       << " within tolerance " << length_tolerance << ", trimmed to "
       << min_len;
    *message = os.str();
  }
  output->Resize(min_len, total_dim, kUndefined);
  int32 col = 0;
  for (const Matrix<BaseFloat> &m : inputs) {
    output->Range(0, min_len, col, m.NumCols())
        .CopyFromMat(m.Range(0, min_len, 0, m.NumCols()));
    col += m.NumCols();
  }
  return true;
}

bool ExtractFeatureSegment(const FeatureSegmentOptions &opts,
                           const MatrixBase<BaseFloat> &feats, double start,
                           double end, Matrix<BaseFloat> *output,
                           std::string *message) {
  if (opts.frame_shift <= 0)
    NNET3_ERR << "--frame-shift must be positive, got " << opts.frame_shift;
  std::ostringstream os;
  int32 num_rows = feats.NumRows();
  // Seconds to frames: t * 1000 / shift, rounded (in this order of
  // operations, so ties round the same way as Kaldi's).
  auto to_frames = [&](double seconds) {
    return static_cast<int32>(std::round(seconds * 1000.0 / opts.frame_shift));
  };
  int32 first = to_frames(start);
  int32 last = to_frames(end);
  if (opts.snip_edges)
    last -= static_cast<int32>(std::ceil(
        1.0 * (opts.frame_length - opts.frame_shift) / opts.frame_shift));
  if (first < 0 || first >= num_rows) {
    os << "Start frame " << first << " is out of range (the features have "
       << num_rows << " frames)";
    *message = os.str();
    return false;
  }
  if (last > num_rows) {
    int32 allowed = num_rows + to_frames(opts.max_overshoot);
    if (last >= allowed) {
      os << "End frame " << last << " is too far past the end (the features "
         << "have " << num_rows << " frames)";
      *message = os.str();
      return false;
    }
    last = num_rows;
  }
  if (last <= first + to_frames(opts.min_segment_length)) {
    os << "Segment is too short (" << (last - first) << " frames)";
    *message = os.str();
    return false;
  }
  output->Resize(last - first, feats.NumCols(), kUndefined);
  output->CopyFromMat(feats.Range(first, last - first, 0, feats.NumCols()));
  message->clear();
  return true;
}

}  // namespace nnet3
