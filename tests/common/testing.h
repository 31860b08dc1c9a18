// tests/common/testing.h
// Helpers for tests that run the real tools: a temporary directory removed
// at the end of the test, a shell runner that captures exit status, stdout
// and stderr, and whole-file read/write.
#ifndef NNET3_TESTS_COMMON_TESTING_H_
#define NNET3_TESTS_COMMON_TESTING_H_

#include <string>
#include <vector>

namespace nnet3 {
namespace testing {

// Creates a fresh directory under $TMPDIR (or /tmp); removes it (recursively)
// in the destructor unless NNET3_KEEP_TEST_DIRS is set.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return path_; }
  std::string File(const std::string &name) const { return path_ + "/" + name; }
 private:
  std::string path_;
};

struct CommandResult {
  int exit_status;     // the shell's exit status (128+N for signal N)
  std::string out;     // captured stdout
  std::string err;     // captured stderr
};

// Runs `bash -c command` in directory cwd with the project's tools first in
// PATH. stdin is /dev/null unless the command redirects it.
CommandResult RunCommand(const std::string &command,
                         const std::string &cwd = ".");

// The directory holding the built tools, and the test data directory (the
// build's, unless the environment variables NNET3_TOOLS_DIR and
// NNET3_TEST_DATA_DIR name others).
std::string ToolsDir();
std::string DataDir();

std::string ReadFile(const std::string &path);          // fails the test if missing
void WriteFile(const std::string &path, const std::string &contents);
bool FileExists(const std::string &path);
// Copies a directory tree (cp -r semantics; dst must not exist).
void CopyTree(const std::string &src, const std::string &dst);
// Splits a tab-separated file into rows of fields, skipping lines starting
// with '#' and empty lines.
std::vector<std::vector<std::string> > ReadTsv(const std::string &path);
// The last non-empty line of a text.
std::string LastLine(const std::string &text);

// Runs command in cwd and expects the house error behaviour: exit status 1
// and exactly one "ERROR (" line, the last one, containing fragment.
void ExpectOneErrorLine(const std::string &command, const std::string &cwd,
                        const std::string &fragment);

// The numbers between the first "[" after "token" and the next "]" in a
// text (a Kaldi text vector or stats file); fails the test if token is
// missing.
std::vector<double> NumbersAfter(const std::string &text,
                                 const std::string &token);

// The --use-gpu value that the conformance tests pass to the tools: the
// environment variable NNET3_TEST_USE_GPU, "no" when unset (CTest sets it
// to "yes" for the copies of those tests labelled gpu).
std::string ToolUseGpu();
// "" when the tools can compute on a GPU here (a build whose GPU backend
// computes, cuda-compiled, and an NVIDIA device node), else why not.
std::string NoToolGpuReason();

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_COMMON_TESTING_H_
