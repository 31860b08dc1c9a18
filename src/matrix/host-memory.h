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
//  - the bytes held in cacheable-size blocks (handed out plus cached) never
//    exceed the peak of the bytes handed out at one time plus a slack, and
//    never twice that peak (both since the last ReleaseCachedHostBlocks):
//    an allocation of a size the cache does not hold gives the excess back
//    to the system, oldest cached blocks first. The slack is the largest
//    block handed out, doubled (at most to the peak) each time the blocks
//    given back since it last grew add up to more than the peak, so that a
//    repeating pattern of sizes settles instead of returning and faulting
//    in pages every round. A loop that repeats the same sizes never evicts;
//    after a change of sizes the blocks of the old ones go back;
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
// Gives every cached block back to the system and restarts the peak used
// by the eviction rule from what is in use now.
void ReleaseCachedHostBlocks();

struct HostBlockStats {
  size_t cached_bytes = 0;     // held in the cache now
  size_t reuses = 0;           // allocations served from the cache
  size_t heap_allocations = 0; // cacheable-size allocations that reached malloc
};
HostBlockStats GetHostBlockStats();

}  // namespace nnet3

#endif  // NNET3_MATRIX_HOST_MEMORY_H_
