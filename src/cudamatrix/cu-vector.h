// cudamatrix/cu-vector.h
// CuVectorBase, CuVector and CuSubVector: the vectors that the layers above
// cudamatrix compute with. They are their own types, not the CPU vectors,
// so that code above this layer can only use the operations listed here;
// each operation is carried out by the backend that computes (today the
// CPU vector library, matrix/vector.h, on the same memory).
//
// Invariants:
//  - a CuVectorBase describes dim elements at Data(); views (CuSubVector)
//    never own memory, CuVector always owns its memory;
//  - Vec() is the host view of the same memory. It exists for code that has
//    no Cu operation yet and for tests; it is valid only while the CPU
//    computes (every use above cudamatrix is a place the GPU backend will
//    need an operation for);
//  - crossing between host vectors and Cu vectors is explicit:
//    CopyFromVec(const VectorBase&), CopyToVec(VectorBase*), Swap(Vector*).
#ifndef NNET3_CUDAMATRIX_CU_VECTOR_H_
#define NNET3_CUDAMATRIX_CU_VECTOR_H_

#include <istream>
#include <ostream>

#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {

template <typename Real> class CuMatrixBase;
template <typename Real> class CuSubVector;

template <typename Real>
class CuVectorBase : private VectorBase<Real> {
 public:
  MatrixIndexT Dim() const { return this->dim_; }
  Real *Data() { return this->data_; }
  const Real *Data() const { return this->data_; }
  size_t SizeInBytes() const { return sizeof(Real) * this->dim_; }

  // The host view (CPU backend only; see the file comment).
  VectorBase<Real> &Vec() { return *this; }
  const VectorBase<Real> &Vec() const { return *this; }

  CuSubVector<Real> Range(MatrixIndexT offset, MatrixIndexT dim);
  const CuSubVector<Real> Range(MatrixIndexT offset, MatrixIndexT dim) const;

  // One element, read back to the host / written from it.
  Real GetElement(MatrixIndexT i) const { return Vec()(i); }
  void SetElement(MatrixIndexT i, Real value) { Vec()(i) = value; }

  void SetZero() { Vec().SetZero(); }
  void Set(Real f) { Vec().Set(f); }
  bool IsZero(Real cutoff = 1.0e-06) const { return Vec().IsZero(cutoff); }
  void SetRandn() { Vec().SetRandn(); }
  void SetRandUniform() { Vec().SetRandUniform(); }
  void SetRandn(RandomSource *rs) { Vec().SetRandn(rs); }
  void SetRandUniform(RandomSource *rs) { Vec().SetRandUniform(rs); }

  void CopyFromVec(const CuVectorBase<Real> &v) { Vec().CopyFromVec(v.Vec()); }
  template <typename OtherReal>
  void CopyFromVec(const CuVectorBase<OtherReal> &v) {
    Vec().CopyFromVec(v.Vec());
  }
  // Host -> this.
  void CopyFromVec(const VectorBase<Real> &v) { Vec().CopyFromVec(v); }
  template <typename OtherReal>
  void CopyFromVec(const VectorBase<OtherReal> &v) { Vec().CopyFromVec(v); }
  // This -> host.
  template <typename OtherReal>
  void CopyToVec(VectorBase<OtherReal> *dst) const {
    dst->CopyFromVec(Vec());
  }
  void CopyRowsFromMat(const CuMatrixBase<Real> &M);
  template <typename OtherReal>
  void CopyRowFromMat(const CuMatrixBase<OtherReal> &M, MatrixIndexT row);
  template <typename OtherReal>
  void CopyColFromMat(const CuMatrixBase<OtherReal> &M, MatrixIndexT col);
  void CopyDiagFromMat(const CuMatrixBase<Real> &M);

  void ApplyFloor(Real floor_val, MatrixIndexT *floored_count = nullptr) {
    Vec().ApplyFloor(floor_val, floored_count);
  }
  void ApplyCeiling(Real ceil_val, MatrixIndexT *ceiled_count = nullptr) {
    Vec().ApplyCeiling(ceil_val, ceiled_count);
  }
  void ApplyExp() { Vec().ApplyExp(); }
  void ApplyLog() { Vec().ApplyLog(); }
  void ApplyLogAndCopy(const CuVectorBase<Real> &v) {
    Vec().ApplyLogAndCopy(v.Vec());
  }
  void ApplyAbs() { Vec().ApplyAbs(); }
  void ApplyPow(Real power) { Vec().ApplyPow(power); }
  void ApplyPowAbs(Real power, bool include_sign = false) {
    Vec().ApplyPowAbs(power, include_sign);
  }
  void ApplyHeaviside() { Vec().ApplyHeaviside(); }
  Real ApplySoftMax() { return Vec().ApplySoftMax(); }
  Real ApplyLogSoftMax() { return Vec().ApplyLogSoftMax(); }
  void Sigmoid(const CuVectorBase<Real> &src) { Vec().Sigmoid(src.Vec()); }
  void Tanh(const CuVectorBase<Real> &src) { Vec().Tanh(src.Vec()); }

  void Add(Real c) { Vec().Add(c); }
  void Scale(Real alpha) { Vec().Scale(alpha); }
  void AddVec(Real alpha, const CuVectorBase<Real> &v) {
    Vec().AddVec(alpha, v.Vec());
  }
  template <typename OtherReal>
  void AddVec(Real alpha, const CuVectorBase<OtherReal> &v) {
    Vec().AddVec(alpha, v.Vec());
  }
  void AddVec2(Real alpha, const CuVectorBase<Real> &v) {
    Vec().AddVec2(alpha, v.Vec());
  }
  void MulElements(const CuVectorBase<Real> &v) { Vec().MulElements(v.Vec()); }
  void DivElements(const CuVectorBase<Real> &v) { Vec().DivElements(v.Vec()); }
  void InvertElements() { Vec().InvertElements(); }
  void AddMatVec(Real alpha, const CuMatrixBase<Real> &M,
                 MatrixTransposeType trans, const CuVectorBase<Real> &v,
                 Real beta);
  void AddVecVec(Real alpha, const CuVectorBase<Real> &v,
                 const CuVectorBase<Real> &r, Real beta) {
    Vec().AddVecVec(alpha, v.Vec(), r.Vec(), beta);
  }
  void AddRowSumMat(Real alpha, const CuMatrixBase<Real> &M, Real beta = 1.0);
  void AddColSumMat(Real alpha, const CuMatrixBase<Real> &M, Real beta = 1.0);
  void AddDiagMat2(Real alpha, const CuMatrixBase<Real> &M,
                   MatrixTransposeType trans = kNoTrans, Real beta = 1.0);

  Real Sum() const { return Vec().Sum(); }
  Real SumLog() const { return Vec().SumLog(); }
  Real Max() const { return Vec().Max(); }
  Real Max(MatrixIndexT *index) const { return Vec().Max(index); }
  Real Min() const { return Vec().Min(); }
  Real Min(MatrixIndexT *index) const { return Vec().Min(index); }
  Real Norm(Real p) const { return Vec().Norm(p); }
  Real LogSumExp(Real prune = -1.0) const { return Vec().LogSumExp(prune); }
  bool ApproxEqual(const CuVectorBase<Real> &other, float tol = 0.01) const {
    return Vec().ApproxEqual(other.Vec(), tol);
  }
  bool IsFinite() const { return Vec().IsFinite(); }

  void Write(std::ostream &os, bool binary) const { Vec().Write(os, binary); }

 protected:
  CuVectorBase() {}
  ~CuVectorBase() {}
  void SetView(Real *data, MatrixIndexT dim) {
    this->data_ = data;
    this->dim_ = dim;
  }

 private:
  CuVectorBase(const CuVectorBase &) = delete;
  CuVectorBase &operator=(const CuVectorBase &) = delete;
};

template <typename Real>
class CuVector : public CuVectorBase<Real> {
 public:
  CuVector() {}
  explicit CuVector(MatrixIndexT dim, MatrixResizeType t = kSetZero) {
    Resize(dim, t);
  }
  CuVector(const CuVector<Real> &v) : CuVectorBase<Real>() {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
  }
  explicit CuVector(const CuVectorBase<Real> &v) : CuVectorBase<Real>() {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
  }
  template <typename OtherReal>
  explicit CuVector(const CuVectorBase<OtherReal> &v) : CuVectorBase<Real>() {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
  }
  // From a host vector.
  explicit CuVector(const VectorBase<Real> &v) : CuVectorBase<Real>() {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
  }
  CuVector(CuVector<Real> &&v) noexcept : CuVectorBase<Real>() { Swap(&v); }
  ~CuVector() {}

  CuVector<Real> &operator=(const CuVector<Real> &v) {
    if (this != &v) {
      Resize(v.Dim(), kUndefined);
      this->CopyFromVec(v);
    }
    return *this;
  }
  CuVector<Real> &operator=(const CuVectorBase<Real> &v) {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
    return *this;
  }
  CuVector<Real> &operator=(const VectorBase<Real> &v) {
    Resize(v.Dim(), kUndefined);
    this->CopyFromVec(v);
    return *this;
  }
  CuVector<Real> &operator=(CuVector<Real> &&v) noexcept {
    Swap(&v);
    return *this;
  }

  void Resize(MatrixIndexT dim, MatrixResizeType t = kSetZero) {
    store_.Resize(dim, t);
    Sync();
  }
  void Swap(CuVector<Real> *other) {
    store_.Swap(&other->store_);
    Sync();
    other->Sync();
  }
  // Exchanges contents with a host vector (no copy on the CPU backend).
  void Swap(Vector<Real> *other) {
    store_.Swap(other);
    Sync();
  }
  void RemoveElement(MatrixIndexT i) {
    store_.RemoveElement(i);
    Sync();
  }
  void Read(std::istream &is, bool binary, bool add = false) {
    store_.Read(is, binary, add);
    Sync();
  }

 private:
  void Sync() { this->SetView(store_.Data(), store_.Dim()); }
  Vector<Real> store_;
};

template <typename Real>
class CuSubVector : public CuVectorBase<Real> {
 public:
  CuSubVector(const CuVectorBase<Real> &t, MatrixIndexT origin,
              MatrixIndexT length) {
    NNET3_ASSERT(origin >= 0 && length >= 0 && origin + length <= t.Dim());
    this->SetView(const_cast<Real *>(t.Data()) + origin, length);
  }
  CuSubVector(const Real *data, MatrixIndexT length) {
    this->SetView(const_cast<Real *>(data), length);
  }
  CuSubVector(const CuSubVector<Real> &other) : CuVectorBase<Real>() {
    this->SetView(const_cast<Real *>(other.Data()), other.Dim());
  }
  CuSubVector(const CuMatrixBase<Real> &matrix, MatrixIndexT row);
  ~CuSubVector() {}

 private:
  CuSubVector &operator=(const CuSubVector &) = delete;
};

template <typename Real>
CuSubVector<Real> CuVectorBase<Real>::Range(MatrixIndexT offset,
                                            MatrixIndexT dim) {
  return CuSubVector<Real>(*this, offset, dim);
}

template <typename Real>
const CuSubVector<Real> CuVectorBase<Real>::Range(MatrixIndexT offset,
                                                  MatrixIndexT dim) const {
  return CuSubVector<Real>(*this, offset, dim);
}

template <typename Real>
Real VecVec(const CuVectorBase<Real> &a, const CuVectorBase<Real> &b) {
  return VecVec(a.Vec(), b.Vec());
}

template <typename Real, typename OtherReal>
Real VecVec(const CuVectorBase<Real> &a, const CuVectorBase<OtherReal> &b) {
  return VecVec(a.Vec(), b.Vec());
}

template <typename Real>
std::ostream &operator<<(std::ostream &os, const CuVectorBase<Real> &v) {
  return os << v.Vec();
}

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_VECTOR_H_
