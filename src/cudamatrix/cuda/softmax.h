// cudamatrix/cuda/softmax.h
// Row-wise softmax and log-softmax on the GPU, the device counterparts of
// MatrixBase::SoftMaxPerRow and LogSoftMaxPerRow (matrix/matrix.h): each
// row of dst becomes the (log-)softmax of the same row of src; dst may be
// src. One block per row, numerically stable as on the CPU: the row's
// maximum (NaN ignored) is subtracted before exp, the sum of the
// exponentials is accumulated in Real, softmax multiplies by 1 / sum and
// log-softmax subtracts log(sum). Enqueued on Stream() without waiting.
#ifndef NNET3_CUDAMATRIX_CUDA_SOFTMAX_H_
#define NNET3_CUDAMATRIX_CUDA_SOFTMAX_H_

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

template <typename Real> void SoftMaxPerRow(DevMat<Real> dst, InMat<Real> src);
template <typename Real>
void LogSoftMaxPerRow(DevMat<Real> dst, InMat<Real> src);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_SOFTMAX_H_
