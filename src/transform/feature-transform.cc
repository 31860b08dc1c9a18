// transform/feature-transform.cc
// The preconditioning transform of feature-transform.h, step by step.
#include "transform/feature-transform.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "base/log.h"
#include "matrix/linalg.h"
#include "matrix/svd.h"

namespace nnet3 {

void FeatureTransformOptions::Register(OptionsItf *opts) {
  opts->Register("remove-offset", &remove_offset,
                 "Append a column that makes the transformed data zero-mean "
                 "(an affine transform)");
  opts->Register("dim", &dim,
                 "Output dimension (keep the rows with the largest "
                 "between-class variance); <= 0 means the input dimension");
  opts->Register("within-class-factor", &within_class_factor,
                 "Within-class variance of the output dimensions that carry "
                 "no between-class variance (1.0 gives plain LDA)");
  opts->Register("max-singular-value", &max_singular_value,
                 "If > 0, limit the singular values of the transform to this");
}

void EstimateFeatureTransform(const FeatureTransformOptions &opts,
                              const LdaEstimate &stats,
                              Matrix<BaseFloat> *transform,
                              FeatureTransformInfo *info) {
  FeatureTransformInfo local_info;
  if (info == nullptr) info = &local_info;
  const int32 dim = stats.Dim();
  if (dim == 0) NNET3_ERR << "The LDA stats are empty";
  const int32 target_dim = (opts.dim > 0 ? opts.dim : dim);
  if (target_dim > dim)
    NNET3_ERR << "--dim=" << opts.dim << " exceeds the data dimension " << dim;

  Matrix<double> total_covar, between_covar;
  Vector<double> mean;
  stats.GetStats(&total_covar, &between_covar, &mean, &info->count);

  // 1. Cholesky factor of the within-class covariance.
  Matrix<double> within(total_covar), chol;
  within.AddMat(-1.0, between_covar);
  info->smoothed = false;
  if (!CholeskyLower(within, &chol)) {
    double smooth = 1.0e-03 * within.Trace() / dim;
    NNET3_LOG << "The within-class covariance is not positive definite; "
              << "adding " << smooth << " to its diagonal";
    for (int32 i = 0; i < dim; i++) within(i, i) += smooth;
    info->smoothed = true;
    if (!CholeskyLower(within, &chol))
      NNET3_ERR << "The within-class covariance of the LDA stats is not "
                << "positive definite (are there enough frames and classes?)";
  }
  Matrix<double> chol_inv;
  InvertLowerTriangular(chol, &chol_inv);

  // 2. Diagonalize the between-class covariance in the whitened space.
  Matrix<double> tmp(dim, dim), whitened_between(dim, dim);
  tmp.AddMatMat(1.0, chol_inv, kNoTrans, between_covar, kNoTrans, 0.0);
  whitened_between.AddMatMat(1.0, tmp, kNoTrans, chol_inv, kTrans, 0.0);
  Vector<double> eig;
  Matrix<double> vecs;
  SymmetricEigen(whitened_between, &eig, &vecs);
  std::vector<int32> order(dim);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&eig](int32 a, int32 b) {
    return std::abs(eig(a)) > std::abs(eig(b));
  });
  info->d.Resize(dim);
  Matrix<double> u(dim, dim);
  for (int32 j = 0; j < dim; j++) {
    info->d(j) = std::abs(eig(order[j]));
    for (int32 k = 0; k < dim; k++) u(k, j) = vecs(k, order[j]);
  }
  double sum_all = info->d.Sum(),
         sum_kept = SubVector<double>(info->d, 0, target_dim).Sum();
  NNET3_LOG << "Data count " << info->count << "; between-class variances "
            << "in the whitened space sum to " << sum_all << ", "
            << sum_kept << " in the " << target_dim << " dimensions kept";

  // 3. The LDA rows.
  Matrix<double> lda(dim, dim);
  lda.AddMatMat(1.0, u, kTrans, chol_inv, kNoTrans, 0.0);
  Matrix<BaseFloat> m(lda.RowRange(0, target_dim));

  // 4. Shrink the dimensions with little between-class variance.
  if (opts.within_class_factor != 1.0) {
    for (int32 i = 0; i < target_dim; i++) {
      BaseFloat old_var = 1.0 + info->d(i),
                new_var = opts.within_class_factor + info->d(i);
      m.Row(i).Scale(std::sqrt(new_var / old_var));
    }
  }

  // 5. Limit the singular values.
  info->num_ceiled = 0;
  if (opts.max_singular_value > 0.0) {
    Vector<BaseFloat> s;
    Matrix<BaseFloat> su, svt;
    ThinSvd(m, &s, &su, &svt);
    BaseFloat max_s = (s.Dim() > 0 ? s.Max() : 0.0f);
    MatrixIndexT n = 0;
    s.ApplyCeiling(opts.max_singular_value, &n);
    info->num_ceiled = n;
    if (n > 0) {
      NNET3_LOG << "Limited " << n << " of the " << s.Dim()
                << " singular values of the transform to "
                << opts.max_singular_value << " (the largest was " << max_s
                << ")";
      svt.MulRowsVec(s);
      m.AddMatMat(1.0, su, kNoTrans, svt, kNoTrans, 0.0);
    }
  }

  // 6. The offset column.
  if (opts.remove_offset) {
    Vector<BaseFloat> mean_f(mean), offset(target_dim);
    offset.AddMatVec(-1.0, m, kNoTrans, mean_f, 0.0);
    transform->Resize(target_dim, dim + 1);
    transform->ColRange(0, dim).CopyFromMat(m);
    transform->CopyColFromVec(offset, dim);
  } else {
    *transform = m;
  }
}

}  // namespace nnet3
