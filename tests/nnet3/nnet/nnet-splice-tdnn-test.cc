// tests/nnet3/nnet/nnet-splice-tdnn-test.cc
// ComputeSplicedAffinesAsTdnn: affines reading one node spliced at
// increasing time offsets become TdnnComponents reading the node, their
// parameters moved rather than copied, and the network's output on one and
// on several sequences stays the original's (compiled computations of the
// unrewritten network are the reference); every other input shape is left
// exactly as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "nnet3/components/affine.h"
#include "nnet3/components/tdnn.h"
#include "nnet3/nnet/nnet-splice-tdnn.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/nnet/nnet.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

// The output at t = 0..9 of 'num_seqs' sequences, from inputs t = -4..13
// (not so small that a relative comparison would say little). Rows of 'in'
// are (t, n) with n fastest.
Matrix<BaseFloat> Eval(const Nnet &nnet, int32 num_seqs,
                       const Matrix<BaseFloat> &in) {
  ComputationRequest request;
  IoSpecification input("input", std::vector<Index>()),
      output("output", std::vector<Index>());
  for (int32 t = -4; t < 14; t++)
    for (int32 n = 0; n < num_seqs; n++) input.indexes.push_back(Index(n, t));
  for (int32 t = 0; t < 10; t++)
    for (int32 n = 0; n < num_seqs; n++) output.indexes.push_back(Index(n, t));
  request.inputs.push_back(input);
  request.outputs.push_back(output);
  Matrix<BaseFloat> out = CompiledOutputForTest(
      nnet, request, std::vector<Matrix<BaseFloat> >(1, in));
  EXPECT_GT(std::max(out.Max(), -out.Min()), 0.1);
  return out;
}

const char *kTdnn =
    "input-node name=input dim=6\n"
    "component name=a1 type=NaturalGradientAffineComponent input-dim=18 "
    "output-dim=8 bias-stddev=0.5\n"
    "component-node name=a1 component=a1 input=Append(Offset(input, -2), "
    "input, Offset(input, 1))\n"
    "component name=r1 type=RectifiedLinearComponent dim=8\n"
    "component-node name=r1 component=r1 input=a1\n"
    "component name=a2 type=AffineComponent input-dim=16 output-dim=5 "
    "bias-stddev=0.5\n"
    "component-node name=a2 component=a2 input=Append(Offset(r1, -1), "
    "Offset(r1, 2))\n"
    "component name=a3 type=AffineComponent input-dim=5 output-dim=4\n"
    "component-node name=a3 component=a3 input=a2\n"
    "output-node name=output input=a3\n";

TEST(SplicedAffinesAsTdnn, RewritesSplicedAffinesAndKeepsTheOutput) {
  Nnet nnet = NnetFromConfigString(kTdnn);
  RandomSource rs(5);
  Matrix<BaseFloat> in1 = RandomGaussMatrix(18, 6, &rs),
                    in3 = RandomGaussMatrix(18 * 3, 6, &rs);
  Matrix<BaseFloat> before1 = Eval(nnet, 1, in1), before3 = Eval(nnet, 3, in3);
  const int32 a1 = nnet.GetComponentIndex("a1"),
              a2 = nnet.GetComponentIndex("a2");
  const AffineComponent *affine1 =
      dynamic_cast<const AffineComponent *>(nnet.GetComponent(a1));
  const AffineComponent *affine2 =
      dynamic_cast<const AffineComponent *>(nnet.GetComponent(a2));
  const BaseFloat *a1_params = affine1->LinearParams().Data(),
                  *a2_bias = affine2->BiasParams().Data();

  EXPECT_EQ(ComputeSplicedAffinesAsTdnn(1, &nnet), 2);
  nnet.Check();
  const TdnnComponent *t1 =
      dynamic_cast<const TdnnComponent *>(nnet.GetComponent(a1));
  const TdnnComponent *t2 =
      dynamic_cast<const TdnnComponent *>(nnet.GetComponent(a2));
  ASSERT_NE(t1, nullptr);
  ASSERT_NE(t2, nullptr);
  EXPECT_EQ(t1->TimeOffsets(), (std::vector<int32>{-2, 0, 1}));
  EXPECT_EQ(t2->TimeOffsets(), (std::vector<int32>{-1, 2}));
  EXPECT_TRUE(t1->UseNaturalGradient());
  EXPECT_FALSE(t2->UseNaturalGradient());
  // Moved, not copied.
  EXPECT_EQ(t1->LinearParams().Data(), a1_params);
  EXPECT_EQ(t2->BiasParams().Data(), a2_bias);
  EXPECT_EQ(nnet.GetComponentName(a1), "a1");
  // The nodes read the spliced node itself; a3 is untouched.
  std::vector<std::string> lines = NnetConfigLines(nnet);
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "component-node name=a1 component=a1 input=input"),
            lines.end());
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "component-node name=a2 component=a2 input=r1"),
            lines.end());
  EXPECT_EQ(nnet.GetComponent(nnet.GetComponentIndex("a3"))->Type(),
            "AffineComponent");
  EXPECT_TRUE(NnetIsChunkingInvariant(nnet));
  int32 left = 0, right = 0;
  ComputeSimpleNnetContext(nnet, &left, &right);
  EXPECT_EQ(left, 3);
  EXPECT_EQ(right, 3);

  EXPECT_LT(RelativeDifference(before1, Eval(nnet, 1, in1)), 1e-5);
  EXPECT_LT(RelativeDifference(before3, Eval(nnet, 3, in3)), 1e-5);
  // Nothing left to rewrite.
  EXPECT_EQ(ComputeSplicedAffinesAsTdnn(1, &nnet), 0);
}

TEST(SplicedAffinesAsTdnn, NarrowPartsStayAppends) {
  Nnet nnet = NnetFromConfigString(kTdnn);
  // a1's parts are 6 wide, a2's 8.
  EXPECT_EQ(ComputeSplicedAffinesAsTdnn(7, &nnet), 1);
  EXPECT_EQ(nnet.GetComponent(nnet.GetComponentIndex("a1"))->Type(),
            "NaturalGradientAffineComponent");
  EXPECT_EQ(nnet.GetComponent(nnet.GetComponentIndex("a2"))->Type(),
            "TdnnComponent");
}

// Inputs that are not one node at increasing time offsets, and components
// that are not a lone Affine/NaturalGradientAffine, are left alone.
TEST(SplicedAffinesAsTdnn, LeavesEveryOtherShapeAlone) {
  const std::string head =
      "input-node name=input dim=4\n"
      "component name=b type=AffineComponent input-dim=4 output-dim=4\n"
      "component-node name=b component=b input=input\n";
  const char *appends[] = {
      "Append(Offset(input, 1), Offset(input, -1))",    // decreasing
      "Append(Offset(input, 1), Offset(input, 1))",     // repeated
      "Append(Offset(input, -1), b)",                   // two nodes
      "Append(IfDefined(Offset(input, -1)), input)",    // availability
      "Append(Scale(2.0, Offset(input, -1)), input)",   // scaled
      "Append(Sum(input, b), Offset(input, 1))",        // a sum
      "Append(Offset(input, -1, 1), input)",            // an x offset
      "Append(Round(input, 2), Offset(input, 2))",      // rounded
  };
  for (const char *append : appends) {
    Nnet nnet = NnetFromConfigString(head +
                         "component name=a type=AffineComponent input-dim=8 "
                         "output-dim=3\n"
                         "component-node name=a component=a input=" +
                         append + "\noutput-node name=output input=a\n");
    std::vector<std::string> lines = NnetConfigLines(nnet);
    EXPECT_EQ(ComputeSplicedAffinesAsTdnn(1, &nnet), 0) << append;
    EXPECT_EQ(NnetConfigLines(nnet), lines) << append;
  }
  // One part only (an Offset needs no splicing).
  {
    Nnet nnet = NnetFromConfigString(head +
                         "component name=a type=AffineComponent input-dim=4 "
                         "output-dim=3\n"
                         "component-node name=a component=a "
                         "input=Offset(input, 2)\n"
                         "output-node name=output input=a\n");
    EXPECT_EQ(ComputeSplicedAffinesAsTdnn(1, &nnet), 0);
  }
  // A component shared by two nodes, and other component types.
  const char *bodies[] = {
      "component name=a type=AffineComponent input-dim=8 output-dim=4\n"
      "component-node name=a component=a input=Append(Offset(input, -1), "
      "input)\n"
      "component-node name=a2 component=a input=Append(input, "
      "Offset(input, 1))\n"
      "output-node name=output input=Sum(a, a2)\n",
      "component name=a type=LinearComponent input-dim=8 output-dim=3\n"
      "component-node name=a component=a input=Append(Offset(input, -1), "
      "input)\n"
      "output-node name=output input=a\n",
      "component name=a type=FixedAffineComponent input-dim=8 output-dim=3\n"
      "component-node name=a component=a input=Append(Offset(input, -1), "
      "input)\n"
      "output-node name=output input=a\n",
  };
  for (const char *body : bodies) {
    Nnet nnet = NnetFromConfigString("input-node name=input dim=4\n" +
                                     std::string(body));
    std::vector<std::string> lines = NnetConfigLines(nnet);
    EXPECT_EQ(ComputeSplicedAffinesAsTdnn(1, &nnet), 0) << body;
    EXPECT_EQ(NnetConfigLines(nnet), lines) << body;
  }
}

}  // namespace
}  // namespace nnet3
