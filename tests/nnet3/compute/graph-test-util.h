// tests/nnet3/compute/graph-test-util.h
// ExpectIdentical: the check of the graph-replay tests that two runs gave
// the same outputs, utterance by utterance, bit for bit.
#ifndef NNET3_TESTS_NNET3_COMPUTE_GRAPH_TEST_UTIL_H_
#define NNET3_TESTS_NNET3_COMPUTE_GRAPH_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <vector>

#include "matrix/matrix.h"

namespace nnet3 {
namespace test {

inline void ExpectIdentical(const std::vector<Matrix<BaseFloat> > &a,
                            const std::vector<Matrix<BaseFloat> > &b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t u = 0; u < a.size(); u++) {
    ASSERT_EQ(a[u].NumRows(), b[u].NumRows()) << "utterance " << u;
    ASSERT_EQ(a[u].NumCols(), b[u].NumCols()) << "utterance " << u;
    int32 differ = 0;
    for (int32 r = 0; r < a[u].NumRows(); r++)
      for (int32 c = 0; c < a[u].NumCols(); c++)
        if (a[u](r, c) != b[u](r, c)) differ++;
    EXPECT_EQ(differ, 0) << "utterance " << u;
  }
}

}  // namespace test
}  // namespace nnet3

#endif  // NNET3_TESTS_NNET3_COMPUTE_GRAPH_TEST_UTIL_H_
