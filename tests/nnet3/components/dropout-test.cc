// tests/nnet3/components/dropout-test.cc
// GeneralDropoutComponent, SpecAugmentTimeMaskComponent and
// DropoutMaskComponent, and the model tools around them. Oracles written
// here, not taken from the component code: the mask is read off the output
// (out / in) and checked for the structure the options promise (shared per
// sequence / per time block, repeated across blocks, values 0 or 1/(1-p),
// the continuous range, SpecAugment runs within their limits, the same mask
// on every column of a frame) and for its statistics over many draws;
// Backprop must apply exactly that mask; test mode must be the identity (or
// 1 - p for DropoutMaskComponent). Formats: Kaldi's own text of these
// components in tests/data/kaldi/models/x-dropout.txt, read and written
// back byte for byte (text, and binary then text), their binary bytes in
// x-dropout.raw likewise, plus the nnet3-info lines of that model. Tools: set-dropout-proportion, SetDropoutTestMode
// and CollapseModel on small networks.
#include "nnet3/components/dropout.h"
#include "nnet3/components/normalize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/testing.h"
#include "nnet3/components/component-test-util.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-edit.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {
namespace {

using testing::NewMat;
using testing::RandMat;

template <class C>
std::unique_ptr<C> Make(const std::string &line) {
  std::unique_ptr<C> ans(new C());
  ConfigLine cfl;
  std::string error;
  EXPECT_TRUE(cfl.ParseLine(line, &error)) << error;
  ans->InitFromConfig(&cfl);
  return ans;
}

// Indexes (n, t) for n in [0, num_seq), t in [t0, t0 + len), n-major.
std::vector<Index> Grid(int32 num_seq, int32 t0, int32 len) {
  std::vector<Index> v;
  for (int32 n = 0; n < num_seq; n++)
    for (int32 t = t0; t < t0 + len; t++) v.push_back(Index(n, t));
  return v;
}

// Input with no zeros (so out / in recovers the mask exactly).
CuMatrix<BaseFloat> NonZeroInput(int32 rows, int32 cols, RandomSource *rs) {
  Matrix<BaseFloat> m = ToHost(RandMat(rows, cols, rs));
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c++)
      m(r, c) = (m(r, c) >= 0 ? 1.0f : -1.0f) * (0.5f + std::fabs(m(r, c)));
  return testing::Contig(m);
}

// Runs Propagate with precomputed indexes for 'indexes'; returns the mask
// (out / in) and, in *memo_out (if non-null), the memo (else it is freed).
Matrix<BaseFloat> RunMask(const Component &c, const std::vector<Index> &indexes,
                          const CuMatrixBase<BaseFloat> &in_cu,
                          ComponentPrecomputedIndexes **pi_out = nullptr,
                          void **memo_out = nullptr) {
  MiscComputationInfo misc;
  ComponentPrecomputedIndexes *pi =
      c.PrecomputeIndexes(misc, indexes, indexes, true);
  CuMatrix<BaseFloat> out_cu = NewMat(in_cu.NumRows(), in_cu.NumCols());
  void *memo = c.Propagate(pi, in_cu, &out_cu);
  const Matrix<BaseFloat> in = ToHost(in_cu), out = ToHost(out_cu);
  Matrix<BaseFloat> mask(in.NumRows(), in.NumCols());
  for (int32 r = 0; r < in.NumRows(); r++)
    for (int32 k = 0; k < in.NumCols(); k++) mask(r, k) = out(r, k) / in(r, k);
  if (memo_out) *memo_out = memo; else c.DeleteMemo(memo);
  if (pi_out) *pi_out = pi; else delete pi;
  return mask;
}

bool RowsEqual(const Matrix<BaseFloat> &m, int32 r1, int32 c1, int32 r2,
               int32 c2, int32 len) {
  for (int32 j = 0; j < len; j++)
    if (std::fabs(m(r1, c1 + j) - m(r2, c2 + j)) > 1e-5) return false;
  return true;
}

std::string XDropoutText() {
  return testing::ReadFile(testing::DataDir() + "/kaldi/models/x-dropout.txt");
}

// The "<Type> ... </Type> " spans of a type in a text.
std::vector<std::string> Spans(const std::string &text,
                               const std::string &type) {
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

// ---- GeneralDropoutComponent --------------------------------------------------

TEST(GeneralDropout, ConfigDefaultsAndInfo) {
  auto c = Make<GeneralDropoutComponent>("dim=8");
  EXPECT_EQ(c->BlockDim(), 8);
  EXPECT_EQ(c->TimePeriod(), 0);
  EXPECT_FLOAT_EQ(c->DropoutProportion(), 0.5);
  EXPECT_FALSE(c->Continuous());
  EXPECT_EQ(c->SpecAugmentMaxProportion(), 0.0);
  EXPECT_EQ(c->SpecAugmentMaxRegions(), 1);
  EXPECT_FALSE(c->TestMode());
  EXPECT_EQ(c->Properties(),
            kRandomComponent | kPropagateInPlace | kBackpropInPlace | kUsesMemo);
  EXPECT_EQ(c->Info(),
            "GeneralDropoutComponent, dim=8, block-dim=8, dropout-proportion=0.5");
  auto b = Make<GeneralDropoutComponent>(
      "dim=8 block-dim=4 time-period=3 dropout-proportion=0.2 continuous=true");
  EXPECT_TRUE(b->Properties() & kInputContiguous);
  EXPECT_TRUE(b->Properties() & kOutputContiguous);
  EXPECT_FALSE(b->Properties() & kSimpleComponent);
  EXPECT_EQ(b->Info(),
            "GeneralDropoutComponent, dim=8, block-dim=4, dropout-proportion=0.2"
            ", continuous=true, time-period=3");
  auto s = Make<GeneralDropoutComponent>(
      "dim=8 specaugment-max-proportion=0.25 specaugment-max-regions=2");
  EXPECT_EQ(s->Info(),
            "GeneralDropoutComponent, dim=8, block-dim=8, dropout-proportion=0.5"
            ", specaugment-max-proportion=0.25, specaugment-max-regions=2");
}

TEST(GeneralDropout, ConfigErrorsNameTheOption) {
  const std::string t = "GeneralDropoutComponent";
  EXPECT_NE(testing::ConfigError(t, "block-dim=4").find("dim"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=0").find("dim=0"), std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=8 block-dim=3").find("block-dim=3"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=8 time-period=-2").find("time-period"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=8 dropout-proportion=1.5")
                .find("dropout-proportion=1.5"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(
                t, "dim=8 specaugment-max-proportion=0.3 continuous=true")
                .find("specaugment-max-proportion=0.3"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(
                t, "dim=8 specaugment-max-proportion=0.3 specaugment-max-regions=0")
                .find("specaugment-max-regions=0"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=8 blockdim=4").find("blockdim"),
            std::string::npos);
  EXPECT_EQ(testing::ConfigError(t, "dim=8 block-dim=2 time-period=5 "
                                    "dropout-proportion=0.1 test-mode=true"),
            "");
}

TEST(GeneralDropout, PrecomputedIndexesGroupBySequenceAndTimeBlock) {
  // Rows in a scrambled order, negative times included.
  std::vector<Index> idx = {Index(1, 4), Index(0, -1), Index(0, 3), Index(1, 0),
                            Index(0, 0), Index(2, 7, 1), Index(0, -4),
                            Index(1, 3)};
  MiscComputationInfo misc;
  for (int32 period : {0, 4}) {
    for (int32 block : {6, 2}) {
      auto c = Make<GeneralDropoutComponent>(
          "dim=6 block-dim=" + std::to_string(block) +
          " time-period=" + std::to_string(period));
      std::unique_ptr<ComponentPrecomputedIndexes> pi(
          c->PrecomputeIndexes(misc, idx, idx, true));
      auto *g = dynamic_cast<GeneralDropoutComponentPrecomputedIndexes *>(pi.get());
      ASSERT_TRUE(g != nullptr);
      int32 multiple = 6 / block;
      // Oracle: first-appearance numbering of (n, floor(t / period)).
      std::map<std::pair<int32, int32>, int32> seen;
      std::vector<int32> expected;
      for (const Index &i : idx) {
        int32 tb = period == 0 ? 0
                               : static_cast<int32>(std::floor(double(i.t) / period));
        auto key = std::make_pair(i.n, tb);
        if (!seen.count(key)) {
          int32 next = static_cast<int32>(seen.size());
          seen[key] = next;
        }
        for (int32 b = 0; b < multiple; b++) expected.push_back(seen[key]);
      }
      EXPECT_EQ(g->indexes.Vec(), expected) << period << " " << block;
      EXPECT_EQ(g->num_mask_rows, static_cast<int32>(seen.size()) * multiple);
    }
  }
}

TEST(GeneralDropout, PrecomputedIndexesIoAndRegistry) {
  auto c = Make<GeneralDropoutComponent>("dim=6 block-dim=3 time-period=2");
  std::vector<Index> idx = Grid(2, -1, 5);
  MiscComputationInfo misc;
  std::unique_ptr<ComponentPrecomputedIndexes> pi(
      c->PrecomputeIndexes(misc, idx, idx, false));
  for (bool binary : {false, true}) {
    std::ostringstream os;
    pi->Write(os, binary);
    if (!binary) {
      EXPECT_EQ(os.str(),
                "<GeneralDropoutComponentPrecomputedIndexes> <NumMaskRows> 12 "
                "<Indexes> [ 0 0 1 1 1 1 2 2 2 2 3 3 4 4 4 4 5 5 5 5 ]\n"
                "</GeneralDropoutComponentPrecomputedIndexes> ");
    }
    std::istringstream is(os.str());
    std::unique_ptr<ComponentPrecomputedIndexes> back(
        ComponentPrecomputedIndexes::ReadNew(is, binary));
    ASSERT_TRUE(back != nullptr);
    std::ostringstream os2;
    back->Write(os2, binary);
    EXPECT_EQ(os2.str(), os.str());
    std::unique_ptr<ComponentPrecomputedIndexes> copy(back->Copy());
    std::ostringstream os3;
    copy->Write(os3, binary);
    EXPECT_EQ(os3.str(), os.str());
  }
}

TEST(GeneralDropout, MaskIsSharedPerSequenceAndHasTheRightValues) {
  RandomSource rs(1);
  const BaseFloat p = 0.25;
  auto c = Make<GeneralDropoutComponent>("dim=40 dropout-proportion=0.25");
  // 300 sequences x 3 frames: every row of a sequence has the same mask.
  std::vector<Index> idx = Grid(300, 0, 3);
  CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), 40, &rs);
  Matrix<BaseFloat> mask = RunMask(*c, idx, in);
  int64 zeros = 0;
  for (int32 s = 0; s < 300; s++) {
    EXPECT_TRUE(RowsEqual(mask, 3 * s, 0, 3 * s + 1, 0, 40));
    EXPECT_TRUE(RowsEqual(mask, 3 * s, 0, 3 * s + 2, 0, 40));
    for (int32 k = 0; k < 40; k++) {
      BaseFloat m = mask(3 * s, k);
      ASSERT_TRUE(m == 0.0f || std::fabs(m - 1.0f / (1.0f - p)) < 1e-5) << m;
      zeros += (m == 0.0f);
    }
  }
  // 12000 draws: stddev of the proportion ~0.004.
  EXPECT_NEAR(double(zeros) / (300 * 40), p, 0.02);
  // Different sequences get different masks.
  EXPECT_FALSE(RowsEqual(mask, 0, 0, 3, 0, 40));
}

TEST(GeneralDropout, BlockDimRepeatsTheMaskAndTimePeriodSplitsIt) {
  RandomSource rs(2);
  auto c = Make<GeneralDropoutComponent>(
      "dim=12 block-dim=4 time-period=5 dropout-proportion=0.5");
  // t from -5 to 9: time blocks [-5,-1], [0,4], [5,9].
  std::vector<Index> idx = Grid(2, -5, 15);
  CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), 12, &rs);
  Matrix<BaseFloat> mask = RunMask(*c, idx, in);
  int32 distinct_pairs = 0;
  for (size_t i = 0; i < idx.size(); i++) {
    // The 4-column mask repeats 3 times across the row.
    EXPECT_TRUE(RowsEqual(mask, i, 0, i, 4, 4));
    EXPECT_TRUE(RowsEqual(mask, i, 0, i, 8, 4));
    for (size_t j = i + 1; j < idx.size(); j++) {
      bool same_block = idx[i].n == idx[j].n &&
                        std::floor(idx[i].t / 5.0) == std::floor(idx[j].t / 5.0);
      if (same_block) {
        EXPECT_TRUE(RowsEqual(mask, i, 0, j, 0, 4)) << i << " " << j;
      } else {
        distinct_pairs += !RowsEqual(mask, i, 0, j, 0, 4);
      }
    }
  }
  // With 4 values per mask at p = 0.5, most pairs of blocks differ.
  EXPECT_GT(distinct_pairs, 100);
}

TEST(GeneralDropout, ContinuousMaskRangeAndMean) {
  RandomSource rs(3);
  const double p = 0.3;
  auto c = Make<GeneralDropoutComponent>("dim=50 dropout-proportion=0.3 "
                                         "continuous=true");
  std::vector<Index> idx = Grid(200, 0, 2);
  CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), 50, &rs);
  Matrix<BaseFloat> mask = RunMask(*c, idx, in);
  double sum = 0.0, lo = 10, hi = -10;
  for (int32 s = 0; s < 200; s++)
    for (int32 k = 0; k < 50; k++) {
      double m = mask(2 * s, k);
      sum += m;
      lo = std::min(lo, m);
      hi = std::max(hi, m);
    }
  EXPECT_GE(lo, 1.0 - 2 * p - 1e-5);
  EXPECT_LE(hi, 1.0 + 2 * p + 1e-5);
  // Uniform on [0.4, 1.6]: the extremes get close to the ends.
  EXPECT_LT(lo, 1.0 - 2 * p + 0.02);
  EXPECT_GT(hi, 1.0 + 2 * p - 0.02);
  // 10000 draws of variance (1.2)^2/12: stddev of the mean ~0.0035.
  EXPECT_NEAR(sum / (200 * 50), 1.0, 0.015);
}

// Zeroed bins of a 0/1 frequency mask row.
std::vector<int32> ZeroBins(const Matrix<BaseFloat> &mask, int32 r, int32 bins) {
  std::vector<int32> z;
  for (int32 k = 0; k < bins; k++) {
    EXPECT_TRUE(mask(r, k) == 0.0f || mask(r, k) == 1.0f) << mask(r, k);
    if (mask(r, k) == 0.0f) z.push_back(k);
  }
  return z;
}

// Number of circular runs of zeros.
int32 CircularRuns(const Matrix<BaseFloat> &mask, int32 r, int32 bins) {
  int32 runs = 0;
  for (int32 k = 0; k < bins; k++)
    if (mask(r, k) == 0.0f && mask(r, (k + bins - 1) % bins) != 0.0f) runs++;
  if (runs == 0 && mask(r, 0) == 0.0f) runs = 1;  // everything zero
  return runs;
}

TEST(GeneralDropout, SpecAugmentFrequencyMasks) {
  RandomSource rs(4);
  const int32 bins = 20, max_zeroed = 6;  // round(20 * 0.3)
  for (int32 regions : {1, 3}) {
    auto c = Make<GeneralDropoutComponent>(
        "dim=20 specaugment-max-proportion=0.3 specaugment-max-regions=" +
        std::to_string(regions));
    std::vector<Index> idx = Grid(400, 0, 2);
    CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), bins, &rs);
    Matrix<BaseFloat> mask = RunMask(*c, idx, in);
    std::set<int32> counts;
    int32 max_runs = 0;
    for (int32 s = 0; s < 400; s++) {
      EXPECT_TRUE(RowsEqual(mask, 2 * s, 0, 2 * s + 1, 0, bins));
      std::vector<int32> z = ZeroBins(mask, 2 * s, bins);
      EXPECT_LE(static_cast<int32>(z.size()), max_zeroed);
      counts.insert(z.size());
      int32 runs = CircularRuns(mask, 2 * s, bins);
      EXPECT_LE(runs, regions) << s;
      max_runs = std::max(max_runs, runs);
    }
    // Every count from 0 to 6 occurs with 400 draws.
    EXPECT_EQ(counts.size(), static_cast<size_t>(max_zeroed + 1));
    if (regions == 1) {
      EXPECT_EQ(max_runs, 1);
    } else {
      EXPECT_GT(max_runs, 1);
    }
  }
}

TEST(GeneralDropout, BackpropAppliesTheMaskOfTheMemo) {
  RandomSource rs(5);
  for (const std::string &cfg :
       {std::string("dim=12 block-dim=4 time-period=2 dropout-proportion=0.4"),
        std::string("dim=12 dropout-proportion=0.3 continuous=true"),
        std::string("dim=12 specaugment-max-proportion=0.5")}) {
    auto c = Make<GeneralDropoutComponent>(cfg);
    std::vector<Index> idx = Grid(3, 0, 6);
    CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), 12, &rs);
    ComponentPrecomputedIndexes *pi = nullptr;
    void *memo = nullptr;
    Matrix<BaseFloat> mask = RunMask(*c, idx, in, &pi, &memo);
    ASSERT_TRUE(memo != nullptr) << cfg;
    CuMatrix<BaseFloat> out_deriv = RandMat(idx.size(), 12, &rs);
    CuMatrix<BaseFloat> in_deriv = NewMat(idx.size(), 12), empty;
    c->Backprop("test", pi, empty, empty, out_deriv, memo, nullptr, &in_deriv);
    const Matrix<BaseFloat> in_deriv_h = ToHost(in_deriv),
                            out_deriv_h = ToHost(out_deriv);
    for (size_t r = 0; r < idx.size(); r++)
      for (int32 k = 0; k < 12; k++)
        EXPECT_NEAR(in_deriv_h(r, k), out_deriv_h(r, k) * mask(r, k), 1e-5)
            << cfg;
    // In place (kBackpropInPlace): the same result.
    CuMatrix<BaseFloat> d = testing::Contig(out_deriv);
    c->Backprop("test", pi, empty, empty, d, memo, nullptr, &d);
    EXPECT_TRUE(d.ApproxEqual(in_deriv, 1e-6)) << cfg;
    c->DeleteMemo(memo);
    // Propagate in place (kPropagateInPlace) multiplies by a mask too.
    CuMatrix<BaseFloat> x_cu = testing::Contig(in);
    c->DeleteMemo(c->Propagate(pi, x_cu, &x_cu));
    const Matrix<BaseFloat> x = ToHost(x_cu), in_h = ToHost(in);
    for (size_t r = 0; r < idx.size(); r++)
      for (int32 k = 0; k < 12; k++)
        EXPECT_TRUE(x(r, k) == 0.0f ||
                    std::fabs(x(r, k) / in_h(r, k)) > 0.0f);
    delete pi;
  }
}

TEST(GeneralDropout, TestModeAndZeroProportionAreTheIdentity) {
  RandomSource rs(6);
  std::vector<Index> idx = Grid(2, 0, 4);
  CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), 6, &rs);
  for (const std::string &cfg :
       {std::string("dim=6 dropout-proportion=0.5 test-mode=true"),
        std::string("dim=6 dropout-proportion=0.0"),
        std::string("dim=6 specaugment-max-proportion=0.5 test-mode=true")}) {
    auto c = Make<GeneralDropoutComponent>(cfg);
    ComponentPrecomputedIndexes *pi = nullptr;
    void *memo = reinterpret_cast<void *>(1);
    Matrix<BaseFloat> mask = RunMask(*c, idx, in, &pi, &memo);
    EXPECT_EQ(memo, nullptr) << cfg;
    for (size_t r = 0; r < idx.size(); r++)
      for (int32 k = 0; k < 6; k++) EXPECT_EQ(mask(r, k), 1.0f) << cfg;
    CuMatrix<BaseFloat> od = RandMat(idx.size(), 6, &rs),
                        id = NewMat(idx.size(), 6);
    CuMatrix<BaseFloat> empty;
    c->Backprop("test", pi, empty, empty, od, nullptr, nullptr, &id);
    EXPECT_TRUE(id.Equal(od)) << cfg;
    delete pi;
  }
  // SetTestMode switches an existing component.
  auto c = Make<GeneralDropoutComponent>("dim=6 dropout-proportion=0.5");
  c->SetTestMode(true);
  EXPECT_TRUE(testing::Forward(*c, in).Equal(in));
}

TEST(GeneralDropout, SameSeedSameMask) {
  RandomSource rs(7);
  auto c = Make<GeneralDropoutComponent>("dim=10 dropout-proportion=0.5");
  std::vector<Index> idx = Grid(20, 0, 2);
  CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), 10, &rs);
  c->ResetGenerator(11);
  Matrix<BaseFloat> m1 = RunMask(*c, idx, in);
  Matrix<BaseFloat> m2 = RunMask(*c, idx, in);
  c->ResetGenerator(11);
  Matrix<BaseFloat> m3 = RunMask(*c, idx, in);
  EXPECT_TRUE(m1.Equal(m3));
  EXPECT_FALSE(m1.Equal(m2));
}

TEST(GeneralDropout, IoRoundTripsAndKaldiFormat) {
  for (const std::string &cfg :
       {std::string("dim=8"),
        std::string("dim=8 block-dim=2 time-period=7 dropout-proportion=0.125 "
                    "continuous=true test-mode=true"),
        std::string("dim=8 specaugment-max-proportion=0.375"),
        std::string("dim=8 specaugment-max-proportion=0.375 "
                    "specaugment-max-regions=2 test-mode=true")}) {
    auto c = Make<GeneralDropoutComponent>(cfg);
    testing::CheckIoRoundTrip(*c, [] { return new GeneralDropoutComponent(); });
    std::unique_ptr<Component> copy(c->Copy());
    EXPECT_EQ(testing::WriteToString(*copy, false),
              testing::WriteToString(*c, false));
  }
  EXPECT_EQ(testing::WriteToString(
                *Make<GeneralDropoutComponent>(
                    "dim=8 block-dim=2 time-period=7 dropout-proportion=0.125 "
                    "continuous=true test-mode=true"),
                false),
            "<GeneralDropoutComponent> <Dim> 8 <BlockDim> 2 <TimePeriod> 7 "
            "<DropoutProportion> 0.125 <TestMode> <Continuous> "
            "</GeneralDropoutComponent> ");
  EXPECT_EQ(testing::WriteToString(
                *Make<GeneralDropoutComponent>(
                    "dim=8 specaugment-max-proportion=0.375 "
                    "specaugment-max-regions=2"),
                false),
            "<GeneralDropoutComponent> <Dim> 8 <BlockDim> 8 <TimePeriod> 0 "
            "<DropoutProportion> 0.5 <SpecAugmentMaxProportion> 0.375 "
            "<SpecAugmentMaxRegions> 2 </GeneralDropoutComponent> ");
  // A wrong token where the closing tag belongs is an error.
  std::istringstream bad(
      "<GeneralDropoutComponent> <Dim> 8 <BlockDim> 8 <TimePeriod> 0 "
      "<DropoutProportion> 0.5 <Bogus> </GeneralDropoutComponent> ");
  GeneralDropoutComponent g;
  EXPECT_THROW(g.Read(bad, false), UserError);
}

// ---- SpecAugmentTimeMaskComponent -----------------------------------------------

TEST(SpecAugmentTimeMask, ConfigDefaultsErrorsAndInfo) {
  auto c = Make<SpecAugmentTimeMaskComponent>("dim=7");
  EXPECT_FLOAT_EQ(c->ZeroedProportion(), 0.25);
  EXPECT_EQ(c->TimeMaskMaxFrames(), 10);
  EXPECT_EQ(c->Properties(),
            kRandomComponent | kPropagateInPlace | kBackpropInPlace | kUsesMemo);
  EXPECT_EQ(c->Info(), "SpecAugmentTimeMaskComponent, dim=7, "
                       "zeroed-proportion=0.25, time-mask-max-frames=10");
  const std::string t = "SpecAugmentTimeMaskComponent";
  EXPECT_NE(testing::ConfigError(t, "zeroed-proportion=0.2").find("dim"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=-3").find("dim=-3"), std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=4 time-mask-max-frames=1")
                .find("time-mask-max-frames=1"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=4 zeroed-proportion=1.0")
                .find("zeroed-proportion=1"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "dim=4 zeroed-proportion=0.95 "
                                    "time-mask-max-frames=2")
                .find("zeroed-proportion=0.95"),
            std::string::npos);
  // Kaldi's initializer has no test-mode option for this type.
  EXPECT_NE(testing::ConfigError(t, "dim=4 test-mode=true").find("test-mode"),
            std::string::npos);
}

TEST(SpecAugmentTimeMask, PrecomputedIndexesSortEachSequenceByTime) {
  auto c = Make<SpecAugmentTimeMaskComponent>("dim=3");
  std::vector<Index> idx = {Index(5, 2), Index(2, 1), Index(5, -1), Index(2, 0),
                            Index(9, 4), Index(5, 0), Index(2, 7)};
  MiscComputationInfo misc;
  std::unique_ptr<ComponentPrecomputedIndexes> pi(
      c->PrecomputeIndexes(misc, idx, idx, true));
  auto *s = dynamic_cast<SpecAugmentTimeMaskComponentPrecomputedIndexes *>(pi.get());
  ASSERT_TRUE(s != nullptr);
  std::vector<std::vector<int32> > expected = {{3, 1, 6}, {2, 5, 0}, {4}};
  EXPECT_EQ(s->indexes, expected);
  EXPECT_EQ(s->tot_size, 7);
  for (bool binary : {false, true}) {
    std::ostringstream os;
    pi->Write(os, binary);
    if (!binary) {
      EXPECT_EQ(os.str(),
                "<SpecAugmentTimeMaskComponentPrecomputedIndexes> <Indexes> 3 "
                "[ 3 1 6 ]\n[ 2 5 0 ]\n[ 4 ]\n"
                "</SpecAugmentTimeMaskComponentPrecomputedIndexes> ");
    }
    std::istringstream is(os.str());
    std::unique_ptr<ComponentPrecomputedIndexes> back(
        ComponentPrecomputedIndexes::ReadNew(is, binary));
    auto *b = dynamic_cast<SpecAugmentTimeMaskComponentPrecomputedIndexes *>(
        back.get());
    ASSERT_TRUE(b != nullptr);
    EXPECT_EQ(b->indexes, expected);
    EXPECT_EQ(b->tot_size, 7);
  }
}

TEST(SpecAugmentTimeMask, RunsAreWithinLimitsAndFramesAreWhole) {
  RandomSource rs(8);
  const int32 T = 5, dim = 4, num_seq = 20, len = 500;
  const BaseFloat z = 0.2;
  const int32 K = 20;  // floor(5 * 0.8 / 0.2): the longest kept run
  auto c = Make<SpecAugmentTimeMaskComponent>(
      "dim=4 zeroed-proportion=0.2 time-mask-max-frames=5");
  // Rows in reverse order, so t order differs from row order.
  std::vector<Index> idx;
  for (int32 n = num_seq - 1; n >= 0; n--)
    for (int32 t = len - 1; t >= 0; t--) idx.push_back(Index(n, t));
  CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), dim, &rs);
  Matrix<BaseFloat> mask = RunMask(*c, idx, in);
  int64 zeros = 0;
  int32 longest_zero = 0, longest_kept = 0;
  int32 starts_zeroed = 0;
  for (int32 n = 0; n < num_seq; n++) {
    std::vector<int32> frame(len);
    for (int32 t = 0; t < len; t++) {
      int32 row = (num_seq - 1 - n) * len + (len - 1 - t);
      ASSERT_TRUE(mask(row, 0) == 0.0f || mask(row, 0) == 1.0f);
      for (int32 k = 1; k < dim; k++) ASSERT_EQ(mask(row, k), mask(row, 0));
      frame[t] = static_cast<int32>(mask(row, 0));
    }
    starts_zeroed += (frame[0] == 0);
    // Maximal runs; the last may be cut by the end of the sequence.
    for (int32 t = 0; t < len;) {
      int32 e = t;
      while (e < len && frame[e] == frame[t]) e++;
      if (frame[t] == 0) {
        EXPECT_LE(e - t, T);
        longest_zero = std::max(longest_zero, e - t);
        zeros += e - t;
      } else {
        EXPECT_LE(e - t, K);
        longest_kept = std::max(longest_kept, e - t);
      }
      t = e;
    }
  }
  EXPECT_EQ(longest_zero, T);
  EXPECT_GT(longest_kept, K - 3);
  // Runs of mean 3 zeroed and 10.5 kept frames.
  EXPECT_NEAR(double(zeros) / (num_seq * len), 3.0 / 13.5, 0.03);
  // The first run is a kept one with probability z.
  EXPECT_GT(starts_zeroed, 0);
  EXPECT_LT(starts_zeroed, num_seq);
  (void)z;
}

TEST(SpecAugmentTimeMask, BackpropTestModeIoAndKaldiFormat) {
  RandomSource rs(9);
  auto c = Make<SpecAugmentTimeMaskComponent>(
      "dim=3 zeroed-proportion=0.5 time-mask-max-frames=3");
  std::vector<Index> idx = Grid(4, 0, 30);
  CuMatrix<BaseFloat> in = NonZeroInput(idx.size(), 3, &rs);
  ComponentPrecomputedIndexes *pi = nullptr;
  void *memo = nullptr;
  Matrix<BaseFloat> mask = RunMask(*c, idx, in, &pi, &memo);
  ASSERT_TRUE(memo != nullptr);
  CuMatrix<BaseFloat> od = RandMat(idx.size(), 3, &rs), empty;
  CuMatrix<BaseFloat> id = testing::Contig(od);
  c->Backprop("test", pi, empty, empty, id, memo, nullptr, &id);  // in place
  for (size_t r = 0; r < idx.size(); r++)
    for (int32 k = 0; k < 3; k++)
      EXPECT_FLOAT_EQ(id.GetElement(r, k), od.GetElement(r, k) * mask(r, k));
  c->DeleteMemo(memo);
  // Test mode: identity, no memo.
  c->SetTestMode(true);
  CuMatrix<BaseFloat> out = NewMat(idx.size(), 3);
  EXPECT_EQ(c->Propagate(pi, in, &out), nullptr);
  EXPECT_TRUE(out.Equal(in));
  delete pi;
  // I/O: test mode is a bare token.
  EXPECT_EQ(testing::WriteToString(*c, false),
            "<SpecAugmentTimeMaskComponent> <Dim> 3 <ZeroedProportion> 0.5 "
            "<TimeMaskMaxFrames> 3 <TestMode> </SpecAugmentTimeMaskComponent> ");
  testing::CheckIoRoundTrip(*c, [] { return new SpecAugmentTimeMaskComponent(); });
  c->SetTestMode(false);
  testing::CheckIoRoundTrip(*c, [] { return new SpecAugmentTimeMaskComponent(); });
}

// ---- DropoutMaskComponent ---------------------------------------------------------

TEST(DropoutMask, ConfigIndexesAndInfo) {
  auto c = Make<DropoutMaskComponent>("output-dim=3");
  EXPECT_FLOAT_EQ(c->DropoutProportion(), 0.5);
  EXPECT_FALSE(c->Continuous());
  EXPECT_EQ(c->Properties(), kRandomComponent);
  EXPECT_EQ(c->Info(), "DropoutMaskComponent, output-dim=3, dropout-proportion=0.5");
  auto k = Make<DropoutMaskComponent>(
      "output-dim=2 dropout-proportion=0.25 continuous=true");
  EXPECT_EQ(k->Info(), "DropoutMaskComponent, output-dim=2, "
                       "dropout-proportion=0.25, continuous=true");
  // Reads no input and is always computable.
  MiscComputationInfo misc;
  std::vector<Index> desired = {Index(0, 1)};
  c->GetInputIndexes(misc, Index(3, 7), &desired);
  EXPECT_TRUE(desired.empty());
  struct NothingSet : public IndexSet {
    bool operator()(const Index &) const override { return false; }
  } nothing;
  std::vector<Index> used = {Index(0, 1)};
  EXPECT_TRUE(c->IsComputable(misc, Index(3, 7), nothing, &used));
  EXPECT_TRUE(used.empty());
  const std::string t = "DropoutMaskComponent";
  EXPECT_NE(testing::ConfigError(t, "dropout-proportion=0.1").find("output-dim"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "output-dim=0").find("output-dim=0"),
            std::string::npos);
  EXPECT_NE(testing::ConfigError(t, "output-dim=3 dropout-proportion=-0.1")
                .find("dropout-proportion=-0.1"),
            std::string::npos);
}

TEST(DropoutMask, TrainingMasks) {
  CuMatrix<BaseFloat> no_input;
  const int32 rows = 4000;
  for (int32 dim : {2, 3, 5}) {
    auto c = Make<DropoutMaskComponent>("output-dim=" + std::to_string(dim) +
                                        " dropout-proportion=0.3");
    c->ResetGenerator(dim);
    CuMatrix<BaseFloat> out_cu = NewMat(rows, dim);
    EXPECT_EQ(c->Propagate(nullptr, no_input, &out_cu), nullptr);
    const Matrix<BaseFloat> out = ToHost(out_cu);
    std::vector<int32> zeros(dim, 0);
    for (int32 r = 0; r < rows; r++) {
      for (int32 k = 0; k < dim; k++) {
        ASSERT_TRUE(out(r, k) == 0.0f || out(r, k) == 1.0f);
        zeros[k] += (out(r, k) == 0.0f);
      }
      // The LSTM case: the first two are never dropped together.
      if (dim <= 3) {
        EXPECT_FALSE(out(r, 0) == 0.0f && out(r, 1) == 0.0f);
      }
    }
    for (int32 k = 0; k < dim; k++)
      EXPECT_NEAR(zeros[k] / double(rows), 0.3, 0.03) << dim << " " << k;
    // The derivative w.r.t. the (unread) input is zero.
    CuMatrix<BaseFloat> od = NewMat(rows, dim), id = NewMat(rows, dim);
    od.Set(1.0);
    id.Set(5.0);
    c->Backprop("test", nullptr, no_input, no_input, od, nullptr, nullptr, &id);
    EXPECT_TRUE(id.IsZero(0.0));
  }
  // Continuous: uniform on [1 - 2p, 1 + 2p], mean one.
  auto k = Make<DropoutMaskComponent>(
      "output-dim=4 dropout-proportion=0.2 continuous=true");
  CuMatrix<BaseFloat> out_cu = NewMat(rows, 4);
  k->Propagate(nullptr, no_input, &out_cu);
  const Matrix<BaseFloat> out = ToHost(out_cu);
  double sum = 0;
  for (int32 r = 0; r < rows; r++)
    for (int32 j = 0; j < 4; j++) {
      EXPECT_GE(out(r, j), 0.6f - 1e-6f);
      EXPECT_LE(out(r, j), 1.4f + 1e-6f);
      sum += out(r, j);
    }
  EXPECT_NEAR(sum / (rows * 4), 1.0, 0.01);
}

TEST(DropoutMask, TestModeAndZeroProportion) {
  CuMatrix<BaseFloat> no_input;
  CuMatrix<BaseFloat> out = NewMat(5, 3);
  auto c = Make<DropoutMaskComponent>("output-dim=3 dropout-proportion=0.3 "
                                      "test-mode=true");
  c->Propagate(nullptr, no_input, &out);
  for (int32 r = 0; r < 5; r++)
    for (int32 k = 0; k < 3; k++) EXPECT_FLOAT_EQ(out.GetElement(r, k), 0.7f);
  auto k = Make<DropoutMaskComponent>(
      "output-dim=3 dropout-proportion=0.3 continuous=true test-mode=true");
  k->Propagate(nullptr, no_input, &out);
  for (int32 r = 0; r < 5; r++)
    for (int32 j = 0; j < 3; j++) EXPECT_EQ(out.GetElement(r, j), 1.0f);
  auto z = Make<DropoutMaskComponent>("output-dim=3 dropout-proportion=0");
  out.Set(7.0);
  z->Propagate(nullptr, no_input, &out);
  for (int32 r = 0; r < 5; r++)
    for (int32 j = 0; j < 3; j++) EXPECT_EQ(out.GetElement(r, j), 1.0f);
}

TEST(DropoutMask, IoFormats) {
  auto c = Make<DropoutMaskComponent>(
      "output-dim=2 dropout-proportion=0.25 continuous=true test-mode=true");
  EXPECT_EQ(testing::WriteToString(*c, false),
            "<DropoutMaskComponent> <OutputDim> 2 <DropoutProportion> 0.25 "
            "<TestMode> T <Continuous> </DropoutMaskComponent> ");
  testing::CheckIoRoundTrip(*c, [] { return new DropoutMaskComponent(); });
  auto d = Make<DropoutMaskComponent>("output-dim=3");
  testing::CheckIoRoundTrip(*d, [] { return new DropoutMaskComponent(); });
  // Older files have no <TestMode>.
  std::istringstream old(
      "<DropoutMaskComponent> <OutputDim> 3 <DropoutProportion> 0.5 "
      "</DropoutMaskComponent> ");
  DropoutMaskComponent m;
  m.Read(old, false);
  EXPECT_EQ(testing::WriteToString(m, false),
            "<DropoutMaskComponent> <OutputDim> 3 <DropoutProportion> 0.5 "
            "<TestMode> F </DropoutMaskComponent> ");
}

// ---- Kaldi's files -------------------------------------------------------------

TEST(KaldiFiles, XDropoutComponentTextIsReproduced) {
  const std::string text = XDropoutText();
  std::map<std::string, size_t> expected_count = {
      {"GeneralDropoutComponent", 2},
      {"SpecAugmentTimeMaskComponent", 1},
      {"DropoutMaskComponent", 1}};
  for (const auto &kv : expected_count) {
    std::vector<std::string> spans = Spans(text, kv.first);
    ASSERT_EQ(spans.size(), kv.second) << kv.first;
    for (const std::string &span : spans) {
      // Text -> text.
      std::istringstream is(span);
      std::unique_ptr<Component> c(Component::ReadNew(is, false));
      ASSERT_TRUE(c != nullptr);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, false), span),
                "");
      // Text -> binary -> text.
      std::istringstream bis(testing::WriteToString(*c, true));
      std::unique_ptr<Component> b(Component::ReadNew(bis, true));
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*b, false), span),
                "");
    }
  }
}

TEST(KaldiFiles, XDropoutBinaryBytesAreReproduced) {
  // Kaldi's binary model: the same spans, read and written in binary.
  const std::string raw =
      testing::ReadFile(testing::DataDir() + "/kaldi/models/x-dropout.raw");
  int32 checked = 0;
  for (const std::string &type :
       {std::string("GeneralDropoutComponent"),
        std::string("SpecAugmentTimeMaskComponent"),
        std::string("DropoutMaskComponent")}) {
    for (const std::string &span : Spans(raw, type)) {
      std::istringstream is(span);
      std::unique_ptr<Component> c(Component::ReadNew(is, true));
      ASSERT_TRUE(c != nullptr);
      EXPECT_EQ(testing::WriteToString(*c, true), span) << type;
      checked++;
    }
  }
  EXPECT_EQ(checked, 4);
}

TEST(KaldiFiles, XDropoutInfoLines) {
  const std::string text = XDropoutText();
  const std::string info =
      testing::ReadFile(testing::DataDir() + "/kaldi/models/x-dropout.info");
  int32 checked = 0;
  for (const std::string &type :
       {std::string("GeneralDropoutComponent"),
        std::string("SpecAugmentTimeMaskComponent"),
        std::string("DropoutMaskComponent")}) {
    for (const std::string &span : Spans(text, type)) {
      std::istringstream is(span);
      std::unique_ptr<Component> c(Component::ReadNew(is, false));
      std::string line = "type=" + c->Info() + "\n";
      EXPECT_NE(info.find(line), std::string::npos) << line;
      checked++;
    }
  }
  EXPECT_EQ(checked, 4);
}

// ---- Model tools ---------------------------------------------------------------

Nnet MakeNnet(const std::string &config) {
  Nnet nnet;
  std::istringstream is(config);
  nnet.ReadConfig(is);
  return nnet;
}

const char *kToolsNet =
    "input-node name=input dim=4\n"
    "component name=gd type=GeneralDropoutComponent dim=4 dropout-proportion=0.2\n"
    "component-node name=gd component=gd input=input\n"
    "component name=affine type=AffineComponent input-dim=4 output-dim=3\n"
    "component-node name=affine component=affine input=gd\n"
    "component name=mask type=DropoutMaskComponent output-dim=3 "
    "dropout-proportion=0.2\n"
    "component-node name=mask component=mask input=mask\n"
    "component name=spec type=SpecAugmentTimeMaskComponent dim=3\n"
    "component-node name=spec component=spec input=Sum(affine, mask)\n"
    "component name=drop type=DropoutComponent dim=3 dropout-proportion=0.2\n"
    "component-node name=drop component=drop input=spec\n"
    "output-node name=output input=drop\n";

TEST(DropoutTools, SetDropoutProportionEditsTheDropoutTypes) {
  Nnet nnet = MakeNnet(kToolsNet);
  std::istringstream edits("set-dropout-proportion name=* proportion=0.35\n");
  ReadEditConfig(edits, &nnet);
  auto get = [&](const std::string &name) {
    return nnet.GetComponent(nnet.GetComponentIndex(name));
  };
  EXPECT_FLOAT_EQ(dynamic_cast<GeneralDropoutComponent *>(get("gd"))
                      ->DropoutProportion(), 0.35);
  EXPECT_FLOAT_EQ(dynamic_cast<DropoutMaskComponent *>(get("mask"))
                      ->DropoutProportion(), 0.35);
  EXPECT_FLOAT_EQ(dynamic_cast<DropoutComponent *>(get("drop"))
                      ->DropoutProportion(), 0.35);
  // SpecAugment's zeroed proportion is not a dropout proportion.
  EXPECT_FLOAT_EQ(dynamic_cast<SpecAugmentTimeMaskComponent *>(get("spec"))
                      ->ZeroedProportion(), 0.25);
  // The name pattern selects.
  EXPECT_EQ(SetDropoutProportion("ma*", 0.05, &nnet), 1);
  EXPECT_FLOAT_EQ(dynamic_cast<DropoutMaskComponent *>(get("mask"))
                      ->DropoutProportion(), 0.05);
  EXPECT_FLOAT_EQ(dynamic_cast<GeneralDropoutComponent *>(get("gd"))
                      ->DropoutProportion(), 0.35);
}

TEST(DropoutTools, TestModeCoversEveryRandomType) {
  Nnet nnet = MakeNnet(kToolsNet);
  SetDropoutTestMode(true, &nnet);
  int32 random = 0;
  for (int32 c = 0; c < nnet.NumComponents(); c++) {
    const Component *comp = nnet.GetComponent(c);
    if (!(comp->Properties() & kRandomComponent)) continue;
    const RandomComponent *rc = dynamic_cast<const RandomComponent *>(comp);
    ASSERT_TRUE(rc != nullptr) << comp->Type();
    EXPECT_TRUE(rc->TestMode()) << comp->Type();
    random++;
  }
  EXPECT_EQ(random, 4);
}

TEST(DropoutTools, CollapseBypassesGeneralDropout) {
  Nnet nnet = MakeNnet(kToolsNet);
  SetDropoutTestMode(true, &nnet);
  CollapseModel(CollapseModelConfig(), &nnet);
  // The GeneralDropout node and component are gone and the affine reads the
  // input directly; the other random components stay.
  EXPECT_EQ(nnet.GetComponentIndex("gd"), -1);
  EXPECT_EQ(nnet.GetNodeIndex("gd"), -1);
  int32 affine_node = nnet.GetNodeIndex("affine");
  ASSERT_GE(affine_node, 1);
  std::vector<int32> deps;
  nnet.GetNode(affine_node - 1).descriptor.GetNodeDependencies(&deps);
  ASSERT_EQ(deps.size(), 1u);
  EXPECT_EQ(deps[0], nnet.GetNodeIndex("input"));
  EXPECT_NE(nnet.GetComponentIndex("affine"), -1);
  EXPECT_NE(nnet.GetComponentIndex("mask"), -1);
  EXPECT_NE(nnet.GetComponentIndex("spec"), -1);
}

}  // namespace
}  // namespace nnet3
