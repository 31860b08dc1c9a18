// nnet3/components/per-element.h
// The per-element component family: components whose trained parameters act
// on each column separately. PerElementScaleComponent (out = in .* s),
// NaturalGradientPerElementScaleComponent (the same, with the natural-
// gradient configuration Kaldi stores), PerElementOffsetComponent
// (out = in + b), ScaleAndOffsetComponent (out = in .* s + b) and
// ConstantFunctionComponent (out = c, whatever the input).
//
// Invariants: for the offset and scale-and-offset components the parameter
// vectors have block-dim elements and dim is a multiple of block-dim; with
// block-dim < dim the parameters repeat across the dim/block-dim blocks of
// each row and the matrices must be contiguous (kInputContiguous |
// kOutputContiguous are then declared). Write() emits Kaldi's tokens in
// Kaldi's order; Read() accepts the stream before or after the opening tag.
//
// Updates: PerElementScaleComponent does plain SGD. The others precondition
// the per-frame derivatives of their parameters with OnlineNaturalGradient
// (natural-gradient-online.h) before summing them over frames, as Kaldi
// does: NaturalGradientPerElementScaleComponent always (in_value .*
// out_deriv), PerElementOffsetComponent, ScaleAndOffsetComponent and
// ConstantFunctionComponent when use-natural-gradient is true. A component
// holding a gradient (is_gradient_) does plain SGD. Preconditioner state is
// copied with the component and never written (a read component starts a
// fresh estimate).
#ifndef NNET3_NNET3_COMPONENTS_PER_ELEMENT_H_
#define NNET3_NNET3_COMPONENTS_PER_ELEMENT_H_

#include <string>

#include "nnet3/components/component.h"
#include "nnet3/components/natural-gradient-online.h"

namespace nnet3 {

// out = in .* scales (scales broadcast over rows). Options: dim,
// param-mean (1.0), param-stddev (0.0), or vector=FILE; learning-rate
// options.
class PerElementScaleComponent : public UpdatableComponent {
 public:
  PerElementScaleComponent() {}
  explicit PerElementScaleComponent(const PerElementScaleComponent &other);

  int32 InputDim() const override { return scales_.Dim(); }
  int32 OutputDim() const override { return scales_.Dim(); }
  std::string Type() const override { return "PerElementScaleComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput |
           kPropagateInPlace;
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new PerElementScaleComponent(*this);
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

  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  int32 NumParameters() const override { return scales_.Dim(); }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  const CuVector<BaseFloat> &Scales() const { return scales_; }
  CuVector<BaseFloat> &Scales() { return scales_; }
  void Init(int32 dim, BaseFloat param_mean, BaseFloat param_stddev);

 protected:
  virtual void Update(const std::string &debug_info,
                      const CuMatrixBase<BaseFloat> &in_value,
                      const CuMatrixBase<BaseFloat> &out_deriv) {
    (void)debug_info;
    UpdateSimple(in_value, out_deriv);
  }
  // scales += lr * (sum over rows of in_value .* out_deriv).
  void UpdateSimple(const CuMatrixBase<BaseFloat> &in_value,
                    const CuMatrixBase<BaseFloat> &out_deriv);
  // Opening tag and common fields, "<Params>" and the scales.
  void ReadScales(std::istream &is, bool binary);

  CuVector<BaseFloat> scales_;
};

// PerElementScaleComponent with natural-gradient configuration. Options:
// dim, param-mean (1.0), param-stddev (0.0) or scales=FILE; rank (8),
// update-period (10), num-samples-history (2000), alpha (4).
class NaturalGradientPerElementScaleComponent
    : public PerElementScaleComponent {
 public:
  NaturalGradientPerElementScaleComponent()
      : rank_(8), update_period_(10), num_samples_history_(2000.0),
        alpha_(4.0) {
    ConfigurePreconditioner();
  }
  explicit NaturalGradientPerElementScaleComponent(
      const NaturalGradientPerElementScaleComponent &other);
  std::string Type() const override {
    return "NaturalGradientPerElementScaleComponent";
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new NaturalGradientPerElementScaleComponent(*this);
  }
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_.Freeze(freeze);
  }
  const OnlineNaturalGradient &Preconditioner() const {
    return preconditioner_;
  }

 protected:
  void Update(const std::string &debug_info,
              const CuMatrixBase<BaseFloat> &in_value,
              const CuMatrixBase<BaseFloat> &out_deriv) override;

 private:
  // Replaces the preconditioner by a fresh one with the stored options.
  void ConfigurePreconditioner();

  int32 rank_;
  int32 update_period_;
  BaseFloat num_samples_history_;
  BaseFloat alpha_;
  OnlineNaturalGradient preconditioner_;
};

// out = in + offsets, offsets repeated over blocks of block-dim columns.
// Options: dim, block-dim (dim), param-mean (0.0), param-stddev (0.0), or
// vector=FILE (dim a multiple of its size); use-natural-gradient (true;
// Kaldi's fixed natural-gradient options: rank 20, update-period 4, applied to
// the output derivatives seen as rows of block-dim).
class PerElementOffsetComponent : public UpdatableComponent {
 public:
  PerElementOffsetComponent() : dim_(0), use_natural_gradient_(true) {
    ConfigurePreconditioner();
  }
  explicit PerElementOffsetComponent(const PerElementOffsetComponent &other);

  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  std::string Type() const override { return "PerElementOffsetComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropInPlace |
           kPropagateInPlace |
           (dim_ != offsets_.Dim() ? (kInputContiguous | kOutputContiguous)
                                   : 0);
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new PerElementOffsetComponent(*this);
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

  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  int32 NumParameters() const override { return offsets_.Dim(); }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  const CuVector<BaseFloat> &Offsets() const { return offsets_; }
  CuVector<BaseFloat> &Offsets() { return offsets_; }
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_.Freeze(freeze);
  }
  const OnlineNaturalGradient &Preconditioner() const {
    return preconditioner_;
  }

 private:
  // A fresh preconditioner with rank 20 and update period 4.
  void ConfigurePreconditioner();

  CuVector<BaseFloat> offsets_;
  int32 dim_;
  bool use_natural_gradient_;
  OnlineNaturalGradient preconditioner_;
};

// out = in .* scales + offsets, both repeated over blocks of block-dim
// columns; scales start at 1 and offsets at 0. Backprop reconstructs the
// input from the output (kBackpropNeedsOutput), dividing by scales with
// magnitude floored at 1e-4. Options: dim, block-dim (dim),
// use-natural-gradient (true), rank (20; the update period is fixed at 4).
// Natural gradient preconditions the offsets' derivatives (out_deriv) and
// the scales' (reconstructed input .* out_deriv) with separate estimates.
class ScaleAndOffsetComponent : public UpdatableComponent {
 public:
  ScaleAndOffsetComponent()
      : dim_(0), use_natural_gradient_(true), rank_(20) {
    ConfigurePreconditioners();
  }
  explicit ScaleAndOffsetComponent(const ScaleAndOffsetComponent &other);

  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  std::string Type() const override { return "ScaleAndOffsetComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsOutput |
           kBackpropInPlace | kPropagateInPlace |
           (dim_ != scales_.Dim() ? (kInputContiguous | kOutputContiguous)
                                  : 0);
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new ScaleAndOffsetComponent(*this);
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

  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  // Scales then offsets.
  int32 NumParameters() const override { return 2 * scales_.Dim(); }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  const CuVector<BaseFloat> &Scales() const { return scales_; }
  CuVector<BaseFloat> &Scales() { return scales_; }
  const CuVector<BaseFloat> &Offsets() const { return offsets_; }
  CuVector<BaseFloat> &Offsets() { return offsets_; }
  void FreezeNaturalGradient(bool freeze) override {
    scale_preconditioner_.Freeze(freeze);
    offset_preconditioner_.Freeze(freeze);
  }

 private:
  // Fresh preconditioners with rank_ and update period 4.
  void ConfigurePreconditioners();

  int32 dim_;
  CuVector<BaseFloat> scales_;
  CuVector<BaseFloat> offsets_;
  bool use_natural_gradient_;
  int32 rank_;
  OnlineNaturalGradient scale_preconditioner_;
  OnlineNaturalGradient offset_preconditioner_;
};

// out = the same row (the trained vector "output") for every input row; the
// input only gives the Indexes. Options: input-dim, output-dim,
// is-updatable (true), use-natural-gradient (true), output-mean (0),
// output-stddev (0). Natural gradient (when use-natural-gradient) uses
// Kaldi's default preconditioner options: rank 40, update-period 1.
class ConstantFunctionComponent : public UpdatableComponent {
 public:
  ConstantFunctionComponent()
      : input_dim_(-1), is_updatable_(true), use_natural_gradient_(true) {}
  explicit ConstantFunctionComponent(const ConstantFunctionComponent &other);

  int32 InputDim() const override { return input_dim_; }
  int32 OutputDim() const override { return output_.Dim(); }
  std::string Type() const override { return "ConstantFunctionComponent"; }
  int32 Properties() const override {
    return (is_updatable_ ? kUpdatableComponent : 0) |
           (InputDim() == OutputDim() ? kPropagateInPlace : 0) |
           kBackpropAdds;
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new ConstantFunctionComponent(*this);
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

  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  int32 NumParameters() const override { return output_.Dim(); }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  const CuVector<BaseFloat> &Output() const { return output_; }
  CuVector<BaseFloat> &Output() { return output_; }
  bool IsUpdatable() const { return is_updatable_; }
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_.Freeze(freeze);
  }

 private:
  int32 input_dim_;
  CuVector<BaseFloat> output_;
  bool is_updatable_;
  bool use_natural_gradient_;
  // Kaldi's defaults (rank 40, update period 1); applied to out_deriv.
  OnlineNaturalGradient preconditioner_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_PER_ELEMENT_H_
