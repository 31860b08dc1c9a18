// bin/am-info.cc
// Prints the sizes of the transition model of any acoustic model file.
#include <iostream>

#include "bin/cli.h"
#include "hmm/transition-model.h"
#include "util/stream.h"

namespace nnet3 {

int AmInfo(int argc, char *argv[]) {
  const char *usage =
      "Prints to standard output the sizes of the transition model at the start\n"
      "of a model file of any kind (GMM or nnet3): phones, pdfs, transition-ids\n"
      "and transition-states.\n"
      "Usage:  am-info [options] <model-in>\n"
      "e.g.: am-info final.mdl\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 1) return UsageError(po);
  TransitionModel trans_model;
  ReadKaldiObject(po.GetArg(1), &trans_model);
  PrintTransitionModelSizes(trans_model, std::cout);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::AmInfo);
}
