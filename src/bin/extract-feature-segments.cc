// bin/extract-feature-segments.cc
// Cuts segments (lines "segment-id utterance-id start end [channel]", times
// in seconds) out of feature matrices.
#include <cmath>

#include "bin/cli.h"
#include "matrix/table-types.h"
#include "transform/frames.h"
#include "util/stream.h"
#include "util/text.h"

namespace nnet3 {

int ExtractFeatureSegments(int argc, char *argv[]) {
  const char *usage =
      "Creates feature matrices for segments of the input utterances.\n"
      "The segments file has lines: <segment-id> <utterance-id> <start> "
      "<end>\n"
      "(times in seconds, an optional fifth field is a channel number).\n"
      "Script files with row ranges (utt feats.ark:12[100:199]) do the same\n"
      "without copying.\n"
      "Usage: extract-feature-segments [options] <feats-rspecifier> "
      "<segments-rxfilename> <feats-wspecifier>\n"
      "e.g.: extract-feature-segments scp:feats.scp data/segments ark:-\n";
  ParseOptions po(usage);
  FeatureSegmentOptions opts;
  opts.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  RandomAccessBaseFloatMatrixReader feat_reader(po.GetArg(1));
  std::string segments = po.GetArg(2);
  BaseFloatMatrixWriter writer(po.GetArg(3));
  Input input;
  input.OpenTextMode(segments);
  int32 num_lines = 0, num_done = 0;
  std::string line;
  while (std::getline(input.Stream(), line)) {
    num_lines++;
    std::vector<std::string> f;
    SplitStringToVector(line, " \t\r", true, &f);
    double start = 0, end = 0;
    int32 channel = 0;
    if ((f.size() != 4 && f.size() != 5) ||
        !ConvertStringToReal(f[2], &start) ||
        !ConvertStringToReal(f[3], &end) ||
        (f.size() == 5 &&
         (!ConvertStringToInteger(f[4], &channel) || channel < 0))) {
      NNET3_WARN << "Invalid line " << num_lines << " of "
                 << PrintableRxfilename(segments) << ": " << line;
      continue;
    }
    if (start < 0 || end <= 0 || start >= end) {
      NNET3_WARN << "Empty or invalid segment on line " << num_lines << " of "
                 << PrintableRxfilename(segments) << ": " << line;
      continue;
    }
    const std::string &segment = f[0], &utt = f[1];
    if (!feat_reader.HasKey(utt)) {
      NNET3_WARN << "No features for utterance " << utt << ", skipping "
                 << "segment " << segment;
      continue;
    }
    Matrix<BaseFloat> out;
    std::string message;
    if (!ExtractFeatureSegment(opts, feat_reader.Value(utt), start, end, &out,
                               &message)) {
      NNET3_WARN << message << ", skipping segment " << segment;
      continue;
    }
    writer.Write(segment, out);
    num_done++;
  }
  NNET3_LOG << "Extracted " << num_done << " segments out of " << num_lines
            << " lines of the segments file.";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ExtractFeatureSegments);
}
