// nnet3/nnet/nnet-dot.h
// The network as a Graphviz "digraph" (what nnet3-info --dot prints), to
// see its structure with `dot -Tsvg`. One graph node per network node,
// named "n<node-index>" so that any node name is safe, with a shape per
// kind: input nodes "parallelogram", component nodes "box" (node name and
// component type), component-input descriptor nodes "ellipse" and output
// nodes "doubleoctagon" (both with their descriptor text), dim-range nodes
// "trapezium". Each label ends with "dim=N". Edges run from a node to each
// node that reads it: descriptor -> component, source -> dim-range, and
// every node a descriptor mentions -> that descriptor. An edge into a
// descriptor is labelled with the time offsets it reads ("t-1, t+2") when
// they are a pure shift of t other than just t itself; edges whose time
// mapping is not a shift (ReplaceIndex on t) are left unlabelled.
// Output order is deterministic: nodes in index order, then edges in order
// of the reading node and then the source node.
#ifndef NNET3_NNET3_NNET_NNET_DOT_H_
#define NNET3_NNET3_NNET_NNET_DOT_H_

#include <string>

#include "nnet3/nnet/nnet.h"

namespace nnet3 {

std::string NnetToGraphviz(const Nnet &nnet);

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_NNET_DOT_H_
