// bin/compute-mfcc-feats.cc
// MFCC features from wav files (Kaldi's compute-mfcc-feats).
#include "bin/cli.h"
#include "feat/feature-mfcc.h"
#include "feat/feature-tool.h"
#include "feat/htk-holder.h"

namespace nnet3 {

int ComputeMfccFeats(int argc, char *argv[]) {
  const char *usage =
      "Computes mel-frequency cepstral coefficients (MFCCs) from audio.\n"
      "Usage: compute-mfcc-feats [options] <wav-rspecifier> "
      "<feats-wspecifier>\n"
      "e.g.: compute-mfcc-feats --dither=0 scp:wav.scp ark:mfcc.ark\n"
      "See also: compute-fbank-feats, compute-spectrogram-feats\n";
  ParseOptions po(usage);
  MfccOptions mfcc_opts;
  FeatureToolOptions tool_opts;
  mfcc_opts.Register(&po);
  tool_opts.Register(&po, true);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  tool_opts.htk_sample_kind =
      kHtkMfcc | (mfcc_opts.use_energy ? kHtkEnergy : kHtkC0);
  Mfcc mfcc(mfcc_opts);
  return ComputeFeaturesForTable(po.GetArg(1), po.GetArg(2), tool_opts,
                                 &mfcc);
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ComputeMfccFeats);
}
