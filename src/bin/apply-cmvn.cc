// bin/apply-cmvn.cc
// Applies cepstral mean (and optionally variance) normalization with stats
// from compute-cmvn-stats: per utterance, per speaker (--utt2spk), or one
// set of stats read from a single file for every utterance.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/cmvn.h"
#include "util/stream.h"
#include "util/text.h"

namespace nnet3 {

int ApplyCmvnTool(int argc, char *argv[]) {
  const char *usage =
      "Applies cepstral mean and (optionally) variance normalization, per\n"
      "utterance by default, per speaker with --utt2spk, or with one set of\n"
      "stats for everything when the stats are a single file.\n"
      "Usage: apply-cmvn [options] (<cmvn-stats-rspecifier>|"
      "<cmvn-stats-rxfilename>) <feats-rspecifier> <feats-wspecifier>\n"
      "e.g.: apply-cmvn --utt2spk=ark:data/train/utt2spk "
      "scp:data/train/cmvn.scp scp:data/train/feats.scp ark:-\n"
      "See also: compute-cmvn-stats, apply-cmvn-sliding\n";
  ParseOptions po(usage);
  std::string utt2spk_rspecifier, skip_dims_str;
  bool norm_vars = false, norm_means = true, reverse = false;
  po.Register("utt2spk", &utt2spk_rspecifier,
              "rspecifier of the utterance-to-speaker map (stats are then "
              "looked up by speaker)");
  po.Register("norm-vars", &norm_vars, "If true, normalize variances too");
  po.Register("norm-means", &norm_means,
              "If false, do not normalize at all (features are copied)");
  po.Register("skip-dims", &skip_dims_str,
              "Colon-separated dimensions to leave unnormalized, e.g. "
              "13:14:15");
  po.Register("reverse", &reverse,
              "If true, apply the inverse transform: give zero-mean "
              "(unit-variance) input the mean (and variance) of the stats");
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  if (norm_vars && !norm_means)
    NNET3_ERR << "--norm-vars=true requires --norm-means=true";
  std::vector<int32> skip_dims;
  if (!SplitStringToIntegers(skip_dims_str, ":", false, &skip_dims))
    NNET3_ERR << "Bad --skip-dims '" << skip_dims_str
              << "' (expected colon-separated integers)";
  std::string stats_in = po.GetArg(1), feats_in = po.GetArg(2),
              feats_out = po.GetArg(3);

  SequentialBaseFloatMatrixReader feat_reader(feats_in);
  BaseFloatMatrixWriter feat_writer(feats_out);
  int32 num_done = 0, num_err = 0;
  // Errors name the utterance.
  auto normalize = [&](const std::string &utt, Matrix<double> stats,
                       Matrix<BaseFloat> *feats) {
    try {
      if (!skip_dims.empty()) FakeStatsForSomeDims(skip_dims, &stats);
      if (reverse)
        ApplyCmvnReverse(stats, norm_vars, feats);
      else
        ApplyCmvn(stats, norm_vars, feats);
    } catch (const UserError &e) {
      NNET3_ERR << "Utterance " << utt << ": " << e.message();
    }
  };

  if (!norm_means) {
    for (; !feat_reader.Done(); feat_reader.Next(), num_done++)
      feat_writer.Write(feat_reader.Key(), feat_reader.Value());
    NNET3_LOG << "Copied " << num_done << " utterances.";
    return num_done != 0 ? 0 : 1;
  }
  if (ClassifyRspecifier(stats_in, nullptr, nullptr) != kNoRspecifier) {
    RandomAccessTableReaderMapped<KaldiObjectHolder<Matrix<double> > >
        stats_reader(stats_in, utt2spk_rspecifier);
    for (; !feat_reader.Done(); feat_reader.Next()) {
      const std::string &utt = feat_reader.Key();
      if (!stats_reader.HasKey(utt)) {
        NNET3_WARN << "No CMVN stats for utterance " << utt
                   << (utt2spk_rspecifier.empty() ? "" : " (or its speaker)")
                   << ", producing no output for it";
        num_err++;
        continue;
      }
      Matrix<BaseFloat> feats(feat_reader.Value());
      normalize(utt, stats_reader.Value(utt), &feats);
      feat_writer.Write(utt, feats);
      num_done++;
    }
  } else {
    if (!utt2spk_rspecifier.empty())
      NNET3_ERR << "--utt2spk cannot be used with stats from the single file '"
                << stats_in << "' (did you forget ark:?)";
    Matrix<double> stats;
    ReadKaldiObject(stats_in, &stats);
    for (; !feat_reader.Done(); feat_reader.Next(), num_done++) {
      Matrix<BaseFloat> feats(feat_reader.Value());
      normalize(feat_reader.Key(), stats, &feats);
      feat_writer.Write(feat_reader.Key(), feats);
    }
  }
  NNET3_LOG << "Applied cepstral mean " << (norm_vars ? "and variance " : "")
            << "normalization to " << num_done << " utterances, errors on "
            << num_err;
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ApplyCmvnTool);
}
