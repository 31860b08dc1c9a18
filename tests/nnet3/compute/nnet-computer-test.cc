// tests/nnet3/compute/nnet-computer-test.cc
// The NnetComputer on hand-built NnetComputations: every row/matrix command,
// propagation through affine + ReLU and backprop (with and without model
// update) are checked against a naive evaluation written here with explicit
// loops in double precision; also memos, statistics, looped computations
// (kGotoLabel), memory compression, debug mode and the error messages for
// missing or badly sized inputs and for outputs that were not provided.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "nnet3/components/affine.h"
#include "nnet3/components/nonlinear.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/nnet/nnet.h"
#include "util/options.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Cmd;
typedef std::vector<std::vector<double> > Mat;

Nnet MakeNnet(const std::string &config) {
  Nnet nnet;
  std::istringstream is(config);
  nnet.ReadConfig(is);
  return nnet;
}

const char *kAffineReluConfig =
    "input-node name=input dim=4\n"
    "component name=affine1 type=AffineComponent input-dim=4 output-dim=3 "
    "learning-rate=0.1\n"
    "component-node name=affine1 component=affine1 input=input\n"
    "component name=relu1 type=RectifiedLinearComponent dim=3\n"
    "component-node name=relu1 component=relu1 input=affine1\n"
    "output-node name=output input=relu1\n";

CuMatrix<BaseFloat> RandMatrix(int32 rows, int32 cols, uint64 seed) {
  RandomSource rs(seed);
  CuMatrix<BaseFloat> m(rows, cols);
  m.SetRandn(&rs);
  return m;
}

Mat ToMat(const CuMatrixBase<BaseFloat> &cu) {
  const MatrixBase<BaseFloat> &m = cu.Mat();
  Mat ans(m.NumRows(), std::vector<double>(m.NumCols()));
  for (int32 r = 0; r < m.NumRows(); r++)
    for (int32 c = 0; c < m.NumCols(); c++) ans[r][c] = m(r, c);
  return ans;
}

Mat Zeros(int32 rows, int32 cols) {
  return Mat(rows, std::vector<double>(cols, 0.0));
}

void ExpectMatNear(const CuMatrixBase<BaseFloat> &cu_actual, const Mat &expected,
                   double tol = 1.0e-4) {
  const MatrixBase<BaseFloat> &actual = cu_actual.Mat();
  ASSERT_EQ(actual.NumRows(), static_cast<int32>(expected.size()));
  for (int32 r = 0; r < actual.NumRows(); r++) {
    ASSERT_EQ(actual.NumCols(), static_cast<int32>(expected[r].size()));
    for (int32 c = 0; c < actual.NumCols(); c++)
      EXPECT_NEAR(actual(r, c), expected[r][c],
                  tol * (1.0 + std::fabs(expected[r][c])))
          << "at (" << r << ", " << c << ")";
  }
}

// Runs f, which must throw a UserError whose message contains every one of
// the given substrings.
template <typename F>
void ExpectUserError(F f, const std::vector<std::string> &substrings) {
  try {
    f();
    ADD_FAILURE() << "expected a UserError";
  } catch (const UserError &e) {
    std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    for (const std::string &s : substrings)
      EXPECT_NE(what.find(s), std::string::npos)
          << "'" << s << "' not in: " << what;
  }
}

// ---- The training computation ------------------------------------------------
//
// From the input X (5 x 4) it builds X' (6 x 4) with every row/matrix
// command, propagates X' through affine1 and relu1, provides the output,
// then (after a kNoOperationMarker) accepts the output derivative, backprops
// through both components, and provides an input "derivative" made from the
// derivative w.r.t. X' by kCopyRows.

const std::vector<int32> kCopyIdx = {3, -1, 0, 4, 1};       // alpha 2
const std::vector<int32> kAddIdx = {-1, 2, 2, 0, 4, 1};     // alpha 0.5
const std::vector<int32> kDerivIdx = {5, 4, 3, 2, 1};
const std::vector<std::pair<int32, int32> > kRanges1 = {
    {0, 2}, {1, 1}, {2, 5}, {0, 0}, {3, 4}, {0, 5}};        // alpha 1
const std::vector<std::pair<int32, int32> > kRanges2 = {
    {0, 1}, {0, 0}, {4, 5}, {1, 3}, {2, 2}, {0, 2}};        // alpha 0.5

struct TrainingComputation {
  NnetComputation computation;
  int32 input_node, output_node, affine, relu;
};

// backprop_type is kBackprop or kBackpropNoModelUpdate (for affine1).
void BuildTrainingComputation(const Nnet &nnet, CommandType backprop_type,
                              bool need_model_derivative,
                              TrainingComputation *t) {
  t->input_node = nnet.GetNodeIndex("input");
  t->output_node = nnet.GetNodeIndex("output");
  t->affine = nnet.GetComponentIndex("affine1");
  t->relu = nnet.GetComponentIndex("relu1");
  NnetComputation &c = t->computation;
  c.need_model_derivative = need_model_derivative;
  int32 x = c.NewMatrix(5, 4), xp = c.NewMatrix(6, 4), z = c.NewMatrix(6, 4);
  int32 x_rows2 = c.NewSubMatrix(x, 2, 3, 0, 4);   // rows 2..4 of X
  int32 x_rows01 = c.NewSubMatrix(x, 0, 2, 0, 4);
  int32 x_row2 = c.NewSubMatrix(x, 2, 1, 0, 4);
  int32 z_rows23 = c.NewSubMatrix(z, 2, 2, 0, 4);
  int32 a = c.NewMatrix(6, 3), r = c.NewMatrix(6, 3);
  int32 rd = c.NewMatrix(6, 3), ad = c.NewMatrix(6, 3), xd = c.NewMatrix(6, 4);
  int32 ind = c.NewMatrix(5, 4);

  c.indexes.push_back(kCopyIdx);
  c.indexes.push_back(kAddIdx);
  c.indexes.push_back(kDerivIdx);
  c.indexes_ranges.push_back(kRanges1);
  c.indexes_ranges.push_back(kRanges2);
  c.indexes_multi.push_back(
      {{x, 0}, {-1, -1}, {x_rows2, 1}, {x, 4}, {x_rows2, 0}, {-1, -1}});
  c.indexes_multi.push_back(
      {{x, 1}, {-1, -1}, {x_rows2, 2}, {x, 0}, {-1, -1}, {x_rows2, 0}});
  c.indexes_multi.push_back({{z, 1}, {-1, -1}});
  c.indexes_multi.push_back({{z, 4}, {z, 4}, {-1, -1}, {z, 0}, {z_rows23, 0}});
  c.indexes_multi.push_back({{z, 5}});

  std::vector<Cmd> &cmd = c.commands;
  cmd.push_back(Cmd(kAcceptInput, x, t->input_node));
  cmd.push_back(Cmd(kAllocMatrix, xp));
  cmd.push_back(Cmd(0.0, kSetConst, xp));  // allocation is undefined
  cmd.push_back(Cmd(0.25, kSetConst, c.NewSubMatrix(xp, 5, 1, 0, 4)));
  cmd.push_back(Cmd(2.0, kCopyRows, c.NewSubMatrix(xp, 0, 5, 0, 4), x, 0));
  cmd.push_back(Cmd(0.5, kAddRows, xp, x, 1));
  cmd.push_back(Cmd(-1.0, kAddRowsMulti, xp, 0));
  cmd.push_back(Cmd(1.0, kAddRowRanges, xp, x, 0));
  cmd.push_back(Cmd(0.5, kAddRowRanges, c.NewSubMatrix(xp, 0, 6, 1, 2),
                    c.NewSubMatrix(x, 0, 5, 0, 2), 1));
  cmd.push_back(Cmd(1.5, kMatrixCopy, c.NewSubMatrix(xp, 4, 2, 2, 2),
                    c.NewSubMatrix(x, 0, 2, 1, 2)));
  cmd.push_back(Cmd(-0.25, kMatrixAdd, c.NewSubMatrix(xp, 0, 3, 0, 4),
                    c.NewSubMatrix(x, 1, 3, 0, 4)));
  cmd.push_back(Cmd(kAllocMatrix, z));
  cmd.push_back(Cmd(0.0, kSetConst, z));  // allocation is undefined
  cmd.push_back(Cmd(7.0, kSetConst, z));
  cmd.push_back(Cmd(1.0, kCopyRowsMulti, z, 1));
  cmd.push_back(Cmd(1.0, kCopyToRowsMulti, x_rows01, 2));
  cmd.push_back(Cmd(0.5, kAddToRowsMulti, x, 3));
  cmd.push_back(Cmd(3.0, kCopyToRowsMulti, x_row2, 4));
  cmd.push_back(Cmd(1.0, kMatrixAdd, xp, z));
  cmd.push_back(Cmd(kDeallocMatrix, z));
  cmd.push_back(Cmd(kAllocMatrix, a));
  cmd.push_back(Cmd(0.0, kSetConst, a));  // allocation is undefined
  cmd.push_back(Cmd(kPropagate, t->affine, 0, xp, a, 0, 0));
  cmd.push_back(Cmd(kAllocMatrix, r));
  cmd.push_back(Cmd(0.0, kSetConst, r));  // allocation is undefined
  cmd.push_back(Cmd(kPropagate, t->relu, 0, a, r, 0, 1));
  cmd.push_back(Cmd(kProvideOutput, r, t->output_node));
  cmd.push_back(Cmd(kNoOperationMarker));
  cmd.push_back(Cmd(kAcceptInput, rd, t->output_node));
  cmd.push_back(Cmd(kAllocMatrix, ad));
  cmd.push_back(Cmd(0.0, kSetConst, ad));  // allocation is undefined
  cmd.push_back(Cmd(kBackprop, t->relu, 0, 0, r, rd, ad, 0));
  cmd.push_back(Cmd(kAllocMatrix, xd));
  cmd.push_back(Cmd(0.0, kSetConst, xd));  // allocation is undefined
  cmd.push_back(Cmd(backprop_type, t->affine, 0, xp, 0, ad, xd, 0));
  cmd.push_back(Cmd(kAllocMatrix, ind));
  cmd.push_back(Cmd(0.0, kSetConst, ind));  // allocation is undefined
  cmd.push_back(Cmd(kCopyRows, ind, xd, 2));
  cmd.push_back(Cmd(kProvideOutput, ind, t->input_node));
}

struct NaiveResult {
  Mat xp, a, r, ad, xd, ind;
  Mat new_linear;               // W + lr * ad^T xp
  std::vector<double> new_bias; // b + lr * colsum(ad)
};

NaiveResult NaiveTraining(const CuMatrixBase<BaseFloat> &xm,
                          const CuMatrixBase<BaseFloat> &dm,
                          const AffineComponent &affine) {
  Mat x = ToMat(xm), d = ToMat(dm);
  Mat w = ToMat(affine.LinearParams());
  std::vector<double> b(affine.BiasParams().Dim());
  for (size_t i = 0; i < b.size(); i++) b[i] = affine.BiasParams().Vec()(i);
  double lr = affine.LearningRate();
  NaiveResult n;
  Mat &xp = n.xp;
  xp = Zeros(6, 4);
  for (int j = 0; j < 4; j++) xp[5][j] = 0.25;
  for (int r = 0; r < 5; r++)
    for (int j = 0; j < 4; j++)
      xp[r][j] = (kCopyIdx[r] == -1 ? 0.0 : 2.0 * x[kCopyIdx[r]][j]);
  for (int r = 0; r < 6; r++)
    if (kAddIdx[r] != -1)
      for (int j = 0; j < 4; j++) xp[r][j] += 0.5 * x[kAddIdx[r]][j];
  // kAddRowsMulti, alpha -1: rows X0, -, X3 (row 1 of rows 2..4), X4, X2, -.
  const int multi_src[6] = {0, -1, 3, 4, 2, -1};
  for (int r = 0; r < 6; r++)
    if (multi_src[r] != -1)
      for (int j = 0; j < 4; j++) xp[r][j] -= x[multi_src[r]][j];
  for (int r = 0; r < 6; r++)
    for (int k = kRanges1[r].first; k < kRanges1[r].second; k++)
      for (int j = 0; j < 4; j++) xp[r][j] += x[k][j];
  for (int r = 0; r < 6; r++)
    for (int k = kRanges2[r].first; k < kRanges2[r].second; k++)
      for (int j = 0; j < 2; j++) xp[r][1 + j] += 0.5 * x[k][j];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) xp[4 + i][2 + j] = 1.5 * x[i][1 + j];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) xp[i][j] -= 0.25 * x[1 + i][j];
  // Z: kSetConst 7, then kCopyRowsMulti overwrites every row.
  Mat z = Zeros(6, 4);
  const int copy_multi_src[6] = {1, -1, 4, 0, -1, 2};
  for (int r = 0; r < 6; r++)
    for (int j = 0; j < 4; j++)
      z[r][j] = (copy_multi_src[r] == -1 ? 0.0 : x[copy_multi_src[r]][j]);
  for (int j = 0; j < 4; j++) {
    z[1][j] = x[0][j];                           // kCopyToRowsMulti
    z[4][j] += 0.5 * x[0][j] + 0.5 * x[1][j];    // kAddToRowsMulti
    z[0][j] += 0.5 * x[3][j];
    z[2][j] += 0.5 * x[4][j];
    z[5][j] = 3.0 * x[2][j];                     // kCopyToRowsMulti, alpha 3
  }
  for (int r = 0; r < 6; r++)
    for (int j = 0; j < 4; j++) xp[r][j] += z[r][j];

  n.a = Zeros(6, 3);
  n.r = Zeros(6, 3);
  for (int r = 0; r < 6; r++)
    for (int o = 0; o < 3; o++) {
      double s = b[o];
      for (int j = 0; j < 4; j++) s += w[o][j] * xp[r][j];
      n.a[r][o] = s;
      n.r[r][o] = std::max(s, 0.0);
    }
  n.ad = Zeros(6, 3);
  for (int r = 0; r < 6; r++)
    for (int o = 0; o < 3; o++) n.ad[r][o] = (n.r[r][o] > 0 ? d[r][o] : 0.0);
  n.xd = Zeros(6, 4);
  for (int r = 0; r < 6; r++)
    for (int j = 0; j < 4; j++)
      for (int o = 0; o < 3; o++) n.xd[r][j] += n.ad[r][o] * w[o][j];
  n.ind = Zeros(5, 4);
  for (int r = 0; r < 5; r++) n.ind[r] = n.xd[kDerivIdx[r]];
  n.new_linear = w;
  n.new_bias = b;
  for (int o = 0; o < 3; o++)
    for (int r = 0; r < 6; r++) {
      n.new_bias[o] += lr * n.ad[r][o];
      for (int j = 0; j < 4; j++) n.new_linear[o][j] += lr * n.ad[r][o] * xp[r][j];
    }
  return n;
}

const AffineComponent &GetAffine(const Nnet &nnet) {
  const AffineComponent *a = dynamic_cast<const AffineComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex("affine1")));
  EXPECT_NE(a, nullptr);
  return *a;
}

const RectifiedLinearComponent &GetRelu(const Nnet &nnet) {
  const RectifiedLinearComponent *r =
      dynamic_cast<const RectifiedLinearComponent *>(
          nnet.GetComponent(nnet.GetComponentIndex("relu1")));
  EXPECT_NE(r, nullptr);
  return *r;
}

void ExpectAffineParams(const AffineComponent &affine, const Mat &linear,
                        const std::vector<double> &bias) {
  ExpectMatNear(affine.LinearParams(), linear);
  ASSERT_EQ(affine.BiasParams().Dim(), static_cast<int32>(bias.size()));
  for (size_t i = 0; i < bias.size(); i++)
    EXPECT_NEAR(affine.BiasParams().Vec()(i), bias[i], 1.0e-4 * (1 + std::fabs(bias[i])));
}

Mat AffineLinear(const Nnet &nnet) { return ToMat(GetAffine(nnet).LinearParams()); }
std::vector<double> AffineBias(const Nnet &nnet) {
  const AffineComponent &a = GetAffine(nnet);
  std::vector<double> b(a.BiasParams().Dim());
  for (size_t i = 0; i < b.size(); i++) b[i] = a.BiasParams().Vec()(i);
  return b;
}

TEST(NnetComputer, ForwardBackwardWithModelUpdateMatchesNaive) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  Nnet delta(nnet);  // receives the update (and the statistics)
  TrainingComputation t;
  BuildTrainingComputation(nnet, kBackprop, true, &t);
  CuMatrix<BaseFloat> x = RandMatrix(5, 4, 1), d = RandMatrix(6, 3, 2);
  NaiveResult naive = NaiveTraining(x, d, GetAffine(nnet));
  // Both signs occur at the ReLU, so its backprop is exercised.
  int positive = 0;
  for (const auto &row : naive.r)
    for (double v : row) positive += (v > 0);
  ASSERT_GT(positive, 2);
  ASSERT_LT(positive, 16);
  Mat linear_before = AffineLinear(nnet);
  std::vector<double> bias_before = AffineBias(nnet);

  NnetComputer computer(NnetComputeOptions(), t.computation, nnet, &delta);
  CuMatrix<BaseFloat> input(x);
  computer.AcceptInput("input", &input);
  EXPECT_EQ(input.NumRows(), 0);  // swapped in
  computer.Run();  // forward; stops where the output derivative is needed
  ExpectMatNear(computer.GetOutput("output"), naive.r);
  ExpectUserError([&]() { computer.GetInputDeriv("input"); },
                  {"derivative for input 'input'", "not provided"});
  // The statistics went to the network being updated.
  EXPECT_EQ(GetRelu(delta).Count(), 6.0);
  EXPECT_EQ(GetRelu(nnet).Count(), 0.0);

  // Running again without the derivative is an error naming the output.
  ExpectUserError([&]() { computer.Run(); },
                  {"derivative for output 'output'", "was not provided"});
  CuMatrix<BaseFloat> deriv(d);
  computer.AcceptOutputDeriv("output", &deriv);
  computer.Run();
  ExpectMatNear(computer.GetInputDeriv("input"), naive.ind);
  ExpectMatNear(computer.GetOutput("input"), naive.ind);
  ExpectMatNear(computer.GetOutput("output"), naive.r);

  // Plain SGD on the copy; the network itself is unchanged.
  ExpectAffineParams(GetAffine(delta), naive.new_linear, naive.new_bias);
  ExpectAffineParams(GetAffine(nnet), linear_before, bias_before);

  ExpectUserError([&]() { computer.Run(); }, {"finished"});
}

TEST(NnetComputer, BackpropWithoutModelUpdate) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  CuMatrix<BaseFloat> x = RandMatrix(5, 4, 3), d = RandMatrix(6, 3, 4);
  NaiveResult naive = NaiveTraining(x, d, GetAffine(nnet));
  Mat linear_before = AffineLinear(nnet);
  std::vector<double> bias_before = AffineBias(nnet);
  // kBackpropNoModelUpdate and no network to update; the inputs and the
  // output derivative are all supplied up front, so one Run() does it all.
  {
    TrainingComputation t;
    BuildTrainingComputation(nnet, kBackpropNoModelUpdate, false, &t);
    NnetComputer computer(NnetComputeOptions(), t.computation, nnet, nullptr);
    CuMatrix<BaseFloat> input(x), deriv(d);
    computer.AcceptInput("input", &input);
    computer.AcceptInput("output", &deriv);  // an output name: a derivative
    computer.Run();
    ExpectMatNear(computer.GetOutput("output"), naive.r);
    ExpectMatNear(computer.GetInputDeriv("input"), naive.ind);
    ExpectAffineParams(GetAffine(nnet), linear_before, bias_before);
  }
  // kBackprop without need_model_derivative: the updatable component is
  // left alone even though a network to update is given.
  {
    TrainingComputation t;
    BuildTrainingComputation(nnet, kBackprop, false, &t);
    Nnet delta(nnet);
    NnetComputer computer(NnetComputeOptions(), t.computation, nnet, &delta);
    std::vector<std::pair<std::string, CuMatrix<BaseFloat> > > io = {
        {"input", x}, {"output", d}};  // the output entry is skipped
    computer.AcceptInputs(nnet, io);
    computer.Run();
    CuMatrix<BaseFloat> deriv(d);
    computer.AcceptOutputDeriv("output", &deriv);
    computer.Run();
    ExpectMatNear(computer.GetInputDeriv("input"), naive.ind);
    ExpectAffineParams(GetAffine(delta), linear_before, bias_before);
  }
  // need_model_derivative without a network to update is an error.
  {
    TrainingComputation t;
    BuildTrainingComputation(nnet, kBackprop, true, &t);
    NnetComputer computer(NnetComputeOptions(), t.computation, nnet, nullptr);
    CuMatrix<BaseFloat> input(x), deriv(d);
    computer.AcceptInput("input", &input);
    computer.AcceptOutputDeriv("output", &deriv);
    ExpectUserError([&]() { computer.Run(); },
                    {"no network to update", "kBackprop"});
  }
}

TEST(NnetComputer, StatsGoToTheNetworkItselfWithTheNonConstConstructor) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  TrainingComputation t;
  BuildTrainingComputation(nnet, kBackpropNoModelUpdate, false, &t);
  NnetComputer computer(NnetComputeOptions(), t.computation, &nnet, nullptr);
  CuMatrix<BaseFloat> input = RandMatrix(5, 4, 5);
  computer.AcceptInput("input", &input);
  computer.Run();
  EXPECT_EQ(GetRelu(nnet).Count(), 6.0);
}

TEST(NnetComputer, GetOutputDestructive) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  TrainingComputation t;
  BuildTrainingComputation(nnet, kBackpropNoModelUpdate, false, &t);
  CuMatrix<BaseFloat> x = RandMatrix(5, 4, 6), d = RandMatrix(6, 3, 7);
  NaiveResult naive = NaiveTraining(x, d, GetAffine(nnet));
  NnetComputer computer(NnetComputeOptions(), t.computation, nnet, nullptr);
  computer.AcceptInput("input", &x);
  computer.Run();
  CuMatrix<BaseFloat> out(2, 2);
  computer.GetOutputDestructive("output", &out);
  ExpectMatNear(out, naive.r);
  ExpectUserError([&]() { computer.GetOutput("output"); }, {"'output'"});
}

// ---- Errors ------------------------------------------------------------------

TEST(NnetComputer, MissingInputsAreErrorsNamingTheNode) {
  Nnet nnet = MakeNnet(
      "input-node name=input dim=4\n"
      "input-node name=ivector dim=2\n"
      "component name=affine1 type=AffineComponent input-dim=6 output-dim=3\n"
      "component-node name=affine1 component=affine1 "
      "input=Append(input, ivector)\n"
      "output-node name=output input=affine1\n");
  NnetComputation c;
  int32 in = c.NewMatrix(5, 4), iv = c.NewMatrix(5, 2), all = c.NewMatrix(5, 6),
        out = c.NewMatrix(5, 3);
  int32 affine = nnet.GetComponentIndex("affine1");
  c.commands.push_back(Cmd(kAcceptInput, in, nnet.GetNodeIndex("input")));
  c.commands.push_back(Cmd(kAcceptInput, iv, nnet.GetNodeIndex("ivector")));
  c.commands.push_back(Cmd(kAllocMatrix, all));
  c.commands.push_back(Cmd(kMatrixCopy, c.NewSubMatrix(all, 0, 5, 0, 4), in));
  c.commands.push_back(Cmd(kMatrixCopy, c.NewSubMatrix(all, 0, 5, 4, 2), iv));
  c.commands.push_back(Cmd(kAllocMatrix, out));
  c.commands.push_back(Cmd(kPropagate, affine, 0, all, out, 0, 0));
  c.commands.push_back(Cmd(kProvideOutput, out, nnet.GetNodeIndex("output")));
  {
    NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
    ExpectUserError([&]() { computer.Run(); }, {"input 'input'", "not provided"});
  }
  {
    NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
    CuMatrix<BaseFloat> x = RandMatrix(5, 4, 8);
    computer.AcceptInput("input", &x);
    ExpectUserError([&]() { computer.Run(); },
                    {"input 'ivector'", "not provided"});
  }
  {
    NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
    CuMatrix<BaseFloat> x = RandMatrix(5, 4, 8), v = RandMatrix(5, 2, 9);
    computer.AcceptInput("input", &x);
    computer.AcceptInput("ivector", &v);
    computer.Run();
    EXPECT_EQ(computer.GetOutput("output").NumRows(), 5);
    // The computation never takes a derivative for the output.
    CuMatrix<BaseFloat> deriv(5, 3);
    ExpectUserError([&]() { computer.AcceptOutputDeriv("output", &deriv); },
                    {"does not take", "derivative for output 'output'"});
    ExpectUserError([&]() { computer.GetOutput("nosuchnode"); },
                    {"'nosuchnode'"});
    ExpectUserError([&]() { computer.GetOutput("ivector"); },
                    {"derivative for input 'ivector'", "not provided"});
    ExpectUserError([&]() { computer.GetInputDeriv("output"); },
                    {"'output'", "not an input node"});
  }
}

TEST(NnetComputer, WrongInputShapeIsAnErrorNamingNodeAndShapes) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  TrainingComputation t;
  BuildTrainingComputation(nnet, kBackpropNoModelUpdate, false, &t);
  NnetComputer computer(NnetComputeOptions(), t.computation, nnet, nullptr);
  CuMatrix<BaseFloat> bad(4, 4);
  ExpectUserError([&]() { computer.AcceptInput("input", &bad); },
                  {"input 'input'", "5 x 4", "4 x 4"});
  EXPECT_EQ(bad.NumRows(), 4);  // left alone
  CuMatrix<BaseFloat> bad_deriv(6, 2);
  ExpectUserError([&]() { computer.AcceptOutputDeriv("output", &bad_deriv); },
                  {"derivative for output 'output'", "6 x 3", "6 x 2"});
  CuMatrix<BaseFloat> x(5, 4), x2(5, 4);
  computer.AcceptInput("input", &x);
  ExpectUserError([&]() { computer.AcceptInput("input", &x2); },
                  {"input 'input'", "twice"});
  CuMatrix<BaseFloat> y(5, 4);
  ExpectUserError([&]() { computer.AcceptInput("nosuchnode", &y); },
                  {"'nosuchnode'"});
  ExpectUserError([&]() { computer.AcceptInput("affine1", &y); },
                  {"'affine1'", "neither an input nor an output"});
}

TEST(NnetComputer, UsingAnUnallocatedMatrixIsAnErrorNamingTheCommand) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  NnetComputation c;
  int32 in = c.NewMatrix(2, 4), other = c.NewMatrix(2, 4);
  c.commands.push_back(Cmd(kAcceptInput, in, nnet.GetNodeIndex("input")));
  c.commands.push_back(Cmd(kMatrixCopy, other, in));
  NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
  CuMatrix<BaseFloat> x(2, 4);
  computer.AcceptInput("input", &x);
  ExpectUserError([&]() { computer.Run(); },
                  {"c1", "kMatrixCopy", "not allocated"});
}

// ---- Memos ---------------------------------------------------------------------

struct MemoTestMemo {
  double in_sum;
};
int g_memos_deleted = 0;
double g_backprop_memo_sum = 0.0;

// out = 2 * in; the memo holds the sum of the input, which Backprop records.
class MemoTestComponent : public Component {
 public:
  explicit MemoTestComponent(int32 dim) : dim_(dim) {}
  void *Propagate(const ComponentPrecomputedIndexes *,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override {
    out->CopyFromMat(in);
    out->Scale(2.0);
    return new MemoTestMemo{in.Sum()};
  }
  void Backprop(const std::string &, const ComponentPrecomputedIndexes *,
                const CuMatrixBase<BaseFloat> &,
                const CuMatrixBase<BaseFloat> &,
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,
                Component *, CuMatrixBase<BaseFloat> *in_deriv) const override {
    EXPECT_NE(memo, nullptr);
    if (memo != nullptr)
      g_backprop_memo_sum = static_cast<MemoTestMemo *>(memo)->in_sum;
    if (in_deriv != nullptr) in_deriv->AddMat(2.0, out_deriv);
  }
  void DeleteMemo(void *memo) const override {
    delete static_cast<MemoTestMemo *>(memo);
    g_memos_deleted++;
  }
  std::string Type() const override { return "MemoTestComponent"; }
  void InitFromConfig(ConfigLine *) override {}
  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  int32 Properties() const override {
    return kSimpleComponent | kUsesMemo | kBackpropAdds;
  }
  Component *Copy() const override { return new MemoTestComponent(dim_); }
  void Read(std::istream &, bool) override {}
  void Write(std::ostream &, bool) const override {}

 private:
  int32 dim_;
};

struct MemoSetup {
  Nnet nnet;
  NnetComputation computation;
};

// input (2 x 3) -> memo component -> output; backprop takes memo 1.
// memo_index 0 means the forward pass does not keep the memo.
void BuildMemoSetup(int32 memo_index, MemoSetup *s) {
  s->nnet = MakeNnet(
      "input-node name=input dim=3\n"
      "component name=m type=RectifiedLinearComponent dim=3\n"
      "component-node name=m component=m input=input\n"
      "output-node name=output input=m\n");
  int32 comp = s->nnet.GetComponentIndex("m");
  s->nnet.SetComponent(comp, new MemoTestComponent(3));
  NnetComputation &c = s->computation;
  int32 in = c.NewMatrix(2, 3), out = c.NewMatrix(2, 3), od = c.NewMatrix(2, 3),
        id = c.NewMatrix(2, 3);
  int32 input = s->nnet.GetNodeIndex("input"),
        output = s->nnet.GetNodeIndex("output");
  c.commands.push_back(Cmd(kAcceptInput, in, input));
  c.commands.push_back(Cmd(kAllocMatrix, out));
  c.commands.push_back(Cmd(0.0, kSetConst, out));  // allocation is undefined
  c.commands.push_back(Cmd(kPropagate, comp, 0, in, out, memo_index, 0));
  c.commands.push_back(Cmd(kProvideOutput, out, output));
  c.commands.push_back(Cmd(kNoOperationMarker));
  c.commands.push_back(Cmd(kAcceptInput, od, output));
  c.commands.push_back(Cmd(kAllocMatrix, id));
  c.commands.push_back(Cmd(0.0, kSetConst, id));  // allocation is undefined
  c.commands.push_back(
      Cmd(kBackpropNoModelUpdate, comp, 0, 0, 0, od, id, memo_index));
  c.commands.push_back(Cmd(kProvideOutput, id, input));
}

TEST(NnetComputer, MemosArePassedToBackpropAndDeleted) {
  MemoSetup s;
  BuildMemoSetup(1, &s);
  CuMatrix<BaseFloat> x = RandMatrix(2, 3, 10), d = RandMatrix(2, 3, 11);
  double x_sum = x.Sum();
  g_memos_deleted = 0;
  g_backprop_memo_sum = 0.0;
  {
    NnetComputer computer(NnetComputeOptions(), s.computation, s.nnet, nullptr);
    CuMatrix<BaseFloat> input(x), deriv(d);
    computer.AcceptInput("input", &input);
    computer.Run();
    EXPECT_EQ(g_memos_deleted, 0);  // kept for the backprop
    computer.AcceptOutputDeriv("output", &deriv);
    computer.Run();
    EXPECT_EQ(g_memos_deleted, 1);
    EXPECT_NEAR(g_backprop_memo_sum, x_sum, 1.0e-5);
    Mat expected = ToMat(d);
    for (auto &row : expected)
      for (double &v : row) v *= 2.0;
    ExpectMatNear(computer.GetInputDeriv("input"), expected);
  }
  EXPECT_EQ(g_memos_deleted, 1);
  // A memo left over (the backward pass never ran) is freed by the
  // destructor.
  g_memos_deleted = 0;
  {
    NnetComputer computer(NnetComputeOptions(), s.computation, s.nnet, nullptr);
    CuMatrix<BaseFloat> input(x);
    computer.AcceptInput("input", &input);
    computer.Run();
    EXPECT_EQ(g_memos_deleted, 0);
  }
  EXPECT_EQ(g_memos_deleted, 1);
}

TEST(NnetComputer, MemoNotKeptIsDeletedAtOnce) {
  MemoSetup s;
  BuildMemoSetup(0, &s);
  g_memos_deleted = 0;
  NnetComputer computer(NnetComputeOptions(), s.computation, s.nnet, nullptr);
  CuMatrix<BaseFloat> input = RandMatrix(2, 3, 12);
  computer.AcceptInput("input", &input);
  computer.Run();
  EXPECT_EQ(g_memos_deleted, 1);
}

// ---- Looped computations ---------------------------------------------------

TEST(NnetComputer, GotoLabelRerunsTheSegmentForEachNewInput) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  NnetComputation c;
  int32 acc = c.NewMatrix(3, 4), in = c.NewMatrix(3, 4);
  int32 input = nnet.GetNodeIndex("input"), output = nnet.GetNodeIndex("output");
  c.commands.push_back(Cmd(kAllocMatrix, acc));
  c.commands.push_back(Cmd(0.0, kSetConst, acc));  // allocation is undefined
  c.commands.push_back(Cmd(kNoOperationLabel));
  c.commands.push_back(Cmd(kAcceptInput, in, input));
  c.commands.push_back(Cmd(0.5, kMatrixAdd, acc, in));
  c.commands.push_back(Cmd(kProvideOutput, acc, output));
  c.commands.push_back(Cmd(kGotoLabel, 2));
  NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
  Mat expected = Zeros(3, 4);
  for (int iter = 0; iter < 4; iter++) {
    CuMatrix<BaseFloat> x = RandMatrix(3, 4, 20 + iter);
    for (int r = 0; r < 3; r++)
      for (int j = 0; j < 4; j++) expected[r][j] += 0.5 * x.Mat()(r, j);
    computer.AcceptInput("input", &x);
    computer.Run();
    ExpectMatNear(computer.GetOutput("output"), expected);
  }
  // Without a new input there is nothing to do.
  ExpectUserError([&]() { computer.Run(); }, {"input 'input'", "not provided"});
}

TEST(NnetComputer, GotoMustTargetALabel) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  NnetComputation c;
  int32 m = c.NewMatrix(1, 1);
  c.commands.push_back(Cmd(kAllocMatrix, m));
  c.commands.push_back(Cmd(kGotoLabel, 0));
  NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
  ExpectUserError([&]() { computer.Run(); }, {"c1", "kNoOperationLabel"});
}

// ---- Other commands ----------------------------------------------------------

TEST(NnetComputer, SwapDeallocAndContiguousInputs) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  NnetComputation c;
  // A contiguous input matrix with 3 columns: the supplied matrix (whose
  // stride is padded) is copied, not swapped in.
  int32 in = c.NewMatrix(5, 3, kStrideEqualNumCols), a = c.NewMatrix(5, 3),
        b = c.NewMatrix(5, 3);
  int32 input = nnet.GetNodeIndex("input"), output = nnet.GetNodeIndex("output");
  c.commands.push_back(Cmd(kAcceptInput, in, input));
  c.commands.push_back(Cmd(kAllocMatrix, a));
  c.commands.push_back(Cmd(kMatrixCopy, a, in));
  c.commands.push_back(Cmd(kSwapMatrix, a, b));  // b holds the copy, a empty
  c.commands.push_back(Cmd(kProvideOutput, b, output));
  c.commands.push_back(Cmd(kDeallocMatrix, in));
  NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
  CuMatrix<BaseFloat> x = RandMatrix(5, 3, 30);
  ASSERT_NE(x.Stride(), x.NumCols());
  Mat expected = ToMat(x);
  computer.AcceptInput("input", &x);
  computer.Run();
  ExpectMatNear(computer.GetOutput("output"), expected);
}

TEST(NnetComputer, CompressionStoresQuantizedValues) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  NnetComputation c;
  int32 in = c.NewMatrix(4, 4), m16 = c.NewMatrix(4, 4), m8 = c.NewMatrix(4, 4),
        sign = c.NewMatrix(4, 4), sign8 = c.NewMatrix(4, 4),
        out = c.NewMatrix(4, 16);
  int32 input = nnet.GetNodeIndex("input"), output = nnet.GetNodeIndex("output");
  c.commands.push_back(Cmd(kAcceptInput, in, input));
  for (int32 s : {m16, m8, sign, sign8}) {
    c.commands.push_back(Cmd(kAllocMatrix, s));
    c.commands.push_back(Cmd(kMatrixCopy, s, in));
  }
  // int16 with range 4 (no truncation needed), int8 with range 1 and
  // truncation, uint8 and int8 with range 0: the sign only (-1 kept by the
  // signed type).
  c.commands.push_back(Cmd(4.0, kCompressMatrix, m16, 3, 0));
  c.commands.push_back(Cmd(1.0, kCompressMatrix, m8, 1, 1));
  c.commands.push_back(Cmd(0.0, kCompressMatrix, sign, 2, 1));
  c.commands.push_back(Cmd(0.0, kCompressMatrix, sign8, 1, 1));
  c.commands.push_back(Cmd(kDecompressMatrix, m16));
  c.commands.push_back(Cmd(kDecompressMatrix, m8));
  c.commands.push_back(Cmd(kDecompressMatrix, sign));
  c.commands.push_back(Cmd(kDecompressMatrix, sign8));
  c.commands.push_back(Cmd(kAllocMatrix, out));
  c.commands.push_back(Cmd(kMatrixCopy, c.NewSubMatrix(out, 0, 4, 0, 4), m16));
  c.commands.push_back(Cmd(kMatrixCopy, c.NewSubMatrix(out, 0, 4, 4, 4), m8));
  c.commands.push_back(Cmd(kMatrixCopy, c.NewSubMatrix(out, 0, 4, 8, 4), sign));
  c.commands.push_back(
      Cmd(kMatrixCopy, c.NewSubMatrix(out, 0, 4, 12, 4), sign8));
  c.commands.push_back(Cmd(kProvideOutput, out, output));
  CuMatrix<BaseFloat> x = RandMatrix(4, 4, 40);
  x.Mat()(0, 0) = 3.0;    // saturates in the int8 copy
  x.Mat()(1, 1) = -2.5;
  x.Mat()(2, 2) = 0.0;
  Mat expected = Zeros(4, 16);
  for (int r = 0; r < 4; r++)
    for (int j = 0; j < 4; j++) {
      // value = scale * round(x / scale), scale = range / max-integer,
      // with the division done as a multiplication by the float inverse.
      float v = x.Mat()(r, j);
      float s16 = 4.0f / 32767.0f, s8 = 1.0f / 127.0f;
      float inv16 = static_cast<float>(1.0 / s16),
            inv8 = static_cast<float>(1.0 / s8);
      expected[r][j] = s16 * std::nearbyint(v * inv16);
      double q8 = std::nearbyint(v * inv8);
      q8 = std::min(127.0, std::max(-128.0, q8));
      expected[r][4 + j] = s8 * q8;
      expected[r][8 + j] = (v > 0 ? 1.0 : 0.0);
      expected[r][12 + j] = (v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0));
    }
  NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
  computer.AcceptInput("input", &x);
  computer.Run();
  ExpectMatNear(computer.GetOutput("output"), expected, 1.0e-5);
  EXPECT_NEAR(computer.GetOutput("output").Mat()(0, 4), 1.0, 1.0e-6);
  EXPECT_NEAR(computer.GetOutput("output").Mat()(1, 5), -128.0 / 127.0, 1.0e-6);
}

TEST(NnetComputer, CompressedMatrixCannotBeUsedUntilDecompressed) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  NnetComputation c;
  int32 in = c.NewMatrix(2, 4), m = c.NewMatrix(2, 4);
  c.commands.push_back(Cmd(kAcceptInput, in, nnet.GetNodeIndex("input")));
  c.commands.push_back(Cmd(1.0, kCompressMatrix, in, 3, 1));
  c.commands.push_back(Cmd(kAllocMatrix, m));
  c.commands.push_back(Cmd(kMatrixCopy, m, in));
  NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
  CuMatrix<BaseFloat> x(2, 4);
  computer.AcceptInput("input", &x);
  ExpectUserError([&]() { computer.Run(); }, {"c3", "not allocated"});

  NnetComputation bad;
  in = bad.NewMatrix(2, 4);
  bad.commands.push_back(Cmd(kAcceptInput, in, nnet.GetNodeIndex("input")));
  bad.commands.push_back(Cmd(1.0, kCompressMatrix, in, 7, 1));
  NnetComputer computer2(NnetComputeOptions(), bad, nnet, nullptr);
  CuMatrix<BaseFloat> y(2, 4);
  computer2.AcceptInput("input", &y);
  ExpectUserError([&]() { computer2.Run(); }, {"c1", "compression type 7"});
}

// ---- Debug mode ---------------------------------------------------------------

struct CaptureLog {
  std::vector<std::string> lines;
  LogHandler old;
  CaptureLog() {
    old = SetLogHandler(
        [this](int, const std::string &l) { lines.push_back(l); });
  }
  ~CaptureLog() { SetLogHandler(old); }
};

TEST(NnetComputer, DebugModeLogsCommandsAndCatchesNonFiniteValues) {
  Nnet nnet = MakeNnet(kAffineReluConfig);
  NnetComputeOptions debug_opts;
  debug_opts.debug = true;
  {
    TrainingComputation t;
    BuildTrainingComputation(nnet, kBackpropNoModelUpdate, false, &t);
    CaptureLog cap;
    NnetComputer computer(debug_opts, t.computation, nnet, nullptr);
    CuMatrix<BaseFloat> x = RandMatrix(5, 4, 50);
    computer.AcceptInput("input", &x);
    computer.Run();
    bool saw_propagate = false, saw_accept = false;
    for (const std::string &l : cap.lines) {
      if (l.find(": kPropagate of component 'affine1'") != std::string::npos)
        saw_propagate = true;
      if (l.find("c0: kAcceptInput") != std::string::npos) saw_accept = true;
    }
    EXPECT_TRUE(saw_propagate);
    EXPECT_TRUE(saw_accept);
  }
  NnetComputation c;
  int32 in = c.NewMatrix(2, 4), m = c.NewMatrix(2, 4);
  c.commands.push_back(Cmd(kAcceptInput, in, nnet.GetNodeIndex("input")));
  c.commands.push_back(Cmd(kAllocMatrix, m));
  c.commands.push_back(
      Cmd(std::numeric_limits<BaseFloat>::infinity(), kSetConst,
          c.NewSubMatrix(m, 1, 1, 0, 4)));
  {
    CaptureLog cap;
    NnetComputer computer(debug_opts, c, nnet, nullptr);
    CuMatrix<BaseFloat> x(2, 4);
    computer.AcceptInput("input", &x);
    ExpectUserError([&]() { computer.Run(); },
                    {"NaN or infinity", "c2", "kSetConst"});
  }
  {
    // NaN in the input is caught where it is accepted.
    CaptureLog cap;
    NnetComputer computer(debug_opts, c, nnet, nullptr);
    CuMatrix<BaseFloat> x(2, 4);
    x.Mat()(1, 2) = std::numeric_limits<BaseFloat>::quiet_NaN();
    computer.AcceptInput("input", &x);
    ExpectUserError([&]() { computer.Run(); },
                    {"NaN or infinity", "c0", "kAcceptInput"});
  }
  {
    // Without debug the same computation runs.
    NnetComputer computer(NnetComputeOptions(), c, nnet, nullptr);
    CuMatrix<BaseFloat> x(2, 4);
    computer.AcceptInput("input", &x);
    computer.Run();
  }
}

TEST(NnetComputer, OptionsRegisterDebug) {
  NnetComputeOptions opts;
  ParseOptions po("usage");
  opts.Register(&po);
  const char *argv[] = {"prog", "--print-args=false", "--debug=true"};
  po.Read(3, argv);
  EXPECT_TRUE(opts.debug);
}

}  // namespace
}  // namespace nnet3
