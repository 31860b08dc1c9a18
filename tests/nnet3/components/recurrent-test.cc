// tests/nnet3/components/recurrent-test.cc
// LstmNonlinearityComponent, GruNonlinearityComponent,
// OutputGruNonlinearityComponent and BackpropTruncationComponent. Oracles:
// naive double-precision per-element loops of each cell's equations (forward
// and, for the LSTM, the backward pass with self-repair), central finite
// differences for input and parameter derivatives (self-repair off), a
// naive clipping/zeroing rule and a naive boundary rule for the truncation
// component, Kaldi's reference files for the formats (component spans of
// later/lstm.txt and x-gru.txt read and written back byte for byte) and the
// nnet3-info lines Kaldi printed.
#include "nnet3/components/backprop-truncation.h"
#include "nnet3/components/gru.h"
#include "nnet3/components/lstm.h"

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

using testing::CheckIoRoundTrip;
using testing::Contig;
using testing::FirstDifference;
using testing::MatDot;
using testing::NewMat;
using testing::RandMat;
using testing::WriteToString;

template <class C>
std::unique_ptr<C> Make(const std::string &line) {
  std::unique_ptr<C> ans(new C());
  ConfigLine cfl;
  std::string error;
  EXPECT_TRUE(cfl.ParseLine(line, &error)) << error;
  ans->InitFromConfig(&cfl);
  return ans;
}

template <class C>
std::string ConfigError(const std::string &line) {
  C c;
  ConfigLine cfl;
  EXPECT_TRUE(cfl.ParseLine(line));
  try {
    c.InitFromConfig(&cfl);
  } catch (const UserError &e) {
    return e.what();
  }
  return "";
}

double Sig(double x) { return 1.0 / (1.0 + std::exp(-x)); }

std::string ReadFile(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  EXPECT_TRUE(is.good()) << path;
  std::stringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

// The text spans "<Type> ... </Type> " of a reference text model.
std::vector<std::string> SpansOf(const std::string &file,
                                 const std::string &type) {
  std::string text = ReadFile(testing::ModelsDir() + file);
  std::vector<std::string> spans;
  std::string open = "<" + type + "> ", close = "</" + type + "> ";
  size_t pos = 0;
  while ((pos = text.find(open, pos)) != std::string::npos) {
    size_t end = text.find(close, pos);
    if (end == std::string::npos) break;
    spans.push_back(text.substr(pos, end + close.size() - pos));
    pos = end;
  }
  return spans;
}

// Reads each span, writes it back in text (must be identical) and checks a
// binary round trip of the result.
template <class C>
void CheckReferenceSpans(const std::string &file, const std::string &type,
                         size_t expected_count) {
  std::vector<std::string> spans = SpansOf(file, type);
  ASSERT_EQ(spans.size(), expected_count) << file;
  for (const std::string &span : spans) {
    C c;
    std::istringstream is(span);
    c.Read(is, false);
    EXPECT_EQ(FirstDifference(WriteToString(c, false), span), "") << type;
    CheckIoRoundTrip(c, [] { return new C(); });
  }
}

// The "type=..." part of the nnet3-info line of component 'name'.
std::string KaldiInfo(const std::string &file, const std::string &name) {
  std::istringstream is(ReadFile(testing::ModelsDir() + file));
  std::string line, prefix = "component name=" + name + " type=";
  while (std::getline(is, line))
    if (line.compare(0, prefix.size(), prefix) == 0)
      return line.substr(prefix.size());
  ADD_FAILURE() << name << " not in " << file;
  return "";
}

// ---- LSTM: naive per-element equations ----------------------------------------

struct NaiveLstm {
  int32 C;
  const MatrixBase<BaseFloat> *params;  // 3 x C
  bool dropout;
  // Forward for one element; fills the intermediate values.
  void Forward(const MatrixBase<BaseFloat> &in, int32 r, int32 j, double *i,
               double *f, double *g, double *c, double *o, double *tc,
               double *m, double *im, double *fm, double *om) const {
    *im = dropout ? in(r, 5 * C) : 1.0;
    *fm = dropout ? in(r, 5 * C + 1) : 1.0;
    *om = dropout ? in(r, 5 * C + 2) : 1.0;
    double cp = in(r, 4 * C + j);
    *i = Sig(in(r, j) + (*params)(0, j) * cp);
    *f = Sig(in(r, C + j) + (*params)(1, j) * cp);
    *g = std::tanh(in(r, 2 * C + j));
    *c = *fm * *f * cp + *im * *i * *g;
    *o = Sig(in(r, 3 * C + j) + (*params)(2, j) * *c);
    *tc = std::tanh(*c);
    *m = *om * *o * *tc;
  }
};

TEST(LstmNonlinearity, PropagateMatchesNaiveEquations) {
  for (int dropout = 0; dropout < 2; dropout++) {
    auto c = Make<LstmNonlinearityComponent>(
        std::string("cell-dim=4 param-stddev=0.7 use-dropout=") +
        (dropout ? "true" : "false"));
    ASSERT_EQ(c->InputDim(), 20 + 3 * dropout);
    ASSERT_EQ(c->OutputDim(), 8);
    RandomSource rs(3 + dropout);
    CuMatrix<BaseFloat> cu_in = RandMat(6, c->InputDim(), &rs);
    cu_in.Scale(2.0);
    if (dropout)
      for (int32 r = 0; r < 6; r++)
        for (int32 k = 0; k < 3; k++)
          cu_in.Mat()(r, 20 + k) = (r + k) % 3 == 0 ? 0.0 : 1.3;
    CuMatrix<BaseFloat> cu_out = NewMat(6, 8);
    c->Propagate(nullptr, cu_in, &cu_out);
    Matrix<BaseFloat> in = ToHost(cu_in), out = ToHost(cu_out),
                      params = ToHost(c->Params());
    NaiveLstm naive{4, &params, dropout == 1};
    for (int32 r = 0; r < 6; r++)
      for (int32 j = 0; j < 4; j++) {
        double i, f, g, cc, o, tc, m, im, fm, om;
        naive.Forward(in, r, j, &i, &f, &g, &cc, &o, &tc, &m, &im, &fm, &om);
        EXPECT_NEAR(out(r, j), cc, 1e-5);
        EXPECT_NEAR(out(r, 4 + j), m, 1e-5);
      }
  }
}

// Finite differences of sum(out .* R) w.r.t. the first 'num_cols' input
// columns and the parameters, against Backprop (with a gradient component
// to update). Inputs are N(0, in_scale^2); dropout-mask columns of an LSTM
// are set to fixed scales.
void CheckRecurrentDerivatives(const UpdatableComponent &c, int32 rows,
                               int32 num_cols, BaseFloat in_scale,
                               RandomSource *rs) {
  const int32 in_dim = c.InputDim(), out_dim = c.OutputDim();
  CuMatrix<BaseFloat> in = RandMat(rows, in_dim, rs);
  in.Scale(in_scale);
  for (int32 r = 0; r < rows; r++)
    for (int32 k = num_cols; k < in_dim; k++)
      in.Mat()(r, k) = 0.5 + 0.3 * (k - num_cols);
  CuMatrix<BaseFloat> out = NewMat(rows, out_dim);
  c.Propagate(nullptr, in, &out);
  CuMatrix<BaseFloat> out_deriv = RandMat(rows, out_dim, rs);
  CuMatrix<BaseFloat> in_deriv = NewMat(rows, in_dim), empty;
  std::unique_ptr<UpdatableComponent> grad(
      dynamic_cast<UpdatableComponent *>(c.Copy()));
  grad->Scale(0.0);
  grad->SetAsGradient();
  const int32 props = c.Properties();
  c.Backprop("test", nullptr, in, (props & kBackpropNeedsOutput) ? out : empty,
             out_deriv, nullptr, grad.get(), &in_deriv);
  auto objf = [&](const Component &comp, const CuMatrixBase<BaseFloat> &x) {
    CuMatrix<BaseFloat> y = NewMat(rows, out_dim);
    comp.Propagate(nullptr, x, &y);
    return MatDot(y, out_deriv);
  };
  const BaseFloat eps = 3e-3;
  for (int32 t = 0; t < 4; t++) {
    CuMatrix<BaseFloat> dir = RandMat(rows, in_dim, rs);
    for (int32 r = 0; r < rows; r++)
      for (int32 k = num_cols; k < in_dim; k++) dir.Mat()(r, k) = 0.0;
    CuMatrix<BaseFloat> plus = Contig(in), minus = Contig(in);
    plus.AddMat(eps, dir);
    minus.AddMat(-eps, dir);
    double numeric = (objf(c, plus) - objf(c, minus)) / (2 * eps);
    EXPECT_NEAR(numeric, MatDot(in_deriv, dir), 3e-3 * (1 + std::fabs(numeric)))
        << c.Type() << " input derivative";
  }
  Vector<BaseFloat> p(c.NumParameters()), g(c.NumParameters());
  c.Vectorize(&p);
  grad->Vectorize(&g);
  for (int32 t = 0; t < 4; t++) {
    Vector<BaseFloat> dir(p.Dim());
    dir.SetRandn(rs);
    std::unique_ptr<UpdatableComponent> cp(
        dynamic_cast<UpdatableComponent *>(c.Copy())),
        cm(dynamic_cast<UpdatableComponent *>(c.Copy()));
    Vector<BaseFloat> pp(p), pm(p);
    pp.AddVec(eps, dir);
    pm.AddVec(-eps, dir);
    cp->UnVectorize(pp);
    cm->UnVectorize(pm);
    double numeric = (objf(*cp, in) - objf(*cm, in)) / (2 * eps);
    EXPECT_NEAR(numeric, VecVec(g, dir), 3e-3 * (1 + std::fabs(numeric)))
        << c.Type() << " parameter gradient";
  }
  // The dropout-mask columns get no derivative.
  for (int32 r = 0; r < rows; r++)
    for (int32 k = num_cols; k < in_dim; k++)
      EXPECT_EQ(in_deriv.Mat()(r, k), 0.0);
}

TEST(LstmNonlinearity, DerivativesMatchFiniteDifferences) {
  DefaultRandomSource().Seed(11);
  RandomSource rs(11);
  for (int32 seed = 0; seed < 5; seed++) {
    auto c = Make<LstmNonlinearityComponent>(
        "cell-dim=5 param-stddev=0.8 self-repair-scale=0");
    CheckRecurrentDerivatives(*c, 4, c->InputDim(), 1.0, &rs);
    auto d = Make<LstmNonlinearityComponent>(
        "cell-dim=3 use-dropout=true self-repair-scale=0");
    CheckRecurrentDerivatives(*d, 4, 15, 1.0, &rs);
  }
}

TEST(LstmNonlinearity, BackpropWithSelfRepairMatchesNaiveRule) {
  // Fresh statistics: every average derivative (0) is below its threshold,
  // so self-repair is on for all five nonlinearities. The naive backward
  // pass below adds -scale (2y - 1) at each sigmoid input and -scale y at
  // each tanh input.
  const double s = 0.05;
  auto c = Make<LstmNonlinearityComponent>(
      "cell-dim=3 param-stddev=0.9 self-repair-scale=0.05");
  RandomSource rs(7);
  const int32 rows = 4, C = 3;
  CuMatrix<BaseFloat> cu_in = RandMat(rows, 5 * C, &rs);
  cu_in.Scale(1.5);
  CuMatrix<BaseFloat> cu_out_deriv = RandMat(rows, 2 * C, &rs), empty;
  CuMatrix<BaseFloat> cu_in_deriv = NewMat(rows, 5 * C);
  c->Backprop("test", nullptr, cu_in, empty, cu_out_deriv, nullptr, nullptr,
              &cu_in_deriv);
  Matrix<BaseFloat> in = ToHost(cu_in), out_deriv = ToHost(cu_out_deriv),
                    in_deriv = ToHost(cu_in_deriv);
  const Matrix<BaseFloat> w = ToHost(c->Params());
  NaiveLstm naive{C, &w, false};
  for (int32 r = 0; r < rows; r++)
    for (int32 j = 0; j < C; j++) {
      double i, f, g, cc, o, tc, m, im, fm, om;
      naive.Forward(in, r, j, &i, &f, &g, &cc, &o, &tc, &m, &im, &fm, &om);
      double cp = in(r, 4 * C + j);
      double dm = out_deriv(r, C + j), dc_out = out_deriv(r, j);
      double do_in = o * (1 - o) * (tc * dm) - s * (2 * o - 1);
      double dc = (1 - tc * tc) * (o * dm) + dc_out + w(2, j) * do_in - s * tc;
      double di_in = i * (1 - i) * (dc * g) - s * (2 * i - 1);
      double df_in = f * (1 - f) * (dc * cp) - s * (2 * f - 1);
      double dg_in = (1 - g * g) * (dc * i) - s * g;
      double dcp = w(0, j) * di_in + w(1, j) * df_in + f * dc;
      EXPECT_NEAR(in_deriv(r, j), di_in, 1e-5);
      EXPECT_NEAR(in_deriv(r, C + j), df_in, 1e-5);
      EXPECT_NEAR(in_deriv(r, 2 * C + j), dg_in, 1e-5);
      EXPECT_NEAR(in_deriv(r, 3 * C + j), do_in, 1e-5);
      EXPECT_NEAR(in_deriv(r, 4 * C + j), dcp, 1e-5);
    }
}

TEST(LstmNonlinearity, StatisticsAndUpdate) {
  auto c = Make<LstmNonlinearityComponent>("cell-dim=2 learning-rate=0.1");
  RandomSource rs(5);
  const int32 rows = 6, C = 2;
  CuMatrix<BaseFloat> cu_in = RandMat(rows, 5 * C, &rs);
  CuMatrix<BaseFloat> out_deriv = RandMat(rows, 2 * C, &rs), empty;
  CuMatrix<BaseFloat> in_deriv = NewMat(rows, 5 * C);
  Matrix<BaseFloat> params_before = ToHost(c->Params());
  NaiveLstm naive{C, &params_before, false};
  c->Backprop("test", nullptr, cu_in, empty, out_deriv, nullptr, c.get(),
              &in_deriv);
  Matrix<BaseFloat> in = ToHost(cu_in);
  EXPECT_EQ(c->Count(), rows);
  // Stats: sums over the rows of each nonlinearity's value and derivative.
  for (int32 j = 0; j < C; j++) {
    double v[5] = {0, 0, 0, 0, 0}, d[5] = {0, 0, 0, 0, 0};
    for (int32 r = 0; r < rows; r++) {
      double i, f, g, cc, o, tc, m, im, fm, om;
      naive.Forward(in, r, j, &i, &f, &g, &cc, &o, &tc, &m, &im, &fm, &om);
      double y[5] = {i, f, g, o, tc};
      for (int32 k = 0; k < 5; k++) {
        v[k] += y[k];
        d[k] += (k == 2 || k == 4) ? 1 - y[k] * y[k] : y[k] * (1 - y[k]);
      }
    }
    for (int32 k = 0; k < 5; k++) {
      EXPECT_NEAR(c->ValueSum().Mat()(k, j), v[k], 1e-4);
      EXPECT_NEAR(c->DerivSum().Mat()(k, j), d[k], 1e-4);
    }
  }
  // Fresh statistics: all dimensions were repaired on all frames.
  for (int32 k = 0; k < 5; k++)
    EXPECT_EQ(c->SelfRepairTotal().Vec()(k), rows * C);
  EXPECT_NE(c->Info().find("i_t_sigmoid={ self-repair-lower-threshold=0.05, "
                           "self-repair-scale=1e-05, self-repaired-proportion=1"
                           ", value-avg=[ "),
            std::string::npos)
      << c->Info();
  EXPECT_NE(c->Info().find(", count=6, "), std::string::npos) << c->Info();
  // The natural-gradient update moved the parameters.
  Matrix<BaseFloat> diff = ToHost(c->Params());
  diff.AddMat(-1.0, params_before);
  EXPECT_GT(diff.FrobeniusNorm(), 0.0);
  // Statistics survive a round trip (written as averages, so up to
  // rounding).
  std::unique_ptr<LstmNonlinearityComponent> back(new LstmNonlinearityComponent());
  std::istringstream is(WriteToString(*c, true));
  back->Read(is, true);
  EXPECT_NEAR(back->Count(), rows, 0);
  EXPECT_NEAR(back->ValueSum().Mat()(1, 1), c->ValueSum().Mat()(1, 1), 1e-4);
  EXPECT_NEAR(back->SelfRepairTotal().Vec()(3), rows * C, 1e-3);
  c->ZeroStats();
  EXPECT_EQ(c->Count(), 0.0);
  EXPECT_EQ(c->Info().find("self-repaired-proportion"), std::string::npos);
}

TEST(LstmNonlinearity, ReferenceFilesAndInfo) {
  CheckReferenceSpans<LstmNonlinearityComponent>(
      "later/lstm.txt", "LstmNonlinearityComponent", 1);
  std::unique_ptr<LstmNonlinearityComponent> c(new LstmNonlinearityComponent());
  std::istringstream is(SpansOf("later/lstm.txt", "LstmNonlinearityComponent")[0]);
  c->Read(is, false);
  EXPECT_EQ(c->Info(), KaldiInfo("later/lstm.info", "lstm1.lstm_nonlin"));
  auto d = Make<LstmNonlinearityComponent>("cell-dim=3 use-dropout=true");
  EXPECT_NE(WriteToString(*d, false).find("<UseDropout> T <Count> 0 "),
            std::string::npos);
  CheckIoRoundTrip(*d, [] { return new LstmNonlinearityComponent(); });
  EXPECT_EQ(d->Info().find("LstmNonlinearityComponent, input-dim=18, "
                           "output-dim=6, learning-rate=0.001, cell-dim=3, "
                           "use-dropout=true, w_ic-rms="),
            0u)
      << d->Info();
}

TEST(LstmNonlinearity, ConfigErrors) {
  EXPECT_NE(ConfigError<LstmNonlinearityComponent>("param-stddev=1").find("cell-dim"),
            std::string::npos);
  EXPECT_NE(ConfigError<LstmNonlinearityComponent>("cell-dim=0").find("cell-dim=0"),
            std::string::npos);
  EXPECT_NE(ConfigError<LstmNonlinearityComponent>(
                "cell-dim=3 sigmoid-self-repair-threshold=0.3")
                .find("sigmoid-self-repair-threshold=0.3"),
            std::string::npos);
  EXPECT_NE(ConfigError<LstmNonlinearityComponent>(
                "cell-dim=3 self-repair-scale=0.5")
                .find("self-repair-scale=0.5"),
            std::string::npos);
  EXPECT_NE(ConfigError<LstmNonlinearityComponent>("cell-dim=3 foo=1").find("foo"),
            std::string::npos);
  EXPECT_EQ(ConfigError<LstmNonlinearityComponent>("cell-dim=3"), "");
}

// ---- GRU -----------------------------------------------------------------------

TEST(GruNonlinearity, PropagateMatchesNaiveEquations) {
  for (int proj = 0; proj < 2; proj++) {
    auto c = Make<GruNonlinearityComponent>(proj ? "cell-dim=5 recurrent-dim=2"
                                                 : "cell-dim=4");
    const int32 C = c->CellDim(), R = c->RecurrentDim(), rows = 5;
    ASSERT_EQ(c->InputDim(), proj ? 3 * C + 2 * R : 4 * C);
    RandomSource rs(21 + proj);
    CuMatrix<BaseFloat> cu_in = RandMat(rows, c->InputDim(), &rs);
    CuMatrix<BaseFloat> cu_out = NewMat(rows, 2 * C);
    c->Propagate(nullptr, cu_in, &cu_out);
    Matrix<BaseFloat> in = ToHost(cu_in), out = ToHost(cu_out),
                      W = ToHost(c->WH());
    for (int32 r = 0; r < rows; r++)
      for (int32 j = 0; j < C; j++) {
        double a = in(r, C + R + j);
        for (int32 k = 0; k < R; k++) {
          double s_prev = in(r, c->InputDim() - R + k), rk = in(r, C + k);
          a += W(j, k) * rk * s_prev;
        }
        double h = std::tanh(a), z = in(r, j), c_prev = in(r, 2 * C + R + j);
        EXPECT_NEAR(out(r, j), h, 1e-5);
        EXPECT_NEAR(out(r, C + j), (1 - z) * h + z * c_prev, 1e-5);
      }
  }
}

TEST(GruNonlinearity, DerivativesMatchFiniteDifferences) {
  DefaultRandomSource().Seed(31);
  RandomSource rs(31);
  for (int32 seed = 0; seed < 5; seed++) {
    auto a = Make<GruNonlinearityComponent>("cell-dim=4 self-repair-scale=0");
    CheckRecurrentDerivatives(*a, 4, a->InputDim(), 0.7, &rs);
    auto b = Make<GruNonlinearityComponent>(
        "cell-dim=5 recurrent-dim=3 self-repair-scale=0");
    CheckRecurrentDerivatives(*b, 4, b->InputDim(), 0.7, &rs);
  }
}

TEST(GruNonlinearity, UpdateAndStatistics) {
  auto c = Make<GruNonlinearityComponent>("cell-dim=4 recurrent-dim=2");
  RandomSource rs(2);
  CuMatrix<BaseFloat> in = RandMat(8, c->InputDim(), &rs);
  CuMatrix<BaseFloat> out = NewMat(8, c->OutputDim());
  c->Propagate(nullptr, in, &out);
  Matrix<BaseFloat> w_before = ToHost(c->WH());
  // The statistics are gathered on a random half of the minibatches; after
  // 40 minibatches of 8 the count is a positive multiple of 8.
  for (int32 it = 0; it < 40; it++) {
    CuMatrix<BaseFloat> out_deriv = RandMat(8, c->OutputDim(), &rs);
    CuMatrix<BaseFloat> in_deriv = NewMat(8, c->InputDim());
    c->Backprop("test", nullptr, in, out, out_deriv, nullptr, c.get(),
                &in_deriv);
  }
  double count = c->Stats().count_;
  EXPECT_GT(count, 0.0);
  EXPECT_LT(count, 320.0);
  EXPECT_EQ(std::fmod(count, 8.0), 0.0);
  // value_sum_ is count/8 times the column sums of h_t.
  for (int32 j = 0; j < 4; j++) {
    double h_sum = 0.0;
    for (int32 r = 0; r < 8; r++) h_sum += out.Mat()(r, j);
    EXPECT_NEAR(c->Stats().value_sum_.Vec()(j), h_sum * count / 8, 1e-3);
  }
  Matrix<BaseFloat> diff = ToHost(c->WH());
  diff.AddMat(-1.0, w_before);
  EXPECT_GT(diff.FrobeniusNorm(), 0.0);
  EXPECT_NE(c->Info().find(", count="), std::string::npos);
  EXPECT_NE(c->Info().find(", deriv-avg=[ "), std::string::npos);
  // On disk the sums are averages (sum / count in single precision, as in
  // Kaldi), so a round trip keeps them up to rounding.
  std::unique_ptr<GruNonlinearityComponent> back(new GruNonlinearityComponent());
  std::istringstream is(WriteToString(*c, true));
  back->Read(is, true);
  EXPECT_EQ(back->Stats().count_, count);
  for (int32 j = 0; j < 4; j++) {
    EXPECT_NEAR(back->Stats().value_sum_.Vec()(j),
                c->Stats().value_sum_.Vec()(j), 1e-3);
    EXPECT_NEAR(back->Stats().deriv_sum_.Vec()(j),
                c->Stats().deriv_sum_.Vec()(j), 1e-3);
  }
  EXPECT_EQ(back->Stats().self_repair_total_, c->Stats().self_repair_total_);
  EXPECT_TRUE(back->WH().ApproxEqual(c->WH(), 1e-7));
}

TEST(GruNonlinearity, ReferenceFilesInfoAndConfigErrors) {
  CheckReferenceSpans<GruNonlinearityComponent>(
      "x-gru.txt", "GruNonlinearityComponent", 1);
  std::unique_ptr<GruNonlinearityComponent> c(new GruNonlinearityComponent());
  std::istringstream is(SpansOf("x-gru.txt", "GruNonlinearityComponent")[0]);
  c->Read(is, false);
  EXPECT_EQ(c->Info(), KaldiInfo("x-gru.info", "gru1.gru_nonlin"));
  EXPECT_NE(ConfigError<GruNonlinearityComponent>("cell-dim=4 recurrent-dim=5")
                .find("recurrent-dim=5"),
            std::string::npos);
  EXPECT_NE(ConfigError<GruNonlinearityComponent>("recurrent-dim=5").find("cell-dim"),
            std::string::npos);
  EXPECT_NE(ConfigError<GruNonlinearityComponent>("cell-dim=4 rank-in=0")
                .find("rank-in=0"),
            std::string::npos);
  EXPECT_NE(ConfigError<GruNonlinearityComponent>("cell-dim=4 rank=3").find("rank"),
            std::string::npos);
}

TEST(OutputGruNonlinearity, PropagateMatchesNaiveEquations) {
  auto c = Make<OutputGruNonlinearityComponent>("cell-dim=4 param-mean=0.2");
  const int32 C = 4, rows = 5;
  RandomSource rs(41);
  CuMatrix<BaseFloat> cu_in = RandMat(rows, 3 * C, &rs);
  CuMatrix<BaseFloat> cu_out = NewMat(rows, 2 * C);
  c->Propagate(nullptr, cu_in, &cu_out);
  Matrix<BaseFloat> in = ToHost(cu_in), out = ToHost(cu_out);
  Vector<BaseFloat> w_h = ToHost(c->WH());
  for (int32 r = 0; r < rows; r++)
    for (int32 j = 0; j < C; j++) {
      double z = in(r, j), c_prev = in(r, 2 * C + j);
      double h = std::tanh(in(r, C + j) + w_h(j) * c_prev);
      EXPECT_NEAR(out(r, j), h, 1e-5);
      EXPECT_NEAR(out(r, C + j), (1 - z) * h + z * c_prev, 1e-5);
    }
}

TEST(OutputGruNonlinearity, DerivativesMatchFiniteDifferences) {
  // Parameters from a fixed seed (the component draws them from the global
  // generator); moderate values keep the finite differences accurate.
  DefaultRandomSource().Seed(43);
  RandomSource rs(43);
  for (int32 seed = 0; seed < 5; seed++) {
    auto c = Make<OutputGruNonlinearityComponent>(
        "cell-dim=5 self-repair-scale=0");
    CheckRecurrentDerivatives(*c, 4, c->InputDim(), 0.7, &rs);
  }
}

TEST(OutputGruNonlinearity, ReferenceFilesInfoUpdateAndConfigErrors) {
  CheckReferenceSpans<OutputGruNonlinearityComponent>(
      "x-gru.txt", "OutputGruNonlinearityComponent", 1);
  std::unique_ptr<OutputGruNonlinearityComponent> c(
      new OutputGruNonlinearityComponent());
  std::istringstream is(
      SpansOf("x-gru.txt", "OutputGruNonlinearityComponent")[0]);
  c->Read(is, false);
  EXPECT_EQ(c->Info(), KaldiInfo("x-gru.info", "opgru1.gru_nonlin"));
  // A natural-gradient update changes w_h.
  RandomSource rs(4);
  CuMatrix<BaseFloat> in = RandMat(6, c->InputDim(), &rs);
  CuMatrix<BaseFloat> out = NewMat(6, c->OutputDim());
  c->Propagate(nullptr, in, &out);
  Vector<BaseFloat> before = ToHost(c->WH());
  CuMatrix<BaseFloat> out_deriv = RandMat(6, c->OutputDim(), &rs), empty;
  c->Backprop("test", nullptr, in, out, out_deriv, nullptr, c.get(), nullptr);
  Vector<BaseFloat> diff = ToHost(c->WH());
  diff.AddVec(-1.0, before);
  EXPECT_GT(diff.Norm(2.0), 0.0);
  EXPECT_NE(ConfigError<OutputGruNonlinearityComponent>("cell-dim=4 rank=0")
                .find("rank=0"),
            std::string::npos);
  EXPECT_NE(ConfigError<OutputGruNonlinearityComponent>("cell-dim=4 recurrent-dim=2")
                .find("recurrent-dim"),
            std::string::npos);
}

// ---- BackpropTruncation ----------------------------------------------------------

// Naive boundary rule: some multiple of the interval lies in
// (t - n - recurrence, t - n].
bool IsBoundary(int32 n, int32 t, int32 zi, int32 ri) {
  for (int32 u = t - n - ri + 1; u <= t - n; u++)
    if (((u % zi) + zi) % zi == 0) return true;
  return false;
}

TEST(BackpropTruncation, PrecomputeIndexesFollowsTheBoundaryRule) {
  auto c = Make<BackpropTruncationComponent>(
      "dim=3 zeroing-interval=7 recurrence-interval=3");
  std::vector<Index> indexes;
  for (int32 n = 0; n < 3; n++)
    for (int32 t = -12; t < 20; t++) indexes.push_back(Index(n, t));
  MiscComputationInfo misc;
  std::unique_ptr<ComponentPrecomputedIndexes> pc(
      c->PrecomputeIndexes(misc, indexes, indexes, true));
  auto *p = dynamic_cast<BackpropTruncationComponentPrecomputedIndexes *>(pc.get());
  ASSERT_TRUE(p != nullptr);
  ASSERT_EQ(p->zeroing.Dim(), static_cast<int32>(indexes.size()));
  int32 num = 0;
  for (size_t i = 0; i < indexes.size(); i++) {
    bool b = IsBoundary(indexes[i].n, indexes[i].t, 7, 3);
    num += b;
    EXPECT_EQ(p->zeroing.Vec()(i), b ? -1.0 : 0.0)
        << indexes[i].n << " " << indexes[i].t;
  }
  EXPECT_EQ(p->zeroing_sum, num);
  // Kaldi's format, and ReadNew through the registry.
  std::ostringstream os;
  p->Write(os, false);
  EXPECT_EQ(os.str().substr(0, 58),
            "<BackpropTruncationComponentPrecomputedIndexes> <Zeroing> ");
  EXPECT_NE(os.str().find("<ZeroingSum> " + std::to_string(num) +
                          " </BackpropTruncationComponentPrecomputedIndexes> "),
            std::string::npos);
  for (int b = 0; b < 2; b++) {
    std::ostringstream bs;
    p->Write(bs, b == 1);
    std::istringstream is(bs.str());
    std::unique_ptr<ComponentPrecomputedIndexes> back(
        ComponentPrecomputedIndexes::ReadNew(is, b == 1));
    std::ostringstream bs2;
    back->Write(bs2, b == 1);
    EXPECT_EQ(bs2.str(), bs.str());
  }
}

TEST(BackpropTruncation, BackpropClipsAndZeroesByTheNaiveRule) {
  auto c = Make<BackpropTruncationComponent>(
      "dim=4 scale=0.5 clipping-threshold=3 zeroing-threshold=2 "
      "zeroing-interval=4 recurrence-interval=1");
  // Rows t = 0..7 of sequence 0: boundaries at t = 0 and t = 4.
  std::vector<Index> indexes;
  for (int32 t = 0; t < 8; t++) indexes.push_back(Index(0, t));
  MiscComputationInfo misc;
  std::unique_ptr<ComponentPrecomputedIndexes> pc(
      c->PrecomputeIndexes(misc, indexes, indexes, true));
  RandomSource rs(9);
  CuMatrix<BaseFloat> out_deriv = RandMat(8, 4, &rs);
  // Row norms after the 0.5 scale: small (kept), > clip (clipped), > zeroing
  // at a boundary (zeroed), between the thresholds elsewhere (kept).
  const double norms[8] = {5.0, 0.5, 8.0, 2.5, 2.5, 1.0, 10.0, 3.5};
  for (int32 r = 0; r < 8; r++) {
    CuSubVector<BaseFloat> row(out_deriv, r);
    row.Scale(2.0 * norms[r] / row.Norm(2.0));
  }
  CuMatrix<BaseFloat> in_deriv = NewMat(8, 4), empty;
  std::unique_ptr<Component> stats(c->Copy());
  c->Backprop("test", pc.get(), empty, empty, out_deriv, nullptr, stats.get(),
              &in_deriv);
  int32 clipped = 0, zeroed = 0;
  for (int32 r = 0; r < 8; r++) {
    double norm = norms[r];
    double factor = 0.5;
    if (norm >= 3.0) {
      clipped++;
      factor *= 3.0 / norm;
    }
    bool boundary = (r % 4 == 0);
    if (boundary && norm > 2.0) {
      zeroed++;
      factor = 0.0;
    }
    for (int32 k = 0; k < 4; k++)
      EXPECT_NEAR(in_deriv.Mat()(r, k), factor * out_deriv.Mat()(r, k), 1e-5)
          << r;
  }
  auto *s = dynamic_cast<BackpropTruncationComponent *>(stats.get());
  EXPECT_EQ(clipped, 4);
  EXPECT_EQ(zeroed, 2);
  EXPECT_EQ(s->NumClipped(), clipped);
  EXPECT_EQ(s->NumZeroed(), zeroed);
  EXPECT_EQ(s->Count(), 8);
  EXPECT_EQ(s->CountZeroingBoundaries(), 2);
  EXPECT_EQ(s->Info(),
            "BackpropTruncationComponent, dim=4, scale=0.5, count=8, "
            "recurrence-interval=1, clipping-threshold=3, clipped-proportion=0.5"
            ", zeroing-threshold=2, zeroing-interval=4, "
                "zeroed-proportion=1, count-zeroing-boundaries=2");
  // In place (kBackpropInPlace) gives the same.
  CuMatrix<BaseFloat> d = Contig(out_deriv);
  c->Backprop("test", pc.get(), empty, empty, d, nullptr, nullptr, &d);
  EXPECT_TRUE(d.ApproxEqual(in_deriv, 1e-6));
  // Forward: scale times the input, also in place.
  CuMatrix<BaseFloat> x = RandMat(3, 4, &rs), y = NewMat(3, 4);
  c->Propagate(pc.get(), x, &y);
  CuMatrix<BaseFloat> half(x);
  half.Scale(0.5);
  EXPECT_TRUE(y.ApproxEqual(half, 1e-7));
  c->Propagate(nullptr, x, &x);
  EXPECT_TRUE(x.ApproxEqual(half, 1e-7));
}

TEST(BackpropTruncation, ReferenceFilesInfoAndConfigErrors) {
  CheckReferenceSpans<BackpropTruncationComponent>(
      "later/lstm.txt", "BackpropTruncationComponent", 1);
  CheckReferenceSpans<BackpropTruncationComponent>(
      "x-gru.txt", "BackpropTruncationComponent", 2);
  CheckReferenceSpans<BackpropTruncationComponent>(
      "rand021.txt", "BackpropTruncationComponent", 2);
  std::unique_ptr<BackpropTruncationComponent> c(new BackpropTruncationComponent());
  std::istringstream is(SpansOf("later/lstm.txt", "BackpropTruncationComponent")[0]);
  c->Read(is, false);
  EXPECT_EQ(c->Info(), KaldiInfo("later/lstm.info", "lstm1.cr_trunc"));
  EXPECT_EQ(c->Properties(), kPropagateInPlace | kBackpropInPlace);
  EXPECT_NE(ConfigError<BackpropTruncationComponent>("scale=1").find("dim"),
            std::string::npos);
  EXPECT_NE(ConfigError<BackpropTruncationComponent>("dim=3 zeroing-interval=0")
                .find("zeroing-interval=0"),
            std::string::npos);
  EXPECT_NE(ConfigError<BackpropTruncationComponent>("dim=3 recurrence-interval=-1")
                .find("recurrence-interval=-1"),
            std::string::npos);
  EXPECT_NE(ConfigError<BackpropTruncationComponent>("dim=3 clipping-threshold=-1")
                .find("clipping-threshold=-1"),
            std::string::npos);
  // An older file without <Scale> reads with scale 1.
  std::istringstream old(
      "<BackpropTruncationComponent> <Dim> 2 <ClippingThreshold> 30 "
      "<ZeroingThreshold> 15 <ZeroingInterval> 20 <RecurrenceInterval> 1 "
      "<NumElementsClipped> 0 <NumElementsZeroed> 0 <NumElementsProcessed> 0 "
      "<NumZeroingBoundaries> 0 </BackpropTruncationComponent> ");
  BackpropTruncationComponent o;
  o.Read(old, false);
  EXPECT_NE(o.Info().find("dim=2, scale=1,"), std::string::npos);
}

}  // namespace
}  // namespace nnet3
