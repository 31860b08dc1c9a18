// nnet3/compute/nnet-computer.cc
// The NnetComputer: the interpreter of NnetComputation commands, the
// exchange of inputs, outputs and derivatives with the caller, memos, and
// the lossy storage used by kCompressMatrix/kDecompressMatrix.
//
// Invariants kept here (see also the header):
//  - every matrix view handed to a component lies inside an allocated
//    matrix of the size the computation declares;
//  - a memo is owned by exactly one place at a time: the component call in
//    progress, memos_, or nobody (deleted through its component's
//    DeleteMemo);
//  - compressed_[m] is non-null exactly while matrix m is compressed, and
//    then matrices_[m] is empty.
#include "nnet3/compute/nnet-computer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>
#include <unordered_map>

#include "base/log.h"
#include "base/profile.h"
#include "cudamatrix/cu-backend.h"
#include "cudamatrix/cu-compressed-matrix.h"
#include "nnet3/compute/computation-graphs.h"

namespace nnet3 {

void NnetComputeOptions::Register(OptionsItf *opts) {
  opts->Register("debug", &debug,
                 "If true, log every command of the computation as it runs "
                 "and check the matrices it writes for NaN and infinity");
}

void NnetComputeOptions::RegisterCudaGraphs(OptionsItf *opts) {
  opts->Register("cuda-graphs", &cuda_graphs,
                 "On a GPU, record each chunk shape's computation as CUDA "
                 "graphs after its first run and replay them for later "
                 "chunks (the same results with far fewer kernel launches)");
}

namespace {

// Deletes a memo through its component unless released.
class MemoGuard {
 public:
  MemoGuard(const Component *c, void *memo) : component_(c), memo_(memo) {}
  ~MemoGuard() {
    if (memo_ != nullptr) component_->DeleteMemo(memo_);
  }
  void *get() const { return memo_; }
  void *release() {
    void *ans = memo_;
    memo_ = nullptr;
    return ans;
  }

 private:
  MemoGuard(const MemoGuard &) = delete;
  MemoGuard &operator=(const MemoGuard &) = delete;
  const Component *component_;
  void *memo_;
};

std::string ShapeString(int32 rows, int32 cols) {
  std::ostringstream os;
  os << rows << " x " << cols;
  return os.str();
}

}  // namespace

// ---- Construction --------------------------------------------------------------

NnetComputer::NnetComputer(const NnetComputeOptions &options,
                           const NnetComputation &computation,
                           const Nnet &nnet, Nnet *nnet_to_update)
    : options_(options), computation_(computation), nnet_(nnet),
      nnet_to_store_stats_(nnet_to_update), nnet_to_update_(nnet_to_update) {
  Init();
}

NnetComputer::NnetComputer(const NnetComputeOptions &options,
                           const NnetComputation &computation, Nnet *nnet,
                           Nnet *nnet_to_update)
    : options_(options), computation_(computation), nnet_(*nnet),
      nnet_to_store_stats_(nnet), nnet_to_update_(nnet_to_update) {
  Init();
}

void NnetComputer::Init() {
  debug_ = options_.debug || GetVerboseLevel() >= 5;
  matrices_.resize(computation_.matrices.size());
}

void NnetComputer::EnsureIndexes() {
  if (indexes_ready_) return;
  indexes_ready_ = true;
  if (graphs_ != nullptr) return;  // the entry's arrays
  UploadComputationIndexes(computation_, &indexes_, &indexes_ranges_);
}

const CuArray<int32> &NnetComputer::IndexArray(int32 i) const {
  return graphs_ != nullptr ? graphs_->Indexes()[i] : indexes_[i];
}

const CuArray<Int32Pair> &NnetComputer::IndexRangesArray(int32 i) const {
  return graphs_ != nullptr ? graphs_->IndexesRanges()[i]
                            : indexes_ranges_[i];
}

NnetComputer::~NnetComputer() {
  for (auto &entry : memos_)
    if (entry.second != nullptr)
      nnet_.GetComponent(entry.first)->DeleteMemo(entry.second);
  if (graphs_ != nullptr) {
    for (size_t m = 0; m < slot_of_.size(); m++)
      if (slot_of_[m] >= 0) UnbindSlot(static_cast<int32>(m));
    ComputationGraphs::Release(graphs_);
  }
}

void NnetComputer::UseCudaGraphs(
    const std::shared_ptr<const NnetComputation> &computation) {
  NNET3_ASSERT(computation.get() == &computation_);
  if (started_)
    throw InternalError("UseCudaGraphs() after the computation started");
  if (graphs_ != nullptr || !options_.cuda_graphs || debug_ ||
      nnet_to_store_stats_ != nullptr ||
      !(cu_backend::OnDevice() || ComputationGraphs::HostTesting()))
    return;
  graphs_ = ComputationGraphs::Acquire(computation, nnet_);
}

// ---- Graph replay -----------------------------------------------------------------

void NnetComputer::BindSlot(int32 m) {
  if (slot_of_[m] >= 0) return;
  int32 slot = graphs_->FreeSlotFor(m);
  if (slot < 0)
    throw InternalError("graph replay: no free device matrix for m" +
                        std::to_string(m));
  matrices_[m].Resize(0, 0);
  matrices_[m].Swap(&graphs_->Slot(slot));
  slot_of_[m] = slot;
}

void NnetComputer::UnbindSlot(int32 m) {
  int32 slot = slot_of_[m];
  if (slot < 0) return;
  matrices_[m].Swap(&graphs_->Slot(slot));
  slot_of_[m] = -1;
}

void NnetComputer::RestoreBindings(const std::vector<int32> &bindings) {
  for (size_t m = 0; m < slot_of_.size(); m++)
    UnbindSlot(static_cast<int32>(m));
  for (size_t m = 0; m < bindings.size(); m++) {
    int32 slot = bindings[m];
    if (slot < 0) continue;
    matrices_[m].Swap(&graphs_->Slot(slot));
    slot_of_[m] = slot;
  }
}

void NnetComputer::RunCommandsOrdinarily(int32 end) {
  while (program_counter_ < end) {
    int32 command_index = program_counter_;
    if (debug_) NNET3_LOG << CommandDescription(command_index);
    ExecuteCommand();
    if (debug_) CheckWrittenSubmatrices(command_index);
  }
}

void NnetComputer::RunSegment(int32 segment_index) {
  ComputationGraphs::Segment &seg = graphs_->GetSegment(segment_index);
  NNET3_ASSERT(program_counter_ == seg.begin);
  if (!seg.replayable) {
    if (seg.device_work &&
        seg.observations < ComputationGraphs::kMaxObservations) {
      // Watch whether the segment can be recorded.
      long long before = cu_backend::HostWaits();
      RunCommandsOrdinarily(seg.end);
      seg.replayable = cu_backend::HostWaits() == before;
      seg.observations++;
    } else {
      RunCommandsOrdinarily(seg.end);
    }
    return;
  }
  // A profiler may wait for the device at command boundaries, which a
  // recording cannot contain: under one, segments not yet recorded run
  // ordinarily.
  if (!slot_mode_ || (seg.graph.Empty() && ActiveProfiler() != nullptr)) {
    RunCommandsOrdinarily(seg.end);
    return;
  }
  const auto &commands = computation_.commands;
  if (!seg.graph.Empty()) {
    // Replay: only the bindings and hand-overs run on the host.
    std::optional<ProfileScope> profile;
    if (ActiveProfiler() != nullptr) profile.emplace("CUDA graph replay");
    for (; program_counter_ < seg.end; program_counter_++) {
      const NnetComputation::Command &c = commands[program_counter_];
      switch (c.command_type) {
        case kAllocMatrix: case kDeallocMatrix: case kSwapMatrix:
        case kProvideOutput:
          ExecuteCommandInternal(c);
          break;
        default:
          break;
      }
    }
    seg.graph.Launch();
    graphs_->CountReplayed();
    return;
  }
  // Record. Nothing recorded runs before Launch(); if the recording is
  // refused, the bindings go back to where they were and the segment runs
  // ordinarily.
  std::vector<int32> bindings = slot_of_;
  std::map<int32, int32> provided = provided_;
  std::string why;
  bool recorded = false;
  if (seg.graph.BeginCapture(&why)) {
    try {
      while (program_counter_ < seg.end) ExecuteCommand();
      recorded = seg.graph.EndCapture(&why);
    } catch (const std::exception &e) {
      why = e.what();
      seg.graph.Clear();
    }
  }
  if (!recorded) {
    NNET3_VLOG(2) << "Commands c" << seg.begin << " to c" << seg.end - 1
                  << " cannot be replayed as a CUDA graph (" << why
                  << "); they run ordinarily";
    seg.replayable = false;
    seg.observations = ComputationGraphs::kMaxObservations;
    graphs_->CountRefused();
    RestoreBindings(bindings);
    provided_ = provided;
    program_counter_ = seg.begin;
    RunCommandsOrdinarily(seg.end);
    return;
  }
  graphs_->CountRecorded();
  seg.graph.Launch();
}

// ---- Input and output ------------------------------------------------------------

int32 NnetComputer::GetNodeIndexChecked(const std::string &node_name) const {
  int32 node = nnet_.GetNodeIndex(node_name);
  if (node < 0)
    NNET3_ERR << "There is no node named '" << node_name
              << "' in the network";
  return node;
}

std::string NnetComputer::DescribeAcceptedNode(int32 node) const {
  if (nnet_.IsOutputNode(node))
    return "derivative for output '" + nnet_.GetNodeName(node) + "'";
  return "input '" + nnet_.GetNodeName(node) + "'";
}

int32 NnetComputer::FindAcceptCommand(int32 node) const {
  const auto &commands = computation_.commands;
  int32 n = static_cast<int32>(commands.size());
  for (int32 pass = 0; pass < 2; pass++) {
    for (int32 i = (pass == 0 ? program_counter_ : 0);
         i < (pass == 0 ? n : std::min(program_counter_, n)); i++)
      if (commands[i].command_type == kAcceptInput && commands[i].arg2 == node)
        return i;
  }
  return -1;
}

void NnetComputer::CheckInputSize(int32 node, int32 submatrix,
                                  const CuMatrixBase<BaseFloat> &m) const {
  NNET3_ASSERT(submatrix > 0 && static_cast<size_t>(submatrix) <
                                    computation_.submatrices.size());
  if (!computation_.IsWholeMatrix(submatrix))
    NNET3_ERR << "The computation accepts the " << DescribeAcceptedNode(node)
              << " into part of a matrix (submatrix " << submatrix
              << "); it must be a whole matrix";
  const NnetComputation::MatrixInfo &info =
      computation_.matrices[computation_.submatrices[submatrix].matrix_index];
  if (m.NumRows() != info.num_rows || m.NumCols() != info.num_cols)
    NNET3_ERR << "Wrong size for the " << DescribeAcceptedNode(node)
              << ": the computation expects "
              << ShapeString(info.num_rows, info.num_cols) << ", got "
              << ShapeString(m.NumRows(), m.NumCols());
}

void NnetComputer::AcceptInput(const std::string &node_name,
                               CuMatrix<BaseFloat> *input) {
  int32 node = GetNodeIndexChecked(node_name);
  if (!nnet_.IsInputNode(node) && !nnet_.IsOutputNode(node))
    NNET3_ERR << "Node '" << node_name << "' is neither an input nor an "
              << "output node; it cannot accept a matrix";
  int32 command = FindAcceptCommand(node);
  if (command < 0)
    NNET3_ERR << "The computation does not take the "
              << DescribeAcceptedNode(node);
  if (supplied_.count(node) != 0)
    NNET3_ERR << "The " << DescribeAcceptedNode(node)
              << " was supplied twice before the computation used it";
  CheckInputSize(node, computation_.commands[command].arg1, *input);
  supplied_[node].Swap(input);
}

void NnetComputer::AcceptInputs(
    const Nnet &nnet,
    const std::vector<std::pair<std::string, CuMatrix<BaseFloat> > > &inputs) {
  for (const auto &io : inputs) {
    int32 node = nnet.GetNodeIndex(io.first);
    if (node < 0)
      NNET3_ERR << "There is no node named '" << io.first
                << "' in the network";
    if (!nnet.IsInputNode(node)) continue;
    CuMatrix<BaseFloat> copy(io.second);
    AcceptInput(io.first, &copy);
  }
}

void NnetComputer::AcceptOutputDeriv(const std::string &output_name,
                                     CuMatrix<BaseFloat> *deriv) {
  int32 node = GetNodeIndexChecked(output_name);
  if (!nnet_.IsOutputNode(node))
    NNET3_ERR << "AcceptOutputDeriv: '" << output_name
              << "' is not an output node";
  AcceptInput(output_name, deriv);
}

const CuMatrixBase<BaseFloat> &NnetComputer::GetOutput(
    const std::string &node_name) {
  int32 node = GetNodeIndexChecked(node_name);
  const std::string what = (nnet_.IsInputNode(node)
                                ? "derivative for input '" + node_name + "'"
                                : "output '" + node_name + "'");
  auto it = provided_.find(node);
  if (it == provided_.end())
    NNET3_ERR << "The computation has not provided the " << what
              << " (it is not computed, or Run() has not reached it yet)";
  const CuMatrix<BaseFloat> &m = matrices_[it->second];
  if (m.NumRows() == 0)
    NNET3_ERR << "The " << what << " is no longer available (it was "
              << "taken by GetOutputDestructive() or freed by the computation)";
  return m;
}

void NnetComputer::GetOutputDestructive(const std::string &output_name,
                                        CuMatrix<BaseFloat> *output) {
  GetOutput(output_name);  // checks that it is there
  int32 node = nnet_.GetNodeIndex(output_name);
  auto it = provided_.find(node);
  output->Resize(0, 0);
  if (slot_of_.empty() || slot_of_[it->second] < 0) {
    matrices_[it->second].Swap(output);
  } else {
    // The matrix is a slot that replays write to: hand out a copy.
    const CuMatrix<BaseFloat> &m = matrices_[it->second];
    output->Resize(m.NumRows(), m.NumCols(), kUndefined);
    output->CopyFromMat(m);
  }
  provided_.erase(it);
}

const CuMatrixBase<BaseFloat> &NnetComputer::GetInputDeriv(
    const std::string &input_name) {
  int32 node = GetNodeIndexChecked(input_name);
  if (!nnet_.IsInputNode(node))
    NNET3_ERR << "GetInputDeriv: '" << input_name << "' is not an input node";
  return GetOutput(input_name);
}

// ---- Running -------------------------------------------------------------------

void NnetComputer::Run() {
  const auto &commands = computation_.commands;
  const int32 num_commands = static_cast<int32>(commands.size());
  if (program_counter_ >= num_commands)
    NNET3_ERR << "Run() called on a computation that has finished (it has "
              << num_commands << " commands)";
  // Whether this call has handed something to the caller; only then may it
  // stop to wait for more inputs (derivatives, or the next segment of a
  // looped computation).
  bool provided_output = false;
  if (!started_) {
    started_ = true;
    if (graphs_ != nullptr) {
      slot_mode_ = graphs_->Observed();
      if (slot_mode_) {
        slot_of_.assign(matrices_.size(), -1);
        graphs_->AllocateSlots();
      }
    }
  }
  EnsureIndexes();
  while (program_counter_ < num_commands) {
    const NnetComputation::Command &c = commands[program_counter_];
    if (graphs_ != nullptr) {
      int32 s = graphs_->SegmentStartingAt(program_counter_);
      if (s >= 0) {
        provided_output =
            provided_output || graphs_->GetSegment(s).provides_output;
        RunSegment(s);
        continue;
      }
    }
    if (c.command_type == kAcceptInput) {
      int32 node = c.arg2;
      NNET3_ASSERT(node >= 0 && node < nnet_.NumNodes());
      auto it = supplied_.find(node);
      if (it == supplied_.end()) {
        if (provided_output) return;
        NNET3_ERR << "Cannot run the computation: the "
                  << DescribeAcceptedNode(node) << " was not provided"
                  << " (command c" << program_counter_ << ")";
      }
      CuMatrix<BaseFloat> supplied;
      supplied.Swap(&it->second);
      supplied_.erase(it);
      if (debug_)
        NNET3_LOG << "c" << program_counter_ << ": kAcceptInput ("
                  << DescribeAcceptedNode(node) << ")";
      ExecuteAcceptInput(c, &supplied);
      if (debug_) CheckWrittenSubmatrices(program_counter_);
      program_counter_++;
      continue;
    }
    if (c.command_type == kProvideOutput) provided_output = true;
    int32 command_index = program_counter_;
    if (debug_) NNET3_LOG << CommandDescription(command_index);
    ExecuteCommand();
    if (debug_) CheckWrittenSubmatrices(command_index);
  }
  if (graphs_ != nullptr && !slot_mode_) graphs_->SetObserved();
}

void NnetComputer::ExecuteAcceptInput(const NnetComputation::Command &c,
                                      CuMatrix<BaseFloat> *supplied) {
  int32 node = c.arg2;
  CheckInputSize(node, c.arg1, *supplied);
  int32 m = computation_.submatrices[c.arg1].matrix_index;
  const NnetComputation::MatrixInfo &info = computation_.matrices[m];
  if (slot_mode_) {
    // Replays read the input from the slot they were recorded with.
    BindSlot(m);
    matrices_[m].CopyFromMat(*supplied);
  } else if (info.stride_type == kStrideEqualNumCols &&
      supplied->Stride() != supplied->NumCols()) {
    matrices_[m].Resize(info.num_rows, info.num_cols, kUndefined,
                        kStrideEqualNumCols);
    matrices_[m].CopyFromMat(*supplied);
  } else {
    matrices_[m].Swap(supplied);
  }
}

void NnetComputer::ExecuteCommand() {
  const NnetComputation::Command &c =
      computation_.commands[program_counter_];
  int32 command_index = program_counter_;
  std::optional<ProfileScope> profile;
  if (ActiveProfiler() != nullptr) profile.emplace(ProfileCategory(c));
  try {
    ExecuteCommandInternal(c);
  } catch (const UserError &e) {
    NNET3_ERR << "Error running command " << CommandDescription(command_index)
              << ": " << e.message();
  }
  if (c.command_type != kGotoLabel) program_counter_++;
}

std::string NnetComputer::ProfileCategory(
    const NnetComputation::Command &c) const {
  std::string type = CommandTypeToString(c.command_type);
  if ((c.command_type == kPropagate || c.command_type == kBackprop ||
       c.command_type == kBackpropNoModelUpdate) &&
      c.arg1 >= 0 && c.arg1 < nnet_.NumComponents())
    return nnet_.GetComponent(c.arg1)->Type() +
           (c.command_type == kPropagate ? " propagate" : " backprop");
  return type;
}

std::string NnetComputer::CommandDescription(int32 command_index) const {
  const NnetComputation::Command &c = computation_.commands[command_index];
  std::ostringstream os;
  os << "c" << command_index << ": " << CommandTypeToString(c.command_type);
  if ((c.command_type == kPropagate || c.command_type == kBackprop ||
       c.command_type == kBackpropNoModelUpdate) &&
      c.arg1 >= 0 && c.arg1 < nnet_.NumComponents())
    os << " of component '" << nnet_.GetComponentName(c.arg1) << "'";
  else if (c.command_type == kProvideOutput && c.arg2 >= 0 &&
           c.arg2 < nnet_.NumNodes())
    os << " for node '" << nnet_.GetNodeName(c.arg2) << "'";
  os << " (args " << c.arg1 << ", " << c.arg2 << ", " << c.arg3 << ", "
     << c.arg4 << ", " << c.arg5 << ", " << c.arg6 << ", " << c.arg7
     << "; alpha " << c.alpha << ")";
  return os.str();
}

CuSubMatrix<BaseFloat> NnetComputer::GetSubMatrix(int32 submatrix_index) {
  NNET3_ASSERT(submatrix_index >= 0 &&
               static_cast<size_t>(submatrix_index) <
                   computation_.submatrices.size());
  if (submatrix_index == 0)
    return CuSubMatrix<BaseFloat>(static_cast<BaseFloat *>(nullptr), 0, 0, 0);
  const NnetComputation::SubMatrixInfo &info =
      computation_.submatrices[submatrix_index];
  const CuMatrix<BaseFloat> &mat = matrices_[info.matrix_index];
  if (mat.NumRows() == 0)
    NNET3_ERR << "submatrix " << submatrix_index << " refers to matrix m"
              << info.matrix_index << ", which is not allocated";
  return CuSubMatrix<BaseFloat>(mat, info.row_offset, info.num_rows,
                                info.col_offset, info.num_cols);
}

void NnetComputer::GetPointers(int32 multi_index, int32 num_cols,
                               std::vector<BaseFloat *> *pointers) {
  NNET3_ASSERT(multi_index >= 0 && static_cast<size_t>(multi_index) <
                                       computation_.indexes_multi.size());
  const auto &pairs = computation_.indexes_multi[multi_index];
  pointers->resize(pairs.size());
  // submatrix -> (data, stride, num_rows)
  std::unordered_map<int32, std::pair<BaseFloat *, std::pair<int32, int32> > >
      lookup;
  for (size_t i = 0; i < pairs.size(); i++) {
    int32 s = pairs[i].first, row = pairs[i].second;
    if (s == -1) {
      (*pointers)[i] = nullptr;
      continue;
    }
    auto it = lookup.find(s);
    if (it == lookup.end()) {
      CuSubMatrix<BaseFloat> m = GetSubMatrix(s);
      if (m.NumCols() != num_cols)
        NNET3_ERR << "indexes_multi[" << multi_index << "] refers to submatrix "
                  << s << " with " << m.NumCols() << " columns, expected "
                  << num_cols;
      it = lookup.emplace(s, std::make_pair(m.Data(), std::make_pair(
                                                          m.Stride(),
                                                          m.NumRows())))
               .first;
    }
    if (row < 0 || row >= it->second.second.second)
      NNET3_ERR << "indexes_multi[" << multi_index << "] refers to row " << row
                << " of submatrix " << s << ", which has "
                << it->second.second.second << " rows";
    (*pointers)[i] = it->second.first +
                     static_cast<size_t>(row) * it->second.second.first;
  }
}

const ComponentPrecomputedIndexes *NnetComputer::GetPrecomputedIndexes(
    int32 index) const {
  if (index == 0) return nullptr;
  NNET3_ASSERT(index > 0 &&
               static_cast<size_t>(index) <
                   computation_.component_precomputed_indexes.size());
  return computation_.component_precomputed_indexes[index].data;
}

void NnetComputer::SaveMemo(int32 memo_index, int32 component_index,
                            void *memo) {
  const Component *component = nnet_.GetComponent(component_index);
  if (memo_index <= 0) {
    if (memo != nullptr) component->DeleteMemo(memo);
    return;
  }
  if (memos_.size() <= static_cast<size_t>(memo_index))
    memos_.resize(memo_index + 1, std::make_pair(-1, nullptr));
  auto &slot = memos_[memo_index];
  // A memo that no backprop consumed (e.g. the forward part of a training
  // computation run again) is replaced.
  if (slot.second != nullptr)
    nnet_.GetComponent(slot.first)->DeleteMemo(slot.second);
  slot = std::make_pair(component_index, memo);
}

void *NnetComputer::TakeMemo(int32 memo_index, int32 component_index) {
  if (memo_index <= 0) return nullptr;
  if (static_cast<size_t>(memo_index) >= memos_.size() ||
      memos_[memo_index].first == -1)
    NNET3_ERR << "memo " << memo_index << " was requested but never stored";
  auto &slot = memos_[memo_index];
  if (slot.second != nullptr && slot.first != component_index)
    NNET3_ERR << "memo " << memo_index << " was made by component '"
              << nnet_.GetComponentName(slot.first) << "', not '"
              << nnet_.GetComponentName(component_index) << "'";
  void *ans = slot.second;
  slot.second = nullptr;
  return ans;
}

void NnetComputer::Compress(const NnetComputation::Command &c) {
  int32 m = computation_.submatrices[c.arg1].matrix_index;
  if (compressed_.empty()) compressed_.resize(matrices_.size());
  if (compressed_[m] != nullptr)
    NNET3_ERR << "matrix m" << m << " is compressed twice";
  if (matrices_[m].NumRows() == 0)
    NNET3_ERR << "kCompressMatrix of matrix m" << m
              << ", which is not allocated";
  compressed_[m].reset(
      new CuCompressedMatrix(c.arg2, matrices_[m], c.alpha, c.arg3 != 0));
  matrices_[m].Resize(0, 0);
}

void NnetComputer::Decompress(const NnetComputation::Command &c) {
  int32 m = computation_.submatrices[c.arg1].matrix_index;
  if (compressed_.empty() || compressed_[m] == nullptr)
    NNET3_ERR << "kDecompressMatrix of matrix m" << m
              << ", which is not compressed";
  NNET3_ASSERT(matrices_[m].NumRows() == 0);
  const NnetComputation::MatrixInfo &info = computation_.matrices[m];
  matrices_[m].Resize(compressed_[m]->NumRows(), compressed_[m]->NumCols(),
                      kUndefined, info.stride_type);
  compressed_[m]->CopyToMat(&matrices_[m]);
  compressed_[m].reset();
}

void NnetComputer::ExecuteCommandInternal(const NnetComputation::Command &c) {
  switch (c.command_type) {
    case kAllocMatrix: {
      int32 m = computation_.submatrices[c.arg1].matrix_index;
      const NnetComputation::MatrixInfo &info = computation_.matrices[m];
      // Undefined contents, as in Kaldi: computations zero what they need
      // with kSetConst.
      if (slot_mode_) {
        UnbindSlot(m);
        BindSlot(m);
      } else {
        matrices_[m].Resize(info.num_rows, info.num_cols, kUndefined,
                            info.stride_type);
      }
      break;
    }
    case kDeallocMatrix: {
      int32 m = computation_.submatrices[c.arg1].matrix_index;
      if (slot_mode_ && slot_of_[m] >= 0)
        UnbindSlot(m);
      else
        matrices_[m].Resize(0, 0);
      break;
    }
    case kSwapMatrix: {
      int32 a = computation_.submatrices[c.arg1].matrix_index,
            b = computation_.submatrices[c.arg2].matrix_index;
      matrices_[a].Swap(&matrices_[b]);
      if (slot_mode_) std::swap(slot_of_[a], slot_of_[b]);
      break;
    }
    case kSetConst: {
      CuSubMatrix<BaseFloat> s(GetSubMatrix(c.arg1));
      if (c.alpha == 0.0)
        s.SetZero();
      else
        s.Set(c.alpha);
      break;
    }
    case kPropagate: {
      const Component *component = nnet_.GetComponent(c.arg1);
      const ComponentPrecomputedIndexes *indexes = GetPrecomputedIndexes(c.arg2);
      const CuSubMatrix<BaseFloat> input(GetSubMatrix(c.arg3));
      CuSubMatrix<BaseFloat> output(GetSubMatrix(c.arg4));
      MemoGuard memo(component,
                     component->Propagate(indexes, input, &output));
      if (c.arg6 == 1 && nnet_to_store_stats_ != nullptr) {
        // After an in-place propagate the input is gone: pass an empty
        // matrix instead.
        const CuSubMatrix<BaseFloat> maybe_input(
            GetSubMatrix(c.arg3 == c.arg4 ? 0 : c.arg3));
        nnet_to_store_stats_->GetComponent(c.arg1)->StoreStats(
            maybe_input, output, memo.get());
      }
      SaveMemo(c.arg5, c.arg1, memo.release());
      break;
    }
    case kBackprop:
    case kBackpropNoModelUpdate: {
      if (computation_.need_model_derivative && nnet_to_update_ == nullptr)
        NNET3_ERR << "the computation updates the model but the NnetComputer "
                  << "was given no network to update";
      const Component *component = nnet_.GetComponent(c.arg1);
      Component *to_update = nullptr;
      if (c.command_type == kBackprop) {
        if (component->Properties() & kUpdatableComponent) {
          if (computation_.need_model_derivative)
            to_update = nnet_to_update_->GetComponent(c.arg1);
        } else if (nnet_to_store_stats_ != nullptr) {
          // Non-updatable components may keep statistics in Backprop.
          to_update = nnet_to_store_stats_->GetComponent(c.arg1);
        }
      } else if (computation_.need_model_derivative &&
                 nnet_to_store_stats_ != nullptr &&
                 nnet_to_store_stats_ != nnet_to_update_ &&
                 !(component->Properties() & kUpdatableComponent)) {
        // Our compiler marks non-updatable components kBackpropNoModelUpdate
        // where Kaldi's emits kBackprop. When statistics go to a network of
        // their own (the trainer: the model itself), those components keep
        // their Backprop statistics (oderiv-rms) there, as in Kaldi.
        to_update = nnet_to_store_stats_->GetComponent(c.arg1);
      }
      const ComponentPrecomputedIndexes *indexes = GetPrecomputedIndexes(c.arg2);
      const CuSubMatrix<BaseFloat> in_value(GetSubMatrix(c.arg3));
      const CuSubMatrix<BaseFloat> out_value(GetSubMatrix(c.arg4));
      const CuSubMatrix<BaseFloat> out_deriv(GetSubMatrix(c.arg5));
      CuSubMatrix<BaseFloat> in_deriv(GetSubMatrix(c.arg6 > 0 ? c.arg6 : 0));
      MemoGuard memo(component, TakeMemo(c.arg7, c.arg1));
      component->Backprop(nnet_.GetComponentName(c.arg1), indexes, in_value,
                          out_value, out_deriv, memo.get(), to_update,
                          c.arg6 > 0 ? &in_deriv : nullptr);
      break;
    }
    case kMatrixCopy: {
      CuSubMatrix<BaseFloat> dest(GetSubMatrix(c.arg1));
      const CuSubMatrix<BaseFloat> src(GetSubMatrix(c.arg2));
      dest.CopyFromMat(src);
      if (c.alpha != 1.0) dest.Scale(c.alpha);
      break;
    }
    case kMatrixAdd: {
      CuSubMatrix<BaseFloat> dest(GetSubMatrix(c.arg1));
      const CuSubMatrix<BaseFloat> src(GetSubMatrix(c.arg2));
      dest.AddMat(c.alpha, src);
      break;
    }
    case kCopyRows:
    case kAddRows: {
      CuSubMatrix<BaseFloat> dest(GetSubMatrix(c.arg1));
      const CuSubMatrix<BaseFloat> src(GetSubMatrix(c.arg2));
      NNET3_ASSERT(c.arg3 >= 0 &&
                   static_cast<size_t>(c.arg3) < computation_.indexes.size());
      const std::vector<int32> &indexes = computation_.indexes[c.arg3];
      if (static_cast<int32>(indexes.size()) != dest.NumRows())
        NNET3_ERR << "indexes[" << c.arg3 << "] has " << indexes.size()
                  << " entries for a destination with " << dest.NumRows()
                  << " rows";
      for (int32 i : indexes)
        if (i < -1 || i >= src.NumRows())
          NNET3_ERR << "indexes[" << c.arg3 << "] has row " << i
                    << " for a source with " << src.NumRows() << " rows";
      if (c.command_type == kAddRows) {
        dest.AddRows(c.alpha, src, IndexArray(c.arg3));
      } else {
        // Rows with index -1 become zero; the others alpha * the source row.
        dest.CopyRows(src, IndexArray(c.arg3));
        if (c.alpha != 1.0) dest.Scale(c.alpha);
      }
      break;
    }
    case kCopyRowsMulti:
    case kAddRowsMulti: {
      CuSubMatrix<BaseFloat> dest(GetSubMatrix(c.arg1));
      std::vector<BaseFloat *> pointers;
      GetPointers(c.arg2, dest.NumCols(), &pointers);
      if (static_cast<int32>(pointers.size()) != dest.NumRows())
        NNET3_ERR << "indexes_multi[" << c.arg2 << "] has " << pointers.size()
                  << " entries for a matrix with " << dest.NumRows()
                  << " rows";
      CuArray<const BaseFloat *> const_pointers(
          std::vector<const BaseFloat *>(pointers.begin(), pointers.end()));
      if (c.command_type == kAddRowsMulti) {
        dest.AddRows(c.alpha, const_pointers);
      } else {
        dest.CopyRows(const_pointers);
        if (c.alpha != 1.0) dest.Scale(c.alpha);
      }
      break;
    }
    case kCopyToRowsMulti:
    case kAddToRowsMulti: {
      const CuSubMatrix<BaseFloat> src(GetSubMatrix(c.arg1));
      std::vector<BaseFloat *> pointers;
      GetPointers(c.arg2, src.NumCols(), &pointers);
      if (static_cast<int32>(pointers.size()) != src.NumRows())
        NNET3_ERR << "indexes_multi[" << c.arg2 << "] has " << pointers.size()
                  << " entries for a matrix with " << src.NumRows()
                  << " rows";
      CuArray<BaseFloat *> dest_rows(std::move(pointers));
      if (c.command_type == kAddToRowsMulti) {
        src.AddToRows(c.alpha, dest_rows);
      } else if (c.alpha == 1.0) {
        src.CopyToRows(dest_rows);
      } else {
        CuMatrix<BaseFloat> scaled(src);
        scaled.Scale(c.alpha);
        scaled.CopyToRows(dest_rows);
      }
      break;
    }
    case kAddRowRanges: {
      CuSubMatrix<BaseFloat> dest(GetSubMatrix(c.arg1));
      const CuSubMatrix<BaseFloat> src(GetSubMatrix(c.arg2));
      NNET3_ASSERT(c.arg3 >= 0 &&
                   static_cast<size_t>(c.arg3) <
                       computation_.indexes_ranges.size());
      const auto &ranges = computation_.indexes_ranges[c.arg3];
      if (static_cast<int32>(ranges.size()) != dest.NumRows())
        NNET3_ERR << "indexes_ranges[" << c.arg3 << "] has " << ranges.size()
                  << " entries for a destination with " << dest.NumRows()
                  << " rows";
      for (const auto &p : ranges)
        if (p.first < 0 || p.second < p.first || p.second > src.NumRows())
          NNET3_ERR << "indexes_ranges[" << c.arg3 << "] has the range ["
                    << p.first << ", " << p.second << ") for a source with "
                    << src.NumRows() << " rows";
      if (c.alpha == 1.0) {
        dest.AddRowRanges(src, IndexRangesArray(c.arg3));
      } else {
        CuMatrix<BaseFloat> sums(dest.NumRows(), dest.NumCols());
        sums.AddRowRanges(src, IndexRangesArray(c.arg3));
        dest.AddMat(c.alpha, sums);
      }
      break;
    }
    case kCompressMatrix:
      Compress(c);
      break;
    case kDecompressMatrix:
      Decompress(c);
      break;
    case kProvideOutput: {
      int32 node = c.arg2;
      NNET3_ASSERT(node >= 0 && node < nnet_.NumNodes());
      if (!computation_.IsWholeMatrix(c.arg1))
        NNET3_ERR << "the matrix provided for node '" << nnet_.GetNodeName(node)
                  << "' is only part of a matrix";
      int32 m = computation_.submatrices[c.arg1].matrix_index;
      if (matrices_[m].NumRows() == 0)
        NNET3_ERR << "the matrix provided for node '" << nnet_.GetNodeName(node)
                  << "' (m" << m << ") is not allocated";
      provided_[node] = m;
      break;
    }
    case kAcceptInput:
      // Run() handles these (they need the matrices the caller supplied).
      NNET3_ASSERT(false);
      break;
    case kNoOperation:
    case kNoOperationPermanent:
    case kNoOperationMarker:
    case kNoOperationLabel:
      break;
    case kGotoLabel: {
      int32 target = c.arg1;
      if (target < 0 ||
          target >= static_cast<int32>(computation_.commands.size()) ||
          computation_.commands[target].command_type != kNoOperationLabel)
        NNET3_ERR << "kGotoLabel to command " << target
                  << ", which is not a kNoOperationLabel";
      program_counter_ = target;
      break;
    }
  }
}

void NnetComputer::CheckWrittenSubmatrices(int32 command_index) {
  const NnetComputation::Command &c = computation_.commands[command_index];
  std::vector<int32> written;
  switch (c.command_type) {
    case kSetConst: case kMatrixCopy: case kMatrixAdd:
    case kCopyRows: case kAddRows: case kCopyRowsMulti: case kAddRowsMulti:
    case kAddRowRanges: case kDecompressMatrix: case kAcceptInput:
      written.push_back(c.arg1);
      break;
    case kSwapMatrix:
      written.push_back(c.arg1);
      written.push_back(c.arg2);
      break;
    case kPropagate:
      written.push_back(c.arg4);
      break;
    case kBackprop: case kBackpropNoModelUpdate:
      if (c.arg6 > 0) written.push_back(c.arg6);
      break;
    case kCopyToRowsMulti: case kAddToRowsMulti:
      for (const auto &p : computation_.indexes_multi[c.arg2])
        if (p.first > 0) written.push_back(p.first);
      std::sort(written.begin(), written.end());
      written.erase(std::unique(written.begin(), written.end()),
                    written.end());
      break;
    case kAllocMatrix: case kDeallocMatrix: case kCompressMatrix:
    case kProvideOutput:
    case kNoOperation: case kNoOperationPermanent: case kNoOperationMarker:
    case kNoOperationLabel: case kGotoLabel:
      break;
  }
  for (int32 s : written) {
    if (s <= 0) continue;
    const NnetComputation::SubMatrixInfo &info = computation_.submatrices[s];
    if (matrices_[info.matrix_index].NumRows() == 0) continue;
    if (!GetSubMatrix(s).IsFinite())
      NNET3_ERR << "NaN or infinity in submatrix " << s << " (matrix m"
                << info.matrix_index << ") after command "
                << CommandDescription(command_index);
  }
}

}  // namespace nnet3
