// nnet3/components/simple.h
// The "simple" stateless component family: components without trained
// parameters that copy, rearrange, combine or rescale columns.
//   NoOpComponent              out = in; in_deriv = backprop-scale * out_deriv
//   ClipGradientComponent      out = in; clips the derivative (per-row norm or
//                              per element) and may add a self-repair term
//   PnormComponent             out_j = 2-norm of input group j (contiguous
//                              groups of input-dim/output-dim columns)
//   SumGroupComponent          out_j = sum of input group j (sizes=...)
//   SumBlockComponent          out += scale * sum of the input-dim/output-dim
//                              column blocks of the input
//   ElementwiseProductComponent out = product of the input-dim/output-dim
//                              column blocks of the input
//   PermuteComponent           out(:, c) = in(:, column-map[c])
//   FixedScaleComponent        out = in .* scales
//   FixedBiasComponent         out = in + bias
// Invariants: dimensions are positive and block sizes divide the input
// dimension; a PermuteComponent's column map is a permutation (its inverse
// is kept alongside); a SumGroupComponent's sizes are all positive.
// Write() emits Kaldi's tokens in Kaldi's order; Read() accepts the stream
// before or after the opening tag.
#ifndef NNET3_NNET3_COMPONENTS_SIMPLE_H_
#define NNET3_NNET3_COMPONENTS_SIMPLE_H_

#include <string>
#include <vector>

#include "nnet3/components/component.h"

namespace nnet3 {

// The Propagate/Backprop signatures shared by every class below.
#define NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS                                  \
  void *Propagate(const ComponentPrecomputedIndexes *indexes,                 \
                  const CuMatrixBase<BaseFloat> &in,                          \
                  CuMatrixBase<BaseFloat> *out) const override;               \
  void Backprop(const std::string &debug_info,                                \
                const ComponentPrecomputedIndexes *indexes,                   \
                const CuMatrixBase<BaseFloat> &in_value,                      \
                const CuMatrixBase<BaseFloat> &out_value,                     \
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,         \
                Component *to_update,                                         \
                CuMatrixBase<BaseFloat> *in_deriv) const override;            \
  void Read(std::istream &is, bool binary) override;                          \
  void Write(std::ostream &os, bool binary) const override;

// Options: dim (required), backprop-scale (1.0).
class NoOpComponent : public Component {
 public:
  NoOpComponent() : dim_(0), backprop_scale_(1.0) {}
  NoOpComponent(const NoOpComponent &other)
      : Component(), dim_(other.dim_), backprop_scale_(other.backprop_scale_) {}
  std::string Type() const override { return "NoOpComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kPropagateInPlace | kBackpropInPlace;
  }
  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  Component *Copy() const override { return new NoOpComponent(*this); }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

 private:
  int32 dim_;
  BaseFloat backprop_scale_;
};

// Options: dim (required), clipping-threshold (15.0), norm-based-clipping
// (false), self-repair-clipped-proportion-threshold (0.01),
// self-repair-target (0.0), self-repair-scale (1.0). A clipping-threshold
// of 0 zeroes the derivative; a negative one disables clipping.
class ClipGradientComponent : public Component {
 public:
  ClipGradientComponent()
      : dim_(0), clipping_threshold_(-1), norm_based_clipping_(false),
        self_repair_clipped_proportion_threshold_(1.0),
        self_repair_target_(0.0), self_repair_scale_(0.0), num_clipped_(0),
        count_(0), num_self_repaired_(0), num_backpropped_(0) {}
  ClipGradientComponent(const ClipGradientComponent &other);
  std::string Type() const override { return "ClipGradientComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kPropagateInPlace | kBackpropInPlace |
           kBackpropNeedsInput;
  }
  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  Component *Copy() const override { return new ClipGradientComponent(*this); }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  void ZeroStats() override;
  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

  int32 NumClipped() const { return num_clipped_; }
  int32 Count() const { return count_; }
  int32 NumSelfRepaired() const { return num_self_repaired_; }
  int32 NumBackpropped() const { return num_backpropped_; }

 private:
  void RepairGradients(const std::string &debug_info,
                       const CuMatrixBase<BaseFloat> &in_value,
                       CuMatrixBase<BaseFloat> *in_deriv,
                       ClipGradientComponent *to_update) const;

  int32 dim_;
  BaseFloat clipping_threshold_;
  bool norm_based_clipping_;
  BaseFloat self_repair_clipped_proportion_threshold_;
  BaseFloat self_repair_target_;
  BaseFloat self_repair_scale_;
  int32 num_clipped_;       // rows clipped (norm-based clipping)
  int32 count_;             // rows processed (norm-based clipping)
  int32 num_self_repaired_;
  int32 num_backpropped_;
  std::string debug_info_;  // node name, for the self-repair log line
};

// Options: input-dim, output-dim (required; output-dim divides input-dim).
// Kaldi's nnet3 version supports only p = 2.
class PnormComponent : public Component {
 public:
  PnormComponent() : input_dim_(0), output_dim_(0) {}
  PnormComponent(const PnormComponent &other)
      : Component(), input_dim_(other.input_dim_),
        output_dim_(other.output_dim_) {}
  std::string Type() const override { return "PnormComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropNeedsInput | kBackpropNeedsOutput;
  }
  int32 InputDim() const override { return input_dim_; }
  int32 OutputDim() const override { return output_dim_; }
  Component *Copy() const override { return new PnormComponent(*this); }
  void InitFromConfig(ConfigLine *cfl) override;
  void Init(int32 input_dim, int32 output_dim);
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

 private:
  int32 input_dim_;
  int32 output_dim_;
};

// Options: sizes=a,b,c (group sizes), or input-dim and output-dim (equal
// groups).
class SumGroupComponent : public Component {
 public:
  SumGroupComponent() : input_dim_(0), output_dim_(0) {}
  SumGroupComponent(const SumGroupComponent &other)
      : Component(), indexes_(other.indexes_),
        reverse_indexes_(other.reverse_indexes_),
        input_dim_(other.input_dim_), output_dim_(other.output_dim_) {}
  std::string Type() const override { return "SumGroupComponent"; }
  int32 Properties() const override { return kSimpleComponent; }
  int32 InputDim() const override { return input_dim_; }
  int32 OutputDim() const override { return output_dim_; }
  Component *Copy() const override { return new SumGroupComponent(*this); }
  void InitFromConfig(ConfigLine *cfl) override;
  void Init(const std::vector<int32> &sizes);
  void Init(int32 input_dim, int32 output_dim);
  void GetSizes(std::vector<int32> *sizes) const;
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

 private:
  CuArray<Int32Pair> indexes_;     // per output: [first, second) input range
  CuArray<int32> reverse_indexes_; // per input: its output
  int32 input_dim_;
  int32 output_dim_;
};

// Options: input-dim, output-dim (required; output-dim divides input-dim),
// scale (1.0).
class SumBlockComponent : public Component {
 public:
  SumBlockComponent() : input_dim_(0), output_dim_(0), scale_(1.0) {}
  SumBlockComponent(const SumBlockComponent &other)
      : Component(), input_dim_(other.input_dim_),
        output_dim_(other.output_dim_), scale_(other.scale_) {}
  std::string Type() const override { return "SumBlockComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kPropagateAdds | kBackpropAdds;
  }
  int32 InputDim() const override { return input_dim_; }
  int32 OutputDim() const override { return output_dim_; }
  Component *Copy() const override { return new SumBlockComponent(*this); }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

 private:
  int32 input_dim_;
  int32 output_dim_;
  BaseFloat scale_;
};

// Options: input-dim, output-dim (required; output-dim divides input-dim
// and is smaller than it).
class ElementwiseProductComponent : public Component {
 public:
  ElementwiseProductComponent() : input_dim_(0), output_dim_(0) {}
  ElementwiseProductComponent(const ElementwiseProductComponent &other)
      : Component(), input_dim_(other.input_dim_),
        output_dim_(other.output_dim_) {}
  std::string Type() const override { return "ElementwiseProductComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropNeedsInput;
  }
  int32 InputDim() const override { return input_dim_; }
  int32 OutputDim() const override { return output_dim_; }
  Component *Copy() const override {
    return new ElementwiseProductComponent(*this);
  }
  void InitFromConfig(ConfigLine *cfl) override;
  void Init(int32 input_dim, int32 output_dim);
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

 private:
  int32 input_dim_;
  int32 output_dim_;
};

// Options: column-map=i0,i1,... (required; a permutation of 0..dim-1).
class PermuteComponent : public Component {
 public:
  PermuteComponent() {}
  PermuteComponent(const PermuteComponent &other)
      : Component(), column_map_(other.column_map_),
        reverse_column_map_(other.reverse_column_map_) {}
  std::string Type() const override { return "PermuteComponent"; }
  int32 Properties() const override { return kSimpleComponent; }
  int32 InputDim() const override {
    return column_map_.Dim();
  }
  int32 OutputDim() const override { return InputDim(); }
  Component *Copy() const override { return new PermuteComponent(*this); }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  void Init(const std::vector<int32> &column_map);
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

 private:
  CuArray<int32> column_map_;
  CuArray<int32> reverse_column_map_;
};

// Options: scales=FILE (a Kaldi vector), or dim (required then) with scale
// (all elements equal) or, without scale, Gaussian random scales.
class FixedScaleComponent : public Component {
 public:
  FixedScaleComponent() {}
  FixedScaleComponent(const FixedScaleComponent &other)
      : Component(), scales_(other.scales_) {}
  std::string Type() const override { return "FixedScaleComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kPropagateInPlace | kBackpropInPlace;
  }
  int32 InputDim() const override { return scales_.Dim(); }
  int32 OutputDim() const override { return scales_.Dim(); }
  Component *Copy() const override { return new FixedScaleComponent(*this); }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  void Init(const CuVectorBase<BaseFloat> &scales);
  const CuVector<BaseFloat> &Scales() const { return scales_; }
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

 private:
  CuVector<BaseFloat> scales_;
};

// Options: bias=FILE (a Kaldi vector), or dim (Gaussian random bias).
class FixedBiasComponent : public Component {
 public:
  FixedBiasComponent() {}
  FixedBiasComponent(const FixedBiasComponent &other)
      : Component(), bias_(other.bias_) {}
  std::string Type() const override { return "FixedBiasComponent"; }
  int32 Properties() const override {
    return kSimpleComponent | kPropagateInPlace | kBackpropInPlace;
  }
  int32 InputDim() const override { return bias_.Dim(); }
  int32 OutputDim() const override { return bias_.Dim(); }
  Component *Copy() const override { return new FixedBiasComponent(*this); }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  void Init(const CuVectorBase<BaseFloat> &bias);
  const CuVector<BaseFloat> &Bias() const { return bias_; }
  NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

 private:
  CuVector<BaseFloat> bias_;
};

#undef NNET3_SIMPLE_COMPONENT_COMPUTE_DECLS

void RegisterSimpleComponents(ComponentRegistry *registry);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_SIMPLE_H_
