// cudamatrix/cuda/cuda-runtime.cc
// The GpuRuntime of a CUDA build, on the CUDA runtime API: device count,
// per-device properties and memory, activation, raw cudaMalloc/cudaFree.
// Probing a device creates its primary context to read the free memory and
// then resets it, so that probing every device leaves no context behind on
// the devices that are not chosen.
//
// It also hands out the kernel-backed DeviceOps and does the host <-> device
// copies of the Cu types, on the kernels' stream (cuda/context.h).
#include <cuda_runtime_api.h>

#include "cudamatrix/cuda/context.h"
#include "cudamatrix/cuda/device-ops.h"
#include "cudamatrix/gpu-runtime.h"

namespace nnet3 {

namespace {

std::string ErrorText(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

class CudaRuntime : public GpuRuntime {
 public:
  bool Compiled() const override { return true; }
  bool BackendComputes() const override { return true; }

  int DeviceCount(std::string *why) override {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      cudaGetLastError();  // clear the sticky error state
      *why = ErrorText(e);
      return 0;
    }
    if (n == 0) *why = "the driver reports no devices";
    return n;
  }

  bool Probe(int id, GpuDeviceInfo *info, std::string *why) override {
    cudaDeviceProp prop;
    int mode = cudaComputeModeDefault;
    cudaError_t e = cudaGetDeviceProperties(&prop, id);
    if (e == cudaSuccess)
      e = cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, id);
    if (e == cudaSuccess) e = cudaSetDevice(id);
    if (e == cudaSuccess) e = cudaFree(nullptr);  // creates the context
    size_t free_bytes = 0, total_bytes = 0;
    if (e == cudaSuccess) e = cudaMemGetInfo(&free_bytes, &total_bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();
      *why = ErrorText(e);
      return false;
    }
    info->id = id;
    info->name = prop.name;
    info->major = prop.major;
    info->minor = prop.minor;
    info->exclusive = mode == cudaComputeModeExclusiveProcess;
    info->free_bytes = free_bytes;
    info->total_bytes = total_bytes;
    cudaDeviceReset();
    return true;
  }

  bool Activate(int id, std::string *why) override {
    cudaError_t e = cudaSetDevice(id);
    if (e == cudaSuccess) e = cudaFree(nullptr);
    if (e != cudaSuccess) {
      cudaGetLastError();
      *why = ErrorText(e);
      return false;
    }
    return true;
  }

  bool MemoryInfo(size_t *free_bytes, size_t *total_bytes) override {
    return cudaMemGetInfo(free_bytes, total_bytes) == cudaSuccess;
  }

  void *Allocate(size_t bytes) override {
    void *ptr = nullptr;
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    return ptr;
  }

  void Release(void *ptr) override { cudaFree(ptr); }

  DeviceOps<float> *Ops(float *) override { return cuda::KernelOpsFloat(); }
  DeviceOps<double> *Ops(double *) override {
    return cuda::KernelOpsDouble();
  }

  bool CopyToDevice(void *dst, size_t dst_pitch, const void *src,
                    size_t src_pitch, size_t width, size_t rows,
                    std::string *why) override {
    // From pageable memory the call returns once the source is staged, so
    // the caller may reuse its buffer at once.
    cuda::CountHostWait();
    cudaError_t e = cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width,
                                      rows, cudaMemcpyHostToDevice,
                                      cuda::Stream());
    // From page-locked memory it returns at once: wait, so that the caller
    // may still reuse the buffer as soon as this returns.
    cudaPointerAttributes attributes;
    if (e == cudaSuccess &&
        cudaPointerGetAttributes(&attributes, src) == cudaSuccess) {
      if (attributes.type == cudaMemoryTypeHost)
        e = cudaStreamSynchronize(cuda::Stream());
    } else if (e == cudaSuccess) {
      cudaGetLastError();
    }
    return Check(e, why);
  }

  bool CopyToHost(void *dst, size_t dst_pitch, const void *src,
                  size_t src_pitch, size_t width, size_t rows,
                  std::string *why) override {
    cuda::CountHostWait();
    cudaStream_t stream = cuda::Stream();
    cudaError_t e = cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width,
                                      rows, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    return Check(e, why);
  }

  bool Synchronize(std::string *why) override {
    cuda::CountHostWait();
    return Check(cudaStreamSynchronize(cuda::Stream()), why);
  }

  long long HostWaits() override { return cuda::HostWaitCount(); }

  void PinHost(void *ptr, size_t bytes) override {
    if (cudaHostRegister(ptr, bytes, cudaHostRegisterDefault) != cudaSuccess)
      cudaGetLastError();
  }

  void UnpinHost(void *ptr) override {
    if (cudaHostUnregister(ptr) != cudaSuccess) cudaGetLastError();
  }

  bool BeginCapture(std::string *why) override {
    // Relaxed: the caching allocator may still call cudaMalloc while the
    // stream records (its blocks are then kept for the graph's lifetime).
    return Check(cudaStreamBeginCapture(cuda::Stream(),
                                        cudaStreamCaptureModeRelaxed),
                 why);
  }

  bool EndCapture(void **graph, std::string *why) override {
    *graph = nullptr;
    cudaGraph_t recorded = nullptr;
    cudaError_t e = cudaStreamEndCapture(cuda::Stream(), &recorded);
    if (e != cudaSuccess || recorded == nullptr) {
      if (recorded != nullptr) cudaGraphDestroy(recorded);
      if (e == cudaSuccess) e = cudaErrorStreamCaptureInvalidated;
      return Check(e, why);
    }
    cudaGraphExec_t exec = nullptr;
    e = cudaGraphInstantiate(&exec, recorded, 0);
    cudaGraphDestroy(recorded);
    if (!Check(e, why)) return false;
    *graph = exec;
    return true;
  }

  bool LaunchGraph(void *graph, std::string *why) override {
    return Check(cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph),
                                 cuda::Stream()),
                 why);
  }

  void DestroyGraph(void *graph) override {
    if (graph != nullptr) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph));
  }

 private:
  static bool Check(cudaError_t e, std::string *why) {
    if (e == cudaSuccess) return true;
    cudaGetLastError();
    *why = ErrorText(e);
    return false;
  }
};

}  // namespace

GpuRuntime *SystemGpuRuntime() {
  static CudaRuntime runtime;
  return &runtime;
}

}  // namespace nnet3
