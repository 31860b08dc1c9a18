// tests/transform/transform-tools-test.cc
// The transform tools through the shell: round trips between tools, single
// files instead of tables, and the error paths (each must exit non-zero
// with one ERROR line naming the problem, or skip with a warning where Kaldi
// skips).
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

// Two utterances of 4 frames x 2 dims, one speaker each, in text form.
const char *kFeats =
    "u1  [\n  1 10 \n  2 20 \n  3 30 \n  6 0 ]\n"
    "u2  [\n  0 1 \n  0 3 \n  4 5 \n  4 7 ]\n";

class TransformTools : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.File("feats.txt"), kFeats);
    WriteFile(dir_.File("utt2spk"), "u1 s1\nu2 s2\n");
    WriteFile(dir_.File("spk2utt"), "s1 u1\ns2 u2\n");
  }
  CommandResult Run(const std::string &command) {
    return RunCommand(command, dir_.path());
  }
  TempDir dir_;
};

TEST_F(TransformTools, PerUttAndPerSpeakerStatsAgreeForOneUttPerSpeaker) {
  ASSERT_EQ(Run("compute-cmvn-stats ark:feats.txt ark,t:utt.txt").exit_status,
            0);
  CommandResult r = Run(
      "compute-cmvn-stats --spk2utt=ark:spk2utt ark:feats.txt ark,t:spk.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string utt = ReadFile(dir_.File("utt.txt")),
              spk = ReadFile(dir_.File("spk.txt"));
  std::string renamed = utt;
  renamed.replace(renamed.find("u1  ["), 2, "s1");
  renamed.replace(renamed.find("u2  ["), 2, "s2");
  EXPECT_EQ(spk, renamed);
  // u1: sums 12, 60, count 4; squares 50, 1400.
  EXPECT_EQ(utt.substr(0, utt.find("u2")),
            "u1  [\n  12 60 4 \n  50 1400 0 ]\n");
}

// The numbers of a text archive or matrix, in order (keys and brackets
// skipped).
std::vector<double> Numbers(const std::string &text) {
  std::vector<double> v;
  std::istringstream is(text);
  std::string tok;
  while (is >> tok) {
    char *end = nullptr;
    double x = std::strtod(tok.c_str(), &end);
    if (end != tok.c_str() && *end == '\0') v.push_back(x);
  }
  return v;
}

TEST_F(TransformTools, ApplyCmvnThenReverseRestoresTheInput) {
  ASSERT_EQ(Run("compute-cmvn-stats ark:feats.txt ark:stats.ark").exit_status,
            0);
  // Means only: exact in float for these small integers.
  CommandResult r = Run(
      "apply-cmvn ark:stats.ark ark:feats.txt ark:- | "
      "apply-cmvn --reverse=true ark:stats.ark ark:- ark,t:back.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_.File("back.txt")), kFeats);
  r = Run("apply-cmvn --norm-vars=true ark:stats.ark ark:feats.txt ark:- | "
          "apply-cmvn --norm-vars=true --reverse=true ark:stats.ark ark:- "
          "ark,t:back2.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::vector<double> got = Numbers(ReadFile(dir_.File("back2.txt"))),
                      want = Numbers(kFeats);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); i++) EXPECT_NEAR(got[i], want[i], 1e-5);
}

TEST_F(TransformTools, GlobalStatsFromAFile) {
  CommandResult r =
      Run("compute-cmvn-stats --binary=false ark:feats.txt global.mat");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // Sums over both utterances, written as a float matrix.
  EXPECT_EQ(ReadFile(dir_.File("global.mat")),
            " [\n  20 76 8 \n  82 1484 0 ]\n");
  r = Run("apply-cmvn global.mat ark:feats.txt ark,t:out.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // Means 2.5 and 9.5.
  EXPECT_EQ(ReadFile(dir_.File("out.txt")).substr(0, 30),
            "u1  [\n  -1.5 0.5 \n  -0.5 10.5 ");
  r = Run("apply-cmvn --utt2spk=ark:utt2spk global.mat ark:feats.txt ark:-");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(LastLine(r.err).find("--utt2spk"), std::string::npos) << r.err;
}

TEST_F(TransformTools, ApplyCmvnErrorPaths) {
  ASSERT_EQ(Run("compute-cmvn-stats --spk2utt=ark:spk2utt ark:feats.txt "
                "ark:spk.ark").exit_status, 0);
  // An utterance missing from utt2spk is an error naming it.
  WriteFile(dir_.File("utt2spk_short"), "u1 s1\n");
  CommandResult r = Run("apply-cmvn --utt2spk=ark:utt2spk_short ark:spk.ark "
                        "ark:feats.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_LT(r.exit_status, 128);
  EXPECT_EQ(LastLine(r.err).rfind("ERROR (", 0), 0u) << r.err;
  EXPECT_NE(LastLine(r.err).find("u2"), std::string::npos) << r.err;
  // A speaker without stats: warning, the utterance is skipped.
  WriteFile(dir_.File("utt2spk_other"), "u1 s1\nu2 s9\n");
  r = Run("apply-cmvn --utt2spk=ark:utt2spk_other ark:spk.ark ark:feats.txt "
          "ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("WARNING"), std::string::npos);
  EXPECT_EQ(ReadFile(dir_.File("out.txt")).find("u2"), std::string::npos);
  // Stats of another dimension.
  WriteFile(dir_.File("wide.txt"), "u1  [\n  1 2 3 ]\n");
  r = Run("apply-cmvn ark:spk.ark ark:wide.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);  // no stats for key u1 (keys are speakers)
  r = Run("compute-cmvn-stats ark:wide.txt ark:wide_stats.ark && "
          "apply-cmvn ark:wide_stats.ark ark:feats.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_LT(r.exit_status, 128);
  EXPECT_NE(LastLine(r.err).find("u1"), std::string::npos) << r.err;
  EXPECT_NE(LastLine(r.err).find("mismatch"), std::string::npos) << r.err;
  r = Run("apply-cmvn --norm-means=false --norm-vars=true ark:spk.ark "
          "ark:feats.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);
  r = Run("apply-cmvn --skip-dims=0:x ark:spk.ark ark:feats.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(LastLine(r.err).find("skip-dims"), std::string::npos) << r.err;
}

TEST_F(TransformTools, ComputeCmvnStatsErrorPaths) {
  CommandResult r =
      Run("compute-cmvn-stats --spk2utt=ark:spk2utt ark:feats.txt out.mat");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(LastLine(r.err).find("--spk2utt"), std::string::npos) << r.err;
  // Weights of the wrong length: warning, utterance skipped.
  WriteFile(dir_.File("w.txt"), "u1  [ 1 1 1 1 ]\nu2  [ 1 1 ]\n");
  r = Run("compute-cmvn-stats --weights=ark:w.txt ark:feats.txt ark,t:o.txt");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("WARNING"), std::string::npos);
  std::string out = ReadFile(dir_.File("o.txt"));
  EXPECT_NE(out.find("u1"), std::string::npos);
  EXPECT_EQ(out.find("u2"), std::string::npos);
}

TEST_F(TransformTools, VadThenSelectVoicedFrames) {
  // Energies (column 0) of u1: 1 2 3 6, mean 3, threshold 6.5 -> none
  // voiced with the defaults; with threshold 0: above 1.5 -> 0 1 1 1.
  CommandResult r = Run("compute-vad --vad-energy-threshold=0 ark:feats.txt "
                        "ark,t:vad.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string vad = ReadFile(dir_.File("vad.txt"));
  EXPECT_EQ(vad.substr(0, vad.find('\n') + 1), "u1  [ 0 1 1 1 ]\n");
  r = Run("select-voiced-frames ark:feats.txt ark:vad.txt ark,t:sel.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string sel = ReadFile(dir_.File("sel.txt"));
  EXPECT_EQ(sel.substr(0, sel.find("u2")), "u1  [\n  2 20 \n  3 30 \n  6 0 ]\n");
  // Defaults: u1 and u2 entirely unvoiced; --omit-unvoiced-utts drops them.
  r = Run("compute-vad --omit-unvoiced-utts=true ark:feats.txt ark,t:none.txt");
  EXPECT_EQ(ReadFile(dir_.File("none.txt")), "");
  r = Run("compute-vad --vad-proportion-threshold=1.5 ark:feats.txt ark:-");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(LastLine(r.err).find("vad-proportion-threshold"),
            std::string::npos) << r.err;
  // A VAD vector of the wrong length: warning, skipped, nothing done -> 1.
  WriteFile(dir_.File("bad_vad.txt"), "u1  [ 1 1 ]\n");
  r = Run("select-voiced-frames ark:feats.txt ark:bad_vad.txt ark:/dev/null");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("WARNING"), std::string::npos);
}

TEST_F(TransformTools, DeltasSpliceSubsampleAndOptionErrors) {
  CommandResult r = Run("add-deltas --delta-order=1 ark:feats.txt ark,t:d.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string d = ReadFile(dir_.File("d.txt"));
  // u1 column 0 = 1 2 3 6: frame 0 delta = (1*(2-1) + 2*(3-1)) / 10 = 0.5.
  EXPECT_EQ(d.substr(0, d.find("\n  2 ")), "u1  [\n  1 10 0.5 5 ");
  r = Run("add-deltas --delta-window=0 ark:feats.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(LastLine(r.err).find("delta-window"), std::string::npos);
  r = Run("add-deltas --truncate=3 ark:feats.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);
  r = Run("splice-feats --left-context=1 --right-context=0 ark:feats.txt "
          "ark,t:s.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string s = ReadFile(dir_.File("s.txt"));
  EXPECT_EQ(s.substr(0, s.find("u2")),
            "u1  [\n  1 10 1 10 \n  1 10 2 20 \n  2 20 3 30 \n  3 30 6 0 ]\n");
  r = Run("splice-feats --left-context=-1 ark:feats.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);
  r = Run("subsample-feats --n=-2 ark:feats.txt ark:- | feat-to-len ark:- "
          "ark,t:-");
  EXPECT_EQ(r.out, "u1 8 \nu2 8 \n") << r.err;
  r = Run("subsample-feats --n=0 ark:feats.txt ark:/dev/null");
  EXPECT_NE(r.exit_status, 0);
  r = Run("subsample-feats --n=2 --offset=4 ark:feats.txt ark:/dev/null");
  EXPECT_EQ(r.exit_status, 1);  // no rows left for any utterance
}

TEST_F(TransformTools, PasteFeatsTablesAndFiles) {
  WriteFile(dir_.File("short.txt"), "u1  [\n  7 \n  8 \n  9 ]\n");
  CommandResult r = Run("paste-feats ark:feats.txt ark:short.txt ark:/dev/null");
  EXPECT_EQ(r.exit_status, 1);  // u1 too short, u2 missing
  EXPECT_NE(r.err.find("Missing utterance u2"), std::string::npos) << r.err;
  r = Run("paste-feats --length-tolerance=1 ark:feats.txt ark:short.txt "
          "ark,t:p.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_.File("p.txt")),
            "u1  [\n  1 10 7 \n  2 20 8 \n  3 30 9 ]\n");
  WriteFile(dir_.File("a.mat"), " [\n  1 2 \n  3 4 ]\n");
  WriteFile(dir_.File("b.mat"), " [\n  5 \n  6 ]\n");
  r = Run("paste-feats --binary=false a.mat b.mat c.mat");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_.File("c.mat")), " [\n  1 2 5 \n  3 4 6 ]\n");
  r = Run("paste-feats ark:feats.txt b.mat c.mat");
  EXPECT_NE(r.exit_status, 0);
}

TEST_F(TransformTools, ExtractFeatureSegments) {
  WriteFile(dir_.File("segments"),
            "seg1 u1 0.01 0.05\n"  // frames 1 .. 5 - 2 = 3
            "bad line\n"
            "seg2 u9 0 1\n");
  CommandResult r = Run("extract-feature-segments --min-segment-length=0 "
                        "ark:feats.txt segments ark,t:seg.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_.File("seg.txt")),
            "seg1  [\n  2 20 \n  3 30 ]\n");
  EXPECT_NE(r.err.find("Invalid line 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("u9"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
