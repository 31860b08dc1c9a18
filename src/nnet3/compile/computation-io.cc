// nnet3/compile/computation-io.cc
// Reading and writing NnetComputation in Kaldi's on-disk form (version 5 of
// nnet3/nnet-computation.cc), binary and text, so that cached computations
// are interchangeable with Kaldi's. Layout:
//   <NnetComputation> <Version> 5
//   <NumMatrices> N <Matrices> N x <MatrixInfo>
//   <NumMatrixDebugInfo> D <MatrixDebugInfo> D x <MatrixDebugInfo>
//   <NumSubMatrices> S <SubMatrices> S x <SubMatrixInfo>
//   <NumComponentPrecomputedIndexes> P <PrecomputedIndexesInfo>
//       for entries 1..P-1: the object's own Write() (it starts with the
//       token "<" + Type() + ">"), then its input and output Index vectors
//   <NumIndexes> I <Indexes> I integer vectors
//   <NumIndexesMulti> M <IndexesMulti> M integer-pair vectors
//   <NumIndexesRanges> R <IndexesRanges> R integer-pair vectors
//   <NumCommands> C <Commands> C x <Cmd>
//   <NeedModelDerivative> T|F </NnetComputation>
// The counts are written as size_t (size byte -8 in binary). A command is
// "<Cmd>" then, in binary, the type as an int32, alpha as a float and the
// seven arguments as an integer vector with trailing -1s dropped; in text,
// the type's name and a newline, "<Alpha> a <Args> a1 ... a7", and in both
// modes "</Cmd>". Text output puts newlines exactly where Kaldi does, so
// that text files compare byte for byte.
// Reading is all-or-nothing: the computation is only replaced once the
// whole object has been read and checked (command types in range,
// submatrices inside their matrices, debug info absent or one per matrix).
#include <sstream>

#include "nnet3/compile/computation.h"

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {

namespace {

const int32 kComputationVersion = 5;

// Reads a count written as size_t by Write(). Elements are then read one at
// a time, so a corrupt count runs into a read error instead of a huge
// allocation.
size_t ReadCount(std::istream &is, bool binary, const char *token) {
  ExpectToken(is, binary, token);
  size_t n;
  ReadBasicType(is, binary, &n);
  return n;
}

void WriteCount(std::ostream &os, bool binary, const char *token, size_t n) {
  WriteToken(os, binary, token);
  WriteBasicType(os, binary, n);
}

void WritePrecomputedIndexes(std::ostream &os, bool binary,
                             const ComponentPrecomputedIndexes &data) {
  // The object writes its own opening token; reading relies on it being
  // "<" + Type() + ">", so check it here rather than produce an unreadable
  // file.
  std::ostringstream buf;
  buf.precision(os.precision());
  data.Write(buf, binary);
  const std::string text = buf.str();
  const std::string want = "<" + data.Type() + "> ";
  NNET3_ASSERT(text.compare(0, want.size(), want) == 0 &&
               "ComponentPrecomputedIndexes::Write must start with <Type()>");
  os << text;
}

}  // namespace

void NnetComputation::MatrixInfo::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<MatrixInfo>");
  if (!binary) os << '\n';
  WriteToken(os, binary, "<NumRows>");
  WriteBasicType(os, binary, num_rows);
  WriteToken(os, binary, "<NumCols>");
  WriteBasicType(os, binary, num_cols);
  if (stride_type != kDefaultStride) WriteToken(os, binary, "<StrideEqualNumCols>");
  if (!binary) os << '\n';
  WriteToken(os, binary, "</MatrixInfo>");
  if (!binary) os << '\n';
}

void NnetComputation::MatrixInfo::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<MatrixInfo>");
  ExpectToken(is, binary, "<NumRows>");
  ReadBasicType(is, binary, &num_rows);
  ExpectToken(is, binary, "<NumCols>");
  ReadBasicType(is, binary, &num_cols);
  long long pos = StreamPosition(is);
  std::string token;
  ReadToken(is, binary, &token);
  if (token == "</MatrixInfo>") {
    stride_type = kDefaultStride;
    return;
  }
  if (token != "<StrideEqualNumCols>")
    NNET3_ERR << "Expected token </MatrixInfo> or <StrideEqualNumCols>, got "
              << PrintableString(token) << " at file position " << pos;
  stride_type = kStrideEqualNumCols;
  ExpectToken(is, binary, "</MatrixInfo>");
}

void NnetComputation::MatrixDebugInfo::Write(std::ostream &os,
                                             bool binary) const {
  WriteToken(os, binary, "<MatrixDebugInfo>");
  if (!binary) os << '\n';
  WriteToken(os, binary, "<IsDeriv>");
  WriteBasicType(os, binary, is_deriv);
  if (!binary) os << '\n';
  WriteToken(os, binary, "<Cindexes>");
  WriteCindexVector(os, binary, cindexes);
  if (!binary) os << '\n';
  WriteToken(os, binary, "</MatrixDebugInfo>");
  if (!binary) os << '\n';
}

void NnetComputation::MatrixDebugInfo::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<MatrixDebugInfo>");
  ExpectToken(is, binary, "<IsDeriv>");
  ReadBasicType(is, binary, &is_deriv);
  ExpectToken(is, binary, "<Cindexes>");
  ReadCindexVector(is, binary, &cindexes);
  ExpectToken(is, binary, "</MatrixDebugInfo>");
}

void NnetComputation::SubMatrixInfo::Write(std::ostream &os,
                                           bool binary) const {
  WriteToken(os, binary, "<SubMatrixInfo>");
  if (!binary) os << '\n';
  WriteToken(os, binary, "<MatrixIndex>");
  WriteBasicType(os, binary, matrix_index);
  WriteToken(os, binary, "<RowOffset>");
  WriteBasicType(os, binary, row_offset);
  WriteToken(os, binary, "<NumRows>");
  WriteBasicType(os, binary, num_rows);
  WriteToken(os, binary, "<ColOffset>");
  WriteBasicType(os, binary, col_offset);
  WriteToken(os, binary, "<NumCols>");
  WriteBasicType(os, binary, num_cols);
  if (!binary) os << '\n';
  WriteToken(os, binary, "</SubMatrixInfo>");
  if (!binary) os << '\n';
}

void NnetComputation::SubMatrixInfo::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<SubMatrixInfo>");
  ExpectToken(is, binary, "<MatrixIndex>");
  ReadBasicType(is, binary, &matrix_index);
  ExpectToken(is, binary, "<RowOffset>");
  ReadBasicType(is, binary, &row_offset);
  ExpectToken(is, binary, "<NumRows>");
  ReadBasicType(is, binary, &num_rows);
  ExpectToken(is, binary, "<ColOffset>");
  ReadBasicType(is, binary, &col_offset);
  ExpectToken(is, binary, "<NumCols>");
  ReadBasicType(is, binary, &num_cols);
  ExpectToken(is, binary, "</SubMatrixInfo>");
}

void NnetComputation::Command::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<Cmd>");
  const int32 args[7] = {arg1, arg2, arg3, arg4, arg5, arg6, arg7};
  if (binary) {
    WriteBasicType(os, binary, static_cast<int32>(command_type));
    WriteBasicType(os, binary, alpha);
    int32 num_args = 7;
    while (num_args > 0 && args[num_args - 1] == -1) num_args--;
    WriteIntegerVector(os, binary,
                       std::vector<int32>(args, args + num_args));
  } else {
    // The name alone on the rest of the line (Kaldi reads it with getline).
    os << CommandTypeToString(command_type) << '\n';
    WriteToken(os, binary, "<Alpha>");
    WriteBasicType(os, binary, alpha);
    WriteToken(os, binary, "<Args>");
    for (int32 a : args) WriteBasicType(os, binary, a);
  }
  WriteToken(os, binary, "</Cmd>");
}

void NnetComputation::Command::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<Cmd>");
  int32 args[7];
  if (binary) {
    long long pos = StreamPosition(is);
    int32 type;
    ReadBasicType(is, binary, &type);
    if (type < 0 || type > static_cast<int32>(kGotoLabel))
      NNET3_ERR << "Invalid command type " << type
                << " (valid: 0 to " << static_cast<int32>(kGotoLabel)
                << ") at file position " << pos;
    command_type = static_cast<CommandType>(type);
    ReadBasicType(is, binary, &alpha);
    pos = StreamPosition(is);
    std::vector<int32> v;
    ReadIntegerVector(is, binary, &v);
    if (v.size() > 7)
      NNET3_ERR << "A command has at most 7 arguments, got " << v.size()
                << " at file position " << pos;
    v.resize(7, -1);
    for (int32 i = 0; i < 7; i++) args[i] = v[i];
  } else {
    std::string name;
    ReadToken(is, binary, &name);
    command_type = CommandTypeFromString(name);
    ExpectToken(is, binary, "<Alpha>");
    ReadBasicType(is, binary, &alpha);
    ExpectToken(is, binary, "<Args>");
    for (int32 &a : args) ReadBasicType(is, binary, &a);
  }
  arg1 = args[0];
  arg2 = args[1];
  arg3 = args[2];
  arg4 = args[3];
  arg5 = args[4];
  arg6 = args[5];
  arg7 = args[6];
  ExpectToken(is, binary, "</Cmd>");
}

void NnetComputation::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<NnetComputation>");
  WriteToken(os, binary, "<Version>");
  WriteBasicType(os, binary, kComputationVersion);
  WriteCount(os, binary, "<NumMatrices>", matrices.size());
  WriteToken(os, binary, "<Matrices>");
  for (const MatrixInfo &m : matrices) m.Write(os, binary);
  if (!binary) os << '\n';

  WriteCount(os, binary, "<NumMatrixDebugInfo>", matrix_debug_info.size());
  WriteToken(os, binary, "<MatrixDebugInfo>");
  for (const MatrixDebugInfo &d : matrix_debug_info) d.Write(os, binary);
  if (!binary) os << '\n';

  WriteCount(os, binary, "<NumSubMatrices>", submatrices.size());
  WriteToken(os, binary, "<SubMatrices>");
  for (const SubMatrixInfo &s : submatrices) s.Write(os, binary);
  if (!binary) os << '\n';

  WriteCount(os, binary, "<NumComponentPrecomputedIndexes>",
             component_precomputed_indexes.size());
  WriteToken(os, binary, "<PrecomputedIndexesInfo>");
  // Entry 0 stands for "no indexes" (a null pointer) and is not written.
  for (size_t c = 1; c < component_precomputed_indexes.size(); c++) {
    const PrecomputedIndexesInfo &info = component_precomputed_indexes[c];
    NNET3_ASSERT(info.data != nullptr);
    WritePrecomputedIndexes(os, binary, *info.data);
    WriteIndexVector(os, binary, info.input_indexes);
    WriteIndexVector(os, binary, info.output_indexes);
  }
  if (!binary) os << '\n';

  WriteCount(os, binary, "<NumIndexes>", indexes.size());
  WriteToken(os, binary, "<Indexes>");
  for (const auto &v : indexes) WriteIntegerVector(os, binary, v);
  if (!binary) os << '\n';

  WriteCount(os, binary, "<NumIndexesMulti>", indexes_multi.size());
  WriteToken(os, binary, "<IndexesMulti>");
  for (const auto &v : indexes_multi) WriteIntegerPairVector(os, binary, v);
  if (!binary) os << '\n';

  WriteCount(os, binary, "<NumIndexesRanges>", indexes_ranges.size());
  WriteToken(os, binary, "<IndexesRanges>");
  for (const auto &v : indexes_ranges) WriteIntegerPairVector(os, binary, v);
  if (!binary) os << '\n';

  WriteCount(os, binary, "<NumCommands>", commands.size());
  WriteToken(os, binary, "<Commands>");
  for (const Command &c : commands) c.Write(os, binary);
  if (!binary) os << '\n';

  WriteToken(os, binary, "<NeedModelDerivative>");
  WriteBasicType(os, binary, need_model_derivative);
  WriteToken(os, binary, "</NnetComputation>");
  if (!binary) os << '\n';
  if (!os.good()) NNET3_ERR << "Output stream error writing NnetComputation";
}

namespace {

// The structural checks Read() applies before accepting a computation.
void CheckReadComputation(const NnetComputation &c) {
  const size_t num_matrices = c.matrices.size();
  if (!c.matrix_debug_info.empty() &&
      c.matrix_debug_info.size() != num_matrices)
    NNET3_ERR << "NnetComputation has " << c.matrix_debug_info.size()
              << " matrix debug-info entries but " << num_matrices
              << " matrices";
  for (size_t m = 0; m < num_matrices; m++) {
    const NnetComputation::MatrixInfo &info = c.matrices[m];
    if (info.num_rows < 0 || info.num_cols < 0)
      NNET3_ERR << "NnetComputation: matrix " << m << " has negative size "
                << info.num_rows << " x " << info.num_cols;
  }
  for (size_t s = 0; s < c.submatrices.size(); s++) {
    const NnetComputation::SubMatrixInfo &sub = c.submatrices[s];
    if (sub.matrix_index < 0 ||
        static_cast<size_t>(sub.matrix_index) >= num_matrices)
      NNET3_ERR << "NnetComputation: submatrix " << s << " refers to matrix "
                << sub.matrix_index << " but there are " << num_matrices
                << " matrices";
    const NnetComputation::MatrixInfo &m = c.matrices[sub.matrix_index];
    if (sub.row_offset < 0 || sub.num_rows < 0 || sub.col_offset < 0 ||
        sub.num_cols < 0 ||
        static_cast<int64>(sub.row_offset) + sub.num_rows > m.num_rows ||
        static_cast<int64>(sub.col_offset) + sub.num_cols > m.num_cols)
      NNET3_ERR << "NnetComputation: submatrix " << s << " (rows "
                << sub.row_offset << "+" << sub.num_rows << ", cols "
                << sub.col_offset << "+" << sub.num_cols
                << ") does not lie inside matrix " << sub.matrix_index
                << " (" << m.num_rows << " x " << m.num_cols << ")";
  }
}

}  // namespace

void NnetComputation::Read(std::istream &is, bool binary) {
  NnetComputation c;
  ExpectToken(is, binary, "<NnetComputation>");
  long long pos = StreamPosition(is);
  std::string token;
  ReadToken(is, binary, &token);
  int32 version = 1;  // Kaldi's computations without a version are version 1
  if (token == "<Version>") {
    ReadBasicType(is, binary, &version);
  } else if (token != "<NumMatrices>") {
    NNET3_ERR << "Expected token <Version> or <NumMatrices>, got "
              << PrintableString(token) << " at file position " << pos;
  }
  if (version != kComputationVersion)
    NNET3_ERR << "NnetComputation on disk has version " << version
              << "; only version " << kComputationVersion
              << " is supported (recompile the computation)";

  size_t n = ReadCount(is, binary, "<NumMatrices>");
  ExpectToken(is, binary, "<Matrices>");
  for (size_t i = 0; i < n; i++) {
    c.matrices.emplace_back();
    c.matrices.back().Read(is, binary);
  }

  n = ReadCount(is, binary, "<NumMatrixDebugInfo>");
  ExpectToken(is, binary, "<MatrixDebugInfo>");
  for (size_t i = 0; i < n; i++) {
    c.matrix_debug_info.emplace_back();
    c.matrix_debug_info.back().Read(is, binary);
  }

  n = ReadCount(is, binary, "<NumSubMatrices>");
  ExpectToken(is, binary, "<SubMatrices>");
  for (size_t i = 0; i < n; i++) {
    c.submatrices.emplace_back();
    c.submatrices.back().Read(is, binary);
  }

  n = ReadCount(is, binary, "<NumComponentPrecomputedIndexes>");
  ExpectToken(is, binary, "<PrecomputedIndexesInfo>");
  if (n > 0) c.component_precomputed_indexes.emplace_back();  // entry 0
  for (size_t i = 1; i < n; i++) {
    // Each entry: the object (its own "<Type>" first), then its input and
    // output Index vectors.
    long long pos = StreamPosition(is);
    c.component_precomputed_indexes.emplace_back();
    NnetComputation::PrecomputedIndexesInfo &info =
        c.component_precomputed_indexes.back();
    try {
      info.data = ComponentPrecomputedIndexes::ReadNew(is, binary);
    } catch (const UserError &e) {
      NNET3_ERR << "component precomputed indexes entry " << i << " of " << n
                << " (file position " << pos << "): " << e.message();
    }
    ReadIndexVector(is, binary, &info.input_indexes);
    ReadIndexVector(is, binary, &info.output_indexes);
  }

  n = ReadCount(is, binary, "<NumIndexes>");
  ExpectToken(is, binary, "<Indexes>");
  for (size_t i = 0; i < n; i++) {
    c.indexes.emplace_back();
    ReadIntegerVector(is, binary, &c.indexes.back());
  }

  n = ReadCount(is, binary, "<NumIndexesMulti>");
  ExpectToken(is, binary, "<IndexesMulti>");
  for (size_t i = 0; i < n; i++) {
    c.indexes_multi.emplace_back();
    ReadIntegerPairVector(is, binary, &c.indexes_multi.back());
  }

  n = ReadCount(is, binary, "<NumIndexesRanges>");
  ExpectToken(is, binary, "<IndexesRanges>");
  for (size_t i = 0; i < n; i++) {
    c.indexes_ranges.emplace_back();
    ReadIntegerPairVector(is, binary, &c.indexes_ranges.back());
  }

  n = ReadCount(is, binary, "<NumCommands>");
  ExpectToken(is, binary, "<Commands>");
  for (size_t i = 0; i < n; i++) {
    c.commands.emplace_back();
    c.commands.back().Read(is, binary);
  }

  ExpectToken(is, binary, "<NeedModelDerivative>");
  ReadBasicType(is, binary, &c.need_model_derivative);
  ExpectToken(is, binary, "</NnetComputation>");
  CheckReadComputation(c);

  // Take over c's contents; c's destructor frees the old precomputed
  // indexes.
  matrices.swap(c.matrices);
  matrix_debug_info.swap(c.matrix_debug_info);
  submatrices.swap(c.submatrices);
  component_precomputed_indexes.swap(c.component_precomputed_indexes);
  indexes.swap(c.indexes);
  indexes_multi.swap(c.indexes_multi);
  indexes_ranges.swap(c.indexes_ranges);
  commands.swap(c.commands);
  std::swap(need_model_derivative, c.need_model_derivative);
}

}  // namespace nnet3
