// cudamatrix/cu-device.h
// Which backend computes: the process-wide choice between the CPU and one
// GPU, made once at start-up from the tool's --use-gpu option, with Kaldi's
// meanings:
//   no        compute on the CPU;
//   yes       compute on a GPU; a tool that cannot get one stops with one
//             line saying why (no CUDA in this build, no device, driver
//             error, every device busy);
//   optional  as yes, but without a usable GPU fall back to the CPU and say
//             so once (one WARNING line);
//   wait      as yes, but while every device exists and is busy (exclusive
//             compute mode held by other processes), wait and retry instead
//             of failing.
// Among several visible devices (CUDA_VISIBLE_DEVICES is honoured by the
// runtime) the one with the largest free share of its memory is chosen;
// exclusive compute mode is never required, so several jobs may share a GPU.
// When a GPU is active, device memory goes through a caching allocator
// whose figures are logged at exit under --verbose>=1.
//
// Invariants: SelectGpu() runs at most once per CuDevice; Enabled() never
// changes after it; the GPU is activated only if the build's CuMatrix
// operations actually run on it (GpuRuntime::BackendComputes()).
#ifndef NNET3_CUDAMATRIX_CU_DEVICE_H_
#define NNET3_CUDAMATRIX_CU_DEVICE_H_

#include <functional>
#include <memory>
#include <string>

#include "cudamatrix/cu-allocator.h"
#include "cudamatrix/gpu-runtime.h"

namespace nnet3 {

class CuDevice {
 public:
  // The process's device, on the system runtime.
  static CuDevice &Instantiate();

  // A device on another runtime (tests). "sleep_seconds" is called while
  // --use-gpu=wait waits; the default sleeps.
  explicit CuDevice(GpuRuntime *runtime,
                    std::function<void(int)> sleep_seconds = nullptr);
  ~CuDevice();

  // Applies --use-gpu (see above). Throws UserError for an unknown value,
  // a second call, or yes/wait without a usable GPU.
  void SelectGpu(const std::string &use_gpu);

  // True once a GPU computes for this process.
  bool Enabled() const { return active_id_ >= 0; }
  int ActiveId() const { return active_id_; }
  const GpuDeviceInfo &ActiveInfo() const { return active_info_; }

  // Why the CPU computes after SelectGpu ("" if a GPU is active or
  // --use-gpu=no was given).
  const std::string &FallbackReason() const { return fallback_reason_; }

  // The device memory allocator; only valid while Enabled().
  CachingDeviceAllocator &Allocator();

  // Under --verbose>=1 and with a GPU active, logs the allocator's peak and
  // current figures and the device's free memory (one line).
  // SelectGpuForTool arranges for this to run when the tool exits.
  void LogMemoryUsage() const;

  // The option help text shared by every tool's --use-gpu.
  static const char *OptionHelp();

 private:
  // Picks and activates a device; returns "" or the reason it could not.
  // Sets *all_busy when devices exist but every one refused.
  std::string TryActivate(bool *all_busy);

  GpuRuntime *runtime_;
  std::function<void(int)> sleep_seconds_;
  bool selected_ = false;
  int active_id_ = -1;
  GpuDeviceInfo active_info_;
  std::string fallback_reason_;
  std::unique_ptr<CachingDeviceAllocator> allocator_;
};

// What a tool calls right after reading its options: applies --use-gpu to
// the process's device and, when a GPU is active, makes it the place where
// Cu objects live from now on (cu_backend::Enable) and logs its memory
// figures at exit (under --verbose>=1).
void SelectGpuForTool(const std::string &use_gpu);

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_DEVICE_H_
