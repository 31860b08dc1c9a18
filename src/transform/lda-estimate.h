// transform/lda-estimate.h
// Statistics for LDA and LDA-like transforms (Kaldi's LdaEstimate): per-class
// weighted counts and first-order sums, and the weighted second-order sum of
// all the data, in double precision. The feature transform that neural-net
// training uses as fixed preconditioning (nnet-get-feature-transform) is
// estimated from them in transform/feature-transform.h.
//
// File format (Kaldi's "<LDAACCS>" object, byte for byte):
//   <LDAACCS> <VECSIZE> int32 dim <NUMCLASSES> int32 classes
//   <ZERO_ACCS> counts (float vector) <FIRST_ACCS> sums (float matrix,
//   classes x dim) <SECOND_ACCS> the within-class scatter (a float packed
//   symmetric matrix: the total second-order sum minus, for every class with
//   a non-zero count, sum_c sum_c^T / count_c) </LDAACCS>
// A packed symmetric matrix is its lower triangle row by row: binary "FP"
// (or "DP"), the int32 size, the raw values; text "[" newline, each row's
// values followed by a space, rows ending in a newline and the last in
// "]" newline ("[ ]" newline when empty). Reading undoes the subtraction with
// the counts and sums read from the same file, and with add=true sums into
// the stats already held, so several files give the stats of all the data.
// Invariants: the three members agree on the number of classes and the
// dimension (all empty before Init).
#ifndef NNET3_TRANSFORM_LDA_ESTIMATE_H_
#define NNET3_TRANSFORM_LDA_ESTIMATE_H_

#include <istream>
#include <ostream>

#include "base/random.h"
#include "matrix/general.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {

class LdaEstimate {
 public:
  LdaEstimate() {}
  // Sizes the stats for num_classes classes of dim-dimensional data, zeroed.
  void Init(int32 num_classes, int32 dim);
  int32 NumClasses() const { return first_acc_.NumRows(); }
  int32 Dim() const { return first_acc_.NumCols(); }
  // The sum of the class counts.
  double TotCount() const { return zero_acc_.Sum(); }
  void ZeroAccumulators();
  void Scale(double f);

  // Adds data with the given weight to class_id. A class outside
  // [0, NumClasses()) or a dimension mismatch is a UserError.
  void Accumulate(const VectorBase<BaseFloat> &data, int32 class_id,
                  BaseFloat weight = 1.0);

  // The derived statistics, from the sums over all the data (count N, mean
  // m): *total_covar = (second-order sum) / N - m m^T; *between_covar =
  // sum over classes with a non-zero count of (n_c / N) mu_c mu_c^T - m m^T,
  // mu_c the class mean. Both are dim x dim and symmetric. A zero total
  // count is a UserError.
  void GetStats(Matrix<double> *total_covar, Matrix<double> *between_covar,
                Vector<double> *total_mean, double *tot_count) const;

  const Vector<double> &ZeroAcc() const { return zero_acc_; }
  const Matrix<double> &FirstAcc() const { return first_acc_; }
  // The total (not within-class) second-order sum, full symmetric.
  const Matrix<double> &TotalSecondAcc() const { return total_second_acc_; }

  void Write(std::ostream &os, bool binary) const;
  // Reads one <LDAACCS> object; with add (and stats already sized) adds to
  // them, and a different size is a UserError naming both.
  void Read(std::istream &is, bool binary, bool add);

 private:
  Vector<double> zero_acc_;
  Matrix<double> first_acc_;
  Matrix<double> total_second_acc_;
};

// Kaldi's randomized pruning of a posterior: values of magnitude at least
// prune_thresh (and zero) are returned unchanged; a smaller value p becomes
// sign(p) * prune_thresh with probability |p| / prune_thresh and 0
// otherwise, so its expectation is p. prune_thresh must be >= 0.
BaseFloat RandPrune(BaseFloat post, BaseFloat prune_thresh,
                    RandomSource *random);

// Adds the stats of one example's output: row r of features is the data of
// frame r and row r of targets (full, compressed or sparse, one column per
// class) its class posteriors; each posterior is randomly pruned with
// rand_prune and multiplied by deriv_weights(r) when deriv_weights has a
// value for row r. The first call sizes empty stats (targets.NumCols()
// classes, features.NumCols() dimensions). Row counts that differ, or sizes
// that differ from the stats, are a UserError.
void AccumulateLdaStats(const MatrixBase<BaseFloat> &features,
                        const GeneralMatrix &targets,
                        const VectorBase<BaseFloat> &deriv_weights,
                        BaseFloat rand_prune, RandomSource *random,
                        LdaEstimate *stats);

}  // namespace nnet3

#endif  // NNET3_TRANSFORM_LDA_ESTIMATE_H_
