// nnet3/components/restricted-attention.h
// RestrictedAttentionComponent: multi-head self-attention over a limited
// window of frames (Kaldi's type of that name; file format, options,
// defaults, Info() and numbers as Kaldi has them).
//
// Per head h the input columns are [ key (key-dim) | value (value-dim) |
// query (key-dim + context-dim) ] and the output columns are [ weighted
// value average (value-dim) | attention weights (context-dim, only with
// output-context=true) ]; heads are appended. Output frame t attends to the
// input frames t + k * time-stride, k = -num-left-inputs ..
// num-right-inputs (context-dim = num-left-inputs + 1 + num-right-inputs);
// frames outside the "required" range may be missing and are then read as
// zero rows.
//
// It is not a simple component: ReorderIndexes() lays the step's rows out on
// a regular time grid (t slow, (n, x) fast, blank kNoTime rows where a grid
// point has no Index), padded on the input side to the full requested
// context, and PrecomputeIndexes() records that grid as a
// ConvolutionComputationIo, from which Propagate/Backprop find each output
// frame's input rows by row arithmetic (attention.h). The memo holds the
// attention weights (output rows x num-heads * context-dim).
#ifndef NNET3_NNET3_COMPONENTS_RESTRICTED_ATTENTION_H_
#define NNET3_NNET3_COMPONENTS_RESTRICTED_ATTENTION_H_

#include <string>
#include <vector>

#include "nnet3/components/component.h"
#include "nnet3/components/convolution-io.h"

namespace nnet3 {

class RestrictedAttentionComponent : public Component {
 public:
  // The precomputed data of one step: its time grid.
  class PrecomputedIndexes : public ComponentPrecomputedIndexes {
   public:
    ComponentPrecomputedIndexes *Copy() const override {
      PrecomputedIndexes *ans = new PrecomputedIndexes();
      ans->io = io;
      return ans;
    }
    void Write(std::ostream &os, bool binary) const override;
    void Read(std::istream &is, bool binary) override;
    std::string Type() const override {
      return "RestrictedAttentionComponentPrecomputedIndexes";
    }
    time_height_convolution::ConvolutionComputationIo io;
  };

  RestrictedAttentionComponent() {}
  std::string Type() const override { return "RestrictedAttentionComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  int32 InputDim() const override {
    return num_heads_ * (2 * key_dim_ + value_dim_ + context_dim_);
  }
  int32 OutputDim() const override {
    return num_heads_ * (value_dim_ + (output_context_ ? context_dim_ : 0));
  }
  int32 Properties() const override {
    return kReordersIndexes | kBackpropNeedsInput | kPropagateAdds |
           kBackpropAdds | kStoresStats | kUsesMemo;
  }
  void *Propagate(const ComponentPrecomputedIndexes *indexes,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override;
  void StoreStats(const CuMatrixBase<BaseFloat> &in_value,
                  const CuMatrixBase<BaseFloat> &out_value,
                  void *memo) override;
  void ZeroStats() override;
  void Backprop(const std::string &debug_info,
                const ComponentPrecomputedIndexes *indexes,
                const CuMatrixBase<BaseFloat> &in_value,
                const CuMatrixBase<BaseFloat> &out_value,
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,
                Component *to_update,
                CuMatrixBase<BaseFloat> *in_deriv) const override;
  void DeleteMemo(void *memo) const override;

  void GetInputIndexes(const MiscComputationInfo &misc_info,
                       const Index &output_index,
                       std::vector<Index> *desired_indexes) const override;
  bool IsComputable(const MiscComputationInfo &misc_info,
                    const Index &output_index,
                    const IndexSet &input_index_set,
                    std::vector<Index> *used_inputs) const override;
  void ReorderIndexes(std::vector<Index> *input_indexes,
                      std::vector<Index> *output_indexes) const override;
  ComponentPrecomputedIndexes *PrecomputeIndexes(
      const MiscComputationInfo &misc_info,
      const std::vector<Index> &input_indexes,
      const std::vector<Index> &output_indexes,
      bool need_backprop) const override;

  Component *Copy() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  std::string Info() const override;
  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;

  // Accessors (tests); the statistics are returned as host copies.
  int32 NumHeads() const { return num_heads_; }
  int32 KeyDim() const { return key_dim_; }
  int32 ValueDim() const { return value_dim_; }
  int32 ContextDim() const { return context_dim_; }
  int32 TimeStride() const { return time_stride_; }
  BaseFloat KeyScale() const { return key_scale_; }
  double StatsCount() const { return stats_count_; }
  Vector<double> EntropyStats() const { return entropy_stats_.Download(); }
  Matrix<double> PosteriorStats() const {
    return posterior_stats_.Download();
  }
  // The time grid ReorderIndexes/PrecomputeIndexes use for these Indexes.
  void GetComputationStructure(
      const std::vector<Index> &input_indexes,
      const std::vector<Index> &output_indexes,
      time_height_convolution::ConvolutionComputationIo *io) const;

 private:
  struct Memo {
    // Attention weights: output rows x (num_heads * context_dim), head h in
    // columns [h * context_dim, (h + 1) * context_dim).
    CuMatrix<BaseFloat> weights;
  };
  void Check() const;
  // Number of input rows before the first output frame's own frame.
  static int32 LeadingInputRows(
      const time_height_convolution::ConvolutionComputationIo &io);

  int32 num_heads_ = 1;
  int32 key_dim_ = 0;
  int32 value_dim_ = 0;
  int32 num_left_inputs_ = 0;
  int32 num_right_inputs_ = 0;
  int32 time_stride_ = 1;
  int32 context_dim_ = 1;  // num_left_inputs_ + 1 + num_right_inputs_
  int32 num_left_inputs_required_ = 0;
  int32 num_right_inputs_required_ = 0;
  bool output_context_ = true;
  BaseFloat key_scale_ = 1.0;

  // Statistics: number of output frames seen, the per-head sum of the
  // entropies of the attention weights, and the per-head, per-position sum
  // of the weights (num_heads x context_dim).
  double stats_count_ = 0.0;
  CuVector<double> entropy_stats_;
  CuMatrix<double> posterior_stats_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_RESTRICTED_ATTENTION_H_
