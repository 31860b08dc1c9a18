// cudamatrix/cuda/attention.h
// GPU counterparts of the attention operations of
// cudamatrix/cu-math-attention.h (same names, meanings and argument
// order, outputs first): products and sums over rows of one matrix and
// rows of another shifted by p * shift, and the statistics of the
// attention weights. The CPU functions are the oracle; results agree
// within float tolerance:
//   - ShiftedRowDots runs one warp per output element (a tree sum);
//   - AddWeightedShiftedRows and ScatterWeightedRows run one thread per
//     element of the matrix they add to, which adds its terms in the CPU's
//     order (no atomics, the same result on every run);
//   - AccumulateAttentionStats sums each column over the rows in tiles,
//     then one thread per head adds the head's sums in the CPU's order.
// Enqueued on Stream() without waiting; zero-size calls launch nothing.
#ifndef NNET3_CUDAMATRIX_CUDA_ATTENTION_H_
#define NNET3_CUDAMATRIX_CUDA_ATTENTION_H_

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

// W(i, p) = alpha * A(i, :) . B(i + p * shift, :).
template <typename Real>
void ShiftedRowDots(DevMat<Real> W, Scalar<Real> alpha, InMat<Real> A,
                    InMat<Real> B, int32 shift);

// A(i, :) += sum_p alpha * W(i, p) * B(i + p * shift, :).
template <typename Real>
void AddWeightedShiftedRows(DevMat<Real> A, Scalar<Real> alpha, InMat<Real> B,
                            InMat<Real> W, int32 shift);

// B(i + p * shift, :) += alpha * W(i, p) * A(i, :) for every (i, p).
template <typename Real>
void ScatterWeightedRows(DevMat<Real> B, Scalar<Real> alpha, InMat<Real> A,
                         InMat<Real> W, int32 shift);

// With C = weights.cols / num_heads: posterior(h, p) += sum_r
// weights(r, h C + p) and entropy[h] += sum_p sum_r -w log max(w, 1e-20)
// over the same columns. "temp" holds 2 * weights.cols elements.
template <typename Real>
void AccumulateAttentionStats(InMat<Real> weights, int32 num_heads,
                              DevVec<Real> temp, DevMat<double> posterior,
                              DevVec<double> entropy);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_ATTENTION_H_
