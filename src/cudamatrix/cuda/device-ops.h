// cudamatrix/cuda/device-ops.h
// The kernel-backed DeviceOps of a CUDA build (see ../device-ops.h); the
// CUDA GpuRuntime hands these out. Both live for the whole process.
#ifndef NNET3_CUDAMATRIX_CUDA_DEVICE_OPS_H_
#define NNET3_CUDAMATRIX_CUDA_DEVICE_OPS_H_

#include "cudamatrix/device-ops.h"

namespace nnet3 {
namespace cuda {

DeviceOps<float> *KernelOpsFloat();
DeviceOps<double> *KernelOpsDouble();

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_DEVICE_OPS_H_
