// tests/nnet3/optimize/deriv-time-test.cc
// LimitDerivativeTimes and MaxOutputTimeInRequest:
//  - a recurrent layer (Append(input, IfDefined(Offset(r, -1))) into an
//    affine, tanh or ReLU r, affine output) on t = 0..9, n = 0..1 (request
//    rows in n-major order) with output and input derivatives and model
//    update: limited to [3, 7] the computation passes the checker, the
//    outputs are unchanged, the input derivatives are exactly zero at t < 3
//    and t > 7, and the input derivatives and parameter gradients equal a
//    hand-written back-propagation in which the derivative w.r.t. every
//    Cindex outside [3, 7] is zero (which, run with no limits, also equals
//    the unlimited computation); limits covering all times give exactly the
//    unlimited results; backprops outside the range are gone;
//  - the no-op and error cases, and MaxOutputTimeInRequest;
//  - 150 random networks and requests: limits covering everything give
//    exactly the unlimited results; random limits inside the output range
//    pass the checker, keep the outputs exactly, give zero input
//    derivatives outside the range, and limiting to [a, b] and then to a
//    narrower [c, d] gives the same results as limiting to [c, d] directly.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "nnet3/analyze/checker.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/components/affine.h"
#include "nnet3/optimize/deriv-time.h"
#include "nnet3/optimize/optimize.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

std::string ToString(const NnetComputation &computation, const Nnet &nnet) {
  std::ostringstream os;
  computation.Print(os, nnet);
  return os.str();
}

struct RunResult {
  ComputationResults results;
  Nnet delta;
};

RunResult RunIt(const Nnet &nnet, const ComputationRequest &request,
          const NnetComputation &computation,
          const std::vector<Matrix<BaseFloat> > &inputs,
          const std::vector<Matrix<BaseFloat> > &output_derivs) {
  RunResult run;
  run.delta = MakeGradientNnet(nnet);
  RunComputationForTest(nnet, request, computation, inputs, output_derivs,
                        request.need_model_derivative ? &run.delta : nullptr,
                        &run.results);
  return run;
}

// Results of 'a' and 'b' agree within 'tol' (0: exactly).
void ExpectSameResults(const ComputationRequest &request, const RunResult &a,
                       const RunResult &b, double tol) {
  ASSERT_EQ(a.results.outputs.size(), b.results.outputs.size());
  for (size_t o = 0; o < a.results.outputs.size(); o++)
    ASSERT_LE(RelativeDifference(a.results.outputs[o], b.results.outputs[o]),
              tol)
        << "output " << request.outputs[o].name;
  ASSERT_EQ(a.results.input_derivs.size(), b.results.input_derivs.size());
  for (size_t i = 0; i < a.results.input_derivs.size(); i++) {
    if (request.inputs[i].has_deriv) {
      ASSERT_LE(RelativeDifference(a.results.input_derivs[i],
                                   b.results.input_derivs[i]),
                tol)
          << "derivative of input " << request.inputs[i].name;
    }
  }
  if (request.need_model_derivative) {
    ASSERT_LE(ParameterDifference(a.delta, b.delta), tol)
        << "parameter gradient";
  }
}

// Outputs exactly as in 'ref'; input-derivative rows outside [lo, hi] are
// exactly zero.
void ExpectLimitedPattern(const ComputationRequest &request, const RunResult &ref,
                          const RunResult &got, int32 lo, int32 hi) {
  for (size_t o = 0; o < ref.results.outputs.size(); o++)
    ASSERT_EQ(RelativeDifference(got.results.outputs[o],
                                 ref.results.outputs[o]),
              0.0)
        << "output " << request.outputs[o].name;
  for (size_t i = 0; i < request.inputs.size(); i++) {
    if (!request.inputs[i].has_deriv) continue;
    const Matrix<BaseFloat> &d = got.results.input_derivs[i];
    ASSERT_EQ(d.NumRows(),
              static_cast<int32>(request.inputs[i].indexes.size()));
    for (int32 r = 0; r < d.NumRows(); r++) {
      int32 t = request.inputs[i].indexes[r].t;
      if (t >= lo && t <= hi) continue;
      for (int32 c = 0; c < d.NumCols(); c++)
        ASSERT_EQ(d(r, c), 0.0f) << "input " << request.inputs[i].name
                                 << " row " << r << " (t=" << t << ")";
    }
  }
}

// ---------------------------------------------------------------------------
// A recurrent layer with a hand-written oracle.

std::string RecurrentConfig(const std::string &nonlinearity) {
  return "input-node name=input dim=3\n"
         "component name=affine type=AffineComponent input-dim=7 "
         "output-dim=4\n"
         "component-node name=affine component=affine "
         "input=Append(input, IfDefined(Offset(r, -1)))\n"
         "component name=r type=" +
         nonlinearity +
         " dim=4\n"
         "component-node name=r component=r input=affine\n"
         "component name=final type=AffineComponent input-dim=4 "
         "output-dim=2\n"
         "component-node name=final component=final input=r\n"
         "output-node name=output input=final\n";
}

const int32 kNumT = 10;

ComputationRequest RecurrentRequest() {
  std::vector<Index> indexes;
  for (int32 n = 0; n < 2; n++)
    for (int32 t = 0; t < kNumT; t++) indexes.push_back(Index(n, t, 0));
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", indexes, true));
  request.outputs.push_back(IoSpecification("output", indexes, true));
  request.need_model_derivative = true;
  return request;
}

typedef std::vector<std::vector<double> > Mat;

Mat ToMat(const MatrixBase<BaseFloat> &m) {
  Mat ans(m.NumRows(), std::vector<double>(m.NumCols()));
  for (int32 r = 0; r < m.NumRows(); r++)
    for (int32 c = 0; c < m.NumCols(); c++) ans[r][c] = m(r, c);
  return ans;
}
Mat ToMat(const CuMatrixBase<BaseFloat> &m) { return ToMat(m.Mat()); }

const AffineComponent &Affine(const Nnet &nnet, const std::string &name) {
  const AffineComponent *a = dynamic_cast<const AffineComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex(name)));
  NNET3_ASSERT(a != nullptr);
  return *a;
}

// The oracle: forward, then back-propagation in which the derivative
// w.r.t. every Cindex with t outside [lo, hi] is zero. Fills the outputs,
// the input derivative and the gradients of both affines (rows in the
// request's order: n-major).
struct Oracle {
  Mat output, input_deriv;
  Mat grad_w, grad_v;  // linear params of "affine" and "final"
  std::vector<double> grad_b, grad_c;
};

Oracle ComputeOracle(const Nnet &nnet, bool relu, const Mat &x,
                     const Mat &dy, int32 lo, int32 hi) {
  Mat w = ToMat(Affine(nnet, "affine").LinearParams()),
      v = ToMat(Affine(nnet, "final").LinearParams());
  std::vector<double> b, c;
  for (int32 i = 0; i < 4; i++) b.push_back(Affine(nnet, "affine").BiasParams().Vec()(i));
  for (int32 i = 0; i < 2; i++) c.push_back(Affine(nnet, "final").BiasParams().Vec()(i));
  Oracle o;
  o.output.assign(2 * kNumT, std::vector<double>(2, 0.0));
  o.input_deriv.assign(2 * kNumT, std::vector<double>(3, 0.0));
  o.grad_w.assign(4, std::vector<double>(7, 0.0));
  o.grad_v.assign(2, std::vector<double>(4, 0.0));
  o.grad_b.assign(4, 0.0);
  o.grad_c.assign(2, 0.0);
  auto in_range = [lo, hi](int32 t) { return t >= lo && t <= hi; };
  for (int32 n = 0; n < 2; n++) {
    // Forward.
    std::vector<std::vector<double> > r(kNumT, std::vector<double>(4)),
        in(kNumT, std::vector<double>(7, 0.0));
    for (int32 t = 0; t < kNumT; t++) {
      int32 row = n * kNumT + t;
      for (int32 j = 0; j < 3; j++) in[t][j] = x[row][j];
      for (int32 j = 0; j < 4; j++) in[t][3 + j] = (t > 0 ? r[t - 1][j] : 0.0);
      for (int32 i = 0; i < 4; i++) {
        double a = b[i];
        for (int32 j = 0; j < 7; j++) a += w[i][j] * in[t][j];
        r[t][i] = relu ? std::max(a, 0.0) : std::tanh(a);
      }
      for (int32 k = 0; k < 2; k++) {
        double y = c[k];
        for (int32 i = 0; i < 4; i++) y += v[k][i] * r[t][i];
        o.output[row][k] = y;
      }
    }
    // Backward, cut outside [lo, hi].
    std::vector<double> carry(4, 0.0);  // d r_t from the step at t + 1
    for (int32 t = kNumT - 1; t >= 0; t--) {
      int32 row = n * kNumT + t;
      std::vector<double> dr(4, 0.0), da(4, 0.0);
      if (in_range(t)) {
        for (int32 k = 0; k < 2; k++) {
          o.grad_c[k] += dy[row][k];
          for (int32 i = 0; i < 4; i++) o.grad_v[k][i] += dy[row][k] * r[t][i];
        }
        for (int32 i = 0; i < 4; i++) {
          dr[i] = carry[i];
          for (int32 k = 0; k < 2; k++) dr[i] += v[k][i] * dy[row][k];
          double slope = relu ? (r[t][i] > 0.0 ? 1.0 : 0.0)
                              : 1.0 - r[t][i] * r[t][i];
          da[i] = dr[i] * slope;
        }
      }
      std::vector<double> din(7, 0.0);
      for (int32 i = 0; i < 4; i++) {
        o.grad_b[i] += da[i];
        for (int32 j = 0; j < 7; j++) {
          o.grad_w[i][j] += da[i] * in[t][j];
          din[j] += w[i][j] * da[i];
        }
      }
      if (in_range(t))
        for (int32 j = 0; j < 3; j++) o.input_deriv[row][j] = din[j];
      // The recurrent part reaches r at t - 1 only if that is in range too.
      for (int32 i = 0; i < 4; i++)
        carry[i] = (t > 0 && in_range(t - 1)) ? din[3 + i] : 0.0;
    }
  }
  return o;
}

void ExpectNear(const MatrixBase<BaseFloat> &got, const Mat &want,
                const std::string &what) {
  ASSERT_EQ(got.NumRows(), static_cast<int32>(want.size())) << what;
  double scale = 1e-3;
  for (const auto &row : want)
    for (double v : row) scale = std::max(scale, std::fabs(v));
  for (int32 r = 0; r < got.NumRows(); r++)
    for (int32 c = 0; c < got.NumCols(); c++)
      ASSERT_NEAR(got(r, c), want[r][c], 1e-4 * scale)
          << what << " (" << r << ", " << c << ")";
}
void ExpectNear(const CuMatrixBase<BaseFloat> &got, const Mat &want,
                const std::string &what) {
  ExpectNear(got.Mat(), want, what);
}

void ExpectOracle(const RunResult &run, const Oracle &o) {
  ExpectNear(run.results.outputs[0], o.output, "output");
  ExpectNear(run.results.input_derivs[0], o.input_deriv, "input derivative");
  ExpectNear(Affine(run.delta, "affine").LinearParams(), o.grad_w,
             "affine linear gradient");
  ExpectNear(Affine(run.delta, "final").LinearParams(), o.grad_v,
             "final linear gradient");
  Mat gb(4, std::vector<double>(1)), gc(2, std::vector<double>(1));
  Matrix<BaseFloat> got_b(4, 1), got_c(2, 1);
  for (int32 i = 0; i < 4; i++) {
    gb[i][0] = o.grad_b[i];
    got_b(i, 0) = Affine(run.delta, "affine").BiasParams().Vec()(i);
  }
  for (int32 i = 0; i < 2; i++) {
    gc[i][0] = o.grad_c[i];
    got_c(i, 0) = Affine(run.delta, "final").BiasParams().Vec()(i);
  }
  ExpectNear(got_b, gb, "affine bias gradient");
  ExpectNear(got_c, gc, "final bias gradient");
}

int32 CountCommands(const NnetComputation &computation, CommandType t,
                    int32 component) {
  int32 n = 0;
  for (const NnetComputation::Command &c : computation.commands)
    if (c.command_type == t && c.arg1 == component) n++;
  return n;
}

void CheckRecurrent(const std::string &nonlinearity, bool relu) {
  SCOPED_TRACE(nonlinearity);
  Nnet nnet = NnetFromConfigString(RecurrentConfig(nonlinearity));
  ComputationRequest request = RecurrentRequest();
  RandomSource rng(17);
  std::vector<Matrix<BaseFloat> > inputs(
      1, RandomGaussMatrix(2 * kNumT, 3, &rng)),
      output_derivs(1, RandomGaussMatrix(2 * kNumT, 2, &rng));
  NnetComputation raw;
  CompileComputation(nnet, request, CompilerOptions(), &raw);
  CheckComputation(nnet, raw, false);
  RunResult ref = RunIt(nnet, request, raw, inputs, output_derivs);
  Mat x = ToMat(inputs[0]), dy = ToMat(output_derivs[0]);

  // The oracle without limits is the unlimited computation.
  ExpectOracle(ref, ComputeOracle(nnet, relu, x, dy, INT_MIN, INT_MAX));

  // Limits covering every time: exactly the same results.
  {
    NnetComputation wide(raw);
    LimitDerivativeTimes(nnet, -5, kNumT + 5, &wide);
    ASSERT_NO_THROW(CheckComputation(nnet, wide, false));
    ExpectSameResults(request, ref, RunIt(nnet, request, wide, inputs,
                                          output_derivs),
                      0.0);
  }

  // [3, 7].
  NnetComputation limited(raw);
  LimitDerivativeTimes(nnet, 3, 7, &limited);
  SCOPED_TRACE(ToString(limited, nnet));
  ASSERT_NO_THROW(CheckComputation(nnet, limited, false));
  RunResult got = RunIt(nnet, request, limited, inputs, output_derivs);
  ExpectLimitedPattern(request, ref, got, 3, 7);
  ExpectOracle(got, ComputeOracle(nnet, relu, x, dy, 3, 7));
  // The cut is visible: in-range derivatives and the gradient differ from
  // the unlimited ones.
  EXPECT_GT(RelativeDifference(got.results.input_derivs[0],
                               ref.results.input_derivs[0]),
            1e-3);
  EXPECT_GT(ParameterDifference(got.delta, ref.delta), 1e-3);
  // One per-frame backprop of the recurrent affine per (n, t) in range at
  // most; none for the steps outside it.
  int32 affine = nnet.GetComponentIndex("affine");
  int32 raw_steps = CountCommands(raw, kBackprop, affine),
        limited_steps = CountCommands(limited, kBackprop, affine);
  EXPECT_LT(limited_steps, raw_steps);
  EXPECT_LE(limited_steps, 5);
  EXPECT_GT(limited_steps, 0);
  // The limited computation is smaller.
  EXPECT_LT(GetMaxMemoryUse(limited), GetMaxMemoryUse(raw));

  // The rest of the optimizer still works on the limited computation.
  NnetComputation optimized(limited);
  Optimize(NnetOptimizeOptions(), nnet, kNumT - 1, &optimized);
  ASSERT_NO_THROW(CheckComputation(nnet, optimized, false));
  ExpectSameResults(request, got,
                    RunIt(nnet, request, optimized, inputs, output_derivs),
                    1e-5);
}

TEST(DerivTime, RecurrentTanhMatchesOracle) {
  CheckRecurrent("TanhComponent", false);
}

TEST(DerivTime, RecurrentReluMatchesOracle) {
  CheckRecurrent("RectifiedLinearComponent", true);
}

TEST(DerivTime, NoLimitsIsANoOp) {
  Nnet nnet = NnetFromConfigString(RecurrentConfig("TanhComponent"));
  NnetComputation raw;
  CompileComputation(nnet, RecurrentRequest(), CompilerOptions(), &raw);
  NnetComputation same(raw);
  LimitDerivativeTimes(nnet, INT_MIN, INT_MAX, &same);
  EXPECT_EQ(ToString(same, nnet), ToString(raw, nnet));
  NnetComputation bad(raw);
  EXPECT_THROW(LimitDerivativeTimes(nnet, 5, 4, &bad), UserError);
  NnetComputation no_debug(raw);
  no_debug.matrix_debug_info.clear();
  EXPECT_THROW(LimitDerivativeTimes(nnet, 0, 4, &no_debug), UserError);
}

TEST(DerivTime, OnlyOneSideLimited) {
  Nnet nnet = NnetFromConfigString(RecurrentConfig("TanhComponent"));
  ComputationRequest request = RecurrentRequest();
  RandomSource rng(3);
  std::vector<Matrix<BaseFloat> > inputs(
      1, RandomGaussMatrix(2 * kNumT, 3, &rng)),
      output_derivs(1, RandomGaussMatrix(2 * kNumT, 2, &rng));
  NnetComputation raw;
  CompileComputation(nnet, request, CompilerOptions(), &raw);
  RunResult ref = RunIt(nnet, request, raw, inputs, output_derivs);
  Mat x = ToMat(inputs[0]), dy = ToMat(output_derivs[0]);
  const int32 limits[3][2] = {{INT_MIN, 4}, {6, INT_MAX}, {5, 5}};
  for (const auto &l : limits) {
    SCOPED_TRACE(std::to_string(l[0]) + " " + std::to_string(l[1]));
    NnetComputation limited(raw);
    LimitDerivativeTimes(nnet, l[0], l[1], &limited);
    ASSERT_NO_THROW(CheckComputation(nnet, limited, false));
    RunResult got = RunIt(nnet, request, limited, inputs, output_derivs);
    ExpectLimitedPattern(request, ref, got, l[0], l[1]);
    ExpectOracle(got, ComputeOracle(nnet, false, x, dy, l[0], l[1]));
  }
}

TEST(DerivTime, MaxOutputTimeInRequest) {
  ComputationRequest request = RecurrentRequest();
  EXPECT_EQ(MaxOutputTimeInRequest(request), kNumT - 1);
  request.outputs.push_back(IoSpecification("output2", 3, 25));
  EXPECT_EQ(MaxOutputTimeInRequest(request), 24);
  std::vector<Index> negative(1, Index(0, -7, 0));
  request.outputs.clear();
  request.outputs.push_back(IoSpecification("output", negative, false));
  EXPECT_EQ(MaxOutputTimeInRequest(request), -7);
  request.outputs.clear();
  EXPECT_THROW(MaxOutputTimeInRequest(request), UserError);
}

// ---------------------------------------------------------------------------
// Random networks.

TEST(DerivTime, RandomNetworks) {
  const int32 num_seeds = 150;
  int32 num_limited = 0, num_changed = 0;
  for (int32 seed = 1; seed <= num_seeds; seed++) {
    RandomSource rng(9100 + seed);
    std::string description;
    std::string config =
        GenerateRandomNnetConfig(&rng, RandomNnetOptions(), &description);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (" + description +
                 ")\n" + config);
    Nnet nnet = NnetFromConfigString(config);
    ComputationRequest request;
    std::vector<Matrix<BaseFloat> > inputs;
    GenerateRandomRequest(nnet, &rng, &request, &inputs);
    NnetComputation raw;
    CompileComputation(nnet, request, CompilerOptions(), &raw);
    std::vector<Matrix<BaseFloat> > output_derivs;
    RandomOutputDerivs(nnet, request, &rng, &output_derivs);
    RunResult ref = RunIt(nnet, request, raw, inputs, output_derivs);

    int32 t_min = INT_MAX, t_max = INT_MIN;
    for (const IoSpecification &io : request.inputs)
      for (const Index &i : io.indexes) {
        t_min = std::min(t_min, i.t);
        t_max = std::max(t_max, i.t);
      }
    int32 out_min = INT_MAX, out_max = MaxOutputTimeInRequest(request);
    for (const IoSpecification &io : request.outputs)
      for (const Index &i : io.indexes) out_min = std::min(out_min, i.t);
    t_min = std::min(t_min, out_min);
    t_max = std::max(t_max, out_max);

    // Covering everything: identical results.
    {
      NnetComputation wide(raw);
      LimitDerivativeTimes(nnet, t_min - 100, t_max + 100, &wide);
      ASSERT_NO_THROW(CheckComputation(nnet, wide, false));
      ExpectSameResults(request, ref,
                        RunIt(nnet, request, wide, inputs, output_derivs),
                        0.0);
    }

    // Random limits inside the output range.
    int32 lo = rng.Int(out_min, out_max), hi = rng.Int(lo, out_max);
    SCOPED_TRACE("limits " + std::to_string(lo) + " " + std::to_string(hi));
    NnetComputation limited(raw);
    LimitDerivativeTimes(nnet, lo, hi, &limited);
    ASSERT_NO_THROW(CheckComputation(nnet, limited, false))
        << ToString(limited, nnet);
    RunResult got = RunIt(nnet, request, limited, inputs, output_derivs);
    ExpectLimitedPattern(request, ref, got, lo, hi);
    num_limited++;
    if (ToString(limited, nnet) != ToString(raw, nnet)) num_changed++;

    // Nested limits: [lo - 1, hi + 2] then [lo, hi] is [lo, hi].
    NnetComputation nested(raw);
    LimitDerivativeTimes(nnet, lo - 1, hi + 2, &nested);
    ASSERT_NO_THROW(CheckComputation(nnet, nested, false));
    LimitDerivativeTimes(nnet, lo, hi, &nested);
    ASSERT_NO_THROW(CheckComputation(nnet, nested, false));
    ExpectSameResults(request, got,
                      RunIt(nnet, request, nested, inputs, output_derivs),
                      1e-5);

    // The optimizer runs on the limited computation and keeps its results.
    NnetComputation optimized(limited);
    Optimize(NnetOptimizeOptions(), nnet, out_max, &optimized);
    ASSERT_NO_THROW(CheckComputation(nnet, optimized, false));
    ExpectSameResults(request, got,
                      RunIt(nnet, request, optimized, inputs, output_derivs),
                      1e-5);
  }
  std::cout << num_changed << " of " << num_limited
            << " random computations changed by the limits\n";
  EXPECT_EQ(num_limited, num_seeds);
  // The limits must actually change most computations with derivatives.
  EXPECT_GT(num_changed, num_seeds / 4);
}

}  // namespace
}  // namespace nnet3
