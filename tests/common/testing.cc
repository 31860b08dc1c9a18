// tests/common/testing.cc
#include "common/testing.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace nnet3 {
namespace testing {

namespace {
std::string ShellQuote(const std::string &s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

int System(const std::string &cmd) {
  int status = std::system(cmd.c_str());
  if (status == -1) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}
}  // namespace

TempDir::TempDir() {
  const char *tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/nnet3-test-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp failed for " << templ;
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (std::getenv("NNET3_KEEP_TEST_DIRS") == nullptr && !path_.empty())
    System("rm -rf " + ShellQuote(path_));
}

namespace {

// The value of environment variable "name", or "fallback" when unset.
std::string FromEnvironment(const char *name, const char *fallback) {
  const char *value = std::getenv(name);
  return value == nullptr || *value == '\0' ? fallback : value;
}

}  // namespace

// Both can be moved with environment variables of the same names, for
// test binaries run away from their build tree (e.g. on a GPU machine).
std::string ToolsDir() {
  return FromEnvironment("NNET3_TOOLS_DIR", NNET3_TOOLS_DIR);
}
std::string DataDir() {
  return FromEnvironment("NNET3_TEST_DATA_DIR", NNET3_TEST_DATA_DIR);
}

std::vector<double> NumbersAfter(const std::string &text,
                                 const std::string &token) {
  size_t p = text.find(token);
  EXPECT_NE(p, std::string::npos) << token;
  std::vector<double> v;
  if (p == std::string::npos) return v;
  size_t b = text.find('[', p), e = text.find(']', b);
  if (b == std::string::npos || e == std::string::npos) return v;
  std::istringstream is(text.substr(b + 1, e - b - 1));
  double x;
  while (is >> x) v.push_back(x);
  return v;
}

std::string ToolUseGpu() { return FromEnvironment("NNET3_TEST_USE_GPU", "no"); }

std::string NoToolGpuReason() {
  if (RunCommand("cuda-compiled").exit_status != 0)
    return "this build does not compute on GPUs (cuda-compiled exits 1)";
  if (!FileExists("/dev/nvidiactl"))
    return "no NVIDIA GPU on this machine (/dev/nvidiactl is missing)";
  return "";
}

CommandResult RunCommand(const std::string &command, const std::string &cwd) {
  TempDir capture;
  std::string out_file = capture.File("stdout"), err_file = capture.File("stderr");
  std::string full = "cd " + ShellQuote(cwd) + " && PATH=" +
                     ShellQuote(ToolsDir()) + ":\"$PATH\" bash -c " +
                     ShellQuote(command) + " </dev/null >" +
                     ShellQuote(out_file) + " 2>" + ShellQuote(err_file);
  CommandResult r;
  r.exit_status = System(full);
  r.out = FileExists(out_file) ? ReadFile(out_file) : "";
  r.err = FileExists(err_file) ? ReadFile(err_file) : "";
  return r;
}

std::string ReadFile(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  if (!is) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::ostringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

void WriteFile(const std::string &path, const std::string &contents) {
  std::ofstream os(path, std::ios::binary);
  os << contents;
  if (!os) ADD_FAILURE() << "cannot write " << path;
}

bool FileExists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

void CopyTree(const std::string &src, const std::string &dst) {
  int status = System("cp -r " + ShellQuote(src) + " " + ShellQuote(dst) +
                      " && chmod -R u+w " + ShellQuote(dst));
  if (status != 0) ADD_FAILURE() << "cp -r " << src << " " << dst << " failed";
}

std::vector<std::vector<std::string> > ReadTsv(const std::string &path) {
  std::vector<std::vector<std::string> > rows;
  std::istringstream is(ReadFile(path));
  std::string line;
  while (std::getline(is, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    size_t start = 0;
    while (true) {
      size_t tab = line.find('\t', start);
      fields.push_back(line.substr(start, tab == std::string::npos
                                              ? std::string::npos
                                              : tab - start));
      if (tab == std::string::npos) break;
      start = tab + 1;
    }
    rows.push_back(fields);
  }
  return rows;
}

std::string LastLine(const std::string &text) {
  std::istringstream is(text);
  std::string line, last;
  while (std::getline(is, line))
    if (!line.empty()) last = line;
  return last;
}

void ExpectOneErrorLine(const std::string &command, const std::string &cwd,
                        const std::string &fragment) {
  CommandResult r = RunCommand(command, cwd);
  EXPECT_EQ(r.exit_status, 1) << command << "\n" << r.err;
  std::string last = LastLine(r.err);
  EXPECT_EQ(last.rfind("ERROR (", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("ERROR ("), r.err.rfind("ERROR (")) << r.err;
  EXPECT_NE(last.find(fragment), std::string::npos) << r.err;
}

}  // namespace testing
}  // namespace nnet3
