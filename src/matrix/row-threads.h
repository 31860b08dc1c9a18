// matrix/row-threads.h
// Threads for the matrix library's own loops (elementwise and per-row work
// that BLAS does not do): a large matrix is cut into contiguous blocks of
// rows, one per thread, and each block is processed exactly as the
// single-threaded loop would process those rows. Only work where rows are
// independent goes through here, so the results are the same bits for any
// number of threads.
//
// The number of threads follows BLAS (openblas_get_num_threads(), i.e.
// OPENBLAS_NUM_THREADS or what the tool set, such as nnet3-compute's one
// BLAS thread per utterance thread) unless SetRowThreads() fixes it. Small
// matrices (below kMinParallelElements) and calls made while the pool is
// busy with another caller (several utterance threads, or a nested call)
// run on the calling thread. The pool's threads are started on first use
// and live until the process ends.
#ifndef NNET3_MATRIX_ROW_THREADS_H_
#define NNET3_MATRIX_ROW_THREADS_H_

#include <cstdint>
#include <functional>
#include <utility>

#include "matrix/common.h"

namespace nnet3 {

// Work below this many elements is not worth waking another thread for.
constexpr int64_t kMinParallelElements = 1 << 16;

// Calls fn(begin, end) for contiguous row ranges covering [0, num_rows)
// exactly once, on up to RowThreads() threads when num_rows * num_cols is
// at least kMinParallelElements, else fn(0, num_rows) on this thread. An
// exception thrown by fn is rethrown here (the first one, after every block
// has finished).
template <typename Fn>
void ForRowBlocks(MatrixIndexT num_rows, MatrixIndexT num_cols, const Fn &fn);

namespace internal {
// The pool path of ForRowBlocks: false (nothing run) when one thread is all
// there is or the pool is busy.
bool RunRowBlocksOnPool(MatrixIndexT num_rows, MatrixIndexT num_cols,
                        const std::function<void(MatrixIndexT, MatrixIndexT)> &fn);
// Runs fn over exactly 'parts' contiguous blocks of [0, num_rows) on the
// pool (parts >= 2, at most RowThreads(), the caller taking the first);
// false (nothing run) when the pool is busy.
bool RunPartsOnPool(int32_t parts, MatrixIndexT num_rows,
                    const std::function<void(MatrixIndexT, MatrixIndexT)> &fn);
}  // namespace internal

// Small work calls fn directly, with no std::function (whose construction
// may allocate) on the path of every small elementwise operation.
template <typename Fn>
void ForRowBlocks(MatrixIndexT num_rows, MatrixIndexT num_cols, const Fn &fn) {
  if (num_rows <= 0) return;
  if (static_cast<int64_t>(num_rows) * num_cols >= kMinParallelElements &&
      num_rows >= 2 &&
      internal::RunRowBlocksOnPool(
          num_rows, num_cols,
          std::function<void(MatrixIndexT, MatrixIndexT)>(std::cref(fn))))
    return;
  fn(0, num_rows);
}

// True when the byte ranges [a_begin, a_end) and [b_begin, b_end) do not
// overlap.
inline bool SpansDisjoint(const void *a_begin, const void *a_end,
                          const void *b_begin, const void *b_end) {
  const auto address = [](const void *p) {
    return reinterpret_cast<std::uintptr_t>(p);
  };
  return address(a_end) <= address(b_begin) ||
         address(b_end) <= address(a_begin);
}

// True when the storage spans of 'a' and 'b' do not overlap at all, so an
// operation that writes rows of 'b' while reading any rows of 'a' (a
// gather) may run its row blocks in parallel.
template <typename M1, typename M2>
bool StorageDisjoint(const M1 &a, const M2 &b) {
  if (a.NumRows() == 0 || b.NumRows() == 0) return true;
  return SpansDisjoint(a.Data(), a.RowData(a.NumRows() - 1) + a.NumCols(),
                       b.Data(), b.RowData(b.NumRows() - 1) + b.NumCols());
}

// True when row r of 'a' and row r of 'b' are the only rows of the two that
// can share memory: the same view, or storage spans that do not overlap.
// Row blocks of an operation that reads 'a' and writes 'b' row by row may
// then run in parallel. (Any matrix type with the MatrixBase accessors.)
template <typename M1, typename M2>
bool RowsIndependent(const M1 &a, const M2 &b) {
  if (a.NumRows() == 0 || b.NumRows() == 0) return true;
  if (static_cast<const void *>(a.Data()) ==
          static_cast<const void *>(b.Data()) &&
      a.Stride() == b.Stride())
    return true;
  return StorageDisjoint(a, b);
}

// The number of threads ForRowBlocks uses: the override if set, else the
// BLAS thread count.
int32_t RowThreads();

// n >= 1 fixes the number of threads; n = 0 goes back to following BLAS.
void SetRowThreads(int32_t n);

}  // namespace nnet3

#endif  // NNET3_MATRIX_ROW_THREADS_H_
