// tests/nnet3/compile/shortcut-test.cc
// Shortcut compilation: RequestIsDecomposable() on hand-made regular and
// irregular requests, and, for several networks (feed-forward, TDNN,
// recurrent through IfDefined inside Sum and Append, iVector input, the
// descriptor zoo) and N in {3, 4, 7} with n-fastest, n-slowest and mixed
// layouts, the expanded computation is run next to the directly compiled
// one on the same inputs: outputs, input derivatives and model derivatives
// must agree. The random network generator adds ~50 more networks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/random.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/compile/shortcut.h"
#include "nnet3/components/component.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/nnet/nnet.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

enum Layout { kNFastest, kNSlowest };

// Indexes for t in [t_begin, t_end] and n in [0, num_n).
std::vector<Index> MakeIndexes(int32 t_begin, int32 t_end, int32 num_n,
                               Layout layout) {
  std::vector<Index> ans;
  if (layout == kNFastest) {
    for (int32 t = t_begin; t <= t_end; t++)
      for (int32 n = 0; n < num_n; n++) ans.push_back(Index(n, t));
  } else {
    for (int32 n = 0; n < num_n; n++)
      for (int32 t = t_begin; t <= t_end; t++) ans.push_back(Index(n, t));
  }
  return ans;
}

// ---- RequestIsDecomposable -------------------------------------------------

ComputationRequest SimpleRequest(int32 num_n, Layout in_layout,
                                 Layout out_layout) {
  ComputationRequest r;
  r.inputs.push_back(
      IoSpecification("input", MakeIndexes(-1, 3, num_n, in_layout), true));
  r.inputs.push_back(
      IoSpecification("ivector", MakeIndexes(0, 0, num_n, in_layout)));
  r.outputs.push_back(
      IoSpecification("output", MakeIndexes(0, 2, num_n, out_layout), true));
  r.need_model_derivative = true;
  return r;
}

TEST(RequestIsDecomposable, RegularLayouts) {
  for (int32 num_n : {3, 4, 9}) {
    for (Layout in_layout : {kNFastest, kNSlowest}) {
      for (Layout out_layout : {kNFastest, kNSlowest}) {
        ComputationRequest request = SimpleRequest(num_n, in_layout, out_layout);
        ComputationRequest mini;
        int32 n_values = -1;
        ASSERT_TRUE(RequestIsDecomposable(request, &mini, &n_values));
        EXPECT_EQ(n_values, num_n);
        ComputationRequest expected = SimpleRequest(2, in_layout, out_layout);
        EXPECT_TRUE(mini == expected);
      }
    }
  }
}

TEST(RequestIsDecomposable, MixedLayoutWithX) {
  // t outermost, then n, then x: the stride of n is the number of x values.
  auto make = [](int32 num_n) {
    std::vector<Index> v;
    for (int32 t = 0; t < 3; t++)
      for (int32 n = 0; n < num_n; n++)
        for (int32 x = 0; x < 2; x++) v.push_back(Index(n, t, x));
    return v;
  };
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", make(5)));
  request.outputs.push_back(IoSpecification("output", make(5)));
  ComputationRequest mini;
  int32 n_values = -1;
  ASSERT_TRUE(RequestIsDecomposable(request, &mini, &n_values));
  EXPECT_EQ(n_values, 5);
  EXPECT_EQ(mini.inputs[0].indexes, make(2));
  EXPECT_EQ(mini.outputs[0].indexes, make(2));
}

TEST(RequestIsDecomposable, IrregularRequests) {
  ComputationRequest mini;
  int32 n_values;
  // Too few sequences.
  for (int32 num_n : {1, 2})
    EXPECT_FALSE(RequestIsDecomposable(SimpleRequest(num_n, kNFastest, kNFastest),
                                       &mini, &n_values));
  // A missing (n, t).
  {
    ComputationRequest r = SimpleRequest(4, kNFastest, kNFastest);
    std::vector<Index> &v = r.inputs[0].indexes;
    v.erase(std::find(v.begin(), v.end(), Index(2, 1)));
    EXPECT_FALSE(RequestIsDecomposable(r, &mini, &n_values));
  }
  // n not starting at 0.
  {
    ComputationRequest r = SimpleRequest(4, kNSlowest, kNFastest);
    for (IoSpecification *io : {&r.inputs[0], &r.inputs[1], &r.outputs[0]})
      for (Index &i : io->indexes) i.n += 1;
    EXPECT_FALSE(RequestIsDecomposable(r, &mini, &n_values));
  }
  // Different numbers of sequences in the input and output.
  {
    ComputationRequest r = SimpleRequest(4, kNFastest, kNFastest);
    r.outputs[0].indexes = MakeIndexes(0, 2, 5, kNFastest);
    EXPECT_FALSE(RequestIsDecomposable(r, &mini, &n_values));
  }
  // Sequence n = 2 has different t values.
  {
    ComputationRequest r = SimpleRequest(3, kNSlowest, kNFastest);
    for (Index &i : r.inputs[0].indexes)
      if (i.n == 2) i.t += 1;
    EXPECT_FALSE(RequestIsDecomposable(r, &mini, &n_values));
  }
  // Two rows swapped (not a regular order).
  {
    ComputationRequest r = SimpleRequest(3, kNFastest, kNFastest);
    std::swap(r.outputs[0].indexes[3], r.outputs[0].indexes[4]);
    EXPECT_FALSE(RequestIsDecomposable(r, &mini, &n_values));
  }
  // Layout of the first block differs from the rest.
  {
    ComputationRequest r = SimpleRequest(3, kNFastest, kNFastest);
    std::vector<Index> v;
    for (int32 n = 0; n < 3; n++) v.push_back(Index(n, -1));
    for (int32 n = 0; n < 3; n++)
      for (int32 t = 0; t <= 3; t++) v.push_back(Index(n, t));
    r.inputs[0].indexes = v;
    EXPECT_FALSE(RequestIsDecomposable(r, &mini, &n_values));
  }
}

// ---- Running computations ---------------------------------------------------

struct RunResult {
  std::vector<Matrix<BaseFloat> > outputs;       // per request output
  std::vector<Matrix<BaseFloat> > input_derivs;  // per request input
  std::vector<Vector<BaseFloat> > deltas;        // per updatable component
};

bool WantsBackward(const ComputationRequest &request) {
  for (const IoSpecification &io : request.outputs)
    if (io.has_deriv) return true;
  return false;
}

void RunComputation(const Nnet &nnet, const ComputationRequest &request,
                    const NnetComputation &computation,
                    const std::vector<Matrix<BaseFloat> > &inputs,
                    const std::vector<Matrix<BaseFloat> > &output_derivs,
                    RunResult *result) {
  Nnet delta = MakeGradientNnet(nnet);
  ComputationResults results;
  RunComputationForTest(nnet, request, computation, inputs, output_derivs,
                        request.need_model_derivative ? &delta : nullptr,
                        &results);
  result->outputs = results.outputs;
  result->input_derivs.assign(request.inputs.size(), Matrix<BaseFloat>());
  for (size_t i = 0; i < results.input_derivs.size(); i++)
    result->input_derivs[i] = results.input_derivs[i];
  result->deltas.clear();
  if (!WantsBackward(request) || !request.need_model_derivative) return;
  for (int32 c = 0; c < delta.NumComponents(); c++) {
    const UpdatableComponent *u =
        dynamic_cast<const UpdatableComponent *>(delta.GetComponent(c));
    if (u == nullptr) continue;
    Vector<BaseFloat> params(u->NumParameters());
    u->Vectorize(&params);
    result->deltas.push_back(params);
  }
}

void ExpectMatricesClose(const MatrixBase<BaseFloat> &a,
                         const MatrixBase<BaseFloat> &b,
                         const std::string &what) {
  ASSERT_EQ(a.NumRows(), b.NumRows()) << what;
  ASSERT_EQ(a.NumCols(), b.NumCols()) << what;
  for (int32 r = 0; r < a.NumRows(); r++)
    for (int32 c = 0; c < a.NumCols(); c++)
      ASSERT_LE(std::fabs(a(r, c) - b(r, c)),
                1.0e-6 * std::max<double>(1.0, std::fabs(a(r, c))))
          << what << " at (" << r << ", " << c << "): " << a(r, c)
          << " vs " << b(r, c);
}

void ExpectResultsClose(const RunResult &a, const RunResult &b,
                        const std::string &what) {
  ASSERT_EQ(a.outputs.size(), b.outputs.size());
  for (size_t o = 0; o < a.outputs.size(); o++)
    ExpectMatricesClose(a.outputs[o], b.outputs[o],
                        what + ", output " + std::to_string(o));
  ASSERT_EQ(a.input_derivs.size(), b.input_derivs.size());
  for (size_t i = 0; i < a.input_derivs.size(); i++)
    ExpectMatricesClose(a.input_derivs[i], b.input_derivs[i],
                        what + ", input deriv " + std::to_string(i));
  ASSERT_EQ(a.deltas.size(), b.deltas.size());
  for (size_t c = 0; c < a.deltas.size(); c++) {
    ASSERT_EQ(a.deltas[c].Dim(), b.deltas[c].Dim());
    for (int32 k = 0; k < a.deltas[c].Dim(); k++)
      ASSERT_LE(std::fabs(a.deltas[c](k) - b.deltas[c](k)),
                1.0e-6 * std::max<double>(1.0, std::fabs(a.deltas[c](k))))
          << what << ", delta of updatable component " << c << " entry " << k;
  }
}

int64 TotalMatrixSize(const NnetComputation &c) {
  int64 ans = 0;
  for (const NnetComputation::MatrixInfo &m : c.matrices)
    ans += static_cast<int64>(m.num_rows) * m.num_cols;
  return ans;
}

// Compiles 'request' directly and through the shortcut, runs both on the
// same random inputs and compares. Returns whether the expansion was used
// (if require_expansion, it must be).
bool CheckShortcut(const Nnet &nnet, const ComputationRequest &request,
                   RandomSource *rng, bool require_expansion,
                   const std::string &what) {
  CompilerOptions opts;
  NnetComputation direct;
  CompileComputation(nnet, request, opts, &direct);

  ComputationRequest mini;
  int32 num_n = 0;
  bool decomposable = RequestIsDecomposable(request, &mini, &num_n);
  NnetComputation expanded;
  bool expanded_ok = false;
  if (decomposable) {
    NnetComputation mini_computation;
    CompileComputation(nnet, mini, opts, &mini_computation);
    expanded_ok = TryExpandComputation(nnet, request.misc_info,
                                       mini_computation, true, num_n,
                                       &expanded);
    if (expanded_ok) {
      EXPECT_EQ(TotalMatrixSize(expanded), TotalMatrixSize(direct)) << what;
      EXPECT_EQ(expanded.matrix_debug_info.size(), expanded.matrices.size());
      EXPECT_EQ(expanded.commands.size(), mini_computation.commands.size());
      // The compiler lays out the N-sequence matrices exactly as the
      // expansion does.
      EXPECT_EQ(expanded.matrices.size(), direct.matrices.size()) << what;
      size_t num_matrices =
          std::min(expanded.matrices.size(), direct.matrices.size());
      for (size_t m = 1; m < num_matrices; m++) {
        EXPECT_EQ(expanded.matrices[m].num_rows, direct.matrices[m].num_rows);
        EXPECT_EQ(expanded.matrices[m].num_cols, direct.matrices[m].num_cols);
        EXPECT_EQ(expanded.matrices[m].stride_type,
                  direct.matrices[m].stride_type);
        EXPECT_TRUE(expanded.matrix_debug_info[m].cindexes ==
                    direct.matrix_debug_info[m].cindexes)
            << what << ", matrix " << m;
        EXPECT_EQ(expanded.matrix_debug_info[m].is_deriv,
                  direct.matrix_debug_info[m].is_deriv);
      }
    }
  }
  if (require_expansion) {
    EXPECT_TRUE(decomposable) << what;
    EXPECT_TRUE(expanded_ok) << what;
  }

  // What the caching compiler would use; without debug info this time.
  CompilerOptions no_debug;
  no_debug.output_debug_info = false;
  NnetComputation shortcut;
  CompileWithShortcut(nnet, request, no_debug, &shortcut);
  EXPECT_TRUE(shortcut.matrix_debug_info.empty()) << what;
  EXPECT_EQ(TotalMatrixSize(shortcut), TotalMatrixSize(direct)) << what;
  if (expanded_ok) {
    EXPECT_EQ(shortcut.commands.size(), expanded.commands.size()) << what;
  }

  std::vector<Matrix<BaseFloat> > inputs, output_derivs;
  for (const IoSpecification &io : request.inputs)
    inputs.push_back(RandomGaussMatrix(static_cast<int32>(io.indexes.size()),
                                  nnet.InputDim(io.name), rng));
  for (const IoSpecification &io : request.outputs)
    output_derivs.push_back(RandomGaussMatrix(
        static_cast<int32>(io.indexes.size()), nnet.OutputDim(io.name), rng));
  RunResult direct_result, shortcut_result;
  RunComputation(nnet, request, direct, inputs, output_derivs, &direct_result);
  RunComputation(nnet, request, shortcut, inputs, output_derivs,
                 &shortcut_result);
  ExpectResultsClose(direct_result, shortcut_result, what);
  if (expanded_ok) {
    RunResult expanded_result;
    RunComputation(nnet, request, expanded, inputs, output_derivs,
                   &expanded_result);
    ExpectResultsClose(direct_result, expanded_result, what + " (expanded)");
  }
  return expanded_ok;
}

struct TestNet {
  const char *name;
  const char *config;
  int32 input_left, input_right;  // input t range relative to [0, T)
  bool has_ivector;
};

const TestNet kTestNets[] = {
    {"feedforward",
     "input-node name=input dim=5\n"
     "component name=affine1 type=AffineComponent input-dim=5 output-dim=7\n"
     "component-node name=affine1 component=affine1 input=input\n"
     "component name=relu1 type=RectifiedLinearComponent dim=7\n"
     "component-node name=relu1 component=relu1 input=affine1\n"
     "component name=affine2 type=AffineComponent input-dim=7 output-dim=4\n"
     "component-node name=affine2 component=affine2 input=relu1\n"
     "component name=softmax type=SoftmaxComponent dim=4\n"
     "component-node name=softmax component=softmax input=affine2\n"
     "output-node name=output input=softmax\n",
     0, 0, false},
    {"tdnn",
     "input-node name=input dim=4\n"
     "component name=affine1 type=AffineComponent input-dim=12 output-dim=6\n"
     "component-node name=affine1 component=affine1 "
     "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
     "component name=relu1 type=RectifiedLinearComponent dim=6\n"
     "component-node name=relu1 component=relu1 input=affine1\n"
     "component name=affine2 type=AffineComponent input-dim=18 output-dim=5\n"
     "component-node name=affine2 component=affine2 "
     "input=Append(Offset(relu1, -2), relu1, Offset(relu1, 2))\n"
     "component name=logsoftmax type=LogSoftmaxComponent dim=5\n"
     "component-node name=logsoftmax component=logsoftmax input=affine2\n"
     "output-node name=output input=logsoftmax\n",
     3, 3, false},
    {"rnn-append",
     "input-node name=input dim=4\n"
     "component name=affine type=AffineComponent input-dim=10 output-dim=6\n"
     "component-node name=affine component=affine "
     "input=Append(input, IfDefined(Offset(h, -1)))\n"
     "component name=tanh type=TanhComponent dim=6\n"
     "component-node name=h component=tanh input=affine\n"
     "output-node name=output input=h\n",
     0, 0, false},
    {"rnn-sum",
     "input-node name=input dim=3\n"
     "component name=a1 type=AffineComponent input-dim=3 output-dim=5\n"
     "component-node name=a1 component=a1 input=input\n"
     "component name=r type=TanhComponent dim=5\n"
     "component-node name=r component=r "
     "input=Sum(a1, IfDefined(Offset(rec, -1)))\n"
     "component name=rec type=AffineComponent input-dim=5 output-dim=5\n"
     "component-node name=rec component=rec input=r\n"
     "component name=out type=AffineComponent input-dim=10 output-dim=2\n"
     "component-node name=out component=out input=Append(r, IfDefined(Offset(r, -2)))\n"
     "output-node name=output input=out objective=quadratic\n",
     0, 0, false},
    {"ivector",
     "input-node name=input dim=4\n"
     "input-node name=ivector dim=3\n"
     "component name=affine1 type=AffineComponent input-dim=11 output-dim=6\n"
     "component-node name=affine1 component=affine1 "
     "input=Append(Offset(input, -1), input, ReplaceIndex(ivector, t, 0))\n"
     "component name=sigmoid type=SigmoidComponent dim=6\n"
     "component-node name=sigmoid component=sigmoid input=affine1\n"
     "component name=affine2 type=AffineComponent input-dim=6 output-dim=3\n"
     "component-node name=affine2 component=affine2 input=sigmoid\n"
     "output-node name=output input=affine2 objective=quadratic\n"
     // With n-slowest outputs, the derivative of the iVector part is
     // summed with kAddRowRanges.
     "output-node name=output2 input=Append(affine2, ReplaceIndex(ivector, "
     "t, 0)) objective=quadratic\n",
     1, 0, true},
    {"descriptors",
     "input-node name=input dim=8\n"
     "input-node name=ivector dim=5\n"
     "component name=affine1 type=AffineComponent input-dim=29 output-dim=16\n"
     "component-node name=affine1 component=affine1 input=Append(Offset(input, "
     "-2), input, Offset(input, 1), ReplaceIndex(ivector, t, 0))\n"
     "component name=affine1b type=AffineComponent input-dim=8 output-dim=16\n"
     "component-node name=affine1b component=affine1b input=input\n"
     "component name=relu1 type=RectifiedLinearComponent dim=16\n"
     "component-node name=relu1 component=relu1 input=Sum(affine1, "
     "Scale(-0.5, Offset(affine1b, -1)), Const(0.25, 16))\n"
     "dim-range-node name=relu1_part input-node=relu1 dim-offset=4 dim=8\n"
     "component name=affine2 type=AffineComponent input-dim=24 output-dim=12\n"
     "component-node name=affine2 component=affine2 input=Append(Failover("
     "Offset(relu1, -2), relu1), IfDefined(Offset(relu1_part, -3)))\n"
     "component name=tanh2 type=TanhComponent dim=12\n"
     "component-node name=tanh2 component=tanh2 input=affine2\n"
     "component name=affine3 type=AffineComponent input-dim=20 output-dim=10\n"
     "component-node name=affine3 component=affine3 input=Append(Switch(tanh2, "
     "Offset(tanh2, -1)), Round(Offset(input, 1), 3))\n"
     "component name=logsoftmax type=LogSoftmaxComponent dim=10\n"
     "component-node name=logsoftmax component=logsoftmax input=affine3\n"
     "output-node name=output input=logsoftmax\n"
     "output-node name=aux input=Sum(Scale(2.0, relu1_part), Const(-1.0, 8)) "
     "objective=quadratic\n",
     6, 4, true},
};

ComputationRequest MakeRequest(const Nnet &nnet, const TestNet &net,
                               int32 num_n, int32 num_frames, Layout in_layout,
                               Layout out_layout, bool backward) {
  ComputationRequest r;
  r.inputs.push_back(IoSpecification(
      "input",
      MakeIndexes(-net.input_left, num_frames - 1 + net.input_right, num_n,
                  in_layout),
      backward));
  if (net.has_ivector)
    r.inputs.push_back(IoSpecification(
        "ivector", MakeIndexes(0, 0, num_n, in_layout), backward));
  for (int32 node = 0; node < nnet.NumNodes(); node++)
    if (nnet.IsOutputNode(node))
      r.outputs.push_back(IoSpecification(
          nnet.GetNodeName(node), MakeIndexes(0, num_frames - 1, num_n,
                                              out_layout),
          backward));
  r.need_model_derivative = backward;
  return r;
}

TEST(Shortcut, HandWrittenNetworks) {
  RandomSource rng(17);
  for (const TestNet &net : kTestNets) {
    Nnet nnet = NnetFromConfigString(net.config);
    for (int32 num_n : {3, 4, 7}) {
      for (int32 layouts = 0; layouts < 4; layouts++) {
        for (bool backward : {false, true}) {
          Layout in_layout = (layouts & 1) ? kNSlowest : kNFastest,
                 out_layout = (layouts & 2) ? kNSlowest : kNFastest;
          int32 num_frames = 3 + num_n % 3;
          ComputationRequest request = MakeRequest(
              nnet, net, num_n, num_frames, in_layout, out_layout, backward);
          std::ostringstream what;
          what << net.name << ", N=" << num_n << ", layouts " << layouts
               << (backward ? ", backward" : ", forward");
          CheckShortcut(nnet, request, &rng, true, what.str());
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(Shortcut, InputDerivativeOnlyAndStats) {
  // Only the input derivative (no model derivative), statistics stored.
  RandomSource rng(5);
  const TestNet &net = kTestNets[1];
  Nnet nnet = NnetFromConfigString(net.config);
  ComputationRequest request =
      MakeRequest(nnet, net, 5, 4, kNFastest, kNSlowest, true);
  request.need_model_derivative = false;
  request.store_component_stats = true;
  CheckShortcut(nnet, request, &rng, true, "tdnn input-deriv only");
}

TEST(Shortcut, IrregularRequestFallsBack) {
  // Sequence 2 is shorter: compiled directly, results as direct.
  RandomSource rng(3);
  const TestNet &net = kTestNets[0];
  Nnet nnet = NnetFromConfigString(net.config);
  ComputationRequest request = MakeRequest(nnet, net, 3, 4, kNFastest,
                                           kNFastest, true);
  for (IoSpecification *io : {&request.inputs[0], &request.outputs[0]}) {
    std::vector<Index> &v = io->indexes;
    v.erase(std::find(v.begin(), v.end(), Index(2, 3)));
  }
  ComputationRequest mini;
  int32 num_n;
  EXPECT_FALSE(RequestIsDecomposable(request, &mini, &num_n));
  CheckShortcut(nnet, request, &rng, false, "irregular");
}

// A hand-built two-sequence computation: input rows (t, n) for t in {0, 1}
// n-fastest, copied with the two frames swapped.
NnetComputation MakeSwapComputation(const std::vector<int32> &copy_indexes) {
  NnetComputation c;
  int32 a = c.NewMatrix(4, 5), b = c.NewMatrix(4, 5);
  c.matrix_debug_info.resize(c.matrices.size());
  for (int32 m = 1; m <= 2; m++)
    for (int32 t = 0; t < 2; t++)
      for (int32 n = 0; n < 2; n++)
        c.matrix_debug_info[m].cindexes.push_back(Cindex(m - 1, Index(n, t)));
  c.indexes.push_back(copy_indexes);
  c.commands.push_back(NnetComputation::Command(kAllocMatrix, b));
  c.commands.push_back(NnetComputation::Command(kAcceptInput, a, 0));
  c.commands.push_back(NnetComputation::Command(kCopyRows, b, a, 0));
  c.commands.push_back(NnetComputation::Command(kDeallocMatrix, b));
  return c;
}

TEST(Shortcut, HandBuiltComputation) {
  Nnet nnet = NnetFromConfigString(kTestNets[0].config);
  MiscComputationInfo misc;
  NnetComputation expanded;
  // Regular: row (t, n) of b comes from row (1 - t, n) of a.
  ASSERT_TRUE(TryExpandComputation(nnet, misc, MakeSwapComputation({2, 3, 0, 1}),
                                   true, 3, &expanded));
  ASSERT_EQ(expanded.indexes.size(), 1u);
  EXPECT_EQ(expanded.indexes[0], std::vector<int32>({3, 4, 5, 0, 1, 2}));
  EXPECT_EQ(expanded.matrices[1].num_rows, 6);
  EXPECT_EQ(expanded.matrix_debug_info[2].cindexes[5], Cindex(1, Index(2, 1)));
  ASSERT_TRUE(TryExpandComputation(nnet, misc, MakeSwapComputation({2, 3, -1, -1}),
                                   false, 4, &expanded));
  EXPECT_EQ(expanded.indexes[0],
            std::vector<int32>({4, 5, 6, 7, -1, -1, -1, -1}));
  EXPECT_TRUE(expanded.matrix_debug_info.empty());
  // Sequence 1 read from sequence 0, or from another frame than sequence 0.
  EXPECT_FALSE(TryExpandComputation(nnet, misc, MakeSwapComputation({2, 2, 0, 1}),
                                    true, 3, &expanded));
  EXPECT_FALSE(TryExpandComputation(nnet, misc, MakeSwapComputation({2, 1, 0, 3}),
                                    true, 3, &expanded));
  EXPECT_FALSE(TryExpandComputation(nnet, misc, MakeSwapComputation({2, -1, 0, 1}),
                                    true, 3, &expanded));
  EXPECT_TRUE(expanded.commands.empty());
  // A submatrix holding half a block (only sequence 1 of t = 0).
  {
    NnetComputation c = MakeSwapComputation({2, 3, 0, 1});
    int32 whole_a = 1;
    int32 half = c.NewSubMatrix(whole_a, 1, 2, 0, -1);
    c.commands.push_back(NnetComputation::Command(kSetConst, half));
    EXPECT_FALSE(TryExpandComputation(nnet, misc, c, true, 3, &expanded));
  }
  // A matrix whose rows are not regular in n.
  {
    NnetComputation c = MakeSwapComputation({2, 3, 0, 1});
    std::swap(c.matrix_debug_info[2].cindexes[2],
              c.matrix_debug_info[2].cindexes[3]);
    EXPECT_FALSE(TryExpandComputation(nnet, misc, c, true, 3, &expanded));
  }
}

TEST(Shortcut, ExpandRequiresDebugInfo) {
  const TestNet &net = kTestNets[0];
  Nnet nnet = NnetFromConfigString(net.config);
  ComputationRequest request = MakeRequest(nnet, net, 2, 3, kNFastest,
                                           kNFastest, false);
  CompilerOptions opts;
  opts.output_debug_info = false;
  NnetComputation mini, expanded;
  CompileComputation(nnet, request, opts, &mini);
  EXPECT_FALSE(TryExpandComputation(nnet, request.misc_info, mini, false, 4,
                                    &expanded));
  EXPECT_TRUE(expanded.commands.empty());
  EXPECT_THROW(ExpandComputation(nnet, request.misc_info, mini, false, 4,
                                 &expanded),
               UserError);
}

TEST(Shortcut, CachingCompilerOption) {
  const TestNet &net = kTestNets[1];
  Nnet nnet = NnetFromConfigString(net.config);
  ComputationRequest request = MakeRequest(nnet, net, 6, 5, kNFastest,
                                           kNFastest, true);
  CachingOptimizingCompilerOptions with, without;
  EXPECT_TRUE(with.use_shortcut);
  without.use_shortcut = false;
  // Unoptimized, so the commands can be compared with the compiler's.
  NnetOptimizeOptions no_optimization;
  no_optimization.optimize = false;
  CachingOptimizingCompiler c1(nnet, no_optimization, with),
      c2(nnet, no_optimization, without);
  auto a = c1.Compile(request), b = c2.Compile(request);
  EXPECT_EQ(TotalMatrixSize(*a), TotalMatrixSize(*b));
  // The shortcut computation keeps the mini computation's commands.
  ComputationRequest mini;
  int32 num_n;
  ASSERT_TRUE(RequestIsDecomposable(request, &mini, &num_n));
  NnetComputation mini_computation;
  CompileComputation(nnet, mini, CompilerOptions(), &mini_computation);
  EXPECT_EQ(a->commands.size(), mini_computation.commands.size());
  EXPECT_EQ(a->matrix_debug_info.size(), a->matrices.size());
}

// Random networks and N-sequence requests: the shortcut must expand every
// one and agree with direct compilation.
void CheckShortcutOnRandomNetworks(const RandomNnetOptions &opts, uint64 seed,
                                   int32 kNumNets) {
  RandomSource rng(seed);
  int32 num_expanded = 0, num_tried = 0;
  for (int32 i = 0; i < kNumNets; i++) {
    std::string description;
    std::string config = GenerateRandomNnetConfig(&rng, opts, &description);
    Nnet nnet = NnetFromConfigString(config);
    ComputationRequest generated;
    std::vector<Matrix<BaseFloat> > unused_inputs;
    GenerateRandomRequest(nnet, &rng, &generated, &unused_inputs);
    // Same t ranges, but N sequences in a random layout.
    int32 num_n = (i % 3 == 0) ? 3 : (i % 3 == 1 ? 4 : 7);
    ComputationRequest request = generated;
    bool backward = rng.WithProb(0.6);
    request.need_model_derivative = backward && rng.WithProb(0.7);
    for (int32 io = 0; io < 2; io++) {
      std::vector<IoSpecification> &specs =
          io == 0 ? request.inputs : request.outputs;
      for (IoSpecification &spec : specs) {
        int32 t_min = spec.indexes[0].t, t_max = spec.indexes[0].t;
        for (const Index &index : spec.indexes) {
          t_min = std::min(t_min, index.t);
          t_max = std::max(t_max, index.t);
        }
        spec.indexes = MakeIndexes(t_min, t_max, num_n,
                                   rng.WithProb(0.5) ? kNFastest : kNSlowest);
        spec.has_deriv = backward && (io == 1 || rng.WithProb(0.5));
      }
    }
    std::ostringstream what;
    what << "random network " << i << " (" << description << "), N=" << num_n
         << "\n" << config;
    num_tried++;
    if (CheckShortcut(nnet, request, &rng, false, what.str())) num_expanded++;
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::cout << "expanded " << num_expanded << " of " << num_tried
            << " random requests\n";
  EXPECT_EQ(num_expanded, num_tried);
}

TEST(Shortcut, RandomNetworks) {
  CheckShortcutOnRandomNetworks(RandomNnetOptions(), 2024, 50);
}

// With non-simple components the expanded computation gets its
// precomputed indexes recomputed for the N sequences.
TEST(Shortcut, RandomGeneralNetworks) {
  RandomNnetOptions opts;
  opts.allow_general_components = true;
  CheckShortcutOnRandomNetworks(opts, 2025, 60);
}

}  // namespace
}  // namespace nnet3
