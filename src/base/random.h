// base/random.h
// A seedable source of random numbers. Each RandomSource owns its state, so
// code that needs reproducible numbers (tests, --srand) creates one with a
// seed; the free functions use a per-thread default source that Srand()
// reseeds. The numbers are not meant to equal Kaldi's (glibc rand()).
#ifndef NNET3_BASE_RANDOM_H_
#define NNET3_BASE_RANDOM_H_

#include <random>

#include "base/types.h"

namespace nnet3 {

class RandomSource {
 public:
  explicit RandomSource(uint64 seed = 0) : engine_(seed) {}
  void Seed(uint64 seed) { engine_.seed(seed); }
  // Uniform on the open interval (0, 1).
  double Uniform();
  // Standard normal.
  double Gauss();
  // Uniform integer in [lo, hi] (inclusive).
  int32 Int(int32 lo, int32 hi);
  // True with probability p.
  bool WithProb(double p) { return Uniform() < p; }
  std::mt19937_64 &engine() { return engine_; }
 private:
  std::mt19937_64 engine_;
};

// Per-thread default source.
RandomSource &DefaultRandomSource();
// Reseeds the calling thread's default source.
void Srand(uint64 seed);
inline double RandUniform() { return DefaultRandomSource().Uniform(); }
inline double RandGauss() { return DefaultRandomSource().Gauss(); }
inline int32 RandInt(int32 lo, int32 hi) {
  return DefaultRandomSource().Int(lo, hi);
}

}  // namespace nnet3

#endif  // NNET3_BASE_RANDOM_H_
