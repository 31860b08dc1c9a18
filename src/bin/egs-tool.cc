// bin/egs-tool.cc
#include "bin/egs-tool.h"

#include <cstdlib>
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

void EgsIvectors::Register(ParseOptions *po) {
  po->Register("ivectors", &rspecifier_,
               "Alias for --online-ivectors, for back compatibility");
  po->Register("online-ivectors", &rspecifier_,
               "Rspecifier of iVectors estimated online, as matrices (one row "
               "per --online-ivector-period frames)");
  po->Register("online-ivector-period", &period_,
               "Frames per row of the --online-ivectors matrices (each "
               "iVector covers this many frames)");
}

void EgsIvectors::Open() {
  if (period_ <= 0)
    NNET3_ERR << "Invalid --online-ivector-period=" << period_;
  if (!rspecifier_.empty()) reader_.Open(rspecifier_);
}

bool EgsIvectors::Lookup(const std::string &utt, int32 num_frames,
                         int32 rows_scale, int32 tolerance,
                         const Matrix<BaseFloat> **ivectors) {
  *ivectors = nullptr;
  if (rspecifier_.empty()) return true;
  if (!reader_.HasKey(utt)) {
    NNET3_WARN << "No iVectors for utterance " << utt;
    return false;
  }
  const Matrix<BaseFloat> &m = reader_.Value(utt);
  if (m.NumRows() == 0 ||
      std::abs(num_frames - m.NumRows() * rows_scale) > tolerance) {
    NNET3_WARN << "Length difference between feats " << num_frames
               << " and iVectors " << m.NumRows() << " exceeds tolerance "
               << tolerance << " for utterance " << utt;
    return false;
  }
  *ivectors = &m;
  return true;
}

bool ChunksForUtterance(const std::string &utt, int32 num_frames,
                        UtteranceSplitter *splitter,
                        std::vector<ChunkTimeInfo> *chunks) {
  splitter->GetChunksForUtterance(num_frames, chunks);
  if (!chunks->empty()) return true;
  NNET3_WARN << "Not producing egs for utterance " << utt
             << " because it is too short: " << num_frames << " frames.";
  return false;
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
