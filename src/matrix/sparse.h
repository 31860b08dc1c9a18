// matrix/sparse.h
// Sparse vectors and matrices (float, double), as Kaldi stores one-hot and
// posterior-style targets and sparse features.
//   SparseVector<Real>: a dimension and a list of (index, value) pairs.
//   SparseMatrix<Real>: a list of SparseVector rows, all of the same dim.
// Invariants: the pairs of a SparseVector are sorted by index, indexes are
// unique and lie in [0, Dim()). Values may be zero only if they were read
// from a file that stored them (the constructors that take pairs or a dense
// vector drop zeros). Every row of a SparseMatrix has the same Dim(), which
// is NumCols(); a matrix with no rows has NumCols() == 0, as in Kaldi.
// Kaldi I/O, byte for byte:
//   SparseVector binary: "SV " int32 dim, int32 num_elems, then per element
//     int32 index and Real value (WriteBasicType: size byte + raw bytes; a
//     float file reads into double and vice versa). Text:
//     "dim=5 [ 1 0.5 3 2 ] ".
//   SparseMatrix binary: "SM " int32 num_rows, then each row as above.
//     Text: "rows=2 " then each row's text form, then "\n".
// Reading checks what Kaldi writes (ranges, sorted unique indexes, equal row
// dims) and throws UserError otherwise. One deliberate difference: Kaldi
// reads text values through a float even for SparseVector<double>; we read
// them as Real.
#ifndef NNET3_MATRIX_SPARSE_H_
#define NNET3_MATRIX_SPARSE_H_

#include <istream>
#include <ostream>
#include <utility>
#include <vector>

#include "matrix/common.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {

template <typename Real>
class SparseVector {
 public:
  typedef std::pair<MatrixIndexT, Real> Element;

  SparseVector() : dim_(0) {}
  explicit SparseVector(MatrixIndexT dim) : dim_(dim) {
    NNET3_ASSERT(dim >= 0);
  }
  // Sorts the pairs, sums the values of repeated indexes and drops the
  // elements whose (summed) value is zero. Indexes outside [0, dim) are a
  // UserError (they usually come from data, e.g. a pdf-id too large).
  SparseVector(MatrixIndexT dim, const std::vector<Element> &pairs);
  // Keeps the nonzero elements of vec.
  explicit SparseVector(const VectorBase<Real> &vec);

  MatrixIndexT Dim() const { return dim_; }
  MatrixIndexT NumElements() const {
    return static_cast<MatrixIndexT>(pairs_.size());
  }
  // The i'th stored element (0 <= i < NumElements()), not element i of the
  // vector.
  const Element &GetElement(MatrixIndexT i) const {
    NNET3_PARANOID_ASSERT(static_cast<size_t>(i) < pairs_.size());
    return pairs_[i];
  }
  // The stored elements (nullptr if there are none). Writing through Data()
  // must keep the indexes sorted and in range.
  Element *Data() { return pairs_.empty() ? nullptr : &pairs_[0]; }
  const Element *Data() const {
    return pairs_.empty() ? nullptr : &pairs_[0];
  }

  Real Sum() const;
  void Scale(Real alpha);
  // Each element is nonzero with probability 1 - zero_prob, and then
  // standard normal (from rs, or the thread's default source).
  void SetRandn(BaseFloat zero_prob);
  void SetRandn(BaseFloat zero_prob, RandomSource *rs);

  // *vec = this as a dense vector (vec->Dim() must equal Dim()).
  template <typename OtherReal>
  void CopyElementsToVec(VectorBase<OtherReal> *vec) const;
  // *vec += alpha * this.
  template <typename OtherReal>
  void AddToVec(Real alpha, VectorBase<OtherReal> *vec) const;
  template <typename OtherReal>
  void CopyFromSvec(const SparseVector<OtherReal> &other);

  // The largest element, counting the implicit zeros, and its index in
  // *index. Ties: a stored element beats an implicit zero; among stored
  // elements the first wins; among implicit zeros the lowest index. Needs
  // Dim() > 0.
  Real Max(MatrixIndexT *index) const;

  // kSetZero/kUndefined: no elements; kCopyData: keeps the elements whose
  // index is < dim.
  void Resize(MatrixIndexT dim, MatrixResizeType resize_type = kSetZero);
  void Swap(SparseVector<Real> *other);

  void Write(std::ostream &os, bool binary) const;
  void Read(std::istream &is, bool binary);

 private:
  MatrixIndexT dim_;
  std::vector<Element> pairs_;
};

// Dot product of a dense and a sparse vector of the same dim.
template <typename Real>
Real VecSvec(const VectorBase<Real> &vec, const SparseVector<Real> &svec);

template <typename Real>
class SparseMatrix {
 public:
  SparseMatrix() {}
  SparseMatrix(MatrixIndexT num_rows, MatrixIndexT num_cols) {
    Resize(num_rows, num_cols);
  }
  // Row r is SparseVector(dim, pairs[r]) (sorted, merged, zeros dropped).
  SparseMatrix(MatrixIndexT dim,
               const std::vector<std::vector<std::pair<MatrixIndexT, Real> > >
                   &pairs);
  // Keeps the nonzero elements of mat.
  explicit SparseMatrix(const MatrixBase<Real> &mat);
  // One-hot rows: row r has a 1 (or weights[r]) at column indexes[r], or is
  // empty if indexes[r] == -1; dim is the number of columns. With kTrans
  // the result is transposed (dim rows, indexes.size() columns).
  SparseMatrix(const std::vector<int32> &indexes, MatrixIndexT dim,
               MatrixTransposeType trans = kNoTrans);
  SparseMatrix(const std::vector<int32> &indexes,
               const VectorBase<Real> &weights, MatrixIndexT dim,
               MatrixTransposeType trans = kNoTrans);

  MatrixIndexT NumRows() const {
    return static_cast<MatrixIndexT>(rows_.size());
  }
  MatrixIndexT NumCols() const {
    return rows_.empty() ? 0 : rows_[0].Dim();
  }
  // Total number of stored elements.
  MatrixIndexT NumElements() const;

  const SparseVector<Real> &Row(MatrixIndexT r) const {
    NNET3_PARANOID_ASSERT(static_cast<size_t>(r) < rows_.size());
    return rows_[r];
  }
  // vec.Dim() must equal NumCols().
  void SetRow(MatrixIndexT r, const SparseVector<Real> &vec);

  Real Sum() const;
  Real FrobeniusNorm() const;
  void Scale(Real alpha);

  // *mat = op(this) (mat has the size of op(this)).
  template <typename OtherReal>
  void CopyToMat(MatrixBase<OtherReal> *mat,
                 MatrixTransposeType trans = kNoTrans) const;
  // *mat += alpha * op(this).
  void AddToMat(Real alpha, MatrixBase<Real> *mat,
                MatrixTransposeType trans = kNoTrans) const;
  // The stored values, row after row (vec->Dim() == NumElements()).
  void CopyElementsToVec(VectorBase<Real> *vec) const;
  // this = op(other). The transposed copy drops stored zeros.
  template <typename OtherReal>
  void CopyFromSmat(const SparseMatrix<OtherReal> &other,
                    MatrixTransposeType trans = kNoTrans);

  // Vertical concatenation: this = the rows of (*inputs)[0], then of
  // (*inputs)[1], ... The inputs are consumed (their rows are swapped out)
  // and *inputs is cleared. Rows of different dims are a UserError.
  void AppendSparseMatrixRows(std::vector<SparseMatrix<Real> > *inputs);
  // Row r of this = row row_indexes[r] of src (src may not be this).
  void SelectRows(const std::vector<int32> &row_indexes,
                  const SparseMatrix<Real> &src);

  // All rows empty with dim num_cols (kSetZero, kUndefined), or kCopyData:
  // keeps the elements that still fit.
  void Resize(MatrixIndexT num_rows, MatrixIndexT num_cols,
              MatrixResizeType resize_type = kSetZero);
  void Swap(SparseMatrix<Real> *other) { rows_.swap(other->rows_); }
  void SetRandn(BaseFloat zero_prob);
  void SetRandn(BaseFloat zero_prob, RandomSource *rs);

  void Write(std::ostream &os, bool binary) const;
  void Read(std::istream &is, bool binary);

 private:
  std::vector<SparseVector<Real> > rows_;
};

// trace(op(A) * B): with kNoTrans, A is B.NumCols() x B.NumRows() and the
// result is sum_ij A(i,j) B(j,i); with kTrans, A has B's size and the
// result is sum_ij A(i,j) B(i,j).
template <typename Real>
Real TraceMatSmat(const MatrixBase<Real> &A, const SparseMatrix<Real> &B,
                  MatrixTransposeType trans = kNoTrans);

// Keeps the rows r of in with keep_rows[r] true (keep_rows.size() must be
// in.NumRows()). Keeping no row is a UserError, as in Kaldi.
template <typename Real>
void FilterSparseMatrixRows(const SparseMatrix<Real> &in,
                            const std::vector<bool> &keep_rows,
                            SparseMatrix<Real> *out);

}  // namespace nnet3

#endif  // NNET3_MATRIX_SPARSE_H_
