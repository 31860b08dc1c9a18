// tests/bench/bench-threads.h
// Threads in the CPU benchmarks, arranged as the tool each bench stands for
// arranges them: --threads=N gives BLAS N threads, and a training bench
// then hands them to the matrix library as nnet3-train does
// (bin/cpu-threads.h: BLAS on one thread, the library's row threads
// splitting products and elementwise work), while an inference bench
// leaves them with BLAS as nnet3-compute does. --library-threads and
// --blas-threads choose the other arrangement, for comparison. The
// GEMM-only reference is timed both ways and the faster counts, so a ratio
// never gains from the baseline being slowed by one arrangement.
#ifndef NNET3_TESTS_BENCH_BENCH_THREADS_H_
#define NNET3_TESTS_BENCH_BENCH_THREADS_H_

#include <algorithm>
#include <functional>
#include <string>

#include "bin/cpu-threads.h"
#include "cudamatrix/cu-backend.h"
#include "matrix/row-threads.h"

extern "C" void openblas_set_num_threads(int);

namespace nnet3 {

struct BenchThreads {
  int threads = 1;
  bool blas_threads = false;  // leave the threads to BLAS

  // --blas-threads / --library-threads; false for any other argument.
  bool ParseOption(const std::string &arg) {
    if (arg == "--blas-threads") blas_threads = true;
    else if (arg == "--library-threads") blas_threads = false;
    else return false;
    return true;
  }

  // After the GPU was selected: the arrangement the tools use.
  void Apply() const {
    openblas_set_num_threads(threads);
    SetRowThreads(0);
    if (!blas_threads) HandBlasThreadsToLibrary();
  }
  // The other arrangement (for the reference timing).
  void ApplyOther() const {
    openblas_set_num_threads(threads);
    SetRowThreads(0);
    if (blas_threads) HandBlasThreadsToLibrary();
  }
  const char *Name() const {
    return blas_threads ? "BLAS threads" : "library threads";
  }
  // The best time of 'run' over both arrangements (one on a GPU or with one
  // thread), leaving the tools' arrangement in place.
  double FasterOfBoth(const std::function<double()> &run) const {
    double best = run();
    if (threads > 1 && !cu_backend::OnDevice()) {
      ApplyOther();
      best = std::min(best, run());
      Apply();
    }
    return best;
  }
};

}  // namespace nnet3

#endif  // NNET3_TESTS_BENCH_BENCH_THREADS_H_
