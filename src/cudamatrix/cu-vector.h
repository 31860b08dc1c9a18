// cudamatrix/cu-vector.h
// CuVectorBase, CuVector and CuSubVector: the vectors that the layers above
// cudamatrix compute with. They are their own types, not the CPU vectors,
// so that code above this layer can only use the operations listed here.
// Each operation runs where the vector's data lives: on the host through
// the CPU vector library (matrix/vector.h), on a GPU through DeviceOps
// (cu-backend.h), or, for the few operations the device has no kernel for,
// on a host copy that is written back.
//
// Invariants:
//  - a CuVectorBase describes dim elements at Data() (device memory when
//    OnDevice()); views (CuSubVector) never own memory and live where
//    their parent lives; CuVector always owns its memory and chooses its
//    location (cu_backend::OnDevice()) each time it gets memory;
//  - Vec() is the host view of the same memory, for the CPU backend only
//    (an InternalError on device data);
//  - crossing between host vectors and Cu vectors is explicit:
//    CopyFromVec(const VectorBase&), CopyToVec(VectorBase*), Swap(Vector*).
#ifndef NNET3_CUDAMATRIX_CU_VECTOR_H_
#define NNET3_CUDAMATRIX_CU_VECTOR_H_

#include <istream>
#include <ostream>
#include <utility>

#include "cudamatrix/cu-backend.h"
#include "cudamatrix/device-ops.h"
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
  // True when the data is in GPU memory.
  bool OnDevice() const { return on_device_; }

  // The host view (CPU backend only; see the file comment).
  VectorBase<Real> &Vec() {
    if (on_device_) cu_backend::HostViewOfDeviceData();
    return *this;
  }
  const VectorBase<Real> &Vec() const {
    if (on_device_) cu_backend::HostViewOfDeviceData();
    return *this;
  }

  // Device views (for cudamatrix; the vector as a device vector or as a
  // matrix of one row).
  cuda::DevVec<Real> DevV() { return cuda::DevVec<Real>(this->data_, Dim()); }
  cuda::DevVec<const Real> DevV() const {
    return cuda::DevVec<const Real>(this->data_, Dim());
  }
  cuda::DevMat<Real> DevRow() {
    return cuda::DevMat<Real>(this->data_, Dim() > 0 ? 1 : 0, Dim(), Dim());
  }
  cuda::DevMat<const Real> DevRow() const {
    return cuda::DevMat<const Real>(this->data_, Dim() > 0 ? 1 : 0, Dim(),
                                    Dim());
  }

  CuSubVector<Real> Range(MatrixIndexT offset, MatrixIndexT dim);
  const CuSubVector<Real> Range(MatrixIndexT offset, MatrixIndexT dim) const;

  // One element, read back to the host / written from it.
  Real GetElement(MatrixIndexT i) const {
    NNET3_ASSERT(i >= 0 && i < Dim());
    if (!on_device_) return this->data_[i];
    Real x;
    cu_backend::CopyToHost(&x, sizeof(Real), this->data_ + i, sizeof(Real),
                           sizeof(Real), 1);
    return x;
  }
  void SetElement(MatrixIndexT i, Real value) {
    NNET3_ASSERT(i >= 0 && i < Dim());
    if (!on_device_) {
      this->data_[i] = value;
      return;
    }
    cu_backend::CopyToDevice(this->data_ + i, sizeof(Real), &value,
                             sizeof(Real), sizeof(Real), 1);
  }

  void SetZero() {
    if (on_device_) Ops().SetZero(DevRow());
    else Vec().SetZero();
  }
  void Set(Real f) {
    if (on_device_) Ops().Set(DevRow(), f);
    else Vec().Set(f);
  }
  bool IsZero(Real cutoff = 1.0e-06) const {
    return Inspect([&](const VectorBase<Real> &h) { return h.IsZero(cutoff); });
  }
  // Random values are drawn on the host, so both backends get the same.
  void SetRandn() {
    Modify([](VectorBase<Real> &h) { h.SetRandn(); });
  }
  void SetRandUniform() {
    Modify([](VectorBase<Real> &h) { h.SetRandUniform(); });
  }
  void SetRandn(RandomSource *rs) {
    Modify([rs](VectorBase<Real> &h) { h.SetRandn(rs); });
  }
  void SetRandUniform(RandomSource *rs) {
    Modify([rs](VectorBase<Real> &h) { h.SetRandUniform(rs); });
  }

  void CopyFromVec(const CuVectorBase<Real> &v) {
    NNET3_ASSERT(v.Dim() == Dim());
    if (Where(v, "CopyFromVec")) Ops().CopyFromMat(DevRow(), v.DevRow(), kNoTrans);
    else Vec().CopyFromVec(v.Vec());
  }
  template <typename OtherReal>
  void CopyFromVec(const CuVectorBase<OtherReal> &v) {
    NNET3_ASSERT(v.Dim() == Dim());
    if (Where(v, "CopyFromVec"))
      Ops().CopyFromOther(DevRow(), v.DevRow(), kNoTrans);
    else
      Vec().CopyFromVec(v.Vec());
  }
  // Host -> this.
  void CopyFromVec(const VectorBase<Real> &v) {
    NNET3_ASSERT(v.Dim() == Dim());
    if (on_device_)
      cu_backend::CopyToDevice(this->data_, SizeInBytes(), v.Data(),
                               SizeInBytes(), SizeInBytes(), 1);
    else
      Vec().CopyFromVec(v);
  }
  template <typename OtherReal>
  void CopyFromVec(const VectorBase<OtherReal> &v) {
    if (on_device_) {
      Vector<Real> converted(v.Dim(), kUndefined);
      converted.CopyFromVec(v);
      CopyFromVec(static_cast<const VectorBase<Real> &>(converted));
    } else {
      Vec().CopyFromVec(v);
    }
  }
  // This -> host.
  template <typename OtherReal>
  void CopyToVec(VectorBase<OtherReal> *dst) const {
    NNET3_ASSERT(dst->Dim() == Dim());
    if (!on_device_) {
      dst->CopyFromVec(Vec());
    } else if constexpr (std::is_same<Real, OtherReal>::value) {
      cu_backend::CopyToHost(dst->Data(), SizeInBytes(), this->data_,
                             SizeInBytes(), SizeInBytes(), 1);
    } else {
      dst->CopyFromVec(Download());
    }
  }
  void CopyRowsFromMat(const CuMatrixBase<Real> &M);
  template <typename OtherReal>
  void CopyRowFromMat(const CuMatrixBase<OtherReal> &M, MatrixIndexT row);
  template <typename OtherReal>
  void CopyColFromMat(const CuMatrixBase<OtherReal> &M, MatrixIndexT col);
  void CopyDiagFromMat(const CuMatrixBase<Real> &M);

  void ApplyFloor(Real floor_val, MatrixIndexT *floored_count = nullptr) {
    if (on_device_ && floored_count == nullptr)
      Ops().ApplyFloor(DevRow(), floor_val);
    else
      Modify([&](VectorBase<Real> &h) { h.ApplyFloor(floor_val, floored_count); });
  }
  void ApplyCeiling(Real ceil_val, MatrixIndexT *ceiled_count = nullptr) {
    if (on_device_ && ceiled_count == nullptr)
      Ops().ApplyCeiling(DevRow(), ceil_val);
    else
      Modify([&](VectorBase<Real> &h) { h.ApplyCeiling(ceil_val, ceiled_count); });
  }
  void ApplyExp() {
    if (on_device_) Ops().ApplyExp(DevRow());
    else Vec().ApplyExp();
  }
  void ApplyLog() {
    if (on_device_) Ops().ApplyLog(DevRow());
    else Vec().ApplyLog();
  }
  void ApplyLogAndCopy(const CuVectorBase<Real> &v) {
    if (Where(v, "ApplyLogAndCopy")) {
      CopyFromVec(v);
      ApplyLog();
    } else {
      Vec().ApplyLogAndCopy(v.Vec());
    }
  }
  void ApplyAbs() {
    if (on_device_) Ops().ApplyAbs(DevRow());
    else Vec().ApplyAbs();
  }
  void ApplyPow(Real power) {
    if (on_device_) Ops().ApplyPow(DevRow(), power);
    else Vec().ApplyPow(power);
  }
  void ApplyPowAbs(Real power, bool include_sign = false) {
    if (on_device_) Ops().ApplyPowAbs(DevRow(), power, include_sign);
    else Vec().ApplyPowAbs(power, include_sign);
  }
  void ApplyHeaviside() {
    if (on_device_) Ops().ApplyHeaviside(DevRow());
    else Vec().ApplyHeaviside();
  }
  Real ApplySoftMax() {
    Real ans = 0;
    Modify([&ans](VectorBase<Real> &h) { ans = h.ApplySoftMax(); });
    return ans;
  }
  Real ApplyLogSoftMax() {
    Real ans = 0;
    Modify([&ans](VectorBase<Real> &h) { ans = h.ApplyLogSoftMax(); });
    return ans;
  }
  void Sigmoid(const CuVectorBase<Real> &src) {
    if (Where(src, "Sigmoid")) Ops().Sigmoid(DevRow(), src.DevRow());
    else Vec().Sigmoid(src.Vec());
  }
  void Tanh(const CuVectorBase<Real> &src) {
    if (Where(src, "Tanh")) Ops().Tanh(DevRow(), src.DevRow());
    else Vec().Tanh(src.Vec());
  }

  void Add(Real c) {
    if (on_device_) Ops().Add(DevRow(), c);
    else Vec().Add(c);
  }
  void Scale(Real alpha) {
    if (on_device_) Ops().Scale(DevRow(), alpha);
    else Vec().Scale(alpha);
  }
  void AddVec(Real alpha, const CuVectorBase<Real> &v) {
    NNET3_ASSERT(v.Dim() == Dim());
    if (Where(v, "AddVec")) Ops().AddMat(DevRow(), alpha, v.DevRow(), kNoTrans);
    else Vec().AddVec(alpha, v.Vec());
  }
  template <typename OtherReal>
  void AddVec(Real alpha, const CuVectorBase<OtherReal> &v);
  void AddVec2(Real alpha, const CuVectorBase<Real> &v) {
    NNET3_ASSERT(v.Dim() == Dim());
    if (Where(v, "AddVec2"))
      Ops().AddMatMatElements(DevRow(), alpha, v.DevRow(), v.DevRow(), 1.0);
    else
      Vec().AddVec2(alpha, v.Vec());
  }
  void MulElements(const CuVectorBase<Real> &v) {
    NNET3_ASSERT(v.Dim() == Dim());
    if (Where(v, "MulElements")) Ops().MulElements(DevRow(), v.DevRow());
    else Vec().MulElements(v.Vec());
  }
  void DivElements(const CuVectorBase<Real> &v) {
    NNET3_ASSERT(v.Dim() == Dim());
    if (Where(v, "DivElements")) Ops().DivElements(DevRow(), v.DevRow());
    else Vec().DivElements(v.Vec());
  }
  void InvertElements() {
    if (on_device_) Ops().InvertElements(DevRow());
    else Vec().InvertElements();
  }
  void AddMatVec(Real alpha, const CuMatrixBase<Real> &M,
                 MatrixTransposeType trans, const CuVectorBase<Real> &v,
                 Real beta);
  void AddVecVec(Real alpha, const CuVectorBase<Real> &v,
                 const CuVectorBase<Real> &r, Real beta) {
    NNET3_ASSERT(v.Dim() == Dim() && r.Dim() == Dim());
    if (Where(v, "AddVecVec") && Where(r, "AddVecVec"))
      Ops().AddMatMatElements(DevRow(), alpha, v.DevRow(), r.DevRow(), beta);
    else
      Vec().AddVecVec(alpha, v.Vec(), r.Vec(), beta);
  }
  void AddRowSumMat(Real alpha, const CuMatrixBase<Real> &M, Real beta = 1.0);
  void AddColSumMat(Real alpha, const CuMatrixBase<Real> &M, Real beta = 1.0);
  void AddDiagMat2(Real alpha, const CuMatrixBase<Real> &M,
                   MatrixTransposeType trans = kNoTrans, Real beta = 1.0);

  Real Sum() const {
    if (on_device_) return Dim() == 0 ? Real(0) : Ops().Sum(DevRow());
    return Vec().Sum();
  }
  Real SumLog() const {
    return Inspect([](const VectorBase<Real> &h) { return h.SumLog(); });
  }
  Real Max() const {
    if (on_device_) return Ops().VecMax(DevV(), nullptr);
    return Vec().Max();
  }
  Real Max(MatrixIndexT *index) const {
    if (!on_device_) return Vec().Max(index);
    int32 i = -1;
    Real ans = Ops().VecMax(DevV(), &i);
    *index = i;
    return ans;
  }
  Real Min() const {
    if (on_device_) return Ops().VecMin(DevV(), nullptr);
    return Vec().Min();
  }
  Real Min(MatrixIndexT *index) const {
    if (!on_device_) return Vec().Min(index);
    int32 i = -1;
    Real ans = Ops().VecMin(DevV(), &i);
    *index = i;
    return ans;
  }
  Real Norm(Real p) const {
    if (on_device_) return Ops().VecNorm(DevV(), p);
    return Vec().Norm(p);
  }
  Real LogSumExp(Real prune = -1.0) const {
    return Inspect(
        [prune](const VectorBase<Real> &h) { return h.LogSumExp(prune); });
  }
  bool ApproxEqual(const CuVectorBase<Real> &other, float tol = 0.01) const {
    if (!on_device_ && !other.on_device_)
      return Vec().ApproxEqual(other.Vec(), tol);
    return Download().ApproxEqual(other.Download(), tol);
  }
  bool IsFinite() const {
    return Inspect([](const VectorBase<Real> &h) { return h.IsFinite(); });
  }

  void Write(std::ostream &os, bool binary) const {
    if (on_device_) Download().Write(os, binary);
    else Vec().Write(os, binary);
  }

  // A host copy of the contents (either backend).
  Vector<Real> Download() const {
    Vector<Real> host(Dim(), kUndefined);
    CopyToVec(&host);
    return host;
  }

 protected:
  CuVectorBase() {}
  ~CuVectorBase() {}
  void SetView(Real *data, MatrixIndexT dim, bool on_device) {
    this->data_ = data;
    this->dim_ = dim;
    on_device_ = on_device;
  }
  static DeviceOps<Real> &Ops() { return cu_backend::Ops<Real>(); }
  // True if this and "other" are both on the device, false if both on the
  // host; an InternalError otherwise.
  template <typename OtherReal>
  bool Where(const CuVectorBase<OtherReal> &other, const char *op) const {
    if (other.OnDevice() != on_device_) cu_backend::MixedLocations(op);
    return on_device_;
  }
  template <typename OtherReal>
  bool Where(const CuMatrixBase<OtherReal> &other, const char *op) const;
  // Runs f on the host data, or on a host copy that is then written back.
  template <class F>
  void Modify(F f) {
    if (!on_device_) {
      f(Vec());
      return;
    }
    Vector<Real> host = Download();
    f(host);
    CopyFromVec(static_cast<const VectorBase<Real> &>(host));
  }
  template <class F>
  auto Inspect(F f) const -> decltype(f(std::declval<VectorBase<Real> &>())) {
    if (!on_device_) return f(Vec());
    Vector<Real> host = Download();
    return f(host);
  }

 private:
  template <typename OtherReal> friend class CuVectorBase;
  CuVectorBase(const CuVectorBase &) = delete;
  CuVectorBase &operator=(const CuVectorBase &) = delete;
  bool on_device_ = false;
};

template <typename Real>
class CuVector : public CuVectorBase<Real> {
 public:
  CuVector() : dev_loc_(cu_backend::OnDevice()) { Sync(); }
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
  CuVector(CuVector<Real> &&v) noexcept
      : CuVectorBase<Real>(), dev_loc_(v.dev_loc_) {
    Sync();
    Swap(&v);
  }
  ~CuVector() { cu_backend::Free(dev_); }

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

  // Gets memory where Cu objects live now (cu_backend::OnDevice()).
  void Resize(MatrixIndexT dim, MatrixResizeType t = kSetZero);
  void Swap(CuVector<Real> *other) {
    store_.Swap(&other->store_);
    std::swap(dev_, other->dev_);
    std::swap(dev_loc_, other->dev_loc_);
    std::swap(dev_dim_, other->dev_dim_);
    Sync();
    other->Sync();
  }
  // Exchanges contents with a host vector (no copy on the CPU backend).
  void Swap(Vector<Real> *other) {
    if (!dev_loc_ && !cu_backend::OnDevice()) {
      store_.Swap(other);
      Sync();
      return;
    }
    Vector<Real> mine = this->Download();
    Resize(other->Dim(), kUndefined);
    this->CopyFromVec(static_cast<const VectorBase<Real> &>(*other));
    other->Swap(&mine);
  }
  void RemoveElement(MatrixIndexT i) {
    Vector<Real> host = this->Download();
    host.RemoveElement(i);
    SetFromHost(&host);
  }
  void Read(std::istream &is, bool binary, bool add = false) {
    Vector<Real> host;
    if (add) host = this->Download();
    host.Read(is, binary, add);
    SetFromHost(&host);
  }

 private:
  void Sync() {
    if (dev_loc_)
      this->SetView(dev_, dev_dim_, true);
    else
      this->SetView(store_.Data(), store_.Dim(), false);
  }
  // Takes a host vector's contents, placed where Cu objects live now.
  void SetFromHost(Vector<Real> *host) {
    if (!cu_backend::OnDevice()) {
      cu_backend::Free(dev_);
      dev_ = nullptr;
      dev_dim_ = 0;
      dev_loc_ = false;
      store_.Swap(host);
      Sync();
    } else {
      Resize(host->Dim(), kUndefined);
      this->CopyFromVec(static_cast<const VectorBase<Real> &>(*host));
    }
  }
  Vector<Real> store_;       // host memory (CPU backend)
  bool dev_loc_ = false;     // true: the data is dev_ (GPU backend)
  Real *dev_ = nullptr;      // device memory
  MatrixIndexT dev_dim_ = 0;
};

template <typename Real>
void CuVector<Real>::Resize(MatrixIndexT dim, MatrixResizeType t) {
  NNET3_ASSERT(dim >= 0);
  const bool to_device = cu_backend::OnDevice();
  if (!to_device && !dev_loc_) {
    store_.Resize(dim, t);
    Sync();
    return;
  }
  // Keep the old contents for kCopyData, wherever they are.
  Vector<Real> old;
  if (t == kCopyData) old = this->Download();
  cu_backend::Free(dev_);
  dev_ = nullptr;
  dev_dim_ = 0;
  store_.Resize(0);
  dev_loc_ = to_device;
  if (to_device) {
    dev_ = static_cast<Real *>(cu_backend::Malloc(sizeof(Real) * dim));
    dev_dim_ = dim;
  } else {
    store_.Resize(dim, kUndefined);
  }
  Sync();
  if (t == kSetZero || t == kCopyData) this->SetZero();
  if (t == kCopyData) {
    const MatrixIndexT n = std::min(dim, old.Dim());
    this->Range(0, n).CopyFromVec(
        static_cast<const VectorBase<Real> &>(SubVector<Real>(old, 0, n)));
  }
}

template <typename Real>
class CuSubVector : public CuVectorBase<Real> {
 public:
  CuSubVector(const CuVectorBase<Real> &t, MatrixIndexT origin,
              MatrixIndexT length) {
    NNET3_ASSERT(origin >= 0 && length >= 0 && origin + length <= t.Dim());
    this->SetView(const_cast<Real *>(t.Data()) + origin, length,
                  t.OnDevice());
  }
  // A view of raw memory where Cu objects live now.
  CuSubVector(const Real *data, MatrixIndexT length) {
    this->SetView(const_cast<Real *>(data), length, cu_backend::OnDevice());
  }
  CuSubVector(const CuSubVector<Real> &other) : CuVectorBase<Real>() {
    this->SetView(const_cast<Real *>(other.Data()), other.Dim(),
                  other.OnDevice());
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
template <typename OtherReal>
void CuVectorBase<Real>::AddVec(Real alpha, const CuVectorBase<OtherReal> &v) {
  NNET3_ASSERT(v.Dim() == Dim());
  if (Where(v, "AddVec")) {
    CuVector<Real> converted(v.Dim(), kUndefined);
    converted.CopyFromVec(v);
    AddVec(alpha, converted);
  } else {
    Vec().AddVec(alpha, v.Vec());
  }
}

template <typename Real>
Real VecVec(const CuVectorBase<Real> &a, const CuVectorBase<Real> &b) {
  NNET3_ASSERT(a.Dim() == b.Dim());
  if (a.OnDevice() != b.OnDevice()) cu_backend::MixedLocations("VecVec");
  if (!a.OnDevice()) return VecVec(a.Vec(), b.Vec());
  if (a.Dim() == 0) return 0;
  CuVector<Real> prod(a);
  prod.MulElements(b);
  return prod.Sum();
}

template <typename Real, typename OtherReal>
Real VecVec(const CuVectorBase<Real> &a, const CuVectorBase<OtherReal> &b) {
  if (a.OnDevice() != b.OnDevice()) cu_backend::MixedLocations("VecVec");
  if (!a.OnDevice()) return VecVec(a.Vec(), b.Vec());
  CuVector<Real> converted(b);
  return VecVec(a, converted);
}

template <typename Real>
std::ostream &operator<<(std::ostream &os, const CuVectorBase<Real> &v) {
  return os << v.Download();
}

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_VECTOR_H_
