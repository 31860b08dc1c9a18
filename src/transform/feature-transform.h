// transform/feature-transform.h
// The LDA-like preconditioning transform that Kaldi's nnet3 recipes put in
// a fixed-affine-layer (nnet-get-feature-transform; Kaldi's
// FeatureTransformEstimate, described in appendix C.6 of Povey, Zhang and
// Khudanpur, arXiv:1410.7455). From LDA statistics with within-class
// covariance W, between-class covariance B and mean m:
//   1. W = L L^T (Cholesky; if W is not positive definite, 1e-3 times its
//      mean diagonal value is added to the diagonal and the factor retried);
//   2. inv(L) B inv(L)^T = U diag(d) U^T with d sorted from largest to
//      smallest (the magnitudes, as an SVD of that symmetric matrix gives);
//   3. A = the first `dim` rows of U^T inv(L): A W A^T = I and A B A^T =
//      diag(d), the classical LDA projection;
//   4. row i of A is scaled by sqrt((within_class_factor + d_i) / (1 + d_i)),
//      so the within-class variance of output i becomes within_class_factor
//      plus a share that grows with d_i (A W A^T is diagonal with those
//      squared scales; A B A^T stays diagonal);
//   5. if max_singular_value > 0, the singular values of A above it are
//      replaced by it;
//   6. with remove_offset, the column -A m is appended, so that [A b]
//      applied to [x; 1] gives zero-mean outputs.
// Options and defaults are Kaldi's, with one exception: `dim` defaults to
// the data dimension (no reduction), which is what the transforms made by
// Kaldi's scripts have (they pass no --dim; a recipe log of a 220-dim input
// reports the sum of the selected singular values equal to the sum of all).
#ifndef NNET3_TRANSFORM_FEATURE_TRANSFORM_H_
#define NNET3_TRANSFORM_FEATURE_TRANSFORM_H_

#include "matrix/matrix.h"
#include "matrix/vector.h"
#include "transform/lda-estimate.h"
#include "util/options.h"

namespace nnet3 {

struct FeatureTransformOptions {
  bool remove_offset = true;
  int32 dim = -1;
  BaseFloat within_class_factor = 0.001;
  BaseFloat max_singular_value = 5.0;
  void Register(OptionsItf *opts);
};

// What the estimation found, for logging and tests.
struct FeatureTransformInfo {
  double count = 0.0;           // total data count
  Vector<double> d;             // step 2's values, largest first
  bool smoothed = false;        // step 1 had to add to the diagonal
  int32 num_ceiled = 0;         // singular values limited in step 5
};

// Estimates the transform from stats into *transform: dim x (D + 1) with
// remove_offset, else dim x D (D = stats.Dim(); dim = opts.dim, or D when
// opts.dim <= 0). Errors (UserError): empty stats or a zero count, dim
// above D, a within-class covariance that is not positive definite even
// after smoothing.
void EstimateFeatureTransform(const FeatureTransformOptions &opts,
                              const LdaEstimate &stats,
                              Matrix<BaseFloat> *transform,
                              FeatureTransformInfo *info = nullptr);

}  // namespace nnet3

#endif  // NNET3_TRANSFORM_FEATURE_TRANSFORM_H_
