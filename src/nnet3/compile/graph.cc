// nnet3/compile/graph.cc
#include "nnet3/compile/graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <sstream>

namespace nnet3 {

void NnetToDirectedGraph(const Nnet &nnet,
                         std::vector<std::vector<int32> > *graph) {
  int32 num_nodes = nnet.NumNodes();
  graph->assign(num_nodes, std::vector<int32>());
  for (int32 n = 0; n < num_nodes; n++) {
    const NetworkNode &node = nnet.GetNode(n);
    std::vector<int32> deps;
    switch (node.node_type) {
      case kInput:
        break;
      case kDescriptor:
        node.descriptor.GetNodeDependencies(&deps);
        break;
      case kComponent:
        deps.push_back(n - 1);
        break;
      case kDimRange:
        deps.push_back(node.node_index);
        break;
      case kNone:
        NNET3_ASSERT(false && "node of type kNone");
    }
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (int32 d : deps) {
      NNET3_ASSERT(d >= 0 && d < num_nodes);
      (*graph)[d].push_back(n);
    }
  }
}

namespace {

// Tarjan's algorithm, iterative (networks can be deep enough that
// recursion depth matters).
class TarjanSccs {
 public:
  explicit TarjanSccs(const std::vector<std::vector<int32> > &graph)
      : graph_(graph), index_(graph.size(), -1), lowlink_(graph.size(), 0),
        on_stack_(graph.size(), false) {}

  void Run(std::vector<std::vector<int32> > *sccs) {
    sccs->clear();
    for (int32 v = 0; v < static_cast<int32>(graph_.size()); v++)
      if (index_[v] == -1) Visit(v, sccs);
  }

 private:
  struct Frame {
    int32 node;
    size_t next_edge;
  };

  void Visit(int32 root, std::vector<std::vector<int32> > *sccs) {
    std::vector<Frame> call_stack;
    Open(root);
    call_stack.push_back({root, 0});
    while (!call_stack.empty()) {
      Frame &f = call_stack.back();
      int32 v = f.node;
      if (f.next_edge < graph_[v].size()) {
        int32 w = graph_[v][f.next_edge++];
        if (index_[w] == -1) {
          Open(w);
          call_stack.push_back({w, 0});
        } else if (on_stack_[w]) {
          lowlink_[v] = std::min(lowlink_[v], index_[w]);
        }
        continue;
      }
      // All edges of v done.
      if (lowlink_[v] == index_[v]) {
        std::vector<int32> scc;
        int32 w;
        do {
          w = stack_.back();
          stack_.pop_back();
          on_stack_[w] = false;
          scc.push_back(w);
        } while (w != v);
        sccs->push_back(scc);
      }
      call_stack.pop_back();
      if (!call_stack.empty()) {
        int32 parent = call_stack.back().node;
        lowlink_[parent] = std::min(lowlink_[parent], lowlink_[v]);
      }
    }
  }

  void Open(int32 v) {
    index_[v] = lowlink_[v] = next_index_++;
    stack_.push_back(v);
    on_stack_[v] = true;
  }

  const std::vector<std::vector<int32> > &graph_;
  std::vector<int32> index_, lowlink_, stack_;
  std::vector<bool> on_stack_;
  int32 next_index_ = 0;
};

}  // namespace

void FindSccs(const std::vector<std::vector<int32> > &graph,
              std::vector<std::vector<int32> > *sccs) {
  TarjanSccs(graph).Run(sccs);
}

void MakeSccGraph(const std::vector<std::vector<int32> > &graph,
                  const std::vector<std::vector<int32> > &sccs,
                  std::vector<std::vector<int32> > *scc_graph) {
  std::vector<int32> node_to_scc(graph.size(), -1);
  for (size_t c = 0; c < sccs.size(); c++)
    for (int32 n : sccs[c]) node_to_scc[n] = static_cast<int32>(c);
  scc_graph->assign(sccs.size(), std::vector<int32>());
  for (size_t c = 0; c < sccs.size(); c++) {
    std::vector<int32> &out = (*scc_graph)[c];
    for (int32 n : sccs[c])
      for (int32 m : graph[n]) {
        int32 d = node_to_scc[m];
        NNET3_ASSERT(d != -1);
        if (d != static_cast<int32>(c)) out.push_back(d);
      }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
}

void ComputeTopSortOrder(const std::vector<std::vector<int32> > &graph,
                         std::vector<int32> *node_to_order) {
  // Kahn's algorithm; among ready nodes the smallest index goes first, so
  // the order is deterministic.
  int32 n = static_cast<int32>(graph.size());
  std::vector<int32> in_degree(n, 0);
  for (const auto &edges : graph)
    for (int32 m : edges) in_degree[m]++;
  std::priority_queue<int32, std::vector<int32>, std::greater<int32> > ready;
  for (int32 i = 0; i < n; i++)
    if (in_degree[i] == 0) ready.push(i);
  node_to_order->assign(n, -1);
  int32 next = 0;
  while (!ready.empty()) {
    int32 i = ready.top();
    ready.pop();
    (*node_to_order)[i] = next++;
    for (int32 m : graph[i])
      if (--in_degree[m] == 0) ready.push(m);
  }
  if (next != n)
    NNET3_ERR << "ComputeTopSortOrder: the graph has a cycle";
}

void ComputeNnetComputationEpochs(const Nnet &nnet,
                                  std::vector<int32> *node_to_epoch) {
  std::vector<std::vector<int32> > graph, sccs, scc_graph;
  NnetToDirectedGraph(nnet, &graph);
  FindSccs(graph, &sccs);
  MakeSccGraph(graph, sccs, &scc_graph);
  std::vector<int32> scc_to_epoch;
  ComputeTopSortOrder(scc_graph, &scc_to_epoch);
  node_to_epoch->assign(graph.size(), -1);
  for (size_t c = 0; c < sccs.size(); c++)
    for (int32 n : sccs[c]) (*node_to_epoch)[n] = scc_to_epoch[c];
}

bool GraphHasCycles(const std::vector<std::vector<int32> > &graph) {
  std::vector<std::vector<int32> > sccs;
  FindSccs(graph, &sccs);
  for (const auto &scc : sccs) {
    if (scc.size() > 1) return true;
    int32 n = scc[0];
    if (std::find(graph[n].begin(), graph[n].end(), n) != graph[n].end())
      return true;  // self-loop
  }
  return false;
}

std::string PrintGraphToString(const std::vector<std::vector<int32> > &graph) {
  std::ostringstream os;
  for (size_t i = 0; i < graph.size(); i++) {
    if (i > 0) os << "; ";
    os << i << " ->";
    for (int32 j : graph[i]) os << ' ' << j;
  }
  return os.str();
}

}  // namespace nnet3
