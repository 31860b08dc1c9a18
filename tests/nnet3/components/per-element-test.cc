// tests/nnet3/components/per-element-test.cc
// PerElementScale, NaturalGradientPerElementScale, PerElementOffset,
// ScaleAndOffset and ConstantFunction components: forward pass against
// naive loops, derivatives against finite differences, flags, I/O against
// Kaldi's reference files (text and binary spans, nnet3-info lines), config
// handling.
#include "nnet3/components/per-element.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
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
  if (type == "PerElementScaleComponent") return new PerElementScaleComponent();
  if (type == "NaturalGradientPerElementScaleComponent")
    return new NaturalGradientPerElementScaleComponent();
  if (type == "PerElementOffsetComponent")
    return new PerElementOffsetComponent();
  if (type == "ScaleAndOffsetComponent") return new ScaleAndOffsetComponent();
  if (type == "ConstantFunctionComponent")
    return new ConstantFunctionComponent();
  return nullptr;
}

const char *kTypes[] = {"PerElementScaleComponent",
                        "NaturalGradientPerElementScaleComponent",
                        "PerElementOffsetComponent", "ScaleAndOffsetComponent",
                        "ConstantFunctionComponent"};

// Random scales/offsets for a ScaleAndOffsetComponent (they start at 1, 0).
void Randomize(UpdatableComponent *c, RandomSource *rs) {
  Vector<BaseFloat> p(c->NumParameters());
  p.SetRandn(rs);
  c->UnVectorize(p);
}

TEST(PerElementTest, PropagateMatchesNaiveLoops) {
  RandomSource rs(1);
  Matrix<BaseFloat> in = ToHost(RandMat(5, 12, &rs));
  auto pes = FromConfig(new PerElementScaleComponent(),
                        "dim=12 param-mean=1 param-stddev=0.5");
  auto ngpes = FromConfig(new NaturalGradientPerElementScaleComponent(),
                          "dim=12 param-stddev=0.5");
  for (Component *c : {pes.get(), ngpes.get()}) {
    const CuVector<BaseFloat> &s =
        dynamic_cast<PerElementScaleComponent *>(c)->Scales();
    Matrix<BaseFloat> out = ToHost(testing::Forward(*c, in));
    for (int32 r = 0; r < 5; r++)
      for (int32 j = 0; j < 12; j++)
        EXPECT_NEAR(out(r, j), in(r, j) * s.Vec()(j), 1e-6);
  }
  auto peo = FromConfig(new PerElementOffsetComponent(),
                        "dim=12 block-dim=4 param-stddev=1.0");
  const CuVector<BaseFloat> &o =
      dynamic_cast<PerElementOffsetComponent *>(peo.get())->Offsets();
  ASSERT_EQ(o.Dim(), 4);
  Matrix<BaseFloat> out = ToHost(testing::Forward(*peo, in));
  for (int32 r = 0; r < 5; r++)
    for (int32 j = 0; j < 12; j++)
      EXPECT_NEAR(out(r, j), in(r, j) + o.Vec()(j % 4), 1e-6);
  auto sao = FromConfig(new ScaleAndOffsetComponent(), "dim=12 block-dim=3");
  auto *sp = dynamic_cast<ScaleAndOffsetComponent *>(sao.get());
  Randomize(sp, &rs);
  out = ToHost(testing::Forward(*sao, in));
  for (int32 r = 0; r < 5; r++)
    for (int32 j = 0; j < 12; j++)
      EXPECT_NEAR(out(r, j), in(r, j) * sp->Scales().Vec()(j % 3) +
                                 sp->Offsets().Vec()(j % 3), 1e-5);
  auto cf = FromConfig(new ConstantFunctionComponent(),
                       "input-dim=12 output-dim=3 output-stddev=1");
  auto *cp = dynamic_cast<ConstantFunctionComponent *>(cf.get());
  out = ToHost(testing::Forward(*cf, in));
  for (int32 r = 0; r < 5; r++)
    for (int32 j = 0; j < 3; j++) EXPECT_EQ(out(r, j), cp->Output().Vec()(j));
}

TEST(PerElementTest, DerivativesAndFlags) {
  RandomSource rs(2);
  std::vector<std::unique_ptr<Component> > cs;
  cs.push_back(FromConfig(new PerElementScaleComponent(),
                          "dim=6 param-stddev=0.5"));
  cs.push_back(FromConfig(new NaturalGradientPerElementScaleComponent(),
                          "dim=6 param-stddev=0.5"));
  cs.push_back(FromConfig(new PerElementOffsetComponent(),
                          "dim=6 param-stddev=0.5"));
  cs.push_back(FromConfig(new PerElementOffsetComponent(),
                          "dim=6 block-dim=2 param-stddev=0.5"));
  cs.push_back(FromConfig(new ScaleAndOffsetComponent(), "dim=6"));
  cs.push_back(FromConfig(new ScaleAndOffsetComponent(), "dim=6 block-dim=3"));
  cs.push_back(FromConfig(new ConstantFunctionComponent(),
                          "input-dim=4 output-dim=5 output-stddev=1"));
  cs.push_back(FromConfig(new ConstantFunctionComponent(),
                          "input-dim=5 output-dim=5 is-updatable=false"));
  for (auto &c : cs) {
    SCOPED_TRACE(c->Type());
    if (c->Type() == "ScaleAndOffsetComponent")
      Randomize(dynamic_cast<UpdatableComponent *>(c.get()), &rs);
    testing::CheckDerivatives(*c, 7, &rs);
    testing::CheckPropertyFlags(*c, 7, &rs);
  }
}

TEST(PerElementTest, ScaleAndOffsetUpdateInPlace) {
  // to_update == this, in-place backprop: the gradient uses the old
  // parameters and the input recovered from the output (plain SGD, so that
  // the update is the gradient; natural-gradient-test covers the other).
  RandomSource rs(3);
  auto c = FromConfig(new ScaleAndOffsetComponent(),
                      "dim=4 block-dim=2 learning-rate=0.5 "
                      "use-natural-gradient=false");
  auto *s = dynamic_cast<ScaleAndOffsetComponent *>(c.get());
  Randomize(s, &rs);
  Vector<BaseFloat> s0 = ToHost(s->Scales()), o0 = ToHost(s->Offsets());
  CuMatrix<BaseFloat> cu_in = RandMat(3, 4, &rs);
  CuMatrix<BaseFloat> out = testing::Forward(*s, cu_in);
  CuMatrix<BaseFloat> cu_od = RandMat(3, 4, &rs), cu_d = testing::Contig(cu_od);
  s->Backprop("", nullptr, CuMatrix<BaseFloat>(), out, cu_d, nullptr, s, &cu_d);
  Matrix<BaseFloat> in = ToHost(cu_in), od = ToHost(cu_od), d = ToHost(cu_d);
  for (int32 k = 0; k < 2; k++) {
    double gs = 0, go = 0;
    for (int32 r = 0; r < 3; r++)
      for (int32 j = k; j < 4; j += 2) {
        gs += od(r, j) * in(r, j);
        go += od(r, j);
      }
    EXPECT_NEAR(s->Scales().Vec()(k), s0(k) + 0.5 * gs, 1e-4);
    EXPECT_NEAR(s->Offsets().Vec()(k), o0(k) + 0.5 * go, 1e-4);
  }
  for (int32 r = 0; r < 3; r++)
    for (int32 j = 0; j < 4; j++)
      EXPECT_NEAR(d(r, j), od(r, j) * s0(j % 2), 1e-5);
}

TEST(PerElementTest, VectorizeDotProductScaleAdd) {
  RandomSource rs(4);
  std::vector<std::unique_ptr<Component> > cs;
  cs.push_back(FromConfig(new PerElementScaleComponent(), "dim=5 param-stddev=1"));
  cs.push_back(FromConfig(new NaturalGradientPerElementScaleComponent(),
                          "dim=5 param-stddev=1"));
  cs.push_back(FromConfig(new PerElementOffsetComponent(),
                          "dim=10 block-dim=5 param-stddev=1"));
  cs.push_back(FromConfig(new ScaleAndOffsetComponent(), "dim=10 block-dim=5"));
  cs.push_back(FromConfig(new ConstantFunctionComponent(),
                          "input-dim=3 output-dim=5 output-stddev=1"));
  const int32 expected_num[] = {5, 5, 5, 10, 5};
  for (size_t i = 0; i < cs.size(); i++) {
    auto *u = dynamic_cast<UpdatableComponent *>(cs[i].get());
    ASSERT_EQ(u->NumParameters(), expected_num[i]) << u->Type();
    int32 n = u->NumParameters();
    Vector<BaseFloat> v(n), w(n), back(n);
    v.SetRandn(&rs);
    w.SetRandn(&rs);
    u->UnVectorize(v);
    u->Vectorize(&back);
    EXPECT_TRUE(back.ApproxEqual(v, 0.0)) << u->Type();
    std::unique_ptr<Component> other(u->Copy());
    auto *uo = dynamic_cast<UpdatableComponent *>(other.get());
    uo->UnVectorize(w);
    double dot = 0;
    for (int32 k = 0; k < n; k++) dot += double(v(k)) * w(k);
    EXPECT_NEAR(u->DotProduct(*uo), dot, 1e-4) << u->Type();
    u->Scale(3.0);
    u->Add(2.0, *uo);
    u->Vectorize(&back);
    for (int32 k = 0; k < n; k++)
      EXPECT_NEAR(back(k), 3 * v(k) + 2 * w(k), 1e-5) << u->Type();
  }
  // The accessors agree with the vector layout.
  auto *sao = dynamic_cast<ScaleAndOffsetComponent *>(cs[3].get());
  Vector<BaseFloat> p(10);
  sao->Vectorize(&p);
  for (int32 k = 0; k < 5; k++) {
    EXPECT_EQ(p(k), sao->Scales().Vec()(k));
    EXPECT_EQ(p(5 + k), sao->Offsets().Vec()(k));
  }
  auto *cf = dynamic_cast<ConstantFunctionComponent *>(cs[4].get());
  Vector<BaseFloat> q(5);
  cf->Vectorize(&q);
  for (int32 k = 0; k < 5; k++) EXPECT_EQ(q(k), cf->Output().Vec()(k));
}

TEST(PerElementTest, IoRoundTrip) {
  std::vector<std::unique_ptr<Component> > cs;
  cs.push_back(FromConfig(new PerElementScaleComponent(),
                          "dim=5 param-stddev=1 learning-rate-factor=0.5 "
                          "max-change=0.3"));
  cs.push_back(FromConfig(new NaturalGradientPerElementScaleComponent(),
                          "dim=5 param-stddev=1 rank=2"));
  cs.push_back(FromConfig(new PerElementOffsetComponent(),
                          "dim=10 block-dim=5 param-stddev=1"));
  cs.push_back(FromConfig(new ScaleAndOffsetComponent(),
                          "dim=10 block-dim=5 use-natural-gradient=false"));
  cs.push_back(FromConfig(new ConstantFunctionComponent(),
                          "input-dim=3 output-dim=5 output-stddev=1 "
                          "is-updatable=false"));
  for (auto &c : cs) {
    std::string type = c->Type();
    testing::CheckIoRoundTrip(*c, [type] { return NewOfType(type); });
    dynamic_cast<UpdatableComponent *>(c.get())->SetAsGradient();
    testing::CheckIoRoundTrip(*c, [type] { return NewOfType(type); });
  }
}

TEST(PerElementTest, KaldiTextSpansRoundTrip) {
  for (const char *type : kTypes) {
    std::vector<std::string> spans = testing::ReferenceSpans(type);
    EXPECT_FALSE(spans.empty()) << type;
    for (const std::string &span : spans) {
      std::unique_ptr<Component> c(NewOfType(type));
      std::istringstream is(span);
      c->Read(is, false);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, false), span), "")
          << type;
      std::string bin = testing::WriteToString(*c, true);
      std::unique_ptr<Component> c2(NewOfType(type));
      std::istringstream bis(bin);
      c2->Read(bis, true);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c2, false), span), "")
          << type;
    }
  }
}

TEST(PerElementTest, KaldiBinarySpansRoundTrip) {
  int32 count = 0;
  for (const char *f : {"components_c", "rnn", "rand002", "rand004", "rand005",
                        "rand008", "rand009", "rand010", "rand011", "rand013",
                        "rand015", "rand016", "rand017", "rand019"}) {
    std::ifstream is(testing::ModelsDir() + f + ".raw", std::ios::binary);
    ASSERT_TRUE(is.good()) << f;
    std::stringstream ss;
    ss << is.rdbuf();
    std::string raw = ss.str();
    for (const char *type : kTypes) {
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
        EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, true), span), "")
            << f << " " << type;
        count++;
        pos = end;
      }
    }
  }
  EXPECT_GE(count, 5);
}

TEST(PerElementTest, InfoMatchesKaldi) {
  std::ifstream info(testing::ModelsDir() + "components_c.info");
  ASSERT_TRUE(info.good());
  std::map<std::string, std::string> lines;
  std::string line;
  while (std::getline(info, line)) {
    if (line.compare(0, 15, "component name=") != 0) continue;
    size_t sp = line.find(' ', 15);
    lines[line.substr(15, sp - 15)] = line.substr(sp + 6);
  }
  // From the binary model: the text form rounds the floats.
  std::ifstream txt(testing::ModelsDir() + "components_c.raw", std::ios::binary);
  std::stringstream ss;
  ss << txt.rdbuf();
  std::string text = ss.str();
  for (const char *name : {"pes", "peo", "ngpes", "sao", "constfn"}) {
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

TEST(PerElementTest, ConfigDefaults) {
  auto pes = FromConfig(new PerElementScaleComponent(), "dim=4");
  auto *p = dynamic_cast<PerElementScaleComponent *>(pes.get());
  for (int32 k = 0; k < 4; k++)
    EXPECT_EQ(p->Scales().Vec()(k), 1.0);  // mean 1, stddev 0
  auto peo = FromConfig(new PerElementOffsetComponent(), "dim=4");
  auto *o = dynamic_cast<PerElementOffsetComponent *>(peo.get());
  EXPECT_TRUE(o->Offsets().IsZero(0.0));
  EXPECT_EQ(o->Properties() & kInputContiguous, 0);
  auto peo2 = FromConfig(new PerElementOffsetComponent(), "dim=4 block-dim=2");
  EXPECT_NE(peo2->Properties() & kInputContiguous, 0);
  auto sao = FromConfig(new ScaleAndOffsetComponent(), "dim=4");
  std::string s = testing::WriteToString(*sao, false);
  EXPECT_NE(s.find("<UseNaturalGradient> T <Rank> 20 "), std::string::npos) << s;
  auto ngpes = FromConfig(new NaturalGradientPerElementScaleComponent(), "dim=4");
  s = testing::WriteToString(*ngpes, false);
  EXPECT_NE(s.find("<Rank> 8 <UpdatePeriod> 10 <NumSamplesHistory> 2000 "
                   "<Alpha> 4 "), std::string::npos) << s;
  auto cf = FromConfig(new ConstantFunctionComponent(),
                       "input-dim=3 output-dim=2");
  s = testing::WriteToString(*cf, false);
  EXPECT_NE(s.find("<IsUpdatable> T <UseNaturalGradient> T "),
            std::string::npos) << s;
  EXPECT_EQ(cf->Properties(), kUpdatableComponent | kBackpropAdds);
  // vector=FILE for the scale and offset (Kaldi vector files exist among the
  // reference data).
  std::string vec = testing::ModelsDir() + "components_b.scales.vec";
  auto pv = FromConfig(new PerElementScaleComponent(), "vector=" + vec);
  EXPECT_EQ(pv->InputDim(), 12);
  EXPECT_NEAR(
      dynamic_cast<PerElementScaleComponent *>(pv.get())->Scales().Vec()(0),
      0.9446, 1e-6);
  auto ov = FromConfig(new PerElementOffsetComponent(),
                       "vector=" + vec + " dim=24");
  EXPECT_EQ(ov->InputDim(), 24);
  EXPECT_EQ(dynamic_cast<UpdatableComponent *>(ov.get())->NumParameters(), 12);
  auto nv = FromConfig(new NaturalGradientPerElementScaleComponent(),
                       "scales=" + vec);
  EXPECT_EQ(nv->InputDim(), 12);
}

TEST(PerElementTest, ConfigErrors) {
  std::string e = ConfigError(new PerElementScaleComponent(), "dim=3 bogus=1");
  EXPECT_NE(e.find("bogus=1"), std::string::npos) << e;
  e = ConfigError(new NaturalGradientPerElementScaleComponent(), "dim=3 zz=2");
  EXPECT_NE(e.find("zz=2"), std::string::npos) << e;
  e = ConfigError(new PerElementOffsetComponent(), "dim=6 block-dim=4");
  EXPECT_NE(e.find("block-dim=4"), std::string::npos) << e;
  e = ConfigError(new ScaleAndOffsetComponent(), "dim=6 block-dim=5");
  EXPECT_NE(e.find("block-dim=5"), std::string::npos) << e;
  e = ConfigError(new ScaleAndOffsetComponent(), "dim=6 param-stddev=1");
  EXPECT_NE(e.find("param-stddev=1"), std::string::npos) << e;
  e = ConfigError(new ConstantFunctionComponent(), "input-dim=3");
  EXPECT_NE(e.find("output-dim"), std::string::npos) << e;
  e = ConfigError(new ConstantFunctionComponent(),
                  "input-dim=3 output-dim=2 is-updatable=maybe");
  EXPECT_NE(e.find("is-updatable"), std::string::npos) << e;
  e = ConfigError(new ConstantFunctionComponent(),
                  "input-dim=3 output-dim=2 dim=3");
  EXPECT_NE(e.find("dim=3"), std::string::npos) << e;
  e = ConfigError(new PerElementScaleComponent(), "param-mean=2");
  EXPECT_NE(e.find("dim"), std::string::npos) << e;
  e = ConfigError(new PerElementScaleComponent(), "vector=/no/such/file.vec");
  EXPECT_NE(e.find("/no/such/file.vec"), std::string::npos) << e;
  e = ConfigError(new PerElementOffsetComponent(),
                  "vector=" + testing::ModelsDir() + "components_b.scales.vec" +
                      " dim=13");
  EXPECT_NE(e.find("dim=13"), std::string::npos) << e;
}

}  // namespace
}  // namespace nnet3
