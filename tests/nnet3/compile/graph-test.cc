// tests/nnet3/compile/graph-test.cc
// Strongly connected components against brute-force mutual reachability on
// random graphs, topological orders against their definition, and the
// epochs of Kaldi's reference networks (a recurrent one and a feed-forward
// one).
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "common/testing.h"
#include "nnet3/compile/graph.h"
#include "util/stream.h"

namespace nnet3 {
namespace {

std::vector<std::vector<bool> > Reachability(
    const std::vector<std::vector<int32> > &graph) {
  int32 n = graph.size();
  std::vector<std::vector<bool> > reach(n, std::vector<bool>(n, false));
  for (int32 s = 0; s < n; s++) {
    std::vector<int32> stack = {s};
    reach[s][s] = true;
    while (!stack.empty()) {
      int32 u = stack.back();
      stack.pop_back();
      for (int32 v : graph[u])
        if (!reach[s][v]) {
          reach[s][v] = true;
          stack.push_back(v);
        }
    }
  }
  return reach;
}

std::vector<std::vector<int32> > RandomGraph(RandomSource *rs, int32 n,
                                             double p) {
  std::vector<std::vector<int32> > g(n);
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j < n; j++)
      if (rs->WithProb(p)) g[i].push_back(j);
  return g;
}

TEST(Graph, SccsEqualMutualReachabilityAndComeInReverseTopologicalOrder) {
  for (uint64 seed = 1; seed <= 60; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomSource rs(seed);
    int32 n = rs.Int(1, 25);
    auto g = RandomGraph(&rs, n, rs.Uniform() * 0.2);
    std::vector<std::vector<int32> > sccs;
    FindSccs(g, &sccs);
    std::vector<int32> scc_of(n, -1);
    for (size_t c = 0; c < sccs.size(); c++)
      for (int32 v : sccs[c]) {
        ASSERT_EQ(scc_of[v], -1) << "node in two components";
        scc_of[v] = c;
      }
    auto reach = Reachability(g);
    for (int32 a = 0; a < n; a++) {
      ASSERT_NE(scc_of[a], -1);
      for (int32 b = 0; b < n; b++)
        EXPECT_EQ(scc_of[a] == scc_of[b], reach[a][b] && reach[b][a]);
    }
    for (int32 u = 0; u < n; u++) {
      for (int32 v : g[u]) {
        if (scc_of[u] != scc_of[v]) {
          EXPECT_GT(scc_of[u], scc_of[v]);
        }
      }
    }
    // The component graph is acyclic and its order respects every edge.
    std::vector<std::vector<int32> > scc_graph;
    MakeSccGraph(g, sccs, &scc_graph);
    EXPECT_FALSE(GraphHasCycles(scc_graph));
    std::vector<int32> order;
    ComputeTopSortOrder(scc_graph, &order);
    std::set<int32> seen(order.begin(), order.end());
    EXPECT_EQ(seen.size(), sccs.size());
    for (size_t c = 0; c < scc_graph.size(); c++)
      for (int32 d : scc_graph[c]) EXPECT_LT(order[c], order[d]);
    bool cyclic = false;
    for (const auto &scc : sccs)
      cyclic = cyclic || scc.size() > 1 ||
               std::count(g[scc[0]].begin(), g[scc[0]].end(), scc[0]) > 0;
    EXPECT_EQ(GraphHasCycles(g), cyclic);
  }
}

TEST(Graph, TopSortOfACycleIsAnError) {
  std::vector<std::vector<int32> > g = {{1}, {2}, {0}};
  std::vector<int32> order;
  EXPECT_THROW(ComputeTopSortOrder(g, &order), UserError);
  EXPECT_EQ(PrintGraphToString(g), "0 -> 1; 1 -> 2; 2 -> 0");
}

Nnet ReadModel(const std::string &name) {
  Nnet nnet;
  ReadKaldiObject(testing::DataDir() + "/kaldi/models/" + name, &nnet);
  return nnet;
}

void CheckEpochs(const Nnet &nnet, bool expect_recurrence) {
  std::vector<std::vector<int32> > graph, sccs;
  NnetToDirectedGraph(nnet, &graph);
  FindSccs(graph, &sccs);
  std::vector<int32> scc_of(graph.size());
  for (size_t c = 0; c < sccs.size(); c++)
    for (int32 v : sccs[c]) scc_of[v] = c;
  std::vector<int32> epoch;
  ComputeNnetComputationEpochs(nnet, &epoch);
  for (size_t u = 0; u < graph.size(); u++)
    for (int32 v : graph[u]) {
      EXPECT_LE(epoch[u], epoch[v]) << nnet.GetNodeName(u) << " -> "
                                    << nnet.GetNodeName(v);
      EXPECT_EQ(epoch[u] == epoch[v], scc_of[u] == scc_of[v]);
    }
  EXPECT_EQ(GraphHasCycles(graph), expect_recurrence);
}

TEST(Graph, EpochsOfKaldiModels) {
  Nnet rnn = ReadModel("rnn.raw");
  CheckEpochs(rnn, true);
  // The recurrent layer's nodes share an epoch.
  std::vector<int32> epoch;
  ComputeNnetComputationEpochs(rnn, &epoch);
  std::vector<std::vector<int32> > graph, sccs;
  NnetToDirectedGraph(rnn, &graph);
  FindSccs(graph, &sccs);
  size_t largest = 0;
  for (const auto &scc : sccs) largest = std::max(largest, scc.size());
  EXPECT_GE(largest, 2u);
  Nnet seed = ReadModel("seed.raw");
  CheckEpochs(seed, false);
  ComputeNnetComputationEpochs(seed, &epoch);
  std::set<int32> distinct(epoch.begin(), epoch.end());
  EXPECT_EQ(distinct.size(), epoch.size());  // feed-forward: all different
  // The input comes first, the output last.
  EXPECT_EQ(epoch[seed.GetNodeIndex("input")], 0);
  EXPECT_EQ(epoch[seed.GetNodeIndex("output")],
            static_cast<int32>(epoch.size()) - 1);
}

}  // namespace
}  // namespace nnet3
