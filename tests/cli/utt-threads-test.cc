// tests/cli/utt-threads-test.cc
// InOrderRunner (bin/utt-threads.h), which nnet3-compute and
// nnet3-xvector-compute use for --num-threads: every job is computed once
// and emitted once, in the order added, whatever order the threads finish
// in (random delays); no more than 'window' jobs are between Add and emit
// at any time; one thread computes and emits inside Add on the caller's
// thread; an exception from emit reaches the caller and the runner still
// shuts down (no hang, no crash).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

#include "bin/utt-threads.h"

namespace nnet3 {
namespace {

struct TestJob {
  int32 index = 0;
  int32 delay_us = 0;
  int32 computed = 0;
  std::thread::id computed_on;
};

TEST(InOrderRunner, EmitsInAddOrderWithinTheWindow) {
  std::mt19937 gen(4);
  for (int32 threads : {2, 3, 5})
    for (size_t window : {1u, 2u, 7u}) {
      std::atomic<int32> in_flight(0), max_in_flight(0);
      std::vector<int32> emitted;
      {
        InOrderRunner<TestJob> runner(
            threads, window,
            [](TestJob *j) {
              std::this_thread::sleep_for(
                  std::chrono::microseconds(j->delay_us));
              j->computed++;
              j->computed_on = std::this_thread::get_id();
            },
            [&](TestJob *j) {
              EXPECT_EQ(j->computed, 1);
              EXPECT_NE(j->computed_on, std::this_thread::get_id());
              emitted.push_back(j->index);
              in_flight--;
            });
        ASSERT_TRUE(runner.Threaded());
        for (int32 i = 0; i < 40; i++) {
          std::unique_ptr<TestJob> job(new TestJob);
          job->index = i;
          job->delay_us = std::uniform_int_distribution<int>(0, 2000)(gen);
          int32 now = ++in_flight;
          max_in_flight = std::max<int32>(max_in_flight, now);
          runner.Add(std::move(job));
        }
        runner.Finish();
      }
      ASSERT_EQ(emitted.size(), 40u) << threads << " " << window;
      for (int32 i = 0; i < 40; i++) EXPECT_EQ(emitted[i], i);
      // The count is taken before Add, so one more than the window can be
      // seen: the job being added while 'window' wait.
      EXPECT_LE(max_in_flight.load(), static_cast<int32>(window) + 1);
    }
}

TEST(InOrderRunner, OneThreadWorksInsideAdd) {
  std::vector<int32> emitted;
  InOrderRunner<TestJob> runner(
      1, 1, [](TestJob *j) { j->computed_on = std::this_thread::get_id(); },
      [&](TestJob *j) {
        EXPECT_EQ(j->computed_on, std::this_thread::get_id());
        emitted.push_back(j->index);
      });
  EXPECT_FALSE(runner.Threaded());
  for (int32 i = 0; i < 3; i++) {
    std::unique_ptr<TestJob> job(new TestJob);
    job->index = i;
    runner.Add(std::move(job));
    EXPECT_EQ(emitted.size(), static_cast<size_t>(i + 1));  // already out
  }
  runner.Finish();
}

TEST(InOrderRunner, AnExceptionFromEmitReachesTheCaller) {
  for (int32 threads : {1, 3}) {
    int32 emitted = 0;
    bool caught = false;
    try {
      InOrderRunner<TestJob> runner(
          threads, 4,
          [](TestJob *j) {
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            j->computed++;
          },
          [&](TestJob *j) {
            if (j->index == 5) throw std::runtime_error("bad utterance");
            emitted++;
          });
      for (int32 i = 0; i < 30; i++) {
        std::unique_ptr<TestJob> job(new TestJob);
        job->index = i;
        runner.Add(std::move(job));
      }
      runner.Finish();
    } catch (const std::runtime_error &e) {
      caught = true;
    }
    EXPECT_TRUE(caught) << threads;
    EXPECT_EQ(emitted, 5) << threads;  // jobs 0..4, in order, then the error
  }
}

}  // namespace
}  // namespace nnet3
