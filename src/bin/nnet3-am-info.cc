// bin/nnet3-am-info.cc
// Prints what an nnet3 acoustic model is: dimensions, priors, then the
// network summary of nnet3-info.
#include <iostream>

#include "bin/am-tool.h"
#include "bin/cli.h"

namespace nnet3 {

int Nnet3AmInfo(int argc, char *argv[]) {
  const char *usage =
      "Prints a summary of an nnet3 acoustic model to standard output: the\n"
      "input, iVector and output (pdf) dimensions, the priors, and then what\n"
      "nnet3-info prints for its network.\n"
      "Usage:  nnet3-am-info [options] <nnet>\n"
      "e.g.: nnet3-am-info 0.mdl\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 1) return UsageError(po);
  TransitionModel trans_model;
  AmNnetSimple am_nnet;
  ReadAmModel(po.GetArg(1), &trans_model, &am_nnet);
  std::cout << am_nnet.Info();
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3AmInfo);
}
