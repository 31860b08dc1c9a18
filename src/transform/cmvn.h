// transform/cmvn.h
// Cepstral mean and variance normalization (CMVN) statistics, in Kaldi's
// layout: a double matrix of 2 x (dim + 1) where row 0 holds the weighted sum
// of each feature dimension and, in its last column, the total weight (the
// frame count); row 1 holds the weighted sum of squares (its last column is
// unused and stays 0). Stats of one row (sums and count only) are accepted
// where only means are needed. Statistics are summed per utterance, per
// speaker or globally by the caller; ApplyCmvn turns them into a per-dimension
// offset and scale (stored in float, as Kaldi does) and applies them in place.
#ifndef NNET3_TRANSFORM_CMVN_H_
#define NNET3_TRANSFORM_CMVN_H_

#include <vector>

#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {

// Resizes *stats to 2 x (dim + 1), zeroed. dim must be positive.
void InitCmvnStats(int32 dim, Matrix<double> *stats);

// Adds one frame with the given weight. stats must be 2 x (feats.Dim() + 1);
// a mismatch is a UserError.
void AccCmvnStats(const VectorBase<BaseFloat> &feats, BaseFloat weight,
                  MatrixBase<double> *stats);

// Adds every row of feats (weight 1, or weights(r) when weights is not null;
// frames of weight 0 are skipped). weights->Dim() must equal the row count.
void AccCmvnStats(const MatrixBase<BaseFloat> &feats,
                  const VectorBase<BaseFloat> *weights,
                  MatrixBase<double> *stats);

// Normalizes feats in place: subtracts the mean of stats, and with
// norm_vars also divides by the standard deviation (variance floored at
// 1e-20 with a warning). Errors: dimension mismatch, a count below 1,
// norm_vars with one-row stats, a non-finite scale.
void ApplyCmvn(const MatrixBase<double> &stats, bool norm_vars,
               MatrixBase<BaseFloat> *feats);

// The inverse: maps zero-mean (unit-variance with norm_vars) features to
// features with the mean (and variance) of stats. Same checks as ApplyCmvn.
void ApplyCmvnReverse(const MatrixBase<double> &stats, bool norm_vars,
                      MatrixBase<BaseFloat> *feats);

// Replaces the stats of the listed dimensions by "fake" zero-mean,
// unit-variance stats with the same count, which turns normalization off for
// them (apply-cmvn --skip-dims). Out-of-range dimensions are a UserError.
void FakeStatsForSomeDims(const std::vector<int32> &dims,
                          MatrixBase<double> *stats);

}  // namespace nnet3

#endif  // NNET3_TRANSFORM_CMVN_H_
