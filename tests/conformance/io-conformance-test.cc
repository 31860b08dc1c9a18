// tests/conformance/io-conformance-test.cc
// Runs every case of tests/data/kaldi/io/cases.tsv and negative.tsv (from
// Kaldi's reference set) with our tools under Kaldi's names.
//  - Positive cases: in a scratch copy of the data tree with the expected
//    outputs deleted, the command must exit 0 and recreate every expected
//    file byte for byte ("exact").
//  - Negative cases: the command must exit non-zero with one ERROR line on
//    stderr, and everything written to stdout before the failure must equal
//    what Kaldi wrote (complete objects only: nothing half-written).
#include <gtest/gtest.h>

#include <sstream>

#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

struct IoCase {
  std::string name, command;
  std::vector<std::string> expected;
  std::string compare;
};

// Short names in test logs instead of gtest's byte dumps.
void PrintTo(const IoCase &c, std::ostream *os) { *os << c.name; }

std::string KaldiIoDir() { return DataDir() + "/kaldi/io"; }

std::vector<IoCase> LoadCases() {
  std::vector<IoCase> cases;
  for (const auto &row : ReadTsv(KaldiIoDir() + "/cases.tsv")) {
    if (row.size() < 4) continue;
    IoCase c{row[0], row[1], {}, row[3]};
    std::istringstream is(row[2]);
    std::string f;
    while (is >> f) c.expected.push_back(f);
    cases.push_back(c);
  }
  return cases;
}

// A scratch tree: <tmp>/io with every input file, expected outputs removed.
void MakeScratchTree(const TempDir &dir, const std::vector<std::string> &remove) {
  CopyTree(KaldiIoDir(), dir.File("io"));
  for (const std::string &f : remove) std::remove(dir.File(f).c_str());
}

class IoConformance : public ::testing::TestWithParam<IoCase> {};

TEST_P(IoConformance, MatchesKaldiBytes) {
  const IoCase &c = GetParam();
  ASSERT_EQ(c.compare, "exact") << "unknown comparison for " << c.name;
  TempDir dir;
  MakeScratchTree(dir, c.expected);
  CommandResult r = RunCommand(c.command, dir.path());
  ASSERT_EQ(r.exit_status, 0) << c.command << "\nstderr:\n" << r.err;
  for (const std::string &f : c.expected) {
    ASSERT_TRUE(FileExists(dir.File(f))) << c.command << " did not write " << f;
    std::string got = ReadFile(dir.File(f));
    std::string want = ReadFile(DataDir() + "/kaldi/" + f);
    EXPECT_EQ(got.size(), want.size()) << f;
    if (got != want) {
      size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) i++;
      ADD_FAILURE() << f << " differs from Kaldi's at byte " << i << " of "
                    << want.size() << "\ncommand: " << c.command;
    }
  }
}

std::string CaseName(const ::testing::TestParamInfo<IoCase> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Kaldi, IoConformance,
                         ::testing::ValuesIn(LoadCases()), CaseName);

struct NegativeCase {
  std::string name, command, kaldi_error, stdout_file;
};

std::vector<NegativeCase> LoadNegativeCases() {
  std::vector<NegativeCase> cases;
  for (const auto &row : ReadTsv(KaldiIoDir() + "/negative.tsv")) {
    if (row.size() < 6) continue;
    cases.push_back(NegativeCase{row[0], row[1], row[4], row[5]});
  }
  return cases;
}

void PrintTo(const NegativeCase &c, std::ostream *os) { *os << c.name; }

class IoNegative : public ::testing::TestWithParam<NegativeCase> {};

TEST_P(IoNegative, FailsCleanly) {
  const NegativeCase &c = GetParam();
  TempDir dir;
  MakeScratchTree(dir, {});
  CommandResult r = RunCommand(c.command, dir.path());
  EXPECT_NE(r.exit_status, 0) << c.command;
  // Not a crash: a signal would show as 128+N.
  EXPECT_LT(r.exit_status, 128) << c.command << "\nstderr:\n" << r.err;
  std::string last = LastLine(r.err);
  EXPECT_EQ(last.rfind("ERROR (", 0), 0u)
      << "last stderr line should be our one-line error, got: " << last;
  // What was written before the failure equals Kaldi's partial output.
  std::string want = ReadFile(DataDir() + "/kaldi/" + c.stdout_file);
  EXPECT_EQ(r.out, want) << "stdout before the failure differs from Kaldi's";
}

std::string NegativeName(const ::testing::TestParamInfo<NegativeCase> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Kaldi, IoNegative,
                         ::testing::ValuesIn(LoadNegativeCases()),
                         NegativeName);

// The message names what went wrong, case by case.
TEST(IoNegativeMessages, NameTheProblem) {
  struct Expect { std::string name, fragment; };
  std::vector<Expect> expects = {
      {"truncated_archive", "neg_truncated.ark"},
      {"corrupted_token", "FX"},
      {"ragged_text_matrix", "inconsistent #cols"},
      {"scp_missing_file", "does_not_exist.ark"},
      {"range_out_of_bounds", "0:200"},
  };
  std::vector<NegativeCase> cases = LoadNegativeCases();
  for (const Expect &e : expects) {
    bool found = false;
    for (const NegativeCase &c : cases) {
      if (c.name != e.name) continue;
      found = true;
      TempDir dir;
      MakeScratchTree(dir, {});
      CommandResult r = RunCommand(c.command, dir.path());
      EXPECT_NE(LastLine(r.err).find(e.fragment), std::string::npos)
          << c.name << ": error line should mention '" << e.fragment
          << "', got: " << LastLine(r.err);
    }
    EXPECT_TRUE(found) << "negative case " << e.name << " missing";
  }
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
