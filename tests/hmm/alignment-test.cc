// tests/hmm/alignment-test.cc
// SplitToPhones on hand-built alignments of the triphone model of
// hmm-test-util.h (transition-ids 2s-1 = self-loop, 2s = forward of
// transition-state s), in Kaldi's usual order (self-loops first) and
// reordered (self-loops after the forward transition), and on alignments
// that are not well formed.
#include <gtest/gtest.h>

#include "base/log.h"
#include "hmm/alignment.h"
#include "hmm/hmm-test-util.h"
#include "tree/context-dep.h"

namespace nnet3 {
namespace testing {
namespace {

typedef std::vector<std::vector<int32> > Split;

TransitionModel Model() {
  TransitionModel tm;
  Deserialize(std::string("\0B", 2) + TransitionModelBinary(), &tm);
  return tm;
}

TEST(SplitToPhones, SelfLoopsFirst) {
  TransitionModel tm = Model();
  Split split;
  // Phone 1 (states 1, 2), then phone 2 (states 3, 5).
  EXPECT_TRUE(SplitToPhones(tm, {1, 1, 2, 3, 4, 5, 6, 9, 9, 10}, &split));
  EXPECT_EQ(split, (Split{{1, 1, 2, 3, 4}, {5, 6, 9, 9, 10}}));
  EXPECT_TRUE(SplitToPhones(tm, {}, &split));
  EXPECT_TRUE(split.empty());
}

TEST(SplitToPhones, Reordered) {
  TransitionModel tm = Model();
  Split split;
  EXPECT_TRUE(SplitToPhones(tm, {2, 1, 1, 4, 3, 6, 5, 10, 9, 9}, &split));
  EXPECT_EQ(split, (Split{{2, 1, 1, 4, 3}, {6, 5, 10, 9, 9}}));
}

TEST(SplitToPhones, MalformedAlignmentsAreSplitAndFlagged) {
  TransitionModel tm = Model();
  Split split;
  // Does not end in a final transition.
  EXPECT_FALSE(SplitToPhones(tm, {1, 1, 2, 3}, &split));
  EXPECT_EQ(split, (Split{{1, 1, 2, 3}}));
  // The phone changes without a final transition.
  EXPECT_FALSE(SplitToPhones(tm, {1, 2, 5, 6, 9, 10}, &split));
  EXPECT_EQ(split, (Split{{1, 2}, {5, 6, 9, 10}}));
  // Starts in the middle of a phone.
  EXPECT_FALSE(SplitToPhones(tm, {3, 4}, &split));
  EXPECT_EQ(split, (Split{{3, 4}}));
  // Transition-ids out of range.
  EXPECT_THROW(SplitToPhones(tm, {1, 11}, &split), UserError);
  EXPECT_THROW(SplitToPhones(tm, {0}, &split), UserError);
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
