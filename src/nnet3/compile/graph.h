// nnet3/compile/graph.h
// The network as a directed graph of nodes, and the orderings the compiler
// needs from it (the first step of "Compilation in the nnet3 setup"):
//  - NnetToDirectedGraph: graph[i] lists the nodes that read node i (the
//    direction of computation);
//  - FindSccs: strongly connected components (Tarjan), so a recurrent layer
//    (nodes that depend on each other at earlier times) is one component;
//  - MakeSccGraph / ComputeTopSortOrder: the graph of components and a
//    topological order of it;
//  - ComputeNnetComputationEpochs: node -> epoch, where nodes of one
//    strongly connected component share an epoch and an epoch only depends
//    on smaller epochs.
// Invariant: for every edge i -> j, epoch(i) <= epoch(j), with equality
// only inside one strongly connected component.
#ifndef NNET3_NNET3_COMPILE_GRAPH_H_
#define NNET3_NNET3_COMPILE_GRAPH_H_

#include <string>
#include <vector>

#include "nnet3/nnet/nnet.h"

namespace nnet3 {

void NnetToDirectedGraph(const Nnet &nnet,
                         std::vector<std::vector<int32> > *graph);

// Strongly connected components of 'graph'; each is a list of nodes. The
// components come out in reverse topological order (a component appears
// before every component that leads to it), as Tarjan's algorithm finds
// them.
void FindSccs(const std::vector<std::vector<int32> > &graph,
              std::vector<std::vector<int32> > *sccs);

// The graph whose nodes are the components: an edge c1 -> c2 whenever some
// node of c1 has an edge to a node of c2 (c1 != c2); no duplicates.
void MakeSccGraph(const std::vector<std::vector<int32> > &graph,
                  const std::vector<std::vector<int32> > &sccs,
                  std::vector<std::vector<int32> > *scc_graph);

// For an acyclic graph, node_to_order[i] = the position of i in a
// topological order (every edge goes from a smaller to a larger position).
// An error if the graph has a cycle.
void ComputeTopSortOrder(const std::vector<std::vector<int32> > &graph,
                         std::vector<int32> *node_to_order);

void ComputeNnetComputationEpochs(const Nnet &nnet,
                                  std::vector<int32> *node_to_epoch);

// True if the graph has a cycle (a node that can reach itself).
bool GraphHasCycles(const std::vector<std::vector<int32> > &graph);

// "0 -> 1 2; 1 -> ; ..." for messages and tests.
std::string PrintGraphToString(const std::vector<std::vector<int32> > &graph);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPILE_GRAPH_H_
