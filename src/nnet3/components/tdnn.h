// nnet3/components/tdnn.h
// TdnnComponent: an affine (or linear) map applied to the input spliced at a
// fixed list of time offsets,
//   out(n, t, x) = b + sum_k W_k in(n, t + time_offsets[k], x),
// where W = [W_0 W_1 ...] is output-dim x (input-dim * number of offsets)
// and b (optional, use-bias) has output-dim elements. Subsampling (output
// frames further apart than input frames) is supported.
//
// Not a simple component: at compile time ReorderIndexes() lays the step's
// rows out on the regular grid of convolution-io.h (ModifyComputationIo:
// the input in blocks of reorder_t_in = output stride / input stride frames,
// missing frames blank), and PrecomputeIndexes() records, per offset, the
// first input row matching output row 0 and the row stride (reorder_t_in)
// at which the input rows for consecutive output rows follow. Propagate and
// Backprop then work on strided views of the input, one matrix product per
// offset. PrecomputeIndexes requires Indexes already in that layout.
//
// Invariants: time_offsets_ nonempty, without repeats; the number of
// columns of linear_params_ is a multiple of their count; bias_params_ is
// empty or has one element per output. Without a bias Propagate adds to its
// output (kPropagateAdds), as in Kaldi.
//
// Training: plain SGD when the component holds a gradient or
// use-natural-gradient=false, else the spliced input (with a column of ones
// for the bias) and the output derivative are preconditioned with two
// OnlineNaturalGradient objects (update period 4) and the two returned
// scales fold into the learning rate. With a bias and an output narrower
// than the spliced input, the spliced input is never formed: the
// preconditioner and the gradient work on its row-shifted views. The
// orthonormal constraint is stored and written here and applied by
// nnet3/train/orthonormal.cc.
// Serialization and Info() match Kaldi's byte for byte.
#ifndef NNET3_NNET3_COMPONENTS_TDNN_H_
#define NNET3_NNET3_COMPONENTS_TDNN_H_

#include <string>
#include <vector>

#include "nnet3/components/component.h"
#include "nnet3/components/natural-gradient-online.h"

namespace nnet3 {

// Where each offset's input rows are: output row i uses input row
// row_offsets[k] + i * row_stride for offset k.
class TdnnComponentPrecomputedIndexes : public ComponentPrecomputedIndexes {
 public:
  int32 row_stride = 1;
  std::vector<int32> row_offsets;

  ComponentPrecomputedIndexes *Copy() const override {
    return new TdnnComponentPrecomputedIndexes(*this);
  }
  // "<TdnnComponentPrecomputedIndexes> <RowStride> s <RowOffsets> [ ... ]
  // </TdnnComponentPrecomputedIndexes>".
  void Write(std::ostream &os, bool binary) const override;
  void Read(std::istream &is, bool binary) override;
  std::string Type() const override {
    return "TdnnComponentPrecomputedIndexes";
  }
};

class TdnnComponent : public UpdatableComponent {
 public:
  TdnnComponent();
  explicit TdnnComponent(const TdnnComponent &other);

  std::string Type() const override { return "TdnnComponent"; }
  int32 InputDim() const override {
    return time_offsets_.empty()
               ? 0
               : linear_params_.NumCols() /
                     static_cast<int32>(time_offsets_.size());
  }
  int32 OutputDim() const override { return linear_params_.NumRows(); }
  int32 Properties() const override {
    return kUpdatableComponent | kReordersIndexes | kBackpropAdds |
           kBackpropNeedsInput |
           (bias_params_.Dim() == 0 ? kPropagateAdds : 0);
  }
  // Options: time-offsets (comma-separated, required, increasing),
  // input-dim, output-dim (required, > 0), use-bias (true), param-stddev
  // (1/sqrt(input-dim * num-offsets)), bias-stddev (1.0), bias-mean (0.0),
  // orthonormal-constraint (0.0), use-natural-gradient (true), rank-in
  // (min(20, (input-dim * num-offsets + 1) / 2)), rank-out
  // (min(80, (output-dim + 1) / 2)), alpha-in, alpha-out (4.0),
  // num-samples-history (2000), and the learning-rate options.
  void InitFromConfig(ConfigLine *cfl) override;
  // Becomes the affine map 'linear_params' (output-dim x (input-dim * number
  // of offsets), column blocks in the order of 'time_offsets') plus
  // 'bias_params' (may be empty: no bias) over the input spliced at
  // 'time_offsets'. Both are taken by swapping, so no parameter is copied
  // (both may be empty, to be swapped in later); the learning-rate settings
  // come from 'configs_from' (the affine), the preconditioners get the
  // config defaults for its dimensions. Used to compute an affine that
  // reads an Append of one node at several offsets without building the
  // spliced matrix (nnet3/nnet/nnet-splice-tdnn.h).
  void InitFromSplicedAffine(const std::vector<int32> &time_offsets,
                             const UpdatableComponent &configs_from,
                             bool use_natural_gradient,
                             CuMatrix<BaseFloat> *linear_params,
                             CuVector<BaseFloat> *bias_params);
  std::string Info() const override;
  Component *Copy() const override { return new TdnnComponent(*this); }

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
  // Linear parameters (row by row) then the bias, if any.
  int32 NumParameters() const override {
    return linear_params_.NumRows() * linear_params_.NumCols() +
           bias_params_.Dim();
  }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;
  void FreezeNaturalGradient(bool freeze) override;

  const std::vector<int32> &TimeOffsets() const { return time_offsets_; }
  const CuMatrix<BaseFloat> &LinearParams() const { return linear_params_; }
  CuMatrix<BaseFloat> &LinearParams() { return linear_params_; }
  const CuVector<BaseFloat> &BiasParams() const { return bias_params_; }
  CuVector<BaseFloat> &BiasParams() { return bias_params_; }
  BaseFloat OrthonormalConstraint() const { return orthonormal_constraint_; }
  void SetOrthonormalConstraint(BaseFloat c) { orthonormal_constraint_ = c; }
  bool UseNaturalGradient() const { return use_natural_gradient_; }
  // Both preconditioners become copies of these (options and state), as
  // when the parameters move here from a NaturalGradientAffineComponent
  // that is to be trained on (its input-side preconditioner has the
  // dimension of the spliced input plus one, as this one's with a bias).
  void SetPreconditioners(const OnlineNaturalGradient &in,
                          const OnlineNaturalGradient &out) {
    preconditioner_in_ = in;
    preconditioner_out_ = out;
  }
  const OnlineNaturalGradient &PreconditionerIn() const {
    return preconditioner_in_;
  }
  const OnlineNaturalGradient &PreconditionerOut() const {
    return preconditioner_out_;
  }

 private:
  // Throws if the invariants in the file comment do not hold.
  void Check() const;
  // Rank, alpha, history and update period (4) of both preconditioners,
  // starting fresh estimates.
  void SetPreconditioners(int32 rank_in, int32 rank_out, BaseFloat alpha_in,
                          BaseFloat alpha_out, BaseFloat num_samples_history);
  void UpdateSimple(const TdnnComponentPrecomputedIndexes &indexes,
                    const CuMatrixBase<BaseFloat> &in_value,
                    const CuMatrixBase<BaseFloat> &out_deriv);
  void UpdateNaturalGradient(const TdnnComponentPrecomputedIndexes &indexes,
                             const CuMatrixBase<BaseFloat> &in_value,
                             const CuMatrixBase<BaseFloat> &out_deriv);

  std::vector<int32> time_offsets_;
  CuMatrix<BaseFloat> linear_params_;
  CuVector<BaseFloat> bias_params_;  // empty if use-bias=false
  BaseFloat orthonormal_constraint_;
  bool use_natural_gradient_;
  OnlineNaturalGradient preconditioner_in_;
  OnlineNaturalGradient preconditioner_out_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_TDNN_H_
