// tests/cli/lda-cli-test.cc
// The LDA preconditioning stage of Kaldi's train_dnn.py / train_raw_dnn.py,
// replayed with the command lines those scripts issue (steps/libs/nnet3/
// train/common.py, compute_preconditioning_matrix, and the nnet3-init that
// adds the first layer) on small egs made by nnet3-get-egs from features
// and pdf alignments written here:
//   nnet3-init configs/init.config init.raw
//   nnet3-acc-lda-stats --rand-prune=4.0 init.raw "ark:egs.JOB.ark" JOB.lda_stats
//   sum-lda-accs lda_stats 1.lda_stats 2.lda_stats
//   nnet-get-feature-transform lda.mat lda_stats
//   nnet3-init --srand=-1 init.raw configs/final.config 0.raw
// Oracles: the class counts and sums of the stats against the spliced
// features and the alignment (computed here without pruning), the pruned
// counts being multiples of the threshold; the transform's shape and the
// zero mean it gives the training frames; the network's FixedAffineComponent
// holding lda.mat. Error paths give one ERROR line and exit status 1.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

const int kDim = 3, kPdfs = 5, kFrames = 24, kContext = 1;

class LdaCli : public ::testing::Test {
 protected:
  void SetUp() override {
    // Two "jobs" of two utterances each; utterance frames have a mean that
    // depends on the pdf, so the classes are separable.
    std::mt19937 gen(17);
    std::normal_distribution<double> g(0.0, 1.0);
    std::uniform_int_distribution<int> pdf(0, kPdfs - 1);
    for (int job = 1; job <= 2; job++) {
      std::ostringstream feats, ali;
      for (int u = 0; u < 2; u++) {
        std::string utt = "utt" + std::to_string(job) + std::to_string(u);
        std::vector<std::vector<double> > x(kFrames);
        std::vector<int> a(kFrames);
        feats << utt << "  [\n";
        ali << utt;
        for (int t = 0; t < kFrames; t++) {
          a[t] = pdf(gen);
          for (int d = 0; d < kDim; d++) {
            // Three decimals, so the text form is exact in float.
            double v = std::round((g(gen) + 1.5 * ((a[t] + d) % kPdfs)) * 1000) /
                       1000;
            x[t].push_back(v);
            feats << " " << v;
          }
          feats << (t + 1 == kFrames ? " ]\n" : "\n");
          ali << " " << a[t];
        }
        ali << "\n";
        feats_[utt] = x;
        ali_[utt] = a;
      }
      WriteFile(dir_.File("feats" + std::to_string(job) + ".txt"), feats.str());
      WriteFile(dir_.File("ali" + std::to_string(job) + ".txt"), ali.str());
    }
    RunCommand("mkdir -p configs", dir_.path());
    WriteFile(dir_.File("configs/init.config"),
              "input-node name=input dim=" + std::to_string(kDim) + "\n"
              "output-node name=output input=Append(Offset(input, -1), input, "
              "Offset(input, 1))\n");
    WriteFile(dir_.File("configs/final.config"),
              "component name=lda type=FixedAffineComponent "
              "matrix=configs/lda.mat\n"
              "component-node name=lda component=lda "
              "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
              "component name=affine1 type=NaturalGradientAffineComponent "
              "input-dim=9 output-dim=5\n"
              "component-node name=affine1 component=affine1 input=lda\n"
              "component name=output.log-softmax type=LogSoftmaxComponent "
              "dim=5\n"
              "component-node name=output.log-softmax "
              "component=output.log-softmax input=affine1\n"
              "output-node name=output input=output.log-softmax "
              "objective=linear\n");
    Run("nnet3-init configs/init.config init.raw");
    for (int job = 1; job <= 2; job++) {
      std::string j = std::to_string(job);
      // get_egs.sh's form: the alignment as posteriors through a pipe.
      Run("nnet3-get-egs --left-context=1 --right-context=1 --compress=true "
          "--num-pdfs=5 --num-frames=8 ark:feats" + j + ".txt "
          "\"ark,s,cs:ali-to-post ark:ali" + j + ".txt ark:- |\" "
          "ark:egs." + j + ".ark");
      // Uncompressed copies for the exact checks.
      Run("nnet3-get-egs --left-context=1 --right-context=1 --compress=false "
          "--num-pdfs=5 --num-frames=8 ark:feats" + j + ".txt "
          "\"ark,s,cs:ali-to-post ark:ali" + j + ".txt ark:- |\" "
          "ark:exact." + j + ".ark");
    }
  }
  CommandResult Run(const std::string &command) {
    CommandResult r = RunCommand(command, dir_.path());
    EXPECT_EQ(r.exit_status, 0) << command << "\n" << r.err;
    return r;
  }
  void ExpectError(const std::string &command, const std::string &fragment) {
    ExpectOneErrorLine(command, dir_.path(), fragment);
  }
  // The spliced frame (t-1, t, t+1, edges repeated) of an utterance.
  std::vector<double> Spliced(const std::string &utt, int t) {
    std::vector<double> v;
    for (int o = -kContext; o <= kContext; o++) {
      int s = std::min(std::max(t + o, 0), kFrames - 1);
      for (double x : feats_[utt][s]) v.push_back(x);
    }
    return v;
  }
  std::map<std::string, std::vector<std::vector<double> > > feats_;
  std::map<std::string, std::vector<int> > ali_;
  TempDir dir_;
};

TEST_F(LdaCli, UnprunedStatsMatchTheFramesAndAlignment) {
  Run("nnet3-acc-lda-stats init.raw ark:exact.1.ark 1.lda_stats");
  Run("nnet3-acc-lda-stats init.raw ark:exact.2.ark 2.lda_stats");
  Run("sum-lda-accs --binary=false lda_stats.txt 1.lda_stats 2.lda_stats");
  std::string text = ReadFile(dir_.File("lda_stats.txt"));
  EXPECT_EQ(text.rfind("<LDAACCS> <VECSIZE> 9 <NUMCLASSES> 5 ", 0), 0u);
  std::vector<double> zero = NumbersAfter(text, "<ZERO_ACCS>"),
                      first = NumbersAfter(text, "<FIRST_ACCS>");
  ASSERT_EQ(zero.size(), 5u);
  ASSERT_EQ(first.size(), 45u);
  std::vector<double> want_zero(5, 0.0), want_first(45, 0.0);
  for (const auto &kv : ali_)
    for (int t = 0; t < kFrames; t++) {
      int c = kv.second[t];
      want_zero[c] += 1.0;
      std::vector<double> x = Spliced(kv.first, t);
      for (int d = 0; d < 9; d++) want_first[c * 9 + d] += x[d];
    }
  for (int c = 0; c < 5; c++) EXPECT_NEAR(zero[c], want_zero[c], 1e-4);
  for (int i = 0; i < 45; i++) EXPECT_NEAR(first[i], want_first[i], 1e-3) << i;
}

TEST_F(LdaCli, TrainDnnPreconditioningStage) {
  for (int job = 1; job <= 2; job++) {
    std::string j = std::to_string(job);
    CommandResult r = Run("nnet3-acc-lda-stats --rand-prune=4.0 init.raw "
                          "\"ark:egs." + j + ".ark\" " + j + ".lda_stats");
    EXPECT_NE(r.err.find("Processed 6 examples"), std::string::npos) << r.err;
  }
  Run("sum-lda-accs lda_stats 1.lda_stats 2.lda_stats");
  Run("nnet-get-feature-transform lda.mat lda_stats");
  Run("ln -sf ../lda.mat configs/lda.mat");
  // Pruned with threshold 4, every one-hot posterior becomes 0 or 4.
  Run("sum-lda-accs --binary=false pruned.txt lda_stats");
  std::vector<double> zero =
      NumbersAfter(ReadFile(dir_.File("pruned.txt")), "<ZERO_ACCS>");
  double total = 0.0;
  for (double z : zero) {
    EXPECT_EQ(std::fmod(z, 4.0), 0.0) << z;
    total += z;
  }
  EXPECT_GT(total, 0.0);
  // The transform: 9 x 10 (offset column), finite.
  std::string mat = Run("copy-matrix --binary=false lda.mat -").out;
  std::istringstream is(mat);
  std::string tok;
  is >> tok;
  ASSERT_EQ(tok, "[");
  std::vector<std::vector<double> > a;
  std::string line;
  std::getline(is, line);
  while (std::getline(is, line)) {
    std::istringstream ls(line);
    std::vector<double> row;
    while (ls >> tok && tok != "]") row.push_back(std::stod(tok));
    if (!row.empty()) a.push_back(row);
  }
  ASSERT_EQ(a.size(), 9u);
  for (const auto &row : a) {
    ASSERT_EQ(row.size(), 10u);
    for (double v : row) EXPECT_TRUE(std::isfinite(v));
  }
  // Without pruning the stats are exact, and the offset column makes the
  // transformed training frames zero-mean.
  Run("nnet3-acc-lda-stats init.raw ark:exact.1.ark 1.exact");
  Run("nnet3-acc-lda-stats init.raw ark:exact.2.ark 2.exact");
  Run("sum-lda-accs exact 1.exact 2.exact");
  Run("nnet-get-feature-transform --binary=false exact.mat exact");
  std::istringstream es(ReadFile(dir_.File("exact.mat")));
  es >> tok;
  std::vector<std::vector<double> > e;
  std::getline(es, line);
  while (std::getline(es, line)) {
    std::istringstream ls(line);
    std::vector<double> row;
    while (ls >> tok && tok != "]") row.push_back(std::stod(tok));
    if (!row.empty()) e.push_back(row);
  }
  ASSERT_EQ(e.size(), 9u);
  std::vector<double> mean(9, 0.0);
  int n = 0;
  for (const auto &kv : feats_)
    for (int t = 0; t < kFrames; t++, n++) {
      std::vector<double> x = Spliced(kv.first, t);
      for (int r = 0; r < 9; r++) {
        double y = e[r][9];
        for (int d = 0; d < 9; d++) y += e[r][d] * x[d];
        mean[r] += y;
      }
    }
  for (int r = 0; r < 9; r++) EXPECT_NEAR(mean[r] / n, 0.0, 0.02) << r;

  // The first layer goes in with the matrix.
  Run("nnet3-init --srand=-1 init.raw configs/final.config 0.raw");
  std::string info = Run("nnet3-info 0.raw").out;
  EXPECT_NE(info.find("component name=lda type=FixedAffineComponent, "
                      "input-dim=9, output-dim=9"),
            std::string::npos)
      << info;
}

TEST_F(LdaCli, TextAndBinaryStatsAgree) {
  Run("nnet3-acc-lda-stats init.raw ark:egs.1.ark 1.lda_stats");
  Run("nnet3-acc-lda-stats --binary=false init.raw ark:egs.2.ark 2.txt");
  Run("sum-lda-accs --binary=false all.txt 1.lda_stats 2.txt");
  Run("sum-lda-accs all.bin 1.lda_stats 2.txt");
  Run("sum-lda-accs --binary=false from-txt.txt all.txt");
  Run("sum-lda-accs --binary=false from-bin.txt all.bin");
  // The same float values, read back from text (7 digits) or binary.
  std::istringstream a(ReadFile(dir_.File("from-txt.txt"))),
      b(ReadFile(dir_.File("from-bin.txt")));
  std::string ta, tb;
  int compared = 0;
  while (a >> ta && b >> tb) {
    if (ta[0] == '<' || ta == "[" || ta == "]") {
      EXPECT_EQ(ta, tb);
      continue;
    }
    EXPECT_NEAR(std::stod(ta), std::stod(tb),
                1e-5 * (1 + std::abs(std::stod(ta))));
    compared++;
  }
  EXPECT_EQ(compared, 2 + 5 + 45 + 45);  // sizes, counts, sums, scatter
  Run("nnet-get-feature-transform a.mat all.txt");
  // --dim keeps fewer rows; --remove-offset=false drops the column.
  Run("nnet-get-feature-transform --dim=4 --remove-offset=false "
      "--binary=false c.mat all.bin");
  std::string c = ReadFile(dir_.File("c.mat"));
  std::istringstream cs(c);
  std::string line;
  int rows = 0;
  std::getline(cs, line);
  while (std::getline(cs, line)) {
    std::istringstream ls(line);
    std::string tok;
    int cols = 0;
    while (ls >> tok && tok != "]") cols++;
    if (cols > 0) {
      EXPECT_EQ(cols, 9);
      rows++;
    }
  }
  EXPECT_EQ(rows, 4);
}

TEST_F(LdaCli, Errors) {
  Run("nnet3-acc-lda-stats init.raw ark:egs.1.ark 1.lda_stats");
  // Stats of another dimension: a network with a 6-dim output.
  WriteFile(dir_.File("other.config"),
            "input-node name=input dim=3\n"
            "output-node name=output input=Append(input, Offset(input, 1))\n");
  Run("nnet3-init other.config other.raw");
  Run("nnet3-acc-lda-stats other.raw ark:egs.1.ark other.lda_stats");
  ExpectError("sum-lda-accs sum 1.lda_stats other.lda_stats",
              "other.lda_stats");
  ExpectError("nnet-get-feature-transform --dim=10 m 1.lda_stats",
              "--dim=10");
  ExpectError("nnet-get-feature-transform m no-such-file", "no-such-file");
  WriteFile(dir_.File("garbage"), "<LDAACCS> <VECSIZE> 2 <NUMCLASSES> x");
  ExpectError("sum-lda-accs sum garbage", "garbage");
  // No egs: no stats.
  ExpectError("nnet3-acc-lda-stats init.raw ark:/dev/null s", "no stats");
  // A network without an 'output' node.
  WriteFile(dir_.File("noout.config"),
            "input-node name=input dim=3\n"
            "output-node name=other input=input\n");
  Run("nnet3-init noout.config noout.raw");
  ExpectError("nnet3-acc-lda-stats noout.raw ark:egs.1.ark s",
              "no output node named 'output'");
  // Egs whose input does not fit the network.
  WriteFile(dir_.File("wide.config"),
            "input-node name=input dim=4\n"
            "output-node name=output input=input\n");
  Run("nnet3-init wide.config wide.raw");
  ExpectError("nnet3-acc-lda-stats wide.raw ark:egs.1.ark s", "Example ");
  ExpectError("nnet3-acc-lda-stats --rand-prune=-1 init.raw ark:egs.1.ark s",
              "--rand-prune");
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
