// nnet3/compile/shortcut.cc
// Shortcut compilation (see shortcut.h): recognizing requests that are
// regular in n, building the two-sequence mini request, and expanding the
// mini computation to N sequences.
//
// Row arithmetic used throughout, for a row list regular in n with stride
// s: old (two-sequence) row i lies in block i / (2s), belongs to sequence
// n = (i % 2s) / s and has position j = i % s in its sub-block; its
// counterpart for sequence n' in the expanded list is
// (i / 2s) * N * s + n' * s + j. The expander checks every structural
// assumption it uses and declines (returns false) instead of producing a
// computation that might differ from a direct compilation.
#include "nnet3/compile/shortcut.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "base/log.h"

namespace nnet3 {

namespace {

// Whether rows 0..num_rows-1, whose n values n_of(i) gives and where
// same(i, k) says rows i and k agree in everything but n, are regular in n
// with num_n values (see shortcut.h); if so sets *stride.
template <typename NOf, typename Same>
bool FindNStride(int32 num_rows, int32 num_n, NOf n_of, Same same,
                 int32 *stride) {
  if (num_rows <= 0 || num_n < 2 || n_of(0) != 0) return false;
  int32 s = 1;
  while (s < num_rows && n_of(s) == 0) s++;
  if (s == num_rows) return false;  // only n == 0
  int64 block = static_cast<int64>(num_n) * s;
  if (num_rows % block != 0) return false;
  for (int32 i = 0; i < num_rows; i++) {
    int32 offset = static_cast<int32>(i % block);
    int32 n = offset / s;
    if (n_of(i) != n) return false;
    if (n > 0 && !same(i, i - n * s)) return false;
  }
  *stride = s;
  return true;
}

// The stride of a list of Indexes regular in n with num_n values.
bool FindIndexStride(const std::vector<Index> &indexes, int32 num_n,
                     int32 *stride) {
  return FindNStride(
      static_cast<int32>(indexes.size()), num_n,
      [&indexes](int32 i) { return indexes[i].n; },
      [&indexes](int32 i, int32 k) {
        return indexes[i].t == indexes[k].t && indexes[i].x == indexes[k].x;
      },
      stride);
}

// The stride of a matrix of the mini computation, from its Cindexes.
bool FindCindexStride(const std::vector<Cindex> &cindexes, int32 *stride) {
  return FindNStride(
      static_cast<int32>(cindexes.size()), 2,
      [&cindexes](int32 i) { return cindexes[i].second.n; },
      [&cindexes](int32 i, int32 k) {
        const Cindex &a = cindexes[i], &b = cindexes[k];
        return a.first == b.first && a.second.t == b.second.t &&
               a.second.x == b.second.x;
      },
      stride);
}

// Rebuilds a row list regular in n with stride s for num_new_n sequences,
// from one with num_old_n sequences; make(old_row, n) gives the new entry.
template <typename T, typename Make>
void ExpandRegular(const std::vector<T> &old_rows, int32 stride,
                   int32 num_old_n, int32 num_new_n, Make make,
                   std::vector<T> *new_rows) {
  int32 old_block = num_old_n * stride;
  int32 num_blocks = static_cast<int32>(old_rows.size()) / old_block;
  new_rows->clear();
  new_rows->reserve(static_cast<size_t>(num_blocks) * num_new_n * stride);
  for (int32 b = 0; b < num_blocks; b++)
    for (int32 n = 0; n < num_new_n; n++)
      for (int32 j = 0; j < stride; j++)
        new_rows->push_back(make(old_rows[b * old_block + j], n));
}

// Sequence of row i (two-sequence layout, stride s).
inline int32 NOfRow(int32 i, int32 s) { return (i % (2 * s)) / s; }

// The expanded row of sequence n corresponding to old row i.
inline int32 NewRow(int32 i, int32 s, int32 num_n, int32 n) {
  return (i / (2 * s)) * num_n * s + n * s + i % s;
}

class ComputationExpander {
 public:
  ComputationExpander(const Nnet &nnet, const MiscComputationInfo &misc_info,
                      const NnetComputation &computation,
                      bool need_debug_info, int32 num_n_values,
                      NnetComputation *expanded)
      : nnet_(nnet), misc_info_(misc_info), c_(computation),
        need_debug_info_(need_debug_info), num_n_(num_n_values),
        e_(expanded) {}

  bool Expand() {
    e_->Clear();
    if (num_n_ < 2 || !ComputeMatrixStrides() || !ExpandMatrices() ||
        !ExpandSubmatrices() || !ExpandCommands()) {
      e_->Clear();
      return false;
    }
    e_->need_model_derivative = c_.need_model_derivative;
    if (need_debug_info_) ExpandDebugInfo();
    return true;
  }

 private:
  bool ComputeMatrixStrides() {
    int32 num_matrices = static_cast<int32>(c_.matrices.size());
    if (num_matrices == 0) return true;
    if (c_.matrix_debug_info.size() != c_.matrices.size()) return false;
    stride_.assign(num_matrices, 0);
    for (int32 m = 1; m < num_matrices; m++) {
      const std::vector<Cindex> &cindexes = c_.matrix_debug_info[m].cindexes;
      if (static_cast<int32>(cindexes.size()) != c_.matrices[m].num_rows ||
          !FindCindexStride(cindexes, &stride_[m]))
        return false;
    }
    return true;
  }

  bool ExpandMatrices() {
    e_->matrices = c_.matrices;
    for (size_t m = 1; m < c_.matrices.size(); m++) {
      int64 rows = static_cast<int64>(c_.matrices[m].num_rows) / 2 * num_n_;
      if (rows > 2000000000) return false;
      e_->matrices[m].num_rows = static_cast<int32>(rows);
    }
    return true;
  }

  // Every submatrix (but the empty one) must be a whole number of blocks
  // of its matrix, so it is itself regular with the matrix's stride.
  bool ExpandSubmatrices() {
    e_->submatrices = c_.submatrices;
    for (size_t i = 1; i < c_.submatrices.size(); i++) {
      const NnetComputation::SubMatrixInfo &info = c_.submatrices[i];
      int32 m = info.matrix_index;
      if (m <= 0 || m >= static_cast<int32>(c_.matrices.size())) return false;
      int32 block = 2 * stride_[m];
      if (info.num_rows <= 0 || info.row_offset % block != 0 ||
          info.num_rows % block != 0)
        return false;
      NnetComputation::SubMatrixInfo &out = e_->submatrices[i];
      out.row_offset = info.row_offset / block * num_n_ * stride_[m];
      out.num_rows = info.num_rows / block * num_n_ * stride_[m];
    }
    return true;
  }

  bool ValidSubmatrix(int32 s) const {
    return s > 0 && s < static_cast<int32>(c_.submatrices.size());
  }
  int32 SubStride(int32 s) const {
    return stride_[c_.submatrices[s].matrix_index];
  }
  int32 OldRows(int32 s) const { return c_.submatrices[s].num_rows; }
  int32 NewRows(int32 s) const { return e_->submatrices[s].num_rows; }
  // Row i of submatrix s and rows j of submatrix t mean the same Index for
  // every i (same row count and stride).
  bool SameLayout(int32 s, int32 t) const {
    if (s == 0 || t == 0) return true;
    if (!ValidSubmatrix(s) || !ValidSubmatrix(t)) return false;
    return OldRows(s) == OldRows(t) && SubStride(s) == SubStride(t);
  }

  // Checks that a source row v0 for sequence 0 (v1 for sequence 1) of
  // submatrix src is consistent; -1 means "no row" for both.
  bool RowPairOk(int32 v0, int32 v1, int32 src) const {
    if (v0 < 0 || v1 < 0) return v0 == -1 && v1 == -1;
    int32 s = SubStride(src);
    return v0 < OldRows(src) && NOfRow(v0, s) == 0 && v1 == v0 + s;
  }

  // kCopyRows / kAddRows: indexes[old_index] maps rows of dest to rows of
  // src.
  bool ExpandRowIndexes(int32 old_index, int32 dest, int32 src,
                        int32 *new_index) {
    if (old_index < 0 || old_index >= static_cast<int32>(c_.indexes.size()) ||
        !ValidSubmatrix(dest) || !ValidSubmatrix(src))
      return false;
    auto key = std::make_tuple(0, old_index, dest, src);
    auto it = memo_.find(key);
    if (it != memo_.end()) {
      *new_index = it->second;
      return true;
    }
    const std::vector<int32> &old = c_.indexes[old_index];
    int32 s1 = SubStride(dest), s2 = SubStride(src);
    if (static_cast<int32>(old.size()) != OldRows(dest)) return false;
    std::vector<int32> out(NewRows(dest), -1);
    for (int32 i = 0; i < OldRows(dest); i++) {
      if (NOfRow(i, s1) != 0) continue;
      int32 v0 = old[i], v1 = old[i + s1];
      if (!RowPairOk(v0, v1, src)) return false;
      if (v0 < 0) continue;
      for (int32 n = 0; n < num_n_; n++)
        out[NewRow(i, s1, num_n_, n)] = NewRow(v0, s2, num_n_, n);
    }
    *new_index = static_cast<int32>(e_->indexes.size());
    e_->indexes.push_back(out);
    memo_[key] = *new_index;
    return true;
  }

  // The *RowsMulti commands: indexes_multi[old_index] has one
  // (submatrix, row) pair per row of 'sub'.
  bool ExpandMultiIndexes(int32 old_index, int32 sub, int32 *new_index) {
    if (old_index < 0 ||
        old_index >= static_cast<int32>(c_.indexes_multi.size()) ||
        !ValidSubmatrix(sub))
      return false;
    auto key = std::make_tuple(1, old_index, sub, 0);
    auto it = memo_.find(key);
    if (it != memo_.end()) {
      *new_index = it->second;
      return true;
    }
    const std::vector<std::pair<int32, int32> > &old =
        c_.indexes_multi[old_index];
    int32 s1 = SubStride(sub);
    if (static_cast<int32>(old.size()) != OldRows(sub)) return false;
    std::vector<std::pair<int32, int32> > out(NewRows(sub),
                                              std::make_pair(-1, -1));
    for (int32 i = 0; i < OldRows(sub); i++) {
      if (NOfRow(i, s1) != 0) continue;
      const std::pair<int32, int32> &p0 = old[i], &p1 = old[i + s1];
      if (p0.first < 0 || p1.first < 0) {
        if (p0 != std::make_pair(-1, -1) || p1 != std::make_pair(-1, -1))
          return false;
        continue;
      }
      if (p0.first != p1.first || !ValidSubmatrix(p0.first) ||
          !RowPairOk(p0.second, p1.second, p0.first) || p0.second < 0)
        return false;
      int32 s2 = SubStride(p0.first);
      for (int32 n = 0; n < num_n_; n++)
        out[NewRow(i, s1, num_n_, n)] =
            std::make_pair(p0.first, NewRow(p0.second, s2, num_n_, n));
    }
    *new_index = static_cast<int32>(e_->indexes_multi.size());
    e_->indexes_multi.push_back(out);
    memo_[key] = *new_index;
    return true;
  }

  // kAddRowRanges: indexes_ranges[old_index] gives, per row of dest, a
  // range [first, second) of rows of src. A non-empty range must lie in
  // the sequence-0 part of one block of src.
  bool ExpandRangeIndexes(int32 old_index, int32 dest, int32 src,
                          int32 *new_index) {
    if (old_index < 0 ||
        old_index >= static_cast<int32>(c_.indexes_ranges.size()) ||
        !ValidSubmatrix(dest) || !ValidSubmatrix(src))
      return false;
    auto key = std::make_tuple(2, old_index, dest, src);
    auto it = memo_.find(key);
    if (it != memo_.end()) {
      *new_index = it->second;
      return true;
    }
    const std::vector<std::pair<int32, int32> > &old =
        c_.indexes_ranges[old_index];
    int32 s1 = SubStride(dest), s2 = SubStride(src);
    if (static_cast<int32>(old.size()) != OldRows(dest)) return false;
    std::vector<std::pair<int32, int32> > out(NewRows(dest),
                                              std::make_pair(-1, -1));
    for (int32 i = 0; i < OldRows(dest); i++) {
      if (NOfRow(i, s1) != 0) continue;
      const std::pair<int32, int32> &r0 = old[i], &r1 = old[i + s1];
      bool empty0 = r0.first >= r0.second, empty1 = r1.first >= r1.second;
      if (empty0 || empty1) {
        if (!empty0 || !empty1) return false;
        continue;  // rows left as (-1, -1): nothing added
      }
      int32 first = r0.first, last = r0.second - 1;
      if (first < 0 || last >= OldRows(src) || NOfRow(first, s2) != 0 ||
          NOfRow(last, s2) != 0 || first / (2 * s2) != last / (2 * s2) ||
          r1.first != r0.first + s2 || r1.second != r0.second + s2)
        return false;
      for (int32 n = 0; n < num_n_; n++) {
        int32 begin = NewRow(first, s2, num_n_, n);
        out[NewRow(i, s1, num_n_, n)] =
            std::make_pair(begin, begin + (r0.second - r0.first));
      }
    }
    *new_index = static_cast<int32>(e_->indexes_ranges.size());
    e_->indexes_ranges.push_back(out);
    memo_[key] = *new_index;
    return true;
  }

  bool ExpandCommands() {
    e_->commands = c_.commands;
    for (NnetComputation::Command &cmd : e_->commands) {
      switch (cmd.command_type) {
        case kPropagate:
        case kBackprop:
        case kBackpropNoModelUpdate: {
          if (cmd.arg1 < 0 || cmd.arg1 >= nnet_.NumComponents()) return false;
          int32 props = nnet_.GetComponent(cmd.arg1)->Properties();
          if (cmd.arg2 < 0 ||
              cmd.arg2 >= static_cast<int32>(
                  std::max<size_t>(c_.component_precomputed_indexes.size(), 1)))
            return false;
          // A non-simple component maps its input rows to other output
          // rows: its precomputed indexes (recomputed below) say how.
          if (!(props & kSimpleComponent)) break;
          std::vector<int32> subs;
          if (cmd.command_type == kPropagate)
            subs = {cmd.arg3, cmd.arg4};
          else
            subs = {cmd.arg3, cmd.arg4, cmd.arg5, cmd.arg6};
          int32 ref = 0;
          for (int32 s : subs) {
            if (s < 0 || s >= static_cast<int32>(c_.submatrices.size()))
              return false;
            if (s == 0) continue;
            if (ref == 0) ref = s;
            else if (!SameLayout(ref, s)) return false;
          }
          break;
        }
        case kSwapMatrix:
        case kMatrixCopy:
        case kMatrixAdd:
          if (!SameLayout(cmd.arg1, cmd.arg2)) return false;
          break;
        case kCopyRows:
        case kAddRows:
          if (!ExpandRowIndexes(cmd.arg3, cmd.arg1, cmd.arg2, &cmd.arg3))
            return false;
          break;
        case kCopyRowsMulti:
        case kCopyToRowsMulti:
        case kAddRowsMulti:
        case kAddToRowsMulti:
          if (!ExpandMultiIndexes(cmd.arg2, cmd.arg1, &cmd.arg2)) return false;
          break;
        case kAddRowRanges:
          if (!ExpandRangeIndexes(cmd.arg3, cmd.arg1, cmd.arg2, &cmd.arg3))
            return false;
          break;
        case kAllocMatrix:
        case kDeallocMatrix:
        case kSetConst:
        case kCompressMatrix:
        case kDecompressMatrix:
        case kAcceptInput:
        case kProvideOutput:
        case kNoOperation:
        case kNoOperationPermanent:
        case kNoOperationMarker:
        case kNoOperationLabel:
        case kGotoLabel:
          break;
      }
    }
    return ExpandPrecomputedIndexes();
  }

  // Each precomputed-indexes entry is made again by its component, from its
  // input and output Indexes expanded to num_n_ sequences (the entries keep
  // their numbers, so the commands need no change).
  bool ExpandPrecomputedIndexes() {
    int32 num_entries =
        static_cast<int32>(c_.component_precomputed_indexes.size());
    e_->component_precomputed_indexes.clear();
    e_->component_precomputed_indexes.resize(num_entries);
    if (num_entries <= 1) return true;
    std::vector<int32> component(num_entries, -1);
    std::vector<bool> need_backprop(num_entries, false);
    for (const NnetComputation::Command &cmd : c_.commands) {
      if (cmd.arg2 <= 0) continue;
      if (cmd.command_type == kPropagate) component[cmd.arg2] = cmd.arg1;
      else if (cmd.command_type == kBackprop ||
               cmd.command_type == kBackpropNoModelUpdate)
        need_backprop[cmd.arg2] = true;
    }
    auto relabel = [](Index index, int32 n) {
      index.n = n;
      return index;
    };
    for (int32 p = 1; p < num_entries; p++) {
      const NnetComputation::PrecomputedIndexesInfo &old_info =
          c_.component_precomputed_indexes[p];
      NnetComputation::PrecomputedIndexesInfo &new_info =
          e_->component_precomputed_indexes[p];
      if (component[p] < 0) continue;  // no longer used by any command
      int32 in_stride, out_stride;
      if (old_info.input_indexes.empty() || old_info.output_indexes.empty() ||
          !FindIndexStride(old_info.input_indexes, 2, &in_stride) ||
          !FindIndexStride(old_info.output_indexes, 2, &out_stride))
        return false;
      ExpandRegular(old_info.input_indexes, in_stride, 2, num_n_, relabel,
                    &new_info.input_indexes);
      ExpandRegular(old_info.output_indexes, out_stride, 2, num_n_, relabel,
                    &new_info.output_indexes);
      new_info.data = nnet_.GetComponent(component[p])->PrecomputeIndexes(
          misc_info_, new_info.input_indexes, new_info.output_indexes,
          need_backprop[p]);
      if (new_info.data == nullptr) return false;
    }
    return true;
  }

  void ExpandDebugInfo() {
    int32 num_matrices = static_cast<int32>(c_.matrices.size());
    e_->matrix_debug_info.resize(num_matrices);
    for (int32 m = 1; m < num_matrices; m++) {
      const NnetComputation::MatrixDebugInfo &in = c_.matrix_debug_info[m];
      NnetComputation::MatrixDebugInfo &out = e_->matrix_debug_info[m];
      out.is_deriv = in.is_deriv;
      ExpandRegular(in.cindexes, stride_[m], 2, num_n_,
                    [](Cindex c, int32 n) {
                      c.second.n = n;
                      return c;
                    },
                    &out.cindexes);
    }
  }

  const Nnet &nnet_;
  const MiscComputationInfo &misc_info_;
  const NnetComputation &c_;
  bool need_debug_info_;
  int32 num_n_;
  NnetComputation *e_;
  std::vector<int32> stride_;  // per matrix of c_ (0 for matrix 0)
  // (kind, old index, submatrix, submatrix) -> new index, so index lists
  // shared by several commands with the same submatrices stay shared.
  std::map<std::tuple<int32, int32, int32, int32>, int32> memo_;
};

// Whether the expanded computation's input and output matrices hold the
// request's Indexes in the request's order (a final safety check; needs
// debug info).
bool IoMatchesRequest(const Nnet &nnet, const ComputationRequest &request,
                      const NnetComputation &computation) {
  if (computation.matrix_debug_info.size() != computation.matrices.size())
    return false;
  for (const NnetComputation::Command &cmd : computation.commands) {
    if (cmd.command_type != kAcceptInput && cmd.command_type != kProvideOutput)
      continue;
    if (cmd.arg2 < 0 || cmd.arg2 >= nnet.NumNodes()) return false;
    const std::string &name = nnet.GetNodeName(cmd.arg2);
    const std::vector<Index> *indexes = nullptr;
    if (nnet.IsInputNode(cmd.arg2)) {
      int32 i = request.IndexForInput(name);
      if (i >= 0) indexes = &request.inputs[i].indexes;
    } else {
      int32 i = request.IndexForOutput(name);
      if (i >= 0) indexes = &request.outputs[i].indexes;
    }
    if (indexes == nullptr || !computation.IsWholeMatrix(cmd.arg1))
      return false;
    int32 m = computation.submatrices[cmd.arg1].matrix_index;
    const std::vector<Cindex> &cindexes =
        computation.matrix_debug_info[m].cindexes;
    if (cindexes.size() != indexes->size()) return false;
    for (size_t r = 0; r < cindexes.size(); r++)
      if (cindexes[r].second != (*indexes)[r]) return false;
  }
  return true;
}

}  // namespace

bool RequestIsDecomposable(const ComputationRequest &request,
                           ComputationRequest *mini_request,
                           int32 *num_n_values) {
  if (request.inputs.empty() || request.outputs.empty()) return false;
  int32 num_n = -1;
  for (int32 io = 0; io < 2; io++) {
    const std::vector<IoSpecification> &specs =
        io == 0 ? request.inputs : request.outputs;
    for (const IoSpecification &spec : specs) {
      if (spec.indexes.empty()) return false;
      int32 max_n = spec.indexes[0].n;
      for (const Index &index : spec.indexes) max_n = std::max(max_n, index.n);
      if (num_n == -1) num_n = max_n + 1;
      else if (num_n != max_n + 1) return false;
    }
  }
  if (num_n < 3) return false;

  *mini_request = request;
  for (int32 io = 0; io < 2; io++) {
    std::vector<IoSpecification> &specs =
        io == 0 ? mini_request->inputs : mini_request->outputs;
    for (IoSpecification &spec : specs) {
      int32 stride;
      if (!FindIndexStride(spec.indexes, num_n, &stride)) return false;
      std::vector<Index> mini;
      // Each block of num_n sub-blocks becomes two: the n = 0 sub-block
      // relabelled with n = 0 and n = 1.
      ExpandRegular(spec.indexes, stride, num_n, 2,
                    [](Index index, int32 n) {
                      index.n = n;
                      return index;
                    },
                    &mini);
      spec.indexes.swap(mini);
    }
  }
  *num_n_values = num_n;
  return true;
}

bool TryExpandComputation(const Nnet &nnet,
                          const MiscComputationInfo &misc_info,
                          const NnetComputation &computation,
                          bool need_debug_info, int32 num_n_values,
                          NnetComputation *expanded) {
  ComputationExpander expander(nnet, misc_info, computation, need_debug_info,
                               num_n_values, expanded);
  return expander.Expand();
}

void ExpandComputation(const Nnet &nnet, const MiscComputationInfo &misc_info,
                       const NnetComputation &computation,
                       bool need_debug_info, int32 num_n_values,
                       NnetComputation *expanded) {
  if (!TryExpandComputation(nnet, misc_info, computation, need_debug_info,
                            num_n_values, expanded))
    NNET3_ERR << "Cannot expand the computation to " << num_n_values
              << " sequences: it lacks debug info or is not regular in n "
              << "(compile without the shortcut, --compiler.use-shortcut=false)";
}

void CompileWithShortcut(const Nnet &nnet, const ComputationRequest &request,
                         const CompilerOptions &opts,
                         NnetComputation *computation) {
  ComputationRequest mini_request;
  int32 num_n_values;
  if (RequestIsDecomposable(request, &mini_request, &num_n_values)) {
    CompilerOptions mini_opts = opts;
    mini_opts.output_debug_info = true;
    NnetComputation mini;
    bool compiled = true;
    try {
      CompileComputation(nnet, mini_request, mini_opts, &mini);
    } catch (const UserError &) {
      // E.g. outputs not computable: compile directly below so the error
      // describes the real request.
      compiled = false;
    }
    if (compiled &&
        TryExpandComputation(nnet, request.misc_info, mini, true,
                             num_n_values, computation) &&
        IoMatchesRequest(nnet, request, *computation)) {
      if (!opts.output_debug_info) computation->matrix_debug_info.clear();
      return;
    }
  }
  CompileComputation(nnet, request, opts, computation);
}

}  // namespace nnet3
