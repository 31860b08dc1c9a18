// nnet3/compute/batch-compute.h
// Batched inference (Kaldi's NnetBatchComputer / NnetBatchInference, what
// nnet3-compute-batch runs): each utterance of a simple network (input
// "input", optionally "ivector", output "output") is cut into chunks of
// --frames-per-chunk input frames; chunks of the same shape from any
// utterances are stacked as the sequences n = 0, 1, ... of one
// computation (a minibatch), compiled once per shape and minibatch size
// through the CachingOptimizingCompiler and run with the NnetComputer.
//
// How an utterance of T input frames (S = ceil(T / f) output frames with
// f = --frame-subsampling-factor, C = frames-per-chunk / f per chunk) is
// cut, as Kaldi cuts it:
//  - S <= C: one chunk of C output frames whose first S are used (the
//    input past the end repeats the last frame); with
//    --ensure-exact-final-context, one chunk of exactly S frames instead,
//    computed in a minibatch of its own ("irregular");
//  - S > C: chunks at output frames 0, C, 2C, ...; the last one is moved
//    back to end exactly at frame S - 1 and only its frames after the
//    previous chunk are used.
// Each chunk gets the network's context plus --extra-left-context /
// --extra-right-context, or the -initial / -final values at the utterance
// edges (GetChunkContext, shared with DecodableNnetSimple), padded by
// repeating the first and last frames. A chunk whose context differs from
// the interior one is an "edge" chunk and uses --edge-minibatch-size.
// Online iVectors: each chunk takes the row of its middle output frame,
// (first + num_output_frames / 2) * f / period, or the last row if that is
// beyond the matrix (a short utterance's one chunk reaches past its end);
// a matrix more than 5 rows short of the utterance's last frame is an
// error, as in DecodableNnetSimple.
//
// Scheduling (single-threaded here; Kaldi runs it in a second thread with
// the same outcome): full minibatches are computed as soon as a group
// has enough chunks, earlier utterances first; Finished() computes the
// rest in partial minibatches, whose size is the full size times
// --partial-minibatch-factor^k for the largest k that still holds them.
// Unused sequences of a partial minibatch get zero input and are dropped.
//
// Invariants: the sequences of a computation are independent, so an
// utterance's output does not depend on which other chunks share its
// minibatch; outputs come back in input order, one row per output frame,
// with log-priors subtracted and --acoustic-scale applied.
#ifndef NNET3_NNET3_COMPUTE_BATCH_COMPUTE_H_
#define NNET3_NNET3_COMPUTE_BATCH_COMPUTE_H_

#include <list>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "nnet3/compute/decodable-simple.h"

namespace nnet3 {

struct NnetBatchComputerOptions : public NnetSimpleComputationOptions {
  int32 minibatch_size = 128;
  int32 edge_minibatch_size = 32;
  bool ensure_exact_final_context = false;
  BaseFloat partial_minibatch_factor = 0.5;
  // The simple-computation options (less --large-chunk-size) and these.
  void Register(OptionsItf *opts);
};

// CheckAndFixSimpleComputationOptions plus the checks of the batch
// options (sizes >= 1, 0 <= --partial-minibatch-factor < 1).
void CheckAndFixBatchComputerOptions(const Nnet &nnet,
                                     NnetBatchComputerOptions *opts);

// One chunk of one utterance. Output frame i of the chunk is utterance
// output frame first_used_output_frame_index -
// num_initial_unused_output_frames + i.
struct NnetInferenceTask {
  // The chunk's input frames, context and edge padding included; row 0 is
  // time first_input_t when the chunk's first output frame is time 0.
  Matrix<BaseFloat> input;
  int32 first_input_t = 0;
  int32 output_t_stride = 1;  // frame-subsampling-factor
  int32 num_output_frames = 0;
  int32 num_initial_unused_output_frames = 0;  // overlap with the previous
  int32 num_used_output_frames = 0;
  int32 first_used_output_frame_index = 0;
  bool is_edge = false;       // context differs from an interior chunk's
  bool is_irregular = false;  // exact-length chunk (minibatch of one)
  Vector<BaseFloat> ivector;  // empty if the network takes none
  double priority = 0.0;      // higher is computed first
  bool done = false;
  // num_output_frames rows once done (unused rows are left unset).
  Matrix<BaseFloat> output;
};

class NnetBatchComputer {
 public:
  // 'opts' is copied and checked (CheckAndFixBatchComputerOptions); 'nnet'
  // must be a simple network prepared for inference and outlive this.
  // 'priors' may be empty; otherwise log(priors) is subtracted.
  NnetBatchComputer(const NnetBatchComputerOptions &opts, const Nnet &nnet,
                    const VectorBase<BaseFloat> &priors);

  // Cuts one utterance into chunks (see the file comment). At most one of
  // ivector and online_ivectors is non-null. Dimension mismatches and
  // missing online iVector rows are UserErrors.
  void SplitUtteranceIntoTasks(const MatrixBase<BaseFloat> &input,
                               const VectorBase<BaseFloat> *ivector,
                               const MatrixBase<BaseFloat> *online_ivectors,
                               int32 online_ivector_period,
                               std::vector<NnetInferenceTask> *tasks) const;

  // Queues a task; it must stay where it is until done.
  void AcceptTask(NnetInferenceTask *task);

  // Computes one minibatch: the group with the best priority (a full one
  // only, unless allow_partial_minibatch). False if there was none.
  bool Compute(bool allow_partial_minibatch);

  int64 NumPendingTasks() const;
  const NnetBatchComputerOptions &GetOptions() const { return opts_; }
  CachingOptimizingCompiler &Compiler() { return compiler_; }
  // One line per (chunk shape, minibatch size): frames in and out, the
  // minibatch size, how many were run, how full they were on average, and
  // the seconds taken; then the totals.
  std::string MinibatchStats() const;

 private:
  // Chunks that can share a computation: input frames, first input time,
  // output frames, whether there is an iVector.
  typedef std::tuple<int32, int32, int32, bool> GroupKey;
  struct SizeInfo {
    std::shared_ptr<const NnetComputation> computation;
    int64 num_done = 0, num_tasks = 0;
    double seconds = 0.0;
  };
  struct Group {
    std::vector<NnetInferenceTask *> tasks;  // in arrival order
    std::map<int32, SizeInfo> sizes;         // by minibatch size
  };
  int32 FullMinibatchSize(const Group &group) const;
  int32 ActualMinibatchSize(const Group &group) const;
  double Priority(bool allow_partial_minibatch, const Group &group) const;
  std::shared_ptr<const NnetComputation> GetComputation(
      const NnetInferenceTask &example, int32 minibatch_size);
  // Moves the 'num' best tasks of 'group' to 'tasks'.
  void TakeTasks(int32 num, Group *group,
                 std::vector<NnetInferenceTask *> *tasks);
  void RunMinibatch(const std::shared_ptr<const NnetComputation> &computation,
                    int32 minibatch_size,
                    const std::vector<NnetInferenceTask *> &tasks);

  NnetBatchComputerOptions opts_;
  const Nnet &nnet_;
  CachingOptimizingCompiler compiler_;
  CuVector<BaseFloat> log_priors_;
  int32 nnet_left_context_ = 0, nnet_right_context_ = 0;
  int32 output_dim_ = 0;
  std::map<GroupKey, Group> groups_;
};

// Utterances in, outputs out in the same order (what the tool uses).
class NnetBatchInference {
 public:
  NnetBatchInference(const NnetBatchComputerOptions &opts, const Nnet &nnet,
                     const VectorBase<BaseFloat> &priors);
  // Cuts the utterance, queues its chunks and computes the minibatches
  // that are full. The arguments are copied as needed (they need not
  // outlive the call). Errors as SplitUtteranceIntoTasks'.
  void AcceptInput(const std::string &utterance_id,
                   const MatrixBase<BaseFloat> &input,
                   const VectorBase<BaseFloat> *ivector,
                   const MatrixBase<BaseFloat> *online_ivectors,
                   int32 online_ivector_period);
  // No more input: the next GetOutput() calls compute what is left.
  void Finished();
  // The oldest utterance's output if all its chunks are done (after
  // Finished(), computing them); false when there is none ready.
  bool GetOutput(std::string *utterance_id, Matrix<BaseFloat> *output);
  NnetBatchComputer &Computer() { return computer_; }

 private:
  struct Utterance {
    std::string id;
    std::vector<NnetInferenceTask> tasks;
  };
  NnetBatchComputer computer_;
  std::list<Utterance> utts_;
  int64 num_accepted_ = 0;
  bool finished_ = false;
};

// Splices the used rows of the chunks' outputs into one utterance output.
void MergeTaskOutput(const std::vector<NnetInferenceTask> &tasks,
                     Matrix<BaseFloat> *output);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPUTE_BATCH_COMPUTE_H_
