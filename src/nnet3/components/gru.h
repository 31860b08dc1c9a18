// nnet3/components/gru.h
// The element-wise parts of GRU layers, fused into single components (the
// gates' affine transforms and sigmoids live outside them).
//
// GruNonlinearityComponent (C = cell-dim, R = recurrent-dim <= C, default
// R = C). Per frame the input is (z_t [C], r_t [R], hpart_t [C], c_{t-1}
// [C], s_{t-1} [R]) when R < C, or (z_t, r_t, hpart_t, y_{t-1}), all of
// width C, when R == C (then y_{t-1} serves as both c_{t-1} and s_{t-1}).
// The output is (h_t, c_t):
//   h_t = tanh(hpart_t + (r_t .* s_{t-1}) W_h^T)      W_h is C x R
//   c_t = (1 - z_t) .* h_t + z_t .* c_{t-1}
// OutputGruNonlinearityComponent: input (z_t, hpart_t, c_{t-1}), output
// (h_t, c_t), all width C, with a diagonal recurrence w_h [C]:
//   h_t = tanh(hpart_t + w_h .* c_{t-1})
//   c_t = (1 - z_t) .* h_t + z_t .* c_{t-1}
// h_t is an output only so that Backprop can use it (kBackpropNeedsOutput).
//
// Statistics of the tanh (value_sum_, deriv_sum_ [C, double], count_,
// self_repair_total_) are gathered in Backprop when there is a component to
// update, on a random half of the minibatches, and drive self-repair exactly
// as in TanhComponent (threshold 0.2, scale 1e-05 by default). On disk the
// sums are written as averages.
//
// Updates: GruNonlinearityComponent preconditions (r_t .* s_{t-1}) and the
// derivative at the tanh input with two OnlineNaturalGradient objects (alpha
// 4, rank-in 20, rank-out 80, update-period 4); OutputGruNonlinearityComponent
// preconditions the per-frame gradient of w_h with one (alpha 4, rank 8,
// update-period 10). A component holding a gradient does plain SGD.
#ifndef NNET3_NNET3_COMPONENTS_GRU_H_
#define NNET3_NNET3_COMPONENTS_GRU_H_

#include <sstream>
#include <string>

#include "nnet3/components/component.h"
#include "nnet3/components/natural-gradient-online.h"

namespace nnet3 {

// Shared by both GRU components: the tanh statistics and self-repair, and
// the configuration that goes with them.
class GruTanhStats {
 public:
  GruTanhStats()
      : self_repair_total_(0.0), count_(0.0), self_repair_threshold_(0.2),
        self_repair_scale_(1.0e-05) {}
  void Resize(int32 dim) {
    value_sum_.Resize(dim);
    deriv_sum_.Resize(dim);
    self_repair_total_ = 0.0;
    count_ = 0.0;
  }
  // With probability 1/2 (the global generator decides): adds h_t's values
  // and tanh derivatives to the statistics, then adds the self-repair term
  // to *h_t_deriv for the dimensions whose average derivative is below the
  // threshold.
  void AccumulateAndRepair(const CuMatrixBase<BaseFloat> &h_t,
                           CuMatrixBase<BaseFloat> *h_t_deriv);
  void Zero();
  void Scale(BaseFloat scale);
  void Add(BaseFloat alpha, const GruTanhStats &other);
  // ", count=..., self-repaired-proportion=..., value-avg=..., deriv-avg=..."
  // (only if count_ > 0).
  void PrintStats(std::ostringstream &os) const;
  // <ValueAvg> ... <SelfRepairScale> x, in Kaldi's order.
  void Write(std::ostream &os, bool binary) const;
  void Read(std::istream &is, bool binary);

  CuVector<double> value_sum_;
  CuVector<double> deriv_sum_;
  double self_repair_total_;
  double count_;
  BaseFloat self_repair_threshold_;
  BaseFloat self_repair_scale_;
};

class GruNonlinearityComponent : public UpdatableComponent {
 public:
  GruNonlinearityComponent() : cell_dim_(0), recurrent_dim_(0) {}
  explicit GruNonlinearityComponent(const GruNonlinearityComponent &other);

  int32 InputDim() const override {
    return recurrent_dim_ == cell_dim_ ? 4 * cell_dim_
                                       : 3 * cell_dim_ + 2 * recurrent_dim_;
  }
  int32 OutputDim() const override { return 2 * cell_dim_; }
  std::string Type() const override { return "GruNonlinearityComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput |
           kBackpropNeedsOutput | kBackpropAdds;
  }
  // Options: cell-dim (required), recurrent-dim (cell-dim), param-stddev
  // (1/sqrt(cell-dim)), self-repair-threshold (0.2), self-repair-scale
  // (1e-05), alpha (4), rank-in (20), rank-out (80), update-period (4), and
  // the learning-rate options.
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new GruNonlinearityComponent(*this);
  }

  void *Propagate(const ComponentPrecomputedIndexes *indexes,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override;
  void Backprop(const std::string &debug_info,
                const ComponentPrecomputedIndexes *indexes,
                const CuMatrixBase<BaseFloat> &in_value,
                const CuMatrixBase<BaseFloat> &out_value,
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,
                Component *to_update,
                CuMatrixBase<BaseFloat> *in_deriv) const override;

  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;

  void ZeroStats() override { stats_.Zero(); }
  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  int32 NumParameters() const override { return cell_dim_ * recurrent_dim_; }
  // The rows of W_h concatenated.
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_in_.Freeze(freeze);
    preconditioner_out_.Freeze(freeze);
  }

  int32 CellDim() const { return cell_dim_; }
  int32 RecurrentDim() const { return recurrent_dim_; }
  const CuMatrix<BaseFloat> &WH() const { return w_h_; }
  const GruTanhStats &Stats() const { return stats_; }

 private:
  // W_h update from (r_t .* s_{t-1}) and the derivative at the tanh input.
  void UpdateParameters(const CuMatrixBase<BaseFloat> &sdotr,
                        const CuMatrixBase<BaseFloat> &h_t_deriv);
  // Sets the preconditioners' options (rank, alpha, update period).
  void SetNaturalGradientOptions(BaseFloat alpha, int32 rank_in,
                                 int32 rank_out, int32 update_period);

  int32 cell_dim_;
  int32 recurrent_dim_;
  CuMatrix<BaseFloat> w_h_;  // C x R
  GruTanhStats stats_;
  OnlineNaturalGradient preconditioner_in_;   // dimension R
  OnlineNaturalGradient preconditioner_out_;  // dimension C
};

class OutputGruNonlinearityComponent : public UpdatableComponent {
 public:
  OutputGruNonlinearityComponent() : cell_dim_(0) {}
  explicit OutputGruNonlinearityComponent(
      const OutputGruNonlinearityComponent &other);

  int32 InputDim() const override { return 3 * cell_dim_; }
  int32 OutputDim() const override { return 2 * cell_dim_; }
  std::string Type() const override {
    return "OutputGruNonlinearityComponent";
  }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput |
           kBackpropNeedsOutput | kBackpropAdds;
  }
  // Options: cell-dim (required), param-mean (0), param-stddev (1.0),
  // self-repair-threshold (0.2), self-repair-scale (1e-05), alpha (4),
  // rank (8), update-period (10), and the learning-rate options.
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new OutputGruNonlinearityComponent(*this);
  }

  void *Propagate(const ComponentPrecomputedIndexes *indexes,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override;
  void Backprop(const std::string &debug_info,
                const ComponentPrecomputedIndexes *indexes,
                const CuMatrixBase<BaseFloat> &in_value,
                const CuMatrixBase<BaseFloat> &out_value,
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,
                Component *to_update,
                CuMatrixBase<BaseFloat> *in_deriv) const override;

  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;

  void ZeroStats() override { stats_.Zero(); }
  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  int32 NumParameters() const override { return cell_dim_; }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_.Freeze(freeze);
  }

  int32 CellDim() const { return cell_dim_; }
  const CuVector<BaseFloat> &WH() const { return w_h_; }
  const GruTanhStats &Stats() const { return stats_; }

 private:
  void UpdateParameters(const CuMatrixBase<BaseFloat> &c_t1,
                        const CuMatrixBase<BaseFloat> &h_t_deriv);

  int32 cell_dim_;
  CuVector<BaseFloat> w_h_;  // C
  GruTanhStats stats_;
  OnlineNaturalGradient preconditioner_;  // dimension C
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_GRU_H_
