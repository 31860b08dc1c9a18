// tests/nnet3/components/structural-test.cc
// DistributeComponent, ConstantComponent, CompositeComponent and the
// block-affine family (BlockAffine, RepeatedAffine, NaturalGradient-
// RepeatedAffine), each against plain-loop references of the equations
// written here, finite differences (input and parameter derivatives), byte
// round trips, exact Info() lines and config errors.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "component-test-util.h"
#include "nnet3/components/affine.h"
#include "nnet3/components/repeated-affine.h"
#include "nnet3/components/structural.h"

namespace nnet3 {
namespace testing {
namespace {

std::unique_ptr<Component> Make(const std::string &type,
                                const std::string &line) {
  return FromConfig(type, line);
}

bool Contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

// ---- BlockAffineComponent ----------------------------------------------------

// out(r, i) = b(i) + sum_j W_full(i, j) in(r, j) with the block-diagonal
// W_full: row i belongs to block i / out_block, which reads input columns
// [block * in_block, (block + 1) * in_block).
Matrix<BaseFloat> NaiveBlockAffine(const BlockAffineComponent &c,
                                   const MatrixBase<BaseFloat> &in) {
  const Matrix<BaseFloat> w = ToHost(c.LinearParams());
  const Vector<BaseFloat> bias = ToHost(c.BiasParams());
  const int32 nb = c.NumBlocks(), in_block = w.NumCols(),
              out_block = w.NumRows() / nb;
  Matrix<BaseFloat> out(in.NumRows(), c.OutputDim());
  for (int32 r = 0; r < in.NumRows(); r++)
    for (int32 i = 0; i < c.OutputDim(); i++) {
      double sum = bias(i);
      int32 block = i / out_block;
      for (int32 j = 0; j < in_block; j++)
        sum += double(w(i, j)) * in(r, block * in_block + j);
      out(r, i) = sum;
    }
  return out;
}

TEST(BlockAffine, PropagateMatchesBlockDiagonalProduct) {
  auto c = Make("BlockAffineComponent",
                "input-dim=12 output-dim=6 num-blocks=3 bias-stddev=0.5");
  const auto &b = dynamic_cast<const BlockAffineComponent &>(*c);
  EXPECT_EQ(b.LinearParams().NumRows(), 6);
  EXPECT_EQ(b.LinearParams().NumCols(), 4);
  RandomSource rs(1);
  Matrix<BaseFloat> in = ToHost(RandMat(5, 12, &rs));
  EXPECT_TRUE(
      ToHost(Forward(*c, in)).ApproxEqual(NaiveBlockAffine(b, in), 1e-5));
}

TEST(BlockAffine, DerivativesRoundTripInfo) {
  auto c = Make("BlockAffineComponent", "input-dim=8 output-dim=6 num-blocks=2");
  RandomSource rs(2);
  CheckDerivatives(*c, 6, &rs);
  CheckPropertyFlags(*c, 4, &rs);
  CheckIoRoundTrip(*c, [] { return new BlockAffineComponent(); });
  std::string info = c->Info();
  EXPECT_EQ(info.rfind("BlockAffineComponent, input-dim=8, output-dim=6, "
                       "learning-rate=0.001, num-blocks=2, linear-params-rms=",
                       0),
            0u)
      << info;
  EXPECT_TRUE(Contains(info, ", bias-{mean,stddev}=")) << info;
}

TEST(BlockAffine, ConfigErrors) {
  EXPECT_TRUE(Contains(ConfigError("BlockAffineComponent",
                                   "input-dim=7 output-dim=6 num-blocks=2"),
                       "input-dim=7"));
  EXPECT_TRUE(Contains(ConfigError("BlockAffineComponent",
                                   "input-dim=8 output-dim=5 num-blocks=2"),
                       "output-dim=5"));
  EXPECT_TRUE(Contains(
      ConfigError("BlockAffineComponent", "input-dim=8 output-dim=6"),
      "num-blocks"));
  EXPECT_TRUE(Contains(ConfigError("BlockAffineComponent",
                                   "input-dim=8 output-dim=6 num-blocks=0"),
                       "num-blocks=0"));
  EXPECT_TRUE(Contains(
      ConfigError("BlockAffineComponent",
                  "input-dim=8 output-dim=6 num-blocks=2 foo=1"),
      "foo"));
}

// ---- RepeatedAffineComponent -------------------------------------------------

Matrix<BaseFloat> NaiveRepeated(const RepeatedAffineComponent &c,
                                const MatrixBase<BaseFloat> &in) {
  const Matrix<BaseFloat> w = ToHost(c.LinearParams());
  const Vector<BaseFloat> bias = ToHost(c.BiasParams());
  const int32 in_block = w.NumCols(), out_block = w.NumRows();
  Matrix<BaseFloat> out(in.NumRows(), c.OutputDim());
  for (int32 r = 0; r < in.NumRows(); r++)
    for (int32 k = 0; k < c.NumRepeats(); k++)
      for (int32 i = 0; i < out_block; i++) {
        double sum = bias(i);
        for (int32 j = 0; j < in_block; j++)
          sum += double(w(i, j)) * in(r, k * in_block + j);
        out(r, k * out_block + i) = sum;
      }
  return out;
}

TEST(RepeatedAffine, PropagateRepeatsTheSameTransform) {
  for (const char *type :
       {"RepeatedAffineComponent", "NaturalGradientRepeatedAffineComponent"}) {
    auto c = Make(type, "input-dim=9 output-dim=6 num-repeats=3 bias-stddev=1");
    const auto &ra = dynamic_cast<const RepeatedAffineComponent &>(*c);
    EXPECT_EQ(ra.LinearParams().NumRows(), 2);
    EXPECT_EQ(ra.LinearParams().NumCols(), 3);
    RandomSource rs(3);
    Matrix<BaseFloat> in = ToHost(RandMat(4, 9, &rs));
    EXPECT_TRUE(
        ToHost(Forward(*c, in)).ApproxEqual(NaiveRepeated(ra, in), 1e-5))
        << type;
    CheckDerivatives(*c, 5, &rs);
    CheckIoRoundTrip(*c, [type] { return Component::NewComponentOfType(type); });
    EXPECT_EQ(c->Info().rfind(std::string(type) +
                                  ", input-dim=9, output-dim=6, "
                                  "learning-rate=0.001, num-repeats=3, "
                                  "linear-params-rms=",
                              0),
              0u)
        << c->Info();
  }
}

// The natural-gradient update must move the parameters along a direction
// that still increases sum(out .* out_deriv) (positive inner product with
// the true gradient), and must equal the plain gradient when it holds a
// gradient.
TEST(RepeatedAffine, NaturalGradientUpdate) {
  auto c = Make("NaturalGradientRepeatedAffineComponent",
                "input-dim=20 output-dim=8 num-repeats=2 bias-stddev=0");
  RandomSource rs(4);
  CuMatrix<BaseFloat> cu_in = RandMat(30, 20, &rs), cu_od = RandMat(30, 8, &rs);
  Matrix<BaseFloat> in = ToHost(cu_in), od = ToHost(cu_od);
  auto &uc = dynamic_cast<UpdatableComponent &>(*c);
  const int32 n = uc.NumParameters();
  // The true gradient, from a plain RepeatedAffineComponent copy.
  std::unique_ptr<Component> grad(c->Copy());
  auto &ug = dynamic_cast<UpdatableComponent &>(*grad);
  ug.Scale(0.0);
  ug.SetAsGradient();
  c->Backprop("", nullptr, cu_in, CuMatrix<BaseFloat>(), cu_od, nullptr,
              grad.get(), nullptr);
  Vector<BaseFloat> g(n);
  ug.Vectorize(&g);
  // Naive gradient: dW(i,j) = sum_{r,k} od(r, k*ob+i) in(r, k*ib+j).
  Vector<BaseFloat> naive(n);
  for (int32 r = 0; r < 30; r++)
    for (int32 k = 0; k < 2; k++)
      for (int32 i = 0; i < 4; i++) {
        for (int32 j = 0; j < 10; j++)
          naive(i * 10 + j) += od(r, k * 4 + i) * in(r, k * 10 + j);
        naive(40 + i) += od(r, k * 4 + i);
      }
  for (int32 i = 0; i < n; i++) EXPECT_NEAR(g(i), naive(i), 1e-3);
  // A natural-gradient step, several times (the estimate updates).
  for (int32 iter = 0; iter < 3; iter++) {
    std::unique_ptr<Component> stepped(c->Copy());
    auto &us = dynamic_cast<UpdatableComponent &>(*stepped);
    Vector<BaseFloat> before(n), after(n);
    us.Vectorize(&before);
    us.SetActualLearningRate(0.01);
    stepped->Backprop("", nullptr, cu_in, CuMatrix<BaseFloat>(), cu_od,
                      nullptr, stepped.get(), nullptr);
    us.Vectorize(&after);
    after.AddVec(-1.0, before);
    EXPECT_GT(VecVec(after, g), 0.0);
    EXPECT_GT(after.Norm(2.0), 0.0);
  }
}

TEST(RepeatedAffine, ConfigErrors) {
  EXPECT_TRUE(Contains(ConfigError("RepeatedAffineComponent",
                                   "input-dim=10 output-dim=6 num-repeats=4"),
                       "input-dim=10"));
  EXPECT_TRUE(Contains(
      ConfigError("NaturalGradientRepeatedAffineComponent",
                  "input-dim=8 output-dim=6 num-repeats=4"),
      "output-dim=6"));
  EXPECT_TRUE(Contains(
      ConfigError("RepeatedAffineComponent", "input-dim=8 num-repeats=4"),
      "output-dim"));
}

// ---- DistributeComponent ------------------------------------------------------

// Input rows (n, t, 0) for n in {0,1}, t in {0,1,2}; output rows every x in
// [x_begin, x_end) for every (n, t), in a scrambled order.
struct DistributeCase {
  std::vector<Index> in_indexes, out_indexes;
};

DistributeCase MakeDistributeCase(int32 num_blocks, int32 input_x) {
  DistributeCase dc;
  for (int32 t = 0; t < 3; t++)
    for (int32 n = 0; n < 2; n++) dc.in_indexes.push_back(Index(n, t, input_x));
  for (int32 t = 2; t >= 0; t--)
    for (int32 b = num_blocks - 1; b >= 0; b--)
      for (int32 n = 0; n < 2; n++)
        dc.out_indexes.push_back(Index(n, t, input_x * num_blocks + b));
  return dc;
}

// Naive: output row with Index (n, t, x) = columns [b*d, (b+1)*d) of the
// input row with Index (n, t, floor(x / nb)), b = x - nb * floor(x / nb).
Matrix<BaseFloat> NaiveDistribute(const DistributeCase &dc, int32 nb, int32 d,
                                  const MatrixBase<BaseFloat> &in) {
  Matrix<BaseFloat> out(dc.out_indexes.size(), d);
  for (size_t o = 0; o < dc.out_indexes.size(); o++) {
    const Index &oi = dc.out_indexes[o];
    int32 q = static_cast<int32>(std::floor(double(oi.x) / nb));
    int32 b = oi.x - q * nb;
    int32 row = -1;
    for (size_t i = 0; i < dc.in_indexes.size(); i++)
      if (dc.in_indexes[i] == Index(oi.n, oi.t, q)) row = i;
    EXPECT_GE(row, 0);
    for (int32 c = 0; c < d; c++) out(o, c) = in(row, b * d + c);
  }
  return out;
}

TEST(Distribute, PropagateAndBackpropMatchTheMapping) {
  auto c = Make("DistributeComponent", "input-dim=12 output-dim=4");
  const auto &dc_comp = dynamic_cast<const DistributeComponent &>(*c);
  EXPECT_EQ(dc_comp.NumBlocks(), 3);
  EXPECT_EQ(c->Properties(), 0);
  for (int32 input_x : {0, -2}) {  // negative x: division rounds down
    DistributeCase dc = MakeDistributeCase(3, input_x);
    MiscComputationInfo misc;
    std::unique_ptr<ComponentPrecomputedIndexes> pi(
        c->PrecomputeIndexes(misc, dc.in_indexes, dc.out_indexes, true));
    ASSERT_TRUE(pi != nullptr);
    RandomSource rs(5);
    CuMatrix<BaseFloat> in = RandMat(dc.in_indexes.size(), 12, &rs);
    CuMatrix<BaseFloat> out = NewMat(dc.out_indexes.size(), 4);
    c->Propagate(pi.get(), in, &out);
    Matrix<BaseFloat> expected = NaiveDistribute(dc, 3, 4, ToHost(in));
    EXPECT_TRUE(ToHost(out).Equal(expected));
    // Backprop: the transpose of the mapping (every input value is used
    // exactly once here), overwriting in_deriv.
    CuMatrix<BaseFloat> od = RandMat(dc.out_indexes.size(), 4, &rs);
    CuMatrix<BaseFloat> id = RandMat(dc.in_indexes.size(), 12, &rs);
    c->Backprop("", pi.get(), CuMatrix<BaseFloat>(), CuMatrix<BaseFloat>(), od,
                nullptr, nullptr, &id);
    // <in_deriv, in> must equal <od, out> for a linear map and its adjoint.
    EXPECT_NEAR(MatDot(id, in), MatDot(od, out), 1e-3);
    // and elementwise, via the naive map applied to unit inputs.
    Matrix<BaseFloat> back = NaiveDistribute(dc, 3, 4, ToHost(id));
    EXPECT_TRUE(back.Equal(ToHost(od)));
  }
}

TEST(Distribute, BackpropZeroesInputsNoOutputUses) {
  auto c = Make("DistributeComponent", "input-dim=6 output-dim=3");
  std::vector<Index> in_idx = {Index(0, 0, 0), Index(0, 1, 0)},
                     out_idx = {Index(0, 1, 1)};  // block 1 of the t=1 row
  MiscComputationInfo misc;
  std::unique_ptr<ComponentPrecomputedIndexes> pi(
      c->PrecomputeIndexes(misc, in_idx, out_idx, true));
  CuMatrix<BaseFloat> od = NewMat(1, 3);
  od.Mat()(0, 0) = 1;
  od.Mat()(0, 1) = 2;
  od.Mat()(0, 2) = 3;
  CuMatrix<BaseFloat> id = NewMat(2, 6);
  id.Set(7.0);
  c->Backprop("", pi.get(), CuMatrix<BaseFloat>(), CuMatrix<BaseFloat>(), od,
              nullptr, nullptr, &id);
  Matrix<BaseFloat> expected(2, 6);
  expected(1, 3) = 1;
  expected(1, 4) = 2;
  expected(1, 5) = 3;
  EXPECT_TRUE(ToHost(id).Equal(expected));
}

TEST(Distribute, IndexMappingAndPrecomputedIndexesIo) {
  auto c = Make("DistributeComponent", "input-dim=10 output-dim=5");
  MiscComputationInfo misc;
  std::vector<Index> desired;
  c->GetInputIndexes(misc, Index(1, 7, 3), &desired);
  ASSERT_EQ(desired.size(), 1u);
  EXPECT_EQ(desired[0], Index(1, 7, 1));
  c->GetInputIndexes(misc, Index(0, 0, -1), &desired);
  EXPECT_EQ(desired[0], Index(0, 0, -1));
  c->GetInputIndexes(misc, Index(0, 0, -3), &desired);
  EXPECT_EQ(desired[0], Index(0, 0, -2));
  struct OnlyX0 : public IndexSet {
    bool operator()(const Index &i) const override { return i.x == 0; }
  } only_x0;
  std::vector<Index> used;
  EXPECT_TRUE(c->IsComputable(misc, Index(0, 4, 1), only_x0, &used));
  ASSERT_EQ(used.size(), 1u);
  EXPECT_EQ(used[0], Index(0, 4, 0));
  EXPECT_FALSE(c->IsComputable(misc, Index(0, 4, 2), only_x0, &used));

  std::vector<Index> in_idx = {Index(0, 0, 0)},
                     out_idx = {Index(0, 0, 1), Index(0, 0, 0)};
  std::unique_ptr<ComponentPrecomputedIndexes> pi(
      c->PrecomputeIndexes(misc, in_idx, out_idx, false));
  const auto &d = dynamic_cast<const DistributeComponentPrecomputedIndexes &>(*pi);
  ASSERT_EQ(d.pairs.size(), 2u);
  EXPECT_EQ(d.pairs[0], std::make_pair(0, 5));
  EXPECT_EQ(d.pairs[1], std::make_pair(0, 0));
  std::ostringstream os;
  pi->Write(os, false);
  EXPECT_EQ(os.str(),
            "<DistributeComponentPrecomputedIndexes> <Pairs> [ 0,5 0,0 ]\n"
            "</DistributeComponentPrecomputedIndexes> ");
  for (bool binary : {false, true}) {
    std::ostringstream bs;
    pi->Write(bs, binary);
    std::istringstream is(bs.str());
    std::unique_ptr<ComponentPrecomputedIndexes> back(
        ComponentPrecomputedIndexes::ReadNew(is, binary));
    std::ostringstream bs2;
    back->Write(bs2, binary);
    EXPECT_EQ(bs2.str(), bs.str());
  }
}

TEST(Distribute, IoInfoAndConfigErrors) {
  auto c = Make("DistributeComponent", "input-dim=6 output-dim=2");
  CheckIoRoundTrip(*c, [] { return new DistributeComponent(); });
  EXPECT_EQ(WriteToString(*c, false),
            "<DistributeComponent> <InputDim> 6 <OutputDim> 2 "
            "</DistributeComponent> ");
  EXPECT_EQ(c->Info(), "DistributeComponent, input-dim=6, output-dim=2");
  EXPECT_TRUE(Contains(
      ConfigError("DistributeComponent", "input-dim=7 output-dim=2"),
      "input-dim=7"));
  EXPECT_TRUE(Contains(ConfigError("DistributeComponent", "input-dim=7"),
                       "output-dim"));
  EXPECT_TRUE(Contains(
      ConfigError("DistributeComponent", "input-dim=6 output-dim=0"),
      "output-dim=0"));
}

// ---- ConstantComponent --------------------------------------------------------

TEST(Constant, OutputOnEveryRowAndNoInputs) {
  auto c = Make("ConstantComponent",
                "output-dim=3 output-mean=2.0 output-stddev=0 "
                "use-natural-gradient=false learning-rate=0.5");
  EXPECT_EQ(c->InputDim(), 3);
  EXPECT_EQ(c->Properties(), kUpdatableComponent);
  CuMatrix<BaseFloat> in, out = NewMat(4, 3);
  c->Propagate(nullptr, in, &out);
  for (int32 r = 0; r < 4; r++)
    for (int32 j = 0; j < 3; j++) EXPECT_EQ(out.Mat()(r, j), 2.0);
  MiscComputationInfo misc;
  std::vector<Index> desired = {Index(0, 0, 0)};
  c->GetInputIndexes(misc, Index(0, 5, 0), &desired);
  EXPECT_TRUE(desired.empty());
  struct Nothing : public IndexSet {
    bool operator()(const Index &) const override { return false; }
  } nothing;
  std::vector<Index> used = {Index()};
  EXPECT_TRUE(c->IsComputable(misc, Index(0, 5, 0), nothing, &used));
  EXPECT_TRUE(used.empty());
  // Plain SGD: output += lr * (column sums of out_deriv).
  CuMatrix<BaseFloat> od = NewMat(2, 3);
  od.Mat()(0, 0) = 1;
  od.Mat()(1, 0) = 3;
  od.Mat()(1, 2) = -2;
  c->Backprop("", nullptr, in, in, od, nullptr, c.get(), nullptr);
  const auto &cc = dynamic_cast<const ConstantComponent &>(*c);
  EXPECT_NEAR(cc.Output().Vec()(0), 2.0 + 0.5 * 4, 1e-6);
  EXPECT_NEAR(cc.Output().Vec()(1), 2.0, 1e-6);
  EXPECT_NEAR(cc.Output().Vec()(2), 2.0 - 0.5 * 2, 1e-6);
  RandomSource rs(6);
  CheckDerivatives(*c, 3, &rs);
}

TEST(Constant, NaturalGradientAndFixed) {
  auto c = Make("ConstantComponent", "output-dim=6 output-stddev=1");
  RandomSource rs(7);
  CuMatrix<BaseFloat> od = RandMat(10, 6, &rs), none;
  const auto &cc = dynamic_cast<const ConstantComponent &>(*c);
  Vector<BaseFloat> before = ToHost(cc.Output());
  c->Backprop("", nullptr, none, none, od, nullptr, c.get(), nullptr);
  Vector<BaseFloat> step = ToHost(cc.Output());
  step.AddVec(-1.0, before);
  Vector<BaseFloat> col_sums(6);
  col_sums.AddRowSumMat(1.0, ToHost(od), 0.0);
  EXPECT_GT(VecVec(step, col_sums), 0.0);
  // is-updatable=false: no update, no kUpdatableComponent.
  auto fixed = Make("ConstantComponent",
                    "output-dim=2 is-updatable=false output-mean=1");
  EXPECT_EQ(fixed->Properties(), 0);
  CuMatrix<BaseFloat> od2 = RandMat(3, 2, &rs);
  fixed->Backprop("", nullptr, none, none, od2, nullptr, fixed.get(), nullptr);
  EXPECT_EQ(
      dynamic_cast<const ConstantComponent &>(*fixed).Output().Vec()(0), 1.0);
}

TEST(Constant, IoInfoAndConfigErrors) {
  auto c = Make("ConstantComponent", "output-dim=2 output-mean=0");
  CheckIoRoundTrip(*c, [] { return new ConstantComponent(); });
  EXPECT_EQ(WriteToString(*c, false),
            "<ConstantComponent> <LearningRate> 0.001 <Output>  [ 0 0 ]\n"
            "<IsUpdatable> T <UseNaturalGradient> T </ConstantComponent> ");
  EXPECT_EQ(c->Info(),
            "ConstantComponent, input-dim=2, output-dim=2, learning-rate=0.001"
            ", ConstantComponent, output-dim=2, is-updatable=true, "
            "use-natural-gradient=true, output-{mean,stddev}=0,0");
  // Without <LearningRate> in the file: Kaldi's default 0.001.
  std::istringstream is(
      "<ConstantComponent> <Output> [ 1 2 ] <IsUpdatable> F "
      "<UseNaturalGradient> F </ConstantComponent> ");
  std::unique_ptr<Component> r(Component::ReadNew(is, false));
  EXPECT_EQ(dynamic_cast<UpdatableComponent &>(*r).LearningRate(),
            BaseFloat(0.001));
  EXPECT_EQ(r->Properties(), 0);
  EXPECT_TRUE(Contains(ConfigError("ConstantComponent", "output-mean=1"),
                       "output-dim"));
  EXPECT_TRUE(Contains(ConfigError("ConstantComponent", "output-dim=-1"),
                       "output-dim=-1"));
  EXPECT_TRUE(Contains(ConfigError("ConstantComponent", "output-dim=2 dim=3"),
                       "dim=3"));
}

// ---- CompositeComponent -------------------------------------------------------

const char *kCompositeLine =
    "max-rows-process=3 num-components=3 "
    "component1='type=BlockAffineComponent input-dim=6 output-dim=4 "
    "num-blocks=2' "
    "component2='type=SigmoidComponent dim=4' "
    "component3='type=NaturalGradientAffineComponent input-dim=4 "
    "output-dim=5'";

// The members run one after another by hand.
CuMatrix<BaseFloat> ChainByHand(const CompositeComponent &c,
                                const CuMatrixBase<BaseFloat> &in) {
  CuMatrix<BaseFloat> cur = Contig(in);
  for (int32 i = 0; i < c.NumComponents(); i++) cur = Forward(*c.GetComponent(i), cur);
  return cur;
}

TEST(Composite, PropagateEqualsTheChainInChunks) {
  auto c = Make("CompositeComponent", kCompositeLine);
  const auto &cc = dynamic_cast<const CompositeComponent &>(*c);
  EXPECT_EQ(cc.NumComponents(), 3);
  EXPECT_EQ(cc.MaxRowsProcess(), 3);
  EXPECT_EQ(c->InputDim(), 6);
  EXPECT_EQ(c->OutputDim(), 5);
  EXPECT_EQ(c->Properties(), kSimpleComponent | kBackpropNeedsInput |
                                 kBackpropAdds | kUpdatableComponent);
  RandomSource rs(8);
  CuMatrix<BaseFloat> in = RandMat(8, 6, &rs);  // 3 + 3 + 2 rows
  EXPECT_TRUE(Forward(*c, in).ApproxEqual(ChainByHand(cc, in), 1e-5));
}

TEST(Composite, DerivativesAndUpdateMatchTheChain) {
  auto c = Make("CompositeComponent", kCompositeLine);
  RandomSource rs(9);
  CheckDerivatives(*c, 7, &rs);
  CheckPropertyFlags(*c, 5, &rs);
  // Chunked (max-rows-process=3) and whole Backprop agree, for the input
  // derivative and the accumulated gradient.
  CuMatrix<BaseFloat> in = RandMat(7, 6, &rs), od = RandMat(7, 5, &rs), none;
  std::string whole_line = kCompositeLine;
  whole_line.replace(0, std::string("max-rows-process=3").size(),
                     "max-rows-process=0");
  auto whole = Make("CompositeComponent", whole_line);
  auto &uc = dynamic_cast<UpdatableComponent &>(*c);
  Vector<BaseFloat> params(uc.NumParameters());
  uc.Vectorize(&params);
  dynamic_cast<UpdatableComponent &>(*whole).UnVectorize(params);
  CuMatrix<BaseFloat> d1 = NewMat(7, 6), d2 = NewMat(7, 6);
  std::unique_ptr<Component> g1(c->Copy()), g2(whole->Copy());
  for (Component *g : {g1.get(), g2.get()}) {
    auto &ug = dynamic_cast<UpdatableComponent &>(*g);
    ug.Scale(0.0);
    ug.SetAsGradient();
  }
  c->Backprop("", nullptr, in, none, od, nullptr, g1.get(), &d1);
  whole->Backprop("", nullptr, in, none, od, nullptr, g2.get(), &d2);
  EXPECT_TRUE(d1.ApproxEqual(d2, 1e-5));
  Vector<BaseFloat> v1(uc.NumParameters()), v2(uc.NumParameters());
  dynamic_cast<UpdatableComponent &>(*g1).Vectorize(&v1);
  dynamic_cast<UpdatableComponent &>(*g2).Vectorize(&v2);
  EXPECT_TRUE(v1.ApproxEqual(v2, 1e-4));
  // The sigmoid member stored its stats through Backprop, chunk by chunk
  // (3, 3 and 1 rows). As in Kaldi, a sigmoid keeps the stats of its first
  // minibatch and then of about every other one (a global random draw), so
  // the count is 3 plus any of the later chunks.
  std::string info = g1->Info();
  EXPECT_TRUE(Contains(info, "count=3,") || Contains(info, "count=4,") ||
              Contains(info, "count=6,") || Contains(info, "count=7,"))
      << info;
}

TEST(Composite, IoRoundTripWithNaturalGradientMembers) {
  auto c = Make(
      "CompositeComponent",
      "num-components=3 "
      "component1='type=NaturalGradientAffineComponent input-dim=4 "
      "output-dim=6 max-change=0.75' "
      "component2='type=NaturalGradientRepeatedAffineComponent input-dim=6 "
      "output-dim=6 num-repeats=3' "
      "component3='type=BlockAffineComponent input-dim=6 output-dim=2 "
      "num-blocks=2 learning-rate-factor=0.5'");
  CheckIoRoundTrip(*c, [] { return new CompositeComponent(); });
  std::string text = WriteToString(*c, false);
  EXPECT_EQ(text.rfind("<CompositeComponent> <LearningRate> 0.001 "
                       "<MaxRowsProcess> 4096 <NumComponents> 3 "
                       "<NaturalGradientAffineComponent> <MaxChange> 0.75 ",
                       0),
            0u)
      << text.substr(0, 200);
  EXPECT_TRUE(Contains(text, "</BlockAffineComponent> </CompositeComponent> "));
  // A trained copy (preconditioners initialized) writes the same format.
  RandomSource rs(10);
  CuMatrix<BaseFloat> in = RandMat(12, 4, &rs), od = RandMat(12, 2, &rs), none;
  c->Backprop("", nullptr, in, none, od, nullptr, c.get(), nullptr);
  CheckIoRoundTrip(*c, [] { return new CompositeComponent(); });
  std::string info = c->Info();
  EXPECT_EQ(info.rfind("CompositeComponent sub-component1 = { "
                       "NaturalGradientAffineComponent, input-dim=4, ",
                       0),
            0u)
      << info;
  EXPECT_TRUE(Contains(info, " }, sub-component2 = { "
                             "NaturalGradientRepeatedAffineComponent, "));
  // Learning rates reach the members, scaled by their own factors.
  auto &uc = dynamic_cast<UpdatableComponent &>(*c);
  uc.SetUnderlyingLearningRate(0.1);
  const auto &cc = dynamic_cast<const CompositeComponent &>(*c);
  EXPECT_NEAR(dynamic_cast<const UpdatableComponent &>(*cc.GetComponent(0))
                  .LearningRate(), 0.1, 1e-7);
  EXPECT_NEAR(dynamic_cast<const UpdatableComponent &>(*cc.GetComponent(2))
                  .LearningRate(), 0.05, 1e-7);
}

TEST(Composite, ReadsKaldiReferenceSpans) {
  std::vector<std::string> spans = ReferenceSpans("CompositeComponent");
  ASSERT_FALSE(spans.empty());
  for (const std::string &span : spans) {
    std::istringstream is(span);
    std::unique_ptr<Component> c(Component::ReadNew(is, false));
    EXPECT_EQ(FirstDifference(WriteToString(*c, false), span), "");
  }
}

TEST(Composite, ConfigErrors) {
  EXPECT_TRUE(Contains(
      ConfigError("CompositeComponent",
                  "num-components=2 component1='type=SigmoidComponent dim=3'"),
      "component2"));
  EXPECT_TRUE(Contains(ConfigError("CompositeComponent", "max-rows-process=2"),
                       "num-components"));
  EXPECT_TRUE(Contains(
      ConfigError("CompositeComponent",
                  "num-components=1 component1='type=CompositeComponent "
                  "num-components=1'"),
      "CompositeComponent"));
  EXPECT_TRUE(Contains(
      ConfigError("CompositeComponent",
                  "num-components=1 component1='type=DistributeComponent "
                  "input-dim=4 output-dim=2'"),
      "DistributeComponent"));
  EXPECT_TRUE(Contains(
      ConfigError("CompositeComponent",
                  "num-components=2 component1='type=SigmoidComponent dim=3' "
                  "component2='type=TanhComponent dim=4'"),
      "input-dim=4"));
  EXPECT_TRUE(Contains(
      ConfigError("CompositeComponent",
                  "num-components=1 component1='type=NoSuchComponent dim=3'"),
      "NoSuchComponent"));
  EXPECT_TRUE(Contains(
      ConfigError("CompositeComponent",
                  "num-components=1 component1='type=SigmoidComponent dim=3' "
                  "bogus=1"),
      "bogus"));
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
