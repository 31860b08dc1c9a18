// nnet3/optimize/renumber.cc
// RemoveNoOps and RenumberComputation (see renumber.h).
#include "nnet3/optimize/renumber.h"

#include <map>

#include "base/log.h"

namespace nnet3 {

void RemoveNoOps(NnetComputation *computation) {
  std::vector<NnetComputation::Command> kept;
  kept.reserve(computation->commands.size());
  for (const NnetComputation::Command &c : computation->commands)
    if (c.command_type != kNoOperation) kept.push_back(c);
  computation->commands.swap(kept);
}

void IdentifySubmatrixArgs(NnetComputation::Command *c,
                           std::vector<int32 *> *args) {
  args->clear();
  switch (c->command_type) {
    case kAllocMatrix: case kDeallocMatrix: case kSetConst:
    case kCopyRowsMulti: case kCopyToRowsMulti: case kAddRowsMulti:
    case kAddToRowsMulti: case kCompressMatrix: case kDecompressMatrix:
    case kAcceptInput: case kProvideOutput:
      args->push_back(&c->arg1);
      break;
    case kSwapMatrix: case kMatrixCopy: case kMatrixAdd: case kCopyRows:
    case kAddRows: case kAddRowRanges:
      args->push_back(&c->arg1);
      args->push_back(&c->arg2);
      break;
    case kPropagate:
      args->push_back(&c->arg3);
      args->push_back(&c->arg4);
      break;
    case kBackprop: case kBackpropNoModelUpdate:
      args->push_back(&c->arg3);
      args->push_back(&c->arg4);
      args->push_back(&c->arg5);
      args->push_back(&c->arg6);
      break;
    case kNoOperation: case kNoOperationPermanent: case kNoOperationMarker:
    case kNoOperationLabel: case kGotoLabel:
      break;
  }
}

namespace {

// Index into 'indexes' / 'indexes_multi' / 'indexes_ranges' used by a
// command, or nullptr.
int32 *IndexesArg(NnetComputation::Command *c) {
  switch (c->command_type) {
    case kCopyRows: case kAddRows:
      return &c->arg3;
    default:
      return nullptr;
  }
}
int32 *IndexesMultiArg(NnetComputation::Command *c) {
  switch (c->command_type) {
    case kCopyRowsMulti: case kCopyToRowsMulti: case kAddRowsMulti:
    case kAddToRowsMulti:
      return &c->arg2;
    default:
      return nullptr;
  }
}
int32 *IndexesRangesArg(NnetComputation::Command *c) {
  return c->command_type == kAddRowRanges ? &c->arg3 : nullptr;
}

// Keeps the used entries of 'vec' (in order) and returns old -> new.
template <class T>
std::vector<int32> KeepUsed(const std::vector<bool> &used, std::vector<T> *vec) {
  std::vector<int32> old2new(vec->size(), -1);
  std::vector<T> kept;
  for (size_t i = 0; i < vec->size(); i++) {
    if (!used[i]) continue;
    old2new[i] = static_cast<int32>(kept.size());
    kept.push_back((*vec)[i]);
  }
  vec->swap(kept);
  return old2new;
}

}  // namespace

void RenumberComputation(NnetComputation *computation) {
  NnetComputation &comp = *computation;
  int32 num_submatrices = static_cast<int32>(comp.submatrices.size());
  if (num_submatrices == 0) return;
  std::vector<int32 *> args;

  // 1. Identical submatrices become one (the first).
  std::map<std::vector<int32>, int32> seen;
  std::vector<int32> canonical(num_submatrices);
  for (int32 s = 0; s < num_submatrices; s++) {
    const NnetComputation::SubMatrixInfo &i = comp.submatrices[s];
    std::vector<int32> key = {i.matrix_index, i.row_offset, i.num_rows,
                              i.col_offset, i.num_cols};
    auto it = seen.insert(std::make_pair(key, s)).first;
    canonical[s] = it->second;
  }
  // 2. Which submatrices are used.
  std::vector<bool> sub_used(num_submatrices, false);
  sub_used[0] = true;
  for (NnetComputation::Command &c : comp.commands) {
    IdentifySubmatrixArgs(&c, &args);
    for (int32 *a : args) {
      *a = canonical[*a];
      sub_used[*a] = true;
    }
  }
  for (auto &list : comp.indexes_multi)
    for (auto &p : list)
      if (p.first >= 0) {
        p.first = canonical[p.first];
        sub_used[p.first] = true;
      }
  // 3. Which matrices: those of used submatrices.
  int32 num_matrices = static_cast<int32>(comp.matrices.size());
  std::vector<bool> mat_used(num_matrices, false);
  mat_used[0] = true;
  for (int32 s = 0; s < num_submatrices; s++)
    if (sub_used[s]) mat_used[comp.submatrices[s].matrix_index] = true;
  std::vector<int32> mat_old2new = KeepUsed(mat_used, &comp.matrices);
  if (!comp.matrix_debug_info.empty()) KeepUsed(mat_used, &comp.matrix_debug_info);
  std::vector<int32> sub_old2new = KeepUsed(sub_used, &comp.submatrices);
  for (auto &info : comp.submatrices) {
    info.matrix_index = mat_old2new[info.matrix_index];
    NNET3_ASSERT(info.matrix_index >= 0);
  }
  // 4. Index vectors no command uses go too.
  std::vector<bool> idx_used(comp.indexes.size(), false),
      multi_used(comp.indexes_multi.size(), false),
      ranges_used(comp.indexes_ranges.size(), false);
  for (NnetComputation::Command &c : comp.commands) {
    IdentifySubmatrixArgs(&c, &args);
    for (int32 *a : args) {
      *a = sub_old2new[*a];
      NNET3_ASSERT(*a >= 0);
    }
    if (int32 *a = IndexesArg(&c)) idx_used[*a] = true;
    if (int32 *a = IndexesMultiArg(&c)) multi_used[*a] = true;
    if (int32 *a = IndexesRangesArg(&c)) ranges_used[*a] = true;
  }
  for (auto &list : comp.indexes_multi)
    for (auto &p : list)
      if (p.first >= 0) p.first = sub_old2new[p.first];
  std::vector<int32> idx_map = KeepUsed(idx_used, &comp.indexes),
                     multi_map = KeepUsed(multi_used, &comp.indexes_multi),
                     ranges_map = KeepUsed(ranges_used, &comp.indexes_ranges);
  for (NnetComputation::Command &c : comp.commands) {
    if (int32 *a = IndexesArg(&c)) *a = idx_map[*a];
    if (int32 *a = IndexesMultiArg(&c)) *a = multi_map[*a];
    if (int32 *a = IndexesRangesArg(&c)) *a = ranges_map[*a];
  }
}

}  // namespace nnet3
