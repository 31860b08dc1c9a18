// cudamatrix/cu-math-fused.cc
// The one-pass operations of cu-math-fused.h. Device operands run the
// operation sequence each replaces (through the Cu API); host operands run
// the loops below on the host views, which is the CPU backend. Loops that
// sum columns cut the columns into blocks (each column keeps its row order,
// so any thread count gives the same bits); purely elementwise loops cut
// the rows.
#include "cudamatrix/cu-math-fused.h"

#include "cudamatrix/cu-math-nonlinear.h"
#include "matrix/row-threads.h"

namespace nnet3 {
namespace cu {

template <typename Real>
void ColumnSumsAndSquares(Real alpha, const CuMatrixBase<Real> &M,
                          CuVectorBase<Real> *sums, CuVectorBase<Real> *sumsq) {
  NNET3_ASSERT(sums->Dim() == M.NumCols() && sumsq->Dim() == M.NumCols());
  if (M.OnDevice()) {
    sums->AddRowSumMat(alpha, M, 0.0);
    sumsq->AddDiagMat2(alpha, M, kTrans, 0.0);
    return;
  }
  const MatrixBase<Real> &m = M.Mat();
  Real *s = sums->Vec().Data(), *q = sumsq->Vec().Data();
  for (MatrixIndexT c = 0; c < m.NumCols(); c++) s[c] = q[c] = 0;
  ForRowBlocks(m.NumCols(), m.NumRows(), [&](MatrixIndexT c0, MatrixIndexT c1) {
    for (MatrixIndexT r = 0; r < m.NumRows(); r++) {
      const Real *row = m.RowData(r);
      for (MatrixIndexT c = c0; c < c1; c++) {
        s[c] += alpha * row[c];
        q[c] += alpha * row[c] * row[c];
      }
    }
  });
}

template <typename Real>
void ColumnSumsAndPositiveCounts(const CuMatrixBase<Real> &M,
                                 CuVectorBase<Real> *sums,
                                 CuVectorBase<Real> *positive) {
  NNET3_ASSERT(sums->Dim() == M.NumCols() && positive->Dim() == M.NumCols());
  if (M.OnDevice()) {
    sums->AddRowSumMat(1.0, M, 0.0);
    CuMatrix<Real> heaviside(M);
    heaviside.ApplyHeaviside();
    positive->AddRowSumMat(1.0, heaviside, 0.0);
    return;
  }
  const MatrixBase<Real> &m = M.Mat();
  Real *s = sums->Vec().Data(), *p = positive->Vec().Data();
  for (MatrixIndexT c = 0; c < m.NumCols(); c++) s[c] = p[c] = 0;
  ForRowBlocks(m.NumCols(), m.NumRows(), [&](MatrixIndexT c0, MatrixIndexT c1) {
    for (MatrixIndexT r = 0; r < m.NumRows(); r++) {
      const Real *row = m.RowData(r);
      for (MatrixIndexT c = c0; c < c1; c++) {
        s[c] += Real(1) * row[c];
        p[c] += Real(1) * (row[c] > 0 ? Real(1) : Real(0));
      }
    }
  });
}

template <typename Real>
void SubtractAndScaleColumns(const CuMatrixBase<Real> &in,
                             const CuVectorBase<Real> &offset,
                             const CuVectorBase<Real> &scale,
                             CuMatrixBase<Real> *out) {
  NNET3_ASSERT(SameDim(in, *out) && offset.Dim() == in.NumCols() &&
               scale.Dim() == in.NumCols());
  if (in.OnDevice()) {
    out->CopyFromMat(in);
    out->AddVecToRows(-1.0, offset, 1.0);
    out->MulColsVec(scale);
    return;
  }
  const MatrixBase<Real> &x = in.Mat();
  MatrixBase<Real> &y = out->Mat();
  const Real *o = offset.Vec().Data(), *s = scale.Vec().Data();
  const Real minus_one = -1;
  auto rows = [&](MatrixIndexT r0, MatrixIndexT r1) {
    for (MatrixIndexT r = r0; r < r1; r++) {
      const Real *xr = x.RowData(r);
      Real *yr = y.RowData(r);
      for (MatrixIndexT c = 0; c < x.NumCols(); c++) {
        Real v = xr[c];
        v += minus_one * o[c];
        yr[c] = v * s[c];
      }
    }
  };
  if (RowsIndependent(x, y))
    ForRowBlocks(x.NumRows(), x.NumCols(), rows);
  else
    rows(0, x.NumRows());
}

template <typename Real>
void ScaleAndShiftColumns(const CuMatrixBase<Real> &in,
                          const CuVectorBase<Real> &scale,
                          const CuVectorBase<Real> &offset,
                          CuMatrixBase<Real> *out) {
  NNET3_ASSERT(SameDim(in, *out) && offset.Dim() == in.NumCols() &&
               scale.Dim() == in.NumCols());
  if (in.OnDevice()) {
    out->CopyFromMat(in);
    out->MulColsVec(scale);
    out->AddVecToRows(1.0, offset, 1.0);
    return;
  }
  const MatrixBase<Real> &x = in.Mat();
  MatrixBase<Real> &y = out->Mat();
  const Real *o = offset.Vec().Data(), *s = scale.Vec().Data();
  const Real one = 1;
  auto rows = [&](MatrixIndexT r0, MatrixIndexT r1) {
    for (MatrixIndexT r = r0; r < r1; r++) {
      const Real *xr = x.RowData(r);
      Real *yr = y.RowData(r);
      for (MatrixIndexT c = 0; c < x.NumCols(); c++) {
        Real v = xr[c] * s[c];
        v += one * o[c];
        yr[c] = v;
      }
    }
  };
  if (RowsIndependent(x, y))
    ForRowBlocks(x.NumRows(), x.NumCols(), rows);
  else
    rows(0, x.NumRows());
}

template <typename Real>
void BatchNormBackprop(const CuMatrixBase<Real> &out_value,
                       const CuMatrixBase<Real> &out_deriv,
                       const CuVectorBase<Real> &scale, Real coeff,
                       CuVectorBase<Real> *var_deriv_mod,
                       CuVectorBase<Real> *neg_mean_deriv,
                       CuMatrixBase<Real> *in_deriv) {
  const MatrixIndexT num_rows = out_value.NumRows(), cols = out_value.NumCols();
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, *in_deriv) &&
               scale.Dim() == cols && var_deriv_mod->Dim() == cols &&
               neg_mean_deriv->Dim() == cols);
  const Real mean_scale = -1.0 / num_rows;
  if (out_value.OnDevice()) {
    ColumnDotProducts(coeff, out_value, out_deriv, var_deriv_mod);
    var_deriv_mod->MulElements(scale);
    neg_mean_deriv->AddRowSumMat(mean_scale, out_deriv, 0.0);
    in_deriv->CopyFromMat(out_deriv);
    in_deriv->AddVecToRows(1.0, *neg_mean_deriv, 1.0);
    in_deriv->MulColsVec(scale);
    in_deriv->AddMatDiagVec(1.0, out_value, kNoTrans, *var_deriv_mod, 1.0);
    return;
  }
  const MatrixBase<Real> &y = out_value.Mat(), &e = out_deriv.Mat();
  MatrixBase<Real> &d = in_deriv->Mat();
  Real *vdm = var_deriv_mod->Vec().Data(), *nm = neg_mean_deriv->Vec().Data();
  const Real *s = scale.Vec().Data();
  // Pass 1: both column sums. The dot products are summed first and scaled
  // at the end (as ColumnDotProducts does); the mean's terms are scaled one
  // by one (as AddRowSumMat does).
  std::vector<Real> dots(cols, Real(0));
  Real *dot = dots.data();
  for (MatrixIndexT c = 0; c < cols; c++) nm[c] = 0;
  ForRowBlocks(cols, num_rows, [&](MatrixIndexT c0, MatrixIndexT c1) {
    for (MatrixIndexT r = 0; r < num_rows; r++) {
      const Real *yr = y.RowData(r), *er = e.RowData(r);
      for (MatrixIndexT c = c0; c < c1; c++) {
        dot[c] += yr[c] * er[c];
        nm[c] += mean_scale * er[c];
      }
    }
  });
  for (MatrixIndexT c = 0; c < cols; c++) {
    vdm[c] = coeff * dot[c];
    vdm[c] *= s[c];
  }
  // Pass 2: the derivative. The last addition is done in double and then
  // rounded, as MatrixBase::AddMatDiagVec does it.
  const Real one = 1;
  auto rows = [&](MatrixIndexT r0, MatrixIndexT r1) {
    for (MatrixIndexT r = r0; r < r1; r++) {
      const Real *yr = y.RowData(r), *er = e.RowData(r);
      Real *dr = d.RowData(r);
      for (MatrixIndexT c = 0; c < cols; c++) {
        Real v = er[c];
        v += one * nm[c];
        v *= s[c];
        dr[c] = static_cast<Real>(static_cast<double>(one * v) +
                                  one * yr[c] * vdm[c]);
      }
    }
  };
  if (RowsIndependent(y, d) && RowsIndependent(e, d))
    ForRowBlocks(num_rows, cols, rows);
  else
    rows(0, num_rows);
}

template <typename Real>
void BackpropRectifiedLinearWithStats(const CuMatrixBase<Real> &out_value,
                                      const CuMatrixBase<Real> &out_deriv,
                                      CuVectorBase<Real> *deriv_sumsq,
                                      const CuVectorBase<Real> *repair,
                                      CuMatrixBase<Real> *in_deriv) {
  const MatrixIndexT num_rows = out_value.NumRows(), cols = out_value.NumCols();
  NNET3_ASSERT(SameDim(out_value, out_deriv) && SameDim(out_value, *in_deriv) &&
               (deriv_sumsq == nullptr || deriv_sumsq->Dim() == cols) &&
               (repair == nullptr || repair->Dim() == cols));
  if (out_value.OnDevice() || (deriv_sumsq == nullptr && repair == nullptr)) {
    // The sequence (on the host without statistics or repair that is just
    // the rectifier's backprop).
    if (deriv_sumsq != nullptr)
      deriv_sumsq->AddDiagMat2(1.0, out_deriv, kTrans, 0.0);
    BackpropRectifiedLinear(out_value, out_deriv, in_deriv);
    if (repair != nullptr) in_deriv->AddVecToRows(1.0, *repair, 1.0);
    return;
  }
  const MatrixBase<Real> &y = out_value.Mat(), &e = out_deriv.Mat();
  MatrixBase<Real> &d = in_deriv->Mat();
  Real *q = deriv_sumsq ? deriv_sumsq->Vec().Data() : nullptr;
  const Real *rep = repair ? repair->Vec().Data() : nullptr;
  // Each element of out_deriv is read before the same element of in_deriv
  // is written, by the same thread: in place is safe. The inner loops work
  // on local copies of the pointers (not on the lambda's captures, which a
  // store through dr could alias as far as the compiler knows) and are
  // split by the presence of each term, so that they vectorize; the
  // arithmetic per element is the same in every variant.
  auto body = [&y, &e, &d, q, rep](MatrixIndexT r0, MatrixIndexT r1,
                                   MatrixIndexT c0, MatrixIndexT c1) {
    Real *const qc = q;
    const Real *const repc = rep;
    for (MatrixIndexT r = r0; r < r1; r++) {
      const Real *const yr = y.RowData(r), *const er = e.RowData(r);
      Real *const dr = d.RowData(r);
      if (qc != nullptr)
        for (MatrixIndexT c = c0; c < c1; c++) qc[c] += er[c] * er[c];
      // er[c] is loaded whatever the sign, so that the choice compiles to
      // a mask, not a branch (the signs are random: mispredicted half the
      // time).
      if (repc != nullptr) {
        for (MatrixIndexT c = c0; c < c1; c++) {
          const Real ec = er[c];
          dr[c] = (yr[c] > Real(0) ? ec : Real(0)) + repc[c];
        }
      } else {
        for (MatrixIndexT c = c0; c < c1; c++) {
          const Real ec = er[c];
          dr[c] = (yr[c] > Real(0) ? ec : Real(0));
        }
      }
    }
  };
  const bool independent = RowsIndependent(y, d) && RowsIndependent(e, d);
  if (q != nullptr) {
    for (MatrixIndexT c = 0; c < cols; c++) q[c] = 0;
    // Column blocks: each column's sum keeps its row order.
    if (independent)
      ForRowBlocks(cols, num_rows, [&](MatrixIndexT c0, MatrixIndexT c1) {
        body(0, num_rows, c0, c1);
      });
    else
      body(0, num_rows, 0, cols);
  } else if (independent) {  // repair only: purely elementwise
    ForRowBlocks(num_rows, cols, [&](MatrixIndexT r0, MatrixIndexT r1) {
      body(r0, r1, 0, cols);
    });
  } else {
    body(0, num_rows, 0, cols);
  }
}

#define NNET3_INSTANTIATE(Real)                                              \
  template void ColumnSumsAndSquares(Real, const CuMatrixBase<Real> &,       \
                                     CuVectorBase<Real> *,                   \
                                     CuVectorBase<Real> *);                  \
  template void ColumnSumsAndPositiveCounts(const CuMatrixBase<Real> &,      \
                                            CuVectorBase<Real> *,            \
                                            CuVectorBase<Real> *);           \
  template void SubtractAndScaleColumns(                                     \
      const CuMatrixBase<Real> &, const CuVectorBase<Real> &,                \
      const CuVectorBase<Real> &, CuMatrixBase<Real> *);                     \
  template void ScaleAndShiftColumns(const CuMatrixBase<Real> &,             \
                                     const CuVectorBase<Real> &,             \
                                     const CuVectorBase<Real> &,             \
                                     CuMatrixBase<Real> *);                  \
  template void BatchNormBackprop(                                           \
      const CuMatrixBase<Real> &, const CuMatrixBase<Real> &,                \
      const CuVectorBase<Real> &, Real, CuVectorBase<Real> *,                \
      CuVectorBase<Real> *, CuMatrixBase<Real> *);                           \
  template void BackpropRectifiedLinearWithStats(                            \
      const CuMatrixBase<Real> &, const CuMatrixBase<Real> &,                \
      CuVectorBase<Real> *, const CuVectorBase<Real> *,                      \
      CuMatrixBase<Real> *);

NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)

}  // namespace cu
}  // namespace nnet3
