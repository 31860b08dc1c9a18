// matrix/sparse.cc
#include "matrix/sparse.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

namespace nnet3 {

namespace {

// Parses the decimal digits after a "dim=" or "rows=" prefix. Returns -1 if
// the text is not a plain non-negative int32.
int64 ParseCount(const std::string &digits) {
  if (digits.empty() || digits.size() > 10) return -1;
  int64 value = 0;
  for (char c : digits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
    value = value * 10 + (c - '0');
  }
  if (value > std::numeric_limits<int32>::max()) return -1;
  return value;
}

}  // namespace

// ---------------------------------------------------------------------------
// SparseVector

template <typename Real>
SparseVector<Real>::SparseVector(MatrixIndexT dim,
                                 const std::vector<Element> &pairs)
    : dim_(dim), pairs_(pairs) {
  NNET3_ASSERT(dim >= 0);
  // Sorting whole pairs (index, then value) fixes the order in which the
  // values of a repeated index are added, so the rounding matches Kaldi's.
  std::sort(pairs_.begin(), pairs_.end());
  size_t out = 0, n = pairs_.size();
  for (size_t in = 0; in < n;) {
    Element merged = pairs_[in++];
    while (in < n && pairs_[in].first == merged.first)
      merged.second += pairs_[in++].second;
    if (merged.second != Real(0)) pairs_[out++] = merged;
  }
  pairs_.resize(out);
  if (!pairs_.empty() &&
      (pairs_.front().first < 0 || pairs_.back().first >= dim_))
    NNET3_ERR << "SparseVector: index "
              << (pairs_.front().first < 0 ? pairs_.front().first
                                           : pairs_.back().first)
              << " is out of range for dimension " << dim_;
}

template <typename Real>
SparseVector<Real>::SparseVector(const VectorBase<Real> &vec)
    : dim_(vec.Dim()) {
  const Real *data = vec.Data();
  for (MatrixIndexT i = 0; i < dim_; i++)
    if (data[i] != Real(0)) pairs_.push_back(Element(i, data[i]));
}

template <typename Real>
Real SparseVector<Real>::Sum() const {
  Real sum = 0;
  for (const Element &e : pairs_) sum += e.second;
  return sum;
}

template <typename Real>
void SparseVector<Real>::Scale(Real alpha) {
  for (Element &e : pairs_) e.second *= alpha;
}

template <typename Real>
void SparseVector<Real>::SetRandn(BaseFloat zero_prob) {
  SetRandn(zero_prob, &DefaultRandomSource());
}

template <typename Real>
void SparseVector<Real>::SetRandn(BaseFloat zero_prob, RandomSource *rs) {
  NNET3_ASSERT(zero_prob >= 0.0 && zero_prob <= 1.0);
  pairs_.clear();
  for (MatrixIndexT i = 0; i < dim_; i++)
    if (rs->WithProb(1.0 - zero_prob))
      pairs_.push_back(Element(i, static_cast<Real>(rs->Gauss())));
}

template <typename Real>
template <typename OtherReal>
void SparseVector<Real>::CopyElementsToVec(VectorBase<OtherReal> *vec) const {
  NNET3_ASSERT(vec->Dim() == dim_);
  vec->SetZero();
  OtherReal *data = vec->Data();
  for (const Element &e : pairs_)
    data[e.first] = static_cast<OtherReal>(e.second);
}

template <typename Real>
template <typename OtherReal>
void SparseVector<Real>::AddToVec(Real alpha,
                                  VectorBase<OtherReal> *vec) const {
  NNET3_ASSERT(vec->Dim() == dim_);
  OtherReal *data = vec->Data();
  for (const Element &e : pairs_)
    data[e.first] += static_cast<OtherReal>(alpha * e.second);
}

template <typename Real>
template <typename OtherReal>
void SparseVector<Real>::CopyFromSvec(const SparseVector<OtherReal> &other) {
  dim_ = other.Dim();
  MatrixIndexT n = other.NumElements();
  pairs_.resize(n);
  for (MatrixIndexT i = 0; i < n; i++) {
    const std::pair<MatrixIndexT, OtherReal> &e = other.GetElement(i);
    pairs_[i] = Element(e.first, static_cast<Real>(e.second));
  }
}

template <typename Real>
Real SparseVector<Real>::Max(MatrixIndexT *index) const {
  NNET3_ASSERT(dim_ > 0);
  Real best = -std::numeric_limits<Real>::infinity();
  MatrixIndexT best_index = -1;
  for (const Element &e : pairs_) {
    if (e.second > best) {
      best = e.second;
      best_index = e.first;
    }
  }
  bool has_implicit_zero = static_cast<MatrixIndexT>(pairs_.size()) < dim_;
  if (best_index >= 0 && (best >= Real(0) || !has_implicit_zero)) {
    *index = best_index;
    return best;
  }
  if (!has_implicit_zero) {  // all stored elements are NaN
    *index = pairs_.empty() ? 0 : pairs_[0].first;
    return pairs_.empty() ? Real(0) : pairs_[0].second;
  }
  // Every stored element is negative: the answer is 0, at the first index
  // that is not stored.
  MatrixIndexT next = 0;
  for (const Element &e : pairs_) {
    if (e.first != next) break;
    next++;
  }
  NNET3_ASSERT(next < dim_);
  *index = next;
  return Real(0);
}

template <typename Real>
void SparseVector<Real>::Resize(MatrixIndexT dim,
                                MatrixResizeType resize_type) {
  NNET3_ASSERT(dim >= 0);
  if (resize_type != kCopyData) {
    pairs_.clear();
  } else {
    while (!pairs_.empty() && pairs_.back().first >= dim) pairs_.pop_back();
  }
  dim_ = dim;
}

template <typename Real>
void SparseVector<Real>::Swap(SparseVector<Real> *other) {
  std::swap(dim_, other->dim_);
  pairs_.swap(other->pairs_);
}

template <typename Real>
void SparseVector<Real>::Write(std::ostream &os, bool binary) const {
  if (binary) {
    WriteToken(os, binary, "SV");
    WriteBasicType(os, binary, static_cast<int32>(dim_));
    WriteBasicType(os, binary, static_cast<int32>(pairs_.size()));
    for (const Element &e : pairs_) {
      WriteBasicType(os, binary, static_cast<int32>(e.first));
      WriteBasicType(os, binary, e.second);
    }
  } else {
    os << "dim=" << dim_ << " [ ";
    for (const Element &e : pairs_) os << e.first << ' ' << e.second << ' ';
    os << "] ";
  }
  if (os.fail()) NNET3_ERR << "SparseVector::Write: write failure";
}

template <typename Real>
void SparseVector<Real>::Read(std::istream &is, bool binary) {
  std::vector<Element> pairs;
  int32 dim = 0;
  if (binary) {
    ExpectToken(is, binary, "SV");
    long long pos = StreamPosition(is);
    ReadBasicType(is, binary, &dim);
    if (dim < 0)
      NNET3_ERR << "SparseVector::Read: negative dimension " << dim
                << " at file position " << pos;
    int32 num_elems = 0;
    pos = StreamPosition(is);
    ReadBasicType(is, binary, &num_elems);
    if (num_elems < 0 || num_elems > dim)
      NNET3_ERR << "SparseVector::Read: bad number of elements " << num_elems
                << " for dimension " << dim << " at file position " << pos;
    // Do not trust num_elems for the allocation: a corrupt file would make
    // us allocate before failing.
    pairs.reserve(std::min<int32>(num_elems, 1 << 16));
    for (int32 n = 0; n < num_elems; n++) {
      pos = StreamPosition(is);
      int32 index;
      Real value;
      ReadBasicType(is, binary, &index);
      ReadBasicType(is, binary, &value);
      if (index < 0 || index >= dim ||
          (!pairs.empty() && index <= pairs.back().first))
        NNET3_ERR << "SparseVector::Read: index " << index
                  << (index < 0 || index >= dim
                          ? " out of range for dimension " + std::to_string(dim)
                          : std::string(" not in increasing order"))
                  << " at file position " << pos;
      pairs.push_back(Element(index, value));
    }
  } else {
    is >> std::ws;
    long long pos = StreamPosition(is);
    std::string str;
    is >> str;
    if (is.fail() || str.compare(0, 4, "dim=") != 0)
      NNET3_ERR << "SparseVector::Read: expected 'dim=<int>', got "
                << (is.fail() ? std::string("end of file")
                              : PrintableString(str))
                << " at file position " << pos;
    int64 parsed = ParseCount(str.substr(4));
    if (parsed < 0)
      NNET3_ERR << "SparseVector::Read: expected 'dim=<int>', got "
                << PrintableString(str) << " at file position " << pos;
    dim = static_cast<int32>(parsed);
    is >> std::ws;
    pos = StreamPosition(is);
    is >> str;
    if (is.fail() || str != "[")
      NNET3_ERR << "SparseVector::Read: expected '[', got "
                << (is.fail() ? std::string("end of file")
                              : PrintableString(str))
                << " at file position " << pos;
    while (true) {
      is >> std::ws;
      pos = StreamPosition(is);
      int c = is.peek();
      if (c == ']') {
        is.get();
        break;
      }
      if (c == EOF)
        NNET3_ERR << "SparseVector::Read: unexpected end of file before ']'";
      long long index;
      Real value;
      is >> index >> value;
      if (is.fail())
        NNET3_ERR << "SparseVector::Read: expected '<index> <value>' or ']'"
                  << " at file position " << pos;
      if (index < 0 || index >= dim ||
          (!pairs.empty() && index <= pairs.back().first))
        NNET3_ERR << "SparseVector::Read: index " << index
                  << (index < 0 || index >= dim
                          ? " out of range for dimension " + std::to_string(dim)
                          : std::string(" not in increasing order"))
                  << " at file position " << pos;
      pairs.push_back(Element(static_cast<MatrixIndexT>(index), value));
    }
  }
  dim_ = dim;
  pairs_.swap(pairs);
}

template <typename Real>
Real VecSvec(const VectorBase<Real> &vec, const SparseVector<Real> &svec) {
  NNET3_ASSERT(vec.Dim() == svec.Dim());
  const Real *data = vec.Data();
  const std::pair<MatrixIndexT, Real> *elems = svec.Data();
  MatrixIndexT n = svec.NumElements();
  Real sum = 0;
  for (MatrixIndexT e = 0; e < n; e++)
    sum += data[elems[e].first] * elems[e].second;
  return sum;
}

// ---------------------------------------------------------------------------
// SparseMatrix

template <typename Real>
SparseMatrix<Real>::SparseMatrix(
    MatrixIndexT dim,
    const std::vector<std::vector<std::pair<MatrixIndexT, Real> > > &pairs) {
  rows_.reserve(pairs.size());
  for (const auto &row_pairs : pairs)
    rows_.push_back(SparseVector<Real>(dim, row_pairs));
}

template <typename Real>
SparseMatrix<Real>::SparseMatrix(const MatrixBase<Real> &mat) {
  MatrixIndexT num_rows = mat.NumRows();
  rows_.reserve(num_rows);
  for (MatrixIndexT r = 0; r < num_rows; r++)
    rows_.push_back(SparseVector<Real>(mat.Row(r)));
}

template <typename Real>
SparseMatrix<Real>::SparseMatrix(const std::vector<int32> &indexes,
                                 MatrixIndexT dim,
                                 MatrixTransposeType trans) {
  Vector<Real> weights(static_cast<MatrixIndexT>(indexes.size()),
                       kUndefined);
  weights.Set(Real(1));
  SparseMatrix<Real> tmp(indexes, weights, dim, trans);
  Swap(&tmp);
}

template <typename Real>
SparseMatrix<Real>::SparseMatrix(const std::vector<int32> &indexes,
                                 const VectorBase<Real> &weights,
                                 MatrixIndexT dim,
                                 MatrixTransposeType trans) {
  NNET3_ASSERT(static_cast<size_t>(weights.Dim()) == indexes.size());
  NNET3_ASSERT(dim >= 0);
  MatrixIndexT n = static_cast<MatrixIndexT>(indexes.size());
  std::vector<std::vector<std::pair<MatrixIndexT, Real> > > pairs(
      trans == kNoTrans ? n : dim);
  for (MatrixIndexT i = 0; i < n; i++) {
    int32 j = indexes[i];
    if (j < 0) continue;
    if (j >= dim)
      NNET3_ERR << "SparseMatrix: index " << j << " out of range for dim "
                << dim;
    if (trans == kNoTrans)
      pairs[i].push_back(std::make_pair(j, weights(i)));
    else
      pairs[j].push_back(std::make_pair(i, weights(i)));
  }
  SparseMatrix<Real> tmp(trans == kNoTrans ? dim : n, pairs);
  Swap(&tmp);
}

template <typename Real>
MatrixIndexT SparseMatrix<Real>::NumElements() const {
  MatrixIndexT n = 0;
  for (const SparseVector<Real> &row : rows_) n += row.NumElements();
  return n;
}

template <typename Real>
void SparseMatrix<Real>::SetRow(MatrixIndexT r,
                                const SparseVector<Real> &vec) {
  NNET3_ASSERT(r >= 0 && r < NumRows());
  NNET3_ASSERT(vec.Dim() == NumCols());
  rows_[r] = vec;
}

template <typename Real>
Real SparseMatrix<Real>::Sum() const {
  Real sum = 0;
  for (const SparseVector<Real> &row : rows_) sum += row.Sum();
  return sum;
}

template <typename Real>
Real SparseMatrix<Real>::FrobeniusNorm() const {
  Real sum = 0;
  for (const SparseVector<Real> &row : rows_) {
    const std::pair<MatrixIndexT, Real> *e = row.Data();
    for (MatrixIndexT i = 0, n = row.NumElements(); i < n; i++)
      sum += e[i].second * e[i].second;
  }
  return std::sqrt(sum);
}

template <typename Real>
void SparseMatrix<Real>::Scale(Real alpha) {
  for (SparseVector<Real> &row : rows_) row.Scale(alpha);
}

template <typename Real>
template <typename OtherReal>
void SparseMatrix<Real>::CopyToMat(MatrixBase<OtherReal> *mat,
                                   MatrixTransposeType trans) const {
  MatrixIndexT num_rows = NumRows(), num_cols = NumCols();
  if (trans == kNoTrans) {
    NNET3_ASSERT(mat->NumRows() == num_rows && mat->NumCols() == num_cols);
    for (MatrixIndexT r = 0; r < num_rows; r++) {
      SubVector<OtherReal> row(*mat, r);
      rows_[r].CopyElementsToVec(&row);
    }
  } else {
    NNET3_ASSERT(mat->NumRows() == num_cols && mat->NumCols() == num_rows);
    mat->SetZero();
    OtherReal *data = mat->Data();
    MatrixIndexT stride = mat->Stride();
    for (MatrixIndexT r = 0; r < num_rows; r++) {
      const std::pair<MatrixIndexT, Real> *e = rows_[r].Data();
      for (MatrixIndexT i = 0, n = rows_[r].NumElements(); i < n; i++)
        data[static_cast<size_t>(e[i].first) * stride + r] =
            static_cast<OtherReal>(e[i].second);
    }
  }
}

template <typename Real>
void SparseMatrix<Real>::AddToMat(Real alpha, MatrixBase<Real> *mat,
                                  MatrixTransposeType trans) const {
  MatrixIndexT num_rows = NumRows(), num_cols = NumCols();
  if (trans == kNoTrans) {
    NNET3_ASSERT(mat->NumRows() == num_rows && mat->NumCols() == num_cols);
    for (MatrixIndexT r = 0; r < num_rows; r++) {
      SubVector<Real> row(*mat, r);
      rows_[r].AddToVec(alpha, &row);
    }
  } else {
    NNET3_ASSERT(mat->NumRows() == num_cols && mat->NumCols() == num_rows);
    Real *data = mat->Data();
    MatrixIndexT stride = mat->Stride();
    for (MatrixIndexT r = 0; r < num_rows; r++) {
      const std::pair<MatrixIndexT, Real> *e = rows_[r].Data();
      for (MatrixIndexT i = 0, n = rows_[r].NumElements(); i < n; i++)
        data[static_cast<size_t>(e[i].first) * stride + r] +=
            alpha * e[i].second;
    }
  }
}

template <typename Real>
void SparseMatrix<Real>::CopyElementsToVec(VectorBase<Real> *vec) const {
  NNET3_ASSERT(vec->Dim() == NumElements());
  Real *out = vec->Data();
  for (const SparseVector<Real> &row : rows_) {
    const std::pair<MatrixIndexT, Real> *e = row.Data();
    for (MatrixIndexT i = 0, n = row.NumElements(); i < n; i++)
      *out++ = e[i].second;
  }
}

template <typename Real>
template <typename OtherReal>
void SparseMatrix<Real>::CopyFromSmat(const SparseMatrix<OtherReal> &other,
                                      MatrixTransposeType trans) {
  if (trans == kNoTrans) {
    rows_.resize(other.NumRows());
    for (MatrixIndexT r = 0; r < other.NumRows(); r++)
      rows_[r].CopyFromSvec(other.Row(r));
  } else {
    std::vector<std::vector<std::pair<MatrixIndexT, Real> > > pairs(
        other.NumCols());
    for (MatrixIndexT r = 0; r < other.NumRows(); r++) {
      const SparseVector<OtherReal> &row = other.Row(r);
      for (MatrixIndexT i = 0, n = row.NumElements(); i < n; i++) {
        const std::pair<MatrixIndexT, OtherReal> &e = row.GetElement(i);
        pairs[e.first].push_back(
            std::make_pair(r, static_cast<Real>(e.second)));
      }
    }
    SparseMatrix<Real> tmp(other.NumRows(), pairs);
    Swap(&tmp);
  }
}

template <typename Real>
void SparseMatrix<Real>::AppendSparseMatrixRows(
    std::vector<SparseMatrix<Real> > *inputs) {
  size_t num_rows = 0;
  for (const SparseMatrix<Real> &m : *inputs) num_rows += m.rows_.size();
  std::vector<SparseVector<Real> > rows(num_rows);
  size_t r = 0;
  for (SparseMatrix<Real> &m : *inputs)
    for (SparseVector<Real> &row : m.rows_) rows[r++].Swap(&row);
  for (size_t i = 1; i < rows.size(); i++)
    if (rows[i].Dim() != rows[0].Dim())
      NNET3_ERR << "AppendSparseMatrixRows: rows of inconsistent dimensions, "
                << rows[i].Dim() << " vs. " << rows[0].Dim();
  rows_.swap(rows);
  inputs->clear();
}

template <typename Real>
void SparseMatrix<Real>::SelectRows(const std::vector<int32> &row_indexes,
                                    const SparseMatrix<Real> &src) {
  NNET3_ASSERT(&src != this);
  rows_.resize(row_indexes.size());
  for (size_t i = 0; i < row_indexes.size(); i++) {
    int32 r = row_indexes[i];
    NNET3_ASSERT(r >= 0 && r < src.NumRows());
    rows_[i] = src.rows_[r];
  }
}

template <typename Real>
void SparseMatrix<Real>::Resize(MatrixIndexT num_rows, MatrixIndexT num_cols,
                                MatrixResizeType resize_type) {
  NNET3_ASSERT(num_rows >= 0 && num_cols >= 0);
  if (resize_type != kCopyData) rows_.clear();
  MatrixIndexT kept = std::min<MatrixIndexT>(NumRows(), num_rows);
  rows_.resize(num_rows, SparseVector<Real>(num_cols));
  for (MatrixIndexT r = 0; r < kept; r++) rows_[r].Resize(num_cols, kCopyData);
}

template <typename Real>
void SparseMatrix<Real>::SetRandn(BaseFloat zero_prob) {
  SetRandn(zero_prob, &DefaultRandomSource());
}

template <typename Real>
void SparseMatrix<Real>::SetRandn(BaseFloat zero_prob, RandomSource *rs) {
  for (SparseVector<Real> &row : rows_) row.SetRandn(zero_prob, rs);
}

template <typename Real>
void SparseMatrix<Real>::Write(std::ostream &os, bool binary) const {
  if (binary) {
    WriteToken(os, binary, "SM");
    WriteBasicType(os, binary, static_cast<int32>(rows_.size()));
    for (const SparseVector<Real> &row : rows_) row.Write(os, binary);
  } else {
    os << "rows=" << rows_.size() << " ";
    for (const SparseVector<Real> &row : rows_) row.Write(os, binary);
    os << "\n";
  }
  if (os.fail()) NNET3_ERR << "SparseMatrix::Write: write failure";
}

template <typename Real>
void SparseMatrix<Real>::Read(std::istream &is, bool binary) {
  int32 num_rows = 0;
  long long pos;
  if (binary) {
    ExpectToken(is, binary, "SM");
    pos = StreamPosition(is);
    ReadBasicType(is, binary, &num_rows);
    if (num_rows < 0)
      NNET3_ERR << "SparseMatrix::Read: negative number of rows " << num_rows
                << " at file position " << pos;
  } else {
    is >> std::ws;
    pos = StreamPosition(is);
    std::string str;
    is >> str;
    if (is.fail() || str.compare(0, 5, "rows=") != 0)
      NNET3_ERR << "SparseMatrix::Read: expected 'rows=<int>', got "
                << (is.fail() ? std::string("end of file")
                              : PrintableString(str))
                << " at file position " << pos;
    int64 parsed = ParseCount(str.substr(5));
    if (parsed < 0)
      NNET3_ERR << "SparseMatrix::Read: expected 'rows=<int>', got "
                << PrintableString(str) << " at file position " << pos;
    num_rows = static_cast<int32>(parsed);
  }
  std::vector<SparseVector<Real> > rows;
  rows.reserve(std::min<int32>(num_rows, 1 << 16));
  for (int32 r = 0; r < num_rows; r++) {
    pos = StreamPosition(is);
    rows.push_back(SparseVector<Real>());
    rows.back().Read(is, binary);
    if (rows.back().Dim() != rows[0].Dim())
      NNET3_ERR << "SparseMatrix::Read: row " << r << " has dimension "
                << rows.back().Dim() << ", row 0 has " << rows[0].Dim()
                << " (file position " << pos << ")";
  }
  rows_.swap(rows);
}

template <typename Real>
Real TraceMatSmat(const MatrixBase<Real> &A, const SparseMatrix<Real> &B,
                  MatrixTransposeType trans) {
  Real sum = 0;
  MatrixIndexT num_rows = B.NumRows();
  if (trans == kTrans) {
    NNET3_ASSERT(A.NumRows() == num_rows && A.NumCols() == B.NumCols());
    for (MatrixIndexT r = 0; r < num_rows; r++)
      sum += VecSvec(A.Row(r), B.Row(r));
  } else {
    NNET3_ASSERT(A.NumRows() == B.NumCols() && A.NumCols() == num_rows);
    const Real *data = A.Data();
    MatrixIndexT stride = A.Stride();
    // sum_ij A(i,j) B(j,i): row j of B pairs with column j of A.
    for (MatrixIndexT j = 0; j < num_rows; j++) {
      const SparseVector<Real> &row = B.Row(j);
      const std::pair<MatrixIndexT, Real> *e = row.Data();
      Real col_sum = 0;
      for (MatrixIndexT k = 0, n = row.NumElements(); k < n; k++)
        col_sum += data[static_cast<size_t>(e[k].first) * stride + j] *
                   e[k].second;
      sum += col_sum;
    }
  }
  return sum;
}

template <typename Real>
void FilterSparseMatrixRows(const SparseMatrix<Real> &in,
                            const std::vector<bool> &keep_rows,
                            SparseMatrix<Real> *out) {
  NNET3_ASSERT(keep_rows.size() == static_cast<size_t>(in.NumRows()));
  NNET3_ASSERT(out != &in);
  MatrixIndexT num_kept = static_cast<MatrixIndexT>(
      std::count(keep_rows.begin(), keep_rows.end(), true));
  if (num_kept == 0) NNET3_ERR << "FilterSparseMatrixRows: no kept rows";
  out->Resize(num_kept, in.NumCols());
  MatrixIndexT out_row = 0;
  for (MatrixIndexT r = 0; r < in.NumRows(); r++)
    if (keep_rows[r]) out->SetRow(out_row++, in.Row(r));
}

// Explicit instantiations.
template class SparseVector<float>;
template class SparseVector<double>;
template class SparseMatrix<float>;
template class SparseMatrix<double>;

#define NNET3_INSTANTIATE_SPARSE_CROSS(R, O)                                 \
  template void SparseVector<R>::CopyElementsToVec(VectorBase<O> *) const;  \
  template void SparseVector<R>::AddToVec(R, VectorBase<O> *) const;        \
  template void SparseVector<R>::CopyFromSvec(const SparseVector<O> &);     \
  template void SparseMatrix<R>::CopyToMat(MatrixBase<O> *,                 \
                                           MatrixTransposeType) const;      \
  template void SparseMatrix<R>::CopyFromSmat(const SparseMatrix<O> &,      \
                                              MatrixTransposeType);
NNET3_INSTANTIATE_SPARSE_CROSS(float, float)
NNET3_INSTANTIATE_SPARSE_CROSS(float, double)
NNET3_INSTANTIATE_SPARSE_CROSS(double, float)
NNET3_INSTANTIATE_SPARSE_CROSS(double, double)
#undef NNET3_INSTANTIATE_SPARSE_CROSS

template float VecSvec(const VectorBase<float> &, const SparseVector<float> &);
template double VecSvec(const VectorBase<double> &,
                        const SparseVector<double> &);
template float TraceMatSmat(const MatrixBase<float> &,
                            const SparseMatrix<float> &, MatrixTransposeType);
template double TraceMatSmat(const MatrixBase<double> &,
                             const SparseMatrix<double> &,
                             MatrixTransposeType);
template void FilterSparseMatrixRows(const SparseMatrix<float> &,
                                     const std::vector<bool> &,
                                     SparseMatrix<float> *);
template void FilterSparseMatrixRows(const SparseMatrix<double> &,
                                     const std::vector<bool> &,
                                     SparseMatrix<double> *);

}  // namespace nnet3
