// tests/nnet3/components/statistics-test.cc
// StatisticsExtractionComponent and StatisticsPoolingComponent, run the way
// the compiler runs them: hand-built input/output Index vectors (several
// sequences, gaps, negative times, periods), shuffled, put in order by
// ReorderIndexes, PrecomputeIndexes, then Propagate/Backprop. Checked:
// outputs against a naive count/mean/variance/log-count computed here
// straight from the Index lists; input derivatives against central finite
// differences; GetInputIndexes/IsComputable rules (rounding of t to the
// output period, multiples of the input period); precomputed-indexes I/O;
// component I/O round trips and Kaldi's reference spans and nnet3-info
// lines; property flags; config errors.
#include "nnet3/components/statistics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "common/testing.h"
#include "nnet3/components/component-test-util.h"

namespace nnet3 {
namespace {

using testing::ConfigError;
using testing::FromConfig;
using testing::NewMat;
using testing::RandMat;

class SetOfIndexes : public IndexSet {
 public:
  explicit SetOfIndexes(const std::vector<Index> &v) {
    for (const Index &i : v) s_.insert(Key(i));
  }
  bool operator()(const Index &i) const override { return s_.count(Key(i)) > 0; }

 private:
  static std::tuple<int32, int32, int32> Key(const Index &i) {
    return std::make_tuple(i.n, i.t, i.x);
  }
  std::set<std::tuple<int32, int32, int32> > s_;
};

int32 FloorDiv(int32 a, int32 b) {
  return static_cast<int32>(std::floor(static_cast<double>(a) / b));
}

// A step as the compiler would set it up: input rows are all Indexes the
// outputs use; both lists are shuffled and then reordered by the component.
struct Step {
  std::vector<Index> inputs, outputs;
  std::unique_ptr<ComponentPrecomputedIndexes> pi;
};

void Prepare(const Component &c, Step *s, bool need_backprop = true) {
  std::mt19937 g(7);
  std::shuffle(s->inputs.begin(), s->inputs.end(), g);
  std::shuffle(s->outputs.begin(), s->outputs.end(), g);
  ASSERT_TRUE(c.Properties() & kReordersIndexes);
  c.ReorderIndexes(&s->inputs, &s->outputs);
  MiscComputationInfo misc;
  s->pi.reset(c.PrecomputeIndexes(misc, s->inputs, s->outputs, need_backprop));
  ASSERT_TRUE(s->pi != nullptr);
}

CuMatrix<BaseFloat> Propagate(const Component &c, const Step &s,
                              const CuMatrixBase<BaseFloat> &in) {
  CuMatrix<BaseFloat> out = NewMat(s.outputs.size(), c.OutputDim());
  EXPECT_EQ(c.Propagate(s.pi.get(), in, &out), nullptr);
  return out;
}

// Input frames for extraction tests (on the input-period grid): sequence 0
// has t = -12..10 with t = 2 and 4 missing; sequence 1 has t = 0..4, and
// x = 1 on t = 0..2; sequence 3 only t = 6. Outputs at every block start reached.
Step ExtractionStep(int32 input_period, int32 output_period) {
  Step s;
  for (int32 t = -12; t <= 10; t += input_period)
    if (t != 2 && t != 4) s.inputs.push_back(Index(0, t, 0));
  for (int32 t = 0; t <= 4; t += input_period) s.inputs.push_back(Index(1, t, 0));
  for (int32 t = 0; t <= 2; t += input_period) s.inputs.push_back(Index(1, t, 1));
  s.inputs.push_back(Index(3, 6, 0));
  std::set<std::tuple<int32, int32, int32> > blocks;
  for (const Index &i : s.inputs) {
    int32 start = FloorDiv(i.t, output_period) * output_period;
    // Ask for the block through a time inside it (not always its start),
    // once per block.
    if (blocks.insert(std::make_tuple(i.n, start, i.x)).second)
      s.outputs.push_back(Index(i.n, start + (i.n == 1 ? output_period - 1 : 0), i.x));
  }
  return s;
}

TEST(StatisticsExtraction, PropagateMatchesNaiveSums) {
  const int32 periods[][2] = {{1, 1}, {1, 4}, {2, 6}, {3, 9}};
  for (auto &p : periods) {
    for (bool var : {true, false}) {
      std::ostringstream cfg;
      cfg << "input-dim=3 input-period=" << p[0] << " output-period=" << p[1]
          << " include-variance=" << (var ? "true" : "false");
      auto c = FromConfig("StatisticsExtractionComponent", cfg.str());
      ASSERT_EQ(c->OutputDim(), var ? 7 : 4);
      Step s = ExtractionStep(p[0], p[1]);
      Prepare(*c, &s);
      RandomSource rs(3);
      CuMatrix<BaseFloat> in_cu = RandMat(s.inputs.size(), 3, &rs);
      const Matrix<BaseFloat> in = ToHost(in_cu);
      const Matrix<BaseFloat> out = ToHost(Propagate(*c, s, in_cu));
      for (size_t o = 0; o < s.outputs.size(); o++) {
        const Index &oi = s.outputs[o];
        int32 start = FloorDiv(oi.t, p[1]) * p[1];
        double count = 0, sum[3] = {0, 0, 0}, sumsq[3] = {0, 0, 0};
        for (size_t i = 0; i < s.inputs.size(); i++) {
          const Index &ii = s.inputs[i];
          if (ii.n != oi.n || ii.x != oi.x || ii.t < start ||
              ii.t >= start + p[1])
            continue;
          count++;
          for (int32 j = 0; j < 3; j++) {
            sum[j] += in(i, j);
            sumsq[j] += double(in(i, j)) * in(i, j);
          }
        }
        ASSERT_GT(count, 0);
        EXPECT_EQ(out(o, 0), count);
        for (int32 j = 0; j < 3; j++) {
          EXPECT_NEAR(out(o, 1 + j), sum[j], 1e-5);
          if (var) {
            EXPECT_NEAR(out(o, 4 + j), sumsq[j], 1e-5);
          }
        }
      }
    }
  }
}

TEST(StatisticsExtraction, ReorderSortsByNThenXThenT) {
  auto c = FromConfig("StatisticsExtractionComponent",
                      "input-dim=2 input-period=1 output-period=2");
  std::vector<Index> in = {Index(1, 0, 0), Index(0, 1, 1), Index(0, 3, 0),
                           Index(0, -1, 1), Index(0, 0, 0)};
  std::vector<Index> out = {Index(1, 0, 0), Index(0, 0, 1), Index(0, 2, 0),
                            Index(0, 0, 0)};
  c->ReorderIndexes(&in, &out);
  std::vector<Index> in_ref = {Index(0, 0, 0), Index(0, 3, 0), Index(0, -1, 1),
                               Index(0, 1, 1), Index(1, 0, 0)};
  std::vector<Index> out_ref = {Index(0, 0, 0), Index(0, 2, 0),
                                Index(0, 0, 1), Index(1, 0, 0)};
  EXPECT_EQ(in, in_ref);
  EXPECT_EQ(out, out_ref);
}

TEST(StatisticsExtraction, InputIndexesRoundTimeDownToTheBlock) {
  auto c = FromConfig("StatisticsExtractionComponent",
                      "input-dim=2 input-period=3 output-period=9");
  MiscComputationInfo misc;
  std::vector<Index> v;
  c->GetInputIndexes(misc, Index(2, 11, 1), &v);
  std::vector<Index> ref = {Index(2, 9, 1), Index(2, 12, 1), Index(2, 15, 1)};
  EXPECT_EQ(v, ref);
  // Negative times round towards minus infinity: -1 is in [-9, 0).
  c->GetInputIndexes(misc, Index(0, -1, 0), &v);
  ref = {Index(0, -9, 0), Index(0, -6, 0), Index(0, -3, 0)};
  EXPECT_EQ(v, ref);
  c->GetInputIndexes(misc, Index(0, -9, 0), &v);
  EXPECT_EQ(v, ref);
  c->GetInputIndexes(misc, Index(0, -10, 0), &v);
  EXPECT_EQ(v.front(), Index(0, -18, 0));

  // Computable when any of the block's frames is there; all present ones
  // are used.
  SetOfIndexes avail({Index(0, -6, 0), Index(0, -3, 0), Index(0, 0, 0)});
  std::vector<Index> used;
  EXPECT_TRUE(c->IsComputable(misc, Index(0, -2, 0), avail, &used));
  ref = {Index(0, -6, 0), Index(0, -3, 0)};
  EXPECT_EQ(used, ref);
  EXPECT_TRUE(c->IsComputable(misc, Index(0, -2, 0), avail, nullptr));
  EXPECT_TRUE(c->IsComputable(misc, Index(0, 8, 0), avail, &used));
  EXPECT_EQ(used, std::vector<Index>{Index(0, 0, 0)});
  EXPECT_FALSE(c->IsComputable(misc, Index(0, 9, 0), avail, &used));
  EXPECT_TRUE(used.empty());
  EXPECT_FALSE(c->IsComputable(misc, Index(1, 0, 0), avail, nullptr));
  EXPECT_FALSE(c->IsComputable(misc, Index(0, 0, 1), avail, nullptr));
}

TEST(StatisticsExtraction, TwoOutputsInOneBlockAreAnError) {
  // Without Round() a consumer could ask for t=0 and t=1 of a block of 2;
  // the rows of a block can only feed one output row.
  auto c = FromConfig("StatisticsExtractionComponent",
                      "input-dim=2 output-period=2");
  std::vector<Index> in = {Index(0, 0, 0), Index(0, 1, 0)},
                     out = {Index(0, 0, 0), Index(0, 1, 0)};
  MiscComputationInfo misc;
  try {
    delete c->PrecomputeIndexes(misc, in, out, true);
    FAIL() << "accepted";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("Round("), std::string::npos) << e.message();
  }
}

// Central differences of f = sum(out .* R) along random input directions
// that leave 'frozen_cols' alone (columns Backprop treats as constants).
void CheckInputDerivative(const Component &c, const Step &s,
                          const CuMatrixBase<BaseFloat> &in,
                          int32 frozen_cols, RandomSource *rs,
                          double tol = 2e-3) {
  CuMatrix<BaseFloat> out = Propagate(c, s, in);
  CuMatrix<BaseFloat> out_deriv = RandMat(out.NumRows(), out.NumCols(), rs);
  int32 props = c.Properties();
  CuMatrix<BaseFloat> empty;
  // kBackpropAdds components add: start from a known value.
  CuMatrix<BaseFloat> start = RandMat(in.NumRows(), in.NumCols(), rs);
  CuMatrix<BaseFloat> in_deriv = testing::Contig(start);
  c.Backprop("test", s.pi.get(), (props & kBackpropNeedsInput) ? in : empty,
             (props & kBackpropNeedsOutput) ? out : empty, out_deriv, nullptr,
             nullptr, &in_deriv);
  if (props & kBackpropAdds) in_deriv.AddMat(-1.0, start);
  const BaseFloat eps = 1e-2;
  for (int32 k = 0; k < 4; k++) {
    CuMatrix<BaseFloat> dir = RandMat(in.NumRows(), in.NumCols(), rs);
    for (int32 r = 0; r < dir.NumRows(); r++)
      for (int32 j = 0; j < frozen_cols; j++) dir.SetElement(r, j, 0.0);
    CuMatrix<BaseFloat> plus = testing::Contig(in),
                        minus = testing::Contig(in);
    plus.AddMat(eps, dir);
    minus.AddMat(-eps, dir);
    double numeric = (testing::MatDot(Propagate(c, s, plus), out_deriv) -
                      testing::MatDot(Propagate(c, s, minus), out_deriv)) /
                     (2 * eps);
    double analytic = testing::MatDot(in_deriv, dir);
    EXPECT_NEAR(numeric, analytic, tol * (1.0 + std::fabs(numeric)))
        << c.Info();
  }
  if (frozen_cols > 0) {
    // Nothing flows into the count column.
    for (int32 r = 0; r < in_deriv.NumRows(); r++)
      EXPECT_EQ(in_deriv.GetElement(r, 0), 0.0);
  }
}

TEST(StatisticsExtraction, BackpropMatchesFiniteDifferences) {
  for (bool var : {true, false}) {
    auto c = FromConfig("StatisticsExtractionComponent",
                        std::string("input-dim=3 input-period=2 output-period=6 "
                                    "include-variance=") +
                            (var ? "true" : "false"));
    Step s = ExtractionStep(2, 6);
    Prepare(*c, &s);
    RandomSource rs(11);
    CuMatrix<BaseFloat> in = RandMat(s.inputs.size(), 3, &rs);
    CheckInputDerivative(*c, s, in, 0, &rs);
  }
}

TEST(StatisticsExtraction, PropagateAddsAndBackpropOverwrites) {
  // Properties: kPropagateAdds (the output is added to), Backprop sets
  // in_deriv (no kBackpropAdds).
  auto c = FromConfig("StatisticsExtractionComponent",
                      "input-dim=3 input-period=1 output-period=4");
  EXPECT_EQ(c->Properties(),
            kPropagateAdds | kReordersIndexes | kBackpropNeedsInput);
  auto c2 = FromConfig("StatisticsExtractionComponent",
                       "input-dim=3 include-variance=false");
  EXPECT_EQ(c2->Properties(), kPropagateAdds | kReordersIndexes);
  Step s = ExtractionStep(1, 4);
  Prepare(*c, &s);
  RandomSource rs(5);
  CuMatrix<BaseFloat> in = RandMat(s.inputs.size(), 3, &rs);
  CuMatrix<BaseFloat> ref = Propagate(*c, s, in);
  CuMatrix<BaseFloat> init = RandMat(ref.NumRows(), ref.NumCols(), &rs);
  CuMatrix<BaseFloat> out = testing::Contig(init);
  c->Propagate(s.pi.get(), in, &out);
  ref.AddMat(1.0, init);
  EXPECT_TRUE(out.ApproxEqual(ref, 1e-6));
  CuMatrix<BaseFloat> od = RandMat(ref.NumRows(), ref.NumCols(), &rs);
  CuMatrix<BaseFloat> d1 = NewMat(in.NumRows(), 3),
                      d2 = RandMat(in.NumRows(), 3, &rs);
  CuMatrix<BaseFloat> empty;
  c->Backprop("", s.pi.get(), in, empty, od, nullptr, nullptr, &d1);
  c->Backprop("", s.pi.get(), in, empty, od, nullptr, nullptr, &d2);
  EXPECT_TRUE(d1.Equal(d2));
}

// Pooling input: window statistics as the extraction component makes them
// (count, sums, sums of squares over 'per_block' random frames), on the
// Index grid of period 'period', with gaps.
Step PoolingStep(int32 period, int32 left, int32 right) {
  Step s;
  for (int32 t = -5 * period; t <= 6 * period; t += period)
    if (t != 2 * period) s.inputs.push_back(Index(0, t, 0));
  for (int32 t = 0; t <= 2 * period; t += period) s.inputs.push_back(Index(2, t, 0));
  s.inputs.push_back(Index(2, 0, 1));
  // Every output time on the grid whose window has at least one input (the
  // compiler drops the others), plus all inputs must be used.
  std::set<std::tuple<int32, int32, int32> > seen;
  for (const Index &i : s.inputs) {
    for (int32 t = i.t - right; t <= i.t + left; t += period) {
      if (seen.insert(std::make_tuple(i.n, t, i.x)).second)
        s.outputs.push_back(Index(i.n, t, i.x));
    }
  }
  return s;
}

CuMatrix<BaseFloat> PoolingInput(int32 rows, int32 feat_dim,
                                 RandomSource *rs) {
  Matrix<BaseFloat> in(rows, 1 + 2 * feat_dim);
  for (int32 r = 0; r < rows; r++) {
    int32 n = 3 + static_cast<int32>(rs->Uniform() * 3);
    in(r, 0) = n;
    for (int32 k = 0; k < n; k++)
      for (int32 j = 0; j < feat_dim; j++) {
        BaseFloat x = rs->Gauss();
        in(r, 1 + j) += x;
        in(r, 1 + feat_dim + j) += x * x;
      }
  }
  return testing::Contig(in);
}

struct PoolingCase {
  int32 period, left, right, nlc;
  bool stddevs;
};

std::unique_ptr<Component> MakePooling(const PoolingCase &pc, int32 input_dim) {
  std::ostringstream cfg;
  cfg << "input-dim=" << input_dim << " input-period=" << pc.period
      << " left-context=" << pc.left << " right-context=" << pc.right
      << " num-log-count-features=" << pc.nlc
      << " output-stddevs=" << (pc.stddevs ? "true" : "false");
  return FromConfig("StatisticsPoolingComponent", cfg.str());
}

const PoolingCase kPoolingCases[] = {
    {1, 2, 3, 0, true}, {1, 0, 2, 1, false}, {3, 6, 3, 2, true},
    {3, 3, 0, 0, false}, {2, 4, 4, 3, true}};

TEST(StatisticsPooling, PropagateMatchesNaiveMeansAndStddevs) {
  const int32 f = 2;
  for (const PoolingCase &pc : kPoolingCases) {
    auto c = MakePooling(pc, 1 + 2 * f);
    ASSERT_EQ(c->OutputDim(), pc.nlc + 2 * f);
    Step s = PoolingStep(pc.period, pc.left, pc.right);
    Prepare(*c, &s);
    RandomSource rs(9);
    CuMatrix<BaseFloat> in_cu = PoolingInput(s.inputs.size(), f, &rs);
    const Matrix<BaseFloat> in = ToHost(in_cu);
    const Matrix<BaseFloat> out = ToHost(Propagate(*c, s, in_cu));
    for (size_t o = 0; o < s.outputs.size(); o++) {
      const Index &oi = s.outputs[o];
      double count = 0, sum[f] = {0, 0}, sumsq[f] = {0, 0};
      for (size_t i = 0; i < s.inputs.size(); i++) {
        const Index &ii = s.inputs[i];
        int32 dt = ii.t - oi.t;
        if (ii.n != oi.n || ii.x != oi.x || dt < -pc.left || dt > pc.right ||
            dt % pc.period != 0)
          continue;
        count += in(i, 0);
        for (int32 j = 0; j < f; j++) {
          sum[j] += in(i, 1 + j);
          sumsq[j] += in(i, 1 + f + j);
        }
      }
      ASSERT_GT(count, 0) << oi;
      for (int32 k = 0; k < pc.nlc; k++)
        EXPECT_NEAR(out(o, k), std::log(count), 1e-5);
      for (int32 j = 0; j < f; j++) {
        double mean = sum[j] / count, msq = sumsq[j] / count;
        EXPECT_NEAR(out(o, pc.nlc + j), mean, 1e-5);
        double second = pc.stddevs ? std::sqrt(std::max(msq - mean * mean, 1e-10))
                                   : msq;
        EXPECT_NEAR(out(o, pc.nlc + f + j), second, 1e-4);
      }
    }
  }
}

TEST(StatisticsPooling, VarianceFloorApplies) {
  auto c = FromConfig("StatisticsPoolingComponent",
                      "input-dim=3 left-context=1 right-context=0 "
                      "output-stddevs=true variance-floor=0.25");
  Step s;
  s.inputs = {Index(0, 0, 0), Index(0, 1, 0)};
  s.outputs = {Index(0, 0, 0), Index(0, 1, 0)};
  Prepare(*c, &s);
  Matrix<BaseFloat> in(2, 3);
  // Frame 0: one value 1.0; frame 1: one value 3.0 (so window t=1 has
  // variance 1, window t=0 variance 0 -> floored to 0.25).
  in(0, 0) = 1; in(0, 1) = 1; in(0, 2) = 1;
  in(1, 0) = 1; in(1, 1) = 3; in(1, 2) = 9;
  const Matrix<BaseFloat> out = ToHost(Propagate(*c, s, testing::Contig(in)));
  EXPECT_FLOAT_EQ(out(0, 0), 1.0);
  EXPECT_FLOAT_EQ(out(0, 1), 0.5);
  EXPECT_FLOAT_EQ(out(1, 0), 2.0);
  EXPECT_FLOAT_EQ(out(1, 1), 1.0);
}

TEST(StatisticsPooling, BackpropMatchesFiniteDifferences) {
  const int32 f = 3;
  for (const PoolingCase &pc : kPoolingCases) {
    auto c = MakePooling(pc, 1 + 2 * f);
    Step s = PoolingStep(pc.period, pc.left, pc.right);
    Prepare(*c, &s);
    RandomSource rs(21);
    CuMatrix<BaseFloat> in = PoolingInput(s.inputs.size(), f, &rs);
    // Column 0 (the count) gets no derivative by design.
    CheckInputDerivative(*c, s, in, 1, &rs, 5e-3);
  }
}

TEST(StatisticsPooling, BackpropReadsOnlyWhatItDeclares) {
  // With the values the flags do not ask for replaced by empty matrices,
  // Backprop gives the same input derivative.
  const int32 f = 2;
  for (const PoolingCase &pc : kPoolingCases) {
    auto c = MakePooling(pc, 1 + 2 * f);
    Step s = PoolingStep(pc.period, pc.left, pc.right);
    Prepare(*c, &s);
    RandomSource rs(4);
    CuMatrix<BaseFloat> in = PoolingInput(s.inputs.size(), f, &rs);
    CuMatrix<BaseFloat> out = Propagate(*c, s, in);
    CuMatrix<BaseFloat> od = RandMat(out.NumRows(), out.NumCols(), &rs);
    CuMatrix<BaseFloat> d1 = NewMat(in.NumRows(), in.NumCols()),
                        d2 = NewMat(in.NumRows(), in.NumCols()), empty;
    int32 props = c->Properties();
    c->Backprop("", s.pi.get(), in, out, od, nullptr, nullptr, &d1);
    c->Backprop("", s.pi.get(), (props & kBackpropNeedsInput) ? in : empty,
                (props & kBackpropNeedsOutput) ? out : empty, od, nullptr,
                nullptr, &d2);
    EXPECT_TRUE(d1.Equal(d2)) << c->Info();
  }
  // Extraction without variance needs neither.
  auto e = FromConfig("StatisticsExtractionComponent",
                      "input-dim=3 output-period=4 include-variance=false");
  Step s = ExtractionStep(1, 4);
  Prepare(*e, &s);
  RandomSource rs(6);
  CuMatrix<BaseFloat> in = RandMat(s.inputs.size(), 3, &rs);
  CuMatrix<BaseFloat> od = RandMat(s.outputs.size(), 4, &rs);
  CuMatrix<BaseFloat> d1 = NewMat(in.NumRows(), 3),
                      d2 = NewMat(in.NumRows(), 3), empty;
  e->Backprop("", s.pi.get(), in, empty, od, nullptr, nullptr, &d1);
  e->Backprop("", s.pi.get(), empty, empty, od, nullptr, nullptr, &d2);
  EXPECT_TRUE(d1.Equal(d2));
}

TEST(StatisticsPooling, PropertiesAsKaldi) {
  PoolingCase a = {1, 1, 1, 0, false}, b = {1, 1, 1, 2, false},
              d = {1, 1, 1, 0, true};
  EXPECT_EQ(MakePooling(a, 5)->Properties(),
            kReordersIndexes | kBackpropAdds | kBackpropNeedsInput);
  EXPECT_EQ(MakePooling(b, 5)->Properties(),
            kReordersIndexes | kBackpropAdds | kBackpropNeedsOutput);
  EXPECT_EQ(MakePooling(d, 5)->Properties(),
            kReordersIndexes | kBackpropAdds | kBackpropNeedsOutput |
                kBackpropNeedsInput);
}

TEST(StatisticsPooling, InputIndexesAndComputability) {
  auto c = FromConfig("StatisticsPoolingComponent",
                      "input-dim=5 input-period=3 left-context=6 right-context=3");
  MiscComputationInfo misc;
  std::vector<Index> v;
  c->GetInputIndexes(misc, Index(1, -3, 2), &v);
  std::vector<Index> ref = {Index(1, -9, 2), Index(1, -6, 2), Index(1, -3, 2),
                            Index(1, 0, 2)};
  EXPECT_EQ(v, ref);
  // Only multiples of input-period can be asked for.
  EXPECT_THROW(c->GetInputIndexes(misc, Index(0, 4, 0), &v), UserError);
  SetOfIndexes avail({Index(0, -6, 0), Index(0, 3, 0)});
  std::vector<Index> used;
  EXPECT_TRUE(c->IsComputable(misc, Index(0, 0, 0), avail, &used));
  ref = {Index(0, -6, 0), Index(0, 3, 0)};
  EXPECT_EQ(used, ref);
  EXPECT_TRUE(c->IsComputable(misc, Index(0, 6, 0), avail, nullptr));
  EXPECT_FALSE(c->IsComputable(misc, Index(0, 1, 0), avail, &used));
  EXPECT_FALSE(c->IsComputable(misc, Index(0, -1, 0), avail, nullptr));
  EXPECT_FALSE(c->IsComputable(misc, Index(0, 12, 0), avail, &used));
  EXPECT_TRUE(used.empty());
  EXPECT_TRUE(c->IsComputable(misc, Index(0, -9, 0), avail, nullptr));
  EXPECT_FALSE(c->IsComputable(misc, Index(0, -12, 0), avail, nullptr));
  EXPECT_FALSE(c->IsComputable(misc, Index(0, -15, 0), avail, nullptr));
}

std::string WriteIndexes(const ComponentPrecomputedIndexes &p, bool binary) {
  std::ostringstream os;
  p.Write(os, binary);
  return os.str();
}

void CheckIndexesRoundTrip(const ComponentPrecomputedIndexes &p) {
  for (bool binary : {false, true}) {
    std::string s = WriteIndexes(p, binary);
    std::istringstream is(s);
    std::unique_ptr<ComponentPrecomputedIndexes> back(
        ComponentPrecomputedIndexes::ReadNew(is, binary));
    ASSERT_TRUE(back != nullptr);
    EXPECT_EQ(back->Type(), p.Type());
    EXPECT_EQ(WriteIndexes(*back, binary), s);
    std::unique_ptr<ComponentPrecomputedIndexes> copy(p.Copy());
    EXPECT_EQ(WriteIndexes(*copy, binary), s);
  }
}

TEST(StatisticsPrecomputedIndexes, ContentsAndIo) {
  auto e = FromConfig("StatisticsExtractionComponent",
                      "input-dim=2 input-period=1 output-period=2");
  Step s;
  s.inputs = {Index(0, 1, 0), Index(0, 0, 0), Index(1, 0, 0), Index(0, 2, 0)};
  s.outputs = {Index(1, 0, 0), Index(0, 2, 0), Index(0, 0, 0)};
  Prepare(*e, &s);
  EXPECT_EQ(WriteIndexes(*s.pi, false),
            "<StatisticsExtractionComponentPrecomputedIndexes> <ForwardIndexes> "
            "[ 0,2 2,3 3,4 ]\n<Counts>  [ 2 1 1 ]\n<BackwardIndexes> "
            "[ 0 0 1 2 ]\n</StatisticsExtractionComponentPrecomputedIndexes> ");
  CheckIndexesRoundTrip(*s.pi);
  // Without backprop the inverse map is left out.
  Prepare(*e, &s, false);
  EXPECT_NE(WriteIndexes(*s.pi, false).find("<BackwardIndexes> [ ]\n</"),
            std::string::npos);

  auto p = FromConfig("StatisticsPoolingComponent",
                      "input-dim=3 left-context=1 right-context=1");
  s.inputs = {Index(0, 0, 0), Index(0, 1, 0), Index(0, 2, 0)};
  s.outputs = {Index(0, 0, 0), Index(0, 1, 0), Index(0, 2, 0), Index(0, 3, 0)};
  Prepare(*p, &s);
  EXPECT_EQ(WriteIndexes(*s.pi, false),
            "<StatisticsPoolingComponentPrecomputedIndexes> <ForwardIndexes> "
            "[ 0,2 0,3 1,3 2,3 ]\n<BackwardIndexes> [ 0,2 0,3 1,4 ]\n"
            "</StatisticsPoolingComponentPrecomputedIndexes> ");
  CheckIndexesRoundTrip(*s.pi);
}

TEST(Statistics, IoRoundTripAndKaldiSpans) {
  testing::CheckIoRoundTrip(
      *FromConfig("StatisticsExtractionComponent",
                  "input-dim=7 input-period=2 output-period=8 include-variance=false"),
      [] { return new StatisticsExtractionComponent(); });
  testing::CheckIoRoundTrip(
      *FromConfig("StatisticsPoolingComponent",
                  "input-dim=7 input-period=2 left-context=4 right-context=2 "
                  "num-log-count-features=2 output-stddevs=true variance-floor=3e-09"),
      [] { return new StatisticsPoolingComponent(); });
  // Kaldi's text spans (rand005/009/010/017 and later/stats), read and
  // written back, also through binary; their nnet3-info lines.
  int32 spans = 0;
  for (const char *f : {"rand005", "rand009", "rand010", "rand017", "later/stats"}) {
    std::string text = testing::ReadFile(testing::ModelsDir() + f + ".txt");
    std::string info = testing::ReadFile(testing::ModelsDir() + f + ".info");
    for (const char *type :
         {"StatisticsExtractionComponent", "StatisticsPoolingComponent"}) {
      std::string open = std::string("<") + type + "> ",
                  close = std::string("</") + type + "> ";
      size_t pos = text.find(open);
      ASSERT_NE(pos, std::string::npos) << f << " " << type;
      std::string span =
          text.substr(pos, text.find(close, pos) + close.size() - pos);
      std::unique_ptr<Component> c(Component::NewComponentOfType(type));
      std::istringstream is(span);
      c->Read(is, false);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, false), span), "");
      std::istringstream bis(testing::WriteToString(*c, true));
      std::unique_ptr<Component> c2(Component::ReadNew(bis, true));
      EXPECT_EQ(testing::WriteToString(*c2, false), span);
      EXPECT_NE(info.find(std::string(" type=") + c->Info() + "\n"),
                std::string::npos)
          << f << ": " << c->Info();
      spans++;
    }
  }
  EXPECT_EQ(spans, 10);
}

TEST(Statistics, InfoAndCopy) {
  auto e = FromConfig("StatisticsExtractionComponent", "input-dim=30");
  EXPECT_EQ(e->Info(), "StatisticsExtractionComponent, input-dim=30, output-dim=61");
  auto p = FromConfig("StatisticsPoolingComponent",
                      "input-dim=31 left-context=7 right-context=3 "
                      "num-log-count-features=2 variance-floor=1e-09");
  EXPECT_EQ(p->Info(), "StatisticsPoolingComponent, input-dim=31, output-dim=32");
  // Defaults as Kaldi: input-period 1, output-stddevs false.
  const auto &pc = dynamic_cast<const StatisticsPoolingComponent &>(*p);
  EXPECT_EQ(pc.InputPeriod(), 1);
  EXPECT_FALSE(pc.OutputStddevs());
  EXPECT_FLOAT_EQ(pc.VarianceFloor(), 1e-9f);
  // Kaldi's copy leaves out the variance floor (it goes back to 1e-10).
  std::unique_ptr<Component> copy(p->Copy());
  EXPECT_FLOAT_EQ(dynamic_cast<StatisticsPoolingComponent &>(*copy).VarianceFloor(),
                  1e-10f);
  const auto &ec = dynamic_cast<const StatisticsExtractionComponent &>(*e);
  EXPECT_TRUE(ec.IncludeVariance());
  EXPECT_EQ(ec.InputPeriod(), 1);
  EXPECT_EQ(ec.OutputPeriod(), 1);
}

TEST(Statistics, ConfigErrors) {
  const std::string ex = "StatisticsExtractionComponent",
                    po = "StatisticsPoolingComponent";
  auto has = [](const std::string &msg, const std::string &what) {
    return msg.find(what) != std::string::npos;
  };
  EXPECT_TRUE(has(ConfigError(ex, "input-period=1"), "input-dim"));
  EXPECT_TRUE(has(ConfigError(ex, "input-dim=0"), "input-dim=0"));
  EXPECT_TRUE(has(ConfigError(ex, "input-dim=3 input-period=0"), "input-period=0"));
  EXPECT_TRUE(has(ConfigError(ex, "input-dim=3 output-period=-2"), "output-period=-2"));
  EXPECT_TRUE(has(ConfigError(ex, "input-dim=3 input-period=2 output-period=3"),
                  "output-period=3"));
  EXPECT_TRUE(has(ConfigError(ex, "input-dim=3 left-context=2"), "left-context"));
  EXPECT_EQ(ConfigError(ex, "input-dim=3 input-period=2 output-period=4"), "");

  EXPECT_TRUE(has(ConfigError(po, "left-context=1 right-context=1"), "input-dim"));
  EXPECT_TRUE(has(ConfigError(po, "input-dim=3"), "left-context"));
  EXPECT_TRUE(has(ConfigError(po, "input-dim=3 right-context=2"), "left-context=-1"));
  EXPECT_TRUE(has(ConfigError(po, "input-dim=3 left-context=0 right-context=0"),
                  "right-context=0"));
  EXPECT_TRUE(has(ConfigError(po, "input-dim=3 input-period=2 left-context=3 "
                                  "right-context=2"),
                  "left-context=3"));
  EXPECT_TRUE(has(ConfigError(po, "input-dim=3 input-period=2 left-context=2 "
                                  "right-context=1"),
                  "right-context=1"));
  EXPECT_TRUE(has(ConfigError(po, "input-dim=4 left-context=1 right-context=1 "
                                  "output-stddevs=true"),
                  "input-dim=4"));
  EXPECT_TRUE(has(ConfigError(po, "input-dim=3 left-context=1 right-context=1 "
                                  "variance-floor=1.5"),
                  "variance-floor=1.5"));
  EXPECT_TRUE(has(ConfigError(po, "num-log-count-features=-1 input-dim=3 "
                                  "right-context=1 left-context=1"),
                  "num-log-count-features=-1"));
  EXPECT_TRUE(has(ConfigError(po, "input-dim=3 left-context=1 right-context=1 "
                                  "output-period=2"),
                  "output-period"));
  EXPECT_EQ(ConfigError(po, "input-dim=3 left-context=0 right-context=4"), "");
}

TEST(Statistics, BadFilesAreRefused) {
  std::istringstream a(
      "<StatisticsPoolingComponent> <InputDim> 4 <InputPeriod> 1 <LeftContext> 1 "
      "<RightContext> 1 <NumLogCountFeatures> 0 <OutputStddevs> T "
      "<VarianceFloor> 1e-10 </StatisticsPoolingComponent> ");
  StatisticsPoolingComponent p;
  EXPECT_THROW(p.Read(a, false), UserError);
  std::istringstream b(
      "<StatisticsExtractionComponent> <InputDim> 4 <InputPeriod> 3 "
      "<OutputPeriod> 4 <IncludeVarinance> T </StatisticsExtractionComponent> ");
  StatisticsExtractionComponent e;
  EXPECT_THROW(e.Read(b, false), UserError);
}

}  // namespace
}  // namespace nnet3
