// cudamatrix/cuda/reductions.h
// Reductions on the GPU: the device counterparts of MatrixBase::Sum, Max,
// Min, FrobeniusNorm and of VectorBase::Sum, Max, Min (with and without
// index), Norm, AddRowSumMat and AddColSumMat (matrix/matrix.h, vector.h).
// The functions returning a scalar wait for it (the one host
// synchronisation of this library); AddRowSumMat/AddColSumMat do not wait.
// Precision as on the CPU: matrix Sum, FrobeniusNorm and Norm accumulate in
// double; vector Sum, AddRowSumMat and AddColSumMat in Real. The order of
// the additions differs (a tree instead of a loop), so float results agree
// with the CPU to rounding, not bit for bit.
// NaN as on the CPU: Max/Min ignore NaN elements unless the first element
// (the CPU loop's starting value) of a matrix, or of a vector in the
// indexed forms, is NaN, which is then the result. The vector forms
// without index start at -inf/+inf (so an empty vector gives that); the
// matrix forms and the indexed ones need at least one element.
// Functions taking only inputs accept DevMat<float> as well as
// DevMat<const float> (and the same for double and for DevVec).
#ifndef NNET3_CUDAMATRIX_CUDA_REDUCTIONS_H_
#define NNET3_CUDAMATRIX_CUDA_REDUCTIONS_H_

#include <type_traits>

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

// Implementations, for const Real = const float or const double.
template <typename Real> Real MatSum(DevMat<const Real> m);
template <typename Real> Real MatMax(DevMat<const Real> m);
template <typename Real> Real MatMin(DevMat<const Real> m);
template <typename Real> Real MatFrobeniusNorm(DevMat<const Real> m);
template <typename Real> Real VecSum(DevVec<const Real> v);
template <typename Real> Real VecMax(DevVec<const Real> v);
template <typename Real> Real VecMax(DevVec<const Real> v, int32 *index);
template <typename Real> Real VecMin(DevVec<const Real> v);
template <typename Real> Real VecMin(DevVec<const Real> v, int32 *index);
template <typename Real> Real VecNorm(DevVec<const Real> v, Real p);

template <typename R> std::remove_const_t<R> Sum(DevMat<R> m) {
  return MatSum<std::remove_const_t<R>>(m);
}
template <typename R> std::remove_const_t<R> Max(DevMat<R> m) {
  return MatMax<std::remove_const_t<R>>(m);
}
template <typename R> std::remove_const_t<R> Min(DevMat<R> m) {
  return MatMin<std::remove_const_t<R>>(m);
}
template <typename R> std::remove_const_t<R> FrobeniusNorm(DevMat<R> m) {
  return MatFrobeniusNorm<std::remove_const_t<R>>(m);
}
template <typename R> std::remove_const_t<R> Sum(DevVec<R> v) {
  return VecSum<std::remove_const_t<R>>(v);
}
template <typename R> std::remove_const_t<R> Max(DevVec<R> v) {
  return VecMax<std::remove_const_t<R>>(v);
}
// Also the (first) index of the maximum.
template <typename R> std::remove_const_t<R> Max(DevVec<R> v, int32 *index) {
  return VecMax<std::remove_const_t<R>>(v, index);
}
template <typename R> std::remove_const_t<R> Min(DevVec<R> v) {
  return VecMin<std::remove_const_t<R>>(v);
}
template <typename R> std::remove_const_t<R> Min(DevVec<R> v, int32 *index) {
  return VecMin<std::remove_const_t<R>>(v, index);
}
// p-norm, p >= 0 (0: number of nonzeros; inf: max |x|).
template <typename R>
std::remove_const_t<R> Norm(DevVec<R> v, Scalar<std::remove_const_t<R>> p) {
  return VecNorm<std::remove_const_t<R>>(v, p);
}

// v = beta * v + alpha * (sum of the rows of M)      (v.dim == M.cols).
template <typename Real>
void AddRowSumMat(DevVec<Real> v, Scalar<Real> alpha, InMat<Real> M,
                  Scalar<Real> beta = 1.0);
// v = beta * v + alpha * (sum of the columns of M)   (v.dim == M.rows).
template <typename Real>
void AddColSumMat(DevVec<Real> v, Scalar<Real> alpha, InMat<Real> M,
                  Scalar<Real> beta = 1.0);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_REDUCTIONS_H_
