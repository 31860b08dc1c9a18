// nnet3/nnet/nnet-dot.cc
// NnetToGraphviz: see nnet-dot.h for the drawing conventions. Time offsets of an
// edge into a descriptor are found by asking the descriptor which Cindexes
// it reads for Index (0, t0) at every t0 in one modulus period, and again a
// long way further on (t0 + 1000 * modulus): if both give the same offsets
// for a source node, they are a pure shift and label the edge.
#include "nnet3/nnet/nnet-dot.h"

#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace nnet3 {

namespace {

// A string as a Graphviz double-quoted string (with the quotes).
std::string Quote(const std::string &s) {
  std::string ans = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') ans += '\\';
    if (c == '\n') {
      ans += "\\n";
      continue;
    }
    ans += c;
  }
  return ans + "\"";
}

std::string OffsetName(int64 offset) {
  if (offset == 0) return "t";
  return offset > 0 ? "t+" + std::to_string(offset)
                    : "t-" + std::to_string(-offset);
}

// Source node -> the t offsets read from it, for base times t0 in
// [base, base + modulus).
std::map<int32, std::set<int64> > OffsetsFrom(const Descriptor &desc,
                                              int64 base) {
  std::map<int32, std::set<int64> > ans;
  int32 modulus = desc.Modulus();
  if (modulus > 1000) return ans;  // too long a period to label
  std::vector<Cindex> deps;
  for (int32 k = 0; k < modulus; k++) {
    int64 t0 = base + k;
    desc.GetDependencies(Index(0, static_cast<int32>(t0)), &deps);
    for (const Cindex &c : deps) ans[c.first].insert(c.second.t - t0);
  }
  return ans;
}

// The label of the edge src -> desc ("" for none).
std::string EdgeLabel(const std::map<int32, std::set<int64> > &near,
                      const std::map<int32, std::set<int64> > &far,
                      int32 src) {
  auto a = near.find(src), b = far.find(src);
  if (a == near.end() || b == far.end() || a->second != b->second) return "";
  const std::set<int64> &offsets = a->second;
  if (offsets.size() == 1 && *offsets.begin() == 0) return "";
  if (offsets.size() > 8)
    return OffsetName(*offsets.begin()) + " to " + OffsetName(*offsets.rbegin());
  std::string ans;
  for (int64 o : offsets) ans += (ans.empty() ? "" : ", ") + OffsetName(o);
  return ans;
}

}  // namespace

std::string NnetToGraphviz(const Nnet &nnet) {
  const std::vector<std::string> &names = nnet.GetNodeNames();
  std::ostringstream os;
  os << "digraph nnet {\n";
  os << "  node [fontsize=10];\n";
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    const NetworkNode &node = nnet.GetNode(n);
    std::string label = names[n] + "\n", shape;
    switch (node.node_type) {
      case kInput:
        shape = "parallelogram";
        label += "input-node";
        break;
      case kDescriptor:
        shape = nnet.IsOutputNode(n) ? "doubleoctagon" : "ellipse";
        label += node.descriptor.ToString(names);
        if (nnet.IsOutputNode(n))
          label += std::string("\nobjective=") +
                   (node.objective_type == kLinear ? "linear" : "quadratic");
        break;
      case kComponent: {
        shape = "box";
        const std::string &component = nnet.GetComponentName(node.component_index);
        if (component != names[n]) label += component + ": ";
        label += nnet.GetComponent(node.component_index)->Type();
        break;
      }
      case kDimRange:
        shape = "trapezium";
        label += "dim-range offset=" + std::to_string(node.dim_offset);
        break;
      case kNone:
        shape = "plaintext";
        label += "(no type)";
        break;
    }
    if (node.node_type != kNone)
      label += "\ndim=" + std::to_string(nnet.NodeDim(n));
    os << "  n" << n << " [label=" << Quote(label) << ", shape=" << shape
       << "];\n";
  }
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    const NetworkNode &node = nnet.GetNode(n);
    if (node.node_type == kComponent) {
      os << "  n" << (n - 1) << " -> n" << n << ";\n";
    } else if (node.node_type == kDimRange) {
      os << "  n" << node.node_index << " -> n" << n << ";\n";
    } else if (node.node_type == kDescriptor) {
      std::vector<int32> sources;
      node.descriptor.GetNodeDependencies(&sources);
      std::set<int32> unique(sources.begin(), sources.end());
      auto near = OffsetsFrom(node.descriptor, 0);
      auto far = OffsetsFrom(node.descriptor,
                             1000 * static_cast<int64>(node.descriptor.Modulus()));
      for (int32 src : unique) {
        std::string label = EdgeLabel(near, far, src);
        os << "  n" << src << " -> n" << n;
        if (!label.empty()) os << " [label=" << Quote(label) << "]";
        os << ";\n";
      }
    }
  }
  os << "}\n";
  return os.str();
}

}  // namespace nnet3
