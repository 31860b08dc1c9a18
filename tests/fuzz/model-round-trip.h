// tests/fuzz/model-round-trip.h
// The check shared by the two model fuzz targets (nnet-config, nnet-read):
// an accepted network goes through nnet3-info's summary and both writers,
// its binary form must read back, and a second binary write must give the
// same bytes. Only the binary form is read back: Kaldi's text form cannot
// carry NaN or infinite scalars ("nan" does not parse as a number, in Kaldi
// as here), and fuzzed binary models hold them.
#ifndef NNET3_TESTS_FUZZ_MODEL_ROUND_TRIP_H_
#define NNET3_TESTS_FUZZ_MODEL_ROUND_TRIP_H_

#include <sstream>
#include <string>

#include "base/log.h"
#include "fuzz/fuzz-common.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {
namespace fuzz {

inline void CheckModelRoundTrip(const char *target, const Nnet &nnet) {
  std::string info = nnet.Info();
  (void)info;
  std::ostringstream text_os;
  nnet.Write(text_os, false);
  Nnet from_binary;
  CheckBinaryRoundTrip(target, "a network", nnet, &from_binary);
}

}  // namespace fuzz
}  // namespace nnet3

#endif  // NNET3_TESTS_FUZZ_MODEL_ROUND_TRIP_H_
