// matrix/matrix.cc
#include "matrix/matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "matrix/blas-kernels.h"
#include "matrix/blas.h"
#include "matrix/exp-kernel.h"
#include "matrix/host-memory.h"
#include "matrix/row-threads.h"

namespace nnet3 {

namespace {
// Every program that uses matrices links this file: OpenBLAS's kernels are
// chosen here, before main (matrix/blas-kernels.h).
const bool kBlasKernelsChosen = (BlasKernelSelection(), true);
}  // namespace


// ---- Memory management ----------------------------------------------------

template <typename Real>
void Matrix<Real>::Resize(MatrixIndexT rows, MatrixIndexT cols,
                          MatrixResizeType resize_type,
                          MatrixStrideType stride_type) {
  NNET3_ASSERT(rows >= 0 && cols >= 0);
  if (rows == 0 || cols == 0) rows = cols = 0;
  if (resize_type == kCopyData) {
    if (this->data_ == nullptr || rows == 0) {
      resize_type = kSetZero;
    } else if (rows == this->num_rows_ && cols == this->num_cols_ &&
               (stride_type == kDefaultStride ||
                this->stride_ == this->num_cols_)) {
      return;
    } else if (rows < this->num_rows_ && cols == this->num_cols_ &&
               (stride_type == kDefaultStride ||
                this->stride_ == this->num_cols_) &&
               ShrinkHostBlock(this->data_,
                               static_cast<size_t>(this->num_rows_) *
                                   this->stride_ * sizeof(Real),
                               static_cast<size_t>(rows) * this->stride_ *
                                   sizeof(Real))) {
      // Dropping trailing rows: the block is cut in place, nothing copied.
      this->num_rows_ = rows;
      return;
    } else {
      Matrix<Real> tmp(rows, cols, kSetZero, stride_type);
      MatrixIndexT r = std::min(rows, this->num_rows_),
                   c = std::min(cols, this->num_cols_);
      tmp.Range(0, r, 0, c).CopyFromMat(this->Range(0, r, 0, c));
      Swap(&tmp);
      return;
    }
  }
  if (rows == this->num_rows_ && cols == this->num_cols_ &&
      (stride_type == kDefaultStride || this->stride_ == this->num_cols_)) {
    if (resize_type == kSetZero) this->SetZero();
    return;
  }
  Destroy();
  if (rows == 0) return;
  int64 stride64 = cols;
  if (stride_type == kDefaultStride) {
    // Round each row up to a multiple of 16 bytes.
    int64 per16 = 16 / sizeof(Real);
    stride64 = ((stride64 + per16 - 1) / per16) * per16;
  }
  if (stride64 > std::numeric_limits<MatrixIndexT>::max())
    throw std::bad_alloc();
  MatrixIndexT stride = static_cast<MatrixIndexT>(stride64);
  size_t bytes = static_cast<size_t>(rows) * stride * sizeof(Real);
  // Rows are 16-byte aligned by the stride; the start is cache-line aligned
  // (host-memory.h, which also keeps large freed blocks for reuse).
  this->data_ = static_cast<Real *>(AllocateHostBlock(bytes));
  this->num_rows_ = rows;
  this->num_cols_ = cols;
  this->stride_ = stride;
  if (resize_type == kSetZero) this->SetZero();
}

template <typename Real>
void Matrix<Real>::Destroy() {
  FreeHostBlock(this->data_, static_cast<size_t>(this->num_rows_) *
                                 this->stride_ * sizeof(Real));
  this->data_ = nullptr;
  this->num_rows_ = this->num_cols_ = this->stride_ = 0;
}

template <typename Real>
void Matrix<Real>::Swap(Matrix<Real> *other) {
  std::swap(this->data_, other->data_);
  std::swap(this->num_rows_, other->num_rows_);
  std::swap(this->num_cols_, other->num_cols_);
  std::swap(this->stride_, other->stride_);
}

template <typename Real>
Matrix<Real>::Matrix(const MatrixBase<Real> &M, MatrixTransposeType trans) {
  if (trans == kNoTrans) {
    Resize(M.NumRows(), M.NumCols(), kUndefined);
  } else {
    Resize(M.NumCols(), M.NumRows(), kUndefined);
  }
  this->CopyFromMat(M, trans);
}

template <typename Real>
template <typename OtherReal>
Matrix<Real>::Matrix(const MatrixBase<OtherReal> &M,
                     MatrixTransposeType trans) {
  if (trans == kNoTrans) {
    Resize(M.NumRows(), M.NumCols(), kUndefined);
  } else {
    Resize(M.NumCols(), M.NumRows(), kUndefined);
  }
  this->CopyFromMat(M, trans);
}

template <typename Real>
void Matrix<Real>::Transpose() {
  if (this->num_rows_ == 0) return;
  Matrix<Real> tmp(*this, kTrans);
  Swap(&tmp);
}

template <typename Real>
void Matrix<Real>::RemoveRow(MatrixIndexT i) {
  NNET3_ASSERT(i >= 0 && i < this->num_rows_);
  // A fresh block of the new size: the storage's size must stay what was
  // allocated (host-memory.h).
  Matrix<Real> tmp(this->num_rows_ - 1, this->num_cols_, kUndefined);
  for (MatrixIndexT r = 0; r + 1 < this->num_rows_; r++)
    std::memcpy(tmp.RowData(r), this->RowData(r < i ? r : r + 1),
                sizeof(Real) * this->num_cols_);
  Swap(&tmp);
}

template <typename Real>
SubMatrix<Real>::SubMatrix(const MatrixBase<Real> &M, MatrixIndexT row_offset,
                           MatrixIndexT num_rows, MatrixIndexT col_offset,
                           MatrixIndexT num_cols) {
  NNET3_ASSERT(row_offset >= 0 && num_rows >= 0 && col_offset >= 0 &&
               num_cols >= 0 && row_offset + num_rows <= M.NumRows() &&
               col_offset + num_cols <= M.NumCols());
  if (num_rows == 0 || num_cols == 0) {
    this->data_ = nullptr;
    this->num_rows_ = this->num_cols_ = 0;
    this->stride_ = M.Stride();
    return;
  }
  this->data_ = const_cast<Real *>(M.Data()) +
                static_cast<size_t>(row_offset) * M.Stride() + col_offset;
  this->num_rows_ = num_rows;
  this->num_cols_ = num_cols;
  this->stride_ = M.Stride();
}

template <typename Real>
SubMatrix<Real>::SubMatrix(Real *data, MatrixIndexT num_rows,
                           MatrixIndexT num_cols, MatrixIndexT stride)
    : MatrixBase<Real>(data, num_cols, num_rows, stride) {
  NNET3_ASSERT(num_rows >= 0 && num_cols >= 0 && stride >= num_cols);
  if (num_rows == 0 || num_cols == 0) {
    this->data_ = nullptr;
    this->num_rows_ = this->num_cols_ = 0;
  }
}

// ---- Filling and copying ---------------------------------------------------

template <typename Real>
void MatrixBase<Real>::SetZero() {
  if (num_rows_ == 0) return;
  ForRowBlocks(num_rows_, num_cols_, [this](MatrixIndexT r0, MatrixIndexT r1) {
    if (num_cols_ == stride_) {
      std::memset(RowData(r0), 0,
                  sizeof(Real) * static_cast<size_t>(r1 - r0) * stride_);
    } else {
      for (MatrixIndexT r = r0; r < r1; r++)
        std::memset(RowData(r), 0, sizeof(Real) * num_cols_);
    }
  });
}

template <typename Real>
void MatrixBase<Real>::Set(Real value) {
  ForRowBlocks(num_rows_, num_cols_, [&](MatrixIndexT r0, MatrixIndexT r1) {
    for (MatrixIndexT r = r0; r < r1; r++)
      std::fill(RowData(r), RowData(r) + num_cols_, value);
  });
}

template <typename Real>
void MatrixBase<Real>::SetUnit() {
  SetZero();
  for (MatrixIndexT i = 0; i < std::min(num_rows_, num_cols_); i++)
    (*this)(i, i) = 1.0;
}

template <typename Real>
void MatrixBase<Real>::SetRandn(RandomSource *rs) {
  for (MatrixIndexT r = 0; r < num_rows_; r++) Row(r).SetRandn(rs);
}
template <typename Real>
void MatrixBase<Real>::SetRandUniform(RandomSource *rs) {
  for (MatrixIndexT r = 0; r < num_rows_; r++) Row(r).SetRandUniform(rs);
}
template <typename Real>
void MatrixBase<Real>::SetRandn() { SetRandn(&DefaultRandomSource()); }
template <typename Real>
void MatrixBase<Real>::SetRandUniform() {
  SetRandUniform(&DefaultRandomSource());
}

template <typename Real>
void MatrixBase<Real>::CopyFromMat(const MatrixBase<Real> &M,
                                   MatrixTransposeType trans) {
  if (static_cast<const void *>(&M) == static_cast<const void *>(this) &&
      trans == kNoTrans)
    return;
  if (trans == kNoTrans) {
    NNET3_ASSERT(num_rows_ == M.NumRows() && num_cols_ == M.NumCols());
    auto copy_rows = [&](MatrixIndexT row_begin, MatrixIndexT row_end) {
      for (MatrixIndexT r = row_begin; r < row_end; r++)
        std::memmove(RowData(r), M.RowData(r), sizeof(Real) * num_cols_);
    };
    if (RowsIndependent(M, *this))
      ForRowBlocks(num_rows_, num_cols_, copy_rows);
    else
      copy_rows(0, num_rows_);
  } else {
    NNET3_ASSERT(num_rows_ == M.NumCols() && num_cols_ == M.NumRows());
    NNET3_ASSERT(M.Data() != data_ || num_rows_ == 0);
    // Blocked transpose for cache friendliness.
    const MatrixIndexT B = 32;
    for (MatrixIndexT r0 = 0; r0 < num_rows_; r0 += B) {
      MatrixIndexT r1 = std::min(num_rows_, r0 + B);
      for (MatrixIndexT c0 = 0; c0 < num_cols_; c0 += B) {
        MatrixIndexT c1 = std::min(num_cols_, c0 + B);
        for (MatrixIndexT r = r0; r < r1; r++) {
          Real *out = RowData(r);
          for (MatrixIndexT c = c0; c < c1; c++) out[c] = M(c, r);
        }
      }
    }
  }
}

template <typename Real>
template <typename OtherReal>
void MatrixBase<Real>::CopyFromMat(const MatrixBase<OtherReal> &M,
                                   MatrixTransposeType trans) {
  if (trans == kNoTrans) {
    NNET3_ASSERT(num_rows_ == M.NumRows() && num_cols_ == M.NumCols());
    for (MatrixIndexT r = 0; r < num_rows_; r++) {
      Real *out = RowData(r);
      const OtherReal *in = M.RowData(r);
      for (MatrixIndexT c = 0; c < num_cols_; c++)
        out[c] = static_cast<Real>(in[c]);
    }
  } else {
    NNET3_ASSERT(num_rows_ == M.NumCols() && num_cols_ == M.NumRows());
    for (MatrixIndexT r = 0; r < num_rows_; r++) {
      Real *out = RowData(r);
      for (MatrixIndexT c = 0; c < num_cols_; c++)
        out[c] = static_cast<Real>(M(c, r));
    }
  }
}

template <typename Real>
void MatrixBase<Real>::CopyRowsFromVec(const VectorBase<Real> &v) {
  const bool whole = v.Dim() == num_rows_ * num_cols_;
  if (!whole) NNET3_ASSERT(v.Dim() == num_cols_);
  const auto rows = [&](MatrixIndexT r0, MatrixIndexT r1) {
    for (MatrixIndexT r = r0; r < r1; r++)
      std::memcpy(RowData(r),
                  whole ? v.Data() + static_cast<size_t>(r) * num_cols_
                        : v.Data(),
                  sizeof(Real) * num_cols_);
  };
  // The vector may be a row of this matrix (then the rows are copied in
  // order, as one thread would).
  if (num_rows_ == 0 || v.Dim() == 0 ||
      SpansDisjoint(v.Data(), v.Data() + v.Dim(), data_,
                    RowData(num_rows_ - 1) + num_cols_))
    ForRowBlocks(num_rows_, num_cols_, rows);
  else
    rows(0, num_rows_);
}

template <typename Real>
template <typename OtherReal>
void MatrixBase<Real>::CopyRowsFromVec(const VectorBase<OtherReal> &v) {
  if (v.Dim() == num_rows_ * num_cols_) {
    const OtherReal *in = v.Data();
    for (MatrixIndexT r = 0; r < num_rows_; r++, in += num_cols_) {
      Real *out = RowData(r);
      for (MatrixIndexT c = 0; c < num_cols_; c++) out[c] = in[c];
    }
  } else {
    NNET3_ASSERT(v.Dim() == num_cols_);
    for (MatrixIndexT r = 0; r < num_rows_; r++) {
      Real *out = RowData(r);
      for (MatrixIndexT c = 0; c < num_cols_; c++) out[c] = v.Data()[c];
    }
  }
}

template <typename Real>
void MatrixBase<Real>::CopyColsFromVec(const VectorBase<Real> &v) {
  if (v.Dim() == num_rows_ * num_cols_) {
    const Real *in = v.Data();
    for (MatrixIndexT c = 0; c < num_cols_; c++, in += num_rows_)
      for (MatrixIndexT r = 0; r < num_rows_; r++) (*this)(r, c) = in[r];
  } else {
    NNET3_ASSERT(v.Dim() == num_rows_);
    for (MatrixIndexT r = 0; r < num_rows_; r++) {
      Real *out = RowData(r);
      for (MatrixIndexT c = 0; c < num_cols_; c++) out[c] = v.Data()[r];
    }
  }
}

template <typename Real>
void MatrixBase<Real>::CopyColFromVec(const VectorBase<Real> &v,
                                      MatrixIndexT col) {
  NNET3_ASSERT(v.Dim() == num_rows_ && col >= 0 && col < num_cols_);
  for (MatrixIndexT r = 0; r < num_rows_; r++) (*this)(r, col) = v.Data()[r];
}

template <typename Real>
void MatrixBase<Real>::CopyDiagFromVec(const VectorBase<Real> &v) {
  NNET3_ASSERT(v.Dim() == std::min(num_rows_, num_cols_));
  for (MatrixIndexT i = 0; i < v.Dim(); i++) (*this)(i, i) = v.Data()[i];
}

// ---- Elementwise arithmetic ------------------------------------------------

// Applies f(out_row_pointer, in_row_pointer, num_cols) row by row.
// Elementwise work on every row; large matrices are shared out over the
// library's threads in row blocks (matrix/row-threads.h).
#define NNET3_FOR_EACH_ROW(body)                                      \
  ForRowBlocks(num_rows_, num_cols_,                                  \
               [&](MatrixIndexT row_begin, MatrixIndexT row_end) {    \
                 for (MatrixIndexT r = row_begin; r < row_end; r++) { \
                   Real *row = RowData(r);                            \
                   (void)row;                                         \
                   body;                                              \
                 }                                                    \
               });

template <typename Real>
void MatrixBase<Real>::Add(Real alpha) {
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] += alpha)
}

template <typename Real>
void MatrixBase<Real>::Scale(Real alpha) {
  if (alpha == 1.0) return;
  if (alpha == 0.0) {
    SetZero();
    return;
  }
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] *= alpha)
}

template <typename Real>
void MatrixBase<Real>::AddMat(Real alpha, const MatrixBase<Real> &A,
                              MatrixTransposeType trans) {
  if (trans == kNoTrans) {
    NNET3_ASSERT(A.NumRows() == num_rows_ && A.NumCols() == num_cols_);
    auto add_rows = [&](MatrixIndexT row_begin, MatrixIndexT row_end) {
      for (MatrixIndexT r = row_begin; r < row_end; r++) {
        Real *out = RowData(r);
        const Real *in = A.RowData(r);
        if (alpha == 1.0) {
          for (MatrixIndexT c = 0; c < num_cols_; c++) out[c] += in[c];
        } else {
          for (MatrixIndexT c = 0; c < num_cols_; c++) out[c] += alpha * in[c];
        }
      }
    };
    if (RowsIndependent(A, *this))
      ForRowBlocks(num_rows_, num_cols_, add_rows);
    else
      add_rows(0, num_rows_);
  } else {
    NNET3_ASSERT(A.NumCols() == num_rows_ && A.NumRows() == num_cols_);
    if (A.Data() == data_ && num_rows_ > 0) {
      // this += alpha * this^T (square): handle the pairs together.
      for (MatrixIndexT r = 0; r < num_rows_; r++) {
        for (MatrixIndexT c = 0; c < r; c++) {
          Real a = (*this)(r, c), b = (*this)(c, r);
          (*this)(r, c) = a + alpha * b;
          (*this)(c, r) = b + alpha * a;
        }
        (*this)(r, r) *= (1.0 + alpha);
      }
      return;
    }
    for (MatrixIndexT r = 0; r < num_rows_; r++) {
      Real *out = RowData(r);
      for (MatrixIndexT c = 0; c < num_cols_; c++) out[c] += alpha * A(c, r);
    }
  }
}

#define NNET3_BINARY_ELEMENTWISE(NAME, EXPR)                              \
  template <typename Real>                                                \
  void MatrixBase<Real>::NAME(const MatrixBase<Real> &A) {                \
    NNET3_ASSERT(A.NumRows() == num_rows_ && A.NumCols() == num_cols_);   \
    auto rows = [&](MatrixIndexT row_begin, MatrixIndexT row_end) {       \
      for (MatrixIndexT r = row_begin; r < row_end; r++) {                \
        Real *x = RowData(r);                                             \
        const Real *y = A.RowData(r);                                     \
        for (MatrixIndexT c = 0; c < num_cols_; c++) x[c] = (EXPR);       \
      }                                                                   \
    };                                                                    \
    if (RowsIndependent(A, *this))                                        \
      ForRowBlocks(num_rows_, num_cols_, rows);                           \
    else                                                                  \
      rows(0, num_rows_);                                                 \
  }

NNET3_BINARY_ELEMENTWISE(MulElements, x[c] * y[c])
NNET3_BINARY_ELEMENTWISE(DivElements, x[c] / y[c])
NNET3_BINARY_ELEMENTWISE(Max, std::max(x[c], y[c]))
NNET3_BINARY_ELEMENTWISE(Min, std::min(x[c], y[c]))
#undef NNET3_BINARY_ELEMENTWISE

template <typename Real>
void MatrixBase<Real>::MulRowsVec(const VectorBase<Real> &scale) {
  NNET3_ASSERT(scale.Dim() == num_rows_);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real s = scale.Data()[r];
    Real *row = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] *= s;
  }
}

template <typename Real>
void MatrixBase<Real>::DivRowsVec(const VectorBase<Real> &div) {
  NNET3_ASSERT(div.Dim() == num_rows_);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real d = div.Data()[r];
    Real *row = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] /= d;
  }
}

template <typename Real>
void MatrixBase<Real>::MulColsVec(const VectorBase<Real> &scale) {
  NNET3_ASSERT(scale.Dim() == num_cols_);
  const Real *s = scale.Data();
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] *= s[c])
}

template <typename Real>
void MatrixBase<Real>::AddVecToRows(Real alpha, const VectorBase<Real> &v,
                                    Real beta) {
  NNET3_ASSERT(v.Dim() == num_cols_);
  const Real *in = v.Data();
  if (beta == 1.0) {
    NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] += alpha * in[c])
  } else if (beta == 0.0) {
    NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = alpha * in[c])
  } else {
    NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = beta * row[c] + alpha * in[c])
  }
}

template <typename Real>
void MatrixBase<Real>::AddVecToCols(Real alpha, const VectorBase<Real> &v,
                                    Real beta) {
  NNET3_ASSERT(v.Dim() == num_rows_);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *row = RowData(r);
    Real a = alpha * v.Data()[r];
    if (beta == 0.0) {
      for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = a;
    } else {
      for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = beta * row[c] + a;
    }
  }
}

template <typename Real>
void MatrixBase<Real>::InvertElements() {
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = 1.0 / row[c])
}

// ---- BLAS ------------------------------------------------------------------

template <typename Real>
void MatrixBase<Real>::AddMatMat(Real alpha, const MatrixBase<Real> &A,
                                 MatrixTransposeType transA,
                                 const MatrixBase<Real> &B,
                                 MatrixTransposeType transB, Real beta) {
  MatrixIndexT m = (transA == kNoTrans ? A.NumRows() : A.NumCols()),
               k = (transA == kNoTrans ? A.NumCols() : A.NumRows()),
               kb = (transB == kNoTrans ? B.NumRows() : B.NumCols()),
               n = (transB == kNoTrans ? B.NumCols() : B.NumRows());
  // A matrix with no rows also has no columns, so a zero inner dimension can
  // show up as a mismatch of 0 against something; allow that.
  NNET3_ASSERT(k == kb || (A.NumRows() == 0 || B.NumRows() == 0));
  NNET3_ASSERT(m == num_rows_ || num_rows_ == 0);
  NNET3_ASSERT(n == num_cols_ || num_rows_ == 0);
  NNET3_ASSERT(A.Data() != data_ || num_rows_ == 0);
  NNET3_ASSERT(B.Data() != data_ || num_rows_ == 0);
  if (num_rows_ == 0) return;
  if (k == 0 || kb == 0) {
    Scale(beta);
    return;
  }
  blas::gemm(transA, transB, m, n, k, alpha, A.Data(), A.Stride(), B.Data(),
             B.Stride(), beta, data_, stride_);
}

template <typename Real>
void MatrixBase<Real>::AddVecVec(Real alpha, const VectorBase<Real> &a,
                                 const VectorBase<Real> &b) {
  NNET3_ASSERT(a.Dim() == num_rows_ && b.Dim() == num_cols_);
  if (num_rows_ == 0) return;
  blas::ger(num_rows_, num_cols_, alpha, a.Data(), 1, b.Data(), 1, data_,
            stride_);
}

template <typename Real>
void MatrixBase<Real>::AddDiagVecMat(Real alpha, const VectorBase<Real> &v,
                                     const MatrixBase<Real> &M,
                                     MatrixTransposeType trans, Real beta) {
  NNET3_ASSERT(v.Dim() == num_rows_);
  if (trans == kNoTrans) {
    NNET3_ASSERT(M.NumRows() == num_rows_ && M.NumCols() == num_cols_);
  } else {
    NNET3_ASSERT(M.NumCols() == num_rows_ && M.NumRows() == num_cols_);
  }
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *out = RowData(r);
    Real s = alpha * v.Data()[r];
    for (MatrixIndexT c = 0; c < num_cols_; c++) {
      Real m = (trans == kNoTrans ? M(r, c) : M(c, r));
      out[c] = (beta == 0.0 ? 0.0 : beta * out[c]) + s * m;
    }
  }
}

template <typename Real>
void MatrixBase<Real>::AddMatDiagVec(Real alpha, const MatrixBase<Real> &M,
                                     MatrixTransposeType trans,
                                     const VectorBase<Real> &v, Real beta) {
  NNET3_ASSERT(v.Dim() == num_cols_);
  if (trans == kNoTrans) {
    NNET3_ASSERT(M.NumRows() == num_rows_ && M.NumCols() == num_cols_);
  } else {
    NNET3_ASSERT(M.NumCols() == num_rows_ && M.NumRows() == num_cols_);
  }
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *out = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++) {
      Real m = (trans == kNoTrans ? M(r, c) : M(c, r));
      out[c] = (beta == 0.0 ? 0.0 : beta * out[c]) + alpha * m * v.Data()[c];
    }
  }
}

template <typename Real>
void MatrixBase<Real>::AddMatMatElements(Real alpha, const MatrixBase<Real> &A,
                                         const MatrixBase<Real> &B,
                                         Real beta) {
  NNET3_ASSERT(SameDim(A, *this) && SameDim(B, *this));
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *out = RowData(r);
    const Real *a = A.RowData(r), *b = B.RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      out[c] = (beta == 0.0 ? 0.0 : beta * out[c]) + alpha * a[c] * b[c];
  }
}

// ---- Elementwise functions -------------------------------------------------

template <typename Real>
void MatrixBase<Real>::ApplyFloor(Real floor_val) {
  // Written as a select (not a conditional store) so that it vectorizes;
  // the same result, NaN kept, -0 kept.
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = (row[c] < floor_val ? floor_val : row[c]))
}
template <typename Real>
void MatrixBase<Real>::ApplyCeiling(Real ceil_val) {
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = (row[c] > ceil_val ? ceil_val : row[c]))
}
template <typename Real>
void MatrixBase<Real>::ApplyExp() {
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = std::exp(row[c]))
}
template <typename Real>
void MatrixBase<Real>::ApplyLog() {
  for (MatrixIndexT r = 0; r < num_rows_; r++) Row(r).ApplyLog();
}
template <typename Real>
void MatrixBase<Real>::ApplyAbs() {
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = std::abs(row[c]))
}
template <typename Real>
void MatrixBase<Real>::ApplyPow(Real power) {
  for (MatrixIndexT r = 0; r < num_rows_; r++) Row(r).ApplyPow(power);
}
template <typename Real>
void MatrixBase<Real>::ApplyPowAbs(Real power, bool include_sign) {
  for (MatrixIndexT r = 0; r < num_rows_; r++)
    Row(r).ApplyPowAbs(power, include_sign);
}
template <typename Real>
void MatrixBase<Real>::ApplyHeaviside() {
  NNET3_FOR_EACH_ROW(for (MatrixIndexT c = 0; c < num_cols_; c++) row[c] = row[c] > 0 ? 1.0 : 0.0)
}

template <typename Real>
void MatrixBase<Real>::Sigmoid(const MatrixBase<Real> &src) {
  NNET3_ASSERT(SameDim(src, *this));
  for (MatrixIndexT r = 0; r < num_rows_; r++) Row(r).Sigmoid(src.Row(r));
}

template <typename Real>
void MatrixBase<Real>::Tanh(const MatrixBase<Real> &src) {
  NNET3_ASSERT(SameDim(src, *this));
  for (MatrixIndexT r = 0; r < num_rows_; r++) Row(r).Tanh(src.Row(r));
}

template <typename Real>
void MatrixBase<Real>::DiffSigmoid(const MatrixBase<Real> &value,
                                   const MatrixBase<Real> &diff) {
  NNET3_ASSERT(SameDim(value, *this) && SameDim(diff, *this));
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *out = RowData(r);
    const Real *y = value.RowData(r), *d = diff.RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      out[c] = d[c] * y[c] * (1.0 - y[c]);
  }
}

template <typename Real>
void MatrixBase<Real>::DiffTanh(const MatrixBase<Real> &value,
                                const MatrixBase<Real> &diff) {
  NNET3_ASSERT(SameDim(value, *this) && SameDim(diff, *this));
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *out = RowData(r);
    const Real *y = value.RowData(r), *d = diff.RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      out[c] = d[c] * (1.0 - y[c] * y[c]);
  }
}

template <typename Real>
void MatrixBase<Real>::SoftMaxPerRow(const MatrixBase<Real> &src) {
  NNET3_ASSERT(SameDim(src, *this));
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    SubVector<Real> row(*this, r);
    row.CopyFromVec(src.Row(r));
    row.ApplySoftMax();
  }
}

template <typename Real>
void MatrixBase<Real>::LogSoftMaxPerRow(const MatrixBase<Real> &src) {
  NNET3_ASSERT(SameDim(src, *this));
  auto rows = [&](MatrixIndexT row_begin, MatrixIndexT row_end) {
    for (MatrixIndexT r = row_begin; r < row_end; r++) {
      if constexpr (std::is_same<Real, float>::value) {
        // What the copy and ApplyLogSoftMax below do, one pass fewer.
        exp_kernel::LogSoftMax(reinterpret_cast<const float *>(src.RowData(r)),
                               reinterpret_cast<float *>(RowData(r)),
                               num_cols_);
      } else {
        SubVector<Real> row(*this, r);
        row.CopyFromVec(src.Row(r));
        row.ApplyLogSoftMax();
      }
    }
  };
  if (RowsIndependent(src, *this))
    ForRowBlocks(num_rows_, num_cols_, rows);
  else
    rows(0, num_rows_);
}

// ---- Gathers and scatters --------------------------------------------------

template <typename Real>
void MatrixBase<Real>::CopyRows(const MatrixBase<Real> &src,
                                const std::vector<int32> &indexes) {
  NNET3_ASSERT(static_cast<MatrixIndexT>(indexes.size()) == num_rows_ &&
               src.NumCols() == num_cols_);
  const auto rows = [&](MatrixIndexT r0, MatrixIndexT r1) {
    for (MatrixIndexT r = r0; r < r1; r++) {
      int32 i = indexes[r];
      if (i < 0) {
        std::memset(RowData(r), 0, sizeof(Real) * num_cols_);
      } else {
        NNET3_ASSERT(i < src.NumRows());
        std::memcpy(RowData(r), src.RowData(i), sizeof(Real) * num_cols_);
      }
    }
  };
  // Each row of *this is written once; the source may be read from any
  // block unless it shares memory with *this.
  if (StorageDisjoint(src, *this))
    ForRowBlocks(num_rows_, num_cols_, rows);
  else
    rows(0, num_rows_);
}

template <typename Real>
void MatrixBase<Real>::CopyRows(const std::vector<const Real *> &src) {
  NNET3_ASSERT(static_cast<MatrixIndexT>(src.size()) == num_rows_);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    if (src[r] == nullptr)
      std::memset(RowData(r), 0, sizeof(Real) * num_cols_);
    else
      std::memcpy(RowData(r), src[r], sizeof(Real) * num_cols_);
  }
}

template <typename Real>
void MatrixBase<Real>::CopyToRows(const std::vector<int32> &indexes,
                                  MatrixBase<Real> *dst) const {
  NNET3_ASSERT(static_cast<MatrixIndexT>(indexes.size()) == num_rows_ &&
               dst->NumCols() == num_cols_);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    int32 i = indexes[r];
    if (i < 0) continue;
    NNET3_ASSERT(i < dst->NumRows());
    std::memcpy(dst->RowData(i), RowData(r), sizeof(Real) * num_cols_);
  }
}

template <typename Real>
void MatrixBase<Real>::CopyToRows(const std::vector<Real *> &dst) const {
  NNET3_ASSERT(static_cast<MatrixIndexT>(dst.size()) == num_rows_);
  for (MatrixIndexT r = 0; r < num_rows_; r++)
    if (dst[r] != nullptr)
      std::memcpy(dst[r], RowData(r), sizeof(Real) * num_cols_);
}

template <typename Real>
static inline void AxpyRow(MatrixIndexT n, Real alpha, const Real *x,
                           Real *y) {
  if (alpha == 1.0) {
    for (MatrixIndexT c = 0; c < n; c++) y[c] += x[c];
  } else {
    for (MatrixIndexT c = 0; c < n; c++) y[c] += alpha * x[c];
  }
}

template <typename Real>
void MatrixBase<Real>::AddRows(Real alpha, const MatrixBase<Real> &src,
                               const std::vector<int32> &indexes) {
  NNET3_ASSERT(static_cast<MatrixIndexT>(indexes.size()) == num_rows_ &&
               src.NumCols() == num_cols_);
  const auto rows = [&](MatrixIndexT r0, MatrixIndexT r1) {
    for (MatrixIndexT r = r0; r < r1; r++) {
      int32 i = indexes[r];
      if (i < 0) continue;
      NNET3_ASSERT(i < src.NumRows());
      AxpyRow(num_cols_, alpha, src.RowData(i), RowData(r));
    }
  };
  if (StorageDisjoint(src, *this))
    ForRowBlocks(num_rows_, num_cols_, rows);
  else
    rows(0, num_rows_);
}

template <typename Real>
void MatrixBase<Real>::AddRows(Real alpha,
                               const std::vector<const Real *> &src) {
  NNET3_ASSERT(static_cast<MatrixIndexT>(src.size()) == num_rows_);
  for (MatrixIndexT r = 0; r < num_rows_; r++)
    if (src[r] != nullptr) AxpyRow(num_cols_, alpha, src[r], RowData(r));
}

template <typename Real>
void MatrixBase<Real>::AddToRows(Real alpha, const std::vector<int32> &indexes,
                                 MatrixBase<Real> *dst) const {
  NNET3_ASSERT(static_cast<MatrixIndexT>(indexes.size()) == num_rows_ &&
               dst->NumCols() == num_cols_);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    int32 i = indexes[r];
    if (i < 0) continue;
    NNET3_ASSERT(i < dst->NumRows());
    AxpyRow(num_cols_, alpha, RowData(r), dst->RowData(i));
  }
}

template <typename Real>
void MatrixBase<Real>::AddToRows(Real alpha,
                                 const std::vector<Real *> &dst) const {
  NNET3_ASSERT(static_cast<MatrixIndexT>(dst.size()) == num_rows_);
  for (MatrixIndexT r = 0; r < num_rows_; r++)
    if (dst[r] != nullptr) AxpyRow(num_cols_, alpha, RowData(r), dst[r]);
}

template <typename Real>
void MatrixBase<Real>::AddRowRanges(const MatrixBase<Real> &src,
                                    const std::vector<Int32Pair> &indexes) {
  NNET3_ASSERT(static_cast<MatrixIndexT>(indexes.size()) == num_rows_ &&
               src.NumCols() == num_cols_);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    const Int32Pair &p = indexes[r];
    NNET3_ASSERT(p.first >= 0 && p.first <= p.second &&
                 (p.second <= src.NumRows() || p.first == p.second));
    Real *out = RowData(r);
    for (int32 j = p.first; j < p.second; j++)
      AxpyRow(num_cols_, Real(1.0), src.RowData(j), out);
  }
}

template <typename Real>
void MatrixBase<Real>::SumColumnRanges(const MatrixBase<Real> &src,
                                       const std::vector<Int32Pair> &indexes) {
  NNET3_ASSERT(static_cast<MatrixIndexT>(indexes.size()) == num_cols_ &&
               src.NumRows() == num_rows_);
  for (const Int32Pair &p : indexes)
    NNET3_ASSERT(p.first >= 0 && p.first <= p.second &&
                 (p.second <= src.NumCols() || p.first == p.second));
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *out = RowData(r);
    const Real *in = src.RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++) {
      Real sum = 0.0;
      for (int32 j = indexes[c].first; j < indexes[c].second; j++)
        sum += in[j];
      out[c] = sum;
    }
  }
}

template <typename Real>
void MatrixBase<Real>::CopyCols(const MatrixBase<Real> &src,
                                const std::vector<int32> &indexes) {
  NNET3_ASSERT(static_cast<MatrixIndexT>(indexes.size()) == num_cols_ &&
               src.NumRows() == num_rows_);
  for (int32 i : indexes) NNET3_ASSERT(i < src.NumCols());
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *out = RowData(r);
    const Real *in = src.RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      out[c] = indexes[c] < 0 ? 0.0 : in[indexes[c]];
  }
}

template <typename Real>
void MatrixBase<Real>::AddCols(const MatrixBase<Real> &src,
                               const std::vector<int32> &indexes) {
  NNET3_ASSERT(static_cast<MatrixIndexT>(indexes.size()) == num_cols_ &&
               src.NumRows() == num_rows_);
  for (int32 i : indexes) NNET3_ASSERT(i < src.NumCols());
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    Real *out = RowData(r);
    const Real *in = src.RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      if (indexes[c] >= 0) out[c] += in[indexes[c]];
  }
}

// ---- Reductions ------------------------------------------------------------

template <typename Real>
Real MatrixBase<Real>::Sum() const {
  double sum = 0.0;
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    const Real *row = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++) sum += row[c];
  }
  return static_cast<Real>(sum);
}

template <typename Real>
Real MatrixBase<Real>::Trace(bool check_square) const {
  NNET3_ASSERT(!check_square || num_rows_ == num_cols_);
  double sum = 0.0;
  for (MatrixIndexT i = 0; i < std::min(num_rows_, num_cols_); i++)
    sum += (*this)(i, i);
  return static_cast<Real>(sum);
}

template <typename Real>
Real MatrixBase<Real>::Max() const {
  NNET3_ASSERT(num_rows_ > 0 && num_cols_ > 0);
  Real ans = (*this)(0, 0);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    const Real *row = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      if (row[c] > ans) ans = row[c];
  }
  return ans;
}

template <typename Real>
Real MatrixBase<Real>::Min() const {
  NNET3_ASSERT(num_rows_ > 0 && num_cols_ > 0);
  Real ans = (*this)(0, 0);
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    const Real *row = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      if (row[c] < ans) ans = row[c];
  }
  return ans;
}

template <typename Real>
Real MatrixBase<Real>::FrobeniusNorm() const {
  double sum = 0.0;
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    const Real *row = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      sum += static_cast<double>(row[c]) * row[c];
  }
  return static_cast<Real>(std::sqrt(sum));
}

template <typename Real>
bool MatrixBase<Real>::IsZero(Real cutoff) const {
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    const Real *row = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      if (std::abs(row[c]) > cutoff) return false;
  }
  return true;
}

template <typename Real>
bool MatrixBase<Real>::IsFinite() const {
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    const Real *row = RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++)
      if (!std::isfinite(row[c])) return false;
  }
  return true;
}

template <typename Real>
bool MatrixBase<Real>::ApproxEqual(const MatrixBase<Real> &other,
                                   float tol) const {
  NNET3_ASSERT(SameDim(*this, other));
  double diff2 = 0.0, norm2 = 0.0;
  for (MatrixIndexT r = 0; r < num_rows_; r++) {
    const Real *a = RowData(r), *b = other.RowData(r);
    for (MatrixIndexT c = 0; c < num_cols_; c++) {
      double d = static_cast<double>(a[c]) - b[c];
      diff2 += d * d;
      norm2 += static_cast<double>(a[c]) * a[c];
    }
  }
  return std::sqrt(diff2) <= tol * std::sqrt(norm2);
}

template <typename Real>
bool MatrixBase<Real>::Equal(const MatrixBase<Real> &other) const {
  if (!SameDim(*this, other)) return false;
  for (MatrixIndexT r = 0; r < num_rows_; r++)
    if (std::memcmp(RowData(r), other.RowData(r), sizeof(Real) * num_cols_))
      return false;
  return true;
}

template <typename Real>
Real TraceMatMat(const MatrixBase<Real> &A, const MatrixBase<Real> &B,
                 MatrixTransposeType trans) {
  // One BLAS dot product per row of A, summed in Real, as Kaldi does (the
  // trainer's max-change and the natural-gradient scale depend on these
  // sums, so their rounding is part of matching Kaldi's numbers).
  // The per-row products may come from several threads; they are added
  // here in row order, so the sum has the same bits for any thread count.
  if (trans == kNoTrans)
    NNET3_ASSERT(A.NumCols() == B.NumRows() && A.NumRows() == B.NumCols());
  else
    NNET3_ASSERT(SameDim(A, B));
  const MatrixIndexT rows = A.NumRows(), cols = A.NumCols();
  const auto row_dot = [&](MatrixIndexT i) {
    return trans == kNoTrans
               // trace(A B) = sum_i (row i of A) . (column i of B)
               ? blas::dot(cols, A.RowData(i), 1, B.Data() + i, B.Stride())
               // trace(A B^T) = sum_i (row i of A) . (row i of B)
               : blas::dot(cols, A.RowData(i), 1, B.RowData(i), 1);
  };
  Real sum = 0;
  if (static_cast<int64_t>(rows) * cols < kMinParallelElements) {
    for (MatrixIndexT i = 0; i < rows; i++) sum += row_dot(i);
    return sum;
  }
  std::vector<Real> row_dots(rows);
  ForRowBlocks(rows, cols, [&](MatrixIndexT r0, MatrixIndexT r1) {
    for (MatrixIndexT i = r0; i < r1; i++) row_dots[i] = row_dot(i);
  });
  for (MatrixIndexT i = 0; i < rows; i++) sum += row_dots[i];
  return sum;
}

template <typename Real>
std::ostream &operator<<(std::ostream &os, const MatrixBase<Real> &M) {
  M.Write(os, false);
  return os;
}

#define NNET3_INSTANTIATE_MATRIX(R, O)                                        \
  template class MatrixBase<R>;                                               \
  template class Matrix<R>;                                                   \
  template class SubMatrix<R>;                                                \
  template Matrix<R>::Matrix(const MatrixBase<O> &, MatrixTransposeType);     \
  template void MatrixBase<R>::CopyFromMat(const MatrixBase<O> &,             \
                                           MatrixTransposeType);              \
  template void MatrixBase<R>::CopyRowsFromVec(const VectorBase<O> &);        \
  template R TraceMatMat(const MatrixBase<R> &, const MatrixBase<R> &,        \
                         MatrixTransposeType);                                \
  template std::ostream &operator<<(std::ostream &, const MatrixBase<R> &);

NNET3_INSTANTIATE_MATRIX(float, double)
NNET3_INSTANTIATE_MATRIX(double, float)

}  // namespace nnet3
