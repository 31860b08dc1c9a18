// cudamatrix/cu-math-nonlinear.cc
// The operations in cu-math-nonlinear.h: on device operands each hands
// over to DeviceOps (the kernels of cuda/nonlinear.cu); otherwise the host
// loops below run on the host views (Mat(), Vec()), legitimately, since
// that branch is the CPU backend.
#include "cudamatrix/cu-math-nonlinear.h"

#include <cmath>
#include <type_traits>
#include <vector>

#include "matrix/exp-kernel.h"
#include "matrix/row-threads.h"

namespace nnet3 {
namespace cu {

namespace {

// 2^-66 as Real: the floor on the (scaled) squared norm.
template <typename Real>
Real SquaredNormFloor() {
  return static_cast<Real>(1.3552527156068805425e-20);
}

}  // namespace

template <typename Real>
void BackpropRectifiedLinear(const CuMatrixBase<Real> &out_value,
                             const CuMatrixBase<Real> &out_deriv,
                             CuMatrixBase<Real> *in_deriv) {
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, *in_deriv));
  if (in_deriv->Where(out_value, "BackpropRectifiedLinear") &&
      in_deriv->Where(out_deriv, "BackpropRectifiedLinear")) {
    cu_backend::Ops<Real>().BackpropRectifiedLinear(
        in_deriv->Dev(), out_value.Dev(), out_deriv.Dev());
    return;
  }
  const MatrixBase<Real> &y_host = out_value.Mat(), &e_host = out_deriv.Mat();
  MatrixBase<Real> &d_host = in_deriv->Mat();
  auto rows = [&](MatrixIndexT row_begin, MatrixIndexT row_end) {
    for (MatrixIndexT r = row_begin; r < row_end; r++) {
      const Real *y = y_host.RowData(r), *e = e_host.RowData(r);
      Real *d = d_host.RowData(r);
      // e[c] is read whether or not it is kept: with the load outside the
      // condition the compiler turns the loop into vector blends instead of
      // a branch per element (which mispredicts about half the time on ReLU
      // outputs).
      for (MatrixIndexT c = 0; c < y_host.NumCols(); c++) {
        const Real ec = e[c];
        d[c] = (y[c] > 0.0f ? ec : Real(0));
      }
    }
  };
  if (RowsIndependent(y_host, d_host) && RowsIndependent(e_host, d_host))
    ForRowBlocks(d_host.NumRows(), d_host.NumCols(), rows);
  else
    rows(0, d_host.NumRows());
}

template <typename Real>
void DiffSoftmaxPerRow(const CuMatrixBase<Real> &value,
                       const CuMatrixBase<Real> &diff,
                       CuMatrixBase<Real> *in_deriv) {
  NNET3_ASSERT(SameDim(value, diff) && SameDim(value, *in_deriv));
  if (in_deriv->Where(value, "DiffSoftmaxPerRow") &&
      in_deriv->Where(diff, "DiffSoftmaxPerRow")) {
    cu_backend::Ops<Real>().DiffSoftmaxPerRow(in_deriv->Dev(), value.Dev(),
                                              diff.Dev());
    return;
  }
  const MatrixBase<Real> &y_host = value.Mat(), &e_host = diff.Mat();
  MatrixBase<Real> &d_host = in_deriv->Mat();
  const MatrixIndexT cols = y_host.NumCols();
  for (MatrixIndexT r = 0; r < y_host.NumRows(); r++) {
    const Real *y = y_host.RowData(r), *e = e_host.RowData(r);
    Real *d = d_host.RowData(r);
    double dot = 0.0;
    for (MatrixIndexT c = 0; c < cols; c++) dot += double(y[c]) * e[c];
    for (MatrixIndexT c = 0; c < cols; c++)
      d[c] = y[c] * (e[c] - static_cast<Real>(dot));
  }
}

template <typename Real>
void DiffLogSoftmaxPerRow(const CuMatrixBase<Real> &out_value,
                          const CuMatrixBase<Real> &out_deriv,
                          CuMatrixBase<Real> *in_deriv) {
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, *in_deriv));
  if (in_deriv->Where(out_value, "DiffLogSoftmaxPerRow") &&
      in_deriv->Where(out_deriv, "DiffLogSoftmaxPerRow")) {
    cu_backend::Ops<Real>().DiffLogSoftmaxPerRow(
        in_deriv->Dev(), out_value.Dev(), out_deriv.Dev());
    return;
  }
  const MatrixBase<Real> &y_host = out_value.Mat(), &e_host = out_deriv.Mat();
  MatrixBase<Real> &d_host = in_deriv->Mat();
  const MatrixIndexT cols = y_host.NumCols();
  auto rows = [&](MatrixIndexT row_begin, MatrixIndexT row_end) {
    std::vector<float> exp_row(std::is_same<Real, float>::value ? cols : 0);
    for (MatrixIndexT r = row_begin; r < row_end; r++) {
      const Real *y = y_host.RowData(r), *e = e_host.RowData(r);
      Real *d = d_host.RowData(r);
      // Eight interleaved partial sums in double (vectorizable), added in a
      // fixed order.
      double partial[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sum = 0.0;
      MatrixIndexT c = 0;
      for (; c + 8 <= cols; c += 8)
        for (int k = 0; k < 8; k++) partial[k] += e[c + k];
      for (int k = 0; k < 8; k++) sum += partial[k];
      for (; c < cols; c++) sum += e[c];
      const Real s = static_cast<Real>(sum);
      if constexpr (std::is_same<Real, float>::value) {
        exp_kernel::Exp(y, exp_row.data(), cols);
        for (c = 0; c < cols; c++) d[c] = e[c] - exp_row[c] * s;
      } else {
        for (c = 0; c < cols; c++) d[c] = e[c] - std::exp(y[c]) * s;
      }
    }
  };
  if (RowsIndependent(y_host, d_host) && RowsIndependent(e_host, d_host))
    ForRowBlocks(d_host.NumRows(), cols, rows);
  else
    rows(0, d_host.NumRows());
}

template <typename Real>
void NormalizePerRow(const CuMatrixBase<Real> &in, Real target_rms,
                     bool add_log_stddev, CuMatrixBase<Real> *out) {
  int32 d = in.NumCols();
  NNET3_ASSERT(
      out->NumRows() == in.NumRows() &&
      (in.NumRows() == 0 || out->NumCols() == d + (add_log_stddev ? 1 : 0)));
  if (in.NumRows() == 0) return;  // (a matrix with no rows has no columns)
  CuSubMatrix<Real> out_no_log(*out, 0, out->NumRows(), 0, d);
  if (in.Data() != out_no_log.Data()) out_no_log.CopyFromMat(in);
  CuVector<Real> in_norm(in.NumRows());
  Real d_scaled = d * target_rms * target_rms;
  in_norm.AddDiagMat2(1.0 / d_scaled, in, kNoTrans, 0.0);
  in_norm.ApplyFloor(SquaredNormFloor<Real>());
  in_norm.ApplyPow(-0.5);
  out_no_log.MulRowsVec(in_norm);
  if (add_log_stddev) {
    in_norm.ApplyLog();
    in_norm.Scale(-1.0);
    in_norm.Add(std::log(target_rms));
    out->CopyColFromVec(in_norm, d);
  }
}

template <typename Real>
void DiffNormalizePerRow(const CuMatrixBase<Real> &in_value,
                         const CuMatrixBase<Real> &out_deriv, Real target_rms,
                         bool add_log_stddev, CuMatrixBase<Real> *in_deriv) {
  int32 rows = in_value.NumRows(), d = in_value.NumCols();
  NNET3_ASSERT(
      SameDim(in_value, *in_deriv) && out_deriv.NumRows() == rows &&
      (rows == 0 || out_deriv.NumCols() == d + (add_log_stddev ? 1 : 0)));
  if (rows == 0) return;
  const Real floor = SquaredNormFloor<Real>();
  if (in_deriv->Where(in_value, "DiffNormalizePerRow") &&
      in_deriv->Where(out_deriv, "DiffNormalizePerRow")) {
    cu_backend::Ops<Real>().DiffNormalizePerRow(
        in_deriv->Dev(), in_value.Dev(), out_deriv.Dev(), target_rms,
        add_log_stddev);
    return;
  }
  CuSubMatrix<Real> out_deriv_no_log(out_deriv, 0, rows, 0, d);
  // Host loops (this is the CPU backend): the per-row dot products first,
  // before an in-place in_deriv is overwritten.
  Vector<Real> dot_products(rows);
  for (int32 r = 0; r < rows; r++)
    dot_products(r) =
        VecVec(out_deriv_no_log.Row(r).Vec(), in_value.Row(r).Vec());
  CuVector<Real> in_norm(rows);
  Real d_scaled = d * target_rms * target_rms;
  in_norm.AddDiagMat2(1.0, in_value, kNoTrans, 0.0);
  if (add_log_stddev) {
    // d log(stddev) / dx = x / |x|^2 (with |x|^2 floored).
    CuVector<Real> log_stddev_deriv(in_norm);
    log_stddev_deriv.ApplyFloor(d * floor);
    log_stddev_deriv.ApplyPow(-1.0);
    CuVector<Real> log_deriv(rows);
    log_deriv.CopyColFromMat(out_deriv, out_deriv.NumCols() - 1);
    log_stddev_deriv.MulElements(log_deriv);
    in_deriv->AddDiagVecMat(1.0, log_stddev_deriv, in_value, kNoTrans, 1.0);
  }
  in_norm.Scale(1.0 / d_scaled);
  in_norm.ApplyFloor(floor);
  in_norm.ApplyPow(-0.5);
  if (in_deriv->Data() != out_deriv_no_log.Data())
    in_deriv->AddDiagVecMat(1.0, in_norm, out_deriv_no_log, kNoTrans, 1.0);
  else
    in_deriv->MulRowsVec(in_norm);
  // Where the norm hit the floor the scale is constant: no second term.
  const VectorBase<Real> &in_norm_host = in_norm.Vec();
  for (int32 r = 0; r < rows; r++) {
    Real s = in_norm_host(r);
    if (s == static_cast<Real>(1.0 / std::sqrt(floor))) s = 0.0;
    dot_products(r) *= s * s * s;
  }
  in_deriv->AddDiagVecMat(-1.0 / d_scaled, CuVector<Real>(dot_products),
                          in_value, kNoTrans, 1.0);
}

template <typename Real>
void ColumnDotProducts(Real alpha, const CuMatrixBase<Real> &A,
                       const CuMatrixBase<Real> &B, CuVectorBase<Real> *v) {
  NNET3_ASSERT(SameDim(A, B) && v->Dim() == A.NumCols());
  if (A.Where(B, "ColumnDotProducts") && A.Where(*v, "ColumnDotProducts")) {
    cu_backend::Ops<Real>().ColumnDotProducts(v->DevV(), alpha, A.Dev(),
                                              B.Dev());
    return;
  }
  const MatrixBase<Real> &a = A.Mat(), &b = B.Mat();
  VectorBase<Real> &out = v->Vec();
  // Row by row, one running sum per column: each column's sum takes its
  // terms in the same order as a column-by-column loop (so the same
  // rounding), but the matrices are read in memory order and the inner loop
  // vectorizes.
  const int32 cols = a.NumCols();
  std::vector<Real> sum(cols, Real(0));
  Real *s = sum.data();
  // Blocks of columns on the row threads (each column keeps its order).
  ForRowBlocks(cols, a.NumRows(), [&](MatrixIndexT c0, MatrixIndexT c1) {
    for (int32 i = 0; i < a.NumRows(); i++) {
      const Real *ar = a.RowData(i), *br = b.RowData(i);
      for (int32 c = c0; c < c1; c++) s[c] += ar[c] * br[c];
    }
  });
  for (int32 c = 0; c < cols; c++) out(c) = alpha * s[c];
}

template <typename Real>
void BackpropDropoutFromValues(const CuMatrixBase<Real> &in_value,
                               const CuMatrixBase<Real> &out_value,
                               const CuMatrixBase<Real> &out_deriv,
                               CuMatrixBase<Real> *in_deriv) {
  NNET3_ASSERT(SameDim(in_value, out_value) && SameDim(in_value, out_deriv) &&
               SameDim(in_value, *in_deriv));
  if (in_deriv->Where(in_value, "BackpropDropoutFromValues") &&
      in_deriv->Where(out_value, "BackpropDropoutFromValues") &&
      in_deriv->Where(out_deriv, "BackpropDropoutFromValues")) {
    cu_backend::Ops<Real>().BackpropDropoutFromValues(
        in_deriv->Dev(), in_value.Dev(), out_value.Dev(), out_deriv.Dev());
    return;
  }
  const MatrixBase<Real> &x_host = in_value.Mat(), &y_host = out_value.Mat(),
                         &d_host = out_deriv.Mat();
  MatrixBase<Real> &o_host = in_deriv->Mat();
  for (int32 r = 0; r < x_host.NumRows(); r++) {
    const Real *x = x_host.RowData(r), *y = y_host.RowData(r),
               *d = d_host.RowData(r);
    Real *o = o_host.RowData(r);
    for (int32 c = 0; c < x_host.NumCols(); c++)
      o[c] = x[c] == 0 ? d[c] : d[c] * y[c] / x[c];
  }
}

template <typename Real>
void GroupPnorm(const CuMatrixBase<Real> &src, CuMatrixBase<Real> *out) {
  const int32 out_dim = out->NumCols();
  NNET3_ASSERT(src.NumRows() == out->NumRows() &&
               (src.NumRows() == 0 ||
                (out_dim > 0 && src.NumCols() % out_dim == 0)));
  if (src.NumRows() == 0) return;
  const int32 group = src.NumCols() / out_dim;
  if (out->Where(src, "GroupPnorm")) {
    cu_backend::Ops<Real>().GroupPnorm(out->Dev(), src.Dev());
    return;
  }
  const MatrixBase<Real> &x_host = src.Mat();
  MatrixBase<Real> &y_host = out->Mat();
  for (MatrixIndexT r = 0; r < x_host.NumRows(); r++) {
    const Real *x = x_host.RowData(r);
    Real *y = y_host.RowData(r);
    for (int32 j = 0; j < out_dim; j++) {
      Real sum = 0.0;
      for (int32 k = 0; k < group; k++)
        sum += x[j * group + k] * x[j * group + k];
      y[j] = std::sqrt(sum);
    }
  }
}

template <typename Real>
void DiffGroupPnorm(const CuMatrixBase<Real> &in_value,
                    const CuMatrixBase<Real> &out_value,
                    const CuMatrixBase<Real> &out_deriv,
                    CuMatrixBase<Real> *in_deriv) {
  const int32 out_dim = out_value.NumCols();
  NNET3_ASSERT(SameDim(in_value, *in_deriv) && SameDim(out_value, out_deriv) &&
               in_value.NumRows() == out_value.NumRows() &&
               (in_value.NumRows() == 0 ||
                (out_dim > 0 && in_value.NumCols() % out_dim == 0)));
  if (in_value.NumRows() == 0) return;
  const int32 group = in_value.NumCols() / out_dim;
  if (in_deriv->Where(in_value, "DiffGroupPnorm") &&
      in_deriv->Where(out_value, "DiffGroupPnorm") &&
      in_deriv->Where(out_deriv, "DiffGroupPnorm")) {
    cu_backend::Ops<Real>().DiffGroupPnorm(in_deriv->Dev(), in_value.Dev(),
                                           out_value.Dev(), out_deriv.Dev());
    return;
  }
  const MatrixBase<Real> &x_host = in_value.Mat(), &y_host = out_value.Mat(),
                         &e_host = out_deriv.Mat();
  MatrixBase<Real> &d_host = in_deriv->Mat();
  for (MatrixIndexT r = 0; r < x_host.NumRows(); r++) {
    const Real *x = x_host.RowData(r), *y = y_host.RowData(r),
               *e = e_host.RowData(r);
    Real *d = d_host.RowData(r);
    for (int32 j = 0; j < out_dim; j++) {
      Real factor = (y[j] != 0.0f ? e[j] / y[j] : 0.0f);
      for (int32 k = 0; k < group; k++)
        d[j * group + k] = x[j * group + k] * factor;
    }
  }
}

template <typename Real>
void ExcessMagnitude(const CuMatrixBase<Real> &in, Real threshold,
                     CuMatrixBase<Real> *out) {
  NNET3_ASSERT(SameDim(in, *out));
  if (out->Where(in, "ExcessMagnitude")) {
    cu_backend::Ops<Real>().ExcessMagnitude(out->Dev(), in.Dev(), threshold);
    return;
  }
  const MatrixBase<Real> &x_host = in.Mat();
  MatrixBase<Real> &p_host = out->Mat();
  for (MatrixIndexT r = 0; r < x_host.NumRows(); r++) {
    const Real *x = x_host.RowData(r);
    Real *p = p_host.RowData(r);
    for (MatrixIndexT c = 0; c < x_host.NumCols(); c++) {
      Real sign = (x[c] > 0.0f ? 1.0f : -1.0f);
      Real mag = std::fabs(x[c]) - threshold;
      p[c] = (mag > 0.0f ? mag : 0.0f) * sign;
    }
  }
}

template <typename Real>
void MulRowBlocks(const CuMatrixBase<Real> &src, const CuArray<int32> &indexes,
                  CuMatrixBase<Real> *data) {
  const int32 block = src.NumCols(), rows = data->NumRows();
  NNET3_ASSERT(rows == 0 || (block > 0 && data->NumCols() % block == 0));
  const int32 multiple = rows == 0 ? 0 : data->NumCols() / block;
  NNET3_ASSERT(indexes.Dim() == rows * multiple);
  if (data->Where(src, "MulRowBlocks")) {
    if (rows == 0) return;
    NNET3_ASSERT(indexes.OnDevice());
    cu_backend::Ops<Real>().MulRowBlocks(data->Dev(), src.Dev(),
                                         indexes.Data());
    return;
  }
  MatrixBase<Real> &host_data = data->Mat();
  const MatrixBase<Real> &host_src = src.Mat();
  const std::vector<int32> &idx = indexes.Vec();
  for (int32 r = 0; r < rows; r++) {
    Real *row = host_data.RowData(r);
    for (int32 b = 0; b < multiple; b++) {
      int32 i = idx[r * multiple + b];
      NNET3_ASSERT(i >= 0 && i < src.NumRows());
      const Real *m = host_src.RowData(i);
      Real *part = row + b * block;
      for (int32 j = 0; j < block; j++) part[j] *= m[j];
    }
  }
}

#define NNET3_INSTANTIATE(Real)                                             \
  template void BackpropRectifiedLinear(const CuMatrixBase<Real> &,         \
                                        const CuMatrixBase<Real> &,         \
                                        CuMatrixBase<Real> *);              \
  template void DiffSoftmaxPerRow(const CuMatrixBase<Real> &,               \
                                  const CuMatrixBase<Real> &,               \
                                  CuMatrixBase<Real> *);                    \
  template void DiffLogSoftmaxPerRow(const CuMatrixBase<Real> &,            \
                                     const CuMatrixBase<Real> &,            \
                                     CuMatrixBase<Real> *);                 \
  template void NormalizePerRow(const CuMatrixBase<Real> &, Real, bool,     \
                                CuMatrixBase<Real> *);                      \
  template void DiffNormalizePerRow(const CuMatrixBase<Real> &,             \
                                    const CuMatrixBase<Real> &, Real, bool, \
                                    CuMatrixBase<Real> *);                  \
  template void ColumnDotProducts(Real, const CuMatrixBase<Real> &,         \
                                  const CuMatrixBase<Real> &,               \
                                  CuVectorBase<Real> *);                    \
  template void BackpropDropoutFromValues(                                  \
      const CuMatrixBase<Real> &, const CuMatrixBase<Real> &,               \
      const CuMatrixBase<Real> &, CuMatrixBase<Real> *);                     \
  template void GroupPnorm(const CuMatrixBase<Real> &, CuMatrixBase<Real> *); \
  template void DiffGroupPnorm(                                              \
      const CuMatrixBase<Real> &, const CuMatrixBase<Real> &,                \
      const CuMatrixBase<Real> &, CuMatrixBase<Real> *);                     \
  template void ExcessMagnitude(const CuMatrixBase<Real> &, Real,            \
                                CuMatrixBase<Real> *);                       \
  template void MulRowBlocks(const CuMatrixBase<Real> &,                     \
                             const CuArray<int32> &, CuMatrixBase<Real> *);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

}  // namespace cu
}  // namespace nnet3
