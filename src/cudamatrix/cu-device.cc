// cudamatrix/cu-device.cc
#include "cudamatrix/cu-device.h"

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "base/log.h"
#include "cudamatrix/cu-backend.h"

namespace nnet3 {

namespace {

// How long --use-gpu=wait sleeps between attempts, and how often it says
// that it is still waiting.
const int kWaitSeconds = 10;
const int kWaitReportEvery = 30;  // attempts (five minutes)

std::string DescribeVisibleDevices() {
  const char *visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) return "";
  return std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")";
}

}  // namespace

CuDevice &CuDevice::Instantiate() {
  // Never destroyed: Cu objects with device memory may outlive static
  // destruction order, and the driver frees everything at exit.
  static CuDevice *device = new CuDevice(SystemGpuRuntime());
  return *device;
}

CuDevice::CuDevice(GpuRuntime *runtime,
                   std::function<void(int)> sleep_seconds)
    : runtime_(runtime), sleep_seconds_(std::move(sleep_seconds)) {
  NNET3_ASSERT(runtime != nullptr);
  if (!sleep_seconds_)
    sleep_seconds_ = [](int s) { ::sleep(static_cast<unsigned>(s)); };
}

CuDevice::~CuDevice() {}

const char *CuDevice::OptionHelp() {
  return "yes|no|optional|wait: compute on a GPU (yes: fail without one; "
         "optional: fall back to the CPU; wait: wait while every GPU is "
         "busy) or on the CPU (no)";
}

std::string CuDevice::TryActivate(bool *all_busy) {
  *all_busy = false;
  if (!runtime_->Compiled())
    return "this build has no CUDA support (it was configured without "
           "nvcc or with -DNNET3_CUDA=OFF)";
  std::string why;
  const int count = runtime_->DeviceCount(&why);
  if (count <= 0)
    return "no CUDA GPU found" + DescribeVisibleDevices() +
           (why.empty() ? "" : ": " + why);
  if (!runtime_->BackendComputes())
    return "the GPU runtime of this build cannot run the CuMatrix "
           "operations";
  // The largest free share of memory wins; ties go to the lower id.
  int best = -1;
  double best_share = -1.0;
  GpuDeviceInfo best_info;
  std::vector<std::string> refusals;
  for (int id = 0; id < count; id++) {
    GpuDeviceInfo info;
    std::string reason;
    if (!runtime_->Probe(id, &info, &reason)) {
      refusals.push_back("GPU " + std::to_string(id) + ": " + reason);
      continue;
    }
    NNET3_VLOG(1) << "GPU " << id << ": " << info.name << ", "
                  << FormatBytes(info.free_bytes) << " free of "
                  << FormatBytes(info.total_bytes);
    const double share =
        info.total_bytes == 0
            ? 0.0
            : static_cast<double>(info.free_bytes) / info.total_bytes;
    if (share > best_share) {
      best = id;
      best_share = share;
      best_info = info;
    }
  }
  if (best >= 0) {
    std::string reason;
    if (runtime_->Activate(best, &reason)) {
      active_id_ = best;
      active_info_ = best_info;
      return "";
    }
    refusals.push_back("GPU " + std::to_string(best) + ": " + reason);
  }
  *all_busy = true;
  std::ostringstream os;
  os << "no usable GPU among " << count << DescribeVisibleDevices();
  for (size_t i = 0; i < refusals.size(); i++)
    os << (i == 0 ? ": " : "; ") << refusals[i];
  return os.str();
}

void CuDevice::SelectGpu(const std::string &use_gpu) {
  if (use_gpu != "yes" && use_gpu != "no" && use_gpu != "optional" &&
      use_gpu != "wait")
    NNET3_ERR << "Invalid value --use-gpu=" << use_gpu
              << " (expected yes, no, optional or wait)";
  if (selected_)
    NNET3_ERR << "The compute device was already chosen; --use-gpu="
              << use_gpu << " cannot change it";
  selected_ = true;
  if (use_gpu == "no") return;
  bool all_busy = false;
  std::string why = TryActivate(&all_busy);
  for (int attempt = 1; !why.empty() && all_busy && use_gpu == "wait";
       attempt++) {
    if (attempt % kWaitReportEvery == 1)
      NNET3_LOG << "Waiting for a GPU (" << why << ")";
    sleep_seconds_(kWaitSeconds);
    why = TryActivate(&all_busy);
  }
  if (why.empty()) {
    allocator_.reset(new CachingDeviceAllocator(runtime_));
    NNET3_LOG << "Computing on GPU " << active_id_
              << DescribeVisibleDevices() << ": " << active_info_.name
              << " (compute capability " << active_info_.major << "."
              << active_info_.minor << "), "
              << FormatBytes(active_info_.free_bytes) << " free of "
              << FormatBytes(active_info_.total_bytes);
    return;
  }
  if (use_gpu == "optional") {
    fallback_reason_ = why;
    NNET3_WARN << "--use-gpu=optional: computing on the CPU because " << why;
    return;
  }
  NNET3_ERR << "--use-gpu=" << use_gpu << " but " << why
            << "; pass --use-gpu=no to compute on the CPU";
}

CachingDeviceAllocator &CuDevice::Allocator() {
  NNET3_ASSERT(Enabled() && allocator_ != nullptr);
  return *allocator_;
}

void CuDevice::LogMemoryUsage() const {
  if (!Enabled() || GetVerboseLevel() < 1) return;
  size_t free_bytes = 0, total_bytes = 0;
  std::ostringstream os;
  os << "GPU memory: " << allocator_->Summary();
  if (runtime_->MemoryInfo(&free_bytes, &total_bytes))
    os << "; device has " << FormatBytes(free_bytes) << " free of "
       << FormatBytes(total_bytes);
  NNET3_LOG << os.str();
}

void SelectGpuForTool(const std::string &use_gpu) {
  CuDevice &device = CuDevice::Instantiate();
  device.SelectGpu(use_gpu);
  if (device.Enabled()) {
    cu_backend::Enable(SystemGpuRuntime(), &device.Allocator());
    std::atexit([] { CuDevice::Instantiate().LogMemoryUsage(); });
  }
}

}  // namespace nnet3
