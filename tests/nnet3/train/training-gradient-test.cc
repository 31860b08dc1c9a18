// tests/nnet3/train/training-gradient-test.cc
// Finite-difference checks of the whole training objective: for a network
// holding each updatable component type (natural-gradient ones included,
// their preconditioner off because the gradient network is a plain
// gradient), the derivative that NnetComputeProb accumulates
// (compute-deriv) must predict the change of the objective along a random
// direction in that component's parameters:
//   (F(theta + e d) - F(theta - e d)) / 2e  ~=  <grad, d>.
// Linear (LogSoftmax + sparse targets) and quadratic objectives, with
// temporal context in the network. Then one NnetTrainer step (plain SGD,
// no max-change, no momentum) must equal theta + learning_rate * grad, and
// one backstitch step (scale alpha) must equal the two-step update built
// from those gradients: theta1 = theta - alpha * lr * grad(theta), then
// theta1 + (1 + alpha) * lr * grad(theta1); with scale 0 the trainer must
// give plain SGD's bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <vector>

#include "base/random.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/testing/random-nnet.h"
#include "nnet3/train/nnet-arith.h"
#include "nnet3/train/nnet-diagnostics.h"
#include "nnet3/train/nnet-trainer.h"

namespace nnet3 {
namespace {

struct ComponentCase {
  std::string name, line;  // line: "type=... <options>" for dim 6 -> 6
};

std::vector<ComponentCase> Cases() {
  return {
      {"Affine", "type=AffineComponent input-dim=6 output-dim=6"},
      {"NaturalGradientAffine",
       "type=NaturalGradientAffineComponent input-dim=6 output-dim=6"},
      {"Linear", "type=LinearComponent input-dim=6 output-dim=6"},
      {"PerElementScale",
       "type=PerElementScaleComponent dim=6 param-mean=1.0 "
       "param-stddev=0.5"},
      {"NaturalGradientPerElementScale",
       "type=NaturalGradientPerElementScaleComponent dim=6 param-mean=1.0 "
       "param-stddev=0.5"},
      {"PerElementOffset",
       "type=PerElementOffsetComponent dim=6 param-mean=0.1 "
       "param-stddev=0.3"},
      {"ScaleAndOffset", "type=ScaleAndOffsetComponent dim=6"},
      {"ConstantFunction",
       "type=ConstantFunctionComponent input-dim=6 output-dim=6 "
       "output-mean=0.2 output-stddev=0.5"},
  };
}

// input (4) -> affine with context -1..1 -> tanh -> X -> sigmoid ->
// affine -> [log-softmax] -> output.
std::string Config(const ComponentCase &c, bool quadratic) {
  std::string s =
      "input-node name=input dim=4\n"
      "component name=a1 type=AffineComponent input-dim=12 output-dim=6 "
      "learning-rate=0.01\n"
      "component-node name=a1 component=a1 "
      "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
      "component name=t1 type=TanhComponent dim=6\n"
      "component-node name=t1 component=t1 input=a1\n"
      "component name=x " + c.line + " learning-rate=0.01\n"
      "component-node name=x component=x input=t1\n"
      "component name=s1 type=SigmoidComponent dim=6\n"
      "component-node name=s1 component=s1 input=x\n"
      "component name=a2 type=AffineComponent input-dim=6 output-dim=5 "
      "learning-rate=0.01\n"
      "component-node name=a2 component=a2 input=s1\n";
  if (quadratic) {
    s += "output-node name=output input=a2 objective=quadratic\n";
  } else {
    s += "component name=lsm type=LogSoftmaxComponent dim=5\n"
         "component-node name=lsm component=lsm input=a2\n"
         "output-node name=output input=lsm objective=linear\n";
  }
  return s;
}

// A minibatch of 3 sequences of 4 output frames.
NnetExample MakeMinibatch(bool quadratic, RandomSource *rng) {
  std::vector<NnetExample> egs;
  for (int32 n = 0; n < 3; n++) {
    NnetExample eg;
    eg.io.push_back(NnetIo("input", -1, RandomGaussMatrix(6, 4, rng)));
    if (quadratic) {
      eg.io.push_back(NnetIo("output", 0, RandomGaussMatrix(4, 5, rng)));
    } else {
      Posterior post(4);
      for (int32 t = 0; t < 4; t++) post[t] = {{rng->Int(0, 4), 1.0}};
      eg.io.push_back(NnetIo("output", 5, 0, post));
    }
    egs.push_back(eg);
  }
  NnetExample merged;
  MergeExamples(egs, false, &merged);
  return merged;
}

double TotalObjective(const Nnet &nnet, const NnetExample &eg) {
  NnetComputeProbOptions opts;
  opts.compute_accuracy = false;
  NnetComputeProb prob(opts, nnet);
  prob.Compute(eg);
  return prob.GetObjective("output")->tot_objective;
}

// A direction that is random in the parameters of component c only.
Nnet Direction(const Nnet &nnet, int32 c) {
  Nnet d(nnet);
  ScaleNnet(0.0, &d);
  UpdatableComponent *u =
      dynamic_cast<UpdatableComponent *>(d.GetComponent(c));
  u->PerturbParams(1.0);
  return d;
}

void PrintTo(const ComponentCase &c, std::ostream *os) { *os << c.name; }

class GradientTest
    : public ::testing::TestWithParam<std::tuple<ComponentCase, bool> > {};

TEST_P(GradientTest, FiniteDifferencesMatchGradient) {
  const ComponentCase &cc = std::get<0>(GetParam());
  bool quadratic = std::get<1>(GetParam());
  Srand(7);
  RandomSource rng(11);
  Nnet nnet = NnetFromConfigString(Config(cc, quadratic));
  NnetExample eg = MakeMinibatch(quadratic, &rng);

  NnetComputeProbOptions opts;
  opts.compute_deriv = true;
  opts.compute_accuracy = false;
  NnetComputeProb prob(opts, nnet);
  prob.Compute(eg);
  const Nnet &grad = prob.GetDeriv();

  int32 checked = 0;
  for (int32 c = 0; c < nnet.NumComponents(); c++) {
    if (!(nnet.GetComponent(c)->Properties() & kUpdatableComponent))
      continue;
    Nnet dir = Direction(nnet, c);
    double predicted = DotProduct(grad, dir);
    // Central differences at two step sizes, combined (Richardson) so the
    // third-order term cancels.
    auto central = [&](double eps) {
      Nnet plus(nnet), minus(nnet);
      AddNnet(dir, eps, &plus);
      AddNnet(dir, -eps, &minus);
      return (TotalObjective(plus, eg) - TotalObjective(minus, eg)) /
             (2 * eps);
    };
    double fd = (4.0 * central(1e-2) - central(2e-2)) / 3.0;
    SCOPED_TRACE(nnet.GetComponentName(c));
    if (cc.name == "ConstantFunction" && nnet.GetComponentName(c) == "a1") {
      // Nothing downstream depends on a1: both derivatives are zero.
      EXPECT_EQ(predicted, 0.0);
      EXPECT_NEAR(fd, 0.0, 1e-3);
    } else {
      // The check is only informative if the directional derivative is
      // not tiny.
      EXPECT_GT(std::fabs(predicted), 5e-3) << "predicted " << predicted;
      EXPECT_NEAR(fd, predicted, 0.02 * std::fabs(predicted) + 1e-3)
          << "fd " << fd << " predicted " << predicted;
    }
    checked++;
  }
  EXPECT_EQ(checked, 3);
}

// The case as the trainer updates it without preconditioning: types that
// use natural gradient by default get use-natural-gradient=false; false for
// the types whose trainer updates are always preconditioned.
bool PlainUpdateCase(const ComponentCase &cc, ComponentCase *plain) {
  if (cc.name.find("NaturalGradient") == 0 || cc.name == "Linear")
    return false;
  *plain = cc;
  if (cc.name == "ScaleAndOffset" || cc.name == "PerElementOffset" ||
      cc.name == "ConstantFunction")
    plain->line += " use-natural-gradient=false";
  return true;
}

// Per updatable component: "trained" equals "expected" to 1e-4 of how far
// it moved from "start", and it did move (except a1 of ConstantFunction,
// which gets no gradient).
void ExpectParamsMatch(const ComponentCase &cc, const Nnet &start,
                       const Nnet &trained, const Nnet &expected) {
  Nnet diff(trained);
  AddNnet(expected, -1.0, &diff);
  Nnet change(trained);
  AddNnet(start, -1.0, &change);
  Vector<BaseFloat> diff2, change2;
  ComponentDotProducts(diff, diff, &diff2);
  ComponentDotProducts(change, change, &change2);
  for (int32 i = 0; i < diff2.Dim(); i++) {
    if (!(cc.name == "ConstantFunction" && i == 0)) {
      EXPECT_GT(change2(i), 0.0) << "component " << i << " did not change";
    }
    EXPECT_LT(std::sqrt(diff2(i)), 1e-4 * std::sqrt(change2(i)) + 1e-7)
        << "component " << i;
  }
}

// The learning-rate-scaled gradient of the total objective at "nnet".
Nnet ScaledGradient(const Nnet &nnet, const NnetExample &eg, double *objf) {
  NnetComputeProbOptions opts;
  opts.compute_deriv = true;
  opts.compute_accuracy = false;
  NnetComputeProb prob(opts, nnet);
  prob.Compute(eg);
  *objf = prob.GetObjective("output")->tot_objective;
  Nnet g(prob.GetDeriv());
  ScaleNnet(0.01, &g);  // all learning rates are 0.01
  return g;
}

TEST_P(GradientTest, TrainerStepIsLearningRateTimesGradient) {
  const ComponentCase &cc = std::get<0>(GetParam());
  bool quadratic = std::get<1>(GetParam());
  ComponentCase plain;
  if (!PlainUpdateCase(cc, &plain))
    GTEST_SKIP() << "the trainer preconditions " << cc.name
                 << " updates (natural gradient)";
  Srand(7);
  RandomSource rng(12);
  Nnet nnet = NnetFromConfigString(Config(plain, quadratic));
  NnetExample eg = MakeMinibatch(quadratic, &rng);
  double objf;
  Nnet expected(nnet);
  AddNnet(ScaledGradient(nnet, eg, &objf), 1.0, &expected);

  Nnet trained(nnet);
  NnetTrainerOptions topts;
  topts.max_param_change = 0.0;
  {
    NnetTrainer trainer(topts, &trained);
    trainer.Train(eg);
    const ObjectiveFunctionInfo *info = trainer.GetObjective("output");
    ASSERT_NE(info, nullptr);
    EXPECT_NEAR(info->tot_objf, objf, 1e-4 * std::fabs(info->tot_objf));
  }
  ExpectParamsMatch(cc, nnet, trained, expected);
}

TEST_P(GradientTest, BackstitchStepIsTheTwoStepUpdate) {
  const ComponentCase &cc = std::get<0>(GetParam());
  bool quadratic = std::get<1>(GetParam());
  ComponentCase plain;
  if (!PlainUpdateCase(cc, &plain))
    GTEST_SKIP() << "the trainer preconditions " << cc.name
                 << " updates (natural gradient)";
  Srand(7);
  RandomSource rng(13);
  Nnet nnet = NnetFromConfigString(Config(plain, quadratic));
  NnetExample eg = MakeMinibatch(quadratic, &rng);
  const double alpha = 0.3;
  double objf0, objf1;
  Nnet expected(nnet);
  AddNnet(ScaledGradient(nnet, eg, &objf0), -alpha, &expected);
  Nnet g1 = ScaledGradient(expected, eg, &objf1);
  AddNnet(g1, 1.0 + alpha, &expected);

  Nnet trained(nnet);
  NnetTrainerOptions topts;
  topts.max_param_change = 0.0;
  topts.backstitch_training_scale = alpha;
  topts.backstitch_training_interval = 1;
  {
    NnetTrainer trainer(topts, &trained);
    trainer.Train(eg);
    const ObjectiveFunctionInfo *first = trainer.GetObjective("output"),
                                *second =
                                    trainer.GetObjective("output_backstitch");
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_NEAR(first->tot_objf, objf0, 1e-4 * std::fabs(objf0));
    EXPECT_NEAR(second->tot_objf, objf1, 1e-4 * std::fabs(objf1));
  }
  ExpectParamsMatch(cc, nnet, trained, expected);
}

INSTANTIATE_TEST_SUITE_P(
    All, GradientTest,
    ::testing::Combine(::testing::ValuesIn(Cases()), ::testing::Bool()),
    [](const ::testing::TestParamInfo<std::tuple<ComponentCase, bool> > &i) {
      return std::get<0>(i.param).name +
             (std::get<1>(i.param) ? "_quadratic" : "_linear");
    });

TEST(Backstitch, ScaleZeroIsPlainSgdAndTheIntervalPicksMinibatches) {
  ComponentCase cc = Cases()[0];
  RandomSource rng(21);
  Nnet nnet = NnetFromConfigString(Config(cc, false));
  std::vector<NnetExample> egs;
  for (int32 i = 0; i < 6; i++) egs.push_back(MakeMinibatch(false, &rng));
  auto train = [&](BaseFloat scale, int32 interval, Nnet *out,
                   int32 *num_backstitch) {
    Srand(5);
    *out = nnet;
    NnetTrainerOptions topts;
    topts.backstitch_training_scale = scale;
    topts.backstitch_training_interval = interval;
    NnetTrainer trainer(topts, out);
    for (const NnetExample &eg : egs) trainer.Train(eg);
    const ObjectiveFunctionInfo *b = trainer.GetObjective("output_backstitch");
    *num_backstitch = b == nullptr ? 0 : static_cast<int32>(
        std::lround(b->tot_weight / trainer.GetObjective("output")->tot_weight *
                    egs.size()));
  };
  Nnet plain, zero, every3;
  int32 n_plain, n_zero, n_every3;
  train(0.0, 1, &plain, &n_plain);
  train(0.0, 3, &zero, &n_zero);
  EXPECT_EQ(n_plain, 0);
  EXPECT_EQ(n_zero, 0);
  std::ostringstream a, b;
  plain.Write(a, true);
  zero.Write(b, true);
  EXPECT_EQ(a.str(), b.str()) << "scale 0 must be plain SGD";
  // Interval 3: two of the six minibatches get the second pass.
  train(0.5, 3, &every3, &n_every3);
  EXPECT_EQ(n_every3, 2);
  std::ostringstream c;
  every3.Write(c, true);
  EXPECT_NE(a.str(), c.str());
}

TEST(Backstitch, OptionsAreChecked) {
  NnetTrainerOptions o;
  o.backstitch_training_scale = 0.3;
  o.momentum = 0.5;
  EXPECT_THROW(o.Check(), UserError);
  o.momentum = 0.0;
  o.backstitch_training_interval = 0;
  EXPECT_THROW(o.Check(), UserError);
  o.backstitch_training_interval = 4;
  o.backstitch_training_scale = -1.0;
  EXPECT_THROW(o.Check(), UserError);
}

}  // namespace
}  // namespace nnet3
