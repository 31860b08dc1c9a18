// tests/nnet3/testing/naive-evaluator-test.cc
// The oracle must be trustworthy before the compiler is tested against it:
// (i) on small hand-written networks its outputs equal values computed here
// with explicit loops (affine + ReLU, a TDNN splice, a recurrence through
// IfDefined, Failover / Const / Scale, an ivector via ReplaceIndex with a
// dim-range node); (ii) for 200 random networks the configs parse and pass
// Check(), the random requests are computable, and Backward()'s input and
// parameter derivatives agree with finite differences of a linear objective.
#include "nnet3/testing/naive-evaluator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "nnet3/components/affine.h"
#include "nnet3/nnet/nnet-edit.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

const AffineComponent &Affine(const Nnet &nnet, const std::string &name) {
  int32 c = nnet.GetComponentIndex(name);
  EXPECT_NE(c, -1);
  const AffineComponent *a =
      dynamic_cast<const AffineComponent *>(nnet.GetComponent(c));
  EXPECT_NE(a, nullptr);
  return *a;
}

// W * x + b for one frame.
std::vector<double> ApplyAffine(const AffineComponent &a,
                                const std::vector<double> &x) {
  const MatrixBase<BaseFloat> &w = a.LinearParams().Mat();
  EXPECT_EQ(static_cast<int32>(x.size()), w.NumCols());
  std::vector<double> y(w.NumRows());
  for (int32 i = 0; i < w.NumRows(); i++) {
    double sum = a.BiasParams().Vec()(i);
    for (int32 j = 0; j < w.NumCols(); j++) sum += w(i, j) * x[j];
    y[i] = sum;
  }
  return y;
}

// Row of "indexes" holding Index (n, t), or -1.
int32 RowOf(const std::vector<Index> &indexes, int32 n, int32 t) {
  for (size_t i = 0; i < indexes.size(); i++)
    if (indexes[i] == Index(n, t)) return static_cast<int32>(i);
  return -1;
}

std::vector<double> RowVec(const Matrix<BaseFloat> &m, int32 r) {
  std::vector<double> v(m.NumCols());
  for (int32 c = 0; c < m.NumCols(); c++) v[c] = m(r, c);
  return v;
}

void ExpectRowNear(const Matrix<BaseFloat> &m, int32 r,
                   const std::vector<double> &expected) {
  ASSERT_EQ(m.NumCols(), static_cast<int32>(expected.size()));
  for (int32 c = 0; c < m.NumCols(); c++)
    EXPECT_NEAR(m(r, c), expected[c], 1e-4 * (1.0 + std::fabs(expected[c])))
        << "row " << r << " col " << c;
}

// ---- (i) hand-written networks --------------------------------------------

TEST(NaiveEvaluator, AffineRelu) {
  Srand(1);
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=3\n"
      "component name=a type=AffineComponent input-dim=3 output-dim=4\n"
      "component-node name=a component=a input=input\n"
      "component name=relu type=RectifiedLinearComponent dim=4\n"
      "component-node name=relu component=relu input=a\n"
      "output-node name=output input=relu\n");
  RandomSource rng(2);
  ComputationRequest req;
  std::vector<Index> idx;
  for (int32 t = 0; t < 3; t++)
    for (int32 n = 0; n < 2; n++) idx.push_back(Index(n, t));
  req.inputs.push_back(IoSpecification("input", idx));
  req.outputs.push_back(IoSpecification("output", idx));
  std::vector<Matrix<BaseFloat>> in = {RandomGaussMatrix(6, 3, &rng)};
  NaiveEvaluator e(nnet, req, in);
  Matrix<BaseFloat> out;
  e.GetOutput(0, &out);
  ASSERT_EQ(out.NumRows(), 6);
  for (int32 r = 0; r < 6; r++) {
    std::vector<double> y = ApplyAffine(Affine(nnet, "a"), RowVec(in[0], r));
    for (double &v : y) v = std::max(v, 0.0);
    ExpectRowNear(out, r, y);
  }
}

TEST(NaiveEvaluator, TdnnSplice) {
  Srand(3);
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "component name=a type=AffineComponent input-dim=6 output-dim=3\n"
      "component-node name=a component=a "
      "input=Append(Offset(input, -1), input, Offset(input, 2))\n"
      "output-node name=output input=a\n");
  RandomSource rng(4);
  ComputationRequest req;
  std::vector<Index> in_idx, out_idx;
  for (int32 n = 0; n < 2; n++)
    for (int32 t = -1; t < 6; t++) in_idx.push_back(Index(n, t));
  for (int32 t = 0; t < 4; t++)
    for (int32 n = 0; n < 2; n++) out_idx.push_back(Index(n, t));
  req.inputs.push_back(IoSpecification("input", in_idx));
  req.outputs.push_back(IoSpecification("output", out_idx));
  std::vector<Matrix<BaseFloat>> in = {
      RandomGaussMatrix(static_cast<int32>(in_idx.size()), 2, &rng)};
  NaiveEvaluator e(nnet, req, in);
  Matrix<BaseFloat> out;
  e.GetOutput(0, &out);
  for (size_t r = 0; r < out_idx.size(); r++) {
    const Index &ix = out_idx[r];
    std::vector<double> x;
    for (int32 off : {-1, 0, 2}) {
      int32 row = RowOf(in_idx, ix.n, ix.t + off);
      ASSERT_GE(row, 0);
      for (double v : RowVec(in[0], row)) x.push_back(v);
    }
    ExpectRowNear(out, static_cast<int32>(r),
                  ApplyAffine(Affine(nnet, "a"), x));
  }
  // Asking for t = 4 needs input t = 6, which is missing.
  ComputationRequest req2 = req;
  req2.outputs[0].indexes.push_back(Index(0, 4));
  NaiveEvaluator e2(nnet, req2, in);
  EXPECT_FALSE(e2.OutputIsComputable(0, 8));
  EXPECT_THROW(e2.GetOutput(0, &out), UserError);
}

TEST(NaiveEvaluator, RecurrenceThroughIfDefined) {
  Srand(5);
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "component name=a type=AffineComponent input-dim=2 output-dim=3\n"
      "component-node name=a component=a input=input\n"
      "component name=r type=TanhComponent dim=3\n"
      "component-node name=r component=r "
      "input=Sum(a, IfDefined(Offset(r, -1)))\n"
      "output-node name=output input=r\n");
  RandomSource rng(6);
  const int32 T = 5;
  ComputationRequest req;
  std::vector<Index> idx;
  for (int32 n = 0; n < 2; n++)
    for (int32 t = 0; t < T; t++) idx.push_back(Index(n, t));
  req.inputs.push_back(IoSpecification("input", idx));
  req.outputs.push_back(IoSpecification("output", idx));
  std::vector<Matrix<BaseFloat>> in = {RandomGaussMatrix(2 * T, 2, &rng)};
  NaiveEvaluator e(nnet, req, in);
  Matrix<BaseFloat> out;
  e.GetOutput(0, &out);
  for (int32 n = 0; n < 2; n++) {
    std::vector<double> h(3, 0.0);  // r(t - 1), zero before t = 0
    for (int32 t = 0; t < T; t++) {
      int32 row = RowOf(idx, n, t);
      std::vector<double> y =
          ApplyAffine(Affine(nnet, "a"), RowVec(in[0], row));
      for (int32 i = 0; i < 3; i++) h[i] = std::tanh(y[i] + h[i]);
      ExpectRowNear(out, row, h);
    }
  }
}

TEST(NaiveEvaluator, FailoverConstScaleIfDefined) {
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "output-node name=output "
      "input=Sum(Failover(Offset(input, -1), Offset(input, 1)), "
      "Const(0.5, 2))\n"
      "output-node name=output2 "
      "input=Append(Scale(2, input), IfDefined(Offset(input, 3)))\n");
  RandomSource rng(7);
  ComputationRequest req;
  std::vector<Index> in_idx, out_idx;
  for (int32 t = 0; t < 4; t++) in_idx.push_back(Index(0, t));
  for (int32 t = 0; t < 4; t++) out_idx.push_back(Index(0, t));
  req.inputs.push_back(IoSpecification("input", in_idx));
  req.outputs.push_back(IoSpecification("output", out_idx));
  req.outputs.push_back(IoSpecification("output2", out_idx));
  std::vector<Matrix<BaseFloat>> in = {RandomGaussMatrix(4, 2, &rng)};
  NaiveEvaluator e(nnet, req, in);
  Matrix<BaseFloat> out, out2;
  e.GetOutput(0, &out);
  // Failover uses its second alternative only at t = 0, so input t = 3 is
  // not used by "output".
  std::vector<Cindex> used;
  e.GetUsedInputs(&used);
  std::set<int32> used_t;
  for (const Cindex &c : used) used_t.insert(c.second.t);
  EXPECT_EQ(used_t, std::set<int32>({0, 1, 2}));
  e.GetOutput(1, &out2);
  for (int32 t = 0; t < 4; t++) {
    int32 src = (t == 0 ? 1 : t - 1);  // input(-1) is missing at t = 0
    std::vector<double> y = RowVec(in[0], src);
    for (double &v : y) v += 0.5;
    ExpectRowNear(out, t, y);
    std::vector<double> y2 = RowVec(in[0], t);
    for (double &v : y2) v *= 2;
    std::vector<double> later =
        (t + 3 < 4 ? RowVec(in[0], t + 3) : std::vector<double>(2, 0.0));
    y2.insert(y2.end(), later.begin(), later.end());
    ExpectRowNear(out2, t, y2);
  }
  // Derivatives: output2's IfDefined(Offset(input, 3)) at t = 0 reads t = 3.
  std::vector<Matrix<BaseFloat>> derivs = {Matrix<BaseFloat>(4, 2),
                                           Matrix<BaseFloat>(4, 4)};
  derivs[1](0, 2) = 1.0;  // d output2(t=0)[2] = input(t=3)[0]
  derivs[1](1, 0) = 1.0;  // d output2(t=1)[0] = 2 * input(t=1)[0]
  derivs[0](0, 1) = 1.0;  // d output(t=0)[1] = input(t=1)[1]
  std::vector<Matrix<BaseFloat>> in_derivs;
  e.Backward(derivs, &in_derivs, nullptr);
  ASSERT_EQ(in_derivs.size(), 1u);
  Matrix<BaseFloat> expected(4, 2);
  expected(3, 0) = 1.0;
  expected(1, 0) = 2.0;
  expected(1, 1) = 1.0;
  EXPECT_TRUE(in_derivs[0].ApproxEqual(expected, 1e-6));
}

TEST(NaiveEvaluator, IvectorReplaceIndexAndDimRange) {
  Srand(8);
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "input-node name=ivector dim=3\n"
      "component name=a type=AffineComponent input-dim=5 output-dim=4\n"
      "component-node name=a component=a "
      "input=Append(input, ReplaceIndex(ivector, t, 0))\n"
      "dim-range-node name=d input-node=a dim-offset=1 dim=2\n"
      "output-node name=output input=d\n");
  RandomSource rng(9);
  ComputationRequest req;
  std::vector<Index> in_idx, iv_idx;
  for (int32 t = 0; t < 3; t++)
    for (int32 n = 0; n < 3; n++) in_idx.push_back(Index(n, t));
  for (int32 n = 0; n < 3; n++) iv_idx.push_back(Index(n, 0));
  req.inputs.push_back(IoSpecification("ivector", iv_idx));
  req.inputs.push_back(IoSpecification("input", in_idx));
  req.outputs.push_back(IoSpecification("output", in_idx));
  std::vector<Matrix<BaseFloat>> in = {RandomGaussMatrix(3, 3, &rng),
                                       RandomGaussMatrix(9, 2, &rng)};
  NaiveEvaluator e(nnet, req, in);
  Matrix<BaseFloat> out;
  e.GetOutput(0, &out);
  for (size_t r = 0; r < in_idx.size(); r++) {
    std::vector<double> x = RowVec(in[1], static_cast<int32>(r));
    std::vector<double> iv = RowVec(in[0], in_idx[r].n);
    x.insert(x.end(), iv.begin(), iv.end());
    std::vector<double> y = ApplyAffine(Affine(nnet, "a"), x);
    ExpectRowNear(out, static_cast<int32>(r), {y[1], y[2]});
  }
}

TEST(NaiveEvaluator, RejectsInstantaneousCycle) {
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "component name=r type=NoOpComponent dim=2\n"
      "component-node name=r component=r input=Sum(input, IfDefined(r))\n"
      "output-node name=output input=r\n");
  ComputationRequest req;
  req.inputs.push_back(IoSpecification("input", {Index(0, 0)}));
  req.outputs.push_back(IoSpecification("output", {Index(0, 0)}));
  std::vector<Matrix<BaseFloat>> in = {Matrix<BaseFloat>(1, 2)};
  NaiveEvaluator e(nnet, req, in);
  Matrix<BaseFloat> out;
  try {
    e.GetOutput(0, &out);
    ADD_FAILURE() << "expected an error";
  } catch (const UserError &err) {
    EXPECT_NE(err.message().find("depends on itself"), std::string::npos)
        << err.message();
  }
}

// Input windows: the context of the network (the non-recurrent context for
// a recurrence) plus at most 2 extra frames each side; the ivector only at
// t = 0; every sequence n present in inputs and outputs.
TEST(NaiveEvaluator, RandomRequestWindows) {
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "input-node name=ivector dim=2\n"
      "component name=a type=AffineComponent input-dim=8 output-dim=3\n"
      "component-node name=a component=a input=Append(Offset(input, -1), "
      "input, Offset(input, 2), ReplaceIndex(ivector, t, 0))\n"
      "component name=r type=TanhComponent dim=3\n"
      "component-node name=r component=r "
      "input=Sum(a, IfDefined(Offset(r, -2)))\n"
      "output-node name=output input=r\n");
  for (int32 seed = 0; seed < 20; seed++) {
    RandomSource rng(seed);
    ComputationRequest req;
    std::vector<Matrix<BaseFloat>> inputs;
    GenerateRandomRequest(nnet, &rng, &req, &inputs);
    ASSERT_EQ(req.outputs.size(), 1u);
    ASSERT_EQ(req.inputs.size(), 2u);
    std::set<int32> out_t, out_n;
    for (const Index &i : req.outputs[0].indexes) {
      out_t.insert(i.t);
      out_n.insert(i.n);
    }
    const int32 T = static_cast<int32>(out_t.size());
    EXPECT_EQ(*out_t.begin(), 0);
    EXPECT_EQ(*out_t.rbegin(), T - 1);
    for (size_t k = 0; k < 2; k++) {
      const IoSpecification &io = req.inputs[k];
      std::set<int32> t_set, n_set;
      for (const Index &i : io.indexes) {
        t_set.insert(i.t);
        n_set.insert(i.n);
      }
      EXPECT_EQ(n_set, out_n);
      EXPECT_EQ(io.indexes.size(), t_set.size() * n_set.size());
      EXPECT_EQ(inputs[k].NumRows(), static_cast<int32>(io.indexes.size()));
      if (io.name == "ivector") {
        EXPECT_EQ(t_set, std::set<int32>({0}));
      } else {
        EXPECT_LE(*t_set.begin(), -1);
        EXPECT_GE(*t_set.begin(), -3);
        EXPECT_GE(*t_set.rbegin(), T + 1);
        EXPECT_LE(*t_set.rbegin(), T + 3);
      }
    }
    NaiveEvaluator e(nnet, req, inputs);
    Matrix<BaseFloat> out;
    EXPECT_NO_THROW(e.GetOutput(0, &out));
  }
}

// ---- (ii) random networks ---------------------------------------------------

// sum over outputs of sum(output .* weights[o]).
double Objective(const Nnet &nnet, const ComputationRequest &req,
                 const std::vector<Matrix<BaseFloat>> &inputs,
                 const std::vector<Matrix<BaseFloat>> &weights,
                 double *abs_sum = nullptr) {
  NaiveEvaluator e(nnet, req, inputs);
  double f = 0.0, a = 0.0;
  for (size_t o = 0; o < req.outputs.size(); o++) {
    Matrix<BaseFloat> out;
    e.GetOutput(static_cast<int32>(o), &out);
    for (int32 r = 0; r < out.NumRows(); r++)
      for (int32 c = 0; c < out.NumCols(); c++) {
        f += static_cast<double>(out(r, c)) * weights[o](r, c);
        a += std::fabs(static_cast<double>(out(r, c)) * weights[o](r, c));
      }
  }
  if (abs_sum != nullptr) *abs_sum = a;
  return f;
}

// |predicted - measured| small relative to their size and to the rounding
// noise of the objective.
bool Agrees(double predicted, double measured, double noise) {
  return std::fabs(predicted - measured) <=
         1e-2 * std::max(std::fabs(predicted), std::fabs(measured)) + noise;
}

struct FdResult {
  int32 checks = 0, failures = 0;
  std::vector<std::string> messages;
};

void CheckDerivatives(const Nnet &nnet, const ComputationRequest &req,
                      const std::vector<Matrix<BaseFloat>> &inputs,
                      RandomSource *rng, const std::string &what,
                      FdResult *result) {
  std::vector<Matrix<BaseFloat>> weights;
  for (const IoSpecification &io : req.outputs)
    weights.push_back(RandomGaussMatrix(static_cast<int32>(io.indexes.size()),
                                   nnet.OutputDim(io.name), rng));
  double abs_sum = 0.0;
  Objective(nnet, req, inputs, weights, &abs_sum);
  const double noise = 1e-5 * (1.0 + abs_sum);
  Nnet gradient(nnet);
  ScaleNnet(0.0, &gradient);
  for (int32 c = 0; c < gradient.NumComponents(); c++) {
    UpdatableComponent *u =
        dynamic_cast<UpdatableComponent *>(gradient.GetComponent(c));
    if (u != nullptr) u->SetAsGradient();
  }
  std::vector<Matrix<BaseFloat>> input_derivs;
  {
    NaiveEvaluator e(nnet, req, inputs);
    e.Backward(weights, &input_derivs, &gradient);
  }
  ASSERT_EQ(input_derivs.size(), inputs.size());
  const double delta = 1e-3;
  // Input derivatives, along random directions.
  for (int32 k = 0; k < 2; k++) {
    std::vector<Matrix<BaseFloat>> plus = inputs, minus = inputs;
    double predicted = 0.0;
    for (size_t i = 0; i < inputs.size(); i++) {
      Matrix<BaseFloat> dir =
          RandomGaussMatrix(inputs[i].NumRows(), inputs[i].NumCols(), rng);
      dir.Scale(delta);
      plus[i].AddMat(1.0, dir);
      minus[i].AddMat(-1.0, dir);
      for (int32 r = 0; r < dir.NumRows(); r++)
        for (int32 c = 0; c < dir.NumCols(); c++)
          predicted += static_cast<double>(dir(r, c)) * input_derivs[i](r, c);
    }
    double measured = 0.5 * (Objective(nnet, req, plus, weights) -
                             Objective(nnet, req, minus, weights));
    result->checks++;
    if (!Agrees(predicted, measured, noise)) {
      result->failures++;
      std::ostringstream msg;
      msg << "input-deriv check: predicted " << predicted << " measured "
          << measured << " noise " << noise << " for " << what;
      result->messages.push_back(msg.str());
    }
  }
  // Parameter derivatives, along random directions.
  for (int32 k = 0; k < 2; k++) {
    Nnet plus(nnet), minus(nnet);
    double predicted = 0.0;
    bool any = false;
    for (int32 c = 0; c < nnet.NumComponents(); c++) {
      const UpdatableComponent *u =
          dynamic_cast<const UpdatableComponent *>(nnet.GetComponent(c));
      if (u == nullptr) continue;
      any = true;
      int32 np = u->NumParameters();
      Vector<BaseFloat> params(np), grad(np), dir(np);
      u->Vectorize(&params);
      dynamic_cast<const UpdatableComponent *>(gradient.GetComponent(c))
          ->Vectorize(&grad);
      for (int32 j = 0; j < np; j++) {
        dir(j) = static_cast<BaseFloat>(delta * rng->Gauss());
        predicted += static_cast<double>(dir(j)) * grad(j);
      }
      Vector<BaseFloat> p(params);
      p.AddVec(1.0, dir);
      dynamic_cast<UpdatableComponent *>(plus.GetComponent(c))->UnVectorize(p);
      p.CopyFromVec(params);
      p.AddVec(-1.0, dir);
      dynamic_cast<UpdatableComponent *>(minus.GetComponent(c))->UnVectorize(p);
    }
    if (!any) break;
    double measured = 0.5 * (Objective(plus, req, inputs, weights) -
                             Objective(minus, req, inputs, weights));
    result->checks++;
    if (!Agrees(predicted, measured, noise)) {
      result->failures++;
      std::ostringstream msg;
      msg << "parameter-deriv check: predicted " << predicted << " measured "
          << measured << " noise " << noise << " for " << what;
      result->messages.push_back(msg.str());
    }
  }
}

TEST(NaiveEvaluator, RandomNetworks) {
  FdResult smooth, nonsmooth;
  std::map<std::string, int32> kinds;
  std::set<std::string> features;
  for (int32 seed = 0; seed < 200; seed++) {
    RandomSource rng(1000 + seed);
    RandomNnetOptions opts;
    opts.allow_nonsmooth = (seed % 2 == 0);
    std::string description;
    std::string config = GenerateRandomNnetConfig(&rng, opts, &description);
    std::string what =
        "seed " + std::to_string(seed) + " (" + description + ")\n" + config;
    SCOPED_TRACE(what);
    Srand(seed);
    Nnet nnet;
    try {
      nnet = NnetFromConfigString(config);
      nnet.Check();
    } catch (const std::exception &e) {
      ADD_FAILURE() << "config rejected: " << e.what();
      continue;
    }
    kinds[description.substr(0, description.find(' '))]++;
    std::istringstream ds(description.substr(description.find('=', 5) + 1));
    std::string f;
    while (std::getline(ds, f, ',')) features.insert(f);
    ComputationRequest req;
    std::vector<Matrix<BaseFloat>> inputs;
    ASSERT_NO_THROW(GenerateRandomRequest(nnet, &rng, &req, &inputs));
    {
      NaiveEvaluator e(nnet, req, inputs);
      for (size_t o = 0; o < req.outputs.size(); o++) {
        Matrix<BaseFloat> out;
        ASSERT_NO_THROW(e.GetOutput(static_cast<int32>(o), &out));
        EXPECT_TRUE(out.IsFinite());
      }
    }
    CheckDerivatives(nnet, req, inputs, &rng, what,
                     opts.allow_nonsmooth ? &nonsmooth : &smooth);
  }
  EXPECT_EQ(kinds.size(), 3u);
  for (const char *f :
       {"recurrence", "ivector", "multiple-outputs", "dim-range", "Failover",
        "IfDefined", "Const", "Scale", "Round", "Switch", "splice", "skip",
        "AffineComponent", "LinearComponent", "RectifiedLinearComponent",
        "NormalizeComponent", "PnormComponent", "ElementwiseProductComponent"})
    EXPECT_TRUE(features.count(f)) << "never generated: " << f;
  std::cout << "finite-difference checks: smooth " << smooth.failures << "/"
            << smooth.checks << " failed, with kinks " << nonsmooth.failures
            << "/" << nonsmooth.checks << " failed\n";
  // Smooth networks must agree everywhere; with ReLU / Pnorm a perturbation
  // may cross a kink now and then.
  EXPECT_EQ(smooth.failures, 0);
  for (const std::string &m : smooth.messages) ADD_FAILURE() << m;
  EXPECT_LE(nonsmooth.failures, nonsmooth.checks / 50);
  if (nonsmooth.failures > nonsmooth.checks / 50)
    for (const std::string &m : nonsmooth.messages) ADD_FAILURE() << m;
}

}  // namespace
}  // namespace nnet3
