// tests/fuzz/egs.cc
// Fuzz target: an archive of training examples (NnetExample: <Nnet3Eg>,
// NnetIo blocks with <I1V> Index vectors and full, compressed or sparse
// feature matrices; binary or text), read with SequentialNnetExampleReader
// as nnet3-copy-egs, nnet3-merge-egs and nnet3-train read it. Each example
// that reads is measured as the egs tools measure it, merged (if it is a single
// example) with a copy of itself (nnet3-merge-egs; compressed when the input size is odd) and
// written back. A binary example must survive write-read-write with the
// same bytes.
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz-common.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/egs/nnet-example.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace nnet3;
  std::string bytes(reinterpret_cast<const char *>(data), size);
  fuzz::Guarded("egs", [&]() {
    fuzz::WriteScratchFile("egs.ark", bytes);
    fuzz::ScopedQuiet quiet;
    SequentialNnetExampleReader reader("ark:egs.ark");
    for (; !reader.Done(); reader.Next()) {
      const NnetExample &eg = reader.Value();
      GetNnetExampleSize(eg);
      const int32 num_n = GetNumNvalues(eg.io);
      NnetExample copy;
      fuzz::CheckBinaryRoundTrip("egs", "an example", eg, &copy);
      if (eg.io.empty() || num_n != 1) continue;  // merge single examples
      NnetExample merged;
      MergeExamples({eg, copy}, (size & 1) != 0, &merged);
      std::ostringstream merged_os;
      merged.Write(merged_os, false);
    }
  });
  return 0;
}
