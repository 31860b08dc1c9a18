// tests/nnet3/components/affine-test.cc
// AffineComponent, NaturalGradientAffineComponent, LinearComponent and
// FixedAffineComponent: forward pass against naive loops, derivatives
// against finite differences, flags, I/O against Kaldi's reference files
// (text and binary spans, nnet3-info lines), config handling.
#include "nnet3/components/affine.h"

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "nnet3/components/component-test-util.h"

namespace nnet3 {
namespace {

using testing::RandMat;

std::unique_ptr<Component> FromConfig(Component *c, const std::string &line) {
  std::unique_ptr<Component> ans(c);
  ConfigLine cfl;
  std::string error;
  EXPECT_TRUE(cfl.ParseLine(line, &error)) << error;
  ans->InitFromConfig(&cfl);
  return ans;
}

// The error message of InitFromConfig on 'line' ("" if none).
std::string ConfigError(Component *c, const std::string &line) {
  std::unique_ptr<Component> owner(c);
  ConfigLine cfl;
  EXPECT_TRUE(cfl.ParseLine(line));
  try {
    c->InitFromConfig(&cfl);
  } catch (const UserError &e) {
    return e.what();
  }
  return "";
}

Component *NewOfType(const std::string &type) {
  if (type == "AffineComponent") return new AffineComponent();
  if (type == "NaturalGradientAffineComponent")
    return new NaturalGradientAffineComponent();
  if (type == "LinearComponent") return new LinearComponent();
  if (type == "FixedAffineComponent") return new FixedAffineComponent();
  return nullptr;
}

// out(r, i) = b(i) + sum_j W(i, j) in(r, j), in double.
Matrix<BaseFloat> NaiveAffine(const MatrixBase<BaseFloat> &in,
                              const MatrixBase<BaseFloat> &w,
                              const VectorBase<BaseFloat> *b) {
  Matrix<BaseFloat> out(in.NumRows(), w.NumRows());
  for (int32 r = 0; r < in.NumRows(); r++)
    for (int32 i = 0; i < w.NumRows(); i++) {
      double s = b ? (*b)(i) : 0.0;
      for (int32 j = 0; j < w.NumCols(); j++) s += double(w(i, j)) * in(r, j);
      out(r, i) = s;
    }
  return out;
}

TEST(AffineTest, PropagateMatchesNaiveLoops) {
  RandomSource rs(1);
  auto affine = FromConfig(new AffineComponent(), "input-dim=7 output-dim=5");
  auto ng = FromConfig(new NaturalGradientAffineComponent(),
                       "input-dim=7 output-dim=5");
  auto linear = FromConfig(new LinearComponent(), "input-dim=7 output-dim=5");
  auto fixed = FromConfig(new FixedAffineComponent(), "input-dim=7 output-dim=5");
  CuMatrix<BaseFloat> in = RandMat(9, 7, &rs);
  for (Component *c : {affine.get(), ng.get()}) {
    AffineComponent *a = dynamic_cast<AffineComponent *>(c);
    Matrix<BaseFloat> expected = NaiveAffine(
        in.Mat(), a->LinearParams().Mat(), &a->BiasParams().Vec());
    EXPECT_TRUE(ToHost(testing::Forward(*c, in)).ApproxEqual(expected, 1e-5));
  }
  LinearComponent *l = dynamic_cast<LinearComponent *>(linear.get());
  EXPECT_TRUE(ToHost(testing::Forward(*l, in)).ApproxEqual(
      NaiveAffine(in.Mat(), l->Params().Mat(), nullptr), 1e-5));
  FixedAffineComponent *f = dynamic_cast<FixedAffineComponent *>(fixed.get());
  EXPECT_TRUE(ToHost(testing::Forward(*f, in)).ApproxEqual(
      NaiveAffine(in.Mat(), f->LinearParams().Mat(), &f->BiasParams().Vec()),
      1e-5));
}

TEST(AffineTest, DerivativesAndFlags) {
  RandomSource rs(2);
  std::vector<std::unique_ptr<Component> > cs;
  cs.push_back(FromConfig(new AffineComponent(), "input-dim=6 output-dim=4"));
  cs.push_back(FromConfig(new NaturalGradientAffineComponent(),
                          "input-dim=6 output-dim=4"));
  cs.push_back(FromConfig(new LinearComponent(), "input-dim=6 output-dim=4"));
  cs.push_back(
      FromConfig(new FixedAffineComponent(), "input-dim=6 output-dim=4"));
  for (auto &c : cs) {
    SCOPED_TRACE(c->Type());
    testing::CheckDerivatives(*c, 8, &rs);
    testing::CheckPropertyFlags(*c, 8, &rs);
  }
}

TEST(AffineTest, SgdUpdateInPlace) {
  // to_update == this with learning rate 0.1: W += lr out_deriv^T in,
  // b += lr (column sums of out_deriv); in_deriv uses the old W.
  RandomSource rs(3);
  auto c = FromConfig(new AffineComponent(),
                      "input-dim=3 output-dim=2 learning-rate=0.1");
  AffineComponent *a = dynamic_cast<AffineComponent *>(c.get());
  Matrix<BaseFloat> w0 = ToHost(a->LinearParams());
  Vector<BaseFloat> b0 = ToHost(a->BiasParams());
  CuMatrix<BaseFloat> cu_in = RandMat(4, 3, &rs), cu_od = RandMat(4, 2, &rs);
  CuMatrix<BaseFloat> cu_in_deriv(4, 3);
  a->Backprop("", nullptr, cu_in, CuMatrix<BaseFloat>(), cu_od, nullptr, a,
              &cu_in_deriv);
  Matrix<BaseFloat> in = ToHost(cu_in), od = ToHost(cu_od),
                    in_deriv = ToHost(cu_in_deriv);
  for (int32 i = 0; i < 2; i++) {
    double bsum = b0(i);
    for (int32 r = 0; r < 4; r++) bsum += 0.1 * od(r, i);
    EXPECT_NEAR(a->BiasParams().Vec()(i), bsum, 1e-5);
    for (int32 j = 0; j < 3; j++) {
      double s = w0(i, j);
      for (int32 r = 0; r < 4; r++) s += 0.1 * od(r, i) * in(r, j);
      EXPECT_NEAR(a->LinearParams().Mat()(i, j), s, 1e-5);
    }
  }
  for (int32 r = 0; r < 4; r++)
    for (int32 j = 0; j < 3; j++) {
      double s = 0;
      for (int32 i = 0; i < 2; i++) s += od(r, i) * w0(i, j);
      EXPECT_NEAR(in_deriv(r, j), s, 1e-5);
    }
}

TEST(AffineTest, VectorizeDotProductScaleAdd) {
  RandomSource rs(4);
  auto c1 = FromConfig(new AffineComponent(), "input-dim=3 output-dim=2");
  auto c2 = FromConfig(new AffineComponent(), "input-dim=3 output-dim=2");
  AffineComponent *a1 = dynamic_cast<AffineComponent *>(c1.get());
  AffineComponent *a2 = dynamic_cast<AffineComponent *>(c2.get());
  ASSERT_EQ(a1->NumParameters(), 8);
  Vector<BaseFloat> v(8);
  a1->Vectorize(&v);
  // Layout: rows of W, then b.
  for (int32 i = 0; i < 2; i++) {
    for (int32 j = 0; j < 3; j++)
      EXPECT_EQ(v(i * 3 + j), a1->LinearParams().Mat()(i, j));
    EXPECT_EQ(v(6 + i), a1->BiasParams().Vec()(i));
  }
  double dot = 0;
  for (int32 i = 0; i < 2; i++) {
    for (int32 j = 0; j < 3; j++)
      dot += double(a1->LinearParams().Mat()(i, j)) *
             a2->LinearParams().Mat()(i, j);
    dot += double(a1->BiasParams().Vec()(i)) * a2->BiasParams().Vec()(i);
  }
  EXPECT_NEAR(a1->DotProduct(*a2), dot, 1e-5);
  Vector<BaseFloat> w(8);
  w.SetRandn(&rs);
  a2->UnVectorize(w);
  EXPECT_EQ(a2->LinearParams().Mat()(1, 2), w(5));
  EXPECT_EQ(a2->BiasParams().Vec()(1), w(7));
  // Scale and Add.
  std::unique_ptr<Component> c3(a1->Copy());
  AffineComponent *a3 = dynamic_cast<AffineComponent *>(c3.get());
  a3->Scale(2.0);
  a3->Add(-0.5, *a2);
  Vector<BaseFloat> v3(8);
  a3->Vectorize(&v3);
  for (int32 k = 0; k < 8; k++) EXPECT_NEAR(v3(k), 2.0 * v(k) - 0.5 * w(k), 1e-5);
  a3->Scale(0.0);
  a3->Vectorize(&v3);
  EXPECT_TRUE(v3.IsZero(0.0));

  auto l1 = FromConfig(new LinearComponent(), "input-dim=3 output-dim=2");
  LinearComponent *lc = dynamic_cast<LinearComponent *>(l1.get());
  ASSERT_EQ(lc->NumParameters(), 6);
  Vector<BaseFloat> lv(6);
  lc->Vectorize(&lv);
  double ldot = 0;
  for (int32 i = 0; i < 2; i++)
    for (int32 j = 0; j < 3; j++) {
      EXPECT_EQ(lv(i * 3 + j), lc->Params().Mat()(i, j));
      ldot += double(lc->Params().Mat()(i, j)) * lc->Params().Mat()(i, j);
    }
  EXPECT_NEAR(lc->DotProduct(*lc), ldot, 1e-4);
}

TEST(AffineTest, IoRoundTrip) {
  std::vector<std::unique_ptr<Component> > cs;
  cs.push_back(FromConfig(new AffineComponent(),
                          "input-dim=5 output-dim=3 learning-rate-factor=0.5 "
                          "max-change=0.75 l2-regularize=0.001 "
                          "orthonormal-constraint=1.0"));
  cs.push_back(FromConfig(new NaturalGradientAffineComponent(),
                          "input-dim=5 output-dim=3 orthonormal-constraint=-1 "
                          "rank-in=2 rank-out=1"));
  cs.push_back(FromConfig(new LinearComponent(),
                          "input-dim=5 output-dim=3 orthonormal-constraint=0.5 "
                          "use-natural-gradient=false"));
  cs.push_back(FromConfig(new FixedAffineComponent(), "input-dim=5 output-dim=3"));
  for (auto &c : cs) {
    std::string type = c->Type();
    testing::CheckIoRoundTrip(*c, [type] { return NewOfType(type); });
  }
  // A gradient writes <IsGradient>.
  dynamic_cast<UpdatableComponent *>(cs[0].get())->SetAsGradient();
  EXPECT_NE(testing::WriteToString(*cs[0], false).find("<IsGradient> T"),
            std::string::npos);
  testing::CheckIoRoundTrip(*cs[0], [] { return new AffineComponent(); });
}

// Every component of these types in Kaldi's text models is read and written
// back byte-identically, and through binary and back.
TEST(AffineTest, KaldiTextSpansRoundTrip) {
  for (const char *type : {"AffineComponent", "NaturalGradientAffineComponent",
                           "LinearComponent", "FixedAffineComponent"}) {
    std::vector<std::string> spans = testing::ReferenceSpans(type);
    EXPECT_FALSE(spans.empty()) << type;
    for (const std::string &span : spans) {
      std::unique_ptr<Component> c(NewOfType(type));
      std::istringstream is(span);
      c->Read(is, false);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, false), span), "") << type;
      std::string bin = testing::WriteToString(*c, true);
      std::unique_ptr<Component> c2(NewOfType(type));
      std::istringstream bis(bin);
      c2->Read(bis, true);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c2, false), span), "") << type;
    }
  }
}

// The same spans in Kaldi's binary models (.raw): the binary tokens are
// also "<Type> " ... "</Type> ".
TEST(AffineTest, KaldiBinarySpansRoundTrip) {
  int32 count = 0;
  for (const char *f : {"components_a", "components_b", "components_c", "seed",
                        "tdnn", "rand003", "rand006", "rand007", "rand012"}) {
    std::ifstream is(testing::ModelsDir() + f + ".raw", std::ios::binary);
    ASSERT_TRUE(is.good()) << f;
    std::stringstream ss;
    ss << is.rdbuf();
    std::string raw = ss.str();
    for (const char *type : {"AffineComponent", "NaturalGradientAffineComponent",
                             "LinearComponent", "FixedAffineComponent"}) {
      std::string open = std::string("<") + type + "> ",
          close = std::string("</") + type + "> ";
      size_t pos = 0;
      while ((pos = raw.find(open, pos)) != std::string::npos) {
        size_t end = raw.find(close, pos);
        ASSERT_NE(end, std::string::npos);
        std::string span = raw.substr(pos, end + close.size() - pos);
        std::unique_ptr<Component> c(NewOfType(type));
        std::istringstream bis(span);
        c->Read(bis, true);
        EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, true), span), "") << f << " " << type;
        count++;
        pos = end;
      }
    }
  }
  EXPECT_GT(count, 10);
}

// nnet3-info lines that Kaldi printed for components_a: "component name=X
// type=" followed by Info().
TEST(AffineTest, InfoMatchesKaldi) {
  std::ifstream info(testing::ModelsDir() + "components_a.info");
  ASSERT_TRUE(info.good());
  std::map<std::string, std::string> lines;
  std::string line;
  while (std::getline(info, line)) {
    if (line.compare(0, 15, "component name=") != 0) continue;
    size_t sp = line.find(' ', 15);
    lines[line.substr(15, sp - 15)] = line.substr(sp + 6);  // after " type="
  }
  // From the binary model: the text form rounds the floats.
  std::ifstream txt(testing::ModelsDir() + "components_a.raw", std::ios::binary);
  std::stringstream ss;
  ss << txt.rdbuf();
  std::string text = ss.str();
  for (const char *name : {"fixed", "affine", "ngaffine", "linear", "final"}) {
    std::string key = std::string("<ComponentName> ") + name + " ";
    size_t pos = text.find(key);
    ASSERT_NE(pos, std::string::npos) << name;
    std::istringstream is(text.substr(pos + key.size()));
    std::string tok;
    ReadToken(is, true, &tok);
    std::unique_ptr<Component> c(NewOfType(tok.substr(1, tok.size() - 2)));
    ASSERT_TRUE(c != nullptr) << tok;
    c->Read(is, true);
    EXPECT_EQ(c->Info(), lines[name]) << name;
  }
}

TEST(AffineTest, ConfigDefaultsAndMatrixFile) {
  // Kaldi's defaults for the natural-gradient ranks, seen in its files:
  // min(20, (input-dim+1)/2) and min(80, (output-dim+1)/2).
  auto ng = FromConfig(new NaturalGradientAffineComponent(),
                       "input-dim=32 output-dim=24");
  auto *n = dynamic_cast<NaturalGradientAffineComponent *>(ng.get());
  EXPECT_EQ(n->RankIn(), 16);
  EXPECT_EQ(n->RankOut(), 12);
  EXPECT_EQ(n->UpdatePeriod(), 4);
  EXPECT_EQ(n->NumSamplesHistory(), 2000.0);
  EXPECT_EQ(n->Alpha(), 4.0);
  auto ng2 = FromConfig(new NaturalGradientAffineComponent(),
                        "input-dim=200 output-dim=300");
  auto *n2 = dynamic_cast<NaturalGradientAffineComponent *>(ng2.get());
  EXPECT_EQ(n2->RankIn(), 20);
  EXPECT_EQ(n2->RankOut(), 80);

  // param-stddev and bias-mean/stddev: sample statistics.
  auto a = FromConfig(new AffineComponent(),
                      "input-dim=400 output-dim=300 bias-mean=2.0 "
                      "bias-stddev=0.5");
  auto *ap = dynamic_cast<AffineComponent *>(a.get());
  double sumsq = 0;
  for (int32 i = 0; i < 300; i++)
    for (int32 j = 0; j < 400; j++)
      sumsq += double(ap->LinearParams().Mat()(i, j)) *
               ap->LinearParams().Mat()(i, j);
  EXPECT_NEAR(std::sqrt(sumsq / (300 * 400)), 1.0 / 20.0, 0.002);
  EXPECT_NEAR(ap->BiasParams().Sum() / 300, 2.0, 0.1);
  EXPECT_EQ(ap->LearningRate(), BaseFloat(0.001));

  // matrix=FILE: Kaldi's own FixedAffineComponent made from this file.
  std::string mat = testing::ModelsDir() + "components_a.fixed-affine.mat";
  auto fixed = FromConfig(new FixedAffineComponent(), "matrix=" + mat);
  std::vector<std::string> spans =
      testing::ReferenceSpans("FixedAffineComponent");
  ASSERT_FALSE(spans.empty());
  EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*fixed, false), spans[0]), "");
  auto from_mat = FromConfig(new AffineComponent(), "matrix=" + mat);
  auto *fm = dynamic_cast<AffineComponent *>(from_mat.get());
  auto *fx = dynamic_cast<FixedAffineComponent *>(fixed.get());
  EXPECT_TRUE(fm->LinearParams().Equal(fx->LinearParams()));
  EXPECT_TRUE(fm->BiasParams().ApproxEqual(fx->BiasParams(), 0.0));
  EXPECT_EQ(fm->InputDim(), 36);
  EXPECT_EQ(fm->OutputDim(), 24);
}

TEST(AffineTest, ConfigErrors) {
  std::string e = ConfigError(new AffineComponent(),
                              "input-dim=3 output-dim=2 bogus-key=7");
  EXPECT_NE(e.find("bogus-key=7"), std::string::npos) << e;
  e = ConfigError(new NaturalGradientAffineComponent(),
                  "input-dim=3 output-dim=2 rank=7");
  EXPECT_NE(e.find("rank=7"), std::string::npos) << e;
  e = ConfigError(new LinearComponent(), "input-dim=3 output-dim=2 foo=1");
  EXPECT_NE(e.find("foo=1"), std::string::npos) << e;
  e = ConfigError(new FixedAffineComponent(), "input-dim=3 output-dim=2 x=1");
  EXPECT_NE(e.find("x=1"), std::string::npos) << e;
  e = ConfigError(new AffineComponent(), "input-dim=3");
  EXPECT_NE(e.find("output-dim"), std::string::npos) << e;
  e = ConfigError(new AffineComponent(), "input-dim=x output-dim=2");
  EXPECT_NE(e.find("input-dim"), std::string::npos) << e;
  for (Component *c : std::vector<Component *>{
           new AffineComponent(), new NaturalGradientAffineComponent(),
           new LinearComponent(), new FixedAffineComponent()}) {
    std::string type = c->Type();
    e = ConfigError(c, "matrix=/nonexistent/dir/m.mat");
    EXPECT_NE(e.find("/nonexistent/dir/m.mat"), std::string::npos)
        << type << ": " << e;
  }
  // A file that is not a matrix.
  std::string notmat = testing::ModelsDir() + "components_a.config";
  e = ConfigError(new AffineComponent(), "matrix=" + notmat);
  EXPECT_NE(e.find("components_a.config"), std::string::npos) << e;
  // input-dim inconsistent with the matrix.
  std::string mat = testing::ModelsDir() + "components_a.fixed-affine.mat";
  e = ConfigError(new AffineComponent(), "matrix=" + mat + " input-dim=35");
  EXPECT_NE(e.find("input-dim=35"), std::string::npos) << e;
}

TEST(AffineTest, ReadErrors) {
  // A truncated component and a wrong closing tag are errors, not crashes.
  std::vector<std::string> spans = testing::ReferenceSpans("AffineComponent");
  ASSERT_FALSE(spans.empty());
  std::string bad = spans[0];
  bad.replace(bad.find("</AffineComponent>"), 18, "</LinearComponent>");
  AffineComponent a;
  std::istringstream is(bad);
  EXPECT_THROW(a.Read(is, false), UserError);
  std::istringstream is2(spans[0].substr(0, spans[0].size() / 2));
  EXPECT_THROW(a.Read(is2, false), UserError);
}

}  // namespace
}  // namespace nnet3
