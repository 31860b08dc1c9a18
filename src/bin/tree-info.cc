// bin/tree-info.cc
// Prints the number of pdfs and the context of a decision tree.
#include <iostream>

#include "bin/cli.h"
#include "tree/context-dep.h"
#include "util/stream.h"

namespace nnet3 {

int TreeInfo(int argc, char *argv[]) {
  const char *usage =
      "Prints to standard output the number of pdfs of a decision tree, its\n"
      "context width and the position of the central phone.\n"
      "Usage:  tree-info [options] <tree-in>\n"
      "e.g.: tree-info exp/tri1/tree\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 1) return UsageError(po);
  ContextDependency ctx_dep;
  ReadKaldiObject(po.GetArg(1), &ctx_dep);
  std::cout << "num-pdfs " << ctx_dep.NumPdfs() << "\n"
            << "context-width " << ctx_dep.ContextWidth() << "\n"
            << "central-position " << ctx_dep.CentralPosition() << "\n";
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::TreeInfo);
}
