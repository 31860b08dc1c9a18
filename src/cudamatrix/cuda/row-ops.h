// cudamatrix/cuda/row-ops.h
// Row and column gathers/scatters on the GPU: the device counterparts of
// MatrixBase::CopyRows, CopyToRows, AddRows, AddToRows, AddRowRanges,
// SumColumnRanges, CopyCols and AddCols (matrix/matrix.h), same meaning,
// the CPU's "this" first (or, for CopyToRows/AddToRows, the source first and
// the destination last, as the CPU's this/argument order).
// Index arrays are DEVICE arrays (int32, Int32Pair or pointers) that the
// caller uploads once, e.g. per compiled computation; their length is the
// number of rows (row ops) or columns (column ops) of the matrix they index
// by. Their values are not checked here (that would need a copy to the
// host); the caller guarantees what the CPU asserts: each index is -1 or
// a valid row/column, each range [first, second) is inside the source or
// empty, each pointer is nullptr or addresses cols values in device memory.
// An index of -1 (pointer nullptr) zeroes the row/column in the Copy*
// operations and leaves it alone in the Add* operations.
// Repeated destination rows: AddToRows accumulates all of them (atomic
// adds, so the order of the additions is not fixed); CopyToRows writes one
// of them (unspecified which; the CPU keeps the last).
// Enqueued on Stream() without waiting.
#ifndef NNET3_CUDAMATRIX_CUDA_ROW_OPS_H_
#define NNET3_CUDAMATRIX_CUDA_ROW_OPS_H_

#include "cudamatrix/cuda/device-view.h"

namespace nnet3 {
namespace cuda {

// Row r of dst = row indexes[r] of src (zero if -1).
template <typename Real>
void CopyRows(DevMat<Real> dst, InMat<Real> src, const int32 *indexes);
// Row r of dst = *src[r] (zero if nullptr).
template <typename Real>
void CopyRows(DevMat<Real> dst, const Scalar<Real> *const *src);
// Row indexes[r] of dst = row r of src (skipped if -1).
template <typename Real>
void CopyToRows(InMat<Real> src, const int32 *indexes, DevMat<Real> dst);
// *dst[r] = row r of src (skipped if nullptr).
template <typename Real>
void CopyToRows(InMat<Real> src, Real *const *dst);
// Row r of dst += alpha * row indexes[r] of src (skipped if -1).
template <typename Real>
void AddRows(DevMat<Real> dst, Scalar<Real> alpha, InMat<Real> src,
             const int32 *indexes);
// Row r of dst += alpha * *src[r] (skipped if nullptr).
template <typename Real>
void AddRows(DevMat<Real> dst, Scalar<Real> alpha,
             const Scalar<Real> *const *src);
// Row indexes[r] of dst += alpha * row r of src (skipped if -1).
template <typename Real>
void AddToRows(InMat<Real> src, Scalar<Real> alpha, const int32 *indexes,
               DevMat<Real> dst);
// *dst[r] += alpha * row r of src (skipped if nullptr).
template <typename Real>
void AddToRows(InMat<Real> src, Scalar<Real> alpha, Real *const *dst);
// Row r of dst += sum of rows [indexes[r].first, indexes[r].second) of src.
template <typename Real>
void AddRowRanges(DevMat<Real> dst, InMat<Real> src, const Int32Pair *indexes);
// Column c of dst = sum of columns [indexes[c].first, indexes[c].second)
// of src.
template <typename Real>
void SumColumnRanges(DevMat<Real> dst, InMat<Real> src,
                     const Int32Pair *indexes);
// Column c of dst = column indexes[c] of src (zero if -1).
template <typename Real>
void CopyCols(DevMat<Real> dst, InMat<Real> src, const int32 *indexes);
// Column c of dst += column indexes[c] of src (skipped if -1).
template <typename Real>
void AddCols(DevMat<Real> dst, InMat<Real> src, const int32 *indexes);

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_ROW_OPS_H_
