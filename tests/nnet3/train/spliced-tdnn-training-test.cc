// tests/nnet3/train/spliced-tdnn-training-test.cc
// NnetTrainer with --spliced-affine-min-dim: spliced affine layers trained
// as TdnnComponents (nnet3/nnet/nnet-splice-tdnn.h) must give the model
// that training the affines themselves gives (the reference: the trainer
// with the rewrite off, which Kaldi's train conformance cases check), with
// natural gradient on both of TdnnComponent's update paths (the spliced
// input left unformed when the output is narrower than it, formed
// otherwise), plain SGD, BatchNorm, momentum and max-change; between calls
// the network must have its own components, also after a minibatch that
// fails, and the written model must be the reference's bytes apart from
// the numbers.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "base/random.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"
#include "nnet3/train/nnet-trainer.h"

namespace nnet3 {
namespace {

// a1: NaturalGradientAffine 24 -> 10 (unformed input side: 10 < 25), with
// preconditioner options other than TdnnComponent's defaults;
// a2: NaturalGradientAffine 20 -> 30 (formed: 30 >= 21); a3: plain
// AffineComponent over three offsets of a2's BatchNorm.
const char *kConfig =
    "input-node name=input dim=8\n"
    "component name=a1 type=NaturalGradientAffineComponent input-dim=24 "
    "output-dim=10 learning-rate=0.02 max-change=0.75 rank-in=6 rank-out=4 "
    "update-period=2 num-samples-history=300 alpha=2\n"
    "component-node name=a1 component=a1 "
    "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
    "component name=r1 type=RectifiedLinearComponent dim=10\n"
    "component-node name=r1 component=r1 input=a1\n"
    "component name=a2 type=NaturalGradientAffineComponent input-dim=20 "
    "output-dim=30 learning-rate=0.02 max-change=0.75\n"
    "component-node name=a2 component=a2 "
    "input=Append(Offset(r1, -2), Offset(r1, 2))\n"
    "component name=r2 type=RectifiedLinearComponent dim=30\n"
    "component-node name=r2 component=r2 input=a2\n"
    "component name=b2 type=BatchNormComponent dim=30\n"
    "component-node name=b2 component=b2 input=r2\n"
    "component name=a3 type=AffineComponent input-dim=90 output-dim=6 "
    "learning-rate=0.02\n"
    "component-node name=a3 component=a3 "
    "input=Append(Offset(b2, -1), b2, Offset(b2, 1))\n"
    "component name=lsm type=LogSoftmaxComponent dim=6\n"
    "component-node name=lsm component=lsm input=a3\n"
    "output-node name=output input=lsm objective=linear\n";

const int32 kFrames = 8, kLeft = 4, kRight = 4;

NnetExample Minibatch(int32 num_egs, RandomSource *rng) {
  std::vector<NnetExample> egs;
  for (int32 i = 0; i < num_egs; i++) {
    Matrix<BaseFloat> x = RandomGaussMatrix(kLeft + kFrames + kRight, 8, rng);
    Posterior post(kFrames);
    for (int32 t = 0; t < kFrames; t++)
      post[t] = {{rng->Int(0, 5), 1.0}};
    NnetExample eg;
    eg.io.push_back(NnetIo("input", -kLeft, x));
    eg.io.push_back(NnetIo("output", 6, 0, post));
    egs.push_back(eg);
  }
  NnetExample merged;
  MergeExamples(egs, false, &merged);
  return merged;
}

std::string Text(const Nnet &nnet) {
  std::ostringstream os;
  nnet.Write(os, false);
  return os.str();
}

// The text of a network without its numbers and brackets: the config
// lines, component names and types and the tokens.
std::string Skeleton(const std::string &text) {
  std::istringstream is(text);
  std::string token, out;
  while (is >> token) {
    char *end = nullptr;
    std::strtod(token.c_str(), &end);
    if ((end != token.c_str() && *end == '\0') || token == "[" ||
        token == "]")
      continue;
    out += token + ' ';
  }
  return out;
}

// Trains a copy of 'init' on 'mbs' with the given rewrite threshold.
Nnet Trained(const Nnet &init, const std::vector<NnetExample> &mbs,
             int32 min_dim, BaseFloat momentum, int32 *num_applied) {
  Nnet nnet(init);
  NnetTrainerOptions opts;
  opts.spliced_affine_min_dim = min_dim;
  opts.momentum = momentum;
  NnetTrainer trainer(opts, &nnet);
  for (const NnetExample &eg : mbs) {
    trainer.Train(eg);
    // Between calls: Kaldi's components and descriptors.
    EXPECT_EQ(Skeleton(Text(nnet)), Skeleton(Text(init)));
  }
  *num_applied = trainer.NumSplicedAffinesAsTdnn();
  // Outside Train() the delta network has the affines too.
  EXPECT_EQ(Skeleton(Text(trainer.DeltaNnet())), Skeleton(Text(init)));
  return nnet;
}

TEST(SplicedTdnnTraining, MatchesTrainingTheAffines) {
  RandomSource rng(11);
  Nnet init = NnetFromConfigString(kConfig);
  std::vector<NnetExample> mbs;
  for (int32 i = 0; i < 6; i++) mbs.push_back(Minibatch(16, &rng));
  for (BaseFloat momentum : {0.0f, 0.5f}) {
    SCOPED_TRACE("momentum " + std::to_string(momentum));
    int32 applied_ref = -1, applied = -1;
    // One minibatch: float rounding only.
    {
      std::vector<NnetExample> one(mbs.begin(), mbs.begin() + 1);
      Nnet ref = Trained(init, one, 0, momentum, &applied_ref),
           ours = Trained(init, one, 1, momentum, &applied);
      EXPECT_LT(ParameterDifference(ref, ours), 2e-6);
      // The update moved the parameters much more than that.
      EXPECT_GT(ParameterDifference(init, ref), 1e-3);
      EXPECT_EQ(Skeleton(Text(ours)), Skeleton(Text(ref)));
    }
    // Six: the preconditioners' state carries over from call to call (a
    // fresh estimate on each call would differ far more than this).
    Nnet ref = Trained(init, mbs, 0, momentum, &applied_ref),
         ours = Trained(init, mbs, 1, momentum, &applied);
    EXPECT_LT(ParameterDifference(ref, ours), 2e-5);
    EXPECT_EQ(Skeleton(Text(ours)), Skeleton(Text(ref)));
    EXPECT_EQ(applied_ref, 0);
    EXPECT_EQ(applied, 3);
  }
}

// A minibatch that does not fit the network fails inside Train(); the network
// is left with its own components, and training goes on.
TEST(SplicedTdnnTraining, AFailedMinibatchLeavesTheNetworkAsItWas) {
  RandomSource rng(3);
  Nnet nnet = NnetFromConfigString(kConfig);
  const std::string before = Text(nnet);
  NnetTrainerOptions opts;
  opts.spliced_affine_min_dim = 1;
  NnetTrainer trainer(opts, &nnet);
  NnetExample bad = Minibatch(2, &rng);
  bad.io[1].name = "no-such-output";  // found out inside Train()
  EXPECT_THROW(trainer.Train(bad), UserError);
  EXPECT_EQ(Text(nnet), before);
  trainer.Train(Minibatch(2, &rng));
  EXPECT_EQ(Skeleton(Text(nnet)), Skeleton(before));
  EXPECT_NE(Text(nnet), before);
}

}  // namespace
}  // namespace nnet3
