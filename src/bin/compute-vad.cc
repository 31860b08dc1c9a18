// bin/compute-vad.cc
// Energy-based voice activity detection: writes, per utterance, a vector of
// 1.0 (voiced) / 0.0 per frame; see transform/vad.h for the rule.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/vad.h"

namespace nnet3 {

int ComputeVad(int argc, char *argv[]) {
  const char *usage =
      "Decides for each frame whether it is voiced, by thresholding the\n"
      "log energy (feature column 0) against a threshold that depends on\n"
      "the utterance's mean energy, with an optional vote over a window of\n"
      "frames. Writes a vector per utterance: 1.0 voiced, 0.0 unvoiced.\n"
      "Meant for speaker identification.\n"
      "Usage: compute-vad [options] <feats-rspecifier> <vad-wspecifier>\n"
      "e.g.: compute-vad scp:feats.scp ark:vad.ark\n"
      "See also: select-voiced-frames\n";
  ParseOptions po(usage);
  bool omit_unvoiced_utts = false;
  po.Register("omit-unvoiced-utts", &omit_unvoiced_utts,
              "If true, write nothing for utterances with no voiced frame");
  VadEnergyOptions opts;
  opts.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  opts.Check();
  SequentialBaseFloatMatrixReader reader(po.GetArg(1));
  BaseFloatVectorWriter writer(po.GetArg(2));
  int32 num_done = 0, num_err = 0, num_unvoiced = 0;
  double total_frames = 0.0, total_voiced = 0.0;
  for (; !reader.Done(); reader.Next()) {
    const std::string &utt = reader.Key();
    const Matrix<BaseFloat> &feats = reader.Value();
    if (feats.NumRows() == 0) {
      NNET3_WARN << "Empty feature matrix for utterance " << utt;
      num_err++;
      continue;
    }
    Vector<BaseFloat> voiced;
    ComputeVadEnergy(opts, feats, &voiced);
    double sum = voiced.Sum();
    if (sum == 0.0) {
      NNET3_WARN << "No frame of utterance " << utt << " was judged voiced";
      num_unvoiced++;
    } else {
      num_done++;
    }
    total_voiced += sum;
    total_frames += voiced.Dim();
    if (!(omit_unvoiced_utts && sum == 0.0)) writer.Write(utt, voiced);
  }
  NNET3_LOG << "Energy-based voice activity detection: " << num_done
            << " utterances done, " << num_err << " had empty features, "
            << num_unvoiced << " were entirely unvoiced.";
  if (total_frames > 0)
    NNET3_LOG << "Proportion of voiced frames was "
              << total_voiced / total_frames << " over " << total_frames
              << " frames.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ComputeVad);
}
