// bin/sum-lda-accs.cc
// Sums LDA statistics files (<LDAACCS>, as written by nnet3-acc-lda-stats)
// into one.
#include "bin/cli.h"
#include "transform/lda-estimate.h"
#include "util/stream.h"

namespace nnet3 {

int SumLdaAccs(int argc, char *argv[]) {
  const char *usage =
      "Adds up LDA statistics files.\n"
      "Usage: sum-lda-accs [options] <stats-out> <stats-in1> <stats-in2> ...\n"
      "e.g.: sum-lda-accs lda_stats 1.lda_stats 2.lda_stats\n";
  ParseOptions po(usage);
  bool binary = true;
  po.Register("binary", &binary, "Write the output in binary mode");
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
  WriteKaldiObject(stats, po.GetArg(1), binary);
  NNET3_LOG << "Summed " << (po.NumArgs() - 1) << " stats files, total count "
            << stats.TotCount() << "; wrote "
            << PrintableWxfilename(po.GetArg(1));
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::SumLdaAccs);
}
