// matrix/vector.cc
#include "matrix/vector.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <type_traits>

#include "matrix/blas.h"
#include "matrix/exp-kernel.h"
#include "matrix/host-memory.h"
#include "matrix/matrix.h"
#include "matrix/row-threads.h"

namespace nnet3 {

template <typename Real>
void Vector<Real>::Resize(MatrixIndexT dim, MatrixResizeType t) {
  NNET3_ASSERT(dim >= 0);
  if (dim == this->dim_) {
    if (t == kSetZero) this->SetZero();
    return;
  }
  if (t == kCopyData) {
    Vector<Real> tmp(dim, kUndefined);
    MatrixIndexT n = std::min(dim, this->dim_);
    if (n > 0) std::memcpy(tmp.data_, this->data_, sizeof(Real) * n);
    if (dim > n) std::memset(tmp.data_ + n, 0, sizeof(Real) * (dim - n));
    Swap(&tmp);
    return;
  }
  Destroy();
  if (dim > 0) {
    this->data_ = static_cast<Real *>(AllocateHostBlock(sizeof(Real) * dim));
    this->dim_ = dim;
    if (t == kSetZero) this->SetZero();
  }
}

template <typename Real>
void Vector<Real>::Destroy() {
  FreeHostBlock(this->data_, sizeof(Real) * static_cast<size_t>(this->dim_));
  this->data_ = nullptr;
  this->dim_ = 0;
}

template <typename Real>
void Vector<Real>::Swap(Vector<Real> *other) {
  std::swap(this->data_, other->data_);
  std::swap(this->dim_, other->dim_);
}

template <typename Real>
void Vector<Real>::RemoveElement(MatrixIndexT i) {
  NNET3_ASSERT(i >= 0 && i < this->dim_);
  // A fresh block of the new size: the storage's size must stay what was
  // allocated (host-memory.h).
  Vector<Real> tmp(this->dim_ - 1, kUndefined);
  if (i > 0) std::memcpy(tmp.data_, this->data_, sizeof(Real) * i);
  if (i + 1 < this->dim_)
    std::memcpy(tmp.data_ + i, this->data_ + i + 1,
                sizeof(Real) * (this->dim_ - i - 1));
  Swap(&tmp);
}

template <typename Real>
SubVector<Real>::SubVector(const VectorBase<Real> &t, MatrixIndexT origin,
                           MatrixIndexT length) {
  NNET3_ASSERT(origin >= 0 && length >= 0 && origin + length <= t.Dim());
  this->data_ = length == 0 ? nullptr
                            : const_cast<Real *>(t.Data()) + origin;
  this->dim_ = length;
}

template <typename Real>
SubVector<Real>::SubVector(Real *data, MatrixIndexT length) {
  NNET3_ASSERT(length >= 0 && (data != nullptr || length == 0));
  this->data_ = length == 0 ? nullptr : data;
  this->dim_ = length;
}

template <typename Real>
SubVector<Real>::SubVector(const MatrixBase<Real> &matrix, MatrixIndexT row) {
  NNET3_ASSERT(row >= 0 && row < matrix.NumRows());
  this->data_ = const_cast<Real *>(matrix.RowData(row));
  this->dim_ = matrix.NumCols();
  if (this->dim_ == 0) this->data_ = nullptr;
}

template <typename Real>
void VectorBase<Real>::SetZero() {
  if (dim_ > 0) std::memset(data_, 0, sizeof(Real) * dim_);
}

template <typename Real>
void VectorBase<Real>::Set(Real f) {
  std::fill(data_, data_ + dim_, f);
}

template <typename Real>
bool VectorBase<Real>::IsZero(Real cutoff) const {
  for (MatrixIndexT i = 0; i < dim_; i++)
    if (std::abs(data_[i]) > cutoff) return false;
  return true;
}

template <typename Real>
void VectorBase<Real>::SetRandn(RandomSource *rs) {
  for (MatrixIndexT i = 0; i < dim_; i++)
    data_[i] = static_cast<Real>(rs->Gauss());
}
template <typename Real>
void VectorBase<Real>::SetRandUniform(RandomSource *rs) {
  for (MatrixIndexT i = 0; i < dim_; i++)
    data_[i] = static_cast<Real>(rs->Uniform());
}
template <typename Real>
void VectorBase<Real>::SetRandn() { SetRandn(&DefaultRandomSource()); }
template <typename Real>
void VectorBase<Real>::SetRandUniform() {
  SetRandUniform(&DefaultRandomSource());
}

template <typename Real>
void VectorBase<Real>::CopyFromVec(const VectorBase<Real> &v) {
  NNET3_ASSERT(dim_ == v.Dim());
  if (data_ != v.Data() && dim_ > 0)
    std::memmove(data_, v.Data(), sizeof(Real) * dim_);
}

template <typename Real>
template <typename OtherReal>
void VectorBase<Real>::CopyFromVec(const VectorBase<OtherReal> &v) {
  NNET3_ASSERT(dim_ == v.Dim());
  const OtherReal *src = v.Data();
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = static_cast<Real>(src[i]);
}

template <typename Real>
void VectorBase<Real>::CopyFromPtr(const Real *data, MatrixIndexT size) {
  NNET3_ASSERT(size == dim_);
  if (size > 0) std::memcpy(data_, data, sizeof(Real) * size);
}

template <typename Real>
void VectorBase<Real>::CopyRowsFromMat(const MatrixBase<Real> &M) {
  NNET3_ASSERT(dim_ == M.NumRows() * M.NumCols());
  Real *out = data_;
  for (MatrixIndexT r = 0; r < M.NumRows(); r++, out += M.NumCols())
    std::memcpy(out, M.RowData(r), sizeof(Real) * M.NumCols());
}

template <typename Real>
template <typename OtherReal>
void VectorBase<Real>::CopyRowFromMat(const MatrixBase<OtherReal> &M,
                                      MatrixIndexT row) {
  NNET3_ASSERT(row >= 0 && row < M.NumRows() && dim_ == M.NumCols());
  const OtherReal *src = M.RowData(row);
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = static_cast<Real>(src[i]);
}

template <typename Real>
template <typename OtherReal>
void VectorBase<Real>::CopyColFromMat(const MatrixBase<OtherReal> &M,
                                      MatrixIndexT col) {
  NNET3_ASSERT(col >= 0 && col < M.NumCols() && dim_ == M.NumRows());
  for (MatrixIndexT i = 0; i < dim_; i++)
    data_[i] = static_cast<Real>(M(i, col));
}

template <typename Real>
void VectorBase<Real>::CopyDiagFromMat(const MatrixBase<Real> &M) {
  NNET3_ASSERT(dim_ == std::min(M.NumRows(), M.NumCols()));
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = M(i, i);
}

template <typename Real>
void VectorBase<Real>::ApplyFloor(Real floor_val, MatrixIndexT *count) {
  MatrixIndexT n = 0;
  for (MatrixIndexT i = 0; i < dim_; i++) {
    if (data_[i] < floor_val) {
      data_[i] = floor_val;
      n++;
    }
  }
  if (count) *count = n;
}

template <typename Real>
void VectorBase<Real>::ApplyCeiling(Real ceil_val, MatrixIndexT *count) {
  MatrixIndexT n = 0;
  for (MatrixIndexT i = 0; i < dim_; i++) {
    if (data_[i] > ceil_val) {
      data_[i] = ceil_val;
      n++;
    }
  }
  if (count) *count = n;
}

template <typename Real>
void VectorBase<Real>::ApplyExp() {
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = std::exp(data_[i]);
}

template <typename Real>
void VectorBase<Real>::ApplyLog() {
  for (MatrixIndexT i = 0; i < dim_; i++) {
    if (data_[i] < 0.0)
      NNET3_ERR << "ApplyLog: negative value " << data_[i] << " at index "
                << i;
    data_[i] = std::log(data_[i]);
  }
}

template <typename Real>
void VectorBase<Real>::ApplyLogAndCopy(const VectorBase<Real> &v) {
  NNET3_ASSERT(dim_ == v.Dim());
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = std::log(v.Data()[i]);
}

template <typename Real>
void VectorBase<Real>::ApplyAbs() {
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = std::abs(data_[i]);
}

template <typename Real>
void VectorBase<Real>::ApplyPow(Real power) {
  if (power == 1.0) return;
  if (power == 2.0) {
    for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = data_[i] * data_[i];
  } else if (power == 0.5) {
    for (MatrixIndexT i = 0; i < dim_; i++) {
      if (!(data_[i] >= 0.0))
        NNET3_ERR << "ApplyPow(0.5): cannot take the square root of "
                  << data_[i] << " at index " << i;
      data_[i] = std::sqrt(data_[i]);
    }
  } else {
    for (MatrixIndexT i = 0; i < dim_; i++) {
      Real r = std::pow(data_[i], power);
      if (std::isnan(r) && !std::isnan(data_[i]))
        NNET3_ERR << "ApplyPow(" << power << "): NaN result for " << data_[i]
                  << " at index " << i;
      data_[i] = r;
    }
  }
}

template <typename Real>
void VectorBase<Real>::ApplyPowAbs(Real power, bool include_sign) {
  for (MatrixIndexT i = 0; i < dim_; i++) {
    Real x = data_[i];
    Real r = std::pow(std::abs(x), power);
    data_[i] = (include_sign && x < 0) ? -r : r;
  }
}

template <typename Real>
void VectorBase<Real>::ApplyHeaviside() {
  for (MatrixIndexT i = 0; i < dim_; i++)
    data_[i] = data_[i] > 0 ? 1.0 : 0.0;
}

template <typename Real>
Real VectorBase<Real>::ApplySoftMax() {
  Real max = this->Max(), sum = 0.0;
  for (MatrixIndexT i = 0; i < dim_; i++)
    sum += (data_[i] = std::exp(data_[i] - max));
  this->Scale(1.0 / sum);
  return max + std::log(sum);
}

template <typename Real>
Real VectorBase<Real>::ApplyLogSoftMax() {
  if constexpr (std::is_same<Real, float>::value) {
    // The vectorized kernels (matrix/exp-kernel.h); the sum's order differs
    // from the loop below, which changes its rounding in the last bits.
    return exp_kernel::LogSoftMax(reinterpret_cast<const float *>(data_),
                                  reinterpret_cast<float *>(data_), dim_);
  }
  Real max = this->Max(), sum = 0.0;
  for (MatrixIndexT i = 0; i < dim_; i++)
    sum += std::exp((data_[i] -= max));
  sum = std::log(sum);
  this->Add(-sum);
  return max + sum;
}

template <typename Real>
static inline Real ScalarSigmoid(Real x) {
  if (x > 0.0) return 1.0 / (1.0 + std::exp(-x));
  Real ex = std::exp(x);
  return ex / (ex + 1.0);
}

template <typename Real>
void VectorBase<Real>::Sigmoid(const VectorBase<Real> &src) {
  NNET3_ASSERT(dim_ == src.Dim());
  for (MatrixIndexT i = 0; i < dim_; i++)
    data_[i] = ScalarSigmoid(src.Data()[i]);
}

template <typename Real>
void VectorBase<Real>::Tanh(const VectorBase<Real> &src) {
  NNET3_ASSERT(dim_ == src.Dim());
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = std::tanh(src.Data()[i]);
}

template <typename Real>
void VectorBase<Real>::Add(Real c) {
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] += c;
}

template <typename Real>
void VectorBase<Real>::Scale(Real alpha) {
  if (alpha == 0.0) {
    SetZero();  // also clears NaN/inf, as a multiply by zero would not
    return;
  }
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] *= alpha;
}

template <typename Real>
void VectorBase<Real>::AddVec(Real alpha, const VectorBase<Real> &v) {
  NNET3_ASSERT(dim_ == v.Dim());
  if (dim_ == 0) return;
  if (alpha == 1.0) {
    const Real *src = v.Data();
    for (MatrixIndexT i = 0; i < dim_; i++) data_[i] += src[i];
  } else {
    blas::axpy(dim_, alpha, v.Data(), 1, data_, 1);
  }
}

template <typename Real>
template <typename OtherReal>
void VectorBase<Real>::AddVec(Real alpha, const VectorBase<OtherReal> &v) {
  NNET3_ASSERT(dim_ == v.Dim());
  const OtherReal *src = v.Data();
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] += alpha * src[i];
}

template <typename Real>
void VectorBase<Real>::AddVec2(Real alpha, const VectorBase<Real> &v) {
  NNET3_ASSERT(dim_ == v.Dim());
  const Real *src = v.Data();
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] += alpha * src[i] * src[i];
}

template <typename Real>
void VectorBase<Real>::MulElements(const VectorBase<Real> &v) {
  NNET3_ASSERT(dim_ == v.Dim());
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] *= v.Data()[i];
}

template <typename Real>
void VectorBase<Real>::DivElements(const VectorBase<Real> &v) {
  NNET3_ASSERT(dim_ == v.Dim());
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] /= v.Data()[i];
}

template <typename Real>
void VectorBase<Real>::InvertElements() {
  for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = 1.0 / data_[i];
}

template <typename Real>
void VectorBase<Real>::AddMatVec(Real alpha, const MatrixBase<Real> &M,
                                 MatrixTransposeType trans,
                                 const VectorBase<Real> &v, Real beta) {
  NNET3_ASSERT((trans == kNoTrans && M.NumCols() == v.Dim() &&
                M.NumRows() == dim_) ||
               (trans == kTrans && M.NumRows() == v.Dim() &&
                M.NumCols() == dim_));
  NNET3_ASSERT(&v != this);
  if (dim_ == 0) return;
  if (M.NumRows() == 0 || M.NumCols() == 0) {
    Scale(beta);
    return;
  }
  if (beta == 0.0) SetZero();  // so NaN in *this cannot leak through
  blas::gemv(trans, M.NumRows(), M.NumCols(), alpha, M.Data(), M.Stride(),
             v.Data(), 1, beta, data_, 1);
}

template <typename Real>
void VectorBase<Real>::AddVecVec(Real alpha, const VectorBase<Real> &v,
                                 const VectorBase<Real> &r, Real beta) {
  NNET3_ASSERT(dim_ == v.Dim() && dim_ == r.Dim());
  const Real *a = v.Data(), *b = r.Data();
  if (beta == 0.0) {
    for (MatrixIndexT i = 0; i < dim_; i++) data_[i] = alpha * a[i] * b[i];
  } else {
    for (MatrixIndexT i = 0; i < dim_; i++)
      data_[i] = beta * data_[i] + alpha * a[i] * b[i];
  }
}

template <typename Real>
void VectorBase<Real>::AddRowSumMat(Real alpha, const MatrixBase<Real> &M,
                                    Real beta) {
  NNET3_ASSERT(dim_ == M.NumCols());
  if (beta == 0.0) SetZero();
  else if (beta != 1.0) Scale(beta);
  // Blocks of columns on the row threads: each column still takes its rows
  // in order, so the sums are the same bits for any thread count.
  Real *data = data_;
  ForRowBlocks(dim_, M.NumRows(), [&](MatrixIndexT c0, MatrixIndexT c1) {
    for (MatrixIndexT r = 0; r < M.NumRows(); r++) {
      const Real *row = M.RowData(r);
      for (MatrixIndexT c = c0; c < c1; c++) data[c] += alpha * row[c];
    }
  });
}

template <typename Real>
void VectorBase<Real>::AddColSumMat(Real alpha, const MatrixBase<Real> &M,
                                    Real beta) {
  NNET3_ASSERT(dim_ == M.NumRows());
  for (MatrixIndexT r = 0; r < dim_; r++) {
    const Real *row = M.RowData(r);
    Real sum = 0.0;
    for (MatrixIndexT c = 0; c < M.NumCols(); c++) sum += row[c];
    data_[r] = (beta == 0.0 ? 0.0 : beta * data_[r]) + alpha * sum;
  }
}

template <typename Real>
void VectorBase<Real>::AddDiagMat2(Real alpha, const MatrixBase<Real> &M,
                                   MatrixTransposeType trans, Real beta) {
  // this = beta * this + alpha * diag(M M^T) (kNoTrans) or diag(M^T M).
  if (trans == kNoTrans) {
    NNET3_ASSERT(dim_ == M.NumRows());
    for (MatrixIndexT r = 0; r < dim_; r++) {
      const Real *row = M.RowData(r);
      Real sum = 0.0;
      for (MatrixIndexT c = 0; c < M.NumCols(); c++) sum += row[c] * row[c];
      data_[r] = (beta == 0.0 ? 0.0 : beta * data_[r]) + alpha * sum;
    }
  } else {
    NNET3_ASSERT(dim_ == M.NumCols());
    if (beta == 0.0) SetZero();
    else if (beta != 1.0) Scale(beta);
    // Column blocks on the row threads, as in AddRowSumMat.
    Real *data = data_;
    ForRowBlocks(dim_, M.NumRows(), [&](MatrixIndexT c0, MatrixIndexT c1) {
      for (MatrixIndexT r = 0; r < M.NumRows(); r++) {
        const Real *row = M.RowData(r);
        for (MatrixIndexT c = c0; c < c1; c++)
          data[c] += alpha * row[c] * row[c];
      }
    });
  }
}

template <typename Real>
Real VectorBase<Real>::Sum() const {
  // A BLAS dot product with a stride-0 vector of ones, as Kaldi computes it
  // (same accumulation order and precision, hence the same rounding).
  if (dim_ == 0) return 0;
  const Real one = 1;
  return blas::dot(dim_, data_, 1, &one, 0);
}

template <typename Real>
Real VectorBase<Real>::SumLog() const {
  double sum = 0.0;
  for (MatrixIndexT i = 0; i < dim_; i++) sum += std::log(data_[i]);
  return static_cast<Real>(sum);
}

template <typename Real>
Real VectorBase<Real>::Max() const {
  Real ans = -std::numeric_limits<Real>::infinity();
  for (MatrixIndexT i = 0; i < dim_; i++)
    if (data_[i] > ans) ans = data_[i];
  return ans;
}

template <typename Real>
Real VectorBase<Real>::Max(MatrixIndexT *index) const {
  NNET3_ASSERT(dim_ > 0);
  Real ans = data_[0];
  *index = 0;
  for (MatrixIndexT i = 1; i < dim_; i++) {
    if (data_[i] > ans) {
      ans = data_[i];
      *index = i;
    }
  }
  return ans;
}

template <typename Real>
Real VectorBase<Real>::Min() const {
  Real ans = std::numeric_limits<Real>::infinity();
  for (MatrixIndexT i = 0; i < dim_; i++)
    if (data_[i] < ans) ans = data_[i];
  return ans;
}

template <typename Real>
Real VectorBase<Real>::Min(MatrixIndexT *index) const {
  NNET3_ASSERT(dim_ > 0);
  Real ans = data_[0];
  *index = 0;
  for (MatrixIndexT i = 1; i < dim_; i++) {
    if (data_[i] < ans) {
      ans = data_[i];
      *index = i;
    }
  }
  return ans;
}

template <typename Real>
Real VectorBase<Real>::Norm(Real p) const {
  NNET3_ASSERT(p >= 0.0);
  double sum = 0.0;
  if (p == 0.0) {
    for (MatrixIndexT i = 0; i < dim_; i++) sum += (data_[i] != 0.0);
    return static_cast<Real>(sum);
  }
  if (p == 1.0) {
    for (MatrixIndexT i = 0; i < dim_; i++) sum += std::abs(data_[i]);
    return static_cast<Real>(sum);
  }
  if (p == 2.0) {
    for (MatrixIndexT i = 0; i < dim_; i++)
      sum += static_cast<double>(data_[i]) * data_[i];
    return static_cast<Real>(std::sqrt(sum));
  }
  if (std::isinf(p)) {
    double m = 0.0;
    for (MatrixIndexT i = 0; i < dim_; i++)
      m = std::max(m, static_cast<double>(std::abs(data_[i])));
    return static_cast<Real>(m);
  }
  for (MatrixIndexT i = 0; i < dim_; i++)
    sum += std::pow(std::abs(static_cast<double>(data_[i])), p);
  return static_cast<Real>(std::pow(sum, 1.0 / p));
}

template <typename Real>
Real VectorBase<Real>::LogSumExp(Real prune) const {
  Real max = this->Max();
  double sum = 0.0;
  Real cutoff = prune > 0.0 ? max - prune : -std::numeric_limits<Real>::infinity();
  for (MatrixIndexT i = 0; i < dim_; i++)
    if (data_[i] >= cutoff) sum += std::exp(data_[i] - max);
  return max + static_cast<Real>(std::log(sum));
}

template <typename Real>
bool VectorBase<Real>::ApproxEqual(const VectorBase<Real> &other,
                                   float tol) const {
  NNET3_ASSERT(dim_ == other.Dim());
  double diff2 = 0.0, norm2 = 0.0;
  for (MatrixIndexT i = 0; i < dim_; i++) {
    double d = static_cast<double>(data_[i]) - other.Data()[i];
    diff2 += d * d;
    norm2 += static_cast<double>(data_[i]) * data_[i];
  }
  return std::sqrt(diff2) <= tol * std::sqrt(norm2);
}

template <typename Real>
bool VectorBase<Real>::IsFinite() const {
  for (MatrixIndexT i = 0; i < dim_; i++)
    if (!std::isfinite(data_[i])) return false;
  return true;
}

template <typename Real>
Real VecVec(const VectorBase<Real> &a, const VectorBase<Real> &b) {
  NNET3_ASSERT(a.Dim() == b.Dim());
  if (a.Dim() == 0) return 0.0;
  return blas::dot(a.Dim(), a.Data(), 1, b.Data(), 1);
}

template <typename Real, typename OtherReal>
Real VecVec(const VectorBase<Real> &a, const VectorBase<OtherReal> &b) {
  NNET3_ASSERT(a.Dim() == b.Dim());
  double sum = 0.0;
  for (MatrixIndexT i = 0; i < a.Dim(); i++)
    sum += static_cast<double>(a.Data()[i]) * b.Data()[i];
  return static_cast<Real>(sum);
}

template <typename Real>
std::ostream &operator<<(std::ostream &os, const VectorBase<Real> &v) {
  v.Write(os, false);
  return os;
}

#define NNET3_INSTANTIATE_VECTOR(R, O)                                       \
  template class VectorBase<R>;                                              \
  template class Vector<R>;                                                  \
  template class SubVector<R>;                                               \
  template void VectorBase<R>::CopyFromVec(const VectorBase<O> &);           \
  template void VectorBase<R>::AddVec(R, const VectorBase<O> &);             \
  template void VectorBase<R>::CopyRowFromMat(const MatrixBase<R> &,         \
                                              MatrixIndexT);                 \
  template void VectorBase<R>::CopyRowFromMat(const MatrixBase<O> &,         \
                                              MatrixIndexT);                 \
  template void VectorBase<R>::CopyColFromMat(const MatrixBase<R> &,         \
                                              MatrixIndexT);                 \
  template void VectorBase<R>::CopyColFromMat(const MatrixBase<O> &,         \
                                              MatrixIndexT);                 \
  template R VecVec(const VectorBase<R> &, const VectorBase<R> &);           \
  template R VecVec(const VectorBase<R> &, const VectorBase<O> &);           \
  template std::ostream &operator<<(std::ostream &, const VectorBase<R> &);

NNET3_INSTANTIATE_VECTOR(float, double)
NNET3_INSTANTIATE_VECTOR(double, float)

}  // namespace nnet3
