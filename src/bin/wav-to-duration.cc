// bin/wav-to-duration.cc
// Writes each recording's duration in seconds (a float table), as Kaldi's
// wav-to-duration does for utils/data/get_utt2dur.sh. By default only the
// wav header is read (fast, but a pipe whose header leaves the size open,
// e.g. sox writing to stdout after some effects, cannot be measured that
// way: one error names the recording); --read-entire-file=true reads and
// counts the samples instead.
#include <algorithm>
#include <limits>

#include "bin/cli.h"
#include "feat/wave-reader.h"
#include "util/table.h"

namespace nnet3 {

int WavToDuration(int argc, char *argv[]) {
  const char *usage =
      "Writes the duration in seconds of each recording of a wav table.\n"
      "\n"
      "Usage: wav-to-duration [options] <wav-rspecifier> "
      "<duration-wspecifier>\n"
      "e.g.: wav-to-duration scp:wav.scp ark,t:utt2dur\n"
      "See also: feat-to-len, extract-segments\n";
  ParseOptions po(usage);
  bool read_entire_file = false;
  po.Register("read-entire-file", &read_entire_file,
              "Count the samples instead of trusting the size in the wav "
              "header (needed for pipes that write no size)");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);

  BaseFloatWriter writer(po.GetArg(2));
  double total = 0.0, shortest = std::numeric_limits<double>::infinity(),
         longest = 0.0;
  int64 num_done = 0;
  auto record = [&](const std::string &key, double seconds) {
    writer.Write(key, static_cast<BaseFloat>(seconds));
    total += seconds;
    shortest = std::min(shortest, seconds);
    longest = std::max(longest, seconds);
    num_done++;
  };
  if (read_entire_file) {
    SequentialWaveReader reader(po.GetArg(1));
    for (; !reader.Done(); reader.Next())
      record(reader.Key(), reader.Value().Duration());
  } else {
    SequentialTableReader<WaveInfoHolder> reader(po.GetArg(1));
    for (; !reader.Done(); reader.Next()) {
      const WaveInfo &info = reader.Value();
      if (info.IsStreamed())
        NNET3_ERR << "The wav header of '" << reader.Key()
                  << "' gives no size (a streamed wav); use "
                     "--read-entire-file=true";
      record(reader.Key(), info.Duration());
    }
  }
  NNET3_LOG << "Wrote the durations of " << num_done << " recordings";
  if (num_done > 0)
    NNET3_LOG << "Durations: mean " << total / num_done << " s, shortest "
              << shortest << " s, longest " << longest << " s";
  return num_done != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::WavToDuration);
}
