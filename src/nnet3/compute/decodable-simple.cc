// nnet3/compute/decodable-simple.cc
// Chunked inference (see decodable-simple.h).
#include "nnet3/compute/decodable-simple.h"

#include <algorithm>
#include <numeric>

#include "base/log.h"
#include "nnet3/nnet/nnet-utils.h"

namespace nnet3 {

void NnetSimpleComputationOptions::Register(OptionsItf *opts) {
  RegisterChunkOptions(opts);
  opts->Register("large-chunk-size", &large_chunk_size,
                 "For networks whose outputs cannot depend on the chunking "
                 "(no recurrence, IfDefined or Failover, only simple "
                 "components; not with --online-ivectors), compute in chunks "
                 "of up to this many frames instead of --frames-per-chunk: "
                 "the outputs are the same and bigger chunks are faster. 0 "
                 "disables this.");
}

void NnetSimpleComputationOptions::RegisterChunkOptions(OptionsItf *opts) {
  opts->Register("extra-left-context", &extra_left_context,
                 "Left context frames given to each chunk beyond what the "
                 "network itself needs (for recurrent networks)");
  opts->Register("extra-right-context", &extra_right_context,
                 "Right context frames given to each chunk beyond what the "
                 "network itself needs (for recurrent networks)");
  opts->Register("extra-left-context-initial", &extra_left_context_initial,
                 "Extra left context of an utterance's first chunk; -1 means "
                 "--extra-left-context");
  opts->Register("extra-right-context-final", &extra_right_context_final,
                 "Extra right context of an utterance's last chunk; -1 means "
                 "--extra-right-context");
  opts->Register("frame-subsampling-factor", &frame_subsampling_factor,
                 "Input frames per output frame, for networks whose output "
                 "runs at a lower rate than their input ('chain' models: 3)");
  opts->Register("acoustic-scale", &acoustic_scale,
                 "Multiplies the output (acoustic log-likelihoods); "
                 "nnet3-compute sets it to 1 unless given");
  opts->Register("frames-per-chunk", &frames_per_chunk,
                 "Input frames per chunk computed in one go (counted before "
                 "any --frame-subsampling-factor)");
  compute_config.RegisterCudaGraphs(opts);
  opts->Register("debug-computation", &debug_computation,
                 "Log every command of the computation as it runs (a lot of "
                 "output)");
  ParseOptions optimization_opts("optimization", opts);
  optimize_config.Register(&optimization_opts);
  ParseOptions compiler_opts("compiler", opts);
  compiler_config.Register(&compiler_opts);
}

void CheckAndFixSimpleComputationOptions(const Nnet &nnet,
                                         NnetSimpleComputationOptions *opts) {
  if (opts->frame_subsampling_factor < 1 || opts->frames_per_chunk < 1)
    NNET3_ERR << "--frame-subsampling-factor and --frames-per-chunk must be "
              << "> 0";
  if (opts->extra_left_context < 0 || opts->extra_right_context < 0)
    NNET3_ERR << "--extra-left-context and --extra-right-context must be "
              << ">= 0";
  int32 modulus = nnet.Modulus();
  NNET3_ASSERT(modulus > 0);
  int32 n = std::lcm(opts->frame_subsampling_factor, modulus);
  if (opts->frames_per_chunk % n != 0) {
    int32 fpc = n * ((opts->frames_per_chunk + n - 1) / n);
    if (modulus == 1)
      NNET3_LOG << "Increasing --frames-per-chunk from "
                << opts->frames_per_chunk << " to " << fpc
                << " to make it a multiple of --frame-subsampling-factor="
                << opts->frame_subsampling_factor;
    else
      NNET3_LOG << "Increasing --frames-per-chunk from "
                << opts->frames_per_chunk << " to " << fpc << " due to "
                << "--frame-subsampling-factor="
                << opts->frame_subsampling_factor
                << " and nnet shift-invariance modulus = " << modulus;
    opts->frames_per_chunk = fpc;
  }
  if (opts->large_chunk_size < 0)
    NNET3_ERR << "--large-chunk-size must be >= 0";
  if (opts->large_chunk_size % n != 0)
    opts->large_chunk_size = n * ((opts->large_chunk_size + n - 1) / n);
}

void GetChunkContext(const NnetSimpleComputationOptions &opts,
                     int32 nnet_left_context, int32 nnet_right_context,
                     bool is_first, bool is_last, int32 *left_context,
                     int32 *right_context) {
  int32 extra_left = opts.extra_left_context,
        extra_right = opts.extra_right_context;
  if (is_first && opts.extra_left_context_initial >= 0)
    extra_left = opts.extra_left_context_initial;
  if (is_last && opts.extra_right_context_final >= 0)
    extra_right = opts.extra_right_context_final;
  *left_context = nnet_left_context + extra_left;
  *right_context = nnet_right_context + extra_right;
}

void CopyFramesClamped(const MatrixBase<BaseFloat> &feats, int32 first_frame,
                       MatrixBase<BaseFloat> *dest) {
  int32 total = feats.NumRows();
  NNET3_ASSERT(total > 0 && feats.NumCols() == dest->NumCols());
  int32 num = dest->NumRows();
  // The rows inside the utterance in one block copy, the rest one by one.
  int32 begin = std::min(std::max(first_frame, 0), total),
        end = std::max(std::min(first_frame + num, total), begin);
  if (end > begin)
    SubMatrix<BaseFloat>(*dest, begin - first_frame, end - begin, 0,
                         dest->NumCols())
        .CopyFromMat(SubMatrix<BaseFloat>(feats, begin, end - begin, 0,
                                          feats.NumCols()));
  for (int32 i = 0; i < num; i++) {
    int32 t = first_frame + i;
    if (t >= begin && t < end) continue;
    dest->Row(i).CopyFromVec(feats.Row(std::min(std::max(t, 0), total - 1)));
  }
}

void CheckSimpleNnetInputDims(const Nnet &nnet, int32 feature_dim,
                              int32 ivector_dim) {
  int32 nnet_input_dim = nnet.InputDim("input"),
        nnet_ivector_dim = std::max<int32>(0, nnet.InputDim("ivector"));
  if (feature_dim != nnet_input_dim)
    NNET3_ERR << "Neural net expects 'input' features with dimension "
              << nnet_input_dim << " but you provided " << feature_dim;
  if (ivector_dim != nnet_ivector_dim)
    NNET3_ERR << "Neural net expects 'ivector' features with dimension "
              << nnet_ivector_dim << " but you provided " << ivector_dim;
}

void ComputeLogPriors(const VectorBase<BaseFloat> &priors, int32 output_dim,
                      CuVector<BaseFloat> *log_priors) {
  log_priors->Resize(0);
  if (priors.Dim() == 0) return;
  if (priors.Dim() != output_dim)
    NNET3_ERR << "The priors have dimension " << priors.Dim()
              << " but the network's output has dimension " << output_dim;
  log_priors->Resize(priors.Dim(), kUndefined);
  log_priors->CopyFromVec(priors);
  log_priors->ApplyLog();
}

void ApplyLogPriorsAndScale(const CuVector<BaseFloat> &log_priors,
                            BaseFloat acoustic_scale,
                            CuMatrixBase<BaseFloat> *output) {
  if (log_priors.Dim() != 0) output->AddVecToRows(-1.0, log_priors);
  output->Scale(acoustic_scale);
}

DecodableNnetSimple::DecodableNnetSimple(
    const NnetSimpleComputationOptions &opts, const Nnet &nnet,
    const Vector<BaseFloat> &priors, const MatrixBase<BaseFloat> &feats,
    CachingOptimizingCompiler *compiler, const VectorBase<BaseFloat> *ivector,
    const MatrixBase<BaseFloat> *online_ivectors, int32 online_ivector_period)
    : opts_(opts), nnet_(nnet), feats_(feats), compiler_(compiler),
      ivector_(ivector), online_ivectors_(online_ivectors),
      online_ivector_period_(online_ivector_period) {
  NNET3_ASSERT(!(ivector != nullptr && online_ivectors != nullptr));
  if (online_ivectors != nullptr && online_ivector_period <= 0)
    NNET3_ERR << "You need to set the --online-ivector-period option";
  int32 f = opts_.frame_subsampling_factor;
  num_subsampled_frames_ = (feats_.NumRows() + f - 1) / f;
  output_dim_ = nnet_.OutputDim("output");
  if (output_dim_ < 0)
    NNET3_ERR << "The network has no output node named 'output'";
  ComputeLogPriors(priors, output_dim_, &log_priors_);
  compiler_->GetSimpleNnetContext(&nnet_left_context_, &nnet_right_context_);
  // Online iVectors change from chunk to chunk, so they tie the outputs to
  // the chunking.
  use_large_chunks_ = opts_.large_chunk_size > opts_.frames_per_chunk &&
                      online_ivectors_ == nullptr &&
                      NnetIsChunkingInvariant(nnet_);
}

void DecodableNnetSimple::GetOutputForFrame(int32 subsampled_frame,
                                            VectorBase<BaseFloat> *output) {
  if (subsampled_frame < current_offset_ ||
      subsampled_frame >= current_offset_ + current_rows_)
    EnsureFrameIsComputed(subsampled_frame);
  if (!host_output_valid_) {
    if (current_output_.OnDevice()) {
      host_output_.Resize(current_output_.NumRows(), current_output_.NumCols(),
                          kUndefined);
      current_output_.CopyToMat(&host_output_);
    } else {
      current_output_.Swap(&host_output_);  // no copy on the host
    }
    host_output_valid_ = true;
  }
  output->CopyFromVec(host_output_.Row(subsampled_frame - current_offset_));
}

void DecodableNnetSimple::GetOutput(MatrixBase<BaseFloat> *output) {
  NNET3_ASSERT(output->NumRows() == num_subsampled_frames_ &&
               output->NumCols() == output_dim_);
  int32 t = 0;
  while (t < num_subsampled_frames_) {
    if (t < current_offset_ || t >= current_offset_ + current_rows_)
      EnsureFrameIsComputed(t);
    // Frames t .. end-1 come from the current chunk (a last chunk shifted
    // back over frames already written gives only its new ones).
    const int32 end = std::min(current_offset_ + current_rows_,
                               num_subsampled_frames_);
    SubMatrix<BaseFloat> dest(output->RowRange(t, end - t));
    if (host_output_valid_)
      dest.CopyFromMat(host_output_.RowRange(t - current_offset_, end - t));
    else
      current_output_.RowRange(t - current_offset_, end - t).CopyToMat(&dest);
    t = end;
  }
}

void DecodableNnetSimple::ComputeOutput(Matrix<BaseFloat> *output) {
  if (num_subsampled_frames_ > 0 &&
      (current_offset_ > 0 || current_rows_ == 0))
    EnsureFrameIsComputed(0);
  if (num_subsampled_frames_ > 0 && current_offset_ == 0 &&
      current_rows_ >= num_subsampled_frames_) {
    // One chunk holds the whole utterance (large chunks, or a short one):
    // its output matrix is handed over, not copied, when it is on the host,
    // and the rows of a chunk padded past the end are cut off in place.
    bool handed_over = false;
    if (host_output_valid_) {
      output->Swap(&host_output_);
      handed_over = true;
    } else if (!current_output_.OnDevice()) {
      current_output_.Swap(output);
      handed_over = true;
    }
    if (handed_over) {
      output->Resize(num_subsampled_frames_, output_dim_, kCopyData);
      NNET3_ASSERT(output->NumRows() == num_subsampled_frames_ &&
                   output->NumCols() == output_dim_);
      // The chunk is gone from here; a later call computes it again.
      host_output_valid_ = false;
      current_rows_ = 0;
      return;
    }
  }
  output->Resize(num_subsampled_frames_, output_dim_, kUndefined);
  GetOutput(output);
}

void DecodableNnetSimple::GetCurrentIvector(int32 output_t_start,
                                            int32 num_output_frames,
                                            Vector<BaseFloat> *ivector) const {
  if (ivector_ != nullptr) {
    *ivector = *ivector_;
    return;
  }
  if (online_ivectors_ == nullptr) {
    ivector->Resize(0);
    return;
  }
  // The iVector of the frame in the middle of the chunk's outputs.
  int32 frame_to_search = output_t_start + num_output_frames / 2;
  int32 ivector_frame = frame_to_search / online_ivector_period_;
  NNET3_ASSERT(ivector_frame >= 0);
  int32 num_rows = online_ivectors_->NumRows();
  if (ivector_frame >= num_rows) {
    int32 margin = ivector_frame - (num_rows - 1);
    if (margin > 5)
      NNET3_ERR << "Online iVectors are not available for frame "
                << frame_to_search << " (they have " << num_rows
                << " rows with period " << online_ivector_period_
                << "; margin = " << margin << ")";
    ivector_frame = num_rows - 1;
  }
  ivector->Resize(online_ivectors_->NumCols());
  ivector->CopyFromVec(online_ivectors_->Row(ivector_frame));
}

void DecodableNnetSimple::EnsureFrameIsComputed(int32 subsampled_frame) {
  NNET3_ASSERT(subsampled_frame >= 0 &&
               subsampled_frame < num_subsampled_frames_);
  int32 feature_dim = feats_.NumCols();
  int32 ivector_dim = ivector_ != nullptr ? ivector_->Dim()
                      : online_ivectors_ != nullptr
                          ? online_ivectors_->NumCols()
                          : 0;
  CheckSimpleNnetInputDims(nnet_, feature_dim, ivector_dim);

  int32 f = opts_.frame_subsampling_factor;
  int32 subsampled_per_chunk =
      (use_large_chunks_ ? opts_.large_chunk_size : opts_.frames_per_chunk) / f;
  int32 start = subsampled_frame;
  int32 num = std::min(num_subsampled_frames_ - start, subsampled_per_chunk);
  NNET3_ASSERT(num > 0);
  bool is_final = (start + num == num_subsampled_frames_);
  if (use_large_chunks_) {
    // A short last chunk is rounded up to a multiple of 64 frames so that
    // utterances of different lengths share compiled computations; the
    // extra outputs come from padding and are never returned.
    int32 bucket = std::max(1, 64 / f);
    num = std::min(subsampled_per_chunk, bucket * ((num + bucket - 1) / bucket));
  }
  int32 last = start + num - 1;
  int32 first_output_frame = start * f, last_output_frame = last * f;
  int32 left_context, right_context;
  GetChunkContext(opts_, nnet_left_context_, nnet_right_context_,
                  first_output_frame == 0, is_final, &left_context,
                  &right_context);
  int32 first_input_frame = first_output_frame - left_context;
  int32 last_input_frame = last_output_frame + right_context;
  int32 num_input_frames = last_input_frame + 1 - first_input_frame;

  Vector<BaseFloat> ivector;
  GetCurrentIvector(first_output_frame, last_output_frame - first_output_frame,
                    &ivector);
  int32 total = feats_.NumRows();
  if (first_input_frame >= 0 && last_input_frame < total) {
    SubMatrix<BaseFloat> block(feats_, first_input_frame, num_input_frames, 0,
                               feature_dim);
    DoNnetComputation(first_input_frame, block, ivector, first_output_frame,
                      num);
  } else {
    // Pad by repeating the first and last frames.
    Matrix<BaseFloat> block(num_input_frames, feature_dim, kUndefined);
    CopyFramesClamped(feats_, first_input_frame, &block);
    DoNnetComputation(first_input_frame, block, ivector, first_output_frame,
                      num);
  }
}

void DecodableNnetSimple::DoNnetComputation(
    int32 input_t_start, const MatrixBase<BaseFloat> &input_feats,
    const VectorBase<BaseFloat> &ivector, int32 output_t_start,
    int32 num_subsampled_frames) {
  // Shift time so the chunk's first output is t=0: chunks of one shape then
  // make identical requests and share a compiled computation.
  int32 time_offset = -output_t_start;
  ComputationRequest request;
  request.inputs.push_back(IoSpecification(
      "input", time_offset + input_t_start,
      time_offset + input_t_start + input_feats.NumRows()));
  if (ivector.Dim() != 0)
    request.inputs.push_back(
        IoSpecification("ivector", std::vector<Index>(1, Index(0, 0, 0))));
  IoSpecification output;
  output.name = "output";
  int32 f = opts_.frame_subsampling_factor;
  output.indexes.resize(num_subsampled_frames);
  for (int32 i = 0; i < num_subsampled_frames; i++)
    output.indexes[i].t = time_offset + output_t_start + i * f;
  request.outputs.push_back(output);

  std::shared_ptr<const NnetComputation> computation =
      compiler_->Compile(request);
  NnetComputeOptions compute_opts = opts_.compute_config;
  if (opts_.debug_computation) compute_opts.debug = true;
  NnetComputer computer(compute_opts, *computation, nnet_, nullptr);
  computer.UseCudaGraphs(computation);
  CuMatrix<BaseFloat> input(input_feats);
  computer.AcceptInput("input", &input);
  CuMatrix<BaseFloat> ivector_mat;
  if (ivector.Dim() != 0) {
    ivector_mat.Resize(1, ivector.Dim());
    ivector_mat.Row(0).CopyFromVec(ivector);
    computer.AcceptInput("ivector", &ivector_mat);
  }
  computer.Run();
  CuMatrix<BaseFloat> out;
  computer.GetOutputDestructive("output", &out);
  ApplyLogPriorsAndScale(log_priors_, opts_.acoustic_scale, &out);
  out.Swap(&current_output_);
  host_output_valid_ = false;
  current_rows_ = current_output_.NumRows();
  current_offset_ = output_t_start / f;
}

}  // namespace nnet3
