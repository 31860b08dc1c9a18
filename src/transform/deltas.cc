// transform/deltas.cc
#include "transform/deltas.h"

namespace nnet3 {

DeltaFeatures::DeltaFeatures(const DeltaFeaturesOptions &opts) : opts_(opts) {
  if (opts.order < 0 || opts.order >= 1000)
    NNET3_ERR << "--delta-order must be in [0, 1000), got " << opts.order;
  if (opts.window <= 0 || opts.window >= 1000)
    NNET3_ERR << "--delta-window must be in [1, 1000), got " << opts.window;
  int32 n = opts.window;
  BaseFloat normalizer = 0.0;
  for (int32 j = -n; j <= n; j++) normalizer += j * j;
  scales_.resize(opts.order + 1);
  scales_[0].Resize(1);
  scales_[0](0) = 1.0;
  for (int32 i = 1; i <= opts.order; i++) {
    const Vector<BaseFloat> &prev = scales_[i - 1];
    Vector<BaseFloat> &cur = scales_[i];
    int32 prev_half = (prev.Dim() - 1) / 2, cur_half = prev_half + n;
    cur.Resize(prev.Dim() + 2 * n);
    // cur = prev (*) regression window, i.e. a full convolution.
    for (int32 j = -n; j <= n; j++)
      for (int32 k = -prev_half; k <= prev_half; k++)
        cur(j + k + cur_half) +=
            static_cast<BaseFloat>(j) * prev(k + prev_half);
    cur.Scale(1.0f / normalizer);
  }
}

void DeltaFeatures::Process(const MatrixBase<BaseFloat> &input, int32 frame,
                            VectorBase<BaseFloat> *output_frame) const {
  int32 num_frames = input.NumRows(), dim = input.NumCols();
  NNET3_ASSERT(frame >= 0 && frame < num_frames);
  NNET3_ASSERT(output_frame->Dim() == dim * (opts_.order + 1));
  output_frame->SetZero();
  for (int32 i = 0; i <= opts_.order; i++) {
    const Vector<BaseFloat> &filter = scales_[i];
    int32 half = (filter.Dim() - 1) / 2;
    BaseFloat *out = output_frame->Data() + i * dim;
    for (int32 j = -half; j <= half; j++) {
      BaseFloat scale = filter(j + half);
      if (scale == 0.0f) continue;
      int32 t = frame + j;
      if (t < 0) t = 0;
      if (t >= num_frames) t = num_frames - 1;
      const BaseFloat *in = input.RowData(t);
      for (int32 d = 0; d < dim; d++) out[d] += scale * in[d];
    }
  }
}

void ComputeDeltas(const DeltaFeaturesOptions &opts,
                   const MatrixBase<BaseFloat> &input,
                   Matrix<BaseFloat> *output) {
  DeltaFeatures delta(opts);
  output->Resize(input.NumRows(), input.NumCols() * (opts.order + 1));
  for (int32 t = 0; t < input.NumRows(); t++) {
    SubVector<BaseFloat> row(*output, t);
    delta.Process(input, t, &row);
  }
}

}  // namespace nnet3
