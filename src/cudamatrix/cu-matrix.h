// cudamatrix/cu-matrix.h
// CuMatrixBase, CuMatrix and CuSubMatrix: the matrices that the layers above
// cudamatrix compute with, plus the sparse and index-array types
// (CuSparseMatrix, CuArray). They are their own types, not the CPU matrices:
// code above this layer can use only the operations declared here. Each
// operation runs where the matrix's data lives: on the host through the CPU
// matrix library (matrix/matrix.h), on a GPU through DeviceOps
// (cu-backend.h, the kernels of cudamatrix/cuda/), or, for the few
// operations the device has no kernel for (random fills, checks such as
// IsFinite, FindRowMaxId), on a host copy that is written back.
//
// Invariants:
//  - a CuMatrixBase describes NumRows() rows of NumCols() elements, row r
//    starting at Data() + r * Stride() (device memory when OnDevice());
//    views (CuSubMatrix) never own memory and live where their parent
//    lives; CuMatrix always owns its memory and chooses its location
//    (cu_backend::OnDevice()) each time it gets memory;
//  - operands of one operation live in one place, else InternalError;
//  - Mat() is the host view of the same memory, for code that has no Cu
//    operation yet and for tests; it is an InternalError on device data,
//    and every use of it above cudamatrix marks an operation the GPU
//    backend still needs;
//  - crossing between host matrices and Cu matrices is explicit:
//    CopyFromMat(const MatrixBase&), CopyToMat(MatrixBase*), Swap(Matrix*),
//    Download().
#ifndef NNET3_CUDAMATRIX_CU_MATRIX_H_
#define NNET3_CUDAMATRIX_CU_MATRIX_H_

#include <algorithm>
#include <istream>
#include <limits>
#include <ostream>
#include <type_traits>
#include <vector>

#include "cudamatrix/cu-array.h"
#include "cudamatrix/cu-vector.h"
#include "matrix/compressed.h"
#include "matrix/general.h"
#include "matrix/matrix.h"
#include "matrix/sparse.h"
#include "matrix/vector.h"

namespace nnet3 {

template <typename Real> class CuSubMatrix;
template <typename Real> class CuSparseMatrix;

template <typename Real>
class CuMatrixBase : private MatrixBase<Real> {
 public:
  MatrixIndexT NumRows() const { return this->num_rows_; }
  MatrixIndexT NumCols() const { return this->num_cols_; }
  MatrixIndexT Stride() const { return this->stride_; }
  size_t SizeInBytes() const {
    return sizeof(Real) * static_cast<size_t>(NumRows()) * NumCols();
  }
  Real *Data() { return this->data_; }
  const Real *Data() const { return this->data_; }
  // True when the data is in GPU memory.
  bool OnDevice() const { return on_device_; }

  // The host view (CPU backend only; see the file comment).
  MatrixBase<Real> &Mat() {
    if (on_device_) cu_backend::HostViewOfDeviceData();
    return *this;
  }
  const MatrixBase<Real> &Mat() const {
    if (on_device_) cu_backend::HostViewOfDeviceData();
    return *this;
  }
  // The device view (for cudamatrix).
  cuda::DevMat<Real> Dev() {
    return cuda::DevMat<Real>(this->data_, NumRows(), NumCols(), Stride());
  }
  cuda::DevMat<const Real> Dev() const {
    return cuda::DevMat<const Real>(this->data_, NumRows(), NumCols(),
                                    Stride());
  }

  CuSubVector<Real> Row(MatrixIndexT r) { return CuSubVector<Real>(*this, r); }
  const CuSubVector<Real> Row(MatrixIndexT r) const {
    return CuSubVector<Real>(*this, r);
  }
  CuSubMatrix<Real> Range(MatrixIndexT row_offset, MatrixIndexT num_rows,
                          MatrixIndexT col_offset,
                          MatrixIndexT num_cols) const;
  CuSubMatrix<Real> RowRange(MatrixIndexT row_offset,
                             MatrixIndexT num_rows) const;
  CuSubMatrix<Real> ColRange(MatrixIndexT col_offset,
                             MatrixIndexT num_cols) const;

  // One element, read back to the host / written from it.
  Real GetElement(MatrixIndexT r, MatrixIndexT c) const {
    NNET3_ASSERT(r >= 0 && r < NumRows() && c >= 0 && c < NumCols());
    const Real *p = this->data_ + static_cast<size_t>(r) * Stride() + c;
    if (!on_device_) return *p;
    Real x;
    cu_backend::CopyToHost(&x, sizeof(Real), p, sizeof(Real), sizeof(Real), 1);
    return x;
  }
  void SetElement(MatrixIndexT r, MatrixIndexT c, Real value) {
    NNET3_ASSERT(r >= 0 && r < NumRows() && c >= 0 && c < NumCols());
    Real *p = this->data_ + static_cast<size_t>(r) * Stride() + c;
    if (!on_device_) {
      *p = value;
      return;
    }
    cu_backend::CopyToDevice(p, sizeof(Real), &value, sizeof(Real),
                             sizeof(Real), 1);
  }

  void SetZero() {
    if (on_device_) Ops().SetZero(Dev());
    else Mat().SetZero();
  }
  void Set(Real value) {
    if (on_device_) Ops().Set(Dev(), value);
    else Mat().Set(value);
  }
  void SetUnit() {
    if (on_device_) Ops().SetUnit(Dev());
    else Mat().SetUnit();
  }
  // Random values are drawn on the host, so both backends get the same.
  void SetRandn() {
    Modify([](MatrixBase<Real> &h) { h.SetRandn(); });
  }
  void SetRandUniform() {
    Modify([](MatrixBase<Real> &h) { h.SetRandUniform(); });
  }
  void SetRandn(RandomSource *rs) {
    Modify([rs](MatrixBase<Real> &h) { h.SetRandn(rs); });
  }
  void SetRandUniform(RandomSource *rs) {
    Modify([rs](MatrixBase<Real> &h) { h.SetRandUniform(rs); });
  }

  void CopyFromMat(const CuMatrixBase<Real> &M,
                   MatrixTransposeType trans = kNoTrans) {
    if (Where(M, "CopyFromMat")) {
      CheckOpDims(M, trans);
      Ops().CopyFromMat(Dev(), M.Dev(), trans);
    } else {
      Mat().CopyFromMat(M.Mat(), trans);
    }
  }
  template <typename OtherReal>
  void CopyFromMat(const CuMatrixBase<OtherReal> &M,
                   MatrixTransposeType trans = kNoTrans) {
    if (Where(M, "CopyFromMat")) {
      CheckOpDims(M, trans);
      Ops().CopyFromOther(Dev(), M.Dev(), trans);
    } else {
      Mat().CopyFromMat(M.Mat(), trans);
    }
  }
  // Host -> this.
  void CopyFromMat(const MatrixBase<Real> &M,
                   MatrixTransposeType trans = kNoTrans) {
    if (!on_device_) {
      Mat().CopyFromMat(M, trans);
    } else if (trans == kNoTrans) {
      CheckOpDims(M, trans);
      Upload(M);
    } else {
      Matrix<Real> t(M, kTrans);
      Upload(t);
    }
  }
  template <typename OtherReal>
  void CopyFromMat(const MatrixBase<OtherReal> &M,
                   MatrixTransposeType trans = kNoTrans) {
    if (!on_device_) {
      Mat().CopyFromMat(M, trans);
    } else {
      Matrix<Real> converted(NumRows(), NumCols(), kUndefined);
      converted.CopyFromMat(M, trans);
      Upload(converted);
    }
  }
  void CopyFromMat(const CompressedMatrix &M) {
    if (!on_device_) {
      Mat().CopyFromMat(M);
    } else {
      Matrix<Real> host(NumRows(), NumCols(), kUndefined);
      host.CopyFromMat(M);
      Upload(host);
    }
  }
  // Host general matrix (full, sparse or compressed) -> this, which must
  // already have its dimensions (op(src)'s). BaseFloat only.
  void CopyFromGeneralMat(const GeneralMatrix &src,
                          MatrixTransposeType trans = kNoTrans);
  // This -> host.
  template <typename OtherReal>
  void CopyToMat(MatrixBase<OtherReal> *dst,
                 MatrixTransposeType trans = kNoTrans) const {
    if (!on_device_) {
      dst->CopyFromMat(Mat(), trans);
    } else if (std::is_same<Real, OtherReal>::value && trans == kNoTrans) {
      NNET3_ASSERT(dst->NumRows() == NumRows() && dst->NumCols() == NumCols());
      cu_backend::CopyToHost(dst->Data(), sizeof(Real) * dst->Stride(),
                             this->data_, sizeof(Real) * Stride(),
                             sizeof(Real) * NumCols(), NumRows());
    } else {
      dst->CopyFromMat(Download(), trans);
    }
  }
  void CopyRowsFromVec(const CuVectorBase<Real> &v) {
    if (!Where(v, "CopyRowsFromVec")) {
      Mat().CopyRowsFromVec(v.Vec());
    } else if (v.Dim() == NumRows() * NumCols()) {
      Ops().CopyFromMat(Dev(),
                        cuda::DevMat<const Real>(v.Data(), NumRows(),
                                                 NumCols(), NumCols()),
                        kNoTrans);
    } else {
      NNET3_ASSERT(v.Dim() == NumCols());
      Ops().AddVecToRows(Dev(), 1.0, v.DevV(), 0.0);
    }
  }
  void CopyRowsFromVec(const VectorBase<Real> &v) {
    if (!on_device_) {
      Mat().CopyRowsFromVec(v);
    } else {
      Matrix<Real> host(NumRows(), NumCols(), kUndefined);
      host.CopyRowsFromVec(v);
      Upload(host);
    }
  }
  void CopyColsFromVec(const CuVectorBase<Real> &v) {
    if (Where(v, "CopyColsFromVec")) Ops().CopyColsFromVec(Dev(), v.DevV());
    else Mat().CopyColsFromVec(v.Vec());
  }
  void CopyColFromVec(const CuVectorBase<Real> &v, MatrixIndexT col) {
    if (!Where(v, "CopyColFromVec")) {
      Mat().CopyColFromVec(v.Vec(), col);
      return;
    }
    NNET3_ASSERT(v.Dim() == NumRows() && col >= 0 && col < NumCols());
    Ops().CopyFromMat(ColumnView(col), AsColumn(v), kNoTrans);
  }
  void CopyDiagFromVec(const CuVectorBase<Real> &v) {
    if (!Where(v, "CopyDiagFromVec")) {
      Mat().CopyDiagFromVec(v.Vec());
      return;
    }
    NNET3_ASSERT(v.Dim() == std::min(NumRows(), NumCols()));
    Ops().CopyFromMat(DiagView(), AsColumn(v), kNoTrans);
  }

  void Add(Real alpha) {
    if (on_device_) Ops().Add(Dev(), alpha);
    else Mat().Add(alpha);
  }
  void Scale(Real alpha) {
    if (on_device_) Ops().Scale(Dev(), alpha);
    else Mat().Scale(alpha);
  }
  void AddMat(Real alpha, const CuMatrixBase<Real> &A,
              MatrixTransposeType trans = kNoTrans) {
    if (Where(A, "AddMat")) {
      CheckOpDims(A, trans);
      Ops().AddMat(Dev(), alpha, A.Dev(), trans);
    } else {
      Mat().AddMat(alpha, A.Mat(), trans);
    }
  }
  void MulElements(const CuMatrixBase<Real> &A) {
    if (Where(A, "MulElements")) {
      CheckOpDims(A, kNoTrans);
      Ops().MulElements(Dev(), A.Dev());
    } else {
      Mat().MulElements(A.Mat());
    }
  }
  void DivElements(const CuMatrixBase<Real> &A) {
    if (Where(A, "DivElements")) {
      CheckOpDims(A, kNoTrans);
      Ops().DivElements(Dev(), A.Dev());
    } else {
      Mat().DivElements(A.Mat());
    }
  }
  void Max(const CuMatrixBase<Real> &A) {
    if (Where(A, "Max")) {
      CheckOpDims(A, kNoTrans);
      Ops().Max(Dev(), A.Dev());
    } else {
      Mat().Max(A.Mat());
    }
  }
  void Min(const CuMatrixBase<Real> &A) {
    if (Where(A, "Min")) {
      CheckOpDims(A, kNoTrans);
      Ops().Min(Dev(), A.Dev());
    } else {
      Mat().Min(A.Mat());
    }
  }
  void MulRowsVec(const CuVectorBase<Real> &scale) {
    if (Where(scale, "MulRowsVec")) {
      NNET3_ASSERT(scale.Dim() == NumRows());
      Ops().MulRowsVec(Dev(), scale.DevV());
    } else {
      Mat().MulRowsVec(scale.Vec());
    }
  }
  // Row r /= div(r).
  void DivRowsVec(const CuVectorBase<Real> &div) {
    if (Where(div, "DivRowsVec")) {
      NNET3_ASSERT(div.Dim() == NumRows());
      Ops().DivRowsVec(Dev(), div.DevV());
    } else {
      Mat().DivRowsVec(div.Vec());
    }
  }
  void MulColsVec(const CuVectorBase<Real> &scale) {
    if (Where(scale, "MulColsVec")) {
      NNET3_ASSERT(scale.Dim() == NumCols());
      Ops().MulColsVec(Dev(), scale.DevV());
    } else {
      Mat().MulColsVec(scale.Vec());
    }
  }
  void AddVecToRows(Real alpha, const CuVectorBase<Real> &v,
                    Real beta = 1.0) {
    if (Where(v, "AddVecToRows")) {
      NNET3_ASSERT(v.Dim() == NumCols());
      Ops().AddVecToRows(Dev(), alpha, v.DevV(), beta);
    } else {
      Mat().AddVecToRows(alpha, v.Vec(), beta);
    }
  }
  void AddVecToCols(Real alpha, const CuVectorBase<Real> &v,
                    Real beta = 1.0) {
    if (Where(v, "AddVecToCols")) {
      NNET3_ASSERT(v.Dim() == NumRows());
      Ops().AddVecToCols(Dev(), alpha, v.DevV(), beta);
    } else {
      Mat().AddVecToCols(alpha, v.Vec(), beta);
    }
  }
  void InvertElements() {
    if (on_device_) Ops().InvertElements(Dev());
    else Mat().InvertElements();
  }
  // this(i, i) += alpha for every i < min(rows, cols).
  void AddToDiag(Real alpha) {
    if (on_device_) {
      Ops().Add(DiagView(), alpha);
      return;
    }
    MatrixBase<Real> &m = Mat();
    const MatrixIndexT n = std::min(NumRows(), NumCols());
    for (MatrixIndexT i = 0; i < n; i++) m(i, i) += alpha;
  }

  void AddMatMat(Real alpha, const CuMatrixBase<Real> &A,
                 MatrixTransposeType transA, const CuMatrixBase<Real> &B,
                 MatrixTransposeType transB, Real beta) {
    if (Where(A, "AddMatMat") && Where(B, "AddMatMat")) {
      const MatrixIndexT a_rows = transA == kNoTrans ? A.NumRows() : A.NumCols(),
                         a_cols = transA == kNoTrans ? A.NumCols() : A.NumRows(),
                         b_rows = transB == kNoTrans ? B.NumRows() : B.NumCols(),
                         b_cols = transB == kNoTrans ? B.NumCols() : B.NumRows();
      NNET3_ASSERT(a_rows == NumRows() && b_cols == NumCols() &&
                   a_cols == b_rows);
      Ops().AddMatMat(Dev(), alpha, A.Dev(), transA, B.Dev(), transB, beta);
    } else {
      Mat().AddMatMat(alpha, A.Mat(), transA, B.Mat(), transB, beta);
    }
  }
  void AddVecVec(Real alpha, const CuVectorBase<Real> &a,
                 const CuVectorBase<Real> &b) {
    if (Where(a, "AddVecVec") && Where(b, "AddVecVec")) {
      NNET3_ASSERT(a.Dim() == NumRows() && b.Dim() == NumCols());
      Ops().AddVecVec(Dev(), alpha, a.DevV(), b.DevV());
    } else {
      Mat().AddVecVec(alpha, a.Vec(), b.Vec());
    }
  }
  void AddDiagVecMat(Real alpha, const CuVectorBase<Real> &v,
                     const CuMatrixBase<Real> &M,
                     MatrixTransposeType trans = kNoTrans, Real beta = 1.0) {
    if (Where(v, "AddDiagVecMat") && Where(M, "AddDiagVecMat")) {
      CheckOpDims(M, trans);
      NNET3_ASSERT(v.Dim() == NumRows());
      Ops().AddDiagVecMat(Dev(), alpha, v.DevV(), M.Dev(), trans, beta);
    } else {
      Mat().AddDiagVecMat(alpha, v.Vec(), M.Mat(), trans, beta);
    }
  }
  void AddMatDiagVec(Real alpha, const CuMatrixBase<Real> &M,
                     MatrixTransposeType trans, const CuVectorBase<Real> &v,
                     Real beta = 1.0) {
    if (Where(v, "AddMatDiagVec") && Where(M, "AddMatDiagVec")) {
      CheckOpDims(M, trans);
      NNET3_ASSERT(v.Dim() == NumCols());
      Ops().AddMatDiagVec(Dev(), alpha, M.Dev(), trans, v.DevV(), beta);
    } else {
      Mat().AddMatDiagVec(alpha, M.Mat(), trans, v.Vec(), beta);
    }
  }
  void AddMatMatElements(Real alpha, const CuMatrixBase<Real> &A,
                         const CuMatrixBase<Real> &B, Real beta) {
    if (Where(A, "AddMatMatElements") && Where(B, "AddMatMatElements")) {
      CheckOpDims(A, kNoTrans);
      CheckOpDims(B, kNoTrans);
      Ops().AddMatMatElements(Dev(), alpha, A.Dev(), B.Dev(), beta);
    } else {
      Mat().AddMatMatElements(alpha, A.Mat(), B.Mat(), beta);
    }
  }
  // this += alpha * op(S), for a sparse S.
  void AddSmat(Real alpha, const CuSparseMatrix<Real> &S,
               MatrixTransposeType trans = kNoTrans);

  void ApplyFloor(Real floor_val) {
    if (on_device_) Ops().ApplyFloor(Dev(), floor_val);
    else Mat().ApplyFloor(floor_val);
  }
  void ApplyCeiling(Real ceil_val) {
    if (on_device_) Ops().ApplyCeiling(Dev(), ceil_val);
    else Mat().ApplyCeiling(ceil_val);
  }
  void ApplyExp() {
    if (on_device_) Ops().ApplyExp(Dev());
    else Mat().ApplyExp();
  }
  void ApplyLog() {
    if (on_device_) Ops().ApplyLog(Dev());
    else Mat().ApplyLog();
  }
  void ApplyAbs() {
    if (on_device_) Ops().ApplyAbs(Dev());
    else Mat().ApplyAbs();
  }
  void ApplyPow(Real power) {
    if (on_device_) Ops().ApplyPow(Dev(), power);
    else Mat().ApplyPow(power);
  }
  void ApplyPowAbs(Real power, bool include_sign = false) {
    if (on_device_) Ops().ApplyPowAbs(Dev(), power, include_sign);
    else Mat().ApplyPowAbs(power, include_sign);
  }
  void ApplyHeaviside() {
    if (on_device_) Ops().ApplyHeaviside(Dev());
    else Mat().ApplyHeaviside();
  }

  void Sigmoid(const CuMatrixBase<Real> &src) {
    if (Where(src, "Sigmoid")) {
      CheckOpDims(src, kNoTrans);
      Ops().Sigmoid(Dev(), src.Dev());
    } else {
      Mat().Sigmoid(src.Mat());
    }
  }
  void Tanh(const CuMatrixBase<Real> &src) {
    if (Where(src, "Tanh")) {
      CheckOpDims(src, kNoTrans);
      Ops().Tanh(Dev(), src.Dev());
    } else {
      Mat().Tanh(src.Mat());
    }
  }
  void DiffSigmoid(const CuMatrixBase<Real> &value,
                   const CuMatrixBase<Real> &diff) {
    if (Where(value, "DiffSigmoid") && Where(diff, "DiffSigmoid")) {
      CheckOpDims(value, kNoTrans);
      CheckOpDims(diff, kNoTrans);
      Ops().DiffSigmoid(Dev(), value.Dev(), diff.Dev());
    } else {
      Mat().DiffSigmoid(value.Mat(), diff.Mat());
    }
  }
  void DiffTanh(const CuMatrixBase<Real> &value,
                const CuMatrixBase<Real> &diff) {
    if (Where(value, "DiffTanh") && Where(diff, "DiffTanh")) {
      CheckOpDims(value, kNoTrans);
      CheckOpDims(diff, kNoTrans);
      Ops().DiffTanh(Dev(), value.Dev(), diff.Dev());
    } else {
      Mat().DiffTanh(value.Mat(), diff.Mat());
    }
  }
  void SoftMaxPerRow(const CuMatrixBase<Real> &src) {
    if (Where(src, "SoftMaxPerRow")) {
      CheckOpDims(src, kNoTrans);
      Ops().SoftMaxPerRow(Dev(), src.Dev());
    } else {
      Mat().SoftMaxPerRow(src.Mat());
    }
  }
  void LogSoftMaxPerRow(const CuMatrixBase<Real> &src) {
    if (Where(src, "LogSoftMaxPerRow")) {
      CheckOpDims(src, kNoTrans);
      Ops().LogSoftMaxPerRow(Dev(), src.Dev());
    } else {
      Mat().LogSoftMaxPerRow(src.Mat());
    }
  }

  // Row and column index operations. Index -1 zeroes the destination row
  // in the Copy* forms and skips it in the Add* forms.
  void CopyRows(const CuMatrixBase<Real> &src,
                const CuArray<int32> &indexes) {
    if (Where(src, "CopyRows")) {
      NNET3_ASSERT(indexes.Dim() == NumRows() && src.NumCols() == NumCols());
      Ops().CopyRows(Dev(), src.Dev(), indexes.Data());
    } else {
      Mat().CopyRows(src.Mat(), indexes.Vec());
    }
  }
  void CopyRows(const CuArray<const Real *> &src) {
    if (on_device_) {
      NNET3_ASSERT(src.Dim() == NumRows() && src.OnDevice());
      Ops().CopyRowsFromPtrs(Dev(), src.Data());
    } else {
      Mat().CopyRows(src.Vec());
    }
  }
  void CopyToRows(const CuArray<int32> &indexes,
                  CuMatrixBase<Real> *dst) const {
    if (Where(*dst, "CopyToRows")) {
      NNET3_ASSERT(indexes.Dim() == NumRows() && dst->NumCols() == NumCols());
      Ops().CopyToRows(Dev(), indexes.Data(), dst->Dev());
    } else {
      Mat().CopyToRows(indexes.Vec(), &dst->Mat());
    }
  }
  void CopyToRows(const CuArray<Real *> &dst) const {
    if (on_device_) {
      NNET3_ASSERT(dst.Dim() == NumRows() && dst.OnDevice());
      Ops().CopyToRowPtrs(Dev(), dst.Data());
    } else {
      Mat().CopyToRows(dst.Vec());
    }
  }
  void AddRows(Real alpha, const CuMatrixBase<Real> &src,
               const CuArray<int32> &indexes) {
    if (Where(src, "AddRows")) {
      NNET3_ASSERT(indexes.Dim() == NumRows() && src.NumCols() == NumCols());
      Ops().AddRows(Dev(), alpha, src.Dev(), indexes.Data());
    } else {
      Mat().AddRows(alpha, src.Mat(), indexes.Vec());
    }
  }
  void AddRows(Real alpha, const CuArray<const Real *> &src) {
    if (on_device_) {
      NNET3_ASSERT(src.Dim() == NumRows() && src.OnDevice());
      Ops().AddRowsFromPtrs(Dev(), alpha, src.Data());
    } else {
      Mat().AddRows(alpha, src.Vec());
    }
  }
  void AddToRows(Real alpha, const CuArray<int32> &indexes,
                 CuMatrixBase<Real> *dst) const {
    if (Where(*dst, "AddToRows")) {
      NNET3_ASSERT(indexes.Dim() == NumRows() && dst->NumCols() == NumCols());
      Ops().AddToRows(Dev(), alpha, indexes.Data(), dst->Dev());
    } else {
      Mat().AddToRows(alpha, indexes.Vec(), &dst->Mat());
    }
  }
  void AddToRows(Real alpha, const CuArray<Real *> &dst) const {
    if (on_device_) {
      NNET3_ASSERT(dst.Dim() == NumRows() && dst.OnDevice());
      Ops().AddToRowPtrs(Dev(), alpha, dst.Data());
    } else {
      Mat().AddToRows(alpha, dst.Vec());
    }
  }
  void AddRowRanges(const CuMatrixBase<Real> &src,
                    const CuArray<Int32Pair> &indexes) {
    if (Where(src, "AddRowRanges")) {
      NNET3_ASSERT(indexes.Dim() == NumRows() && src.NumCols() == NumCols());
      Ops().AddRowRanges(Dev(), src.Dev(), indexes.Data());
    } else {
      Mat().AddRowRanges(src.Mat(), indexes.Vec());
    }
  }
  void SumColumnRanges(const CuMatrixBase<Real> &src,
                       const CuArray<Int32Pair> &indexes) {
    if (Where(src, "SumColumnRanges")) {
      NNET3_ASSERT(indexes.Dim() == NumCols() && src.NumRows() == NumRows());
      Ops().SumColumnRanges(Dev(), src.Dev(), indexes.Data());
    } else {
      Mat().SumColumnRanges(src.Mat(), indexes.Vec());
    }
  }
  void CopyCols(const CuMatrixBase<Real> &src,
                const CuArray<int32> &indexes) {
    if (Where(src, "CopyCols")) {
      NNET3_ASSERT(indexes.Dim() == NumCols() && src.NumRows() == NumRows());
      Ops().CopyCols(Dev(), src.Dev(), indexes.Data());
    } else {
      Mat().CopyCols(src.Mat(), indexes.Vec());
    }
  }
  void AddCols(const CuMatrixBase<Real> &src, const CuArray<int32> &indexes) {
    if (Where(src, "AddCols")) {
      NNET3_ASSERT(indexes.Dim() == NumCols() && src.NumRows() == NumRows());
      Ops().AddCols(Dev(), src.Dev(), indexes.Data());
    } else {
      Mat().AddCols(src.Mat(), indexes.Vec());
    }
  }

  // (*ids)[r] = the column of the largest element of row r (the first of
  // equal ones); 0 for a row of -inf/NaN only.
  void FindRowMaxId(CuArray<int32> *ids) const;

  Real Sum() const {
    if (on_device_) return Ops().Sum(Dev());
    return Mat().Sum();
  }
  Real Trace(bool check_square = true) const {
    if (!on_device_) return Mat().Trace(check_square);
    NNET3_ASSERT(!check_square || NumRows() == NumCols());
    return Ops().Sum(DiagView());
  }
  Real Max() const {
    if (on_device_) return Ops().MaxElement(Dev());
    return Mat().Max();
  }
  Real Min() const {
    if (on_device_) return Ops().MinElement(Dev());
    return Mat().Min();
  }
  Real FrobeniusNorm() const {
    if (on_device_) return Ops().FrobeniusNorm(Dev());
    return Mat().FrobeniusNorm();
  }
  bool IsZero(Real cutoff = 1.0e-05) const {
    return Inspect([cutoff](const MatrixBase<Real> &h) { return h.IsZero(cutoff); });
  }
  bool IsFinite() const {
    return Inspect([](const MatrixBase<Real> &h) { return h.IsFinite(); });
  }
  bool ApproxEqual(const CuMatrixBase<Real> &other, float tol = 0.01) const {
    if (!on_device_ && !other.on_device_)
      return Mat().ApproxEqual(other.Mat(), tol);
    return Download().ApproxEqual(other.Download(), tol);
  }
  bool Equal(const CuMatrixBase<Real> &other) const {
    if (!on_device_ && !other.on_device_) return Mat().Equal(other.Mat());
    return Download().Equal(other.Download());
  }

  void Write(std::ostream &os, bool binary) const {
    if (on_device_) Download().Write(os, binary);
    else Mat().Write(os, binary);
  }

  // A host copy of the contents (either backend).
  Matrix<Real> Download() const {
    Matrix<Real> host(NumRows(), NumCols(), kUndefined);
    CopyToMat(&host);
    return host;
  }

  // Where(other, op): true if this and "other" are both on the device,
  // false if both on the host; an InternalError naming "op" otherwise.
  template <typename OtherReal>
  bool Where(const CuMatrixBase<OtherReal> &other, const char *op) const {
    if (other.OnDevice() != on_device_) cu_backend::MixedLocations(op);
    return on_device_;
  }
  template <typename OtherReal>
  bool Where(const CuVectorBase<OtherReal> &other, const char *op) const {
    if (other.OnDevice() != on_device_) cu_backend::MixedLocations(op);
    return on_device_;
  }

 protected:
  CuMatrixBase() {}
  ~CuMatrixBase() {}
  void SetView(Real *data, MatrixIndexT rows, MatrixIndexT cols,
               MatrixIndexT stride, bool on_device) {
    this->data_ = data;
    this->num_rows_ = rows;
    this->num_cols_ = cols;
    this->stride_ = stride;
    on_device_ = on_device;
  }
  static DeviceOps<Real> &Ops() { return cu_backend::Ops<Real>(); }
  // Device memory <- a host matrix of the same dimensions.
  void Upload(const MatrixBase<Real> &host) {
    NNET3_ASSERT(host.NumRows() == NumRows() && host.NumCols() == NumCols());
    cu_backend::CopyToDevice(this->data_, sizeof(Real) * Stride(),
                             host.Data(), sizeof(Real) * host.Stride(),
                             sizeof(Real) * NumCols(), NumRows());
  }
  // Runs f on the host data, or on a host copy that is then written back.
  template <class F>
  void Modify(F f) {
    if (!on_device_) {
      f(Mat());
      return;
    }
    Matrix<Real> host = Download();
    f(host);
    Upload(host);
  }
  template <class F>
  auto Inspect(F f) const -> decltype(f(std::declval<MatrixBase<Real> &>())) {
    if (!on_device_) return f(Mat());
    Matrix<Real> host = Download();
    return f(host);
  }

 private:
  template <class Source>
  void CheckOpDims(const Source &M, MatrixTransposeType trans) const {
    if (trans == kNoTrans)
      NNET3_ASSERT(M.NumRows() == NumRows() && M.NumCols() == NumCols());
    else
      NNET3_ASSERT(M.NumRows() == NumCols() && M.NumCols() == NumRows());
  }
  // Column "col" as a matrix of one column; the diagonal likewise; a vector
  // as a matrix of one column.
  cuda::DevMat<Real> ColumnView(MatrixIndexT col) {
    return cuda::DevMat<Real>(this->data_ + col, NumRows(),
                              NumRows() > 0 ? 1 : 0, Stride());
  }
  cuda::DevMat<Real> DiagView() {
    const MatrixIndexT n = std::min(NumRows(), NumCols());
    return cuda::DevMat<Real>(this->data_, n, n > 0 ? 1 : 0, Stride() + 1);
  }
  cuda::DevMat<const Real> DiagView() const {
    const MatrixIndexT n = std::min(NumRows(), NumCols());
    return cuda::DevMat<const Real>(this->data_, n, n > 0 ? 1 : 0,
                                    Stride() + 1);
  }
  static cuda::DevMat<const Real> AsColumn(const CuVectorBase<Real> &v) {
    return cuda::DevMat<const Real>(v.Data(), v.Dim(), v.Dim() > 0 ? 1 : 0, 1);
  }

  template <typename OtherReal> friend class CuMatrixBase;
  CuMatrixBase(const CuMatrixBase &) = delete;
  CuMatrixBase &operator=(const CuMatrixBase &) = delete;
  bool on_device_ = false;
};

template <typename Real>
class CuMatrix : public CuMatrixBase<Real> {
 public:
  CuMatrix() : dev_loc_(cu_backend::OnDevice()) { Sync(); }
  CuMatrix(MatrixIndexT rows, MatrixIndexT cols,
           MatrixResizeType resize_type = kSetZero,
           MatrixStrideType stride_type = kDefaultStride) {
    Resize(rows, cols, resize_type, stride_type);
  }
  CuMatrix(const CuMatrix<Real> &M) : CuMatrixBase<Real>() {
    Resize(M.NumRows(), M.NumCols(), kUndefined);
    this->CopyFromMat(M);
  }
  explicit CuMatrix(const CuMatrixBase<Real> &M,
                    MatrixTransposeType trans = kNoTrans) {
    InitFrom(M, trans);
  }
  template <typename OtherReal>
  explicit CuMatrix(const CuMatrixBase<OtherReal> &M,
                    MatrixTransposeType trans = kNoTrans) {
    InitFrom(M, trans);
  }
  // From a host matrix.
  template <typename OtherReal>
  explicit CuMatrix(const MatrixBase<OtherReal> &M,
                    MatrixTransposeType trans = kNoTrans) {
    InitFrom(M, trans);
  }
  CuMatrix(CuMatrix<Real> &&M) noexcept
      : CuMatrixBase<Real>(), dev_loc_(M.dev_loc_) {
    Sync();
    Swap(&M);
  }
  ~CuMatrix() { cu_backend::Free(dev_); }

  CuMatrix<Real> &operator=(const CuMatrix<Real> &M) {
    if (this != &M) {
      Resize(M.NumRows(), M.NumCols(), kUndefined);
      this->CopyFromMat(M);
    }
    return *this;
  }
  CuMatrix<Real> &operator=(const CuMatrixBase<Real> &M) {
    if (this != &M) {
      Resize(M.NumRows(), M.NumCols(), kUndefined);
      this->CopyFromMat(M);
    }
    return *this;
  }
  CuMatrix<Real> &operator=(const MatrixBase<Real> &M) {
    Resize(M.NumRows(), M.NumCols(), kUndefined);
    this->CopyFromMat(M);
    return *this;
  }
  CuMatrix<Real> &operator=(CuMatrix<Real> &&M) noexcept {
    Swap(&M);
    return *this;
  }

  // Gets memory where Cu objects live now (cu_backend::OnDevice()).
  void Resize(MatrixIndexT rows, MatrixIndexT cols,
              MatrixResizeType resize_type = kSetZero,
              MatrixStrideType stride_type = kDefaultStride);
  void Swap(CuMatrix<Real> *other) {
    store_.Swap(&other->store_);
    std::swap(dev_, other->dev_);
    std::swap(dev_loc_, other->dev_loc_);
    std::swap(dev_rows_, other->dev_rows_);
    std::swap(dev_cols_, other->dev_cols_);
    std::swap(dev_stride_, other->dev_stride_);
    Sync();
    other->Sync();
  }
  // Exchanges contents with a host matrix (no copy on the CPU backend).
  void Swap(Matrix<Real> *other) {
    if (!dev_loc_ && !cu_backend::OnDevice()) {
      store_.Swap(other);
      Sync();
      return;
    }
    Matrix<Real> mine = this->Download();
    Resize(other->NumRows(), other->NumCols(), kUndefined);
    this->CopyFromMat(static_cast<const MatrixBase<Real> &>(*other));
    other->Swap(&mine);
  }
  void Transpose() {
    if (!dev_loc_) {
      store_.Transpose();
      Sync();
      return;
    }
    CuMatrix<Real> t(*this, kTrans);
    Swap(&t);
  }
  void RemoveRow(MatrixIndexT i) {
    if (!dev_loc_) {
      store_.RemoveRow(i);
      Sync();
      return;
    }
    Matrix<Real> host = this->Download();
    host.RemoveRow(i);
    Resize(host.NumRows(), host.NumCols(), kUndefined);
    this->CopyFromMat(static_cast<const MatrixBase<Real> &>(host));
  }
  void Read(std::istream &is, bool binary, bool add = false) {
    if (!dev_loc_ && !cu_backend::OnDevice()) {
      store_.Read(is, binary, add);
      Sync();
      return;
    }
    Matrix<Real> host;
    if (add) host = this->Download();
    host.Read(is, binary, add);
    Resize(host.NumRows(), host.NumCols(), kUndefined);
    this->CopyFromMat(static_cast<const MatrixBase<Real> &>(host));
  }

 private:
  void Sync() {
    if (dev_loc_)
      this->SetView(dev_, dev_rows_, dev_cols_, dev_stride_, true);
    else
      this->SetView(store_.Data(), store_.NumRows(), store_.NumCols(),
                    store_.Stride(), false);
  }
  // Sized as op(M) and filled with it (M: a Cu or host matrix).
  template <class Source>
  void InitFrom(const Source &M, MatrixTransposeType trans) {
    if (trans == kNoTrans)
      Resize(M.NumRows(), M.NumCols(), kUndefined);
    else
      Resize(M.NumCols(), M.NumRows(), kUndefined);
    this->CopyFromMat(M, trans);
  }
  Matrix<Real> store_;    // host memory (CPU backend)
  bool dev_loc_ = false;  // true: the data is dev_ (GPU backend)
  Real *dev_ = nullptr;   // device memory
  MatrixIndexT dev_rows_ = 0, dev_cols_ = 0, dev_stride_ = 0;
};

template <typename Real>
void CuMatrix<Real>::Resize(MatrixIndexT rows, MatrixIndexT cols,
                            MatrixResizeType resize_type,
                            MatrixStrideType stride_type) {
  NNET3_ASSERT(rows >= 0 && cols >= 0);
  const bool to_device = cu_backend::OnDevice();
  if (!to_device && !dev_loc_) {
    store_.Resize(rows, cols, resize_type, stride_type);
    Sync();
    return;
  }
  Matrix<Real> old;
  if (resize_type == kCopyData) old = this->Download();
  cu_backend::Free(dev_);
  dev_ = nullptr;
  dev_rows_ = dev_cols_ = dev_stride_ = 0;
  store_.Resize(0, 0);
  dev_loc_ = to_device;
  if (rows == 0 || cols == 0) {
    rows = cols = 0;
  } else if (to_device) {
    size_t pitch = 0;
    if (stride_type == kStrideEqualNumCols) {
      dev_ = static_cast<Real *>(
          cu_backend::Malloc(sizeof(Real) * static_cast<size_t>(rows) * cols));
      pitch = sizeof(Real) * cols;
    } else {
      dev_ = static_cast<Real *>(
          cu_backend::MallocPitch(sizeof(Real) * cols, rows, &pitch));
    }
    dev_rows_ = rows;
    dev_cols_ = cols;
    dev_stride_ = static_cast<MatrixIndexT>(pitch / sizeof(Real));
  } else {
    store_.Resize(rows, cols, kUndefined, stride_type);
  }
  Sync();
  if (resize_type == kSetZero || resize_type == kCopyData) this->SetZero();
  if (resize_type == kCopyData) {
    const MatrixIndexT r = std::min(rows, old.NumRows()),
                       c = std::min(cols, old.NumCols());
    if (r > 0 && c > 0)
      this->Range(0, r, 0, c).CopyFromMat(
          static_cast<const MatrixBase<Real> &>(SubMatrix<Real>(old, 0, r, 0, c)));
  }
}

template <typename Real>
class CuSubMatrix : public CuMatrixBase<Real> {
 public:
  CuSubMatrix(const CuMatrixBase<Real> &M, MatrixIndexT row_offset,
              MatrixIndexT num_rows, MatrixIndexT col_offset,
              MatrixIndexT num_cols) {
    NNET3_ASSERT(row_offset >= 0 && num_rows >= 0 && col_offset >= 0 &&
                 num_cols >= 0 && row_offset + num_rows <= M.NumRows() &&
                 col_offset + num_cols <= M.NumCols());
    Real *data = const_cast<Real *>(M.Data());
    if (num_rows == 0 || num_cols == 0)
      this->SetView(nullptr, 0, 0, M.Stride(), M.OnDevice());
    else
      this->SetView(data + static_cast<size_t>(row_offset) * M.Stride() +
                        col_offset,
                    num_rows, num_cols, M.Stride(), M.OnDevice());
  }
  // A view of raw memory where Cu objects live now (cu_backend::OnDevice()).
  CuSubMatrix(const Real *data, MatrixIndexT num_rows, MatrixIndexT num_cols,
              MatrixIndexT stride) {
    NNET3_ASSERT(num_rows >= 0 && num_cols >= 0 && stride >= num_cols);
    const bool on_device = cu_backend::OnDevice();
    if (num_rows == 0 || num_cols == 0)
      this->SetView(nullptr, 0, 0, stride, on_device);
    else
      this->SetView(const_cast<Real *>(data), num_rows, num_cols, stride,
                    on_device);
  }
  CuSubMatrix(const CuSubMatrix<Real> &other) : CuMatrixBase<Real>() {
    this->SetView(const_cast<Real *>(other.Data()), other.NumRows(),
                  other.NumCols(), other.Stride(), other.OnDevice());
  }
  ~CuSubMatrix() {}

 private:
  CuSubMatrix &operator=(const CuSubMatrix &) = delete;
};

template <typename Real>
CuSubMatrix<Real> CuMatrixBase<Real>::Range(MatrixIndexT row_offset,
                                            MatrixIndexT num_rows,
                                            MatrixIndexT col_offset,
                                            MatrixIndexT num_cols) const {
  return CuSubMatrix<Real>(*this, row_offset, num_rows, col_offset, num_cols);
}

template <typename Real>
CuSubMatrix<Real> CuMatrixBase<Real>::RowRange(MatrixIndexT row_offset,
                                               MatrixIndexT num_rows) const {
  return CuSubMatrix<Real>(*this, row_offset, num_rows, 0, NumCols());
}

template <typename Real>
CuSubMatrix<Real> CuMatrixBase<Real>::ColRange(MatrixIndexT col_offset,
                                               MatrixIndexT num_cols) const {
  return CuSubMatrix<Real>(*this, 0, NumRows(), col_offset, num_cols);
}

template <typename Real>
void CuMatrixBase<Real>::CopyFromGeneralMat(const GeneralMatrix &src,
                                            MatrixTransposeType trans) {
  static_assert(std::is_same<Real, BaseFloat>::value,
                "general matrices hold BaseFloat");
  if (!on_device_) {
    src.CopyToMat(&Mat(), trans);
    return;
  }
  Matrix<Real> host(NumRows(), NumCols(), kUndefined);
  src.CopyToMat(&host, trans);
  Upload(host);
}

template <typename Real>
void CuMatrixBase<Real>::FindRowMaxId(CuArray<int32> *ids) const {
  std::vector<int32> host(NumRows(), 0);
  Inspect([&host](const MatrixBase<Real> &m) {
    for (MatrixIndexT r = 0; r < m.NumRows(); r++) {
      const Real *row = m.RowData(r);
      Real best = -std::numeric_limits<Real>::infinity();
      for (MatrixIndexT c = 0; c < m.NumCols(); c++)
        if (row[c] > best) {
          best = row[c];
          host[r] = c;
        }
    }
    return 0;
  });
  ids->CopyFromVec(host);
}

// The vector operations that involve matrices.

template <typename Real>
CuSubVector<Real>::CuSubVector(const CuMatrixBase<Real> &matrix,
                               MatrixIndexT row) {
  NNET3_ASSERT(row >= 0 && row < matrix.NumRows());
  this->SetView(const_cast<Real *>(matrix.Data()) +
                    static_cast<size_t>(row) * matrix.Stride(),
                matrix.NumCols(), matrix.OnDevice());
}

template <typename Real>
template <typename OtherReal>
bool CuVectorBase<Real>::Where(const CuMatrixBase<OtherReal> &other,
                               const char *op) const {
  if (other.OnDevice() != on_device_) cu_backend::MixedLocations(op);
  return on_device_;
}

template <typename Real>
void CuVectorBase<Real>::CopyRowsFromMat(const CuMatrixBase<Real> &M) {
  if (!Where(M, "CopyRowsFromMat")) {
    Vec().CopyRowsFromMat(M.Mat());
    return;
  }
  NNET3_ASSERT(Dim() == M.NumRows() * M.NumCols());
  Ops().CopyFromMat(
      cuda::DevMat<Real>(Data(), M.NumRows(), M.NumCols(), M.NumCols()),
      M.Dev(), kNoTrans);
}

template <typename Real>
template <typename OtherReal>
void CuVectorBase<Real>::CopyRowFromMat(const CuMatrixBase<OtherReal> &M,
                                        MatrixIndexT row) {
  if (!Where(M, "CopyRowFromMat")) {
    Vec().CopyRowFromMat(M.Mat(), row);
    return;
  }
  NNET3_ASSERT(Dim() == M.NumCols() && row >= 0 && row < M.NumRows());
  cuda::DevMat<const OtherReal> src(
      M.Data() + static_cast<size_t>(row) * M.Stride(), Dim() > 0 ? 1 : 0,
      Dim(), M.Stride());
  if constexpr (std::is_same<Real, OtherReal>::value)
    Ops().CopyFromMat(DevRow(), src, kNoTrans);
  else
    Ops().CopyFromOther(DevRow(), src, kNoTrans);
}

template <typename Real>
template <typename OtherReal>
void CuVectorBase<Real>::CopyColFromMat(const CuMatrixBase<OtherReal> &M,
                                        MatrixIndexT col) {
  if (!Where(M, "CopyColFromMat")) {
    Vec().CopyColFromMat(M.Mat(), col);
    return;
  }
  NNET3_ASSERT(Dim() == M.NumRows() && col >= 0 && col < M.NumCols());
  cuda::DevMat<Real> dst(Data(), Dim(), Dim() > 0 ? 1 : 0, 1);
  cuda::DevMat<const OtherReal> src(M.Data() + col, Dim(), Dim() > 0 ? 1 : 0,
                                    M.Stride());
  if constexpr (std::is_same<Real, OtherReal>::value)
    Ops().CopyFromMat(dst, src, kNoTrans);
  else
    Ops().CopyFromOther(dst, src, kNoTrans);
}

template <typename Real>
void CuVectorBase<Real>::CopyDiagFromMat(const CuMatrixBase<Real> &M) {
  if (!Where(M, "CopyDiagFromMat")) {
    Vec().CopyDiagFromMat(M.Mat());
    return;
  }
  const MatrixIndexT n = std::min(M.NumRows(), M.NumCols());
  NNET3_ASSERT(Dim() == n);
  Ops().CopyFromMat(cuda::DevMat<Real>(Data(), n, n > 0 ? 1 : 0, 1),
                    cuda::DevMat<const Real>(M.Data(), n, n > 0 ? 1 : 0,
                                             M.Stride() + 1),
                    kNoTrans);
}

template <typename Real>
void CuVectorBase<Real>::AddMatVec(Real alpha, const CuMatrixBase<Real> &M,
                                   MatrixTransposeType trans,
                                   const CuVectorBase<Real> &v, Real beta) {
  if (Where(M, "AddMatVec") && Where(v, "AddMatVec")) {
    NNET3_ASSERT((trans == kNoTrans ? M.NumRows() : M.NumCols()) == Dim() &&
                 (trans == kNoTrans ? M.NumCols() : M.NumRows()) == v.Dim());
    Ops().AddMatVec(DevV(), alpha, M.Dev(), trans, v.DevV(), beta);
  } else {
    Vec().AddMatVec(alpha, M.Mat(), trans, v.Vec(), beta);
  }
}

template <typename Real>
void CuVectorBase<Real>::AddRowSumMat(Real alpha, const CuMatrixBase<Real> &M,
                                      Real beta) {
  if (Where(M, "AddRowSumMat")) {
    NNET3_ASSERT(Dim() == M.NumCols());
    Ops().AddRowSumMat(DevV(), alpha, M.Dev(), beta);
  } else {
    Vec().AddRowSumMat(alpha, M.Mat(), beta);
  }
}

template <typename Real>
void CuVectorBase<Real>::AddColSumMat(Real alpha, const CuMatrixBase<Real> &M,
                                      Real beta) {
  if (Where(M, "AddColSumMat")) {
    NNET3_ASSERT(Dim() == M.NumRows());
    Ops().AddColSumMat(DevV(), alpha, M.Dev(), beta);
  } else {
    Vec().AddColSumMat(alpha, M.Mat(), beta);
  }
}

template <typename Real>
void CuVectorBase<Real>::AddDiagMat2(Real alpha, const CuMatrixBase<Real> &M,
                                     MatrixTransposeType trans, Real beta) {
  if (!Where(M, "AddDiagMat2")) {
    Vec().AddDiagMat2(alpha, M.Mat(), trans, beta);
    return;
  }
  // diag(M M^T) is the row sums of M .* M; diag(M^T M) the column sums.
  CuMatrix<Real> squares(M.NumRows(), M.NumCols(), kUndefined);
  squares.CopyFromMat(M);
  squares.MulElements(M);
  if (trans == kNoTrans)
    AddColSumMat(alpha, squares, beta);
  else
    AddRowSumMat(alpha, squares, beta);
}

template <typename Real>
Real TraceMatMat(const CuMatrixBase<Real> &A, const CuMatrixBase<Real> &B,
                 MatrixTransposeType trans = kNoTrans) {
  if (!A.Where(B, "TraceMatMat")) return TraceMatMat(A.Mat(), B.Mat(), trans);
  // trace(A B) sums A .* B^T; trace(A B^T) sums A .* B.
  CuMatrix<Real> prod(B, trans == kNoTrans ? kTrans : kNoTrans);
  NNET3_ASSERT(prod.NumRows() == A.NumRows() && prod.NumCols() == A.NumCols());
  prod.MulElements(A);
  return prod.Sum();
}

template <typename Real>
bool SameDim(const CuMatrixBase<Real> &A, const CuMatrixBase<Real> &B) {
  return A.NumRows() == B.NumRows() && A.NumCols() == B.NumCols();
}

// A host copy (an explicit crossing, valid on every backend).
template <typename Real>
Matrix<Real> ToHost(const CuMatrixBase<Real> &M) {
  return M.Download();
}

template <typename Real>
Vector<Real> ToHost(const CuVectorBase<Real> &v) {
  return v.Download();
}

template <typename Real>
std::ostream &operator<<(std::ostream &os, const CuMatrixBase<Real> &M) {
  return os << M.Download();
}

}  // namespace nnet3

#include "cudamatrix/cu-sparse-matrix.h"

#endif  // NNET3_CUDAMATRIX_CU_MATRIX_H_
