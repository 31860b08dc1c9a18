// nnet3/compute/batch-compute.cc
// Batched inference (see batch-compute.h).
#include "nnet3/compute/batch-compute.h"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <sstream>

#include "base/log.h"
#include "base/timer.h"

namespace nnet3 {

void NnetBatchComputerOptions::Register(OptionsItf *opts) {
  RegisterChunkOptions(opts);
  opts->Register("minibatch-size", &minibatch_size,
                 "Chunks computed together in one minibatch (see also "
                 "--edge-minibatch-size)");
  opts->Register("edge-minibatch-size", &edge_minibatch_size,
                 "Minibatch size for the chunks at the start or end of an "
                 "utterance when their context differs from the other "
                 "chunks' (--extra-left-context-initial, "
                 "--extra-right-context-final)");
  opts->Register("ensure-exact-final-context", &ensure_exact_final_context,
                 "Compute utterances shorter than a chunk with a computation "
                 "of their exact length instead of padding them to a whole "
                 "chunk (slower; only backward-recurrent networks give "
                 "different outputs)");
  opts->Register("partial-minibatch-factor", &partial_minibatch_factor,
                 "When too few chunks are left for a full minibatch, use "
                 "minibatch sizes shrunk by powers of this factor (in "
                 "[0, 1); 0 keeps the full sizes)");
}

void CheckAndFixBatchComputerOptions(const Nnet &nnet,
                                     NnetBatchComputerOptions *opts) {
  CheckAndFixSimpleComputationOptions(nnet, opts);
  if (opts->minibatch_size < 1 || opts->edge_minibatch_size < 1)
    NNET3_ERR << "--minibatch-size and --edge-minibatch-size must be >= 1 "
              << "(got " << opts->minibatch_size << " and "
              << opts->edge_minibatch_size << ")";
  if (!(opts->partial_minibatch_factor >= 0.0 &&
        opts->partial_minibatch_factor < 1.0))
    NNET3_ERR << "--partial-minibatch-factor must be in [0, 1) (got "
              << opts->partial_minibatch_factor << ")";
}

NnetBatchComputer::NnetBatchComputer(const NnetBatchComputerOptions &opts,
                                     const Nnet &nnet,
                                     const VectorBase<BaseFloat> &priors)
    : opts_(opts), nnet_(nnet),
      compiler_(nnet, opts.optimize_config, opts.compiler_config) {
  CheckAndFixBatchComputerOptions(nnet_, &opts_);
  output_dim_ = nnet_.OutputDim("output");
  if (output_dim_ < 0 || nnet_.InputDim("input") < 0)
    NNET3_ERR << "The network needs an input named 'input' and an output "
              << "named 'output'";
  ComputeLogPriors(priors, output_dim_, &log_priors_);
  compiler_.GetSimpleNnetContext(&nnet_left_context_, &nnet_right_context_);
}

void NnetBatchComputer::SplitUtteranceIntoTasks(
    const MatrixBase<BaseFloat> &input, const VectorBase<BaseFloat> *ivector,
    const MatrixBase<BaseFloat> *online_ivectors, int32 online_ivector_period,
    std::vector<NnetInferenceTask> *tasks) const {
  NNET3_ASSERT(!(ivector != nullptr && online_ivectors != nullptr));
  if (input.NumRows() == 0) NNET3_ERR << "The utterance has no frames";
  CheckSimpleNnetInputDims(
      nnet_, input.NumCols(),
      ivector != nullptr ? ivector->Dim()
      : online_ivectors != nullptr ? online_ivectors->NumCols()
                                   : 0);
  int32 f = opts_.frame_subsampling_factor,
        num_frames = input.NumRows(),
        num_subsampled = (num_frames + f - 1) / f,
        per_chunk = opts_.frames_per_chunk / f;
  if (online_ivectors != nullptr) {
    if (online_ivector_period <= 0)
      NNET3_ERR << "You need to set the --online-ivector-period option";
    int32 rows = online_ivectors->NumRows(),
          last_row = (num_subsampled - 1) * f / online_ivector_period;
    if (rows == 0 || last_row - (rows - 1) > 5)
      NNET3_ERR << "Online iVectors are not available for frame "
                << (num_subsampled - 1) * f << " (they have " << rows
                << " rows with period " << online_ivector_period << ")";
  }

  // Where the chunks' outputs go.
  int32 num_tasks = (num_subsampled + per_chunk - 1) / per_chunk;
  tasks->clear();
  tasks->resize(num_tasks);
  for (int32 i = 0; i < num_tasks; i++) {
    NnetInferenceTask &task = (*tasks)[i];
    task.output_t_stride = f;
    task.num_output_frames = per_chunk;
    task.first_used_output_frame_index = i * per_chunk;
    task.num_used_output_frames =
        std::min(per_chunk, num_subsampled - i * per_chunk);
  }
  if (num_tasks == 1) {
    if (opts_.ensure_exact_final_context) {
      (*tasks)[0].num_output_frames = num_subsampled;
      (*tasks)[0].is_irregular = true;
    }
  } else {
    // The last chunk ends at the last frame, overlapping the one before.
    NnetInferenceTask &last = tasks->back();
    last.num_initial_unused_output_frames =
        per_chunk - last.num_used_output_frames;
  }

  for (NnetInferenceTask &task : *tasks) {
    int32 begin_output = task.first_used_output_frame_index -
                         task.num_initial_unused_output_frames,
          end_output = begin_output + task.num_output_frames;
    int32 left_context, right_context, interior_left, interior_right;
    GetChunkContext(opts_, nnet_left_context_, nnet_right_context_,
                    begin_output <= 0, end_output >= num_subsampled,
                    &left_context, &right_context);
    GetChunkContext(opts_, nnet_left_context_, nnet_right_context_, false,
                    false, &interior_left, &interior_right);
    task.is_edge =
        left_context != interior_left || right_context != interior_right;
    int32 first_input = begin_output * f - left_context,
          end_input = end_output * f + right_context;
    task.first_input_t = -left_context;
    task.input.Resize(end_input - first_input, input.NumCols(), kUndefined);
    CopyFramesClamped(input, first_input, &task.input);
    if (ivector != nullptr) {
      task.ivector = *ivector;
    } else if (online_ivectors != nullptr) {
      int32 middle = (begin_output + task.num_output_frames / 2) * f;
      int32 row = std::min(middle / online_ivector_period,
                           online_ivectors->NumRows() - 1);
      task.ivector = online_ivectors->Row(row);
    }
  }
}

void NnetBatchComputer::AcceptTask(NnetInferenceTask *task) {
  NNET3_ASSERT(!task->done);
  GroupKey key(task->input.NumRows(), task->first_input_t,
               task->num_output_frames, task->ivector.Dim() != 0);
  groups_[key].tasks.push_back(task);
}

int64 NnetBatchComputer::NumPendingTasks() const {
  int64 n = 0;
  for (const auto &g : groups_) n += g.second.tasks.size();
  return n;
}

int32 NnetBatchComputer::FullMinibatchSize(const Group &group) const {
  if (group.tasks.empty()) return opts_.minibatch_size;
  const NnetInferenceTask &task = *group.tasks[0];
  if (task.is_irregular) return 1;
  return task.is_edge ? opts_.edge_minibatch_size : opts_.minibatch_size;
}

int32 NnetBatchComputer::ActualMinibatchSize(const Group &group) const {
  NNET3_ASSERT(!group.tasks.empty());
  int32 num_tasks = group.tasks.size(), size = FullMinibatchSize(group);
  // Shrink by the factor while the next smaller size would still not be
  // filled (Kaldi's rule, truncating to an integer at each step).
  while (num_tasks <
         static_cast<int32>(opts_.partial_minibatch_factor * size))
    size = static_cast<int32>(size * opts_.partial_minibatch_factor);
  return size;
}

double NnetBatchComputer::Priority(bool allow_partial_minibatch,
                                   const Group &group) const {
  const double kNone = -std::numeric_limits<double>::infinity();
  if (group.tasks.empty()) return kNone;
  int32 size = FullMinibatchSize(group), num_tasks = group.tasks.size();
  if (!allow_partial_minibatch && num_tasks < size) return kNone;
  // The mean priority of the tasks that would be taken, less a penalty of
  // up to 10 for an empty share of the minibatch (Kaldi's heuristic).
  int32 num_taken = std::min(size, num_tasks);
  std::vector<double> priorities;
  for (const NnetInferenceTask *t : group.tasks)
    priorities.push_back(t->priority);
  std::partial_sort(priorities.begin(), priorities.begin() + num_taken,
                    priorities.end(), std::greater<double>());
  double sum = 0.0;
  for (int32 i = 0; i < num_taken; i++) sum += priorities[i];
  double penalty = 10.0 * (num_taken / static_cast<double>(size) - 1.0);
  return penalty + sum / num_taken;
}

void NnetBatchComputer::TakeTasks(int32 num, Group *group,
                                  std::vector<NnetInferenceTask *> *tasks) {
  std::vector<NnetInferenceTask *> &all = group->tasks;
  if (num >= static_cast<int32>(all.size())) {
    tasks->swap(all);
    all.clear();
    return;
  }
  // Highest priority first; among equals, the earliest queued.
  std::stable_sort(all.begin(), all.end(),
                   [](const NnetInferenceTask *a, const NnetInferenceTask *b) {
                     return a->priority > b->priority;
                   });
  tasks->assign(all.begin(), all.begin() + num);
  all.erase(all.begin(), all.begin() + num);
}

std::shared_ptr<const NnetComputation> NnetBatchComputer::GetComputation(
    const NnetInferenceTask &example, int32 minibatch_size) {
  int32 num_input = example.input.NumRows();
  bool has_ivector = example.ivector.Dim() != 0;
  ComputationRequest request;
  request.need_model_derivative = false;
  request.store_component_stats = false;
  std::vector<Index> input_indexes, ivector_indexes, output_indexes;
  input_indexes.reserve(minibatch_size * num_input);
  output_indexes.reserve(minibatch_size * example.num_output_frames);
  for (int32 n = 0; n < minibatch_size; n++) {
    for (int32 i = 0; i < num_input; i++)
      input_indexes.push_back(Index(n, example.first_input_t + i, 0));
    if (has_ivector) ivector_indexes.push_back(Index(n, 0, 0));
    for (int32 i = 0; i < example.num_output_frames; i++)
      output_indexes.push_back(Index(n, i * example.output_t_stride, 0));
  }
  request.inputs.push_back(IoSpecification("input", input_indexes));
  if (has_ivector)
    request.inputs.push_back(IoSpecification("ivector", ivector_indexes));
  request.outputs.push_back(IoSpecification("output", output_indexes));
  return compiler_.Compile(request);
}

void NnetBatchComputer::RunMinibatch(
    const std::shared_ptr<const NnetComputation> &computation,
    int32 minibatch_size,
    const std::vector<NnetInferenceTask *> &tasks) {
  int32 num_tasks = tasks.size(),
        num_input = tasks[0]->input.NumRows(),
        input_dim = tasks[0]->input.NumCols(),
        ivector_dim = tasks[0]->ivector.Dim(),
        num_output = tasks[0]->num_output_frames;
  NNET3_ASSERT(num_tasks > 0 && num_tasks <= minibatch_size);
  // Sequence n is rows [n * num_input, (n + 1) * num_input); the unused
  // sequences of a partial minibatch get zeros.
  CuMatrix<BaseFloat> input(minibatch_size * num_input, input_dim,
                            kUndefined);
  for (int32 n = 0; n < num_tasks; n++)
    input.RowRange(n * num_input, num_input).CopyFromMat(tasks[n]->input);
  if (num_tasks < minibatch_size)
    input.RowRange(num_tasks * num_input,
                   (minibatch_size - num_tasks) * num_input).SetZero();
  CuMatrix<BaseFloat> ivectors;
  if (ivector_dim != 0) {
    ivectors.Resize(minibatch_size, ivector_dim);  // zeros
    for (int32 n = 0; n < num_tasks; n++)
      ivectors.Row(n).CopyFromVec(tasks[n]->ivector);
  }

  NnetComputeOptions compute_opts = opts_.compute_config;
  if (opts_.debug_computation) compute_opts.debug = true;
  NnetComputer computer(compute_opts, *computation, nnet_, nullptr);
  computer.UseCudaGraphs(computation);
  computer.AcceptInput("input", &input);
  if (ivector_dim != 0) computer.AcceptInput("ivector", &ivectors);
  computer.Run();
  CuMatrix<BaseFloat> output;
  computer.GetOutputDestructive("output", &output);
  NNET3_ASSERT(output.NumRows() == minibatch_size * num_output);
  ApplyLogPriorsAndScale(log_priors_, opts_.acoustic_scale, &output);
  for (int32 n = 0; n < num_tasks; n++) {
    NnetInferenceTask &task = *tasks[n];
    int32 skip = task.num_initial_unused_output_frames,
          used = task.num_used_output_frames;
    task.output.Resize(num_output, output.NumCols(), kUndefined);
    SubMatrix<BaseFloat> dest(task.output, skip, used, 0, output.NumCols());
    output.RowRange(n * num_output + skip, used).CopyToMat(&dest);
    task.done = true;
  }
}

bool NnetBatchComputer::Compute(bool allow_partial_minibatch) {
  Group *best = nullptr;
  double best_priority = -std::numeric_limits<double>::infinity();
  for (auto &g : groups_) {
    double p = Priority(allow_partial_minibatch, g.second);
    if (p > best_priority) {
      best_priority = p;
      best = &g.second;
    }
  }
  if (best == nullptr) return false;
  Timer timer;
  int32 minibatch_size = ActualMinibatchSize(*best);
  SizeInfo &info = best->sizes[minibatch_size];
  if (info.computation == nullptr)
    info.computation = GetComputation(*best->tasks[0], minibatch_size);
  std::vector<NnetInferenceTask *> tasks;
  TakeTasks(minibatch_size, best, &tasks);
  RunMinibatch(info.computation, minibatch_size, tasks);
  info.num_done++;
  info.num_tasks += tasks.size();
  info.seconds += timer.Elapsed();
  return true;
}

std::string NnetBatchComputer::MinibatchStats() const {
  std::ostringstream os;
  os << std::fixed << std::setprecision(2);
  int64 total_tasks = 0, total_minibatches = 0;
  double total_seconds = 0.0;
  os << "Minibatches (frames in:out * size = number run (% full), "
     << "seconds):";
  for (const auto &g : groups_) {
    for (const auto &s : g.second.sizes) {
      const SizeInfo &info = s.second;
      if (info.num_done == 0) continue;
      os << "\n  " << std::get<0>(g.first) << ':' << std::get<2>(g.first)
         << " * " << s.first << " = " << info.num_done << " ("
         << static_cast<int32>(100.0 * info.num_tasks /
                               (s.first * info.num_done))
         << "%), " << info.seconds << 's';
      total_tasks += info.num_tasks;
      total_minibatches += info.num_done;
      total_seconds += info.seconds;
    }
  }
  os << "\nDid " << total_tasks << " chunks in " << total_minibatches
     << " minibatches, taking " << total_seconds << "s";
  return os.str();
}

NnetBatchInference::NnetBatchInference(const NnetBatchComputerOptions &opts,
                                       const Nnet &nnet,
                                       const VectorBase<BaseFloat> &priors)
    : computer_(opts, nnet, priors) {}

void NnetBatchInference::AcceptInput(
    const std::string &utterance_id, const MatrixBase<BaseFloat> &input,
    const VectorBase<BaseFloat> *ivector,
    const MatrixBase<BaseFloat> *online_ivectors,
    int32 online_ivector_period) {
  NNET3_ASSERT(!finished_);
  Utterance utt;
  utt.id = utterance_id;
  computer_.SplitUtteranceIntoTasks(input, ivector, online_ivectors,
                                    online_ivector_period, &utt.tasks);
  utts_.push_back(std::move(utt));
  // Earlier utterances first, so that outputs can leave in order.
  double priority = -static_cast<double>(num_accepted_++);
  for (NnetInferenceTask &task : utts_.back().tasks) {
    task.priority = priority;
    computer_.AcceptTask(&task);
  }
  while (computer_.Compute(false)) {
  }
}

void NnetBatchInference::Finished() { finished_ = true; }

bool NnetBatchInference::GetOutput(std::string *utterance_id,
                                   Matrix<BaseFloat> *output) {
  if (utts_.empty()) return false;
  Utterance &utt = utts_.front();
  for (const NnetInferenceTask &task : utt.tasks) {
    while (!task.done) {
      if (!finished_ || !computer_.Compute(true)) return false;
    }
  }
  MergeTaskOutput(utt.tasks, output);
  *utterance_id = utt.id;
  utts_.pop_front();
  return true;
}

void MergeTaskOutput(const std::vector<NnetInferenceTask> &tasks,
                     Matrix<BaseFloat> *output) {
  NNET3_ASSERT(!tasks.empty());
  int32 num_frames = 0, dim = tasks[0].output.NumCols();
  for (const NnetInferenceTask &task : tasks) {
    NNET3_ASSERT(task.done && task.output.NumCols() == dim);
    num_frames += task.num_used_output_frames;
  }
  output->Resize(num_frames, dim, kUndefined);
  int32 row = 0;
  for (const NnetInferenceTask &task : tasks) {
    NNET3_ASSERT(task.first_used_output_frame_index == row);
    int32 used = task.num_used_output_frames;
    SubMatrix<BaseFloat>(*output, row, used, 0, dim)
        .CopyFromMat(SubMatrix<BaseFloat>(
            task.output, task.num_initial_unused_output_frames, used, 0,
            dim));
    row += used;
  }
}

}  // namespace nnet3
