// cudamatrix/cu-sparse-matrix.h
// CuSparseMatrix: a sparse matrix (rows of (column, value) pairs, as Kaldi's
// sparse targets and one-hot inputs) in the memory of the computing backend,
// with the operations networks need from it. Included by cu-matrix.h.
//
// The rows are kept on the host on both backends. The first operation with
// a device operand uploads the stored elements as (row, column, value)
// triplets (three arrays, NumElements() long, in row order), which the
// object then keeps as its device layout for every later device operation
// (an objective uses the same targets for its value and its derivative);
// copies share it.
//
// Invariants: the same rows as the host SparseMatrix it was made from;
// Smat() is that host matrix; the device triplets, when present, are those
// rows: every change of the rows (CopyFromSmat, Swap, Read) drops them.
// The triplets are made inside const operations, so one object must not be
// used by two threads at once on a GPU (GPU tools compute on one thread).
#ifndef NNET3_CUDAMATRIX_CU_SPARSE_MATRIX_H_
#define NNET3_CUDAMATRIX_CU_SPARSE_MATRIX_H_

#include <istream>
#include <memory>
#include <ostream>
#include <utility>
#include <vector>

#include "cudamatrix/cu-matrix.h"
#include "matrix/sparse.h"

namespace nnet3 {

template <typename Real>
class CuSparseMatrix {
 public:
  CuSparseMatrix() {}
  explicit CuSparseMatrix(const SparseMatrix<Real> &smat) : smat_(smat) {}

  MatrixIndexT NumRows() const { return smat_.NumRows(); }
  MatrixIndexT NumCols() const { return smat_.NumCols(); }
  MatrixIndexT NumElements() const { return smat_.NumElements(); }
  Real Sum() const { return smat_.Sum(); }
  Real FrobeniusNorm() const { return smat_.FrobeniusNorm(); }

  void CopyFromSmat(const SparseMatrix<Real> &smat) {
    smat_ = smat;
    device_.reset();
  }
  void CopyToSmat(SparseMatrix<Real> *smat) const { *smat = smat_; }
  void Swap(SparseMatrix<Real> *smat) {
    smat_.Swap(smat);
    device_.reset();
  }
  void Swap(CuSparseMatrix<Real> *other) {
    smat_.Swap(&other->smat_);
    device_.swap(other->device_);
  }
  // Whether the device triplets have been made (for tests).
  bool HasDeviceLayout() const { return device_ != nullptr; }

  // dst = op(this).
  void CopyToMat(CuMatrixBase<Real> *dst,
                 MatrixTransposeType trans = kNoTrans) const {
    if (!dst->OnDevice()) {
      smat_.CopyToMat(&dst->Mat(), trans);
      return;
    }
    CheckOpDims(*dst, trans);
    dst->SetZero();
    AddOnDevice(Real(1), dst, trans);
  }
  // dst += alpha * op(this).
  void AddToMat(Real alpha, CuMatrixBase<Real> *dst,
                MatrixTransposeType trans = kNoTrans) const {
    if (!dst->OnDevice()) {
      smat_.AddToMat(alpha, &dst->Mat(), trans);
      return;
    }
    CheckOpDims(*dst, trans);
    AddOnDevice(alpha, dst, trans);
  }
  // trace(op(A) this) with A on the device (TraceMatSmat below).
  Real TraceWithDeviceMat(const CuMatrixBase<Real> &A,
                          MatrixTransposeType trans) const {
    NNET3_ASSERT(A.OnDevice());
    if (trans == kTrans)
      NNET3_ASSERT(A.NumRows() == NumRows() && A.NumCols() == NumCols());
    else
      NNET3_ASSERT(A.NumRows() == NumCols() && A.NumCols() == NumRows());
    if (NumElements() == 0) return Real(0);
    const Triplets &t = DeviceTriplets();
    return cu_backend::Ops<Real>().TraceMatSparse(
        A.Dev(), t.rows.Data(), t.cols.Data(), t.values.Data(),
        t.values.Dim(), trans);
  }

  // The host copy of the rows (either backend).
  const SparseMatrix<Real> &Smat() const { return smat_; }

  void Write(std::ostream &os, bool binary) const { smat_.Write(os, binary); }
  void Read(std::istream &is, bool binary) {
    device_.reset();
    smat_.Read(is, binary);
  }

 private:
  // The stored elements as device arrays.
  struct Triplets {
    CuArray<int32> rows, cols;
    CuArray<Real> values;
    explicit Triplets(const SparseMatrix<Real> &smat) {
      std::vector<int32> r, c;
      std::vector<Real> v;
      for (MatrixIndexT i = 0; i < smat.NumRows(); i++) {
        const SparseVector<Real> &row = smat.Row(i);
        const std::pair<MatrixIndexT, Real> *e = row.Data();
        for (MatrixIndexT k = 0; k < row.NumElements(); k++) {
          r.push_back(i);
          c.push_back(e[k].first);
          v.push_back(e[k].second);
        }
      }
      rows.CopyFromVec(r);
      cols.CopyFromVec(c);
      values.CopyFromVec(v);
    }
  };
  void CheckOpDims(const CuMatrixBase<Real> &dst,
                   MatrixTransposeType trans) const {
    if (trans == kNoTrans)
      NNET3_ASSERT(dst.NumRows() == NumRows() && dst.NumCols() == NumCols());
    else
      NNET3_ASSERT(dst.NumRows() == NumCols() && dst.NumCols() == NumRows());
  }
  void AddOnDevice(Real alpha, CuMatrixBase<Real> *dst,
                   MatrixTransposeType trans) const {
    if (NumElements() == 0) return;
    const Triplets &t = DeviceTriplets();
    cu_backend::Ops<Real>().AddSparseToMat(dst->Dev(), alpha, t.rows.Data(),
                                           t.cols.Data(), t.values.Data(),
                                           t.values.Dim(), trans);
  }

  // The device layout, made on first use.
  const Triplets &DeviceTriplets() const {
    if (device_ == nullptr) {
      cu_backend::Scope device(true);
      device_ = std::make_shared<const Triplets>(smat_);
    }
    return *device_;
  }

  SparseMatrix<Real> smat_;
  mutable std::shared_ptr<const Triplets> device_;
};

template <typename Real>
void CuMatrixBase<Real>::AddSmat(Real alpha, const CuSparseMatrix<Real> &S,
                                 MatrixTransposeType trans) {
  S.AddToMat(alpha, this, trans);
}

// trace(op(A) * B) for a sparse B.
template <typename Real>
Real TraceMatSmat(const CuMatrixBase<Real> &A, const CuSparseMatrix<Real> &B,
                  MatrixTransposeType trans = kNoTrans) {
  if (!A.OnDevice()) return TraceMatSmat(A.Mat(), B.Smat(), trans);
  return B.TraceWithDeviceMat(A, trans);
}

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_SPARSE_MATRIX_H_
