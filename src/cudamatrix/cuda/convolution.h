// cudamatrix/cuda/convolution.h
// GPU counterparts of the convolution operations of
// cudamatrix/cu-math-convolution.h (same names, meanings and argument
// order, outputs first): sums of a matrix over a tiling by a smaller one,
// the tiled addition that undoes it, and max-pooling's routing. The CPU
// functions are the oracle:
//   - AddTiledBlockSums runs a 32 x 32 block per 32 columns of one row of
//     "sums"; each thread sums a share of the matching elements and the
//     32 shares are added in order (a different order from the CPU's, so
//     the sums agree to rounding);
//   - AddTiled and SelectWhereEqual are elementwise and exact.
// Enqueued on Stream() without waiting; zero-size calls launch nothing.
#ifndef NNET3_CUDAMATRIX_CUDA_CONVOLUTION_H_
#define NNET3_CUDAMATRIX_CUDA_CONVOLUTION_H_

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

// sums(i, f) += the sum of m(r, c) over r % sums.rows == i and
// c % sums.cols == f.
template <typename Real>
void AddTiledBlockSums(DevMat<Real> sums, InMat<Real> m);

// m(r, c) += tile(r % tile.rows, c % tile.cols).
template <typename Real>
void AddTiled(DevMat<Real> m, InMat<Real> tile);

// data(r, c) = (data(r, c) == ref(r, c) ? src(r, c) : 0).
template <typename Real>
void SelectWhereEqual(DevMat<Real> data, InMat<Real> ref, InMat<Real> src);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_CONVOLUTION_H_
