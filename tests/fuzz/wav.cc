// tests/fuzz/wav.cc
// Fuzz target: the wav reader (feat/wave-reader.h). The input is one wav
// file, read three ways: as a wav.scp entry through the table readers, as
// wav-to-duration does (header only, WaveInfoHolder) and as the compute-*-
// feats tools and wav-to-duration --read-entire-file do (WaveHolder, all
// samples); and from a stream that, like a pipe, cannot seek or tell its
// length (the bounded path for streamed data). A recording that reads is
// written back (WaveData::Write) and must read again to the same samples.
#include <sstream>
#include <string>

#include "common/memory-limit.h"
#include "feat/wave-reader.h"
#include "fuzz/fuzz-common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace nnet3;
  std::string bytes(reinterpret_cast<const char *>(data), size);
  fuzz::Guarded("wav", [&]() {
    fuzz::WriteScratchFile("w.wav", bytes);
    fuzz::WriteScratchFile("wav.scp", "k w.wav\n");
    fuzz::ScopedQuiet quiet;
    try {
      SequentialWaveInfoReader info_reader("scp:wav.scp");
      for (; !info_reader.Done(); info_reader.Next())
        info_reader.Value().Duration();
    } catch (const UserError &) {
    }
    try {
      testing::UnsizedIstream is(bytes);
      WaveData wave;
      wave.Read(is);
    } catch (const UserError &) {
    }
    SequentialWaveReader reader("scp:wav.scp");
    for (; !reader.Done(); reader.Next()) {
      const WaveData &wave = reader.Value();
      std::ostringstream os;
      wave.Write(os);
      WaveData again;
      try {
        std::istringstream is(os.str());
        again.Read(is);
      } catch (const UserError &e) {
        fuzz::Fail("wav", std::string("a wav we wrote does not read back: ") +
                              e.what());
      }
      if (!again.Data().Equal(wave.Data()) ||
          again.SampFreq() != wave.SampFreq())
        fuzz::Fail("wav", "write-read changed the samples or the rate");
    }
  });
  return 0;
}
