// tests/nnet3/egs/example-merging-test.cc
// --minibatch-size rule parsing and selection (hand-derived from the rule
// semantics), and ExampleMerger's grouping, flushing and keys.
#include <gtest/gtest.h>

#include "common/testing.h"
#include "nnet3/egs/example-merging.h"
#include "nnet3/egs/example-utils.h"

namespace nnet3 {
namespace {

ExampleMergingConfig Parse(const std::string &rule) {
  ExampleMergingConfig config;
  config.minibatch_size = rule;
  config.ComputeDerived();
  return config;
}

TEST(ExampleMergingConfigTest, ParsesRules) {
  ExampleMergingConfig a = Parse("128");
  ASSERT_EQ(a.rules.size(), 1u);
  EXPECT_EQ(a.rules[0].first, 0);
  EXPECT_EQ(a.rules[0].second.largest_size, 128);

  ExampleMergingConfig b = Parse("64,128");
  ASSERT_EQ(b.rules[0].second.ranges.size(), 2u);
  EXPECT_EQ(b.rules[0].second.ranges[0], std::make_pair(64, 64));
  EXPECT_EQ(b.rules[0].second.largest_size, 128);

  ExampleMergingConfig c = Parse("128=64:128,256/256=32:64");
  ASSERT_EQ(c.rules.size(), 2u);
  EXPECT_EQ(c.rules[0].first, 128);
  EXPECT_EQ(c.rules[0].second.ranges[0], std::make_pair(64, 128));
  EXPECT_EQ(c.rules[0].second.ranges[1], std::make_pair(256, 256));
  EXPECT_EQ(c.rules[0].second.largest_size, 256);
  EXPECT_EQ(c.rules[1].first, 256);
  EXPECT_EQ(c.rules[1].second.largest_size, 64);
}

TEST(ExampleMergingConfigTest, RejectsBadRules) {
  for (const char *bad : {"", "abc", "0", "64:32", "64,", "-5", "1.5",
                          "128=64/128=32", "64/128", "128=", "=64",
                          "128=64=32", "64:128:256"}) {
    ExampleMergingConfig config;
    config.minibatch_size = bad;
    EXPECT_THROW(config.ComputeDerived(), UserError) << bad;
  }
}

TEST(ExampleMergingConfigTest, MinibatchSize) {
  ExampleMergingConfig a = Parse("128");
  EXPECT_EQ(a.MinibatchSize(10, 127, false), 0);
  EXPECT_EQ(a.MinibatchSize(10, 128, false), 128);
  EXPECT_EQ(a.MinibatchSize(10, 127, true), 0);  // at the end: discarded

  ExampleMergingConfig b = Parse("32:64,128");
  EXPECT_EQ(b.MinibatchSize(10, 100, false), 0);
  EXPECT_EQ(b.MinibatchSize(10, 128, false), 128);
  EXPECT_EQ(b.MinibatchSize(10, 100, true), 64);
  EXPECT_EQ(b.MinibatchSize(10, 40, true), 40);
  EXPECT_EQ(b.MinibatchSize(10, 31, true), 0);
  EXPECT_EQ(b.MinibatchSize(10, 500, true), 128);

  // Example size 200 is nearer 256 than 128; 192 is equally near both and
  // the first rule wins.
  ExampleMergingConfig c = Parse("128=64:128,256/256=32:64");
  EXPECT_EQ(c.MinibatchSize(200, 64, false), 64);
  EXPECT_EQ(c.MinibatchSize(192, 64, false), 0);
  EXPECT_EQ(c.MinibatchSize(192, 256, false), 256);
  EXPECT_EQ(c.MinibatchSize(192, 200, true), 128);
  EXPECT_EQ(c.MinibatchSize(1000, 50, true), 50);
}

// An example with io "input" of num_rows rows (t = 0 ..) and the given dim.
NnetExample Eg(int32 num_rows, int32 dim, BaseFloat value) {
  Matrix<BaseFloat> m(num_rows, dim);
  m.Set(value);
  NnetExample eg;
  eg.io.push_back(NnetIo("input", 0, m));
  return eg;
}

// Reads back an archive: (key, number of n values, first value) per entry.
struct Entry {
  std::string key;
  int32 num_n;
  BaseFloat first;
};
std::vector<Entry> ReadBack(const std::string &rspecifier) {
  std::vector<Entry> ans;
  SequentialNnetExampleReader reader(rspecifier);
  for (; !reader.Done(); reader.Next()) {
    Matrix<BaseFloat> m;
    reader.Value().io[0].features.GetMatrix(&m);
    ans.push_back({reader.Key(), GetNumNvalues(reader.Value().io), m(0, 0)});
  }
  return ans;
}

TEST(ExampleMergerTest, GroupsByStructureAndFlushesAtTheEnd) {
  testing::TempDir dir;
  std::string ark = dir.File("out.ark");
  ExampleMergingConfig config = Parse("1:2,3");
  {
    NnetExampleWriter writer("ark:" + ark);
    ExampleMerger merger(config, &writer);
    // A = 2 rows, B = 3 rows (a different structure), C = 2 rows, dim 4.
    // Order: A1 B1 A2 C1 A3 B2 A4 A5 C2 B3 B4.
    std::vector<NnetExample> egs = {Eg(2, 1, 1), Eg(3, 1, 11), Eg(2, 1, 2),
                                    Eg(2, 4, 21), Eg(2, 1, 3), Eg(3, 1, 12),
                                    Eg(2, 1, 4), Eg(2, 1, 5), Eg(2, 4, 22),
                                    Eg(3, 1, 13), Eg(3, 1, 14)};
    for (NnetExample &eg : egs) merger.AcceptExample(&eg);
    merger.Finish();
    EXPECT_EQ(merger.ExitStatus(), 0);
  }
  std::vector<Entry> got = ReadBack("ark:" + ark);
  // While reading: A1 A2 A3 when A3 arrives; B1 B2 B3 when B3 arrives.
  // At the end, in order of each group's first example: A4 A5 (2), C1 C2
  // (2; C's group started before A4's), B4 (1).
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[0].key, "merged-0-3");
  EXPECT_EQ(got[0].first, 1.0f);
  EXPECT_EQ(got[1].key, "merged-1-3");
  EXPECT_EQ(got[1].first, 11.0f);
  EXPECT_EQ(got[2].key, "merged-2-2");
  EXPECT_EQ(got[2].first, 21.0f);
  EXPECT_EQ(got[3].key, "merged-3-2");
  EXPECT_EQ(got[3].first, 4.0f);
  EXPECT_EQ(got[4].key, "merged-4-1");
  EXPECT_EQ(got[4].first, 14.0f);
  EXPECT_EQ(got[4].num_n, 1);
}

TEST(ExampleMergerTest, DiscardsWhatFitsNoSize) {
  testing::TempDir dir;
  std::string ark = dir.File("out.ark");
  ExampleMergingConfig config = Parse("2");
  {
    NnetExampleWriter writer("ark:" + ark);
    ExampleMerger merger(config, &writer);
    for (int32 i = 0; i < 5; i++) {
      NnetExample eg = Eg(2, 1, i);
      merger.AcceptExample(&eg);
    }
    merger.Finish();
  }
  std::vector<Entry> got = ReadBack("ark:" + ark);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].key, "merged-1-2");
  EXPECT_EQ(got[1].first, 2.0f);
}

}  // namespace
}  // namespace nnet3
