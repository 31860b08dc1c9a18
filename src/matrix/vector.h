// matrix/vector.h
// CPU vectors in float and double, with Kaldi's class structure:
//   VectorBase<Real>: a (data, dim) view with all the operations; never owns.
//   Vector<Real>:     owns 16-byte-aligned memory; resizable.
//   SubVector<Real>:  a view into another vector or a matrix row; shares
//                     memory, so writes through it change the original.
// Invariants: data_ is nullptr iff dim_ == 0; dimensions are checked with
// NNET3_ASSERT (a mismatch is a programming error, not a user error).
// I/O (Read/Write in Kaldi's "FV"/"DV" binary and "[ ... ]" text forms) is
// implemented in matrix/io.cc.
#ifndef NNET3_MATRIX_VECTOR_H_
#define NNET3_MATRIX_VECTOR_H_

#include <istream>
#include <ostream>
#include <vector>

#include "matrix/common.h"

namespace nnet3 {

template <typename Real>
class VectorBase {
 public:
  MatrixIndexT Dim() const { return dim_; }
  Real *Data() { return data_; }
  const Real *Data() const { return data_; }
  size_t SizeInBytes() const { return sizeof(Real) * dim_; }

  Real &operator()(MatrixIndexT i) {
    NNET3_PARANOID_ASSERT(static_cast<uint32>(i) < static_cast<uint32>(dim_));
    return data_[i];
  }
  Real operator()(MatrixIndexT i) const {
    NNET3_PARANOID_ASSERT(static_cast<uint32>(i) < static_cast<uint32>(dim_));
    return data_[i];
  }

  SubVector<Real> Range(MatrixIndexT offset, MatrixIndexT dim) {
    return SubVector<Real>(*this, offset, dim);
  }
  const SubVector<Real> Range(MatrixIndexT offset, MatrixIndexT dim) const {
    return SubVector<Real>(*this, offset, dim);
  }

  void SetZero();
  void Set(Real f);
  bool IsZero(Real cutoff = 1.0e-06) const;
  void SetRandn();                       // standard normal entries
  void SetRandUniform();                 // uniform on (0, 1)
  void SetRandn(RandomSource *rs);
  void SetRandUniform(RandomSource *rs);

  void CopyFromVec(const VectorBase<Real> &v);
  template <typename OtherReal>
  void CopyFromVec(const VectorBase<OtherReal> &v);
  void CopyFromPtr(const Real *data, MatrixIndexT size);
  // Copies the rows of M, concatenated (dim must be rows*cols).
  void CopyRowsFromMat(const MatrixBase<Real> &M);
  template <typename OtherReal>
  void CopyRowFromMat(const MatrixBase<OtherReal> &M, MatrixIndexT row);
  template <typename OtherReal>
  void CopyColFromMat(const MatrixBase<OtherReal> &M, MatrixIndexT col);
  void CopyDiagFromMat(const MatrixBase<Real> &M);

  // Elementwise functions.
  void ApplyFloor(Real floor_val, MatrixIndexT *floored_count = nullptr);
  void ApplyCeiling(Real ceil_val, MatrixIndexT *ceiled_count = nullptr);
  void ApplyExp();
  void ApplyLog();
  void ApplyLogAndCopy(const VectorBase<Real> &v);
  void ApplyAbs();
  void ApplyPow(Real power);             // errors on NaN results (power 0.5 of negatives)
  void ApplyPowAbs(Real power, bool include_sign = false);
  void ApplyHeaviside();                 // x > 0 ? 1 : 0
  // In-place softmax; returns log(sum(exp(x))).
  Real ApplySoftMax();
  // In-place log-softmax; returns log(sum(exp(x))).
  Real ApplyLogSoftMax();
  void Sigmoid(const VectorBase<Real> &src);
  void Tanh(const VectorBase<Real> &src);

  // Arithmetic.
  void Add(Real c);                      // x += c
  void Scale(Real alpha);
  void AddVec(Real alpha, const VectorBase<Real> &v);
  template <typename OtherReal>
  void AddVec(Real alpha, const VectorBase<OtherReal> &v);
  void AddVec2(Real alpha, const VectorBase<Real> &v);  // x += alpha v.^2
  void MulElements(const VectorBase<Real> &v);
  void DivElements(const VectorBase<Real> &v);
  void InvertElements();
  // this = beta * this + alpha * op(M) * v   (BLAS gemv).
  void AddMatVec(Real alpha, const MatrixBase<Real> &M,
                 MatrixTransposeType trans, const VectorBase<Real> &v,
                 Real beta);
  // this = beta * this + alpha * v .* r   (elementwise).
  void AddVecVec(Real alpha, const VectorBase<Real> &v,
                 const VectorBase<Real> &r, Real beta);
  // this = beta * this + alpha * (sum of the rows of M).
  void AddRowSumMat(Real alpha, const MatrixBase<Real> &M, Real beta = 1.0);
  // this = beta * this + alpha * (sum of the columns of M).
  void AddColSumMat(Real alpha, const MatrixBase<Real> &M, Real beta = 1.0);
  void AddDiagMat2(Real alpha, const MatrixBase<Real> &M,
                   MatrixTransposeType trans = kNoTrans, Real beta = 1.0);

  // Reductions.
  Real Sum() const;
  Real SumLog() const;
  Real Max() const;
  Real Max(MatrixIndexT *index) const;
  Real Min() const;
  Real Min(MatrixIndexT *index) const;
  Real Norm(Real p) const;
  Real LogSumExp(Real prune = -1.0) const;
  bool ApproxEqual(const VectorBase<Real> &other, float tol = 0.01) const;
  bool IsFinite() const;

  // Kaldi I/O (matrix/io.cc). Write needs the stream opened by the caller;
  // the binary header is written by InitKaldiOutputStream, not here.
  void Write(std::ostream &os, bool binary) const;

 protected:
  VectorBase() : data_(nullptr), dim_(0) {}
  ~VectorBase() {}
  Real *data_;
  MatrixIndexT dim_;

 private:
  VectorBase(const VectorBase &) = delete;
  VectorBase &operator=(const VectorBase &) = delete;
};

template <typename Real>
class Vector : public VectorBase<Real> {
 public:
  Vector() {}
  explicit Vector(MatrixIndexT dim, MatrixResizeType t = kSetZero) {
    Resize(dim, t);
  }
  Vector(const Vector<Real> &v) : VectorBase<Real>() {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
  }
  explicit Vector(const VectorBase<Real> &v) : VectorBase<Real>() {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
  }
  template <typename OtherReal>
  explicit Vector(const VectorBase<OtherReal> &v) : VectorBase<Real>() {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
  }
  Vector(Vector<Real> &&v) noexcept : VectorBase<Real>() { Swap(&v); }
  ~Vector() { Destroy(); }

  Vector<Real> &operator=(const Vector<Real> &v) {
    if (this != &v) {
      Resize(v.Dim(), kUndefined);
      this->CopyFromVec(v);
    }
    return *this;
  }
  Vector<Real> &operator=(const VectorBase<Real> &v) {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
    return *this;
  }
  Vector<Real> &operator=(Vector<Real> &&v) noexcept {
    Swap(&v);
    return *this;
  }

  void Resize(MatrixIndexT dim, MatrixResizeType t = kSetZero);
  void Swap(Vector<Real> *other);
  // Removes element i, shifting the rest down.
  void RemoveElement(MatrixIndexT i);

  // Reads "FV"/"DV" binary (either precision) or "[ ... ]" text. If add is
  // true the values read are added to the current ones (same dim needed).
  void Read(std::istream &is, bool binary, bool add = false);

 private:
  void Destroy();
};

template <typename Real>
class SubVector : public VectorBase<Real> {
 public:
  SubVector(const VectorBase<Real> &t, MatrixIndexT origin,
            MatrixIndexT length);
  SubVector(Real *data, MatrixIndexT length);
  SubVector(const SubVector<Real> &other) : VectorBase<Real>() {
    this->data_ = other.data_;
    this->dim_ = other.dim_;
  }
  // A row of a matrix.
  SubVector(const MatrixBase<Real> &matrix, MatrixIndexT row);
  ~SubVector() {}

 private:
  SubVector &operator=(const SubVector &) = delete;
};

// Dot product.
template <typename Real>
Real VecVec(const VectorBase<Real> &a, const VectorBase<Real> &b);
template <typename Real, typename OtherReal>
Real VecVec(const VectorBase<Real> &a, const VectorBase<OtherReal> &b);

template <typename Real>
std::ostream &operator<<(std::ostream &os, const VectorBase<Real> &v);

}  // namespace nnet3

#endif  // NNET3_MATRIX_VECTOR_H_
