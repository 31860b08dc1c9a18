// tests/bench/bench-profile.h
// The --profile pass of the benchmarks: runs one pass under a Profiler and
// prints its table; on the GPU it runs a second pass with the device
// synchronised at every scope boundary, so that each category is charged
// the device work it queued rather than the host time of launching it and
// of waiting for the work queued before it. Also the page-fault count the
// benchmarks print for their timed passes.
#ifndef NNET3_TESTS_BENCH_BENCH_PROFILE_H_
#define NNET3_TESTS_BENCH_BENCH_PROFILE_H_

#include <sys/resource.h>

#include <cstdio>
#include <functional>
#include <sstream>
#include <string>

#include "base/profile.h"
#include "cudamatrix/cu-backend.h"

namespace nnet3 {

// Minor page faults of this process so far (a page touched for the first
// time: fresh memory from the system, or memory given back and taken again).
inline long MinorPageFaults() {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// 'prepare' runs before each pass, outside the profile; 'pass' runs inside
// it, under a scope named 'outer' (time not charged to anything deeper).
inline void PrintProfilePasses(const std::string &title, const char *outer,
                               const std::function<void()> &prepare,
                               const std::function<void()> &pass) {
  const int passes = cu_backend::OnDevice() ? 2 : 1;
  for (int p = 0; p < passes; p++) {
    prepare();
    Profiler profiler;
    if (p == 1) profiler.SetBoundarySync(&cu_backend::Synchronize);
    {
      ProfilerActivation active(&profiler);
      ProfileScope rest(outer);
      pass();
      cu_backend::Synchronize();
    }
    std::ostringstream os;
    profiler.PrintTable(os, p == 0 ? title
                                   : "  the same, synchronising the device "
                                     "at every scope boundary:");
    printf("%s", os.str().c_str());
  }
}

}  // namespace nnet3

#endif  // NNET3_TESTS_BENCH_BENCH_PROFILE_H_
