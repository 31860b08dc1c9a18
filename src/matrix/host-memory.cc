// matrix/host-memory.cc
#include "matrix/host-memory.h"

#include <algorithm>
#include <cstdlib>
#include <list>
#include <map>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

namespace nnet3 {

namespace {

constexpr size_t kAlign = 64;
constexpr size_t kPage = 4096;

struct HostCache {
  struct Block {
    size_t size;
    void *ptr;
  };
  typedef std::list<Block> BlockList;
  std::mutex mutex;
  BlockList lru;  // cached blocks, least recently freed first
  std::multimap<size_t, BlockList::iterator> by_size;
  std::unordered_map<void *, size_t> live;  // handed out: block -> size
  HostBlockStats stats;
  size_t in_use = 0;  // bytes of cacheable-size blocks handed out
  size_t peak_in_use = 0;

  void Forget(BlockList::iterator block) {
    auto range = by_size.equal_range(block->size);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second == block) {
        by_size.erase(it);
        break;
      }
    }
    stats.cached_bytes -= block->size;
    lru.erase(block);
  }

  // Takes the least recently freed blocks out of the cache until at least
  // "bytes" bytes are out (or it is empty); *out gets them, to be freed
  // outside the lock.
  void Evict(size_t bytes, std::vector<void *> *out) {
    size_t removed = 0;
    while (removed < bytes && !lru.empty()) {
      auto block = lru.begin();
      removed += block->size;
      out->push_back(block->ptr);
      Forget(block);
    }
  }
};

// Never destroyed: matrices in static storage may be freed after the
// cache's destructor would have run.
HostCache &Cache() {
  static HostCache *cache = new HostCache;
  return *cache;
}

size_t CachedSize(size_t bytes) {
  if (bytes > static_cast<size_t>(-1) / 4) throw std::bad_alloc();
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
  std::vector<void *> evicted;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    // The smallest cached block that fits, if it wastes at most a quarter
    // of itself.
    auto it = c.by_size.lower_bound(size);
    if (it != c.by_size.end() && it->first - size <= it->first / 4) {
      auto block = it->second;
      const size_t block_size = block->size;
      void *p = block->ptr;
      c.Forget(block);
      c.live.emplace(p, block_size);
      c.in_use += block_size;
      c.peak_in_use = std::max(c.peak_in_use, c.in_use);
      c.stats.reuses++;
      return p;
    }
    // None: what callers and the cache hold together stays at most the
    // peak of what callers held, the excess going back to the C heap,
    // least recently freed first.
    c.in_use += size;
    c.peak_in_use = std::max(c.peak_in_use, c.in_use);
    const size_t held = c.in_use + c.stats.cached_bytes;
    if (held > c.peak_in_use) c.Evict(held - c.peak_in_use, &evicted);
    c.stats.heap_allocations++;
  }
  for (void *p : evicted) std::free(p);
  void *p;
  try {
    p = HeapAlloc(size);
  } catch (...) {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.in_use -= size;
    throw;
  }
  std::lock_guard<std::mutex> lock(c.mutex);
  c.live.emplace(p, size);
  return p;
}

void FreeHostBlock(void *ptr, size_t bytes) {
  if (ptr == nullptr) return;
  if (bytes < kMinCachedBytes) {
    std::free(ptr);
    return;
  }
  HostCache &c = Cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.live.find(ptr);
    const size_t size = it != c.live.end() ? it->second : CachedSize(bytes);
    if (it != c.live.end()) c.live.erase(it);
    c.in_use -= std::min(c.in_use, size);
    if (c.stats.cached_bytes + size <= kMaxCachedBytes) {
      c.lru.push_back(HostCache::Block{size, ptr});
      c.by_size.emplace(size, std::prev(c.lru.end()));
      c.stats.cached_bytes += size;
      return;
    }
  }
  std::free(ptr);
}

void ReleaseCachedHostBlocks() {
  HostCache &c = Cache();
  std::vector<void *> evicted;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.Evict(static_cast<size_t>(-1), &evicted);
    c.peak_in_use = c.in_use;  // the peak is measured afresh from here
  }
  for (void *p : evicted) std::free(p);
}

HostBlockStats GetHostBlockStats() {
  HostCache &c = Cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

}  // namespace nnet3
