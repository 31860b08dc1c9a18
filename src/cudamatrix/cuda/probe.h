// cudamatrix/cuda/probe.h
// Host interface of probe.cu, the smallest CUDA code that proves the
// toolchain builds and links; used by tests/cudamatrix/cuda-probe-test.cc.
// Only compiled when CMake found nvcc (NNET3_HAVE_CUDA).
#ifndef NNET3_CUDAMATRIX_CUDA_PROBE_H_
#define NNET3_CUDAMATRIX_CUDA_PROBE_H_

namespace nnet3 {
namespace cuda {
int DeviceCount();
bool ScaleOnDevice(float *host, int n, float alpha);
}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_PROBE_H_
