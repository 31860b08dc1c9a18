// tests/nnet3/train/training-synthetic-test.cc
// Training end to end on a small synthetic task with temporal context: the
// label of frame t is the class k maximising x[t-1][k] + x[t+1][k] (it does
// not depend on frame t itself), so a network must learn its first
// (context-splicing) layer through backprop. NnetTrainer on minibatches of
// merged examples must drive both the training and the held-out objective
// down by a wide margin and reach a held-out accuracy far above chance;
// and the same training with the first layer frozen (learning rate 0) must
// do clearly worse, which fails if the derivative does not reach that
// layer correctly. A small TDNN-F (TdnnComponent layers, a semi-orthogonal
// bottleneck and a bypass) and a small LSTM (LstmNonlinearityComponent with
// an IfDefined recurrence through BackpropTruncationComponent) must reach
// the same floors as the TDNN (the TDNN-F with max-change=0.75 on its
// components, as Kaldi's xconfig writes them).
#include <gtest/gtest.h>

#include "base/random.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/testing/random-nnet.h"
#include "nnet3/train/nnet-diagnostics.h"
#include "nnet3/train/nnet-trainer.h"

namespace nnet3 {
namespace {

const int32 kDim = 4, kFrames = 8;

std::string Config(BaseFloat first_layer_lrate) {
  return "input-node name=input dim=4\n"
         "component name=a1 type=AffineComponent input-dim=12 "
         "output-dim=32 learning-rate=" + std::to_string(first_layer_lrate) +
         "\n"
         "component-node name=a1 component=a1 "
         "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
         "component name=r1 type=RectifiedLinearComponent dim=32\n"
         "component-node name=r1 component=r1 input=a1\n"
         "component name=a2 type=AffineComponent input-dim=32 output-dim=4 "
         "learning-rate=0.05\n"
         "component-node name=a2 component=a2 input=r1\n"
         "component name=lsm type=LogSoftmaxComponent dim=4\n"
         "component-node name=lsm component=lsm input=a2\n"
         "output-node name=output input=lsm objective=linear\n";
}

// One example: input frames t = -1 .. kFrames, labels for t = 0 .. 7.
NnetExample MakeExample(RandomSource *rng) {
  Matrix<BaseFloat> x = RandomGaussMatrix(kFrames + 2, kDim, rng);
  Posterior post(kFrames);
  for (int32 t = 0; t < kFrames; t++) {
    int32 best = 0;
    BaseFloat best_score = -1e30;
    for (int32 k = 0; k < kDim; k++) {
      // rows t and t + 2 of x are frames t - 1 and t + 1.
      BaseFloat score = x(t, k) + x(t + 2, k);
      if (score > best_score) {
        best_score = score;
        best = k;
      }
    }
    post[t] = {{best, 1.0}};
  }
  NnetExample eg;
  eg.io.push_back(NnetIo("input", -1, x));
  eg.io.push_back(NnetIo("output", kDim, 0, post));
  return eg;
}

std::vector<NnetExample> MakeMinibatches(int32 num, int32 size,
                                         RandomSource *rng) {
  std::vector<NnetExample> out;
  for (int32 i = 0; i < num; i++) {
    std::vector<NnetExample> egs;
    for (int32 j = 0; j < size; j++) egs.push_back(MakeExample(rng));
    NnetExample merged;
    MergeExamples(egs, false, &merged);
    out.push_back(merged);
  }
  return out;
}

struct Result {
  double objf, accuracy;
};

Result Evaluate(const Nnet &nnet, const std::vector<NnetExample> &mbs) {
  NnetComputeProbOptions opts;
  NnetComputeProb prob(opts, nnet);
  for (const NnetExample &eg : mbs) prob.Compute(eg);
  const SimpleObjectiveInfo *o = prob.GetObjective("output");
  const PerDimObjectiveInfo *a = prob.GetAccuracy("output");
  return Result{o->tot_objective / o->tot_weight,
                a->tot_objective / a->tot_weight};
}

// Trains for 'epochs' passes; returns the final training-set objective
// (from the trainer's own totals of the last epoch).
double Train(Nnet *nnet, const std::vector<NnetExample> &train, int32 epochs) {
  NnetTrainerOptions opts;
  opts.momentum = 0.5;
  double last = 0.0;
  for (int32 e = 0; e < epochs; e++) {
    NnetTrainer trainer(opts, nnet);
    for (const NnetExample &eg : train) trainer.Train(eg);
    const ObjectiveFunctionInfo *info = trainer.GetObjective("output");
    last = info->tot_objf / info->tot_weight;
  }
  return last;
}

TEST(TrainingSyntheticTest, LearnsTemporalContext) {
  Srand(3);
  RandomSource rng(5);
  std::vector<NnetExample> train = MakeMinibatches(60, 16, &rng),
                           heldout = MakeMinibatches(10, 16, &rng);
  Srand(3);
  Nnet nnet = NnetFromConfigString(Config(0.05));
  Nnet frozen = NnetFromConfigString(Config(0.0));
  frozen = nnet;  // same initial parameters
  dynamic_cast<UpdatableComponent *>(
      frozen.GetComponent(frozen.GetComponentIndex("a1")))
      ->SetActualLearningRate(0.0);

  Result before = Evaluate(nnet, heldout);
  double train_objf = Train(&nnet, train, 15);
  Result after = Evaluate(nnet, heldout);
  Train(&frozen, train, 15);
  Result after_frozen = Evaluate(frozen, heldout);
  // Chance: log(1/4) = -1.386, accuracy 0.25.
  EXPECT_LT(before.objf, -1.0);
  EXPECT_GT(train_objf, -0.5);
  EXPECT_GT(after.objf, -0.6);
  EXPECT_GT(after.objf, before.objf + 0.6);
  EXPECT_GT(after.accuracy, 0.75);
  EXPECT_GT(after.objf, after_frozen.objf + 0.1)
      << "training the first layer through backprop should help: "
      << after.objf << " vs. frozen " << after_frozen.objf;
  std::cerr << "held-out objective " << before.objf << " -> " << after.objf
            << " (frozen first layer: " << after_frozen.objf
            << "), accuracy " << before.accuracy << " -> " << after.accuracy
            << "\n";
}

const char *kTdnnfConfig =
    "input-node name=input dim=4\n"
    "component name=tdnn1 type=TdnnComponent input-dim=4 output-dim=32 "
    "time-offsets=-1,0,1 learning-rate=0.05 max-change=0.75\n"
    "component-node name=tdnn1 component=tdnn1 input=input\n"
    "component name=relu1 type=RectifiedLinearComponent dim=32\n"
    "component-node name=relu1 component=relu1 input=tdnn1\n"
    "component name=f.linear type=TdnnComponent input-dim=32 output-dim=8 "
    "use-bias=false time-offsets=0 orthonormal-constraint=-1.0 "
    "learning-rate=0.05 max-change=0.75\n"
    "component-node name=f.linear component=f.linear input=relu1\n"
    "component name=f.affine type=TdnnComponent input-dim=8 output-dim=32 "
    "time-offsets=0 learning-rate=0.05 max-change=0.75\n"
    "component-node name=f.affine component=f.affine input=f.linear\n"
    "component name=f.relu type=RectifiedLinearComponent dim=32\n"
    "component-node name=f.relu component=f.relu input=f.affine\n"
    "component name=f.noop type=NoOpComponent dim=32\n"
    "component-node name=f.noop component=f.noop "
    "input=Sum(Scale(0.66, relu1), f.relu)\n"
    "component name=a2 type=AffineComponent input-dim=32 output-dim=4 "
    "learning-rate=0.05 max-change=0.75\n"
    "component-node name=a2 component=a2 input=f.noop\n"
    "component name=lsm type=LogSoftmaxComponent dim=4\n"
    "component-node name=lsm component=lsm input=a2\n"
    "output-node name=output input=lsm objective=linear\n";

const char *kLstmConfig =
    "input-node name=input dim=4\n"
    "component name=a1 type=NaturalGradientAffineComponent input-dim=12 "
    "output-dim=16 learning-rate=0.05\n"
    "component-node name=a1 component=a1 "
    "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
    "component name=W type=NaturalGradientAffineComponent input-dim=32 "
    "output-dim=64 learning-rate=0.05\n"
    "component-node name=W component=W "
    "input=Append(a1, IfDefined(Offset(m_trunc, -1)))\n"
    "component name=cell type=LstmNonlinearityComponent cell-dim=16 "
    "learning-rate=0.05\n"
    "component-node name=cell component=cell "
    "input=Append(W, IfDefined(Offset(c_trunc, -1)))\n"
    "dim-range-node name=m input-node=cell dim-offset=16 dim=16\n"
    "component name=trunc type=BackpropTruncationComponent dim=32\n"
    "component-node name=trunc component=trunc input=cell\n"
    "dim-range-node name=c_trunc input-node=trunc dim-offset=0 dim=16\n"
    "dim-range-node name=m_trunc input-node=trunc dim-offset=16 dim=16\n"
    "component name=a2 type=AffineComponent input-dim=16 output-dim=4 "
    "learning-rate=0.05\n"
    "component-node name=a2 component=a2 input=m\n"
    "component name=lsm type=LogSoftmaxComponent dim=4\n"
    "component-node name=lsm component=lsm input=a2\n"
    "output-node name=output input=lsm objective=linear\n";

// Trains a network of the given config on the task and checks the TDNN's
// floors.
void ExpectLearnsTheTask(const std::string &config, const std::string &what) {
  Srand(3);
  RandomSource rng(5);
  std::vector<NnetExample> train = MakeMinibatches(60, 16, &rng),
                           heldout = MakeMinibatches(10, 16, &rng);
  Srand(3);
  Nnet nnet = NnetFromConfigString(config);
  Result before = Evaluate(nnet, heldout);
  double train_objf = Train(&nnet, train, 15);
  Result after = Evaluate(nnet, heldout);
  EXPECT_LT(before.objf, -1.0) << what;
  EXPECT_GT(train_objf, -0.5) << what;
  EXPECT_GT(after.objf, -0.6) << what;
  EXPECT_GT(after.accuracy, 0.75) << what;
  std::cerr << what << ": held-out objective " << before.objf << " -> "
            << after.objf << ", accuracy " << before.accuracy << " -> "
            << after.accuracy << "\n";
}

TEST(TrainingSyntheticTest, TdnnfLearnsTemporalContext) {
  ExpectLearnsTheTask(kTdnnfConfig, "TDNN-F");
}

TEST(TrainingSyntheticTest, LstmLearnsTemporalContext) {
  ExpectLearnsTheTask(kLstmConfig, "LSTM");
}

}  // namespace
}  // namespace nnet3
