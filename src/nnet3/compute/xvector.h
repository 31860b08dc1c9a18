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
#ifndef NNET3_NNET3_COMPUTE_XVECTOR_H_
#define NNET3_NNET3_COMPUTE_XVECTOR_H_

#include <string>

#include "nnet3/compute/nnet-computer.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "util/options.h"

namespace nnet3 {

struct XvectorExtractionOptions {
  int32 chunk_size = -1;       // -1: the whole utterance is one chunk
  int32 min_chunk_size = 100;
  bool pad_input = true;
  // Registers --chunk-size, --min-chunk-size and --pad-input.
  void Register(OptionsItf *opts);
  // Errors (UserError naming the option) on values that make no sense:
  // chunk-size 0 or below -1, negative min-chunk-size.
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

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPUTE_XVECTOR_H_
