// transform/deltas.h
// Delta (time-derivative) features, as Kaldi's add-deltas. The output of a
// T x D input is T x D*(order+1): block 0 is the input, block i the i-th
// order delta. The i-th order filter is the (i-1)-th filter convolved with
// the regression window j / sum_{k=-N..N} k^2 for j = -N..N (N = window), so
// the first-order delta of frame t is
//   sum_{j=1..N} j * (x[t+j] - x[t-j]) / (2 * sum_{j=1..N} j^2).
// Frames before the start or after the end repeat the first or last frame.
#ifndef NNET3_TRANSFORM_DELTAS_H_
#define NNET3_TRANSFORM_DELTAS_H_

#include <vector>

#include "matrix/matrix.h"
#include "matrix/vector.h"
#include "util/options.h"

namespace nnet3 {

struct DeltaFeaturesOptions {
  int32 order;
  int32 window;  // the filter of each order spans 2 * window + 1 frames
  explicit DeltaFeaturesOptions(int32 order = 2, int32 window = 2)
      : order(order), window(window) {}
  void Register(OptionsItf *opts) {
    opts->Register("delta-order", &order, "Order of the deltas (0: none)");
    opts->Register("delta-window", &window,
                   "Half-width of the regression window of each delta "
                   "order (the window is 2 * delta-window + 1 frames)");
  }
};

// Computes delta features frame by frame; holds the filter of each order.
class DeltaFeatures {
 public:
  // UserError unless 0 <= order < 1000 and 0 < window < 1000.
  explicit DeltaFeatures(const DeltaFeaturesOptions &opts);
  // Writes frame `frame` of the output (dimension D*(order+1)).
  void Process(const MatrixBase<BaseFloat> &input, int32 frame,
               VectorBase<BaseFloat> *output_frame) const;
  // The filter of order i (2*i*window + 1 taps, centered).
  const Vector<BaseFloat> &Filter(int32 i) const { return scales_[i]; }

 private:
  DeltaFeaturesOptions opts_;
  std::vector<Vector<BaseFloat> > scales_;
};

// The whole matrix: *output is resized to T x D*(order+1).
void ComputeDeltas(const DeltaFeaturesOptions &opts,
                   const MatrixBase<BaseFloat> &input,
                   Matrix<BaseFloat> *output);

}  // namespace nnet3

#endif  // NNET3_TRANSFORM_DELTAS_H_
