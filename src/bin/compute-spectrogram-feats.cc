// bin/compute-spectrogram-feats.cc
// Log power spectrogram features from wav files (Kaldi's
// compute-spectrogram-feats).
#include "bin/cli.h"
#include "feat/feature-spectrogram.h"
#include "feat/feature-tool.h"

namespace nnet3 {

int ComputeSpectrogramFeats(int argc, char *argv[]) {
  const char *usage =
      "Computes log power spectrogram features from audio.\n"
      "Usage: compute-spectrogram-feats [options] <wav-rspecifier> "
      "<feats-wspecifier>\n"
      "e.g.: compute-spectrogram-feats --dither=0 scp:wav.scp ark:spec.ark\n"
      "See also: compute-fbank-feats, compute-mfcc-feats\n";
  ParseOptions po(usage);
  SpectrogramOptions spec_opts;
  FeatureToolOptions tool_opts;
  spec_opts.Register(&po);
  tool_opts.Register(&po, false);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  Spectrogram spec(spec_opts);
  return ComputeFeaturesForTable(po.GetArg(1), po.GetArg(2), tool_opts,
                                 &spec);
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ComputeSpectrogramFeats);
}
