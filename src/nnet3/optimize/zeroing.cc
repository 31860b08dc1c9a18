// nnet3/optimize/zeroing.cc
// RemoveUnnecessaryZeroing (see zeroing.h).
#include "nnet3/optimize/zeroing.h"

#include "nnet3/analyze/analyze.h"

namespace nnet3 {

void RemoveUnnecessaryZeroing(const Nnet &nnet, NnetComputation *computation) {
  Analyzer a;
  a.Init(nnet, *computation);
  int32 num_matrices = static_cast<int32>(a.matrix_accesses.size());
  std::vector<int32> vars;
  for (int32 m = 1; m < num_matrices; m++) {
    const MatrixAccesses &accesses = a.matrix_accesses[m];
    if (accesses.accesses.empty()) continue;
    int32 zeroing = accesses.accesses[0].command_index;
    NnetComputation::Command &c = computation->commands[zeroing];
    if (!(c.command_type == kSetConst && c.alpha == 0.0 &&
          computation->IsWholeMatrix(c.arg1)))
      continue;
    vars.clear();
    a.variables.AppendVariablesForMatrix(m, &vars);
    bool removable = true;
    for (int32 v : vars) {
      const std::vector<Access> &va = a.variable_accesses[v];
      // va[0] is the zeroing itself. The next access must be a pure write;
      // with none, only a matrix given to the user needs its zeros.
      if (va.size() > 1 ? va[1].access_type != kWriteAccess
                        : accesses.is_output) {
        removable = false;
        break;
      }
    }
    if (removable) c.command_type = kNoOperation;
  }
}

}  // namespace nnet3
