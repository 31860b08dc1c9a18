// nnet3/analyze/checker.cc
// The ComputationChecker (see checker.h). The index checks run first and
// guarantee that the analysis (analyze.cc) only sees in-range indexes.
#include "nnet3/analyze/checker.h"

#include <algorithm>
#include <sstream>

#include "base/log.h"

namespace nnet3 {

ComputationChecker::ComputationChecker(const CheckComputationOptions &config,
                                       const Nnet &nnet,
                                       const NnetComputation &computation)
    : config_(config), nnet_(nnet), computation_(computation) {}

void ComputationChecker::Check() {
  CheckComputationIndexes();
  CheckComputationOrder();
  a_.Init(nnet_, computation_);
  CheckComputationMatrixAccesses();
  CheckComputationCompression();
  CheckComputationUndefined();
  CheckComputationDebugInfo();
  if (config_.check_rewrite) CheckComputationRewrite();
}

std::string ComputationChecker::Where(int32 command_index) const {
  return "command " + DescribeCommand(computation_, command_index) + ": ";
}

namespace {

// "submatrix 5 (m2, rows 0..3 of 10, cols 0..9 of 10)"
std::string DescribeSubmatrix(const NnetComputation &computation, int32 s) {
  std::ostringstream os;
  os << "submatrix " << s;
  if (s > 0 && static_cast<size_t>(s) < computation.submatrices.size()) {
    const NnetComputation::SubMatrixInfo &i = computation.submatrices[s];
    os << " (m" << i.matrix_index << ", " << i.num_rows << " x " << i.num_cols
       << " at row " << i.row_offset << ", col " << i.col_offset << ")";
  }
  return os.str();
}

}  // namespace

// ---------------------------------------------------------------------------
// Indexes and dimensions

void ComputationChecker::CheckComputationIndexes() const {
  const std::vector<NnetComputation::SubMatrixInfo> &subs =
      computation_.submatrices;
  int32 num_matrices = static_cast<int32>(computation_.matrices.size());
  if (subs.empty() || num_matrices == 0)
    NNET3_ERR << "computation has no empty matrix/submatrix 0";
  if (!(subs[0] == NnetComputation::SubMatrixInfo()))
    NNET3_ERR << "submatrix 0 is not the empty submatrix";
  for (size_t s = 1; s < subs.size(); s++) {
    const NnetComputation::SubMatrixInfo &i = subs[s];
    if (i.matrix_index < 1 || i.matrix_index >= num_matrices)
      NNET3_ERR << "submatrix " << s << " names matrix " << i.matrix_index
                << ", out of range (" << num_matrices << " matrices)";
    const NnetComputation::MatrixInfo &m = computation_.matrices[i.matrix_index];
    if (i.row_offset < 0 || i.num_rows < 1 || i.col_offset < 0 ||
        i.num_cols < 1 || i.row_offset + i.num_rows > m.num_rows ||
        i.col_offset + i.num_cols > m.num_cols)
      NNET3_ERR << DescribeSubmatrix(computation_, static_cast<int32>(s))
                << " does not lie inside its " << m.num_rows << " x "
                << m.num_cols << " matrix";
  }
  std::map<int32, int32> memo_to_command;
  int32 num_commands = static_cast<int32>(computation_.commands.size());
  for (int32 c = 0; c < num_commands; c++)
    CheckCommandIndexes(c, &memo_to_command);
  if (!memo_to_command.empty())
    NNET3_ERR << Where(memo_to_command.begin()->second) << "memo "
              << memo_to_command.begin()->first
              << " is produced but never consumed by a backprop";
}

void ComputationChecker::CheckCommandIndexes(
    int32 ci, std::map<int32, int32> *memo_to_command) const {
  const NnetComputation::Command &c = computation_.commands[ci];
  const std::vector<NnetComputation::SubMatrixInfo> &subs =
      computation_.submatrices;
  int32 num_subs = static_cast<int32>(subs.size());
  std::string where = Where(ci);
  // A submatrix argument: 'name' for messages; 'optional' allows 0.
  auto check_sub = [&](int32 s, const char *name, bool optional) {
    if (s < (optional ? 0 : 1) || s >= num_subs)
      NNET3_ERR << where << name << " submatrix index " << s
                << " is out of range (" << num_subs << " submatrices)";
  };
  auto check_whole = [&](int32 s, const char *name) {
    check_sub(s, name, false);
    if (!computation_.IsWholeMatrix(s))
      NNET3_ERR << where << name << " "
                << DescribeSubmatrix(computation_, s)
                << " is not a whole matrix";
  };
  auto check_component = [&](int32 comp) -> const Component * {
    if (comp < 0 || comp >= nnet_.NumComponents())
      NNET3_ERR << where << "component index " << comp << " is out of range ("
                << nnet_.NumComponents() << " components)";
    return nnet_.GetComponent(comp);
  };
  // Simple components may have precomputed indexes too (Kaldi's
  // BackpropTruncationComponent keeps its zeroing pattern there).
  auto check_precomputed = [&](int32 p, int32 props) {
    (void)props;
    int32 n = static_cast<int32>(
        computation_.component_precomputed_indexes.size());
    if (p < 0 || (p > 0 && p >= n))
      NNET3_ERR << where << "precomputed-indexes index " << p
                << " is out of range";
  };
  auto cols_must_be = [&](int32 s, int32 dim, const char *what) {
    if (s != 0 && subs[s].num_cols != dim)
      NNET3_ERR << where << what << " " << DescribeSubmatrix(computation_, s)
                << " has " << subs[s].num_cols << " columns, expected "
                << dim;
  };

  switch (c.command_type) {
    case kAllocMatrix:
    case kDeallocMatrix:
    case kDecompressMatrix:
      check_whole(c.arg1, "matrix");
      break;
    case kSetConst:
      check_sub(c.arg1, "destination", false);
      break;
    case kSwapMatrix:
      check_whole(c.arg1, "first");
      check_whole(c.arg2, "second");
      if (subs[c.arg1].num_rows != subs[c.arg2].num_rows ||
          subs[c.arg1].num_cols != subs[c.arg2].num_cols)
        NNET3_ERR << where << "dimension mismatch: "
                  << DescribeSubmatrix(computation_, c.arg1) << " vs. "
                  << DescribeSubmatrix(computation_, c.arg2);
      break;
    case kPropagate: {
      const Component *comp = check_component(c.arg1);
      int32 props = comp->Properties();
      check_precomputed(c.arg2, props);
      // The input may be empty for unusual non-simple components.
      check_sub(c.arg3, "input", (props & kSimpleComponent) == 0);
      check_sub(c.arg4, "output", false);
      cols_must_be(c.arg3, comp->InputDim(), "input");
      cols_must_be(c.arg4, comp->OutputDim(), "output");
      if ((props & kSimpleComponent) &&
          subs[c.arg3].num_rows != subs[c.arg4].num_rows)
        NNET3_ERR << where << "simple component with input rows "
                  << subs[c.arg3].num_rows << " != output rows "
                  << subs[c.arg4].num_rows;
      if (c.arg3 == c.arg4 && !(props & kPropagateInPlace))
        NNET3_ERR << where << "in-place propagation ("
                  << DescribeSubmatrix(computation_, c.arg3)
                  << ") is not supported by component type " << comp->Type();
      if (c.arg5 < 0)
        NNET3_ERR << where << "negative memo index " << c.arg5;
      if (c.arg5 > 0) {
        std::map<int32, int32>::const_iterator it =
            memo_to_command->find(c.arg5);
        if (it != memo_to_command->end())
          NNET3_ERR << where << "memo index " << c.arg5
                    << " is reused (still held from command c" << it->second
                    << ")";
        (*memo_to_command)[c.arg5] = ci;
      }
      if (c.arg6 != 0 && c.arg6 != 1)
        NNET3_ERR << where << "store-stats flag (arg6) is " << c.arg6
                  << ", expected 0 or 1";
      break;
    }
    case kBackprop:
    case kBackpropNoModelUpdate: {
      const Component *comp = check_component(c.arg1);
      int32 props = comp->Properties();
      check_precomputed(c.arg2, props);
      check_sub(c.arg3, "input-value", true);
      check_sub(c.arg4, "output-value", true);
      check_sub(c.arg5, "output-deriv", false);
      check_sub(c.arg6, "input-deriv", true);
      if ((props & kBackpropNeedsInput) && c.arg3 == 0)
        NNET3_ERR << where << "component type " << comp->Type()
                  << " needs the input value but none is given";
      if ((props & kBackpropNeedsOutput) && c.arg4 == 0)
        NNET3_ERR << where << "component type " << comp->Type()
                  << " needs the output value but none is given";
      if (c.arg6 == 0 && !(props & kUpdatableComponent))
        NNET3_ERR << where
                  << "backprop has no effect (no input derivative and the "
                     "component is not updatable)";
      if (c.arg5 == c.arg6 && !(props & kBackpropInPlace))
        NNET3_ERR << where << "in-place backprop is not supported by "
                  << "component type " << comp->Type();
      cols_must_be(c.arg3, comp->InputDim(), "input-value");
      cols_must_be(c.arg4, comp->OutputDim(), "output-value");
      cols_must_be(c.arg5, comp->OutputDim(), "output-deriv");
      cols_must_be(c.arg6, comp->InputDim(), "input-deriv");
      if (c.arg3 != 0 && c.arg6 != 0 &&
          subs[c.arg3].num_rows != subs[c.arg6].num_rows)
        NNET3_ERR << where << "input-value rows " << subs[c.arg3].num_rows
                  << " != input-deriv rows " << subs[c.arg6].num_rows;
      if (c.arg4 != 0 && subs[c.arg4].num_rows != subs[c.arg5].num_rows)
        NNET3_ERR << where << "output-value rows " << subs[c.arg4].num_rows
                  << " != output-deriv rows " << subs[c.arg5].num_rows;
      if ((props & kSimpleComponent) && c.arg6 != 0 &&
          subs[c.arg5].num_rows != subs[c.arg6].num_rows)
        NNET3_ERR << where << "simple component with output-deriv rows "
                  << subs[c.arg5].num_rows << " != input-deriv rows "
                  << subs[c.arg6].num_rows;
      if (c.arg7 < 0)
        NNET3_ERR << where << "negative memo index " << c.arg7;
      if (c.arg7 > 0) {
        std::map<int32, int32>::iterator it = memo_to_command->find(c.arg7);
        if (it == memo_to_command->end())
          NNET3_ERR << where << "memo index " << c.arg7
                    << " was not produced by an earlier propagate";
        int32 prop = it->second;
        memo_to_command->erase(it);
        if (computation_.commands[prop].arg1 != c.arg1)
          NNET3_ERR << where << "memo index " << c.arg7
                    << " was produced by command c" << prop
                    << " for a different component";
        if (!(props & kUsesMemo))
          NNET3_ERR << where << "component type " << comp->Type()
                    << " does not use a memo, but memo index " << c.arg7
                    << " is given";
      }
      break;
    }
    case kMatrixCopy:
    case kMatrixAdd:
      check_sub(c.arg1, "destination", false);
      check_sub(c.arg2, "source", false);
      if (subs[c.arg1].num_rows != subs[c.arg2].num_rows ||
          subs[c.arg1].num_cols != subs[c.arg2].num_cols)
        NNET3_ERR << where << "dimension mismatch: destination "
                  << DescribeSubmatrix(computation_, c.arg1) << " vs. source "
                  << DescribeSubmatrix(computation_, c.arg2);
      // Copying onto itself with alpha != 1 is how scaling is written.
      if (c.arg1 == c.arg2 &&
          !(c.command_type == kMatrixCopy && c.alpha != 1.0))
        NNET3_ERR << where << "adding/copying "
                  << DescribeSubmatrix(computation_, c.arg1) << " to itself";
      break;
    case kCopyRows:
    case kAddRows: {
      check_sub(c.arg1, "destination", false);
      check_sub(c.arg2, "source", false);
      if (c.arg3 < 0 ||
          static_cast<size_t>(c.arg3) >= computation_.indexes.size())
        NNET3_ERR << where << "indexes index " << c.arg3 << " is out of range";
      const std::vector<int32> &idx = computation_.indexes[c.arg3];
      if (idx.size() != static_cast<size_t>(subs[c.arg1].num_rows))
        NNET3_ERR << where << "index vector " << c.arg3 << " has "
                  << idx.size() << " entries but the destination has "
                  << subs[c.arg1].num_rows << " rows";
      if (subs[c.arg1].num_cols != subs[c.arg2].num_cols)
        NNET3_ERR << where << "dimension mismatch: destination has "
                  << subs[c.arg1].num_cols << " columns, source "
                  << subs[c.arg2].num_cols;
      for (size_t r = 0; r < idx.size(); r++)
        if (idx[r] < -1 || idx[r] >= subs[c.arg2].num_rows)
          NNET3_ERR << where << "row index " << idx[r] << " (entry " << r
                    << " of index vector " << c.arg3
                    << ") is out of range for the source's "
                    << subs[c.arg2].num_rows << " rows";
      if (c.arg1 == c.arg2)
        NNET3_ERR << where << "copying rows of "
                  << DescribeSubmatrix(computation_, c.arg1) << " to itself";
      break;
    }
    case kAddRowsMulti:
    case kCopyRowsMulti:
    case kAddToRowsMulti:
    case kCopyToRowsMulti: {
      check_sub(c.arg1, "", false);
      if (c.arg2 < 0 ||
          static_cast<size_t>(c.arg2) >= computation_.indexes_multi.size())
        NNET3_ERR << where << "indexes_multi index " << c.arg2
                  << " is out of range";
      const std::vector<std::pair<int32, int32> > &pairs =
          computation_.indexes_multi[c.arg2];
      int32 num_rows = subs[c.arg1].num_rows, num_cols = subs[c.arg1].num_cols;
      if (pairs.size() != static_cast<size_t>(num_rows))
        NNET3_ERR << where << "indexes_multi " << c.arg2 << " has "
                  << pairs.size() << " entries but the submatrix has "
                  << num_rows << " rows";
      for (size_t r = 0; r < pairs.size(); r++) {
        int32 s = pairs[r].first, row = pairs[r].second;
        if (s == -1) {
          if (row != -1)
            NNET3_ERR << where << "entry " << r << " of indexes_multi "
                      << c.arg2 << " is (-1, " << row << "), expected (-1, -1)";
          continue;
        }
        if (s < 1 || s >= num_subs)
          NNET3_ERR << where << "entry " << r << " of indexes_multi "
                    << c.arg2 << " names submatrix " << s
                    << ", out of range";
        if (row < 0 || row >= subs[s].num_rows)
          NNET3_ERR << where << "entry " << r << " of indexes_multi "
                    << c.arg2 << " names row " << row << " of "
                    << DescribeSubmatrix(computation_, s) << ", out of range";
        if (s == c.arg1)
          NNET3_ERR << where << "entry " << r << " of indexes_multi "
                    << c.arg2 << " names the command's own submatrix";
        if (subs[s].num_cols != num_cols)
          NNET3_ERR << where << "entry " << r << " of indexes_multi "
                    << c.arg2 << " names " << DescribeSubmatrix(computation_, s)
                    << " with " << subs[s].num_cols << " columns, expected "
                    << num_cols;
      }
      if (c.command_type == kAddToRowsMulti ||
          c.command_type == kCopyToRowsMulti) {
        // Each destination row may be named once only.
        std::vector<std::pair<int32, int32> > sorted(pairs);
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 1; i < sorted.size(); i++)
          if (sorted[i].first != -1 && sorted[i] == sorted[i - 1])
            NNET3_ERR << where << "indexes_multi " << c.arg2
                      << " names (submatrix " << sorted[i].first << ", row "
                      << sorted[i].second << ") twice";
      }
      break;
    }
    case kAddRowRanges: {
      check_sub(c.arg1, "destination", false);
      check_sub(c.arg2, "source", false);
      if (c.arg3 < 0 ||
          static_cast<size_t>(c.arg3) >= computation_.indexes_ranges.size())
        NNET3_ERR << where << "indexes_ranges index " << c.arg3
                  << " is out of range";
      const std::vector<std::pair<int32, int32> > &ranges =
          computation_.indexes_ranges[c.arg3];
      if (ranges.size() != static_cast<size_t>(subs[c.arg1].num_rows))
        NNET3_ERR << where << "indexes_ranges " << c.arg3 << " has "
                  << ranges.size() << " entries but the destination has "
                  << subs[c.arg1].num_rows << " rows";
      if (subs[c.arg1].num_cols != subs[c.arg2].num_cols)
        NNET3_ERR << where << "dimension mismatch: destination has "
                  << subs[c.arg1].num_cols << " columns, source "
                  << subs[c.arg2].num_cols;
      int32 src_rows = subs[c.arg2].num_rows;
      for (size_t r = 0; r < ranges.size(); r++) {
        int32 b = ranges[r].first, e = ranges[r].second;
        // (-1, -1) is Kaldi's "no rows"; our compiler writes an empty range
        // [b, b) instead, which is accepted too.
        if (!((b == -1 && e == -1) || (b >= 0 && e >= b && e <= src_rows)))
          NNET3_ERR << where << "row range (" << b << ", " << e
                    << ") (entry " << r << ") is invalid for a source of "
                    << src_rows << " rows";
      }
      break;
    }
    case kCompressMatrix:
      check_whole(c.arg1, "matrix");
      if (c.arg2 < 1 || c.arg2 > 4)
        NNET3_ERR << where << "invalid compression type " << c.arg2;
      if (c.arg3 != 0 && c.arg3 != 1)
        NNET3_ERR << where << "invalid truncate flag " << c.arg3;
      if (c.alpha < 0.0 || c.alpha > 1000.0 || (c.alpha == 0.0 && c.arg2 != 2))
        NNET3_ERR << where << "invalid range (alpha) " << c.alpha;
      break;
    case kAcceptInput:
    case kProvideOutput: {
      check_whole(c.arg1, "matrix");
      if (c.arg2 < 0 || c.arg2 >= nnet_.NumNodes())
        NNET3_ERR << where << "node index " << c.arg2 << " is out of range";
      // Input nodes take values in and give derivatives out; output nodes
      // give values out and take derivatives in.
      int32 dim = -1;
      const std::string &name = nnet_.GetNodeName(c.arg2);
      if (nnet_.IsInputNode(c.arg2))
        dim = nnet_.InputDim(name);
      else if (nnet_.IsOutputNode(c.arg2))
        dim = nnet_.OutputDim(name);
      else
        NNET3_ERR << where << "node '" << name
                  << "' is neither an input nor an output node";
      if (subs[c.arg1].num_cols != dim)
        NNET3_ERR << where << "matrix m" << subs[c.arg1].matrix_index
                  << " has " << subs[c.arg1].num_cols
                  << " columns but node '" << name << "' has dim " << dim;
      break;
    }
    case kNoOperation:
    case kNoOperationPermanent:
    case kNoOperationMarker:
    case kNoOperationLabel:
      break;
    case kGotoLabel: {
      int32 label = c.arg1;
      if (label < 0 || label >= ci ||
          computation_.commands[label].command_type != kNoOperationLabel)
        NNET3_ERR << where << "destination " << label
                  << " is not an earlier kNoOperationLabel";
      if (ci + 1 != static_cast<int32>(computation_.commands.size()))
        NNET3_ERR << where << "kGotoLabel is not the last command";
      break;
    }
    default:
      NNET3_ERR << where << "unknown command type "
                << static_cast<int>(c.command_type);
  }
}

// ---------------------------------------------------------------------------
// Order of forward and backward commands

void ComputationChecker::CheckComputationOrder() const {
  int32 num_commands = static_cast<int32>(computation_.commands.size());
  int32 first_marker = -1, last_marker = -1;
  for (int32 c = 0; c < num_commands; c++) {
    if (computation_.commands[c].command_type == kNoOperationMarker) {
      if (first_marker == -1) first_marker = c;
      last_marker = c;
    }
  }
  for (int32 c = 0; c < num_commands; c++) {
    CommandType t = computation_.commands[c].command_type;
    if ((t == kBackprop || t == kBackpropNoModelUpdate) &&
        (first_marker == -1 || c < first_marker))
      NNET3_ERR << Where(c)
                << "backprop before the kNoOperationMarker that ends the "
                   "forward pass"
                << (first_marker == -1 ? " (there is no marker)" : "");
    if (t == kPropagate && last_marker != -1 && c > last_marker)
      NNET3_ERR << Where(c) << "propagate after the last kNoOperationMarker (c"
                << last_marker << ")";
  }
}

// ---------------------------------------------------------------------------
// Allocation and lifetime of matrices

void ComputationChecker::CheckComputationMatrixAccesses() const {
  bool looped = !computation_.commands.empty() &&
                computation_.commands.back().command_type == kGotoLabel;
  int32 num_matrices = static_cast<int32>(a_.matrix_accesses.size());
  for (int32 m = 1; m < num_matrices; m++) {
    const MatrixAccesses &ma = a_.matrix_accesses[m];
    if (ma.allocate_command == -1) {
      if (!ma.accesses.empty())
        NNET3_ERR << Where(ma.accesses.front().command_index) << "matrix m"
                  << m << " is accessed but never allocated";
      NNET3_ERR << "matrix m" << m << " is never allocated";
    }
    if (ma.is_input &&
        computation_.commands[ma.allocate_command].command_type == kAllocMatrix)
      NNET3_ERR << Where(ma.allocate_command) << "matrix m" << m
                << " is an input (filled by kAcceptInput) but is allocated "
                   "by kAllocMatrix";
    if (ma.deallocate_command != -1 &&
        ma.deallocate_command < ma.allocate_command)
      NNET3_ERR << Where(ma.deallocate_command) << "matrix m" << m
                << " is deallocated before it is allocated (by c"
                << ma.allocate_command << ")";
    if (ma.is_output && ma.deallocate_command != -1 && !looped)
      NNET3_ERR << Where(ma.deallocate_command) << "matrix m" << m
                << " is an output (given by kProvideOutput) but is "
                   "deallocated";
    if (ma.accesses.empty()) {
      // An input may go unused (e.g. an output derivative nobody needs).
      if (!ma.is_input)
        NNET3_ERR << "matrix m" << m << " is never accessed";
      continue;
    }
    if (ma.accesses.front().command_index < ma.allocate_command)
      NNET3_ERR << Where(ma.accesses.front().command_index) << "matrix m" << m
                << " is accessed before it is allocated (by c"
                << ma.allocate_command << ")";
    if (ma.deallocate_command != -1 &&
        ma.accesses.back().command_index >= ma.deallocate_command) {
      int32 bad = -1;
      for (const Access &acc : ma.accesses) {
        if (acc.command_index >= ma.deallocate_command) {
          bad = acc.command_index;
          break;
        }
      }
      NNET3_ERR << Where(bad) << "matrix m" << m
                << " is accessed after it is deallocated (by "
                << DescribeCommand(computation_, ma.deallocate_command) << ")";
    }
  }
}

void ComputationChecker::CheckComputationCompression() const {
  int32 num_commands = static_cast<int32>(computation_.commands.size());
  int32 marker = -1;
  for (int32 c = 0; c < num_commands; c++) {
    if (computation_.commands[c].command_type == kNoOperationMarker) {
      marker = c;
      break;
    }
  }
  int32 num_matrices = static_cast<int32>(a_.matrix_accesses.size());
  for (int32 m = 1; m < num_matrices; m++) {
    const std::vector<Access> &acc = a_.matrix_accesses[m].accesses;
    int32 n = static_cast<int32>(acc.size());
    for (int32 i = 0; i < n; i++) {
      int32 ci = acc[i].command_index;
      const NnetComputation::Command &c = computation_.commands[ci];
      if (c.command_type == kDecompressMatrix &&
          (i == 0 ||
           computation_.commands[acc[i - 1].command_index].command_type !=
               kCompressMatrix))
        NNET3_ERR << Where(ci) << "matrix m" << m
                  << " is decompressed without being compressed just before";
      if (c.command_type != kCompressMatrix) continue;
      if (i + 1 >= n ||
          computation_.commands[acc[i + 1].command_index].command_type !=
              kDecompressMatrix)
        NNET3_ERR << Where(ci) << "matrix m" << m
                  << " is compressed but its next access is not a "
                     "decompression";
      int32 next = acc[i + 1].command_index;
      if (marker == -1 || ci > marker || next < marker)
        NNET3_ERR << Where(ci) << "matrix m" << m
                  << " must be compressed in the forward pass and "
                     "decompressed (here by c"
                  << next << ") in the backward pass";
      if (c.alpha == 0.0) {
        // Keeping only the sign is for the output of a ReLU, whose
        // backprop is the only other use.
        bool ok = i > 0 && n == i + 3;
        if (ok) {
          const NnetComputation::Command &b =
              computation_.commands[acc[i + 2].command_index];
          ok = b.command_type == kBackprop || b.command_type ==
                                                  kBackpropNoModelUpdate;
          ok = ok && nnet_.GetComponent(b.arg1)->Type() ==
                         "RectifiedLinearComponent";
        }
        if (!ok)
          NNET3_ERR << Where(ci) << "sign-only compression of matrix m" << m
                    << " must be followed only by a decompression and a "
                       "RectifiedLinearComponent backprop";
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Variables: read before written, unused, rewritten after being read

void ComputationChecker::CheckComputationUndefined() const {
  // Matrices that ExtendMatrices() grows have unused variables in their
  // last rows; this must not exceed that pass's proportion.
  const double min_proportion = 0.8;
  int32 num_variables = static_cast<int32>(a_.variable_accesses.size());
  for (int32 v = 0; v < num_variables; v++) {
    const std::vector<Access> &acc = a_.variable_accesses[v];
    if (acc.empty()) {
      if (!config_.check_unused_variables) continue;
      NnetComputation::SubMatrixInfo info = a_.variables.GetVariableInfo(v);
      const NnetComputation::MatrixInfo &mi =
          computation_.matrices[info.matrix_index];
      if (info.row_offset >= min_proportion * mi.num_rows &&
          !(info.col_offset == 0 && info.num_cols == mi.num_cols))
        continue;
      NNET3_ERR << "variable " << a_.variables.DescribeVariable(v)
                << " is never used";
    }
    int32 first = acc.front().command_index;
    // Compressing a partly undefined matrix is allowed: the undefined part
    // is not expected to be used after decompression.
    if (acc.front().access_type != kWriteAccess &&
        computation_.commands[first].command_type != kCompressMatrix)
      NNET3_ERR << Where(first) << "variable "
                << a_.variables.DescribeVariable(v)
                << " is read before it is written";
  }
}

void ComputationChecker::CheckComputationRewrite() const {
  int32 num_variables = static_cast<int32>(a_.variable_accesses.size());
  for (int32 v = 0; v < num_variables; v++) {
    const std::vector<Access> &acc = a_.variable_accesses[v];
    if (acc.empty()) {
      if (config_.check_unused_variables)
        NNET3_ERR << "variable " << a_.variables.DescribeVariable(v)
                  << " is never used";
      continue;
    }
    size_t first_read = acc.size();
    for (size_t i = 0; i < acc.size(); i++) {
      if (acc[i].access_type == kReadAccess) {
        first_read = i;
        break;
      }
    }
    for (size_t i = first_read + 1; i < acc.size(); i++)
      if (acc[i].access_type != kReadAccess)
        NNET3_ERR << Where(acc[i].command_index) << "variable "
                  << a_.variables.DescribeVariable(v)
                  << " is written after being read by "
                  << DescribeCommand(computation_,
                                     acc[first_read].command_index)
                  << " (not expected before optimization)";
  }
}

// ---------------------------------------------------------------------------
// Debug info

void ComputationChecker::CheckComputationDebugInfo() const {
  const std::vector<NnetComputation::MatrixDebugInfo> &info =
      computation_.matrix_debug_info;
  if (info.empty()) return;
  if (info.size() != computation_.matrices.size())
    NNET3_ERR << "matrix_debug_info has " << info.size() << " entries for "
              << computation_.matrices.size() << " matrices";
  for (size_t m = 1; m < info.size(); m++) {
    if (info[m].cindexes.size() !=
        static_cast<size_t>(computation_.matrices[m].num_rows))
      NNET3_ERR << "debug info of matrix m" << m << " has "
                << info[m].cindexes.size() << " cindexes for "
                << computation_.matrices[m].num_rows << " rows";
    for (const Cindex &cindex : info[m].cindexes)
      if (cindex.second.n < 0)
        NNET3_ERR << "debug info of matrix m" << m
                  << " has a negative n index";
  }
}

// ---------------------------------------------------------------------------

void CheckComputation(const Nnet &nnet, const NnetComputation &computation,
                      bool check_rewrite) {
  CheckComputationOptions opts;
  opts.check_rewrite = check_rewrite;
  if (computation.commands.empty() ||
      computation.commands.back().command_type != kGotoLabel) {
    ComputationChecker checker(opts, nnet, computation);
    checker.Check();
    return;
  }
  // A looped computation: the swaps just before the kGotoLabel hand each
  // matrix's data to its counterpart for the next iteration. Read as
  // "deallocate the second matrix", so no matrix looks allocated twice.
  NnetComputation copy(computation);
  for (int32 c = static_cast<int32>(copy.commands.size()) - 2;
       c >= 0 && copy.commands[c].command_type == kSwapMatrix; c--) {
    NnetComputation::Command &cmd = copy.commands[c];
    cmd.command_type = kDeallocMatrix;
    std::swap(cmd.arg1, cmd.arg2);
  }
  opts.check_unused_variables = false;
  ComputationChecker checker(opts, nnet, copy);
  checker.Check();
}

}  // namespace nnet3
