// feat/feature-tool.h
// The main loop shared by compute-fbank-feats, compute-mfcc-feats and
// compute-spectrogram-feats: read audio from a wav table, pick the
// channel, look up the VTLN warp factor, compute features, optionally
// subtract the mean, and write them (plus utt2dur) to tables, with Kaldi's
// tool options, warnings and exit status (0 if any utterance succeeded).
// With --num-threads=N > 1 (ours), batches of utterances are computed on N
// threads and written in input order; the output is byte-identical to the
// single-threaded one (dither noise is seeded per utterance).
// Unlike Kaldi, a sample-rate mismatch (without --allow-downsample /
// --allow-upsample) or a failed computation is an error naming the
// utterance rather than a warning.
#ifndef NNET3_FEAT_FEATURE_TOOL_H_
#define NNET3_FEAT_FEATURE_TOOL_H_

#include <string>

#include "feat/feature-common.h"
#include "util/options.h"

namespace nnet3 {

struct FeatureToolOptions {
  bool subtract_mean = false;
  BaseFloat vtln_warp = 1.0f;
  std::string vtln_map_rspecifier;
  std::string utt2spk_rspecifier;
  int32 channel = -1;
  BaseFloat min_duration = 0.0f;
  std::string output_format = "kaldi";
  // Set by the tool, not an option: the HTK parameter kind written with
  // --output-format=htk (see htk-holder.h); -1 where HTK output is not
  // offered (the spectrogram tool, as in Kaldi).
  int32 htk_sample_kind = -1;
  std::string utt2dur_wspecifier;
  int32 num_threads = 1;  // ours: utterances computed in parallel
  // with_vtln: register --vtln-warp, --vtln-map and --utt2spk (fbank and
  // MFCC; the spectrogram tool has no warping).
  void Register(OptionsItf *opts, bool with_vtln);
};

// Returns the tool's exit status; throws UserError on fatal errors.
int ComputeFeaturesForTable(const std::string &wav_rspecifier,
                            const std::string &feats_wspecifier,
                            const FeatureToolOptions &opts,
                            FeatureExtractor *extractor);

}  // namespace nnet3

#endif  // NNET3_FEAT_FEATURE_TOOL_H_
