// cudamatrix/cu-matrix.h
// CuMatrixBase, CuMatrix and CuSubMatrix: the matrices that the layers above
// cudamatrix compute with, plus the sparse and index-array types
// (CuSparseMatrix, CuArray). They are their own types, not the CPU matrices:
// code above this layer can use only the operations declared here, and
// each operation is carried out by the backend that computes (today the
// CPU matrix library, matrix/matrix.h, on the same memory; the CUDA kernels
// of cudamatrix/cuda/ once the GPU backend computes, see docs/gpu.md).
//
// Invariants:
//  - a CuMatrixBase describes NumRows() rows of NumCols() elements, row r
//    starting at Data() + r * Stride(); views (CuSubMatrix) never own memory
//    and CuMatrix always owns its memory;
//  - Mat() is the host view of the same memory, for code that has no Cu
//    operation yet and for tests; it is valid only while the CPU computes,
//    and every use of it above cudamatrix marks an operation the GPU
//    backend still needs;
//  - crossing between host matrices and Cu matrices is explicit:
//    CopyFromMat(const MatrixBase&), CopyToMat(MatrixBase*), Swap(Matrix*).
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
  size_t SizeInBytes() const { return Mat().SizeInBytes(); }
  Real *Data() { return this->data_; }
  const Real *Data() const { return this->data_; }

  // The host view (CPU backend only; see the file comment).
  MatrixBase<Real> &Mat() { return *this; }
  const MatrixBase<Real> &Mat() const { return *this; }

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
  Real GetElement(MatrixIndexT r, MatrixIndexT c) const { return Mat()(r, c); }
  void SetElement(MatrixIndexT r, MatrixIndexT c, Real value) {
    Mat()(r, c) = value;
  }

  void SetZero() { Mat().SetZero(); }
  void Set(Real value) { Mat().Set(value); }
  void SetUnit() { Mat().SetUnit(); }
  void SetRandn() { Mat().SetRandn(); }
  void SetRandUniform() { Mat().SetRandUniform(); }
  void SetRandn(RandomSource *rs) { Mat().SetRandn(rs); }
  void SetRandUniform(RandomSource *rs) { Mat().SetRandUniform(rs); }

  void CopyFromMat(const CuMatrixBase<Real> &M,
                   MatrixTransposeType trans = kNoTrans) {
    Mat().CopyFromMat(M.Mat(), trans);
  }
  template <typename OtherReal>
  void CopyFromMat(const CuMatrixBase<OtherReal> &M,
                   MatrixTransposeType trans = kNoTrans) {
    Mat().CopyFromMat(M.Mat(), trans);
  }
  // Host -> this.
  void CopyFromMat(const MatrixBase<Real> &M,
                   MatrixTransposeType trans = kNoTrans) {
    Mat().CopyFromMat(M, trans);
  }
  template <typename OtherReal>
  void CopyFromMat(const MatrixBase<OtherReal> &M,
                   MatrixTransposeType trans = kNoTrans) {
    Mat().CopyFromMat(M, trans);
  }
  void CopyFromMat(const CompressedMatrix &M) { Mat().CopyFromMat(M); }
  // Host general matrix (full, sparse or compressed) -> this, which must
  // already have its dimensions (op(src)'s). BaseFloat only.
  void CopyFromGeneralMat(const GeneralMatrix &src,
                          MatrixTransposeType trans = kNoTrans);
  // This -> host.
  template <typename OtherReal>
  void CopyToMat(MatrixBase<OtherReal> *dst,
                 MatrixTransposeType trans = kNoTrans) const {
    dst->CopyFromMat(Mat(), trans);
  }
  void CopyRowsFromVec(const CuVectorBase<Real> &v) {
    Mat().CopyRowsFromVec(v.Vec());
  }
  void CopyRowsFromVec(const VectorBase<Real> &v) { Mat().CopyRowsFromVec(v); }
  void CopyColsFromVec(const CuVectorBase<Real> &v) {
    Mat().CopyColsFromVec(v.Vec());
  }
  void CopyColFromVec(const CuVectorBase<Real> &v, MatrixIndexT col) {
    Mat().CopyColFromVec(v.Vec(), col);
  }
  void CopyDiagFromVec(const CuVectorBase<Real> &v) {
    Mat().CopyDiagFromVec(v.Vec());
  }

  void Add(Real alpha) { Mat().Add(alpha); }
  void Scale(Real alpha) { Mat().Scale(alpha); }
  void AddMat(Real alpha, const CuMatrixBase<Real> &A,
              MatrixTransposeType trans = kNoTrans) {
    Mat().AddMat(alpha, A.Mat(), trans);
  }
  void MulElements(const CuMatrixBase<Real> &A) { Mat().MulElements(A.Mat()); }
  void DivElements(const CuMatrixBase<Real> &A) { Mat().DivElements(A.Mat()); }
  void Max(const CuMatrixBase<Real> &A) { Mat().Max(A.Mat()); }
  void Min(const CuMatrixBase<Real> &A) { Mat().Min(A.Mat()); }
  void MulRowsVec(const CuVectorBase<Real> &scale) {
    Mat().MulRowsVec(scale.Vec());
  }
  void MulColsVec(const CuVectorBase<Real> &scale) {
    Mat().MulColsVec(scale.Vec());
  }
  void AddVecToRows(Real alpha, const CuVectorBase<Real> &v,
                    Real beta = 1.0) {
    Mat().AddVecToRows(alpha, v.Vec(), beta);
  }
  void AddVecToCols(Real alpha, const CuVectorBase<Real> &v,
                    Real beta = 1.0) {
    Mat().AddVecToCols(alpha, v.Vec(), beta);
  }
  void InvertElements() { Mat().InvertElements(); }
  // this(i, i) += alpha for every i < min(rows, cols).
  void AddToDiag(Real alpha) {
    MatrixBase<Real> &m = Mat();
    const MatrixIndexT n = std::min(NumRows(), NumCols());
    for (MatrixIndexT i = 0; i < n; i++) m(i, i) += alpha;
  }

  void AddMatMat(Real alpha, const CuMatrixBase<Real> &A,
                 MatrixTransposeType transA, const CuMatrixBase<Real> &B,
                 MatrixTransposeType transB, Real beta) {
    Mat().AddMatMat(alpha, A.Mat(), transA, B.Mat(), transB, beta);
  }
  void AddVecVec(Real alpha, const CuVectorBase<Real> &a,
                 const CuVectorBase<Real> &b) {
    Mat().AddVecVec(alpha, a.Vec(), b.Vec());
  }
  void AddDiagVecMat(Real alpha, const CuVectorBase<Real> &v,
                     const CuMatrixBase<Real> &M,
                     MatrixTransposeType trans = kNoTrans, Real beta = 1.0) {
    Mat().AddDiagVecMat(alpha, v.Vec(), M.Mat(), trans, beta);
  }
  void AddMatDiagVec(Real alpha, const CuMatrixBase<Real> &M,
                     MatrixTransposeType trans, const CuVectorBase<Real> &v,
                     Real beta = 1.0) {
    Mat().AddMatDiagVec(alpha, M.Mat(), trans, v.Vec(), beta);
  }
  void AddMatMatElements(Real alpha, const CuMatrixBase<Real> &A,
                         const CuMatrixBase<Real> &B, Real beta) {
    Mat().AddMatMatElements(alpha, A.Mat(), B.Mat(), beta);
  }
  // this += alpha * op(S), for a sparse S.
  void AddSmat(Real alpha, const CuSparseMatrix<Real> &S,
               MatrixTransposeType trans = kNoTrans);

  void ApplyFloor(Real floor_val) { Mat().ApplyFloor(floor_val); }
  void ApplyCeiling(Real ceil_val) { Mat().ApplyCeiling(ceil_val); }
  void ApplyExp() { Mat().ApplyExp(); }
  void ApplyLog() { Mat().ApplyLog(); }
  void ApplyAbs() { Mat().ApplyAbs(); }
  void ApplyPow(Real power) { Mat().ApplyPow(power); }
  void ApplyPowAbs(Real power, bool include_sign = false) {
    Mat().ApplyPowAbs(power, include_sign);
  }
  void ApplyHeaviside() { Mat().ApplyHeaviside(); }

  void Sigmoid(const CuMatrixBase<Real> &src) { Mat().Sigmoid(src.Mat()); }
  void Tanh(const CuMatrixBase<Real> &src) { Mat().Tanh(src.Mat()); }
  void DiffSigmoid(const CuMatrixBase<Real> &value,
                   const CuMatrixBase<Real> &diff) {
    Mat().DiffSigmoid(value.Mat(), diff.Mat());
  }
  void DiffTanh(const CuMatrixBase<Real> &value,
                const CuMatrixBase<Real> &diff) {
    Mat().DiffTanh(value.Mat(), diff.Mat());
  }
  void SoftMaxPerRow(const CuMatrixBase<Real> &src) {
    Mat().SoftMaxPerRow(src.Mat());
  }
  void LogSoftMaxPerRow(const CuMatrixBase<Real> &src) {
    Mat().LogSoftMaxPerRow(src.Mat());
  }

  // Row and column index operations. Index -1 zeroes the destination row
  // in the Copy* forms and skips it in the Add* forms.
  void CopyRows(const CuMatrixBase<Real> &src,
                const CuArray<int32> &indexes) {
    Mat().CopyRows(src.Mat(), indexes.Vec());
  }
  void CopyRows(const CuArray<const Real *> &src) {
    Mat().CopyRows(src.Vec());
  }
  void CopyToRows(const CuArray<int32> &indexes,
                  CuMatrixBase<Real> *dst) const {
    Mat().CopyToRows(indexes.Vec(), &dst->Mat());
  }
  void CopyToRows(const CuArray<Real *> &dst) const {
    Mat().CopyToRows(dst.Vec());
  }
  void AddRows(Real alpha, const CuMatrixBase<Real> &src,
               const CuArray<int32> &indexes) {
    Mat().AddRows(alpha, src.Mat(), indexes.Vec());
  }
  void AddRows(Real alpha, const CuArray<const Real *> &src) {
    Mat().AddRows(alpha, src.Vec());
  }
  void AddToRows(Real alpha, const CuArray<int32> &indexes,
                 CuMatrixBase<Real> *dst) const {
    Mat().AddToRows(alpha, indexes.Vec(), &dst->Mat());
  }
  void AddToRows(Real alpha, const CuArray<Real *> &dst) const {
    Mat().AddToRows(alpha, dst.Vec());
  }
  void AddRowRanges(const CuMatrixBase<Real> &src,
                    const CuArray<Int32Pair> &indexes) {
    Mat().AddRowRanges(src.Mat(), indexes.Vec());
  }
  void SumColumnRanges(const CuMatrixBase<Real> &src,
                       const CuArray<Int32Pair> &indexes) {
    Mat().SumColumnRanges(src.Mat(), indexes.Vec());
  }
  void CopyCols(const CuMatrixBase<Real> &src,
                const CuArray<int32> &indexes) {
    Mat().CopyCols(src.Mat(), indexes.Vec());
  }
  void AddCols(const CuMatrixBase<Real> &src, const CuArray<int32> &indexes) {
    Mat().AddCols(src.Mat(), indexes.Vec());
  }

  // (*ids)[r] = the column of the largest element of row r (the first of
  // equal ones); 0 for a row of -inf/NaN only.
  void FindRowMaxId(CuArray<int32> *ids) const;

  Real Sum() const { return Mat().Sum(); }
  Real Trace(bool check_square = true) const {
    return Mat().Trace(check_square);
  }
  Real Max() const { return Mat().Max(); }
  Real Min() const { return Mat().Min(); }
  Real FrobeniusNorm() const { return Mat().FrobeniusNorm(); }
  bool IsZero(Real cutoff = 1.0e-05) const { return Mat().IsZero(cutoff); }
  bool IsFinite() const { return Mat().IsFinite(); }
  bool ApproxEqual(const CuMatrixBase<Real> &other, float tol = 0.01) const {
    return Mat().ApproxEqual(other.Mat(), tol);
  }
  bool Equal(const CuMatrixBase<Real> &other) const {
    return Mat().Equal(other.Mat());
  }

  void Write(std::ostream &os, bool binary) const { Mat().Write(os, binary); }

 protected:
  CuMatrixBase() {}
  ~CuMatrixBase() {}
  void SetView(Real *data, MatrixIndexT rows, MatrixIndexT cols,
               MatrixIndexT stride) {
    this->data_ = data;
    this->num_rows_ = rows;
    this->num_cols_ = cols;
    this->stride_ = stride;
  }

 private:
  CuMatrixBase(const CuMatrixBase &) = delete;
  CuMatrixBase &operator=(const CuMatrixBase &) = delete;
};

template <typename Real>
class CuMatrix : public CuMatrixBase<Real> {
 public:
  CuMatrix() {}
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
  CuMatrix(CuMatrix<Real> &&M) noexcept : CuMatrixBase<Real>() { Swap(&M); }
  ~CuMatrix() {}

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

  void Resize(MatrixIndexT rows, MatrixIndexT cols,
              MatrixResizeType resize_type = kSetZero,
              MatrixStrideType stride_type = kDefaultStride) {
    store_.Resize(rows, cols, resize_type, stride_type);
    Sync();
  }
  void Swap(CuMatrix<Real> *other) {
    store_.Swap(&other->store_);
    Sync();
    other->Sync();
  }
  // Exchanges contents with a host matrix (no copy on the CPU backend).
  void Swap(Matrix<Real> *other) {
    store_.Swap(other);
    Sync();
  }
  void Transpose() {
    store_.Transpose();
    Sync();
  }
  void RemoveRow(MatrixIndexT i) {
    store_.RemoveRow(i);
    Sync();
  }
  void Read(std::istream &is, bool binary, bool add = false) {
    store_.Read(is, binary, add);
    Sync();
  }

 private:
  void Sync() {
    this->SetView(store_.Data(), store_.NumRows(), store_.NumCols(),
                  store_.Stride());
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
  Matrix<Real> store_;
};

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
      this->SetView(nullptr, 0, 0, M.Stride());
    else
      this->SetView(data + static_cast<size_t>(row_offset) * M.Stride() +
                        col_offset,
                    num_rows, num_cols, M.Stride());
  }
  // A view of raw memory of the computing backend.
  CuSubMatrix(const Real *data, MatrixIndexT num_rows, MatrixIndexT num_cols,
              MatrixIndexT stride) {
    NNET3_ASSERT(num_rows >= 0 && num_cols >= 0 && stride >= num_cols);
    if (num_rows == 0 || num_cols == 0)
      this->SetView(nullptr, 0, 0, stride);
    else
      this->SetView(const_cast<Real *>(data), num_rows, num_cols, stride);
  }
  CuSubMatrix(const CuSubMatrix<Real> &other) : CuMatrixBase<Real>() {
    this->SetView(const_cast<Real *>(other.Data()), other.NumRows(),
                  other.NumCols(), other.Stride());
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
  src.CopyToMat(&Mat(), trans);
}

template <typename Real>
void CuMatrixBase<Real>::FindRowMaxId(CuArray<int32> *ids) const {
  std::vector<int32> host(NumRows(), 0);
  const MatrixBase<Real> &m = Mat();
  for (MatrixIndexT r = 0; r < NumRows(); r++) {
    const Real *row = m.RowData(r);
    Real best = -std::numeric_limits<Real>::infinity();
    for (MatrixIndexT c = 0; c < NumCols(); c++)
      if (row[c] > best) {
        best = row[c];
        host[r] = c;
      }
  }
  ids->CopyFromVec(host);
}

// The vector operations that involve matrices.

template <typename Real>
CuSubVector<Real>::CuSubVector(const CuMatrixBase<Real> &matrix,
                               MatrixIndexT row) {
  NNET3_ASSERT(row >= 0 && row < matrix.NumRows());
  this->SetView(const_cast<Real *>(matrix.Data()) +
                    static_cast<size_t>(row) * matrix.Stride(),
                matrix.NumCols());
}

template <typename Real>
void CuVectorBase<Real>::CopyRowsFromMat(const CuMatrixBase<Real> &M) {
  Vec().CopyRowsFromMat(M.Mat());
}

template <typename Real>
template <typename OtherReal>
void CuVectorBase<Real>::CopyRowFromMat(const CuMatrixBase<OtherReal> &M,
                                        MatrixIndexT row) {
  Vec().CopyRowFromMat(M.Mat(), row);
}

template <typename Real>
template <typename OtherReal>
void CuVectorBase<Real>::CopyColFromMat(const CuMatrixBase<OtherReal> &M,
                                        MatrixIndexT col) {
  Vec().CopyColFromMat(M.Mat(), col);
}

template <typename Real>
void CuVectorBase<Real>::CopyDiagFromMat(const CuMatrixBase<Real> &M) {
  Vec().CopyDiagFromMat(M.Mat());
}

template <typename Real>
void CuVectorBase<Real>::AddMatVec(Real alpha, const CuMatrixBase<Real> &M,
                                   MatrixTransposeType trans,
                                   const CuVectorBase<Real> &v, Real beta) {
  Vec().AddMatVec(alpha, M.Mat(), trans, v.Vec(), beta);
}

template <typename Real>
void CuVectorBase<Real>::AddRowSumMat(Real alpha, const CuMatrixBase<Real> &M,
                                      Real beta) {
  Vec().AddRowSumMat(alpha, M.Mat(), beta);
}

template <typename Real>
void CuVectorBase<Real>::AddColSumMat(Real alpha, const CuMatrixBase<Real> &M,
                                      Real beta) {
  Vec().AddColSumMat(alpha, M.Mat(), beta);
}

template <typename Real>
void CuVectorBase<Real>::AddDiagMat2(Real alpha, const CuMatrixBase<Real> &M,
                                     MatrixTransposeType trans, Real beta) {
  Vec().AddDiagMat2(alpha, M.Mat(), trans, beta);
}

template <typename Real>
Real TraceMatMat(const CuMatrixBase<Real> &A, const CuMatrixBase<Real> &B,
                 MatrixTransposeType trans = kNoTrans) {
  return TraceMatMat(A.Mat(), B.Mat(), trans);
}

template <typename Real>
bool SameDim(const CuMatrixBase<Real> &A, const CuMatrixBase<Real> &B) {
  return A.NumRows() == B.NumRows() && A.NumCols() == B.NumCols();
}

// A host copy (an explicit crossing, valid on every backend).
template <typename Real>
Matrix<Real> ToHost(const CuMatrixBase<Real> &M) {
  Matrix<Real> host(M.NumRows(), M.NumCols(), kUndefined);
  M.CopyToMat(&host);
  return host;
}

template <typename Real>
Vector<Real> ToHost(const CuVectorBase<Real> &v) {
  Vector<Real> host(v.Dim(), kUndefined);
  v.CopyToVec(&host);
  return host;
}

template <typename Real>
std::ostream &operator<<(std::ostream &os, const CuMatrixBase<Real> &M) {
  return os << M.Mat();
}

}  // namespace nnet3

#include "cudamatrix/cu-sparse-matrix.h"

#endif  // NNET3_CUDAMATRIX_CU_MATRIX_H_
