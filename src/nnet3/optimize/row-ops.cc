// nnet3/optimize/row-ops.cc
// ReplaceRowWithMatrixOps, SnipRowOps and SplitRowOps (see row-ops.h).
#include "nnet3/optimize/row-ops.h"

#include <utility>
#include <vector>

namespace nnet3 {

namespace {

typedef NnetComputation::Command Command;
typedef std::pair<int32, int32> Pair;

// A row range [offset, offset + num_rows) of submatrix 's', reusing 's'
// itself when the range is all of it.
int32 RowRange(NnetComputation *computation, int32 s, int32 offset,
               int32 num_rows) {
  if (offset == 0 && num_rows == computation->submatrices[s].num_rows)
    return s;
  return computation->NewSubMatrix(s, offset, num_rows, 0, -1);
}

// Turns 'c' into a no-op.
void MakeNoOp(Command *c) { *c = Command(kNoOperation); }

// ---------------------------------------------------------------------------
// optimize-row-ops

// Describes an index vector of the form [-1 ... -1, v, v+1, ..., v+n-1,
// -1 ... -1] (either run of -1 may be empty): the run starts at position
// *run_begin, has *run_length entries and starts at source row
// *first_value. Returns false if the vector has another shape, including
// all -1 (*run_length is then 0).
bool FindConsecutiveRun(const std::vector<int32> &indexes, int32 *run_begin,
                        int32 *first_value, int32 *run_length) {
  const int32 size = static_cast<int32>(indexes.size());
  int32 pos = 0;
  while (pos < size && indexes[pos] < 0) pos++;
  *run_begin = pos;
  *run_length = 0;
  if (pos == size) return false;
  *first_value = indexes[pos];
  int32 expected = indexes[pos];
  while (pos < size && indexes[pos] == expected) {
    pos++;
    expected++;
  }
  *run_length = pos - *run_begin;
  for (; pos < size; pos++)
    if (indexes[pos] >= 0) return false;
  return true;
}

bool AllNegative(const std::vector<int32> &indexes) {
  for (int32 i : indexes)
    if (i >= 0) return false;
  return true;
}

// ---------------------------------------------------------------------------
// snip-row-ops

// Number of entries at the start and at the end of 'v' for which
// 'is_empty' holds. If every entry is empty, *leading = size and
// *trailing = 0.
template <class T, class Pred>
void CountEmptyEnds(const std::vector<T> &v, Pred is_empty, int32 *leading,
                    int32 *trailing) {
  const int32 size = static_cast<int32>(v.size());
  int32 lead = 0;
  while (lead < size && is_empty(v[lead])) lead++;
  int32 trail = 0;
  if (lead < size)
    while (trail < size - lead && is_empty(v[size - 1 - trail])) trail++;
  *leading = lead;
  *trailing = trail;
}

// Trims the leading and trailing entries of the command's index vector
// (table[*index_arg]) for which is_empty holds, narrowing the destination
// submatrix (arg1) to match; a command whose entries are all empty becomes
// a no-op. Returns true if it changed anything.
template <class T, class Pred>
bool SnipEmptyEnds(NnetComputation *computation, Command *c,
                   std::vector<std::vector<T> > *table, int32 *index_arg,
                   Pred is_empty) {
  const std::vector<T> entries = (*table)[*index_arg];
  int32 lead, trail;
  CountEmptyEnds(entries, is_empty, &lead, &trail);
  const int32 size = static_cast<int32>(entries.size());
  if (lead == size) {  // the command touches nothing at all
    MakeNoOp(c);
    return true;
  }
  if (lead + trail == 0) return false;
  const int32 num_rows = size - lead - trail;
  c->arg1 = computation->NewSubMatrix(c->arg1, lead, num_rows, 0, -1);
  *index_arg = static_cast<int32>(table->size());
  table->push_back(std::vector<T>(entries.begin() + lead,
                                  entries.begin() + lead + num_rows));
  return true;
}

// kAddRows: a -1 index adds nothing to its row.
bool SnipAddRows(NnetComputation *computation, Command *c) {
  return SnipEmptyEnds(computation, c, &computation->indexes, &c->arg3,
                       [](int32 i) { return i < 0; });
}

// kAddRowsMulti, kAddToRowsMulti, kCopyToRowsMulti: a (-1,-1) pair means the
// row of arg1 takes no part in the command.
bool SnipMultiRowOp(NnetComputation *computation, Command *c) {
  return SnipEmptyEnds(computation, c, &computation->indexes_multi, &c->arg2,
                       [](const Pair &p) { return p.first < 0; });
}

// kAddRowRanges: an empty range adds nothing.
bool SnipAddRowRanges(NnetComputation *computation, Command *c) {
  return SnipEmptyEnds(computation, c, &computation->indexes_ranges,
                       &c->arg3,
                       [](const Pair &p) { return p.second <= p.first; });
}

// ---------------------------------------------------------------------------
// split-row-ops

// One block of an indexes_multi vector: positions [offset, offset + size)
// all name 'submatrix', with rows in [min_row, min_row + row_span).
// 'row_offsets' holds each position's row minus min_row, and is left empty
// when the rows are min_row, min_row + 1, ... in order.
struct Block {
  int32 offset = 0;
  int32 size = 0;
  int32 submatrix = -1;
  int32 min_row = 0;
  int32 row_span = 0;
  std::vector<int32> row_offsets;
};

// Fills 'block' for pairs[begin, end); false if the block cannot be
// expressed as a single-submatrix operation: a (-1,-1) pair, two different
// submatrices, or rows spread over more than twice the block's length (the
// replacement would then touch many rows for nothing).
bool GetBlock(const std::vector<Pair> &pairs, int32 begin, int32 end,
              Block *block) {
  const int32 max_span_ratio = 2;
  block->offset = begin;
  block->size = end - begin;
  block->submatrix = pairs[begin].first;
  if (block->submatrix < 0) return false;
  int32 min_row = pairs[begin].second, max_row = pairs[begin].second;
  bool consecutive = true;
  for (int32 i = begin; i < end; i++) {
    if (pairs[i].first != block->submatrix || pairs[i].second < 0)
      return false;
    if (pairs[i].second != pairs[begin].second + (i - begin))
      consecutive = false;
    if (pairs[i].second < min_row) min_row = pairs[i].second;
    if (pairs[i].second > max_row) max_row = pairs[i].second;
  }
  block->min_row = min_row;
  block->row_span = max_row + 1 - min_row;
  if (block->row_span > max_span_ratio * block->size) return false;
  block->row_offsets.clear();
  if (!consecutive)
    for (int32 i = begin; i < end; i++)
      block->row_offsets.push_back(pairs[i].second - min_row);
  return true;
}

// Splits pairs into at most two blocks (at the first change of submatrix);
// false if that is not possible.
bool GetBlocks(const std::vector<Pair> &pairs, std::vector<Block> *blocks) {
  blocks->clear();
  const int32 size = static_cast<int32>(pairs.size());
  if (size == 0) return false;
  int32 split = size;
  for (int32 j = 1; j < size; j++) {
    if (pairs[j].first != pairs[0].first) {
      split = j;
      break;
    }
  }
  blocks->resize(split == size ? 1 : 2);
  if (!GetBlock(pairs, 0, split, &(*blocks)[0])) return false;
  if (split < size && !GetBlock(pairs, split, size, &(*blocks)[1]))
    return false;
  return true;
}

// The replacement commands for multi-row command 'c' (appended to 'out');
// false (and nothing appended) if it cannot be split.
bool SplitCommand(NnetComputation *computation, const Command &c,
                  std::vector<Command> *out) {
  const bool to_rows =
      (c.command_type == kAddToRowsMulti || c.command_type == kCopyToRowsMulti);
  const bool is_add =
      (c.command_type == kAddRowsMulti || c.command_type == kAddToRowsMulti);
  std::vector<Block> blocks;
  if (!GetBlocks(computation->indexes_multi[c.arg2], &blocks)) return false;
  // Check every block before creating anything.
  for (const Block &b : blocks) {
    if (b.row_offsets.empty()) continue;
    if (c.command_type == kCopyToRowsMulti) return false;
    if (c.command_type == kAddToRowsMulti) {
      std::vector<bool> seen(b.row_span, false);
      for (int32 r : b.row_offsets) {
        if (seen[r]) return false;
        seen[r] = true;
      }
    }
  }
  for (const Block &b : blocks) {
    // 'here' is the part of arg1, 'there' the rows of the named submatrix.
    const int32 here = RowRange(computation, c.arg1, b.offset, b.size);
    const int32 there =
        RowRange(computation, b.submatrix, b.min_row, b.row_span);
    Command piece(c.alpha, kNoOperation);
    if (b.row_offsets.empty()) {
      piece.command_type = is_add ? kMatrixAdd : kMatrixCopy;
      piece.arg1 = to_rows ? there : here;
      piece.arg2 = to_rows ? here : there;
    } else if (!to_rows) {
      // Row i of 'here' from row row_offsets[i] of 'there'.
      piece.command_type = is_add ? kAddRows : kCopyRows;
      piece.arg1 = here;
      piece.arg2 = there;
      piece.arg3 = static_cast<int32>(computation->indexes.size());
      computation->indexes.push_back(b.row_offsets);
    } else {
      // kAddToRowsMulti: invert the mapping; rows of 'there' that receive
      // nothing get -1 (skipped by kAddRows).
      std::vector<int32> inverse(b.row_span, -1);
      for (int32 i = 0; i < b.size; i++) inverse[b.row_offsets[i]] = i;
      piece.command_type = kAddRows;
      piece.arg1 = there;
      piece.arg2 = here;
      piece.arg3 = static_cast<int32>(computation->indexes.size());
      computation->indexes.push_back(inverse);
    }
    out->push_back(piece);
  }
  return true;
}

}  // namespace

bool ReplaceRowWithMatrixOps(NnetComputation *computation) {
  bool changed = false;
  for (Command &c : computation->commands) {
    if (c.command_type != kCopyRows && c.command_type != kAddRows) continue;
    const std::vector<int32> &indexes = computation->indexes[c.arg3];
    const int32 size = static_cast<int32>(indexes.size());
    if (AllNegative(indexes)) {
      if (c.command_type == kAddRows) {
        MakeNoOp(&c);
      } else {
        // Copying "nothing" zeroes the destination.
        c = Command(0.0, kSetConst, c.arg1);
      }
      changed = true;
      continue;
    }
    int32 run_begin, first_value, run_length;
    if (!FindConsecutiveRun(indexes, &run_begin, &first_value, &run_length))
      continue;
    // A copy zeroes its -1 rows, which a matrix copy would not do.
    if (c.command_type == kCopyRows && run_length != size) continue;
    const int32 dest = RowRange(computation, c.arg1, run_begin, run_length);
    const int32 src = RowRange(computation, c.arg2, first_value, run_length);
    c = Command(c.alpha, c.command_type == kCopyRows ? kMatrixCopy : kMatrixAdd,
                dest, src);
    changed = true;
  }
  return changed;
}

bool SnipRowOps(NnetComputation *computation) {
  bool changed = false;
  for (Command &c : computation->commands) {
    switch (c.command_type) {
      case kAddRows:
        if (SnipAddRows(computation, &c)) changed = true;
        break;
      case kAddRowsMulti:
      case kAddToRowsMulti:
      case kCopyToRowsMulti:
        if (SnipMultiRowOp(computation, &c)) changed = true;
        break;
      case kAddRowRanges:
        if (SnipAddRowRanges(computation, &c)) changed = true;
        break;
      default:
        break;
    }
  }
  return changed;
}

bool SplitRowOps(NnetComputation *computation) {
  const int32 num_commands = static_cast<int32>(computation->commands.size());
  std::vector<Command> new_commands;
  new_commands.reserve(num_commands);
  // Position of each old command in new_commands (for kGotoLabel).
  std::vector<int32> old_to_new(num_commands);
  bool changed = false;
  for (int32 i = 0; i < num_commands; i++) {
    const Command c = computation->commands[i];
    old_to_new[i] = static_cast<int32>(new_commands.size());
    switch (c.command_type) {
      case kAddRowsMulti:
      case kCopyRowsMulti:
      case kAddToRowsMulti:
      case kCopyToRowsMulti:
        if (SplitCommand(computation, c, &new_commands)) {
          changed = true;
          continue;
        }
        break;
      default:
        break;
    }
    new_commands.push_back(c);
  }
  if (!changed) return false;
  for (Command &c : new_commands)
    if (c.command_type == kGotoLabel && c.arg1 >= 0 && c.arg1 < num_commands)
      c.arg1 = old_to_new[c.arg1];
  computation->commands.swap(new_commands);
  return true;
}

}  // namespace nnet3
