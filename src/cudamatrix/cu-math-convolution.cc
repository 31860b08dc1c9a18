// cudamatrix/cu-math-convolution.cc
// The operations in cu-math-convolution.h: on device operands each hands
// over to DeviceOps (the kernels of cuda/convolution.cu); otherwise the
// host loops below run on the host views (Mat()), legitimately, since that
// branch is the CPU backend.
#include "cudamatrix/cu-math-convolution.h"

namespace nnet3 {
namespace cu {

template <typename Real>
void AddTiledBlockSums(const CuMatrixBase<Real> &m, CuMatrixBase<Real> *sums) {
  if (m.NumRows() == 0 || m.NumCols() == 0) return;
  NNET3_ASSERT(sums->NumRows() > 0 && sums->NumCols() > 0);
  if (sums->Where(m, "AddTiledBlockSums")) {
    cu_backend::Ops<Real>().AddTiledBlockSums(sums->Dev(), m.Dev());
    return;
  }
  const MatrixBase<Real> &in = m.Mat();
  MatrixBase<Real> &out = sums->Mat();
  const int32 R = out.NumRows(), C = out.NumCols();
  for (int32 r = 0; r < in.NumRows(); r++)
    for (int32 c = 0; c < in.NumCols(); c++) out(r % R, c % C) += in(r, c);
}

template <typename Real>
void AddTiled(const CuMatrixBase<Real> &tile, CuMatrixBase<Real> *m) {
  if (m->NumRows() == 0 || m->NumCols() == 0) return;
  NNET3_ASSERT(tile.NumRows() > 0 && tile.NumCols() > 0);
  if (m->Where(tile, "AddTiled")) {
    cu_backend::Ops<Real>().AddTiled(m->Dev(), tile.Dev());
    return;
  }
  const MatrixBase<Real> &t = tile.Mat();
  MatrixBase<Real> &out = m->Mat();
  const int32 R = t.NumRows(), C = t.NumCols();
  for (int32 r = 0; r < out.NumRows(); r++)
    for (int32 c = 0; c < out.NumCols(); c++) out(r, c) += t(r % R, c % C);
}

template <typename Real>
void SelectWhereEqual(const CuMatrixBase<Real> &ref,
                      const CuMatrixBase<Real> &src, CuMatrixBase<Real> *data) {
  NNET3_ASSERT(SameDim(ref, *data) && SameDim(src, *data));
  if (data->Where(ref, "SelectWhereEqual") &&
      data->Where(src, "SelectWhereEqual")) {
    cu_backend::Ops<Real>().SelectWhereEqual(data->Dev(), ref.Dev(),
                                             src.Dev());
    return;
  }
  const MatrixBase<Real> &ref_host = ref.Mat(), &src_host = src.Mat();
  MatrixBase<Real> &data_host = data->Mat();
  for (int32 r = 0; r < data_host.NumRows(); r++) {
    Real *row = data_host.RowData(r);
    const Real *ref_row = ref_host.RowData(r), *src_row = src_host.RowData(r);
    for (int32 c = 0; c < data_host.NumCols(); c++)
      row[c] = (row[c] == ref_row[c]) ? src_row[c] : Real(0);
  }
}

#define NNET3_INSTANTIATE(Real)                                              \
  template void AddTiledBlockSums(const CuMatrixBase<Real> &,               \
                                  CuMatrixBase<Real> *);                    \
  template void AddTiled(const CuMatrixBase<Real> &, CuMatrixBase<Real> *); \
  template void SelectWhereEqual(const CuMatrixBase<Real> &,                \
                                 const CuMatrixBase<Real> &,                \
                                 CuMatrixBase<Real> *);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

}  // namespace cu
}  // namespace nnet3
