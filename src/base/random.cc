// base/random.cc
#include "base/random.h"

#include <cmath>

#include "base/log.h"

namespace nnet3 {

double RandomSource::Uniform() {
  // 53 random bits, shifted off zero so log(Uniform()) is finite.
  uint64 bits = engine_() >> 11;
  return (static_cast<double>(bits) + 0.5) * (1.0 / 9007199254740992.0);
}

double RandomSource::Gauss() {
  // Box-Muller; one value per call keeps the state simple to reason about.
  double u1 = Uniform(), u2 = Uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

int32 RandomSource::Int(int32 lo, int32 hi) {
  NNET3_ASSERT(lo <= hi);
  uint64 range = static_cast<uint64>(static_cast<int64>(hi) - lo) + 1;
  return static_cast<int32>(lo + static_cast<int64>(engine_() % range));
}

RandomSource &DefaultRandomSource() {
  thread_local RandomSource source(0);
  return source;
}

void Srand(uint64 seed) { DefaultRandomSource().Seed(seed); }

}  // namespace nnet3
