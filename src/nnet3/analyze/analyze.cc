// nnet3/analyze/analyze.cc
// Variables, command attributes, access lists and the queries on them (see
// analyze.h). Everything here assumes the computation's indexes are in
// range; ComputationChecker::CheckComputationIndexes() establishes that for
// computations that may be malformed.
#include "nnet3/analyze/analyze.h"

#include <algorithm>
#include <sstream>

#include "base/log.h"

namespace nnet3 {

namespace {

void SortUnique(std::vector<int32> *v) {
  std::sort(v->begin(), v->end());
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

// Position of 'value' in the sorted vector 'points' (it must be there).
int32 PositionOf(const std::vector<int32> &points, int32 value) {
  std::vector<int32>::const_iterator it =
      std::lower_bound(points.begin(), points.end(), value);
  NNET3_ASSERT(it != points.end() && *it == value);
  return static_cast<int32>(it - points.begin());
}

// The distinct submatrices (not -1) named in an indexes_multi list.
void SubmatricesOfMulti(const std::vector<std::pair<int32, int32> > &pairs,
                        std::vector<int32> *submatrices) {
  submatrices->clear();
  int32 last = -1;
  for (const std::pair<int32, int32> &p : pairs) {
    if (p.first != -1 && p.first != last) {
      submatrices->push_back(p.first);
      last = p.first;
    }
  }
  SortUnique(submatrices);
}

// Merges the sorted 'read' and 'written' lists of one command into one
// (element, access type) pair per element, in increasing order.
void Consolidate(const std::vector<int32> &read,
                 const std::vector<int32> &written,
                 std::vector<std::pair<int32, AccessType> > *out) {
  out->clear();
  size_t i = 0, j = 0;
  while (i < read.size() || j < written.size()) {
    if (j == written.size() || (i < read.size() && read[i] < written[j])) {
      out->push_back(std::make_pair(read[i++], kReadAccess));
    } else if (i == read.size() || written[j] < read[i]) {
      out->push_back(std::make_pair(written[j++], kWriteAccess));
    } else {
      out->push_back(std::make_pair(read[i], kReadWriteAccess));
      i++;
      j++;
    }
  }
}

}  // namespace

std::string DescribeCommand(const NnetComputation &computation,
                            int32 command_index) {
  std::ostringstream os;
  os << 'c' << command_index;
  if (command_index >= 0 &&
      static_cast<size_t>(command_index) < computation.commands.size())
    os << " ("
       << CommandTypeToString(computation.commands[command_index].command_type)
       << ')';
  return os.str();
}

// ---------------------------------------------------------------------------
// ComputationVariables

void ComputationVariables::Init(const NnetComputation &computation) {
  NNET3_ASSERT(row_split_points_.empty() && "Init() called twice");
  int32 num_matrices = static_cast<int32>(computation.matrices.size()),
        num_submatrices = static_cast<int32>(computation.submatrices.size());
  row_split_points_.resize(num_matrices);
  column_split_points_.resize(num_matrices);
  for (int32 s = 1; s < num_submatrices; s++) {
    const NnetComputation::SubMatrixInfo &info = computation.submatrices[s];
    NNET3_ASSERT(info.matrix_index > 0 && info.matrix_index < num_matrices);
    row_split_points_[info.matrix_index].push_back(info.row_offset);
    row_split_points_[info.matrix_index].push_back(info.row_offset +
                                                   info.num_rows);
    column_split_points_[info.matrix_index].push_back(info.col_offset);
    column_split_points_[info.matrix_index].push_back(info.col_offset +
                                                      info.num_cols);
  }
  matrix_to_variable_index_.assign(std::max(num_matrices, 1) + 1, 0);
  for (int32 m = 1; m < num_matrices; m++) {
    // A matrix may have no submatrix at all; its bounds are always splits.
    row_split_points_[m].push_back(0);
    row_split_points_[m].push_back(computation.matrices[m].num_rows);
    column_split_points_[m].push_back(0);
    column_split_points_[m].push_back(computation.matrices[m].num_cols);
    SortUnique(&row_split_points_[m]);
    SortUnique(&column_split_points_[m]);
    int32 n = static_cast<int32>((row_split_points_[m].size() - 1) *
                                 (column_split_points_[m].size() - 1));
    NNET3_ASSERT(n >= 1);
    matrix_to_variable_index_[m + 1] = matrix_to_variable_index_[m] + n;
  }
  num_variables_ = matrix_to_variable_index_.back();

  submatrix_to_matrix_.assign(num_submatrices, 0);
  submatrix_is_whole_matrix_.assign(num_submatrices, false);
  variables_for_submatrix_.assign(num_submatrices, std::vector<int32>());
  for (int32 s = 1; s < num_submatrices; s++) {
    const NnetComputation::SubMatrixInfo &info = computation.submatrices[s];
    int32 m = info.matrix_index;
    submatrix_to_matrix_[s] = m;
    const std::vector<int32> &rows = row_split_points_[m],
                             &cols = column_split_points_[m];
    int32 r0 = PositionOf(rows, info.row_offset),
          r1 = PositionOf(rows, info.row_offset + info.num_rows),
          c0 = PositionOf(cols, info.col_offset),
          c1 = PositionOf(cols, info.col_offset + info.num_cols),
          num_col_vars = static_cast<int32>(cols.size()) - 1,
          num_row_vars = static_cast<int32>(rows.size()) - 1,
          first = matrix_to_variable_index_[m];
    std::vector<int32> &vars = variables_for_submatrix_[s];
    for (int32 r = r0; r < r1; r++)
      for (int32 c = c0; c < c1; c++)
        vars.push_back(first + r * num_col_vars + c);
    submatrix_is_whole_matrix_[s] =
        (r0 == 0 && r1 == num_row_vars && c0 == 0 && c1 == num_col_vars);
  }

  variable_to_matrix_.assign(num_variables_, 0);
  for (int32 m = 1; m < num_matrices; m++)
    for (int32 v = matrix_to_variable_index_[m];
         v < matrix_to_variable_index_[m + 1]; v++)
      variable_to_matrix_[v] = m;
}

int32 ComputationVariables::GetMatrixForVariable(int32 variable) const {
  NNET3_ASSERT(variable >= 0 && variable < num_variables_);
  return variable_to_matrix_[variable];
}

bool ComputationVariables::SubmatrixIsWholeMatrix(int32 submatrix_index) const {
  NNET3_ASSERT(submatrix_index >= 0 &&
               static_cast<size_t>(submatrix_index) <
                   submatrix_is_whole_matrix_.size());
  return submatrix_is_whole_matrix_[submatrix_index];
}

void ComputationVariables::AppendVariablesForSubmatrix(
    int32 submatrix_index, std::vector<int32> *variable_indexes) const {
  NNET3_ASSERT(submatrix_index >= 0 &&
               static_cast<size_t>(submatrix_index) <
                   variables_for_submatrix_.size());
  const std::vector<int32> &vars = variables_for_submatrix_[submatrix_index];
  variable_indexes->insert(variable_indexes->end(), vars.begin(), vars.end());
}

void ComputationVariables::AppendVariablesForMatrix(
    int32 matrix_index, std::vector<int32> *variable_indexes) const {
  NNET3_ASSERT(matrix_index >= 0 &&
               static_cast<size_t>(matrix_index) + 1 <
                   matrix_to_variable_index_.size());
  for (int32 v = matrix_to_variable_index_[matrix_index];
       v < matrix_to_variable_index_[matrix_index + 1]; v++)
    variable_indexes->push_back(v);
}

void ComputationVariables::RecordAccessForSubmatrix(
    int32 submatrix_index, AccessType access_type,
    CommandAttributes *ca) const {
  if (submatrix_index == 0) return;
  NNET3_ASSERT(submatrix_index > 0 &&
               static_cast<size_t>(submatrix_index) <
                   submatrix_to_matrix_.size());
  int32 m = submatrix_to_matrix_[submatrix_index];
  bool reads = (access_type != kWriteAccess),
       writes = (access_type != kReadAccess);
  if (reads) {
    AppendVariablesForSubmatrix(submatrix_index, &ca->variables_read);
    ca->submatrices_read.push_back(submatrix_index);
    ca->matrices_read.push_back(m);
  }
  if (writes) {
    AppendVariablesForSubmatrix(submatrix_index, &ca->variables_written);
    ca->submatrices_written.push_back(submatrix_index);
    ca->matrices_written.push_back(m);
    // What is outside the submatrix survives, so at the matrix level a
    // partial write depends on the previous contents.
    if (!reads && !submatrix_is_whole_matrix_[submatrix_index])
      ca->matrices_read.push_back(m);
  }
}

NnetComputation::SubMatrixInfo ComputationVariables::GetVariableInfo(
    int32 variable) const {
  NNET3_ASSERT(variable >= 0 && variable < num_variables_);
  int32 m = variable_to_matrix_[variable],
        offset = variable - matrix_to_variable_index_[m],
        num_col_vars = static_cast<int32>(column_split_points_[m].size()) - 1,
        cv = offset % num_col_vars, rv = offset / num_col_vars;
  const std::vector<int32> &rows = row_split_points_[m],
                           &cols = column_split_points_[m];
  return NnetComputation::SubMatrixInfo(m, rows[rv], rows[rv + 1] - rows[rv],
                                        cols[cv], cols[cv + 1] - cols[cv]);
}

std::string ComputationVariables::DescribeVariable(int32 variable) const {
  NnetComputation::SubMatrixInfo info = GetVariableInfo(variable);
  int32 m = info.matrix_index;
  bool rows_split = row_split_points_[m].size() > 2,
       cols_split = column_split_points_[m].size() > 2;
  std::ostringstream os;
  os << 'm' << m;
  if (rows_split || cols_split) {
    os << '(';
    if (rows_split)
      os << info.row_offset << ':' << info.row_offset + info.num_rows - 1;
    else
      os << ':';
    os << ", ";
    if (cols_split)
      os << info.col_offset << ':' << info.col_offset + info.num_cols - 1;
    else
      os << ':';
    os << ')';
  }
  return os.str();
}

// ---------------------------------------------------------------------------
// Command attributes and accesses

void ComputeCommandAttributes(const Nnet &nnet,
                              const NnetComputation &computation,
                              const ComputationVariables &vars,
                              std::vector<CommandAttributes> *attributes) {
  int32 num_commands = static_cast<int32>(computation.commands.size());
  attributes->clear();
  attributes->resize(num_commands);
  std::vector<int32> multi;
  for (int32 ci = 0; ci < num_commands; ci++) {
    const NnetComputation::Command &c = computation.commands[ci];
    CommandAttributes &attr = (*attributes)[ci];
    switch (c.command_type) {
      case kAllocMatrix:
      case kDeallocMatrix:
      case kSwapMatrix:
        // Sizing only: the contents are undefined (or moved), nothing is
        // read or written.
        break;
      case kSetConst:
        vars.RecordAccessForSubmatrix(c.arg1, kWriteAccess, &attr);
        break;
      case kPropagate: {
        int32 props = nnet.GetComponent(c.arg1)->Properties();
        vars.RecordAccessForSubmatrix(c.arg3, kReadAccess, &attr);
        vars.RecordAccessForSubmatrix(
            c.arg4, (props & kPropagateAdds) ? kReadWriteAccess : kWriteAccess,
            &attr);
        break;
      }
      case kBackprop:
      case kBackpropNoModelUpdate: {
        int32 props = nnet.GetComponent(c.arg1)->Properties();
        vars.RecordAccessForSubmatrix(c.arg3, kReadAccess, &attr);
        vars.RecordAccessForSubmatrix(c.arg4, kReadAccess, &attr);
        vars.RecordAccessForSubmatrix(c.arg5, kReadAccess, &attr);
        vars.RecordAccessForSubmatrix(
            c.arg6, (props & kBackpropAdds) ? kReadWriteAccess : kWriteAccess,
            &attr);
        if (c.command_type == kBackprop && (props & kUpdatableComponent))
          attr.has_side_effects = true;
        break;
      }
      case kMatrixCopy:
        vars.RecordAccessForSubmatrix(c.arg1, kWriteAccess, &attr);
        vars.RecordAccessForSubmatrix(c.arg2, kReadAccess, &attr);
        break;
      case kMatrixAdd:
      case kAddRows:
      case kAddRowRanges:
        vars.RecordAccessForSubmatrix(c.arg1, kReadWriteAccess, &attr);
        vars.RecordAccessForSubmatrix(c.arg2, kReadAccess, &attr);
        break;
      case kCopyRows: {
        // Rows with index -1 keep their old value, so the result then
        // depends on the previous contents.
        const std::vector<int32> &idx = computation.indexes[c.arg3];
        bool has_skip = std::find(idx.begin(), idx.end(), -1) != idx.end();
        vars.RecordAccessForSubmatrix(
            c.arg1, has_skip ? kReadWriteAccess : kWriteAccess, &attr);
        vars.RecordAccessForSubmatrix(c.arg2, kReadAccess, &attr);
        break;
      }
      case kAddRowsMulti:
      case kCopyRowsMulti:
        // kCopyRowsMulti zeroes rows without a source, so it is a pure
        // write of its destination.
        vars.RecordAccessForSubmatrix(
            c.arg1,
            c.command_type == kAddRowsMulti ? kReadWriteAccess : kWriteAccess,
            &attr);
        SubmatricesOfMulti(computation.indexes_multi[c.arg2], &multi);
        for (int32 s : multi)
          vars.RecordAccessForSubmatrix(s, kReadAccess, &attr);
        break;
      case kAddToRowsMulti:
      case kCopyToRowsMulti:
        // The destinations are only partly covered in general, so even the
        // copy counts as read-write.
        vars.RecordAccessForSubmatrix(c.arg1, kReadAccess, &attr);
        SubmatricesOfMulti(computation.indexes_multi[c.arg2], &multi);
        for (int32 s : multi)
          vars.RecordAccessForSubmatrix(s, kReadWriteAccess, &attr);
        break;
      case kCompressMatrix:
        vars.RecordAccessForSubmatrix(c.arg1, kReadWriteAccess, &attr);
        break;
      case kDecompressMatrix:
        vars.RecordAccessForSubmatrix(c.arg1, kWriteAccess, &attr);
        break;
      case kAcceptInput:
        vars.RecordAccessForSubmatrix(c.arg1, kWriteAccess, &attr);
        break;
      case kProvideOutput:
        vars.RecordAccessForSubmatrix(c.arg1, kReadAccess, &attr);
        break;
      case kNoOperation:
      case kNoOperationPermanent:
      case kNoOperationMarker:
      case kNoOperationLabel:
      case kGotoLabel:
        break;
      default:
        NNET3_ERR << "command " << DescribeCommand(computation, ci)
                  << ": unknown command type "
                  << static_cast<int>(c.command_type);
    }
    SortUnique(&attr.variables_read);
    SortUnique(&attr.variables_written);
    SortUnique(&attr.submatrices_read);
    SortUnique(&attr.submatrices_written);
    SortUnique(&attr.matrices_read);
    SortUnique(&attr.matrices_written);
  }
}

void ComputeVariableAccesses(
    const ComputationVariables &variables,
    const std::vector<CommandAttributes> &command_attributes,
    std::vector<std::vector<Access> > *variable_accesses) {
  variable_accesses->clear();
  variable_accesses->resize(variables.NumVariables());
  std::vector<std::pair<int32, AccessType> > merged;
  for (size_t c = 0; c < command_attributes.size(); c++) {
    const CommandAttributes &attr = command_attributes[c];
    Consolidate(attr.variables_read, attr.variables_written, &merged);
    for (const std::pair<int32, AccessType> &p : merged)
      (*variable_accesses)[p.first].push_back(
          Access(static_cast<int32>(c), p.second));
  }
}

void ComputeMatrixAccesses(
    const Nnet &nnet, const NnetComputation &computation,
    const ComputationVariables &variables,
    const std::vector<CommandAttributes> &command_attributes,
    std::vector<MatrixAccesses> *matrix_accesses) {
  (void)nnet;
  (void)variables;
  int32 num_matrices = static_cast<int32>(computation.matrices.size()),
        num_commands = static_cast<int32>(command_attributes.size());
  NNET3_ASSERT(static_cast<size_t>(num_commands) ==
               computation.commands.size());
  matrix_accesses->clear();
  matrix_accesses->resize(num_matrices);
  std::vector<std::pair<int32, AccessType> > merged;
  for (int32 ci = 0; ci < num_commands; ci++) {
    const CommandAttributes &attr = command_attributes[ci];
    Consolidate(attr.matrices_read, attr.matrices_written, &merged);
    for (const std::pair<int32, AccessType> &p : merged)
      (*matrix_accesses)[p.first].accesses.push_back(Access(ci, p.second));

    const NnetComputation::Command &c = computation.commands[ci];
    CommandType t = c.command_type;
    if (t != kAllocMatrix && t != kDeallocMatrix && t != kSwapMatrix &&
        t != kAcceptInput && t != kProvideOutput)
      continue;
    // The matrix of a submatrix argument that must be a whole matrix.
    auto whole_matrix = [&](int32 s) -> int32 {
      if (s < 1 || static_cast<size_t>(s) >= computation.submatrices.size() ||
          !computation.IsWholeMatrix(s))
        NNET3_ERR << "command " << DescribeCommand(computation, ci)
                  << ": submatrix " << s << " is not a whole matrix";
      return computation.submatrices[s].matrix_index;
    };
    auto allocate = [&](int32 m) {
      MatrixAccesses &ma = (*matrix_accesses)[m];
      if (ma.allocate_command != -1)
        NNET3_ERR << "command " << DescribeCommand(computation, ci)
                  << ": matrix m" << m << " is allocated twice (first by "
                  << DescribeCommand(computation, ma.allocate_command) << ")";
      ma.allocate_command = ci;
    };
    auto deallocate = [&](int32 m) {
      MatrixAccesses &ma = (*matrix_accesses)[m];
      if (ma.deallocate_command != -1)
        NNET3_ERR << "command " << DescribeCommand(computation, ci)
                  << ": matrix m" << m << " is deallocated twice (first by "
                  << DescribeCommand(computation, ma.deallocate_command)
                  << ")";
      ma.deallocate_command = ci;
    };
    switch (t) {
      case kAllocMatrix:
        allocate(whole_matrix(c.arg1));
        break;
      case kDeallocMatrix:
        deallocate(whole_matrix(c.arg1));
        break;
      case kSwapMatrix:
        // arg1 takes over the data of arg2: it begins its life here and
        // arg2 ends its.
        allocate(whole_matrix(c.arg1));
        deallocate(whole_matrix(c.arg2));
        break;
      case kAcceptInput: {
        MatrixAccesses &ma = (*matrix_accesses)[whole_matrix(c.arg1)];
        ma.is_input = true;
        // Accepting the same matrix again just replaces it; the first
        // acceptance is the allocation.
        if (ma.allocate_command == -1) ma.allocate_command = ci;
        break;
      }
      case kProvideOutput:
        (*matrix_accesses)[whole_matrix(c.arg1)].is_output = true;
        break;
      default:
        break;
    }
  }
}

void Analyzer::Init(const Nnet &nnet, const NnetComputation &computation) {
  variables.Init(computation);
  ComputeCommandAttributes(nnet, computation, variables, &command_attributes);
  ComputeVariableAccesses(variables, command_attributes, &variable_accesses);
  ComputeMatrixAccesses(nnet, computation, variables, command_attributes,
                        &matrix_accesses);
}

// ---------------------------------------------------------------------------
// ComputationAnalysis

bool ComputationAnalysis::IsZeroing(int32 command_index) const {
  const NnetComputation::Command &c = computation_.commands[command_index];
  return c.command_type == kSetConst && c.alpha == 0.0;
}

int32 ComputationAnalysis::FirstNontrivialAccess(int32 s) const {
  NNET3_ASSERT(s > 0 &&
               static_cast<size_t>(s) < computation_.submatrices.size());
  int32 ans = static_cast<int32>(computation_.commands.size());
  std::vector<int32> vars;
  analyzer_.variables.AppendVariablesForSubmatrix(s, &vars);
  for (int32 v : vars) {
    for (const Access &a : analyzer_.variable_accesses[v]) {
      if (a.command_index >= ans) break;
      if (!IsZeroing(a.command_index)) {
        ans = a.command_index;
        break;
      }
    }
  }
  return ans;
}

int32 ComputationAnalysis::FirstAccess(int32 s) const {
  NNET3_ASSERT(s > 0 &&
               static_cast<size_t>(s) < computation_.submatrices.size());
  int32 ans = static_cast<int32>(computation_.commands.size());
  std::vector<int32> vars;
  analyzer_.variables.AppendVariablesForSubmatrix(s, &vars);
  for (int32 v : vars) {
    const std::vector<Access> &acc = analyzer_.variable_accesses[v];
    if (!acc.empty()) ans = std::min(ans, acc.front().command_index);
  }
  return ans;
}

int32 ComputationAnalysis::LastAccess(int32 s) const {
  NNET3_ASSERT(s > 0 &&
               static_cast<size_t>(s) < computation_.submatrices.size());
  int32 ans = -1;
  std::vector<int32> vars;
  analyzer_.variables.AppendVariablesForSubmatrix(s, &vars);
  for (int32 v : vars) {
    const std::vector<Access> &acc = analyzer_.variable_accesses[v];
    if (!acc.empty()) ans = std::max(ans, acc.back().command_index);
  }
  return ans;
}

int32 ComputationAnalysis::LastWriteAccess(int32 s) const {
  NNET3_ASSERT(s > 0 &&
               static_cast<size_t>(s) < computation_.submatrices.size());
  int32 m = computation_.submatrices[s].matrix_index;
  // The user may read an output after the computation; treat that as if it
  // were still being written at the end.
  if (analyzer_.matrix_accesses[m].is_output)
    return static_cast<int32>(computation_.commands.size());
  int32 ans = -1;
  std::vector<int32> vars;
  analyzer_.variables.AppendVariablesForSubmatrix(s, &vars);
  for (int32 v : vars) {
    const std::vector<Access> &acc = analyzer_.variable_accesses[v];
    for (std::vector<Access>::const_reverse_iterator it = acc.rbegin();
         it != acc.rend(); ++it) {
      if (it->command_index <= ans) break;
      if (it->access_type != kReadAccess) {
        ans = it->command_index;
        break;
      }
    }
  }
  return ans;
}

int32 ComputationAnalysis::DataInvalidatedCommand(int32 c, int32 s) const {
  NNET3_ASSERT(c >= 0 &&
               static_cast<size_t>(c) < computation_.commands.size());
  NNET3_ASSERT(s > 0 &&
               static_cast<size_t>(s) < computation_.submatrices.size());
  int32 m = computation_.submatrices[s].matrix_index;
  int32 ans = analyzer_.matrix_accesses[m].deallocate_command;
  if (ans == -1) ans = static_cast<int32>(computation_.commands.size());
  std::vector<int32> vars;
  analyzer_.variables.AppendVariablesForSubmatrix(s, &vars);
  for (int32 v : vars) {
    for (const Access &a : analyzer_.variable_accesses[v]) {
      if (a.command_index >= ans) break;
      if (a.command_index > c && a.access_type != kReadAccess) {
        ans = a.command_index;
        break;
      }
    }
  }
  return ans;
}

int32 ComputationAnalysis::FirstNontrivialMatrixAccess(int32 m) const {
  NNET3_ASSERT(m > 0 && static_cast<size_t>(m) < computation_.matrices.size());
  for (const Access &a : analyzer_.matrix_accesses[m].accesses)
    if (!IsZeroing(a.command_index)) return a.command_index;
  return static_cast<int32>(computation_.commands.size());
}

int32 ComputationAnalysis::LastMatrixAccess(int32 m) const {
  NNET3_ASSERT(m > 0 && static_cast<size_t>(m) < computation_.matrices.size());
  const std::vector<Access> &acc = analyzer_.matrix_accesses[m].accesses;
  return acc.empty() ? -1 : acc.back().command_index;
}

// ---------------------------------------------------------------------------
// Helpers

void GetMemoryProfile(const NnetComputation &computation,
                      std::vector<int64> *usage) {
  int64 cur = 0;
  int32 num_submatrices = static_cast<int32>(computation.submatrices.size());
  // Compressed size of each (whole-matrix) submatrix while it is compressed;
  // kDecompressMatrix does not say which type was used.
  std::vector<int64> compressed_bytes(num_submatrices, 0);
  usage->clear();
  usage->reserve(computation.commands.size());
  for (const NnetComputation::Command &c : computation.commands) {
    if (c.arg1 >= 0 && c.arg1 < num_submatrices) {
      const NnetComputation::SubMatrixInfo &info =
          computation.submatrices[c.arg1];
      int64 elements = static_cast<int64>(info.num_rows) * info.num_cols,
            bytes = static_cast<int64>(sizeof(BaseFloat)) * elements;
      switch (c.command_type) {
        case kAllocMatrix:
        case kAcceptInput:
          cur += bytes;
          break;
        case kDeallocMatrix:
          cur -= bytes;
          break;
        case kCompressMatrix: {
          int64 per = (c.arg2 == 1 || c.arg2 == 2) ? 1 : 2;
          compressed_bytes[c.arg1] = per * elements;
          cur += compressed_bytes[c.arg1] - bytes;
          break;
        }
        case kDecompressMatrix:
          cur += bytes - compressed_bytes[c.arg1];
          break;
        default:
          break;
      }
    }
    NNET3_ASSERT(cur >= 0);
    usage->push_back(cur);
  }
}

int64 GetMaxMemoryUse(const NnetComputation &computation) {
  std::vector<int64> usage;
  GetMemoryProfile(computation, &usage);
  int64 peak = 0;
  for (int64 u : usage) peak = std::max(peak, u);
  return peak;
}

void GetCommandsOfType(const NnetComputation &computation, CommandType t,
                       std::vector<int32> *command_indexes) {
  command_indexes->clear();
  for (size_t c = 0; c < computation.commands.size(); c++)
    if (computation.commands[c].command_type == t)
      command_indexes->push_back(static_cast<int32>(c));
}

void ComputeMatrixToSubmatrix(
    const NnetComputation &computation,
    std::vector<std::vector<int32> > *mat_to_submat) {
  int32 num_matrices = static_cast<int32>(computation.matrices.size());
  mat_to_submat->clear();
  mat_to_submat->resize(num_matrices);
  for (size_t s = 1; s < computation.submatrices.size(); s++) {
    int32 m = computation.submatrices[s].matrix_index;
    NNET3_ASSERT(m > 0 && m < num_matrices);
    (*mat_to_submat)[m].push_back(static_cast<int32>(s));
  }
}

}  // namespace nnet3
