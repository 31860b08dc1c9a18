// nnet3/optimize/allocate-from-other.cc
// RemoveUnnecessaryAllocation (see allocate-from-other.h).
//
// Memory is tracked as GetMaxMemoryUse() counts it: usage[c] is the number
// of bytes held just after command c. Turning a pair (deallocation d,
// allocation a) into a swap adds the matrix's size to usage[d .. a-1] and
// leaves everything else alone, so a pair is taken only if that keeps every
// usage[t], d <= t < a, within the original peak. Matrices that are ever
// compressed are not reused (a compressed matrix's memory is held
// elsewhere).
#include "nnet3/optimize/allocate-from-other.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "base/log.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/optimize/renumber.h"

namespace nnet3 {


void RemoveUnnecessaryAllocation(const Nnet &nnet,
                                 NnetComputation *computation) {
  (void)nnet;
  std::vector<NnetComputation::Command> &cmds = computation->commands;
  for (const NnetComputation::Command &c : cmds)
    if (c.command_type == kGotoLabel) return;
  int32 num_commands = static_cast<int32>(cmds.size());

  std::vector<bool> compressed(computation->matrices.size(), false);
  for (const NnetComputation::Command &c : cmds)
    if (c.command_type == kCompressMatrix ||
        c.command_type == kDecompressMatrix)
      compressed[computation->submatrices[c.arg1].matrix_index] = true;

  // (num-rows, num-cols, negated for kStrideEqualNumCols) ->
  // (deallocation commands, allocation commands), each increasing.
  typedef std::pair<int32, int32> SizeKey;
  std::map<SizeKey, std::pair<std::vector<int32>, std::vector<int32> > >
      by_size;
  for (int32 c = 0; c < num_commands; c++) {
    CommandType t = cmds[c].command_type;
    if (t != kAllocMatrix && t != kDeallocMatrix) continue;
    NNET3_ASSERT(computation->IsWholeMatrix(cmds[c].arg1));
    int32 m = computation->submatrices[cmds[c].arg1].matrix_index;
    if (compressed[m]) continue;
    const NnetComputation::MatrixInfo &info = computation->matrices[m];
    SizeKey key(info.num_rows, info.stride_type == kDefaultStride
                                   ? info.num_cols
                                   : -info.num_cols);
    if (t == kDeallocMatrix)
      by_size[key].first.push_back(c);
    else
      by_size[key].second.push_back(c);
  }

  std::vector<int64> usage;
  GetMemoryProfile(*computation, &usage);
  int64 peak = 0;
  for (int64 u : usage) peak = std::max(peak, u);

  bool changed = false;
  for (const auto &entry : by_size) {
    const std::vector<int32> &deallocs = entry.second.first;
    std::set<int32> allocs(entry.second.second.begin(),
                           entry.second.second.end());
    int64 bytes = static_cast<int64>(sizeof(BaseFloat)) * entry.first.first *
                  std::abs(entry.first.second);
    for (std::vector<int32>::const_reverse_iterator it = deallocs.rbegin();
         it != deallocs.rend(); ++it) {
      int32 d = *it;
      std::set<int32>::iterator a_it = allocs.upper_bound(d);
      if (a_it == allocs.end()) continue;
      int32 a = *a_it;
      // A later allocation would hold the memory even longer, so if this
      // one raises the peak, so would they: give up on this deallocation.
      int64 highest = *std::max_element(usage.begin() + d, usage.begin() + a);
      if (highest + bytes > peak) continue;
      for (int32 t = d; t < a; t++) usage[t] += bytes;
      allocs.erase(a_it);
      int32 freed = cmds[d].arg1, allocated = cmds[a].arg1;
      cmds[d] = NnetComputation::Command(kNoOperation);
      cmds[a] = NnetComputation::Command(kSwapMatrix, allocated, freed);
      changed = true;
    }
  }
  if (changed) RemoveNoOps(computation);
}

}  // namespace nnet3
