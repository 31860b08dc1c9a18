// tests/base/log-test.cc: log line format, verbosity, error types.
#include <gtest/gtest.h>

#include <vector>

#include "base/log.h"

namespace nnet3 {
namespace {

struct CaptureLog {
  std::vector<std::pair<int, std::string> > lines;
  LogHandler old;
  CaptureLog() {
    old = SetLogHandler([this](int s, const std::string &l) {
      lines.emplace_back(s, l);
    });
  }
  ~CaptureLog() { SetLogHandler(old); }
};

TEST(Log, LineFormatNamesProgramFunctionFileAndLine) {
  SetProgramName("/some/dir/copy-feats");
  CaptureLog cap;
  int line = __LINE__ + 1;
  NNET3_LOG << "hello " << 42;
  ASSERT_EQ(cap.lines.size(), 1u);
  std::string expected = std::string("LOG (copy-feats[") + GetVersionString() +
                         "]:TestBody():log-test.cc:" + std::to_string(line) +
                         ") hello 42";
  EXPECT_EQ(cap.lines[0].second, expected);
}

TEST(Log, WarningAndVerbosity) {
  SetProgramName("tool");
  CaptureLog cap;
  SetVerboseLevel(1);
  NNET3_WARN << "w";
  NNET3_VLOG(1) << "v1";
  NNET3_VLOG(2) << "v2";  // suppressed
  SetVerboseLevel(0);
  NNET3_VLOG(1) << "v1 again";  // suppressed
  ASSERT_EQ(cap.lines.size(), 2u);
  EXPECT_EQ(cap.lines[0].second.rfind("WARNING (tool[", 0), 0u);
  EXPECT_EQ(cap.lines[1].second.rfind("VLOG[1] (tool[", 0), 0u);
  EXPECT_NE(cap.lines[1].second.find(") v1"), std::string::npos);
}

TEST(Log, VlogDoesNotEvaluateArgumentsWhenSuppressed) {
  SetVerboseLevel(0);
  int calls = 0;
  auto f = [&]() { return ++calls; };
  NNET3_VLOG(3) << f();
  EXPECT_EQ(calls, 0);
}

TEST(Log, ErrorThrowsUserErrorWithOneLine) {
  SetProgramName("tool");
  try {
    NNET3_ERR << "bad value " << 3 << "\n";
    FAIL() << "NNET3_ERR did not throw";
  } catch (const UserError &e) {
    std::string w = e.what();
    EXPECT_EQ(w.rfind("ERROR (tool[", 0), 0u);
    EXPECT_EQ(w.find('\n'), std::string::npos);
    EXPECT_NE(w.find(") bad value 3"), std::string::npos);
    EXPECT_EQ(e.message(), "bad value 3");
  }
}

TEST(Log, AssertThrowsInternalErrorNotUserError) {
  int x = 1;
  bool caught_internal = false;
  try {
    NNET3_ASSERT(x == 2);
  } catch (const UserError &) {
    FAIL() << "an assertion must not look like a user error";
  } catch (const InternalError &e) {
    caught_internal = true;
    EXPECT_NE(std::string(e.what()).find("x == 2"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).rfind("ASSERTION_FAILED", 0), 0u);
  }
  EXPECT_TRUE(caught_internal);
}

TEST(Log, PrintableStringEscapesAndCuts) {
  EXPECT_EQ(PrintableString(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(PrintableString("abcdef", 3), "abc...");
}

}  // namespace
}  // namespace nnet3
