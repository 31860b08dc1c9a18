// nnet3/compute/decodable-simple.h
// Inference over whole utterances with a simple network (one input named
// "input", optionally "ivector", one output "output"): the utterance is cut
// into chunks of --frames-per-chunk output frames; each chunk gets the
// network's context plus the extra contexts, features are padded at the
// utterance edges by repeating the first/last frame, and time is shifted
// so each chunk's first output frame is t=0 (so chunks of one shape share
// one compiled computation). This is what nnet3-compute and decoders use;
// the numbers match Kaldi's DecodableNnetSimple.
// Invariants: output row k is subsampled frame k (frame k *
// frame-subsampling-factor of the input); rows are computed chunk by chunk
// and cached, so asking for frames in order computes each chunk once.
// The free functions below the options are the chunking rules shared with
// the batch computer (batch-compute.h), so both cut, pad and check alike.
#ifndef NNET3_NNET3_COMPUTE_DECODABLE_SIMPLE_H_
#define NNET3_NNET3_COMPUTE_DECODABLE_SIMPLE_H_

#include "nnet3/compute/nnet-computer.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "nnet3/optimize/optimize.h"
#include "util/options.h"

namespace nnet3 {

struct NnetSimpleComputationOptions {
  int32 extra_left_context = 0;
  int32 extra_right_context = 0;
  int32 extra_left_context_initial = -1;
  int32 extra_right_context_final = -1;
  int32 frame_subsampling_factor = 1;
  int32 frames_per_chunk = 50;
  // Ours: for chunking-invariant networks (NnetIsChunkingInvariant) the
  // utterance is computed in chunks of up to this many frames instead; the
  // outputs are the same. 0 turns it off.
  int32 large_chunk_size = 512;
  BaseFloat acoustic_scale = 0.1;
  bool debug_computation = false;
  NnetComputeOptions compute_config;
  NnetOptimizeOptions optimize_config;  // --optimization.*
  CachingOptimizingCompilerOptions compiler_config;  // --compiler.*
  void Register(OptionsItf *opts);
  // Register() less --large-chunk-size (for the batch computer, whose
  // chunks all have the shape --frames-per-chunk gives).
  void RegisterChunkOptions(OptionsItf *opts);
};

// Rounds frames_per_chunk up to a multiple of lcm(frame_subsampling_factor,
// modulus) (logging once when it changes), large_chunk_size likewise
// (silently), and checks the options.
void CheckAndFixSimpleComputationOptions(const Nnet &nnet,
                                         NnetSimpleComputationOptions *opts);

// Total left and right context (network context plus the extra context)
// of a chunk that starts at the utterance's first output frame (is_first)
// and/or ends at or beyond its last one (is_last): the -initial / -final
// extra contexts apply there when they are >= 0.
void GetChunkContext(const NnetSimpleComputationOptions &opts,
                     int32 nnet_left_context, int32 nnet_right_context,
                     bool is_first, bool is_last, int32 *left_context,
                     int32 *right_context);

// Fills 'dest' with the rows first_frame, first_frame + 1, ... of 'feats',
// where rows before 0 or after the last one repeat the first or the last
// row (the padding at utterance edges). feats must have rows and as many
// columns as dest.
void CopyFramesClamped(const MatrixBase<BaseFloat> &feats, int32 first_frame,
                       MatrixBase<BaseFloat> *dest);

// Checks a simple network's input dimensions against the data given
// (ivector_dim 0 when no iVectors are given); a mismatch is a UserError.
void CheckSimpleNnetInputDims(const Nnet &nnet, int32 feature_dim,
                              int32 ivector_dim);

// log(priors), checked against the output dimension; empty priors give an
// empty vector (no prior subtraction).
void ComputeLogPriors(const VectorBase<BaseFloat> &priors, int32 output_dim,
                      CuVector<BaseFloat> *log_priors);

// What both inference drivers do to the network's output: subtract the log
// priors (if not empty) from each row, then multiply by acoustic_scale.
void ApplyLogPriorsAndScale(const CuVector<BaseFloat> &log_priors,
                            BaseFloat acoustic_scale,
                            CuMatrixBase<BaseFloat> *output);

class DecodableNnetSimple {
 public:
  // 'priors' may be empty; otherwise log(priors) is subtracted from the
  // output. At most one of ivector and online_ivectors may be non-null; all
  // pointers and references must outlive this object. 'opts' should have
  // passed CheckAndFixSimpleComputationOptions.
  DecodableNnetSimple(const NnetSimpleComputationOptions &opts,
                      const Nnet &nnet, const Vector<BaseFloat> &priors,
                      const MatrixBase<BaseFloat> &feats,
                      CachingOptimizingCompiler *compiler,
                      const VectorBase<BaseFloat> *ivector = nullptr,
                      const MatrixBase<BaseFloat> *online_ivectors = nullptr,
                      int32 online_ivector_period = 1);
  int32 NumFrames() const { return num_subsampled_frames_; }
  int32 OutputDim() const { return output_dim_; }
  void GetOutputForFrame(int32 subsampled_frame, VectorBase<BaseFloat> *output);
  // All NumFrames() rows at once into 'output' (NumFrames() x OutputDim()),
  // the same values as GetOutputForFrame for every frame in order; on a GPU
  // each chunk is copied from the device straight into its rows.
  void GetOutput(MatrixBase<BaseFloat> *output);
  // GetOutput() into a matrix it sizes itself, allocated only after the
  // first chunk is computed: the chunk's working matrices are freed by
  // then. When one chunk covers the whole utterance and its output is on
  // the host, that matrix becomes 'output' without a copy (the decodable
  // then holds no chunk: asking it for frames again computes them again).
  void ComputeOutput(Matrix<BaseFloat> *output);

 private:
  void EnsureFrameIsComputed(int32 subsampled_frame);
  void GetCurrentIvector(int32 output_t_start, int32 num_output_frames,
                         Vector<BaseFloat> *ivector) const;
  void DoNnetComputation(int32 input_t_start,
                         const MatrixBase<BaseFloat> &input_feats,
                         const VectorBase<BaseFloat> &ivector,
                         int32 output_t_start, int32 num_subsampled_frames);

  const NnetSimpleComputationOptions &opts_;
  const Nnet &nnet_;
  CuVector<BaseFloat> log_priors_;
  const MatrixBase<BaseFloat> &feats_;
  CachingOptimizingCompiler *compiler_;
  const VectorBase<BaseFloat> *ivector_;
  const MatrixBase<BaseFloat> *online_ivectors_;
  int32 online_ivector_period_;
  int32 num_subsampled_frames_;
  // True when chunks of opts_.large_chunk_size frames give the same outputs
  // as Kaldi's chunking (see NnetSimpleComputationOptions).
  bool use_large_chunks_ = false;
  int32 output_dim_;
  int32 nnet_left_context_ = 0, nnet_right_context_ = 0;
  // The current chunk's rows where they were computed (device or host),
  // and a host copy made on the first per-frame access to them.
  CuMatrix<BaseFloat> current_output_;
  Matrix<BaseFloat> host_output_;
  bool host_output_valid_ = false;
  int32 current_rows_ = 0;    // rows of the current chunk
  int32 current_offset_ = 0;  // subsampled frame of its row 0
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPUTE_DECODABLE_SIMPLE_H_
