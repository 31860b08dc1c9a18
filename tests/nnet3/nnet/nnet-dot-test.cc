// tests/nnet3/nnet/nnet-dot-test.cc
// NnetToGraphviz on a network with every node kind (inputs, component nodes and
// their input descriptors, a dim-range node, two outputs): the text is a
// well-formed digraph in the subset NnetToGraphviz writes, every network node
// appears once with the shape of its kind and its name, and the edges are
// exactly the expected ones, labelled with their time offsets where those
// are a pure shift of t.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "nnet3/nnet/nnet-dot.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {
namespace {

const char *kConfig =
    "input-node name=input dim=4\n"
    "input-node name=ivector dim=2\n"
    "component name=affine type=AffineComponent input-dim=14 output-dim=3\n"
    "component-node name=affine component=affine input=Append(Offset(input, "
    "-1), input, Offset(input, 2), ReplaceIndex(ivector, t, 0))\n"
    "component name=relu type=RectifiedLinearComponent dim=3\n"
    "component-node name=relu component=relu input=affine\n"
    "dim-range-node name=first2 input-node=relu dim-offset=0 dim=2\n"
    "component name=r2 type=RectifiedLinearComponent dim=2\n"
    "component-node name=rr component=r2 input=Sum(Switch(first2, "
    "Offset(first2, 3)), Round(Offset(first2, -1), 3))\n"
    "output-node name=output input=relu\n"
    "output-node name=side input=rr objective=quadratic\n";

Nnet MakeNnet() {
  Nnet nnet;
  std::istringstream is(kConfig);
  nnet.ReadConfig(is);
  return nnet;
}

struct Dot {
  std::map<int32, std::pair<std::string, std::string> > nodes;  // label, shape
  std::set<std::tuple<int32, int32, std::string> > edges;      // src, dst, label
};

// Parses the subset of the DOT language NnetToGraphviz writes, failing the test
// on any other line.
Dot ParseDot(const std::string &text) {
  Dot dot;
  std::istringstream is(text);
  std::string line;
  EXPECT_TRUE(std::getline(is, line));
  EXPECT_EQ(line, "digraph nnet {");
  const std::string quoted = "\"((?:[^\"\\\\]|\\\\.)*)\"";
  const std::regex node_re("  n(\\d+) \\[label=" + quoted +
                           ", shape=([a-z]+)\\];");
  const std::regex edge_re("  n(\\d+) -> n(\\d+)(?: \\[label=" + quoted +
                           "\\])?;");
  const std::regex attr_re("  node \\[[a-z]+=[0-9a-z]+\\];");
  bool closed = false;
  while (std::getline(is, line)) {
    EXPECT_FALSE(closed) << "text after the closing brace: " << line;
    std::smatch m;
    if (line == "}") {
      closed = true;
    } else if (std::regex_match(line, m, node_re)) {
      int32 n = std::stoi(m[1]);
      EXPECT_EQ(dot.nodes.count(n), 0u) << "node n" << n << " twice";
      dot.nodes[n] = {m[2], m[3]};
    } else if (std::regex_match(line, m, edge_re)) {
      dot.edges.insert(std::make_tuple(std::stoi(m[1]), std::stoi(m[2]),
                                       std::string(m[3])));
    } else {
      EXPECT_TRUE(std::regex_match(line, attr_re)) << "bad line: " << line;
    }
  }
  EXPECT_TRUE(closed);
  EXPECT_EQ(text.back(), '\n');
  return dot;
}

TEST(NnetToGraphviz, EveryNodeWithItsShapeAndName) {
  Nnet nnet = MakeNnet();
  ASSERT_EQ(nnet.NumNodes(), 11);
  Dot dot = ParseDot(NnetToGraphviz(nnet));
  ASSERT_EQ(dot.nodes.size(), 11u);
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    ASSERT_EQ(dot.nodes.count(n), 1u) << n;
    const std::string &label = dot.nodes[n].first, &shape = dot.nodes[n].second;
    EXPECT_EQ(label.rfind(nnet.GetNodeName(n) + "\\n", 0), 0u) << label;
    EXPECT_NE(label.find("\\ndim=" + std::to_string(nnet.NodeDim(n))),
              std::string::npos) << label;
    std::string want_shape =
        nnet.IsInputNode(n) ? "parallelogram"
        : nnet.IsComponentNode(n) ? "box"
        : nnet.IsDimRangeNode(n) ? "trapezium"
        : nnet.IsOutputNode(n) ? "doubleoctagon" : "ellipse";
    EXPECT_EQ(shape, want_shape) << nnet.GetNodeName(n);
  }
  // Component nodes name their component's type (and the component when
  // its name differs from the node's); descriptors show their text.
  EXPECT_EQ(dot.nodes[3].first, "affine\\nAffineComponent\\ndim=3");
  EXPECT_EQ(dot.nodes[8].first, "rr\\nr2: RectifiedLinearComponent\\ndim=2");
  EXPECT_EQ(dot.nodes[2].first,
            "affine_input\\nAppend(Offset(input, -1), input, Offset(input, 2), "
            "ReplaceIndex(ivector, t, 0))\\ndim=14");
  EXPECT_EQ(dot.nodes[10].first, "side\\nrr\\nobjective=quadratic\\ndim=2");
  EXPECT_EQ(dot.nodes[6].first, "first2\\ndim-range offset=0\\ndim=2");
}

TEST(NnetToGraphviz, EdgesGoFromEachNodeToItsReaders) {
  Dot dot = ParseDot(NnetToGraphviz(MakeNnet()));
  // input 0, ivector 1, affine_input 2, affine 3, relu_input 4, relu 5,
  // first2 6, rr_input 7, rr 8, output 9, side 10.
  std::set<std::tuple<int32, int32, std::string> > want = {
      std::make_tuple(0, 2, "t-1, t, t+2"),
      std::make_tuple(1, 2, ""),  // ReplaceIndex(ivector, t, 0): no shift
      std::make_tuple(2, 3, ""),
      std::make_tuple(3, 4, ""),
      std::make_tuple(4, 5, ""),
      std::make_tuple(5, 6, ""),
      // Switch (t, t+3 alternately) and Round(Offset(-1), 3) (t-1..t-3).
      std::make_tuple(6, 7, "t-3, t-2, t-1, t, t+3"),
      std::make_tuple(7, 8, ""),
      std::make_tuple(5, 9, ""),
      std::make_tuple(8, 10, "")};
  EXPECT_EQ(dot.edges, want);
}

TEST(NnetToGraphviz, IsDeterministic) {
  Nnet a = MakeNnet(), b = MakeNnet();
  EXPECT_EQ(NnetToGraphviz(a), NnetToGraphviz(b));
}

}  // namespace
}  // namespace nnet3
