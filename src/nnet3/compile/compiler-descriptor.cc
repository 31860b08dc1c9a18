// nnet3/compile/compiler-descriptor.cc
// The commands for descriptor steps: forward (gather each row's inputs,
// scaled, into the step's matrix) and backward (scatter the step's
// derivative back into the inputs' derivatives), plus the location-list
// helpers (SplitLocations, SplitLocationsBackward, ConvertToIndexes,
// HasContiguousProperty).
// Invariant of the commands emitted: forward commands write only the
// step's own value submatrix; backward commands only add into input
// derivative submatrices, and any one command names each destination row
// at most once.
#include <algorithm>
#include <map>

#include "base/log.h"
#include "nnet3/compile/compiler.h"

namespace nnet3 {

typedef std::pair<int32, int32> Location;
typedef std::vector<std::vector<Location> > LocationLists;

// ---- helpers -----------------------------------------------------------------

void SplitLocations(const LocationLists &submat_lists,
                    LocationLists *split_lists) {
  split_lists->clear();
  size_t num_rows = submat_lists.size();
  size_t max_len = 0;
  for (const auto &l : submat_lists) max_len = std::max(max_len, l.size());
  if (max_len == 0) return;
  // For each submatrix, the most times it occurs in one row: giving each
  // (submatrix, k-th occurrence) its own list keeps every list to one
  // source, so it becomes a single CopyRows/AddRows.
  std::map<int32, int32> max_count;
  for (const auto &l : submat_lists) {
    std::map<int32, int32> count;
    for (const Location &loc : l) count[loc.first]++;
    for (const auto &kv : count)
      max_count[kv.first] = std::max(max_count[kv.first], kv.second);
  }
  size_t total = 0;
  for (const auto &kv : max_count) total += kv.second;
  if (total <= max_len + 2 || total <= 2 * max_len) {
    std::map<std::pair<int32, int32>, int32> list_of;  // (submat, k) -> list
    for (const auto &kv : max_count)
      for (int32 k = 0; k < kv.second; k++)
        list_of[std::make_pair(kv.first, k)] = 0;
    int32 n = 0;
    for (auto &kv : list_of) kv.second = n++;
    split_lists->assign(n, std::vector<Location>(num_rows, Location(-1, -1)));
    for (size_t r = 0; r < num_rows; r++) {
      std::map<int32, int32> count;
      for (const Location &loc : submat_lists[r]) {
        int32 k = count[loc.first]++;
        (*split_lists)[list_of[std::make_pair(loc.first, k)]][r] = loc;
      }
    }
    return;
  }
  // Otherwise: by position, after sorting each row's inputs so the same
  // submatrices tend to line up.
  split_lists->assign(max_len, std::vector<Location>(num_rows, Location(-1, -1)));
  for (size_t r = 0; r < num_rows; r++) {
    std::vector<Location> l = submat_lists[r];
    std::sort(l.begin(), l.end());
    for (size_t k = 0; k < l.size(); k++) (*split_lists)[k][r] = l[k];
  }
}

void SplitLocationsBackward(const LocationLists &submat_lists,
                            LocationLists *split_lists) {
  // First group as in the forward direction, then split any list that
  // names a destination twice, moving the repeats to later lists.
  LocationLists first;
  SplitLocations(submat_lists, &first);
  split_lists->clear();
  for (const auto &list : first) {
    std::vector<std::vector<Location> > out;
    std::vector<std::map<Location, bool> > used;
    for (size_t r = 0; r < list.size(); r++) {
      const Location &loc = list[r];
      if (loc.first < 0) continue;
      size_t k = 0;
      while (k < out.size() && used[k].count(loc)) k++;
      if (k == out.size()) {
        out.push_back(std::vector<Location>(list.size(), Location(-1, -1)));
        used.push_back(std::map<Location, bool>());
      }
      out[k][r] = loc;
      used[k][loc] = true;
    }
    for (auto &o : out) split_lists->push_back(o);
  }
}

bool ConvertToIndexes(const std::vector<Location> &location_vector,
                      int32 *first_value, std::vector<int32> *second_values) {
  *first_value = -1;
  second_values->resize(location_vector.size());
  for (size_t i = 0; i < location_vector.size(); i++) {
    const Location &loc = location_vector[i];
    if (loc.first < 0) {
      (*second_values)[i] = -1;
      continue;
    }
    if (*first_value == -1)
      *first_value = loc.first;
    else if (*first_value != loc.first)
      return false;
    (*second_values)[i] = loc.second;
  }
  return *first_value != -1;
}

bool HasContiguousProperty(const std::vector<int32> &indexes,
                           std::vector<std::pair<int32, int32> > *ranges) {
  int32 max_value = -1;
  for (int32 i : indexes) max_value = std::max(max_value, i);
  ranges->assign(max_value + 1, std::make_pair(-1, -1));
  for (size_t pos = 0; pos < indexes.size(); pos++) {
    int32 v = indexes[pos];
    if (v < 0) continue;
    std::pair<int32, int32> &range = (*ranges)[v];
    if (range.first == -1) {
      range = std::make_pair(static_cast<int32>(pos), static_cast<int32>(pos) + 1);
    } else if (range.second == static_cast<int32>(pos)) {
      range.second++;
    } else {
      return false;
    }
  }
  return true;
}

// ---- shared ------------------------------------------------------------------

void Compiler::SplitByScale(
    const SumDescriptor &descriptor, const LocationsList &input_locations_list,
    std::vector<std::pair<BaseFloat, LocationsList> > *split) const {
  split->clear();
  std::map<int32, BaseFloat> node_scale;  // source step's node -> scale
  std::map<BaseFloat, size_t> scale_to_group;
  size_t num_rows = input_locations_list.size();
  for (size_t r = 0; r < num_rows; r++) {
    for (const Location &loc : input_locations_list[r]) {
      int32 node = steps_[loc.first].node_index;
      auto it = node_scale.find(node);
      if (it == node_scale.end()) {
        BaseFloat s = descriptor.GetScaleForNode(node);
        NNET3_ASSERT(s - s == 0.0 && "node not found in descriptor");
        it = node_scale.insert(std::make_pair(node, s)).first;
      }
      auto g = scale_to_group.find(it->second);
      if (g == scale_to_group.end()) {
        g = scale_to_group.insert(std::make_pair(it->second, split->size())).first;
        split->push_back(std::make_pair(it->second, LocationsList(num_rows)));
      }
      (*split)[g->second].second[r].push_back(loc);
    }
  }
}

void Compiler::ConvertToSubmatLocations(const LocationsList &locations,
                                        bool deriv,
                                        LocationsList *submat_locations) const {
  submat_locations->resize(locations.size());
  for (size_t r = 0; r < locations.size(); r++) {
    const std::vector<Location> &in = locations[r];
    std::vector<Location> &out = (*submat_locations)[r];
    out.clear();
    for (const Location &loc : in) {
      const StepInfo &src = steps_[loc.first];
      int32 submat = deriv ? src.deriv : src.value;
      if (deriv && submat == 0) continue;  // that input needs no derivative
      NNET3_ASSERT(submat > 0);
      out.push_back(Location(submat, loc.second));
    }
  }
}

// ---- forward -----------------------------------------------------------------

void Compiler::CompileForwardDescriptor(int32 step,
                                        NnetComputation *computation) const {
  int32 num_parts = static_cast<int32>(steps_[step].value_parts.size());
  for (int32 p = 0; p < num_parts; p++)
    CompileForwardSumDescriptor(step, p, computation);
}

void Compiler::CompileForwardSumDescriptor(int32 step, int32 part,
                                           NnetComputation *computation) const {
  const StepInfo &info = steps_[step];
  int32 value_submatrix = info.value_parts[part];
  const SumDescriptor &descriptor =
      nnet_.GetNode(info.node_index).descriptor.Part(part);
  BaseFloat offset_term = descriptor.GetScaleForNode(-1);
  bool first_is_copy = true;
  if (offset_term != 0.0) {
    computation->commands.push_back(
        NnetComputation::Command(offset_term, kSetConst, value_submatrix));
    first_is_copy = false;
  }
  std::vector<std::pair<BaseFloat, LocationsList> > split;
  SplitByScale(descriptor, info.input_locations_list[part], &split);
  for (const auto &group : split) {
    LocationsList submat_lists;
    ConvertToSubmatLocations(group.second, false, &submat_lists);
    CompileForwardFromSubmatLocationsList(value_submatrix, group.first,
                                          first_is_copy, submat_lists,
                                          computation);
    first_is_copy = false;
  }
}

void Compiler::CompileForwardFromSubmatLocationsList(
    int32 value_submatrix, BaseFloat alpha, bool first_is_copy,
    const LocationsList &submat_lists, NnetComputation *computation) const {
  LocationsList split;
  SplitLocations(submat_lists, &split);
  for (size_t i = 0; i < split.size(); i++)
    CompileForwardFromSubmatLocations(value_submatrix, alpha,
                                      first_is_copy && i == 0, split[i],
                                      computation);
}

void Compiler::CompileForwardFromSubmatLocations(
    int32 value_submatrix, BaseFloat alpha, bool is_copy,
    const std::vector<Location> &submat_locations,
    NnetComputation *computation) const {
  int32 input_submatrix;
  std::vector<int32> indexes;
  if (ConvertToIndexes(submat_locations, &input_submatrix, &indexes)) {
    const NnetComputation::SubMatrixInfo &in =
        computation->submatrices[input_submatrix];
    int32 num_rows = static_cast<int32>(indexes.size());
    bool identity = (in.num_rows == num_rows);
    for (int32 i = 0; identity && i < num_rows; i++)
      identity = (indexes[i] == i);
    if (identity) {
      computation->commands.push_back(NnetComputation::Command(
          alpha, is_copy ? kMatrixCopy : kMatrixAdd, value_submatrix,
          input_submatrix));
      return;
    }
    // A contiguous run of source rows is a submatrix: a plain copy/add.
    bool contiguous = indexes[0] >= 0;
    for (int32 i = 1; contiguous && i < num_rows; i++)
      contiguous = (indexes[i] == indexes[0] + i);
    if (contiguous) {
      int32 sub = computation->NewSubMatrix(input_submatrix, indexes[0],
                                            num_rows, 0, -1);
      computation->commands.push_back(NnetComputation::Command(
          alpha, is_copy ? kMatrixCopy : kMatrixAdd, value_submatrix, sub));
      return;
    }
    int32 indexes_index = static_cast<int32>(computation->indexes.size());
    computation->indexes.push_back(indexes);
    computation->commands.push_back(NnetComputation::Command(
        alpha, is_copy ? kCopyRows : kAddRows, value_submatrix,
        input_submatrix, indexes_index));
    return;
  }
  int32 multi_index = static_cast<int32>(computation->indexes_multi.size());
  computation->indexes_multi.push_back(submat_locations);
  computation->commands.push_back(NnetComputation::Command(
      alpha, is_copy ? kCopyRowsMulti : kAddRowsMulti, value_submatrix,
      multi_index));
}

// ---- backward ----------------------------------------------------------------

void Compiler::CompileBackwardDescriptor(int32 step,
                                         NnetComputation *computation) const {
  const StepInfo &info = steps_[step];
  if (info.deriv == 0) return;
  int32 num_parts = static_cast<int32>(info.deriv_parts.size());
  for (int32 p = 0; p < num_parts; p++)
    CompileBackwardSumDescriptor(step, p, computation);
}

void Compiler::CompileBackwardSumDescriptor(
    int32 step, int32 part, NnetComputation *computation) const {
  const StepInfo &info = steps_[step];
  int32 deriv_submatrix = info.deriv_parts[part];
  const SumDescriptor &descriptor =
      nnet_.GetNode(info.node_index).descriptor.Part(part);
  std::vector<std::pair<BaseFloat, LocationsList> > split;
  SplitByScale(descriptor, info.input_locations_list[part], &split);
  for (const auto &group : split) {
    LocationsList submat_lists;
    ConvertToSubmatLocations(group.second, true, &submat_lists);
    CompileBackwardFromSubmatLocationsList(deriv_submatrix, group.first,
                                           submat_lists, computation);
  }
}

bool Compiler::CompileBackwardFromIndexes(int32 deriv_submatrix,
                                          int32 input_deriv_submatrix,
                                          const std::vector<int32> &indexes,
                                          BaseFloat alpha,
                                          NnetComputation *computation) const {
  int32 num_rows = computation->submatrices[deriv_submatrix].num_rows;
  int32 input_num_rows =
      computation->submatrices[input_deriv_submatrix].num_rows;
  NNET3_ASSERT(static_cast<int32>(indexes.size()) == num_rows);
  if (input_num_rows == num_rows) {
    int32 i = 0;
    while (i < num_rows && indexes[i] == i) i++;
    if (i == num_rows) {
      computation->commands.push_back(NnetComputation::Command(
          alpha, kMatrixAdd, input_deriv_submatrix, deriv_submatrix));
      return true;
    }
  }
  // Each input row receiving from at most one row: reverse the map and
  // gather (kAddRows on the input derivative).
  std::vector<int32> reverse(input_num_rows, -1);
  bool unique = true;
  for (int32 i = 0; i < num_rows && unique; i++) {
    int32 v = indexes[i];
    if (v < 0) continue;
    NNET3_ASSERT(v < input_num_rows);
    if (reverse[v] != -1) unique = false;
    else reverse[v] = i;
  }
  if (unique) {
    int32 idx = static_cast<int32>(computation->indexes.size());
    computation->indexes.push_back(reverse);
    computation->commands.push_back(NnetComputation::Command(
        alpha, kAddRows, input_deriv_submatrix, deriv_submatrix, idx));
    return true;
  }
  std::vector<std::pair<int32, int32> > ranges;
  if (HasContiguousProperty(indexes, &ranges)) {
    // Rows that receive nothing get the empty range [0, 0).
    ranges.resize(input_num_rows, std::make_pair(-1, -1));
    for (auto &range : ranges)
      if (range.first == -1) range = std::make_pair(0, 0);
    int32 idx = static_cast<int32>(computation->indexes_ranges.size());
    computation->indexes_ranges.push_back(ranges);
    computation->commands.push_back(NnetComputation::Command(
        alpha, kAddRowRanges, input_deriv_submatrix, deriv_submatrix, idx));
    return true;
  }
  return false;
}

void Compiler::CompileBackwardFromSubmatLocationsList(
    int32 deriv_submatrix, BaseFloat alpha, const LocationsList &submat_lists,
    NnetComputation *computation) const {
  // The common cases first: one input row per row, all from one
  // submatrix.
  bool single = true;
  for (const auto &l : submat_lists) single = single && l.size() <= 1;
  if (single) {
    std::vector<Location> locs(submat_lists.size(), Location(-1, -1));
    for (size_t r = 0; r < submat_lists.size(); r++)
      if (!submat_lists[r].empty()) locs[r] = submat_lists[r][0];
    int32 input_submatrix;
    std::vector<int32> indexes;
    if (!ConvertToIndexes(locs, &input_submatrix, &indexes)) {
      if (input_submatrix == -1) return;  // no inputs need derivatives
    } else if (CompileBackwardFromIndexes(deriv_submatrix, input_submatrix,
                                          indexes, alpha, computation)) {
      return;
    }
  }
  LocationsList split;
  SplitLocationsBackward(submat_lists, &split);
  for (const std::vector<Location> &list : split) {
    int32 input_submatrix;
    std::vector<int32> indexes;
    if (ConvertToIndexes(list, &input_submatrix, &indexes)) {
      bool ok = CompileBackwardFromIndexes(deriv_submatrix, input_submatrix,
                                           indexes, alpha, computation);
      NNET3_ASSERT(ok);  // destinations are unique within a list
    } else if (input_submatrix != -1) {
      int32 idx = static_cast<int32>(computation->indexes_multi.size());
      computation->indexes_multi.push_back(list);
      computation->commands.push_back(NnetComputation::Command(
          alpha, kAddToRowsMulti, deriv_submatrix, idx));
    }
  }
}

}  // namespace nnet3
