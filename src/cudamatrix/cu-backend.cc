// cudamatrix/cu-backend.cc
#include "cudamatrix/cu-backend.h"

#include <string>

#include "base/log.h"
#include "cudamatrix/cu-allocator.h"
#include "cudamatrix/device-ops.h"
#include "cudamatrix/gpu-runtime.h"
#include "matrix/host-memory.h"

namespace nnet3 {
namespace cu_backend {

namespace internal {
bool on_device = false;
}  // namespace internal

namespace {

GpuRuntime *g_runtime = nullptr;
CachingDeviceAllocator *g_allocator = nullptr;
bool g_pin_host_blocks = true;

void PinHostBlock(void *ptr, size_t bytes) {
  if (g_runtime != nullptr) g_runtime->PinHost(ptr, bytes);
}

void UnpinHostBlock(void *ptr, size_t bytes) {
  (void)bytes;
  if (g_runtime != nullptr) g_runtime->UnpinHost(ptr);
}

GpuRuntime &Runtime() {
  if (g_runtime == nullptr)
    throw InternalError("a device operation was asked for, but no GPU "
                        "backend is enabled");
  return *g_runtime;
}

}  // namespace

void Enable(GpuRuntime *runtime, CachingDeviceAllocator *allocator) {
  NNET3_ASSERT(runtime != nullptr && allocator != nullptr);
  if (runtime->Ops(static_cast<float *>(nullptr)) == nullptr ||
      runtime->Ops(static_cast<double *>(nullptr)) == nullptr)
    throw InternalError("the GPU runtime has no device operations");
  g_runtime = runtime;
  g_allocator = allocator;
  internal::on_device = true;
  if (g_pin_host_blocks) {
    HostBlockHooks hooks;
    hooks.mapped = PinHostBlock;
    hooks.unmapping = UnpinHostBlock;
    SetHostBlockHooks(hooks);
  }
}

void SetPinHostBlocks(bool on) { g_pin_host_blocks = on; }

bool Available() { return g_runtime != nullptr; }

void SetOnDevice(bool on) {
  if (on && !Available())
    throw InternalError("SetOnDevice(true) before a GPU backend was enabled");
  internal::on_device = on;
}

Scope::Scope(bool on) : saved_(internal::on_device) { SetOnDevice(on); }
Scope::~Scope() { internal::on_device = saved_; }

template <typename Real>
DeviceOps<Real> &Ops() {
  return *Runtime().Ops(static_cast<Real *>(nullptr));
}
template DeviceOps<float> &Ops<float>();
template DeviceOps<double> &Ops<double>();

void *Malloc(size_t bytes) {
  Runtime();
  return g_allocator->Malloc(bytes);
}

void *MallocPitch(size_t row_bytes, size_t rows, size_t *pitch) {
  Runtime();
  return g_allocator->MallocPitch(row_bytes, rows, pitch);
}

void Free(void *ptr) {
  if (ptr == nullptr) return;
  Runtime();
  g_allocator->Free(ptr);
}

void CopyToDevice(void *dst, size_t dst_pitch, const void *src,
                  size_t src_pitch, size_t width, size_t rows) {
  if (width == 0 || rows == 0) return;
  std::string why;
  if (!Runtime().CopyToDevice(dst, dst_pitch, src, src_pitch, width, rows,
                              &why))
    throw InternalError("copy to the GPU failed: " + why);
}

void CopyToHost(void *dst, size_t dst_pitch, const void *src,
                size_t src_pitch, size_t width, size_t rows) {
  if (width == 0 || rows == 0) return;
  std::string why;
  if (!Runtime().CopyToHost(dst, dst_pitch, src, src_pitch, width, rows,
                            &why))
    throw InternalError("copy from the GPU failed: " + why);
}

void Synchronize() {
  std::string why;
  if (g_runtime != nullptr && !g_runtime->Synchronize(&why))
    throw InternalError("GPU synchronisation failed: " + why);
}

long long HostWaits() {
  return g_runtime != nullptr ? g_runtime->HostWaits() : 0;
}

bool BeginCapture(std::string *why) {
  Runtime();
  g_allocator->BeginHold();
  if (g_runtime->BeginCapture(why)) return true;
  for (void *ptr : g_allocator->EndHold()) g_allocator->Free(ptr);
  return false;
}

bool EndCapture(void **graph, std::vector<void *> *held, std::string *why) {
  Runtime();
  bool ok = g_runtime->EndCapture(graph, why);
  *held = g_allocator->EndHold();
  return ok;
}

bool LaunchGraph(void *graph, std::string *why) {
  return Runtime().LaunchGraph(graph, why);
}

void DestroyGraph(void *graph) {
  if (g_runtime != nullptr && graph != nullptr) g_runtime->DestroyGraph(graph);
}

void MixedLocations(const char *operation) {
  throw InternalError(std::string("operands of ") + operation +
                      " live in different places (host and GPU)");
}

void HostViewOfDeviceData() {
  throw InternalError("a host view was taken of data that lives on the "
                      "GPU; this operation has no GPU implementation");
}

}  // namespace cu_backend
}  // namespace nnet3
