// tests/hmm/am-tools-test.cc
// The acoustic-model tools through the shell, on Kaldi's monophone model
// (tests/data/kaldi/am/final.mdl) and hand-built alignments. The oracle is
// a transition-id table derived here straight from the text of
// final.mdl.txt (tuples in order, one id per <Transition> of the tuple's
// HMM state), not from the code under test. Covered: ali-to-pdf,
// ali-to-phones (all output forms), nnet3-am-train-transitions (priors and
// updated probabilities against the formula), nnet3-am-adjust-priors, and
// the error paths (one ERROR line, exit status 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "common/testing.h"
#include "common/transition-table.h"

namespace nnet3 {
namespace testing {
namespace {

std::string Am() { return KaldiAmDir(); }

class AmToolsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    tids_ = TidTable();
    ASSERT_EQ(tids_.size(), 43u);  // 42 transition-ids, as hmm-info says
    auto t = [this](int phone, int state, int dst) {
      return FindTid(tids_, phone, state, dst);
    };
    // utt1: phone 2 (3 states), silence (phone 1, 5 states), phone 5;
    // utt2: phone 3.
    ali_["utt1"] = {t(2, 0, 0), t(2, 0, 0), t(2, 0, 1), t(2, 1, 2),
                    t(2, 2, 2), t(2, 2, 3), t(1, 0, 1), t(1, 1, 4),
                    t(1, 4, 4), t(1, 4, 5), t(5, 0, 1), t(5, 1, 2),
                    t(5, 2, 3)};
    ali_["utt2"] = {t(3, 0, 0), t(3, 0, 1), t(3, 1, 2), t(3, 2, 3)};
    segments_["utt1"] = {{2, 6}, {1, 4}, {5, 3}};
    segments_["utt2"] = {{3, 4}};
    std::string text;
    for (const auto &kv : ali_) {
      text += kv.first;
      for (int tid : kv.second) text += " " + std::to_string(tid);
      text += "\n";
    }
    WriteFile(dir_.File("ali.txt"), text);
  }
  CommandResult Run(const std::string &command) {
    CommandResult r = RunCommand(command, dir_.path());
    EXPECT_EQ(r.exit_status, 0) << command << "\n" << r.err;
    return r;
  }
  void ExpectError(const std::string &command, const std::string &fragment) {
    ExpectOneErrorLine(command, dir_.path(), fragment);
  }
  std::vector<Tid> tids_;
  std::map<std::string, std::vector<int> > ali_;
  std::map<std::string, std::vector<std::pair<int, int> > > segments_;
  TempDir dir_;
};

TEST_F(AmToolsCli, AliToPdfMapsEveryFrame) {
  std::string expected;
  for (const auto &kv : ali_) {
    expected += kv.first;
    for (int tid : kv.second) expected += " " + std::to_string(tids_[tid].pdf);
    expected += " \n";
  }
  EXPECT_EQ(Run("ali-to-pdf " + Am() + "/final.mdl ark:ali.txt ark,t:-").out,
            expected);
  EXPECT_EQ(Run("ali-to-pdf " + Am() + "/final.mdl.txt ark:ali.txt ark,t:-").out,
            expected);
}

TEST_F(AmToolsCli, AliToPhonesAllForms) {
  const std::string mdl = Am() + "/final.mdl";
  std::string seq, per_frame, lengths, ctm;
  for (const auto &kv : segments_) {
    seq += kv.first;
    per_frame += kv.first;
    lengths += kv.first;
    double start = 0;
    for (size_t i = 0; i < kv.second.size(); i++) {
      int phone = kv.second[i].first, n = kv.second[i].second;
      seq += " " + std::to_string(phone);
      for (int k = 0; k < n; k++) per_frame += " " + std::to_string(phone);
      lengths += std::string(i ? " ;" : "") + " " + std::to_string(phone) +
                 " " + std::to_string(n);
      // Three decimals: Kaldi picks two only for a frame shift >= 0.01,
      // and its default, the float 0.01f, is just below the double 0.01.
      char line[200];
      snprintf(line, sizeof(line), "%s 1 %.3f %.3f %d\n", kv.first.c_str(),
               start, 0.01 * n, phone);
      ctm += line;
      start += 0.01 * n;
    }
    seq += " \n";
    per_frame += " \n";
    lengths += " \n";
  }
  EXPECT_EQ(Run("ali-to-phones " + mdl + " ark:ali.txt ark,t:-").out, seq);
  EXPECT_EQ(Run("ali-to-phones --per-frame " + mdl + " ark:ali.txt ark,t:-").out,
            per_frame);
  EXPECT_EQ(
      Run("ali-to-phones --write-lengths " + mdl + " ark:ali.txt ark,t:-").out,
      lengths);
  EXPECT_EQ(Run("ali-to-phones --ctm-output " + mdl + " ark:ali.txt -").out,
            ctm);
  ExpectError("ali-to-phones --per-frame --write-lengths " + mdl +
                  " ark:ali.txt ark,t:-",
              "cannot be used together");
}

// post-to-tacc: counts per transition-id, and per pdf-id with Kaldi's
// loop that stops before the last transition-id (so a posterior on
// transition-id 42 is counted per transition-id but not per pdf).
TEST_F(AmToolsCli, PostToTaccSumsThePosteriors) {
  std::string post = "utt1 [ 3 0.5 42 0.25 ] [ 3 1 ] [ 7 0.75 ]\n"
                     "utt2 [ 42 1 ] [ 1 2 ]\n";
  WriteFile(dir_.File("post.txt"), post);
  std::vector<double> tid(43, 0.0), pdf(17, 0.0);
  tid[3] = 1.5;
  tid[42] = 1.25;
  tid[7] = 0.75;
  tid[1] = 2;
  for (int t = 1; t < 42; t++) pdf[tids_[t].pdf] += tid[t];
  std::string out = Run("post-to-tacc --binary=false " + Am() +
                        "/final.mdl ark:post.txt -").out;
  std::vector<double> got = NumbersAfter(out, "");
  ASSERT_EQ(got.size(), tid.size()) << out;
  for (size_t i = 0; i < tid.size(); i++) EXPECT_EQ(got[i], tid[i]) << i;
  out = Run("post-to-tacc --binary=false --per-pdf=true " + Am() +
            "/final.mdl ark:post.txt -").out;
  got = NumbersAfter(out, "");
  ASSERT_EQ(got.size(), pdf.size()) << out;
  for (size_t i = 0; i < pdf.size(); i++) EXPECT_EQ(got[i], pdf[i]) << i;
  // Binary output reads back the same.
  Run("post-to-tacc --per-pdf=true " + Am() + "/final.mdl ark:post.txt p.acc");
  EXPECT_EQ(Run("copy-vector --binary=false p.acc -").out,
            Run("post-to-tacc --binary=false --per-pdf=true " + Am() +
                "/final.mdl ark:post.txt -").out);
  WriteFile(dir_.File("bad.txt"), "utt1 [ 43 1 ]\n");
  ExpectError("post-to-tacc " + Am() + "/final.mdl ark:bad.txt x.acc",
              "Invalid transition-id 43");
}

TEST_F(AmToolsCli, TrainTransitionsFollowsTheFormula) {
  Run("nnet3-am-train-transitions --transition-min-count=1 " + Am() +
      "/final.mdl ark:ali.txt out.mdl");
  std::string text = Run("nnet3-am-copy --binary=false out.mdl -").out;
  std::vector<double> counts(43, 0.0), pdf_counts(17, 0.0);
  for (const auto &kv : ali_)
    for (int tid : kv.second) {
      counts[tid] += 1;
      pdf_counts[tids_[tid].pdf] += 1;
    }
  // Priors: normalized pdf counts, floored at 5e-6, normalized again.
  double total = 0, floored_total = 0;
  for (double c : pdf_counts) total += c;
  for (double &c : pdf_counts) floored_total += (c = std::max(c / total, 5e-6));
  std::vector<double> priors = NumbersAfter(text, "<Priors>");
  ASSERT_EQ(priors.size(), 17u);
  for (int p = 0; p < 17; p++)
    EXPECT_NEAR(priors[p], pdf_counts[p] / floored_total, 1e-6) << p;
  // Transition probabilities: per transition-state (consecutive ids of the
  // same phone and state) with a count: normalized counts, floored at 0.01
  // and renormalized three times; unseen states keep their values.
  std::vector<double> old_lp = NumbersAfter(ReadFile(Am() + "/final.mdl.txt"),
                                           "<LogProbs>");
  std::vector<double> new_lp = NumbersAfter(text, "<LogProbs>");
  ASSERT_EQ(new_lp.size(), 43u);
  for (size_t b = 1; b < 43;) {
    size_t e = b;
    while (e < 43 && tids_[e].phone == tids_[b].phone &&
           tids_[e].hmm_state == tids_[b].hmm_state &&
           tids_[e].pdf == tids_[b].pdf)
      e++;
    double sum = 0;
    for (size_t t = b; t < e; t++) sum += counts[t];
    std::vector<double> p;
    for (size_t t = b; t < e; t++) p.push_back(sum > 0 ? counts[t] / sum : 0);
    for (int round = 0; round < 3 && sum > 0; round++) {
      double s = 0;
      for (double x : p) s += x;
      for (double &x : p) x = std::max(x / s, 0.01);
    }
    for (size_t t = b; t < e; t++) {
      double expected = (sum >= 1 && e - b > 1) ? std::log(p[t - b]) : old_lp[t];
      EXPECT_NEAR(new_lp[t], expected, 1e-5) << "transition-id " << t;
    }
    b = e;
  }
}

TEST_F(AmToolsCli, AdjustPriorsNormalizesThePosteriors) {
  std::string vec = "[";
  for (int i = 1; i <= 17; i++) vec += " " + std::to_string(i);
  WriteFile(dir_.File("post.vec"), vec + " ]\n");
  Run("nnet3-am-adjust-priors " + Am() + "/final.mdl post.vec out.mdl");
  std::string text = Run("nnet3-am-copy --binary=false out.mdl -").out;
  std::vector<double> priors = NumbersAfter(text, "<Priors>");
  ASSERT_EQ(priors.size(), 17u);
  for (int i = 0; i < 17; i++) EXPECT_NEAR(priors[i], (i + 1) / 153.0, 1e-7);
  std::string info = Run("nnet3-am-info out.mdl").out;
  EXPECT_NE(info.find("prior-dimension: 17\nprior-sum: 1\n"), std::string::npos)
      << info;
  // A second adjustment starts from these priors.
  Run("nnet3-am-adjust-priors out.mdl post.vec out2.mdl");
  WriteFile(dir_.File("short.vec"), "[ 1 2 3 ]\n");
  ExpectError("nnet3-am-adjust-priors out.mdl short.vec x.mdl",
              "has dimension 3 but the model has 17 pdfs");
}

TEST_F(AmToolsCli, BadModelsGiveOneErrorLine) {
  const std::string am = Am();
  Run("head -c 600 " + am + "/final.mdl > truncated.mdl");
  ExpectError("nnet3-am-info truncated.mdl", "truncated.mdl");
  ExpectError("ali-to-pdf truncated.mdl ark:ali.txt ark,t:-", "truncated.mdl");
  Run("head -c 4000 " + am + "/final.mdl > truncated2.mdl");
  ExpectError("nnet3-am-copy truncated2.mdl x.mdl", "truncated2.mdl");
  Run("sed 's/<Triples>/<Triplez>/' " + am + "/final.mdl.txt > token.mdl");
  ExpectError("nnet3-am-info token.mdl", "<Triplez>");
  ExpectError("hmm-info token.mdl", "<Triplez>");
  // A network with 16 outputs for a transition model with 17 pdfs.
  Run("sed 's/output-dim=17/output-dim=16/; s/dim=17/dim=16/' " + am +
      "/nnet.config > n16.config && nnet3-init n16.config n16.raw");
  ExpectError("nnet3-am-init " + am + "/final.mdl n16.raw x.mdl",
              "17 pdfs but the network's output has dimension 16");
  Run("nnet3-copy --binary=false n16.raw n16.txt");
  Run("sed -n '1,/<\\/TransitionModel>/p' " + am +
      "/final.mdl.txt > mismatch.mdl && cat n16.txt >> mismatch.mdl && "
      "printf ' <LeftContext> 1 <RightContext> 1 <Priors>  [ ]\\n' >> "
      "mismatch.mdl");
  ExpectError("nnet3-am-info mismatch.mdl",
              "17 pdfs but the network's output has dimension 16");
  ExpectError("nnet3-am-copy mismatch.mdl x.mdl", "mismatch.mdl");
  // Alignments with a transition-id the model does not have.
  WriteFile(dir_.File("bad.ali"), "uttX 1 2 99\n");
  ExpectError("ali-to-pdf " + am + "/final.mdl ark:bad.ali ark,t:-", "uttX");
  ExpectError("ali-to-phones " + am + "/final.mdl ark:bad.ali ark,t:-",
              "Transition-id 99 is out of range");
  ExpectError("nnet3-am-train-transitions " + am +
                  "/final.mdl ark:bad.ali x.mdl",
              "Transition-id 99");
  ExpectError("tree-info " + am + "/final.mdl", "ContextDependency");
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
