// nnet3/analyze/checker.h
// ComputationChecker: validates a compiled (and possibly optimized)
// NnetComputation against the network, to catch bugs in the compiler and in
// optimizer passes. Checks, in order (the first failure throws):
//  - CheckComputationIndexes: every argument is in range and the dimensions
//    agree with the command and the components (see checker.cc);
//  - CheckComputationOrder: backprop commands only after a
//    kNoOperationMarker, propagate commands only before the last one;
//  - CheckComputationMatrixAccesses: each matrix is allocated once (inputs by
//    kAcceptInput, not kAllocMatrix), before any access, and freed at most
//    once, after every access; outputs are not freed;
//  - CheckComputationCompression: compression is undone by a decompression
//    in the backward pass;
//  - CheckComputationUndefined: no variable is read before it is written
//    (and, with check_unused_variables, every variable is used);
//  - CheckComputationDebugInfo: matrix_debug_info is empty or one entry per
//    matrix with one cindex per row;
//  - CheckComputationRewrite (only with check_rewrite): no variable is
//    written after it has been purely read (true of unoptimized
//    computations; in-place optimizations break it).
// Every failure is a one-line UserError naming the command ("command c12
// (kPropagate): ...") and the matrix or variable ("m3(0:9, :)") concerned.
// The checks and their rules are Kaldi's (nnet3/nnet-analyze.cc), plus the
// order check of Kaldi's earlier versions and the input/output allocation
// rules.
#ifndef NNET3_NNET3_ANALYZE_CHECKER_H_
#define NNET3_NNET3_ANALYZE_CHECKER_H_

#include <map>
#include <string>

#include "nnet3/analyze/analyze.h"

namespace nnet3 {

struct CheckComputationOptions {
  // Check that no variable is written after it is read (see above).
  bool check_rewrite = false;
  // Error if some variable is never accessed.
  bool check_unused_variables = true;
};

class ComputationChecker {
 public:
  // Both references must outlive the checker.
  ComputationChecker(const CheckComputationOptions &config, const Nnet &nnet,
                     const NnetComputation &computation);
  // Runs all checks; throws UserError on the first failure.
  void Check();

 private:
  void CheckComputationIndexes() const;
  void CheckComputationOrder() const;
  void CheckComputationMatrixAccesses() const;
  void CheckComputationCompression() const;
  void CheckComputationUndefined() const;
  void CheckComputationRewrite() const;
  void CheckComputationDebugInfo() const;

  // Checks one command's arguments; 'memo_to_command' tracks live memos.
  void CheckCommandIndexes(int32 command_index,
                           std::map<int32, int32> *memo_to_command) const;
  // "command c12 (kPropagate): "
  std::string Where(int32 command_index) const;

  CheckComputationOptions config_;
  const Nnet &nnet_;
  const NnetComputation &computation_;
  Analyzer a_;
};

// Checks 'computation' with the default options (and check_rewrite as
// given). Looped computations (ending in kGotoLabel) are checked as Kaldi
// does: the kSwapMatrix commands just before the kGotoLabel are taken as
// deallocations and unused variables are allowed.
void CheckComputation(const Nnet &nnet, const NnetComputation &computation,
                      bool check_rewrite = false);

}  // namespace nnet3

#endif  // NNET3_NNET3_ANALYZE_CHECKER_H_
