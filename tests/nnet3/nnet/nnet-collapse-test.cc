// tests/nnet3/nnet/nnet-collapse-test.cc
// CollapseModel on chain networks (each node reads exactly one node): the
// collapsed network must compute what the original computes — checked with
// a naive evaluator that runs the components node by node — while having
// fewer component nodes where a fixed transform could be merged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>
#include <sstream>

#include "nnet3/components/affine.h"
#include "nnet3/components/normalize.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/nnet/nnet.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

// Evaluates a network whose descriptors are all single node names.
Matrix<BaseFloat> EvalChain(const Nnet &nnet, const Matrix<BaseFloat> &input) {
  std::map<int32, Matrix<BaseFloat> > value;
  int32 out = -1;
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    const NetworkNode &node = nnet.GetNode(n);
    if (node.node_type == kInput) {
      value[n] = input;
    } else if (node.node_type == kDescriptor) {
      std::vector<int32> deps;
      node.descriptor.GetNodeDependencies(&deps);
      EXPECT_EQ(deps.size(), 1u);
      value[n] = value[deps[0]];
      if (nnet.IsOutputNode(n)) out = n;
    } else if (node.node_type == kComponent) {
      const Component *c = nnet.GetComponent(node.component_index);
      const Matrix<BaseFloat> &in = value[n - 1];
      CuMatrix<BaseFloat> y(in.NumRows(), c->OutputDim(), kSetZero,
                            kStrideEqualNumCols);
      CuMatrix<BaseFloat> x(in, kNoTrans);
      c->DeleteMemo(c->Propagate(nullptr, x, &y));
      value[n] = ToHost(y);
    }
  }
  return value[out];
}

int32 NumComponentNodes(const Nnet &nnet) {
  int32 k = 0;
  for (int32 n = 0; n < nnet.NumNodes(); n++) k += nnet.IsComponentNode(n);
  return k;
}

Nnet MakeNnet(const std::string &config) {
  Nnet nnet;
  std::istringstream is(config);
  nnet.ReadConfig(is);
  return nnet;
}

// Gives every BatchNorm statistics from random data, then test mode.
void TrainBatchnorms(Nnet *nnet, RandomSource *rs) {
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    BatchNormComponent *bn =
        dynamic_cast<BatchNormComponent *>(nnet->GetComponent(c));
    if (!bn) continue;
    CuMatrix<BaseFloat> x(50, bn->InputDim()), y(50, bn->InputDim());
    x.SetRandn(rs);
    x.Add(1.5);
    void *memo = bn->Propagate(nullptr, x, &y);
    bn->StoreStats(x, y, memo);
    bn->DeleteMemo(memo);
  }
  SetBatchnormTestMode(true, nnet);
}

TEST(CollapseModel, MergesFixedTransformsAndKeepsTheFunction) {
  Nnet nnet = MakeNnet(
      "input-node name=input dim=6\n"
      "component name=affine0 type=AffineComponent input-dim=6 output-dim=8\n"
      "component-node name=affine0 component=affine0 input=input\n"
      "component name=bn type=BatchNormComponent dim=8 block-dim=4\n"
      "component-node name=bn component=bn input=affine0\n"
      "component name=affine1 type=NaturalGradientAffineComponent input-dim=8 output-dim=8\n"
      "component-node name=affine1 component=affine1 input=bn\n"
      "component name=drop type=DropoutComponent dim=8 dropout-proportion=0.2\n"
      "component-node name=drop component=drop input=affine1\n"
      "component name=affine2 type=AffineComponent input-dim=8 output-dim=5\n"
      "component-node name=affine2 component=affine2 input=drop\n"
      "component name=scale type=FixedScaleComponent dim=5\n"
      "component-node name=scale component=scale input=affine2\n"
      "component name=bias type=FixedBiasComponent dim=5\n"
      "component-node name=bias component=bias input=scale\n"
      "component name=lin type=LinearComponent input-dim=5 output-dim=3\n"
      "component-node name=lin component=lin input=bias\n"
      "output-node name=output input=lin\n");
  RandomSource rs(3);
  TrainBatchnorms(&nnet, &rs);
  SetDropoutTestMode(true, &nnet);
  Matrix<BaseFloat> x(7, 6);
  x.SetRandn(&rs);
  Matrix<BaseFloat> before = EvalChain(nnet, x);
  int32 nodes_before = NumComponentNodes(nnet);
  CollapseModel(CollapseModelConfig(), &nnet);
  nnet.Check();
  Matrix<BaseFloat> after = EvalChain(nnet, x);
  // bn, drop and scale are folded; bias before a LinearComponent is not
  // (a linear map has no bias to absorb it).
  EXPECT_EQ(NumComponentNodes(nnet), nodes_before - 3);
  EXPECT_NE(nnet.GetComponentIndex("bias"), -1);
  EXPECT_EQ(nnet.GetComponentIndex("drop"), -1);
  EXPECT_EQ(nnet.GetComponentIndex("bn"), -1);
  ASSERT_EQ(before.NumRows(), after.NumRows());
  for (int32 r = 0; r < before.NumRows(); r++)
    for (int32 c = 0; c < before.NumCols(); c++)
      EXPECT_NEAR(after(r, c), before(r, c), 1e-4 * (1 + std::fabs(before(r, c))));
}

TEST(CollapseModel, LeavesAppendsAndTrainingModeAlone) {
  Nnet nnet = MakeNnet(
      "input-node name=input dim=4\n"
      "component name=bn type=BatchNormComponent dim=4\n"
      "component-node name=bn component=bn input=input\n"
      "component name=affine type=AffineComponent input-dim=8 output-dim=3\n"
      "component-node name=affine component=affine input=Append(Offset(bn, -1), bn)\n"
      "component name=drop type=DropoutComponent dim=3 dropout-proportion=0.5\n"
      "component-node name=drop component=drop input=affine\n"
      "component name=final type=AffineComponent input-dim=3 output-dim=2\n"
      "component-node name=final component=final input=drop\n"
      "output-node name=output input=final\n");
  int32 nodes_before = NumComponentNodes(nnet);
  // Dropout is in training mode (random): nothing to fold; the batch-norm
  // feeds an Append: not this simple pattern.
  CollapseModel(CollapseModelConfig(), &nnet);
  EXPECT_EQ(NumComponentNodes(nnet), nodes_before);
}

// A component that only the collapsed node uses is changed where it lies,
// not copied: the model never holds its parameters twice (a 3000 x 1024
// output layer after a batch-norm is 12 MB). A component that another
// node still uses is copied and stays as it was.
TEST(CollapseModel, TakesAComponentOnlyItsNodeUsesAndCopiesASharedOne) {
  Nnet nnet = MakeNnet(
      "input-node name=input dim=4\n"
      "component name=bn type=BatchNormComponent dim=4\n"
      "component-node name=bn component=bn input=input\n"
      "component name=own type=AffineComponent input-dim=4 output-dim=4\n"
      "component-node name=own component=own input=bn\n"
      "component name=bn2 type=BatchNormComponent dim=4\n"
      "component-node name=bn2 component=bn2 input=own\n"
      "component name=shared type=AffineComponent input-dim=4 output-dim=3\n"
      "component-node name=shared_a component=shared input=bn2\n"
      "component-node name=shared_b component=shared input=input\n"
      "output-node name=output input=Sum(shared_a, shared_b)\n");
  RandomSource rs(5);
  TrainBatchnorms(&nnet, &rs);
  const AffineComponent *own = dynamic_cast<const AffineComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex("own")));
  const AffineComponent *shared = dynamic_cast<const AffineComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex("shared")));
  ASSERT_TRUE(own && shared);
  const BaseFloat *own_data = own->LinearParams().Data();
  const BaseFloat *shared_data = shared->LinearParams().Data();
  Matrix<BaseFloat> shared_before = ToHost(shared->LinearParams());
  Matrix<BaseFloat> own_before = ToHost(own->LinearParams());
  CollapseModel(CollapseModelConfig(), &nnet);
  nnet.Check();
  EXPECT_EQ(nnet.GetComponentIndex("own"), -1);
  EXPECT_EQ(nnet.GetComponentIndex("bn"), -1);
  const AffineComponent *own_new = dynamic_cast<const AffineComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex("bn.own")));
  ASSERT_NE(own_new, nullptr);
  EXPECT_EQ(own_new->LinearParams().Data(), own_data);
  EXPECT_FALSE(ToHost(own_new->LinearParams()).ApproxEqual(own_before, 1e-3));
  int32 shared_index = nnet.GetComponentIndex("shared");
  ASSERT_NE(shared_index, -1);
  EXPECT_EQ(dynamic_cast<const AffineComponent *>(
                nnet.GetComponent(shared_index))->LinearParams().Data(),
            shared_data);
  EXPECT_TRUE(ToHost(shared->LinearParams()).ApproxEqual(shared_before, 0.0));
  const AffineComponent *shared_new = dynamic_cast<const AffineComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex("bn2.shared")));
  ASSERT_NE(shared_new, nullptr);
  EXPECT_NE(shared_new->LinearParams().Data(), shared_data);
  // Nothing else is left over: the stand-in in the taken component's slot
  // went with the orphans.
  for (int32 c = 0; c < nnet.NumComponents(); c++)
    EXPECT_NE(nnet.GetComponent(c)->Type(), "NoOpComponent")
        << nnet.GetComponentName(c);
}

// The output of a (non-simple) network on t = 0..9 from inputs t = -3..12,
// through a compiled computation (not so small that a relative comparison
// would say little).
Matrix<BaseFloat> EvalCompiled(const Nnet &nnet, const Matrix<BaseFloat> &in) {
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", -3, 13));
  request.outputs.push_back(IoSpecification("output", 0, 10));
  Matrix<BaseFloat> out = CompiledOutputForTest(
      nnet, request, std::vector<Matrix<BaseFloat> >(1, in));
  EXPECT_GT(std::max(out.Max(), -out.Min()), 0.1);
  return out;
}

// A TDNN's batch-norms, read through spliced Appends (with another node in
// one of them, and block-dim < dim in one), fold into the affines: the
// batch-norm nodes go and the output stays (compiled computations on t =
// 0..9, the uncollapsed network as the reference).
TEST(CollapseModel, FoldsBatchnormReadThroughSplicedAppends) {
  Nnet nnet = MakeNnet(
      "input-node name=input dim=6\n"
      "component name=a1 type=NaturalGradientAffineComponent input-dim=6 "
      "output-dim=8 bias-stddev=0.5\n"
      "component-node name=a1 component=a1 input=input\n"
      "component name=r1 type=RectifiedLinearComponent dim=8\n"
      "component-node name=r1 component=r1 input=a1\n"
      "component name=bn1 type=BatchNormComponent dim=8 block-dim=4\n"
      "component-node name=bn1 component=bn1 input=r1\n"
      "component name=a2 type=AffineComponent input-dim=30 output-dim=5 "
      "bias-stddev=0.5\n"
      "component-node name=a2 component=a2 input=Append(Offset(bn1, -1), "
      "input, bn1, Offset(bn1, 2))\n"
      "component name=r2 type=RectifiedLinearComponent dim=5\n"
      "component-node name=r2 component=r2 input=a2\n"
      "component name=bn2 type=BatchNormComponent dim=5\n"
      "component-node name=bn2 component=bn2 input=r2\n"
      "component name=a3 type=AffineComponent input-dim=10 output-dim=4\n"
      "component-node name=a3 component=a3 input=Append(Offset(bn2, -2), "
      "Offset(bn2, 1))\n"
      "output-node name=output input=a3\n");
  RandomSource rs(11);
  TrainBatchnorms(&nnet, &rs);
  Matrix<BaseFloat> in = RandomGaussMatrix(16, 6, &rs);
  Matrix<BaseFloat> before = EvalCompiled(nnet, in);
  const int32 nodes_before = NumComponentNodes(nnet);
  CollapseModel(CollapseModelConfig(), &nnet);
  nnet.Check();
  EXPECT_EQ(NumComponentNodes(nnet), nodes_before - 2);
  EXPECT_EQ(nnet.GetComponentIndex("bn1"), -1);
  EXPECT_EQ(nnet.GetComponentIndex("bn2"), -1);
  EXPECT_NE(nnet.GetComponentIndex("bn1.a2"), -1);
  EXPECT_LT(RelativeDifference(before, EvalCompiled(nnet, in)), 1e-5);
}

// Where a batch-norm is read in a way the fold cannot reproduce, it stays,
// and the output is still the original's.
TEST(CollapseModel, KeepsBatchnormsTheFoldCannotReproduce) {
  const std::string head =
      "input-node name=input dim=4\n"
      "component name=a1 type=AffineComponent input-dim=4 output-dim=4 "
      "bias-stddev=0.5\n"
      "component-node name=a1 component=a1 input=input\n"
      "component name=bn type=BatchNormComponent dim=4\n"
      "component-node name=bn component=bn input=a1\n";
  const std::vector<std::string> tails = {
      // A missing frame reads as zero under IfDefined.
      "component name=a2 type=AffineComponent input-dim=8 output-dim=3\n"
      "component-node name=a2 component=a2 input=Append(IfDefined(Offset(bn, "
      "-1)), bn)\n"
      "output-node name=output input=a2\n",
      // Also read by a component that is not affine.
      "component name=a2 type=AffineComponent input-dim=8 output-dim=4\n"
      "component-node name=a2 component=a2 input=Append(Offset(bn, -1), bn)\n"
      "component name=r type=RectifiedLinearComponent dim=4\n"
      "component-node name=r component=r input=Sum(a2, bn)\n"
      "output-node name=output input=r\n",
      // Read by the output node directly.
      "component name=a2 type=AffineComponent input-dim=8 output-dim=4\n"
      "component-node name=a2 component=a2 input=Append(Offset(bn, -1), bn)\n"
      "output-node name=output input=Sum(a2, bn)\n",
      // A linear component has no bias to take the offset.
      "component name=l type=LinearComponent input-dim=8 output-dim=3\n"
      "component-node name=l component=l input=Append(Offset(bn, -1), bn)\n"
      "output-node name=output input=l\n"};
  for (const std::string &tail : tails) {
    SCOPED_TRACE(tail);
    Nnet nnet = MakeNnet(head + tail);
    RandomSource rs(5);
    TrainBatchnorms(&nnet, &rs);
    Matrix<BaseFloat> in = RandomGaussMatrix(16, 4, &rs);
    Matrix<BaseFloat> before = EvalCompiled(nnet, in);
    CollapseModel(CollapseModelConfig(), &nnet);
    nnet.Check();
    EXPECT_NE(nnet.GetComponentIndex("bn"), -1);
    EXPECT_LT(RelativeDifference(before, EvalCompiled(nnet, in)), 1e-5);
  }
}

TEST(CollapseModel, FoldsTestModeDropoutIntoAConvolution) {
  Nnet nnet = MakeNnet(
      "input-node name=input dim=8\n"
      "component name=drop type=DropoutComponent dim=8 dropout-proportion=0.25\n"
      "component-node name=drop component=drop input=input\n"
      "component name=conv type=TimeHeightConvolutionComponent "
      "num-filters-in=2 num-filters-out=3 height-in=4 height-out=4 "
      "time-offsets=-1,0,1 height-offsets=-1,0,1 bias-stddev=0.5\n"
      "component-node name=conv component=conv input=drop\n"
      "output-node name=output input=conv\n");
  SetDropoutTestMode(true, &nnet);
  RandomSource rs(3);
  Matrix<BaseFloat> in = RandomGaussMatrix(16, 8, &rs);
  Matrix<BaseFloat> before = EvalCompiled(nnet, in);
  CollapseModel(CollapseModelConfig(), &nnet);
  EXPECT_EQ(NumComponentNodes(nnet), 1);
  EXPECT_EQ(nnet.GetComponentIndex("drop"), -1);
  Matrix<BaseFloat> after = EvalCompiled(nnet, in);
  ASSERT_EQ(before.NumRows(), after.NumRows());
  double max_abs = 0.0;
  for (int32 r = 0; r < before.NumRows(); r++)
    for (int32 c = 0; c < before.NumCols(); c++)
      max_abs = std::max(max_abs, std::fabs(static_cast<double>(before(r, c))));
  ASSERT_GT(max_abs, 0.1);
  for (int32 r = 0; r < before.NumRows(); r++)
    for (int32 c = 0; c < before.NumCols(); c++)
      EXPECT_NEAR(after(r, c), before(r, c), 1e-5 * max_abs);
}

}  // namespace
}  // namespace nnet3
