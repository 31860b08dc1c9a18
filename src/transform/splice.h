// transform/splice.h
// Frame splicing, as Kaldi's splice-feats: output frame t is the
// concatenation of input frames t - left_context ... t + right_context
// (oldest first); indexes before the start or past the end repeat the first
// or last frame. A T x D input gives T x D*(left + 1 + right).
#ifndef NNET3_TRANSFORM_SPLICE_H_
#define NNET3_TRANSFORM_SPLICE_H_

#include "matrix/matrix.h"

namespace nnet3 {

// UserError on an empty input or negative contexts.
void SpliceFrames(const MatrixBase<BaseFloat> &input, int32 left_context,
                  int32 right_context, Matrix<BaseFloat> *output);

}  // namespace nnet3

#endif  // NNET3_TRANSFORM_SPLICE_H_
