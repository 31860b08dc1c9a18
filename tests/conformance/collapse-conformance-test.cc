// tests/conformance/collapse-conformance-test.cc
// nnet3-copy --prepare-for-test against models Kaldi prepared for test
// (tests/data/kaldi/collapse; every line of its commands.txt is one case,
// run with tests/data/kaldi as working directory and the output redirected
// to a scratch directory):
//  - the binary output equals Kaldi's NAME.collapsed.raw byte for byte;
//  - the text output (--binary=false added) equals the text form of Kaldi's
//    binary output, and equals Kaldi's NAME.collapsed.txt in every token but
//    one: the BatchNorm <TestMode> flag. Kaldi's .txt files show F there
//    while its .raw files (and the documented behaviour: test mode is set)
//    hold T, so the text reference cannot be the text form of the same
//    model; the flag is checked against the binary instead.
#include <gtest/gtest.h>

#include <sstream>

#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

std::string Kaldi() { return DataDir() + "/kaldi"; }

std::vector<std::string> Tokens(const std::string &line) {
  std::istringstream is(line);
  std::vector<std::string> tokens;
  std::string tok;
  while (is >> tok) tokens.push_back(tok);
  return tokens;
}

std::vector<std::string> Commands() {
  std::istringstream is(ReadFile(Kaldi() + "/collapse/commands.txt"));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(is, line))
    if (!Tokens(line).empty()) lines.push_back(line);
  return lines;
}

// The text with the value after every "<TestMode>" inside a
// BatchNormComponent replaced by '?'.
std::string MaskBatchnormTestMode(const std::string &text) {
  std::string ans = text;
  const std::string open = "<BatchNormComponent>", flag = "<TestMode> ";
  size_t pos = 0;
  while ((pos = ans.find(open, pos)) != std::string::npos) {
    size_t end = ans.find("</BatchNormComponent>", pos);
    size_t f = ans.find(flag, pos);
    if (f != std::string::npos && f < end) ans[f + flag.size()] = '?';
    pos += open.size();
  }
  return ans;
}

std::string Name(const ::testing::TestParamInfo<std::string> &info) {
  std::string s = Tokens(info.param).back();
  s = s.substr(s.rfind('/') + 1);
  for (char &c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class CollapseConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(CollapseConformance, WritesKaldisBytes) {
  std::vector<std::string> tokens = Tokens(GetParam());
  ASSERT_GE(tokens.size(), 3u);
  ASSERT_EQ(tokens[0], "nnet3-copy");
  const std::string reference = tokens.back();  // collapse/NAME.collapsed.raw
  ASSERT_EQ(reference.substr(reference.size() - 4), ".raw");
  const std::string stem = reference.substr(0, reference.size() - 4);
  TempDir dir;
  std::string args;
  for (size_t i = 1; i + 1 < tokens.size(); i++) args += " " + tokens[i];

  CommandResult r = RunCommand("nnet3-copy" + args + " " + dir.File("out.raw"),
                               Kaldi());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_TRUE(ReadFile(dir.File("out.raw")) ==
              ReadFile(Kaldi() + "/" + reference))
      << "binary output differs from " << reference;

  r = RunCommand("nnet3-copy --binary=false" + args + " " +
                     dir.File("out.txt") + " && nnet3-copy --binary=false " +
                     reference + " " + dir.File("kaldi.txt"),
                 Kaldi());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string ours = ReadFile(dir.File("out.txt"));
  EXPECT_TRUE(ours == ReadFile(dir.File("kaldi.txt")))
      << "text output differs from the text form of " << reference;
  EXPECT_TRUE(MaskBatchnormTestMode(ours) ==
              MaskBatchnormTestMode(ReadFile(Kaldi() + "/" + stem + ".txt")))
      << "text output differs from " << stem << ".txt";
}

INSTANTIATE_TEST_SUITE_P(Kaldi, CollapseConformance,
                         ::testing::ValuesIn(Commands()), Name);

// The masking itself: only BatchNorm's flag is hidden.
TEST(CollapseConformanceHelpers, MaskTouchesOnlyBatchnorm) {
  std::string text =
      "<ComponentName> d <DropoutComponent> <TestMode> F </DropoutComponent> "
      "<ComponentName> b <BatchNormComponent> <Dim> 2 <TestMode> T <Count> 1 "
      "</BatchNormComponent> ";
  std::string masked = MaskBatchnormTestMode(text);
  EXPECT_NE(masked.find("<DropoutComponent> <TestMode> F"), std::string::npos);
  EXPECT_NE(masked.find("<Dim> 2 <TestMode> ? <Count>"), std::string::npos);
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
