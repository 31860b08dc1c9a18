// nnet3/optimize/memory-compression.cc
// See memory-compression.h. The pass finds, per matrix, the access just
// before and just after the forward/backward marker, decides whether (and
// how) to compress in between, and then splices the new commands in with a
// single rebuild of the command list.
#include "nnet3/optimize/memory-compression.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "nnet3/analyze/analyze.h"

namespace nnet3 {

namespace {

// Compression type codes of kCompressMatrix (see computation.h).
const int32 kCompressUint8 = 2;
const int32 kCompressInt16 = 3;

// One decision: compress matrix 'matrix' after command 'forward_command'
// and decompress it before command 'backward_command'.
struct CompressionPlan {
  int32 matrix;
  int32 forward_command;
  int32 backward_command;
  int32 compression_type;
  BaseFloat range;
  bool truncate;
};

class MemoryCompressor {
 public:
  MemoryCompressor(const Nnet &nnet, int32 level, int32 marker,
                   NnetComputation *computation)
      : nnet_(nnet), level_(level), marker_(marker),
        computation_(computation) {}

  void Run() {
    analyzer_.Init(nnet_, *computation_);
    FindSizingCommands();
    int32 num_matrices = static_cast<int32>(computation_->matrices.size());
    for (int32 m = 1; m < num_matrices; m++) ConsiderMatrix(m);
    if (!plans_.empty()) InsertCommands();
  }

 private:
  // sizing_commands_[m]: the alloc/dealloc/swap commands naming matrix m.
  void FindSizingCommands() {
    sizing_commands_.assign(computation_->matrices.size(),
                            std::vector<int32>());
    int32 num_commands = static_cast<int32>(computation_->commands.size());
    int32 num_submatrices =
        static_cast<int32>(computation_->submatrices.size());
    for (int32 c = 0; c < num_commands; c++) {
      const NnetComputation::Command &cmd = computation_->commands[c];
      if (cmd.command_type != kAllocMatrix &&
          cmd.command_type != kDeallocMatrix &&
          cmd.command_type != kSwapMatrix)
        continue;
      for (int32 s : {cmd.arg1, cmd.arg2}) {
        if (s > 0 && s < num_submatrices)
          sizing_commands_[computation_->submatrices[s].matrix_index]
              .push_back(c);
      }
    }
  }

  bool SizedBetween(int32 m, int32 begin, int32 end) const {
    for (int32 c : sizing_commands_[m])
      if (c > begin && c < end) return true;
    return false;
  }

  void ConsiderMatrix(int32 m) {
    const MatrixAccesses &ma = analyzer_.matrix_accesses[m];
    if (ma.is_input || ma.is_output) return;
    const std::vector<Access> &accesses = ma.accesses;
    // The first access after the marker (the marker itself touches no
    // matrix).
    std::vector<Access>::const_iterator next = std::lower_bound(
        accesses.begin(), accesses.end(), marker_,
        [](const Access &a, int32 c) { return a.command_index < c; });
    if (next == accesses.end() || next == accesses.begin()) return;
    const Access &backward = *next, &forward = *(next - 1);
    if (SizedBetween(m, forward.command_index, backward.command_index))
      return;
    bool backward_is_last = (next + 1 == accesses.end());
    const NnetComputation::Command &bcmd =
        computation_->commands[backward.command_index];

    if (level_ >= 1 && backward_is_last &&
        backward.access_type == kReadAccess &&
        (bcmd.command_type == kBackprop ||
         bcmd.command_type == kBackpropNoModelUpdate) &&
        nnet_.GetComponent(bcmd.arg1)->Type() == "RectifiedLinearComponent" &&
        bcmd.arg3 <= 0 && bcmd.arg4 > 0 &&
        computation_->submatrices[bcmd.arg4].matrix_index == m) {
      // Only the sign of the ReLU output is needed.
      plans_.push_back({m, forward.command_index, backward.command_index,
                        kCompressUint8, 0.0f, true});
      return;
    }
    if (level_ >= 2) {
      // 16 bits over [-10, 10]; zero stays exactly zero.
      plans_.push_back({m, forward.command_index, backward.command_index,
                        kCompressInt16, 10.0f, true});
    }
  }

  // Whole-matrix submatrix of m, created if the computation has none.
  int32 WholeSubmatrix(int32 m, std::vector<int32> *whole) {
    if ((*whole)[m] > 0) return (*whole)[m];
    const NnetComputation::MatrixInfo &info = computation_->matrices[m];
    computation_->submatrices.push_back(NnetComputation::SubMatrixInfo(
        m, 0, info.num_rows, 0, info.num_cols));
    (*whole)[m] = static_cast<int32>(computation_->submatrices.size()) - 1;
    return (*whole)[m];
  }

  void InsertCommands() {
    std::vector<int32> whole;
    computation_->GetWholeSubmatrices(&whole);
    // (command index before which to insert, command).
    std::vector<std::pair<int32, NnetComputation::Command> > inserts;
    for (const CompressionPlan &p : plans_) {
      int32 s = WholeSubmatrix(p.matrix, &whole);
      inserts.push_back(std::make_pair(
          p.forward_command + 1,
          NnetComputation::Command(p.range, kCompressMatrix, s,
                                   p.compression_type, p.truncate ? 1 : 0)));
      inserts.push_back(std::make_pair(
          p.backward_command,
          NnetComputation::Command(kDecompressMatrix, s)));
    }
    std::stable_sort(inserts.begin(), inserts.end(),
                     [](const std::pair<int32, NnetComputation::Command> &a,
                        const std::pair<int32, NnetComputation::Command> &b) {
                       return a.first < b.first;
                     });
    std::vector<NnetComputation::Command> commands;
    commands.reserve(computation_->commands.size() + inserts.size());
    size_t next = 0;
    int32 num_commands = static_cast<int32>(computation_->commands.size());
    for (int32 c = 0; c <= num_commands; c++) {
      while (next < inserts.size() && inserts[next].first == c)
        commands.push_back(inserts[next++].second);
      if (c < num_commands) commands.push_back(computation_->commands[c]);
    }
    computation_->commands.swap(commands);
  }

  const Nnet &nnet_;
  int32 level_;
  int32 marker_;
  NnetComputation *computation_;
  Analyzer analyzer_;
  std::vector<std::vector<int32> > sizing_commands_;
  std::vector<CompressionPlan> plans_;
};

}  // namespace

void OptimizeMemoryCompression(const Nnet &nnet,
                               int32 memory_compression_level,
                               NnetComputation *computation) {
  if (memory_compression_level <= 0 || computation->commands.empty()) return;
  // Looped computations are left alone.
  if (computation->commands.back().command_type == kGotoLabel) return;
  int32 marker = -1;
  int32 num_commands = static_cast<int32>(computation->commands.size());
  for (int32 c = 0; c < num_commands; c++) {
    if (computation->commands[c].command_type != kNoOperationMarker) continue;
    if (marker >= 0) return;  // more than one marker: unexpected, skip.
    marker = c;
  }
  if (marker < 0) return;  // no backward pass
  MemoryCompressor(nnet, memory_compression_level, marker, computation).Run();
}

}  // namespace nnet3
