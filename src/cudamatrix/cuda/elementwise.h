// cudamatrix/cuda/elementwise.h
// Elementwise functions and arithmetic on the GPU: the device counterparts
// of the MatrixBase methods of the same names (matrix/matrix.h), argument
// order and results as on the CPU, the CPU's "this" first. Work is enqueued
// on Stream() without waiting; dimensions are checked on the host.
// Sources may be the destination itself (in place) where the CPU allows it:
// Sigmoid, Tanh, DiffSigmoid, DiffTanh, the binary ops and AddMatMatElements
// read and write each element in one thread; AddMat(kTrans) of a square
// matrix onto itself is handled pairwise as on the CPU. Partial overlaps
// are not supported.
// One difference: the CPU's ApplyLog and ApplyPow throw on a negative input
// (log, pow(0.5)) or a NaN result; here such elements become NaN, because
// a check would need a host synchronisation per call.
// NaN follows the CPU's expressions: Max(A) is "x < a ? a : x" (a NaN in
// *this stays, a NaN in A is ignored), Min is "a < x ? a : x"; with
// beta == 0 AddMatMatElements ignores the old contents (NaN included).
#ifndef NNET3_CUDAMATRIX_CUDA_ELEMENTWISE_H_
#define NNET3_CUDAMATRIX_CUDA_ELEMENTWISE_H_

#include "cudamatrix/cuda/device-view.h"
#include "matrix/common.h"

namespace nnet3 {
namespace cuda {

template <typename Real> void ApplyFloor(DevMat<Real> m, Scalar<Real> floor_val);
template <typename Real> void ApplyCeiling(DevMat<Real> m, Scalar<Real> ceil_val);
template <typename Real> void ApplyExp(DevMat<Real> m);
template <typename Real> void ApplyLog(DevMat<Real> m);
template <typename Real> void ApplyAbs(DevMat<Real> m);
template <typename Real> void ApplyPow(DevMat<Real> m, Scalar<Real> power);
template <typename Real>
void ApplyPowAbs(DevMat<Real> m, Scalar<Real> power, bool include_sign = false);
template <typename Real> void ApplyHeaviside(DevMat<Real> m);  // x > 0 ? 1 : 0
template <typename Real> void InvertElements(DevMat<Real> m);  // 1 / x

// dst = sigmoid(src), tanh(src).
template <typename Real> void Sigmoid(DevMat<Real> dst, InMat<Real> src);
template <typename Real> void Tanh(DevMat<Real> dst, InMat<Real> src);
// dst = diff .* value .* (1 - value).
template <typename Real>
void DiffSigmoid(DevMat<Real> dst, InMat<Real> value, InMat<Real> diff);
// dst = diff .* (1 - value .^ 2).
template <typename Real>
void DiffTanh(DevMat<Real> dst, InMat<Real> value, InMat<Real> diff);

// dst (op)= A elementwise.
template <typename Real> void MulElements(DevMat<Real> dst, InMat<Real> A);
template <typename Real> void DivElements(DevMat<Real> dst, InMat<Real> A);
template <typename Real> void Max(DevMat<Real> dst, InMat<Real> A);
template <typename Real> void Min(DevMat<Real> dst, InMat<Real> A);

// dst += alpha * op(A).
template <typename Real>
void AddMat(DevMat<Real> dst, Scalar<Real> alpha, InMat<Real> A,
            MatrixTransposeType trans = kNoTrans);
// dst = beta * dst + alpha * A .* B.
template <typename Real>
void AddMatMatElements(DevMat<Real> dst, Scalar<Real> alpha, InMat<Real> A,
                       InMat<Real> B, Scalar<Real> beta);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_ELEMENTWISE_H_
