// nnet3/compute/nnet-computer.h
// NnetComputer: executes an NnetComputation (see nnet3/compile/computation.h)
// on a network, with Kaldi's nnet3 NnetComputer semantics.
//
// Usage (training):
//   NnetComputer computer(opts, computation, nnet, &delta_nnet);
//   computer.AcceptInput("input", &feats);          // before the first Run()
//   computer.Run();                                  // forward pass
//   const CuMatrixBase<BaseFloat> &out = computer.GetOutput("output");
//   computer.AcceptOutputDeriv("output", &deriv);
//   computer.Run();                                  // backward pass
//   computer.GetInputDeriv("input");                 // if requested
//
// Run() executes commands from the program counter. A kAcceptInput command
// consumes the matrix supplied for its node (the value for an input node,
// the derivative for an output node); matrices may be supplied at any time
// before that command is reached. If it has not been supplied, Run()
// returns (the caller supplies it and calls Run() again) provided this call
// has already executed a kProvideOutput, i.e. handed something back that the
// missing matrix may depend on; otherwise it is a UserError naming the node.
// kProvideOutput makes a matrix available to GetOutput() (for an input node:
// the input derivative). A computation that ends in kGotoLabel (a looped
// computation) never finishes: each Run() processes one more segment once
// its inputs are supplied. kCompressMatrix/kDecompressMatrix store the matrix
// the way Kaldi does on a GPU (arg2: 1=int8, 2=uint8, 3=int16, 4=uint16;
// alpha: the range, 0 = keep only the sign; arg3: truncate), so the values
// after decompression are quantized.
//
// Invariants:
//  - matrices_ has one entry per matrix of the computation; a matrix is
//    either empty (not allocated, or compressed) or has exactly the size the
//    computation declares for it;
//  - memos_[i] is the memo stored under memo index i (with the index of the
//    component that made it) until a backprop consumes it; the destructor
//    frees any left over;
//  - supplied_ holds matrices given by the caller and not yet consumed, each
//    already checked against the size its kAcceptInput expects.
// The computation and the networks are referenced, not copied: they must
// outlive the NnetComputer.
#ifndef NNET3_NNET3_COMPUTE_NNET_COMPUTER_H_
#define NNET3_NNET3_COMPUTE_NNET_COMPUTER_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cudamatrix/cu-matrix.h"
#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"
#include "util/options.h"

namespace nnet3 {

struct NnetComputeOptions {
  // Log every command and check each written submatrix for NaN/inf (also
  // on with --verbose=5 or more).
  bool debug = false;
  // Replay forward-only computations on a GPU as CUDA graphs (used where
  // the caller enables it with NnetComputer::UseCudaGraphs; see
  // computation-graphs.h).
  bool cuda_graphs = true;
  void Register(OptionsItf *opts);
  // Registers --cuda-graphs (for the tools that replay).
  void RegisterCudaGraphs(OptionsItf *opts);
};

// The storage of one matrix between kCompressMatrix and kDecompressMatrix
// (defined in nnet-computer.cc).
class CuCompressedMatrix;
class ComputationGraphs;

class NnetComputer {
 public:
  // Statistics (StoreStats, and the stats that non-updatable components
  // keep in Backprop) go to nnet_to_update, if given. nnet_to_update may be
  // nullptr if the computation does not need model derivatives.
  NnetComputer(const NnetComputeOptions &options,
               const NnetComputation &computation, const Nnet &nnet,
               Nnet *nnet_to_update);
  // As above, but statistics go to 'nnet' itself.
  NnetComputer(const NnetComputeOptions &options,
               const NnetComputation &computation, Nnet *nnet,
               Nnet *nnet_to_update);
  ~NnetComputer();

  // Supplies the value of an input node or, for an output node name, the
  // derivative of the objective w.r.t. that output. The matrix is swapped
  // in (*input is left empty). Its size must equal the size the
  // computation expects, else a UserError naming the node and both shapes.
  void AcceptInput(const std::string &node_name, CuMatrix<BaseFloat> *input);
  // Copies in the entries that name input nodes (entries naming output
  // nodes, e.g. supervision, are skipped); unknown names are errors.
  void AcceptInputs(
      const Nnet &nnet,
      const std::vector<std::pair<std::string, CuMatrix<BaseFloat> > > &inputs);
  // AcceptInput() for an output node (errors if it is not one).
  void AcceptOutputDeriv(const std::string &output_name,
                         CuMatrix<BaseFloat> *deriv);

  // Lets this computer replay its computation as CUDA graphs when it
  // computes on a GPU and options.cuda_graphs is set (otherwise nothing
  // changes). 'computation' must be the computation this computer was made
  // with; call before the first Run(). The results are those of ordinary
  // runs; outputs are copied out of the replayed memory by
  // GetOutputDestructive().
  void UseCudaGraphs(const std::shared_ptr<const NnetComputation> &computation);

  void Run();

  // The matrix a kProvideOutput made available: an output node's value, or
  // for an input node name its derivative. UserError if not provided.
  const CuMatrixBase<BaseFloat> &GetOutput(const std::string &node_name);
  // Swaps the provided matrix out (it is no longer available afterwards).
  void GetOutputDestructive(const std::string &output_name,
                            CuMatrix<BaseFloat> *output);
  // GetOutput() for an input node (errors if it is not one).
  const CuMatrixBase<BaseFloat> &GetInputDeriv(const std::string &input_name);

 private:
  NnetComputer(const NnetComputer &) = delete;
  NnetComputer &operator=(const NnetComputer &) = delete;

  void Init();
  // The node index of a name; UserError if the network has no such node.
  int32 GetNodeIndexChecked(const std::string &node_name) const;
  // "input 'x'" or "derivative for output 'x'".
  std::string DescribeAcceptedNode(int32 node) const;
  // The kAcceptInput command that will next consume a matrix for 'node'
  // (searching from the program counter, then from the start); -1 if the
  // computation never accepts one.
  int32 FindAcceptCommand(int32 node) const;
  // Checks a supplied matrix against the size of the matrix of 'submatrix'.
  void CheckInputSize(int32 node, int32 submatrix,
                      const CuMatrixBase<BaseFloat> &m) const;
  // Executes the kAcceptInput at the program counter with a supplied matrix.
  void ExecuteAcceptInput(const NnetComputation::Command &c,
                          CuMatrix<BaseFloat> *supplied);
  // Executes the command at the program counter (not kAcceptInput); may
  // move the program counter (kGotoLabel).
  void ExecuteCommand();
  void ExecuteCommandInternal(const NnetComputation::Command &c);
  // A view of a submatrix; index 0 gives an empty matrix. UserError if the
  // matrix is not allocated.
  CuSubMatrix<BaseFloat> GetSubMatrix(int32 submatrix_index);
  // The row pointers of indexes_multi[multi_index] (nullptr for (-1,-1)),
  // checking that each submatrix has num_cols columns.
  void GetPointers(int32 multi_index, int32 num_cols,
                   std::vector<BaseFloat *> *pointers);
  // computation_.component_precomputed_indexes[index].data (nullptr for 0).
  const ComponentPrecomputedIndexes *GetPrecomputedIndexes(int32 index) const;
  // Stores a memo (memo_index > 0) or deletes it.
  void SaveMemo(int32 memo_index, int32 component_index, void *memo);
  // Takes the memo stored under memo_index (nullptr for index 0).
  void *TakeMemo(int32 memo_index, int32 component_index);
  void Compress(const NnetComputation::Command &c);
  void Decompress(const NnetComputation::Command &c);
  // Debug mode: UserError if a submatrix written by the command that just
  // ran holds NaN or inf.
  void CheckWrittenSubmatrices(int32 command_index);
  std::string CommandDescription(int32 command_index) const;
  // The profiler category of a command: "<ComponentType> propagate" or
  // "... backprop" for component commands, else the command type.
  std::string ProfileCategory(const NnetComputation::Command &c) const;
  // Uploads the index arrays (or takes the graph entry's) before the first
  // command that needs them.
  void EnsureIndexes();
  const CuArray<int32> &IndexArray(int32 i) const;
  const CuArray<Int32Pair> &IndexRangesArray(int32 i) const;
  // Runs the segment of graphs_ that starts at the program counter: records
  // it, replays it, or runs it ordinarily (see computation-graphs.h).
  void RunSegment(int32 segment_index);
  void RunCommandsOrdinarily(int32 end);
  // With slots: binds matrix m to a free slot (if not bound) / gives its
  // slot back.
  void BindSlot(int32 m);
  void UnbindSlot(int32 m);
  // Gives every bound slot back, then binds the slots of 'bindings'.
  void RestoreBindings(const std::vector<int32> &bindings);

  NnetComputeOptions options_;
  const NnetComputation &computation_;
  const Nnet &nnet_;
  Nnet *nnet_to_store_stats_;
  Nnet *nnet_to_update_;
  int32 program_counter_ = 0;
  bool debug_ = false;

  std::vector<CuMatrix<BaseFloat> > matrices_;
  // computation_.indexes and indexes_ranges as arrays of the computing
  // backend, made once per computer.
  std::vector<CuArray<int32> > indexes_;
  std::vector<CuArray<Int32Pair> > indexes_ranges_;
  // memo index -> (component index, memo).
  std::vector<std::pair<int32, void *> > memos_;
  // per matrix: its compressed form between kCompressMatrix and
  // kDecompressMatrix (empty vector until the first kCompressMatrix).
  std::vector<std::unique_ptr<CuCompressedMatrix> > compressed_;
  // node -> matrix supplied by AcceptInput and not yet consumed.
  std::map<int32, CuMatrix<BaseFloat> > supplied_;
  // node -> matrix index made available by kProvideOutput.
  std::map<int32, int32> provided_;
  bool indexes_ready_ = false;
  // Graph replay: the entry (null when not replaying), whether this run
  // uses its slots for the matrices, and per matrix the slot bound to it
  // (-1: none).
  std::shared_ptr<ComputationGraphs> graphs_;
  bool slot_mode_ = false;
  bool started_ = false;
  std::vector<int32> slot_of_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPUTE_NNET_COMPUTER_H_
