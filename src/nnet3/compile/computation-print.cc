// nnet3/compile/computation-print.cc
// The readable listing of an NnetComputation (NnetComputation::Print and
// its parts), in the spirit of Kaldi's: a header line, one line per matrix
// ("m2: 10 x 3 (deriv of affine; cindexes: [ affine(0, 0:9) ])"), then one
// line per command ("c4: affine.Propagate(NULL, m1, &m2)"). Submatrices
// are "m3" when they cover their whole matrix, else "m3(r0:r1, c0:c1)"
// with inclusive ends. Long index lists and cindex listings are cut short
// with "...", so every command stays one short line.
// Printing never fails: an argument that is out of range (as in a broken
// computation one is trying to debug) prints as "<bad submatrix 17>" and
// the like instead of being dereferenced.
#include <sstream>

#include "nnet3/compile/computation.h"

#include "base/log.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

namespace {

// Index lists show at most this many entries before "...".
const size_t kMaxListEntries = 10;
// Cindex listings of matrices are cut to about this many characters.
const size_t kMaxCindexChars = 160;

bool InRange(int32 i, size_t size) {
  return i >= 0 && static_cast<size_t>(i) < size;
}

std::string FormatReal(BaseFloat f) {
  std::ostringstream os;
  os << f;
  return os.str();
}

// "[e0, e1, ..., e9, ... (40 entries)]": 'shown' holds the first entries
// (at most kMaxListEntries) of a list of 'total'.
std::string FormatList(const std::vector<std::string> &shown, size_t total) {
  std::ostringstream os;
  os << '[';
  for (size_t i = 0; i < shown.size(); i++) os << (i ? ", " : "") << shown[i];
  if (shown.size() < total) os << ", ... (" << total << " entries)";
  os << ']';
  return os.str();
}

// Formats the commands of one computation; holds the submatrix strings.
class CommandPrinter {
 public:
  CommandPrinter(const NnetComputation &computation, const Nnet &nnet)
      : c_(computation), nnet_(nnet) {
    c_.GetSubmatrixStrings(nnet, &submat_);
  }

  std::string Command(int32 index) const;

 private:
  std::string Sub(int32 s) const {
    if (InRange(s, submat_.size())) return submat_[s];
    return "<bad submatrix " + std::to_string(s) + ">";
  }
  // "&m3" for an output argument, "NULL" for none (index 0).
  std::string OutSub(int32 s) const { return s == 0 ? "NULL" : "&" + Sub(s); }
  std::string Component(int32 c) const {
    if (InRange(c, static_cast<size_t>(nnet_.NumComponents())))
      return nnet_.GetComponentName(c);
    return "<bad component " + std::to_string(c) + ">";
  }
  std::string Node(int32 n) const {
    if (InRange(n, static_cast<size_t>(nnet_.NumNodes())))
      return nnet_.GetNodeName(n);
    return "<bad node " + std::to_string(n) + ">";
  }
  std::string Dims(int32 s) const {
    if (!InRange(s, c_.submatrices.size())) return "?";
    const NnetComputation::SubMatrixInfo &info = c_.submatrices[s];
    return std::to_string(info.num_rows) + " x " +
           std::to_string(info.num_cols);
  }
  std::string PrecomputedIndexes(int32 p) const {
    if (p == 0) return "NULL";
    return "precomputed_indexes[" + std::to_string(p) + "]";
  }
  // ", alpha=0.5" unless alpha is 1.
  static std::string AlphaSuffix(BaseFloat alpha) {
    return alpha == 1.0 ? "" : ", alpha=" + FormatReal(alpha);
  }
  std::string Indexes(int32 i) const;
  std::string IndexesMulti(int32 i) const;
  std::string IndexesRanges(int32 i) const;

  const NnetComputation &c_;
  const Nnet &nnet_;
  std::vector<std::string> submat_;
};

std::string CommandPrinter::Indexes(int32 i) const {
  if (!InRange(i, c_.indexes.size()))
    return "<bad indexes " + std::to_string(i) + ">";
  const std::vector<int32> &v = c_.indexes[i];
  std::vector<std::string> shown;
  for (size_t j = 0; j < v.size() && j < kMaxListEntries; j++)
    shown.push_back(std::to_string(v[j]));
  return FormatList(shown, v.size());
}

std::string CommandPrinter::IndexesMulti(int32 i) const {
  if (!InRange(i, c_.indexes_multi.size()))
    return "<bad indexes-multi " + std::to_string(i) + ">";
  const std::vector<std::pair<int32, int32> > &pairs = c_.indexes_multi[i];
  std::vector<std::string> entries;
  for (size_t j = 0; j < pairs.size() && j < kMaxListEntries; j++) {
    int32 s = pairs[j].first, row = pairs[j].second;
    if (s == -1) {
      entries.push_back("NULL");
    } else if (!InRange(s, c_.submatrices.size()) ||
               !InRange(c_.submatrices[s].matrix_index, c_.matrices.size())) {
      entries.push_back("<bad submatrix " + std::to_string(s) + ">");
    } else {
      const NnetComputation::SubMatrixInfo &sub = c_.submatrices[s];
      const NnetComputation::MatrixInfo &m = c_.matrices[sub.matrix_index];
      std::ostringstream os;
      os << 'm' << sub.matrix_index << '(' << (sub.row_offset + row) << ", ";
      if (sub.col_offset == 0 && sub.num_cols == m.num_cols)
        os << ':';
      else
        os << sub.col_offset << ':' << (sub.col_offset + sub.num_cols - 1);
      os << ')';
      entries.push_back(os.str());
    }
  }
  return FormatList(entries, pairs.size());
}

std::string CommandPrinter::IndexesRanges(int32 i) const {
  if (!InRange(i, c_.indexes_ranges.size()))
    return "<bad indexes-ranges " + std::to_string(i) + ">";
  const std::vector<std::pair<int32, int32> > &pairs = c_.indexes_ranges[i];
  std::vector<std::string> entries;
  for (size_t j = 0; j < pairs.size() && j < kMaxListEntries; j++) {
    int32 first = pairs[j].first, second = pairs[j].second;
    if (first == -1)
      entries.push_back("null");
    else if (first == second)
      entries.push_back("empty");
    else
      entries.push_back(std::to_string(first) + ":" +
                        std::to_string(second - 1));
  }
  return FormatList(entries, pairs.size());
}

std::string CommandPrinter::Command(int32 index) const {
  const NnetComputation::Command &c = c_.commands[index];
  std::ostringstream os;
  os << 'c' << index << ": ";
  switch (c.command_type) {
    case kAllocMatrix:
      os << Sub(c.arg1) << " = zeros(";
      if (InRange(c.arg1, c_.submatrices.size()))
        os << c_.submatrices[c.arg1].num_rows << ", "
           << c_.submatrices[c.arg1].num_cols;
      else
        os << '?';
      os << ')';
      break;
    case kDeallocMatrix:
      os << Sub(c.arg1) << " = []";
      break;
    case kSwapMatrix:
      os << Sub(c.arg1) << ".swap(" << Sub(c.arg2) << ") [dim = "
         << Dims(c.arg1) << ']';
      break;
    case kSetConst:
      os << Sub(c.arg1) << ".set(" << FormatReal(c.alpha) << ") [dim = "
         << Dims(c.arg1) << ']';
      break;
    case kPropagate:
      os << Component(c.arg1) << ".Propagate(" << PrecomputedIndexes(c.arg2)
         << ", " << Sub(c.arg3) << ", " << OutSub(c.arg4) << ')';
      if (c.arg5 > 0) os << " [memo " << c.arg5 << ']';
      if (c.arg6 > 0) os << " [store-stats]";
      break;
    case kBackprop:
    case kBackpropNoModelUpdate:
      os << Component(c.arg1) << ".Backprop(" << PrecomputedIndexes(c.arg2)
         << ", " << Sub(c.arg3) << ", " << Sub(c.arg4) << ", "
         << Sub(c.arg5) << ", "
         << (c.command_type == kBackprop && c_.need_model_derivative
                 ? "[component-pointer]"
                 : "NULL")
         << ", " << OutSub(c.arg6) << ')';
      if (c.arg7 > 0) os << " [memo " << c.arg7 << ']';
      if (c.command_type == kBackpropNoModelUpdate) os << " [no model update]";
      break;
    case kMatrixCopy:
    case kMatrixAdd:
      os << Sub(c.arg1) << (c.command_type == kMatrixCopy ? " = " : " += ");
      if (c.alpha != 1.0) os << FormatReal(c.alpha) << " * ";
      os << Sub(c.arg2);
      break;
    case kCopyRows:
    case kAddRows:
      os << Sub(c.arg1) << (c.command_type == kCopyRows ? ".CopyRows("
                                                         : ".AddRows(")
         << Sub(c.arg2) << ", " << Indexes(c.arg3) << AlphaSuffix(c.alpha)
         << ')';
      break;
    case kCopyRowsMulti:
    case kCopyToRowsMulti:
    case kAddRowsMulti:
    case kAddToRowsMulti: {
      const char *name =
          c.command_type == kCopyRowsMulti     ? "CopyRowsMulti"
          : c.command_type == kCopyToRowsMulti ? "CopyToRowsMulti"
          : c.command_type == kAddRowsMulti    ? "AddRowsMulti"
                                               : "AddToRowsMulti";
      os << Sub(c.arg1) << '.' << name << '(' << IndexesMulti(c.arg2)
         << AlphaSuffix(c.alpha) << ')';
      break;
    }
    case kAddRowRanges:
      os << Sub(c.arg1) << ".AddRowRanges(" << Sub(c.arg2) << ", "
         << IndexesRanges(c.arg3) << AlphaSuffix(c.alpha) << ')';
      break;
    case kCompressMatrix: {
      // arg2 is Kaldi's CuCompressedMatrixType (1..4), alpha the range.
      static const char *const kTypes[] = {"int8", "uint8", "int16",
                                           "uint16"};
      os << "CompressMatrix(" << Sub(c.arg1) << ", range="
         << FormatReal(c.alpha) << ", ";
      if (c.arg2 >= 1 && c.arg2 <= 4)
        os << kTypes[c.arg2 - 1];
      else
        os << "type " << c.arg2;
      os << ", truncate=" << (c.arg3 != 0 ? "true" : "false") << ')';
      break;
    }
    case kDecompressMatrix:
      os << "DecompressMatrix(" << Sub(c.arg1) << ')';
      break;
    case kAcceptInput:
      os << Sub(c.arg1) << " = user input [for node: '" << Node(c.arg2)
         << "']";
      break;
    case kProvideOutput:
      os << "output " << Sub(c.arg1) << " to user [for node: '"
         << Node(c.arg2) << "']";
      break;
    case kNoOperation:
      os << "[no-op]";
      break;
    case kNoOperationPermanent:
      os << "[no-op-permanent]";
      break;
    case kNoOperationMarker:
      os << "# computation segment separator [e.g., begin backward commands]";
      break;
    case kNoOperationLabel:
      os << "[label for goto statement]";
      break;
    case kGotoLabel:
      os << "goto c" << c.arg1;
      break;
  }
  return os.str();
}

// "input", "affine, relu": the distinct nodes of the cindexes, in order of
// first appearance.
std::string NodeNames(const Nnet &nnet, const std::vector<Cindex> &cindexes) {
  std::vector<int32> nodes;
  for (const Cindex &c : cindexes)
    if (nodes.empty() || nodes.back() != c.first) {
      bool seen = false;
      for (int32 n : nodes) seen = seen || n == c.first;
      if (!seen) nodes.push_back(c.first);
    }
  std::string ans;
  for (int32 n : nodes) {
    if (!ans.empty()) ans += ", ";
    ans += InRange(n, static_cast<size_t>(nnet.NumNodes()))
               ? nnet.GetNodeName(n)
               : "<bad node " + std::to_string(n) + ">";
  }
  return ans;
}

// The cindex listing, cut at a space before kMaxCindexChars.
std::string CompactCindexes(const Nnet &nnet,
                            const std::vector<Cindex> &cindexes) {
  std::ostringstream os;
  PrintCindexes(os, cindexes, nnet.GetNodeNames());
  std::string s = os.str();
  if (s.size() <= kMaxCindexChars) return s;
  size_t cut = s.rfind(' ', kMaxCindexChars);
  return s.substr(0, cut) + " ... ]";
}

std::string Preamble(const NnetComputation &c, const Nnet &nnet) {
  std::ostringstream os;
  os << "# computation: " << (c.matrices.empty() ? 0 : c.matrices.size() - 1)
     << " matrices, "
     << (c.submatrices.empty() ? 0 : c.submatrices.size() - 1)
     << " submatrices, " << c.commands.size() << " commands, "
     << "need-model-derivative=" << (c.need_model_derivative ? "true" : "false")
     << '\n';
  bool have_debug = c.matrix_debug_info.size() == c.matrices.size();
  for (size_t m = 1; m < c.matrices.size(); m++) {
    const NnetComputation::MatrixInfo &info = c.matrices[m];
    os << 'm' << m << ": " << info.num_rows << " x " << info.num_cols;
    if (info.stride_type == kStrideEqualNumCols) os << ", stride = num-cols";
    if (have_debug) {
      const NnetComputation::MatrixDebugInfo &d = c.matrix_debug_info[m];
      if (!d.cindexes.empty())
        os << " (" << (d.is_deriv ? "deriv of " : "")
           << NodeNames(nnet, d.cindexes)
           << "; cindexes: " << CompactCindexes(nnet, d.cindexes) << ')';
      else if (d.is_deriv)
        os << " (deriv)";
    }
    os << '\n';
  }
  for (size_t p = 1; p < c.component_precomputed_indexes.size(); p++) {
    const NnetComputation::PrecomputedIndexesInfo &info =
        c.component_precomputed_indexes[p];
    os << "precomputed_indexes[" << p << "]: "
       << (info.data != nullptr ? info.data->Type() : std::string("NULL"))
       << " (" << info.input_indexes.size() << " input, "
       << info.output_indexes.size() << " output indexes)\n";
  }
  return os.str();
}

}  // namespace

void NnetComputation::GetSubmatrixStrings(
    const Nnet &nnet, std::vector<std::string> *submat_strings) const {
  (void)nnet;  // names come from the matrices alone
  submat_strings->resize(submatrices.size());
  for (size_t s = 0; s < submatrices.size(); s++) {
    const SubMatrixInfo &info = submatrices[s];
    std::ostringstream os;
    if (s == 0) {
      os << "[]";
    } else if (InRange(info.matrix_index, matrices.size()) &&
               IsWholeMatrix(static_cast<int32>(s))) {
      os << 'm' << info.matrix_index;
    } else {
      os << 'm' << info.matrix_index << '(' << info.row_offset << ':'
         << (info.row_offset + info.num_rows - 1) << ", " << info.col_offset
         << ':' << (info.col_offset + info.num_cols - 1) << ')';
    }
    (*submat_strings)[s] = os.str();
  }
}

void NnetComputation::GetCommandStrings(
    const Nnet &nnet, std::string *preamble,
    std::vector<std::string> *command_strings) const {
  if (preamble != nullptr) *preamble = Preamble(*this, nnet);
  if (command_strings != nullptr) {
    CommandPrinter printer(*this, nnet);
    command_strings->resize(commands.size());
    for (size_t c = 0; c < commands.size(); c++)
      (*command_strings)[c] = printer.Command(static_cast<int32>(c));
  }
}

void NnetComputation::Print(std::ostream &os, const Nnet &nnet) const {
  std::string preamble;
  std::vector<std::string> command_strings;
  GetCommandStrings(nnet, &preamble, &command_strings);
  os << preamble << "# begin forward commands\n";
  for (const std::string &line : command_strings) os << line << '\n';
}

}  // namespace nnet3
