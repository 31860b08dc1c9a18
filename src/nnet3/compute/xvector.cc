// nnet3/compute/xvector.cc
#include "nnet3/compute/xvector.h"

#include <algorithm>
#include <sstream>

#include "base/log.h"

namespace nnet3 {

void XvectorExtractionOptions::Register(OptionsItf *opts) {
  opts->Register("chunk-size", &chunk_size,
                 "Frames per chunk; the x-vectors of the chunks are averaged, "
                 "weighted by chunk length. -1 means one chunk for the whole "
                 "utterance.");
  opts->Register("min-chunk-size", &min_chunk_size,
                 "Chunks shorter than this are skipped (or padded, with "
                 "--pad-input); without --pad-input shorter utterances fail.");
  opts->Register("pad-input", &pad_input,
                 "If true, a chunk shorter than --min-chunk-size is padded to "
                 "that length by repeating its first and last frames.");
}

void XvectorExtractionOptions::Check() const {
  if (chunk_size == 0 || chunk_size < -1)
    NNET3_ERR << "Invalid --chunk-size=" << chunk_size
              << " (expected -1 or a positive number of frames)";
  if (min_chunk_size < 0)
    NNET3_ERR << "Invalid --min-chunk-size=" << min_chunk_size
              << " (expected a number of frames >= 0)";
}

void ComputeXvectorOfChunk(const Nnet &nnet,
                           CachingOptimizingCompiler *compiler,
                           const MatrixBase<BaseFloat> &feats,
                           Vector<BaseFloat> *xvector) {
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", 0, feats.NumRows()));
  request.outputs.push_back(
      IoSpecification("output", std::vector<Index>(1, Index(0, 0, 0))));
  std::shared_ptr<const NnetComputation> computation =
      compiler->Compile(request);
  NnetComputer computer(NnetComputeOptions(), *computation, nnet, nullptr);
  CuMatrix<BaseFloat> input(feats);
  computer.AcceptInput("input", &input);
  computer.Run();
  CuMatrix<BaseFloat> out;
  computer.GetOutputDestructive("output", &out);
  NNET3_ASSERT(out.NumRows() == 1);
  xvector->Resize(out.NumCols(), kUndefined);
  xvector->CopyFromVec(out.Row(0));
}

namespace {

// 'chunk' repeated at the edges to 'length' frames: (length - rows) / 2
// copies of its first frame before it, the remaining copies of its last
// frame after it.
Matrix<BaseFloat> PadChunk(const MatrixBase<BaseFloat> &chunk, int32 length) {
  int32 rows = chunk.NumRows(), dim = chunk.NumCols();
  NNET3_ASSERT(rows > 0 && rows < length);
  int32 before = (length - rows) / 2;
  Matrix<BaseFloat> padded(length, dim, kUndefined);
  for (int32 t = 0; t < length; t++) {
    int32 src = std::min(std::max(t - before, 0), rows - 1);
    padded.Row(t).CopyFromVec(chunk.Row(src));
  }
  return padded;
}

}  // namespace

bool ComputeUtteranceXvector(const XvectorExtractionOptions &opts,
                             const Nnet &nnet,
                             CachingOptimizingCompiler *compiler,
                             const MatrixBase<BaseFloat> &feats,
                             Vector<BaseFloat> *xvector,
                             std::string *why_not) {
  opts.Check();
  int32 num_frames = feats.NumRows();
  if (num_frames == 0) {
    *why_not = "zero-length utterance";
    return false;
  }
  int32 input_dim = nnet.InputDim("input"),
        output_dim = nnet.OutputDim("output");
  if (input_dim < 0 || output_dim < 0)
    NNET3_ERR << "The network needs an input node named 'input' and an "
              << "output node named 'output'";
  if (feats.NumCols() != input_dim)
    NNET3_ERR << "Feature dimension is " << feats.NumCols()
              << " but the network's input dimension is " << input_dim;
  if (!opts.pad_input && num_frames < opts.min_chunk_size) {
    std::ostringstream msg;
    msg << "the utterance has " << num_frames << " frames, fewer than "
        << "--min-chunk-size=" << opts.min_chunk_size
        << " (and --pad-input=false)";
    *why_not = msg.str();
    return false;
  }
  // An utterance shorter than the chunk size (or chunk-size -1) is one
  // chunk.
  int32 chunk = (opts.chunk_size == -1 || num_frames < opts.chunk_size)
                    ? num_frames
                    : opts.chunk_size;
  int32 num_chunks = (num_frames + chunk - 1) / chunk;
  Vector<BaseFloat> sum(output_dim);
  BaseFloat total_weight = 0.0;
  Vector<BaseFloat> one;
  for (int32 c = 0; c < num_chunks; c++) {
    int32 start = c * chunk, len = std::min(chunk, num_frames - start);
    bool short_chunk = len < opts.min_chunk_size;
    if (short_chunk && !opts.pad_input) continue;
    SubMatrix<BaseFloat> frames(feats, start, len, 0, feats.NumCols());
    if (short_chunk)
      ComputeXvectorOfChunk(nnet, compiler,
                            PadChunk(frames, opts.min_chunk_size), &one);
    else
      ComputeXvectorOfChunk(nnet, compiler, frames, &one);
    total_weight += len;
    sum.AddVec(static_cast<BaseFloat>(len), one);
  }
  if (total_weight == 0.0) {
    // Kaldi would divide by zero here and write NaNs.
    std::ostringstream msg;
    msg << "every chunk of --chunk-size=" << opts.chunk_size
        << " is shorter than --min-chunk-size=" << opts.min_chunk_size
        << " (and --pad-input=false)";
    *why_not = msg.str();
    return false;
  }
  sum.Scale(1.0 / total_weight);
  xvector->Swap(&sum);
  return true;
}

}  // namespace nnet3
