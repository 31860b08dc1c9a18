// cudamatrix/cu-backend.h
// Where Cu objects keep their data: the process-wide switch between host
// memory (the CPU backend) and device memory (the GPU backend), and the
// device services the Cu types use when their data lives on a GPU: the
// operations (DeviceOps), memory from the caching allocator, and copies
// between host and device.
//
// Invariants:
//  - a Cu object decides where it lives when it gets its memory (OnDevice()
//    at that moment) and never moves; views share the location of what they
//    view; an operation whose operands live in different places is an
//    InternalError, never a silent wrong result;
//  - OnDevice() can be true only after Enable() registered a runtime with
//    operations and an allocator (CuDevice does this when --use-gpu
//    activates a GPU; GPU tests do it themselves); a build without CUDA never
//    gets there;
//  - copies to the host wait for the device; copies to the device return
//    once the host buffer may be reused.
#ifndef NNET3_CUDAMATRIX_CU_BACKEND_H_
#define NNET3_CUDAMATRIX_CU_BACKEND_H_

#include <cstddef>
#include <string>
#include <vector>

namespace nnet3 {

class GpuRuntime;
class CachingDeviceAllocator;
template <typename Real> class DeviceOps;

namespace cu_backend {

namespace internal {
extern bool on_device;
}  // namespace internal

// True when Cu objects that get memory now get device memory.
inline bool OnDevice() { return internal::on_device; }

// Registers the device services (runtime and allocator must outlive every
// Cu object on the device) and switches new objects to the device.
void Enable(GpuRuntime *runtime, CachingDeviceAllocator *allocator);
// True once Enable() ran.
bool Available();
// Switches where new objects live (tests compare both backends in one
// process); on == true needs Available().
void SetOnDevice(bool on);

// Sets OnDevice() for the lifetime of the object, then restores it.
class Scope {
 public:
  explicit Scope(bool on);
  ~Scope();

 private:
  bool saved_;
};

template <typename Real> DeviceOps<Real> &Ops();

// Device memory from the caching allocator.
void *Malloc(size_t bytes);
void *MallocPitch(size_t row_bytes, size_t rows, size_t *pitch);
void Free(void *ptr);

// 2-D copies: "rows" rows of "width" bytes, rows "pitch" bytes apart.
void CopyToDevice(void *dst, size_t dst_pitch, const void *src,
                  size_t src_pitch, size_t width, size_t rows);
void CopyToHost(void *dst, size_t dst_pitch, const void *src,
                size_t src_pitch, size_t width, size_t rows);

// Waits for all queued device work.
void Synchronize();

// Whether Enable() makes the host matrix library pin its large blocks
// (matrix/host-memory.h) so that copies to and from them run at full
// speed; on by default. Set before Enable().
void SetPinHostBlocks(bool on);

// The runtime's count of host waits and host copies (GpuRuntime::HostWaits;
// 0 without a GPU backend).
long long HostWaits();

// Graph capture on the device's stream (see cu-graph.h, which wraps these).
// BeginCapture also makes the allocator hold the blocks this thread frees;
// EndCapture returns them in *held (also when the capture was refused).
bool BeginCapture(std::string *why);
bool EndCapture(void **graph, std::vector<void *> *held, std::string *why);
bool LaunchGraph(void *graph, std::string *why);
void DestroyGraph(void *graph);

// Throws an InternalError naming the operation whose operands live in
// different places (host and device).
[[noreturn]] void MixedLocations(const char *operation);
// Throws an InternalError for a host view (Mat(), Vec(), Smat()) of a Cu
// object whose data lives on the device.
[[noreturn]] void HostViewOfDeviceData();

}  // namespace cu_backend
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_BACKEND_H_
