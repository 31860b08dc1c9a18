// matrix/matrix.h
// CPU matrices in float and double, with Kaldi's class structure:
//   MatrixBase<Real>: a (data, rows, cols, stride) view with the operations.
//   Matrix<Real>:     owns its memory; rows start on 16-byte boundaries
//                     (stride rounded up) unless kStrideEqualNumCols.
//   SubMatrix<Real>:  a view (row/column range) sharing memory.
// Layout: row-major, element (r, c) at data_[r * stride_ + c]; stride_ >=
// num_cols_. A matrix with zero rows has zero columns and no data, as in
// Kaldi. Dimension mismatches are NNET3_ASSERT failures.
// Index-vector operations use std::vector<int32>; an index of -1 means
// "no source": the row/column is zeroed by the Copy* operations and left
// alone by the Add* operations. Pointer-list operations treat nullptr the
// same way.
// I/O (Kaldi "FM"/"DM"/"CM*" binary and "[ ... ]" text) is in matrix/io.cc.
#ifndef NNET3_MATRIX_MATRIX_H_
#define NNET3_MATRIX_MATRIX_H_

#include <istream>
#include <ostream>
#include <vector>

#include "matrix/common.h"
#include "matrix/vector.h"

namespace nnet3 {

template <typename Real>
class MatrixBase {
 public:
  MatrixIndexT NumRows() const { return num_rows_; }
  MatrixIndexT NumCols() const { return num_cols_; }
  MatrixIndexT Stride() const { return stride_; }
  size_t SizeInBytes() const {
    return static_cast<size_t>(num_rows_) * stride_ * sizeof(Real);
  }
  Real *Data() { return data_; }
  const Real *Data() const { return data_; }
  Real *RowData(MatrixIndexT r) {
    NNET3_PARANOID_ASSERT(static_cast<uint32>(r) <
                          static_cast<uint32>(num_rows_));
    return data_ + static_cast<size_t>(r) * stride_;
  }
  const Real *RowData(MatrixIndexT r) const {
    NNET3_PARANOID_ASSERT(static_cast<uint32>(r) <
                          static_cast<uint32>(num_rows_));
    return data_ + static_cast<size_t>(r) * stride_;
  }
  Real &operator()(MatrixIndexT r, MatrixIndexT c) {
    NNET3_PARANOID_ASSERT(static_cast<uint32>(r) < static_cast<uint32>(num_rows_) &&
                          static_cast<uint32>(c) < static_cast<uint32>(num_cols_));
    return data_[static_cast<size_t>(r) * stride_ + c];
  }
  Real operator()(MatrixIndexT r, MatrixIndexT c) const {
    NNET3_PARANOID_ASSERT(static_cast<uint32>(r) < static_cast<uint32>(num_rows_) &&
                          static_cast<uint32>(c) < static_cast<uint32>(num_cols_));
    return data_[static_cast<size_t>(r) * stride_ + c];
  }

  // Views.
  SubVector<Real> Row(MatrixIndexT r) { return SubVector<Real>(*this, r); }
  const SubVector<Real> Row(MatrixIndexT r) const {
    return SubVector<Real>(*this, r);
  }
  SubMatrix<Real> Range(MatrixIndexT row_offset, MatrixIndexT num_rows,
                        MatrixIndexT col_offset, MatrixIndexT num_cols) const {
    return SubMatrix<Real>(*this, row_offset, num_rows, col_offset, num_cols);
  }
  SubMatrix<Real> RowRange(MatrixIndexT row_offset,
                           MatrixIndexT num_rows) const {
    return SubMatrix<Real>(*this, row_offset, num_rows, 0, num_cols_);
  }
  SubMatrix<Real> ColRange(MatrixIndexT col_offset,
                           MatrixIndexT num_cols) const {
    return SubMatrix<Real>(*this, 0, num_rows_, col_offset, num_cols);
  }

  // Filling.
  void SetZero();
  void Set(Real value);
  void SetUnit();  // identity (square or not: ones on the diagonal)
  void SetRandn();
  void SetRandUniform();
  void SetRandn(RandomSource *rs);
  void SetRandUniform(RandomSource *rs);

  // Copying. The transposed form needs this->NumRows() == M.NumCols().
  void CopyFromMat(const MatrixBase<Real> &M,
                   MatrixTransposeType trans = kNoTrans);
  template <typename OtherReal>
  void CopyFromMat(const MatrixBase<OtherReal> &M,
                   MatrixTransposeType trans = kNoTrans);
  void CopyFromMat(const CompressedMatrix &M);
  // v holds rows*cols values (rows concatenated) or cols values (each row
  // gets a copy).
  void CopyRowsFromVec(const VectorBase<Real> &v);
  template <typename OtherReal>
  void CopyRowsFromVec(const VectorBase<OtherReal> &v);
  void CopyColsFromVec(const VectorBase<Real> &v);
  void CopyColFromVec(const VectorBase<Real> &v, MatrixIndexT col);
  void CopyDiagFromVec(const VectorBase<Real> &v);

  // Elementwise arithmetic.
  void Add(Real alpha);                               // x += alpha
  void Scale(Real alpha);
  void AddMat(Real alpha, const MatrixBase<Real> &A,
              MatrixTransposeType trans = kNoTrans);  // this += alpha op(A)
  void MulElements(const MatrixBase<Real> &A);
  void DivElements(const MatrixBase<Real> &A);
  void Max(const MatrixBase<Real> &A);                // elementwise max
  void Min(const MatrixBase<Real> &A);
  void MulRowsVec(const VectorBase<Real> &scale);     // row r *= scale(r)
  void DivRowsVec(const VectorBase<Real> &div);       // row r /= div(r)
  void MulColsVec(const VectorBase<Real> &scale);     // col c *= scale(c)
  void AddVecToRows(Real alpha, const VectorBase<Real> &v, Real beta = 1.0);
  void AddVecToCols(Real alpha, const VectorBase<Real> &v, Real beta = 1.0);
  void InvertElements();

  // BLAS level 2/3.
  // this = beta * this + alpha * op(A) * op(B)   (gemm).
  void AddMatMat(Real alpha, const MatrixBase<Real> &A,
                 MatrixTransposeType transA, const MatrixBase<Real> &B,
                 MatrixTransposeType transB, Real beta);
  // this += alpha * a * b^T   (rank-one update, ger).
  void AddVecVec(Real alpha, const VectorBase<Real> &a,
                 const VectorBase<Real> &b);
  // this = beta * this + alpha * diag(v) * op(M).
  void AddDiagVecMat(Real alpha, const VectorBase<Real> &v,
                     const MatrixBase<Real> &M,
                     MatrixTransposeType trans = kNoTrans, Real beta = 1.0);
  // this = beta * this + alpha * op(M) * diag(v).
  void AddMatDiagVec(Real alpha, const MatrixBase<Real> &M,
                     MatrixTransposeType trans, const VectorBase<Real> &v,
                     Real beta = 1.0);
  // this = beta * this + alpha * A .* B.
  void AddMatMatElements(Real alpha, const MatrixBase<Real> &A,
                         const MatrixBase<Real> &B, Real beta);

  // Elementwise functions (in place).
  void ApplyFloor(Real floor_val);
  void ApplyCeiling(Real ceil_val);
  void ApplyExp();
  void ApplyLog();
  void ApplyAbs();
  void ApplyPow(Real power);
  void ApplyPowAbs(Real power, bool include_sign = false);
  void ApplyHeaviside();

  // Nonlinearities from a source (may be *this).
  void Sigmoid(const MatrixBase<Real> &src);
  void Tanh(const MatrixBase<Real> &src);
  // this = diff .* value .* (1 - value)   (backprop through sigmoid).
  void DiffSigmoid(const MatrixBase<Real> &value,
                   const MatrixBase<Real> &diff);
  // this = diff .* (1 - value^2)   (backprop through tanh).
  void DiffTanh(const MatrixBase<Real> &value, const MatrixBase<Real> &diff);
  void SoftMaxPerRow(const MatrixBase<Real> &src);
  void LogSoftMaxPerRow(const MatrixBase<Real> &src);

  // Row and column gathers/scatters (see the header comment for -1).
  // Row r of this = row indexes[r] of src (zero if -1).
  void CopyRows(const MatrixBase<Real> &src,
                const std::vector<int32> &indexes);
  // Row r of this = *src[r] (zero if nullptr); each pointer addresses
  // NumCols() values.
  void CopyRows(const std::vector<const Real *> &src);
  // Row indexes[r] of dst = row r of this (skipped if -1).
  void CopyToRows(const std::vector<int32> &indexes,
                  MatrixBase<Real> *dst) const;
  // *dst[r] = row r of this (skipped if nullptr).
  void CopyToRows(const std::vector<Real *> &dst) const;
  // Row r of this += alpha * row indexes[r] of src (skipped if -1).
  void AddRows(Real alpha, const MatrixBase<Real> &src,
               const std::vector<int32> &indexes);
  void AddRows(Real alpha, const std::vector<const Real *> &src);
  // Row indexes[r] of dst += alpha * row r of this (skipped if -1).
  void AddToRows(Real alpha, const std::vector<int32> &indexes,
                 MatrixBase<Real> *dst) const;
  void AddToRows(Real alpha, const std::vector<Real *> &dst) const;
  // Row r of this += sum of rows [indexes[r].first, indexes[r].second) of
  // src (an empty range adds nothing).
  void AddRowRanges(const MatrixBase<Real> &src,
                    const std::vector<Int32Pair> &indexes);
  // Column c of this = sum of columns [indexes[c].first,
  // indexes[c].second) of src.
  void SumColumnRanges(const MatrixBase<Real> &src,
                       const std::vector<Int32Pair> &indexes);
  // Column c of this = column indexes[c] of src (zero if -1).
  void CopyCols(const MatrixBase<Real> &src,
                const std::vector<int32> &indexes);
  // Column c of this += column indexes[c] of src (skipped if -1).
  void AddCols(const MatrixBase<Real> &src,
               const std::vector<int32> &indexes);

  // Reductions.
  Real Sum() const;
  Real Trace(bool check_square = true) const;
  Real Max() const;
  Real Min() const;
  Real FrobeniusNorm() const;
  bool IsZero(Real cutoff = 1.0e-05) const;
  bool IsFinite() const;
  bool ApproxEqual(const MatrixBase<Real> &other, float tol = 0.01) const;
  bool Equal(const MatrixBase<Real> &other) const;

  // Kaldi I/O (matrix/io.cc).
  void Write(std::ostream &os, bool binary) const;
  // Reads into a matrix of the right size (must already match), optionally
  // adding. Matrix<Real>::Read resizes.
  void Read(std::istream &is, bool binary, bool add = false);

 protected:
  MatrixBase() : data_(nullptr), num_cols_(0), num_rows_(0), stride_(0) {}
  MatrixBase(Real *data, MatrixIndexT cols, MatrixIndexT rows,
             MatrixIndexT stride)
      : data_(data), num_cols_(cols), num_rows_(rows), stride_(stride) {}
  ~MatrixBase() {}

  Real *data_;
  MatrixIndexT num_cols_;
  MatrixIndexT num_rows_;
  MatrixIndexT stride_;

 private:
  MatrixBase(const MatrixBase &) = delete;
  MatrixBase &operator=(const MatrixBase &) = delete;
};

template <typename Real>
class Matrix : public MatrixBase<Real> {
 public:
  Matrix() {}
  Matrix(MatrixIndexT rows, MatrixIndexT cols,
         MatrixResizeType resize_type = kSetZero,
         MatrixStrideType stride_type = kDefaultStride) {
    Resize(rows, cols, resize_type, stride_type);
  }
  Matrix(const Matrix<Real> &M) : MatrixBase<Real>() {
    Resize(M.NumRows(), M.NumCols(), kUndefined);
    this->CopyFromMat(M);
  }
  explicit Matrix(const MatrixBase<Real> &M,
                  MatrixTransposeType trans = kNoTrans);
  template <typename OtherReal>
  explicit Matrix(const MatrixBase<OtherReal> &M,
                  MatrixTransposeType trans = kNoTrans);
  explicit Matrix(const CompressedMatrix &M);
  Matrix(Matrix<Real> &&M) noexcept : MatrixBase<Real>() { Swap(&M); }
  ~Matrix() { Destroy(); }

  Matrix<Real> &operator=(const Matrix<Real> &M) {
    if (this != &M) {
      Resize(M.NumRows(), M.NumCols(), kUndefined);
      this->CopyFromMat(M);
    }
    return *this;
  }
  Matrix<Real> &operator=(const MatrixBase<Real> &M) {
    if (this != &M) {
      Resize(M.NumRows(), M.NumCols(), kUndefined);
      this->CopyFromMat(M);
    }
    return *this;
  }
  Matrix<Real> &operator=(Matrix<Real> &&M) noexcept {
    Swap(&M);
    return *this;
  }

  void Resize(MatrixIndexT rows, MatrixIndexT cols,
              MatrixResizeType resize_type = kSetZero,
              MatrixStrideType stride_type = kDefaultStride);
  void Swap(Matrix<Real> *other);
  void Transpose();
  void RemoveRow(MatrixIndexT i);

  // Reads any of "FM", "DM", "CM", "CM2", "CM3" (binary) or "[ ... ]" text,
  // resizing as needed.
  void Read(std::istream &is, bool binary, bool add = false);

 private:
  void Destroy();
};

template <typename Real>
class SubMatrix : public MatrixBase<Real> {
 public:
  SubMatrix(const MatrixBase<Real> &M, MatrixIndexT row_offset,
            MatrixIndexT num_rows, MatrixIndexT col_offset,
            MatrixIndexT num_cols);
  // A view of raw memory.
  SubMatrix(Real *data, MatrixIndexT num_rows, MatrixIndexT num_cols,
            MatrixIndexT stride);
  SubMatrix(const SubMatrix<Real> &other)
      : MatrixBase<Real>(other.data_, other.num_cols_, other.num_rows_,
                         other.stride_) {}
  ~SubMatrix() {}

 private:
  SubMatrix &operator=(const SubMatrix &) = delete;
};

// trace(op(A) * op(B)).
template <typename Real>
Real TraceMatMat(const MatrixBase<Real> &A, const MatrixBase<Real> &B,
                 MatrixTransposeType trans = kNoTrans);

template <typename Real>
bool SameDim(const MatrixBase<Real> &A, const MatrixBase<Real> &B) {
  return A.NumRows() == B.NumRows() && A.NumCols() == B.NumCols();
}

template <typename Real>
std::ostream &operator<<(std::ostream &os, const MatrixBase<Real> &M);

}  // namespace nnet3

#endif  // NNET3_MATRIX_MATRIX_H_
