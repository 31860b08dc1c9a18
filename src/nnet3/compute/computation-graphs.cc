// nnet3/compute/computation-graphs.cc
#include "nnet3/compute/computation-graphs.h"

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "base/log.h"
#include "cudamatrix/cu-backend.h"

namespace nnet3 {

namespace {

// Commands that queue device work (the others only change which memory the
// computer's matrices name, or what it hands back).
bool QueuesDeviceWork(CommandType type) {
  switch (type) {
    case kSetConst: case kPropagate: case kMatrixCopy: case kMatrixAdd:
    case kCopyRows: case kAddRows: case kCopyRowsMulti: case kCopyToRowsMulti:
    case kAddRowsMulti: case kAddToRowsMulti: case kAddRowRanges:
      return true;
    default:
      return false;
  }
}

// Entries kept at once: a decoding job uses a handful of chunk shapes.
const size_t kMaxEntries = 16;

struct Keyed {
  const Nnet *nnet;
  std::shared_ptr<ComputationGraphs> entry;
  unsigned long long last_use;
};

using RegistryMap =
    std::map<std::weak_ptr<const NnetComputation>, std::vector<Keyed>,
             std::owner_less<std::weak_ptr<const NnetComputation> > >;

}  // namespace

// The process's entries. Never destroyed: device memory must not be freed
// after the runtime has shut down.
class GraphRegistry {
 public:
  static GraphRegistry &Get() {
    static GraphRegistry *registry = new GraphRegistry;
    return *registry;
  }
  std::mutex mutex;
  RegistryMap map;
  unsigned long long clock = 0;
  GraphReplayStats stats;

  // Drops entries of computations that are gone, then, while there are too
  // many, the least recently used entry not in use.
  void Prune() {
    size_t count = 0;
    for (auto it = map.begin(); it != map.end();) {
      if (it->first.expired()) {
        bool busy = false;
        for (const Keyed &k : it->second) busy = busy || k.entry->in_use_;
        if (!busy) {
          it = map.erase(it);
          continue;
        }
      }
      count += it->second.size();
      ++it;
    }
    while (count >= kMaxEntries) {
      RegistryMap::iterator oldest_it = map.end();
      size_t oldest_pos = 0;
      for (auto it = map.begin(); it != map.end(); ++it)
        for (size_t i = 0; i < it->second.size(); i++)
          if (!it->second[i].entry->in_use_ &&
              (oldest_it == map.end() ||
               it->second[i].last_use <
                   oldest_it->second[oldest_pos].last_use)) {
            oldest_it = it;
            oldest_pos = i;
          }
      if (oldest_it == map.end()) break;
      oldest_it->second.erase(oldest_it->second.begin() + oldest_pos);
      if (oldest_it->second.empty()) map.erase(oldest_it);
      count--;
    }
  }
};

void UploadComputationIndexes(const NnetComputation &computation,
                              std::vector<CuArray<int32> > *indexes,
                              std::vector<CuArray<Int32Pair> > *ranges) {
  indexes->resize(computation.indexes.size());
  for (size_t i = 0; i < computation.indexes.size(); i++)
    (*indexes)[i].CopyFromVec(computation.indexes[i]);
  ranges->resize(computation.indexes_ranges.size());
  for (size_t i = 0; i < computation.indexes_ranges.size(); i++) {
    const auto &r = computation.indexes_ranges[i];
    std::vector<Int32Pair> pairs(r.size());
    for (size_t j = 0; j < r.size(); j++)
      pairs[j] = Int32Pair{r[j].first, r[j].second};
    (*ranges)[i].CopyFromVec(pairs);
  }
}

bool ComputationGraphs::ComputationIsReplayable(
    const NnetComputation &computation, std::string *why) {
  for (const auto &c : computation.commands) {
    switch (c.command_type) {
      case kBackprop: case kBackpropNoModelUpdate:
        *why = "it computes derivatives";
        return false;
      case kCompressMatrix: case kDecompressMatrix:
        *why = "it compresses matrices";
        return false;
      case kGotoLabel: case kNoOperationLabel:
        *why = "it is a looped computation";
        return false;
      default:
        break;
    }
  }
  return true;
}

std::shared_ptr<ComputationGraphs> ComputationGraphs::Acquire(
    const std::shared_ptr<const NnetComputation> &computation,
    const Nnet &nnet) {
  if (computation == nullptr || !(cu_backend::OnDevice() || HostTesting()))
    return nullptr;
  GraphRegistry &r = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::weak_ptr<const NnetComputation> key(computation);
  auto it = r.map.find(key);
  if (it != r.map.end()) {
    for (Keyed &k : it->second) {
      if (k.nnet != &nnet) continue;
      if (k.entry->in_use_) return nullptr;
      k.entry->in_use_ = true;
      k.last_use = ++r.clock;
      return k.entry;
    }
  }
  std::string why;
  if (!ComputationIsReplayable(*computation, &why)) return nullptr;
  r.Prune();
  auto entry = std::make_shared<ComputationGraphs>(*computation);
  entry->in_use_ = true;
  r.map[key].push_back(Keyed{&nnet, entry, ++r.clock});
  return entry;
}

void ComputationGraphs::Release(
    const std::shared_ptr<ComputationGraphs> &entry) {
  if (entry == nullptr) return;
  GraphRegistry &r = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mutex);
  entry->in_use_ = false;
}

GraphReplayStats ComputationGraphs::Stats() {
  GraphRegistry &r = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.stats;
}

void ComputationGraphs::Clear() {
  GraphRegistry &r = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto it = r.map.begin(); it != r.map.end();) {
    auto &v = it->second;
    for (size_t i = 0; i < v.size();) {
      if (v[i].entry->in_use_)
        i++;
      else
        v.erase(v.begin() + i);
    }
    if (v.empty())
      it = r.map.erase(it);
    else
      ++it;
  }
}

namespace {
std::atomic<bool> g_host_testing{false};
}  // namespace

void ComputationGraphs::SetHostTesting(bool on) { g_host_testing = on; }
bool ComputationGraphs::HostTesting() { return g_host_testing; }

void ComputationGraphs::CountRecorded() {
  GraphRegistry &r = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.stats.recorded++;
}

void ComputationGraphs::CountReplayed() {
  GraphRegistry &r = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.stats.replayed++;
}

void ComputationGraphs::CountRefused() {
  GraphRegistry &r = GraphRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.stats.refused++;
}

ComputationGraphs::ComputationGraphs(const NnetComputation &computation)
    : computation_(computation) {
  const auto &commands = computation.commands;
  const int32 n = static_cast<int32>(commands.size());
  segment_at_.assign(n + 1, -1);
  int32 begin = 0;
  for (int32 c = 0; c <= n; c++) {
    if (c == n || commands[c].command_type == kAcceptInput) {
      if (c > begin) {
        segment_at_[begin] = static_cast<int32>(segments_.size());
        segments_.emplace_back(new Segment);
        Segment &s = *segments_.back();
        s.begin = begin;
        s.end = c;
        for (int32 i = begin; i < c; i++) {
          s.device_work = s.device_work ||
                          QueuesDeviceWork(commands[i].command_type);
          s.provides_output = s.provides_output ||
                              commands[i].command_type == kProvideOutput;
        }
      }
      begin = c + 1;
    }
  }
  slots_.resize(computation.matrices.size());
  slot_made_.assign(computation.matrices.size(), false);
  UploadComputationIndexes(computation, &indexes_, &indexes_ranges_);
}

CuMatrix<BaseFloat> &ComputationGraphs::Slot(int32 m) {
  NNET3_ASSERT(m >= 0 && static_cast<size_t>(m) < slots_.size());
  if (!slot_made_[m]) {
    const NnetComputation::MatrixInfo &info = computation_.matrices[m];
    slots_[m].Resize(info.num_rows, info.num_cols, kUndefined,
                     info.stride_type);
    slot_made_[m] = true;
  }
  return slots_[m];
}

int32 ComputationGraphs::FreeSlotFor(int32 m) {
  const NnetComputation::MatrixInfo &info = computation_.matrices[m];
  auto is_free = [&](int32 j) {
    return Slot(j).NumRows() == info.num_rows &&
           slots_[j].NumCols() == info.num_cols &&
           computation_.matrices[j].stride_type == info.stride_type;
  };
  if (is_free(m)) return m;
  for (int32 j = 1; j < static_cast<int32>(slots_.size()); j++)
    if (j != m && slot_made_[j] && is_free(j)) return j;
  return -1;
}

void ComputationGraphs::AllocateSlots() {
  for (int32 m = 1; m < static_cast<int32>(slots_.size()); m++) Slot(m);
}

}  // namespace nnet3
