// cudamatrix/cuda/probe.cu
// Proves the CUDA toolchain: one kernel and a host function that reports the
// number of devices. The real CUDA backend of cudamatrix grows from here.
#include <cuda_runtime.h>

namespace nnet3 {
namespace cuda {

__global__ void ScaleKernel(float *data, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= alpha;
}

// Returns the number of CUDA devices, or 0 when no driver/device is present.
int DeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) return 0;
  return n;
}

// Scales n floats of host memory on the device; returns false on any CUDA
// error (no device, out of memory).
bool ScaleOnDevice(float *host, int n, float alpha) {
  float *dev = nullptr;
  if (cudaMalloc(&dev, sizeof(float) * n) != cudaSuccess) return false;
  bool ok = cudaMemcpy(dev, host, sizeof(float) * n,
                       cudaMemcpyHostToDevice) == cudaSuccess;
  if (ok) {
    ScaleKernel<<<(n + 255) / 256, 256>>>(dev, n, alpha);
    ok = cudaGetLastError() == cudaSuccess &&
         cudaMemcpy(host, dev, sizeof(float) * n, cudaMemcpyDeviceToHost) ==
             cudaSuccess;
  }
  cudaFree(dev);
  return ok;
}

}  // namespace cuda
}  // namespace nnet3
