// nnet3/testing/naive-evaluator.h
// A reference evaluator for testing the compiler: nnet3's "basic algorithm",
// computing every requested output Cindex on its own, straight from the
// network graph, with no compilation, no batching and no optimization.
//
// Definitions (Kaldi's semantics):
//  - an input-node Cindex is computable iff the request supplies it;
//  - a component-node Cindex is computable iff the component says so
//    (Component::IsComputable) given its input (descriptor) node;
//  - a descriptor/output-node Cindex is computable iff every Append part is
//    (Sum: both sides; Failover: either; IfDefined and Const: always);
//  - a dim-range-node Cindex is computable iff its source Cindex is.
// Values: a descriptor's value is the concatenation over its parts of
// (constant term of the part) + sum over the part's used inputs of
// GetScaleForNode(input node) * value(input); a component's value is
// Propagate() on the one-row input; a dim-range's value is its column range.
//
// Termination: computability is decided lazily, short-circuiting Sum and
// Failover and treating IfDefined as true without looking inside, so a
// recurrence read through IfDefined never walks back past the first missing
// frame. Which inputs an IfDefined actually uses is only asked once its
// Cindex is known to be computable (its value is wanted). A Cindex reached
// again while it is being evaluated means an instantaneous cycle in the
// network, which is an error. Recursion deeper than 3000 levels is an error
// too (a recurrence without IfDefined() can never be computed); outputs are
// evaluated in order of t, so long recurrent requests stay shallow.
//
// Invariants: every value is a 1 x dim matrix; the recorded evaluation order
// lists each computed Cindex after all the Cindexes its value was made from,
// so Backward() walks it in reverse. Components must be deterministic (the
// caller sets batch-norm and dropout test mode). A component Cindex is
// computed on its own: its step has just that one output Index and the
// inputs IsComputable() says it uses (reordered and padded with blank rows
// by ReorderIndexes() where the component asks for it), with its own
// precomputed indexes, so non-simple components (statistics, convolution,
// attention, ...) are evaluated by the same rule as simple ones.
#ifndef NNET3_NNET3_TESTING_NAIVE_EVALUATOR_H_
#define NNET3_NNET3_TESTING_NAIVE_EVALUATOR_H_

#include <memory>
#include <unordered_map>
#include <vector>

#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

class NaiveEvaluator {
 public:
  // nnet must outlive this. inputs[i] has one row per
  // request.inputs[i].indexes and the input node's dimension as columns.
  NaiveEvaluator(const Nnet &nnet, const ComputationRequest &request,
                 const std::vector<Matrix<BaseFloat>> &inputs);
  ~NaiveEvaluator();

  // Whether row "row" of request output "output_index" is computable.
  bool OutputIsComputable(int32 output_index, int32 row);

  // The value of each requested row of output "output_index" (resized).
  // Throws (NNET3_ERR) naming the node and Index if a row is not
  // computable.
  void GetOutput(int32 output_index, Matrix<BaseFloat> *out);

  // Given one derivative matrix per request output (same shape as the
  // output), sets (*input_derivs)[i] to the derivative with respect to
  // request input i (zero rows for inputs not used). If gradient is non-null
  // (a copy of the network whose updatable components the caller has scaled
  // to zero and made gradients), adds the parameter gradient to it. Computes
  // any output not yet computed; may be called more than once.
  void Backward(const std::vector<Matrix<BaseFloat>> &output_derivs,
                std::vector<Matrix<BaseFloat>> *input_derivs, Nnet *gradient);

  // The input Cindexes the values computed so far were made from (each
  // once, in evaluation order).
  void GetUsedInputs(std::vector<Cindex> *used) const;

 private:
  enum Status { kInProgress, kComputable, kNotComputable };
  struct CindexInfo {
    Status status = kInProgress;
    bool has_value = false;
    bool value_in_progress = false;
    Matrix<BaseFloat> value;  // 1 x dim
    // Descriptor nodes: the inputs used by each Append part.
    std::vector<std::vector<Cindex>> part_inputs;
    void *memo = nullptr;  // component nodes with kUsesMemo
    // Component nodes: the one-Cindex step that computed this value (input
    // and output Indexes in the component's order, blanks included), its
    // input and output matrices, precomputed indexes, and the output row
    // that is this Cindex.
    std::vector<Index> step_inputs, step_outputs;
    CuMatrix<BaseFloat> step_in, step_out;
    std::unique_ptr<ComponentPrecomputedIndexes> indexes;
    int32 out_row = 0;
  };
  class AllCindexSet;
  class NodeIndexSet;

  // Memoized computability (see the header comment).
  bool Computable(const Cindex &cindex);
  bool EvaluateComputable(const Cindex &cindex);
  // Lazy, short-circuit computability of one SumDescriptor.
  bool SumComputable(const SumDescriptor &desc, const Index &index);
  // The value of a computable Cindex (computed on first use).
  const Matrix<BaseFloat> &Value(const Cindex &cindex);
  void ComputeValue(const Cindex &cindex, CindexInfo *info);
  CindexInfo &Info(const Cindex &cindex);

  const Nnet &nnet_;
  const ComputationRequest &request_;
  std::vector<int32> input_nodes_, output_nodes_;
  // Input Cindex -> (request input, row).
  std::unordered_map<Cindex, std::pair<int32, int32>, CindexHasher> input_rows_;
  const std::vector<Matrix<BaseFloat>> &inputs_;
  std::unordered_map<Cindex, std::unique_ptr<CindexInfo>, CindexHasher> info_;
  std::vector<Cindex> order_;  // evaluation order of computed values
  int32 depth_ = 0;            // recursion depth (guards runaway recursion)
};

}  // namespace nnet3

#endif  // NNET3_NNET3_TESTING_NAIVE_EVALUATOR_H_
