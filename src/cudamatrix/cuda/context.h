// cudamatrix/cuda/context.h
// The per-process CUDA state of the kernel library: one stream and one
// cuBLAS handle bound to it, created on first use on the device that is
// current then (cudaSetDevice before the first call picks the GPU).
// Every function of the library enqueues its work on Stream() and returns
// without waiting, except those that hand a value back to the host (the
// reductions returning a scalar), which wait for that value. The stream is
// an ordinary (blocking) stream, so legacy default-stream calls such as
// cudaMemcpy also order correctly with it.
// GEMMs use plain FP32/FP64 arithmetic unless SetTf32(true) allows cuBLAS
// to use TF32 tensor cores for float.
#ifndef NNET3_CUDAMATRIX_CUDA_CONTEXT_H_
#define NNET3_CUDAMATRIX_CUDA_CONTEXT_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace nnet3 {
namespace cuda {

// Number of usable CUDA devices; 0 when there is no driver or no GPU
// (never throws).
int DeviceCount();

// The library's stream and cuBLAS handle (created on the first call;
// thread-safe).
cudaStream_t Stream();
cublasHandle_t BlasHandle();

// TF32 tensor-core math for float GEMMs: off by default.
void SetTf32(bool enable);
bool Tf32Enabled();

// Waits for all work enqueued on Stream(); throws on an asynchronous error.
void Synchronize();

// Counts the host's waits for the device and copies through host memory
// (Synchronize() counts itself; the runtime's copies call CountHostWait()).
void CountHostWait();
long long HostWaitCount();

// Stream-ordered device memory for temporaries of the library (reduction
// partial sums and the like); freed in stream order.
void *AllocTemp(size_t bytes);
void FreeTemp(void *ptr);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_CONTEXT_H_
