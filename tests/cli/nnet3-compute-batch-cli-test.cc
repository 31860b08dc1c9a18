// tests/cli/nnet3-compute-batch-cli-test.cc
// nnet3-compute-batch as a user runs it: on the same archive it writes what
// nnet3-compute writes (same keys in the same order, same shapes, numbers
// within float tolerance) for a network with context, with
// --frame-subsampling-factor, --apply-exp, --ivectors and --use-priors,
// and minibatch options that make several full and partial minibatches;
// and the error paths: an utterance without an iVector (a warning, the
// others go on; exit 1 if none succeeded), a feature dimension mismatch
// and a bad option value (one ERROR line, exit 1), --use-gpu=yes on a
// build or machine that cannot compute on a GPU (one ERROR line, exit 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "cli/compute-cli-fixture.h"
#include "common/testing.h"
#include "matrix/table-types.h"
#include "util/table.h"

namespace nnet3 {
namespace testing {
namespace {

// Left context 3, right context 2.
const char *kConfig =
    "input-node name=input dim=4\n"
    "component name=a1 type=AffineComponent input-dim=12 output-dim=6 "
    "bias-stddev=1\n"
    "component-node name=a1 component=a1 "
    "input=Append(Offset(input, -2), input, Offset(input, 1))\n"
    "component name=r1 type=RectifiedLinearComponent dim=6\n"
    "component-node name=r1 component=r1 input=a1\n"
    "component name=a2 type=AffineComponent input-dim=12 output-dim=5 "
    "bias-stddev=1\n"
    "component-node name=a2 component=a2 "
    "input=Append(Offset(r1, -1), Offset(r1, 1))\n"
    "component name=lsm type=LogSoftmaxComponent dim=5\n"
    "component-node name=lsm component=lsm input=a2\n"
    "output-node name=output input=lsm\n";

const char *kIvectorConfig =
    "input-node name=input dim=4\n"
    "input-node name=ivector dim=2\n"
    "component name=affine type=AffineComponent input-dim=10 output-dim=3 "
    "bias-stddev=1\n"
    "component-node name=affine component=affine "
    "input=Append(Offset(input, -1), input, ReplaceIndex(ivector, t, 0))\n"
    "output-node name=output input=affine\n";

class ComputeBatchCli : public ComputeToolCli {
 protected:
  // Same keys, order and shapes; values within 1e-5 relative to
  // max(1, |value|).
  void ExpectSameArchive(const std::string &a, const std::string &b) {
    Archive x = ReadArchive(a), y = ReadArchive(b);
    ASSERT_EQ(x.size(), y.size()) << a << " vs " << b;
    ASSERT_FALSE(x.empty());
    for (size_t u = 0; u < x.size(); u++) {
      EXPECT_EQ(x[u].first, y[u].first);
      const Matrix<BaseFloat> &m = x[u].second, &n = y[u].second;
      ASSERT_EQ(m.NumRows(), n.NumRows()) << x[u].first;
      ASSERT_EQ(m.NumCols(), n.NumCols()) << x[u].first;
      for (int32 r = 0; r < m.NumRows(); r++)
        for (int32 c = 0; c < m.NumCols(); c++)
          ASSERT_NEAR(m(r, c), n(r, c),
                      1e-5 * std::max(1.0f, std::fabs(m(r, c))))
              << a << " vs " << b << ": " << x[u].first << " row " << r;
    }
  }
};

int CountLines(const std::string &text, const std::string &part) {
  std::istringstream is(text);
  std::string line;
  int n = 0;
  while (std::getline(is, line))
    if (line.find(part) != std::string::npos) n++;
  return n;
}

TEST_F(ComputeBatchCli, WritesWhatNnetComputeWrites) {
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({1, 4, 7, 13, 14, 15, 40, 66, 100, 3}, 4));
  CommandResult r = Run("nnet3-init nnet.config nnet.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  struct Case {
    std::string opts;
  } cases[] = {
      {""},
      {"--frames-per-chunk=7 --minibatch-size=3"},
      {"--frames-per-chunk=13 --minibatch-size=4 --edge-minibatch-size=2 "
       "--extra-left-context=2 --extra-left-context-initial=0 "
       "--extra-right-context-final=3"},
      {"--frame-subsampling-factor=3 --frames-per-chunk=9 --minibatch-size=2"},
      {"--apply-exp=true --frames-per-chunk=8 --minibatch-size=5 "
       "--partial-minibatch-factor=0"},
      {"--ensure-exact-final-context=true --frames-per-chunk=20 "
       "--minibatch-size=3"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.opts);
    // nnet3-compute has no minibatch options; give it the rest.
    std::string simple_opts;
    std::istringstream is(c.opts);
    std::string opt;
    while (is >> opt)
      if (opt.find("minibatch") == std::string::npos &&
          opt.find("exact-final") == std::string::npos)
        simple_opts += " " + opt;
    r = Run("nnet3-compute --use-gpu=no" + simple_opts +
            " nnet.raw ark,t:feats.txt ark:simple.ark && "
            "nnet3-compute-batch --use-gpu=no " + c.opts +
            " nnet.raw ark,t:feats.txt ark:batch.ark");
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_NE(r.err.find("Done 10 utterances, failed for 0"),
              std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Did "), std::string::npos) << r.err;
    ExpectSameArchive("simple.ark", "batch.ark");
  }
}

TEST_F(ComputeBatchCli, PriorsFromAMdl) {
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({9, 30}, 4));
  CommandResult r = Run("nnet3-init nnet.config nnet.raw && "
                        "nnet3-copy --binary=false nnet.raw nnet.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  Write("final.mdl",
        "<TransitionModel> <Topology> </Topology> <Triples> 0 </Triples> "
        "<LogProbs> [ ] </LogProbs> </TransitionModel>\n" +
            ReadFile(dir_.File("nnet.txt")) +
            "<LeftContext> 3 <RightContext> 2 <Priors>  [ 0.1 0.2 0.3 0.25 "
            "0.15 ]\n");
  r = Run("nnet3-compute --use-gpu=no --use-priors=true final.mdl "
          "ark,t:feats.txt ark:simple.ark && "
          "nnet3-compute-batch --use-gpu=no --use-priors=true "
          "--minibatch-size=2 final.mdl ark,t:feats.txt ark:batch.ark");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  ExpectSameArchive("simple.ark", "batch.ark");
}

TEST_F(ComputeBatchCli, IvectorsAndMissingIvectors) {
  Write("nnet.config", kIvectorConfig);
  Write("feats.txt", Features({4, 60, 17}, 4));
  Write("ivec.txt", "utt0  [ 0.5 -1 ]\nutt1  [ 2 0.25 ]\nutt2 [ -1 1 ]\n");
  CommandResult r = Run(
      "nnet3-init nnet.config nnet.raw && "
      "nnet3-compute --use-gpu=no --ivectors=ark,t:ivec.txt nnet.raw "
      "ark,t:feats.txt ark:simple.ark && "
      "nnet3-compute-batch --use-gpu=no --ivectors=ark,t:ivec.txt "
      "--minibatch-size=2 --frames-per-chunk=10 nnet.raw ark,t:feats.txt "
      "ark:batch.ark");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  ExpectSameArchive("simple.ark", "batch.ark");

  // utt1 has no iVector: a warning, the others are written.
  Write("ivec2.txt", "utt0  [ 0.5 -1 ]\nutt2 [ -1 1 ]\n");
  r = Run("nnet3-compute-batch --use-gpu=no --ivectors=ark,t:ivec2.txt "
          "nnet.raw ark,t:feats.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(CountLines(r.err, "WARNING"), 1) << r.err;
  EXPECT_EQ(CountLines(r.err, "No iVector available for utterance utt1"), 1)
      << r.err;
  EXPECT_NE(r.err.find("Done 2 utterances, failed for 1"), std::string::npos)
      << r.err;
  Archive out = ReadArchive("out.txt");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].first, "utt0");
  EXPECT_EQ(out[1].first, "utt2");
  // None has one: exit status 1.
  Write("ivec3.txt", "other  [ 0.5 -1 ]\n");
  r = Run("nnet3-compute-batch --use-gpu=no --ivectors=ark,t:ivec3.txt "
          "nnet.raw ark,t:feats.txt ark,t:out3.txt");
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_NE(r.err.find("Done 0 utterances, failed for 3"), std::string::npos)
      << r.err;
  // No --ivectors for a network that needs them: one ERROR line.
  r = Run("nnet3-compute-batch --use-gpu=no nnet.raw ark,t:feats.txt "
          "ark,t:out4.txt");
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_EQ(CountLines(r.err, "ERROR"), 1) << r.err;
  EXPECT_NE(LastLine(r.err).find("Utterance utt0: Neural net expects "
                                 "'ivector' features with dimension 2 but "
                                 "you provided 0"),
            std::string::npos)
      << r.err;
}

TEST_F(ComputeBatchCli, BadInputGivesOneErrorLine) {
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({5, 8}, 3));
  CommandResult r = Run("nnet3-init nnet.config nnet.raw && "
                        "nnet3-compute-batch --use-gpu=no nnet.raw "
                        "ark,t:feats.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(CountLines(r.err, "ERROR"), 1) << r.err;
  std::string last = LastLine(r.err);
  EXPECT_EQ(last.rfind("ERROR (", 0), 0u) << r.err;
  EXPECT_NE(last.find("Utterance utt0"), std::string::npos) << last;
  EXPECT_NE(last.find("'input' features with dimension 4 but you provided 3"),
            std::string::npos)
      << last;

  Write("feats4.txt", Features({5}, 4));
  r = Run("nnet3-compute-batch --use-gpu=no --partial-minibatch-factor=1.6 "
          "nnet.raw ark,t:feats4.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(CountLines(r.err, "ERROR"), 1) << r.err;
  EXPECT_NE(LastLine(r.err).find("--partial-minibatch-factor must be in "
                                 "[0, 1)"),
            std::string::npos)
      << r.err;
  r = Run("nnet3-compute-batch --use-gpu=no --minibatch-size=0 "
          "nnet.raw ark,t:feats4.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(CountLines(r.err, "ERROR"), 1) << r.err;
}

TEST_F(ComputeBatchCli, UseGpuYesFailsWithoutAUsableGpu) {
  if (NoToolGpuReason().empty())
    GTEST_SKIP() << "a GPU computes here; the GPU tests cover it";
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({6, 2}, 4));
  CommandResult r = Run("nnet3-init nnet.config nnet.raw");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // Kaldi's default is yes.
  for (const char *opt : {"--use-gpu=yes", ""}) {
    r = Run(std::string("nnet3-compute-batch ") + opt +
            " nnet.raw ark,t:feats.txt ark,t:g.txt");
    EXPECT_EQ(r.exit_status, 1) << r.err;
    EXPECT_EQ(CountLines(r.err, "ERROR"), 1) << r.err;
    EXPECT_EQ(CountLines(r.err, "--use-gpu=yes but "), 1) << r.err;
    EXPECT_NE(Run("test -e g.txt").exit_status, 0) << "output was written";
  }
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
