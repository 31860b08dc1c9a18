// tests/cli/nnet3-compute-cli-test.cc
// nnet3-compute and nnet3-compile as a user runs them: option effects
// (--apply-exp, --use-priors with a .mdl, --frames-per-chunk rounding),
// the in-memory compilation cache and the on-disk one (--read-cache /
// --write-cache), nnet3-compile's plain and optimized listings, and the
// error paths (feature dimension
// mismatch, missing iVector, outputs that need more context than given),
// each with its message and exit status.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <thread>

#include "cli/compute-cli-fixture.h"
#include "common/testing.h"
#include "matrix/table-types.h"
#include "util/table.h"

namespace nnet3 {
namespace testing {
namespace {

const char *kConfig =
    "input-node name=input dim=4\n"
    "component name=affine type=AffineComponent input-dim=12 output-dim=5 "
    "bias-stddev=1\n"
    "component-node name=affine component=affine "
    "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
    "component name=lsm type=LogSoftmaxComponent dim=5\n"
    "component-node name=lsm component=lsm input=affine\n"
    "output-node name=output input=lsm\n";

const char *kIvectorConfig =
    "input-node name=input dim=4\n"
    "input-node name=ivector dim=2\n"
    "component name=affine type=AffineComponent input-dim=6 output-dim=3\n"
    "component-node name=affine component=affine "
    "input=Append(input, ReplaceIndex(ivector, t, 0))\n"
    "output-node name=output input=affine\n";

class ComputeCli : public ComputeToolCli {};

TEST_F(ComputeCli, ApplyExpGivesProbabilities) {
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({7, 3}, 4));
  CommandResult r = Run(
      "nnet3-init nnet.config nnet.raw && "
      "nnet3-compute --use-gpu=no nnet.raw ark,t:feats.txt ark,t:log.txt && "
      "nnet3-compute --use-gpu=no --apply-exp=true nnet.raw ark,t:feats.txt ark,t:exp.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto logs = ReadArchive("log.txt"), exps = ReadArchive("exp.txt");
  ASSERT_EQ(logs.size(), 2u);
  ASSERT_EQ(exps.size(), 2u);
  EXPECT_EQ(logs[0].second.NumRows(), 7);
  EXPECT_EQ(logs[1].second.NumRows(), 3);
  for (size_t u = 0; u < 2; u++) {
    const Matrix<BaseFloat> &l = logs[u].second, &e = exps[u].second;
    for (int32 t = 0; t < l.NumRows(); t++) {
      double sum = 0.0;
      for (int32 j = 0; j < l.NumCols(); j++) {
        EXPECT_NEAR(e(t, j), std::exp(l(t, j)), 1e-5);
        sum += e(t, j);
      }
      EXPECT_NEAR(sum, 1.0, 1e-4);  // log-softmax output
    }
  }
}

// Lines of "text" that contain "part".
int CountLines(const std::string &text, const std::string &part) {
  std::istringstream is(text);
  std::string line;
  int n = 0;
  while (std::getline(is, line))
    if (line.find(part) != std::string::npos) n++;
  return n;
}

// --use-gpu on the real runtime, on a machine where no GPU computes (a
// build without CUDA, or a CUDA build without a device): "yes" must fail
// with one line and "optional" must give the CPU's bytes with one warning.
// cuda-compiled, which Kaldi's scripts call before asking for a GPU, exits
// 0 or 1 and prints nothing.
TEST_F(ComputeCli, UseGpuWithoutAUsableGpu) {
  CommandResult cc = Run("cuda-compiled");
  ASSERT_TRUE(cc.exit_status == 0 || cc.exit_status == 1) << cc.err;
  EXPECT_EQ(cc.out, "");
  if (NoToolGpuReason().empty())
    GTEST_SKIP() << "a GPU computes here; the GPU tests cover it";
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({6, 2}, 4));
  CommandResult r = Run(
      "nnet3-init nnet.config nnet.raw && "
      "nnet3-compute --use-gpu=no nnet.raw ark,t:feats.txt ark,t:cpu.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;

  for (const char *mode : {"yes", "wait"}) {
    std::string opt = std::string("--use-gpu=") + mode;
    r = Run("nnet3-compute " + opt + " nnet.raw ark,t:feats.txt ark,t:g.txt");
    EXPECT_EQ(r.exit_status, 1) << r.err;
    EXPECT_EQ(CountLines(r.err, "ERROR"), 1) << r.err;
    EXPECT_EQ(CountLines(r.err, opt + " but "), 1) << r.err;
    EXPECT_EQ(CountLines(r.err, "pass --use-gpu=no"), 1) << r.err;
    EXPECT_NE(Run("test -e g.txt").exit_status, 0) << "output was written";
  }
  // nnet3-compute's default is Kaldi's: yes.
  r = Run("nnet3-compute nnet.raw ark,t:feats.txt ark,t:g.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(CountLines(r.err, "--use-gpu=yes but "), 1) << r.err;

  r = Run("nnet3-compute --use-gpu=optional nnet.raw ark,t:feats.txt "
          "ark,t:opt.txt && cmp cpu.txt opt.txt");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(CountLines(r.err, "WARNING"), 1) << r.err;
  EXPECT_EQ(CountLines(r.err, "--use-gpu=optional: computing on the CPU "
                              "because "), 1) << r.err;

  r = Run("nnet3-compute --use-gpu=sometimes nnet.raw ark,t:feats.txt "
          "ark,t:g.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(CountLines(r.err, "Invalid value --use-gpu=sometimes"), 1)
      << r.err;
}

TEST_F(ComputeCli, UsePriorsSubtractsLogPriorsFromAMdl) {
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({6}, 4));
  CommandResult r = Run(
      "nnet3-init nnet.config nnet.raw && "
      "nnet3-copy --binary=false nnet.raw nnet.txt && "
      "nnet3-compute --use-gpu=no nnet.raw ark,t:feats.txt ark,t:plain.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // A text .mdl: transition model, the network, then AmNnetSimple's fields.
  std::string mdl = "<TransitionModel> <Topology> </Topology> <Triples> 0 "
                    "</Triples> <LogProbs> [ ] </LogProbs> </TransitionModel>\n" +
                    ReadFile(dir_.File("nnet.txt")) +
                    "<LeftContext> 1 <RightContext> 1 <Priors>  [ 0.1 0.2 0.3 "
                    "0.25 0.15 ]\n";
  Write("final.mdl", mdl);
  r = Run("nnet3-compute --use-gpu=no --use-priors=true final.mdl ark,t:feats.txt "
          "ark,t:priors.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto plain = ReadArchive("plain.txt"), with = ReadArchive("priors.txt");
  const double priors[] = {0.1, 0.2, 0.3, 0.25, 0.15};
  ASSERT_EQ(with.size(), 1u);
  for (int32 t = 0; t < 6; t++)
    for (int32 j = 0; j < 5; j++)
      EXPECT_NEAR(with[0].second(t, j),
                  plain[0].second(t, j) - std::log(priors[j]), 1e-4);
  // A raw network is not a .mdl.
  r = Run("nnet3-compute --use-gpu=no --use-priors=true nnet.raw ark,t:feats.txt "
          "ark,t:x.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(LastLine(r.err).find("expected <LeftContext>"), std::string::npos)
      << r.err;
}

TEST_F(ComputeCli, FeatureDimensionMismatchIsAnError) {
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({5}, 3));
  CommandResult r = Run("nnet3-init nnet.config nnet.raw && "
                        "nnet3-compute --use-gpu=no nnet.raw ark,t:feats.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  std::string last = LastLine(r.err);
  EXPECT_EQ(last.rfind("ERROR (", 0), 0u) << r.err;
  EXPECT_NE(last.find("utt0"), std::string::npos) << last;
  EXPECT_NE(last.find("'input' features with dimension 4 but you provided 3"),
            std::string::npos)
      << last;
}

TEST_F(ComputeCli, MissingIvectorIsReportedPerUtterance) {
  Write("nnet.config", kIvectorConfig);
  Write("feats.txt", Features({4, 5}, 4));
  Write("ivec.txt", "utt1  [ 0.5 -1 ]\n");
  CommandResult r = Run(
      "nnet3-init nnet.config nnet.raw && "
      "nnet3-compute --use-gpu=no --ivectors=ark,t:ivec.txt nnet.raw ark,t:feats.txt "
      "ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 0) << r.err;  // one utterance succeeded
  EXPECT_NE(r.err.find("No iVector available for utterance utt0"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Done 1 utterances, failed for 1"), std::string::npos)
      << r.err;
  auto out = ReadArchive("out.txt");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].first, "utt1");
  // Nothing succeeds: exit status 1.
  Write("ivec2.txt", "other  [ 0.5 -1 ]\n");
  r = Run("nnet3-compute --use-gpu=no --ivectors=ark,t:ivec2.txt nnet.raw ark,t:feats.txt "
          "ark,t:out2.txt");
  EXPECT_EQ(r.exit_status, 1) << r.err;
  // Wrong iVector dimension: an error naming the dimensions.
  Write("ivec3.txt", "utt0  [ 1 2 3 ]\nutt1  [ 1 2 3 ]\n");
  r = Run("nnet3-compute --use-gpu=no --ivectors=ark,t:ivec3.txt nnet.raw ark,t:feats.txt "
          "ark,t:out3.txt");
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_NE(LastLine(r.err).find("'ivector' features with dimension 2 but you "
                                 "provided 3"),
            std::string::npos)
      << r.err;
}

TEST_F(ComputeCli, ComputationsAreCachedAcrossUtterances) {
  Write("nnet.config", kConfig);
  std::vector<int> lengths;
  for (int u = 0; u < 60; u++) lengths.push_back(u % 3 == 0 ? 120 : 100);
  Write("feats.txt", Features(lengths, 4));
  CommandResult r = Run("nnet3-init nnet.config nnet.raw && "
                        "nnet3-compute --use-gpu=no --large-chunk-size=0 --verbose=1 "
                        "nnet.raw ark,t:feats.txt ark:/dev/null");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  // Chunks of 50 frames and tails of 20: two distinct requests in all
  // (the 50-frame chunks at the start, middle and end share one).
  EXPECT_NE(r.err.find("Compiled 2 computations"), std::string::npos) << r.err;
  // With large chunks both lengths round up to one 128-frame chunk.
  r = Run("nnet3-compute --use-gpu=no --verbose=1 nnet.raw ark,t:feats.txt ark:/dev/null");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("Compiled 1 computations"), std::string::npos) << r.err;
}

TEST_F(ComputeCli, ComputationCacheOnDiskIsReusedAcrossRuns) {
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({120, 100, 37}, 4));
  // First run: the cache file does not exist yet, which is fine.
  CommandResult r = Run("nnet3-init nnet.config nnet.raw && "
                        "nnet3-compute --use-gpu=no --verbose=1 --read-cache=comp.cache "
                        "--write-cache=comp.cache nnet.raw ark,t:feats.txt "
                        "ark,t:first.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("comp.cache does not exist yet"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Compiled 0 computations"), std::string::npos)
      << r.err;
  ASSERT_TRUE(FileExists(dir_.File("comp.cache")));
  r = Run("nnet3-compute --use-gpu=no --verbose=1 --read-cache=comp.cache nnet.raw "
          "ark,t:feats.txt ark,t:second.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("Compiled 0 computations"), std::string::npos) << r.err;
  EXPECT_EQ(ReadFile(dir_.File("first.txt")), ReadFile(dir_.File("second.txt")));
  // Other optimizer options: the cache is ignored with a warning.
  r = Run("nnet3-compute --use-gpu=no --verbose=1 --read-cache=comp.cache "
          "--optimization.propagate-in-place=false nnet.raw "
          "ark,t:feats.txt ark,t:third.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("was made for a different network structure or "
                       "options; ignoring it"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("Compiled 0 computations"), std::string::npos)
      << r.err;
  // A damaged cache is an error that names the file.
  Write("bad.cache", std::string("\0B<ComputationCache> <Version> ", 31));
  r = Run("nnet3-compute --use-gpu=no --read-cache=bad.cache nnet.raw ark,t:feats.txt "
          "ark,t:fourth.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(LastLine(r.err).find("Corrupt computation cache in bad.cache"),
            std::string::npos)
      << r.err;
}

TEST_F(ComputeCli, ChunkingInvariantNetworksGiveTheSameOutputsForAnyChunking) {
  // kConfig has no recurrence, IfDefined or Failover: every chunking must
  // give the same numbers, including the large internal chunks.
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({1, 7, 60, 130, 700}, 4));
  CommandResult r = Run(
      "nnet3-init nnet.config nnet.raw && "
      "nnet3-compute --use-gpu=no --large-chunk-size=0 --frames-per-chunk=7 nnet.raw "
      "ark,t:feats.txt ark,t:fpc7.txt && "
      "nnet3-compute --use-gpu=no --large-chunk-size=0 nnet.raw ark,t:feats.txt "
      "ark,t:fpc50.txt && "
      "nnet3-compute --use-gpu=no nnet.raw ark,t:feats.txt ark,t:large.txt && "
      "nnet3-compute --use-gpu=no --large-chunk-size=32 --frames-per-chunk=10 "
      "--frame-subsampling-factor=1 nnet.raw ark,t:feats.txt ark,t:l32.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto ref = ReadArchive("fpc7.txt");
  ASSERT_EQ(ref.size(), 5u);
  for (const char *name : {"fpc50.txt", "large.txt", "l32.txt"}) {
    auto got = ReadArchive(name);
    ASSERT_EQ(got.size(), ref.size()) << name;
    for (size_t u = 0; u < ref.size(); u++) {
      ASSERT_EQ(got[u].second.NumRows(), ref[u].second.NumRows()) << name;
      for (int32 t = 0; t < ref[u].second.NumRows(); t++)
        for (int32 j = 0; j < ref[u].second.NumCols(); j++)
          ASSERT_NEAR(got[u].second(t, j), ref[u].second(t, j), 1e-5)
              << name << " " << ref[u].first << " frame " << t;
    }
  }
}

TEST_F(ComputeCli, ThreadsGiveTheSameBytesInInputOrder) {
  // Utterances of many lengths, so that the threads finish out of order.
  Write("nnet.config", kConfig);
  std::vector<int32> lengths;
  for (int32 i = 0; i < 23; i++) lengths.push_back(1 + (i * 37) % 300);
  Write("feats.txt", Features(lengths, 4));
  CommandResult r = Run(
      "nnet3-init nnet.config nnet.raw && "
      "nnet3-compute --use-gpu=no --num-threads=1 nnet.raw ark,t:feats.txt "
      "ark:one.ark && "
      "nnet3-compute --use-gpu=no --num-threads=3 nnet.raw ark,t:feats.txt "
      "ark:three.ark && "
      "env -u OPENBLAS_NUM_THREADS -u OMP_NUM_THREADS nnet3-compute "
      "--use-gpu=no --verbose=1 nnet.raw ark,t:feats.txt ark:auto.ark "
      "2> auto.log && "
      "OPENBLAS_NUM_THREADS=1 nnet3-compute --use-gpu=no --verbose=1 "
      "nnet.raw ark,t:feats.txt ark:blas-set.ark 2> blas-set.log && "
      "cmp one.ark auto.ark && cmp one.ark blas-set.ark && "
      "nnet3-compute --use-gpu=no --num-threads=2 --frames-per-chunk=13 "
      "--large-chunk-size=0 nnet.raw ark,t:feats.txt ark:two13.ark && "
      "nnet3-compute --use-gpu=no --frames-per-chunk=13 --large-chunk-size=0 "
      "nnet.raw ark,t:feats.txt ark:one13.ark && "
      "cmp one.ark three.ark && cmp one13.ark two13.ark");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto got = ReadArchive("three.ark");
  ASSERT_EQ(got.size(), lengths.size());
  for (size_t u = 0; u < lengths.size(); u++)
    EXPECT_EQ(got[u].second.NumRows(), lengths[u]) << "utterance " << u;
  // The default (0): one utterance per core unless the BLAS threads were
  // set by the user, then one.
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_NE(ReadFile(dir_.File("auto.log"))
                .find("computing " + std::to_string(std::min(cores, 64u)) +
                      " utterance(s) at once"),
            std::string::npos);
  EXPECT_NE(ReadFile(dir_.File("blas-set.log"))
                .find("computing 1 utterance(s) at once"),
            std::string::npos);
  CommandResult bad = Run(
      "nnet3-compute --use-gpu=no --num-threads=-1 nnet.raw ark,t:feats.txt "
      "ark:bad.ark");
  EXPECT_NE(bad.exit_status, 0);
  EXPECT_NE(bad.err.find("Invalid --num-threads=-1"), std::string::npos)
      << bad.err;
}

TEST_F(ComputeCli, FramesPerChunkIsRoundedToTheSubsamplingFactor) {
  Write("nnet.config", kConfig);
  Write("feats.txt", Features({10}, 4));
  CommandResult r = Run("nnet3-init nnet.config nnet.raw && "
                        "nnet3-compute --use-gpu=no --frame-subsampling-factor=3 nnet.raw "
                        "ark,t:feats.txt ark,t:out.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("Increasing --frames-per-chunk from 50 to 51"),
            std::string::npos)
      << r.err;
  auto out = ReadArchive("out.txt");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].second.NumRows(), 4);  // frames 0, 3, 6, 9
}

TEST_F(ComputeCli, CompilePrintsTheComputation) {
  Write("nnet.config", kConfig);
  CommandResult r = Run("nnet3-init nnet.config nnet.raw && "
                        "nnet3-compile --num-frames=4 --num-sequences=2 "
                        "--backprop nnet.raw comp.bin");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("affine.Propagate("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("affine.Backprop("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("user input [for node: 'input']"), std::string::npos);
  EXPECT_NE(r.out.find("output m"), std::string::npos);
  EXPECT_NE(r.out.find("# Summary: "), std::string::npos);
  EXPECT_NE(r.out.find("bytes peak matrix memory\n"), std::string::npos)
      << r.out;
  // The optimized computation follows, with its own summary.
  size_t optimized = r.out.find("# Optimized computation\n");
  ASSERT_NE(optimized, std::string::npos) << r.out;
  EXPECT_LT(r.out.find("# Summary: "), optimized);
  EXPECT_NE(r.out.find("affine.Propagate(", optimized), std::string::npos);
  EXPECT_NE(r.out.find("# Summary (optimized): ", optimized),
            std::string::npos)
      << r.out;
  // 2 sequences x (4 + 2 context) input frames.
  EXPECT_NE(r.out.find("12 x 4 (input;"), std::string::npos) << r.out;
  std::string bin = ReadFile(dir_.File("comp.bin"));
  EXPECT_EQ(bin.substr(0, 20), std::string("\0B<NnetComputation> ", 20));
}

TEST_F(ComputeCli, CompileExplainsMissingContext) {
  Write("nnet.config", kConfig);
  CommandResult r = Run("nnet3-init nnet.config nnet.raw && "
                        "nnet3-compile --num-frames=3 --left-context=0 "
                        "nnet.raw");
  EXPECT_EQ(r.exit_status, 1);
  std::string last = LastLine(r.err);
  EXPECT_NE(last.find("Not all outputs were computable"), std::string::npos)
      << last;
  EXPECT_NE(last.find("output 'output' at (0, 0) is not computable: it needs "
                      "input 'input' at [ (0, -1) ]"),
            std::string::npos)
      << last;
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
