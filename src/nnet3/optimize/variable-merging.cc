// nnet3/optimize/variable-merging.cc
// VariableMergingOptimization (see variable-merging.h).
//
// Vocabulary: for a candidate command c reading s1 (matrix m1) and writing
// s2 (matrix m2), the merge keeps one matrix K (with its submatrix s_keep)
// and drops the other, D, whose submatrix s_discard must be all of D.
// After the merge D's data lives in the region R = s_keep of K.
//
// The conditions are Kaldi's (VariableMergingOptimizer::MayBeMerged):
//  - m1 != m2, neither touched by an earlier merge of this round;
//  - not both inputs, not both outputs; if either is an input or an output
//    both submatrices are whole matrices (kAcceptInput / kProvideOutput
//    name whole matrices);
//  - a left merge (keep m1) needs s2 whole, a right merge (keep m2) needs
//    s1 whole; a matrix with kStrideEqualNumCols may only be dropped into a
//    whole matrix;
//  - only zeroings touch s2 before c;
//  - for an assignment (kMatrixCopy, alpha 1): s1 is not written from c on
//    (an output counts as written at the end), and every later read of s1
//    comes before s2 is next written or freed;
//  - otherwise (in place): c is the last command that touches s1.
// Added here, so that the result is right wherever the pass runs (Kaldi
// relies on running right after compilation, where they all hold):
//  - c purely writes all of s2 (so the zeroings of s2 before c are dead),
//    and for an in-place command m1 is not an output;
//  - a backprop's input and output values are in neither matrix;
//  - no compression commands on either matrix;
//  - zeroing: as Kaldi, D's leading zeroing goes when K's zeroings of s2
//    zero all of R before D's data is next touched (right merges);
//    otherwise the zeroings of s2 before c go if they touch nothing else,
//    and any that do must come before D's data is first touched;
//  - allocation: D's goes if K is allocated before D's data is first
//    touched, else (same size) K's goes if D's comes before K is first
//    touched; an input's kAcceptInput always stays (then K's allocation
//    goes, and nothing of K may remain before it);
//  - deallocation: D's goes if K is freed after D's data is last touched
//    (or never), else (same size) K's goes if D's comes after K's last use;
//    if D is never freed (an output), K's goes.
// The merged matrix thus lives within K's lifetime, or (K and D being the
// same size) within the union of the two overlapping lifetimes, so peak
// memory cannot grow.
#include "nnet3/optimize/variable-merging.h"

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <vector>

#include "base/log.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/optimize/renumber.h"

namespace nnet3 {

namespace {

typedef NnetComputation::Command Command;
typedef NnetComputation::SubMatrixInfo SubMatrixInfo;

bool IsZeroingCommand(const Command &c) {
  return c.command_type == kSetConst && c.alpha == 0.0;
}

bool IsSortedSubset(const std::vector<int32> &small,
                    const std::vector<int32> &big) {
  return std::includes(big.begin(), big.end(), small.begin(), small.end());
}

// What one merge changes, worked out before anything is changed.
struct MergePlan {
  int32 command = -1;
  int32 s_keep = 0, s_discard = 0;
  int32 m_keep = 0, m_discard = 0;
  std::vector<int32> to_remove;  // commands that become kNoOperation
};

class VariableMerger {
 public:
  VariableMerger(const NnetOptimizeOptions &config, const Nnet &nnet,
                 NnetComputation *computation);
  // One round over all commands; true if some merge was done.
  bool MergeVariables();

 private:
  // The candidate pair (s1 read, s2 written) of command c, or false.
  bool GetCandidate(int32 c, int32 *s1, int32 *s2) const;
  // Kaldi's conditions: whether a left merge (keep m1) and a right merge
  // (keep m2) are allowed.
  std::pair<bool, bool> MayBeMerged(int32 c, int32 s1, int32 s2) const;
  // Works out the merge that keeps s1 (keep_source) or s2; false if one of
  // the conditions on allocation, deallocation and zeroing fails.
  bool PlanMerge(int32 c, int32 s1, int32 s2, bool keep_source,
                 MergePlan *plan) const;
  void DoMerge(const MergePlan &plan);

  // True if command c writes every variable of s, none read-write.
  bool PurelyWrites(int32 c, int32 s) const;
  void SortedVariables(int32 s, std::vector<int32> *vars) const;
  // The first access to matrix m by a command not in 'removed' (sorted);
  // num-commands if none.
  int32 FirstRemainingAccess(int32 m, const std::vector<int32> &removed) const;

  const NnetOptimizeOptions &config_;
  const Nnet &nnet_;
  NnetComputation *computation_;
  Analyzer analyzer_;
  std::vector<std::vector<int32> > matrix_to_submatrix_;
  // Matrices changed by a merge in this round: the analysis no longer
  // describes them.
  std::vector<bool> matrix_dirty_;
  std::vector<bool> matrix_compressed_;
};

VariableMerger::VariableMerger(const NnetOptimizeOptions &config,
                               const Nnet &nnet, NnetComputation *computation)
    : config_(config), nnet_(nnet), computation_(computation) {
  analyzer_.Init(nnet, *computation);
  ComputeMatrixToSubmatrix(*computation, &matrix_to_submatrix_);
  int32 num_matrices = static_cast<int32>(computation->matrices.size());
  matrix_dirty_.assign(num_matrices, false);
  matrix_compressed_.assign(num_matrices, false);
  for (const Command &c : computation->commands)
    if (c.command_type == kCompressMatrix ||
        c.command_type == kDecompressMatrix)
      matrix_compressed_[computation->submatrices[c.arg1].matrix_index] = true;
}

void VariableMerger::SortedVariables(int32 s, std::vector<int32> *vars) const {
  vars->clear();
  analyzer_.variables.AppendVariablesForSubmatrix(s, vars);
  std::sort(vars->begin(), vars->end());
}

bool VariableMerger::PurelyWrites(int32 c, int32 s) const {
  std::vector<int32> vars;
  analyzer_.variables.AppendVariablesForSubmatrix(s, &vars);
  for (int32 v : vars) {
    const std::vector<Access> &acc = analyzer_.variable_accesses[v];
    std::vector<Access>::const_iterator it = std::lower_bound(
        acc.begin(), acc.end(), c, [](const Access &a, int32 command) {
          return a.command_index < command;
        });
    if (it == acc.end() || it->command_index != c ||
        it->access_type != kWriteAccess)
      return false;
  }
  return true;
}

int32 VariableMerger::FirstRemainingAccess(
    int32 m, const std::vector<int32> &removed) const {
  for (const Access &a : analyzer_.matrix_accesses[m].accesses)
    if (!std::binary_search(removed.begin(), removed.end(), a.command_index))
      return a.command_index;
  return static_cast<int32>(computation_->commands.size());
}

bool VariableMerger::GetCandidate(int32 c, int32 *s1, int32 *s2) const {
  const Command &cmd = computation_->commands[c];
  *s1 = -1;
  *s2 = -1;
  switch (cmd.command_type) {
    case kMatrixCopy:
      if (!config_.remove_assignments) return false;
      *s1 = cmd.arg2;
      *s2 = cmd.arg1;
      break;
    case kPropagate:
      if (!config_.propagate_in_place ||
          !(nnet_.GetComponent(cmd.arg1)->Properties() & kPropagateInPlace))
        return false;
      *s1 = cmd.arg3;
      *s2 = cmd.arg4;
      break;
    case kBackprop:
    case kBackpropNoModelUpdate:
      if (!config_.backprop_in_place ||
          !(nnet_.GetComponent(cmd.arg1)->Properties() & kBackpropInPlace))
        return false;
      *s1 = cmd.arg5;
      *s2 = cmd.arg6;
      break;
    default:
      return false;
  }
  return *s1 > 0 && *s2 > 0;
}

std::pair<bool, bool> VariableMerger::MayBeMerged(int32 c, int32 s1,
                                                  int32 s2) const {
  const std::pair<bool, bool> no(false, false);
  if (!config_.allow_left_merge && !config_.allow_right_merge) return no;
  const NnetComputation &comp = *computation_;
  const SubMatrixInfo &info1 = comp.submatrices[s1],
                      &info2 = comp.submatrices[s2];
  int32 m1 = info1.matrix_index, m2 = info2.matrix_index;
  if (m1 == m2 || matrix_dirty_[m1] || matrix_dirty_[m2]) return no;
  if (matrix_compressed_[m1] || matrix_compressed_[m2]) return no;
  if (info1.num_rows != info2.num_rows || info1.num_cols != info2.num_cols)
    return no;
  const Command &cmd = comp.commands[c];
  if (cmd.command_type == kBackprop ||
      cmd.command_type == kBackpropNoModelUpdate) {
    for (int32 s : {cmd.arg3, cmd.arg4}) {
      if (s <= 0) continue;
      int32 m = comp.submatrices[s].matrix_index;
      if (m == m1 || m == m2) return no;
    }
  }
  const MatrixAccesses &a1 = analyzer_.matrix_accesses[m1],
                       &a2 = analyzer_.matrix_accesses[m2];
  if ((a1.is_input && a2.is_input) || (a1.is_output && a2.is_output)) return no;
  bool whole1 = comp.IsWholeMatrix(s1), whole2 = comp.IsWholeMatrix(s2);
  if ((a1.is_input || a1.is_output || a2.is_input || a2.is_output) &&
      !(whole1 && whole2))
    return no;
  bool left = config_.allow_left_merge, right = config_.allow_right_merge;
  if (!whole2) left = false;
  if (!whole1) right = false;
  if (comp.matrices[m2].stride_type == kStrideEqualNumCols && !whole1)
    left = false;
  if (comp.matrices[m1].stride_type == kStrideEqualNumCols && !whole2)
    right = false;
  if (!left && !right) return no;
  if (!PurelyWrites(c, s2)) return no;

  ComputationAnalysis analysis(comp, analyzer_);
  if (analysis.FirstNontrivialAccess(s2) != c) return no;
  bool is_assignment = cmd.command_type == kMatrixCopy && cmd.alpha == 1.0;
  if (is_assignment) {
    if (analysis.LastWriteAccess(s1) < c &&
        analysis.LastAccess(s1) < analysis.DataInvalidatedCommand(c, s2))
      return std::make_pair(left, right);
  } else {
    if (!a1.is_output && analysis.LastAccess(s1) == c)
      return std::make_pair(left, right);
  }
  return no;
}

bool VariableMerger::PlanMerge(int32 c, int32 s1, int32 s2, bool keep_source,
                               MergePlan *plan) const {
  const NnetComputation &comp = *computation_;
  const std::vector<Command> &cmds = comp.commands;
  plan->command = c;
  plan->s_keep = keep_source ? s1 : s2;
  plan->s_discard = keep_source ? s2 : s1;
  plan->m_keep = comp.submatrices[plan->s_keep].matrix_index;
  plan->m_discard = comp.submatrices[plan->s_discard].matrix_index;
  plan->to_remove.clear();
  NNET3_ASSERT(comp.IsWholeMatrix(plan->s_discard));
  const MatrixAccesses &mk = analyzer_.matrix_accesses[plan->m_keep],
                       &md = analyzer_.matrix_accesses[plan->m_discard];
  // Sorted while FirstRemainingAccess() reads it.
  std::vector<int32> &remove = plan->to_remove;

  // 1. Only zeroings touch s2 before c, and c overwrites all of s2, so
  // those zeroings are dead as far as s2 is concerned.
  std::vector<int32> vars2, zeroings, vars_z, covered;
  SortedVariables(s2, &vars2);
  for (int32 v : vars2)
    for (const Access &a : analyzer_.variable_accesses[v]) {
      if (a.command_index >= c) break;
      zeroings.push_back(a.command_index);
    }
  std::sort(zeroings.begin(), zeroings.end());
  zeroings.erase(std::unique(zeroings.begin(), zeroings.end()), zeroings.end());
  for (int32 z : zeroings) {
    if (!IsZeroingCommand(cmds[z])) return false;
    SortedVariables(cmds[z].arg1, &vars_z);
    covered.insert(covered.end(), vars_z.begin(), vars_z.end());
  }
  std::sort(covered.begin(), covered.end());
  int32 num_commands = static_cast<int32>(cmds.size()), first_discard = -1;

  // 2a. Kaldi's way, for a right merge (those zeroings are K's): keep them
  // and drop D's own zeroing instead, if it zeroes all of D first and the
  // kept ones zero all of R before anything else of D touches it.
  if (!keep_source && !md.accesses.empty()) {
    int32 z_d = md.accesses.front().command_index;
    const Command &first = cmds[z_d];
    if (IsZeroingCommand(first) &&
        comp.submatrices[first.arg1].matrix_index == plan->m_discard &&
        comp.IsWholeMatrix(first.arg1) && IsSortedSubset(vars2, covered)) {
      std::vector<int32> candidate(1, z_d);
      int32 next = FirstRemainingAccess(plan->m_discard, candidate);
      if (next < num_commands && (zeroings.empty() || zeroings.back() < next)) {
        remove = candidate;
        first_discard = next;
      }
    }
  }
  // 2b. Otherwise: the zeroings that touch nothing outside s2 go (they
  // would overwrite D's data); the others stay, and must be done before D's
  // data exists in R.
  if (first_discard == -1) {
    std::vector<int32> kept;
    for (int32 z : zeroings) {
      SortedVariables(cmds[z].arg1, &vars_z);
      if (IsSortedSubset(vars_z, vars2))
        remove.push_back(z);
      else
        kept.push_back(z);
    }
    first_discard = FirstRemainingAccess(plan->m_discard, remove);
    if (first_discard >= num_commands) return false;
    for (int32 z : kept)
      if (z >= first_discard) return false;
  }

  // 3. One allocation remains. An input's kAcceptInput must stay where it
  // is, so then K's allocation goes, and nothing of K may be left before
  // it. Otherwise D's allocation goes if K is allocated in time; failing
  // that, if K and D are the same size, K's goes if D's is early enough
  // (D's allocation then allocates K, through its redirected submatrix).
  bool keep_whole = comp.IsWholeMatrix(plan->s_keep);
  int32 alloc_keep = mk.allocate_command, alloc_discard = md.allocate_command;
  if (alloc_keep == -1 || alloc_discard == -1) return false;
  CommandType alloc_keep_type = cmds[alloc_keep].command_type,
              alloc_discard_type = cmds[alloc_discard].command_type;
  if (alloc_discard_type == kAcceptInput) {
    if (alloc_keep_type != kAllocMatrix ||
        FirstRemainingAccess(plan->m_keep, remove) <= alloc_discard)
      return false;
    remove.push_back(alloc_keep);
  } else if (alloc_discard_type != kAllocMatrix) {
    return false;
  } else if (alloc_keep < first_discard) {
    remove.push_back(alloc_discard);
  } else if (keep_whole && alloc_keep_type == kAllocMatrix &&
             alloc_discard < FirstRemainingAccess(plan->m_keep, remove)) {
    remove.push_back(alloc_keep);
  } else {
    return false;
  }

  // 4. One deallocation remains: K's, if it comes after D's data is last
  // used; else, if K and D are the same size, D's, if it comes after K's
  // data is last used. If D is never freed (an output), none.
  ComputationAnalysis analysis(comp, analyzer_);
  int32 dealloc_keep = mk.deallocate_command,
        dealloc_discard = md.deallocate_command;
  if (dealloc_discard != -1) {
    if (cmds[dealloc_discard].command_type != kDeallocMatrix) return false;
    if (dealloc_keep == -1 ||
        dealloc_keep > analysis.LastMatrixAccess(plan->m_discard)) {
      remove.push_back(dealloc_discard);
    } else if (keep_whole &&
               cmds[dealloc_keep].command_type == kDeallocMatrix &&
               dealloc_discard > analysis.LastMatrixAccess(plan->m_keep)) {
      remove.push_back(dealloc_keep);
    } else {
      return false;
    }
  } else if (dealloc_keep != -1) {
    if (cmds[dealloc_keep].command_type != kDeallocMatrix) return false;
    remove.push_back(dealloc_keep);
  }

  // 5. An assignment with alpha 1 becomes a copy onto itself: drop it.
  // (Other copies stay, scaling the data in place.)
  if (cmds[c].command_type == kMatrixCopy && cmds[c].alpha == 1.0)
    remove.push_back(c);
  std::sort(remove.begin(), remove.end());
  remove.erase(std::unique(remove.begin(), remove.end()), remove.end());
  return true;
}

void VariableMerger::DoMerge(const MergePlan &plan) {
  NnetComputation &comp = *computation_;
  matrix_dirty_[plan.m_keep] = true;
  matrix_dirty_[plan.m_discard] = true;
  const SubMatrixInfo keep = comp.submatrices[plan.s_keep];
  const NnetComputation::MatrixInfo &discard_info =
      comp.matrices[plan.m_discard];
  NNET3_ASSERT(keep.num_rows == discard_info.num_rows &&
               keep.num_cols == discard_info.num_cols);
  // Every submatrix of D becomes the same part of R.
  for (int32 s : matrix_to_submatrix_[plan.m_discard]) {
    SubMatrixInfo &info = comp.submatrices[s];
    NNET3_ASSERT(info.matrix_index == plan.m_discard);
    info = SubMatrixInfo(plan.m_keep, keep.row_offset + info.row_offset,
                         info.num_rows, keep.col_offset + info.col_offset,
                         info.num_cols);
  }
  for (int32 c : plan.to_remove) comp.commands[c] = Command(kNoOperation);
  // D may have needed contiguous rows; then K (all of it, see MayBeMerged)
  // must provide them.
  if (discard_info.stride_type == kStrideEqualNumCols) {
    NNET3_ASSERT(comp.IsWholeMatrix(plan.s_keep));
    comp.matrices[plan.m_keep].stride_type = kStrideEqualNumCols;
  }
}

bool VariableMerger::MergeVariables() {
  bool merged = false;
  int32 num_commands = static_cast<int32>(computation_->commands.size());
  for (int32 c = 0; c < num_commands; c++) {
    int32 s1, s2;
    if (!GetCandidate(c, &s1, &s2)) continue;
    std::pair<bool, bool> p = MayBeMerged(c, s1, s2);
    MergePlan plan;
    if ((p.first && PlanMerge(c, s1, s2, true, &plan)) ||
        (p.second && PlanMerge(c, s1, s2, false, &plan))) {
      DoMerge(plan);
      merged = true;
    }
  }
  return merged;
}

}  // namespace

bool VariableMergingOptimization(const NnetOptimizeOptions &config,
                                 const Nnet &nnet,
                                 NnetComputation *computation) {
  if (!config.optimize ||
      !(config.remove_assignments || config.propagate_in_place ||
        config.backprop_in_place))
    return false;
  for (const Command &c : computation->commands)
    if (c.command_type == kGotoLabel) return false;
  VariableMerger merger(config, nnet, computation);
  if (!merger.MergeVariables()) return false;
  RemoveNoOps(computation);
  return true;
}

}  // namespace nnet3
