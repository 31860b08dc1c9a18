// bin/compute-cmvn-stats.cc
// Accumulates CMVN statistics (2 x (dim + 1) double matrices): per
// utterance, per speaker (--spk2utt) or, when the output is a file, global.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/cmvn.h"
#include "util/stream.h"

namespace nnet3 {

namespace {

// Adds the stats of one utterance, with its frame weights if a weights table
// is open. False (with a warning) if the weights are missing or mismatched.
bool AccUtterance(const std::string &utt, const Matrix<BaseFloat> &feats,
                  RandomAccessBaseFloatVectorReader *weights_reader,
                  Matrix<double> *stats) {
  if (!weights_reader->IsOpen()) {
    AccCmvnStats(feats, nullptr, stats);
    return true;
  }
  if (!weights_reader->HasKey(utt)) {
    NNET3_WARN << "No frame weights for utterance " << utt;
    return false;
  }
  const Vector<BaseFloat> &weights = weights_reader->Value(utt);
  if (weights.Dim() != feats.NumRows()) {
    NNET3_WARN << "Frame weights of utterance " << utt << " have dimension "
               << weights.Dim() << " but it has " << feats.NumRows()
               << " frames";
    return false;
  }
  AccCmvnStats(feats, &weights, stats);
  return true;
}

}  // namespace

int ComputeCmvnStats(int argc, char *argv[]) {
  const char *usage =
      "Accumulates cepstral mean and variance normalization statistics:\n"
      "per utterance, or per speaker with --spk2utt, when writing a table;\n"
      "over all input (global stats) when writing a single file.\n"
      "Usage: compute-cmvn-stats [options] <feats-rspecifier> "
      "(<stats-wspecifier>|<stats-wxfilename>)\n"
      "e.g.: compute-cmvn-stats --spk2utt=ark:data/train/spk2utt "
      "scp:data/train/feats.scp ark,scp:cmvn.ark,cmvn.scp\n"
      "See also: apply-cmvn, apply-cmvn-sliding\n";
  ParseOptions po(usage);
  std::string spk2utt_rspecifier, weights_rspecifier;
  bool binary = true;
  po.Register("spk2utt", &spk2utt_rspecifier,
              "rspecifier of the speaker-to-utterances map; accumulates "
              "stats per speaker instead of per utterance");
  po.Register("binary", &binary,
              "Write global stats (single-file output) in binary");
  po.Register("weights", &weights_rspecifier,
              "rspecifier of per-frame weights (a vector per utterance)");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  std::string rspecifier = po.GetArg(1), out = po.GetArg(2);

  RandomAccessBaseFloatVectorReader weights_reader;
  if (!weights_rspecifier.empty()) weights_reader.Open(weights_rspecifier);
  int32 num_done = 0, num_err = 0;

  if (ClassifyWspecifier(out, nullptr, nullptr, nullptr) != kNoWspecifier) {
    DoubleMatrixWriter writer(out);
    if (!spk2utt_rspecifier.empty()) {
      SequentialTokenVectorReader spk2utt_reader(spk2utt_rspecifier);
      RandomAccessBaseFloatMatrixReader feat_reader(rspecifier);
      for (; !spk2utt_reader.Done(); spk2utt_reader.Next()) {
        const std::string &spk = spk2utt_reader.Key();
        Matrix<double> stats;
        for (const std::string &utt : spk2utt_reader.Value()) {
          if (!feat_reader.HasKey(utt)) {
            NNET3_WARN << "No features for utterance " << utt
                       << " (speaker " << spk << ")";
            num_err++;
            continue;
          }
          const Matrix<BaseFloat> &feats = feat_reader.Value(utt);
          if (stats.NumRows() == 0) InitCmvnStats(feats.NumCols(), &stats);
          if (AccUtterance(utt, feats, &weights_reader, &stats))
            num_done++;
          else
            num_err++;
        }
        if (stats.NumRows() == 0)
          NNET3_WARN << "No stats accumulated for speaker " << spk;
        else
          writer.Write(spk, stats);
      }
    } else {
      SequentialBaseFloatMatrixReader feat_reader(rspecifier);
      for (; !feat_reader.Done(); feat_reader.Next()) {
        const std::string &utt = feat_reader.Key();
        const Matrix<BaseFloat> &feats = feat_reader.Value();
        Matrix<double> stats;
        InitCmvnStats(feats.NumCols(), &stats);
        if (!AccUtterance(utt, feats, &weights_reader, &stats)) {
          num_err++;
          continue;
        }
        writer.Write(utt, stats);
        num_done++;
      }
    }
  } else {
    if (!spk2utt_rspecifier.empty())
      NNET3_ERR << "--spk2utt needs a table as output, not the file '" << out
                << "' (did you forget ark:?)";
    Matrix<double> stats;
    SequentialBaseFloatMatrixReader feat_reader(rspecifier);
    for (; !feat_reader.Done(); feat_reader.Next()) {
      const Matrix<BaseFloat> &feats = feat_reader.Value();
      if (stats.NumRows() == 0) InitCmvnStats(feats.NumCols(), &stats);
      if (AccUtterance(feat_reader.Key(), feats, &weights_reader, &stats))
        num_done++;
      else
        num_err++;
    }
    // Global stats are written as a float matrix, as Kaldi does.
    WriteKaldiObject(Matrix<float>(stats), out, binary);
    NNET3_LOG << "Wrote global CMVN stats to " << PrintableWxfilename(out);
  }
  NNET3_LOG << "Accumulated CMVN stats for " << num_done << " utterances; "
            << num_err << " had errors.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ComputeCmvnStats);
}
