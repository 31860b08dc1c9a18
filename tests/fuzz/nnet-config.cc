// tests/fuzz/nnet-config.cc
// Fuzz target: a config file read into a network, as nnet3-init does
// (Nnet::ReadConfig on the text, which parses config lines, descriptors and
// every component's initializer), then what nnet3-init and nnet3-info do
// with the result: write it (binary and text) and print its summary.
// A network that was accepted must read back from its own binary form, and
// the binary form of the copy must equal the original's bytes.
// Inputs naming a pipe ('|') or a path ('/') are skipped: component options
// such as matrix=FILE read files, and those must stay in the scratch folder.
#include <sstream>
#include <string>

#include "fuzz/fuzz-common.h"
#include "fuzz/model-round-trip.h"
#include "nnet3/nnet/nnet.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace nnet3;
  std::string text(reinterpret_cast<const char *>(data), size);
  if (fuzz::Contains(text, '|') || fuzz::Contains(text, '/')) return 0;
  fuzz::Guarded("nnet-config", [&]() {
    fuzz::ScopedQuiet quiet;
    Nnet nnet;
    std::istringstream is(text);
    nnet.ReadConfig(is, "fuzz.config");
    fuzz::CheckModelRoundTrip("nnet-config", nnet);
  }, /*sizes_from_input=*/true);
  return 0;
}
