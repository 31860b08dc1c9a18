// cudamatrix/cu-sparse-matrix.h
// CuSparseMatrix: a sparse matrix (rows of (column, value) pairs, as Kaldi's
// sparse targets and one-hot inputs) in the memory of the computing backend,
// with the operations networks need from it. Included by cu-matrix.h.
//
// The rows are kept on the host on both backends; with device operands the
// operations expand them into a dense host matrix and upload that (one
// transfer per call; a device-side sparse layout is still to come).
//
// Invariants: the same rows as the host SparseMatrix it was made from;
// Smat() is that host matrix.
#ifndef NNET3_CUDAMATRIX_CU_SPARSE_MATRIX_H_
#define NNET3_CUDAMATRIX_CU_SPARSE_MATRIX_H_

#include <istream>
#include <ostream>

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

  void CopyFromSmat(const SparseMatrix<Real> &smat) { smat_ = smat; }
  void CopyToSmat(SparseMatrix<Real> *smat) const { *smat = smat_; }
  void Swap(SparseMatrix<Real> *smat) { smat_.Swap(smat); }
  void Swap(CuSparseMatrix<Real> *other) { smat_.Swap(&other->smat_); }

  // dst = op(this).
  void CopyToMat(CuMatrixBase<Real> *dst,
                 MatrixTransposeType trans = kNoTrans) const {
    if (!dst->OnDevice()) {
      smat_.CopyToMat(&dst->Mat(), trans);
      return;
    }
    Matrix<Real> dense(dst->NumRows(), dst->NumCols(), kUndefined);
    smat_.CopyToMat(&dense, trans);
    dst->CopyFromMat(dense);
  }
  // dst += alpha * op(this).
  void AddToMat(Real alpha, CuMatrixBase<Real> *dst,
                MatrixTransposeType trans = kNoTrans) const {
    if (!dst->OnDevice()) {
      smat_.AddToMat(alpha, &dst->Mat(), trans);
      return;
    }
    Matrix<Real> dense(dst->NumRows(), dst->NumCols(), kSetZero);
    smat_.AddToMat(alpha, &dense, trans);
    CuMatrix<Real> on_device(dense);
    dst->AddMat(1.0, on_device);
  }

  // The host copy of the rows (either backend).
  const SparseMatrix<Real> &Smat() const { return smat_; }

  void Write(std::ostream &os, bool binary) const { smat_.Write(os, binary); }
  void Read(std::istream &is, bool binary) { smat_.Read(is, binary); }

 private:
  SparseMatrix<Real> smat_;
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
  return TraceMatSmat(A.Download(), B.Smat(), trans);
}

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_SPARSE_MATRIX_H_
