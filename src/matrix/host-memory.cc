// matrix/host-memory.cc
#include "matrix/host-memory.h"

#include <sys/mman.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <atomic>
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

// The lengths of the pieces a block is made of, in address order. Each
// piece lies inside one mapping of the system's (one mmap, or one piece
// moved by mremap, which moves only what lies inside one mapping); a block
// whose pages were gathered from several cached blocks has several.
typedef std::vector<size_t> Pieces;

// A gathered block has at most this many pieces: every piece is a mapping
// of the system's, and a process may have only so many (vm.max_map_count).
constexpr size_t kMaxPieces = 32;

// Cuts the pieces of a block at byte offset 'at' (inside the block).
void SplitPieces(const Pieces &pieces, size_t at, Pieces *head, Pieces *tail) {
  head->clear();
  tail->clear();
  size_t offset = 0;
  for (size_t len : pieces) {
    if (offset + len <= at) {
      head->push_back(len);
    } else if (offset >= at) {
      tail->push_back(len);
    } else {
      head->push_back(at - offset);
      tail->push_back(offset + len - at);
    }
    offset += len;
  }
}

struct HostCache {
  struct Block {
    size_t size;
    void *ptr;
    Pieces pieces;
  };
  typedef std::list<Block> BlockList;
  std::mutex mutex;
  BlockList lru;  // cached blocks, least recently freed first
  std::multimap<size_t, BlockList::iterator> by_size;
  std::unordered_map<void *, Block> live;  // handed out, by address
  HostBlockStats stats;
  size_t in_use = 0;  // bytes of cacheable-size blocks handed out
  size_t peak_in_use = 0;
  // What the cache may hold beyond the peak (see EnforceBound): at least
  // half the largest block handed out (the whole one without reshaping),
  // doubled (up to a quarter of the peak)
  // whenever the evictions since it last grew add up to more than the peak.
  size_t slack = 0;
  size_t evicted_since_growth = 0;
  // Half the largest block handed out (since the last release): how far
  // beyond the peak a new block may take what is held instead of a cached
  // block being shrunk (the slack's starting value, without its doubling).
  size_t half_largest = 0;

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

  void Add(Block block) {
    stats.cached_bytes += block.size;
    const size_t size = block.size;
    lru.push_back(std::move(block));
    by_size.emplace(size, std::prev(lru.end()));
  }

  // Takes a cached block out of the cache.
  Block Take(BlockList::iterator block) {
    Block taken = std::move(*block);
    Forget(block);
    return taken;
  }

  // The first 'keep' bytes of a block taken out of the cache (0 < keep <
  // its size); the rest goes back to the cache as a block of its own (its
  // pages stay where they are).
  Block CutHead(Block block, size_t keep) {
    Pieces head, tail;
    SplitPieces(block.pieces, keep, &head, &tail);
    Add(Block{block.size - keep, static_cast<char *>(block.ptr) + keep,
              std::move(tail)});
    return Block{keep, block.ptr, std::move(head)};
  }

  // Records a block as handed out; returns its address.
  void *HandOut(Block block) {
    void *p = block.ptr;
    in_use += block.size;
    peak_in_use = std::max(peak_in_use, in_use);
    live.emplace(p, std::move(block));
    return p;
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
std::atomic<void (*)(void *, size_t)> g_mapped_hook{nullptr};
std::atomic<void (*)(void *, size_t)> g_unmapping_hook{nullptr};

[[maybe_unused]] void CallHook(
    const std::atomic<void (*)(void *, size_t)> &hook, void *p, size_t size) {
  void (*f)(void *, size_t) = hook.load(std::memory_order_acquire);
  if (f != nullptr) f(p, size);
}

void *BlockAlloc(size_t size) {
#ifdef NNET3_BLOCKS_FROM_MALLOC
  return HeapAlloc(size);
#else
  void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  CallHook(g_mapped_hook, p, size);
  return p;
#endif
}

void BlockFree(void *p, size_t size) {
#ifdef NNET3_BLOCKS_FROM_MALLOC
  (void)size;
  std::free(p);
#else
  CallHook(g_unmapping_hook, p, size);
  munmap(p, size);
#endif
}

// Gives a mapped block a new size, keeping the contents of the pages kept:
// shrinking returns the tail pages to the system, growing maps fresh pages
// after the kept ones (the block may move unless 'in_place'). nullptr when
// this build's blocks cannot be reshaped or the system refuses.
void *BlockResize(void *p, size_t old_size, size_t new_size,
                  bool in_place = false) {
#ifdef NNET3_BLOCKS_FROM_MALLOC
  (void)p;
  (void)old_size;
  (void)new_size;
  (void)in_place;
  return nullptr;
#else
  CallHook(g_unmapping_hook, p, old_size);
  void *q = mremap(p, old_size, new_size, in_place ? 0 : MREMAP_MAYMOVE);
  if (q == MAP_FAILED) {
    CallHook(g_mapped_hook, p, old_size);
    return nullptr;
  }
  CallHook(g_mapped_hook, q, new_size);
  return q;
#endif
}

void FreeBlocks(const std::vector<HostCache::Block> &blocks) {
  for (const HostCache::Block &b : blocks) BlockFree(b.ptr, b.size);
}

}  // namespace

// Keeps what callers and the cache hold together at most the peak of what
// callers held plus the slack, giving the excess back to the system, least
// recently freed first; the evicted blocks go to *out (freed outside the
// lock). The slack starts at half the largest block (the whole block when
// blocks are not reshaped, since every new size then needs a block of its
// own) and doubles, up to a quarter of the peak, each time the cache has
// given back more than the peak since it last grew: such turnover means the
// pattern of sizes needs more room.
void EnforceBound(HostCache &c, std::vector<HostCache::Block> *out) {
  const size_t held = c.in_use + c.stats.cached_bytes,
               bound = c.peak_in_use + c.slack;
  if (held <= bound) return;
  c.evicted_since_growth += c.Evict(held - bound, out);
  if (c.evicted_since_growth > c.peak_in_use &&
      c.slack < c.peak_in_use / 4) {
    c.slack = std::min(c.peak_in_use / 4, 2 * c.slack);
    c.evicted_since_growth = 0;
  }
}

namespace {

// Maps a block of 'size' bytes whose first bytes are the pages of 'parts'
// (blocks taken out of the cache, together at most 'size' bytes), moved
// there in order without copying; the rest of it is fresh pages. *pieces
// gets the new block's pieces. If the system refuses to move a piece, the
// parts not moved (whole, or what is left of one) go to *unmoved and the
// rest of the block is fresh pages. nullptr if no block could be made (the
// parts moved by then are given back to the system).
void *GatherPages(size_t size, const std::vector<HostCache::Block> &parts,
                  Pieces *pieces, std::vector<HostCache::Block> *unmoved) {
#ifdef NNET3_BLOCKS_FROM_MALLOC
  (void)size;
  (void)parts;
  (void)pieces;
  (void)unmoved;
  return nullptr;
#else
  void *dst = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (dst == MAP_FAILED) {
    unmoved->insert(unmoved->end(), parts.begin(), parts.end());
    return nullptr;
  }
  char *base = static_cast<char *>(dst);
  size_t filled = 0;
  bool failed = false;
  pieces->clear();
  for (const HostCache::Block &part : parts) {
    if (failed) {
      unmoved->push_back(part);
      continue;
    }
    char *src = static_cast<char *>(part.ptr);
    size_t done = 0, i = 0;
    for (; i < part.pieces.size(); i++) {
      const size_t len = part.pieces[i];
      if (mremap(src + done, len, len, MREMAP_MAYMOVE | MREMAP_FIXED,
                 base + filled) == MAP_FAILED) {
        failed = true;
        break;
      }
      pieces->push_back(len);
      done += len;
      filled += len;
    }
    if (failed && done < part.size)
      unmoved->push_back(HostCache::Block{
          part.size - done, src + done,
          Pieces(part.pieces.begin() + i, part.pieces.end())});
  }
  if (filled < size) {
    // A failed move may have unmapped its destination: map the rest anew.
    if (failed && mmap(base + filled, size - filled, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                       0) == MAP_FAILED) {
      munmap(dst, size);
      return nullptr;
    }
    pieces->push_back(size - filled);
  }
  return dst;
#endif
}

}  // namespace

void *AllocateHostBlock(size_t bytes) {
  if (bytes < kMinCachedBytes) return HeapAlloc(bytes == 0 ? kAlign : bytes);
  const size_t size = CachedSize(bytes);
  HostCache &c = Cache();
  std::vector<HostCache::Block> evicted, parts;
  void *reshaped = nullptr;
  bool gather = false;
  const bool movable = HostBlockPagesMove();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    // The smallest cached block that fits, if it wastes at most a quarter
    // of itself.
    auto it = c.by_size.lower_bound(size);
    if (it != c.by_size.end() && it->first - size <= it->first / 4) {
      c.stats.reuses++;
      return c.HandOut(c.Take(it->second));
    }
    c.slack = std::max(c.slack, HostBlocksReshape() ? size / 2 : size);
    c.half_largest = std::max(c.half_largest, size / 2);
    if (movable && it != c.by_size.end()) {
      // A larger block: its head serves the request and its tail stays
      // cached. The pages stay where they are; a later larger request
      // gathers them again.
      c.stats.splits++;
      return c.HandOut(c.CutHead(c.Take(it->second), size));
    }
    if (movable && !c.by_size.empty()) {
      // Every cached block is smaller: gather the pages of the largest ones
      // (as many as it takes) into the new block, so that only what they
      // lack is fresh. What is held then never grows while the cache holds
      // enough, whatever sizes follow each other. A block whose pieces
      // would take the new one past kMaxPieces is given back instead and
      // its share mapped afresh: the pieces of blocks cut and gathered
      // again and again would otherwise keep multiplying.
      std::vector<HostCache::BlockList::iterator> chosen;
      size_t got = 0;
      for (auto r = c.by_size.rbegin(); r != c.by_size.rend() && got < size;
           ++r) {
        chosen.push_back(r->second);
        got += r->first;
      }
      size_t num_pieces = 0;
      for (size_t i = 0; i < chosen.size(); i++) {
        HostCache::Block taken = c.Take(chosen[i]);
        if (i + 1 == chosen.size() && got > size)  // only its head is needed
          taken = c.CutHead(std::move(taken), taken.size - (got - size));
        if (num_pieces + taken.pieces.size() >= kMaxPieces) {
          evicted.push_back(std::move(taken));
        } else {
          num_pieces += taken.pieces.size();
          parts.push_back(std::move(taken));
        }
      }
      gather = true;
    }
    if (!gather) {
      // None of about this size and no pages to move: reshape the cached
      // block closest in size (the smallest larger one or the largest
      // smaller one) rather than map new pages, so that what the cache
      // holds follows what the program uses whatever sizes follow each
      // other; only the pages a block grows by are fresh. Except that a
      // block is not shrunk while a new block keeps what is held within
      // the peak plus half the largest block: a small request would
      // otherwise take the pages of a large block that the next large
      // request maps afresh. (Blocks made of several pieces cannot be
      // reshaped; they serve requests as they are, or go.)
      c.in_use += size;
      c.peak_in_use = std::max(c.peak_in_use, c.in_use);
      if (!c.by_size.empty()) {
        auto pick = it;
        if (pick == c.by_size.end()) {
          pick = std::prev(it);
        } else if (it != c.by_size.begin()) {
          auto smaller = std::prev(it);
          if (size - smaller->first < pick->first - size) pick = smaller;
        }
        const bool shrinks = pick->first > size,
                   fits = c.in_use + c.stats.cached_bytes <=
                          c.peak_in_use + c.half_largest;
        const auto block = pick->second;
        if (!(shrinks && fits) && block->pieces.size() == 1) {
          reshaped = BlockResize(block->ptr, block->size, size);
          if (reshaped != nullptr) {
            if (size > block->size) c.stats.fresh_bytes += size - block->size;
            c.Forget(block);
            c.live.emplace(reshaped, HostCache::Block{size, reshaped, {size}});
            c.stats.reshapes++;
          }
        }
      }
      EnforceBound(c, &evicted);
      if (reshaped == nullptr) {
        c.stats.heap_allocations++;
        c.stats.fresh_bytes += size;
      }
    }
  }
  if (gather) {
    Pieces pieces;
    std::vector<HostCache::Block> unmoved;
    size_t gathered = 0;
    for (const HostCache::Block &b : parts) gathered += b.size;
    FreeBlocks(evicted);  // before any fresh page is mapped
    evicted.clear();
    void *p = GatherPages(size, parts, &pieces, &unmoved);
    {
      std::lock_guard<std::mutex> lock(c.mutex);
      for (const HostCache::Block &b : unmoved) c.Add(b);
      if (p == nullptr) throw std::bad_alloc();
      c.HandOut(HostCache::Block{size, p, std::move(pieces)});
      c.stats.gathers++;
      for (const HostCache::Block &b : unmoved) gathered -= b.size;
      c.stats.fresh_bytes += size - gathered;
      if (gathered < size) {
        c.stats.heap_allocations++;
        EnforceBound(c, &evicted);
      }
    }
    FreeBlocks(evicted);
    return p;
  }
  FreeBlocks(evicted);
  if (reshaped != nullptr) return reshaped;
  void *p;
  try {
    p = BlockAlloc(size);
  } catch (...) {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.in_use -= size;
    throw;
  }
  std::lock_guard<std::mutex> lock(c.mutex);
  c.live.emplace(p, HostCache::Block{size, p, {size}});
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
    HostCache::Block block;
    if (it != c.live.end()) {
      block = std::move(it->second);
      c.live.erase(it);
    } else {
      block = HostCache::Block{CachedSize(bytes), ptr, {CachedSize(bytes)}};
    }
    c.in_use -= std::min(c.in_use, block.size);
    if (c.stats.cached_bytes + block.size <= kMaxCachedBytes) {
      c.Add(std::move(block));
      return;
    }
    bytes = block.size;
  }
  BlockFree(ptr, bytes);
}

bool ShrinkHostBlock(void *ptr, size_t old_bytes, size_t new_bytes) {
  if (ptr == nullptr || new_bytes > old_bytes) return false;
  if (old_bytes < kMinCachedBytes) return true;  // C heap: free() needs no size
  if (new_bytes < kMinCachedBytes) return false;
  HostCache &c = Cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  auto it = c.live.find(ptr);
  if (it == c.live.end()) return false;
  const size_t size = it->second.size, new_size = CachedSize(new_bytes);
  if (new_size >= size) return true;
  // Under AddressSanitizer the block stays as malloc gave it; only its
  // recorded size (what the cache reuses it for) goes down. (Shrinking
  // unmaps the tail whatever mappings it spans.)
  if (HostBlocksReshape() &&
      BlockResize(ptr, size, new_size, /*in_place=*/true) == nullptr)
    return false;
  Pieces head, tail;
  SplitPieces(it->second.pieces, new_size, &head, &tail);
  it->second.size = new_size;
  it->second.pieces = std::move(head);
  c.in_use -= std::min(c.in_use, size - new_size);
  return true;
}

void ReleaseCachedHostBlocks() {
  HostCache &c = Cache();
  std::vector<HostCache::Block> evicted;
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    c.Evict(static_cast<size_t>(-1), &evicted);
    c.peak_in_use = c.in_use;  // the peak is measured afresh from here
    c.slack = 0;
    c.half_largest = 0;
    c.evicted_since_growth = 0;
  }
  FreeBlocks(evicted);
}

void SetHostBlockHooks(const HostBlockHooks &hooks) {
  g_mapped_hook.store(hooks.mapped, std::memory_order_release);
  g_unmapping_hook.store(hooks.unmapping, std::memory_order_release);
}

bool ReleaseFreeHeapPages() {
#if defined(__GLIBC__) && !defined(NNET3_BLOCKS_FROM_MALLOC)
  malloc_trim(0);
  return true;
#else
  return false;
#endif
}

bool HostBlocksReshape() {
#ifdef NNET3_BLOCKS_FROM_MALLOC
  return false;
#else
  return true;
#endif
}

// A GPU backend pins each block as the range it was mapped with, so with
// hooks set blocks keep their mappings and are only reshaped.
bool HostBlockPagesMove() {
#ifdef NNET3_BLOCKS_FROM_MALLOC
  return false;
#else
  return g_mapped_hook.load(std::memory_order_acquire) == nullptr &&
         g_unmapping_hook.load(std::memory_order_acquire) == nullptr;
#endif
}

HostBlockStats GetHostBlockStats() {
  HostCache &c = Cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.stats;
}

}  // namespace nnet3
