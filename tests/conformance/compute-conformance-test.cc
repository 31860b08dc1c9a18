// tests/conformance/compute-conformance-test.cc
// Every row of Kaldi's compute/cases.tsv (tests/data/kaldi/compute): our
// nnet3-compute, run with the row's options on the row's model and
// features, must give Kaldi's output: same keys and shapes, every value
// within 1e-4 x (max |value| of that utterance's expected matrix) + 1e-5.
// A case whose model uses a type the registry does not know fails, naming
// the types (no case is skipped). The rows whose networks' outputs do not
// depend on the chunking (TDNNs, convolution; no recurrence, IfDefined,
// Failover or Round) must also come out of nnet3-compute-batch (with small minibatches, so
// that full and partial ones are run) the same. Both again with every
// spliced affine computed as a TdnnComponent (--spliced-affine-min-dim=1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "common/testing.h"
#include "matrix/table-types.h"
#include "nnet3/components/component.h"
#include "util/table.h"

namespace nnet3 {
namespace testing {
namespace {

std::string Kaldi() { return DataDir() + "/kaldi"; }

struct Case {
  std::string name, model, features, options, extra, expected;
};

void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }

std::vector<Case> Cases() {
  std::vector<Case> cases;
  std::vector<std::vector<std::string> > rows =
      ReadTsv(Kaldi() + "/compute/cases.tsv");
  for (size_t i = 1; i < rows.size(); i++) {
    const std::vector<std::string> &r = rows[i];
    if (r.size() < 6) continue;
    cases.push_back(Case{r[0], r[1], r[2], r[3], r[4], r[5]});
  }
  return cases;
}

// Component types named in a model file, text or binary (binary models
// write tokens as text too).
std::string MissingTypes(const std::string &model_bytes) {
  std::set<std::string> types;
  std::string::size_type pos = 0;
  const std::string key = "<ComponentName> ";
  while ((pos = model_bytes.find(key, pos)) != std::string::npos) {
    pos += key.size();
    std::string::size_type name_end = model_bytes.find(' ', pos);
    if (name_end == std::string::npos) break;
    std::string::size_type lt = model_bytes.find('<', name_end);
    std::string::size_type gt = model_bytes.find('>', lt);
    if (lt == std::string::npos || gt == std::string::npos) break;
    types.insert(model_bytes.substr(lt + 1, gt - lt - 1));
  }
  std::vector<std::string> known = ComponentRegistry::Get().Types();
  std::string missing;
  for (const std::string &t : types)
    if (std::find(known.begin(), known.end(), t) == known.end())
      missing += (missing.empty() ? "" : ", ") + t;
  return missing;
}

void ReadArchive(const std::string &path,
                 std::vector<std::pair<std::string, Matrix<BaseFloat> > > *out) {
  SequentialBaseFloatMatrixReader reader("ark,t:" + path);
  for (; !reader.Done(); reader.Next())
    out->push_back(std::make_pair(reader.Key(), reader.Value()));
}

std::string Name(const ::testing::TestParamInfo<Case> &info) {
  std::string s = info.param.name;
  for (char &c : s)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

class ComputeConformance : public ::testing::TestWithParam<Case> {};

void CheckOutput(const Case &c, const std::string &tool) {
  std::string missing = MissingTypes(ReadFile(Kaldi() + "/" + c.model));
  if (!missing.empty())
    FAIL() << c.name << " uses component types this library does not "
           << "register: " << missing;
  TempDir dir;
  std::string out = dir.path() + "/out.txt";
  if (ToolUseGpu() != "no" && !NoToolGpuReason().empty())
    GTEST_SKIP() << NoToolGpuReason();
  CommandResult r = RunCommand(tool + " --use-gpu=" + ToolUseGpu() + " " +
                                   c.options + " " + c.extra +
                                   " " + c.model + " ark,t:" + c.features +
                                   " ark,t:" + out,
                               Kaldi());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::vector<std::pair<std::string, Matrix<BaseFloat> > > got, want;
  ReadArchive(out, &got);
  ReadArchive(Kaldi() + "/" + c.expected, &want);
  ASSERT_EQ(got.size(), want.size());
  for (size_t u = 0; u < want.size(); u++) {
    ASSERT_EQ(got[u].first, want[u].first);
    const Matrix<BaseFloat> &a = got[u].second, &b = want[u].second;
    ASSERT_EQ(a.NumRows(), b.NumRows()) << want[u].first;
    ASSERT_EQ(a.NumCols(), b.NumCols()) << want[u].first;
    double scale = 0.0;
    for (int32 i = 0; i < b.NumRows(); i++)
      for (int32 j = 0; j < b.NumCols(); j++)
        scale = std::max(scale, std::fabs(static_cast<double>(b(i, j))));
    double tol = 1e-4 * scale + 1e-5;
    for (int32 i = 0; i < b.NumRows(); i++)
      for (int32 j = 0; j < b.NumCols(); j++)
        ASSERT_NEAR(a(i, j), b(i, j), tol)
            << want[u].first << " row " << i << " col " << j;
  }
}

TEST_P(ComputeConformance, OutputMatchesKaldi) {
  CheckOutput(GetParam(), "nnet3-compute");
}

INSTANTIATE_TEST_SUITE_P(Kaldi, ComputeConformance, ::testing::ValuesIn(Cases()),
                         Name);

// The rows whose networks' outputs do not depend on the chunking
// (descriptors.* has Failover, IfDefined and Round; rnn, lstm, gru and
// stats are recurrent or pool over the chunk).
std::vector<Case> ChunkingInvariantCases() {
  const std::set<std::string> names = {
      "seed.default", "seed.exp", "tdnn.default", "tdnn.fsf3",
      "tdnn.ctx-edges", "tdnn_real.default", "tdnn_real.fsf3", "later-tdnnf.default",
      "later-tdnnf.fsf3", "later-cnn.default"};
  std::vector<Case> cases;
  for (const Case &c : Cases())
    if (names.count(c.name) != 0) cases.push_back(c);
  return cases;
}

class BatchConformance : public ::testing::TestWithParam<Case> {};

TEST_P(BatchConformance, OutputMatchesKaldi) {
  CheckOutput(GetParam(), "nnet3-compute-batch --minibatch-size=3 "
                          "--edge-minibatch-size=2");
}

INSTANTIATE_TEST_SUITE_P(Kaldi, BatchConformance,
                         ::testing::ValuesIn(ChunkingInvariantCases()), Name);

// The same with every spliced affine computed as a TdnnComponent (the
// tools do that only for inputs at least 256 wide, which these small
// models do not have).
class SplicedAsTdnnConformance : public ::testing::TestWithParam<Case> {};

TEST_P(SplicedAsTdnnConformance, OutputMatchesKaldi) {
  CheckOutput(GetParam(), "nnet3-compute --spliced-affine-min-dim=1");
}

INSTANTIATE_TEST_SUITE_P(Kaldi, SplicedAsTdnnConformance,
                         ::testing::ValuesIn(Cases()), Name);

class SplicedAsTdnnBatchConformance : public ::testing::TestWithParam<Case> {};

TEST_P(SplicedAsTdnnBatchConformance, OutputMatchesKaldi) {
  CheckOutput(GetParam(), "nnet3-compute-batch --spliced-affine-min-dim=1 "
                          "--minibatch-size=3 --edge-minibatch-size=2");
}

INSTANTIATE_TEST_SUITE_P(Kaldi, SplicedAsTdnnBatchConformance,
                         ::testing::ValuesIn(ChunkingInvariantCases()), Name);

}  // namespace
}  // namespace testing
}  // namespace nnet3
