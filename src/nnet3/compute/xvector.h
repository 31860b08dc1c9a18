// nnet3/compute/xvector.h
// X-vector extraction as Kaldi's nnet3-xvector-compute does it: the
// utterance is cut into consecutive chunks of chunk-size frames (the whole
// utterance when chunk-size is -1 or larger than it); each chunk is given to
// the network as input frames t = 0 .. len-1 of node "input" and the
// network's "output" is read at the single Index (n=0, t=0, x=0); the
// per-chunk vectors are averaged with weights equal to the chunk lengths.
// Chunks shorter than min-chunk-size are skipped, or, with pad-input, given
// to the network padded to min-chunk-size frames by repeating their first
// frame before them ((min - len) / 2 copies) and their last frame after them
// (the rest); their weight stays their real length.
// The network must have been prepared for inference (batch-norm and dropout
// in test mode, collapsed) by the caller, as the tool does.
//
// Reusing compilations (ours, not Kaldi's; XvectorPlan / XvectorComputer).
// A chunk of T frames is one ComputationRequest, so in Kaldi every distinct
// chunk length is compiled anew. For the usual x-vector topology (frame
// layers -> StatisticsExtraction E -> StatisticsPooling P -> segment layers
// -> output read at t=0) the output depends on the frames only through the
// sum of E's rows that P's window for t=0 takes in. XvectorPlan splits the
// network at that sum: a "frame" network (output = E) that is compiled once
// for a block of block_size E rows and run on consecutive blocks of the
// chunk, and a "segment" network where P reads a one-row input node
// "xvector-stats" (the summed rows) instead of E, compiled once. The plan
// is used only where it is exact: see XvectorPlan for the conditions;
// everything else (and chunks too short for one block) takes the ordinary
// whole-chunk computation through the caller's compiler.
#ifndef NNET3_NNET3_COMPUTE_XVECTOR_H_
#define NNET3_NNET3_COMPUTE_XVECTOR_H_

#include <atomic>
#include <memory>
#include <string>

#include "nnet3/compute/nnet-computer.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "util/options.h"

namespace nnet3 {

struct XvectorExtractionOptions {
  int32 chunk_size = -1;       // -1: the whole utterance is one chunk
  int32 min_chunk_size = 100;
  bool pad_input = true;
  // Ours: compute long chunks through XvectorPlan's two fixed compilations
  // where that is exact (XvectorComputer only).
  bool reuse_compilation = true;
  // Rows of E per frame-network block (not a command-line option).
  int32 block_size = 256;
  // Ours: on a GPU, replay the plan's two computations as CUDA graphs
  // (nnet3/compute/computation-graphs.h).
  bool cuda_graphs = true;
  // Registers --chunk-size, --min-chunk-size, --pad-input,
  // --reuse-compilation and --cuda-graphs.
  void Register(OptionsItf *opts);
  // Errors (UserError naming the option) on values that make no sense:
  // chunk-size 0 or below -1, negative min-chunk-size, block-size < 1.
  void Check() const;
};

// The output of node "output" at (0, 0, 0) for input frames t = 0 ..
// feats.NumRows()-1 of node "input".
void ComputeXvectorOfChunk(const Nnet &nnet,
                           CachingOptimizingCompiler *compiler,
                           const MatrixBase<BaseFloat> &feats,
                           Vector<BaseFloat> *xvector);

// The chunk-length-weighted average over the utterance's chunks. Returns
// false (and says why in *why_not) when the utterance gives no x-vector:
// it is empty, it is shorter than min-chunk-size without pad-input, or
// every chunk was skipped. Feature dimension mismatches are UserErrors.
bool ComputeUtteranceXvector(const XvectorExtractionOptions &opts,
                             const Nnet &nnet,
                             CachingOptimizingCompiler *compiler,
                             const MatrixBase<BaseFloat> &feats,
                             Vector<BaseFloat> *xvector,
                             std::string *why_not);

// How a network splits for compilation reuse (see the top of this file).
// The plan applies only when all of these hold, checked once here:
//  - exactly one component node P has a StatisticsPoolingComponent, with
//    input-period 1, and its input descriptor is exactly the node E (no
//    offset, scale or other term), whose component is a
//    StatisticsExtractionComponent with input-period 1 and output-period 1
//    (so E's row t is a function of the frame layers' row t alone);
//  - the network below E (what E reads) has only simple components, no
//    IfDefined/Failover and no recurrence (NnetIsChunkingInvariant), reads
//    only "input", and has left/right context L/R: in a whole chunk of T
//    frames E then exists exactly at t in [L, T-1-R], each row the same
//    whatever frames lie outside [t-L, t+R];
//  - going back from "output" at (0, 0, 0) through descriptors, dim-range
//    nodes and simple components, the only things reached are P at
//    (0, 0, 0) and nothing else of P, no input node and no non-simple
//    component (so there is no second path from the frames to the output);
//  - the segment network's request (xvector-stats at t=0 -> output at
//    t=0) compiles.
// For a chunk of T frames P's window for t=0 then sums E's rows t in
// [max(L, -left-context), min(T-1-R, right-context)]; the plan covers that
// range with blocks when it holds at least block_size rows.
class XvectorPlan {
 public:
  // Never throws for a network the plan does not fit; Applies() is then
  // false and WhyNot() says which condition failed.
  XvectorPlan(const Nnet &nnet, int32 block_size,
              const NnetOptimizeOptions &opt_config = NnetOptimizeOptions(),
              const CachingOptimizingCompilerOptions &compiler_config =
                  CachingOptimizingCompilerOptions());

  bool Applies() const { return applies_; }
  const std::string &WhyNot() const { return why_not_; }
  // For a chunk of num_frames frames: the E rows [*first, *last] that the
  // whole-chunk computation pools; false if the plan does not apply or the
  // range holds fewer than block_size rows (the caller then computes the
  // chunk the ordinary way).
  bool PooledRange(int32 num_frames, int32 *first, int32 *last) const;
  // The x-vector of one chunk (PooledRange must have returned true for
  // its length).
  void Compute(const MatrixBase<BaseFloat> &feats,
               Vector<BaseFloat> *xvector);

  // Whether Compute() replays its computations as CUDA graphs on a GPU
  // (default true).
  void SetCudaGraphs(bool on) { cuda_graphs_ = on; }

  int32 BlockSize() const { return block_size_; }
  int32 LeftContext() const { return left_context_; }
  int32 RightContext() const { return right_context_; }
  // Compilations made by the plan: 2 when it applies (both are made by
  // the constructor), 0 when it does not.
  int64 NumCompilations() const;
  double CompileSeconds() const;
  int64 NumBlocksComputed() const { return num_blocks_.load(); }

 private:
  // Sets why_not_ and returns false.
  bool Fail(const std::string &why);
  // The checks and network surgery; false with why_not_ set on failure.
  bool Build(const Nnet &nnet);
  bool FindStatsNodes(const Nnet &nnet);
  bool CheckOutputReachesOnlyPooling(const Nnet &nnet);
  bool BuildFrameNnet(const Nnet &nnet);
  bool BuildSegmentNnet(const Nnet &nnet);

  int32 block_size_;
  NnetOptimizeOptions opt_config_;
  CachingOptimizingCompilerOptions compiler_config_;
  bool applies_ = false;
  bool cuda_graphs_ = true;
  std::string why_not_;
  int32 extraction_node_ = -1, pooling_node_ = -1;
  int32 stats_dim_ = -1;
  int32 pool_left_ = 0, pool_right_ = 0;
  int32 left_context_ = 0, right_context_ = 0;
  Nnet frame_nnet_, segment_nnet_;
  std::unique_ptr<CachingOptimizingCompiler> frame_compiler_,
      segment_compiler_;
  std::shared_ptr<const NnetComputation> frame_computation_,
      segment_computation_;
  std::atomic<int64> num_blocks_{0};
};

// Extraction with the options above, reusing compilations through an
// XvectorPlan when opts.reuse_compilation is set and the plan applies;
// other chunks go through 'compiler' (owned by the caller, which keeps
// --cache-capacity's meaning). Both networks must outlive this object.
class XvectorComputer {
 public:
  XvectorComputer(const XvectorExtractionOptions &opts, const Nnet &nnet,
                  CachingOptimizingCompiler *compiler,
                  const NnetOptimizeOptions &opt_config =
                      NnetOptimizeOptions(),
                  const CachingOptimizingCompilerOptions &compiler_config =
                      CachingOptimizingCompilerOptions());

  // As ComputeUtteranceXvector.
  bool ComputeUtterance(const MatrixBase<BaseFloat> &feats,
                        Vector<BaseFloat> *xvector, std::string *why_not);
  // One chunk (already padded if needed), through the plan if possible.
  void ComputeChunk(const MatrixBase<BaseFloat> &feats,
                    Vector<BaseFloat> *xvector);

  // Null when opts.reuse_compilation is false.
  const XvectorPlan *Plan() const { return plan_.get(); }
  // Compilations by the plan plus those of the ordinary compiler (which
  // counts every compilation it ever made).
  int64 NumCompilations() const;
  double CompileSeconds() const;
  int64 NumChunksThroughPlan() const { return chunks_through_plan_.load(); }
  int64 NumChunksOrdinary() const { return chunks_ordinary_.load(); }

 private:
  XvectorExtractionOptions opts_;
  const Nnet &nnet_;
  CachingOptimizingCompiler *compiler_;
  std::unique_ptr<XvectorPlan> plan_;
  // Atomic: several threads may compute utterances with one computer.
  std::atomic<int64> chunks_through_plan_{0}, chunks_ordinary_{0};
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPUTE_XVECTOR_H_
