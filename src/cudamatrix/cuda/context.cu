// cudamatrix/cuda/context.cu
#include "cudamatrix/cuda/context.h"

#include <atomic>
#include <mutex>

#include "cudamatrix/cuda/cublas-loader.h"
#include "cudamatrix/cuda/cuda-check.h"

namespace nnet3 {
namespace cuda {

namespace {

struct Context {
  std::mutex mutex;
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  bool tf32 = false;
};

// Never destroyed: the CUDA runtime may already be shut down when static
// destructors run, and the driver frees everything at process exit.
Context &TheContext() {
  static Context *context = new Context;
  return *context;
}

// Creates the stream and the handle if needed; call with the mutex held.
void InitLocked(Context *ctx) {
  if (ctx->stream != nullptr) return;
  cudaStream_t stream = nullptr;
  NNET3_CUDA_CHECK(cudaStreamCreate(&stream));
  cublasHandle_t blas = nullptr;
  cublasStatus_t status = Cublas().Create(&blas);
  if (status != CUBLAS_STATUS_SUCCESS) {
    cudaStreamDestroy(stream);
    NNET3_CUBLAS_CHECK(status);
  }
  NNET3_CUBLAS_CHECK(Cublas().SetStream(blas, stream));
  NNET3_CUBLAS_CHECK(Cublas().SetMathMode(
      blas, ctx->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
  ctx->stream = stream;
  ctx->blas = blas;
}

}  // namespace

int DeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

cudaStream_t Stream() {
  Context &ctx = TheContext();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  InitLocked(&ctx);
  return ctx.stream;
}

cublasHandle_t BlasHandle() {
  Context &ctx = TheContext();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  InitLocked(&ctx);
  return ctx.blas;
}

void SetTf32(bool enable) {
  Context &ctx = TheContext();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  ctx.tf32 = enable;
  if (ctx.blas != nullptr)
    NNET3_CUBLAS_CHECK(Cublas().SetMathMode(
        ctx.blas, enable ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
}

bool Tf32Enabled() {
  Context &ctx = TheContext();
  std::lock_guard<std::mutex> lock(ctx.mutex);
  return ctx.tf32;
}

namespace {
std::atomic<long long> g_host_waits{0};
}  // namespace

void CountHostWait() { g_host_waits.fetch_add(1, std::memory_order_relaxed); }
long long HostWaitCount() { return g_host_waits.load(std::memory_order_relaxed); }

void Synchronize() {
  CountHostWait();
  NNET3_CUDA_CHECK(cudaStreamSynchronize(Stream()));
}

void *AllocTemp(size_t bytes) {
  void *ptr = nullptr;
  if (bytes == 0) return nullptr;
  NNET3_CUDA_CHECK(cudaMallocAsync(&ptr, bytes, Stream()));
  return ptr;
}

void FreeTemp(void *ptr) {
  if (ptr != nullptr) NNET3_CUDA_CHECK(cudaFreeAsync(ptr, Stream()));
}

}  // namespace cuda
}  // namespace nnet3
