// nnet3/compute/xvector.cc
#include "nnet3/compute/xvector.h"

#include <algorithm>
#include <functional>
#include <sstream>
#include <unordered_set>

#include "base/log.h"
#include "base/timer.h"
#include "nnet3/components/statistics.h"
#include "nnet3/nnet/nnet-utils.h"

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
  opts->Register("reuse-compilation", &reuse_compilation,
                 "(Not in Kaldi.) If true, and the network is a plain "
                 "frame layers -> statistics extraction -> statistics "
                 "pooling -> segment layers x-vector network, long chunks are "
                 "computed in fixed-size blocks plus a one-row segment "
                 "computation, two compilations for all chunk lengths, with "
                 "the same results; otherwise each chunk length is compiled "
                 "on its own.");
  opts->Register("cuda-graphs", &cuda_graphs,
                 "(Not in Kaldi.) On a GPU, replay the fixed-size block and "
                 "segment computations of --reuse-compilation as CUDA graphs "
                 "(the same results with far fewer kernel launches)");
}

void XvectorExtractionOptions::Check() const {
  if (chunk_size == 0 || chunk_size < -1)
    NNET3_ERR << "Invalid --chunk-size=" << chunk_size
              << " (expected -1 or a positive number of frames)";
  if (min_chunk_size < 0)
    NNET3_ERR << "Invalid --min-chunk-size=" << min_chunk_size
              << " (expected a number of frames >= 0)";
  if (block_size < 1)
    NNET3_ERR << "Invalid x-vector block size " << block_size
              << " (expected a number of rows >= 1)";
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
  out.Row(0).CopyToVec(xvector);
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

namespace {

typedef std::function<void(const MatrixBase<BaseFloat> &, Vector<BaseFloat> *)>
    ChunkFunction;

// The chunking, padding and weighting of ComputeUtteranceXvector, with the
// x-vector of one chunk computed by 'compute_chunk'.
bool UtteranceXvector(const XvectorExtractionOptions &opts, const Nnet &nnet,
                      const ChunkFunction &compute_chunk,
                      const MatrixBase<BaseFloat> &feats,
                      Vector<BaseFloat> *xvector, std::string *why_not) {
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
      compute_chunk(PadChunk(frames, opts.min_chunk_size), &one);
    else
      compute_chunk(frames, &one);
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

}  // namespace

bool ComputeUtteranceXvector(const XvectorExtractionOptions &opts,
                             const Nnet &nnet,
                             CachingOptimizingCompiler *compiler,
                             const MatrixBase<BaseFloat> &feats,
                             Vector<BaseFloat> *xvector,
                             std::string *why_not) {
  ChunkFunction ordinary = [&nnet, compiler](const MatrixBase<BaseFloat> &f,
                                             Vector<BaseFloat> *v) {
    ComputeXvectorOfChunk(nnet, compiler, f, v);
  };
  return UtteranceXvector(opts, nnet, ordinary, feats, xvector, why_not);
}

// ---- XvectorPlan ---------------------------------------------------------

namespace {

std::string Str(int32 i) { return std::to_string(i); }

// Removes the nodes (inputs included) no output needs, as
// Nnet::RemoveOrphanNodes(true) does but without its log line: the split
// networks are internal and their pruning is no news to the user. Unused
// components stay (nothing refers to them).
void PruneNodes(Nnet *nnet) {
  std::vector<int32> orphans, remove;
  FindOrphanNodes(*nnet, &orphans);
  for (int32 n : orphans) {
    remove.push_back(n);
    if (nnet->IsComponentNode(n)) remove.push_back(n - 1);
  }
  std::sort(remove.begin(), remove.end());
  remove.erase(std::unique(remove.begin(), remove.end()), remove.end());
  nnet->RemoveSomeNodes(remove);
}

// A descriptor that is just the node 'node' of 'nnet'.
Descriptor PlainReference(int32 node, const Nnet &nnet) {
  Descriptor d;
  d.Parse(nnet.GetNodeName(node), nnet.GetNodeNames());
  return d;
}

}  // namespace

XvectorPlan::XvectorPlan(const Nnet &nnet, int32 block_size,
                         const NnetOptimizeOptions &opt_config,
                         const CachingOptimizingCompilerOptions &compiler_config)
    : block_size_(block_size), opt_config_(opt_config),
      compiler_config_(compiler_config) {
  // The two computations are compiled once; a cache of one each suffices.
  compiler_config_.cache_capacity = 1;
  if (block_size_ < 1)
    NNET3_ERR << "Invalid x-vector block size " << block_size_
              << " (expected a number of rows >= 1)";
  try {
    applies_ = Build(nnet);
  } catch (const UserError &e) {
    applies_ = Fail(e.message());
  }
  if (!applies_) {
    // Nothing of the split is kept when it is not used (the compilers go
    // first: they refer to the networks).
    frame_computation_.reset();
    segment_computation_.reset();
    frame_compiler_.reset();
    segment_compiler_.reset();
    frame_nnet_ = Nnet();
    segment_nnet_ = Nnet();
  }
}

bool XvectorPlan::Fail(const std::string &why) {
  why_not_ = why;
  return false;
}

bool XvectorPlan::Build(const Nnet &nnet) {
  if (nnet.InputDim("input") < 0 || nnet.OutputDim("output") < 0)
    return Fail("the network lacks an input node 'input' or an output node "
                "'output'");
  return FindStatsNodes(nnet) && CheckOutputReachesOnlyPooling(nnet) &&
         BuildFrameNnet(nnet) && BuildSegmentNnet(nnet);
}

bool XvectorPlan::FindStatsNodes(const Nnet &nnet) {
  const StatisticsPoolingComponent *pool = nullptr;
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    if (!nnet.IsComponentNode(n)) continue;
    const StatisticsPoolingComponent *p =
        dynamic_cast<const StatisticsPoolingComponent *>(
            nnet.GetComponent(nnet.GetNode(n).component_index));
    if (p == nullptr) continue;
    if (pool != nullptr)
      return Fail("more than one StatisticsPoolingComponent node ('" +
                  nnet.GetNodeName(pooling_node_) + "', '" +
                  nnet.GetNodeName(n) + "')");
    pool = p;
    pooling_node_ = n;
  }
  if (pool == nullptr) return Fail("no StatisticsPoolingComponent node");
  const std::string &pname = nnet.GetNodeName(pooling_node_);
  pool_left_ = pool->LeftContext();
  pool_right_ = pool->RightContext();

  // Its input must be exactly the extraction node: one part, one term, no
  // offset or scale.
  const NetworkNode &in = nnet.GetNode(pooling_node_ - 1);
  NNET3_ASSERT(in.node_type == kDescriptor);
  const SimpleSumDescriptor *sum =
      in.descriptor.NumParts() == 1
          ? dynamic_cast<const SimpleSumDescriptor *>(&in.descriptor.Part(0))
          : nullptr;
  const SimpleForwardingDescriptor *fwd =
      sum != nullptr
          ? dynamic_cast<const SimpleForwardingDescriptor *>(&sum->Src())
          : nullptr;
  if (fwd == nullptr || fwd->Scale() != 1.0)
    return Fail("the input of pooling node '" + pname + "' is '" +
                in.descriptor.ToString(nnet.GetNodeNames()) +
                "', not a plain node name");
  extraction_node_ = fwd->SrcNode();
  const std::string &ename = nnet.GetNodeName(extraction_node_);
  const StatisticsExtractionComponent *extract =
      nnet.IsComponentNode(extraction_node_)
          ? dynamic_cast<const StatisticsExtractionComponent *>(
                nnet.GetComponent(
                    nnet.GetNode(extraction_node_).component_index))
          : nullptr;
  if (extract == nullptr)
    return Fail("pooling node '" + pname + "' reads '" + ename +
                "', which is not a StatisticsExtractionComponent node");
  if (extract->InputPeriod() != 1 || extract->OutputPeriod() != 1)
    return Fail("extraction node '" + ename + "' has input-period=" +
                Str(extract->InputPeriod()) + " output-period=" +
                Str(extract->OutputPeriod()) + " (1 and 1 needed)");
  if (pool->InputPeriod() != 1)
    return Fail("pooling node '" + pname + "' has input-period=" +
                Str(pool->InputPeriod()) + " (1 needed)");
  stats_dim_ = extract->OutputDim();
  return true;
}

bool XvectorPlan::CheckOutputReachesOnlyPooling(const Nnet &nnet) {
  // Walk back from output (0, 0, 0); every Cindex reached must lead only
  // to the pooling node at (0, 0, 0).
  const Index zero(0, 0, 0);
  std::vector<Cindex> pending(1, Cindex(nnet.GetNodeIndex("output"), zero));
  std::unordered_set<Cindex, CindexHasher> seen(pending.begin(),
                                                pending.end());
  std::vector<Cindex> deps;
  const size_t kMaxCindexes = 1000000;
  while (!pending.empty()) {
    Cindex c = pending.back();
    pending.pop_back();
    const NetworkNode &node = nnet.GetNode(c.first);
    const std::string &name = nnet.GetNodeName(c.first);
    deps.clear();
    switch (node.node_type) {
      case kInput:
        return Fail("the output depends on input node '" + name +
                    "' other than through the statistics pooling");
      case kDescriptor: {
        std::vector<Cindex> d;
        node.descriptor.GetDependencies(c.second, &d);
        deps.swap(d);
        break;
      }
      case kDimRange:
        deps.push_back(Cindex(node.node_index, c.second));
        break;
      case kComponent: {
        if (c.first == pooling_node_) {
          if (!(c.second == zero)) {
            std::ostringstream msg;
            msg << "the output at t=0 reads pooling node '" << name
                << "' at " << c.second << ", not only at (0, 0, 0)";
            return Fail(msg.str());
          }
          continue;
        }
        const Component *comp = nnet.GetComponent(node.component_index);
        if (!(comp->Properties() & kSimpleComponent))
          return Fail("non-simple component node '" + name +
                      "' lies between the statistics pooling and the output");
        deps.push_back(Cindex(c.first - 1, c.second));
        break;
      }
      default:
        NNET3_ASSERT(false && "unexpected node type");
    }
    for (const Cindex &d : deps)
      if (seen.insert(d).second) pending.push_back(d);
    if (seen.size() > kMaxCindexes)
      return Fail("the segment layers read too many time indexes");
  }
  return true;
}

bool XvectorPlan::BuildFrameNnet(const Nnet &nnet) {
  // The context of what E reads, and whether it is the same in any chunk:
  // a copy whose output reads what E reads. (The networks here are edited
  // in place rather than through config lines, whose checks would warn
  // about the nodes left unused before they are removed.)
  const int32 output_node = nnet.GetNodeIndex("output");
  Nnet probe(nnet);
  probe.GetNode(output_node).descriptor =
      nnet.GetNode(extraction_node_ - 1).descriptor;
  PruneNodes(&probe);
  if (probe.GetNodeIndex("input") == -1 || NumInputNodes(probe) != 1)
    return Fail("the frame layers do not read exactly the input node "
                "'input'");
  if (!NnetIsChunkingInvariant(probe))
    return Fail("the frame layers below '" +
                nnet.GetNodeName(extraction_node_) +
                "' are not chunking-invariant (IfDefined, Failover, "
                "recurrence or non-simple components)");
  if (probe.Modulus() != 1)
    return Fail("the frame layers have modulus " + Str(probe.Modulus()) +
                " (1 needed)");
  ComputeSimpleNnetContext(probe, &left_context_, &right_context_);
  probe = Nnet();

  // The frame network: the same, with E as its output.
  frame_nnet_ = nnet;
  frame_nnet_.GetNode(output_node).descriptor =
      PlainReference(extraction_node_, nnet);
  PruneNodes(&frame_nnet_);
  frame_compiler_.reset(new CachingOptimizingCompiler(
      frame_nnet_, opt_config_, compiler_config_));
  ComputationRequest request;
  request.inputs.push_back(IoSpecification(
      "input", -left_context_, block_size_ + right_context_));
  request.outputs.push_back(IoSpecification("output", 0, block_size_));
  try {
    frame_computation_ = frame_compiler_->Compile(request);
  } catch (const UserError &e) {
    return Fail("the frame-level block does not compile: " + e.message());
  }
  return true;
}

bool XvectorPlan::BuildSegmentNnet(const Nnet &nnet) {
  const std::string kStatsName = "xvector-stats";
  if (nnet.GetNodeIndex(kStatsName) != -1)
    return Fail("the network already has a node named '" + kStatsName + "'");
  // The node "input" becomes the stats input (renamed, resized) and P
  // reads it; the frame layers, which then read a node of the wrong
  // dimension, are left unused and removed. (CheckOutputReachesOnlyPooling
  // has made sure that nothing else of them is used.)
  const int32 input_node = nnet.GetNodeIndex("input");
  segment_nnet_ = nnet;
  segment_nnet_.SetNodeName(input_node, kStatsName);
  segment_nnet_.GetNode(input_node).dim = stats_dim_;
  segment_nnet_.GetNode(pooling_node_ - 1).descriptor =
      PlainReference(input_node, segment_nnet_);
  PruneNodes(&segment_nnet_);
  const int32 pcomp = nnet.GetNode(pooling_node_).component_index;
  if (NumInputNodes(segment_nnet_) != 1)
    return Fail("the segment layers read input nodes other than the "
                "pooled statistics");
  // A copied pooling component loses a configured variance-floor (as in
  // Kaldi); a write/read round trip keeps every field.
  {
    std::ostringstream os;
    nnet.GetComponent(pcomp)->Write(os, true);
    std::istringstream is(os.str());
    segment_nnet_.SetComponent(
        segment_nnet_.GetComponentIndex(nnet.GetComponentName(pcomp)),
        Component::ReadNew(is, true));
  }
  segment_compiler_.reset(new CachingOptimizingCompiler(
      segment_nnet_, opt_config_, compiler_config_));
  ComputationRequest request;
  request.inputs.push_back(IoSpecification(kStatsName, 0, 1));
  request.outputs.push_back(
      IoSpecification("output", std::vector<Index>(1, Index(0, 0, 0))));
  try {
    segment_computation_ = segment_compiler_->Compile(request);
  } catch (const UserError &e) {
    return Fail("the segment-level request does not compile: " +
                e.message());
  }
  return true;
}

bool XvectorPlan::PooledRange(int32 num_frames, int32 *first,
                              int32 *last) const {
  if (!applies_) return false;
  *first = std::max(left_context_, -pool_left_);
  *last = std::min(num_frames - 1 - right_context_, pool_right_);
  return *last - *first + 1 >= block_size_;
}

void XvectorPlan::Compute(const MatrixBase<BaseFloat> &feats,
                          Vector<BaseFloat> *xvector) {
  int32 first = 0, last = -1;
  bool ok = PooledRange(feats.NumRows(), &first, &last);
  NNET3_ASSERT(ok);
  const int32 span = block_size_ + left_context_ + right_context_;
  std::vector<double> total(stats_dim_, 0.0);
  // Blocks of block_size_ E rows; the last one ends at 'last' and only
  // its rows from 'next' on are new.
  for (int32 next = first; next <= last;) {
    int32 start = std::min(next, last - block_size_ + 1);
    CuMatrix<BaseFloat> input(
        SubMatrix<BaseFloat>(feats, start - left_context_, span, 0,
                             feats.NumCols()));
    NnetComputeOptions compute_opts;
    compute_opts.cuda_graphs = cuda_graphs_;
    NnetComputer computer(compute_opts, *frame_computation_, frame_nnet_,
                          nullptr);
    computer.UseCudaGraphs(frame_computation_);
    computer.AcceptInput("input", &input);
    computer.Run();
    const CuMatrixBase<BaseFloat> &cu_rows = computer.GetOutput("output");
    NNET3_ASSERT(cu_rows.NumRows() == block_size_ &&
                 cu_rows.NumCols() == stats_dim_);
    Matrix<BaseFloat> rows(block_size_, stats_dim_, kUndefined);
    cu_rows.CopyToMat(&rows);
    for (int32 r = next - start; r < block_size_; r++) {
      const BaseFloat *row = rows.RowData(r);
      for (int32 d = 0; d < stats_dim_; d++) total[d] += row[d];
    }
    num_blocks_++;
    next = start + block_size_;
  }
  Matrix<BaseFloat> host_stats(1, stats_dim_, kUndefined);
  for (int32 d = 0; d < stats_dim_; d++)
    host_stats(0, d) = static_cast<BaseFloat>(total[d]);
  CuMatrix<BaseFloat> stats(host_stats);
  NnetComputeOptions compute_opts;
  compute_opts.cuda_graphs = cuda_graphs_;
  NnetComputer computer(compute_opts, *segment_computation_, segment_nnet_,
                        nullptr);
  computer.UseCudaGraphs(segment_computation_);
  computer.AcceptInput("xvector-stats", &stats);
  computer.Run();
  CuMatrix<BaseFloat> out;
  computer.GetOutputDestructive("output", &out);
  NNET3_ASSERT(out.NumRows() == 1);
  xvector->Resize(out.NumCols(), kUndefined);
  out.Row(0).CopyToVec(xvector);
}

int64 XvectorPlan::NumCompilations() const {
  return (frame_compiler_ ? frame_compiler_->NumCompilations() : 0) +
         (segment_compiler_ ? segment_compiler_->NumCompilations() : 0);
}

double XvectorPlan::CompileSeconds() const {
  return (frame_compiler_ ? frame_compiler_->CompileSeconds() : 0.0) +
         (segment_compiler_ ? segment_compiler_->CompileSeconds() : 0.0);
}

// ---- XvectorComputer -----------------------------------------------------

XvectorComputer::XvectorComputer(
    const XvectorExtractionOptions &opts, const Nnet &nnet,
    CachingOptimizingCompiler *compiler, const NnetOptimizeOptions &opt_config,
    const CachingOptimizingCompilerOptions &compiler_config)
    : opts_(opts), nnet_(nnet), compiler_(compiler) {
  opts_.Check();
  if (opts_.reuse_compilation)
    plan_.reset(new XvectorPlan(nnet, opts_.block_size, opt_config,
                                compiler_config));
  if (plan_) plan_->SetCudaGraphs(opts_.cuda_graphs);
}

void XvectorComputer::ComputeChunk(const MatrixBase<BaseFloat> &feats,
                                   Vector<BaseFloat> *xvector) {
  int32 first, last;
  if (plan_ && plan_->PooledRange(feats.NumRows(), &first, &last)) {
    if (feats.NumCols() != nnet_.InputDim("input"))
      NNET3_ERR << "Feature dimension is " << feats.NumCols()
                << " but the network's input dimension is "
                << nnet_.InputDim("input");
    plan_->Compute(feats, xvector);
    chunks_through_plan_++;
  } else {
    ComputeXvectorOfChunk(nnet_, compiler_, feats, xvector);
    chunks_ordinary_++;
  }
}

bool XvectorComputer::ComputeUtterance(const MatrixBase<BaseFloat> &feats,
                                       Vector<BaseFloat> *xvector,
                                       std::string *why_not) {
  ChunkFunction chunk = [this](const MatrixBase<BaseFloat> &f,
                               Vector<BaseFloat> *v) { ComputeChunk(f, v); };
  return UtteranceXvector(opts_, nnet_, chunk, feats, xvector, why_not);
}

int64 XvectorComputer::NumCompilations() const {
  return compiler_->NumCompilations() +
         (plan_ ? plan_->NumCompilations() : 0);
}

double XvectorComputer::CompileSeconds() const {
  return compiler_->CompileSeconds() + (plan_ ? plan_->CompileSeconds() : 0.0);
}

}  // namespace nnet3
