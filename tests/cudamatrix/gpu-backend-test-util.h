// tests/cudamatrix/gpu-backend-test-util.h
// For tests that compare the GPU backend of the Cu types with the CPU one:
// GpuBackendUnavailable() activates a GPU for the process once (as
// --use-gpu=optional would) and returns "" when one computes, else why not
// (the reason a test skips with). After it, new Cu objects live on the host
// again: each test chooses its place with cu_backend::Scope.
#ifndef NNET3_TESTS_CUDAMATRIX_GPU_BACKEND_TEST_UTIL_H_
#define NNET3_TESTS_CUDAMATRIX_GPU_BACKEND_TEST_UTIL_H_

#include <exception>
#include <string>

#include "cudamatrix/cu-backend.h"
#include "cudamatrix/cu-device.h"

namespace nnet3 {
namespace test {

inline const std::string &GpuBackendUnavailable() {
  static const std::string reason = [] {
    try {
      SelectGpuForTool("optional");
    } catch (const std::exception &e) {
      return std::string(e.what());
    }
    if (!CuDevice::Instantiate().Enabled())
      return "no usable GPU: " + CuDevice::Instantiate().FallbackReason();
    cu_backend::SetOnDevice(false);
    return std::string();
  }();
  return reason;
}

}  // namespace test
}  // namespace nnet3

#endif  // NNET3_TESTS_CUDAMATRIX_GPU_BACKEND_TEST_UTIL_H_
