// nnet3/components/repeated-affine.h
// Affine transforms with a block-diagonal weight matrix:
//  - BlockAffineComponent: num-blocks independent blocks, each with its own
//    weights and bias. Input block b (columns b*in_block .. ) feeds output
//    block b (columns b*out_block .. ).
//  - RepeatedAffineComponent: one small affine transform (weights and bias)
//    applied to each of num-repeats consecutive pieces of the input, i.e. a
//    block-diagonal matrix whose blocks are all the same.
//  - NaturalGradientRepeatedAffineComponent: RepeatedAffineComponent whose
//    update is preconditioned (on the input side only, in the space of the
//    per-minibatch parameter gradient) with online natural gradient.
//
// Invariants: BlockAffine's linear_params_ is output-dim x
// (input-dim / num-blocks), its rows grouped by block; bias_params_ has
// output-dim elements. RepeatedAffine's linear_params_ is
// (output-dim / num-repeats) x (input-dim / num-repeats) and bias_params_
// has output-dim / num-repeats elements. Vectorize() gives the rows of the
// linear parameters followed by the bias. Write() emits Kaldi's tokens in
// Kaldi's order; the natural-gradient state is never written (a component
// read from disk starts a fresh estimate).
#ifndef NNET3_NNET3_COMPONENTS_REPEATED_AFFINE_H_
#define NNET3_NNET3_COMPONENTS_REPEATED_AFFINE_H_

#include <string>

#include "nnet3/components/component.h"
#include "nnet3/components/natural-gradient-online.h"

namespace nnet3 {

// Options: input-dim, output-dim, num-blocks (all required; num-blocks must
// divide both dims), param-stddev (1/sqrt(input-dim/num-blocks)),
// bias-stddev (1.0), bias-mean (0.0), learning-rate options.
class BlockAffineComponent : public UpdatableComponent {
 public:
  BlockAffineComponent() : num_blocks_(1) {}
  explicit BlockAffineComponent(const BlockAffineComponent &other);

  int32 InputDim() const override {
    return linear_params_.NumCols() * num_blocks_;
  }
  int32 OutputDim() const override { return linear_params_.NumRows(); }
  std::string Type() const override { return "BlockAffineComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput |
           kBackpropAdds;
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override { return new BlockAffineComponent(*this); }

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
  int32 NumParameters() const override {
    return linear_params_.NumRows() * linear_params_.NumCols() +
           bias_params_.Dim();
  }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  int32 NumBlocks() const { return num_blocks_; }
  const CuMatrix<BaseFloat> &LinearParams() const { return linear_params_; }
  const CuVector<BaseFloat> &BiasParams() const { return bias_params_; }

 private:
  CuMatrix<BaseFloat> linear_params_;
  CuVector<BaseFloat> bias_params_;
  int32 num_blocks_;
};

// Options: input-dim, output-dim, num-repeats (all required; num-repeats
// must divide both dims), param-stddev (1/sqrt(input-dim/num-repeats)),
// bias-stddev (0.0), bias-mean (0.0), learning-rate options. The plain
// version always does an SGD update.
class RepeatedAffineComponent : public UpdatableComponent {
 public:
  RepeatedAffineComponent() : num_repeats_(1) {}
  explicit RepeatedAffineComponent(const RepeatedAffineComponent &other);

  int32 InputDim() const override {
    return linear_params_.NumCols() * num_repeats_;
  }
  int32 OutputDim() const override {
    return linear_params_.NumRows() * num_repeats_;
  }
  std::string Type() const override { return "RepeatedAffineComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput |
           kBackpropAdds | kInputContiguous | kOutputContiguous;
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new RepeatedAffineComponent(*this);
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
  int32 NumParameters() const override {
    return linear_params_.NumRows() * linear_params_.NumCols() +
           bias_params_.Dim();
  }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  int32 NumRepeats() const { return num_repeats_; }
  const CuMatrix<BaseFloat> &LinearParams() const { return linear_params_; }
  const CuVector<BaseFloat> &BiasParams() const { return bias_params_; }

 protected:
  // Applies the gradient of this minibatch (Backprop calls it on the
  // component to update).
  virtual void Update(const CuMatrixBase<BaseFloat> &in_value,
                      const CuMatrixBase<BaseFloat> &out_deriv);
  // The gradient of the objective w.r.t. [linear_params_, bias_params_]:
  // block-out-dim x (block-in-dim + 1), the bias derivative in the last
  // column.
  void ComputeGradient(const CuMatrixBase<BaseFloat> &in_value,
                       const CuMatrixBase<BaseFloat> &out_deriv,
                       CuMatrix<BaseFloat> *gradient) const;
  // Called after the parameters change shape (config, Read): the
  // natural-gradient subclass resets its preconditioner here.
  virtual void ResetNaturalGradient() {}

  CuMatrix<BaseFloat> linear_params_;
  CuVector<BaseFloat> bias_params_;
  int32 num_repeats_;
};

// The preconditioner has rank min(40, block-in-dim / 2) (at least 1) and
// update period 4, Kaldi's fixed choice; it is not configurable.
class NaturalGradientRepeatedAffineComponent : public RepeatedAffineComponent {
 public:
  NaturalGradientRepeatedAffineComponent() {}
  explicit NaturalGradientRepeatedAffineComponent(
      const NaturalGradientRepeatedAffineComponent &other)
      : RepeatedAffineComponent(other),
        preconditioner_(other.preconditioner_) {}
  std::string Type() const override {
    return "NaturalGradientRepeatedAffineComponent";
  }
  Component *Copy() const override {
    return new NaturalGradientRepeatedAffineComponent(*this);
  }
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_.Freeze(freeze);
  }
  const OnlineNaturalGradient &Preconditioner() const {
    return preconditioner_;
  }

 protected:
  void Update(const CuMatrixBase<BaseFloat> &in_value,
              const CuMatrixBase<BaseFloat> &out_deriv) override;
  void ResetNaturalGradient() override;

 private:
  OnlineNaturalGradient preconditioner_;  // dimension block-in-dim + 1
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_REPEATED_AFFINE_H_
