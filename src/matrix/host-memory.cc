// matrix/host-memory.cc
#include "matrix/host-memory.h"

#include <sys/mman.h>

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
  // What the cache may hold beyond the peak (see AllocateHostBlock): at
  // least the largest block handed out, doubled (up to the peak itself)
  // whenever the evictions since it last grew add up to more than the peak.
  size_t slack = 0;
  size_t evicted_since_growth = 0;

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
  // outside the lock. Returns the bytes taken out.
  size_t Evict(size_t bytes, std::vector<Block> *out) {
    size_t removed = 0;
    while (removed < bytes && !lru.empty()) {
      auto block = lru.begin();
      removed += block->size;
      out->push_back(*block);
      Forget(block);
    }
    return removed;
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

#if defined(__SANITIZE_ADDRESS__)
#define NNET3_BLOCKS_FROM_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NNET3_BLOCKS_FROM_MALLOC 1
#endif
#endif

// Cacheable-size blocks are mapped pages of their own (not the C heap), so
// a block this cache gives back returns to the system at once, whatever
// else the program has allocated around it, and the C library's own
// tuning (glibc raises its mmap threshold after such a free, which then
// puts later large blocks in a heap that cannot shrink) never sees them.
// Under AddressSanitizer they come from malloc, which it checks.
void *BlockAlloc(size_t size) {
#ifdef NNET3_BLOCKS_FROM_MALLOC
  return HeapAlloc(size);
#else
  void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  return p;
#endif
}

void BlockFree(void *p, size_t size) {
#ifdef NNET3_BLOCKS_FROM_MALLOC
  (void)size;
  std::free(p);
#else
  munmap(p, size);
#endif
}

void FreeBlocks(const std::vector<HostCache::Block> &blocks) {
  for (const HostCache::Block &b : blocks) BlockFree(b.ptr, b.size);
}

}  // namespace

void *AllocateHostBlock(size_t bytes) {
  if (bytes < kMinCachedBytes) return HeapAlloc(bytes == 0 ? kAlign : bytes);
  const size_t size = CachedSize(bytes);
  HostCache &c = Cache();
  std::vector<HostCache::Block> evicted;
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
    // peak of what callers held plus the slack, the excess going back to
    // the system, least recently freed first. A repeating pattern of sizes
    // that do not pair up exactly (a chunk's matrices and then its output;
    // the forward and backward matrices of a minibatch) needs more than
    // the peak to settle; without it every round would give pages back and
    // fault fresh ones in. The slack starts at the largest block and
    // doubles, up to the peak, each time the cache has given back more
    // than the peak since it last grew: such turnover means the pattern
    // needs more room, while a pattern that settles never grows it.
    c.in_use += size;
    c.peak_in_use = std::max(c.peak_in_use, c.in_use);
    c.slack = std::max(c.slack, size);
    const size_t held = c.in_use + c.stats.cached_bytes,
                 bound = c.peak_in_use + c.slack;
    if (held > bound) {
      c.evicted_since_growth += c.Evict(held - bound, &evicted);
      if (c.evicted_since_growth > c.peak_in_use &&
          c.slack < c.peak_in_use) {
        c.slack = std::min(c.peak_in_use, 2 * c.slack);
        c.evicted_since_growth = 0;
      }
    }
    c.stats.heap_allocations++;
  }
  FreeBlocks(evicted);
  void *p;
  try {
    p = BlockAlloc(size);
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
    bytes = size;
  }
  BlockFree(ptr, bytes);
}

void ReleaseCachedHostBlocks() {
  HostCache &c = Cache();
  std::vector<HostCache::Block> evicted;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.Evict(static_cast<size_t>(-1), &evicted);
    c.peak_in_use = c.in_use;  // the peak is measured afresh from here
    c.slack = 0;
    c.evicted_since_growth = 0;
  }
  FreeBlocks(evicted);
}

HostBlockStats GetHostBlockStats() {
  HostCache &c = Cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

}  // namespace nnet3
