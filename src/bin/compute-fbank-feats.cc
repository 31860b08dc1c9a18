// bin/compute-fbank-feats.cc
// Log mel filter-bank features from wav files (Kaldi's compute-fbank-feats).
#include "bin/cli.h"
#include "feat/feature-fbank.h"
#include "feat/feature-tool.h"
#include "feat/htk-holder.h"

namespace nnet3 {

int ComputeFbankFeats(int argc, char *argv[]) {
  const char *usage =
      "Computes log mel filter-bank (fbank) features from audio.\n"
      "Usage: compute-fbank-feats [options] <wav-rspecifier> "
      "<feats-wspecifier>\n"
      "e.g.: compute-fbank-feats --dither=0 scp:wav.scp ark:fbank.ark\n"
      "See also: compute-mfcc-feats, compute-spectrogram-feats\n";
  ParseOptions po(usage);
  FbankOptions fbank_opts;
  FeatureToolOptions tool_opts;
  fbank_opts.Register(&po);
  tool_opts.Register(&po, true);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  tool_opts.htk_sample_kind =
      kHtkFbank | (fbank_opts.use_energy ? kHtkEnergy : kHtkC0);
  Fbank fbank(fbank_opts);
  return ComputeFeaturesForTable(po.GetArg(1), po.GetArg(2), tool_opts,
                                 &fbank);
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ComputeFbankFeats);
}
