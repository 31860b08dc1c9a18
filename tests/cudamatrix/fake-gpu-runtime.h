// tests/cudamatrix/fake-gpu-runtime.h
// A GpuRuntime with chosen devices, memory and failures, for testing device
// selection and the caching allocator without a GPU. Allocate() hands out
// distinct fake addresses from a host pool and refuses requests beyond the
// active device's free memory; every outstanding block is tracked so tests
// can check that nothing leaks and nothing is released twice.
#ifndef NNET3_TESTS_CUDAMATRIX_FAKE_GPU_RUNTIME_H_
#define NNET3_TESTS_CUDAMATRIX_FAKE_GPU_RUNTIME_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cudamatrix/gpu-runtime.h"

namespace nnet3 {

struct FakeDevice {
  std::string name = "Fake GPU";
  size_t free_bytes = 0, total_bytes = 0;
  int busy_probes = 0;     // this many Probe() calls fail ("busy") first
  bool activate_fails = false;
};

class FakeGpuRuntime : public GpuRuntime {
 public:
  bool compiled = true;
  bool computes = true;
  std::string count_error;  // DeviceCount's reason when there are none
  std::vector<FakeDevice> devices;
  int active = -1;
  int probes = 0;
  int allocate_calls = 0;

  bool Compiled() const override { return compiled; }
  bool BackendComputes() const override { return computes; }
  int DeviceCount(std::string *why) override {
    if (devices.empty()) *why = count_error;
    return static_cast<int>(devices.size());
  }
  bool Probe(int id, GpuDeviceInfo *info, std::string *why) override {
    probes++;
    FakeDevice &d = devices.at(id);
    if (d.busy_probes > 0) {
      d.busy_probes--;
      *why = "busy";
      return false;
    }
    info->id = id;
    info->name = d.name;
    info->major = 9;
    info->minor = 0;
    info->free_bytes = d.free_bytes;
    info->total_bytes = d.total_bytes;
    return true;
  }
  bool Activate(int id, std::string *why) override {
    if (devices.at(id).activate_fails) {
      *why = "context creation failed";
      return false;
    }
    active = id;
    return true;
  }
  bool MemoryInfo(size_t *free_bytes, size_t *total_bytes) override {
    if (active < 0) return false;
    *free_bytes = devices[active].free_bytes;
    *total_bytes = devices[active].total_bytes;
    return true;
  }
  void *Allocate(size_t bytes) override {
    std::lock_guard<std::mutex> lock(mutex_);
    allocate_calls++;
    if (active < 0 || bytes > devices[active].free_bytes) return nullptr;
    devices[active].free_bytes -= bytes;
    next_address_ += bytes + 4096;
    void *ptr = reinterpret_cast<void *>(next_address_);
    outstanding_[ptr] = bytes;
    return ptr;
  }
  void Release(void *ptr) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = outstanding_.find(ptr);
    if (it == outstanding_.end()) {
      bad_releases++;
      return;
    }
    devices[active].free_bytes += it->second;
    outstanding_.erase(it);
  }
  size_t OutstandingBytes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    size_t sum = 0;
    for (auto &e : outstanding_) sum += e.second;
    return sum;
  }
  int bad_releases = 0;

 private:
  mutable std::mutex mutex_;
  uintptr_t next_address_ = 1 << 20;
  std::map<void *, size_t> outstanding_;
};

}  // namespace nnet3

#endif  // NNET3_TESTS_CUDAMATRIX_FAKE_GPU_RUNTIME_H_
