// tests/nnet3/components/convolution-model-test.cc
// ConvolutionModel::Check. Its height checks work on intervals of output
// heights, so they are compared here, verdict and message, with a plain
// walk over every (output height, offset) pair on many random small models.
// Sizes near 2^31 (dimensions that overflow int32, heights that a walk
// could not visit in time, time offsets 2^32 apart) are errors or quick
// answers, never undefined arithmetic.
#include <gtest/gtest.h>

#include <chrono>
#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "nnet3/components/convolution-model.h"

namespace nnet3 {
namespace time_height_convolution {
namespace {

// The reference: every output height j, every offset, in that order, the
// first failure wins (the checks before the height checks are left to the
// code under test, as they do not depend on the heights).
bool WalkHeights(const ConvolutionModel &m, bool check_heights_used,
                 bool allow_height_padding, std::string *why) {
  std::ostringstream reason;
  std::vector<bool> height_used(m.height_in, false),
      offset_used(m.offsets.size(), false);
  for (int64_t j = 0; j < m.height_out; j++) {
    bool reachable = false;
    for (size_t i = 0; i < m.offsets.size(); i++) {
      const ConvolutionModel::Offset &o = m.offsets[i];
      if (o.time_offset == kNoTime) {
        offset_used[i] = true;
        continue;
      }
      int64_t h = j * m.height_subsample_out + o.height_offset;
      if (h < 0 || h >= m.height_in) {
        if (!allow_height_padding) {
          reason << "output height " << j << " with height offset "
                 << o.height_offset << " reads input height " << h
                 << ", outside [0, " << m.height_in
                 << ") (no padding allowed here)";
          *why = reason.str();
          return false;
        }
        continue;
      }
      offset_used[i] = true;
      height_used[h] = true;
      if (m.required_time_offsets.count(o.time_offset)) reachable = true;
    }
    if (!reachable) {
      reason << "output height " << j << " (of height-out=" << m.height_out
             << ") reads no input height in [0, " << m.height_in
             << ") at a required time offset";
      *why = reason.str();
      return false;
    }
  }
  if (check_heights_used) {
    for (int32 h = 0; h < m.height_in; h++) {
      if (!height_used[h]) {
        reason << "input height " << h << " (of height-in=" << m.height_in
               << ") is never read";
        *why = reason.str();
        return false;
      }
    }
  }
  for (size_t i = 0; i < m.offsets.size(); i++) {
    if (!offset_used[i]) {
      reason << "offset (" << m.offsets[i].time_offset << ","
             << m.offsets[i].height_offset << ") never reads an input height";
      *why = reason.str();
      return false;
    }
  }
  return true;
}

ConvolutionModel RandomModel(std::mt19937 *rng) {
  auto uniform = [rng](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(*rng);
  };
  ConvolutionModel m;
  m.num_filters_in = uniform(1, 3);
  m.num_filters_out = uniform(1, 3);
  m.height_in = uniform(1, 14);
  m.height_subsample_out = uniform(1, 4);
  // Mostly about as many output heights as the subsampled input has.
  m.height_out = std::max(1, (m.height_in + m.height_subsample_out - 1) /
                                     m.height_subsample_out + uniform(-2, 1));
  std::set<ConvolutionModel::Offset> offsets;
  if (uniform(0, 5) == 0) offsets.insert({kNoTime, kNoTime});
  int num = uniform(1, 6);
  for (int k = 0; k < num; k++)
    offsets.insert({uniform(-2, 2), uniform(0, 5) == 0
                                        ? uniform(-6, m.height_in + 4)
                                        : uniform(-1, 2)});
  m.offsets.assign(offsets.begin(), offsets.end());
  for (const auto &o : m.offsets)
    if (o.time_offset != kNoTime && uniform(0, 2) != 0)
      m.required_time_offsets.insert(o.time_offset);
  for (const auto &o : m.offsets)
    if (o.time_offset != kNoTime && m.required_time_offsets.empty())
      m.required_time_offsets.insert(o.time_offset);
  m.ComputeDerived();
  return m;
}

TEST(ConvolutionModelCheck, HeightChecksAgreeWithAWalkOverEveryPair) {
  std::mt19937 rng(20261127);
  std::map<std::string, int> verdicts;  // how often each kind of verdict
  auto kind = [](const std::string &why) -> std::string {
    if (why.empty()) return "accepted";
    if (why.find("no padding") != std::string::npos) return "padding";
    if (why.find("required time offset") != std::string::npos)
      return "unreachable output height";
    if (why.find("input height") == 0) return "unread input height";
    if (why.find("offset (") == 0) return "unused offset";
    return why;
  };
  for (int trial = 0; trial < 20000; trial++) {
    ConvolutionModel m = RandomModel(&rng);
    if (m.all_time_offsets.empty()) continue;  // not a height question
    for (int flags = 0; flags < 4; flags++) {
      const bool heights_used = (flags & 1) != 0, padding = (flags & 2) != 0;
      std::string why, expected_why;
      bool ok = m.Check(heights_used, padding, &why);
      bool expected = WalkHeights(m, heights_used, padding, &expected_why);
      ASSERT_EQ(ok, expected) << m.Info() << " flags " << flags << ": "
                              << why << " / " << expected_why;
      if (!ok) {
        EXPECT_EQ(why, expected_why) << m.Info();
      }
      verdicts[kind(why)]++;
    }
  }
  // Every kind of verdict must be well represented for the comparison to
  // mean much, and there must be no other kind.
  for (const char *verdict :
       {"accepted", "padding", "unreachable output height",
        "unread input height", "unused offset"})
    EXPECT_GT(verdicts[verdict], 1000) << verdict;
  EXPECT_EQ(verdicts.size(), 5u);
}

ConvolutionModel OneOffset(int32 filters_in, int32 height_in,
                           int32 height_out, int32 stride, int32 num_t) {
  ConvolutionModel m;
  m.num_filters_in = filters_in;
  m.num_filters_out = 1;
  m.height_in = height_in;
  m.height_out = height_out;
  m.height_subsample_out = stride;
  for (int32 t = 0; t < num_t; t++) m.offsets.push_back({t, 0});
  m.required_time_offsets.insert(0);
  m.ComputeDerived();
  return m;
}

TEST(ConvolutionModelCheck, ParameterColumnsBeyondInt32AreRejected) {
  // From a fuzzed model file: 1442906113 input filters and 9 offsets.
  ConvolutionModel m = OneOffset(1442906113, 1, 1, 1, 9);
  std::string why;
  EXPECT_FALSE(m.Check(false, true, &why));
  EXPECT_NE(why.find("parameter columns 12986155017"), std::string::npos)
      << why;
  // One offset fewer still overflows; 1 offset fits.
  EXPECT_FALSE(OneOffset(1442906113, 1, 1, 1, 2).Check(false, true));
  EXPECT_TRUE(OneOffset(1442906113, 1, 1, 1, 1).Check(false, true));
}

TEST(ConvolutionModelCheck, InputAndOutputDimsBeyondInt32AreRejected) {
  std::string why;
  EXPECT_FALSE(OneOffset(65536, 32768, 1, 1, 1).Check(false, true, &why));
  EXPECT_NE(why.find("input-dim 2147483648"), std::string::npos) << why;
  ConvolutionModel m = OneOffset(1, 1, 1, 1, 1);
  m.num_filters_out = 65536;
  m.height_out = 32768;
  EXPECT_FALSE(m.Check(false, true, &why));
  EXPECT_NE(why.find("output-dim 2147483648"), std::string::npos) << why;
}

TEST(ConvolutionModelCheck, HugeHeightsAreCheckedWithoutVisitingThem) {
  const int32 big = 2147483647;
  auto start = std::chrono::steady_clock::now();
  // Every output height reads its own input height: valid.
  EXPECT_TRUE(OneOffset(1, big, big, 1, 1).Check(true, false));
  // Subsampled by 2 with offsets 0 and 1: every input height is read.
  ConvolutionModel m = OneOffset(1, big - 1, big / 2, 2, 1);
  m.offsets = {{0, 0}, {0, 1}};
  m.ComputeDerived();
  EXPECT_TRUE(m.Check(true, false));
  // Only offset 0: the odd heights are never read.
  std::string why;
  EXPECT_FALSE(OneOffset(1, big - 1, big / 2, 2, 1).Check(true, false, &why));
  EXPECT_EQ(why, "input height 1 (of height-in=2147483646) is never read");
  // The last output height reads past the input.
  EXPECT_FALSE(OneOffset(1, big - 1, big, 1, 1).Check(false, false, &why));
  EXPECT_EQ(why,
            "output height 2147483646 with height offset 0 reads input height "
            "2147483646, outside [0, 2147483646) (no padding allowed here)");
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start).count();
  // A walk over these heights takes minutes; the interval checks take
  // microseconds. The bound only guards against a return of the walk.
  EXPECT_LT(seconds, 5.0);
}

TEST(ConvolutionModelCheck, TimeOffsetsTooFarApartAreRejected) {
  ConvolutionModel m = OneOffset(1, 4, 4, 1, 1);
  m.offsets = {{-2000000000, 0}, {2000000000, 0}};
  m.required_time_offsets = {2000000000};
  m.ComputeDerived();
  std::string why;
  EXPECT_FALSE(m.Check(false, true, &why));
  EXPECT_NE(why.find("time offsets span more than 2147483647 frames"),
            std::string::npos)
      << why;
}

TEST(ConvolutionModelRead, OverflowingSizesAreAReadError) {
  ConvolutionModel m = OneOffset(1442906113, 1, 1, 1, 9);
  std::ostringstream os;
  m.Write(os, true);
  std::istringstream is(os.str());
  ConvolutionModel back;
  try {
    back.Read(is, true);
    FAIL() << "read a model whose parameter matrix overflows int32";
  } catch (const UserError &e) {
    EXPECT_NE(std::string(e.what()).find("do not fit a 32-bit dimension"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace time_height_convolution
}  // namespace nnet3
