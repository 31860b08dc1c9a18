// tests/common/memory-limit.cc
#include "common/memory-limit.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <new>
#include <stdexcept>

#include "base/log.h"

namespace nnet3 {
namespace testing {

namespace {

// Current virtual memory size in bytes, from /proc/self/statm.
size_t CurrentAddressSpace() {
  FILE *f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long pages = 0;
  if (std::fscanf(f, "%lu", &pages) != 1) pages = 0;
  std::fclose(f);
  return static_cast<size_t>(pages) * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

void WriteAll(int fd, const std::string &s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

LimitedRun RunWithMemoryLimit(size_t extra_bytes,
                              const std::function<void()> &fn) {
  LimitedRun result;
  int fds[2];
  if (pipe(fds) != 0) {
    result.message = "pipe() failed";
    return result;
  }
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    result.message = "fork() failed";
    return result;
  }
  if (pid == 0) {
    close(fds[0]);
    struct rlimit lim;
    lim.rlim_cur = lim.rlim_max = CurrentAddressSpace() + extra_bytes;
    if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(100);
    int code;
    std::string message;
    try {
      fn();
      code = LimitedRun::kReturned;
    } catch (const UserError &e) {
      code = LimitedRun::kUserError;
      message = e.what();
    } catch (const std::bad_alloc &) {
      code = LimitedRun::kOutOfMemory;
    } catch (const std::length_error &) {
      code = LimitedRun::kOutOfMemory;
    } catch (const std::exception &e) {
      code = LimitedRun::kOtherException;
      message = e.what();
    } catch (...) {
      code = LimitedRun::kOtherException;
    }
    WriteAll(fds[1], message);
    close(fds[1]);
    _exit(code);
  }
  close(fds[1]);
  std::string message;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof(buf))) > 0)
    message.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) > LimitedRun::kCrashed) {
    result.outcome = LimitedRun::kCrashed;
    result.message = "the child did not exit normally";
    return result;
  }
  result.outcome = static_cast<LimitedRun::Outcome>(WEXITSTATUS(status));
  result.message = message;
  return result;
}

std::string Describe(const LimitedRun &run) {
  static const char *names[] = {"returned", "UserError", "out of memory",
                                "other exception", "crashed"};
  return std::string(names[run.outcome]) +
         (run.message.empty() ? "" : ": " + run.message);
}

}  // namespace testing
}  // namespace nnet3
