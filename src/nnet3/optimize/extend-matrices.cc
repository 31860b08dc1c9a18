// nnet3/optimize/extend-matrices.cc
#include "nnet3/optimize/extend-matrices.h"

#include <limits>
#include <vector>

#include "nnet3/optimize/renumber.h"

namespace nnet3 {

namespace {

typedef NnetComputation::SubMatrixInfo SubMatrixInfo;

// A destination grows only if the copy already covers this share of the
// source's rows (the checker's unused-variable rule relies on it).
const double kMinProportion = 0.8;

class MatrixExtender {
 public:
  explicit MatrixExtender(NnetComputation *computation)
      : c_(computation) {
    size_t num_matrices = c_->matrices.size();
    original_rows_.resize(num_matrices, 0);
    for (size_t m = 1; m < num_matrices; m++)
      original_rows_[m] = c_->matrices[m].num_rows;
    fixed_size_.resize(num_matrices, false);
    for (const NnetComputation::Command &cmd : c_->commands) {
      NNET3_ASSERT(cmd.command_type != kSwapMatrix &&
                   "extend-matrices must run before allocate-from-other");
      if (cmd.command_type == kAcceptInput ||
          cmd.command_type == kProvideOutput)
        fixed_size_[c_->submatrices[cmd.arg1].matrix_index] = true;
    }
  }

  bool Run() {
    bool changed = false;
    for (NnetComputation::Command &cmd : c_->commands) {
      if (cmd.command_type == kMatrixCopy && cmd.alpha == 1.0 &&
          Qualifies(cmd.arg1, cmd.arg2)) {
        Widen(&cmd.arg1, &cmd.arg2);
        changed = true;
      }
    }
    if (changed) Repair();
    return changed;
  }

 private:
  bool Qualifies(int32 dest_s, int32 src_s) const {
    const SubMatrixInfo &src = c_->submatrices[src_s];
    const SubMatrixInfo &dest = c_->submatrices[dest_s];
    if (src.matrix_index == dest.matrix_index) return false;
    if (fixed_size_[dest.matrix_index]) return false;
    const NnetComputation::MatrixInfo &src_m = c_->matrices[src.matrix_index];
    if (src.num_rows < kMinProportion * original_rows_[src.matrix_index])
      return false;
    // The source part must be a leading block of whole rows (not all of
    // them), and the destination part must reach the destination's last row.
    return src.col_offset == 0 && src.num_cols == src_m.num_cols &&
           src.row_offset == 0 && src.num_rows < src_m.num_rows &&
           dest.row_offset + dest.num_rows ==
               original_rows_[dest.matrix_index];
  }

  void Widen(int32 *dest_s, int32 *src_s) {
    SubMatrixInfo src = c_->submatrices[*src_s];
    SubMatrixInfo dest = c_->submatrices[*dest_s];
    const NnetComputation::MatrixInfo src_m = c_->matrices[src.matrix_index];
    NnetComputation::MatrixInfo &dest_m = c_->matrices[dest.matrix_index];
    int32 needed_rows = dest.row_offset + src_m.num_rows;
    if (needed_rows > dest_m.num_rows) {
      dest_m.num_rows = needed_rows;
      c_->submatrices.push_back(SubMatrixInfo(dest.matrix_index, 0,
                                              needed_rows, 0,
                                              dest_m.num_cols));
    }
    dest.num_rows = src_m.num_rows;
    *dest_s = static_cast<int32>(c_->submatrices.size());
    c_->submatrices.push_back(dest);
    *src_s = static_cast<int32>(c_->submatrices.size());
    c_->submatrices.push_back(SubMatrixInfo(src.matrix_index, 0,
                                            src_m.num_rows, 0,
                                            src_m.num_cols));
  }

  // Allocation, deallocation and whole-matrix zeroing of a grown matrix
  // must cover its new size; debug info needs a Cindex per row.
  void Repair() {
    std::vector<int32> whole;
    c_->GetWholeSubmatrices(&whole);
    for (NnetComputation::Command &cmd : c_->commands) {
      bool sizing = cmd.command_type == kAllocMatrix ||
                    cmd.command_type == kDeallocMatrix;
      bool zeroing = cmd.command_type == kSetConst && cmd.alpha == 0.0;
      if (!sizing && !zeroing) continue;
      const SubMatrixInfo &info = c_->submatrices[cmd.arg1];
      int32 m = info.matrix_index;
      if (whole[m] == cmd.arg1 || c_->matrices[m].num_rows == original_rows_[m])
        continue;
      bool was_whole = info.row_offset == 0 && info.col_offset == 0 &&
                       info.num_rows == original_rows_[m] &&
                       info.num_cols == c_->matrices[m].num_cols;
      if (sizing) NNET3_ASSERT(was_whole);
      if (was_whole) cmd.arg1 = whole[m];
    }
    if (!c_->matrix_debug_info.empty()) {
      for (size_t m = 1; m < c_->matrices.size(); m++) {
        std::vector<Cindex> &cindexes = c_->matrix_debug_info[m].cindexes;
        int32 old_rows = static_cast<int32>(cindexes.size());
        int32 new_rows = c_->matrices[m].num_rows;
        if (new_rows == old_rows) continue;
        int32 extra = new_rows - old_rows;
        NNET3_ASSERT(extra > 0 && extra <= old_rows);
        for (int32 r = old_rows; r < new_rows; r++) {
          Cindex cindex = cindexes[r - extra];
          cindex.second.t = std::numeric_limits<int32>::min();
          cindexes.push_back(cindex);
        }
      }
    }
    RenumberComputation(c_);
  }

  NnetComputation *c_;
  std::vector<int32> original_rows_;  // rows of each matrix before we began
  std::vector<bool> fixed_size_;      // used by kAcceptInput/kProvideOutput
};

}  // namespace

bool ExtendMatrices(NnetComputation *computation) {
  return MatrixExtender(computation).Run();
}

}  // namespace nnet3
