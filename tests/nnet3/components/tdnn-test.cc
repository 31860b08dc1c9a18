// tests/nnet3/components/tdnn-test.cc
// TdnnComponent: Propagate on reordered (and blank-padded) Index layouts
// against a naive sum over time offsets that looks each input frame up by
// its Index; input and parameter derivatives against central finite
// differences, through ReorderIndexes/PrecomputeIndexes/Propagate/Backprop
// (no subsampling, subsampling by 3, gaps, with and without bias); the
// natural-gradient and plain updates; I/O round trips of the component and
// of its precomputed indexes; Kaldi's text and binary spans and Info()
// lines (rand020, later/tdnnf); config defaults and errors.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "component-test-util.h"
#include "nnet3/components/tdnn.h"

namespace nnet3 {
namespace {

std::unique_ptr<TdnnComponent> MakeTdnn(const std::string &line) {
  std::unique_ptr<Component> c = testing::FromConfig("TdnnComponent", line);
  return std::unique_ptr<TdnnComponent>(
      dynamic_cast<TdnnComponent *>(c.release()));
}

// One computation step: indexes as the compiler would pass them after
// ReorderIndexes, the precomputed indexes, and an input matrix whose blank
// rows are zero.
struct Step {
  std::vector<Index> in_indexes, out_indexes;
  std::unique_ptr<ComponentPrecomputedIndexes> pre;
  CuMatrix<BaseFloat> in;
};

// Outputs: for each n in {0..num_seq-1}, t = out_start, out_start + stride,
// ... (num_out of them), except those listed in 'skip_out'; inputs: whatever
// GetInputIndexes asks for, except the t values in 'skip_in' (whose outputs
// are then dropped too since they are not computable).
void MakeStep(const TdnnComponent &c, int32 num_seq, int32 out_start,
              int32 stride, int32 num_out, const std::vector<Index> &skip_out,
              RandomSource *rs, Step *step) {
  std::vector<Index> outs;
  std::vector<Index> ins;
  std::map<Index, bool> seen;
  MiscComputationInfo misc;
  for (int32 n = num_seq - 1; n >= 0; n--) {  // deliberately not sorted
    for (int32 i = 0; i < num_out; i++) {
      Index o(n, out_start + i * stride);
      bool skip = false;
      for (const Index &s : skip_out) skip = skip || (s == o);
      if (skip) continue;
      outs.push_back(o);
      std::vector<Index> needed;
      c.GetInputIndexes(misc, o, &needed);
      for (const Index &ix : needed)
        if (!seen[ix]) {
          seen[ix] = true;
          ins.push_back(ix);
        }
    }
  }
  c.ReorderIndexes(&ins, &outs);
  step->in_indexes = ins;
  step->out_indexes = outs;
  step->pre.reset(c.PrecomputeIndexes(misc, ins, outs, true));
  ASSERT_TRUE(step->pre != nullptr);
  step->in = testing::RandMat(static_cast<int32>(ins.size()), c.InputDim(), rs);
  for (size_t r = 0; r < ins.size(); r++)
    if (ins[r].t == kNoTime) step->in.Row(r).SetZero();
}

// Naive output: for each non-blank output row, bias + sum_k W_k x(t + o_k),
// with x looked up by Index among the input rows. Blank rows stay zero.
Matrix<BaseFloat> NaiveOutput(const TdnnComponent &c, const Step &s) {
  std::map<Index, int32> row_of;
  for (size_t r = 0; r < s.in_indexes.size(); r++)
    if (s.in_indexes[r].t != kNoTime)
      row_of[s.in_indexes[r]] = static_cast<int32>(r);
  int32 in_dim = c.InputDim(), out_dim = c.OutputDim();
  const std::vector<int32> &offs = c.TimeOffsets();
  Matrix<BaseFloat> in = ToHost(s.in), w = ToHost(c.LinearParams());
  Vector<BaseFloat> b = ToHost(c.BiasParams());
  Matrix<BaseFloat> out(static_cast<int32>(s.out_indexes.size()), out_dim);
  for (size_t r = 0; r < s.out_indexes.size(); r++) {
    const Index &o = s.out_indexes[r];
    if (o.t == kNoTime) continue;
    for (int32 j = 0; j < out_dim; j++) {
      double sum = b.Dim() ? b(j) : 0.0;
      for (size_t k = 0; k < offs.size(); k++) {
        auto it = row_of.find(Index(o.n, o.t + offs[k], o.x));
        EXPECT_TRUE(it != row_of.end());
        if (it == row_of.end()) continue;
        for (int32 d = 0; d < in_dim; d++)
          sum += double(w(j, k * in_dim + d)) * in(it->second, d);
      }
      out(r, j) = sum;
    }
  }
  return out;
}

// Component output with blank output rows zeroed (they are don't-cares).
CuMatrix<BaseFloat> RunTdnn(const TdnnComponent &c, const Step &s,
                            const CuMatrixBase<BaseFloat> &in) {
  CuMatrix<BaseFloat> out = testing::NewMat(
      static_cast<int32>(s.out_indexes.size()), c.OutputDim());
  c.DeleteMemo(c.Propagate(s.pre.get(), in, &out));
  for (size_t r = 0; r < s.out_indexes.size(); r++)
    if (s.out_indexes[r].t == kNoTime) out.Row(r).SetZero();
  return out;
}

struct Case {
  const char *config;
  int32 num_seq, out_start, stride, num_out;
  std::vector<Index> skip_out;
};

std::vector<Case> Cases() {
  return {
      {"input-dim=3 output-dim=4 time-offsets=-1,0,2", 2, 0, 1, 4, {}},
      {"input-dim=3 output-dim=2 time-offsets=-3,0,3 use-bias=false", 2, 0, 3,
       3, {}},
      {"input-dim=2 output-dim=3 time-offsets=-2,1", 3, -1, 3, 3,
       {Index(1, 2)}},
      {"input-dim=4 output-dim=3 time-offsets=0", 1, 5, 2, 3, {Index(0, 7)}},
      {"input-dim=2 output-dim=2 time-offsets=-1,1", 2, 4, 1, 1, {}},
      {"input-dim=3 output-dim=5 time-offsets=-6,-3,0 bias-mean=1", 2, 1, 6,
       2, {}},
  };
}

TEST(TdnnTest, PropagateMatchesNaiveSum) {
  RandomSource rs(11);
  for (const Case &cs : Cases()) {
    std::unique_ptr<TdnnComponent> c = MakeTdnn(cs.config);
    Step s;
    MakeStep(*c, cs.num_seq, cs.out_start, cs.stride, cs.num_out, cs.skip_out,
             &rs, &s);
    Matrix<BaseFloat> got = ToHost(RunTdnn(*c, s, s.in)),
                      want = NaiveOutput(*c, s);
    EXPECT_TRUE(got.ApproxEqual(want, 1e-5)) << cs.config;
    // Without a bias, Propagate adds to what is there.
    if (c->BiasParams().Dim() == 0) {
      EXPECT_TRUE(c->Properties() & kPropagateAdds);
      CuMatrix<BaseFloat> out = testing::NewMat(got.NumRows(), got.NumCols());
      out.Set(1.0);
      c->Propagate(s.pre.get(), s.in, &out);
      for (size_t r = 0; r < s.out_indexes.size(); r++) {
        if (s.out_indexes[r].t == kNoTime) continue;
        for (int32 j = 0; j < out.NumCols(); j++)
          EXPECT_NEAR(out.Mat()(r, j), want(r, j) + 1.0, 1e-4);
      }
    } else {
      EXPECT_FALSE(c->Properties() & kPropagateAdds);
    }
  }
}

TEST(TdnnTest, SubsampledLayoutIsBlocked) {
  // Output stride 3, input stride 1: ReorderIndexes groups three input
  // frames per image, and PrecomputeIndexes gives row stride 3.
  std::unique_ptr<TdnnComponent> c =
      MakeTdnn("input-dim=2 output-dim=2 time-offsets=-1,1");
  RandomSource rs(3);
  Step s;
  MakeStep(*c, 2, 0, 3, 2, {}, &rs, &s);
  // Inputs t = -1, 1, 2, 4 -> grid -1..4 (6 frames, 2 blocks of 3).
  std::vector<Index> want = {Index(0, -1), Index(0, kNoTime), Index(0, 1),
                             Index(1, -1), Index(1, kNoTime), Index(1, 1),
                             Index(0, 2),  Index(0, kNoTime), Index(0, 4),
                             Index(1, 2),  Index(1, kNoTime), Index(1, 4)};
  EXPECT_EQ(s.in_indexes, want);
  std::vector<Index> want_out = {Index(0, 0), Index(1, 0), Index(0, 3),
                                 Index(1, 3)};
  EXPECT_EQ(s.out_indexes, want_out);
  const TdnnComponentPrecomputedIndexes *p =
      dynamic_cast<const TdnnComponentPrecomputedIndexes *>(s.pre.get());
  ASSERT_TRUE(p != nullptr);
  EXPECT_EQ(p->row_stride, 3);
  std::vector<int32> offsets = {0, 2};
  EXPECT_EQ(p->row_offsets, offsets);
}

TEST(TdnnTest, Derivatives) {
  RandomSource rs(5);
  for (const Case &cs : Cases()) {
    std::unique_ptr<TdnnComponent> c = MakeTdnn(cs.config);
    Step s;
    MakeStep(*c, cs.num_seq, cs.out_start, cs.stride, cs.num_out, cs.skip_out,
             &rs, &s);
    int32 rows_out = static_cast<int32>(s.out_indexes.size()),
          rows_in = static_cast<int32>(s.in_indexes.size());
    CuMatrix<BaseFloat> out_deriv =
        testing::RandMat(rows_out, c->OutputDim(), &rs);
    for (int32 r = 0; r < rows_out; r++)
      if (s.out_indexes[r].t == kNoTime) out_deriv.Row(r).SetZero();
    // Backprop adds: start from a known nonzero in_deriv.
    CuMatrix<BaseFloat> init = testing::RandMat(rows_in, c->InputDim(), &rs);
    CuMatrix<BaseFloat> in_deriv = testing::Contig(init);
    std::unique_ptr<Component> grad_c(c->Copy());
    TdnnComponent *grad = dynamic_cast<TdnnComponent *>(grad_c.get());
    grad->Scale(0.0);
    grad->SetAsGradient();
    CuMatrix<BaseFloat> empty;
    c->Backprop("test", s.pre.get(), s.in, empty, out_deriv, nullptr, grad,
                &in_deriv);
    in_deriv.AddMat(-1.0, init);

    auto objf = [&](const TdnnComponent &comp,
                    const CuMatrixBase<BaseFloat> &x) {
      return testing::MatDot(RunTdnn(comp, s, x), out_deriv);
    };
    const BaseFloat eps = 1e-2;
    for (int32 trial = 0; trial < 3; trial++) {
      CuMatrix<BaseFloat> dir = testing::RandMat(rows_in, c->InputDim(), &rs);
      for (int32 r = 0; r < rows_in; r++)
        if (s.in_indexes[r].t == kNoTime) dir.Row(r).SetZero();
      CuMatrix<BaseFloat> plus = testing::Contig(s.in),
                          minus = testing::Contig(s.in);
      plus.AddMat(eps, dir);
      minus.AddMat(-eps, dir);
      double numeric = (objf(*c, plus) - objf(*c, minus)) / (2 * eps);
      double analytic = testing::MatDot(in_deriv, dir);
      EXPECT_NEAR(numeric, analytic, 2e-3 * (1.0 + std::fabs(numeric)))
          << cs.config << " input derivative";
    }
    int32 n = c->NumParameters();
    Vector<BaseFloat> params(n), g(n);
    c->Vectorize(&params);
    grad->Vectorize(&g);
    EXPECT_GT(g.Norm(2.0), 0.0);
    for (int32 trial = 0; trial < 3; trial++) {
      Vector<BaseFloat> dir(n);
      dir.SetRandn(&rs);
      std::unique_ptr<TdnnComponent> cp(
          dynamic_cast<TdnnComponent *>(c->Copy())),
          cm(dynamic_cast<TdnnComponent *>(c->Copy()));
      Vector<BaseFloat> p(params), m(params);
      p.AddVec(eps, dir);
      m.AddVec(-eps, dir);
      cp->UnVectorize(p);
      cm->UnVectorize(m);
      double numeric = (objf(*cp, s.in) - objf(*cm, s.in)) / (2 * eps);
      double analytic = VecVec(g, dir);
      EXPECT_NEAR(numeric, analytic, 2e-3 * (1.0 + std::fabs(numeric)))
          << cs.config << " parameter derivative";
    }
  }
}

TEST(TdnnTest, UpdatesIncreaseTheObjective) {
  RandomSource rs(9);
  for (bool natural : {true, false}) {
    std::unique_ptr<TdnnComponent> c = MakeTdnn(
        std::string("input-dim=6 output-dim=5 time-offsets=-1,0,1 ") +
        "learning-rate=0.01 use-natural-gradient=" +
        (natural ? "true" : "false"));
    Step s;
    MakeStep(*c, 3, 0, 1, 10, {}, &rs, &s);
    CuMatrix<BaseFloat> out_deriv = testing::RandMat(
        static_cast<int32>(s.out_indexes.size()), c->OutputDim(), &rs);
    double before = testing::MatDot(RunTdnn(*c, s, s.in), out_deriv);
    std::unique_ptr<Component> upd(c->Copy());
    CuMatrix<BaseFloat> empty;
    c->Backprop("test", s.pre.get(), s.in, empty, out_deriv, nullptr,
                upd.get(), nullptr);
    const TdnnComponent &u = dynamic_cast<const TdnnComponent &>(*upd);
    double after = testing::MatDot(RunTdnn(u, s, s.in), out_deriv);
    EXPECT_GT(after, before) << "natural=" << natural;
    if (!natural) {
      // Plain SGD: the change equals lr times the gradient.
      std::unique_ptr<Component> gc(c->Copy());
      TdnnComponent *g = dynamic_cast<TdnnComponent *>(gc.get());
      g->Scale(0.0);
      g->SetAsGradient();
      c->Backprop("test", s.pre.get(), s.in, empty, out_deriv, nullptr, g,
                  nullptr);
      std::unique_ptr<Component> diff(upd->Copy());
      dynamic_cast<TdnnComponent *>(diff.get())->Add(-1.0, *c);
      int32 n = c->NumParameters();
      Vector<BaseFloat> dv(n), gv(n);
      dynamic_cast<TdnnComponent *>(diff.get())->Vectorize(&dv);
      g->Vectorize(&gv);
      gv.Scale(0.01);
      for (int32 i = 0; i < n; i++) EXPECT_NEAR(dv(i), gv(i), 1e-4);
    }
  }
  // Learning rate 0: nothing changes.
  std::unique_ptr<TdnnComponent> c =
      MakeTdnn("input-dim=2 output-dim=2 time-offsets=0,1 learning-rate=0");
  Step s;
  MakeStep(*c, 1, 0, 1, 3, {}, &rs, &s);
  std::unique_ptr<Component> upd(c->Copy());
  CuMatrix<BaseFloat> od = testing::RandMat(3, 2, &rs), empty;
  c->Backprop("t", s.pre.get(), s.in, empty, od, nullptr, upd.get(), nullptr);
  EXPECT_EQ(testing::WriteToString(*upd, false),
            testing::WriteToString(*c, false));
}

TEST(TdnnTest, ParameterArithmetic) {
  std::unique_ptr<TdnnComponent> a =
      MakeTdnn("input-dim=3 output-dim=2 time-offsets=-1,1");
  std::unique_ptr<TdnnComponent> nb =
      MakeTdnn("input-dim=3 output-dim=2 time-offsets=-1,1 use-bias=false");
  EXPECT_EQ(a->NumParameters(), 2 * 6 + 2);
  EXPECT_EQ(nb->NumParameters(), 2 * 6);
  Vector<BaseFloat> v(a->NumParameters());
  a->Vectorize(&v);
  EXPECT_FLOAT_EQ(v(1), a->LinearParams().Mat()(0, 1));
  EXPECT_FLOAT_EQ(v(6), a->LinearParams().Mat()(1, 0));
  EXPECT_FLOAT_EQ(v(12), a->BiasParams().Vec()(0));
  EXPECT_NEAR(a->DotProduct(*a), VecVec(v, v), 1e-4);
  std::unique_ptr<Component> b(a->Copy());
  dynamic_cast<TdnnComponent *>(b.get())->Scale(2.0);
  dynamic_cast<TdnnComponent *>(b.get())->Add(-1.0, *a);
  EXPECT_NEAR(dynamic_cast<TdnnComponent *>(b.get())->DotProduct(*a),
              VecVec(v, v), 1e-4);
  Vector<BaseFloat> w(v);
  w.Scale(3.0);
  a->UnVectorize(w);
  Vector<BaseFloat> w2(a->NumParameters());
  a->Vectorize(&w2);
  EXPECT_TRUE(w2.ApproxEqual(w, 1e-6));
  a->PerturbParams(0.1);
  a->Vectorize(&w2);
  EXPECT_FALSE(w2.ApproxEqual(w, 1e-6));
}

TEST(TdnnTest, ConfigDefaultsAndInfo) {
  std::unique_ptr<TdnnComponent> c =
      MakeTdnn("input-dim=48 output-dim=16 time-offsets=-3,0 "
               "orthonormal-constraint=-1 max-change=0.75 use-bias=false");
  EXPECT_EQ(c->InputDim(), 48);
  EXPECT_EQ(c->OutputDim(), 16);
  EXPECT_EQ(c->LinearParams().NumCols(), 96);
  EXPECT_EQ(c->BiasParams().Dim(), 0);
  std::string info = c->Info();
  EXPECT_EQ(info.rfind("TdnnComponent, input-dim=48, output-dim=16, "
                       "learning-rate=0.001, max-change=0.75, "
                       "orthonormal-constraint=-1, time-offsets=-3,0, "
                       "linear-params-rms=",
                       0),
            0u)
      << info;
  EXPECT_NE(info.find(", has-bias=false, rank-in=20, rank-out=8, "
                      "num-samples-history=2000, update-period=4, "
                      "alpha-in=4, alpha-out=4"),
            std::string::npos)
      << info;
  // param-stddev defaults to 1/sqrt(48*2).
  double ss = 0.0;
  for (int32 i = 0; i < 16; i++)
    for (int32 j = 0; j < 96; j++)
      ss += double(c->LinearParams().Mat()(i, j)) *
            c->LinearParams().Mat()(i, j);
  EXPECT_NEAR(std::sqrt(ss / (16 * 96)), 1.0 / std::sqrt(96.0), 0.01);

  std::unique_ptr<TdnnComponent> d =
      MakeTdnn("input-dim=4 output-dim=3 time-offsets=0 rank-in=2 "
               "rank-out=3 alpha-in=2 alpha-out=3 num-samples-history=500 "
               "param-stddev=0 bias-stddev=0 bias-mean=0.5");
  EXPECT_NE(d->Info().find("bias-{mean,stddev}=0.5,0, rank-in=2, rank-out=3, "
                           "num-samples-history=500, update-period=4, "
                           "alpha-in=2, alpha-out=3"),
            std::string::npos)
      << d->Info();
  std::unique_ptr<TdnnComponent> e =
      MakeTdnn("input-dim=4 output-dim=3 time-offsets=0 "
               "use-natural-gradient=false");
  EXPECT_NE(e->Info().find(", use-natural-gradient=false"), std::string::npos);
  EXPECT_EQ(e->Info().find("rank-in"), std::string::npos);
}

TEST(TdnnTest, ConfigErrors) {
  struct Bad {
    const char *line, *mention;
  } bad[] = {
      {"input-dim=4 output-dim=3", "time-offsets"},
      {"input-dim=4 output-dim=3 time-offsets=", "time-offsets"},
      {"input-dim=4 output-dim=3 time-offsets=0,a", "time-offsets"},
      {"input-dim=4 output-dim=3 time-offsets=0,0", "time-offsets"},
      {"input-dim=4 output-dim=3 time-offsets=1,0", "time-offsets"},
      {"output-dim=3 time-offsets=0", "input-dim"},
      {"input-dim=0 output-dim=3 time-offsets=0", "input-dim"},
      {"input-dim=4 output-dim=-2 time-offsets=0", "output-dim"},
      {"input-dim=4 time-offsets=0", "output-dim"},
      {"input-dim=4 output-dim=3 time-offsets=0 rank-in=0", "rank-in"},
      {"input-dim=4 output-dim=3 time-offsets=0 alpha-out=-1", "alpha-out"},
      {"input-dim=4 output-dim=3 time-offsets=0 num-samples-history=0",
       "num-samples-history"},
      {"input-dim=4 output-dim=3 time-offsets=0 foo=1", "foo"},
  };
  for (const Bad &b : bad) {
    std::string err = testing::ConfigError("TdnnComponent", b.line);
    EXPECT_NE(err.find(b.mention), std::string::npos)
        << b.line << " -> '" << err << "'";
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  }
}

TEST(TdnnTest, IoRoundTripAndPrecomputedIndexes) {
  for (const char *line :
       {"input-dim=3 output-dim=2 time-offsets=-1,2 learning-rate-factor=0.5",
        "input-dim=3 output-dim=2 time-offsets=0 use-bias=false "
        "orthonormal-constraint=1.5 use-natural-gradient=false l2-regularize=0.1"}) {
    std::unique_ptr<TdnnComponent> c = MakeTdnn(line);
    testing::CheckIoRoundTrip(*c, [] { return new TdnnComponent(); });
  }
  TdnnComponentPrecomputedIndexes p;
  p.row_stride = 3;
  p.row_offsets = {0, 2, 7};
  std::ostringstream os;
  p.Write(os, false);
  EXPECT_EQ(os.str(),
            "<TdnnComponentPrecomputedIndexes> <RowStride> 3 <RowOffsets> "
            "[ 0 2 7 ]\n</TdnnComponentPrecomputedIndexes> ");
  for (bool binary : {false, true}) {
    std::ostringstream bs;
    p.Write(bs, binary);
    std::istringstream is(bs.str());
    std::unique_ptr<ComponentPrecomputedIndexes> q(
        ComponentPrecomputedIndexes::ReadNew(is, binary));
    ASSERT_TRUE(q != nullptr);
    EXPECT_EQ(q->Type(), "TdnnComponentPrecomputedIndexes");
    std::ostringstream bs2;
    q->Write(bs2, binary);
    EXPECT_EQ(bs2.str(), bs.str());
  }
}

std::string ReadFile(const std::string &path) {
  std::ifstream is(path, std::ios::binary);
  std::stringstream ss;
  ss << is.rdbuf();
  return ss.str();
}

// Kaldi's text spans: read, written back identically, through binary and
// back; Info() equal to Kaldi's nnet3-info line for that component.
TEST(TdnnTest, KaldiSpansAndInfo) {
  int32 count = 0;
  for (const char *model : {"rand020", "later/tdnnf"}) {
    std::string text = ReadFile(testing::ModelsDir() + model + ".txt");
    std::string info = ReadFile(testing::ModelsDir() + model + ".info");
    ASSERT_FALSE(text.empty()) << model;
    size_t pos = 0;
    while ((pos = text.find("<ComponentName> ", pos)) != std::string::npos) {
      size_t name_start = pos + 16, name_end = text.find(' ', name_start);
      std::string name = text.substr(name_start, name_end - name_start);
      size_t open = name_end + 1;
      pos = name_end;
      if (text.compare(open, 15, "<TdnnComponent>") != 0) continue;
      size_t close = text.find("</TdnnComponent> ", open);
      ASSERT_NE(close, std::string::npos);
      std::string span = text.substr(open, close + 17 - open);
      TdnnComponent c;
      std::istringstream is(span);
      c.Read(is, false);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(c, false),
                                         span),
                "")
          << model << " " << name;
      std::string bin = testing::WriteToString(c, true);
      TdnnComponent c2;
      std::istringstream bis(bin);
      c2.Read(bis, true);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(c2, false),
                                         span),
                "")
          << model << " " << name;
      std::string key = "component name=" + name + " type=";
      size_t ip = info.find(key);
      ASSERT_NE(ip, std::string::npos) << name;
      size_t eol = info.find('\n', ip);
      std::string want = info.substr(ip + key.size(), eol - ip - key.size());
      EXPECT_EQ(c.Info(), want) << model << " " << name;
      count++;
    }
  }
  EXPECT_EQ(count, 7);
}

TEST(TdnnTest, InputIndexesAndComputability) {
  std::unique_ptr<TdnnComponent> c =
      MakeTdnn("input-dim=2 output-dim=2 time-offsets=-2,0,3");
  MiscComputationInfo misc;
  std::vector<Index> want = {Index(1, 3, 2), Index(1, 5, 2), Index(1, 8, 2)};
  std::vector<Index> got;
  c->GetInputIndexes(misc, Index(1, 5, 2), &got);
  EXPECT_EQ(got, want);
  struct Set : public IndexSet {
    std::vector<Index> have;
    bool operator()(const Index &i) const override {
      for (const Index &h : have)
        if (h == i) return true;
      return false;
    }
  } set;
  set.have = want;
  std::vector<Index> used;
  EXPECT_TRUE(c->IsComputable(misc, Index(1, 5, 2), set, &used));
  EXPECT_EQ(used, want);
  set.have.pop_back();
  EXPECT_FALSE(c->IsComputable(misc, Index(1, 5, 2), set, &used));
  EXPECT_FALSE(c->IsComputable(misc, Index(0, 5, 2), set, nullptr));
}

}  // namespace
}  // namespace nnet3
