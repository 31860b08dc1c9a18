// cudamatrix/no-cuda-runtime.cc
// The GpuRuntime of a build without CUDA: it only reports that no GPU can
// be used. CMake compiles this file instead of cuda/cuda-runtime.cc when
// nvcc was not found or NNET3_CUDA=OFF.
#include "cudamatrix/gpu-runtime.h"

namespace nnet3 {

namespace {

class NoCudaRuntime : public GpuRuntime {
 public:
  bool Compiled() const override { return false; }
  bool BackendComputes() const override { return false; }
  int DeviceCount(std::string *why) override {
    *why = "this build has no CUDA support";
    return 0;
  }
  bool Probe(int, GpuDeviceInfo *, std::string *why) override {
    *why = "this build has no CUDA support";
    return false;
  }
  bool Activate(int, std::string *why) override {
    *why = "this build has no CUDA support";
    return false;
  }
  bool MemoryInfo(size_t *, size_t *) override { return false; }
  void *Allocate(size_t) override { return nullptr; }
  void Release(void *) override {}
};

}  // namespace

GpuRuntime *SystemGpuRuntime() {
  static NoCudaRuntime runtime;
  return &runtime;
}

}  // namespace nnet3
