// nnet3/optimize/consolidate-update.cc
// ConsolidateModelUpdate (see consolidate-update.h). The algorithm is
// Kaldi's (ModelUpdateConsolidator in nnet3/nnet-optimize-utils.cc); the
// differences: the consolidated kBackprop goes right after the last
// per-step command instead of at the very end, the new matrices live only
// from the first per-step command to it (and are not zeroed, since the
// copies write every row before anything reads them), and per-step commands
// left with nothing to compute are dropped.
#include "nnet3/optimize/consolidate-update.h"

#include <vector>

#include "base/log.h"

namespace nnet3 {

namespace {

typedef NnetComputation::Command Command;

class UpdateConsolidator {
 public:
  UpdateConsolidator(const Nnet &nnet, NnetComputation *computation)
      : nnet_(nnet), computation_(computation),
        before_(computation->commands.size()),
        after_(computation->commands.size()) {}

  void Run();

 private:
  // Whether command 'c' is a kBackprop whose model update this pass may
  // move into a consolidated command.
  bool IsEligible(const Command &c) const;

  // The per-step commands 'commands' (in order) of one component become
  // kBackpropNoModelUpdate, and one consolidated kBackprop is scheduled
  // after the last of them.
  void ConsolidateComponent(int32 component_index,
                            const std::vector<int32> &commands);

  // Creates a matrix holding the rows of submatrices 'parts' one after the
  // other, where parts[i] is what command commands[i] reads; schedules its
  // allocation before commands[0], the copy of parts[i] into its row range
  // just before commands[i], and appends its deallocation to '*deallocs'.
  // 'contiguous' forces kStrideEqualNumCols. Returns the new whole-matrix
  // submatrix.
  int32 Concatenate(const std::vector<int32> &commands,
                    const std::vector<int32> &parts, bool contiguous,
                    std::vector<Command> *deallocs);

  // Writes the scheduled commands into computation_->commands.
  void Commit();

  const Nnet &nnet_;
  NnetComputation *computation_;
  // Commands to insert just before / just after each original command.
  std::vector<std::vector<Command> > before_;
  std::vector<std::vector<Command> > after_;
};

bool UpdateConsolidator::IsEligible(const Command &c) const {
  if (c.command_type != kBackprop) return false;
  if (c.arg1 < 0 || c.arg1 >= nnet_.NumComponents()) return false;
  int32 props = nnet_.GetComponent(c.arg1)->Properties();
  if (!(props & kUpdatableComponent) || !(props & kSimpleComponent) ||
      (props & kUsesMemo))
    return false;
  // Precomputed indexes or a memo would tie the update to this one step.
  if (c.arg2 > 0 || c.arg7 > 0) return false;
  if (c.arg5 <= 0) return false;
  if ((props & kBackpropNeedsInput) && c.arg3 <= 0) return false;
  if ((props & kBackpropNeedsOutput) && c.arg4 <= 0) return false;
  return true;
}

int32 UpdateConsolidator::Concatenate(const std::vector<int32> &commands,
                                      const std::vector<int32> &parts,
                                      bool contiguous,
                                      std::vector<Command> *deallocs) {
  NNET3_ASSERT(parts.size() == commands.size() && parts.size() > 1);
  const std::vector<NnetComputation::SubMatrixInfo> &subs =
      computation_->submatrices;
  int32 num_cols = subs[parts[0]].num_cols, num_rows = 0;
  MatrixStrideType stride = contiguous ? kStrideEqualNumCols : kDefaultStride;
  bool have_debug_info = !computation_->matrix_debug_info.empty();
  NnetComputation::MatrixDebugInfo debug_info;
  for (int32 s : parts) {
    const NnetComputation::SubMatrixInfo &info = subs[s];
    NNET3_ASSERT(info.num_cols == num_cols && info.num_rows > 0);
    num_rows += info.num_rows;
    // Keep the stride promise of any source that made one.
    if (computation_->IsWholeMatrix(s) &&
        computation_->matrices[info.matrix_index].stride_type ==
            kStrideEqualNumCols)
      stride = kStrideEqualNumCols;
    if (have_debug_info) {
      const NnetComputation::MatrixDebugInfo &src =
          computation_->matrix_debug_info[info.matrix_index];
      NNET3_ASSERT(src.cindexes.size() ==
                   static_cast<size_t>(
                       computation_->matrices[info.matrix_index].num_rows));
      debug_info.is_deriv = src.is_deriv;
      debug_info.cindexes.insert(
          debug_info.cindexes.end(), src.cindexes.begin() + info.row_offset,
          src.cindexes.begin() + info.row_offset + info.num_rows);
    }
  }
  int32 whole = computation_->NewMatrix(num_rows, num_cols, stride);
  if (have_debug_info) {
    int32 m = computation_->submatrices[whole].matrix_index;
    computation_->matrix_debug_info[m] = debug_info;
  }
  // Every row is written by one of the copies below before the
  // consolidated kBackprop reads it, so the matrix needs no zeroing.
  before_[commands[0]].push_back(Command(kAllocMatrix, whole));
  int32 row_offset = 0;
  for (size_t i = 0; i < parts.size(); i++) {
    int32 rows = computation_->submatrices[parts[i]].num_rows;
    int32 dest = computation_->NewSubMatrix(whole, row_offset, rows, 0,
                                            num_cols);
    before_[commands[i]].push_back(Command(kMatrixCopy, dest, parts[i]));
    row_offset += rows;
  }
  NNET3_ASSERT(row_offset == num_rows);
  deallocs->push_back(Command(kDeallocMatrix, whole));
  return whole;
}

void UpdateConsolidator::ConsolidateComponent(
    int32 component_index, const std::vector<int32> &commands) {
  int32 props = nnet_.GetComponent(component_index)->Properties();
  bool need_input = (props & kBackpropNeedsInput) != 0,
       need_output = (props & kBackpropNeedsOutput) != 0;
  std::vector<int32> in_values, out_values, out_derivs;
  for (int32 ci : commands) {
    const Command &c = computation_->commands[ci];
    if (need_input) in_values.push_back(c.arg3);
    if (need_output) out_values.push_back(c.arg4);
    out_derivs.push_back(c.arg5);
  }
  std::vector<Command> deallocs;
  int32 in_value =
      need_input ? Concatenate(commands, in_values,
                               (props & kInputContiguous) != 0, &deallocs)
                 : 0;
  int32 out_value =
      need_output ? Concatenate(commands, out_values,
                                (props & kOutputContiguous) != 0, &deallocs)
                  : 0;
  int32 out_deriv = Concatenate(commands, out_derivs,
                                (props & kOutputContiguous) != 0, &deallocs);
  // A simple component has as many input rows as output rows.
  NNET3_ASSERT(in_value == 0 ||
               computation_->submatrices[in_value].num_rows ==
                   computation_->submatrices[out_deriv].num_rows);

  // The per-step commands keep computing input derivatives only; one with
  // no input derivative has nothing left to do.
  for (int32 ci : commands) {
    Command &c = computation_->commands[ci];
    if (c.arg6 > 0) {
      c.command_type = kBackpropNoModelUpdate;
    } else {
      c = Command(kNoOperation);
    }
  }
  // The whole update, from all the steps' rows: no precomputed indexes
  // (simple component), no input derivative, no memo.
  std::vector<Command> &after = after_[commands.back()];
  after.push_back(Command(kBackprop, component_index, 0, in_value, out_value,
                          out_deriv, 0, 0));
  after.insert(after.end(), deallocs.begin(), deallocs.end());
}

void UpdateConsolidator::Commit() {
  std::vector<Command> commands;
  size_t num_old = computation_->commands.size();
  NNET3_ASSERT(before_.size() == num_old && after_.size() == num_old);
  for (size_t c = 0; c < num_old; c++) {
    commands.insert(commands.end(), before_[c].begin(), before_[c].end());
    commands.push_back(computation_->commands[c]);
    commands.insert(commands.end(), after_[c].begin(), after_[c].end());
  }
  computation_->commands.swap(commands);
}

void UpdateConsolidator::Run() {
  int32 num_components = nnet_.NumComponents(),
        num_commands = static_cast<int32>(computation_->commands.size());
  std::vector<std::vector<int32> > backprops(num_components);
  for (int32 ci = 0; ci < num_commands; ci++) {
    const Command &c = computation_->commands[ci];
    // A looped computation repeats its body; updates there stay per step.
    if (c.command_type == kGotoLabel) return;
    if (IsEligible(c)) backprops[c.arg1].push_back(ci);
  }
  bool changed = false;
  for (int32 comp = 0; comp < num_components; comp++) {
    if (backprops[comp].size() > 1) {
      ConsolidateComponent(comp, backprops[comp]);
      changed = true;
    }
  }
  if (changed) Commit();
}

}  // namespace

void ConsolidateModelUpdate(const Nnet &nnet, NnetComputation *computation) {
  // Without a model update there is nothing to consolidate.
  if (!computation->need_model_derivative) return;
  UpdateConsolidator consolidator(nnet, computation);
  consolidator.Run();
}

}  // namespace nnet3
