// bin/cpu-threads.h
// How the tools that compute on minibatches of egs (training, diagnostics,
// combination, LDA statistics) use the cores on the CPU. BLAS's own threads
// are replaced by the matrix library's: BLAS is set to one thread and the
// library's row threads (matrix/row-threads.h) take the count BLAS had,
// which is OPENBLAS_NUM_THREADS (or OMP_NUM_THREADS) when the user set it
// and one per core otherwise. Large products are then split over those
// threads (matrix/blas-threads.h) and so is the elementwise work between
// them, on one pool of threads that sleep when idle. (OpenBLAS's workers
// spin on the cores for a while after every product, which halves the
// speed of the library's own threads that run right after it.)
// Each block of a split product packs the whole of its other operand, which
// BLAS's own threads share. That costs little when the blocks are large
// (a minibatch of egs has thousands of rows) and the elementwise work
// between products is large (training), and more than it gains on the
// chunks of inference (512 rows at most), whose tools keep BLAS's threads;
// and it grows with the number of blocks, so it happens only up to
// kMaxLibraryThreads threads.
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
