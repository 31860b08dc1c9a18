// nnet3/analyze/analyze.h
// Analysis of a compiled NnetComputation ("Optimization in the nnet3 setup",
// section "Code analysis"): which parts of which matrices each command reads
// and writes, the per-variable and per-matrix access lists derived from
// that, and queries on them that the optimizer passes use. The API follows
// Kaldi's nnet3/nnet-analyze.h so that passes written against Kaldi's design
// carry over.
//
// Invariants:
//  - a "variable" is one cell of the grid that splits a matrix at every row
//    and column boundary of its submatrices; every submatrix is exactly a
//    union of variables, and variables are numbered matrix by matrix,
//    row-block major (matrix 0, the empty matrix, has none);
//  - every list in a CommandAttributes is sorted and free of duplicates;
//  - variable and matrix access lists are sorted by command index with at
//    most one Access per command (a read plus a write is kReadWriteAccess);
//  - kAllocMatrix, kDeallocMatrix and kSwapMatrix touch no variable; they
//    show up only as allocate_command / deallocate_command of a matrix.
#ifndef NNET3_NNET3_ANALYZE_ANALYZE_H_
#define NNET3_NNET3_ANALYZE_ANALYZE_H_

#include <string>
#include <vector>

#include "base/types.h"
#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

enum AccessType { kReadAccess, kWriteAccess, kReadWriteAccess };

struct CommandAttributes;

// Splits each matrix into variables (see the invariants above).
class ComputationVariables {
 public:
  // Must be called once, before anything else.
  void Init(const NnetComputation &computation);

  // Appends the variables that make up submatrix 'submatrix_index' (row
  // block by row block, columns increasing within a row block).
  void AppendVariablesForSubmatrix(int32 submatrix_index,
                                   std::vector<int32> *variable_indexes) const;
  // Appends all variables of matrix 'matrix_index', in increasing order.
  void AppendVariablesForMatrix(int32 matrix_index,
                                std::vector<int32> *variable_indexes) const;

  // Records in 'ca' an access of the given type to the submatrix: its
  // variables, the submatrix and the matrix go into the read and/or written
  // lists. A write to a submatrix that is not the whole matrix also counts
  // as a read of the matrix (the result depends on the untouched part); at
  // the variable level a write stays a write, since a submatrix always
  // covers its variables entirely. Submatrix 0 records nothing.
  void RecordAccessForSubmatrix(int32 submatrix_index, AccessType access_type,
                                CommandAttributes *ca) const;

  int32 NumVariables() const { return num_variables_; }
  int32 GetMatrixForVariable(int32 variable) const;
  // E.g. "m1" for a matrix that is a single variable, else
  // "m1(0:9, 10:19)" (inclusive row range, then column range; ":" for the
  // whole range when that dimension is not split).
  std::string DescribeVariable(int32 variable) const;
  // The variable's place as a submatrix description.
  NnetComputation::SubMatrixInfo GetVariableInfo(int32 variable) const;
  // True if the submatrix covers its whole matrix.
  bool SubmatrixIsWholeMatrix(int32 submatrix_index) const;

 private:
  // For each matrix, the sorted distinct row / column boundaries (including
  // 0 and the size).
  std::vector<std::vector<int32> > row_split_points_;
  std::vector<std::vector<int32> > column_split_points_;
  // matrix_to_variable_index_[m] is the first variable of matrix m; it has
  // num-matrices + 1 entries.
  std::vector<int32> matrix_to_variable_index_;
  std::vector<int32> submatrix_to_matrix_;
  std::vector<bool> submatrix_is_whole_matrix_;
  std::vector<std::vector<int32> > variables_for_submatrix_;
  std::vector<int32> variable_to_matrix_;
  int32 num_variables_ = 0;
};

struct CommandAttributes {
  std::vector<int32> variables_read;
  std::vector<int32> variables_written;
  std::vector<int32> submatrices_read;
  std::vector<int32> submatrices_written;
  std::vector<int32> matrices_read;
  std::vector<int32> matrices_written;
  // True for commands whose effect goes beyond the matrices: a kBackprop
  // (with model update) of an updatable component. As in Kaldi, a kPropagate
  // with StoreStats is not counted.
  bool has_side_effects = false;
};

// One CommandAttributes per command; errors (UserError) on an unknown
// command type.
void ComputeCommandAttributes(const Nnet &nnet,
                              const NnetComputation &computation,
                              const ComputationVariables &variables,
                              std::vector<CommandAttributes> *attributes);

struct Access {
  int32 command_index = -1;
  AccessType access_type = kReadAccess;
  Access() {}
  Access(int32 c, AccessType a) : command_index(c), access_type(a) {}
  bool operator==(const Access &o) const {
    return command_index == o.command_index && access_type == o.access_type;
  }
};

// (*variable_accesses)[v] lists the commands that touch variable v, sorted,
// one consolidated Access per command.
void ComputeVariableAccesses(
    const ComputationVariables &variables,
    const std::vector<CommandAttributes> &command_attributes,
    std::vector<std::vector<Access> > *variable_accesses);

struct MatrixAccesses {
  // The kAllocMatrix (or, for inputs, the first kAcceptInput; or the
  // kSwapMatrix that gives this matrix the other one's data) command, -1 if
  // none.
  int32 allocate_command = -1;
  // The kDeallocMatrix (or the kSwapMatrix that hands the data of this
  // matrix over to the other one) command, -1 if none.
  int32 deallocate_command = -1;
  // Sorted by command, one per command; a write to part of the matrix is
  // recorded as kReadWriteAccess. kAllocMatrix / kDeallocMatrix /
  // kSwapMatrix are not accesses.
  std::vector<Access> accesses;
  bool is_input = false;   // some kAcceptInput fills it
  bool is_output = false;  // some kProvideOutput hands it over
};

// Errors (UserError) if a sizing command does not name a whole matrix, if a
// matrix is allocated twice or deallocated twice.
void ComputeMatrixAccesses(
    const Nnet &nnet, const NnetComputation &computation,
    const ComputationVariables &variables,
    const std::vector<CommandAttributes> &command_attributes,
    std::vector<MatrixAccesses> *matrix_accesses);

// All of the analysis above, in order.
struct Analyzer {
  ComputationVariables variables;
  std::vector<CommandAttributes> command_attributes;
  std::vector<std::vector<Access> > variable_accesses;
  std::vector<MatrixAccesses> matrix_accesses;
  void Init(const Nnet &nnet, const NnetComputation &computation);
};

// Queries on an Analyzer. 's' is a submatrix index (> 0), 'm' a matrix
// index (> 0), 'c' a command index. Both references must outlive this.
class ComputationAnalysis {
 public:
  ComputationAnalysis(const NnetComputation &computation,
                      const Analyzer &analyzer)
      : computation_(computation), analyzer_(analyzer) {}

  // The first command that accesses any variable of s other than a zeroing
  // command (kSetConst with alpha == 0); num-commands if none.
  int32 FirstNontrivialAccess(int32 s) const;
  // The first command that accesses any variable of s; num-commands if none.
  int32 FirstAccess(int32 s) const;
  // The last command that accesses any variable of s; -1 if none.
  int32 LastAccess(int32 s) const;
  // The last command that writes (or read-writes) any variable of s; -1 if
  // none; num-commands if the matrix of s is an output.
  int32 LastWriteAccess(int32 s) const;
  // The first command after c that writes (or read-writes) a variable of s,
  // or else the command that deallocates its matrix, or else num-commands.
  int32 DataInvalidatedCommand(int32 c, int32 s) const;
  // As FirstNontrivialAccess, for a whole matrix.
  int32 FirstNontrivialMatrixAccess(int32 m) const;
  // The last command that accesses matrix m; -1 if none.
  int32 LastMatrixAccess(int32 m) const;

 private:
  bool IsZeroing(int32 command_index) const;
  const NnetComputation &computation_;
  const Analyzer &analyzer_;
};

// The most bytes (sizeof(BaseFloat) per element) held by matrices at once,
// walking the commands in order: kAllocMatrix and kAcceptInput add the
// matrix, kDeallocMatrix subtracts it, kSwapMatrix changes nothing, and
// kCompressMatrix / kDecompressMatrix shrink and restore it (1 byte per
// element for the 8-bit types, 2 for the 16-bit ones).
int64 GetMaxMemoryUse(const NnetComputation &computation);
// (*usage)[c] = the bytes held after command c, by the same rules.
void GetMemoryProfile(const NnetComputation &computation,
                      std::vector<int64> *usage);

// The indexes of the commands of type t, in order.
void GetCommandsOfType(const NnetComputation &computation, CommandType t,
                       std::vector<int32> *command_indexes);

// (*mat_to_submat)[m] = the submatrices (> 0) of matrix m, increasing;
// entry 0 is empty.
void ComputeMatrixToSubmatrix(
    const NnetComputation &computation,
    std::vector<std::vector<int32> > *mat_to_submat);

// "c12 (kPropagate)": how error messages name a command.
std::string DescribeCommand(const NnetComputation &computation,
                            int32 command_index);

}  // namespace nnet3

#endif  // NNET3_NNET3_ANALYZE_ANALYZE_H_
