// cudamatrix/cuda/compressed.h
// Kernels of memory compression (see ../cu-compressed-matrix.h for the
// format): a matrix to integers of compression type 1..4 (int8, uint8,
// int16, uint16) stored row after row, and back. The rounding, saturation,
// sign-only and NaN rules are those of the host code, so both give the
// same integers.
#ifndef NNET3_CUDAMATRIX_CUDA_COMPRESSED_H_
#define NNET3_CUDAMATRIX_CUDA_COMPRESSED_H_

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

template <typename Real>
void CompressMatrix(int32 type, InMat<Real> src, Scalar<Real> range,
                    bool truncate, void *dst);
template <typename Real>
void DecompressMatrix(int32 type, const void *src, Scalar<Real> range,
                      DevMat<Real> dst);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_COMPRESSED_H_
