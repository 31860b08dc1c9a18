// nnet3/optimize/convert-addition.cc
// ConvertAdditionToAssignment (see convert-addition.h).
#include "nnet3/optimize/convert-addition.h"

#include "nnet3/analyze/analyze.h"

namespace nnet3 {

void ConvertAdditionToAssignment(const Nnet &nnet,
                                 NnetComputation *computation) {
  Analyzer analyzer;
  analyzer.Init(nnet, *computation);
  ComputationAnalysis analysis(*computation, analyzer);
  int32 num_commands = static_cast<int32>(computation->commands.size());
  for (int32 i = 0; i < num_commands; i++) {
    NnetComputation::Command &c = computation->commands[i];
    CommandType copy_type;
    switch (c.command_type) {
      case kMatrixAdd: copy_type = kMatrixCopy; break;
      case kAddRows: copy_type = kCopyRows; break;
      case kAddRowsMulti: copy_type = kCopyRowsMulti; break;
      case kAddToRowsMulti:
        if (c.alpha != 1.0) continue;
        copy_type = kCopyToRowsMulti;
        break;
      default:
        continue;
    }
    // Every submatrix written must be touched first (zeroing aside) by
    // this very command.
    bool convertible = true;
    for (int32 s : analyzer.command_attributes[i].submatrices_written)
      if (analysis.FirstNontrivialAccess(s) != i) convertible = false;
    if (convertible) c.command_type = copy_type;
  }
}

}  // namespace nnet3
