// nnet3/components/affine.h
// The affine/linear component family: AffineComponent (out = in W^T + b),
// NaturalGradientAffineComponent (the same function, with the natural-
// gradient configuration Kaldi stores), LinearComponent (out += in W^T, no
// bias) and FixedAffineComponent (not trained).
//
// Invariants: linear_params_ is output-dim x input-dim and bias_params_ has
// output-dim elements (LinearComponent: params_ only). Write() emits exactly
// Kaldi's tokens in Kaldi's order; Read() accepts the stream before or after
// the opening "<TypeName>" tag. The parameter vector of Vectorize() is the
// rows of the linear parameters concatenated, followed by the bias.
//
// Updates: AffineComponent does plain SGD (W += lr * out_deriv^T in,
// b += lr * sum of the rows of out_deriv). NaturalGradientAffineComponent
// and LinearComponent precondition the input values and the output
// derivatives with two OnlineNaturalGradient objects
// (natural-gradient-online.h) and fold the two returned scales into the
// learning rate; a component that stores a gradient (is_gradient_) does
// plain SGD. LinearComponent's use-natural-gradient is stored and written
// but, exactly as in Kaldi, does not change the update. The preconditioner
// state is copied with the component but never written: a component read
// from disk or initialized from a config starts a fresh estimate. The
// orthonormal constraint is stored and written here and applied by the
// trainer after each update (nnet3/train/orthonormal.h).
#ifndef NNET3_NNET3_COMPONENTS_AFFINE_H_
#define NNET3_NNET3_COMPONENTS_AFFINE_H_

#include <string>

#include "nnet3/components/component.h"
#include "nnet3/components/natural-gradient-online.h"

namespace nnet3 {

class AffineComponent : public UpdatableComponent {
 public:
  AffineComponent() : orthonormal_constraint_(0.0) {}
  // Copies parameters and configuration.
  explicit AffineComponent(const AffineComponent &other);

  int32 InputDim() const override { return linear_params_.NumCols(); }
  int32 OutputDim() const override { return linear_params_.NumRows(); }
  std::string Type() const override { return "AffineComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput |
           kBackpropAdds;
  }
  // Options: input-dim, output-dim, param-stddev (1/sqrt(input-dim)),
  // bias-stddev (1.0), bias-mean (0.0), or matrix=FILE (output-dim x
  // (input-dim+1), last column the bias); orthonormal-constraint; and the
  // learning-rate options.
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override { return new AffineComponent(*this); }

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
  void SquaredNorm(CuVectorBase<BaseFloat> *norm) const override;
  int32 NumParameters() const override {
    return (InputDim() + 1) * OutputDim();
  }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  // Random initialization (Gaussian, Kaldi's recipe).
  void Init(int32 input_dim, int32 output_dim, BaseFloat param_stddev,
            BaseFloat bias_stddev, BaseFloat bias_mean);
  // From a matrix file: output-dim x (input-dim + 1), bias in the last column.
  void Init(const std::string &matrix_filename);

  const CuMatrix<BaseFloat> &LinearParams() const { return linear_params_; }
  CuMatrix<BaseFloat> &LinearParams() { return linear_params_; }
  const CuVector<BaseFloat> &BiasParams() const { return bias_params_; }
  CuVector<BaseFloat> &BiasParams() { return bias_params_; }
  void SetParams(const CuVectorBase<BaseFloat> &bias,
                 const CuMatrixBase<BaseFloat> &linear);
  BaseFloat OrthonormalConstraint() const { return orthonormal_constraint_; }

 protected:
  // The update used by Backprop for a component that is not a gradient;
  // NaturalGradientAffineComponent overrides it.
  virtual void Update(const std::string &debug_info,
                      const CuMatrixBase<BaseFloat> &in_value,
                      const CuMatrixBase<BaseFloat> &out_deriv) {
    (void)debug_info;
    UpdateSimple(in_value, out_deriv);
  }
  // W += lr * out_deriv^T * in_value; b += lr * (sum of rows of out_deriv).
  void UpdateSimple(const CuMatrixBase<BaseFloat> &in_value,
                    const CuMatrixBase<BaseFloat> &out_deriv);
  // Reads the linear and bias params after the common fields.
  void ReadParams(std::istream &is, bool binary);

  CuMatrix<BaseFloat> linear_params_;
  CuVector<BaseFloat> bias_params_;
  BaseFloat orthonormal_constraint_;
};

// AffineComponent whose update will be preconditioned with online natural
// gradient (in and out sides). Options beyond AffineComponent's: rank-in
// (default min(20, (input-dim+1)/2)), rank-out (min(80, (output-dim+1)/2)),
// update-period (4), num-samples-history (2000), alpha (4).
// The update preconditions [in_value, 1] (the column of ones carries the
// bias) and out_deriv, then adds lr * scale_in * scale_out times the product.
class NaturalGradientAffineComponent : public AffineComponent {
 public:
  NaturalGradientAffineComponent()
      : rank_in_(20), rank_out_(80), update_period_(4),
        num_samples_history_(2000.0), alpha_(4.0) {
    ConfigurePreconditioners();
  }
  explicit NaturalGradientAffineComponent(
      const NaturalGradientAffineComponent &other);
  // From given parameters, with the settings Kaldi gives a component made
  // this way (the apply-svd edit): learning rate 0.001, rank-in 20,
  // rank-out 80 (whatever the dims), update-period 4,
  // num-samples-history 2000, alpha 4, no orthonormal constraint.
  NaturalGradientAffineComponent(const CuMatrixBase<BaseFloat> &linear,
                                 const CuVectorBase<BaseFloat> &bias);
  std::string Type() const override {
    return "NaturalGradientAffineComponent";
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new NaturalGradientAffineComponent(*this);
  }
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_in_.Freeze(freeze);
    preconditioner_out_.Freeze(freeze);
  }

  int32 RankIn() const { return rank_in_; }
  int32 RankOut() const { return rank_out_; }
  int32 UpdatePeriod() const { return update_period_; }
  BaseFloat NumSamplesHistory() const { return num_samples_history_; }
  BaseFloat Alpha() const { return alpha_; }
  const OnlineNaturalGradient &PreconditionerIn() const {
    return preconditioner_in_;
  }
  const OnlineNaturalGradient &PreconditionerOut() const {
    return preconditioner_out_;
  }
  // Both preconditioners become copies of these (state included), which
  // must come from a copy of this component's (nnet3/nnet/nnet-splice-tdnn.h).
  void SetPreconditioners(const OnlineNaturalGradient &in,
                          const OnlineNaturalGradient &out);

 protected:
  void Update(const std::string &debug_info,
              const CuMatrixBase<BaseFloat> &in_value,
              const CuMatrixBase<BaseFloat> &out_deriv) override;

 private:
  // Replaces both preconditioners by fresh ones with the stored options.
  void ConfigurePreconditioners();

  int32 rank_in_;
  int32 rank_out_;
  int32 update_period_;
  BaseFloat num_samples_history_;
  BaseFloat alpha_;
  OnlineNaturalGradient preconditioner_in_;   // dimension input-dim + 1
  OnlineNaturalGradient preconditioner_out_;  // dimension output-dim
};

// out += in * W^T (no bias; kPropagateAdds). Options: input-dim, output-dim,
// param-stddev (1/sqrt(input-dim)) or matrix=FILE (output-dim x input-dim);
// use-natural-gradient (true), rank-in (min(20, (input-dim+1)/2)), rank-out
// (min(80, (output-dim+1)/2)), update-period (4), num-samples-history
// (2000), alpha (4), orthonormal-constraint (0), learning-rate options.
// The update preconditions in_value and out_deriv (no column of ones: there
// is no bias) unless the component holds a gradient; use-natural-gradient is
// kept for the file format only (Kaldi's update ignores it too).
class LinearComponent : public UpdatableComponent {
 public:
  LinearComponent()
      : orthonormal_constraint_(0.0), use_natural_gradient_(true),
        rank_in_(20), rank_out_(80), update_period_(4),
        num_samples_history_(2000.0), alpha_(4.0) {
    ConfigurePreconditioners();
  }
  explicit LinearComponent(const LinearComponent &other);
  // From a given output-dim x input-dim matrix, with the settings Kaldi
  // gives a component made this way (the apply-svd edit): learning rate
  // 0.001, rank-in 40, rank-out 80 (whatever the dims), update-period 4,
  // num-samples-history 2000, alpha 4, natural gradient on, no
  // orthonormal constraint.
  explicit LinearComponent(const CuMatrixBase<BaseFloat> &params);

  int32 InputDim() const override { return params_.NumCols(); }
  int32 OutputDim() const override { return params_.NumRows(); }
  std::string Type() const override { return "LinearComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput |
           kPropagateAdds | kBackpropAdds;
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override { return new LinearComponent(*this); }

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
  void SquaredNorm(CuVectorBase<BaseFloat> *norm) const override;
  int32 NumParameters() const override { return params_.NumRows() * params_.NumCols(); }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  const CuMatrix<BaseFloat> &Params() const { return params_; }
  CuMatrix<BaseFloat> &Params() { return params_; }
  BaseFloat OrthonormalConstraint() const { return orthonormal_constraint_; }
  bool UseNaturalGradient() const { return use_natural_gradient_; }
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_in_.Freeze(freeze);
    preconditioner_out_.Freeze(freeze);
  }
  const OnlineNaturalGradient &PreconditionerIn() const {
    return preconditioner_in_;
  }
  const OnlineNaturalGradient &PreconditionerOut() const {
    return preconditioner_out_;
  }

 private:
  // Replaces both preconditioners by fresh ones with the stored options.
  void ConfigurePreconditioners();

  CuMatrix<BaseFloat> params_;
  BaseFloat orthonormal_constraint_;
  bool use_natural_gradient_;
  int32 rank_in_;
  int32 rank_out_;
  int32 update_period_;
  BaseFloat num_samples_history_;
  BaseFloat alpha_;
  OnlineNaturalGradient preconditioner_in_;   // dimension input-dim
  OnlineNaturalGradient preconditioner_out_;  // dimension output-dim
};

// out = in * W^T + b with fixed parameters. Options: matrix=FILE
// (output-dim x (input-dim+1), bias in the last column), or input-dim and
// output-dim (random parameters, for testing).
class FixedAffineComponent : public Component {
 public:
  FixedAffineComponent() {}
  // Takes the linear part and bias of an AffineComponent.
  explicit FixedAffineComponent(const AffineComponent &c);

  int32 InputDim() const override { return linear_params_.NumCols(); }
  int32 OutputDim() const override { return linear_params_.NumRows(); }
  std::string Type() const override { return "FixedAffineComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropAdds;
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override;

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

  // mat is output-dim x (input-dim + 1), bias in the last column.
  void Init(const CuMatrixBase<BaseFloat> &mat);
  const CuMatrix<BaseFloat> &LinearParams() const { return linear_params_; }
  const CuVector<BaseFloat> &BiasParams() const { return bias_params_; }

 private:
  CuMatrix<BaseFloat> linear_params_;
  CuVector<BaseFloat> bias_params_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_AFFINE_H_
