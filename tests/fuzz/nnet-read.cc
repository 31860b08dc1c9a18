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
#include "nnet3/nnet/nnet.h"
#include "util/stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace nnet3;
  std::string bytes(reinterpret_cast<const char *>(data), size);
  fuzz::Guarded("nnet-read", [&]() {
    std::string file = fuzz::WriteScratchFile("model.raw", bytes);
    Nnet nnet;
    ReadKaldiObject(file, &nnet);
    std::string info = nnet.Info();
    std::ostringstream binary_os, text_os;
    nnet.Write(binary_os, true);
    nnet.Write(text_os, false);
    // Only the binary form must read back: Kaldi's text form cannot carry
    // NaN or infinite scalars ("nan" does not parse as a number, in Kaldi
    // as here), and fuzzed binary models hold them.
    Nnet from_binary;
    try {
      std::istringstream bis(binary_os.str());
      from_binary.Read(bis, true);
    } catch (const UserError &e) {
      fuzz::Fail("nnet-read", std::string("a model we wrote does not read "
                                        "back: ") + e.what());
    }
    std::ostringstream again;
    from_binary.Write(again, true);
    if (again.str() != binary_os.str())
      fuzz::Fail("nnet-read", "binary write-read-write changed the bytes");
  });
  return 0;
}
