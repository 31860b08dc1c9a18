// bin/extract-segments.cc
// Cuts recordings into segments listed in a Kaldi segments file
// ("<segment-id> <recording-id> <start-seconds> <end-seconds> [<channel>]",
// end -1 meaning the end of the recording) and writes each segment as a wav
// file into a table, as Kaldi's extract-segments does. A line that cannot
// be used (malformed, unknown recording, times outside the recording beyond
// --max-overshoot, shorter than --min-segment-length, missing channel) is
// skipped with one warning naming the segment; the exit status is non-zero
// only if no segment was written.
#include <cmath>
#include <string>
#include <vector>

#include "bin/cli.h"
#include "feat/wave-reader.h"
#include "util/stream.h"
#include "util/table.h"
#include "util/text.h"

namespace nnet3 {

int ExtractSegments(int argc, char *argv[]) {
  const char *usage =
      "Writes the segments of a segments file as wav files, cut from the\n"
      "recordings of a wav table.\n"
      "\n"
      "Usage: extract-segments [options] <wav-rspecifier> <segments-file> "
      "<wav-wspecifier>\n"
      "e.g.: extract-segments scp:wav.scp segments ark:- | <some-tool>\n"
      "See also: wav-to-duration, extract-feature-segments\n";
  ParseOptions po(usage);
  BaseFloat min_segment_length = 0.1, max_overshoot = 0.5;
  po.Register("min-segment-length", &min_segment_length,
              "Segments shorter than this many seconds are skipped");
  po.Register("max-overshoot", &max_overshoot,
              "A segment may end at most this many seconds after the end of "
              "its recording (it is then cut at the end); further out it is "
              "skipped");
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  const std::string segments_rxfilename = po.GetArg(2);

  RandomAccessTableReader<WaveHolder> reader(po.GetArg(1));
  WaveWriter writer(po.GetArg(3));
  Input input(segments_rxfilename);
  std::istream &is = input.Stream();
  std::string line;
  int64 num_lines = 0, num_success = 0;
  while (std::getline(is, line)) {
    num_lines++;
    std::vector<std::string> fields;
    SplitStringToVector(line, " \t\r", true, &fields);
    const std::string where = PrintableRxfilename(segments_rxfilename) + ":" +
                              std::to_string(num_lines);
    if (fields.size() != 4 && fields.size() != 5) {
      NNET3_WARN << where << ": expected 4 or 5 fields, skipping: " << line;
      continue;
    }
    const std::string &segment = fields[0], &recording = fields[1];
    double start, end;
    int32 channel = -1;
    if (!ConvertStringToReal(fields[2], &start) ||
        !ConvertStringToReal(fields[3], &end) ||
        (fields.size() == 5 && !ConvertStringToInteger(fields[4], &channel))) {
      NNET3_WARN << where << ": bad time or channel for segment " << segment
                 << ", skipping: " << line;
      continue;
    }
    if (start < 0 || (end != -1.0 && end <= 0) || (end > 0 && start >= end)) {
      NNET3_WARN << where << ": segment " << segment << " has start " << start
                 << " and end " << end << ", skipping";
      continue;
    }
    if (!reader.HasKey(recording)) {
      NNET3_WARN << where << ": no recording '" << recording
                 << "' for segment " << segment << ", skipping";
      continue;
    }
    const WaveData &wave = reader.Value(recording);
    const Matrix<BaseFloat> &samples = wave.Data();
    const BaseFloat rate = wave.SampFreq();
    const int64 num_samples = samples.NumCols();
    const int64 start_sample = static_cast<int64>(start * rate);
    int64 end_sample = end == -1.0 ? num_samples
                                   : static_cast<int64>(end * rate);
    if (start_sample >= num_samples) {
      NNET3_WARN << where << ": segment " << segment << " starts at " << start
                 << " s, after the end of " << recording << " ("
                 << num_samples / rate << " s), skipping";
      continue;
    }
    if (end_sample > num_samples) {
      if (end_sample >=
          num_samples + static_cast<int64>(max_overshoot * rate)) {
        NNET3_WARN << where << ": segment " << segment << " ends at " << end
                   << " s, more than --max-overshoot=" << max_overshoot
                   << " s after the end of " << recording << " ("
                   << num_samples / rate << " s), skipping";
        continue;
      }
      end_sample = num_samples;
    }
    if (end_sample - start_sample < min_segment_length * rate) {
      NNET3_WARN << where << ": segment " << segment << " is shorter than "
                 << "--min-segment-length=" << min_segment_length
                 << " s, skipping";
      continue;
    }
    if (channel >= samples.NumRows() || channel < -1) {
      NNET3_WARN << where << ": segment " << segment << " asks for channel "
                 << channel << " but " << recording << " has "
                 << samples.NumRows() << ", skipping";
      continue;
    }
    SubMatrix<BaseFloat> part(samples, channel == -1 ? 0 : channel,
                              channel == -1 ? samples.NumRows() : 1,
                              static_cast<MatrixIndexT>(start_sample),
                              static_cast<MatrixIndexT>(end_sample -
                                                        start_sample));
    writer.Write(segment, WaveData(rate, part));
    num_success++;
  }
  NNET3_LOG << "Wrote " << num_success << " of the " << num_lines
            << " segments in " << PrintableRxfilename(segments_rxfilename);
  return num_success != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::ExtractSegments);
}
