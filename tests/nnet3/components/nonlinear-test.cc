// tests/nnet3/components/nonlinear-test.cc
// Sigmoid, Tanh, RectifiedLinear, Softmax and LogSoftmax components:
// forward pass against naive formulas, input derivatives against finite
// differences, property flags, statistics and self-repair against naive
// re-computations, I/O round trips and Kaldi's reference spans (text and
// binary, byte for byte), nnet3-info lines, config handling.
#include "nnet3/components/nonlinear.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "common/testing.h"
#include "nnet3/components/component-test-util.h"

namespace nnet3 {
namespace {

using testing::ConfigError;
using testing::Contig;
using testing::FromConfig;
using testing::ReadFile;
using testing::MatDot;
using testing::NewMat;
using testing::RandMat;

const char *kTypes[] = {"SigmoidComponent", "TanhComponent",
                        "RectifiedLinearComponent", "SoftmaxComponent",
                        "LogSoftmaxComponent"};

// The naive value of each nonlinearity at x (row-wise for the softmaxes).
Matrix<BaseFloat> Naive(const std::string &type, const Matrix<BaseFloat> &in) {
  Matrix<BaseFloat> out(in.NumRows(), in.NumCols());
  for (int32 r = 0; r < in.NumRows(); r++) {
    double max = -1e30, sum = 0.0;
    for (int32 c = 0; c < in.NumCols(); c++) max = std::max(max, double(in(r, c)));
    for (int32 c = 0; c < in.NumCols(); c++) sum += std::exp(in(r, c) - max);
    for (int32 c = 0; c < in.NumCols(); c++) {
      double x = in(r, c), y;
      if (type == "SigmoidComponent") y = 1.0 / (1.0 + std::exp(-x));
      else if (type == "TanhComponent") y = std::tanh(x);
      else if (type == "RectifiedLinearComponent") y = (x > 0 ? x : 0.0);
      else if (type == "SoftmaxComponent") y = std::exp(x - max) / sum;
      else y = x - max - std::log(sum);
      out(r, c) = static_cast<BaseFloat>(y);
    }
  }
  return out;
}

// Input derivative against central differences of sum(out .* R), along
// random directions, at input 'in'.
void CheckInputDerivative(const Component &c,
                          const CuMatrixBase<BaseFloat> &in,
                          RandomSource *rs) {
  CuMatrix<BaseFloat> out = testing::Forward(c, in);
  CuMatrix<BaseFloat> out_deriv = RandMat(in.NumRows(), c.OutputDim(), rs);
  CuMatrix<BaseFloat> in_deriv = NewMat(in.NumRows(), c.InputDim());
  CuMatrix<BaseFloat> empty;
  int32 props = c.Properties();
  c.Backprop("", nullptr, (props & kBackpropNeedsInput) ? in : empty,
             (props & kBackpropNeedsOutput) ? out : empty, out_deriv, nullptr,
             nullptr, &in_deriv);
  const BaseFloat eps = 1e-3;
  for (int32 t = 0; t < 3; t++) {
    CuMatrix<BaseFloat> dir = RandMat(in.NumRows(), c.InputDim(), rs);
    CuMatrix<BaseFloat> plus = Contig(in), minus = Contig(in);
    plus.AddMat(eps, dir);
    minus.AddMat(-eps, dir);
    double numeric = (MatDot(testing::Forward(c, plus), out_deriv) -
                      MatDot(testing::Forward(c, minus), out_deriv)) /
                     (2 * eps);
    double analytic = MatDot(in_deriv, dir);
    EXPECT_NEAR(numeric, analytic, 5e-3 * (1.0 + std::fabs(numeric)))
        << c.Type();
  }
}

TEST(NonlinearTest, PropagateMatchesNaiveFormulas) {
  RandomSource rs(1);
  for (const char *type : kTypes) {
    std::unique_ptr<Component> c = FromConfig(type, "dim=7");
    CuMatrix<BaseFloat> in = RandMat(5, 7, &rs);
    in.Scale(3.0);
    Matrix<BaseFloat> out = ToHost(testing::Forward(*c, in));
    Matrix<BaseFloat> ref = Naive(type, ToHost(in));
    for (int32 r = 0; r < 5; r++)
      for (int32 j = 0; j < 7; j++)
        EXPECT_NEAR(out(r, j), ref(r, j), 1e-5 * (1 + std::fabs(ref(r, j))))
            << type;
  }
  // Softmax outputs are floored at 1e-20.
  std::unique_ptr<Component> sm = FromConfig("SoftmaxComponent", "dim=2");
  Matrix<BaseFloat> in(1, 2);
  in(0, 0) = 0.0;
  in(0, 1) = 200.0;
  Matrix<BaseFloat> out = ToHost(testing::Forward(*sm, in));
  EXPECT_EQ(out(0, 0), BaseFloat(1.0e-20));
}

TEST(NonlinearTest, DerivativesAndFlags) {
  RandomSource rs(2);
  for (const char *type : kTypes) {
    std::unique_ptr<Component> c = FromConfig(type, "dim=6");
    Matrix<BaseFloat> in = ToHost(RandMat(4, 6, &rs));
    // Keep ReLU inputs away from the kink at 0.
    for (int32 r = 0; r < 4; r++)
      for (int32 j = 0; j < 6; j++)
        in(r, j) += (in(r, j) >= 0 ? 0.1 : -0.1);
    CheckInputDerivative(*c, Contig(in), &rs);
    testing::CheckPropertyFlags(*c, 4, &rs);
  }
  std::unique_ptr<Component> relu =
      FromConfig("RectifiedLinearComponent", "dim=6 block-dim=3");
  EXPECT_TRUE(relu->Properties() & kInputContiguous);
  EXPECT_EQ(relu->Properties() & ~kInputContiguous,
            kSimpleComponent | kBackpropNeedsOutput | kPropagateInPlace |
                kStoresStats);
  EXPECT_EQ(FromConfig("SigmoidComponent", "dim=2")->Properties(), 0x285);
  EXPECT_EQ(FromConfig("TanhComponent", "dim=2")->Properties(), 0x285);
  EXPECT_EQ(FromConfig("SoftmaxComponent", "dim=2")->Properties(), 0x385);
  // Kaldi's 0x281 plus kPropagateInPlace (0x4), which our kernels allow.
  EXPECT_EQ(FromConfig("LogSoftmaxComponent", "dim=2")->Properties(), 0x285);
}

TEST(NonlinearTest, StoreStatsAgainstNaiveSums) {
  RandomSource rs(3);
  for (const char *type : kTypes) {
    std::unique_ptr<Component> c = FromConfig(type, "dim=4");
    auto *nl = dynamic_cast<NonlinearComponent *>(c.get());
    CuMatrix<BaseFloat> in = RandMat(6, 4, &rs);
    CuMatrix<BaseFloat> out = testing::Forward(*c, in);
    const Matrix<BaseFloat> out_h = ToHost(out);
    // The first call always stores.
    c->StoreStats(in, out, nullptr);
    std::string t(type);
    if (t == "LogSoftmaxComponent") {
      EXPECT_EQ(nl->Count(), 0.0);
      continue;
    }
    EXPECT_EQ(nl->Count(), 6.0) << type;
    ASSERT_EQ(nl->ValueSum().Dim(), 4) << type;
    for (int32 j = 0; j < 4; j++) {
      double vs = 0, ds = 0;
      for (int32 r = 0; r < 6; r++) {
        double y = out_h(r, j);
        vs += y;
        if (t == "SigmoidComponent") ds += y * (1 - y);
        if (t == "TanhComponent") ds += 1 - y * y;
        if (t == "RectifiedLinearComponent") ds += (y > 0 ? 1 : 0);
      }
      EXPECT_NEAR(nl->ValueSum().Download()(j), vs, 1e-5) << type;
      if (t == "SoftmaxComponent") {
        EXPECT_EQ(nl->DerivSum().Dim(), 0);
      } else {
        EXPECT_NEAR(nl->DerivSum().Download()(j), ds, 1e-5) << type;
      }
    }
    // Backprop with an update target stores output-derivative stats on its
    // first call.
    CuMatrix<BaseFloat> od = RandMat(6, 4, &rs), id = NewMat(6, 4);
    c->Backprop("", nullptr, in, out, od, nullptr, c.get(), &id);
    EXPECT_EQ(nl->OderivCount(), 6.0) << type;
    const Matrix<BaseFloat> od_h = ToHost(od);
    for (int32 j = 0; j < 4; j++) {
      double s = 0;
      for (int32 r = 0; r < 6; r++) s += double(od_h(r, j)) * od_h(r, j);
      EXPECT_NEAR(nl->OderivSumsq().Download()(j), s, 1e-4) << type;
    }
    // Scale / Add / ZeroStats act on all statistics.
    std::unique_ptr<Component> c2(c->Copy());
    c2->Scale(0.5);
    c2->Add(2.0, *c);
    auto *nl2 = dynamic_cast<NonlinearComponent *>(c2.get());
    EXPECT_NEAR(nl2->Count(), 15.0, 1e-9);
    EXPECT_NEAR(nl2->ValueSum().Download()(1), 2.5 * nl->ValueSum().Download()(1), 1e-6);
    c2->ZeroStats();
    EXPECT_EQ(nl2->Count(), 0.0);
  }
}

// Runs Backprop with an update target many times and checks that each
// in_deriv is either the plain derivative or the plain one plus Kaldi's
// self-repair term, and that both happen.
TEST(NonlinearTest, SelfRepairTerms) {
  RandomSource rs(5);
  for (std::string type :
       {"SigmoidComponent", "TanhComponent", "RectifiedLinearComponent"}) {
    std::unique_ptr<Component> c =
        FromConfig(type, "dim=4 self-repair-scale=0.01");
    auto *nl = dynamic_cast<NonlinearComponent *>(c.get());
    Matrix<BaseFloat> in_h = ToHost(RandMat(5, 4, &rs));
    // Saturate column 0 (large inputs) so that its average derivative is
    // tiny, column 1 always active.
    for (int32 r = 0; r < 5; r++) {
      in_h(r, 0) = (type == "RectifiedLinearComponent" ? -5.0f : 8.0f);
      in_h(r, 1) = 0.5f + 0.1f * r;
    }
    CuMatrix<BaseFloat> in = Contig(in_h);
    CuMatrix<BaseFloat> out = testing::Forward(*c, in);
    const Matrix<BaseFloat> out_h = ToHost(out);
    c->StoreStats(in, out, nullptr);
    // Expected repair vector per column (times the row-dependent factor).
    std::vector<double> problem(4);
    for (int32 j = 0; j < 4; j++) {
      double avg = nl->DerivSum().Download()(j) / nl->Count();
      if (type == "SigmoidComponent") problem[j] = (avg < 0.05 ? 1 : 0);
      else if (type == "TanhComponent") problem[j] = (avg < 0.2 ? 1 : 0);
      else problem[j] = (avg <= 0.05 ? 1 : 0) - (avg > 0.95 ? 1 : 0);
    }
    EXPECT_EQ(problem[0], 1.0) << type;
    if (type == "RectifiedLinearComponent") {
      EXPECT_EQ(problem[1], -1.0);
    }
    CuMatrix<BaseFloat> od = RandMat(5, 4, &rs);
    CuMatrix<BaseFloat> plain = NewMat(5, 4);
    c->Backprop("", nullptr, in, out, od, nullptr, nullptr, &plain);
    int32 repaired = 0, not_repaired = 0;
    for (int32 t = 0; t < 40; t++) {
      std::unique_ptr<Component> target(c->Copy());
      CuMatrix<BaseFloat> d = NewMat(5, 4);
      c->Backprop("", nullptr, in, out, od, nullptr, target.get(), &d);
      CuMatrix<BaseFloat> diff(d);
      diff.AddMat(-1.0, plain);
      if (diff.FrobeniusNorm() == 0.0) {
        not_repaired++;
        continue;
      }
      repaired++;
      for (int32 r = 0; r < 5; r++)
        for (int32 j = 0; j < 4; j++) {
          double y = out_h(r, j), expected;
          if (type == "SigmoidComponent")
            expected = -0.01 / 0.5 * (2 * y - 1) * problem[j];
          else if (type == "TanhComponent")
            expected = -0.01 / 0.5 * y * problem[j];
          else
            expected = 0.01 / 0.5 * problem[j];
          EXPECT_NEAR(diff.GetElement(r, j), expected, 1e-6) << type;
        }
      auto *nt = dynamic_cast<NonlinearComponent *>(target.get());
      EXPECT_GT(nt->NumDimsSelfRepaired(), 0.0);
    }
    EXPECT_GT(repaired, 5) << type;
    EXPECT_GT(not_repaired, 5) << type;
  }
}

TEST(NonlinearTest, IoRoundTrip) {
  RandomSource rs(6);
  for (const char *type : kTypes) {
    std::unique_ptr<Component> c = FromConfig(
        type, std::string("dim=6 block-dim=3 self-repair-lower-threshold=0.1 ") +
                  "self-repair-upper-threshold=0.9 self-repair-scale=1e-05");
    auto factory = [type] { return Component::NewComponentOfType(type); };
    testing::CheckIoRoundTrip(*c, factory);
    // With statistics (8 rows: a power of two keeps the normalized averages
    // exact).
    CuMatrix<BaseFloat> in = RandMat(8, 6, &rs);
    CuMatrix<BaseFloat> out = testing::Forward(*c, in);
    c->StoreStats(in, out, nullptr);
    CuMatrix<BaseFloat> od = RandMat(8, 6, &rs), id = NewMat(8, 6);
    std::unique_ptr<Component> plain = FromConfig(type, "dim=6");
    plain->Backprop("", nullptr, in, out, od, nullptr, c.get(), &id);
    testing::CheckIoRoundTrip(*c, factory);
    // Defaults: no BlockDim and no self-repair fields.
    std::string text = testing::WriteToString(*plain, false);
    EXPECT_EQ(text.find("<BlockDim>"), std::string::npos);
    EXPECT_EQ(text.find("<SelfRepair"), std::string::npos);
  }
}

TEST(NonlinearTest, KaldiTextSpansRoundTrip) {
  int32 count = 0;
  for (const char *type : kTypes) {
    std::vector<std::string> spans = testing::ReferenceSpans(type);
    EXPECT_FALSE(spans.empty()) << type;
    for (const std::string &span : spans) {
      std::unique_ptr<Component> c(Component::NewComponentOfType(type));
      std::istringstream is(span);
      c->Read(is, false);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, false), span), "")
          << type;
      std::string bin = testing::WriteToString(*c, true);
      std::unique_ptr<Component> c2(Component::NewComponentOfType(type));
      std::istringstream bis(bin);
      c2->Read(bis, true);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c2, false), span), "")
          << type;
      count++;
    }
  }
  EXPECT_GE(count, 20);
}

const char *kModelFiles[] = {
    "components_a", "components_b", "components_c", "descriptors", "rnn",
    "seed", "tdnn", "tdnn_real", "rand002", "rand003", "rand004", "rand005",
    "rand006", "rand007", "rand008", "rand009", "rand010", "rand011",
    "rand012", "rand013", "rand014", "rand015", "rand016", "rand017",
    "rand018", "rand019", "rand020", "rand021"};

TEST(NonlinearTest, KaldiBinarySpansAndInfo) {
  int32 spans = 0, infos = 0;
  for (const char *f : kModelFiles) {
    std::string raw = ReadFile(testing::ModelsDir() + f + ".raw");
    std::string info = ReadFile(testing::ModelsDir() + f + ".info");
    if (raw.empty()) continue;
    std::map<std::string, std::string> lines;
    std::istringstream info_is(info);
    std::string line;
    while (std::getline(info_is, line)) {
      if (line.compare(0, 15, "component name=") != 0) continue;
      size_t sp = line.find(' ', 15);
      lines[line.substr(15, sp - 15)] = line.substr(sp + 6);
    }
    size_t pos = 0;
    const std::string key = "<ComponentName> ";
    while ((pos = raw.find(key, pos)) != std::string::npos) {
      size_t name_end = raw.find(' ', pos + key.size());
      std::string name = raw.substr(pos + key.size(), name_end - pos - key.size());
      size_t type_end = raw.find(' ', name_end + 1);
      std::string tag = raw.substr(name_end + 1, type_end - name_end - 1);
      pos = type_end;
      if (tag.size() < 3) continue;
      std::string type = tag.substr(1, tag.size() - 2);
      std::unique_ptr<Component> c(Component::NewComponentOfType(type));
      if (!c) continue;
      std::string close = "</" + type + "> ";
      size_t end = raw.find(close, name_end);
      ASSERT_NE(end, std::string::npos);
      std::string span = raw.substr(name_end + 1, end + close.size() - name_end - 1);
      std::istringstream is(span);
      c->Read(is, true);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, true), span), "")
          << f << " " << name;
      spans++;
      if (lines.count(name)) {
        EXPECT_EQ(c->Info(), lines[name]) << f << " " << name;
        infos++;
      }
    }
  }
  EXPECT_GE(spans, 20);
  EXPECT_GE(infos, 20);
}

TEST(NonlinearTest, ConfigDefaultsAndErrors) {
  std::unique_ptr<Component> c = FromConfig("TanhComponent", "dim=8");
  EXPECT_EQ(c->InputDim(), 8);
  EXPECT_EQ(c->Info(), "TanhComponent, dim=8");
  auto *nl = dynamic_cast<NonlinearComponent *>(c.get());
  EXPECT_EQ(nl->BlockDim(), 8);
  c = FromConfig("RectifiedLinearComponent",
                 "dim=8 block-dim=4 self-repair-scale=1e-05");
  EXPECT_EQ(c->Info(),
            "RectifiedLinearComponent, dim=8, block-dim=4, self-repair-scale=1e-05");
  std::string e = ConfigError("SigmoidComponent", "dim=3 bogus=1");
  EXPECT_NE(e.find("bogus"), std::string::npos) << e;
  e = ConfigError("SoftmaxComponent", "self-repair-scale=0.1");
  EXPECT_NE(e.find("dim"), std::string::npos) << e;
  e = ConfigError("TanhComponent", "dim=6 block-dim=4");
  EXPECT_NE(e.find("block-dim"), std::string::npos) << e;
  e = ConfigError("TanhComponent", "dim=0");
  EXPECT_NE(e.find("dim=0"), std::string::npos) << e;
  // A corrupt closing tag is a read error.
  std::istringstream bad("<SigmoidComponent> <Dim> 2 <ValueAvg> [ ] "
                         "<DerivAvg> [ ] <Count> 0 </TanhComponent> ");
  SigmoidComponent s;
  EXPECT_THROW(s.Read(bad, false), UserError);
}

}  // namespace
}  // namespace nnet3
