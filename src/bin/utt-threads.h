// bin/utt-threads.h
// Several utterances at once for the inference tools (nnet3-compute,
// nnet3-xvector-compute): the --num-threads option, its default (one
// utterance per core unless the user set the BLAS threads or computes on a
// GPU), and running a batch of independent jobs on that many threads.
// Invariants: Resolve() is called after the GPU was selected and before any
// computation; it leaves num_threads >= 1 and, when above 1 and the user
// did not set OPENBLAS_NUM_THREADS/OMP_NUM_THREADS, BLAS single-threaded.
// RunOnThreads returns only after every job ran (the caller's thread takes
// part); jobs must not throw (they store their errors for the caller, which
// reports them in input order).
#ifndef NNET3_BIN_UTT_THREADS_H_
#define NNET3_BIN_UTT_THREADS_H_

#include <cstddef>
#include <functional>

#include "util/options.h"

namespace nnet3 {

struct UttThreadsOption {
  int32 num_threads = 0;
  void Register(ParseOptions *po);
  // Checks the value and replaces 0 by the default (see the file comment).
  void Resolve();
  // Utterances to collect before computing them (1 for one thread).
  size_t BatchSize() const { return num_threads == 1 ? 1 : 4 * num_threads; }
};

// Calls job(i) for every i in [0, n), on up to num_threads threads.
void RunOnThreads(int32 num_threads, size_t n,
                  const std::function<void(size_t)> &job);

}  // namespace nnet3

#endif  // NNET3_BIN_UTT_THREADS_H_
