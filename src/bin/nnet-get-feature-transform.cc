// bin/nnet-get-feature-transform.cc
// Estimates the LDA-like preconditioning matrix of a fixed-affine-layer
// from LDA statistics (transform/feature-transform.h describes the steps
// and the options).
#include "bin/cli.h"
#include "transform/feature-transform.h"
#include "util/stream.h"

namespace nnet3 {

int NnetGetFeatureTransform(int argc, char *argv[]) {
  const char *usage =
      "Estimates a feature-preconditioning transform (a scaled LDA, by\n"
      "default with an offset column and no dimension reduction) from LDA\n"
      "statistics such as nnet3-acc-lda-stats writes.\n"
      "Usage:  nnet-get-feature-transform [options] <matrix-out> "
      "<lda-acc-1> <lda-acc-2> ...\n"
      "e.g.: nnet-get-feature-transform lda.mat lda_stats\n";
  ParseOptions po(usage);
  bool binary = true;
  FeatureTransformOptions opts;
  po.Register("binary", &binary, "Write the matrix in binary mode");
  opts.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() < 2) return UsageError(po);
  LdaEstimate stats;
  for (int32 i = 2; i <= po.NumArgs(); i++) {
    bool binary_in;
    Input ki(po.GetArg(i), &binary_in);
    try {
      stats.Read(ki.Stream(), binary_in, true);
    } catch (const UserError &e) {
      NNET3_ERR << "Reading " << PrintableRxfilename(po.GetArg(i)) << ": "
                << e.message();
    }
  }
  Matrix<BaseFloat> transform;
  EstimateFeatureTransform(opts, stats, &transform);
  WriteKaldiObject(transform, po.GetArg(1), binary);
  NNET3_LOG << "Wrote a " << transform.NumRows() << " x "
            << transform.NumCols() << " transform to "
            << PrintableWxfilename(po.GetArg(1));
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::NnetGetFeatureTransform);
}
