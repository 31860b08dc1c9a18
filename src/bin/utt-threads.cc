// bin/utt-threads.cc
#include "bin/utt-threads.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "base/log.h"
#include "cudamatrix/cu-backend.h"

extern "C" void openblas_set_num_threads(int);

namespace nnet3 {

void UttThreadsOption::Register(ParseOptions *po) {
  po->Register("num-threads", &num_threads,
               "Compute this many utterances at once, each on its own "
               "thread (output identical to 1 thread). Above 1, BLAS runs "
               "single-threaded unless OPENBLAS_NUM_THREADS is set. 0: one "
               "thread per core when neither OPENBLAS_NUM_THREADS nor "
               "OMP_NUM_THREADS is set, otherwise 1 (with those BLAS "
               "threads)");
}

void UttThreadsOption::Resolve() {
  if (num_threads < 0)
    NNET3_ERR << "Invalid --num-threads=" << num_threads << " (must be >= 0)";
  const bool blas_threads_set = std::getenv("OPENBLAS_NUM_THREADS") != nullptr ||
                                std::getenv("OMP_NUM_THREADS") != nullptr;
  if (num_threads == 0) {
    // Utterances on every core beat BLAS threads on every core (the
    // elementwise work between the products runs in parallel too); a user
    // who set the BLAS threads keeps them.
    const unsigned cores = std::thread::hardware_concurrency();
    num_threads = (blas_threads_set || cu_backend::OnDevice() || cores == 0)
                      ? 1 : static_cast<int32>(std::min(cores, 64u));
    NNET3_VLOG(1) << "--num-threads=0: computing " << num_threads
                  << " utterance(s) at once";
  }
  if (num_threads > 1 && cu_backend::OnDevice()) {
    NNET3_WARN << "--num-threads=" << num_threads << " is for the CPU; "
               << "computing on the GPU with one thread";
    num_threads = 1;
  }
  if (num_threads > 1 && !blas_threads_set) openblas_set_num_threads(1);
}

}  // namespace nnet3
