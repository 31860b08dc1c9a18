// nnet3/optimize/deriv-time.cc
// LimitDerivativeTimes and MaxOutputTimeInRequest (see deriv-time.h).
//
// The pass follows Kaldi's DerivativeTimeLimiter:
//  1. for each matrix, the rows whose t is in range: all, none, or a
//     contiguous block [begin, end) holding all of them;
//  2. for each submatrix s, submatrix_map_[s]: the part of s inside that
//     block (s itself if its matrix is all in range, 0 if nothing is left);
//     submatrix_map_if_deriv_[s] is the same for derivative matrices and s
//     for the others (the limit applies to derivatives only);
//  3. every command is rewritten to touch only the mapped parts, row lists
//     drop the rows (source or destination) that are out of range, and
//     commands with nothing left become kNoOperation;
//  4. derivative matrices (neither inputs nor outputs of the computation)
//     that are now only zeroed are removed, and those whose out-of-range
//     rows are now only zeroed (by a whole-matrix kSetConst) shrink to the
//     in-range block;
//  5. the usual clean-up (RemoveNoOps, RenumberComputation).
// Throughout, an out-of-range row of a derivative matrix stands for zero:
// every command that could write into one is restricted, so those rows
// keep the zeros they got when their matrix was allocated; the only
// exceptions (an output derivative given by the user, the input derivative
// of a non-simple component) are never read at those rows any more.
// Beyond Kaldi: a kMatrixCopy/kMatrixAdd whose rows in the kept block are
// not all in range (matrices whose rows are not in t order) becomes a
// kCopyRows/kAddRows that skips those rows, and a backprop of a non-simple
// component whose output derivative is entirely out of range is removed as
// well (its output derivative is all zero there).
#include "nnet3/optimize/deriv-time.h"

#include <algorithm>
#include <climits>
#include <iterator>
#include <set>
#include <utility>
#include <vector>

#include "base/log.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/optimize/renumber.h"

namespace nnet3 {

namespace {

typedef NnetComputation::Command Command;
typedef std::vector<std::pair<int32, int32> > PairList;

class DerivTimeLimiter {
 public:
  DerivTimeLimiter(const Nnet &nnet, int32 min_deriv_time,
                   int32 max_deriv_time, NnetComputation *computation)
      : nnet_(nnet),
        min_t_(min_deriv_time),
        max_t_(max_deriv_time),
        computation_(computation) {}

  void Limit();

 private:
  // Which rows of a matrix have t in range.
  struct RowBlock {
    bool all_in = true;
    bool none_in = false;
    // When partly in range: the first in-range row and one past the last.
    int32 begin = 0;
    int32 end = 0;
  };

  void CheckCommandTypes() const;
  void ComputeWholeSubmatrices();
  void ComputeRowBlocks();
  void ComputeSubmatrixMaps();
  void ModifyCommand(Command *c);
  void MapBackprop(Command *c);
  void MapMatrixCommand(Command *c);
  void MapRowsCommand(Command *c);
  void MapRowsMultiCommand(Command *c);
  void MapRowRangesCommand(Command *c);
  void PruneMatrices();
  bool CanShrinkMatrix(const Analyzer &analyzer, int32 m) const;
  void ShrinkMatrices(const std::vector<bool> &shrink);
  void RemoveDroppedMemos();
  void ClearUnusedIndexesMulti();

  bool InRange(int32 t) const { return t >= min_t_ && t <= max_t_; }
  // False if row 'row' of submatrix s is a derivative row out of range.
  bool RowIsKept(int32 s, int32 row) const;
  // The rows cut from the top and the bottom of s to get 'mapped' (a
  // submatrix of s, or s itself).
  void GetPrune(int32 s, int32 mapped, int32 *top, int32 *bottom) const;
  int32 NumRows(int32 s) const { return computation_->submatrices[s].num_rows; }
  // A submatrix of s without 'top' rows at the top and 'bottom' at the
  // bottom (s itself when both are 0).
  int32 Trim(int32 s, int32 top, int32 bottom) {
    if (top == 0 && bottom == 0) return s;
    return computation_->NewSubMatrix(s, top, NumRows(s) - top - bottom, 0,
                                      -1);
  }
  bool IsDeriv(int32 s) const {
    const NnetComputation::SubMatrixInfo &info = computation_->submatrices[s];
    return computation_->matrix_debug_info[info.matrix_index].is_deriv;
  }

  const Nnet &nnet_;
  int32 min_t_;
  int32 max_t_;
  NnetComputation *computation_;
  std::vector<int32> whole_submatrices_;
  std::vector<RowBlock> blocks_;
  std::vector<int32> submatrix_map_;
  std::vector<int32> submatrix_map_if_deriv_;
  // Memo indexes of removed backprop commands.
  std::set<int32> dropped_memos_;
};

void DerivTimeLimiter::Limit() {
  if (min_t_ > max_t_)
    NNET3_ERR << "LimitDerivativeTimes: min-deriv-time " << min_t_
              << " is greater than max-deriv-time " << max_t_;
  if (computation_->matrix_debug_info.size() != computation_->matrices.size())
    NNET3_ERR << "LimitDerivativeTimes needs the computation's debug info";
  CheckCommandTypes();
  ComputeWholeSubmatrices();
  ComputeRowBlocks();
  ComputeSubmatrixMaps();
  for (size_t c = 0; c < computation_->commands.size(); c++)
    ModifyCommand(&computation_->commands[c]);
  PruneMatrices();
  RemoveNoOps(computation_);
  RemoveDroppedMemos();
  ClearUnusedIndexesMulti();
  RenumberComputation(computation_);
}

void DerivTimeLimiter::CheckCommandTypes() const {
  for (size_t c = 0; c < computation_->commands.size(); c++) {
    CommandType t = computation_->commands[c].command_type;
    if (t == kSwapMatrix || t == kCompressMatrix || t == kDecompressMatrix ||
        t == kGotoLabel)
      NNET3_ERR << "LimitDerivativeTimes must run on a freshly compiled "
                << "computation, but command c" << c << " is "
                << CommandTypeToString(t);
  }
  for (size_t i = 0; i < computation_->matrices.size(); i++) {
    if (computation_->matrix_debug_info[i].cindexes.size() !=
        static_cast<size_t>(computation_->matrices[i].num_rows))
      NNET3_ERR << "LimitDerivativeTimes: the debug info of matrix m" << i
                << " has " << computation_->matrix_debug_info[i].cindexes.size()
                << " cindexes for " << computation_->matrices[i].num_rows
                << " rows";
  }
}

void DerivTimeLimiter::ComputeWholeSubmatrices() {
  computation_->GetWholeSubmatrices(&whole_submatrices_);
  for (size_t m = 1; m < whole_submatrices_.size(); m++) {
    if (whole_submatrices_[m] != 0) continue;
    const NnetComputation::MatrixInfo &info = computation_->matrices[m];
    whole_submatrices_[m] = static_cast<int32>(computation_->submatrices.size());
    computation_->submatrices.push_back(NnetComputation::SubMatrixInfo(
        static_cast<int32>(m), 0, info.num_rows, 0, info.num_cols));
  }
}

void DerivTimeLimiter::ComputeRowBlocks() {
  int32 num_matrices = static_cast<int32>(computation_->matrices.size());
  blocks_.assign(num_matrices, RowBlock());
  for (int32 m = 1; m < num_matrices; m++) {
    const std::vector<Cindex> &cindexes =
        computation_->matrix_debug_info[m].cindexes;
    int32 num_rows = static_cast<int32>(cindexes.size()), first = -1,
          last = -1;
    for (int32 r = 0; r < num_rows; r++) {
      if (InRange(cindexes[r].second.t)) {
        if (first < 0) first = r;
        last = r;
      }
    }
    RowBlock &b = blocks_[m];
    if (first < 0) {
      b.all_in = false;
      b.none_in = true;
    } else if (first == 0 && last == num_rows - 1) {
      b.all_in = true;
    } else {
      b.all_in = false;
      b.begin = first;
      b.end = last + 1;
    }
  }
}

void DerivTimeLimiter::ComputeSubmatrixMaps() {
  int32 num_submatrices = static_cast<int32>(computation_->submatrices.size());
  submatrix_map_.assign(num_submatrices, 0);
  submatrix_map_if_deriv_.assign(num_submatrices, 0);
  for (int32 s = 1; s < num_submatrices; s++) {
    // A copy: NewSubMatrix below may reallocate the vector.
    const NnetComputation::SubMatrixInfo info = computation_->submatrices[s];
    const RowBlock &b = blocks_[info.matrix_index];
    int32 mapped = 0;
    if (b.all_in) {
      mapped = s;
    } else if (!b.none_in) {
      int32 begin = std::max(b.begin, info.row_offset),
            end = std::min(b.end, info.row_offset + info.num_rows);
      if (end > begin)
        mapped = computation_->NewSubMatrix(s, begin - info.row_offset,
                                            end - begin, 0, -1);
    }
    submatrix_map_[s] = mapped;
    submatrix_map_if_deriv_[s] =
        computation_->matrix_debug_info[info.matrix_index].is_deriv ? mapped
                                                                    : s;
  }
}

bool DerivTimeLimiter::RowIsKept(int32 s, int32 row) const {
  const NnetComputation::SubMatrixInfo &info = computation_->submatrices[s];
  NNET3_ASSERT(row >= 0 && row < info.num_rows);
  const NnetComputation::MatrixDebugInfo &debug =
      computation_->matrix_debug_info[info.matrix_index];
  if (!debug.is_deriv) return true;
  return InRange(debug.cindexes[info.row_offset + row].second.t);
}

void DerivTimeLimiter::GetPrune(int32 s, int32 mapped, int32 *top,
                                int32 *bottom) const {
  NNET3_ASSERT(s > 0 && mapped > 0);
  const NnetComputation::SubMatrixInfo &a = computation_->submatrices[s],
                                       &b = computation_->submatrices[mapped];
  NNET3_ASSERT(a.matrix_index == b.matrix_index);
  *top = b.row_offset - a.row_offset;
  *bottom = a.num_rows - b.num_rows - *top;
  NNET3_ASSERT(*top >= 0 && *bottom >= 0);
}

void DerivTimeLimiter::ModifyCommand(Command *c) {
  switch (c->command_type) {
    case kAllocMatrix:
    case kDeallocMatrix:
    case kSetConst:
    case kAcceptInput:
    case kProvideOutput:
    case kNoOperation:
    case kNoOperationPermanent:
    case kNoOperationMarker:
    case kNoOperationLabel:
      // Sizing and zeroing are dealt with in PruneMatrices(); the rest
      // touches whole inputs and outputs, which keep their size.
      break;
    case kPropagate:
      // As Kaldi: no statistics for outputs entirely outside the range.
      if (submatrix_map_[c->arg4] == 0) c->arg6 = 0;
      break;
    case kBackprop:
    case kBackpropNoModelUpdate:
      MapBackprop(c);
      break;
    case kMatrixCopy:
    case kMatrixAdd:
      MapMatrixCommand(c);
      break;
    case kCopyRows:
    case kAddRows:
      MapRowsCommand(c);
      break;
    case kCopyRowsMulti:
    case kCopyToRowsMulti:
    case kAddRowsMulti:
    case kAddToRowsMulti:
      MapRowsMultiCommand(c);
      break;
    case kAddRowRanges:
      MapRowRangesCommand(c);
      break;
    default:
      NNET3_ERR << "LimitDerivativeTimes: unexpected command "
                << CommandTypeToString(c->command_type);
  }
}

void DerivTimeLimiter::MapBackprop(Command *c) {
  int32 out_deriv = c->arg5,
        mapped_out_deriv = submatrix_map_if_deriv_[out_deriv];
  if (mapped_out_deriv == 0) {
    // The output derivative is zero: nothing to pass on and no update.
    if (c->arg7 > 0) dropped_memos_.insert(c->arg7);
    c->command_type = kNoOperation;
    return;
  }
  if (mapped_out_deriv == out_deriv) return;
  // Only simple components can run on a subset of their rows (others have
  // precomputed indexes for the whole step; memos cover all rows too).
  // Left whole, such a command still sees zero output derivatives on the
  // out-of-range rows.
  int32 props = nnet_.GetComponent(c->arg1)->Properties();
  if (!(props & kSimpleComponent) || (props & kUsesMemo)) return;
  int32 top, bottom;
  GetPrune(out_deriv, mapped_out_deriv, &top, &bottom);
  // The input/output values and the input derivative have the same rows
  // (same Indexes) as the output derivative; they must be cut alike.
  int32 *args[3] = {&c->arg3, &c->arg4, &c->arg6};
  int32 mapped[3];
  for (int32 i = 0; i < 3; i++) {
    int32 s = *args[i];
    mapped[i] = 0;
    if (s == 0) continue;
    int32 ms = (i == 2 ? submatrix_map_if_deriv_[s] : submatrix_map_[s]);
    if (ms == 0) return;
    int32 t2, b2;
    GetPrune(s, ms, &t2, &b2);
    if (t2 != top || b2 != bottom) return;
    mapped[i] = ms;
  }
  for (int32 i = 0; i < 3; i++) *args[i] = mapped[i];
  c->arg5 = mapped_out_deriv;
}

void DerivTimeLimiter::MapMatrixCommand(Command *c) {
  int32 dest = c->arg1, src = c->arg2;
  int32 mapped_dest = submatrix_map_if_deriv_[dest],
        mapped_src = submatrix_map_if_deriv_[src];
  if (mapped_dest == dest && mapped_src == src) return;
  if (mapped_dest == 0 || mapped_src == 0) {
    c->command_type = kNoOperation;
    return;
  }
  int32 top1, bottom1, top2, bottom2;
  GetPrune(dest, mapped_dest, &top1, &bottom1);
  GetPrune(src, mapped_src, &top2, &bottom2);
  // Keep the rows that survive on both sides.
  int32 top = std::max(top1, top2), bottom = std::max(bottom1, bottom2);
  if (top + bottom >= NumRows(dest)) {
    c->command_type = kNoOperation;
    return;
  }
  int32 new_dest = Trim(dest, top, bottom), new_src = Trim(src, top, bottom);
  int32 num_rows = NumRows(new_dest);
  std::vector<int32> indexes(num_rows);
  bool all_kept = true, any_kept = false;
  for (int32 r = 0; r < num_rows; r++) {
    if (RowIsKept(new_dest, r) && RowIsKept(new_src, r)) {
      indexes[r] = r;
      any_kept = true;
    } else {
      indexes[r] = -1;
      all_kept = false;
    }
  }
  if (!any_kept) {
    c->command_type = kNoOperation;
    return;
  }
  c->arg1 = new_dest;
  c->arg2 = new_src;
  if (!all_kept) {
    // Rows out of range inside the block: copy/add row by row, skipping
    // them (a skipped kCopyRows row becomes zero, which it stands for).
    c->command_type = (c->command_type == kMatrixCopy ? kCopyRows : kAddRows);
    c->arg3 = static_cast<int32>(computation_->indexes.size());
    computation_->indexes.push_back(indexes);
  }
}

void DerivTimeLimiter::MapRowsCommand(Command *c) {
  int32 dest = c->arg1, src = c->arg2;
  int32 mapped_dest = submatrix_map_if_deriv_[dest],
        mapped_src = submatrix_map_if_deriv_[src];
  if (mapped_dest == dest && mapped_src == src) return;
  if (mapped_dest == 0 || mapped_src == 0) {
    // Either nothing to write or only zeros to copy; the destination
    // already holds zeros there (fresh computations never overwrite).
    c->command_type = kNoOperation;
    return;
  }
  const std::vector<int32> old_indexes = computation_->indexes[c->arg3];
  int32 top_dest, top_src, bottom;
  GetPrune(dest, mapped_dest, &top_dest, &bottom);
  GetPrune(src, mapped_src, &top_src, &bottom);
  int32 num_rows = NumRows(mapped_dest), num_src_rows = NumRows(mapped_src);
  std::vector<int32> indexes(num_rows, -1);
  bool any_kept = false;
  for (int32 r = 0; r < num_rows; r++) {
    int32 from = old_indexes[r + top_dest];
    if (from < 0 || !RowIsKept(src, from) || !RowIsKept(mapped_dest, r))
      continue;
    int32 mapped_from = from - top_src;
    NNET3_ASSERT(mapped_from >= 0 && mapped_from < num_src_rows);
    indexes[r] = mapped_from;
    any_kept = true;
  }
  if (!any_kept) {
    c->command_type = kNoOperation;
    return;
  }
  c->arg1 = mapped_dest;
  c->arg2 = mapped_src;
  c->arg3 = static_cast<int32>(computation_->indexes.size());
  computation_->indexes.push_back(indexes);
}

void DerivTimeLimiter::MapRowsMultiCommand(Command *c) {
  // arg1 is the destination (kCopyRowsMulti, kAddRowsMulti) or the source
  // (kCopyToRowsMulti, kAddToRowsMulti); either way a row pair survives
  // only if both of its ends are kept.
  int32 s = c->arg1, mapped = submatrix_map_if_deriv_[s];
  if (mapped == 0) {
    c->command_type = kNoOperation;
    return;
  }
  const PairList old_pairs = computation_->indexes_multi[c->arg2];
  int32 top, bottom;
  GetPrune(s, mapped, &top, &bottom);
  int32 num_rows = NumRows(mapped);
  PairList pairs(num_rows, std::make_pair(-1, -1));
  bool any_kept = false;
  for (int32 r = 0; r < num_rows; r++) {
    std::pair<int32, int32> p = old_pairs[r + top];
    if (p.first < 0) continue;
    if (!RowIsKept(p.first, p.second) || !RowIsKept(mapped, r)) continue;
    int32 other = submatrix_map_if_deriv_[p.first];
    NNET3_ASSERT(other != 0);
    int32 other_top, other_bottom;
    GetPrune(p.first, other, &other_top, &other_bottom);
    int32 row = p.second - other_top;
    NNET3_ASSERT(row >= 0 && row < NumRows(other));
    pairs[r] = std::make_pair(other, row);
    any_kept = true;
  }
  if (!any_kept) {
    c->command_type = kNoOperation;
    return;
  }
  if (mapped == s && pairs == old_pairs) return;
  c->arg1 = mapped;
  c->arg2 = static_cast<int32>(computation_->indexes_multi.size());
  computation_->indexes_multi.push_back(pairs);
}

void DerivTimeLimiter::MapRowRangesCommand(Command *c) {
  int32 dest = c->arg1, src = c->arg2;
  int32 mapped_dest = submatrix_map_if_deriv_[dest],
        mapped_src = submatrix_map_if_deriv_[src];
  if (mapped_dest == dest && mapped_src == src) return;
  if (mapped_dest == 0 || mapped_src == 0) {
    c->command_type = kNoOperation;
    return;
  }
  const PairList old_ranges = computation_->indexes_ranges[c->arg3];
  int32 top_dest, top_src, bottom;
  GetPrune(dest, mapped_dest, &top_dest, &bottom);
  GetPrune(src, mapped_src, &top_src, &bottom);
  int32 num_rows = NumRows(mapped_dest), num_src_rows = NumRows(mapped_src);
  // Empty ranges are written [0, 0), as the compiler writes them.
  PairList ranges(num_rows, std::make_pair(0, 0));
  bool any_kept = false;
  for (int32 r = 0; r < num_rows; r++) {
    int32 begin = old_ranges[r + top_dest].first,
          end = old_ranges[r + top_dest].second;
    if (begin < 0 || end <= begin || !RowIsKept(mapped_dest, r)) continue;
    // Trim out-of-range source rows at both ends of the range (as Kaldi;
    // with rows in t order no out-of-range row is left inside it).
    while (begin < end && !RowIsKept(src, begin)) begin++;
    while (end > begin && !RowIsKept(src, end - 1)) end--;
    if (begin == end) continue;
    begin -= top_src;
    end -= top_src;
    NNET3_ASSERT(begin >= 0 && end <= num_src_rows && begin < end);
    ranges[r] = std::make_pair(begin, end);
    any_kept = true;
  }
  if (!any_kept) {
    c->command_type = kNoOperation;
    return;
  }
  c->arg1 = mapped_dest;
  c->arg2 = mapped_src;
  c->arg3 = static_cast<int32>(computation_->indexes_ranges.size());
  computation_->indexes_ranges.push_back(ranges);
}

bool DerivTimeLimiter::CanShrinkMatrix(const Analyzer &analyzer,
                                       int32 m) const {
  int32 whole = whole_submatrices_[m], kept = submatrix_map_[whole];
  NNET3_ASSERT(kept != 0 && kept != whole);
  std::vector<int32> whole_vars, kept_vars;
  analyzer.variables.AppendVariablesForSubmatrix(whole, &whole_vars);
  analyzer.variables.AppendVariablesForSubmatrix(kept, &kept_vars);
  std::sort(whole_vars.begin(), whole_vars.end());
  std::sort(kept_vars.begin(), kept_vars.end());
  std::vector<int32> excluded;
  std::set_difference(whole_vars.begin(), whole_vars.end(), kept_vars.begin(),
                      kept_vars.end(), std::back_inserter(excluded));
  // The cut-off rows may only be zeroed along with the whole matrix (that
  // zeroing then applies to the smaller matrix).
  for (int32 v : excluded) {
    for (const Access &access : analyzer.variable_accesses[v]) {
      const Command &c = computation_->commands[access.command_index];
      if (c.command_type != kSetConst || !computation_->IsWholeMatrix(c.arg1))
        return false;
    }
  }
  return true;
}

void DerivTimeLimiter::ShrinkMatrices(const std::vector<bool> &shrink) {
  int32 num_submatrices = static_cast<int32>(computation_->submatrices.size());
  for (int32 s = 1; s < num_submatrices; s++) {
    NnetComputation::SubMatrixInfo &info = computation_->submatrices[s];
    int32 m = info.matrix_index;
    if (!shrink[m]) continue;
    const RowBlock &b = blocks_[m];
    int32 new_rows = b.end - b.begin, new_offset = info.row_offset - b.begin;
    if (new_offset >= 0 && new_offset + info.num_rows <= new_rows) {
      info.row_offset = new_offset;
    } else if (computation_->IsWholeMatrix(s)) {
      // Allocation, deallocation and zeroing: the whole smaller matrix.
      info.num_rows = new_rows;
    } else {
      // No remaining command uses this submatrix (CanShrinkMatrix); give it
      // a valid size that would show up in the checker if one did.
      info.row_offset = 0;
      info.num_rows = 1;
      info.col_offset = 0;
      info.num_cols = 1;
    }
  }
  for (size_t m = 1; m < shrink.size(); m++) {
    if (!shrink[m]) continue;
    const RowBlock &b = blocks_[m];
    std::vector<Cindex> &cindexes = computation_->matrix_debug_info[m].cindexes;
    cindexes.erase(cindexes.begin() + b.end, cindexes.end());
    cindexes.erase(cindexes.begin(), cindexes.begin() + b.begin);
    computation_->matrices[m].num_rows = b.end - b.begin;
  }
}

void DerivTimeLimiter::PruneMatrices() {
  Analyzer analyzer;
  analyzer.Init(nnet_, *computation_);
  int32 num_matrices = static_cast<int32>(computation_->matrices.size());
  std::vector<bool> shrink(num_matrices, false);
  bool any_shrink = false;
  for (int32 m = 1; m < num_matrices; m++) {
    const MatrixAccesses &accesses = analyzer.matrix_accesses[m];
    const RowBlock &b = blocks_[m];
    if (b.all_in || accesses.is_input || accesses.is_output ||
        !computation_->matrix_debug_info[m].is_deriv)
      continue;
    if (b.none_in) {
      // Remove the matrix if all that is left is zeroing it.
      bool unused = true;
      for (const Access &access : accesses.accesses)
        if (computation_->commands[access.command_index].command_type !=
            kSetConst)
          unused = false;
      if (!unused) continue;
      for (const Access &access : accesses.accesses)
        computation_->commands[access.command_index].command_type =
            kNoOperation;
      if (accesses.allocate_command >= 0)
        computation_->commands[accesses.allocate_command].command_type =
            kNoOperation;
      if (accesses.deallocate_command >= 0)
        computation_->commands[accesses.deallocate_command].command_type =
            kNoOperation;
    } else if (CanShrinkMatrix(analyzer, m)) {
      shrink[m] = true;
      any_shrink = true;
    }
  }
  if (any_shrink) ShrinkMatrices(shrink);
}

void DerivTimeLimiter::RemoveDroppedMemos() {
  if (dropped_memos_.empty()) return;
  for (Command &c : computation_->commands)
    if (c.command_type == kPropagate && dropped_memos_.count(c.arg5) != 0)
      c.arg5 = 0;
}

void DerivTimeLimiter::ClearUnusedIndexesMulti() {
  // Old lists may name submatrices of matrices that are gone or smaller;
  // empty the ones no command uses so that renumbering drops them.
  std::vector<bool> used(computation_->indexes_multi.size(), false);
  for (const Command &c : computation_->commands) {
    switch (c.command_type) {
      case kCopyRowsMulti:
      case kCopyToRowsMulti:
      case kAddRowsMulti:
      case kAddToRowsMulti:
        used[c.arg2] = true;
        break;
      default:
        break;
    }
  }
  for (size_t i = 0; i < used.size(); i++)
    if (!used[i]) computation_->indexes_multi[i].clear();
}

}  // namespace

void LimitDerivativeTimes(const Nnet &nnet, int32 min_deriv_time,
                          int32 max_deriv_time, NnetComputation *computation) {
  if (min_deriv_time == INT_MIN && max_deriv_time == INT_MAX) return;
  DerivTimeLimiter limiter(nnet, min_deriv_time, max_deriv_time, computation);
  limiter.Limit();
}

int32 MaxOutputTimeInRequest(const ComputationRequest &request) {
  bool found = false;
  int32 ans = INT_MIN;
  for (const IoSpecification &output : request.outputs) {
    for (const Index &index : output.indexes) {
      ans = found ? std::max(ans, index.t) : index.t;
      found = true;
    }
  }
  if (!found)
    NNET3_ERR << "MaxOutputTimeInRequest: the request has no output indexes";
  return ans;
}

}  // namespace nnet3
