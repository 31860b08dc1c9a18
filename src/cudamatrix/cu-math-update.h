// cudamatrix/cu-math-update.h
// Operations of the training path that shape derivatives and parameters,
// on Cu matrices, as free functions in namespace nnet3::cu:
//   TruncationRowScales: BackpropTruncationComponent's per-row clipping and
//     zeroing decisions (nnet3/components/backprop-truncation.cc);
//   FloorMagnitude: ScaleAndOffsetComponent's floor on the magnitude of its
//     scales before it divides by them (per-element.cc);
//   OrthonormalizeRows: the natural gradient's fallback when re-orthogonal-
//     izing its basis by Cholesky fails (natural-gradient-online.cc).
// The CPU implementations are the components' former loops, moved
// unchanged (same operations, same order, same precision). On device
// operands each calls its DeviceOps entry (cuda/update.h), which agrees
// with the CPU to rounding; only the counts of TruncationRowScales and the
// success of OrthonormalizeRows are read back to the host.
#ifndef NNET3_CUDAMATRIX_CU_MATH_UPDATE_H_
#define NNET3_CUDAMATRIX_CU_MATH_UPDATE_H_

#include "cudamatrix/cu-matrix.h"
#include "cudamatrix/cu-vector.h"

namespace nnet3 {
namespace cu {

// Per row r of deriv, with s its sum of squares (in Real): scales(r) = 1;
// where inv_clip_sq * s is not below 1 the row is clipped, scales(r) =
// (inv_clip_sq * s)^-0.5; where s > zero_sq and zeroing (if given, dim
// deriv.NumRows()) is nonzero at r the row is zeroed, scales(r) = 0.
// When num_clipped is given, it and *num_zeroed are set to the number of
// clipped and zeroed rows (a read-back on a GPU; nothing is read back
// without them).
template <typename Real>
void TruncationRowScales(const CuMatrixBase<Real> &deriv,
                         const CuVectorBase<Real> *zeroing, Real inv_clip_sq,
                         Real zero_sq, CuVectorBase<Real> *scales,
                         int32 *num_clipped, Real *num_zeroed);

// Where |v(i)| < floor: v(i) = floor if v(i) >= 0, else -floor.
template <typename Real>
void FloorMagnitude(Real floor, CuVectorBase<Real> *v);

// Orthonormalizes the rows of m (rows <= cols) in place: Gram-Schmidt in
// double, each projection done twice; a row left with norm 1e-10 or less
// is replaced by Gaussian random numbers (the process's random source)
// and tried again, up to 100 times. On a GPU the rows are computed there;
// only when a row vanishes is the whole matrix redone on the host, so the
// random draws are the CPU's.
template <typename Real>
void OrthonormalizeRows(CuMatrixBase<Real> *m);

}  // namespace cu
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_MATH_UPDATE_H_
