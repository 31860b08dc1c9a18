// tests/util/util-test-util.h
// Helpers for the util tests: a temporary directory removed at the end,
// whole-file byte I/O, a log capture, and a small Kaldi-style object type.
#ifndef NNET3_TESTS_UTIL_UTIL_TEST_UTIL_H_
#define NNET3_TESTS_UTIL_UTIL_TEST_UTIL_H_

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "base/io.h"
#include "common/list-directory.h"
#include "base/log.h"

namespace nnet3 {
namespace test {

// A fresh directory under $TMPDIR (or /tmp), removed with its contents.
class TempDir {
 public:
  TempDir() {
    const char *tmp = getenv("TMPDIR");
    std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") +
                       "/nnet3-util-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) std::abort();
    path_ = buf.data();
  }
  ~TempDir() {
    std::string cmd = "rm -rf '" + path_ + "'";
    if (std::system(cmd.c_str()) != 0) {}
  }
  const std::string &path() const { return path_; }
  std::string File(const std::string &name) const {
    return path_ + "/" + name;
  }
  // Names of the entries in the directory (no . and ..), sorted.
  std::vector<std::string> List() const {
    return nnet3::ListDirectory(path_);
  }

 private:
  std::string path_;
};

inline std::string ReadFileBytes(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(is),
                     std::istreambuf_iterator<char>());
}

inline void WriteFileBytes(const std::string &path, const std::string &bytes) {
  std::ofstream os(path, std::ios::binary);
  os.write(bytes.data(), bytes.size());
}

inline bool FileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// Collects warnings and errors logged while alive.
class LogCapture {
 public:
  LogCapture() {
    old_ = SetLogHandler([this](int, const std::string &line) {
      lines_.push_back(line);
    });
  }
  ~LogCapture() { SetLogHandler(old_); }
  const std::vector<std::string> &lines() const { return lines_; }
  bool Contains(const std::string &s) const {
    for (const std::string &l : lines_)
      if (l.find(s) != std::string::npos) return true;
    return false;
  }

 private:
  LogHandler old_;
  std::vector<std::string> lines_;
};

// Runs f and returns the UserError message it throws ("" if none).
inline std::string UserErrorOf(const std::function<void()> &f) {
  try {
    f();
  } catch (const UserError &e) {
    return e.what();
  }
  return "";
}

// Bytes of an int32 in little-endian order, preceded by its size byte 4,
// as WriteBasicType writes it in binary mode.
inline std::string Int32Bytes(int32 v) {
  std::string s(1, '\x04');
  uint32 u = static_cast<uint32>(v);
  for (int i = 0; i < 4; i++) s += static_cast<char>((u >> (8 * i)) & 0xff);
  return s;
}

}  // namespace test
}  // namespace nnet3

#endif  // NNET3_TESTS_UTIL_UTIL_TEST_UTIL_H_
