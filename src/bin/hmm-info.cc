// bin/hmm-info.cc
// Prints the sizes of a transition model (phones, pdfs, transition-ids, states).
#include <iostream>

#include "bin/cli.h"
#include "hmm/transition-model.h"
#include "util/stream.h"

namespace nnet3 {

int HmmInfo(int argc, char *argv[]) {
  const char *usage =
      "Prints to standard output the sizes of a transition model (the one at\n"
      "the start of a model file): phones, pdfs, transition-ids and\n"
      "transition-states.\n"
      "Usage:  hmm-info [options] <model-in>\n"
      "e.g.: hmm-info final.mdl\n";
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
  return nnet3::RunTool(argc, argv, nnet3::HmmInfo);
}
