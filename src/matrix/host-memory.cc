// matrix/host-memory.cc
#include "matrix/host-memory.h"

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace nnet3 {

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kPage = 4096;

struct HostCache {
  std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> free_blocks;
  HostBlockStats stats;
};

// Never destroyed: matrices in static storage may be freed after the
// cache's destructor would have run.
HostCache &Cache() {
  static HostCache *cache = new HostCache;
  return *cache;
}

size_t CachedSize(size_t bytes) {
  if (bytes > static_cast<size_t>(-1) - kPage) throw std::bad_alloc();
  return (bytes + kPage - 1) / kPage * kPage;
}

void *HeapAlloc(size_t bytes) {
  void *p = nullptr;
  if (posix_memalign(&p, kAlign, bytes) != 0 || p == nullptr)
    throw std::bad_alloc();
  return p;
}

}  // namespace

void *AllocateHostBlock(size_t bytes) {
  if (bytes < kMinCachedBytes) return HeapAlloc(bytes == 0 ? kAlign : bytes);
  const size_t size = CachedSize(bytes);
  HostCache &c = Cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.free_blocks.find(size);
    if (it != c.free_blocks.end() && !it->second.empty()) {
      void *p = it->second.back();
      it->second.pop_back();
      c.stats.cached_bytes -= size;
      c.stats.reuses++;
      return p;
    }
    c.stats.heap_allocations++;
  }
  return HeapAlloc(size);
}

void FreeHostBlock(void *ptr, size_t bytes) {
  if (ptr == nullptr) return;
  if (bytes < kMinCachedBytes) {
    std::free(ptr);
    return;
  }
  const size_t size = CachedSize(bytes);
  HostCache &c = Cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.stats.cached_bytes + size <= kMaxCachedBytes) {
      c.free_blocks[size].push_back(ptr);
      c.stats.cached_bytes += size;
      return;
    }
  }
  std::free(ptr);
}

void ReleaseCachedHostBlocks() {
  HostCache &c = Cache();
  std::unordered_map<size_t, std::vector<void *>> blocks;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    blocks.swap(c.free_blocks);
    c.stats.cached_bytes = 0;
  }
  for (auto &bucket : blocks)
    for (void *p : bucket.second) std::free(p);
}

HostBlockStats GetHostBlockStats() {
  HostCache &c = Cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

}  // namespace nnet3
