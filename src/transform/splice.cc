// transform/splice.cc
#include "transform/splice.h"

#include <algorithm>
#include <cstring>

namespace nnet3 {

void SpliceFrames(const MatrixBase<BaseFloat> &input, int32 left_context,
                  int32 right_context, Matrix<BaseFloat> *output) {
  int32 num_frames = input.NumRows(), dim = input.NumCols();
  if (num_frames == 0 || dim == 0)
    NNET3_ERR << "Cannot splice an empty feature matrix (" << num_frames
              << " x " << dim << ")";
  if (left_context < 0 || right_context < 0)
    NNET3_ERR << "Splicing contexts must be non-negative, got left "
              << left_context << ", right " << right_context;
  int32 n = left_context + 1 + right_context;
  output->Resize(num_frames, dim * n, kUndefined);
  for (int32 t = 0; t < num_frames; t++) {
    BaseFloat *out = output->RowData(t);
    for (int32 j = 0; j < n; j++) {
      int32 src = std::min(std::max(t + j - left_context, 0), num_frames - 1);
      std::memcpy(out + j * dim, input.RowData(src), sizeof(BaseFloat) * dim);
    }
  }
}

}  // namespace nnet3
