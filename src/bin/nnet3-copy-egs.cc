// bin/nnet3-copy-egs.cc
// Copies examples, optionally selecting one output frame (--frame),
// trimming the input context (--left-context/--right-context), shifting
// times (--frame-shift), dropping or repeating examples at random
// (--keep-proportion) and spreading them over several outputs (round-robin,
// or at random with --random), as Kaldi's nnet3-copy-egs does.
#include <algorithm>
#include <cmath>
#include <memory>

#include "bin/cli.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/egs/utterance-splitter.h"
#include "util/table.h"
#include "util/text.h"

namespace nnet3 {

namespace {

// Min and max t of the NnetIo named "input" and "output"; false (with a
// warning) if the example is merged (some n != 0) or lacks either.
bool SingleExampleTimes(const NnetExample &eg, int32 *min_input_t,
                        int32 *max_input_t, int32 *min_output_t,
                        int32 *max_output_t) {
  bool have_input = false, have_output = false;
  for (const NnetIo &io : eg.io) {
    if (io.indexes.empty())
      NNET3_ERR << "Example has an empty NnetIo '" << io.name << "'";
    int32 min_t = io.indexes[0].t, max_t = io.indexes[0].t;
    for (const Index &index : io.indexes) {
      if (index.n != 0) {
        NNET3_WARN << "Example does not contain just a single example; too "
                   << "late to do frame selection or reduce context.";
        return false;
      }
      min_t = std::min(min_t, index.t);
      max_t = std::max(max_t, index.t);
    }
    if (io.name == "input") {
      have_input = true;
      *min_input_t = min_t;
      *max_input_t = max_t;
    } else if (io.name == "output") {
      have_output = true;
      *min_output_t = min_t;
      *max_output_t = max_t;
    }
  }
  if (!have_input) NNET3_WARN << "Example does not have any input named 'input'";
  if (!have_output)
    NNET3_WARN << "Example does not have any output named 'output'";
  return have_input && have_output;
}

// Keeps the rows of "input" with t in [min_input_t, max_input_t] and of
// "output" with t in [min_output_t, max_output_t]; other NnetIo are copied.
void FilterExample(const NnetExample &eg, int32 min_input_t,
                   int32 max_input_t, int32 min_output_t, int32 max_output_t,
                   NnetExample *out) {
  out->io.clear();
  out->io.resize(eg.io.size());
  for (size_t i = 0; i < eg.io.size(); i++) {
    const NnetIo &in = eg.io[i];
    NnetIo &dest = out->io[i];
    dest.name = in.name;
    int32 min_t, max_t;
    if (in.name == "input") {
      min_t = min_input_t;
      max_t = max_input_t;
    } else if (in.name == "output") {
      min_t = min_output_t;
      max_t = max_output_t;
    } else {
      dest.indexes = in.indexes;
      dest.features = in.features;
      continue;
    }
    std::vector<bool> keep(in.indexes.size(), false);
    for (size_t r = 0; r < in.indexes.size(); r++) {
      int32 t = in.indexes[r].t;
      if (t >= min_t && t <= max_t) {
        keep[r] = true;
        dest.indexes.push_back(in.indexes[r]);
      }
    }
    if (dest.indexes.empty())
      NNET3_ERR << "FilterExample removed all indexes for '" << in.name
                << "'";
    FilterGeneralMatrixRows(in.features, keep, &dest.features);
  }
}

struct SelectOptions {
  std::string frame;
  int32 left_context = -1;
  int32 right_context = -1;
  int32 frame_shift = 0;
};

// False if --frame names a frame this example does not have.
bool SelectFromExample(const NnetExample &eg, const SelectOptions &opts,
                       KaldiRand *rand, NnetExample *out) {
  static bool warned_left = false, warned_right = false;
  int32 min_input_t = 0, max_input_t = 0, min_output_t = 0,
        max_output_t = 0;
  if (!SingleExampleTimes(eg, &min_input_t, &max_input_t, &min_output_t,
                          &max_output_t))
    NNET3_ERR << "Too late to perform frame selection/context reduction on "
              << "these examples (already merged?)";
  if (!opts.frame.empty()) {
    if (opts.frame == "random") {
      min_output_t = max_output_t = rand->RandInt(min_output_t, max_output_t);
    } else {
      int32 frame = 0;
      if (!ConvertStringToInteger(opts.frame, &frame))
        NNET3_ERR << "Invalid option --frame='" << opts.frame << "'";
      if (frame < min_output_t || frame > max_output_t) return false;
      min_output_t = max_output_t = frame;
    }
  }
  if (opts.left_context != -1) {
    if (!warned_left && min_input_t > min_output_t - opts.left_context) {
      warned_left = true;
      NNET3_WARN << "You requested --left-context=" << opts.left_context
                 << ", but example only has left-context of "
                 << (min_output_t - min_input_t)
                 << " (warned once; expected when the egs were made with "
                 << "--left-context-initial)";
    }
    min_input_t = std::max(min_input_t, min_output_t - opts.left_context);
  }
  if (opts.right_context != -1) {
    if (!warned_right && max_input_t < max_output_t + opts.right_context) {
      warned_right = true;
      NNET3_WARN << "You requested --right-context=" << opts.right_context
                 << ", but example only has right-context of "
                 << (max_input_t - max_output_t)
                 << " (warned once; expected when the egs were made with "
                 << "--right-context-final)";
    }
    max_input_t = std::min(max_input_t, max_output_t + opts.right_context);
  }
  FilterExample(eg, min_input_t, max_input_t, min_output_t, max_output_t,
                out);
  if (opts.frame_shift != 0)
    ShiftExampleTimes(opts.frame_shift, {"ivector"}, out);
  return true;
}

// floor(expected) or ceil(expected), the latter with probability equal to
// the fractional part (so the default --keep-proportion=1 draws nothing).
int32 GetCount(double expected, KaldiRand *rand) {
  int32 ans = static_cast<int32>(std::floor(expected));
  if (rand->WithProb(static_cast<float>(expected - ans))) ans++;
  return ans;
}

}  // namespace

int Nnet3CopyEgs(int argc, char *argv[]) {
  const char *usage =
      "Copies examples for nnet3 training, possibly changing the binary "
      "mode,\n"
      "selecting frames or reducing context. With several wspecifiers the "
      "examples\n"
      "are written to them in turn (round-robin), or at random with "
      "--random.\n"
      "\n"
      "Usage:  nnet3-copy-egs [options] <egs-rspecifier> <egs-wspecifier1> "
      "[<egs-wspecifier2> ...]\n"
      "e.g.: nnet3-copy-egs ark:train.egs ark,t:text.egs\n"
      " or:  nnet3-copy-egs ark:train.egs ark:1.egs ark:2.egs\n"
      "See also: nnet3-merge-egs, nnet3-shuffle-egs, nnet3-subset-egs\n";
  ParseOptions po(usage);
  bool random = false;
  int32 srand_seed = 0;
  BaseFloat keep_proportion = 1.0;
  SelectOptions select;
  po.Register("random", &random,
              "If true, write examples to the outputs at random, not "
              "round-robin.");
  po.Register("frame-shift", &select.frame_shift,
              "Shift the time values of the examples (except the iVector) "
              "by this many frames, after any frame selection.");
  po.Register("keep-proportion", &keep_proportion,
              "If < 1.0, keep each example with this probability; if > 1.0, "
              "write each floor(keep-proportion) or ceil(keep-proportion) "
              "times (this many in expectation).");
  po.Register("srand", &srand_seed,
              "Seed for the random numbers (--random, --keep-proportion, "
              "--frame=random)");
  po.Register("frame", &select.frame,
              "Select a single output frame from each example: a number "
              "(its t value) or 'random'.");
  po.Register("left-context", &select.left_context,
              "If set (>= 0), reduce the input left-context to this many "
              "frames.");
  po.Register("right-context", &select.right_context,
              "If set (>= 0), reduce the input right-context to this many "
              "frames.");
  po.Read(argc, argv);
  if (po.NumArgs() < 2) return UsageError(po);
  if (keep_proportion < 0.0)
    NNET3_ERR << "Invalid --keep-proportion=" << keep_proportion;
  // Kaldi calls srand(srand_seed) and then uses rand(); so do we.
  KaldiRand rand(static_cast<uint32>(srand_seed));

  SequentialNnetExampleReader reader(po.GetArg(1));
  int32 num_outputs = po.NumArgs() - 1;
  std::vector<std::unique_ptr<NnetExampleWriter> > writers;
  for (int32 i = 0; i < num_outputs; i++)
    writers.emplace_back(new NnetExampleWriter(po.GetArg(i + 2)));
  bool modify = !select.frame.empty() || select.left_context != -1 ||
                select.right_context != -1 || select.frame_shift != 0;
  int64 num_read = 0, num_written = 0;
  for (; !reader.Done(); reader.Next(), num_read++) {
    int32 count = GetCount(keep_proportion, &rand);
    const std::string &key = reader.Key();
    const NnetExample &eg = reader.Value();
    for (int32 c = 0; c < count; c++) {
      int32 index = static_cast<int32>(
          (random ? static_cast<int64>(rand.Rand()) : num_written) %
          num_outputs);
      if (!modify) {
        writers[index]->Write(key, eg);
        num_written++;
        continue;
      }
      NnetExample modified;
      if (SelectFromExample(eg, select, &rand, &modified)) {
        writers[index]->Write(key, modified);
        num_written++;
      }
    }
  }
  for (auto &writer : writers) writer->Close();
  NNET3_LOG << "Read " << num_read << " neural-network training examples, "
            << "wrote " << num_written;
  return num_written == 0 ? 1 : 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3CopyEgs);
}
