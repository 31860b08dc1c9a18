// cudamatrix/cu-math-low-rank.h
// The update of the online natural-gradient preconditioner with its rank-R
// basis W (R x D, R much smaller than D), fused with the sum of squares
// the preconditioner needs of the result:
//   SubtractProjection:  X -= H W   and  tr(X X^T) of the new X.
// As a GEMM this is a rank-R update (inner dimension R = 20 to 80), which
// a general BLAS runs well below its speed on square products, and the
// trace is one more pass over X. The host kernel keeps a block of X in
// registers while all R terms are taken off it and squares the result
// before storing it, so X is read and written once.
//
// SumOfSquares: the preconditioner's trace of an input given as column
// blocks, with one read-back on a GPU.
//
// Each also has a form that leaves its result in a one-element Cu vector,
// which on a GPU stays on the device (no wait).
//
// Invariants:
//  - the result equals X.AddMatMat(-1, H, kNoTrans, W, kNoTrans, 1) and
//    then TraceMatMat(X, X, kTrans) up to float rounding (the order of the
//    operations differs, so not the same bits); the Kaldi conformance
//    tolerances cover it;
//  - the same inputs give the same bits for any number of threads: rows
//    are independent, and the per-row sums of squares are added in row
//    order on the calling thread;
//  - device operands, double precision and CPUs without AVX-512 run that
//    AddMatMat and TraceMatMat themselves (the previous code path);
//  - no operand may overlap another.
#ifndef NNET3_CUDAMATRIX_CU_MATH_LOW_RANK_H_
#define NNET3_CUDAMATRIX_CU_MATH_LOW_RANK_H_

#include <vector>

#include "cudamatrix/cu-matrix.h"
#include "cudamatrix/cu-vector.h"

namespace nnet3 {
namespace cu {

// X = X - H W (X: N x D, H: N x R, W: R x D); returns tr(X X^T) of the
// updated X (the sum over rows of each row's dot product with itself).
template <typename Real>
Real SubtractProjection(const CuMatrixBase<Real> &H,
                        const CuMatrixBase<Real> &W, CuMatrixBase<Real> *X);

// The sum of squares of the elements of the column blocks [B_0 B_1 ...]
// (equal row counts; they may overlap in memory), i.e. the sum of
// TraceMatMat(B_k, B_k, kTrans). On the CPU it is exactly that sum, in
// block order; on a GPU the rows' sums of squares are accumulated on the
// device and read back once, whatever the number of blocks.
template <typename Real>
Real SumOfSquares(const std::vector<CuSubMatrix<Real> > &blocks);

// The same three results written to a vector of dimension 1 instead of
// returned. On the CPU the value is the one returned above; on a GPU it is
// summed on the device and nothing waits, so that a caller that needs
// several such values reads them back together, with one wait.
template <typename Real>
void SubtractProjection(const CuMatrixBase<Real> &H,
                        const CuMatrixBase<Real> &W, CuMatrixBase<Real> *X,
                        CuVectorBase<Real> *trace);
template <typename Real>
void SumOfSquares(const std::vector<CuSubMatrix<Real> > &blocks,
                  CuVectorBase<Real> *trace);
// tr(M M^T) (TraceMatMat(M, M, kTrans) on the CPU).
template <typename Real>
void SumOfSquares(const CuMatrixBase<Real> &M, CuVectorBase<Real> *trace);
// tr(M M^T) + v . v (TraceMatMat(M, M, kTrans) + VecVec(v, v) on the CPU):
// the squared norm of an affine layer's parameters, for the trainer's
// max-change, which reads every layer's back at once.
template <typename Real>
void SumOfSquares(const CuMatrixBase<Real> &M, const CuVectorBase<Real> &v,
                  CuVectorBase<Real> *trace);

// Whether the host kernel is in use on this CPU (AVX-512 with FMA); when
// false SubtractProjection takes the BLAS path. For tests and benchmarks.
bool LowRankKernelsAvailable();

}  // namespace cu
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_MATH_LOW_RANK_H_
