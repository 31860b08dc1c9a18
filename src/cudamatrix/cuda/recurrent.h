// cudamatrix/cuda/recurrent.h
// The LSTM cell on the GPU: the device counterparts of
// cu::ComputeLstmNonlinearity and cu::BackpropLstmNonlinearity
// (cudamatrix/cu-math-recurrent.h), same layout, meaning and argument
// order, over device views. The arithmetic is the CPU's, formula for
// formula, but the device math library and contracted multiply-adds make
// results differ from the CPU in the last bits.
// Work split: the forward pass and the input derivative use one thread
// per (row, cell); the statistics (parameter gradient, value/derivative
// sums, self-repair counts) use one thread per cell that runs over the
// rows in order, so each sum is formed in the CPU's order and no atomics
// are needed; that thread reads deriv_sum_in before it adds to
// deriv_sum_out, so the two may be the same matrix.
// The statistics views are all empty (data nullptr) or all given; an
// input_deriv with data nullptr and rows > 0 means "not wanted".
// Enqueued on Stream() without waiting.
#ifndef NNET3_CUDAMATRIX_CUDA_RECURRENT_H_
#define NNET3_CUDAMATRIX_CUDA_RECURRENT_H_

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

template <typename Real>
void ComputeLstmNonlinearity(InMat<Real> input, InMat<Real> params,
                             DevMat<Real> output);

template <typename Real>
void BackpropLstmNonlinearity(InMat<Real> input, InMat<Real> params,
                              InMat<Real> output_deriv,
                              DevMat<const double> deriv_sum_in,
                              InVec<Real> self_repair_config, double count_in,
                              DevMat<Real> input_deriv,
                              DevMat<Real> params_deriv,
                              DevMat<double> value_sum_out,
                              DevMat<double> deriv_sum_out,
                              DevMat<Real> self_repair_sum_out);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_RECURRENT_H_
