// tests/nnet3/nnet/nnet-svd-test.cc
// The edit directives reduce-rank and apply-svd (nnet3/nnet/nnet-svd.h),
// applied through ReadEditConfig on small networks:
//  - reduce-rank: the new linear parameters have exactly rank r, keep the
//    leading singular values, differ from the old ones by exactly the
//    discarded singular values (Frobenius norm), beat another rank-r
//    approximation, and leave bias, type and skipped components alone;
//  - apply-svd: Kaldi's component and node names, types, dims, settings and
//    node order (also for a component shared by two nodes, and with an
//    input node defined late); binary/text round trips; the output equals the original's when the bottleneck keeps
//    the whole rank, and otherwise differs by no more than the largest
//    discarded singular value times the input norm; energy-threshold and
//    shrinkage-threshold choose/skip as Kaldi does (including the bottleneck
//    dim carried from one component to the next);
//  - bad directives: one-line errors naming the option, warnings (no change)
//    for non-affine matches and too-large ranks.
// Outputs are compared with the naive evaluator (no compiler involved).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "matrix/svd.h"
#include "nnet3/components/affine.h"
#include "nnet3/nnet/nnet-edit.h"
#include "nnet3/nnet/nnet.h"
#include "nnet3/testing/naive-evaluator.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

Nnet MakeNnet(const std::string &config) {
  Nnet nnet;
  std::istringstream is(config);
  nnet.ReadConfig(is);
  return nnet;
}

void Edit(const std::string &edits, Nnet *nnet) {
  std::istringstream is(edits);
  ReadEditConfig(is, nnet);
}

// The message of the UserError the edit throws ("" if none).
std::string EditError(const std::string &edits, Nnet *nnet) {
  try {
    Edit(edits, nnet);
  } catch (const UserError &e) {
    return e.message();
  }
  return "";
}

std::string Binary(const Nnet &nnet) {
  std::ostringstream os;
  nnet.Write(os, true);
  return os.str();
}

template <class C>
const C *Get(const Nnet &nnet, const std::string &name) {
  int32 c = nnet.GetComponentIndex(name);
  EXPECT_NE(c, -1) << name;
  if (c == -1) return nullptr;
  const C *ans = dynamic_cast<const C *>(nnet.GetComponent(c));
  EXPECT_NE(ans, nullptr) << name << " is a " << nnet.GetComponent(c)->Type();
  return ans;
}

// Singular values of a float matrix, via the tested matrix-library SVD.
std::vector<double> SingularValues(const MatrixBase<BaseFloat> &m) {
  Matrix<double> md(m);
  Vector<double> s;
  Matrix<double> u, vt;
  ThinSvd(md, &s, &u, &vt);
  return std::vector<double>(s.Data(), s.Data() + s.Dim());
}
std::vector<double> SingularValues(const CuMatrixBase<BaseFloat> &m) {
  return SingularValues(m.Mat());
}

double SqFrobeniusDiff(const MatrixBase<BaseFloat> &a,
                       const MatrixBase<BaseFloat> &b) {
  double ans = 0.0;
  for (int32 i = 0; i < a.NumRows(); i++)
    for (int32 j = 0; j < a.NumCols(); j++) {
      double d = static_cast<double>(a(i, j)) - b(i, j);
      ans += d * d;
    }
  return ans;
}
double SqFrobeniusDiff(const CuMatrixBase<BaseFloat> &a,
                       const CuMatrixBase<BaseFloat> &b) {
  return SqFrobeniusDiff(a.Mat(), b.Mat());
}
double SqFrobeniusDiff(const CuMatrixBase<BaseFloat> &a,
                       const MatrixBase<BaseFloat> &b) {
  return SqFrobeniusDiff(a.Mat(), b);
}

// Output "output_name" for frames [0, num_frames) with input frames
// [-1, num_frames), by the naive evaluator.
Matrix<BaseFloat> Outputs(const Nnet &nnet, const Matrix<BaseFloat> &input,
                          const std::string &output_name = "output") {
  ComputationRequest request;
  int32 num_frames = input.NumRows() - 1;
  request.inputs.push_back(IoSpecification("input", -1, num_frames));
  request.outputs.push_back(IoSpecification(output_name, 0, num_frames));
  std::vector<Matrix<BaseFloat>> inputs = {input};  // must outlive eval
  NaiveEvaluator eval(nnet, request, inputs);
  Matrix<BaseFloat> out;
  eval.GetOutput(0, &out);
  return out;
}

const char *kTwoLayers =
    "input-node name=input dim=6\n"
    "component name=affine1 type=AffineComponent input-dim=12 output-dim=10 "
    "learning-rate-factor=0.5 max-change=0.75 l2-regularize=0.01\n"
    "component-node name=layer1 component=affine1 "
    "input=Append(Offset(input, -1), input)\n"
    "component name=relu type=RectifiedLinearComponent dim=10\n"
    "component-node name=relu1 component=relu input=layer1\n"
    "dim-range-node name=part input-node=layer1 dim-offset=2 dim=5\n"
    "component name=affine2 type=NaturalGradientAffineComponent "
    "input-dim=10 output-dim=8 learning-rate=0.02\n"
    "component-node name=layer2 component=affine2 input=relu1\n"
    "output-node name=output input=layer2\n"
    "output-node name=output2 input=Scale(2.0, part) "
    "objective=quadratic\n";

// ---- reduce-rank ---------------------------------------------------------

TEST(ReduceRank, GivesTheBestRankRApproximation) {
  Nnet nnet = MakeNnet(kTwoLayers);
  Nnet orig(nnet);
  Edit("reduce-rank name=affine* rank=3", &nnet);
  for (const char *name : {"affine1", "affine2"}) {
    SCOPED_TRACE(name);
    const AffineComponent *before = Get<AffineComponent>(orig, name),
                          *after = Get<AffineComponent>(nnet, name);
    ASSERT_TRUE(before && after);
    EXPECT_EQ(before->Type(), after->Type());
    const CuVector<BaseFloat> &b0 = before->BiasParams(), &b1 = after->BiasParams();
    ASSERT_EQ(b0.Dim(), b1.Dim());
    for (int32 i = 0; i < b0.Dim(); i++) EXPECT_EQ(b0.Vec()(i), b1.Vec()(i)) << i;
    std::vector<double> s0 = SingularValues(before->LinearParams()),
                        s1 = SingularValues(after->LinearParams());
    ASSERT_EQ(s0.size(), s1.size());
    // Exactly rank 3, with the three leading singular values kept.
    for (size_t j = 0; j < s1.size(); j++) {
      if (j < 3)
        EXPECT_NEAR(s1[j], s0[j], 1e-5 * s0[0]) << j;
      else
        EXPECT_LE(s1[j], 1e-5 * s0[0]) << j;
    }
    // ||W - W_3||_F^2 is the sum of the discarded squared singular values.
    double discarded = 0.0;
    for (size_t j = 3; j < s0.size(); j++) discarded += s0[j] * s0[j];
    double diff = SqFrobeniusDiff(before->LinearParams(), after->LinearParams());
    EXPECT_NEAR(diff, discarded, 1e-4 * discarded);
    // Any other rank-3 matrix is further away, e.g. W projected on the
    // first three coordinate axes of the input.
    Matrix<BaseFloat> other = ToHost(before->LinearParams());
    for (int32 i = 0; i < other.NumRows(); i++)
      for (int32 j = 3; j < other.NumCols(); j++) other(i, j) = 0.0;
    EXPECT_GT(SqFrobeniusDiff(before->LinearParams(), other), diff);
  }
  // The natural-gradient settings stay as they were.
  const NaturalGradientAffineComponent *ng =
      Get<NaturalGradientAffineComponent>(nnet, "affine2");
  ASSERT_TRUE(ng);
  EXPECT_EQ(ng->RankIn(), 5);
  EXPECT_EQ(ng->RankOut(), 4);
  EXPECT_EQ(NnetConfigLines(nnet), NnetConfigLines(orig));
}

TEST(ReduceRank, SkipsWithWarningsAndRejectsBadOptions) {
  Nnet nnet = MakeNnet(kTwoLayers);
  std::string orig = Binary(nnet);
  // Not affine, and rank not below both dims (affine2 is 10 -> 8): no change.
  Edit("reduce-rank name=relu rank=2\nreduce-rank name=affine2 rank=8\n"
       "reduce-rank name=nothing* rank=1",
       &nnet);
  EXPECT_EQ(Binary(nnet), orig);
  std::string err = EditError("reduce-rank name=affine1", &nnet);
  EXPECT_NE(err.find("rank=<r>"), std::string::npos) << err;
  err = EditError("reduce-rank rank=2", &nnet);
  EXPECT_NE(err.find("name=<pattern>"), std::string::npos) << err;
  err = EditError("reduce-rank name=affine1 rank=0", &nnet);
  EXPECT_NE(err.find("rank=0"), std::string::npos) << err;
  err = EditError("reduce-rank name=affine1 rank=two", &nnet);
  EXPECT_NE(err.find("rank"), std::string::npos) << err;
  err = EditError("reduce-rank name=affine1 rank=2 bottleneck-dim=3", &nnet);
  EXPECT_NE(err.find("bottleneck-dim"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
}

// ---- apply-svd -----------------------------------------------------------

TEST(ApplySvd, KaldiNamesTypesDimsAndNodeOrder) {
  Nnet nnet = MakeNnet(kTwoLayers);
  Edit("apply-svd name=affine* bottleneck-dim=4", &nnet);
  std::vector<std::string> want_components = {"relu", "affine1_a", "affine1_b",
                                              "affine2_a", "affine2_b"};
  EXPECT_EQ(nnet.GetComponentNames(), want_components);
  std::vector<std::string> want_lines = {
      "input-node name=input dim=6",
      "component-node name=layer1_a component=affine1_a "
      "input=Append(Offset(input, -1), input)",
      "component-node name=layer1_b component=affine1_b input=layer1_a",
      "component-node name=relu1 component=relu input=layer1_b",
      "dim-range-node name=part input-node=layer1_b dim-offset=2 dim=5",
      "component-node name=layer2_a component=affine2_a input=relu1",
      "component-node name=layer2_b component=affine2_b input=layer2_a",
      "output-node name=output input=layer2_b objective=linear",
      "output-node name=output2 input=Scale(2, part) "
      "objective=quadratic"};
  EXPECT_EQ(NnetConfigLines(nnet), want_lines);

  const LinearComponent *a1 = Get<LinearComponent>(nnet, "affine1_a");
  const NaturalGradientAffineComponent *b1 =
      Get<NaturalGradientAffineComponent>(nnet, "affine1_b");
  const LinearComponent *a2 = Get<LinearComponent>(nnet, "affine2_a");
  const NaturalGradientAffineComponent *b2 =
      Get<NaturalGradientAffineComponent>(nnet, "affine2_b");
  ASSERT_TRUE(a1 && b1 && a2 && b2);
  EXPECT_EQ(a1->InputDim(), 12);
  EXPECT_EQ(a1->OutputDim(), 4);
  EXPECT_EQ(b1->InputDim(), 4);
  EXPECT_EQ(b1->OutputDim(), 10);
  EXPECT_EQ(a2->InputDim(), 10);
  EXPECT_EQ(b2->OutputDim(), 8);
  // Settings copied from the original component; natural-gradient settings
  // are Kaldi's fixed ones for components made this way.
  // (learning-rate-factor in a config does not scale the initial rate.)
  for (const UpdatableComponent *u :
       std::vector<const UpdatableComponent *>{a1, b1}) {
    EXPECT_FLOAT_EQ(u->LearningRateFactor(), 0.5);
    EXPECT_FLOAT_EQ(u->LearningRate(), 0.001);
    EXPECT_FLOAT_EQ(u->MaxChange(), 0.75);
    EXPECT_FLOAT_EQ(u->L2Regularization(), 0.01);
  }
  EXPECT_FLOAT_EQ(a2->LearningRate(), 0.02);
  EXPECT_FLOAT_EQ(b2->LearningRate(), 0.02);
  EXPECT_EQ(a1->Info().find("rank-in=40, rank-out=80"), a1->Info().find("rank-in="));
  EXPECT_NE(a1->Info().find("rank-in=40, rank-out=80"), std::string::npos)
      << a1->Info();
  EXPECT_EQ(b1->RankIn(), 20);
  EXPECT_EQ(b1->RankOut(), 80);
  EXPECT_EQ(b1->UpdatePeriod(), 4);
  EXPECT_TRUE(a1->UseNaturalGradient());
  EXPECT_EQ(a1->OrthonormalConstraint(), 0.0);

  // Binary and text round trips reproduce the edited network exactly.
  for (bool binary : {true, false}) {
    std::ostringstream os;
    nnet.Write(os, binary);
    Nnet copy;
    std::istringstream is(os.str());
    copy.Read(is, binary);
    std::ostringstream os2;
    copy.Write(os2, binary);
    EXPECT_EQ(os.str(), os2.str());
  }
}

// Sets the linear parameters of an affine component to a random matrix of
// the given rank.
void SetRank(const std::string &name, int32 rank, Nnet *nnet) {
  AffineComponent *c = dynamic_cast<AffineComponent *>(
      nnet->GetComponent(nnet->GetComponentIndex(name)));
  ASSERT_NE(c, nullptr);
  Matrix<BaseFloat> x(c->OutputDim(), rank), y(rank, c->InputDim()),
      w(c->OutputDim(), c->InputDim());
  x.SetRandn();
  y.SetRandn();
  w.AddMatMat(1.0, x, kNoTrans, y, kNoTrans, 0.0);
  CuVector<BaseFloat> bias(c->BiasParams());
  c->SetParams(bias, CuMatrix<BaseFloat>(w));
}

TEST(ApplySvd, SharedComponentAndLateInput) {
  // Two nodes share "affine"; both are split and share affine_a/affine_b.
  // Rebuilding the graph the way Kaldi does puts the input nodes first.
  Nnet nnet = MakeNnet(
      "input-node name=input dim=6\n"
      "component name=affine type=AffineComponent input-dim=6 output-dim=5\n"
      "component-node name=x1 component=affine input=input\n"
      "input-node name=ivector dim=6\n"
      "component-node name=x2 component=affine input=ivector\n"
      "output-node name=output input=Append(x1, x2)\n");
  Edit("apply-svd name=affine bottleneck-dim=2", &nnet);
  std::vector<std::string> want_lines = {
      "input-node name=input dim=6",
      "input-node name=ivector dim=6",
      "component-node name=x1_a component=affine_a input=input",
      "component-node name=x1_b component=affine_b input=x1_a",
      "component-node name=x2_a component=affine_a input=ivector",
      "component-node name=x2_b component=affine_b input=x2_a",
      "output-node name=output input=Append(x1_b, x2_b) objective=linear"};
  EXPECT_EQ(NnetConfigLines(nnet), want_lines);
  std::vector<std::string> want_components = {"affine_a", "affine_b"};
  EXPECT_EQ(nnet.GetComponentNames(), want_components);
}

TEST(ApplySvd, SameOutputWhenTheBottleneckKeepsTheRank) {
  Nnet nnet = MakeNnet(kTwoLayers);
  SetRank("affine1", 4, &nnet);
  SetRank("affine2", 3, &nnet);
  Nnet orig(nnet);
  Edit("apply-svd name=affine1 bottleneck-dim=4\n"
       "apply-svd name=affine2 bottleneck-dim=3",
       &nnet);
  EXPECT_EQ(nnet.NumComponents(), 5);
  Matrix<BaseFloat> input(8, 6);
  input.SetRandn();
  for (const char *output : {"output", "output2"}) {
    Matrix<BaseFloat> y0 = Outputs(orig, input, output),
                      y1 = Outputs(nnet, input, output);
    double scale = std::sqrt(SqFrobeniusDiff(y0, Matrix<BaseFloat>(
                                                     y0.NumRows(), y0.NumCols())));
    EXPECT_LE(std::sqrt(SqFrobeniusDiff(y0, y1)), 1e-5 * scale) << output;
  }
}

TEST(ApplySvd, OutputErrorBoundedByDiscardedSingularValues) {
  // One affine layer: y - y' = (W - W_d) x, so each row's error is at most
  // s_{d+1} |x| (and not zero, as energy is discarded).
  Nnet nnet = MakeNnet(
      "input-node name=input dim=7\n"
      "component name=affine type=NaturalGradientAffineComponent "
      "input-dim=7 output-dim=9 bias-stddev=2\n"
      "component-node name=affine component=affine input=input\n"
      "output-node name=output input=affine\n");
  Nnet orig(nnet);
  std::vector<double> s =
      SingularValues(Get<AffineComponent>(orig, "affine")->LinearParams());
  Edit("apply-svd name=affine bottleneck-dim=3", &nnet);
  ASSERT_EQ(nnet.NumComponents(), 2);
  Matrix<BaseFloat> input(11, 7);
  input.SetRandn();
  Matrix<BaseFloat> y0 = Outputs(orig, input), y1 = Outputs(nnet, input);
  double total = 0.0;
  for (int32 r = 0; r < y0.NumRows(); r++) {
    double err = 0.0, norm = 0.0;
    for (int32 j = 0; j < y0.NumCols(); j++)
      err += (y0(r, j) - y1(r, j)) * (y0(r, j) - y1(r, j));
    for (int32 j = 0; j < 7; j++) norm += input(r + 1, j) * input(r + 1, j);
    EXPECT_LE(std::sqrt(err), s[3] * std::sqrt(norm) * (1 + 1e-4) + 1e-5) << r;
    total += err;
  }
  EXPECT_GT(total, 1e-6);
}

// An 8 x 10 affine component whose singular values are 5 4 3 2 1 1 1 1
// (squares 25 16 9 4 1 1 1 1, total 58), followed by an 8 -> 4 one.
const char *kKnownSpectrum =
    "input-node name=input dim=10\n"
    "component name=big type=AffineComponent input-dim=10 output-dim=8\n"
    "component-node name=big component=big input=input\n"
    "component name=small type=AffineComponent input-dim=8 output-dim=4\n"
    "component-node name=small component=small input=big\n"
    "output-node name=output input=small\n";

Nnet KnownSpectrumNnet() {
  Nnet nnet = MakeNnet(kKnownSpectrum);
  AffineComponent *big =
      dynamic_cast<AffineComponent *>(nnet.GetComponent(0));
  Matrix<BaseFloat> w(8, 10);
  const double s[8] = {3, 5, 1, 4, 1, 2, 1, 1};  // order does not matter
  for (int32 i = 0; i < 8; i++) w(i, (i * 3) % 10) = (i % 2 ? -1 : 1) * s[i];
  CuVector<BaseFloat> bias(big->BiasParams());
  big->SetParams(bias, CuMatrix<BaseFloat>(w));
  return nnet;
}

TEST(ApplySvd, EnergyThresholdChoosesTheDim) {
  // 0.7 * 58 = 40.6: 25 + 16 = 41 reaches it, so d = 2.
  Nnet nnet = KnownSpectrumNnet();
  Edit("apply-svd name=big energy-threshold=0.7", &nnet);
  const LinearComponent *a = Get<LinearComponent>(nnet, "big_a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->OutputDim(), 2);
  std::vector<double> sa = SingularValues(a->Params());
  // A = sqrt(S) Vt: singular values sqrt(5), sqrt(4).
  EXPECT_NEAR(sa[0], std::sqrt(5.0), 1e-5);
  EXPECT_NEAR(sa[1], 2.0, 1e-5);
  // Exactly reaching the target counts: 25 + 16 + 9 = 50 = (50/58) * 58.
  nnet = KnownSpectrumNnet();
  Edit("apply-svd name=big energy-threshold=0.86206896", &nnet);
  EXPECT_EQ(Get<LinearComponent>(nnet, "big_a")->OutputDim(), 3);
  // A bottleneck-dim is overridden by the energy choice.
  nnet = KnownSpectrumNnet();
  Edit("apply-svd name=big bottleneck-dim=6 energy-threshold=0.5", &nnet);
  EXPECT_EQ(Get<LinearComponent>(nnet, "big_a")->OutputDim(), 2);
}

TEST(ApplySvd, ShrinkageThresholdSkips) {
  // d = 2: ratio 2 * (10 + 8) / 80 = 0.45.
  const Nnet start = KnownSpectrumNnet();
  Nnet nnet(start);
  std::string orig = Binary(nnet);
  Edit("apply-svd name=big bottleneck-dim=2 shrinkage-threshold=0.44", &nnet);
  EXPECT_EQ(Binary(nnet), orig);
  Edit("apply-svd name=big bottleneck-dim=2 shrinkage-threshold=0.45", &nnet);
  EXPECT_EQ(Get<LinearComponent>(nnet, "big_a")->OutputDim(), 2);
  // energy 0.99 needs all 8 values: ratio 8 * 18 / 80 > 1 (the default).
  nnet = start;
  Edit("apply-svd name=big energy-threshold=0.99", &nnet);
  EXPECT_EQ(Binary(nnet), orig);
}

TEST(ApplySvd, BottleneckDimCarriesOverFromEnergyChoice) {
  // "small" (8 -> 4) has rank 1: on its own, energy-threshold=0.9 picks
  // d = 1 (ratio 12 / 32) and splits it.
  Nnet nnet = KnownSpectrumNnet();
  SetRank("small", 1, &nnet);
  Nnet alone(nnet);
  Edit("apply-svd name=small energy-threshold=0.9", &alone);
  ASSERT_NE(alone.GetComponentIndex("small_a"), -1);
  EXPECT_EQ(Get<LinearComponent>(alone, "small_a")->OutputDim(), 1);
  // Kaldi keeps one bottleneck dim for the whole directive: "big" first
  // picks d = 4 (25 + 16 + 9 + 4 = 54 >= 0.9 * 58 = 52.2; ratio 0.9), and
  // "small" is then skipped because its output dim 4 is not above 4.
  Edit("apply-svd name=* energy-threshold=0.9", &nnet);
  EXPECT_EQ(Get<LinearComponent>(nnet, "big_a")->OutputDim(), 4);
  EXPECT_NE(nnet.GetComponentIndex("small"), -1);
  EXPECT_EQ(nnet.GetComponentIndex("small_a"), -1);
}

TEST(ApplySvd, BadDirectives) {
  Nnet nnet = MakeNnet(kTwoLayers);
  std::string orig = Binary(nnet);
  std::string err = EditError("apply-svd name=affine1", &nnet);
  EXPECT_NE(err.find("bottleneck-dim"), std::string::npos) << err;
  err = EditError("apply-svd bottleneck-dim=3", &nnet);
  EXPECT_NE(err.find("name=<pattern>"), std::string::npos) << err;
  err = EditError("apply-svd name=affine1 bottleneck-dim=0", &nnet);
  EXPECT_NE(err.find("bottleneck-dim"), std::string::npos) << err;
  err = EditError("apply-svd name=affine1 energy-threshold=1.5", &nnet);
  EXPECT_NE(err.find("energy-threshold=1.5"), std::string::npos) << err;
  err = EditError("apply-svd name=affine1 bottleneck-dim=3 "
                  "shrinkage-threshold=2",
                  &nnet);
  EXPECT_NE(err.find("shrinkage-threshold=2"), std::string::npos) << err;
  err = EditError("apply-svd name=affine1 bottleneck-dim=3 rank=2", &nnet);
  EXPECT_NE(err.find("rank=2"), std::string::npos) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  EXPECT_EQ(Binary(nnet), orig);
  // Warnings only: not affine; dim not below both dims (affine2: 10 -> 8).
  Edit("apply-svd name=relu bottleneck-dim=2\n"
       "apply-svd name=affine2 bottleneck-dim=8",
       &nnet);
  EXPECT_EQ(Binary(nnet), orig);
  // The new names must be free.
  Nnet taken = MakeNnet(std::string(kTwoLayers) +
                        "component name=affine1_b type=RectifiedLinearComponent "
                        "dim=3\n");
  err = EditError("apply-svd name=affine1 bottleneck-dim=3", &taken);
  EXPECT_NE(err.find("affine1_b"), std::string::npos) << err;
  Nnet node_taken = MakeNnet(std::string(kTwoLayers) +
                             "component-node name=layer1_a component=relu "
                             "input=relu1\n"
                             "output-node name=output3 input=layer1_a\n");
  err = EditError("apply-svd name=affine1 bottleneck-dim=3", &node_taken);
  EXPECT_NE(err.find("layer1_a"), std::string::npos) << err;
}

}  // namespace
}  // namespace nnet3
