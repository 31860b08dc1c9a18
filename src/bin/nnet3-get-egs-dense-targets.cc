// bin/nnet3-get-egs-dense-targets.cc
// As nnet3-get-egs, but the targets are a dense matrix per utterance (one
// row per output frame, e.g. real-valued targets for a quadratic
// objective) instead of posteriors. Kaldi's tool of this name: the features
// are read as full matrices (compressed input is expanded, then the whole
// example is compressed again under --compress), each chunk's "output" is
// the target rows of its output frames (the last row repeated where the
// targets are short, no overlap weighting, t stride 1 as Kaldi writes it),
// and keys are "<utt>-<first output frame>".
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "bin/cli.h"
#include "bin/egs-tool.h"
#include "matrix/table-types.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/egs/utterance-splitter.h"
#include "util/table.h"

namespace nnet3 {

namespace {

struct DenseEgsOptions {
  bool compress = true;
  int32 num_targets = -1;
  int32 ivector_period = 1;
};

// Writes the examples of one utterance; false (after a warning) if it could
// not be used.
bool ProcessUtterance(const GeneralMatrix &feats,
                      const Matrix<BaseFloat> *ivectors,
                      const Matrix<BaseFloat> &targets, const std::string &utt,
                      const DenseEgsOptions &opts, UtteranceSplitter *splitter,
                      KaldiRand *rand, NnetExampleWriter *writer) {
  const int32 num_input_frames = feats.NumRows();
  if (!splitter->LengthsMatch(utt, num_input_frames, targets.NumRows())) {
    if (targets.NumRows() == 0) return false;
    // As Kaldi: a small disagreement is tolerated here.
    NNET3_WARN << "Processing utterance " << utt << " anyway";
  }
  std::vector<ChunkTimeInfo> chunks;
  if (!ChunksForUtterance(utt, num_input_frames, splitter, &chunks))
    return false;
  const int32 sf = splitter->Config().frame_subsampling_factor;
  const ChunkTimeInfo &last = chunks.back();
  const int32 last_row = (last.first_frame + last.num_frames) / sf - 1;
  if (last_row >= targets.NumRows()) {
    NNET3_WARN << "Utterance " << utt << ": its last chunk needs target row "
               << last_row << " but the targets have " << targets.NumRows()
               << " rows; not producing egs for it";
    return false;
  }
  for (const ChunkTimeInfo &chunk : chunks) {
    NnetExample eg;
    AddChunkInputs(feats, ivectors, opts.ivector_period, chunk, rand, &eg);
    const int32 first_out = chunk.first_frame / sf,
                num_out = chunk.num_frames / sf;
    Matrix<BaseFloat> part(num_out, targets.NumCols(), kUndefined);
    for (int32 i = 0; i < num_out; i++) {
      int32 t = std::min(first_out + i, targets.NumRows() - 1);
      part.Row(i).CopyFromVec(targets.Row(t));
    }
    eg.io.push_back(NnetIo("output", 0, part));
    if (opts.compress) eg.Compress();
    std::ostringstream key;
    key << utt << "-" << chunk.first_frame;
    writer->Write(key.str(), eg);
  }
  return true;
}

}  // namespace

int Nnet3GetEgsDenseTargets(int argc, char *argv[]) {
  const char *usage =
      "Cuts features and per-frame dense targets (a matrix per utterance,\n"
      "one row per output frame) into examples for nnet3 training, as\n"
      "nnet3-get-egs does with posteriors: chunks of --num-frames frames\n"
      "with --left-context and --right-context frames of input around them,\n"
      "an optional iVector, and the chunk's target rows as a dense output.\n"
      "\n"
      "Usage:  nnet3-get-egs-dense-targets --num-targets=<n> [options] "
      "<features-rspecifier> <targets-rspecifier> <egs-out>\n"
      "e.g.: nnet3-get-egs-dense-targets --num-targets=26 "
      "--left-context=12 --right-context=9 --num-frames=8 scp:feats.scp \\\n"
      "   \"ark:copy-matrix ark:targets.ark ark:- |\" ark:egs.ark\n"
      "See also: nnet3-get-egs, nnet3-copy-egs, nnet3-merge-egs\n";
  ParseOptions po(usage);
  DenseEgsOptions opts;
  int32 length_tolerance = 100;
  ExampleGenerationConfig eg_config;
  eg_config.Register(&po);
  po.Register("compress", &opts.compress,
              "If true, write the examples compressed (inputs and targets)");
  po.Register("num-targets", &opts.num_targets,
              "Number of columns of the targets; when set, each utterance's "
              "targets are checked against it");
  EgsIvectors ivector_opts;
  ivector_opts.Register(&po);
  po.Register("length-tolerance", &length_tolerance,
              "Largest number of frames by which the targets may be longer "
              "than the features, and by which the iVector matrix's row "
              "count may differ from the number of frames");
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  ivector_opts.Open();
  opts.ivector_period = ivector_opts.Period();
  eg_config.ComputeDerived();
  KaldiRand rand;
  UtteranceSplitter splitter(eg_config, &rand);

  const std::string feature_rspecifier = po.GetArg(1),
                    targets_rspecifier = po.GetArg(2),
                    egs_wspecifier = po.GetArg(3);
  SequentialGeneralMatrixReader feat_reader(feature_rspecifier);
  RandomAccessBaseFloatMatrixReader targets_reader(targets_rspecifier);
  NnetExampleWriter writer(egs_wspecifier);

  int32 num_err = 0;
  for (; !feat_reader.Done(); feat_reader.Next()) {
    const std::string key = feat_reader.Key();
    if (!targets_reader.HasKey(key)) {
      NNET3_WARN << "No target matrix for key " << key;
      num_err++;
      continue;
    }
    // Full matrices, as Kaldi reads them.
    Matrix<BaseFloat> full;
    feat_reader.Value().GetMatrix(&full);
    const GeneralMatrix feats(full);
    const Matrix<BaseFloat> &targets = targets_reader.Value(key);
    if (opts.num_targets > 0 && targets.NumCols() != opts.num_targets)
      NNET3_ERR << "Utterance " << key << ": the targets have "
                << targets.NumCols() << " columns but --num-targets="
                << opts.num_targets;
    if (targets.NumRows() - feats.NumRows() > length_tolerance) {
      NNET3_WARN << "Length difference between feats " << feats.NumRows()
                 << " and target matrix " << targets.NumRows()
                 << " exceeds tolerance " << length_tolerance
                 << " for utterance " << key;
      num_err++;
      continue;
    }
    // (Kaldi compares the row count itself here, not times the period.)
    const Matrix<BaseFloat> *ivectors = nullptr;
    if (!ivector_opts.Lookup(key, feats.NumRows(), 1, length_tolerance,
                             &ivectors)) {
      num_err++;
      continue;
    }
    int32 bad_row = FirstNonFiniteRow(feats);
    const char *what = "features";
    if (bad_row < 0) {
      bad_row = FirstNonFiniteRow(GeneralMatrix(targets));
      what = "targets";
    }
    if (bad_row >= 0) {
      NNET3_WARN << "Utterance " << key << ": NaN or infinity in the "
                 << what << " (row " << bad_row << "); not producing egs "
                 << "for it";
      num_err++;
      continue;
    }
    if (!ProcessUtterance(feats, ivectors, targets, key, opts, &splitter,
                          &rand, &writer))
      num_err++;
  }
  if (num_err > 0)
    NNET3_WARN << num_err << " utterances had errors and could not be "
               << "processed.";
  return splitter.ExitStatus();
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3GetEgsDenseTargets);
}
