// cudamatrix/cu-math-update.cc
// The operations in cu-math-update.h: on device operands each hands over
// to DeviceOps (the kernels of cuda/update.cu); otherwise the host loops
// below run on the host views (Mat(), Vec()), legitimately, since that
// branch is the CPU backend.
#include "cudamatrix/cu-math-update.h"

#include <cmath>
#include <vector>

#include "base/random.h"

namespace nnet3 {
namespace cu {

namespace {

template <typename Real>
void OrthonormalizeRowsHost(MatrixBase<Real> *m) {
  int32 rows = m->NumRows(), cols = m->NumCols();
  std::vector<std::vector<double>> q(rows, std::vector<double>(cols));
  for (int32 r = 0; r < rows; r++) {
    std::vector<double> &x = q[r];
    for (int32 c = 0; c < cols; c++) x[c] = (*m)(r, c);
    for (int32 attempt = 0; attempt < 100; attempt++) {
      for (int32 pass = 0; pass < 2; pass++)
        for (int32 s = 0; s < r; s++) {
          double dot = 0.0;
          for (int32 c = 0; c < cols; c++) dot += x[c] * q[s][c];
          for (int32 c = 0; c < cols; c++) x[c] -= dot * q[s][c];
        }
      double norm = 0.0;
      for (int32 c = 0; c < cols; c++) norm += x[c] * x[c];
      norm = std::sqrt(norm);
      if (norm > 1.0e-10) {
        for (int32 c = 0; c < cols; c++) x[c] /= norm;
        break;
      }
      for (int32 c = 0; c < cols; c++) x[c] = RandGauss();
    }
    for (int32 c = 0; c < cols; c++) (*m)(r, c) = static_cast<Real>(x[c]);
  }
}

}  // namespace

template <typename Real>
void TruncationRowScales(const CuMatrixBase<Real> &deriv,
                         const CuVectorBase<Real> *zeroing, Real inv_clip_sq,
                         Real zero_sq, CuVectorBase<Real> *scales,
                         int32 *num_clipped, Real *num_zeroed) {
  const int32 rows = deriv.NumRows();
  NNET3_ASSERT(scales->Dim() == rows &&
               (zeroing == nullptr || zeroing->Dim() == rows) &&
               (num_clipped == nullptr) == (num_zeroed == nullptr));
  bool device = deriv.Where(*scales, "TruncationRowScales");
  if (zeroing != nullptr) deriv.Where(*zeroing, "TruncationRowScales");
  if (device) {
    cuda::DevVec<const Real> zeroing_dev;
    if (zeroing != nullptr) zeroing_dev = zeroing->DevV();
    CuMatrix<Real> flags;
    if (num_clipped != nullptr) flags.Resize(2, rows, kUndefined);
    cu_backend::Ops<Real>().TruncationRowScales(
        scales->DevV(), num_clipped != nullptr ? flags.Dev() : cuda::DevMat<Real>(),
        deriv.Dev(), zeroing_dev, inv_clip_sq, zero_sq);
    if (num_clipped != nullptr) {
      CuVector<Real> counts(2);
      if (rows > 0) counts.AddColSumMat(1.0, flags, 0.0);
      Vector<Real> host = counts.Download();
      *num_clipped = static_cast<int32>(std::lround(host(0)));
      *num_zeroed = host(1);
    }
    return;
  }
  const MatrixBase<Real> &d = deriv.Mat();
  const VectorBase<Real> *z = zeroing != nullptr ? &zeroing->Vec() : nullptr;
  VectorBase<Real> &out = scales->Vec();
  int32 clipped = 0;
  Real zeroed = 0.0;
  for (int32 r = 0; r < rows; r++) {
    SubVector<Real> row(d, r);
    Real sumsq = VecVec(row, row);
    Real ratio_sq = inv_clip_sq * sumsq, scale = 1.0f;
    if (!(ratio_sq < 1.0f)) {
      clipped++;
      scale = std::pow(ratio_sq, Real(-0.5));
    }
    bool over = (sumsq - zero_sq) > 0.0f;
    if (over && z != nullptr && (*z)(r) != 0.0) {
      zeroed += 1.0f;
      scale = 0.0f;
    }
    out(r) = scale;
  }
  if (num_clipped != nullptr) {
    *num_clipped = clipped;
    *num_zeroed = zeroed;
  }
}

template <typename Real>
void FloorMagnitude(Real floor, CuVectorBase<Real> *v) {
  if (v->OnDevice()) {
    cu_backend::Ops<Real>().FloorMagnitude(v->DevV(), floor);
    return;
  }
  VectorBase<Real> &x = v->Vec();
  for (int32 i = 0; i < x.Dim(); i++) {
    Real s = x(i);
    if (std::fabs(s) < floor) x(i) = (s >= 0 ? floor : -floor);
  }
}

template <typename Real>
void OrthonormalizeRows(CuMatrixBase<Real> *m) {
  NNET3_ASSERT(m->NumRows() <= m->NumCols());
  if (!m->OnDevice()) {
    OrthonormalizeRowsHost(&m->Mat());
    return;
  }
  if (m->NumRows() == 0) return;
  CuMatrix<double> work(m->NumRows(), m->NumCols(), kUndefined,
                        kStrideEqualNumCols);
  if (cu_backend::Ops<Real>().OrthonormalizeRows(m->Dev(), work.Dev().data))
    return;
  // A row vanished: the host redoes the matrix, drawing its random rows.
  Matrix<Real> host = m->Download();
  OrthonormalizeRowsHost(&host);
  m->CopyFromMat(host);
}

#define NNET3_INSTANTIATE(Real)                                              \
  template void TruncationRowScales(const CuMatrixBase<Real> &,             \
                                    const CuVectorBase<Real> *, Real, Real, \
                                    CuVectorBase<Real> *, int32 *, Real *); \
  template void FloorMagnitude(Real, CuVectorBase<Real> *);                 \
  template void OrthonormalizeRows(CuMatrixBase<Real> *);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

}  // namespace cu
}  // namespace nnet3
