// nnet3/optimize/memory-compression.h
// Memory compression (Kaldi's OptimizeMemoryCompression): in a training
// computation, matrices that the forward pass produces and the backward pass
// only reads much later are stored compressed in between. A
// kCompressMatrix goes right after the matrix's last forward-pass access and
// a kDecompressMatrix right before its first backward-pass access.
//  - level 0: nothing happens.
//  - level >= 1: a matrix whose only backward-pass use is as the output
//    value of a RectifiedLinearComponent's backprop (and that is its last
//    use) is kept as its sign only (uint8, range 0). ReLU's backprop looks
//    only at whether the output is positive, so results are exactly those
//    of the uncompressed computation.
//  - level >= 2: every other such matrix is kept as int16 with range 10
//    (truncated); this is lossy, as in Kaldi.
// Needs: a non-looped computation with exactly one kNoOperationMarker
// separating the forward from the backward pass (anything else is left
// alone). Inputs and outputs of the computation are never compressed, nor
// are matrices that are allocated, deallocated or swapped between the two
// accesses. Keeps true: every compression is immediately followed (among
// the matrix's accesses) by its decompression, compression happens in the
// forward pass and decompression in the backward pass, so the result
// passes CheckComputation (including its compression rules).
#ifndef NNET3_NNET3_OPTIMIZE_MEMORY_COMPRESSION_H_
#define NNET3_NNET3_OPTIMIZE_MEMORY_COMPRESSION_H_

#include "base/types.h"
#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

void OptimizeMemoryCompression(const Nnet &nnet,
                               int32 memory_compression_level,
                               NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_MEMORY_COMPRESSION_H_
