// tests/common/memory-limit.h
// Runs a piece of code in a forked child whose address space may grow by
// only a given number of bytes (RLIMIT_AS), to check that a reader given a
// lying size field fails with UserError before allocating for it. Every kind
// of allocation counts (new, malloc, posix_memalign, mmap), and an
// over-allocation shows up as std::bad_alloc (or a crash) in the child
// rather than as memory pressure on the test machine.
#ifndef NNET3_TESTS_COMMON_MEMORY_LIMIT_H_
#define NNET3_TESTS_COMMON_MEMORY_LIMIT_H_

#include <algorithm>
#include <cstddef>
#include <functional>
#include <istream>
#include <streambuf>
#include <string>
#include <utility>

namespace nnet3 {
namespace testing {

struct LimitedRun {
  enum Outcome {
    kReturned,        // fn returned normally
    kUserError,       // fn threw nnet3::UserError; message holds what()
    kOutOfMemory,     // std::bad_alloc or std::length_error escaped fn
    kOtherException,  // anything else thrown; message holds what()
    kCrashed          // the child died or could not be run
  };
  Outcome outcome = kCrashed;
  std::string message;
};

// Runs fn() in a child process allowed "extra_bytes" more address space than
// it has when it starts (64 MiB is plenty for the tiny inputs of the tests).
LimitedRun RunWithMemoryLimit(size_t extra_bytes,
                              const std::function<void()> &fn);

// Describes an outcome for test failure messages.
std::string Describe(const LimitedRun &run);

// A stream buffer over a string that, like a pipe, cannot seek and does not
// say how much is left: the input a reader must handle without knowing the
// length. Reads hand out at most 4096 bytes at a time.
class UnsizedStreamBuf : public std::streambuf {
 public:
  explicit UnsizedStreamBuf(std::string data) : data_(std::move(data)) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (next_ >= data_.size()) return traits_type::eof();
    size_t n = std::min<size_t>(4096, data_.size() - next_);
    char *start = &data_[next_];
    setg(start, start, start + n);
    next_ += n;
    return traits_type::to_int_type(*gptr());
  }
  std::streamsize showmanyc() override { return 0; }
  pos_type seekoff(off_type, std::ios_base::seekdir,
                   std::ios_base::openmode) override {
    return pos_type(off_type(-1));
  }
  pos_type seekpos(pos_type, std::ios_base::openmode) override {
    return pos_type(off_type(-1));
  }

 private:
  std::string data_;
  size_t next_ = 0;
};

// An istream owning an UnsizedStreamBuf.
class UnsizedIstream : public std::istream {
 public:
  explicit UnsizedIstream(std::string data)
      : std::istream(nullptr), buf_(std::move(data)) {
    rdbuf(&buf_);
  }

 private:
  UnsizedStreamBuf buf_;
};

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_COMMON_MEMORY_LIMIT_H_
