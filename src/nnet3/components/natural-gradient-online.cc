// nnet3/components/natural-gradient-online.cc
// The online natural-gradient preconditioner; see the header and
// docs/natural-gradient.md. Notation: X is the N x D minibatch, R the rank,
// W = E^{1/2} R_t (R x D), and the small R x R quantities live on the CPU in
// plain arrays.

#include "nnet3/components/natural-gradient-online.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "base/log.h"
#include "base/profile.h"
#include "cudamatrix/cu-math-low-rank.h"
#include "cudamatrix/cu-math-update.h"
#include "matrix/linalg.h"

namespace nnet3 {

namespace {

// Eigen-decomposition of the symmetric n x n matrix a (row-major, double),
// by matrix/linalg's solver. On return evals holds the eigenvalues sorted
// from largest to smallest absolute value (Kaldi's SortSvd order; they are
// positive here up to roundoff) and column i of vecs (row-major n x n) the
// eigenvector of evals[i].
void SymmetricEigenSorted(int32 n, const std::vector<double> &a,
                          std::vector<double> *evals,
                          std::vector<double> *vecs) {
  Matrix<double> am(n, n, kUndefined), v;
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j < n; j++) am(i, j) = a[i * n + j];
  Vector<double> w;
  SymmetricEigen(am, &w, &v);
  std::vector<int32> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&w](int32 x, int32 y) {
    return std::fabs(w(x)) > std::fabs(w(y));
  });
  evals->resize(n);
  vecs->resize(static_cast<size_t>(n) * n);
  for (int32 i = 0; i < n; i++) {
    (*evals)[i] = w(order[i]);
    for (int32 k = 0; k < n; k++) (*vecs)[k * n + i] = v(k, order[i]);
  }
}

// Cholesky factor C (lower triangular, O = C C^T) of the symmetric n x n
// matrix o, then C^{-1} in place. Returns false if o is not positive
// definite.
bool CholeskyInverse(int32 n, const std::vector<double> &o,
                     std::vector<double> *cinv) {
  std::vector<double> c(static_cast<size_t>(n) * n, 0.0);
  for (int32 j = 0; j < n; j++) {
    double d = o[j * n + j];
    for (int32 k = 0; k < j; k++) d -= c[j * n + k] * c[j * n + k];
    if (!(d > 0.0)) return false;
    double cjj = std::sqrt(d);
    c[j * n + j] = cjj;
    for (int32 i = j + 1; i < n; i++) {
      double s = o[i * n + j];
      for (int32 k = 0; k < j; k++) s -= c[i * n + k] * c[j * n + k];
      c[i * n + j] = s / cjj;
    }
  }
  // Forward substitution, one column of the inverse at a time.
  cinv->assign(static_cast<size_t>(n) * n, 0.0);
  for (int32 col = 0; col < n; col++) {
    for (int32 i = col; i < n; i++) {
      double s = (i == col ? 1.0 : 0.0);
      for (int32 k = col; k < i; k++) s -= c[i * n + k] * (*cinv)[k * n + col];
      (*cinv)[i * n + col] = s / c[i * n + i];
    }
  }
  return true;
}

// Rows with orthonormal rows, no zero row or column: row r has entries in
// columns r, r + rows, r + 2 rows, ...; the first of them is 1.1 and the
// others 1, before normalizing the row (the 1.1 breaks the symmetry between
// rows, so that no combination of them is the all-ones vector).
void SetSpecialOrthonormal(MatrixBase<BaseFloat> *m) {
  int32 rows = m->NumRows(), cols = m->NumCols();
  NNET3_ASSERT(cols >= rows);
  m->SetZero();
  const BaseFloat first = 1.1;
  for (int32 r = 0; r < rows; r++) {
    int32 count = 0;
    for (int32 c = r; c < cols; c += rows) count++;
    BaseFloat norm = 1.0 / std::sqrt(first * first + count - 1);
    for (int32 c = r; c < cols; c += rows)
      (*m)(r, c) = norm * (c == r ? first : BaseFloat(1.0));
  }
}

}  // namespace

OnlineNaturalGradient::OnlineNaturalGradient()
    : rank_(40), update_period_(1), num_samples_history_(2000.0),
      num_minibatches_history_(0.0), alpha_(4.0), epsilon_(1.0e-10), delta_(5.0e-04), frozen_(false), t_(0),
      rho_t_(-1.0e+10) {}

void OnlineNaturalGradient::SetRank(int32 rank) {
  NNET3_ASSERT(rank > 0);
  rank_ = rank;
}

void OnlineNaturalGradient::SetUpdatePeriod(int32 update_period) {
  NNET3_ASSERT(update_period > 0);
  update_period_ = update_period;
}

void OnlineNaturalGradient::SetNumSamplesHistory(
    BaseFloat num_samples_history) {
  NNET3_ASSERT(num_samples_history > 0.0 && num_samples_history < 1.0e+06);
  num_samples_history_ = num_samples_history;
}

void OnlineNaturalGradient::SetNumMinibatchesHistory(
    BaseFloat num_minibatches_history) {
  NNET3_ASSERT(num_minibatches_history > 1.0);
  num_minibatches_history_ = num_minibatches_history;
}

void OnlineNaturalGradient::SetAlpha(BaseFloat alpha) {
  NNET3_ASSERT(alpha >= 0.0);
  alpha_ = alpha;
}

bool OnlineNaturalGradient::Updating() const {
  // The first updates always happen (more than the 3 of Init); afterwards
  // only every update_period_-th call updates the estimate.
  const int32 num_initial_updates = 10;
  return !frozen_ && (t_ <= num_initial_updates ||
                      (t_ - num_initial_updates) % update_period_ == 0);
}

BaseFloat OnlineNaturalGradient::Eta(int32 n) const {
  // Forgetting per call rather than per sample (convolution components).
  if (num_minibatches_history_ > 0.0) return 1.0 / num_minibatches_history_;
  // -n / num_samples_history_ is a float quotient, as in Kaldi.
  BaseFloat ratio = -n / num_samples_history_;
  BaseFloat eta = 1.0 - std::exp(static_cast<double>(ratio));
  // Keeps eta away from 1, where all-zero input would give NaNs.
  return std::min<BaseFloat>(eta, 0.9);
}

void OnlineNaturalGradient::InitDefault(int32 dim) {
  if (rank_ >= dim) {
    NNET3_WARN << "Rank " << rank_ << " of the natural-gradient "
               << "preconditioner is not below the dimension " << dim
               << "; using rank " << (dim - 1);
    rank_ = dim - 1;
  }
  if (rank_ == 0) return;
  NNET3_ASSERT(num_samples_history_ > 0.0 && num_samples_history_ <= 1.0e+06);
  NNET3_ASSERT(alpha_ >= 0.0 && epsilon_ > 0.0 && delta_ > 0.0);
  // With D_t = rho_t = epsilon, beta_t = epsilon (1 + alpha (dim + rank) /
  // dim), so every e_ii equals 1 / (2 + alpha (dim + rank) / dim).
  rho_t_ = epsilon_;
  d_t_.Resize(rank_, kUndefined);
  d_t_.Set(epsilon_);
  Matrix<BaseFloat> W(rank_, dim, kUndefined);
  SetSpecialOrthonormal(&W);
  W_t_.Swap(&W);
  BaseFloat e_ii = 1.0 / (2.0 + (dim + rank_) * alpha_ / dim);
  W_t_.Scale(std::sqrt(e_ii));
  t_ = 0;
}

void OnlineNaturalGradient::Init(const CuMatrixBase<BaseFloat> &X0) {
  OnlineNaturalGradient work(*this);
  work.InitDefault(X0.NumCols());
  work.t_ = 1;  // so that the calls below do not come back here
  work.frozen_ = false;
  // With no more rows than the rank, one iteration already gives (nearly)
  // the row space of X0; otherwise three power-method iterations.
  int32 num_iters = (X0.NumRows() <= work.rank_ ? 1 : 3);
  CuMatrix<BaseFloat> X0_copy(X0.NumRows(), X0.NumCols(), kUndefined);
  for (int32 i = 0; i < num_iters; i++) {
    X0_copy.CopyFromMat(X0);
    BaseFloat scale;
    work.PreconditionDirections(&X0_copy, &scale);
  }
  rank_ = work.rank_;
  W_t_.Swap(&work.W_t_);
  d_t_.Swap(&work.d_t_);
  rho_t_ = work.rho_t_;
}

void OnlineNaturalGradient::PreconditionDirections(CuMatrixBase<BaseFloat> *X,
                                                   BaseFloat *scale) {
  ProfileScope profile(kProfileNaturalGradient);
  if (X->NumCols() == 1 || X->NumRows() == 0) {
    // One dimension: the rescaled preconditioned direction is the input.
    if (scale != nullptr) *scale = 1.0;
    return;
  }
  if (t_ == 0) Init(*X);
  NNET3_ASSERT(X->NumCols() == W_t_.NumCols());
  bool updating = Updating();
  // Without an update the first trace is read back with the second.
  BaseFloat initial_product = 0.0;
  if (updating) initial_product = TraceMatMat(*X, *X, kTrans);
  BaseFloat final_product = Step(updating, &initial_product, !updating, X,
                                 nullptr, nullptr, nullptr);
  if (scale != nullptr)
    *scale = initial_product <= 0.0
                 ? 1.0
                 : std::sqrt(initial_product / final_product);
  t_ += 1;
}

namespace {

// The column blocks of X, as X's only block.
std::vector<CuSubMatrix<BaseFloat> > OneBlock(
    const CuMatrixBase<BaseFloat> &X) {
  std::vector<CuSubMatrix<BaseFloat> > blocks;
  blocks.push_back(X.ColRange(0, X.NumCols()));
  return blocks;
}

int32 NumBlockCols(const std::vector<CuSubMatrix<BaseFloat> > &X) {
  int32 cols = 0;
  for (const CuSubMatrix<BaseFloat> &b : X) cols += b.NumCols();
  return cols;
}

// [X_0 X_1 ... 1] as a matrix.
CuMatrix<BaseFloat> WithOnes(const std::vector<CuSubMatrix<BaseFloat> > &X) {
  const int32 D = NumBlockCols(X);
  CuMatrix<BaseFloat> X1(X[0].NumRows(), D + 1, kUndefined);
  int32 col = 0;
  for (const CuSubMatrix<BaseFloat> &b : X) {
    X1.ColRange(col, b.NumCols()).CopyFromMat(b);
    col += b.NumCols();
  }
  X1.ColRange(D, 1).Set(1.0);
  return X1;
}

// H = [X_0 X_1 ... 1] W^T.
void ProjectWithOnes(const std::vector<CuSubMatrix<BaseFloat> > &X,
                     const CuMatrixBase<BaseFloat> &W,
                     CuMatrixBase<BaseFloat> *H) {
  const int32 D = NumBlockCols(X);
  CuVector<BaseFloat> w_ones(W.NumRows(), kUndefined);
  w_ones.CopyColFromMat(W, D);
  H->CopyRowsFromVec(w_ones);
  int32 col = 0;
  for (const CuSubMatrix<BaseFloat> &b : X) {
    H->AddMatMat(1.0, b, kNoTrans, W.ColRange(col, b.NumCols()), kTrans, 1.0);
    col += b.NumCols();
  }
}

// tr(Y Y^T) for Y = [X, 1] - H W with H = [X, 1] W^T, from tr_x_xt =
// tr([X, 1] [X, 1]^T): since [X, 1] W^T = H, that is tr_x_xt - 2 tr(H^T H)
// + tr(H^T H W W^T). The terms cancel where the projection takes most of
// [X, 1]; there the matrix is formed and its trace taken instead. With
// tr_x_xt_pending, *tr_x_xt is computed here and comes back in the same
// transfer as the products.
BaseFloat TraceWithOnesRemoved(BaseFloat *tr_x_xt, bool tr_x_xt_pending,
                               const std::vector<CuSubMatrix<BaseFloat> > &X,
                               const CuMatrixBase<BaseFloat> &H,
                               const CuMatrixBase<BaseFloat> &W) {
  const int32 R = H.NumCols();
  // H^T H, then W W^T, then (if pending) the sum of squares of X in the
  // first column of the last row: one transfer.
  CuMatrix<BaseFloat> products(2 * R + (tr_x_xt_pending ? 1 : 0), R);
  products.RowRange(0, R).AddMatMat(1.0, H, kTrans, H, kNoTrans, 0.0);
  products.RowRange(R, R).AddMatMat(1.0, W, kNoTrans, W, kTrans, 0.0);
  if (tr_x_xt_pending) {
    CuSubVector<BaseFloat> sum_slot(products.Row(2 * R), 0, 1);
    cu::SumOfSquares(X, &sum_slot);
  }
  const Matrix<BaseFloat> p = products.Download();
  if (tr_x_xt_pending) {
    *tr_x_xt = X[0].NumRows();
    *tr_x_xt += p(2 * R, 0);
  }
  const BaseFloat tr_x_xt_value = *tr_x_xt;
  double trace = tr_x_xt_value;
  for (int32 i = 0; i < R; i++) {
    trace -= 2.0 * p(i, i);
    for (int32 j = 0; j < R; j++)
      trace += static_cast<double>(p(i, j)) * p(R + i, j);
  }
  // The float products carry errors of about 1e-6 of tr_x_xt: a result
  // above a tenth of it keeps a relative error near 1e-5 or better.
  if (trace > 0.1 * tr_x_xt_value) return static_cast<BaseFloat>(trace);
  CuMatrix<BaseFloat> Y = WithOnes(X);
  return cu::SubtractProjection(H, W, &Y);
}

}  // namespace

void OnlineNaturalGradient::PreconditionWithOnes(
    const CuMatrixBase<BaseFloat> &X, CuMatrix<BaseFloat> *H,
    CuMatrix<BaseFloat> *W, BaseFloat *scale) {
  PreconditionWithOnes(OneBlock(X), H, W, scale);
}

void OnlineNaturalGradient::PreconditionWithOnes(
    const std::vector<CuSubMatrix<BaseFloat> > &X, CuMatrix<BaseFloat> *H,
    CuMatrix<BaseFloat> *W, BaseFloat *scale) {
  ProfileScope profile(kProfileNaturalGradient);
  NNET3_ASSERT(!X.empty() && X[0].NumRows() > 0);
  for (const CuSubMatrix<BaseFloat> &b : X)
    NNET3_ASSERT(b.NumRows() == X[0].NumRows());
  if (t_ == 0) Init(WithOnes(X));
  NNET3_ASSERT(NumBlockCols(X) + 1 == W_t_.NumCols());
  bool updating = Updating();
  // Without an update the first trace is read back with the second.
  BaseFloat initial_product = 0.0;
  if (updating) {
    initial_product = X[0].NumRows();
    initial_product += cu::SumOfSquares(X);
  }
  BaseFloat final_product =
      Step(updating, &initial_product, !updating, nullptr, &X, H, W);
  *scale = initial_product <= 0.0 ? 1.0
                                  : std::sqrt(initial_product / final_product);
  t_ += 1;
}

void AddPreconditionedWithOnesProduct(
    BaseFloat alpha, const CuMatrixBase<BaseFloat> &G,
    const std::vector<CuSubMatrix<BaseFloat> > &X,
    const CuMatrixBase<BaseFloat> &H, const CuMatrixBase<BaseFloat> &W,
    CuMatrixBase<BaseFloat> *linear, CuVectorBase<BaseFloat> *bias) {
  const int32 D = NumBlockCols(X), output_dim = G.NumCols();
  NNET3_ASSERT(linear->NumRows() == output_dim && linear->NumCols() == D &&
               bias->Dim() == output_dim && W.NumCols() == D + 1 &&
               H.NumCols() == W.NumRows() && H.NumRows() == G.NumRows());
  // Q rather than its transpose: OpenBLAS forms the rank x output-dim
  // product a quarter faster.
  CuMatrix<BaseFloat> Q(H.NumCols(), output_dim, kUndefined);
  Q.AddMatMat(1.0, H, kTrans, G, kNoTrans, 0.0);
  bias->AddRowSumMat(alpha, G, 1.0);
  CuVector<BaseFloat> w_ones(W.NumRows(), kUndefined);
  w_ones.CopyColFromMat(W, D);
  bias->AddMatVec(-alpha, Q, kTrans, w_ones, 1.0);
  int32 col = 0;
  for (const CuSubMatrix<BaseFloat> &b : X) {
    linear->ColRange(col, b.NumCols())
        .AddMatMat(alpha, G, kTrans, b, kNoTrans, 1.0);
    col += b.NumCols();
  }
  linear->AddMatMat(-alpha, Q, kTrans, W.ColRange(0, D), kNoTrans, 1.0);
}

void OnlineNaturalGradient::ComputeEt(const VectorBase<BaseFloat> &d,
                                      BaseFloat beta, Vector<BaseFloat> *e,
                                      Vector<BaseFloat> *sqrt_e,
                                      Vector<BaseFloat> *inv_sqrt_e) {
  int32 r = d.Dim();
  e->Resize(r, kUndefined);
  for (int32 i = 0; i < r; i++) (*e)(i) = 1.0 / (beta / d(i) + 1);
  *sqrt_e = *e;
  sqrt_e->ApplyPow(0.5);
  *inv_sqrt_e = *sqrt_e;
  inv_sqrt_e->InvertElements();
}

BaseFloat OnlineNaturalGradient::Step(
    bool updating, BaseFloat *tr_x_xt_ptr, bool tr_x_xt_pending,
    CuMatrixBase<BaseFloat> *X,
    const std::vector<CuSubMatrix<BaseFloat> > *X_ones, CuMatrix<BaseFloat> *H,
    CuMatrix<BaseFloat> *W) {
  // The operand X_t: *X, or [*X_ones, 1] (D counts the column of ones).
  const bool ones = (X == nullptr);
  const int32 N = ones ? (*X_ones)[0].NumRows() : X->NumRows(),
              D = ones ? NumBlockCols(*X_ones) + 1 : X->NumCols(), R = rank_;
  NNET3_ASSERT(R > 0 && R < D && !(updating && tr_x_xt_pending));
  const BaseFloat eta = Eta(N);
  const BaseFloat tr_x_xt = *tr_x_xt_ptr;  // used when updating (known then)
  // The state at time t (copies: the members receive time t+1).
  CuMatrix<BaseFloat> W_t(W_t_);
  const BaseFloat rho_t = rho_t_;
  const Vector<BaseFloat> d_t(d_t_);

  CuMatrix<BaseFloat> H_t(N, R, kUndefined);  // H_t = X_t W_t^T
  if (ones)
    ProjectWithOnes(*X_ones, W_t, &H_t);
  else
    H_t.AddMatMat(1.0, *X, kNoTrans, W_t, kTrans, 0.0);
  // X_t - H_t W_t (in place, or only its trace), and the trace of its
  // square; hands H_t and W_t to the caller of the unformed operand.
  auto subtract = [&]() -> BaseFloat {
    if (!ones && !tr_x_xt_pending) return cu::SubtractProjection(H_t, W_t, X);
    if (!ones) {
      // Both traces where the computation runs, then one transfer.
      CuVector<BaseFloat> traces(2, kUndefined);
      CuSubVector<BaseFloat> before(traces, 0, 1), after(traces, 1, 1);
      cu::SumOfSquares(*X, &before);
      cu::SubtractProjection(H_t, W_t, X, &after);
      const Vector<BaseFloat> t = traces.Download();
      *tr_x_xt_ptr = t(0);
      return t(1);
    }
    BaseFloat tr = TraceWithOnesRemoved(tr_x_xt_ptr, tr_x_xt_pending,
                                        *X_ones, H_t, W_t);
    H->Swap(&H_t);
    W->Swap(&W_t);
    return tr;
  };
  if (!updating) return subtract();
  CuMatrix<BaseFloat> J_t(R, D, kUndefined);  // J_t = H_t^T X_t = W_t X_t^T X_t
  if (ones) {
    int32 col = 0;
    for (const CuSubMatrix<BaseFloat> &b : *X_ones) {
      J_t.ColRange(col, b.NumCols())
          .AddMatMat(1.0, H_t, kTrans, b, kNoTrans, 0.0);
      col += b.NumCols();
    }
    // The column of ones: H_t^T 1, the column sums of H_t.
    CuVector<BaseFloat> h_sums(R);
    h_sums.AddRowSumMat(1.0, H_t, 0.0);
    J_t.CopyColFromVec(h_sums, D - 1);
  } else {
    J_t.AddMatMat(1.0, H_t, kTrans, *X, kNoTrans, 0.0);
  }
  // K_t = J_t J_t^T and L_t = W_t X_t^T X_t W_t^T, the latter as W_t J_t^T
  // when N > D and as H_t^T H_t otherwise (Kaldi's choice of products).
  // K_t in rows [0, R) and L_t in rows [R, 2R) of one matrix, so that a
  // single transfer (one wait on a GPU) brings both to the host.
  CuMatrix<BaseFloat> KL_t_cu(2 * R, R);
  CuSubMatrix<BaseFloat> K_t_cu(KL_t_cu.RowRange(0, R)),
      L_t_cu(KL_t_cu.RowRange(R, R));
  K_t_cu.AddMatMat(1.0, J_t, kNoTrans, J_t, kTrans, 0.0);
  if (N > D)
    L_t_cu.AddMatMat(1.0, W_t, kNoTrans, J_t, kTrans, 0.0);
  else
    L_t_cu.AddMatMat(1.0, H_t, kTrans, H_t, kNoTrans, 0.0);
  // The R x R algebra below runs on the host.
  const Matrix<BaseFloat> KL_t = KL_t_cu.Download();
  const SubMatrix<BaseFloat> K_t(KL_t.RowRange(0, R)),
      L_t(KL_t.RowRange(R, R));

  const BaseFloat beta_t = rho_t * (1.0 + alpha_) + alpha_ * d_t.Sum() / D;
  Vector<BaseFloat> e_t, sqrt_e_t, inv_sqrt_e_t;
  ComputeEt(d_t, beta_t, &e_t, &sqrt_e_t, &inv_sqrt_e_t);

  // Z = Y Y^T, where (this step's quantities) Y = (eta/N) R X^T X plus
  // (1-eta) (D + rho) R,
  // in double (it scales with the fourth power of the data); symmetric.
  std::vector<double> Z(static_cast<size_t>(R) * R);
  {
    Vector<BaseFloat> d_rho(d_t);
    d_rho.Add(rho_t);
    const double etaN = eta / N, eta1 = 1.0 - eta;
    for (int32 i = 0; i < R; i++) {
      double is_i = inv_sqrt_e_t(i), dr_i = d_rho(i);
      for (int32 j = 0; j <= i; j++) {
        double is_j = inv_sqrt_e_t(j), dr_j = d_rho(j),
               l = 0.5 * (L_t(i, j) + L_t(j, i)),
               k = 0.5 * (K_t(i, j) + K_t(j, i));
        double z = etaN * etaN * is_i * k * is_j +
                   etaN * eta1 * is_i * l * is_j * dr_j +
                   etaN * eta1 * dr_i * is_i * l * is_j +
                   (i == j ? eta1 * eta1 * dr_i * dr_i : 0.0);
        Z[i * R + j] = Z[j * R + i] = z;
      }
    }
  }
  // Kaldi scales Z_t by its trace (if above 1), rounds it to float and then
  // decomposes it; the eigenvalues are scaled back.
  double trace = 0.0;
  for (int32 i = 0; i < R; i++) trace += Z[i * R + i];
  const BaseFloat z_scale = static_cast<BaseFloat>(std::max(1.0, trace));
  for (double &z : Z)
    z = static_cast<double>(static_cast<BaseFloat>(z * (1.0 / z_scale)));
  std::vector<double> evals, evecs;
  SymmetricEigenSorted(R, Z, &evals, &evecs);
  Vector<BaseFloat> c_t(R);
  Matrix<BaseFloat> U_t(R, R);
  for (int32 i = 0; i < R; i++) {
    c_t(i) = static_cast<BaseFloat>(evals[i]);
    for (int32 j = 0; j < R; j++)
      U_t(i, j) = static_cast<BaseFloat>(evecs[i * R + j]);
  }
  c_t.Scale(z_scale);

  // A large condition number of C_t (or a negative last eigenvalue) means
  // R_{t+1} may lose orthogonality.
  const BaseFloat condition_threshold = 1.0e+06;
  bool must_reorthogonalize = (c_t(0) > condition_threshold * c_t(R - 1));
  BaseFloat c_t_floor = std::pow(rho_t * (1 - eta), 2);
  MatrixIndexT num_floored = 0;
  c_t.ApplyFloor(c_t_floor, &num_floored);
  if (num_floored > 0) must_reorthogonalize = true;

  Vector<BaseFloat> sqrt_c_t(c_t);
  sqrt_c_t.ApplyPow(0.5);
  // rho_{t+1} keeps tr(F_{t+1}) = eta tr(S_t) + (1 - eta) tr(F_t).
  BaseFloat rho_t1 = 1.0 / (D - R) *
                     (eta / N * tr_x_xt + (1 - eta) * (D * rho_t + d_t.Sum()) -
                      sqrt_c_t.Sum());
  Vector<BaseFloat> d_t1(sqrt_c_t);  // D_{t+1} = C_t^{1/2} - rho_{t+1} I
  d_t1.Add(-rho_t1);
  BaseFloat floor_val = std::max(epsilon_, delta_ * sqrt_c_t.Max());
  if (rho_t1 < floor_val) rho_t1 = floor_val;
  d_t1.ApplyFloor(floor_val);

  // The next W is A B, where B = J + (1-eta)/(eta/N) (D + rho I) W and
  // A = (eta/N) E_next^{1/2} C^{-1/2} U^T E^{-1/2} (this step's E, C, U).
  CuMatrix<BaseFloat> W_t1(R, D);
  {
    BaseFloat beta_t1 = rho_t1 * (1.0 + alpha_) + alpha_ * d_t1.Sum() / D;
    NNET3_ASSERT(beta_t1 > 0.0);
    Vector<BaseFloat> e_t1, sqrt_e_t1, inv_sqrt_e_t1;
    ComputeEt(d_t1, beta_t1, &e_t1, &sqrt_e_t1, &inv_sqrt_e_t1);
    Vector<BaseFloat> inv_sqrt_c_t(sqrt_c_t);
    inv_sqrt_c_t.InvertElements();
    Vector<BaseFloat> w_coeff(R);
    for (int32 i = 0; i < R; i++)
      w_coeff(i) = (1.0 - eta) / (eta / N) * (d_t(i) + rho_t);
    J_t.AddDiagVecMat(1.0, CuVector<BaseFloat>(w_coeff), W_t, kNoTrans,
                      1.0);  // now B_t
    Matrix<BaseFloat> A_t(R, R);
    for (int32 i = 0; i < R; i++) {
      BaseFloat i_factor = (eta / N) * sqrt_e_t1(i) * inv_sqrt_c_t(i);
      for (int32 j = 0; j < R; j++)
        A_t(i, j) = U_t(j, i) * (i_factor * inv_sqrt_e_t(j));
    }
    W_t1.AddMatMat(1.0, CuMatrix<BaseFloat>(A_t), kNoTrans, J_t, kNoTrans,
                   0.0);
  }
  // X - H_t W_t, and the trace of its square (W_t and H_t are not needed
  // after this).
  const BaseFloat tr_xhat = subtract();
  if (must_reorthogonalize) Reorthogonalize(d_t1, rho_t1, &W_t1);

  W_t_.Swap(&W_t1);
  d_t_.CopyFromVec(d_t1);
  rho_t_ = rho_t1;
  return tr_xhat;
}

void OnlineNaturalGradient::Reorthogonalize(const VectorBase<BaseFloat> &d_t1,
                                            BaseFloat rho_t1,
                                            CuMatrix<BaseFloat> *W_t1) const {
  // Orthogonality target: max |O - I| <= 1e-3 with O = R_{t+1} R_{t+1}^T.
  const BaseFloat threshold = 1.0e-03;
  const int32 R = W_t1->NumRows(), D = W_t1->NumCols();
  BaseFloat beta_t1 = rho_t1 * (1.0 + alpha_) + alpha_ * d_t1.Sum() / D;
  Vector<BaseFloat> e_t1, sqrt_e_t1, inv_sqrt_e_t1;
  ComputeEt(d_t1, beta_t1, &e_t1, &sqrt_e_t1, &inv_sqrt_e_t1);

  CuMatrix<BaseFloat> WWt_cu(R, R);
  WWt_cu.AddMatMat(1.0, *W_t1, kNoTrans, *W_t1, kTrans, 0.0);
  Matrix<BaseFloat> WWt;
  WWt_cu.Swap(&WWt);
  std::vector<double> O(static_cast<size_t>(R) * R);
  BaseFloat max_error = 0.0;
  for (int32 i = 0; i < R; i++)
    for (int32 j = 0; j <= i; j++) {
      BaseFloat o = WWt(i, j) * (inv_sqrt_e_t1(i) * inv_sqrt_e_t1(j));
      O[i * R + j] = O[j * R + i] = o;
      max_error = std::max<BaseFloat>(max_error,
                                      std::fabs(o - (i == j ? 1.0 : 0.0)));
    }
  if (max_error <= threshold) return;

  std::vector<double> cinv;
  bool ok = CholeskyInverse(R, O, &cinv);
  if (ok) {
    double max_elem = -1.0e+300;
    for (int32 i = 0; i < R; i++)
      for (int32 j = 0; j <= i; j++)
        max_elem = std::max(max_elem, cinv[i * R + j]);
    if (!(max_elem < 100.0)) ok = false;
  }
  if (!ok) {
    NNET3_WARN << "Cholesky re-orthogonalization of the natural-gradient "
               << "subspace failed or was out of range; using Gram-Schmidt";
    cu::OrthonormalizeRows(W_t1);
    W_t1->MulRowsVec(CuVector<BaseFloat>(sqrt_e_t1));
    return;
  }
  // R_{t+1} <- C^{-1} R_{t+1}, i.e. W_{t+1} <- E^{1/2} C^{-1} E^{-1/2} W_{t+1}.
  Matrix<BaseFloat> T(R, R);
  for (int32 i = 0; i < R; i++)
    for (int32 j = 0; j <= i; j++) {
      BaseFloat c = static_cast<BaseFloat>(cinv[i * R + j]);
      if (j < i) c *= sqrt_e_t1(i) * inv_sqrt_e_t1(j);
      T(i, j) = c;
    }
  CuMatrix<BaseFloat> W_copy(*W_t1);
  W_t1->AddMatMat(1.0, CuMatrix<BaseFloat>(T), kNoTrans, W_copy, kNoTrans,
                  0.0);
}

}  // namespace nnet3
