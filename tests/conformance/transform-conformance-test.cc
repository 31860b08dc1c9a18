// tests/conformance/transform-conformance-test.cc
// Runs the cases of tests/data/kaldi/feat/cases.tsv (Kaldi's reference set)
// whose tool is a feature transform of ours (CMVN, sliding CMN, VAD, voiced
// frame selection, deltas, splicing, subsampling, pasting). Each command runs
// with cwd = tests/data/kaldi, reading Kaldi's inputs in place, with its
// output wspecifier pointed into a temporary directory. Then:
//  - "exact": the output file equals Kaldi's byte for byte (VAD decisions);
//  - "rel=E": same keys in the same order, same shapes, and every value
//    within E * max(1, |expected|) (text archives parsed by a small reader
//    written here, independent of the library's table code).
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

const std::set<std::string> &OurTools() {
  static const std::set<std::string> tools = {
      "compute-cmvn-stats", "apply-cmvn",  "apply-cmvn-sliding",
      "compute-vad",        "select-voiced-frames", "add-deltas",
      "splice-feats",       "subsample-feats",      "paste-feats"};
  return tools;
}

struct FeatCase {
  std::string name, command, expected, compare;
};

void PrintTo(const FeatCase &c, std::ostream *os) { *os << c.name; }

std::string KaldiDir() { return DataDir() + "/kaldi"; }

std::vector<FeatCase> LoadCases() {
  std::vector<FeatCase> cases;
  for (const auto &row : ReadTsv(KaldiDir() + "/feat/cases.tsv")) {
    if (row.size() < 4) continue;
    std::string tool = row[1].substr(0, row[1].find(' '));
    if (OurTools().count(tool) == 0) continue;
    cases.push_back(FeatCase{row[0], row[1], row[2], row[3]});
  }
  return cases;
}

// One object of a text archive: its rows (a vector is one row).
struct TextObject {
  std::string key;
  std::vector<std::vector<double> > rows;
};

// Parses a Kaldi text archive of matrices ("key  [\n  1 2 \n  3 4 ]") or
// vectors ("key  [ 1 2 ]"). Fails the test on malformed input.
std::vector<TextObject> ParseTextArchive(const std::string &text,
                                         const std::string &what) {
  std::vector<TextObject> objects;
  std::istringstream is(text);
  std::string line;
  bool open = false;
  int line_no = 0;
  while (std::getline(is, line)) {
    line_no++;
    std::istringstream ls(line);
    std::vector<std::string> tokens;
    std::string tok;
    while (ls >> tok) tokens.push_back(tok);
    if (tokens.empty()) continue;
    size_t i = 0;
    if (!open) {
      if (tokens.size() < 2 || tokens[1] != "[") {
        ADD_FAILURE() << what << ":" << line_no << ": expected 'key ['";
        return objects;
      }
      objects.push_back(TextObject{tokens[0], {}});
      open = true;
      i = 2;
    }
    std::vector<double> row;
    for (; i < tokens.size(); i++) {
      if (tokens[i] == "]") {
        open = false;
        if (i + 1 != tokens.size())
          ADD_FAILURE() << what << ":" << line_no << ": text after ']'";
        break;
      }
      char *end = nullptr;
      double v = std::strtod(tokens[i].c_str(), &end);
      if (end == tokens[i].c_str() || *end != '\0') {
        ADD_FAILURE() << what << ":" << line_no << ": bad number '"
                      << tokens[i] << "'";
        return objects;
      }
      row.push_back(v);
    }
    if (!row.empty()) objects.back().rows.push_back(row);
  }
  if (open) ADD_FAILURE() << what << ": last object not closed";
  return objects;
}

void CompareRelative(const std::string &got_text, const std::string &want_text,
                     double tol, const std::string &what) {
  std::vector<TextObject> got = ParseTextArchive(got_text, "ours " + what),
                          want = ParseTextArchive(want_text, "Kaldi's " + what);
  ASSERT_EQ(got.size(), want.size()) << what << ": number of objects";
  ASSERT_FALSE(want.empty()) << what << ": Kaldi's file has no objects";
  int num_bad = 0;
  double worst = 0.0;
  for (size_t k = 0; k < want.size(); k++) {
    const TextObject &g = got[k], &w = want[k];
    ASSERT_EQ(g.key, w.key) << what << ": key " << k;
    ASSERT_EQ(g.rows.size(), w.rows.size()) << what << ": rows of " << w.key;
    for (size_t r = 0; r < w.rows.size(); r++) {
      ASSERT_EQ(g.rows[r].size(), w.rows[r].size())
          << what << ": columns of " << w.key << " row " << r;
      for (size_t c = 0; c < w.rows[r].size(); c++) {
        double a = g.rows[r][c], b = w.rows[r][c];
        double err = std::fabs(a - b) / std::max(1.0, std::fabs(b));
        worst = std::max(worst, err);
        if (!(err <= tol) && num_bad++ < 5)
          ADD_FAILURE() << what << ": " << w.key << "(" << r << ", " << c
                        << ") = " << a << ", Kaldi " << b;
      }
    }
  }
  EXPECT_EQ(num_bad, 0) << what << ": values outside tolerance " << tol
                        << " (worst relative error " << worst << ")";
}

class TransformConformance : public ::testing::TestWithParam<FeatCase> {};

TEST_P(TransformConformance, MatchesKaldi) {
  const FeatCase &c = GetParam();
  // The output is the last argument; point its file into a temp dir.
  TempDir dir;
  size_t last_space = c.command.rfind(' ');
  ASSERT_NE(last_space, std::string::npos);
  std::string wspec = c.command.substr(last_space + 1);
  size_t pos = wspec.find(c.expected);
  ASSERT_NE(pos, std::string::npos)
      << c.name << ": output " << wspec << " does not name " << c.expected;
  std::string out_file = dir.File("out.txt");
  std::string command = c.command.substr(0, last_space + 1) +
                        wspec.substr(0, pos) + out_file +
                        wspec.substr(pos + c.expected.size());
  CommandResult r = RunCommand(command, KaldiDir());
  ASSERT_EQ(r.exit_status, 0) << command << "\nstderr:\n" << r.err;
  ASSERT_TRUE(FileExists(out_file)) << command << " wrote nothing";
  std::string got = ReadFile(out_file);
  std::string want = ReadFile(KaldiDir() + "/" + c.expected);
  if (c.compare == "exact") {
    EXPECT_EQ(got.size(), want.size()) << c.expected;
    if (got != want) {
      size_t i = 0;
      while (i < got.size() && i < want.size() && got[i] == want[i]) i++;
      ADD_FAILURE() << c.expected << " differs from Kaldi's at byte " << i;
    }
  } else {
    ASSERT_EQ(c.compare.rfind("rel=", 0), 0u)
        << "unknown comparison " << c.compare << " for " << c.name;
    CompareRelative(got, want, std::atof(c.compare.c_str() + 4), c.expected);
  }
}

std::string CaseName(const ::testing::TestParamInfo<FeatCase> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Kaldi, TransformConformance,
                         ::testing::ValuesIn(LoadCases()), CaseName);

// Every transform case of the reference set is present (a renamed or
// dropped row would otherwise silently shrink the suite).
TEST(TransformConformanceCases, AllPresent) {
  std::set<std::string> names;
  for (const FeatCase &c : LoadCases()) names.insert(c.name);
  for (const char *name :
       {"cmvn_stats_utt", "cmvn_stats_spk", "apply_cmvn_utt_mean",
        "apply_cmvn_utt_meanvar", "apply_cmvn_spk_mean",
        "apply_cmvn_spk_meanvar", "apply_cmvn_sliding_default",
        "compute_vad_default", "select_voiced_frames", "add_deltas_default",
        "splice_feats_2_2", "subsample_feats_n3", "paste_feats_mfcc_fbank"})
    EXPECT_EQ(names.count(name), 1u) << "missing case " << name;
}

// The comparison itself can fail: a value perturbed past the tolerance, or
// a changed key, is reported.
TEST(TransformConformanceCases, ComparisonDetectsDifferences) {
  std::string want = "a  [\n  1 2 \n  3 400 ]\nb  [ 1 0 ]\n";
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
        &failures);
    CompareRelative("a  [\n  1 2 \n  3 400.03 ]\nb  [ 1 0 ]\n", want, 1e-4,
                    "close");
  }
  EXPECT_EQ(failures.size(), 0);
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
        &failures);
    CompareRelative("a  [\n  1 2 \n  3 400.1 ]\nb  [ 1 0 ]\n", want, 1e-4,
                    "far");
    CompareRelative("a  [\n  1 2 \n  3 400 ]\nc  [ 1 0 ]\n", want, 1e-4,
                    "key");
    CompareRelative("a  [\n  1 2 3 400 ]\nb  [ 1 0 ]\n", want, 1e-4,
                    "shape");
  }
  EXPECT_GE(failures.size(), 3);
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
