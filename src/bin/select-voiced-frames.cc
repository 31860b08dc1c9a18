// bin/select-voiced-frames.cc
// Keeps the frames of each utterance that compute-vad judged voiced.
#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/frames.h"

namespace nnet3 {

int SelectVoicedFramesTool(int argc, char *argv[]) {
  const char *usage =
      "Keeps only the voiced frames of each utterance, using the output of\n"
      "compute-vad (a vector per utterance with 1.0 for voiced frames and\n"
      "0.0 for the others). Mostly useful for speaker identification.\n"
      "Usage: select-voiced-frames [options] <feats-rspecifier> "
      "<vad-rspecifier> <feats-wspecifier>\n"
      "e.g.: select-voiced-frames scp:feats.scp scp:vad.scp ark:-\n"
      "See also: compute-vad\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  SequentialBaseFloatMatrixReader feat_reader(po.GetArg(1));
  RandomAccessBaseFloatVectorReader vad_reader(po.GetArg(2));
  BaseFloatMatrixWriter writer(po.GetArg(3));
  int32 num_done = 0, num_err = 0;
  for (; !feat_reader.Done(); feat_reader.Next()) {
    const std::string &utt = feat_reader.Key();
    const Matrix<BaseFloat> &feats = feat_reader.Value();
    if (feats.NumRows() == 0) {
      NNET3_WARN << "Empty feature matrix for utterance " << utt;
      num_err++;
      continue;
    }
    if (!vad_reader.HasKey(utt)) {
      NNET3_WARN << "No voice activity decisions for utterance " << utt;
      num_err++;
      continue;
    }
    const Vector<BaseFloat> &voiced = vad_reader.Value(utt);
    if (voiced.Dim() != feats.NumRows()) {
      NNET3_WARN << "Utterance " << utt << " has " << feats.NumRows()
                 << " frames but " << voiced.Dim()
                 << " voice activity decisions";
      num_err++;
      continue;
    }
    Matrix<BaseFloat> selected;
    bool any = false;
    try {
      any = SelectVoicedFrames(feats, voiced, &selected);
    } catch (const UserError &e) {
      NNET3_ERR << "Utterance " << utt << ": " << e.message();
    }
    if (!any) {
      NNET3_WARN << "No frame of utterance " << utt << " is voiced";
      num_err++;
      continue;
    }
    writer.Write(utt, selected);
    num_done++;
  }
  NNET3_LOG << "Selected voiced frames of " << num_done << " utterances, "
            << num_err << " had errors.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::SelectVoicedFramesTool);
}
