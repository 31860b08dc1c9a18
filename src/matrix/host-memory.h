// matrix/host-memory.h
// Storage for Matrix and Vector: aligned blocks (small ones from the C
// heap, large ones mapped pages of their own), with a cache of large freed
// blocks kept by this library for the next allocation of the same size.
// Computations allocate and free the same large matrices once per chunk or
// minibatch; returning such blocks to the system every time makes every
// minibatch pay for fresh zero-filled pages. Keeping them here gives the
// reuse without changing the allocator of the program that embeds us (no
// mallopt).
//
// Invariants:
//  - blocks of at least kMinCachedBytes are rounded up to a multiple of
//    4 KiB and page aligned (mmap; under AddressSanitizer malloc, 64-byte
//    aligned, so that it checks them): a large block given back leaves the
//    process at once and never fragments the C heap;
//  - a freed large block is cached and handed out again for a request that
//    it fits and that is at least three quarters of its size (the smallest
//    such block first), so minibatches of varying shapes reuse each
//    other's memory; smaller blocks go straight to malloc/free (alignment
//    64 as well);
//  - the cache holds at most kMaxCachedBytes; a block freed beyond that is
//    returned to the system;
//  - when no cached block is within that quarter, and pages may be moved
//    (HostBlockPagesMove(): mapped blocks, no hooks), the request is
//    served from cached pages before any fresh ones: by the head of the
//    smallest larger block (its tail stays cached), or, when every cached
//    block is smaller, by a new block into which the pages of the largest
//    ones are moved with mremap (no copy, no zeroing; at most kMaxPieces
//    mappings per block), fresh pages making up only what they lack. So
//    what is held never grows beyond the peak of what is handed out at one
//    time: the output of a chunk takes the pages its first layers used,
//    and a minibatch's backward pass the pages of its forward one;
//  - with hooks set (a GPU backend pins every block as it was mapped) or
//    blocks from malloc, pages stay in the block they were mapped for:
//    the cached block closest in size (the smallest larger one or the
//    largest smaller one) is reshaped to the request with mremap:
//    shrinking gives its tail pages back, growing maps fresh pages only
//    for the part added. A cached block is not shrunk, though, while a new
//    block keeps the bytes held within the peak plus half the largest
//    block handed out: a small request between large ones (a chunk's first
//    spliced input) then gets pages of its own instead of cutting down a
//    large block that the next large request would grow again. Otherwise
//    new pages are mapped only when the cache is empty. (Builds whose
//    blocks come from malloc, under AddressSanitizer, do not reshape:
//    HostBlocksReshape());
//  - the bytes held in cacheable-size blocks (handed out plus cached) never
//    exceed the peak of the bytes handed out at one time plus a slack
//    (since the last ReleaseCachedHostBlocks): an allocation that is not
//    served by a cached block within a quarter gives the excess back to
//    the system, oldest cached blocks first. The slack is half the largest
//    block handed out (the whole block where blocks are not reshaped),
//    doubled (up to a quarter of the peak) each time the blocks given back
//    since it last grew add up to more than the peak. A loop that repeats
//    the same sizes never evicts;
//  - FreeHostBlock must be called with the size the block was asked for;
//  - all functions are thread-safe.
#ifndef NNET3_MATRIX_HOST_MEMORY_H_
#define NNET3_MATRIX_HOST_MEMORY_H_

#include <cstddef>

namespace nnet3 {

constexpr size_t kMinCachedBytes = size_t(128) << 10;   // 128 KiB
constexpr size_t kMaxCachedBytes = size_t(2) << 30;     // 2 GiB

// A block of at least "bytes" bytes (bytes > 0), 64-byte aligned; throws
// std::bad_alloc when the system refuses.
void *AllocateHostBlock(size_t bytes);
// Returns a block from AllocateHostBlock(bytes) ("bytes" as asked then);
// nullptr is ignored.
void FreeHostBlock(void *ptr, size_t bytes);
// Makes a block from AllocateHostBlock(old_bytes) one of new_bytes <=
// old_bytes in place, giving its tail pages back (where blocks are mapped),
// and returns true; the block must then be freed with new_bytes. False,
// with nothing changed, when that cannot be done in place (a mapped block
// shrunk below kMinCachedBytes, which would have to move to the C heap).
bool ShrinkHostBlock(void *ptr, size_t old_bytes, size_t new_bytes);
// Gives every cached block back to the system and restarts the peak used
// by the eviction rule from what is in use now.
void ReleaseCachedHostBlocks();

// Gives the free pages inside the C heap back to the system (glibc's
// malloc_trim; returns false and does nothing with other C libraries and
// under AddressSanitizer). This library never calls it by itself: it is for
// a program that has just freed many small blocks that live ones keep from
// being returned (the tools call it after compiling a computation, whose
// temporaries leave megabytes of holes between the structures kept).
bool ReleaseFreeHeapPages();

// Whether this build reshapes cached blocks (mapped blocks; false when they
// come from malloc).
bool HostBlocksReshape();
// Whether cached pages are moved between blocks now: blocks are mapped and
// no hooks are set.
bool HostBlockPagesMove();

struct HostBlockStats {
  size_t cached_bytes = 0;     // held in the cache now
  size_t reuses = 0;           // allocations served from the cache
  size_t heap_allocations = 0; // cacheable-size allocations that reached malloc
  size_t reshapes = 0;         // allocations served by resizing a cached block
  size_t splits = 0;    // allocations served by the head of a larger block
  size_t gathers = 0;   // allocations served by moving cached pages together
  size_t fresh_bytes = 0;  // bytes of fresh pages mapped for allocations
};
HostBlockStats GetHostBlockStats();

// Called with the pages of each cacheable-size block right after they are
// mapped, and right before they are given back or reshaped (then 'mapped'
// again with the new pages). A GPU backend pins them here so that copies
// between them and the device run at full speed; blocks mapped before the
// hooks were set are unpinned with the rest (the hook must accept that).
// Set once, before computing; nullptr hooks (the default) do nothing.
struct HostBlockHooks {
  void (*mapped)(void *ptr, size_t bytes) = nullptr;
  void (*unmapping)(void *ptr, size_t bytes) = nullptr;
};
void SetHostBlockHooks(const HostBlockHooks &hooks);

}  // namespace nnet3

#endif  // NNET3_MATRIX_HOST_MEMORY_H_
