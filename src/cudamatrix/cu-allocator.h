// cudamatrix/cu-allocator.h
// A caching allocator for device memory. cudaMalloc and cudaFree are slow
// and synchronise the device, and a training or decoding loop asks for the
// same sizes over and over; so freed blocks are kept in a cache keyed by
// size and handed out again, and only returned to the driver when a new
// request cannot be met otherwise (or on ReleaseCached()).
//
// Invariants:
//  - sizes are rounded up to a multiple of kAlignment (256 bytes, which also
//    makes every block suitably aligned for any element type and for
//    coalesced row starts);
//  - a cached block is reused for a request only if it wastes at most a
//    quarter of its size, so a small request never pins a huge block;
//  - in_use + cached == held (bytes obtained from the driver and not yet
//    returned); peak_in_use and peak_held only grow;
//  - when the driver refuses a request the cache is emptied and the request
//    retried once; a second refusal is a UserError of one line naming what
//    was asked, what the device had free, what this process holds and
//    which options reduce the need.
//  - all methods are thread-safe (several computers may share a device).
#ifndef NNET3_CUDAMATRIX_CU_ALLOCATOR_H_
#define NNET3_CUDAMATRIX_CU_ALLOCATOR_H_

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cudamatrix/gpu-runtime.h"

namespace nnet3 {

struct DeviceMemoryStats {
  size_t in_use = 0;        // bytes handed out and not yet freed
  size_t cached = 0;        // bytes freed by callers, kept for reuse
  size_t peak_in_use = 0;
  size_t peak_held = 0;     // peak of in_use + cached
  size_t driver_allocations = 0;  // calls that reached the driver
  size_t reuses = 0;              // requests met from the cache
};

class CachingDeviceAllocator {
 public:
  static const size_t kAlignment = 256;

  // "runtime" provides the raw memory and must outlive the allocator.
  explicit CachingDeviceAllocator(GpuRuntime *runtime);
  // Returns every cached block to the driver.
  ~CachingDeviceAllocator();

  // Device memory for "bytes" bytes (nullptr for 0 bytes).
  void *Malloc(size_t bytes);
  // Memory for "rows" rows of "row_bytes" bytes each; *pitch receives the
  // distance in bytes between row starts (row_bytes rounded to kAlignment).
  void *MallocPitch(size_t row_bytes, size_t rows, size_t *pitch);
  // Gives a block back to the cache; nullptr is ignored, a pointer this
  // allocator did not hand out is an InternalError.
  void Free(void *ptr);
  // Returns all cached blocks to the driver.
  void ReleaseCached();

  // While a graph is recorded, blocks that the recording thread frees must
  // not be handed out again: the graph's replays still use them. Between
  // BeginHold() and EndHold() such blocks stay in use; EndHold() returns
  // them, and whoever owns the graph passes each to Free() once the graph
  // is gone. Frees from other threads are not held. Holds do not nest.
  void BeginHold();
  std::vector<void *> EndHold();

  DeviceMemoryStats Stats() const;
  // One line: "peak 1.2 GiB in use (1.5 GiB held), now 0 B in use, ...".
  std::string Summary() const;

 private:
  void ReleaseCachedLocked();

  GpuRuntime *runtime_;
  mutable std::mutex mutex_;
  std::multimap<size_t, void *> cache_;       // size -> free block
  std::unordered_map<void *, size_t> live_;   // block -> size
  DeviceMemoryStats stats_;
  bool holding_ = false;
  std::thread::id holding_thread_;
  std::vector<void *> held_;
};

// "1.5 GiB", "12.0 MiB", "512 B": sizes as they appear in messages.
std::string FormatBytes(size_t bytes);

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_ALLOCATOR_H_
