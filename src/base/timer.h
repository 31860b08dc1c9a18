// base/timer.h
// Wall-clock timer with sub-microsecond resolution (steady clock).
#ifndef NNET3_BASE_TIMER_H_
#define NNET3_BASE_TIMER_H_

#include <chrono>

namespace nnet3 {

class Timer {
 public:
  Timer() { Reset(); }
  void Reset() { start_ = std::chrono::steady_clock::now(); }
  // Seconds since construction or the last Reset().
  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_).count();
  }
 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace nnet3

#endif  // NNET3_BASE_TIMER_H_
