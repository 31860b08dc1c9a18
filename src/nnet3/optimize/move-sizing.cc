// nnet3/optimize/move-sizing.cc
// MoveSizingCommands (see move-sizing.h). Commands get sort keys 3*c; an
// allocation moves to 3*first-access - 1, a deallocation to
// 3*last-access + 1, and a stable sort puts everything in place.
#include "nnet3/optimize/move-sizing.h"

#include <algorithm>

#include "base/log.h"
#include "nnet3/analyze/analyze.h"

namespace nnet3 {

void MoveSizingCommands(const Nnet &nnet, NnetComputation *computation) {
  Analyzer a;
  a.Init(nnet, *computation);
  std::vector<NnetComputation::Command> &cmds = computation->commands;
  int32 num_commands = static_cast<int32>(cmds.size());
  // An allocation followed by the zeroing of the same matrix moves as one.
  std::vector<bool> is_pair(num_commands, false);
  for (int32 c = 0; c + 1 < num_commands; c++) {
    NNET3_ASSERT(cmds[c].command_type != kGotoLabel);
    is_pair[c] = cmds[c].command_type == kAllocMatrix &&
                 cmds[c + 1].command_type == kSetConst &&
                 cmds[c + 1].alpha == 0.0 && cmds[c].arg1 == cmds[c + 1].arg1;
  }
  std::vector<std::pair<int64, int32> > order(num_commands);
  for (int32 c = 0; c < num_commands; c++)
    order[c] = std::make_pair(3 * static_cast<int64>(c), c);
  int32 num_matrices = static_cast<int32>(a.matrix_accesses.size());
  for (int32 m = 1; m < num_matrices; m++) {
    const MatrixAccesses &ma = a.matrix_accesses[m];
    if (ma.allocate_command != -1 &&
        cmds[ma.allocate_command].command_type == kAllocMatrix) {
      int32 first = -1;
      size_t k = 0;
      if (k < ma.accesses.size() && is_pair[ma.allocate_command] &&
          ma.accesses[k].command_index == ma.allocate_command + 1)
        k++;  // the zeroing travels with the allocation
      if (k < ma.accesses.size()) first = ma.accesses[k].command_index;
      if (first != -1) {
        NNET3_ASSERT(first > ma.allocate_command);
        order[ma.allocate_command].first = 3 * static_cast<int64>(first) - 1;
      }
    }
    if (ma.deallocate_command != -1 && !ma.accesses.empty() &&
        cmds[ma.deallocate_command].command_type == kDeallocMatrix) {
      int32 last = ma.accesses.back().command_index;
      order[ma.deallocate_command].first = 3 * static_cast<int64>(last) + 1;
    }
  }
  std::stable_sort(order.begin(), order.end());
  std::vector<NnetComputation::Command> reordered;
  reordered.reserve(num_commands);
  for (int32 i = 0; i < num_commands; i++) {
    int32 old = order[i].second;
    if (old > 0 && is_pair[old - 1]) continue;  // placed with its allocation
    reordered.push_back(cmds[old]);
    if (is_pair[old]) reordered.push_back(cmds[old + 1]);
  }
  cmds.swap(reordered);
}

}  // namespace nnet3
