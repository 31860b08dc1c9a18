// cudamatrix/gpu-runtime.h
// What device selection and the device allocator need from the GPU driver,
// as an interface: the system implementation talks to the CUDA runtime
// (cuda/cuda-runtime.cc, built when nvcc was found) or reports that the
// build has no CUDA (no-cuda-runtime.cc); tests substitute a fake with
// chosen devices, memory and failures. Only cudamatrix/ sees this header.
//
// Invariants: every call reports failure through its return value and a
// reason string, never by throwing, so that the caller decides between an
// error (--use-gpu=yes) and a fallback (--use-gpu=optional). Device ids are
// the runtime's ids, i.e. positions in CUDA_VISIBLE_DEVICES when it is set.
#ifndef NNET3_CUDAMATRIX_GPU_RUNTIME_H_
#define NNET3_CUDAMATRIX_GPU_RUNTIME_H_

#include <cstddef>
#include <string>

namespace nnet3 {

template <typename Real> class DeviceOps;

struct GpuDeviceInfo {
  int id = -1;
  std::string name;             // e.g. "NVIDIA H100 80GB HBM3"
  int major = 0, minor = 0;     // compute capability
  bool exclusive = false;       // compute mode is exclusive (thread/process)
  size_t free_bytes = 0, total_bytes = 0;
};

class GpuRuntime {
 public:
  virtual ~GpuRuntime() {}

  // True if this build can talk to CUDA at all.
  virtual bool Compiled() const = 0;

  // True if the CuMatrix operations of this build run on the device once a
  // GPU is active. Device selection refuses to activate a GPU otherwise, so
  // that no tool claims a GPU while computing on the CPU.
  virtual bool BackendComputes() const = 0;

  // Number of visible devices; 0 with *why set when there are none or the
  // driver cannot be used.
  virtual int DeviceCount(std::string *why) = 0;

  // Fills *info for device "id" (this may create and release a context on
  // it). False with *why when the device cannot be used now, e.g. it is in
  // exclusive mode and held by another process.
  virtual bool Probe(int id, GpuDeviceInfo *info, std::string *why) = 0;

  // Makes "id" the device of this process and creates its context.
  virtual bool Activate(int id, std::string *why) = 0;

  // Free and total memory of the active device.
  virtual bool MemoryInfo(size_t *free_bytes, size_t *total_bytes) = 0;

  // Raw device memory: nullptr when the device cannot provide "bytes".
  virtual void *Allocate(size_t bytes) = 0;
  virtual void Release(void *ptr) = 0;

  // The device operations of the Cu types (null where the build has none;
  // the argument only selects the element type).
  virtual DeviceOps<float> *Ops(float *) { return nullptr; }
  virtual DeviceOps<double> *Ops(double *) { return nullptr; }

  // 2-D copies between host and device memory ("rows" rows of "width"
  // bytes); false with *why on failure.
  virtual bool CopyToDevice(void *dst, size_t dst_pitch, const void *src,
                            size_t src_pitch, size_t width, size_t rows,
                            std::string *why) {
    (void)dst, (void)dst_pitch, (void)src, (void)src_pitch, (void)width,
        (void)rows;
    *why = "this runtime cannot copy";
    return false;
  }
  virtual bool CopyToHost(void *dst, size_t dst_pitch, const void *src,
                          size_t src_pitch, size_t width, size_t rows,
                          std::string *why) {
    (void)dst, (void)dst_pitch, (void)src, (void)src_pitch, (void)width,
        (void)rows;
    *why = "this runtime cannot copy";
    return false;
  }
  // Waits for the device's queued work.
  virtual bool Synchronize(std::string *why) {
    (void)why;
    return true;
  }

  // How many times the host has waited for the device or copied from or to
  // host memory so far (copies, synchronisations, scalar results read back);
  // a stretch of work that adds nothing here can be captured as a graph.
  virtual long long HostWaits() { return 0; }

  // Page-locks host memory for fast copies (and unlocks it); failures are
  // ignored (the memory then stays pageable).
  virtual void PinHost(void *ptr, size_t bytes) { (void)ptr, (void)bytes; }
  virtual void UnpinHost(void *ptr) { (void)ptr; }

  // Graph capture of the work queued on the device's stream. BeginCapture
  // starts recording instead of running; EndCapture stops and instantiates
  // what was recorded (an opaque handle in *graph), or returns false with
  // *why when the capture was refused (an operation that cannot be recorded
  // ran meanwhile) and leaves the stream as it was before BeginCapture.
  // LaunchGraph queues one replay; DestroyGraph frees the handle.
  virtual bool BeginCapture(std::string *why) {
    *why = "this runtime cannot capture graphs";
    return false;
  }
  virtual bool EndCapture(void **graph, std::string *why) {
    *graph = nullptr;
    *why = "this runtime cannot capture graphs";
    return false;
  }
  virtual bool LaunchGraph(void *graph, std::string *why) {
    (void)graph;
    *why = "this runtime cannot launch graphs";
    return false;
  }
  virtual void DestroyGraph(void *graph) { (void)graph; }
};

// The process's runtime (CUDA, or the no-CUDA report); never null.
GpuRuntime *SystemGpuRuntime();

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_GPU_RUNTIME_H_
