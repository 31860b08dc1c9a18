// tests/conformance/feat-conformance-test.cc
// Runs the compute-fbank-feats, compute-mfcc-feats and
// compute-spectrogram-feats rows of tests/data/kaldi/feat/cases.tsv (Kaldi's
// reference outputs; the other rows belong to the transform tools) in a
// scratch copy of the data tree with our tools first in PATH, and compares
// the text archives with the row's tolerance:
//  - "rel=1e-4": same keys in the same order, same shapes, and every value
//    within 1e-4 * max(1, |expected|);
//  - "stat" (default dither): same keys and shapes, per-dimension means
//    within 0.1.
// Nothing else is allowed: our pipeline computes in float with Kaldi's
// operation order, FFT and BLAS calls (docs/feat.md), so even bins far
// below the frame's energy, where float rounding dominates, agree.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "common/testing.h"
#include "matrix/table-types.h"

namespace nnet3 {
namespace testing {
namespace {

struct FeatCase {
  std::string name, command;
  std::vector<std::string> expected;
  std::string compare;
};

void PrintTo(const FeatCase &c, std::ostream *os) { *os << c.name; }

std::string FeatDir() { return DataDir() + "/kaldi/feat"; }

std::vector<FeatCase> LoadCases() {
  std::vector<FeatCase> cases;
  for (const auto &row : ReadTsv(FeatDir() + "/cases.tsv")) {
    if (row.size() < 4) continue;
    std::string tool = row[1].substr(0, row[1].find(' '));
    if (tool != "compute-fbank-feats" && tool != "compute-mfcc-feats" &&
        tool != "compute-spectrogram-feats")
      continue;
    FeatCase c{row[0], row[1], {}, row[3]};
    std::istringstream is(row[2]);
    std::string f;
    while (is >> f) c.expected.push_back(f);
    cases.push_back(c);
  }
  return cases;
}

typedef std::vector<std::pair<std::string, Matrix<BaseFloat> > > Archive;

Archive ReadArchive(const std::string &path) {
  Archive out;
  SequentialBaseFloatMatrixReader r("ark,t:" + path);
  for (; !r.Done(); r.Next()) out.emplace_back(r.Key(), r.Value());
  return out;
}

void CompareShapes(const Archive &got, const Archive &want, bool *ok) {
  *ok = false;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); i++) {
    ASSERT_EQ(got[i].first, want[i].first) << "key " << i;
    ASSERT_EQ(got[i].second.NumRows(), want[i].second.NumRows())
        << want[i].first;
    ASSERT_EQ(got[i].second.NumCols(), want[i].second.NumCols())
        << want[i].first;
  }
  *ok = true;
}

class FeatConformance : public ::testing::TestWithParam<FeatCase> {};

TEST_P(FeatConformance, MatchesKaldi) {
  const FeatCase &c = GetParam();
  TempDir dir;
  CopyTree(FeatDir(), dir.File("feat"));
  for (const std::string &f : c.expected) std::remove(dir.File(f).c_str());
  CommandResult r = RunCommand(c.command, dir.path());
  ASSERT_EQ(r.exit_status, 0) << c.command << "\nstderr:\n" << r.err;
  for (const std::string &f : c.expected) {
    ASSERT_TRUE(FileExists(dir.File(f))) << c.command << " did not write " << f;
    Archive got = ReadArchive(dir.File(f));
    Archive want = ReadArchive(DataDir() + "/kaldi/" + f);
    bool ok;
    CompareShapes(got, want, &ok);
    if (!ok) return;
    if (c.compare == "stat") {
      int dim = want[0].second.NumCols();
      std::vector<double> sg(dim, 0.0), sw(dim, 0.0);
      double n = 0;
      for (size_t i = 0; i < want.size(); i++)
        for (int row = 0; row < want[i].second.NumRows(); row++, n++)
          for (int j = 0; j < dim; j++) {
            sg[j] += got[i].second(row, j);
            sw[j] += want[i].second(row, j);
          }
      for (int j = 0; j < dim; j++)
        EXPECT_NEAR(sg[j] / n, sw[j] / n, 0.1) << "mean of dimension " << j;
      continue;
    }
    ASSERT_EQ(c.compare, "rel=1e-4") << "unknown comparison for " << c.name;
    int failures = 0;
    double worst = 0;
    for (size_t i = 0; i < want.size(); i++) {
      const Matrix<BaseFloat> &g = got[i].second, &w = want[i].second;
      for (int row = 0; row < w.NumRows(); row++) {
        for (int j = 0; j < w.NumCols(); j++) {
          double diff = std::fabs(g(row, j) - w(row, j));
          double tol = 1e-4 * std::max(1.0, std::fabs(double(w(row, j))));
          worst = std::max(worst, diff / tol);
          if (!(diff <= tol) && ++failures <= 5)
            ADD_FAILURE() << f << " " << want[i].first << " row " << row
                          << " col " << j << ": got " << g(row, j)
                          << ", Kaldi " << w(row, j) << " (tolerance " << tol
                          << ")";
        }
      }
    }
    EXPECT_EQ(failures, 0) << f;
    RecordProperty("worst_error_over_tolerance", std::to_string(worst));
  }
}

std::string CaseName(const ::testing::TestParamInfo<FeatCase> &info) {
  return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Kaldi, FeatConformance,
                         ::testing::ValuesIn(LoadCases()), CaseName);

}  // namespace
}  // namespace testing
}  // namespace nnet3
