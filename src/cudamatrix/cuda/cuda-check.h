// cudamatrix/cuda/cuda-check.h
// Turns the status codes of the CUDA runtime and of cuBLAS into nnet3
// exceptions with one line naming the failed call, where it was made and
// the library's description of the error:
//   NNET3_CUDA_CHECK(cudaMemcpyAsync(...));
//   NNET3_CUBLAS_CHECK(cublasSgemm(...));
//   NNET3_CUDA_CHECK_LAUNCH();   // after a kernel launch (no host sync)
// Errors that come from the environment (no device, no driver, out of
// memory, no kernel image for this GPU) throw UserError; any other error
// means the calling code is wrong and throws InternalError.
#ifndef NNET3_CUDAMATRIX_CUDA_CUDA_CHECK_H_
#define NNET3_CUDAMATRIX_CUDA_CUDA_CHECK_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace nnet3 {
namespace cuda {

// Both do nothing on success and throw otherwise.
void CheckCuda(cudaError_t status, const char *call, const char *file,
               int line);
void CheckCublas(cublasStatus_t status, const char *call, const char *file,
                 int line);

}  // namespace cuda
}  // namespace nnet3

#define NNET3_CUDA_CHECK(call) \
  ::nnet3::cuda::CheckCuda((call), #call, __FILE__, __LINE__)
#define NNET3_CUBLAS_CHECK(call) \
  ::nnet3::cuda::CheckCublas((call), #call, __FILE__, __LINE__)
// Reports a failed launch (bad configuration, no kernel image) at once;
// errors during the kernel's execution surface at the next synchronizing
// call.
#define NNET3_CUDA_CHECK_LAUNCH() \
  ::nnet3::cuda::CheckCuda(cudaGetLastError(), "kernel launch", __FILE__, \
                           __LINE__)

#endif  // NNET3_CUDAMATRIX_CUDA_CUDA_CHECK_H_
