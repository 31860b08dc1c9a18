// tests/conformance/train-conformance-test.cc
// Kaldi's training reference (tests/data/kaldi/train, copied from the
// conformance set):
//  - every row of train.tsv: our nnet3-train with the row's options on the
//    row's model and minibatches must log the same objective and frame
//    count (relative 1e-5), print the row's max-change log lines, and write
//    a model equal to Kaldi's: same tokens, and every matrix/vector within
//    1e-5 x max |value| of Kaldi's (scalars relative 1e-5);
//  - every row of prob.tsv: our nnet3-compute-prob must print the same
//    log-likelihood and accuracy per frame and the same frame counts.
// One exception, on rows with more than one minibatch: Kaldi's nonlinear
// components (ReLU, LogSoftmax, ...) keep their activation statistics on a
// subset of minibatches drawn with glibc rand() after the first, which a
// re-implementation is not expected to reproduce; those statistics blocks
// are skipped there (the parameters and BatchNorm statistics are compared).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>

#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

std::string Kaldi() { return DataDir() + "/kaldi"; }

std::vector<std::string> Tokens(const std::string &text) {
  std::istringstream is(text);
  std::vector<std::string> t;
  std::string s;
  while (is >> s) t.push_back(s);
  return t;
}

bool ParseNumber(const std::string &s, double *v) {
  char *end = nullptr;
  *v = std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0';
}

// Compares two text models; returns "" if they agree, else the first
// difference. skip_nonlinear_stats: see the file comment.
std::string CompareTextModels(const std::string &expected,
                              const std::string &actual,
                              bool skip_nonlinear_stats) {
  static const std::set<std::string> kNonlinearTypes = {
      "<RectifiedLinearComponent>", "<LogSoftmaxComponent>",
      "<SoftmaxComponent>", "<SigmoidComponent>", "<TanhComponent>"};
  static const std::set<std::string> kStatsTokens = {
      "<ValueAvg>", "<DerivAvg>", "<Count>", "<OderivRms>", "<OderivCount>",
      "<NumDimsSelfRepaired>", "<NumDimsProcessed>"};
  std::vector<std::string> e = Tokens(expected), a = Tokens(actual);
  size_t i = 0, j = 0;
  std::string component, type, last_tag;
  while (i < e.size() && j < a.size()) {
    const std::string &te = e[i], &ta = a[j];
    bool skip = skip_nonlinear_stats && kNonlinearTypes.count(type) &&
                kStatsTokens.count(last_tag);
    if (te == "[") {
      if (ta != "[") return "at " + component + " " + last_tag + ": '" + ta +
                            "' where Kaldi has a matrix";
      std::vector<double> ve, va;
      for (i++; i < e.size() && e[i] != "]"; i++) {
        double v;
        if (!ParseNumber(e[i], &v)) return "bad number " + e[i];
        ve.push_back(v);
      }
      for (j++; j < a.size() && a[j] != "]"; j++) {
        double v;
        if (!ParseNumber(a[j], &v)) return "bad number " + a[j];
        va.push_back(v);
      }
      i++;
      j++;
      if (skip) continue;
      if (ve.size() != va.size())
        return component + " " + last_tag + ": " + std::to_string(va.size()) +
               " values, Kaldi has " + std::to_string(ve.size());
      double scale = 0.0, maxdiff = 0.0;
      for (size_t k = 0; k < ve.size(); k++) {
        scale = std::max(scale, std::fabs(ve[k]));
        maxdiff = std::max(maxdiff, std::fabs(ve[k] - va[k]));
      }
      if (maxdiff > 1e-5 * scale + 1e-30) {
        std::ostringstream os;
        os << component << " " << last_tag << ": max difference " << maxdiff
           << " > 1e-5 x " << scale;
        return os.str();
      }
      continue;
    }
    if (!te.empty() && te[0] == '<') last_tag = te;
    if (last_tag == "<ComponentName>" && te != "<ComponentName>")
      component = te;
    if (i > 0 && e[i - 1] != "<ComponentName>" && te.size() > 2 &&
        te[0] == '<' && te[1] != '/' && te.find("Component>") != std::string::npos &&
        te != "<ComponentName>")
      type = te;
    if (te != ta) {
      double ve, va;
      if (!(ParseNumber(te, &ve) && ParseNumber(ta, &va)))
        return "token '" + ta + "' where Kaldi has '" + te + "' (in " +
               component + ")";
      if (!skip && std::fabs(ve - va) > 1e-5 * std::max(1.0, std::fabs(ve)))
        return component + " " + last_tag + ": " + ta + " vs. Kaldi's " + te;
    }
    i++;
    j++;
  }
  if (i != e.size() || j != a.size()) return "different lengths";
  return "";
}

void ExpectRelClose(double expected, const std::string &actual,
                    const std::string &what) {
  double v;
  ASSERT_TRUE(ParseNumber(actual, &v)) << what << ": '" << actual << "'";
  EXPECT_NEAR(v, expected, 1e-5 * std::fabs(expected) + 1e-6) << what;
}

std::string Safe(const std::string &s) {
  std::string r = s;
  for (char &c : r)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return r;
}

// ---- train.tsv ----------------------------------------------------------------

struct TrainRow {
  std::string name, model, egs, options, objective, frames, notes, output;
};
void PrintTo(const TrainRow &r, std::ostream *os) { *os << r.name; }

std::vector<TrainRow> TrainRows() {
  std::vector<TrainRow> rows;
  std::vector<std::vector<std::string> > t =
      ReadTsv(Kaldi() + "/train/train.tsv");
  for (size_t i = 1; i < t.size(); i++) {
    std::vector<std::string> r = t[i];
    r.resize(10);
    rows.push_back(TrainRow{r[0] + "." + r[1], r[2], r[3], r[4], r[5], r[6],
                            r[7], r[8]});
  }
  return rows;
}

// Runs the row's nnet3-train command with 'extra_options' added and checks
// it against Kaldi's results; returns the command's log.
std::string CheckTrainRow(const TrainRow &r,
                          const std::string &extra_options) {
  TempDir tmp;
  std::string out = tmp.File("model.txt");
  CommandResult res =
      RunCommand("nnet3-train --use-gpu=" + ToolUseGpu() + " " + r.options +
                     extra_options + " --binary=false " + r.model +
                     " ark:" + r.egs + " " + out,
                 Kaldi());
  EXPECT_EQ(res.exit_status, 0) << res.err;
  std::smatch m;
  std::regex re(
      "Overall average objective function for 'output' is (\\S+) over (\\S+) "
      "frames\\.");
  EXPECT_TRUE(std::regex_search(res.err, m, re)) << res.err;
  if (res.exit_status != 0 || m.empty()) return res.err;
  ExpectRelClose(std::atof(r.objective.c_str()), m[1], "objective");
  ExpectRelClose(std::atof(r.frames.c_str()), m[2], "frames");
  // The max-change lines ("; "-separated in the tsv), in Kaldi's words.
  std::string notes = r.notes;
  size_t pos = 0;
  int num_lines = 0;
  while (!notes.empty()) {
    size_t sep = notes.find(".; ", pos);
    std::string line =
        sep == std::string::npos ? notes : notes.substr(0, sep + 1);
    EXPECT_NE(res.err.find(line), std::string::npos)
        << "missing log line: " << line << "\nin:\n" << res.err;
    num_lines++;
    notes = sep == std::string::npos ? "" : notes.substr(sep + 3);
  }
  if (r.notes.empty()) {
    EXPECT_EQ(res.err.find("max-change"), std::string::npos) << res.err;
  }
  bool several_minibatches = r.egs.find("mb1") == std::string::npos;
  std::string diff = CompareTextModels(ReadFile(Kaldi() + "/" + r.output),
                                       ReadFile(out), several_minibatches);
  EXPECT_EQ(diff, "") << r.name;
  return res.err;
}

class TrainConformance : public ::testing::TestWithParam<TrainRow> {};

TEST_P(TrainConformance, ModelObjectiveAndLog) {
  if (ToolUseGpu() != "no" && !NoToolGpuReason().empty())
    GTEST_SKIP() << NoToolGpuReason();
  CheckTrainRow(GetParam(), "");
}

// The same rows with every spliced affine layer (input=Append(Offset(x,
// -1), x, ...)) trained as a TdnnComponent, however narrow x is: by default
// only layers over nodes 256 wide or more are, and Kaldi's cases have none.
TEST_P(TrainConformance, SplicedAffinesTrainedAsTdnn) {
  if (ToolUseGpu() != "no" && !NoToolGpuReason().empty())
    GTEST_SKIP() << NoToolGpuReason();
  std::string log =
      CheckTrainRow(GetParam(), " --spliced-affine-min-dim=1 --verbose=1");
  EXPECT_TRUE(std::regex_search(
      log, std::regex("Training [1-9][0-9]* spliced affine layers as "
                      "TdnnComponents")))
      << log;
}

INSTANTIATE_TEST_SUITE_P(
    Kaldi, TrainConformance, ::testing::ValuesIn(TrainRows()),
    [](const ::testing::TestParamInfo<TrainRow> &info) {
      return Safe(info.param.name);
    });

// ---- prob.tsv -----------------------------------------------------------------

struct ProbRow {
  std::string name, model, egs, options, loglike, frames, accuracy,
      acc_frames;
};
void PrintTo(const ProbRow &r, std::ostream *os) { *os << r.name; }

std::vector<ProbRow> ProbRows() {
  std::vector<ProbRow> rows;
  std::vector<std::vector<std::string> > t =
      ReadTsv(Kaldi() + "/train/prob.tsv");
  for (size_t i = 1; i < t.size(); i++) {
    std::vector<std::string> r = t[i];
    r.resize(9);
    std::string model = r[1];
    std::string name = model.substr(model.find('/') + 1);
    rows.push_back(ProbRow{name, r[1], r[2], r[3], r[4], r[5], r[6], r[7]});
  }
  return rows;
}

class ProbConformance : public ::testing::TestWithParam<ProbRow> {};

TEST_P(ProbConformance, LogLikelihoodAndAccuracy) {
  const ProbRow &r = GetParam();
  if (ToolUseGpu() != "no" && !NoToolGpuReason().empty())
    GTEST_SKIP() << NoToolGpuReason();
  CommandResult res = RunCommand("nnet3-compute-prob --use-gpu=" +
                                     ToolUseGpu() + " " + r.options + " " +
                                     r.model + " ark:" + r.egs,
                                 Kaldi());
  ASSERT_EQ(res.exit_status, 0) << res.err;
  std::smatch m;
  std::regex ll(
      "Overall log-likelihood for 'output' is (\\S+) per frame, over (\\S+) "
      "frames\\.");
  ASSERT_TRUE(std::regex_search(res.err, m, ll)) << res.err;
  ExpectRelClose(std::atof(r.loglike.c_str()), m[1], "log-likelihood");
  ExpectRelClose(std::atof(r.frames.c_str()), m[2], "frames");
  std::regex acc(
      "Overall accuracy for 'output' is (\\S+) per frame, over (\\S+) "
      "frames\\.");
  ASSERT_TRUE(std::regex_search(res.err, m, acc)) << res.err;
  ExpectRelClose(std::atof(r.accuracy.c_str()), m[1], "accuracy");
  ExpectRelClose(std::atof(r.acc_frames.c_str()), m[2], "accuracy frames");
}

INSTANTIATE_TEST_SUITE_P(
    Kaldi, ProbConformance, ::testing::ValuesIn(ProbRows()),
    [](const ::testing::TestParamInfo<ProbRow> &info) {
      return Safe(info.param.name);
    });

// The comparison itself must catch a wrong parameter and a wrong token.
TEST(TrainConformanceCompare, DetectsDifferences) {
  std::string a = "<Nnet3> <ComponentName> x <AffineComponent> "
                  "<LinearParams> [ 1 2 \n 3 4 ] <BiasParams> [ 0.5 ] "
                  "</AffineComponent>";
  EXPECT_EQ(CompareTextModels(a, a, false), "");
  std::string b = a;
  b.replace(b.find("3 4"), 3, "3 4.001");
  EXPECT_NE(CompareTextModels(a, b, false), "");
  std::string c = a;
  c.replace(c.find("<BiasParams>"), 12, "<BiasParamz>");
  EXPECT_NE(CompareTextModels(a, c, false), "");
  std::string d = a;
  d.replace(d.find("3 4"), 3, "3 4.00001");  // within 1e-5 x 4
  EXPECT_EQ(CompareTextModels(a, d, false), "");
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
