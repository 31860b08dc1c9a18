// matrix/row-threads.cc
// The pool behind ForRowBlocks (matrix/row-threads.h): one user at a time
// (others run inline), workers woken by a generation counter, the caller
// taking block 0 itself and waiting for the rest.
#include "matrix/row-threads.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "base/log.h"

extern "C" int openblas_get_num_threads(void);

namespace nnet3 {
namespace {

std::atomic<int32_t> g_row_threads_override(0);

using BlockFn = std::function<void(MatrixIndexT, MatrixIndexT)>;

class RowThreadPool {
 public:
  // Never destroyed: worker threads may still wait on its members while
  // the process exits.
  static RowThreadPool &Get() {
    static RowThreadPool *pool = new RowThreadPool;
    return *pool;
  }

  // Runs fn over num_rows in 'parts' blocks; false (nothing run) when
  // another caller holds the pool.
  bool TryRun(int32_t parts, MatrixIndexT num_rows, const BlockFn &fn) {
    std::unique_lock<std::mutex> use(use_mutex_, std::try_to_lock);
    if (!use.owns_lock()) return false;
    while (static_cast<int32_t>(workers_.size()) < parts - 1) {
      const int32_t index = static_cast<int32_t>(workers_.size()) + 1;
      // The worker must wait for the generation started below, even if it
      // first looks after that start.
      uint64_t start;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        start = generation_;
      }
      workers_.emplace_back([this, index, start]() { WorkerLoop(index, start); });
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      parts_ = parts;
      num_rows_ = num_rows;
      pending_ = parts - 1;
      error_ = nullptr;
      generation_++;
    }
    work_cv_.notify_all();
    std::exception_ptr mine;
    try {
      RunBlock(0);
    } catch (...) {
      mine = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [this]() { return pending_ == 0; });
    fn_ = nullptr;
    std::exception_ptr error = mine ? mine : error_;
    lock.unlock();
    if (error) std::rethrow_exception(error);
    return true;
  }

 private:
  void RunBlock(int32_t k) {
    const int64_t n = num_rows_;
    const MatrixIndexT begin = static_cast<MatrixIndexT>(n * k / parts_),
                       end = static_cast<MatrixIndexT>(n * (k + 1) / parts_);
    if (begin < end) (*fn_)(begin, end);
  }

  void WorkerLoop(int32_t index, uint64_t seen) {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      work_cv_.wait(lock, [&]() { return generation_ != seen; });
      seen = generation_;
      if (index >= parts_) continue;  // not needed this time
      lock.unlock();
      std::exception_ptr error;
      try {
        RunBlock(index);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      if (error && !error_) error_ = error;
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }

  std::mutex use_mutex_;  // held by the one caller using the pool
  std::mutex mutex_;      // guards everything below
  std::condition_variable work_cv_, done_cv_;
  std::vector<std::thread> workers_;
  uint64_t generation_ = 0;
  const BlockFn *fn_ = nullptr;
  int32_t parts_ = 0;
  MatrixIndexT num_rows_ = 0;
  int32_t pending_ = 0;
  std::exception_ptr error_;
};

}  // namespace

int32_t RowThreads() {
  const int32_t fixed = g_row_threads_override.load();
  if (fixed > 0) return fixed;
  const int blas = openblas_get_num_threads();
  return blas > 0 ? blas : 1;
}

void SetRowThreads(int32_t n) { g_row_threads_override = (n > 0 ? n : 0); }

namespace internal {

bool RunRowBlocksOnPool(MatrixIndexT num_rows, MatrixIndexT num_cols,
                        const std::function<void(MatrixIndexT, MatrixIndexT)> &fn) {
  const int64_t elements = static_cast<int64_t>(num_rows) * num_cols;
  int32_t parts = RowThreads();
  if (parts > num_rows) parts = num_rows;
  // No more blocks than kMinParallelElements-sized pieces of work.
  const int64_t max_parts = elements / (kMinParallelElements / 2);
  if (parts > max_parts) parts = static_cast<int32_t>(max_parts);
  return parts > 1 && RowThreadPool::Get().TryRun(parts, num_rows, fn);
}

bool RunPartsOnPool(int32_t parts, MatrixIndexT num_rows,
                    const std::function<void(MatrixIndexT, MatrixIndexT)> &fn) {
  NNET3_ASSERT(parts >= 2 && parts <= num_rows);
  return RowThreadPool::Get().TryRun(parts, num_rows, fn);
}

}  // namespace internal

}  // namespace nnet3
