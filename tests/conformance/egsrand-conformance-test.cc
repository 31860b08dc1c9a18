// tests/conformance/egsrand-conformance-test.cc
// Kaldi's random choices over egs (tests/data/kaldi/egsrand): every line of
// its commands.txt (nnet3-shuffle-egs with and without --buffer-size,
// nnet3-subset-egs, nnet3-copy-egs --random --keep-proportion) is run with
// our tool of the same name, in tests/data/kaldi, with the output archive
// redirected to a scratch directory; the archive must equal Kaldi's byte for
// byte. The same --srand must therefore give the same order and selection:
// std::shuffle over std::mt19937(--srand) from libstdc++, and glibc rand()
// (seeded by --srand where Kaldi seeds it, left at seed 1 where it does not).
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
  std::istringstream is(ReadFile(Kaldi() + "/egsrand/commands.txt"));
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(is, line))
    if (!Tokens(line).empty()) lines.push_back(line);
  return lines;
}

std::string Name(const ::testing::TestParamInfo<std::string> &info) {
  std::string s = Tokens(info.param).back();
  s = s.substr(s.rfind('/') + 1);
  for (char &c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class EgsRandConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(EgsRandConformance, SameSeedGivesKaldisBytes) {
  std::vector<std::string> tokens = Tokens(GetParam());
  ASSERT_GE(tokens.size(), 3u);
  // The last argument is Kaldi's output, "ark:egsrand/NAME".
  const std::string wspecifier = tokens.back();
  ASSERT_EQ(wspecifier.compare(0, 4, "ark:"), 0) << wspecifier;
  const std::string reference = wspecifier.substr(4);
  TempDir dir;
  std::string command;
  for (size_t i = 0; i + 1 < tokens.size(); i++) command += tokens[i] + " ";
  command += "ark:" + dir.File("out.ark");
  CommandResult r = RunCommand(command, Kaldi());
  ASSERT_EQ(r.exit_status, 0) << command << "\n" << r.err;
  EXPECT_TRUE(ReadFile(dir.File("out.ark")) ==
              ReadFile(Kaldi() + "/" + reference))
      << command << ": output differs from " << reference;
}

INSTANTIATE_TEST_SUITE_P(Kaldi, EgsRandConformance,
                         ::testing::ValuesIn(Commands()), Name);

}  // namespace
}  // namespace testing
}  // namespace nnet3
