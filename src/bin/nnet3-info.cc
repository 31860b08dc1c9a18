// bin/nnet3-info.cc
// Prints what a raw nnet3 network is: contexts, parameters, nodes,
// components; or, with --dot, the network as a Graphviz digraph.
#include <iostream>

#include "bin/cli.h"
#include "nnet3/nnet/nnet-dot.h"
#include "nnet3/nnet/nnet.h"
#include "util/stream.h"

namespace nnet3 {

int Nnet3Info(int argc, char *argv[]) {
  const char *usage =
      "Prints a summary of a raw nnet3 network to standard output: left and\n"
      "right context, number of parameters, modulus, the nodes with their\n"
      "dimensions and one line per component.\n"
      "With --dot, prints instead the network as a Graphviz digraph.\n"
      "Usage:  nnet3-info [options] <raw-nnet-in>\n"
      "e.g.: nnet3-info final.raw\n"
      "      nnet3-info --dot final.raw | dot -Tsvg > final.svg\n";
  bool dot = false;
  ParseOptions po(usage);
  po.Register("dot", &dot,
              "Print the network as a Graphviz digraph (one graph node per "
              "network node, edges from each node to the nodes that read "
              "it) instead of the summary");
  po.Read(argc, argv);
  if (po.NumArgs() != 1) return UsageError(po);
  Nnet nnet;
  ReadKaldiObject(po.GetArg(1), &nnet);
  std::cout << (dot ? NnetToGraphviz(nnet) : nnet.Info());
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3Info);
}
