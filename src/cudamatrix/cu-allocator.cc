// cudamatrix/cu-allocator.cc
#include "cudamatrix/cu-allocator.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "base/log.h"

namespace nnet3 {

namespace {

size_t RoundUp(size_t bytes, size_t to) {
  return (bytes + to - 1) / to * to;
}

}  // namespace

std::string FormatBytes(size_t bytes) {
  char buf[64];
  const double b = static_cast<double>(bytes);
  if (bytes < 1024)
    std::snprintf(buf, sizeof(buf), "%zu B", bytes);
  else if (b < 1024.0 * 1024.0)
    std::snprintf(buf, sizeof(buf), "%.1f KiB", b / 1024.0);
  else if (b < 1024.0 * 1024.0 * 1024.0)
    std::snprintf(buf, sizeof(buf), "%.1f MiB", b / (1024.0 * 1024.0));
  else
    std::snprintf(buf, sizeof(buf), "%.2f GiB",
                  b / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

CachingDeviceAllocator::CachingDeviceAllocator(GpuRuntime *runtime)
    : runtime_(runtime) {
  NNET3_ASSERT(runtime != nullptr);
}

CachingDeviceAllocator::~CachingDeviceAllocator() {
  std::lock_guard<std::mutex> lock(mutex_);
  ReleaseCachedLocked();
}

void *CachingDeviceAllocator::Malloc(size_t bytes) {
  if (bytes == 0) return nullptr;
  if (bytes > static_cast<size_t>(-1) - kAlignment)
    NNET3_ERR << "Device memory request of " << bytes << " bytes is too large";
  const size_t size = RoundUp(bytes, kAlignment);
  std::lock_guard<std::mutex> lock(mutex_);
  // The smallest cached block that fits, if it wastes at most a quarter.
  auto it = cache_.lower_bound(size);
  if (it != cache_.end() && it->first - size <= it->first / 4) {
    void *ptr = it->second;
    const size_t block = it->first;
    cache_.erase(it);
    stats_.cached -= block;
    stats_.in_use += block;
    stats_.reuses++;
    stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
    live_.emplace(ptr, block);
    return ptr;
  }
  void *ptr = runtime_->Allocate(size);
  if (ptr == nullptr && !cache_.empty()) {
    ReleaseCachedLocked();
    ptr = runtime_->Allocate(size);
  }
  if (ptr == nullptr) {
    size_t free_bytes = 0, total_bytes = 0;
    std::ostringstream free_part;
    if (runtime_->MemoryInfo(&free_bytes, &total_bytes))
      free_part << FormatBytes(free_bytes) << " free of "
                << FormatBytes(total_bytes);
    else
      free_part << "free memory unknown";
    NNET3_ERR << "Out of GPU memory: asked for " << FormatBytes(size) << ", "
              << free_part.str() << ", this process holds "
              << FormatBytes(stats_.in_use)
              << "; use smaller minibatches or chunks (--minibatch-size, "
                 "--frames-per-chunk), fewer jobs on this GPU, or "
                 "--use-gpu=no";
  }
  stats_.driver_allocations++;
  stats_.in_use += size;
  stats_.peak_in_use = std::max(stats_.peak_in_use, stats_.in_use);
  stats_.peak_held =
      std::max(stats_.peak_held, stats_.in_use + stats_.cached);
  live_.emplace(ptr, size);
  return ptr;
}

void *CachingDeviceAllocator::MallocPitch(size_t row_bytes, size_t rows,
                                          size_t *pitch) {
  *pitch = RoundUp(row_bytes, kAlignment);
  if (rows != 0 && *pitch > static_cast<size_t>(-1) / rows)
    NNET3_ERR << "Device matrix of " << rows << " rows of " << row_bytes
              << " bytes is too large";
  return Malloc(*pitch * rows);
}

void CachingDeviceAllocator::Free(void *ptr) {
  if (ptr == nullptr) return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.find(ptr);
  const bool allocated_here_and_not_yet_freed = it != live_.end();
  NNET3_ASSERT(allocated_here_and_not_yet_freed);
  if (holding_ && std::this_thread::get_id() == holding_thread_) {
    held_.push_back(ptr);
    return;
  }
  const size_t size = it->second;
  live_.erase(it);
  stats_.in_use -= size;
  stats_.cached += size;
  cache_.emplace(size, ptr);
}

void CachingDeviceAllocator::BeginHold() {
  std::lock_guard<std::mutex> lock(mutex_);
  NNET3_ASSERT(!holding_);
  holding_ = true;
  holding_thread_ = std::this_thread::get_id();
  held_.clear();
}

std::vector<void *> CachingDeviceAllocator::EndHold() {
  std::lock_guard<std::mutex> lock(mutex_);
  NNET3_ASSERT(holding_);
  holding_ = false;
  std::vector<void *> ans;
  ans.swap(held_);
  return ans;
}

void CachingDeviceAllocator::ReleaseCached() {
  std::lock_guard<std::mutex> lock(mutex_);
  ReleaseCachedLocked();
}

void CachingDeviceAllocator::ReleaseCachedLocked() {
  for (auto &entry : cache_) runtime_->Release(entry.second);
  cache_.clear();
  stats_.cached = 0;
}

DeviceMemoryStats CachingDeviceAllocator::Stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

std::string CachingDeviceAllocator::Summary() const {
  DeviceMemoryStats s = Stats();
  std::ostringstream os;
  os << "peak " << FormatBytes(s.peak_in_use) << " in use ("
     << FormatBytes(s.peak_held) << " held), now " << FormatBytes(s.in_use)
     << " in use and " << FormatBytes(s.cached) << " cached; "
     << s.driver_allocations << " driver allocations, " << s.reuses
     << " reuses";
  return os.str();
}

}  // namespace nnet3
