// cudamatrix/cu-host-view.h
// Host access to Cu matrices and vectors for the component code that has
// no Cu operation (and no kernel) yet: attention weights, statistics
// pooling, convolution bookkeeping, and the like. On the CPU backend the
// views are the object's own memory (no copy); on the GPU backend a
// reading view downloads the contents, and a writing view downloads them
// and uploads its host copy again on Commit(). Each use is a transfer per
// call, so every use marks an operation the GPU backend should get a
// kernel for (docs/gpu.md lists them).
//
// Invariants: a writing view must be committed before the Cu object is used
// again (on the CPU backend Commit() does nothing); the Cu object must
// outlive its view and keep its size meanwhile.
#ifndef NNET3_CUDAMATRIX_CU_HOST_VIEW_H_
#define NNET3_CUDAMATRIX_CU_HOST_VIEW_H_

#include "cudamatrix/cu-matrix.h"
#include "cudamatrix/cu-vector.h"

namespace nnet3 {

template <typename Real>
class HostMatRead {
 public:
  explicit HostMatRead(const CuMatrixBase<Real> &m)
      : view_(m.OnDevice() ? nullptr : &m.Mat()) {
    if (view_ == nullptr) {
      copy_ = m.Download();
      view_ = &copy_;
    }
  }
  const MatrixBase<Real> &operator*() const { return *view_; }

 private:
  Matrix<Real> copy_;
  const MatrixBase<Real> *view_;
};

template <typename Real>
class HostMatWrite {
 public:
  explicit HostMatWrite(CuMatrixBase<Real> *m)
      : target_(m), view_(m->OnDevice() ? nullptr : &m->Mat()) {
    if (view_ == nullptr) {
      copy_ = m->Download();
      view_ = &copy_;
    }
  }
  MatrixBase<Real> &operator*() { return *view_; }
  // Writes the host copy back (GPU backend).
  void Commit() {
    if (target_->OnDevice()) target_->CopyFromMat(copy_);
  }

 private:
  CuMatrixBase<Real> *target_;
  Matrix<Real> copy_;
  MatrixBase<Real> *view_;
};

template <typename Real>
class HostVecRead {
 public:
  explicit HostVecRead(const CuVectorBase<Real> &v)
      : view_(v.OnDevice() ? nullptr : &v.Vec()) {
    if (view_ == nullptr) {
      copy_ = v.Download();
      view_ = &copy_;
    }
  }
  const VectorBase<Real> &operator*() const { return *view_; }

 private:
  Vector<Real> copy_;
  const VectorBase<Real> *view_;
};

template <typename Real>
class HostVecWrite {
 public:
  explicit HostVecWrite(CuVectorBase<Real> *v)
      : target_(v), view_(v->OnDevice() ? nullptr : &v->Vec()) {
    if (view_ == nullptr) {
      copy_ = v->Download();
      view_ = &copy_;
    }
  }
  VectorBase<Real> &operator*() { return *view_; }
  void Commit() {
    if (target_->OnDevice()) target_->CopyFromVec(copy_);
  }

 private:
  CuVectorBase<Real> *target_;
  Vector<Real> copy_;
  VectorBase<Real> *view_;
};

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_HOST_VIEW_H_
