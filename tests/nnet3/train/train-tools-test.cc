// tests/nnet3/train/train-tools-test.cc
// The training tools from the command line, on Kaldi's reference data
// (tests/data/kaldi/train) and small generated networks:
//  - determinism: the same --srand and inputs give the same model bytes
//    (with dropout in training mode, a different seed gives other bytes),
//    and so do 1 and 2 threads (BLAS's threads handed to the library);
//  - bad inputs, each with its message and exit status 1: egs whose
//    dimensions do not fit the model, egs for an output the model does not
//    have, NaN in the features (named with the key), truncated egs;
//  - a --read-cache file with an invalid computation: one warning, the
//    computation is recompiled, the model is unchanged;
//  - kill -9 while nnet3-train writes its model leaves the previous model
//    in place, byte for byte;
//  - nnet3-compute-from-egs, nnet3-average, nnet3-combine and
//    nnet3-show-progress against independent oracles (Kaldi's logged
//    objective, parameter arithmetic done here component by component).
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <thread>

#include "common/testing.h"
#include "base/random.h"
#include "matrix/table-types.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/nnet/nnet.h"
#include "nnet3/testing/random-nnet.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {
namespace testing {
namespace {

std::string TrainData() { return DataDir() + "/kaldi/train"; }

// The affine reference network with a dropout component after relu1.
const char *kDropoutConfig =
    "input-node name=input dim=10\n"
    "component name=affine1 type=AffineComponent input-dim=30 output-dim=32 "
    "learning-rate=0.01\n"
    "component-node name=affine1 component=affine1 "
    "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
    "component name=relu1 type=RectifiedLinearComponent dim=32\n"
    "component-node name=relu1 component=relu1 input=affine1\n"
    "component name=drop type=DropoutComponent dim=32 "
    "dropout-proportion=0.3\n"
    "component-node name=drop component=drop input=relu1\n"
    "component name=affine2 type=AffineComponent input-dim=32 output-dim=12 "
    "learning-rate=0.01\n"
    "component-node name=affine2 component=affine2 input=drop\n"
    "component name=logsoftmax type=LogSoftmaxComponent dim=12\n"
    "component-node name=logsoftmax component=logsoftmax input=affine2\n"
    "output-node name=output input=logsoftmax objective=linear\n";

std::vector<float> ComponentParams(const Nnet &nnet, const std::string &name) {
  const UpdatableComponent *u = dynamic_cast<const UpdatableComponent *>(
      nnet.GetComponent(nnet.GetComponentIndex(name)));
  EXPECT_NE(u, nullptr) << name;
  Vector<BaseFloat> v(u->NumParameters());
  u->Vectorize(&v);
  return std::vector<float>(v.Data(), v.Data() + v.Dim());
}

Nnet ReadNnet(const std::string &path) {
  Nnet nnet;
  ReadKaldiObject(path, &nnet);
  return nnet;
}

TEST(TrainToolsTest, UsageWithoutArguments) {
  for (const char *tool :
       {"nnet3-train", "nnet3-compute-prob", "nnet3-average", "nnet3-combine",
        "nnet3-show-progress", "nnet3-compute-from-egs"}) {
    CommandResult r = RunCommand(tool);
    EXPECT_EQ(r.exit_status, 1) << tool;
    EXPECT_NE(r.err.find("Usage"), std::string::npos) << tool << r.err;
  }
}

TEST(TrainToolsTest, SameSeedSameBytesWithDropout) {
  TempDir tmp;
  WriteFile(tmp.File("drop.config"), kDropoutConfig);
  CommandResult r = RunCommand("nnet3-init drop.config 0.raw", tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string egs = "ark:" + TrainData() + "/affine.mb3.ark";
  for (const char *out : {"a.raw", "b.raw"}) {
    r = RunCommand("nnet3-train --use-gpu=no --srand=5 0.raw " + egs + " " + out,
                   tmp.path());
    ASSERT_EQ(r.exit_status, 0) << r.err;
  }
  r = RunCommand("nnet3-train --use-gpu=no --srand=6 0.raw " + egs + " c.raw", tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string a = ReadFile(tmp.File("a.raw")), b = ReadFile(tmp.File("b.raw")),
              c = ReadFile(tmp.File("c.raw")),
              init = ReadFile(tmp.File("0.raw"));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, init);
  EXPECT_NE(a, c) << "dropout should be active in training and follow --srand";
}

TEST(TrainToolsTest, PeriodicObjectiveLines) {
  // With --print-interval=1 the first minibatch's line reports the
  // objective Kaldi logged for that minibatch alone (train.tsv, step1).
  CommandResult r = RunCommand(
      "nnet3-train --use-gpu=no --print-interval=1 --momentum=0 --max-param-change=0 "
      "train/affine.raw ark:train/affine.mb3.ark /dev/null",
      DataDir() + "/kaldi");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("Average objective function for 'output' for "
                       "minibatches 0-0 is -3.40139 over 123 frames."),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("for minibatches 1-1 is "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Overall average objective function for 'output' is "),
            std::string::npos)
      << r.err;
}

TEST(TrainToolsTest, ComputationCacheRoundTrip) {
  // A cache written by one run and read by the next gives the same model.
  TempDir tmp;
  std::string args = TrainData() + "/affine.raw ark:" + TrainData() +
                     "/affine.mb3.ark ";
  CommandResult r = RunCommand(
      "nnet3-train --use-gpu=no --write-cache=c.cache " + args + "a.raw", tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  ASSERT_TRUE(FileExists(tmp.File("c.cache")));
  r = RunCommand("nnet3-train --use-gpu=no --read-cache=c.cache " + args + "b.raw",
                 tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("Read computation cache from c.cache"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ReadFile(tmp.File("a.raw")), ReadFile(tmp.File("b.raw")));
}

TEST(TrainToolsTest, InvalidCacheEntryIsRecompiledWithOneWarning) {
  // A cache whose first computation has an out-of-range submatrix index
  // (its first kAllocMatrix made to name submatrix 912): one
  // warning naming the entry and the command, the computation is compiled
  // again and the model is the same as without the cache.
  TempDir tmp;
  std::string args = TrainData() + "/affine.raw ark:" + TrainData() +
                     "/affine.mb3.ark ";
  CommandResult r = RunCommand(
      "nnet3-train --use-gpu=no --write-cache=c.cache " + args + "a.raw",
      tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::string bytes = ReadFile(tmp.File("c.cache"));
  // Binary command: "<Cmd> ", then (size byte 4, int32) type, (4, float)
  // alpha, (4, int32) argument count, the int32 arguments.
  const std::string alloc("<Cmd> \x04\x00\x00\x00\x00", 11);
  size_t pos = bytes.find(alloc);
  ASSERT_NE(pos, std::string::npos);
  // ... in the first entry.
  size_t second = bytes.find("<ComputationRequest>",
                             bytes.find("<ComputationRequest>") + 1);
  ASSERT_TRUE(second == std::string::npos || pos < second);
  pos += 6 + 15;  // arg1
  ASSERT_LE(pos + 4, bytes.size());
  const int32 bad_index = 912;
  bytes.replace(pos, 4, reinterpret_cast<const char *>(&bad_index), 4);
  WriteFile(tmp.File("bad.cache"), bytes);
  r = RunCommand("nnet3-train --use-gpu=no --read-cache=bad.cache " + args +
                     "b.raw",
                 tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  size_t num_warnings = 0;
  for (size_t p = r.err.find("WARNING"); p != std::string::npos;
       p = r.err.find("WARNING", p + 1))
    num_warnings++;
  EXPECT_EQ(num_warnings, 1u) << r.err;
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex("Ignoring 1 invalid computation read from bad.cache "
                        "\\(they will be recompiled\\): cached computation 0 "
                        "in bad.cache, command c[0-9]+ \\(kAllocMatrix\\): matrix "
                        "submatrix index 912 is out of range \\(the "
                        "computation has [0-9]+ submatrices\\)")))
      << r.err;
  EXPECT_EQ(ReadFile(tmp.File("a.raw")), ReadFile(tmp.File("b.raw")));
}

TEST(TrainToolsTest, EgsDimensionMismatch) {
  CommandResult r = RunCommand(
      "nnet3-train --use-gpu=no train/batchnorm.raw ark:train/affine.mb1.ark out.raw",
      DataDir() + "/kaldi");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("Example merged-0-16: The example's 'input' has "
                       "dimension 10 but the network's input node 'input' "
                       "has dimension 8"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(FileExists(DataDir() + "/kaldi/out.raw"));
  r = RunCommand(
      "nnet3-compute-prob train/batchnorm.raw ark:train/affine.merged.ark",
      DataDir() + "/kaldi");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("has dimension 10 but"), std::string::npos) << r.err;
}

TEST(TrainToolsTest, MissingOutputNode) {
  TempDir tmp;
  std::string config = kDropoutConfig;
  config.replace(config.find("output-node name=output"),
                 std::string("output-node name=output").size(),
                 "output-node name=output-xent");
  WriteFile(tmp.File("x.config"), config);
  ASSERT_EQ(RunCommand("nnet3-init x.config x.raw", tmp.path()).exit_status,
            0);
  CommandResult r = RunCommand(
      "nnet3-train --use-gpu=no x.raw ark:" + TrainData() + "/affine.mb1.ark out.raw",
      tmp.path());
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("Example merged-0-16"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'output'"), std::string::npos) << r.err;
  EXPECT_FALSE(FileExists(tmp.File("out.raw")));
}

TEST(TrainToolsTest, NanInFeaturesNamedWithKey) {
  TempDir tmp;
  {
    SequentialNnetExampleReader reader("ark:" + TrainData() +
                                       "/affine.mb3.ark");
    NnetExampleWriter writer("ark:" + tmp.File("nan.ark"));
    int32 i = 0;
    for (; !reader.Done(); reader.Next(), i++) {
      NnetExample eg = reader.Value();
      if (i == 1) {
        for (NnetIo &io : eg.io) {
          if (io.name != "input") continue;
          Matrix<BaseFloat> m;
          io.features.GetMatrix(&m);
          m(5, 3) = std::nan("");
          io.features = m;
        }
      }
      writer.Write(reader.Key(), eg);
    }
  }
  CommandResult r = RunCommand(
      "nnet3-train --use-gpu=no " + TrainData() + "/affine.raw ark:nan.ark out.raw",
      tmp.path());
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("Example merged-1-16: NaN or infinity in 'input', "
                       "row 5"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(FileExists(tmp.File("out.raw")));
  r = RunCommand(
      "nnet3-compute-prob " + TrainData() + "/affine.raw ark:nan.ark",
      tmp.path());
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("merged-1-16"), std::string::npos) << r.err;
}

// Two TDNN layers wide enough that their products are split over the
// library's threads (matrix/blas-threads.h).
const char *kWideConfig =
    "input-node name=input dim=40\n"
    "component name=a1 type=NaturalGradientAffineComponent input-dim=120 "
    "output-dim=256\n"
    "component-node name=a1 component=a1 "
    "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
    "component name=r1 type=RectifiedLinearComponent dim=256\n"
    "component-node name=r1 component=r1 input=a1\n"
    "component name=b1 type=BatchNormComponent dim=256\n"
    "component-node name=b1 component=b1 input=r1\n"
    "component name=out type=NaturalGradientAffineComponent input-dim=768 "
    "output-dim=200\n"
    "component-node name=out component=out "
    "input=Append(Offset(b1, -1), b1, Offset(b1, 1))\n"
    "component name=lsm type=LogSoftmaxComponent dim=200\n"
    "component-node name=lsm component=lsm input=out\n"
    "output-node name=output input=lsm objective=linear\n";

TEST(TrainToolsTest, BlasThreadsGoToTheLibraryWithTheSameBytes) {
  // OPENBLAS_NUM_THREADS=2: the tool sets BLAS to one thread and gives the
  // library two (logged at --verbose=1); the model has the bytes of the
  // one-thread run. (OpenBLAS clamps its threads to the cores, so the
  // case of more threads than the library takes cannot be made here.)
  if (std::thread::hardware_concurrency() < 2)
    GTEST_SKIP() << "one core: OpenBLAS would run one thread";
  TempDir tmp;
  WriteFile(tmp.File("wide.config"), kWideConfig);
  {
    RandomSource rng(3);
    NnetExampleWriter writer("ark:" + tmp.File("egs.ark"));
    for (int32 m = 0; m < 2; m++) {
      std::vector<NnetExample> egs(64);
      for (NnetExample &eg : egs) {
        eg.io.push_back(NnetIo("input", -2, RandomGaussMatrix(12, 40, &rng)));
        Posterior labels(8);
        for (auto &l : labels)
          l.push_back(std::make_pair(rng.Int(0, 199), 1.0f));
        eg.io.push_back(NnetIo("output", 200, 0, labels));
      }
      NnetExample merged;
      MergeExamples(egs, false, &merged);
      writer.Write("mb" + std::to_string(m), merged);
    }
  }
  CommandResult r = RunCommand(
      "nnet3-init --srand=1 wide.config 0.raw && "
      "OPENBLAS_NUM_THREADS=1 nnet3-train --use-gpu=no --verbose=1 0.raw "
      "ark:egs.ark one.raw 2> one.log && "
      "OPENBLAS_NUM_THREADS=2 nnet3-train --use-gpu=no --verbose=1 0.raw "
      "ark:egs.ark two.raw 2> two.log",
      tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  const std::string handed = "threads of the matrix library";
  EXPECT_EQ(ReadFile(tmp.File("one.log")).find(handed), std::string::npos);
  EXPECT_NE(ReadFile(tmp.File("two.log")).find("Computing on 2 " + handed),
            std::string::npos)
      << ReadFile(tmp.File("two.log"));
  EXPECT_NE(ReadFile(tmp.File("one.raw")), ReadFile(tmp.File("0.raw")));
  EXPECT_TRUE(ReadFile(tmp.File("one.raw")) == ReadFile(tmp.File("two.raw")))
      << "2 library threads gave other model bytes than 1 thread";
}

TEST(TrainToolsTest, TruncatedEgs) {
  TempDir tmp;
  std::string egs = ReadFile(TrainData() + "/affine.mb3.ark");
  WriteFile(tmp.File("cut.ark"), egs.substr(0, egs.size() / 2 + 7));
  CommandResult r = RunCommand(
      "nnet3-train --use-gpu=no " + TrainData() + "/affine.raw ark:cut.ark out.raw",
      tmp.path());
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_NE(r.err.find("cut.ark"), std::string::npos) << r.err;
  EXPECT_FALSE(FileExists(tmp.File("out.raw")));
}

TEST(TrainToolsTest, KillDuringModelWriteKeepsOldModel) {
  TempDir tmp;
  // A network big enough (about 2.3M parameters) that writing it as text
  // takes a while; input/output dimensions fit the affine egs.
  WriteFile(tmp.File("big.config"),
            "input-node name=input dim=10\n"
            "component name=a1 type=AffineComponent input-dim=30 "
            "output-dim=1500\n"
            "component-node name=a1 component=a1 "
            "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
            "component name=r1 type=RectifiedLinearComponent dim=1500\n"
            "component-node name=r1 component=r1 input=a1\n"
            "component name=a2 type=AffineComponent input-dim=1500 "
            "output-dim=1500\n"
            "component-node name=a2 component=a2 input=r1\n"
            "component name=a3 type=AffineComponent input-dim=1500 "
            "output-dim=12\n"
            "component-node name=a3 component=a3 input=a2\n"
            "component name=lsm type=LogSoftmaxComponent dim=12\n"
            "component-node name=lsm component=lsm input=a3\n"
            "output-node name=output input=lsm\n");
  ASSERT_EQ(RunCommand("nnet3-init big.config big.raw", tmp.path())
                .exit_status,
            0);
  // The "old model" at the output path.
  ASSERT_EQ(RunCommand("cp " + TrainData() + "/affine.raw model.txt",
                       tmp.path())
                .exit_status,
            0);
  const std::string old_bytes = ReadFile(tmp.File("model.txt"));
  // Start training, wait until the temporary output file appears (the
  // model is being written), then kill -9.
  CommandResult r = RunCommand(
      "nnet3-train --use-gpu=no --binary=false big.raw ark:" + TrainData() +
          "/affine.mb1.ark model.txt 2>log & pid=$!; "
          "while kill -0 $pid 2>/dev/null; do "
          "  if ls .model.txt.tmp.* >/dev/null 2>&1; then "
          "    kill -9 $pid; echo KILLED; break; fi; "
          "done; wait $pid; true",
      tmp.path());
  ASSERT_NE(r.out.find("KILLED"), std::string::npos)
      << "the write finished before it could be interrupted: " << r.out
      << ReadFile(tmp.File("log"));
  EXPECT_EQ(ReadFile(tmp.File("model.txt")), old_bytes);
  r = RunCommand("nnet3-info model.txt", tmp.path());
  EXPECT_EQ(r.exit_status, 0) << r.err;
  // Without the kill, the new model replaces the old one.
  r = RunCommand("rm -f .model.txt.tmp.*; nnet3-train --use-gpu=no --binary=false big.raw "
                 "ark:" + TrainData() + "/affine.mb1.ark model.txt",
                 tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(ReadFile(tmp.File("model.txt")), old_bytes);
  EXPECT_EQ(RunCommand("ls .model.txt.tmp.*", tmp.path()).exit_status, 2);
}

TEST(TrainToolsTest, ComputeFromEgsGivesKaldisObjective) {
  // Kaldi's nnet3-train logged -3.40139 over 123 frames for affine.raw on
  // affine.mb1 (train.tsv, before the update): the outputs written by
  // nnet3-compute-from-egs, weighted by the targets, must give it again.
  TempDir tmp;
  CommandResult r = RunCommand(
      "nnet3-compute-from-egs --use-gpu=no " + TrainData() + "/affine.raw ark:" +
          TrainData() + "/affine.mb1.ark ark:out.ark",
      tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  SequentialBaseFloatMatrixReader out("ark:" + tmp.File("out.ark"));
  SequentialNnetExampleReader egs("ark:" + TrainData() + "/affine.mb1.ark");
  ASSERT_FALSE(out.Done());
  ASSERT_FALSE(egs.Done());
  EXPECT_EQ(out.Key(), egs.Key());
  const Matrix<BaseFloat> &y = out.Value();
  double objf = 0.0, weight = 0.0;
  for (const NnetIo &io : egs.Value().io) {
    if (io.name != "output") continue;
    Matrix<BaseFloat> t;
    io.features.GetMatrix(&t);
    ASSERT_EQ(t.NumRows(), y.NumRows());
    ASSERT_EQ(t.NumCols(), y.NumCols());
    for (int32 i = 0; i < t.NumRows(); i++)
      for (int32 j = 0; j < t.NumCols(); j++) {
        objf += t(i, j) * y(i, j);
        weight += t(i, j);
      }
  }
  EXPECT_NEAR(weight, 123, 1e-3);
  EXPECT_NEAR(objf / weight, -3.40139, 1e-5 * 3.40139);
}

TEST(TrainToolsTest, AverageWithWeights) {
  TempDir tmp;
  std::string a = TrainData() + "/affine.raw",
              b = TrainData() + "/affine.step1.txt";
  CommandResult r = RunCommand(
      "nnet3-average --weights=1:3 " + a + " " + b + " avg.raw", tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  Nnet na = ReadNnet(a), nb = ReadNnet(b), avg = ReadNnet(tmp.File("avg.raw"));
  for (const char *name : {"affine1", "affine2", "affine3"}) {
    std::vector<float> pa = ComponentParams(na, name),
                       pb = ComponentParams(nb, name),
                       pv = ComponentParams(avg, name);
    ASSERT_EQ(pa.size(), pv.size());
    for (size_t i = 0; i < pv.size(); i++)
      ASSERT_NEAR(pv[i], 0.25 * pa[i] + 0.75 * pb[i], 1e-6) << name << i;
  }
  r = RunCommand("nnet3-average --weights=1:2:3 " + a + " " + b + " x.raw",
                 tmp.path());
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("--weights"), std::string::npos) << r.err;
  r = RunCommand("nnet3-average " + a + " " + TrainData() +
                     "/natgrad.raw x.raw",
                 tmp.path());
  EXPECT_EQ(r.exit_status, 1) << r.err;
}

TEST(TrainToolsTest, CombinePicksTheBestAverage) {
  // Kaldi's prob.tsv: on affine.merged, momentum3 scores -2.51653 and the
  // untrained affine.raw -3.39612. Given [momentum3, raw, step1], the
  // combination is never worse than momentum3 alone and reports it first.
  TempDir tmp;
  std::string d = TrainData();
  CommandResult r = RunCommand(
      "nnet3-combine --use-gpu=no " + d + "/affine.momentum3.txt " + d + "/affine.raw " +
          d + "/affine.step1.txt ark:" + d + "/affine.merged.ark comb.raw",
      tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.err, m, std::regex("using the last model is (\\S+)")))
      << r.err;
  EXPECT_NEAR(std::stod(m[1]), -2.51653, 1e-5 * 2.51653);
  ASSERT_TRUE(std::regex_search(
      r.err, m,
      std::regex("Combining (\\d) nnets, objective function changed from "
                 "(\\S+) to (\\S+)")))
      << r.err;
  double best = std::stod(m[3]);
  EXPECT_GE(best, -2.51653 - 1e-4);
  // The written model scores what the log says.
  r = RunCommand("nnet3-compute-prob comb.raw ark:" + d + "/affine.merged.ark",
                 tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  ASSERT_TRUE(std::regex_search(
      r.err, m, std::regex("log-likelihood for 'output' is (\\S+)")));
  EXPECT_NEAR(std::stod(m[1]), best, 1e-4);
}

TEST(TrainToolsTest, CombineMaxObjectiveEvaluations) {
  // Three models: by default the averages of 2 and 3 are both evaluated;
  // with --max-objective-evaluations=1 only the full average is.
  TempDir tmp;
  std::string d = TrainData();
  std::string models = d + "/affine.momentum3.txt " + d + "/affine.raw " + d +
                       "/affine.step1.txt ark:" + d + "/affine.merged.ark";
  CommandResult r = RunCommand("nnet3-combine --use-gpu=no " + models + " a.raw", tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("Combining last 2 models"), std::string::npos);
  EXPECT_NE(r.err.find("Combining last 3 models"), std::string::npos);
  r = RunCommand("nnet3-combine --use-gpu=no --max-objective-evaluations=1 " + models +
                     " b.raw",
                 tmp.path());
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.err.find("Combining last 2 models"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Combining last 3 models"), std::string::npos);
  r = RunCommand("nnet3-combine --use-gpu=no --max-objective-evaluations=0 " + models +
                     " c.raw",
                 tmp.path());
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("--max-objective-evaluations"), std::string::npos);
}

TEST(TrainToolsTest, ShowProgressParameterDifferences) {
  std::string d = TrainData();
  CommandResult r = RunCommand("nnet3-show-progress " + d + "/affine.raw " +
                               d + "/affine.step1.txt ark:" + d +
                               "/affine.merged.ark");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  Nnet a = ReadNnet(d + "/affine.raw"), b = ReadNnet(d + "/affine.step1.txt");
  std::ostringstream expected;
  for (const char *name : {"affine1", "affine2", "affine3"}) {
    std::vector<float> pa = ComponentParams(a, name),
                       pb = ComponentParams(b, name);
    double s = 0.0;
    for (size_t i = 0; i < pa.size(); i++)
      s += (pa[i] - pb[i]) * (pa[i] - pb[i]);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        r.err, m,
        std::regex(std::string("Parameter differences per layer are \\[.*") +
                   name + ":(\\S+)")))
        << r.err;
    EXPECT_NEAR(std::stod(m[1]), std::sqrt(s), 1e-4 * std::sqrt(s)) << name;
  }
  EXPECT_NE(r.err.find("Total objf change per component is [ affine1:"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("At position 0.5, objf per frame for 'output' is"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
