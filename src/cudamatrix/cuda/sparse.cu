// cudamatrix/cuda/sparse.cu
// Sparse-triplet kernels; see sparse.h.
#include "cudamatrix/cuda/sparse.h"

#include "cudamatrix/cuda/context.h"
#include "cudamatrix/cuda/kernel-util.cuh"
#include "cudamatrix/cuda/reductions.h"

namespace nnet3 {
namespace cuda {

using internal::ForEachIndex;

template <typename Real>
void AddSparseToMat(DevMat<Real> dst, Scalar<Real> alpha, const int32 *rows,
                    const int32 *cols, const Real *values, int32 nnz,
                    MatrixTransposeType trans) {
  const bool transpose = (trans == kTrans);
  ForEachIndex(nnz, [=] __device__(int32 i) {
    Real *p = transpose ? &dst(cols[i], rows[i]) : &dst(rows[i], cols[i]);
    atomicAdd(p, alpha * values[i]);
  });
}

template <typename Real>
Real TraceMatSparse(InMat<Real> a, const int32 *rows, const int32 *cols,
                    const Real *values, int32 nnz, MatrixTransposeType trans) {
  if (nnz == 0) return Real(0);
  Real *products = static_cast<Real *>(AllocTemp(sizeof(Real) * nnz));
  const bool transpose = (trans == kTrans);
  ForEachIndex(nnz, [=] __device__(int32 i) {
    products[i] = values[i] * (transpose ? a(rows[i], cols[i])
                                         : a(cols[i], rows[i]));
  });
  Real sum = VecSum<Real>(DevVec<const Real>(products, nnz));
  FreeTemp(products);
  return sum;
}

template void AddSparseToMat<float>(DevMat<float>, float, const int32 *,
                                    const int32 *, const float *, int32,
                                    MatrixTransposeType);
template void AddSparseToMat<double>(DevMat<double>, double, const int32 *,
                                     const int32 *, const double *, int32,
                                     MatrixTransposeType);
template float TraceMatSparse<float>(InMat<float>, const int32 *,
                                     const int32 *, const float *, int32,
                                     MatrixTransposeType);
template double TraceMatSparse<double>(InMat<double>, const int32 *,
                                       const int32 *, const double *, int32,
                                       MatrixTransposeType);

}  // namespace cuda
}  // namespace nnet3
