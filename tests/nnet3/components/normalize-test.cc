// tests/nnet3/components/normalize-test.cc
// NormalizeComponent, BatchNormComponent and DropoutComponent against naive
// double-precision formulas; BatchNorm statistics and test mode; the spans
// of Kaldi's reference files (including a BatchNorm with count 64) read and
// written back byte-identically.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "common/testing.h"
#include "component-test-util.h"
#include "nnet3/components/normalize.h"

namespace nnet3 {
namespace testing {
namespace {

template <class C>
std::unique_ptr<C> Init(const std::string &line) {
  std::unique_ptr<C> c(new C());
  ConfigLine cfl;
  EXPECT_TRUE(cfl.ParseLine(line));
  c->InitFromConfig(&cfl);
  return c;
}

TEST(Normalize, MatchesNaiveFormulaWithBlocksAndLogStddev) {
  auto c = Init<NormalizeComponent>(
      "input-dim=6 block-dim=3 target-rms=0.5 add-log-stddev=true");
  ASSERT_EQ(c->OutputDim(), 8);
  RandomSource rs(3);
  Matrix<BaseFloat> in = RandMat(4, 6, &rs);
  Matrix<BaseFloat> out = Forward(*c, in);
  for (int r = 0; r < 4; r++) {
    for (int b = 0; b < 2; b++) {
      double sumsq = 0;
      for (int j = 0; j < 3; j++) sumsq += double(in(r, 3 * b + j)) * in(r, 3 * b + j);
      double scale = 0.5 * std::sqrt(3.0 / sumsq);
      for (int j = 0; j < 3; j++)
        EXPECT_NEAR(out(r, 4 * b + j), in(r, 3 * b + j) * scale, 1e-5);
      // log of the block's standard deviation (RMS)
      EXPECT_NEAR(out(r, 4 * b + 3), 0.5 * std::log(sumsq / 3.0), 1e-5);
    }
  }
}

TEST(Normalize, ZeroInputStaysFinite) {
  auto c = Init<NormalizeComponent>("dim=4");
  Matrix<BaseFloat> in = NewMat(2, 4);
  Matrix<BaseFloat> out = Forward(*c, in);
  EXPECT_TRUE(out.IsFinite());
  EXPECT_TRUE(out.IsZero(0.0));
}

// Per block-column (column j shares statistics with j + block, j + 2 block).
void NaiveBatchNorm(const MatrixBase<BaseFloat> &in, int block, double eps,
                    double rms, std::vector<double> *mean,
                    std::vector<double> *var, Matrix<double> *out) {
  int ratio = in.NumCols() / block;
  mean->assign(block, 0.0);
  var->assign(block, 0.0);
  double n = in.NumRows() * ratio;
  for (int r = 0; r < in.NumRows(); r++)
    for (int c = 0; c < in.NumCols(); c++) (*mean)[c % block] += in(r, c) / n;
  for (int r = 0; r < in.NumRows(); r++)
    for (int c = 0; c < in.NumCols(); c++) {
      double d = in(r, c) - (*mean)[c % block];
      (*var)[c % block] += d * d / n;
    }
  out->Resize(in.NumRows(), in.NumCols());
  for (int r = 0; r < in.NumRows(); r++)
    for (int c = 0; c < in.NumCols(); c++)
      (*out)(r, c) = (in(r, c) - (*mean)[c % block]) * rms /
                     std::sqrt((*var)[c % block] + eps);
}

TEST(BatchNorm, TrainingModeUsesMinibatchStatisticsAndStoresThem) {
  auto c = Init<BatchNormComponent>("dim=6 block-dim=3 epsilon=0.01 target-rms=1.5");
  RandomSource rs(7);
  Matrix<BaseFloat> in = RandMat(10, 6, &rs);
  in.Add(2.0);
  Matrix<BaseFloat> out = NewMat(10, 6);
  void *memo = c->Propagate(nullptr, in, &out);
  std::vector<double> mean, var;
  Matrix<double> want;
  NaiveBatchNorm(in, 3, 0.01, 1.5, &mean, &var, &want);
  for (int r = 0; r < 10; r++)
    for (int k = 0; k < 6; k++) EXPECT_NEAR(out(r, k), want(r, k), 1e-4);
  c->StoreStats(in, out, memo);
  c->DeleteMemo(memo);
  EXPECT_EQ(c->Count(), 20.0);
  // Test mode now uses the stored statistics: the same transform.
  c->SetTestMode(true);
  Matrix<BaseFloat> out2 = Forward(*c, in);
  for (int r = 0; r < 10; r++)
    for (int k = 0; k < 6; k++) EXPECT_NEAR(out2(r, k), want(r, k), 1e-4);
  // The file holds the count, mean and variance.
  std::ostringstream os;
  os.precision(7);
  c->Write(os, false);
  std::istringstream is(os.str().substr(os.str().find("<StatsMean>") + 12));
  Vector<double> file_mean, file_var;
  file_mean.Read(is, false);
  std::string tok;
  is >> tok;
  EXPECT_EQ(tok, "<StatsVar>");
  file_var.Read(is, false);
  for (int j = 0; j < 3; j++) {
    EXPECT_NEAR(file_mean(j), mean[j], 1e-5);
    EXPECT_NEAR(file_var(j), var[j], 1e-4);
  }
}

TEST(BatchNorm, ScaleAndZeroStats) {
  auto c = Init<BatchNormComponent>("dim=3");
  RandomSource rs(9);
  Matrix<BaseFloat> in = RandMat(5, 3, &rs), out = NewMat(5, 3);
  void *memo = c->Propagate(nullptr, in, &out);
  c->StoreStats(in, out, memo);
  c->DeleteMemo(memo);
  c->Scale(0.5);
  EXPECT_EQ(c->Count(), 2.5);
  c->ZeroStats();
  EXPECT_EQ(c->Count(), 0.0);
}

TEST(BatchNorm, TestModeWithoutStatisticsWarnsAndStillWorks) {
  auto c = Init<BatchNormComponent>("dim=3");
  c->SetTestMode(true);
  RandomSource rs(1);
  EXPECT_TRUE(Forward(*c, RandMat(2, 3, &rs)).IsFinite());
}

TEST(Dropout, TestModeScalesAndTrainingModeMasks) {
  auto c = Init<DropoutComponent>("dim=50 dropout-proportion=0.25");
  RandomSource rs(11);
  Matrix<BaseFloat> in = RandMat(400, 50, &rs);
  Matrix<BaseFloat> out = Forward(*c, in);
  int zeros = 0;
  for (int r = 0; r < 400; r++)
    for (int k = 0; k < 50; k++) {
      if (out(r, k) == 0.0f) zeros++;
      else EXPECT_EQ(out(r, k), in(r, k));
    }
  EXPECT_NEAR(zeros / 20000.0, 0.25, 0.02);
  c->SetTestMode(true);
  Matrix<BaseFloat> t = Forward(*c, in);
  for (int k = 0; k < 50; k++) EXPECT_FLOAT_EQ(t(3, k), 0.75f * in(3, k));
}

TEST(Dropout, PerFrameDropsWholeRows) {
  auto c = Init<DropoutComponent>("dim=8 dropout-proportion=0.5 dropout-per-frame=true");
  RandomSource rs(12);
  Matrix<BaseFloat> in = RandMat(200, 8, &rs);
  Matrix<BaseFloat> out = Forward(*c, in);
  int dropped = 0;
  for (int r = 0; r < 200; r++) {
    bool zero = out(r, 0) == 0.0f;
    dropped += zero;
    for (int k = 0; k < 8; k++) EXPECT_EQ(out(r, k), zero ? 0.0f : in(r, k));
  }
  EXPECT_GT(dropped, 60);
  EXPECT_LT(dropped, 140);
}

TEST(NormalizeFamily, KaldiSpansRoundTripExactly) {
  int n = 0;
  for (const char *type : {"NormalizeComponent", "BatchNormComponent", "DropoutComponent"}) {
    std::vector<std::string> spans = ReferenceSpans(type);
    // A BatchNorm with statistics (count 64) from the compute models.
    if (std::string(type) == "BatchNormComponent") {
      std::string text = ReadFile(DataDir() + "/kaldi/compute/models/components_b.txt");
      size_t a = text.find("<BatchNormComponent> "), b = text.find("</BatchNormComponent> ");
      ASSERT_NE(a, std::string::npos);
      spans.push_back(text.substr(a, b + 22 - a));
      ASSERT_NE(spans.back().find("<Count> 64 "), std::string::npos);
    }
    for (const std::string &span : spans) {
      std::unique_ptr<Component> c(Component::NewComponentOfType(type));
      std::istringstream is(span);
      c->Read(is, false);
      EXPECT_EQ(FirstDifference(WriteToString(*c, false), span), "") << type;
      n++;
    }
  }
  EXPECT_GE(n, 6);
}

TEST(NormalizeFamily, ConfigErrors) {
  EXPECT_THROW(Init<NormalizeComponent>("dim=6 block-dim=4"), UserError);
  EXPECT_THROW(Init<BatchNormComponent>("block-dim=3"), UserError);
  EXPECT_THROW(Init<DropoutComponent>("dim=3 dropout-proportion=1.5"), UserError);
  try {
    Init<DropoutComponent>("dim=3 colour=red");
    FAIL();
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("colour=red"), std::string::npos);
  }
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
