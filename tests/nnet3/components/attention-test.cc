// tests/nnet3/components/attention-test.cc
// RestrictedAttentionComponent and the attention arithmetic. Oracles: a
// naive attention computed in double precision straight from the Index of
// every output frame (per head: scores = key-scale * query.key + position
// bias for each context offset, softmax, weighted value sum, weights
// appended), looking the input frames up by Index so that it does not
// depend on the row layout that ReorderIndexes/PrecomputeIndexes choose;
// central finite differences for Backprop; hand-worked time grids for
// ReorderIndexes; Kaldi's reference spans and Info() lines for the formats;
// and Kaldi's nnet3-compute outputs of rand014/018/019, recomputed without
// the compiler.
#include "nnet3/components/restricted-attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "nnet3/components/attention.h"
#include "nnet3/components/component-test-util.h"
#include "nnet3/nnet/nnet.h"
#include "util/stream.h"

namespace nnet3 {
namespace {

using testing::MatDot;
using testing::NewMat;
using testing::RandMat;
using time_height_convolution::ConvolutionComputationIo;

std::unique_ptr<RestrictedAttentionComponent> Make(const std::string &line) {
  std::unique_ptr<RestrictedAttentionComponent> c(
      new RestrictedAttentionComponent());
  ConfigLine cfl;
  EXPECT_TRUE(cfl.ParseLine(line)) << line;
  c->InitFromConfig(&cfl);
  return c;
}

class SetOfIndexes : public IndexSet {
 public:
  explicit SetOfIndexes(const std::vector<Index> &v) : set_(v.begin(), v.end()) {}
  bool operator()(const Index &i) const override { return set_.count(i) != 0; }

 private:
  std::set<Index> set_;
};

// Frames for n in [0, num_n), t = t_begin, t_begin + step, ... < t_end, x = 0,
// n-major (not the component's layout: ReorderIndexes rearranges them).
std::vector<Index> Frames(int32 num_n, int32 t_begin, int32 t_end,
                          int32 step = 1) {
  std::vector<Index> v;
  for (int32 n = 0; n < num_n; n++)
    for (int32 t = t_begin; t < t_end; t += step) v.push_back(Index(n, t, 0));
  return v;
}

// One step: reordered indexes, precomputed indexes, input rows filled from
// per-Index data (blank rows stay zero).
struct Step {
  std::vector<Index> in_idx, out_idx;
  std::unique_ptr<ComponentPrecomputedIndexes> pre;
  CuMatrix<BaseFloat> in;
};

Step MakeStep(const RestrictedAttentionComponent &c,
              const std::vector<Index> &inputs,
              const std::vector<Index> &outputs,
              const std::map<Index, Vector<BaseFloat>> &data) {
  Step s;
  s.in_idx = inputs;
  s.out_idx = outputs;
  c.ReorderIndexes(&s.in_idx, &s.out_idx);
  s.pre.reset(c.PrecomputeIndexes(MiscComputationInfo(), s.in_idx, s.out_idx,
                                  true));
  EXPECT_TRUE(s.pre != nullptr);
  s.in = NewMat(s.in_idx.size(), c.InputDim());
  for (size_t r = 0; r < s.in_idx.size(); r++) {
    if (s.in_idx[r].t == kNoTime) continue;
    auto it = data.find(s.in_idx[r]);
    EXPECT_TRUE(it != data.end());
    s.in.Row(r).CopyFromVec(it->second);
  }
  return s;
}

std::map<Index, Vector<BaseFloat>> RandomData(const std::vector<Index> &idx,
                                              int32 dim, RandomSource *rs) {
  std::map<Index, Vector<BaseFloat>> m;
  for (const Index &i : idx) {
    Vector<BaseFloat> v(dim);
    v.SetRandn(rs);
    m[i] = v;
  }
  return m;
}

struct Geometry {
  int32 heads, key_dim, value_dim, left, right, stride;
  BaseFloat key_scale;
  bool output_context;
};

// The naive oracle for one output Index: missing inputs are zero vectors.
std::vector<double> NaiveOutput(const Geometry &g, const Index &out_index,
                                const std::map<Index, Vector<BaseFloat>> &data) {
  const int32 ctx = g.left + 1 + g.right,
              in_block = 2 * g.key_dim + g.value_dim + ctx;
  auto value_of = [&](const Index &i, int32 col) -> double {
    auto it = data.find(i);
    return it == data.end() ? 0.0 : it->second(col);
  };
  std::vector<double> ans;
  for (int32 h = 0; h < g.heads; h++) {
    const int32 base = h * in_block, key0 = base, val0 = base + g.key_dim,
                q0 = base + g.key_dim + g.value_dim;
    std::vector<double> score(ctx);
    for (int32 p = 0; p < ctx; p++) {
      Index src(out_index.n, out_index.t + (p - g.left) * g.stride,
                out_index.x);
      double dot = 0.0;
      for (int32 k = 0; k < g.key_dim; k++)
        dot += value_of(out_index, q0 + k) * value_of(src, key0 + k);
      score[p] = g.key_scale * dot + value_of(out_index, q0 + g.key_dim + p);
    }
    double mx = score[0], total = 0.0;
    for (double s : score) mx = std::max(mx, s);
    for (double &s : score) total += (s = std::exp(s - mx));
    for (double &s : score) s /= total;
    for (int32 v = 0; v < g.value_dim; v++) {
      double acc = 0.0;
      for (int32 p = 0; p < ctx; p++) {
        Index src(out_index.n, out_index.t + (p - g.left) * g.stride,
                  out_index.x);
        acc += score[p] * value_of(src, val0 + v);
      }
      ans.push_back(acc);
    }
    if (g.output_context)
      for (int32 p = 0; p < ctx; p++) ans.push_back(score[p]);
  }
  return ans;
}

std::string ConfigOf(const Geometry &g, const std::string &extra = "") {
  std::ostringstream os;
  os << "num-heads=" << g.heads << " key-dim=" << g.key_dim
     << " value-dim=" << g.value_dim << " num-left-inputs=" << g.left
     << " num-right-inputs=" << g.right << " time-stride=" << g.stride
     << " output-context=" << (g.output_context ? "true" : "false");
  if (g.key_scale > 0) os << " key-scale=" << g.key_scale;
  os << " " << extra;
  return os.str();
}

// Inputs: all frames the outputs want (or, with 'only_required', just
// those in [t - required_left*stride, t + required_right*stride]).
void CheckAgainstNaive(const Geometry &g_in, const std::string &extra,
                       const std::vector<Index> &outputs,
                       bool only_required, int32 req_left, int32 req_right) {
  Geometry g = g_in;
  auto c = Make(ConfigOf(g, extra));
  if (g.key_scale <= 0) g.key_scale = c->KeyScale();
  std::set<Index> in_set;
  for (const Index &o : outputs) {
    int32 lo = only_required ? req_left : g.left,
          hi = only_required ? req_right : g.right;
    for (int32 k = -lo; k <= hi; k++)
      in_set.insert(Index(o.n, o.t + k * g.stride, o.x));
  }
  std::vector<Index> inputs(in_set.begin(), in_set.end());
  RandomSource rs(11);
  auto data = RandomData(inputs, c->InputDim(), &rs);
  for (const Index &o : outputs) {
    std::vector<Index> used;
    EXPECT_TRUE(c->IsComputable(MiscComputationInfo(), o, SetOfIndexes(inputs),
                                &used));
  }
  Step s = MakeStep(*c, inputs, outputs, data);
  CuMatrix<BaseFloat> out_cu = NewMat(s.out_idx.size(), c->OutputDim());
  void *memo = c->Propagate(s.pre.get(), s.in, &out_cu);
  c->DeleteMemo(memo);
  const Matrix<BaseFloat> out = ToHost(out_cu);
  int32 checked = 0;
  for (size_t r = 0; r < s.out_idx.size(); r++) {
    if (s.out_idx[r].t == kNoTime) continue;
    std::vector<double> expect = NaiveOutput(g, s.out_idx[r], data);
    ASSERT_EQ(static_cast<int32>(expect.size()), c->OutputDim());
    for (int32 j = 0; j < c->OutputDim(); j++)
      ASSERT_NEAR(out(r, j), expect[j], 1e-4 * (1 + std::fabs(expect[j])))
          << "row " << r << " " << s.out_idx[r] << " col " << j;
    checked++;
  }
  EXPECT_EQ(checked, static_cast<int32>(outputs.size()));
}

TEST(RestrictedAttention, MatchesNaiveAttention) {
  // Two heads, stride 2, frames on every t (grid finer than the stride).
  CheckAgainstNaive({2, 3, 4, 2, 1, 2, -1, true}, "", Frames(2, 0, 7), false,
                    0, 0);
  // Kaldi's default key-scale, no output context, stride 1.
  CheckAgainstNaive({1, 5, 2, 3, 0, 1, -1, false}, "", Frames(1, 10, 16), false,
                    0, 0);
  // Outputs every third frame with time-stride 3 (grid step 3).
  CheckAgainstNaive({2, 2, 3, 1, 2, 3, 0.5, true}, "", Frames(3, 0, 13, 3),
                    false, 0, 0);
  // Only the required context present: the rest is zero-padding.
  CheckAgainstNaive({2, 3, 3, 4, 1, 1, -1, true},
                    "num-left-inputs-required=2 num-right-inputs-required=0",
                    Frames(2, 5, 9), true, 2, 0);
  // A single output frame.
  CheckAgainstNaive({1, 2, 2, 2, 2, 2, -1, true}, "", Frames(1, 4, 5), false,
                    0, 0);
}

TEST(RestrictedAttention, ReorderIndexesGrid) {
  // left 2, right 1, stride 1; outputs t = 0..3 for n = 0, 1; inputs given
  // only for the required range (left required 1): the grid still starts
  // two frames before the first output, with blanks where nothing was given.
  auto c = Make("key-dim=2 value-dim=2 num-left-inputs=2 num-right-inputs=1 "
                "num-left-inputs-required=1");
  std::vector<Index> in = Frames(2, -1, 5), out = Frames(2, 0, 4);
  c->ReorderIndexes(&in, &out);
  ASSERT_EQ(in.size(), 2u * 7);  // t = -2 .. 4
  ASSERT_EQ(out.size(), 2u * 4);
  for (int32 i = 0; i < 7; i++)
    for (int32 n = 0; n < 2; n++) {
      const Index &idx = in[i * 2 + n];
      EXPECT_EQ(idx.n, n);
      EXPECT_EQ(idx.t, i == 0 ? kNoTime : i - 2);
    }
  for (int32 i = 0; i < 4; i++)
    for (int32 n = 0; n < 2; n++) {
      EXPECT_EQ(out[i * 2 + n].t, i);
      EXPECT_EQ(out[i * 2 + n].n, n);
    }
  std::unique_ptr<ComponentPrecomputedIndexes> pre(
      c->PrecomputeIndexes(MiscComputationInfo(), in, out, false));
  const ConvolutionComputationIo &io =
      dynamic_cast<RestrictedAttentionComponent::PrecomputedIndexes &>(*pre).io;
  EXPECT_EQ(io.num_images, 2);
  EXPECT_EQ(io.start_t_in, -2);
  EXPECT_EQ(io.t_step_in, 1);
  EXPECT_EQ(io.num_t_in, 7);
  EXPECT_EQ(io.start_t_out, 0);
  EXPECT_EQ(io.t_step_out, 1);
  EXPECT_EQ(io.num_t_out, 4);
  // Applying it again changes nothing.
  std::vector<Index> in2 = in, out2 = out;
  c->ReorderIndexes(&in2, &out2);
  EXPECT_EQ(in2, in);
  EXPECT_EQ(out2, out);
}

TEST(RestrictedAttention, ReorderIndexesStrideGrid) {
  // Stride 3, outputs every 3 frames: a grid of step 3 on both sides.
  auto c = Make("key-dim=2 value-dim=2 num-left-inputs=2 num-right-inputs=0 "
                "time-stride=3");
  std::vector<Index> in = Frames(1, -6, 7, 3), out = Frames(1, 0, 7, 3);
  ConvolutionComputationIo io;
  c->GetComputationStructure(in, out, &io);
  EXPECT_EQ(io.t_step_in, 3);
  EXPECT_EQ(io.t_step_out, 3);
  EXPECT_EQ(io.start_t_in, -6);
  EXPECT_EQ(io.num_t_in, 5);
  EXPECT_EQ(io.num_t_out, 3);
  // Outputs every 2 frames with stride 3: grid step 1, blanks in between.
  std::vector<Index> out2 = Frames(1, 0, 5, 2), in2;
  for (int32 t : {-6, -4, -3, -2, -1, 0, 1, 2, 4}) in2.push_back(Index(0, t));
  c->ReorderIndexes(&in2, &out2);
  ASSERT_EQ(out2.size(), 5u);
  EXPECT_EQ(out2[1].t, kNoTime);
  EXPECT_EQ(out2[2].t, 2);
  ASSERT_EQ(in2.size(), 11u);  // -6 .. 4
  EXPECT_EQ(in2[1].t, kNoTime);  // -5 not given
  EXPECT_EQ(in2[0].t, -6);
}

// f = sum(out .* R) through Propagate, for finite differences.
double Objective(const RestrictedAttentionComponent &c, const Step &s,
                 const CuMatrixBase<BaseFloat> &in,
                 const CuMatrixBase<BaseFloat> &weights_r) {
  CuMatrix<BaseFloat> out = NewMat(s.out_idx.size(), c.OutputDim());
  c.DeleteMemo(c.Propagate(s.pre.get(), in, &out));
  return MatDot(out, weights_r);
}

void CheckDerivatives(const std::string &config, int32 num_n, int32 t_begin,
                      int32 t_end) {
  auto c = Make(config);
  std::vector<Index> outputs = Frames(num_n, t_begin, t_end), inputs;
  std::set<Index> in_set;
  for (const Index &o : outputs) {
    std::vector<Index> want;
    c->GetInputIndexes(MiscComputationInfo(), o, &want);
    in_set.insert(want.begin(), want.end());
  }
  inputs.assign(in_set.begin(), in_set.end());
  RandomSource rs(3);
  auto data = RandomData(inputs, c->InputDim(), &rs);
  Step s = MakeStep(*c, inputs, outputs, data);
  CuMatrix<BaseFloat> out = NewMat(s.out_idx.size(), c->OutputDim());
  void *memo = c->Propagate(s.pre.get(), s.in, &out);
  CuMatrix<BaseFloat> r = RandMat(out.NumRows(), out.NumCols(), &rs);
  CuMatrix<BaseFloat> in_deriv = NewMat(s.in.NumRows(), s.in.NumCols()),
                      empty;
  c->Backprop("test", s.pre.get(), s.in, empty, r, memo, nullptr, &in_deriv);
  // kBackpropAdds: a second call onto the result doubles it.
  CuMatrix<BaseFloat> twice(in_deriv);
  c->Backprop("test", s.pre.get(), s.in, empty, r, memo, nullptr, &twice);
  CuMatrix<BaseFloat> doubled(in_deriv);
  doubled.Scale(2.0);
  EXPECT_TRUE(twice.ApproxEqual(doubled, 1e-5));
  c->DeleteMemo(memo);
  const BaseFloat eps = 1e-2;
  for (int32 trial = 0; trial < 6; trial++) {
    CuMatrix<BaseFloat> dir = RandMat(s.in.NumRows(), s.in.NumCols(), &rs);
    if (trial >= 3) {
      // Directions confined to one block of columns of one head: keys,
      // values or queries, so that each part's derivative is seen alone.
      int32 ctx = c->ContextDim(), k = c->KeyDim(), v = c->ValueDim();
      int32 lo[] = {0, k, k + v}, len[] = {k, v, k + ctx};
      for (int32 i = 0; i < dir.NumRows(); i++)
        for (int32 j = 0; j < dir.NumCols(); j++) {
          int32 jj = j % (2 * k + v + ctx);
          if (jj < lo[trial - 3] || jj >= lo[trial - 3] + len[trial - 3])
            dir.SetElement(i, j, 0.0);
        }
    }
    CuMatrix<BaseFloat> plus(s.in), minus(s.in);
    plus.AddMat(eps, dir);
    minus.AddMat(-eps, dir);
    double numeric =
        (Objective(*c, s, plus, r) - Objective(*c, s, minus, r)) / (2 * eps);
    double analytic = MatDot(in_deriv, dir);
    EXPECT_NEAR(numeric, analytic, 3e-3 * (1.0 + std::fabs(numeric)))
        << config << " trial " << trial;
  }
}

TEST(RestrictedAttention, BackpropMatchesFiniteDifferences) {
  CheckDerivatives("num-heads=2 key-dim=3 value-dim=4 num-left-inputs=2 "
                   "num-right-inputs=1 key-scale=0.8",
                   2, 0, 5);
  CheckDerivatives("num-heads=1 key-dim=4 value-dim=3 num-left-inputs=1 "
                   "num-right-inputs=2 time-stride=2 output-context=false",
                   1, 3, 9);
}

TEST(RestrictedAttention, PropagateAddsValuesAndCopiesWeights) {
  auto c = Make("num-heads=1 key-dim=2 value-dim=3 num-left-inputs=1 "
                "num-right-inputs=1");
  std::vector<Index> outputs = Frames(1, 0, 3), inputs = Frames(1, -1, 4);
  RandomSource rs(5);
  auto data = RandomData(inputs, c->InputDim(), &rs);
  Step s = MakeStep(*c, inputs, outputs, data);
  CuMatrix<BaseFloat> ref_cu = NewMat(3, c->OutputDim());
  c->DeleteMemo(c->Propagate(s.pre.get(), s.in, &ref_cu));
  CuMatrix<BaseFloat> init_cu = RandMat(3, c->OutputDim(), &rs),
                      out_cu(init_cu);
  c->DeleteMemo(c->Propagate(s.pre.get(), s.in, &out_cu));
  const Matrix<BaseFloat> ref = ToHost(ref_cu), init = ToHost(init_cu),
                          out = ToHost(out_cu);
  for (int32 i = 0; i < 3; i++)
    for (int32 j = 0; j < c->OutputDim(); j++) {
      // Value columns add to what was there; weight columns overwrite (as
      // in Kaldi).
      double expect = ref(i, j) + (j < 3 ? init(i, j) : 0.0);
      EXPECT_NEAR(out(i, j), expect, 1e-5);
    }
}

TEST(RestrictedAttention, InputIndexesAndComputability) {
  auto c = Make("key-dim=2 value-dim=2 num-left-inputs=3 num-right-inputs=1 "
                "time-stride=2 num-left-inputs-required=1");
  std::vector<Index> want;
  c->GetInputIndexes(MiscComputationInfo(), Index(1, 10, 2), &want);
  ASSERT_EQ(want.size(), 5u);
  for (int32 i = 0; i < 5; i++) EXPECT_EQ(want[i], Index(1, 4 + 2 * i, 2));
  // Required: t = 8, 10, 12. Present: 6, 8, 10, 12.
  std::vector<Index> present = {Index(1, 6, 2), Index(1, 8, 2), Index(1, 10, 2),
                                Index(1, 12, 2)};
  std::vector<Index> used;
  EXPECT_TRUE(c->IsComputable(MiscComputationInfo(), Index(1, 10, 2),
                              SetOfIndexes(present), &used));
  EXPECT_EQ(used, present);
  EXPECT_TRUE(c->IsComputable(MiscComputationInfo(), Index(1, 10, 2),
                              SetOfIndexes(present), nullptr));
  // Without t = 12 (required on the right) it is not computable.
  present.pop_back();
  EXPECT_FALSE(c->IsComputable(MiscComputationInfo(), Index(1, 10, 2),
                               SetOfIndexes(present), &used));
  EXPECT_TRUE(used.empty());
  EXPECT_FALSE(c->IsComputable(MiscComputationInfo(), Index(1, 10, 2),
                               SetOfIndexes(present), nullptr));
}

TEST(RestrictedAttention, StatsAreMeanWeightsAndEntropy) {
  auto c = Make("num-heads=2 key-dim=2 value-dim=2 num-left-inputs=1 "
                "num-right-inputs=1");
  std::vector<Index> outputs = Frames(1, 0, 4), inputs = Frames(1, -1, 5);
  RandomSource rs(9);
  auto data = RandomData(inputs, c->InputDim(), &rs);
  Step s = MakeStep(*c, inputs, outputs, data);
  CuMatrix<BaseFloat> out_cu = NewMat(4, c->OutputDim());
  void *memo = c->Propagate(s.pre.get(), s.in, &out_cu);
  // About one call in three is skipped, as in Kaldi.
  for (int32 k = 0; k < 30; k++) c->StoreStats(s.in, out_cu, memo);
  c->DeleteMemo(memo);
  const Matrix<BaseFloat> out = ToHost(out_cu);
  double count = c->StatsCount();
  ASSERT_GT(count, 0.0);
  ASSERT_LT(count, 30 * 4);
  EXPECT_EQ(std::fmod(count, 4.0), 0.0);
  // The weights are the output-context columns of the output.
  for (int32 h = 0; h < 2; h++) {
    double entropy = 0.0;
    for (int32 p = 0; p < 3; p++) {
      double mean = 0.0;
      for (int32 r = 0; r < 4; r++) {
        double w = out(r, h * 5 + 2 + p);
        mean += w / 4;
        entropy -= w * std::log(w) / 4;
      }
      EXPECT_NEAR(c->PosteriorStats()(h, p) / count, mean, 1e-5);
    }
    EXPECT_NEAR(c->EntropyStats()(h) / count, entropy, 1e-5);
  }
  std::string info = c->Info();
  EXPECT_NE(info.find(", entropy="), std::string::npos) << info;
  EXPECT_NE(info.find(" posterior-stats[1]="), std::string::npos) << info;
  EXPECT_NE(info.find(" stats-count="), std::string::npos) << info;
  // Round trip with statistics, Scale/Add, ZeroStats.
  testing::CheckIoRoundTrip(*c, [] { return new RestrictedAttentionComponent(); });
  std::unique_ptr<Component> copy(c->Copy());
  copy->Add(1.0, *c);
  EXPECT_DOUBLE_EQ(
      dynamic_cast<RestrictedAttentionComponent &>(*copy).StatsCount(),
      2 * count);
  copy->Scale(0.5);
  EXPECT_EQ(testing::WriteToString(*copy, false),
            testing::WriteToString(*c, false));
  c->ZeroStats();
  EXPECT_EQ(c->StatsCount(), 0.0);
  EXPECT_EQ(c->Info().find("entropy"), std::string::npos);
}

TEST(RestrictedAttention, KaldiTextAndInfo) {
  auto c = Make("num-heads=2 key-dim=21 value-dim=21 time-stride=1 "
                "num-left-inputs=4 num-right-inputs=1 "
                "num-left-inputs-required=2 num-right-inputs-required=1 "
                "output-context=true");
  // rand018.info's line.
  EXPECT_EQ(c->Info(),
            "RestrictedAttentionComponent, input-dim=138, output-dim=54, "
            "num-heads=2, time-stride=1, key-dim=21, value-dim=21, "
            "num-left-inputs=4, num-right-inputs=1, context-dim=6, "
            "num-left-inputs-required=2, num-right-inputs-required=1, "
            "output-context=true, key-scale=0.218218");
  EXPECT_EQ(testing::WriteToString(*c, false),
            "<RestrictedAttentionComponent> <NumHeads> 2 <KeyDim> 21 "
            "<ValueDim> 21 <NumLeftInputs> 4 <NumRightInputs> 1 <TimeStride> 1 "
            "<NumLeftInputsRequired> 2 <NumRightInputsRequired> 1 "
            "<OutputContext> T <KeyScale> 0.2182179 <StatsCount> 0 "
            "<EntropyStats>  [ ]\n<PosteriorStats>  [ ]\n"
            "</RestrictedAttentionComponent> ");
  std::vector<std::string> spans =
      testing::ReferenceSpans("RestrictedAttentionComponent");
  ASSERT_GE(spans.size(), 3u);
  for (const std::string &span : spans) {
    RestrictedAttentionComponent r;
    std::istringstream is(span);
    r.Read(is, false);
    EXPECT_EQ(testing::FirstDifference(testing::WriteToString(r, false), span),
              "");
  }
}

TEST(RestrictedAttention, PrecomputedIndexesIo) {
  RestrictedAttentionComponent::PrecomputedIndexes p;
  p.io.num_images = 3;
  p.io.start_t_in = -4;
  p.io.t_step_in = 2;
  p.io.num_t_in = 9;
  p.io.start_t_out = 0;
  p.io.t_step_out = 2;
  p.io.num_t_out = 5;
  for (int b = 0; b < 2; b++) {
    std::ostringstream os;
    p.Write(os, b == 1);
    std::istringstream is(os.str());
    std::unique_ptr<ComponentPrecomputedIndexes> q(
        ComponentPrecomputedIndexes::ReadNew(is, b == 1));
    ASSERT_EQ(q->Type(), "RestrictedAttentionComponentPrecomputedIndexes");
    auto &qq = dynamic_cast<RestrictedAttentionComponent::PrecomputedIndexes &>(*q);
    EXPECT_TRUE(qq.io == p.io);
    std::unique_ptr<ComponentPrecomputedIndexes> r(q->Copy());
    std::ostringstream os2;
    r->Write(os2, b == 1);
    EXPECT_EQ(os2.str(), os.str());
    if (b == 0) {
      EXPECT_EQ(os.str().find("<RestrictedAttentionComponentPrecomputedIndexes> "
                              "<Io> <ConvCompIo> "),
                0u)
          << os.str();
    }
  }
}

TEST(RestrictedAttention, ConfigErrors) {
  const std::string t = "RestrictedAttentionComponent";
  struct Case {
    const char *line, *needle;
  } cases[] = {
      {"value-dim=2 num-left-inputs=1 num-right-inputs=0", "key-dim"},
      {"key-dim=2 num-left-inputs=1 num-right-inputs=0", "value-dim"},
      {"key-dim=2 value-dim=2 num-right-inputs=0", "num-left-inputs"},
      {"key-dim=2 value-dim=2 num-left-inputs=1", "num-right-inputs"},
      {"key-dim=0 value-dim=2 num-left-inputs=1 num-right-inputs=0",
       "key-dim=0"},
      {"key-dim=2 value-dim=2 num-left-inputs=0 num-right-inputs=0",
       "num-right-inputs=0"},
      {"key-dim=2 value-dim=2 num-left-inputs=-1 num-right-inputs=2",
       "num-left-inputs=-1"},
      {"key-dim=2 value-dim=2 num-left-inputs=1 num-right-inputs=0 "
       "num-heads=0",
       "num-heads=0"},
      {"key-dim=2 value-dim=2 num-left-inputs=1 num-right-inputs=0 "
       "time-stride=0",
       "time-stride=0"},
      {"key-dim=2 value-dim=2 num-left-inputs=1 num-right-inputs=0 "
       "num-left-inputs-required=2",
       "num-left-inputs-required=2"},
      {"key-dim=2 value-dim=2 num-left-inputs=1 num-right-inputs=1 "
       "num-right-inputs-required=3",
       "num-right-inputs-required=3"},
      {"key-dim=2 value-dim=2 num-left-inputs=1 num-right-inputs=0 "
       "key-scale=1.5",
       "key-scale=1.5"},
      {"key-dim=2 value-dim=2 num-left-inputs=1 num-right-inputs=0 "
       "no-such-option=1",
       "no-such-option"},
  };
  for (const Case &k : cases) {
    std::string err = testing::ConfigError(t, k.line);
    EXPECT_NE(err.find(k.needle), std::string::npos)
        << k.line << " gave: " << err;
  }
  EXPECT_EQ(testing::ConfigError(t, "key-dim=2 value-dim=2 num-left-inputs=1 "
                                    "num-right-inputs=0"),
            "");
}

TEST(AttentionMath, ShiftedHelpersAgreeWithLoops) {
  RandomSource rs(2);
  const int32 n_out = 4, pos = 3, shift = 2, n_in = n_out + (pos - 1) * shift,
              d = 3;
  EXPECT_EQ(attention::AttentionRowShift(n_in, n_out, pos), shift);
  CuMatrix<BaseFloat> A_cu = RandMat(n_out, d, &rs),
                      B_cu = RandMat(n_in, d, &rs),
                      W_cu = RandMat(n_out, pos, &rs);
  CuMatrix<BaseFloat> dots_cu(n_out, pos);
  attention::ShiftedRowDots(0.5, A_cu, B_cu, &dots_cu);
  CuMatrix<BaseFloat> A2(A_cu), B2(B_cu);
  attention::AddWeightedShiftedRows(2.0, B_cu, W_cu, &A2);
  attention::ScatterWeightedRows(-1.0, A_cu, W_cu, &B2);
  const Matrix<BaseFloat> A = ToHost(A_cu), B = ToHost(B_cu),
                          W = ToHost(W_cu), dots = ToHost(dots_cu);
  for (int32 i = 0; i < n_out; i++)
    for (int32 p = 0; p < pos; p++) {
      double s = 0.0;
      for (int32 k = 0; k < d; k++) s += A(i, k) * B(i + p * shift, k);
      EXPECT_NEAR(dots(i, p), 0.5 * s, 1e-5);
    }
  Matrix<BaseFloat> A3(A), B3(B);
  for (int32 i = 0; i < n_out; i++)
    for (int32 p = 0; p < pos; p++)
      for (int32 k = 0; k < d; k++) {
        A3(i, k) += 2.0 * W(i, p) * B(i + p * shift, k);
        B3(i + p * shift, k) -= W(i, p) * A(i, k);
      }
  EXPECT_TRUE(ToHost(A2).ApproxEqual(A3, 1e-5));
  EXPECT_TRUE(ToHost(B2).ApproxEqual(B3, 1e-5));
}

// ---- Against Kaldi's nnet3-compute outputs ---------------------------------------
// The rand014/018/019 models are an affine layer followed by the attention
// component, and every utterance fits in one chunk. nnet3-compute gives the
// network the frames [-left-context, T - 1 + right-context] (frame indexes
// clamped into the utterance), so frames that only the non-required context
// wants are absent and read as zero. Computed here without the compiler:
// affine per frame, then ReorderIndexes/PrecomputeIndexes/Propagate.

// "key [ rows ]" text archive.
std::vector<std::pair<std::string, Matrix<BaseFloat>>> ReadTextArchive(
    const std::string &path) {
  std::ifstream is(path);
  EXPECT_TRUE(is.good()) << path;
  std::vector<std::pair<std::string, Matrix<BaseFloat>>> ans;
  std::string key, bracket;
  while (is >> key >> bracket) {
    EXPECT_EQ(bracket, "[");
    std::vector<std::vector<BaseFloat>> rows;
    std::string line;
    std::getline(is, line);
    bool done = false;
    while (!done && std::getline(is, line)) {
      std::istringstream ls(line);
      std::vector<BaseFloat> row;
      std::string tok;
      while (ls >> tok) {
        if (tok == "]") {
          done = true;
          break;
        }
        row.push_back(std::stof(tok));
      }
      if (!row.empty()) rows.push_back(row);
    }
    Matrix<BaseFloat> m(rows.size(), rows.empty() ? 0 : rows[0].size());
    for (size_t r = 0; r < rows.size(); r++)
      for (size_t c = 0; c < rows[r].size(); c++) m(r, c) = rows[r][c];
    ans.push_back({key, m});
  }
  return ans;
}

void CheckKaldiCompute(const std::string &name, int32 left_context,
                       int32 right_context) {
  const std::string dir = std::string(NNET3_TEST_DATA_DIR) + "/kaldi/";
  Nnet nnet;
  ReadKaldiObject(dir + "models/" + name + ".raw", &nnet);
  const Component *affine = nnet.GetComponent(nnet.GetComponentIndex("affine"));
  const RestrictedAttentionComponent *att =
      dynamic_cast<const RestrictedAttentionComponent *>(
          nnet.GetComponent(nnet.GetComponentIndex("attention")));
  ASSERT_TRUE(affine != nullptr && att != nullptr);
  auto feats = ReadTextArchive(dir + "compute/" + name + ".feats.txt");
  auto expected = ReadTextArchive(dir + "compute/" + name + ".default.out.txt");
  ASSERT_EQ(feats.size(), expected.size());
  ASSERT_FALSE(feats.empty());
  for (size_t u = 0; u < feats.size(); u++) {
    const Matrix<BaseFloat> &f = feats[u].second;
    const int32 T = f.NumRows();
    ASSERT_EQ(expected[u].second.NumRows(), T);
    std::map<Index, Vector<BaseFloat>> data;
    std::vector<Index> inputs, outputs = Frames(1, 0, T);
    CuMatrix<BaseFloat> one(1, f.NumCols()), hidden(1, affine->OutputDim());
    for (int32 t = -left_context; t < T + right_context; t++) {
      one.Row(0).CopyFromVec(f.Row(std::min(std::max(t, 0), T - 1)));
      hidden.SetZero();
      affine->DeleteMemo(affine->Propagate(nullptr, one, &hidden));
      inputs.push_back(Index(0, t));
      data[Index(0, t)] = ToHost(hidden.Row(0));
    }
    Step s = MakeStep(*att, inputs, outputs, data);
    CuMatrix<BaseFloat> out_cu = NewMat(s.out_idx.size(), att->OutputDim());
    att->DeleteMemo(att->Propagate(s.pre.get(), s.in, &out_cu));
    const Matrix<BaseFloat> out = ToHost(out_cu);
    for (size_t r = 0; r < s.out_idx.size(); r++) {
      if (s.out_idx[r].t == kNoTime) continue;
      int32 t = s.out_idx[r].t;
      for (int32 j = 0; j < att->OutputDim(); j++) {
        BaseFloat want = expected[u].second(t, j);
        ASSERT_NEAR(out(r, j), want, 1e-4 + 1e-4 * std::fabs(want))
            << name << " " << feats[u].first << " frame " << t << " col " << j;
      }
    }
  }
}

TEST(RestrictedAttention, MatchesKaldiComputeOutputs) {
  CheckKaldiCompute("rand014", 12, 0);
  CheckKaldiCompute("rand018", 2, 1);
  CheckKaldiCompute("rand019", 2, 0);
}

}  // namespace
}  // namespace nnet3
