// transform/cmvn.cc
#include "transform/cmvn.h"

#include <cmath>

namespace nnet3 {

namespace {

// Checks the shape of stats against a feature matrix and returns the count.
double CheckStats(const MatrixBase<double> &stats, bool norm_vars,
                  const MatrixBase<BaseFloat> &feats) {
  int32 dim = stats.NumCols() - 1;
  if (stats.NumRows() < 1 || stats.NumRows() > 2 || feats.NumCols() != dim)
    NNET3_ERR << "Dimension mismatch between CMVN stats ("
              << stats.NumRows() << " x " << stats.NumCols()
              << ", expected 2 x (feature-dim + 1)) and features ("
              << feats.NumRows() << " x " << feats.NumCols() << ")";
  if (stats.NumRows() == 1 && norm_vars)
    NNET3_ERR << "Variance normalization was requested but the CMVN stats "
              << "have no variance row (1 x " << stats.NumCols() << ")";
  double count = stats(0, dim);
  // A count of exactly 1 is legitimate: offsets stored as "fake" stats use it.
  if (!(count >= 1.0))
    NNET3_ERR << "Insufficient CMVN stats: count = " << count
              << " (need at least 1)";
  return count;
}

// The variance of dimension d, floored at 1e-20 with a warning.
double FlooredVariance(const MatrixBase<double> &stats, int32 d, double count,
                       double mean) {
  const double kFloor = 1.0e-20;
  double var = stats(1, d) / count - mean * mean;
  if (var < kFloor) {
    NNET3_WARN << "Flooring cepstral variance of dimension " << d << " from "
               << var << " to " << kFloor;
    var = kFloor;
  }
  return var;
}

// x(r, d) <- x(r, d) * scale(d) + offset(d), scale skipped when not used.
void ApplyOffsetScale(const Vector<BaseFloat> &offset,
                      const Vector<BaseFloat> *scale,
                      MatrixBase<BaseFloat> *feats) {
  int32 rows = feats->NumRows(), dim = feats->NumCols();
  for (int32 r = 0; r < rows; r++) {
    BaseFloat *row = feats->RowData(r);
    if (scale != nullptr)
      for (int32 d = 0; d < dim; d++) row[d] *= (*scale)(d);
    for (int32 d = 0; d < dim; d++) row[d] += offset(d);
  }
}

}  // namespace

void InitCmvnStats(int32 dim, Matrix<double> *stats) {
  if (dim <= 0)
    NNET3_ERR << "Cannot initialize CMVN stats for feature dimension " << dim;
  stats->Resize(2, dim + 1);
}

void AccCmvnStats(const VectorBase<BaseFloat> &feats, BaseFloat weight,
                  MatrixBase<double> *stats) {
  int32 dim = feats.Dim();
  if (stats->NumRows() != 2 || stats->NumCols() != dim + 1)
    NNET3_ERR << "Dimension mismatch accumulating CMVN stats: stats are "
              << stats->NumRows() << " x " << stats->NumCols()
              << ", feature dimension is " << dim;
  double *sum = stats->RowData(0), *sumsq = stats->RowData(1);
  const BaseFloat *x = feats.Data();
  for (int32 d = 0; d < dim; d++) {
    // Products in float, as the reference does, then summed in double.
    sum[d] += x[d] * weight;
    sumsq[d] += x[d] * x[d] * weight;
  }
  sum[dim] += weight;
}

void AccCmvnStats(const MatrixBase<BaseFloat> &feats,
                  const VectorBase<BaseFloat> *weights,
                  MatrixBase<double> *stats) {
  int32 rows = feats.NumRows();
  if (weights != nullptr && weights->Dim() != rows)
    NNET3_ERR << "Frame weights have dimension " << weights->Dim()
              << " but the features have " << rows << " frames";
  for (int32 r = 0; r < rows; r++) {
    BaseFloat w = weights == nullptr ? 1.0f : (*weights)(r);
    if (w != 0.0f) AccCmvnStats(feats.Row(r), w, stats);
  }
}

void ApplyCmvn(const MatrixBase<double> &stats, bool norm_vars,
               MatrixBase<BaseFloat> *feats) {
  double count = CheckStats(stats, norm_vars, *feats);
  int32 dim = feats->NumCols();
  Vector<BaseFloat> offset(dim), scale(dim);
  for (int32 d = 0; d < dim; d++) {
    double mean = stats(0, d) / count;
    if (!norm_vars) {
      offset(d) = static_cast<BaseFloat>(-mean);
      scale(d) = 1.0f;
    } else {
      double s = 1.0 / std::sqrt(FlooredVariance(stats, d, count, mean));
      if (!std::isfinite(s) || s == 0.0)
        NNET3_ERR << "NaN or infinity in CMVN of dimension " << d;
      offset(d) = static_cast<BaseFloat>(-(mean * s));
      scale(d) = static_cast<BaseFloat>(s);
    }
  }
  ApplyOffsetScale(offset, norm_vars ? &scale : nullptr, feats);
}

void ApplyCmvnReverse(const MatrixBase<double> &stats, bool norm_vars,
                      MatrixBase<BaseFloat> *feats) {
  double count = CheckStats(stats, norm_vars, *feats);
  int32 dim = feats->NumCols();
  Vector<BaseFloat> offset(dim), scale(dim);
  for (int32 d = 0; d < dim; d++) {
    double mean = stats(0, d) / count;
    offset(d) = static_cast<BaseFloat>(mean);
    scale(d) = norm_vars ? static_cast<BaseFloat>(std::sqrt(
                               FlooredVariance(stats, d, count, mean)))
                         : 1.0f;
  }
  ApplyOffsetScale(offset, norm_vars ? &scale : nullptr, feats);
}

void FakeStatsForSomeDims(const std::vector<int32> &dims,
                          MatrixBase<double> *stats) {
  if (stats->NumRows() != 2 || stats->NumCols() < 2)
    NNET3_ERR << "Cannot fake CMVN stats of a " << stats->NumRows() << " x "
              << stats->NumCols() << " matrix (expected 2 x (dim + 1))";
  int32 dim = stats->NumCols() - 1;
  double count = (*stats)(0, dim);
  for (int32 d : dims) {
    if (d < 0 || d >= dim)
      NNET3_ERR << "Dimension " << d << " to skip is out of range [0, "
                << dim << ")";
    (*stats)(0, d) = 0.0;
    (*stats)(1, d) = count;
  }
}

}  // namespace nnet3
