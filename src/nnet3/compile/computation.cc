// nnet3/compile/computation.cc
// Construction helpers of NnetComputation (matrices, submatrices, copying)
// and the command-type names. Printing is in computation-print.cc, the
// Kaldi on-disk format in computation-io.cc.
#include "nnet3/compile/computation.h"

#include "base/log.h"

namespace nnet3 {

namespace {
const char *const kCommandNames[] = {
    "kAllocMatrix", "kDeallocMatrix", "kSwapMatrix", "kSetConst",
    "kPropagate", "kBackprop", "kBackpropNoModelUpdate", "kMatrixCopy",
    "kMatrixAdd", "kCopyRows", "kAddRows", "kCopyRowsMulti",
    "kCopyToRowsMulti", "kAddRowsMulti", "kAddToRowsMulti", "kAddRowRanges",
    "kCompressMatrix", "kDecompressMatrix", "kAcceptInput", "kProvideOutput",
    "kNoOperation", "kNoOperationPermanent", "kNoOperationMarker",
    "kNoOperationLabel", "kGotoLabel"};
const int32 kNumCommandTypes =
    static_cast<int32>(sizeof(kCommandNames) / sizeof(kCommandNames[0]));
}  // namespace

const char *CommandTypeToString(CommandType type) {
  int32 i = static_cast<int32>(type);
  NNET3_ASSERT(i >= 0 && i < kNumCommandTypes);
  return kCommandNames[i];
}

CommandType CommandTypeFromString(const std::string &name) {
  for (int32 i = 0; i < kNumCommandTypes; i++)
    if (name == kCommandNames[i]) return static_cast<CommandType>(i);
  NNET3_ERR << "Unknown command type '" << name << "' in computation";
  return kNoOperation;
}

NnetComputation::NnetComputation(const NnetComputation &other) {
  *this = other;
}

NnetComputation &NnetComputation::operator=(const NnetComputation &other) {
  if (this == &other) return *this;
  Clear();
  matrices = other.matrices;
  matrix_debug_info = other.matrix_debug_info;
  submatrices = other.submatrices;
  component_precomputed_indexes = other.component_precomputed_indexes;
  for (auto &info : component_precomputed_indexes)
    if (info.data != nullptr) info.data = info.data->Copy();
  indexes = other.indexes;
  indexes_multi = other.indexes_multi;
  indexes_ranges = other.indexes_ranges;
  commands = other.commands;
  need_model_derivative = other.need_model_derivative;
  return *this;
}

NnetComputation::~NnetComputation() { Clear(); }

void NnetComputation::Clear() {
  for (auto &info : component_precomputed_indexes) delete info.data;
  component_precomputed_indexes.clear();
  matrices.clear();
  matrix_debug_info.clear();
  submatrices.clear();
  indexes.clear();
  indexes_multi.clear();
  indexes_ranges.clear();
  commands.clear();
  need_model_derivative = false;
}

int32 NnetComputation::NewMatrix(int32 num_rows, int32 num_cols,
                                 MatrixStrideType stride_type) {
  NNET3_ASSERT(num_rows > 0 && num_cols > 0);
  if (matrices.empty()) {
    matrices.push_back(MatrixInfo(0, 0, kDefaultStride));
    submatrices.push_back(SubMatrixInfo(0, 0, 0, 0, 0));
  }
  int32 matrix_index = static_cast<int32>(matrices.size());
  int32 submatrix_index = static_cast<int32>(submatrices.size());
  matrices.push_back(MatrixInfo(num_rows, num_cols, stride_type));
  if (!matrix_debug_info.empty()) matrix_debug_info.push_back(MatrixDebugInfo());
  submatrices.push_back(
      SubMatrixInfo(matrix_index, 0, num_rows, 0, num_cols));
  return submatrix_index;
}

int32 NnetComputation::NewSubMatrix(int32 base_submatrix, int32 row_offset,
                                    int32 num_rows, int32 col_offset,
                                    int32 num_cols) {
  NNET3_ASSERT(base_submatrix > 0 &&
               base_submatrix < static_cast<int32>(submatrices.size()));
  const SubMatrixInfo base = submatrices[base_submatrix];
  if (num_rows == -1) num_rows = base.num_rows - row_offset;
  if (num_cols == -1) num_cols = base.num_cols - col_offset;
  NNET3_ASSERT(row_offset >= 0 && num_rows > 0 &&
               row_offset + num_rows <= base.num_rows);
  NNET3_ASSERT(col_offset >= 0 && num_cols > 0 &&
               col_offset + num_cols <= base.num_cols);
  submatrices.push_back(SubMatrixInfo(base.matrix_index,
                                      base.row_offset + row_offset, num_rows,
                                      base.col_offset + col_offset, num_cols));
  return static_cast<int32>(submatrices.size()) - 1;
}

bool NnetComputation::IsWholeMatrix(int32 s) const {
  NNET3_ASSERT(s >= 0 && s < static_cast<int32>(submatrices.size()));
  const SubMatrixInfo &info = submatrices[s];
  const MatrixInfo &m = matrices[info.matrix_index];
  return info.row_offset == 0 && info.col_offset == 0 &&
         info.num_rows == m.num_rows && info.num_cols == m.num_cols;
}

void NnetComputation::GetWholeSubmatrices(std::vector<int32> *whole) const {
  whole->assign(matrices.size(), 0);
  for (int32 s = 1; s < static_cast<int32>(submatrices.size()); s++) {
    int32 m = submatrices[s].matrix_index;
    if ((*whole)[m] == 0 && IsWholeMatrix(s)) (*whole)[m] = s;
  }
}

}  // namespace nnet3
