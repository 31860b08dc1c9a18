// nnet3/compile/computation.h
// NnetComputation: the compiled program that the NnetComputer executes.
// It lists matrices (sizes only), submatrices (row/column ranges of a
// matrix), index vectors used by the row-copying commands, and a sequence of
// commands (allocate, propagate, backprop, copy/add rows, ...) whose
// arguments index those lists. The command set, argument meanings and the
// on-disk format are Kaldi's (nnet3/nnet-computation.h at the reference
// commit), so computations can be cached on disk and compared.
//
// Invariants:
//  - submatrices[0] is the empty submatrix (matrix_index 0, all zero) and
//    matrices[0] is the empty matrix; index 0 means "none" in arguments.
//  - every submatrix lies inside its matrix;
//  - matrix_debug_info is either empty or has one entry per matrix, whose
//    cindexes list one Cindex per row.
// Argument conventions (alpha is the float argument):
//  kAllocMatrix      arg1 = whole-matrix submatrix (contents undefined).
//  kDeallocMatrix    arg1 = whole-matrix submatrix.
//  kSwapMatrix       arg1, arg2 = whole-matrix submatrices to swap.
//  kSetConst         arg1 = submatrix set to alpha.
//  kPropagate        arg1 = component, arg2 = precomputed-indexes index (0 =
//                    none), arg3 = input submatrix, arg4 = output submatrix,
//                    arg5 = memo index (0 = no memo), arg6 = 1 to call
//                    StoreStats() afterwards.
//  kBackprop /       arg1 = component, arg2 = precomputed-indexes index,
//  kBackpropNoModelUpdate  arg3 = input-value submatrix (0 if not needed),
//                    arg4 = output-value submatrix (0 if not needed),
//                    arg5 = output-deriv submatrix, arg6 = input-deriv
//                    submatrix (0 if none), arg7 = memo index.
//  kMatrixCopy/Add   arg1 = destination, arg2 = source submatrix; dest
//                    (+)= alpha * src.
//  kCopyRows/AddRows arg1 = destination, arg2 = source, arg3 = index into
//                    'indexes' (row i of dest from row indexes[i] of src;
//                    -1 = leave/skip the row).
//  kCopyRowsMulti / kAddRowsMulti / kCopyToRowsMulti / kAddToRowsMulti
//                    arg1 = the submatrix, arg2 = index into indexes_multi
//                    (pairs (submatrix, row), (-1,-1) = none).
//  kAddRowRanges     arg1 = destination, arg2 = source, arg3 = index into
//                    indexes_ranges (row i of dest += sum of src rows in
//                    [first, second)).
//  kCompressMatrix   arg1 = whole-matrix submatrix, arg2 = compression
//                    type (1 int8, 2 uint8, 3 int16, 4 uint16), arg3 =
//                    truncate flag, alpha = range; kDecompressMatrix arg1.
//  kAcceptInput      arg1 = submatrix, arg2 = network node (input value, or
//                    output derivative for output nodes).
//  kProvideOutput    arg1 = submatrix, arg2 = network node.
//  kNoOperation*, kGotoLabel (arg1 = command index of a kNoOperationLabel).
#ifndef NNET3_NNET3_COMPILE_COMPUTATION_H_
#define NNET3_NNET3_COMPILE_COMPUTATION_H_

#include <istream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "nnet3/components/component.h"
#include "nnet3/core/index.h"

namespace nnet3 {

class Nnet;

enum CommandType {
  kAllocMatrix,
  kDeallocMatrix,
  kSwapMatrix,
  kSetConst,
  kPropagate,
  kBackprop,
  kBackpropNoModelUpdate,
  kMatrixCopy,
  kMatrixAdd,
  kCopyRows,
  kAddRows,
  kCopyRowsMulti,
  kCopyToRowsMulti,
  kAddRowsMulti,
  kAddToRowsMulti,
  kAddRowRanges,
  kCompressMatrix,
  kDecompressMatrix,
  kAcceptInput,
  kProvideOutput,
  kNoOperation,
  kNoOperationPermanent,
  kNoOperationMarker,
  kNoOperationLabel,
  kGotoLabel
};

// "kPropagate" etc.; the inverse errors on unknown names.
const char *CommandTypeToString(CommandType type);
CommandType CommandTypeFromString(const std::string &name);

struct NnetComputation {
  struct MatrixInfo {
    int32 num_rows = 0;
    int32 num_cols = 0;
    MatrixStrideType stride_type = kDefaultStride;
    MatrixInfo() {}
    MatrixInfo(int32 r, int32 c, MatrixStrideType s)
        : num_rows(r), num_cols(c), stride_type(s) {}
    void Read(std::istream &is, bool binary);
    void Write(std::ostream &os, bool binary) const;
  };
  struct MatrixDebugInfo {
    bool is_deriv = false;
    std::vector<Cindex> cindexes;  // one per row
    void Read(std::istream &is, bool binary);
    void Write(std::ostream &os, bool binary) const;
  };
  struct SubMatrixInfo {
    int32 matrix_index = 0;
    int32 row_offset = 0;
    int32 num_rows = 0;
    int32 col_offset = 0;
    int32 num_cols = 0;
    SubMatrixInfo() {}
    SubMatrixInfo(int32 m, int32 ro, int32 nr, int32 co, int32 nc)
        : matrix_index(m), row_offset(ro), num_rows(nr), col_offset(co),
          num_cols(nc) {}
    bool operator==(const SubMatrixInfo &o) const {
      return matrix_index == o.matrix_index && row_offset == o.row_offset &&
             num_rows == o.num_rows && col_offset == o.col_offset &&
             num_cols == o.num_cols;
    }
    void Read(std::istream &is, bool binary);
    void Write(std::ostream &os, bool binary) const;
  };
  struct Command {
    CommandType command_type = kNoOperation;
    BaseFloat alpha = 1.0;
    int32 arg1 = -1, arg2 = -1, arg3 = -1, arg4 = -1, arg5 = -1, arg6 = -1,
          arg7 = -1;
    Command() {}
    Command(CommandType t, int32 a1 = -1, int32 a2 = -1, int32 a3 = -1,
            int32 a4 = -1, int32 a5 = -1, int32 a6 = -1, int32 a7 = -1)
        : command_type(t), alpha(1.0), arg1(a1), arg2(a2), arg3(a3),
          arg4(a4), arg5(a5), arg6(a6), arg7(a7) {}
    Command(BaseFloat alpha_in, CommandType t, int32 a1 = -1, int32 a2 = -1,
            int32 a3 = -1, int32 a4 = -1, int32 a5 = -1, int32 a6 = -1,
            int32 a7 = -1)
        : command_type(t), alpha(alpha_in), arg1(a1), arg2(a2), arg3(a3),
          arg4(a4), arg5(a5), arg6(a6), arg7(a7) {}
    void Read(std::istream &is, bool binary);
    void Write(std::ostream &os, bool binary) const;
  };
  // Indexes a non-simple component needs at propagate/backprop time; entry
  // 0 is unused (data == nullptr).
  struct PrecomputedIndexesInfo {
    ComponentPrecomputedIndexes *data = nullptr;
    std::vector<Index> input_indexes;
    std::vector<Index> output_indexes;
  };

  std::vector<MatrixInfo> matrices;
  std::vector<MatrixDebugInfo> matrix_debug_info;
  std::vector<SubMatrixInfo> submatrices;
  std::vector<PrecomputedIndexesInfo> component_precomputed_indexes;
  std::vector<std::vector<int32> > indexes;
  std::vector<std::vector<std::pair<int32, int32> > > indexes_multi;
  std::vector<std::vector<std::pair<int32, int32> > > indexes_ranges;
  std::vector<Command> commands;
  bool need_model_derivative = false;

  NnetComputation() {}
  NnetComputation(const NnetComputation &other);
  NnetComputation &operator=(const NnetComputation &other);
  ~NnetComputation();
  void Clear();

  // Adds a matrix and its whole-matrix submatrix; returns the submatrix
  // index. The first call also creates the empty matrix/submatrix 0.
  int32 NewMatrix(int32 num_rows, int32 num_cols,
                  MatrixStrideType stride_type = kDefaultStride);
  // A submatrix of 'base_submatrix' (offsets relative to it; num_rows or
  // num_cols of -1 mean "the rest").
  int32 NewSubMatrix(int32 base_submatrix, int32 row_offset, int32 num_rows,
                     int32 col_offset, int32 num_cols);
  bool IsWholeMatrix(int32 submatrix_index) const;
  // For each matrix, the submatrix index that covers all of it (0 for the
  // empty matrix and for matrices that have none).
  void GetWholeSubmatrices(std::vector<int32> *whole_submatrices) const;

  // "m3(0:9, 10:19)" style names for every submatrix.
  void GetSubmatrixStrings(const Nnet &nnet,
                           std::vector<std::string> *submat_strings) const;
  // The matrix declarations (with debug info) and one string per command.
  void GetCommandStrings(const Nnet &nnet, std::string *preamble,
                         std::vector<std::string> *command_strings) const;
  // A readable listing: matrices with their debug info, then one command
  // per line ("c6: affine.Propagate(NULL, m2, &m3)").
  void Print(std::ostream &os, const Nnet &nnet) const;

  // Kaldi's "<Computation>" format, binary or text.
  void Read(std::istream &is, bool binary);
  void Write(std::ostream &os, bool binary) const;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPILE_COMPUTATION_H_
