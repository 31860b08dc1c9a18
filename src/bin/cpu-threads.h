// bin/cpu-threads.h
// How a tool that computes on the CPU uses the cores. BLAS's own threads
// are replaced by the matrix library's: BLAS is set to one thread and the
// library's row threads (matrix/row-threads.h) take the count BLAS had,
// which is OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS) when the user set it
// and one per core otherwise. Large products are then split over those
// threads (matrix/blas-threads.h) and so is the elementwise work between
// them, on one pool of threads that sleep when idle. (OpenBLAS's workers
// spin on the cores for a while after every product, which halves the
// speed of the library's own threads that run right after it.)
// Only up to kMaxLibraryThreads: each block of a split product packs the
// whole of its other operand, which BLAS's own threads share, so with many
// threads BLAS keeps them (and the library's loops follow its count).
// Invariants: a tool calls this once, after selecting the GPU and before
// computing; on a GPU, with one BLAS thread or with more than
// kMaxLibraryThreads, nothing changes. The number
// of threads stays what BLAS had, and products give the same bits as one
// BLAS thread would.
#ifndef NNET3_BIN_CPU_THREADS_H_
#define NNET3_BIN_CPU_THREADS_H_

namespace nnet3 {

constexpr int kMaxLibraryThreads = 4;

void HandBlasThreadsToLibrary();

}  // namespace nnet3

#endif  // NNET3_BIN_CPU_THREADS_H_
