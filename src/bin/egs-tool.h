// bin/egs-tool.h
// What nnet3-get-egs and nnet3-get-egs-dense-targets share: the check for
// non-finite features, and the inputs of one chunk's example (the "input"
// rows with the chunk's context, the utterance's first/last frame repeated
// beyond its edges, and the optional one-row "ivector" drawn as Kaldi draws
// it: a random frame of [start, start + utterance length - 1], its iVector
// row clamped to the matrix).
#ifndef NNET3_BIN_EGS_TOOL_H_
#define NNET3_BIN_EGS_TOOL_H_

#include "matrix/general.h"
#include "matrix/matrix.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/egs/utterance-splitter.h"

namespace nnet3 {

// The first row of feats holding a NaN or infinity, or -1.
int32 FirstNonFiniteRow(const GeneralMatrix &feats);

// Appends "input" (and "ivector" when ivectors is non-null) for "chunk" of
// an utterance with features "feats" to eg->io.
void AddChunkInputs(const GeneralMatrix &feats,
                    const Matrix<BaseFloat> *ivectors, int32 ivector_period,
                    const ChunkTimeInfo &chunk, KaldiRand *rand,
                    NnetExample *eg);

}  // namespace nnet3

#endif  // NNET3_BIN_EGS_TOOL_H_
