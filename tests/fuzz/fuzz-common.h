// tests/fuzz/fuzz-common.h
// What every fuzz target of this folder shares. A target defines
// LLVMFuzzerTestOneInput(data, size) and calls the library code that a tool
// runs on the same kind of file; it is linked either with libFuzzer
// (NNET3_FUZZ=ON) or with replay-main.cc, which runs it over stored inputs
// in the normal build.
//
// The contract each target keeps, and that these helpers check:
//   - bad input ends in nnet3::UserError (the tool's one ERROR line); that
//     is caught and counts as a pass (see Guarded() for std::bad_alloc).
//   - anything else escaping the library (InternalError, another exception)
//     is a finding: Guarded() prints it and aborts, which libFuzzer reports
//     as a crash and the replay test as a failure. So are sanitizer reports.
//   - input never reaches a shell: targets refuse inputs that would name a
//     pipe ("|"), and standard input is /dev/null, so "-" reads nothing.
//   - files a target writes live in one private scratch folder per process,
//     named by ScratchDir(); relative names in scripts (scp) are resolved
//     there while the library runs (ScopedChdir), so a stored input reads
//     the same files on every machine.
#ifndef NNET3_TESTS_FUZZ_FUZZ_COMMON_H_
#define NNET3_TESTS_FUZZ_FUZZ_COMMON_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>

#include "base/log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace nnet3 {
namespace fuzz {

// One-time set-up (idempotent; every helper below calls it): log lines are
// dropped (warnings from bad input would flood the output), standard input
// is reopened on /dev/null, the scratch folder is created, and the limit on
// what a declared size may ask for (base/io.h, docs/io.md) is lowered from
// 8 GiB to 256 MiB unless NNET3_MAX_DECLARED_BYTES is set: an input that
// reaches the limit is then refused with its error, under the fuzzer's
// 512 MiB limit on a single allocation.
void Init();

// The process's scratch folder (absolute, no trailing slash), removed at
// exit.
const std::string &ScratchDir();

// Writes "contents" to ScratchDir()/name and returns the full path.
std::string WriteScratchFile(const std::string &name,
                             const std::string &contents);

// Runs body(); UserError is the expected outcome of bad input and is
// swallowed. So are std::bad_alloc and std::length_error when
// sizes_from_input is true: the input legitimately chooses sizes (a config
// file's dimensions), and the tools turn these into one line. For readers
// of sized data (models, archives, wav, caches) every size must be checked
// against the input first (docs/io.md), so there they are findings.
// Everything else that escapes is printed with the target's name and
// aborts. The verbose level is reset afterwards (options inputs may change
// it). With the environment variable NNET3_FUZZ_VERBOSE set, the outcome
// of each input is printed ("accepted" or the error), to see what seeds
// reach.
void Guarded(const char *target, const std::function<void()> &body,
             bool sizes_from_input = false);

// Aborts with a message: an invariant the target checks itself (a round
// trip that does not give back what was written) does not hold.
[[noreturn]] void Fail(const char *target, const std::string &what);

// While alive: the working directory is ScratchDir(), and std::cerr
// writes nowhere (usage texts printed on a bad option would flood the
// output; sanitizer reports go to file descriptor 2 and stay visible).
class ScopedQuiet {
 public:
  ScopedQuiet();
  ~ScopedQuiet();
  ScopedQuiet(const ScopedQuiet &) = delete;
  ScopedQuiet &operator=(const ScopedQuiet &) = delete;

 private:
  int old_cwd_fd_;
  std::streambuf *old_cerr_;
};

// Writes 'object' in binary, reads that into *copy and writes *copy again:
// a UserError on reading, or different bytes the second time, is a
// failure of 'target' ('what' names the object in the message). T has
// Kaldi's Write(os, binary) and Read(is, binary).
template <typename T>
void CheckBinaryRoundTrip(const char *target, const char *what,
                          const T &object, T *copy) {
  std::ostringstream os;
  object.Write(os, true);
  try {
    std::istringstream is(os.str());
    copy->Read(is, true);
  } catch (const UserError &e) {
    Fail(target, std::string(what) + " we wrote does not read back: " +
                     e.what());
  }
  std::ostringstream again;
  copy->Write(again, true);
  if (again.str() != os.str())
    Fail(target, "binary write-read-write changed the bytes");
}

// True if text contains c (used to refuse pipes and paths).
inline bool Contains(const std::string &text, char c) {
  return text.find(c) != std::string::npos;
}

}  // namespace fuzz
}  // namespace nnet3

#endif  // NNET3_TESTS_FUZZ_FUZZ_COMMON_H_
