// tests/nnet3/components/normalize-test.cc
// NormalizeComponent, BatchNormComponent and DropoutComponent. Oracles:
// naive double-precision loops for the forward passes and the statistics,
// central finite differences for the derivatives (BatchNorm in training
// mode through the minibatch statistics, with the memo), the mask read off
// the output for Dropout, and Kaldi's own files for the formats: the
// component spans of the reference models (text and binary, byte for byte),
// a BatchNorm span with non-zero statistics (count 64) that Kaldi wrote,
// and the nnet3-info lines.
#include "nnet3/components/normalize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "nnet3/components/component-test-util.h"

namespace nnet3 {
namespace {

using testing::Contig;
using testing::MatDot;
using testing::NewMat;
using testing::RandMat;

Component *NewOfType(const std::string &type) {
  if (type == "NormalizeComponent") return new NormalizeComponent();
  if (type == "BatchNormComponent") return new BatchNormComponent();
  if (type == "DropoutComponent") return new DropoutComponent();
  return nullptr;
}

template <class C>
std::unique_ptr<C> FromConfig(const std::string &line) {
  std::unique_ptr<C> ans(new C());
  ConfigLine cfl;
  std::string error;
  EXPECT_TRUE(cfl.ParseLine(line, &error)) << error;
  ans->InitFromConfig(&cfl);
  return ans;
}

// The error message, or "" if the config was accepted.
std::string ConfigError(const std::string &type, const std::string &line) {
  std::unique_ptr<Component> c(NewOfType(type));
  ConfigLine cfl;
  EXPECT_TRUE(cfl.ParseLine(line));
  try {
    c->InitFromConfig(&cfl);
  } catch (const UserError &e) {
    return e.what();
  }
  return "";
}

std::string ReadFile(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  std::stringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

std::string FromHex(const std::string &hex) {
  std::string ans;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    ans.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return ans;
}

// Reads 'span' (text or binary) into a new component of 'type', both with
// the opening tag present and with it consumed first, and checks that
// writing gives the same bytes.
void CheckSpanRoundTrip(const std::string &type, const std::string &span,
                        bool binary) {
  for (int consume = 0; consume < 2; consume++) {
    std::unique_ptr<Component> c(NewOfType(type));
    std::istringstream is(span);
    if (consume) {
      std::string tok;
      ReadToken(is, binary, &tok);
      ASSERT_EQ(tok, "<" + type + ">");
    }
    c->Read(is, binary);
    EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, binary),
                                       span),
              "")
        << type << " binary=" << binary;
  }
}

// Spans "<Type> ... </Type> " of a binary model file.
std::vector<std::string> BinarySpans(const std::string &file,
                                     const std::string &type) {
  std::string data = ReadFile(
      file[0] == '/' ? file : testing::ModelsDir() + file);
  std::vector<std::string> spans;
  std::string open = "<" + type + "> ", close = "</" + type + "> ";
  size_t pos = 0;
  while ((pos = data.find(open, pos)) != std::string::npos) {
    size_t end = data.find(close, pos);
    if (end == std::string::npos) break;
    spans.push_back(data.substr(pos, end + close.size() - pos));
    pos = end;
  }
  return spans;
}

// The float vector that follows 'token' in a text-form component.
Vector<BaseFloat> VectorAfter(const std::string &text,
                              const std::string &token) {
  size_t pos = text.find(token + " ");
  EXPECT_NE(pos, std::string::npos) << token;
  std::istringstream is(text.substr(pos + token.size() + 1));
  Vector<BaseFloat> v;
  v.Read(is, false);
  return v;
}

double CountOf(const BatchNormComponent &c) { return c.Count(); }

// ---- NormalizeComponent -----------------------------------------------------

// Naive oracle: per row and block, y = x / sqrt(max(|x|^2 / (B rms^2),
// 2^-66)); the log-stddev column (at the end of each output block) is
// log(rms) + 0.5 log(that floored quantity).
Matrix<double> NaiveNormalize(const MatrixBase<BaseFloat> &in, int32 block,
                              double rms, bool add_log) {
  int32 num_blocks = in.NumCols() / block, ob = block + (add_log ? 1 : 0);
  Matrix<double> out(in.NumRows(), num_blocks * ob);
  const double floor = std::pow(2.0, -66);
  for (int32 r = 0; r < in.NumRows(); r++) {
    for (int32 b = 0; b < num_blocks; b++) {
      double ss = 0.0;
      for (int32 j = 0; j < block; j++) {
        double x = in(r, b * block + j);
        ss += x * x;
      }
      double ms = std::max(ss / (block * rms * rms), floor);
      for (int32 j = 0; j < block; j++)
        out(r, b * ob + j) = in(r, b * block + j) / std::sqrt(ms);
      if (add_log) out(r, b * ob + block) = std::log(rms) + 0.5 * std::log(ms);
    }
  }
  return out;
}

void ExpectNear(const MatrixBase<BaseFloat> &got, const MatrixBase<double> &want,
                double tol, const std::string &what) {
  ASSERT_EQ(got.NumRows(), want.NumRows()) << what;
  ASSERT_EQ(got.NumCols(), want.NumCols()) << what;
  for (int32 r = 0; r < got.NumRows(); r++)
    for (int32 c = 0; c < got.NumCols(); c++)
      ASSERT_NEAR(got(r, c), want(r, c), tol * (1.0 + std::fabs(want(r, c))))
          << what << " at (" << r << "," << c << ")";
}

struct NormalizeCase {
  const char *config;
  int32 dim, block;
  double rms;
  bool add_log;
};

const NormalizeCase kNormalizeCases[] = {
    {"dim=24 target-rms=0.5", 24, 24, 0.5, false},
    {"input-dim=24 block-dim=12 add-log-stddev=true", 24, 12, 1.0, true},
    {"dim=10 block-dim=5 target-rms=2.0", 10, 5, 2.0, false},
    {"dim=7 add-log-stddev=true target-rms=0.3", 7, 7, 0.3, true},
};

TEST(NormalizeComponent, PropagateMatchesNaive) {
  RandomSource rs(11);
  for (const NormalizeCase &t : kNormalizeCases) {
    auto c = FromConfig<NormalizeComponent>(t.config);
    ASSERT_EQ(c->InputDim(), t.dim);
    int32 num_blocks = t.dim / t.block;
    ASSERT_EQ(c->OutputDim(), t.dim + (t.add_log ? num_blocks : 0));
    Matrix<BaseFloat> in = ToHost(RandMat(9, t.dim, &rs));
    in.Scale(3.0);
    // A zero row and a tiny row exercise the floor.
    for (int32 j = 0; j < t.dim; j++) {
      in(0, j) = 0.0;
      in(1, j) = 1.0e-12;
    }
    Matrix<BaseFloat> out = ToHost(testing::Forward(*c, in));
    ExpectNear(out, NaiveNormalize(in, t.block, t.rms, t.add_log), 1e-5,
               t.config);
  }
}

TEST(NormalizeComponent, BackpropMatchesFiniteDifferences) {
  RandomSource rs(12);
  for (const NormalizeCase &t : kNormalizeCases) {
    auto c = FromConfig<NormalizeComponent>(t.config);
    testing::CheckDerivatives(*c, 6, &rs);
    testing::CheckPropertyFlags(*c, 6, &rs);
  }
}

TEST(NormalizeComponent, ReferenceSpansText) {
  std::vector<std::string> spans = testing::ReferenceSpans("NormalizeComponent");
  ASSERT_GE(spans.size(), 2u);
  for (const std::string &s : spans)
    CheckSpanRoundTrip("NormalizeComponent", s, false);
}

TEST(NormalizeComponent, ReferenceSpansBinary) {
  std::vector<std::string> spans =
      BinarySpans("components_b.raw", "NormalizeComponent");
  ASSERT_EQ(spans.size(), 2u);
  for (const std::string &s : spans)
    CheckSpanRoundTrip("NormalizeComponent", s, true);
}

TEST(NormalizeComponent, ExactTextForm) {
  auto c = FromConfig<NormalizeComponent>("dim=24 target-rms=0.5");
  EXPECT_EQ(testing::WriteToString(*c, false),
            "<NormalizeComponent> <InputDim> 24 <TargetRms> 0.5 "
            "<AddLogStddev> F </NormalizeComponent> ");
  for (const NormalizeCase &t : kNormalizeCases) {
    auto c2 = FromConfig<NormalizeComponent>(t.config);
    testing::CheckIoRoundTrip(*c2, [] { return new NormalizeComponent(); });
  }
}

TEST(NormalizeComponent, OldFormatWithoutOptionalFields) {
  // Old models have <Dim>, no <TargetRms>/<AddLogStddev>.
  NormalizeComponent c;
  std::istringstream is("<NormalizeComponent> <Dim> 8 </NormalizeComponent> ");
  c.Read(is, false);
  EXPECT_EQ(c.InputDim(), 8);
  EXPECT_EQ(c.OutputDim(), 8);
  EXPECT_EQ(testing::WriteToString(c, false),
            "<NormalizeComponent> <InputDim> 8 <TargetRms> 1 "
            "<AddLogStddev> F </NormalizeComponent> ");
}

TEST(NormalizeComponent, OldFormatWithStatistics) {
  // Older models stored value/derivative averages; they are skipped.
  NormalizeComponent c;
  std::istringstream is(
      "<NormalizeComponent> <InputDim> 3 <TargetRms> 1 <AddLogStddev> T "
      "<ValueAvg>  [ 1 2 3 ]\n<DerivAvg>  [ 0 0 0 ]\n<Count> 12 "
      "</NormalizeComponent> ");
  c.Read(is, false);
  EXPECT_EQ(c.OutputDim(), 4);
  EXPECT_EQ(testing::WriteToString(c, false),
            "<NormalizeComponent> <InputDim> 3 <TargetRms> 1 "
            "<AddLogStddev> T </NormalizeComponent> ");
}

TEST(NormalizeComponent, ConfigErrors) {
  EXPECT_EQ(ConfigError("NormalizeComponent", "dim=12"), "");
  EXPECT_NE(ConfigError("NormalizeComponent", "target-rms=1.0"), "");
  EXPECT_NE(ConfigError("NormalizeComponent", "dim=0"), "");
  EXPECT_NE(ConfigError("NormalizeComponent", "dim=12 block-dim=5"), "");
  EXPECT_NE(ConfigError("NormalizeComponent", "dim=12 target-rms=0"), "");
  EXPECT_NE(ConfigError("NormalizeComponent", "dim=12 add-log-stddev=maybe"),
            "");
  std::string e = ConfigError("NormalizeComponent", "dim=12 foo=3");
  EXPECT_NE(e.find("foo"), std::string::npos) << e;
  // dim and input-dim are alternatives: giving both leaves one unused.
  EXPECT_NE(ConfigError("NormalizeComponent", "dim=12 input-dim=12"), "");
}

// ---- BatchNormComponent -----------------------------------------------------

// Column statistics of 'in' viewed as (rows * dim/block) x block.
void NaiveBlockStats(const MatrixBase<BaseFloat> &in, int32 block,
                     std::vector<double> *sum, std::vector<double> *sumsq,
                     double *count) {
  int32 ratio = in.NumCols() / block;
  sum->assign(block, 0.0);
  sumsq->assign(block, 0.0);
  *count = 0;
  for (int32 r = 0; r < in.NumRows(); r++)
    for (int32 b = 0; b < ratio; b++) {
      for (int32 j = 0; j < block; j++) {
        double x = in(r, b * block + j);
        (*sum)[j] += x;
        (*sumsq)[j] += x * x;
      }
      *count += 1;
    }
}

// y = (x - mean) * rms / sqrt(max(var, 0) + eps), per block column.
Matrix<double> NaiveBatchNorm(const MatrixBase<BaseFloat> &in, int32 block,
                              const std::vector<double> &sum,
                              const std::vector<double> &sumsq, double count,
                              double eps, double rms) {
  Matrix<double> out(in.NumRows(), in.NumCols());
  int32 ratio = in.NumCols() / block;
  for (int32 j = 0; j < block; j++) {
    double mean = sum[j] / count;
    double var = std::max(sumsq[j] / count - mean * mean, 0.0);
    double scale = rms / std::sqrt(var + eps);
    for (int32 r = 0; r < in.NumRows(); r++)
      for (int32 b = 0; b < ratio; b++)
        out(r, b * block + j) = (in(r, b * block + j) - mean) * scale;
  }
  return out;
}

struct BatchNormCase {
  const char *config;
  int32 dim, block;
  double eps, rms;
};

const BatchNormCase kBatchNormCases[] = {
    {"dim=26 block-dim=13 epsilon=0.01 target-rms=1.5", 26, 13, 0.01, 1.5},
    {"dim=8", 8, 8, 0.001, 1.0},
    {"dim=12 block-dim=3 target-rms=0.5", 12, 3, 0.001, 0.5},
};

TEST(BatchNormComponent, TrainingPropagateMatchesNaive) {
  RandomSource rs(21);
  for (const BatchNormCase &t : kBatchNormCases) {
    auto c = FromConfig<BatchNormComponent>(t.config);
    EXPECT_EQ(c->Properties() & (kUsesMemo | kStoresStats),
              kUsesMemo | kStoresStats);
    Matrix<BaseFloat> in = ToHost(RandMat(10, t.dim, &rs));
    in.Add(0.7);
    // One constant column (variance 0: the scale is rms / sqrt(eps)).
    for (int32 r = 0; r < in.NumRows(); r++)
      for (int32 b = 0; b < t.dim / t.block; b++) in(r, b * t.block) = 0.25;
    std::vector<double> sum, sumsq;
    double count;
    NaiveBlockStats(in, t.block, &sum, &sumsq, &count);
    Matrix<BaseFloat> out = ToHost(testing::Forward(*c, in));
    ExpectNear(out, NaiveBatchNorm(in, t.block, sum, sumsq, count, t.eps, t.rms),
               2e-4, t.config);
    // In place.
    CuMatrix<BaseFloat> inplace = Contig(in);
    c->DeleteMemo(c->Propagate(nullptr, inplace, &inplace));
    EXPECT_TRUE(ToHost(inplace).ApproxEqual(out, 1e-6)) << t.config;
  }
}

// f(x) = sum(BatchNorm(x) .* R) with the batch statistics depending on x.
TEST(BatchNormComponent, TrainingBackpropMatchesFiniteDifferences) {
  RandomSource rs(22);
  for (const BatchNormCase &t : kBatchNormCases) {
    auto c = FromConfig<BatchNormComponent>(t.config);
    const int32 rows = 7;
    CuMatrix<BaseFloat> in = RandMat(rows, t.dim, &rs);
    CuMatrix<BaseFloat> out = NewMat(rows, t.dim);
    void *memo = c->Propagate(nullptr, in, &out);
    ASSERT_TRUE(memo != nullptr);
    CuMatrix<BaseFloat> out_deriv = RandMat(rows, t.dim, &rs);
    CuMatrix<BaseFloat> in_deriv = NewMat(rows, t.dim);
    CuMatrix<BaseFloat> empty;
    c->Backprop("test", nullptr, empty, out, out_deriv, memo, nullptr,
                &in_deriv);
    // In-place backprop gives the same.
    CuMatrix<BaseFloat> d = Contig(out_deriv);
    c->Backprop("test", nullptr, empty, out, d, memo, nullptr, &d);
    EXPECT_TRUE(d.ApproxEqual(in_deriv, 1e-5)) << t.config;
    c->DeleteMemo(memo);

    auto objf = [&](const CuMatrixBase<BaseFloat> &x) {
      return MatDot(testing::Forward(*c, x), out_deriv);
    };
    const BaseFloat eps = 1e-2;
    for (int32 k = 0; k < 4; k++) {
      CuMatrix<BaseFloat> dir = RandMat(rows, t.dim, &rs);
      CuMatrix<BaseFloat> plus = Contig(in), minus = Contig(in);
      plus.AddMat(eps, dir);
      minus.AddMat(-eps, dir);
      double numeric = (objf(plus) - objf(minus)) / (2 * eps);
      double analytic = MatDot(in_deriv, dir);
      EXPECT_NEAR(numeric, analytic, 3e-3 * (1.0 + std::fabs(numeric)))
          << t.config;
    }
    // The derivative is orthogonal to shifting a column by a constant
    // (the output does not change), a check independent of eps.
    const Matrix<BaseFloat> in_deriv_h = ToHost(in_deriv);
    for (int32 j = 0; j < t.block; j++) {
      double s = 0.0;
      for (int32 r = 0; r < rows; r++)
        for (int32 b = 0; b < t.dim / t.block; b++)
          s += in_deriv_h(r, b * t.block + j);
      EXPECT_NEAR(s, 0.0, 1e-4) << t.config;
    }
  }
}

TEST(BatchNormComponent, StoreStatsAccumulatesAndTestModeUsesThem) {
  RandomSource rs(23);
  for (const BatchNormCase &t : kBatchNormCases) {
    auto c = FromConfig<BatchNormComponent>(t.config);
    CuMatrix<BaseFloat> a = RandMat(6, t.dim, &rs), b = RandMat(9, t.dim, &rs);
    a.Add(0.5);
    b.Scale(2.0);
    std::vector<double> sa, qa, sb, qb;
    double na, nb;
    NaiveBlockStats(ToHost(a), t.block, &sa, &qa, &na);
    NaiveBlockStats(ToHost(b), t.block, &sb, &qb, &nb);
    for (const CuMatrix<BaseFloat> *m : {&a, &b}) {
      CuMatrix<BaseFloat> out = NewMat(m->NumRows(), t.dim);
      void *memo = c->Propagate(nullptr, *m, &out);
      c->StoreStats(*m, out, memo);
      c->DeleteMemo(memo);
    }
    EXPECT_DOUBLE_EQ(CountOf(*c), na + nb);
    std::vector<double> sum(t.block), sumsq(t.block);
    for (int32 j = 0; j < t.block; j++) {
      sum[j] = sa[j] + sb[j];
      sumsq[j] = qa[j] + qb[j];
    }
    // The written mean and variance.
    std::string text = testing::WriteToString(*c, false);
    Vector<BaseFloat> mean = VectorAfter(text, "<StatsMean>"),
                      var = VectorAfter(text, "<StatsVar>");
    ASSERT_EQ(mean.Dim(), t.block);
    ASSERT_EQ(var.Dim(), t.block);
    double n = na + nb;
    for (int32 j = 0; j < t.block; j++) {
      double m = sum[j] / n;
      EXPECT_NEAR(mean(j), m, 1e-5);
      EXPECT_NEAR(var(j), sumsq[j] / n - m * m, 1e-4);
    }
    // Test mode normalizes with the stored statistics.
    c->SetTestMode(true);
    EXPECT_EQ(c->Properties() & (kUsesMemo | kStoresStats), 0);
    Matrix<BaseFloat> x = ToHost(RandMat(5, t.dim, &rs));
    Matrix<BaseFloat> y = ToHost(testing::Forward(*c, x));
    ExpectNear(y, NaiveBatchNorm(x, t.block, sum, sumsq, n, t.eps, t.rms),
               2e-4, t.config);
    // Test mode: the backprop is plain scaling, checked by differences.
    testing::CheckDerivatives(*c, 5, &rs);
    testing::CheckPropertyFlags(*c, 5, &rs);
    // ZeroStats keeps the statistics in test mode, clears them otherwise.
    c->ZeroStats();
    EXPECT_DOUBLE_EQ(CountOf(*c), n);
    c->SetTestMode(false);
    c->ZeroStats();
    EXPECT_EQ(CountOf(*c), 0.0);
  }
}

TEST(BatchNormComponent, ScaleAndAddActOnStats) {
  RandomSource rs(24);
  auto c1 = FromConfig<BatchNormComponent>("dim=6 block-dim=3");
  auto c2 = FromConfig<BatchNormComponent>("dim=6 block-dim=3");
  CuMatrix<BaseFloat> a = RandMat(4, 6, &rs), b = RandMat(8, 6, &rs);
  b.Add(1.0);
  std::vector<double> sa, qa, sb, qb;
  double na, nb;
  NaiveBlockStats(ToHost(a), 3, &sa, &qa, &na);
  NaiveBlockStats(ToHost(b), 3, &sb, &qb, &nb);
  for (auto pr : {std::make_pair(c1.get(), &a), std::make_pair(c2.get(), &b)}) {
    CuMatrix<BaseFloat> out = NewMat(pr.second->NumRows(), 6);
    void *memo = pr.first->Propagate(nullptr, *pr.second, &out);
    pr.first->StoreStats(*pr.second, out, memo);
    pr.first->DeleteMemo(memo);
  }
  // Scaling changes the count, not the mean/variance.
  std::string before = testing::WriteToString(*c1, false);
  c1->Scale(0.5);
  EXPECT_DOUBLE_EQ(CountOf(*c1), 0.5 * na);
  std::string after = testing::WriteToString(*c1, false);
  EXPECT_TRUE(VectorAfter(after, "<StatsMean>")
                  .ApproxEqual(VectorAfter(before, "<StatsMean>"), 1e-5));
  // c1 (half weight) + 2 * c2: weighted statistics.
  c1->Add(2.0, *c2);
  double n = 0.5 * na + 2.0 * nb;
  EXPECT_DOUBLE_EQ(CountOf(*c1), n);
  std::string text = testing::WriteToString(*c1, false);
  Vector<BaseFloat> mean = VectorAfter(text, "<StatsMean>"),
                    var = VectorAfter(text, "<StatsVar>");
  for (int32 j = 0; j < 3; j++) {
    double s = 0.5 * sa[j] + 2.0 * sb[j], q = 0.5 * qa[j] + 2.0 * qb[j];
    EXPECT_NEAR(mean(j), s / n, 1e-5);
    EXPECT_NEAR(var(j), q / n - (s / n) * (s / n), 1e-4);
  }
  c1->Scale(0.0);
  EXPECT_EQ(CountOf(*c1), 0.0);
  text = testing::WriteToString(*c1, false);
  EXPECT_NE(text.find("<Count> 0 <StatsMean>  [ 0 0 0 ]\n<StatsVar>  [ 0 0 0 ]"),
            std::string::npos)
      << text;
}

// Kaldi's span with statistics (count 64), as nnet3-copy --binary=false and
// --binary=true wrote it.
const char kBatchNormSpan64[] =
    "<BatchNormComponent> <Dim> 26 <BlockDim> 13 <Epsilon> 0.01 <TargetRms> "
    "1.5 <TestMode> F <Count> 64 <StatsMean>  [ -0.125 0.8125 0.125 -0.6875 "
    "-0.75 -0.1875 1 1.0625 0.625 1.125 -0.625 1 0 ]\n<StatsVar>  [ 0.375 "
    "1.75 1.5625 1.125 0.375 2.1875 1.1875 0.3125 2.125 2.3125 2.1875 1.8125 "
    "1.3125 ]\n</BatchNormComponent> ";
const char kBatchNormSpan64Hex[] =
    "3c42617463684e6f726d436f6d706f6e656e743e203c44696d3e20041a0000003c426c6f"
    "636b44696d3e20040d0000003c457073696c6f6e3e20040ad7233c3c546172676574526d"
    "733e20040000c03f3c546573744d6f64653e20463c436f756e743e200800000000000050"
    "403c53746174734d65616e3e20465620040d000000000000be0000503f0000003e000030"
    "bf000040bf000040be0000803f0000883f0000203f0000903f000020bf0000803f000000"
    "003c53746174735661723e20465620040d0000000000c03e0000e03f0000c83f0000903f"
    "0000c03e00000c400000983f0000a03e000008400000144000000c400000e83f0000a83f"
    "3c2f42617463684e6f726d436f6d706f6e656e743e20";
const char kBatchNormCnnSpan[] =
    "<BatchNormComponent> <Dim> 320 <BlockDim> 8 <Epsilon> 0.001 <TargetRms> "
    "1 <TestMode> F <Count> 64 <StatsMean>  [ 0.3125 0 0.9375 -0.1875 -0.5625 "
    "0.625 -0.125 0.4375 ]\n<StatsVar>  [ 1 1.875 1.375 0.9375 0.375 1.375 "
    "1.625 0.4375 ]\n</BatchNormComponent> ";

TEST(BatchNormComponent, ReferenceSpansWithStatistics) {
  CheckSpanRoundTrip("BatchNormComponent", kBatchNormSpan64, false);
  CheckSpanRoundTrip("BatchNormComponent", FromHex(kBatchNormSpan64Hex), true);
  CheckSpanRoundTrip("BatchNormComponent", kBatchNormCnnSpan, false);
  // Text in, binary out: Kaldi's binary bytes.
  BatchNormComponent c;
  std::istringstream is(kBatchNormSpan64);
  c.Read(is, false);
  EXPECT_EQ(c.Count(), 64.0);
  EXPECT_EQ(testing::FirstDifference(testing::WriteToString(c, true),
                                     FromHex(kBatchNormSpan64Hex)),
            "");
  // Test mode on these statistics: y = (x - mean) * 1.5 / sqrt(var + 0.01).
  const double mean[13] = {-0.125, 0.8125, 0.125, -0.6875, -0.75, -0.1875, 1,
                           1.0625, 0.625, 1.125, -0.625, 1, 0};
  const double var[13] = {0.375, 1.75, 1.5625, 1.125, 0.375, 2.1875, 1.1875,
                          0.3125, 2.125, 2.3125, 2.1875, 1.8125, 1.3125};
  c.SetTestMode(true);
  RandomSource rs(25);
  Matrix<BaseFloat> x = ToHost(RandMat(3, 26, &rs));
  Matrix<BaseFloat> y = ToHost(testing::Forward(c, x));
  Matrix<double> want(3, 26);
  for (int32 r = 0; r < 3; r++)
    for (int32 k = 0; k < 26; k++)
      want(r, k) = (x(r, k) - mean[k % 13]) * 1.5 / std::sqrt(var[k % 13] + 0.01);
  ExpectNear(y, want, 1e-5, "test mode");
}

// Every BatchNorm of the models with statistics (tests/data/kaldi/compute),
// text and binary.
TEST(BatchNormComponent, ComputeModelSpansWithStatistics) {
  const std::string dir =
      std::string(NNET3_TEST_DATA_DIR) + "/kaldi/compute/models/";
  int32 with_count = 0, total = 0;
  for (const char *name : {"components_b", "tdnn", "later-cnn", "later-lstm",
                           "later-stats", "later-tdnnf"}) {
    std::string text = ReadFile(dir + name + ".txt");
    ASSERT_FALSE(text.empty()) << name;
    std::vector<std::string> spans;
    size_t pos = 0;
    while ((pos = text.find("<BatchNormComponent> ", pos)) !=
           std::string::npos) {
      size_t end = text.find("</BatchNormComponent> ", pos);
      ASSERT_NE(end, std::string::npos);
      spans.push_back(text.substr(pos, end + 22 - pos));
      pos = end;
    }
    for (const std::string &s : spans) {
      CheckSpanRoundTrip("BatchNormComponent", s, false);
      if (s.find("<Count> 64 ") != std::string::npos) with_count++;
      total++;
    }
    std::vector<std::string> bin =
        BinarySpans(dir + name + ".raw", "BatchNormComponent");
    EXPECT_EQ(bin.size(), spans.size()) << name;
    for (const std::string &s : bin)
      CheckSpanRoundTrip("BatchNormComponent", s, true);
  }
  EXPECT_GE(with_count, 8);
  EXPECT_EQ(with_count, total);
}

TEST(BatchNormComponent, ReferenceSpans) {
  std::vector<std::string> spans = testing::ReferenceSpans("BatchNormComponent");
  ASSERT_GE(spans.size(), 1u);
  for (const std::string &s : spans)
    CheckSpanRoundTrip("BatchNormComponent", s, false);
  for (const char *f : {"components_b.raw", "tdnn.raw"})
    for (const std::string &s : BinarySpans(f, "BatchNormComponent"))
      CheckSpanRoundTrip("BatchNormComponent", s, true);
}

TEST(BatchNormComponent, RoundTripAfterStats) {
  RandomSource rs(26);
  for (const BatchNormCase &t : kBatchNormCases) {
    auto c = FromConfig<BatchNormComponent>(t.config);
    testing::CheckIoRoundTrip(*c, [] { return new BatchNormComponent(); });
    // Dyadic inputs keep the sums exact, so re-writing is byte-identical.
    Matrix<BaseFloat> in_h(8, t.dim);
    for (int32 r = 0; r < 8; r++)
      for (int32 k = 0; k < t.dim; k++)
        in_h(r, k) = static_cast<BaseFloat>(rs.Int(-8, 8)) / 4.0f;
    CuMatrix<BaseFloat> in = Contig(in_h);
    CuMatrix<BaseFloat> out = NewMat(8, t.dim);
    void *memo = c->Propagate(nullptr, in, &out);
    c->StoreStats(in, out, memo);
    c->DeleteMemo(memo);
    testing::CheckIoRoundTrip(*c, [] { return new BatchNormComponent(); });
    std::unique_ptr<Component> copy(c->Copy());
    EXPECT_EQ(testing::WriteToString(*copy, false),
              testing::WriteToString(*c, false));
  }
}

TEST(BatchNormComponent, DefaultsAndConfigErrors) {
  auto c = FromConfig<BatchNormComponent>("dim=4");
  EXPECT_EQ(testing::WriteToString(*c, false),
            "<BatchNormComponent> <Dim> 4 <BlockDim> 4 <Epsilon> 0.001 "
            "<TargetRms> 1 <TestMode> F <Count> 0 <StatsMean>  [ 0 0 0 0 ]\n"
            "<StatsVar>  [ 0 0 0 0 ]\n</BatchNormComponent> ");
  EXPECT_NE(ConfigError("BatchNormComponent", "block-dim=4"), "");
  EXPECT_NE(ConfigError("BatchNormComponent", "dim=0"), "");
  EXPECT_NE(ConfigError("BatchNormComponent", "dim=10 block-dim=4"), "");
  EXPECT_NE(ConfigError("BatchNormComponent", "dim=10 epsilon=0"), "");
  EXPECT_NE(ConfigError("BatchNormComponent", "dim=10 target-rms=-1"), "");
  std::string e = ConfigError("BatchNormComponent", "dim=10 bar=2");
  EXPECT_NE(e.find("bar"), std::string::npos) << e;
}

// ---- DropoutComponent -------------------------------------------------------

TEST(DropoutComponent, TrainingMaskIsZeroOrOne) {
  RandomSource rs(31);
  for (bool per_frame : {false, true}) {
    auto c = FromConfig<DropoutComponent>(
        std::string("dim=40 dropout-proportion=0.25 dropout-per-frame=") +
        (per_frame ? "true" : "false"));
    EXPECT_TRUE(c->Properties() & kRandomComponent);
    const int32 rows = 400;
    CuMatrix<BaseFloat> in_cu = RandMat(rows, 40, &rs);
    in_cu.Add(10.0);  // no zeros in the input
    CuMatrix<BaseFloat> out_cu = testing::Forward(*c, in_cu);
    const Matrix<BaseFloat> in = ToHost(in_cu), out = ToHost(out_cu);
    int64 zeros = 0;
    for (int32 r = 0; r < rows; r++) {
      int32 row_zeros = 0;
      for (int32 k = 0; k < 40; k++) {
        ASSERT_TRUE(out(r, k) == 0.0f || out(r, k) == in(r, k));
        if (out(r, k) == 0.0f) row_zeros++;
      }
      if (per_frame) {
        ASSERT_TRUE(row_zeros == 0 || row_zeros == 40);
      }
      zeros += row_zeros;
    }
    double frac = double(zeros) / (rows * 40.0);
    // Per element: 16000 draws; per frame: 400 draws (stddev ~0.022).
    EXPECT_NEAR(frac, 0.25, per_frame ? 0.09 : 0.02) << per_frame;

    // Backprop: the derivative passes where the mask is one.
    CuMatrix<BaseFloat> out_deriv_cu = RandMat(rows, 40, &rs);
    CuMatrix<BaseFloat> in_deriv_cu = NewMat(rows, 40);
    c->Backprop("test", nullptr, in_cu, out_cu, out_deriv_cu, nullptr, nullptr,
                &in_deriv_cu);
    const Matrix<BaseFloat> out_deriv = ToHost(out_deriv_cu),
                            in_deriv = ToHost(in_deriv_cu);
    for (int32 r = 0; r < rows; r++)
      for (int32 k = 0; k < 40; k++)
        ASSERT_NEAR(in_deriv(r, k), out(r, k) == 0.0f ? 0.0f : out_deriv(r, k),
                    1e-5);
  }
}

TEST(DropoutComponent, ExtremeProportionsAndZeroInput) {
  RandomSource rs(32);
  CuMatrix<BaseFloat> in = RandMat(20, 6, &rs);
  auto keep = FromConfig<DropoutComponent>("dim=6 dropout-proportion=0.0");
  EXPECT_TRUE(testing::Forward(*keep, in).Equal(in));
  auto drop = FromConfig<DropoutComponent>("dim=6 dropout-proportion=1.0");
  EXPECT_TRUE(testing::Forward(*drop, in).IsZero(0.0));
  // Where the input is zero the mask is unknown; Kaldi passes the
  // derivative through.
  in.SetElement(3, 2, 0.0);
  CuMatrix<BaseFloat> out = testing::Forward(*drop, in);
  CuMatrix<BaseFloat> od = RandMat(20, 6, &rs), id = NewMat(20, 6);
  drop->Backprop("test", nullptr, in, out, od, nullptr, nullptr, &id);
  EXPECT_EQ(id.GetElement(3, 2), od.GetElement(3, 2));
  EXPECT_EQ(id.GetElement(4, 2), 0.0f);
}

TEST(DropoutComponent, SameSeedSameMask) {
  RandomSource rs(33);
  auto c1 = FromConfig<DropoutComponent>("dim=10 dropout-proportion=0.5");
  std::unique_ptr<Component> c2(c1->Copy());
  c1->ResetGenerator(7);
  dynamic_cast<DropoutComponent *>(c2.get())->ResetGenerator(7);
  CuMatrix<BaseFloat> in = RandMat(30, 10, &rs);
  EXPECT_TRUE(testing::Forward(*c1, in).Equal(testing::Forward(*c2, in)));
}

TEST(DropoutComponent, TestModeScales) {
  RandomSource rs(34);
  auto c = FromConfig<DropoutComponent>(
      "dim=12 dropout-proportion=0.3 test-mode=true");
  EXPECT_TRUE(c->TestMode());
  Matrix<BaseFloat> in = ToHost(RandMat(5, 12, &rs));
  Matrix<BaseFloat> out = ToHost(testing::Forward(*c, in));
  for (int32 r = 0; r < 5; r++)
    for (int32 k = 0; k < 12; k++)
      EXPECT_NEAR(out(r, k), 0.7 * in(r, k), 1e-6);
  testing::CheckDerivatives(*c, 5, &rs);
  testing::CheckPropertyFlags(*c, 5, &rs);
  EXPECT_EQ(testing::WriteToString(*c, false),
            "<DropoutComponent> <Dim> 12 <DropoutProportion> 0.3 "
            "<DropoutPerFrame> F <TestMode> T </DropoutComponent> ");
}

TEST(DropoutComponent, ReferenceSpansAndRoundTrip) {
  std::vector<std::string> spans = testing::ReferenceSpans("DropoutComponent");
  ASSERT_GE(spans.size(), 1u);
  for (const std::string &s : spans)
    CheckSpanRoundTrip("DropoutComponent", s, false);
  for (const std::string &s : BinarySpans("components_b.raw", "DropoutComponent"))
    CheckSpanRoundTrip("DropoutComponent", s, true);
  auto c = FromConfig<DropoutComponent>(
      "dim=26 dropout-proportion=0.25 dropout-per-frame=true");
  EXPECT_EQ(testing::WriteToString(*c, false),
            "<DropoutComponent> <Dim> 26 <DropoutProportion> 0.25 "
            "<DropoutPerFrame> T <TestMode> F </DropoutComponent> ");
  testing::CheckIoRoundTrip(*c, [] { return new DropoutComponent(); });
  // Old form without <DropoutPerFrame>/<TestMode>.
  DropoutComponent old;
  std::istringstream is(
      "<DropoutComponent> <Dim> 5 <DropoutProportion> 0.5 </DropoutComponent> ");
  old.Read(is, false);
  EXPECT_EQ(testing::WriteToString(old, false),
            "<DropoutComponent> <Dim> 5 <DropoutProportion> 0.5 "
            "<DropoutPerFrame> F <TestMode> F </DropoutComponent> ");
}

TEST(DropoutComponent, ConfigErrors) {
  EXPECT_EQ(ConfigError("DropoutComponent", "dim=4 dropout-proportion=0.1"), "");
  // Kaldi requires both dim and dropout-proportion.
  EXPECT_NE(ConfigError("DropoutComponent", "dim=4"), "");
  EXPECT_NE(ConfigError("DropoutComponent", "dropout-proportion=0.1"), "");
  EXPECT_NE(ConfigError("DropoutComponent", "dim=4 dropout-proportion=1.5"), "");
  EXPECT_NE(ConfigError("DropoutComponent", "dim=4 dropout-proportion=-0.1"),
            "");
  std::string e =
      ConfigError("DropoutComponent", "dim=4 dropout-proportion=0.1 baz=1");
  EXPECT_NE(e.find("baz"), std::string::npos) << e;
}

// ---- Info lines against Kaldi's nnet3-info --------------------------------

TEST(NormalizeFamily, InfoMatchesKaldi) {
  std::string config = ReadFile(testing::ModelsDir() + "components_b.config");
  std::string info = ReadFile(testing::ModelsDir() + "components_b.info");
  ASSERT_FALSE(config.empty());
  ASSERT_FALSE(info.empty());
  int32 checked = 0;
  std::istringstream cs(config);
  std::string line;
  while (std::getline(cs, line)) {
    if (line.compare(0, 15, "component name=") != 0) continue;
    size_t type_pos = line.find(" type=");
    std::string name = line.substr(15, type_pos - 15);
    size_t type_end = line.find(' ', type_pos + 6);
    std::string type = line.substr(type_pos + 6, type_end - type_pos - 6);
    std::unique_ptr<Component> c(NewOfType(type));
    if (!c) continue;
    ConfigLine cfl;
    ASSERT_TRUE(cfl.ParseLine(line.substr(type_end + 1)));
    c->InitFromConfig(&cfl);
    std::string want_prefix = "component name=" + name + " type=";
    size_t p = info.find(want_prefix);
    ASSERT_NE(p, std::string::npos) << name;
    size_t e = info.find('\n', p);
    EXPECT_EQ(c->Info(), info.substr(p + want_prefix.size(),
                                     e - p - want_prefix.size()));
    checked++;
  }
  EXPECT_EQ(checked, 4);
}

TEST(BatchNormComponent, InfoSummarizesStatistics) {
  // With a count, Kaldi appends the data mean and stddev summaries.
  BatchNormComponent c;
  std::istringstream is(kBatchNormCnnSpan);
  c.Read(is, false);
  std::string info = c.Info();
  EXPECT_EQ(info.find("BatchNormComponent, dim=320, block-dim=8, "
                      "epsilon=0.001, target-rms=1, count=64, "
                      "test-mode=false, data-mean=[ "),
            0u)
      << info;
  EXPECT_NE(info.find(", data-stddev=[ "), std::string::npos) << info;
}

}  // namespace
}  // namespace nnet3
