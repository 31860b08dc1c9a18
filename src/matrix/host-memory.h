// matrix/host-memory.h
// Storage for Matrix and Vector: aligned blocks from the C heap, with a
// cache of large freed blocks kept by this library for the next allocation
// of the same size. Computations allocate and free the same large matrices
// once per chunk or minibatch; returning such blocks to the system (glibc
// maps blocks over its mmap threshold and trims the heap top on free) makes
// every minibatch pay for fresh zero-filled pages. Keeping them here gives
// the reuse without changing the allocator of the program that embeds us
// (no mallopt).
//
// Invariants:
//  - blocks of at least kMinCachedBytes are rounded up to a multiple of
//    4 KiB and 64-byte aligned; a freed one is cached and handed out again
//    for a request that it fits and that is at least half its size (the
//    smallest such block first), so minibatches of varying shapes reuse
//    each other's memory; smaller blocks go straight to malloc/free
//    (alignment 64 as well);
//  - the cache holds at most kMaxCachedBytes; a block freed beyond that is
//    returned to the C heap;
//  - the bytes held in cacheable-size blocks (handed out plus cached) never
//    exceed the peak of the bytes handed out at one time: an allocation of
//    a size the cache does not hold gives the excess back to the C heap,
//    oldest cached blocks first. A loop that repeats the same sizes never
//    evicts; after a change of sizes the blocks of the old ones go back;
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
// Gives every cached block back to the C heap and restarts the peak used
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
