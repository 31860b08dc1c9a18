// tests/nnet3/egs/utterance-splitter-test.cc
// KaldiRand against the C library's own rand() (glibc), KaldiShuffle
// against libstdc++'s std::shuffle algorithm written out, and the utterance
// splitter on hand-derived cases (chunk positions, overlaps, weights,
// context at the edges, frame subsampling).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "base/log.h"
#include "nnet3/egs/utterance-splitter.h"

namespace nnet3 {
namespace {

TEST(KaldiRandTest, EqualsGlibcRand) {
  for (unsigned seed : {0u, 1u, 2u, 777u, 123456789u, 4000000000u}) {
    std::srand(seed);
    KaldiRand rand(seed);
    for (int i = 0; i < 2000; i++) ASSERT_EQ(rand.Rand(), std::rand()) << i;
  }
  KaldiRand rand;
  EXPECT_EQ(rand.RandInt(5, 5), 5);  // no draw
  std::srand(1);
  EXPECT_EQ(rand.RandInt(0, 9), std::rand() % 10);
}

// Oracle for KaldiShuffle: the steps libstdc++ (g++ 11 and later) takes
// for std::shuffle with a 32-bit engine, written out from its documented
// algorithm over the raw std::mt19937 outputs (which the C++ standard
// fixes). Draws in [0, range) use Lemire's multiply-and-shift with
// rejection; since 2^32 - 1 >= n * n, positions are drawn two at a time:
// one draw in [0, (i + 1) * (i + 2)) gives the partners of elements i and
// i + 1 (quotient and remainder by i + 2), after one single draw in [0, 2)
// for element 1 when n is even.
uint32 DrawBelow(std::mt19937 *g, uint32 range) {
  uint64 product = static_cast<uint64>((*g)()) * range;
  uint32 low = static_cast<uint32>(product);
  if (low < range) {
    uint32 threshold = static_cast<uint32>(-range) % range;
    while (low < threshold) {
      product = static_cast<uint64>((*g)()) * range;
      low = static_cast<uint32>(product);
    }
  }
  return static_cast<uint32>(product >> 32);
}

std::vector<int> LibstdcxxShuffle(uint32 seed, int n) {
  std::vector<int> v(n);
  for (int i = 0; i < n; i++) v[i] = i;
  std::mt19937 g(seed);
  int i = 1;
  if (n % 2 == 0) {
    std::swap(v[i], v[DrawBelow(&g, 2)]);
    i++;
  }
  while (i < n) {
    uint32 a = i + 1, b = i + 2, x = DrawBelow(&g, a * b);
    std::swap(v[i], v[x / b]);
    i++;
    std::swap(v[i], v[x % b]);
    i++;
  }
  return v;
}

TEST(KaldiRandTest, KaldiShuffleIsLibstdcxxShuffle) {
  for (uint32 seed : {0u, 3u, 4294967295u}) {
    for (int n : {1, 2, 7, 20, 59, 1000}) {
      std::vector<int> got(n);
      for (int i = 0; i < n; i++) got[i] = i;
      KaldiShuffle(seed, &got);
      EXPECT_EQ(got, LibstdcxxShuffle(seed, n))
          << "seed " << seed << ", " << n << " items: this standard library "
          << "shuffles differently from libstdc++ (and so from Kaldi)";
    }
  }
}

ExampleGenerationConfig Config(const std::string &num_frames,
                               int32 left = 0, int32 right = 0,
                               int32 sf = 1) {
  ExampleGenerationConfig c;
  c.num_frames_str = num_frames;
  c.left_context = left;
  c.right_context = right;
  c.frame_subsampling_factor = sf;
  c.ComputeDerived();
  return c;
}

TEST(UtteranceSplitterTest, ExactMultipleHasNoOverlap) {
  UtteranceSplitter splitter(Config("8", 3, 3));
  std::vector<ChunkTimeInfo> chunks;
  splitter.GetChunksForUtterance(80, &chunks);
  ASSERT_EQ(chunks.size(), 10u);
  for (int32 i = 0; i < 10; i++) {
    EXPECT_EQ(chunks[i].first_frame, 8 * i);
    EXPECT_EQ(chunks[i].num_frames, 8);
    EXPECT_EQ(chunks[i].left_context, 3);
    EXPECT_EQ(chunks[i].right_context, 3);
    EXPECT_EQ(chunks[i].output_weights, std::vector<float>(8, 1.0f));
  }
  EXPECT_EQ(splitter.ExitStatus(), 0);
}

TEST(UtteranceSplitterTest, OverlapGoesToTheFirstBoundaries) {
  // 87 frames = 11 chunks of 8 less 1: the overlap of 1 goes between chunk
  // 0 and 1 (Kaldi's integer fractional parts tie; the earliest wins).
  UtteranceSplitter splitter(Config("8"));
  std::vector<ChunkTimeInfo> chunks;
  splitter.GetChunksForUtterance(87, &chunks);
  ASSERT_EQ(chunks.size(), 11u);
  EXPECT_EQ(chunks[0].first_frame, 0);
  EXPECT_EQ(chunks[1].first_frame, 7);
  EXPECT_EQ(chunks[2].first_frame, 15);
  EXPECT_EQ(chunks[10].first_frame, 79);
  EXPECT_EQ(chunks[0].output_weights[7], 0.5f);
  EXPECT_EQ(chunks[1].output_weights[0], 0.5f);
  EXPECT_EQ(chunks[1].output_weights[1], 1.0f);
  // 84 frames = 11 x 8 less 4: overlaps of 1 at the first four boundaries.
  splitter.GetChunksForUtterance(84, &chunks);
  ASSERT_EQ(chunks.size(), 11u);
  std::vector<int32> starts;
  for (const ChunkTimeInfo &c : chunks) starts.push_back(c.first_frame);
  EXPECT_EQ(starts, std::vector<int32>({0, 7, 14, 21, 28, 36, 44, 52, 60,
                                        68, 76}));
}

TEST(UtteranceSplitterTest, ShortAndTabulatedLengths) {
  UtteranceSplitter splitter(Config("8"));
  std::vector<ChunkTimeInfo> chunks;
  splitter.GetChunksForUtterance(7, &chunks);
  EXPECT_TRUE(chunks.empty());
  splitter.GetChunksForUtterance(8, &chunks);
  ASSERT_EQ(chunks.size(), 1u);
  // Length 11: one chunk (gap 3, cost 6) or two (overlap 5, cost 5): both
  // within 1.9999 of the best. Length 12: only two chunks (cost 4 vs 8).
  EXPECT_EQ(splitter.SplitsForLength(11),
            std::vector<std::vector<int32> >({{8}, {8, 8}}));
  EXPECT_EQ(splitter.SplitsForLength(12),
            std::vector<std::vector<int32> >({{8, 8}}));
  EXPECT_EQ(splitter.MaxUtteranceLength(), 24);
}

TEST(UtteranceSplitterTest, AlternativeSizes) {
  // --num-frames=8,5: a 13-frame utterance fits 8 + 5 exactly.
  UtteranceSplitter splitter(Config("8,5"));
  std::vector<int32> sizes;
  splitter.GetChunkSizesForUtterance(13, &sizes);
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, std::vector<int32>({5, 8}));
  std::vector<int32> gaps;
  splitter.GetGapSizes(13, true, {8, 5}, &gaps);
  EXPECT_EQ(gaps, std::vector<int32>({0, 0}));
}

TEST(UtteranceSplitterTest, EdgeContexts) {
  ExampleGenerationConfig c = Config("4", 2, 3);
  c.left_context_initial = 0;
  c.right_context_final = 1;
  UtteranceSplitter splitter(c);
  std::vector<ChunkTimeInfo> chunks;
  splitter.GetChunksForUtterance(12, &chunks);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].left_context, 0);
  EXPECT_EQ(chunks[0].right_context, 3);
  EXPECT_EQ(chunks[1].left_context, 2);
  EXPECT_EQ(chunks[2].left_context, 2);
  EXPECT_EQ(chunks[2].right_context, 1);
}

TEST(UtteranceSplitterTest, FrameSubsampling) {
  // --num-frames=8 with factor 3 is rounded up to 9; 27 frames = 3 chunks,
  // each with 3 output frames.
  ExampleGenerationConfig c = Config("8", 0, 0, 3);
  EXPECT_EQ(c.num_frames, std::vector<int32>({9}));
  UtteranceSplitter splitter(c);
  std::vector<ChunkTimeInfo> chunks;
  splitter.GetChunksForUtterance(27, &chunks);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[1].first_frame, 9);
  EXPECT_EQ(chunks[1].output_weights.size(), 3u);
  // 26 frames: 9 output frames (ceil(26/3)) still exactly 3 chunks.
  EXPECT_TRUE(splitter.LengthsMatch("u", 26, 9));
  EXPECT_FALSE(splitter.LengthsMatch("u", 26, 7, 1));
}

TEST(UtteranceSplitterTest, Distribute) {
  std::vector<int32> v(3);
  UtteranceSplitter::DistributeRandomly(-1, {8, 8, 8}, &v);
  EXPECT_EQ(v, std::vector<int32>({-1, 0, 0}));
  std::vector<int32> w(2);
  UtteranceSplitter::DistributeRandomly(-5, {8, 8}, &w);
  EXPECT_EQ(w, std::vector<int32>({-3, -2}));
  std::vector<int32> x(3);
  UtteranceSplitter::DistributeRandomly(6, {2, 1, 3}, &x);
  EXPECT_EQ(x, std::vector<int32>({2, 1, 3}));
  // Uniform: parts differ by at most one and add up.
  UtteranceSplitter splitter(Config("8"));
  std::vector<int32> u(4);
  splitter.DistributeRandomlyUniform(10, &u);
  std::sort(u.begin(), u.end());
  EXPECT_EQ(u, std::vector<int32>({2, 2, 3, 3}));
}

TEST(UtteranceSplitterTest, BadOptions) {
  for (const char *bad : {"", "0", "8,-1", "a", "8,,4"}) {
    ExampleGenerationConfig c;
    c.num_frames_str = bad;
    EXPECT_THROW(c.ComputeDerived(), UserError) << bad;
  }
  ExampleGenerationConfig c;
  c.frame_subsampling_factor = 0;
  EXPECT_THROW(c.ComputeDerived(), UserError);
  ExampleGenerationConfig d = Config("8");
  d.num_frames_overlap = 8;
  EXPECT_THROW(UtteranceSplitter splitter(d), UserError);
}

}  // namespace
}  // namespace nnet3
