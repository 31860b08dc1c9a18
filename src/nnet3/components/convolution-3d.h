// nnet3/components/convolution-3d.h
// Kaldi's older (deprecated there, kept for its models) convolution over
// rows that each hold a whole 3-D tensor, typically time frames along x,
// frequency bins along y and feature channels along z, and the matching
// 3-D max pooling.
//
// ConvolutionComponent: each filter spans filt-x-dim x filt-y-dim x all of
// z and hops over x and y with steps filt-x-step and filt-y-step. The input
// row is vectorized "zyx" (z fastest: col = (x*Y + y)*Z + z) or "yzx"
// (y fastest: col = (x*Z + z)*Y + y); a filter row is always zyx over its
// own extent. Output column (sx * num-y-steps + sy) * num-filters + f holds
// filter f at step (sx, sy). Output is added to (kPropagateAdds).
// MaxpoolingComponent: input is zyx; pools of pool-{x,y,z}-size taken every
// pool-{x,y,z}-step; output column (px * num-pools-y + py) * num-pools-z + pz.
// Backprop sends each output derivative to every input of the pool equal to
// the maximum (ties all receive it), adding to in_deriv.
//
// Invariants (checked at config/read time): all dims and steps positive,
// filter/pool no larger than the input, (input - size) divisible by step;
// for max pooling also step <= size (Kaldi's rule). Write() emits Kaldi's
// tokens in Kaldi's order.
#ifndef NNET3_NNET3_COMPONENTS_CONVOLUTION_3D_H_
#define NNET3_NNET3_COMPONENTS_CONVOLUTION_3D_H_

#include <string>
#include <vector>

#include "nnet3/components/component.h"

namespace nnet3 {

// Options: input-x-dim, input-y-dim, input-z-dim, filt-x-dim, filt-y-dim,
// filt-x-step, filt-y-step (all required), input-vectorization-order (zyx
// or yzx; default zyx), and either matrix=FILE (num-filters x
// (filter-dim + 1), bias last) or num-filters with param-stddev
// (1/sqrt(filter-dim)) and bias-stddev (1.0); learning-rate options.
// filter-dim = filt-x-dim * filt-y-dim * input-z-dim.
class ConvolutionComponent : public UpdatableComponent {
 public:
  // Kaldi's numbering (written to files as an integer).
  enum Vectorization { kYzx = 0, kZyx = 1 };

  ConvolutionComponent()
      : input_x_dim_(0), input_y_dim_(0), input_z_dim_(0), filt_x_dim_(0),
        filt_y_dim_(0), filt_x_step_(1), filt_y_step_(1),
        vectorization_(kZyx) {}
  explicit ConvolutionComponent(const ConvolutionComponent &other);

  int32 InputDim() const override {
    return input_x_dim_ * input_y_dim_ * input_z_dim_;
  }
  int32 OutputDim() const override {
    return NumXSteps() * NumYSteps() * filter_params_.NumRows();
  }
  std::string Type() const override { return "ConvolutionComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kUpdatableComponent | kBackpropNeedsInput |
           kBackpropAdds | kPropagateAdds;
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override { return new ConvolutionComponent(*this); }

  void *Propagate(const ComponentPrecomputedIndexes *indexes,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override;
  // Plain SGD update of the component to update (as Kaldi).
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
    return (filter_params_.NumCols() + 1) * filter_params_.NumRows();
  }
  // Rows of the filter matrix, then the bias.
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;

  int32 NumXSteps() const {
    return filt_x_step_ > 0 ? 1 + (input_x_dim_ - filt_x_dim_) / filt_x_step_
                            : 0;
  }
  int32 NumYSteps() const {
    return filt_y_step_ > 0 ? 1 + (input_y_dim_ - filt_y_dim_) / filt_y_step_
                            : 0;
  }
  int32 FilterDim() const { return filter_params_.NumCols(); }
  const CuMatrix<BaseFloat> &FilterParams() const { return filter_params_; }
  const CuVector<BaseFloat> &BiasParams() const { return bias_params_; }
  Vectorization InputVectorization() const { return vectorization_; }
  // The input column of tensor element (x, y, z).
  int32 InputColumn(int32 x, int32 y, int32 z) const;

 private:
  // Checks the geometry fields (UserError naming the bad option).
  void CheckGeometry() const;
  // For step (sx, sy): the input column of each filter element, in the
  // filter's zyx order.
  std::vector<int32> PatchColumns(int32 sx, int32 sy) const;

  int32 input_x_dim_, input_y_dim_, input_z_dim_;
  int32 filt_x_dim_, filt_y_dim_;
  int32 filt_x_step_, filt_y_step_;
  Vectorization vectorization_;
  CuMatrix<BaseFloat> filter_params_;  // num-filters x filter-dim
  CuVector<BaseFloat> bias_params_;    // num-filters
};

// Options: input-x-dim, input-y-dim, input-z-dim, pool-x-size, pool-y-size,
// pool-z-size, pool-x-step, pool-y-step, pool-z-step (all required).
class MaxpoolingComponent : public Component {
 public:
  MaxpoolingComponent()
      : input_x_dim_(0), input_y_dim_(0), input_z_dim_(0), pool_x_size_(0),
        pool_y_size_(0), pool_z_size_(0), pool_x_step_(1), pool_y_step_(1),
        pool_z_step_(1) {}

  int32 InputDim() const override {
    return input_x_dim_ * input_y_dim_ * input_z_dim_;
  }
  int32 OutputDim() const override {
    return NumPools(input_x_dim_, pool_x_size_, pool_x_step_) *
           NumPools(input_y_dim_, pool_y_size_, pool_y_step_) *
           NumPools(input_z_dim_, pool_z_size_, pool_z_step_);
  }
  std::string Type() const override { return "MaxpoolingComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropNeedsInput | kBackpropNeedsOutput |
           kBackpropAdds;
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

 private:
  static int32 NumPools(int32 input, int32 size, int32 step) {
    return step > 0 ? 1 + (input - size) / step : 0;
  }
  void CheckGeometry() const;
  // For the pool element at offset (dx, dy, dz): the input column it reads
  // for each output column.
  std::vector<int32> OffsetColumns(int32 dx, int32 dy, int32 dz) const;

  int32 input_x_dim_, input_y_dim_, input_z_dim_;
  int32 pool_x_size_, pool_y_size_, pool_z_size_;
  int32 pool_x_step_, pool_y_step_, pool_z_step_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_CONVOLUTION_3D_H_
