// bin/egs-tool.cc
#include "bin/egs-tool.h"

#include <string>

namespace nnet3 {

int32 FirstNonFiniteRow(const GeneralMatrix &feats) {
  NnetExample eg;
  eg.io.resize(1);
  eg.io[0].features = feats;
  eg.io[0].indexes.resize(feats.NumRows());
  std::string name;
  int32 row;
  return ExampleIsFinite(eg, &name, &row) ? -1 : row;
}

void AddChunkInputs(const GeneralMatrix &feats,
                    const Matrix<BaseFloat> *ivectors, int32 ivector_period,
                    const ChunkTimeInfo &chunk, KaldiRand *rand,
                    NnetExample *eg) {
  const int32 num_rows =
                  chunk.left_context + chunk.num_frames + chunk.right_context,
              start_frame = chunk.first_frame - chunk.left_context;
  GeneralMatrix input;
  ExtractRowRangeWithPadding(feats, start_frame, num_rows, &input);
  eg->io.push_back(NnetIo("input", -chunk.left_context, input));
  if (ivectors == nullptr) return;
  // Kaldi draws from [start_frame, start_frame + utterance length - 1]
  // (sic: the utterance's length, not the chunk's).
  int32 frame = rand->RandInt(start_frame, start_frame + feats.NumRows() - 1);
  int32 row = frame / ivector_period;
  if (row < 0) row = 0;
  if (row >= ivectors->NumRows()) row = ivectors->NumRows() - 1;
  Matrix<BaseFloat> ivector(1, ivectors->NumCols());
  ivector.Row(0).CopyFromVec(ivectors->Row(row));
  eg->io.push_back(NnetIo("ivector", 0, ivector));
}

}  // namespace nnet3
