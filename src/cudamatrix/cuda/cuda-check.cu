// cudamatrix/cuda/cuda-check.cu
#include "cudamatrix/cuda/cuda-check.h"

#include <string>

#include "base/log.h"
#include "cudamatrix/cuda/cublas-loader.h"

namespace nnet3 {
namespace cuda {

namespace {

// Where the environment, not the code, is at fault.
bool IsEnvironmentError(cudaError_t e) {
  switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorMemoryAllocation:
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorDevicesUnavailable:
    case cudaErrorInitializationError:
      return true;
    default:
      return false;
  }
}

[[noreturn]] void Fail(bool user_error, const std::string &message,
                       const char *file, int line) {
  if (user_error) {
    ::nnet3::LogMessage(static_cast<int>(LogSeverity::kError), "CUDA", file,
                        line)
            .stream()
        << message;
  }
  LogLocation loc{"CUDA", file, line};
  throw InternalError(LogPrefix(-3, loc) + message);
}

}  // namespace

void CheckCuda(cudaError_t status, const char *call, const char *file,
               int line) {
  if (status == cudaSuccess) return;
  // Clear the sticky "last error" of a failed launch so that the next
  // check reports its own call.
  (void)cudaGetLastError();
  Fail(IsEnvironmentError(status),
       std::string(call) + " failed: " + cudaGetErrorName(status) + ": " +
           cudaGetErrorString(status),
       file, line);
}

void CheckCublas(cublasStatus_t status, const char *call, const char *file,
                 int line) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  bool env = status == CUBLAS_STATUS_NOT_INITIALIZED ||
             status == CUBLAS_STATUS_ALLOC_FAILED ||
             status == CUBLAS_STATUS_ARCH_MISMATCH;
  Fail(env,
       std::string(call) + " failed: " + Cublas().GetStatusName(status) + ": " +
           Cublas().GetStatusString(status),
       file, line);
}

}  // namespace cuda
}  // namespace nnet3
