// tests/nnet3/compute/graph-test-util.h
// What the graph-replay tests share: ChunkOptions (Kaldi-style chunks, no
// large chunks, replay on or off), InferUtterances (nnet3-compute's chunked
// inference of each utterance, through one compiler) and ExpectIdentical
// (two runs gave the same outputs, utterance by utterance, bit for bit).
#ifndef NNET3_TESTS_NNET3_COMPUTE_GRAPH_TEST_UTIL_H_
#define NNET3_TESTS_NNET3_COMPUTE_GRAPH_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <vector>

#include "matrix/matrix.h"
#include "nnet3/compute/decodable-simple.h"

namespace nnet3 {
namespace test {

inline NnetSimpleComputationOptions ChunkOptions(const Nnet &nnet,
                                                 int32 frames_per_chunk,
                                                 int32 extra_left_context,
                                                 bool graphs) {
  NnetSimpleComputationOptions opts;
  opts.frames_per_chunk = frames_per_chunk;
  opts.large_chunk_size = 0;
  opts.extra_left_context = extra_left_context;
  opts.compute_config.cuda_graphs = graphs;
  CheckAndFixSimpleComputationOptions(nnet, &opts);
  return opts;
}

inline std::vector<Matrix<BaseFloat> > InferUtterances(
    const Nnet &nnet, const NnetSimpleComputationOptions &opts,
    const std::vector<Matrix<BaseFloat> > &utts,
    CachingOptimizingCompiler *compiler,
    const VectorBase<BaseFloat> *ivector = nullptr) {
  std::vector<Matrix<BaseFloat> > outs(utts.size());
  Vector<BaseFloat> priors;
  for (size_t u = 0; u < utts.size(); u++) {
    DecodableNnetSimple d(opts, nnet, priors, utts[u], compiler, ivector);
    d.ComputeOutput(&outs[u]);
  }
  return outs;
}

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
