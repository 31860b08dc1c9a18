// bin/add-deltas.cc
// Appends delta (and delta-delta, ...) features to each matrix.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/deltas.h"

namespace nnet3 {

int AddDeltas(int argc, char *argv[]) {
  const char *usage =
      "Appends time derivatives (deltas, delta-deltas, ...) to features,\n"
      "typically raw MFCC or PLP features.\n"
      "Usage: add-deltas [options] <feats-rspecifier> <feats-wspecifier>\n"
      "e.g.: add-deltas --delta-order=2 scp:feats.scp ark:-\n"
      "See also: splice-feats\n";
  ParseOptions po(usage);
  DeltaFeaturesOptions opts;
  int32 truncate = 0;
  po.Register("truncate", &truncate,
              "If non-zero, keep only this many leading feature dimensions "
              "before computing deltas");
  opts.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  if (truncate < 0) NNET3_ERR << "--truncate must be >= 0, got " << truncate;
  DeltaFeatures check(opts);  // validates the options before any I/O
  SequentialBaseFloatMatrixReader reader(po.GetArg(1));
  BaseFloatMatrixWriter writer(po.GetArg(2));
  int32 num_done = 0;
  for (; !reader.Done(); reader.Next()) {
    const std::string &key = reader.Key();
    const Matrix<BaseFloat> &feats = reader.Value();
    if (feats.NumRows() == 0) {
      NNET3_WARN << "Empty feature matrix for key " << key;
      continue;
    }
    Matrix<BaseFloat> out;
    if (truncate != 0) {
      if (truncate > feats.NumCols())
        NNET3_ERR << "Cannot truncate the features of " << key
                  << " to dimension " << truncate << ": they have only "
                  << feats.NumCols();
      ComputeDeltas(opts, feats.Range(0, feats.NumRows(), 0, truncate), &out);
    } else {
      ComputeDeltas(opts, feats, &out);
    }
    writer.Write(key, out);
    num_done++;
  }
  NNET3_LOG << "Added deltas to " << num_done << " feature matrices.";
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::AddDeltas);
}
