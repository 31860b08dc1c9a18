// nnet3/components/natural-gradient-online.h
// OnlineNaturalGradient: Kaldi's online natural-gradient preconditioner
// (from the 2015 paper by Povey, Zhang and Khudanpur on data-parallel DNN
// training with natural gradient and model averaging). It keeps an online estimate of
// the scatter of the vectors it is given (the rows of successive minibatches)
// in the form
//     F_t = R_t^T D_t R_t + rho_t I
// (R_t: rank x dim with orthonormal rows, D_t diagonal and positive,
// rho_t > 0) and multiplies each minibatch by the inverse of the smoothed
// matrix G_t = F_t + (alpha / dim) tr(F_t) I, with the result rescaled so
// that its Frobenius norm equals the input's (the scale is returned rather
// than applied). docs/natural-gradient.md describes the algorithm.
//
// Invariants: once initialized (after the first call), W_t_ = E_t^{1/2} R_t
// is rank x dim (E_t diagonal, e_ii = 1 / (beta_t / d_ii + 1)), d_t_ has rank
// elements, all >= epsilon, and rho_t_ >= epsilon. The rank is reduced to
// dim - 1 at initialization when it is not below dim. The state is never
// written to disk: a copy (copy constructor, assignment) carries it, a
// freshly constructed or read object starts from scratch on its first call.
// The arithmetic follows Kaldi's precision choices: the stored state and the
// large products are float; the rank x rank matrix Z_t is formed in double.
#ifndef NNET3_NNET3_COMPONENTS_NATURAL_GRADIENT_ONLINE_H_
#define NNET3_NNET3_COMPONENTS_NATURAL_GRADIENT_ONLINE_H_

#include <vector>

#include "base/common.h"
#include "cudamatrix/cu-matrix.h"

namespace nnet3 {

class OnlineNaturalGradient {
 public:
  // rank 40, update-period 1, num-samples-history 2000, alpha 4,
  // epsilon 1e-10, delta 5e-4, not frozen. Components set the rank and the
  // other options themselves.
  OnlineNaturalGradient();

  void SetRank(int32 rank);                       // rank > 0
  void SetUpdatePeriod(int32 update_period);      // update_period > 0
  void SetNumSamplesHistory(BaseFloat num_samples_history);  // in (0, 1e6)
  void SetAlpha(BaseFloat alpha);                 // alpha >= 0
  // When set (> 1), the estimate forgets a fixed 1/num_minibatches_history
  // per update instead of an amount depending on the number of rows
  // (num-samples-history is then ignored). 0 (the default) means unset.
  void SetNumMinibatchesHistory(BaseFloat num_minibatches_history);
  // While frozen, the estimate is applied but not updated (the first call
  // still initializes it).
  void Freeze(bool frozen) { frozen_ = frozen; }

  int32 GetRank() const { return rank_; }
  int32 GetUpdatePeriod() const { return update_period_; }
  BaseFloat GetNumSamplesHistory() const { return num_samples_history_; }
  BaseFloat GetAlpha() const { return alpha_; }
  BaseFloat GetNumMinibatchesHistory() const {
    return num_minibatches_history_;
  }
  bool Frozen() const { return frozen_; }

  // Replaces each row x of *X (one of the N vectors of this minibatch) by
  // beta_t x G_t^{-1}, computed as x - x W_t^T W_t, and, if scale is not
  // null, sets *scale to sqrt(tr(X X^T) before / after) (1 if the input is
  // all zero): the caller multiplies the scale into its learning rate. On the
  // first call the estimate is initialized from this minibatch; the estimate
  // is then updated from X on the calls chosen by the update period (every
  // call for the first 11, then every update-period-th call).
  void PreconditionDirections(CuMatrixBase<BaseFloat> *X, BaseFloat *scale);

  // The same call for the matrix [X, 1] (X with a column of ones appended,
  // as affine components precondition their input), without forming it or
  // changing X: the preconditioned matrix is [X, 1] - H W, and the call
  // returns H (N x rank, H = [X, 1] W^T), the W it applied (rank x (dim of
  // X + 1); the estimate before this call's update) and the scale. A caller
  // that needs only products with the preconditioned matrix saves the copy
  // of X and the subtraction. tr([X,1] - H W)(..)^T is computed from H and W
  // (as tr([X,1][X,1]^T) - 2 tr(H^T H) + tr(H^T H W W^T)), and by forming
  // the matrix when cancellation would cost precision. X has rows.
  void PreconditionWithOnes(const CuMatrixBase<BaseFloat> &X,
                            CuMatrix<BaseFloat> *H, CuMatrix<BaseFloat> *W,
                            BaseFloat *scale);
  // The same with X given as column blocks, X = [X_0 X_1 ...] (views with
  // equal row counts; they may share memory, as the row-shifted views a
  // TdnnComponent takes of its input do), so that X is not formed either.
  void PreconditionWithOnes(const std::vector<CuSubMatrix<BaseFloat> > &X,
                            CuMatrix<BaseFloat> *H, CuMatrix<BaseFloat> *W,
                            BaseFloat *scale);

  // Read-only views of the state, for tests and diagnostics. NumCalls() is
  // the number of calls so far (0: not initialized).
  int32 NumCalls() const { return t_; }
  const CuMatrix<BaseFloat> &W() const { return W_t_; }
  const Vector<BaseFloat> &DiagD() const { return d_t_; }
  BaseFloat Rho() const { return rho_t_; }
  // True when the next call would update the estimate.
  bool Updating() const;

 private:
  // Sets W_t_ to a fixed matrix with orthonormal rows scaled as if D_t and
  // rho_t were epsilon; reduces the rank to dim - 1 if needed.
  void InitDefault(int32 dim);
  // InitDefault, then a few updates with X0 on a copy of this object.
  void Init(const CuMatrixBase<BaseFloat> &X0);
  // The learning rate of the estimate for a minibatch of n rows.
  BaseFloat Eta(int32 n) const;
  // Applies the current estimate to the operand and, if updating, computes
  // the next estimate from it. The operand is *X, changed in place, or,
  // when X is null, [column blocks of *X_ones, 1], left unformed; H and W
  // (used only then) receive H_t and W_t. *tr_x_xt is tr(X X^T) of the
  // operand; returns that of the preconditioned operand. With
  // tr_x_xt_pending (only when not updating, where nothing but the scale
  // needs it) *tr_x_xt is not given but set, read back together with the
  // result: one wait on a GPU instead of two.
  BaseFloat Step(bool updating, BaseFloat *tr_x_xt, bool tr_x_xt_pending,
                 CuMatrixBase<BaseFloat> *X,
                 const std::vector<CuSubMatrix<BaseFloat> > *X_ones,
                 CuMatrix<BaseFloat> *H, CuMatrix<BaseFloat> *W);
  // e_i = 1 / (beta / d_i + 1), with its square root and inverse root.
  static void ComputeEt(const VectorBase<BaseFloat> &d, BaseFloat beta,
                        Vector<BaseFloat> *e, Vector<BaseFloat> *sqrt_e,
                        Vector<BaseFloat> *inv_sqrt_e);
  // Restores orthonormal rows of R_{t+1} = E_{t+1}^{-1/2} W_{t+1}.
  void Reorthogonalize(const VectorBase<BaseFloat> &d_t1, BaseFloat rho_t1,
                       CuMatrix<BaseFloat> *W_t1) const;

  int32 rank_;
  int32 update_period_;
  BaseFloat num_samples_history_;
  BaseFloat num_minibatches_history_;  // 0: use num_samples_history_
  BaseFloat alpha_;
  BaseFloat epsilon_;   // absolute floor on rho_t and on D_t
  BaseFloat delta_;     // floor on rho_t and D_t relative to max sqrt(c_t)
  bool frozen_;
  int32 t_;             // number of calls so far

  CuMatrix<BaseFloat> W_t_;
  BaseFloat rho_t_;
  Vector<BaseFloat> d_t_;
};

// For an affine map [linear, bias] whose input side was preconditioned by
// PreconditionWithOnes(X, &H, &W, ...): adds alpha G^T ([X, 1] - H W), the
// preconditioned gradient for output derivative G, to [linear, bias]
// (linear's columns follow X's blocks) without forming [X, 1] - H W, as
//   linear += alpha (G^T X_k per block - Q^T W(:, 0..dim of X)),
//   bias   += alpha (G^T 1 - Q^T W(:, dim of X)),   with Q = H^T G.
// That costs about rank x output-dim x (rows + dim of X) products instead
// of the copy and the subtraction, which pays when the output is narrower
// than X.
void AddPreconditionedWithOnesProduct(
    BaseFloat alpha, const CuMatrixBase<BaseFloat> &G,
    const std::vector<CuSubMatrix<BaseFloat> > &X,
    const CuMatrixBase<BaseFloat> &H, const CuMatrixBase<BaseFloat> &W,
    CuMatrixBase<BaseFloat> *linear, CuVectorBase<BaseFloat> *bias);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_NATURAL_GRADIENT_ONLINE_H_
