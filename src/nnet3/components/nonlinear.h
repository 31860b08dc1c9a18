// nnet3/components/nonlinear.h
// The nonlinearity family: the NonlinearComponent base (dimension, optional
// block-dim, activation/derivative statistics and the self-repair
// configuration) and SigmoidComponent, TanhComponent,
// RectifiedLinearComponent, SoftmaxComponent and LogSoftmaxComponent.
//
// Invariants: dim > 0 and block-dim divides dim. Statistics are kept as sums
// in double (value_sum_, deriv_sum_, oderiv_sumsq_) with their counts; they
// are empty vectors until the first StoreStats()/Backprop with an update
// target. The sums are Cu vectors, accumulated and read by self-repair
// where the computation runs (on a GPU, without copies to the host). Write() stores them count-normalized (ValueAvg, DerivAvg, and
// OderivRms = sqrt(sumsq / count)) as Kaldi does, and Read() multiplies the
// counts back in, so a read/write round trip reproduces the bytes.
// Self-repair (Sigmoid, Tanh, RectifiedLinear) adds Kaldi's repair terms to
// the input derivative during training, i.e. only when Backprop has an
// update target, self-repair-scale != 0 and statistics exist; it is gated by
// random numbers exactly as Kaldi gates it (about half the minibatches), so
// only its rate, not the draw, matches Kaldi.
#ifndef NNET3_NNET3_COMPONENTS_NONLINEAR_H_
#define NNET3_NNET3_COMPONENTS_NONLINEAR_H_

#include <string>

#include "nnet3/components/component.h"

namespace nnet3 {

// Options: dim (required), block-dim (default dim), self-repair-lower-
// threshold, self-repair-upper-threshold (default "unset" = -1000, mapped
// to a per-type default when used), self-repair-scale (default 0).
class NonlinearComponent : public Component {
 public:
  // The value Kaldi uses for "threshold not set".
  static constexpr BaseFloat kUnsetThreshold = -1000.0;

  NonlinearComponent();
  NonlinearComponent(const NonlinearComponent &other);

  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  void ZeroStats() override;
  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;

  int32 BlockDim() const { return block_dim_; }
  double Count() const { return count_; }
  double OderivCount() const { return oderiv_count_; }
  const CuVector<double> &ValueSum() const { return value_sum_; }
  const CuVector<double> &DerivSum() const { return deriv_sum_; }
  const CuVector<double> &OderivSumsq() const { return oderiv_sumsq_; }
  double NumDimsSelfRepaired() const { return num_dims_self_repaired_; }
  double NumDimsProcessed() const { return num_dims_processed_; }
  // Direct initialization (tests, programmatic construction).
  void Init(int32 dim, int32 block_dim = -1);
  void SetSelfRepair(BaseFloat lower, BaseFloat upper, BaseFloat scale) {
    self_repair_lower_threshold_ = lower;
    self_repair_upper_threshold_ = upper;
    self_repair_scale_ = scale;
  }

  // Adds out_value's column sums to value_sum_ and, if deriv is non-null,
  // deriv's column sums to deriv_sum_; count_ += num-rows. (Resets the
  // statistics if their dimension is wrong.)
  void StoreStatsInternal(const CuMatrixBase<BaseFloat> &out_value,
                          const CuMatrixBase<BaseFloat> *deriv);
  // The same with the column sums already taken: value_sums (and
  // deriv_sums) of num_rows rows.
  void AddStats(int32 num_rows, const CuVectorBase<BaseFloat> &value_sums,
                const CuVectorBase<BaseFloat> *deriv_sums);
  // Accumulates the squared output derivatives (on the first call and then
  // on about 3 of 4 calls, as Kaldi does).
  void StoreBackpropStats(const CuMatrixBase<BaseFloat> &out_deriv);
  // StoreBackpropStats in two halves, for a caller that sums the squares
  // itself: WantBackpropStats() makes the random choice (true: collect this
  // time) and AddBackpropStats() adds the column sums of squares of
  // num_rows rows.
  bool WantBackpropStats();
  void AddBackpropStats(int32 num_rows, const CuVectorBase<BaseFloat> &sumsq);

 protected:
  // Self-repair of saturating units (sigmoid, tanh): counts the processed
  // dims in to_update and, on a random half of the minibatches when
  // self-repair is on and statistics exist, sets *saturated to 1 for the
  // dims whose average derivative is below the lower threshold (default
  // given) and 0 elsewhere. Returns false when no repair happens this time.
  bool FindSaturatedDims(BaseFloat default_lower_threshold,
                         NonlinearComponent *to_update,
                         CuVector<BaseFloat> *saturated) const;

  int32 dim_;
  int32 block_dim_;
  CuVector<double> value_sum_;
  CuVector<double> deriv_sum_;
  double count_;
  CuVector<double> oderiv_sumsq_;
  double oderiv_count_;
  double num_dims_self_repaired_;
  double num_dims_processed_;
  BaseFloat self_repair_lower_threshold_;
  BaseFloat self_repair_upper_threshold_;
  BaseFloat self_repair_scale_;
};

// y = 1 / (1 + exp(-x)). Self-repair: for dimensions whose average
// derivative y(1-y) is below the lower threshold (default 0.05), adds
// -scale/0.5 * (2y - 1) to the input derivative.
class SigmoidComponent : public NonlinearComponent {
 public:
  SigmoidComponent() {}
  SigmoidComponent(const SigmoidComponent &other) : NonlinearComponent(other) {}
  std::string Type() const override { return "SigmoidComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropNeedsOutput | kPropagateInPlace |
           kStoresStats;
  }
  Component *Copy() const override { return new SigmoidComponent(*this); }
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
  void StoreStats(const CuMatrixBase<BaseFloat> &in_value,
                  const CuMatrixBase<BaseFloat> &out_value,
                  void *memo) override;

 private:
  void RepairGradients(const CuMatrixBase<BaseFloat> &out_value,
                       CuMatrixBase<BaseFloat> *in_deriv,
                       SigmoidComponent *to_update) const;
};

// y = tanh(x). Self-repair: for dimensions whose average derivative 1-y^2 is
// below the lower threshold (default 0.2), adds -scale/0.5 * y to the input
// derivative.
class TanhComponent : public NonlinearComponent {
 public:
  TanhComponent() {}
  TanhComponent(const TanhComponent &other) : NonlinearComponent(other) {}
  std::string Type() const override { return "TanhComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropNeedsOutput | kPropagateInPlace |
           kStoresStats;
  }
  Component *Copy() const override { return new TanhComponent(*this); }
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
  void StoreStats(const CuMatrixBase<BaseFloat> &in_value,
                  const CuMatrixBase<BaseFloat> &out_value,
                  void *memo) override;

 private:
  void RepairGradients(const CuMatrixBase<BaseFloat> &out_value,
                       CuMatrixBase<BaseFloat> *in_deriv,
                       TanhComponent *to_update) const;
};

// y = max(x, 0). Self-repair works per block of block-dim columns (the
// derivative statistics are averaged over the dim/block-dim blocks): adds
// +scale/0.5 where the average derivative is <= the lower threshold
// (default 0.05) and -scale/0.5 where it is > the upper threshold (default
// 0.95). With block-dim < dim the matrices must be contiguous.
class RectifiedLinearComponent : public NonlinearComponent {
 public:
  RectifiedLinearComponent() {}
  RectifiedLinearComponent(const RectifiedLinearComponent &other)
      : NonlinearComponent(other) {}
  std::string Type() const override { return "RectifiedLinearComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropNeedsOutput | kPropagateInPlace |
           kStoresStats | (block_dim_ != dim_ ? kInputContiguous : 0);
  }
  Component *Copy() const override {
    return new RectifiedLinearComponent(*this);
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
  void StoreStats(const CuMatrixBase<BaseFloat> &in_value,
                  const CuMatrixBase<BaseFloat> &out_value,
                  void *memo) override;

 private:
  // The self-repair term: when self-repair is on, statistics exist and the
  // random half of the minibatches is drawn, counts the processed dims in
  // to_update, sets *repair (block_dim_ entries) to the amount to add to
  // each column of the input derivative and returns true.
  bool RepairTerm(RectifiedLinearComponent *to_update,
                  CuVector<BaseFloat> *repair) const;
};

// Row-wise softmax, floored at 1e-20 (as Kaldi does, so that a following
// log never sees 0). StoreStats accumulates output averages only.
class SoftmaxComponent : public NonlinearComponent {
 public:
  SoftmaxComponent() {}
  SoftmaxComponent(const SoftmaxComponent &other) : NonlinearComponent(other) {}
  std::string Type() const override { return "SoftmaxComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kPropagateInPlace | kBackpropInPlace |
           kBackpropNeedsOutput | kStoresStats;
  }
  Component *Copy() const override { return new SoftmaxComponent(*this); }
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
  void StoreStats(const CuMatrixBase<BaseFloat> &in_value,
                  const CuMatrixBase<BaseFloat> &out_value,
                  void *memo) override;
};

// Row-wise log-softmax. (Like Kaldi, it declares kStoresStats but stores
// no forward statistics.) Unlike Kaldi's it also declares kPropagateInPlace:
// each row is read in full before it is written (CPU and GPU kernels), so
// the output may overwrite the input, which saves an output-sized matrix
// (the network's largest, usually) in every computation; the numbers are
// the same.
class LogSoftmaxComponent : public NonlinearComponent {
 public:
  LogSoftmaxComponent() {}
  LogSoftmaxComponent(const LogSoftmaxComponent &other)
      : NonlinearComponent(other) {}
  std::string Type() const override { return "LogSoftmaxComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropNeedsOutput | kStoresStats |
           kPropagateInPlace;
  }
  Component *Copy() const override { return new LogSoftmaxComponent(*this); }
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
};

void RegisterNonlinearComponents(ComponentRegistry *registry);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_NONLINEAR_H_
