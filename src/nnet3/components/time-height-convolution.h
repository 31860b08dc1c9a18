// nnet3/components/time-height-convolution.h
// TimeHeightConvolutionComponent: 2-D convolution over time (the row axis:
// Index t) and height (within each frame's vector, height x filters with the
// filter index varying fastest), with a bias per output filter. The kernel
// geometry is a ConvolutionModel (convolution-model.h); the per-step
// execution plan is a ConvolutionComputation (convolution-compute.h) held in
// the component's precomputed indexes.
//
// It is not a simple component: the compiler calls ReorderIndexes() to get
// the regular (t, image) grid the plan needs (with blank rows, t ==
// kNoTime, where the grid has no real Index), then PrecomputeIndexes() on
// those same Indexes; Propagate/Backprop need that object.
//
// Invariants: linear_params_ is model_.ParamRows() x model_.ParamCols()
// (num_filters_out x (offsets * num_filters_in), offset index slower);
// bias_params_ has num_filters_out elements; model_ passes Check(false,
// true); all_time_offsets_/time_offset_required_ mirror the model's sets.
// Vectorize() order: the filter matrix row by row, then the bias.
//
// Updates: plain SGD when the component holds a gradient or
// use-natural-gradient is false; otherwise the parameter derivative
// [filters | bias] (num_filters_out rows) is preconditioned on its rows by
// preconditioner_in_ and, transposed, by preconditioner_out_, both
// forgetting per minibatch (num-minibatches-history). The preconditioner
// state is never written.
#ifndef NNET3_NNET3_COMPONENTS_TIME_HEIGHT_CONVOLUTION_H_
#define NNET3_NNET3_COMPONENTS_TIME_HEIGHT_CONVOLUTION_H_

#include <string>
#include <vector>

#include "nnet3/components/component.h"
#include "nnet3/components/convolution-compute.h"
#include "nnet3/components/convolution-model.h"
#include "nnet3/components/natural-gradient-online.h"

namespace nnet3 {

class TimeHeightConvolutionComponent : public UpdatableComponent {
 public:
  // The plan for one step; Kaldi's type string
  // "TimeHeightConvolutionComponentPrecomputedIndexes".
  class PrecomputedIndexes : public ComponentPrecomputedIndexes {
   public:
    ComponentPrecomputedIndexes *Copy() const override {
      return new PrecomputedIndexes(*this);
    }
    void Write(std::ostream &os, bool binary) const override;
    void Read(std::istream &is, bool binary) override;
    std::string Type() const override {
      return "TimeHeightConvolutionComponentPrecomputedIndexes";
    }
    time_height_convolution::ConvolutionComputation computation;
  };

  TimeHeightConvolutionComponent();
  explicit TimeHeightConvolutionComponent(
      const TimeHeightConvolutionComponent &other);

  std::string Type() const override {
    return "TimeHeightConvolutionComponent";
  }
  int32 InputDim() const override { return model_.InputDim(); }
  int32 OutputDim() const override { return model_.OutputDim(); }
  int32 Properties() const override {
    return kUpdatableComponent | kReordersIndexes | kBackpropAdds |
           kBackpropNeedsInput | kInputContiguous | kOutputContiguous;
  }
  // Options: the filter counts and heights (num-filters-in/-out,
  // height-in/-out; required); either offsets=t1,h1;t2,h2;... or both height-offsets and
  // time-offsets (comma lists, sorted, unique; all pairs are used);
  // height-subsample-out (1); required-time-offsets (default: all time
  // offsets); max-memory-mb (200); param-stddev (1/sqrt(num-filters-in *
  // num-offsets)); bias-stddev (0); init-unit (false); use-natural-gradient
  // (true); rank-in (min(80, (param-cols + 2) / 2)); rank-out (min(80,
  // (num-filters-out + 1) / 2)); alpha-in, alpha-out (4);
  // num-minibatches-history (4); and the learning-rate options.
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override {
    return new TimeHeightConvolutionComponent(*this);
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

  // Input frames t + each time offset; those at required offsets must be
  // present for IsComputable.
  void GetInputIndexes(const MiscComputationInfo &misc_info,
                       const Index &output_index,
                       std::vector<Index> *desired_indexes) const override;
  bool IsComputable(const MiscComputationInfo &misc_info,
                    const Index &output_index,
                    const IndexSet &input_index_set,
                    std::vector<Index> *used_inputs) const override;
  void ReorderIndexes(std::vector<Index> *input_indexes,
                      std::vector<Index> *output_indexes) const override;
  // The Indexes must be in the order ReorderIndexes() gives (a UserError
  // otherwise).
  ComponentPrecomputedIndexes *PrecomputeIndexes(
      const MiscComputationInfo &misc_info,
      const std::vector<Index> &input_indexes,
      const std::vector<Index> &output_indexes,
      bool need_backprop) const override;

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
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_in_.Freeze(freeze);
    preconditioner_out_.Freeze(freeze);
  }

  const time_height_convolution::ConvolutionModel &Model() const {
    return model_;
  }
  const CuMatrix<BaseFloat> &LinearParams() const { return linear_params_; }
  CuMatrix<BaseFloat> &LinearParams() { return linear_params_; }
  const CuVector<BaseFloat> &BiasParams() const { return bias_params_; }
  CuVector<BaseFloat> &BiasParams() { return bias_params_; }
  BaseFloat MaxMemoryMb() const { return max_memory_mb_; }
  bool UseNaturalGradient() const { return use_natural_gradient_; }
  const OnlineNaturalGradient &PreconditionerIn() const {
    return preconditioner_in_;
  }
  const OnlineNaturalGradient &PreconditionerOut() const {
    return preconditioner_out_;
  }

 private:
  // Sets all_time_offsets_ and time_offset_required_ from model_.
  void ComputeDerived();
  // Puts the identity in the filter block of offset (0, 0).
  void InitUnit();
  // The plan for these Indexes with this component's memory limit.
  void Compile(const std::vector<Index> &input_indexes,
               const std::vector<Index> &output_indexes,
               time_height_convolution::ConvolutionComputation *computation,
               std::vector<Index> *input_modified,
               std::vector<Index> *output_modified) const;
  void UpdateSimple(const PrecomputedIndexes &indexes,
                    const CuMatrixBase<BaseFloat> &in_value,
                    const CuMatrixBase<BaseFloat> &out_deriv);
  void UpdateNaturalGradient(const PrecomputedIndexes &indexes,
                             const CuMatrixBase<BaseFloat> &in_value,
                             const CuMatrixBase<BaseFloat> &out_deriv);
  // Sum over frames and heights of the output derivative, per filter.
  void BiasDeriv(const CuMatrixBase<BaseFloat> &out_deriv, BaseFloat alpha,
                 CuVectorBase<BaseFloat> *bias_deriv) const;

  time_height_convolution::ConvolutionModel model_;
  std::vector<int32> all_time_offsets_;     // sorted
  std::vector<bool> time_offset_required_;  // parallel to all_time_offsets_
  CuMatrix<BaseFloat> linear_params_;
  CuVector<BaseFloat> bias_params_;
  BaseFloat max_memory_mb_;
  bool use_natural_gradient_;
  OnlineNaturalGradient preconditioner_in_;
  OnlineNaturalGradient preconditioner_out_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_TIME_HEIGHT_CONVOLUTION_H_
