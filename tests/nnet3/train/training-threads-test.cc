// tests/nnet3/train/training-threads-test.cc
// Training on the matrix library's threads: a TDNN layer pair with natural
// gradient, BatchNorm and splicing, large enough that its products are
// split over the row threads (matrix/blas-threads.h) and its elementwise
// work runs in row or column blocks, trained for a few minibatches with 2
// and 3 threads must give a model with exactly the bytes of the same
// training on one thread (the oracle), and the products must really have
// been split.
#include <gtest/gtest.h>

#include <sstream>

#include "base/random.h"
#include "matrix/blas-threads.h"
#include "matrix/row-threads.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/testing/random-nnet.h"
#include "nnet3/train/nnet-trainer.h"

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);

namespace nnet3 {
namespace {

const char *kConfig =
    "input-node name=input dim=40\n"
    "component name=a1 type=NaturalGradientAffineComponent input-dim=120 "
    "output-dim=256 max-change=0.75\n"
    "component-node name=a1 component=a1 "
    "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
    "component name=r1 type=RectifiedLinearComponent dim=256 "
    "self-repair-scale=1e-05\n"
    "component-node name=r1 component=r1 input=a1\n"
    "component name=b1 type=BatchNormComponent dim=256 target-rms=1.0\n"
    "component-node name=b1 component=b1 input=r1\n"
    "component name=a2 type=NaturalGradientAffineComponent input-dim=768 "
    "output-dim=256 max-change=0.75\n"
    "component-node name=a2 component=a2 "
    "input=Append(Offset(b1, -1), b1, Offset(b1, 1))\n"
    "component name=r2 type=RectifiedLinearComponent dim=256\n"
    "component-node name=r2 component=r2 input=a2\n"
    "component name=b2 type=BatchNormComponent dim=256 target-rms=1.0\n"
    "component-node name=b2 component=b2 input=r2\n"
    "component name=out type=NaturalGradientAffineComponent input-dim=256 "
    "output-dim=300 max-change=1.5\n"
    "component-node name=out component=out input=b2\n"
    "component name=lsm type=LogSoftmaxComponent dim=300\n"
    "component-node name=lsm component=lsm input=out\n"
    "output-node name=output input=lsm objective=linear\n";

// 64 sequences of 8 labelled frames with 2 frames of context each side.
NnetExample Minibatch(RandomSource *rng) {
  std::vector<NnetExample> egs(64);
  for (NnetExample &eg : egs) {
    eg.io.push_back(NnetIo("input", -2, RandomGaussMatrix(12, 40, rng)));
    Posterior labels(8);
    for (auto &l : labels) l.push_back(std::make_pair(rng->Int(0, 299), 1.0f));
    eg.io.push_back(NnetIo("output", 300, 0, labels));
  }
  NnetExample merged;
  MergeExamples(egs, false, &merged);
  return merged;
}

std::string TrainedModelBytes(const Nnet &init, int32 threads,
                              const std::vector<NnetExample> &minibatches) {
  SetRowThreads(threads);
  Srand(5);  // the nonlinearities' random self-repair and statistics skips
  Nnet nnet(init);
  {
    NnetTrainerOptions opts;
    opts.momentum = 0.5;
    NnetTrainer trainer(opts, &nnet);
    for (const NnetExample &eg : minibatches) trainer.Train(eg);
  }
  SetRowThreads(0);
  std::ostringstream os;
  nnet.Write(os, true);
  return os.str();
}

TEST(TrainingThreads, SameModelBytesForAnyThreadCount) {
  const int blas = openblas_get_num_threads();
  openblas_set_num_threads(1);
  RandomSource rng(11);
  std::vector<NnetExample> minibatches;
  for (int32 i = 0; i < 3; i++) minibatches.push_back(Minibatch(&rng));
  const Nnet init = NnetFromConfigString(kConfig);  // random parameters
  const std::string one = TrainedModelBytes(init, 1, minibatches);
  for (int32 threads : {2, 3}) {
    const int64_t splits = blas::SplitGemmCount();
    const std::string many = TrainedModelBytes(init, threads, minibatches);
    EXPECT_GT(blas::SplitGemmCount(), splits + 10)
        << "the products were not split over " << threads << " threads";
    EXPECT_TRUE(many == one) << "the model trained on " << threads
                             << " threads differs from the one-thread model";
  }
  openblas_set_num_threads(blas);
}

}  // namespace
}  // namespace nnet3
