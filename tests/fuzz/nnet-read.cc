// tests/fuzz/nnet-read.cc
// Fuzz target: a raw nnet3 model file, binary or text (the "\0B" header
// decides, as for every tool), read with ReadKaldiObject as nnet3-copy,
// nnet3-info and the compute tools read it; then nnet3-info's summary and
// nnet3-copy's output in both forms. A model that was accepted must read
// back from its binary form, and the binary bytes must survive a second
// write unchanged.
#include <sstream>
#include <string>

#include "fuzz/fuzz-common.h"
#include "fuzz/model-round-trip.h"
#include "nnet3/nnet/nnet.h"
#include "util/stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace nnet3;
  std::string bytes(reinterpret_cast<const char *>(data), size);
  fuzz::Guarded("nnet-read", [&]() {
    std::string file = fuzz::WriteScratchFile("model.raw", bytes);
    Nnet nnet;
    ReadKaldiObject(file, &nnet);
    fuzz::CheckModelRoundTrip("nnet-read", nnet);
  });
  return 0;
}
