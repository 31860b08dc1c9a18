// bin/utt-threads.h
// Several utterances at once for the inference tools (nnet3-compute,
// nnet3-xvector-compute): the --num-threads option, its default (one
// utterance per core unless the user set the BLAS threads or computes on a
// GPU), and InOrderRunner, which computes jobs on worker threads and hands
// them back in the order they were added.
// Invariants: Resolve() is called after the GPU was selected and before any
// computation; it leaves num_threads >= 1 and, when above 1 and the user
// did not set OPENBLAS_NUM_THREADS/OMP_NUM_THREADS, BLAS single-threaded.
// InOrderRunner holds at most 'window' jobs that were added and not yet
// emitted (so at most that many inputs and outputs are in memory); emit()
// runs on the thread that calls Add/Finish, in the order of Add; compute()
// must not throw (a job keeps its own error for emit to report).
#ifndef NNET3_BIN_UTT_THREADS_H_
#define NNET3_BIN_UTT_THREADS_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "util/options.h"

namespace nnet3 {

struct UttThreadsOption {
  int32 num_threads = 0;
  void Register(ParseOptions *po);
  // Checks the value and replaces 0 by the default (see the file comment).
  void Resolve();
  // Jobs in flight for InOrderRunner: enough to keep every thread busy
  // while the oldest one finishes, few enough to bound memory.
  size_t Window() const { return num_threads == 1 ? 1 : 2 * num_threads; }
};

template <class Job>
class InOrderRunner {
 public:
  typedef std::function<void(Job *)> Fn;
  // With num_threads == 1 every job is computed and emitted inside Add(),
  // on the caller's thread, so its inputs may point at data the caller
  // changes after Add() returns; otherwise a job must own its inputs.
  InOrderRunner(int32 num_threads, size_t window, Fn compute, Fn emit)
      : window_(window < 1 ? 1 : window), compute_(compute), emit_(emit) {
    // num_threads workers: the caller's thread only reads and writes,
    // waiting while they compute. With one thread there are no workers.
    if (num_threads > 1)
      for (int32 t = 0; t < num_threads; t++)
        workers_.emplace_back([this]() { Work(); });
  }
  ~InOrderRunner() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (std::thread &t : workers_) t.join();
  }
  InOrderRunner(const InOrderRunner &) = delete;
  InOrderRunner &operator=(const InOrderRunner &) = delete;

  bool Threaded() const { return !workers_.empty(); }

  void Add(std::unique_ptr<Job> job) {
    if (!Threaded()) {
      compute_(job.get());
      emit_(job.get());
      return;
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Wait for room: the oldest job must be emitted first.
      while (jobs_.size() >= window_) {
        EmitReadyLocked(&lock);
        if (jobs_.size() < window_) break;
        cv_.wait(lock);
      }
      jobs_.push_back(Entry{std::move(job), kQueued});
    }
    cv_.notify_all();
    std::unique_lock<std::mutex> lock(mu_);
    EmitReadyLocked(&lock);
  }

  // Waits for every job and emits the rest.
  void Finish() {
    if (!Threaded()) return;
    std::unique_lock<std::mutex> lock(mu_);
    while (!jobs_.empty()) {
      EmitReadyLocked(&lock);
      if (!jobs_.empty()) cv_.wait(lock);
    }
  }

 private:
  enum State { kQueued, kRunning, kDone };
  struct Entry {
    std::unique_ptr<Job> job;
    State state;
  };

  // Emits finished jobs at the head, unlocking around each emit.
  void EmitReadyLocked(std::unique_lock<std::mutex> *lock) {
    while (!jobs_.empty() && jobs_.front().state == kDone) {
      std::unique_ptr<Job> job = std::move(jobs_.front().job);
      jobs_.pop_front();
      lock->unlock();
      cv_.notify_all();
      emit_(job.get());  // may throw: the destructor stops the workers
      lock->lock();
    }
  }

  void Work() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      if (stop_) return;
      Entry *next = nullptr;
      for (Entry &e : jobs_)
        if (e.state == kQueued) {
          next = &e;
          break;
        }
      if (next == nullptr) {
        cv_.wait(lock);
        continue;
      }
      next->state = kRunning;
      Job *job = next->job.get();
      lock.unlock();
      compute_(job);
      lock.lock();
      // The entry is still in jobs_: only done entries are removed.
      for (Entry &e : jobs_)
        if (e.job.get() == job) e.state = kDone;
      cv_.notify_all();
    }
  }

  const size_t window_;
  Fn compute_, emit_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Entry> jobs_;  // in the order of Add
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace nnet3

#endif  // NNET3_BIN_UTT_THREADS_H_
