// cudamatrix/cuda/update.h
// GPU counterparts of the operations of cudamatrix/cu-math-update.h (same
// names, meanings and argument order, outputs first): backprop
// truncation's per-row scales, the sign-keeping floor on magnitudes, and
// the natural gradient's fallback orthonormalization of its basis. The CPU
// functions are the oracle; results agree within float tolerance:
//   - TruncationRowScales runs one block per row (the row's sum of squares
//     is a tree sum, the decisions are the CPU's formulas);
//   - FloorMagnitude is elementwise and exact;
//   - OrthonormalizeRows is Gram-Schmidt in double with each projection
//     done twice, the CPU's algorithm, run by one block over the rows in
//     order (the dot products are tree sums).
// Enqueued on Stream() without waiting, except OrthonormalizeRows, which
// reads back whether it succeeded.
#ifndef NNET3_CUDAMATRIX_CUDA_UPDATE_H_
#define NNET3_CUDAMATRIX_CUDA_UPDATE_H_

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

// Per row r of deriv, with s = |deriv(r, :)|^2: scales[r] = 1, or
// (inv_clip_sq * s)^-0.5 where inv_clip_sq * s >= 1 (clipped), or 0 where
// s > zero_sq and zeroing[r] != 0 (zeroed; zeroing.dim == 0: never). When
// flags.data is not nullptr (flags: 2 x rows), flags(0, r) = 1 if row r
// was clipped, else 0, and flags(1, r) likewise for zeroed.
template <typename Real>
void TruncationRowScales(DevVec<Real> scales, DevMat<Real> flags,
                         InMat<Real> deriv, InVec<Real> zeroing,
                         Scalar<Real> inv_clip_sq, Scalar<Real> zero_sq);

// v[i] = floor (or -floor where v[i] < 0) where |v[i]| < floor.
template <typename Real>
void FloorMagnitude(DevVec<Real> v, Scalar<Real> floor);

// Orthonormalizes the rows of m in place, in double ("work": rows * cols
// doubles of device memory). Returns false, with m unchanged, when a row
// vanished (its norm after the projections was not above 1e-10), which
// the CPU answers with a random row.
template <typename Real>
bool OrthonormalizeRows(DevMat<Real> m, double *work);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_UPDATE_H_
