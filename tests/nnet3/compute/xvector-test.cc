// tests/nnet3/compute/xvector-test.cc
// XvectorPlan / XvectorComputer: on small random x-vector style networks
// (spliced frame layers, statistics extraction and pooling, segment
// layers), the block-wise computation that reuses two compilations must
// give the x-vectors of the ordinary whole-chunk computation (reuse off)
// for many utterance lengths and chunking options (also with pooling
// windows that clip the chunk and a configured variance floor), with the
// number of compilations staying fixed; and networks where the split would
// not be exact (a second path from the frames to the output, output-period > 1,
// IfDefined in the frame layers, two pooling nodes) must be refused by the
// plan and still give the ordinary results.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "nnet3/components/normalize.h"
#include "nnet3/compute/xvector.h"
#include "nnet3/compute/xvector-test-config.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

// Frame layers with left context 3 and right context 2 (input dim 5),
// extraction of 6-dim frames (13 columns), pooling, two segment layers.
// POOL, EXTRACT and SEGIN are replaced by the tests.
const std::string kTemplate =
    std::string(test::kXvectorFirstFrameLayer) +
    "component name=bn1 type=BatchNormComponent dim=8\n"
    "component-node name=bn1 component=bn1 input=r1\n"
    "component name=t2 type=AffineComponent input-dim=16 output-dim=6 "
    "bias-stddev=0.5\n"
    "component-node name=t2 component=t2 input=FRAMEIN\n"
    "component name=r2 type=RectifiedLinearComponent dim=6\n"
    "component-node name=r2 component=r2 input=t2\n"
    "component name=extract type=StatisticsExtractionComponent input-dim=6 "
    "EXTRACT include-variance=true\n"
    "component-node name=extract component=extract input=r2\n"
    "component name=pool type=StatisticsPoolingComponent input-dim=13 "
    "POOL output-stddevs=true\n"
    "component-node name=pool component=pool input=extract\n"
    "component name=t3 type=AffineComponent input-dim=SEGDIM output-dim=7 "
    "bias-stddev=0.5\n"
    "component-node name=t3 component=t3 input=SEGIN\n"
    "component name=r3 type=RectifiedLinearComponent dim=7\n"
    "component-node name=r3 component=r3 input=t3\n"
    "component name=bn3 type=BatchNormComponent dim=7\n"
    "component-node name=bn3 component=bn3 input=r3\n"
    "component name=out type=AffineComponent input-dim=7 output-dim=4\n"
    "component-node name=out component=out input=bn3\n"
    "component name=sm type=LogSoftmaxComponent dim=4\n"
    "component-node name=sm component=sm input=out\n"
    "output-node name=output input=sm\n";

struct Variant {
  std::string frame_in = "Append(Offset(bn1, -2), bn1)";
  std::string extract = "input-period=1 output-period=1";
  std::string pool = "input-period=1 left-context=0 right-context=10000";
  std::string seg_in = "Round(pool, 1)";
  int32 seg_dim = 12;
  std::string extra;  // more config lines
};

void ReplaceAll(const std::string &from, const std::string &to,
                std::string *s) {
  for (size_t p = s->find(from); p != std::string::npos;
       p = s->find(from, p + to.size()))
    s->replace(p, from.size(), to);
}

// A random network prepared as the tool prepares it: BatchNorm statistics
// from random data, test mode, collapsed.
Nnet MakeNnet(const Variant &v, uint64 seed) {
  std::string config = kTemplate;
  ReplaceAll("FRAMEIN", v.frame_in, &config);
  ReplaceAll("EXTRACT", v.extract, &config);
  ReplaceAll("POOL", v.pool, &config);
  ReplaceAll("SEGIN", v.seg_in, &config);
  ReplaceAll("SEGDIM", std::to_string(v.seg_dim), &config);
  config += v.extra;
  Nnet nnet;
  std::istringstream is(config);
  nnet.ReadConfig(is);
  RandomSource rs(seed);
  for (int32 c = 0; c < nnet.NumComponents(); c++) {
    BatchNormComponent *bn =
        dynamic_cast<BatchNormComponent *>(nnet.GetComponent(c));
    if (bn == nullptr) continue;
    CuMatrix<BaseFloat> x(RandomGaussMatrix(40, bn->InputDim(), &rs)),
        y(40, bn->InputDim());
    x.Add(0.7);
    void *memo = bn->Propagate(nullptr, x, &y);
    bn->StoreStats(x, y, memo);
    bn->DeleteMemo(memo);
  }
  SetBatchnormTestMode(true, &nnet);
  SetDropoutTestMode(true, &nnet);
  CollapseModel(CollapseModelConfig(), &nnet);
  return nnet;
}

// max |a - b| relative to max(1, max |a|).
double RelativeDifference(const Vector<BaseFloat> &a,
                          const Vector<BaseFloat> &b) {
  EXPECT_EQ(a.Dim(), b.Dim());
  double diff = 0.0, scale = 1.0;
  for (int32 i = 0; i < a.Dim() && i < b.Dim(); i++) {
    diff = std::max(diff, std::fabs(double(a(i)) - double(b(i))));
    scale = std::max(scale, std::fabs(double(a(i))));
  }
  return diff / scale;
}

// Fills 'lengths' with 'count' distinct lengths in [lo, hi].
std::vector<int32> DistinctLengths(int32 count, int32 lo, int32 hi,
                                   RandomSource *rs) {
  std::set<int32> seen;
  std::vector<int32> out;
  while (static_cast<int32>(out.size()) < count) {
    int32 len = rs->Int(lo, hi);
    if (seen.insert(len).second) out.push_back(len);
  }
  return out;
}

// Computes every utterance with reuse on and off (fresh compilers) and
// expects the same x-vectors; returns the reuse-on computer's count of
// compilations through 'compilations'.
void CompareOnOff(const Nnet &nnet, XvectorExtractionOptions opts,
                  const std::vector<int32> &lengths, uint64 seed,
                  int64 *compilations, int64 *chunks_through_plan) {
  CachingOptimizingCompiler compiler_on(nnet), compiler_off(nnet);
  opts.reuse_compilation = true;
  XvectorComputer on(opts, nnet, &compiler_on);
  opts.reuse_compilation = false;
  XvectorComputer off(opts, nnet, &compiler_off);
  EXPECT_EQ(off.Plan(), nullptr);
  RandomSource rs(seed);
  for (int32 len : lengths) {
    Matrix<BaseFloat> feats = RandomGaussMatrix(len, 5, &rs);
    Vector<BaseFloat> a, b;
    std::string why_a, why_b;
    bool ok_a = on.ComputeUtterance(feats, &a, &why_a),
         ok_b = off.ComputeUtterance(feats, &b, &why_b);
    ASSERT_EQ(ok_a, ok_b) << "length " << len;
    EXPECT_EQ(why_a, why_b);
    if (!ok_a) continue;
    EXPECT_LT(RelativeDifference(b, a), 1e-4) << "length " << len;
    // ... and it is not a trivially constant vector.
    EXPECT_GT(a.Norm(2.0), 0.0);
  }
  EXPECT_EQ(off.NumChunksThroughPlan(), 0);
  *compilations = on.NumCompilations();
  *chunks_through_plan = on.NumChunksThroughPlan();
}

TEST(XvectorPlan, AppliesToTheUsualTopologyWithItsContext) {
  Nnet nnet = MakeNnet(Variant(), 1);
  XvectorPlan plan(nnet, 16);
  ASSERT_TRUE(plan.Applies()) << plan.WhyNot();
  EXPECT_EQ(plan.LeftContext(), 3);
  EXPECT_EQ(plan.RightContext(), 2);
  EXPECT_EQ(plan.NumCompilations(), 2);
  int32 first, last;
  // E exists at t in [3, T-3]: 16 rows needs T >= 21.
  EXPECT_FALSE(plan.PooledRange(20, &first, &last));
  ASSERT_TRUE(plan.PooledRange(21, &first, &last));
  EXPECT_EQ(first, 3);
  EXPECT_EQ(last, 18);
  ASSERT_TRUE(plan.PooledRange(100, &first, &last));
  EXPECT_EQ(last, 97);
}

TEST(XvectorPlan, SameXvectorsAsWholeChunksWithTwoCompilations) {
  Nnet nnet = MakeNnet(Variant(), 2);
  RandomSource rs(5);
  // 30 distinct lengths, all long enough for a 16-row block, some an exact
  // multiple of it (T - 5 = 16 k) and some one row more.
  std::vector<int32> lengths = DistinctLengths(26, 22, 300, &rs);
  for (int32 extra : {21, 37, 69, 70}) lengths.push_back(extra);
  XvectorExtractionOptions opts;
  opts.block_size = 16;
  opts.min_chunk_size = 10;
  int64 compilations, through_plan;
  CompareOnOff(nnet, opts, lengths, 11, &compilations, &through_plan);
  EXPECT_EQ(compilations, 2);
  EXPECT_EQ(through_plan, static_cast<int64>(lengths.size()));
}

TEST(XvectorPlan, ShortChunksUseTheOrdinaryPathCachedPerLength) {
  Nnet nnet = MakeNnet(Variant(), 3);
  XvectorExtractionOptions opts;
  opts.block_size = 16;
  opts.min_chunk_size = 12;
  // 15 and 20 are too short for a block; 8 is padded to 12 (too short);
  // 20 appears twice (one compilation).
  std::vector<int32> lengths = {15, 20, 8, 20, 60, 61, 100};
  int64 compilations, through_plan;
  CompareOnOff(nnet, opts, lengths, 12, &compilations, &through_plan);
  EXPECT_EQ(compilations, 2 + 3);
  EXPECT_EQ(through_plan, 3);
}

TEST(XvectorPlan, ChunkingAndPaddingOptionsAreKept) {
  Nnet nnet = MakeNnet(Variant(), 4);
  RandomSource rs(6);
  std::vector<int32> lengths = DistinctLengths(20, 5, 400, &rs);
  for (bool pad : {true, false}) {
    XvectorExtractionOptions opts;
    opts.block_size = 16;
    opts.chunk_size = 50;
    opts.min_chunk_size = 25;
    opts.pad_input = pad;
    int64 compilations, through_plan;
    CompareOnOff(nnet, opts, lengths, 13, &compilations, &through_plan);
    // Chunks of 50 and last chunks of 25..49 use the plan; shorter last
    // chunks are padded to 25 (or skipped): one ordinary length.
    EXPECT_LE(compilations, 2 + 1);
    EXPECT_GT(through_plan, 20);
  }
}

TEST(XvectorPlan, PoolingWindowsThatClipTheChunkArePooledExactly) {
  // Pooling sees E rows t in [max(3, -left), min(T-3, right)]: the plan
  // sums exactly that range, so it stays exact when right-context is
  // shorter than the chunk and when left-context reaches before t=0.
  for (const char *pool :
       {"input-period=1 left-context=0 right-context=40",
        "input-period=1 left-context=7 right-context=63"}) {
    Variant v;
    v.pool = pool;
    Nnet nnet = MakeNnet(v, 7);
    XvectorExtractionOptions opts;
    opts.block_size = 16;
    opts.min_chunk_size = 10;
    {
      XvectorPlan plan(nnet, 16);
      ASSERT_TRUE(plan.Applies()) << plan.WhyNot();
      int32 first, last;
      ASSERT_TRUE(plan.PooledRange(200, &first, &last));
      EXPECT_EQ(first, 3);
      EXPECT_EQ(last, std::string(pool).find("40") != std::string::npos
                          ? 40 : 63);
    }
    RandomSource rs(8);
    std::vector<int32> lengths = DistinctLengths(20, 22, 200, &rs);
    int64 compilations, through_plan;
    CompareOnOff(nnet, opts, lengths, 14, &compilations, &through_plan);
    EXPECT_EQ(compilations, 2);
    EXPECT_EQ(through_plan, 20);
  }
}

TEST(XvectorPlan, KeepsAConfiguredVarianceFloor) {
  // A floor high enough to clamp some of the pooled variances; a copied
  // pooling component would fall back to 1e-10 (as Kaldi's copy does) and
  // give other x-vectors.
  Variant v;
  v.pool = "input-period=1 left-context=0 right-context=10000 "
           "variance-floor=0.05";
  Nnet nnet = MakeNnet(v, 21);
  XvectorExtractionOptions opts;
  opts.block_size = 16;
  opts.min_chunk_size = 10;
  RandomSource rs(22);
  std::vector<int32> lengths = DistinctLengths(20, 22, 200, &rs);
  int64 compilations, through_plan;
  CompareOnOff(nnet, opts, lengths, 23, &compilations, &through_plan);
  EXPECT_EQ(compilations, 2);
  EXPECT_EQ(through_plan, 20);
}

// The plan must refuse these; the results are the ordinary ones.
void ExpectRefused(const Variant &v, const std::string &why_contains) {
  SCOPED_TRACE(why_contains);
  Nnet nnet = MakeNnet(v, 9);
  XvectorPlan plan(nnet, 16);
  EXPECT_FALSE(plan.Applies());
  EXPECT_NE(plan.WhyNot().find(why_contains), std::string::npos)
      << plan.WhyNot();
  int32 first, last;
  EXPECT_FALSE(plan.PooledRange(300, &first, &last));
  XvectorExtractionOptions opts;
  opts.block_size = 16;
  opts.min_chunk_size = 10;
  std::vector<int32> lengths = {60, 90, 120};
  int64 compilations, through_plan;
  CompareOnOff(nnet, opts, lengths, 15, &compilations, &through_plan);
  EXPECT_EQ(through_plan, 0);
  EXPECT_EQ(compilations, 3);
}

TEST(XvectorPlan, RefusesASecondPathFromTheFramesToTheOutput) {
  Variant v;
  v.seg_in = "Append(Round(pool, 1), Offset(r2, 30))";
  v.seg_dim = 18;
  ExpectRefused(v, "depends on input node 'input'");
}

TEST(XvectorPlan, RefusesOutputPeriodAboveOne) {
  Variant v;
  v.extract = "input-period=1 output-period=5";
  v.pool = "input-period=5 left-context=0 right-context=10000";
  v.seg_in = "Round(pool, 5)";
  ExpectRefused(v, "output-period=5");
}

TEST(XvectorPlan, RefusesTwoPoolingNodes) {
  Variant v;
  v.seg_in = "Append(pool, pool2)";
  v.seg_dim = 24;
  v.extra =
      "component name=pool2 type=StatisticsPoolingComponent input-dim=13 "
      "input-period=1 left-context=0 right-context=50 output-stddevs=true\n"
      "component-node name=pool2 component=pool2 input=extract\n";
  ExpectRefused(v, "more than one StatisticsPoolingComponent node");
}

TEST(XvectorPlan, RefusesIfDefinedInTheFrameLayers) {
  Variant v;
  v.frame_in = "Append(IfDefined(Offset(bn1, -2)), bn1)";
  ExpectRefused(v, "chunking-invariant");
}

TEST(XvectorPlan, RefusesPoolingThatReadsAnOffset) {
  Variant v;
  v.seg_in = "Round(pool, 1)";
  Nnet nnet = MakeNnet(v, 10);
  // The pooling node reading Offset(extract, 1) instead of extract.
  std::istringstream is(
      "component-node name=pool component=pool input=Offset(extract, 1)\n");
  nnet.ReadConfig(is);
  XvectorPlan plan(nnet, 16);
  EXPECT_FALSE(plan.Applies());
  EXPECT_NE(plan.WhyNot().find("not a plain node name"), std::string::npos)
      << plan.WhyNot();
}

TEST(XvectorPlan, RefusesOutputReadingPoolingAtOtherTimes) {
  Variant v;
  v.pool = "input-period=1 left-context=5 right-context=10000";
  v.seg_in = "Append(pool, Offset(pool, 3))";
  v.seg_dim = 24;
  ExpectRefused(v, "not only at (0, 0, 0)");
}

TEST(XvectorExtractionOptions, BlockSizeMustBePositive) {
  XvectorExtractionOptions opts;
  opts.block_size = 0;
  EXPECT_THROW(opts.Check(), UserError);
}

}  // namespace
}  // namespace nnet3
