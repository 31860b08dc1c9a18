// cudamatrix/cu-math-convolution.h
// Operations of the convolution components (nnet3/components/
// convolution-compute.cc, convolution-3d.cc) on Cu matrices, as free
// functions in namespace nnet3::cu:
//   AddTiledBlockSums, AddTiled: a matrix seen as tiled by copies of a
//     smaller one (row r, column c at r % rows, c % cols of the tile);
//     the first sums a matrix onto its tile, the second adds the tile back
//     everywhere. Time-height convolution's image-average term uses them
//     (per-image sums over frames and heights, and their broadcast);
//   SelectWhereEqual: max-pooling's routing of the derivative to the
//     inputs that were the maximum.
// The CPU implementations are the components' former loops, moved
// unchanged (same operations, same order). On device operands each calls
// its DeviceOps entry (cuda/convolution.h): the sums agree with the CPU to
// rounding, the others exactly.
#ifndef NNET3_CUDAMATRIX_CU_MATH_CONVOLUTION_H_
#define NNET3_CUDAMATRIX_CU_MATH_CONVOLUTION_H_

#include "cudamatrix/cu-matrix.h"

namespace nnet3 {
namespace cu {

// sums(i, f) += sum of m(r, c) over the r with r % sums.NumRows() == i and
// the c with c % sums.NumCols() == f (sums non-empty unless m is empty).
template <typename Real>
void AddTiledBlockSums(const CuMatrixBase<Real> &m, CuMatrixBase<Real> *sums);

// m(r, c) += tile(r % tile.NumRows(), c % tile.NumCols()).
template <typename Real>
void AddTiled(const CuMatrixBase<Real> &tile, CuMatrixBase<Real> *m);

// data(r, c) = (data(r, c) == ref(r, c) ? src(r, c) : 0), all the same size.
template <typename Real>
void SelectWhereEqual(const CuMatrixBase<Real> &ref,
                      const CuMatrixBase<Real> &src, CuMatrixBase<Real> *data);

}  // namespace cu
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_MATH_CONVOLUTION_H_
