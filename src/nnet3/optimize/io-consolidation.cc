// nnet3/optimize/io-consolidation.cc
// ConsolidateIoOperations (see io-consolidation.h).
#include "nnet3/optimize/io-consolidation.h"

namespace nnet3 {

void ConsolidateIoOperations(const Nnet &nnet, NnetComputation *computation) {
  (void)nnet;
  std::vector<NnetComputation::Command> &cmds = computation->commands;
  std::vector<NnetComputation::Command> out, inputs, middle, outputs;
  out.reserve(cmds.size());
  auto flush = [&]() {
    out.insert(out.end(), inputs.begin(), inputs.end());
    out.insert(out.end(), middle.begin(), middle.end());
    out.insert(out.end(), outputs.begin(), outputs.end());
    inputs.clear();
    middle.clear();
    outputs.clear();
  };
  for (const NnetComputation::Command &c : cmds) {
    if (c.command_type == kNoOperationMarker) {
      flush();
      out.push_back(c);
    } else if (c.command_type == kAcceptInput) {
      inputs.push_back(c);
    } else if (c.command_type == kProvideOutput) {
      outputs.push_back(c);
    } else {
      middle.push_back(c);
    }
  }
  flush();
  cmds.swap(out);
}

}  // namespace nnet3
