// nnet3/components/lstm.h
// LstmNonlinearityComponent: the element-wise part of an LSTM layer with
// peephole (diagonal) connections, fused into one component. The affine
// transforms live outside it; per frame it maps
//   (i_part, f_part, c_part, o_part, c_{t-1} [, i_mask, f_mask, o_mask])
// to (c_t, m_t), every block of width C = cell-dim:
//   i_t = sigmoid(i_part + w_ic .* c_{t-1})
//   f_t = sigmoid(f_part + w_fc .* c_{t-1})
//   c_t = f_mask f_t .* c_{t-1} + i_mask i_t .* tanh(c_part)
//   o_t = sigmoid(o_part + w_oc .* c_t)
//   m_t = o_mask o_t .* tanh(c_t)
// The three per-frame scalar masks exist only with use-dropout=true (input
// dimension 5C + 3); otherwise they are 1.
//
// Invariants: params_ is 3 x C (rows w_ic, w_fc, w_oc); value_sum_ and
// deriv_sum_ are 5 x C (one row per nonlinearity: sigmoid of i, sigmoid of
// f, tanh of c_part, sigmoid of o, tanh of c_t), self_repair_config_ has 10
// entries (5 lower thresholds on the average derivative, then 5 scales) and
// self_repair_total_ 5. The statistics are sums over count_ frames in
// memory and averages on disk (self_repair_total_ divided by count_ * C),
// as in Kaldi. Statistics are gathered, and self-repair decided, inside
// Backprop when there is a component to update. The update preconditions
// the 3 x C parameter gradient with one OnlineNaturalGradient (rank 20,
// update period 2, 1000 samples of history) unless the component holds a
// gradient.
#ifndef NNET3_NNET3_COMPONENTS_LSTM_H_
#define NNET3_NNET3_COMPONENTS_LSTM_H_

#include <string>

#include "nnet3/components/component.h"
#include "nnet3/components/natural-gradient-online.h"

namespace nnet3 {

class LstmNonlinearityComponent : public UpdatableComponent {
 public:
  LstmNonlinearityComponent() : use_dropout_(false), count_(0.0) {
    ConfigurePreconditioner();
  }
  explicit LstmNonlinearityComponent(const LstmNonlinearityComponent &other);

  int32 InputDim() const override { return 5 * CellDim() + (use_dropout_ ? 3 : 0); }
  int32 OutputDim() const override { return 2 * CellDim(); }
  std::string Type() const override { return "LstmNonlinearityComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput;
  }
  // Options: cell-dim (required), use-dropout (false), param-stddev (1.0),
  // tanh-self-repair-threshold (0.2), sigmoid-self-repair-threshold (0.05),
  // self-repair-scale (1e-05), and the learning-rate options.
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new LstmNonlinearityComponent(*this);
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

  void ZeroStats() override;
  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  int32 NumParameters() const override {
    return params_.NumRows() * params_.NumCols();
  }
  // The rows w_ic, w_fc, w_oc concatenated.
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_.Freeze(freeze);
  }

  void Init(int32 cell_dim, bool use_dropout, BaseFloat param_stddev,
            BaseFloat tanh_self_repair_threshold,
            BaseFloat sigmoid_self_repair_threshold,
            BaseFloat self_repair_scale);

  int32 CellDim() const { return params_.NumCols(); }
  bool UseDropout() const { return use_dropout_; }
  const CuMatrix<BaseFloat> &Params() const { return params_; }
  const CuMatrix<double> &ValueSum() const { return value_sum_; }
  const CuMatrix<double> &DerivSum() const { return deriv_sum_; }
  const CuVector<double> &SelfRepairTotal() const { return self_repair_total_; }
  const CuVector<BaseFloat> &SelfRepairConfig() const {
    return self_repair_config_;
  }
  double Count() const { return count_; }

 private:
  // A fresh preconditioner with this component's fixed options.
  void ConfigurePreconditioner();

  CuMatrix<BaseFloat> params_;          // 3 x C
  bool use_dropout_;
  CuMatrix<double> value_sum_;          // 5 x C
  CuMatrix<double> deriv_sum_;          // 5 x C
  CuVector<BaseFloat> self_repair_config_;  // 10
  CuVector<double> self_repair_total_;  // 5
  double count_;
  OnlineNaturalGradient preconditioner_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_LSTM_H_
