// bin/egs-tool.h
// What nnet3-get-egs and nnet3-get-egs-dense-targets share: the check for
// non-finite features, the online-iVector options and lookup, the chunks of
// an utterance, and the inputs of one chunk's example (the "input"
// rows with the chunk's context, the utterance's first/last frame repeated
// beyond its edges, and the optional one-row "ivector" drawn as Kaldi draws
// it: a random frame of [start, start + utterance length - 1], its iVector
// row clamped to the matrix).
#ifndef NNET3_BIN_EGS_TOOL_H_
#define NNET3_BIN_EGS_TOOL_H_

#include <string>
#include <vector>

#include "matrix/general.h"
#include "matrix/table-types.h"
#include "matrix/matrix.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/egs/utterance-splitter.h"
#include "util/options.h"
#include "util/table.h"

namespace nnet3 {

typedef SequentialTableReader<KaldiObjectHolder<GeneralMatrix> >
    SequentialGeneralMatrixReader;

// The first row of feats holding a NaN or infinity, or -1.
int32 FirstNonFiniteRow(const GeneralMatrix &feats);

// The online-iVector options of the egs makers (--online-ivectors, its
// alias --ivectors, --online-ivector-period) and the per-utterance lookup.
class EgsIvectors {
 public:
  void Register(ParseOptions *po);
  // Checks the period and opens the table (if one was given).
  void Open();
  int32 Period() const { return period_; }
  // The utterance's iVector matrix in *ivectors (nullptr without
  // --online-ivectors); false after a warning when it is missing, empty, or
  // its rows times "rows_scale" differ from num_frames by more than
  // "tolerance" (Kaldi's nnet3-get-egs scales by the period,
  // nnet3-get-egs-dense-targets by 1).
  bool Lookup(const std::string &utt, int32 num_frames, int32 rows_scale,
              int32 tolerance, const Matrix<BaseFloat> **ivectors);

 private:
  std::string rspecifier_;
  int32 period_ = 1;
  RandomAccessBaseFloatMatrixReader reader_;
};

// The chunks of an utterance of num_frames frames; false (after a warning
// naming it) when it is too short for any.
bool ChunksForUtterance(const std::string &utt, int32 num_frames,
                        UtteranceSplitter *splitter,
                        std::vector<ChunkTimeInfo> *chunks);

// Appends "input" (and "ivector" when ivectors is non-null) for "chunk" of
// an utterance with features "feats" to eg->io.
void AddChunkInputs(const GeneralMatrix &feats,
                    const Matrix<BaseFloat> *ivectors, int32 ivector_period,
                    const ChunkTimeInfo &chunk, KaldiRand *rand,
                    NnetExample *eg);

}  // namespace nnet3

#endif  // NNET3_BIN_EGS_TOOL_H_
