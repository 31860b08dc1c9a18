// nnet3/components/structural.h
// Components that change how rows and Indexes relate, or that wrap other
// components:
//  - DistributeComponent: splits each input row into input-dim/output-dim
//    blocks and sends block b of the row at x to the output row at
//    x * num-blocks + b (so x is divided, rounding down, on the way back).
//    Not simple; its per-step row mapping lives in
//    DistributeComponentPrecomputedIndexes (Kaldi's format: <Pairs>).
//  - ConstantComponent: outputs a (trainable) vector on every requested row
//    and needs no input at all.
//  - CompositeComponent: a chain of simple components run as one, processing
//    at most max-rows-process rows at a time; Backprop recomputes the
//    intermediate values instead of keeping them.
//
// Invariants: DistributeComponent's input-dim is a positive multiple of its
// output-dim. ConstantComponent's InputDim() equals its OutputDim() (the
// input is never read). A CompositeComponent holds at least one member, all
// simple, none random, none composite, with matching dims between
// neighbours; it owns them. Write() emits Kaldi's tokens in Kaldi's order
// (for CompositeComponent: the members written in full, in order).
#ifndef NNET3_NNET3_COMPONENTS_STRUCTURAL_H_
#define NNET3_NNET3_COMPONENTS_STRUCTURAL_H_

#include <string>
#include <utility>
#include <vector>

#include "nnet3/components/component.h"
#include "nnet3/components/natural-gradient-online.h"

namespace nnet3 {

// For output row i of one step: pairs[i] = (input row, first input column)
// of the block that row copies.
class DistributeComponentPrecomputedIndexes
    : public ComponentPrecomputedIndexes {
 public:
  std::vector<std::pair<int32, int32> > pairs;

  ComponentPrecomputedIndexes *Copy() const override {
    return new DistributeComponentPrecomputedIndexes(*this);
  }
  void Write(std::ostream &os, bool binary) const override;
  void Read(std::istream &is, bool binary) override;
  std::string Type() const override {
    return "DistributeComponentPrecomputedIndexes";
  }
};

// Options: input-dim, output-dim (both required; output-dim must divide
// input-dim).
class DistributeComponent : public Component {
 public:
  DistributeComponent() : input_dim_(0), output_dim_(0) {}
  DistributeComponent(int32 input_dim, int32 output_dim);

  int32 InputDim() const override { return input_dim_; }
  int32 OutputDim() const override { return output_dim_; }
  std::string Type() const override { return "DistributeComponent"; }
  int32 Properties() const override { return 0; }
  void InitFromConfig(ConfigLine *cfl) override;
  Component *Copy() const override {
    return new DistributeComponent(input_dim_, output_dim_);
  }

  void *Propagate(const ComponentPrecomputedIndexes *indexes,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override;
  // Overwrites in_deriv (zeroing it first when some input values feed no
  // output row).
  void Backprop(const std::string &debug_info,
                const ComponentPrecomputedIndexes *indexes,
                const CuMatrixBase<BaseFloat> &in_value,
                const CuMatrixBase<BaseFloat> &out_value,
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,
                Component *to_update,
                CuMatrixBase<BaseFloat> *in_deriv) const override;

  void GetInputIndexes(const MiscComputationInfo &misc_info,
                       const Index &output_index,
                       std::vector<Index> *desired_indexes) const override;
  bool IsComputable(const MiscComputationInfo &misc_info,
                    const Index &output_index, const IndexSet &input_index_set,
                    std::vector<Index> *used_inputs) const override;
  ComponentPrecomputedIndexes *PrecomputeIndexes(
      const MiscComputationInfo &misc_info,
      const std::vector<Index> &input_indexes,
      const std::vector<Index> &output_indexes,
      bool need_backprop) const override;

  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;

  int32 NumBlocks() const { return input_dim_ / output_dim_; }
  // The input Index an output Index reads, and which block of that row.
  void InputFor(const Index &output_index, Index *input_index,
                int32 *block) const;

 private:
  int32 input_dim_;
  int32 output_dim_;
};

// Options: output-dim (required), is-updatable (true), use-natural-gradient
// (true), output-mean (0), output-stddev (0), learning-rate options.
// The natural-gradient preconditioner has OnlineNaturalGradient's default
// configuration (Kaldi does not configure it) and is applied to the rows of
// the output derivative.
class ConstantComponent : public UpdatableComponent {
 public:
  ConstantComponent() : is_updatable_(true), use_natural_gradient_(true) {}
  explicit ConstantComponent(const ConstantComponent &other);

  int32 InputDim() const override { return output_.Dim(); }
  int32 OutputDim() const override { return output_.Dim(); }
  std::string Type() const override { return "ConstantComponent"; }
  int32 Properties() const override {
    return is_updatable_ ? kUpdatableComponent : 0;
  }
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override { return new ConstantComponent(*this); }

  void *Propagate(const ComponentPrecomputedIndexes *indexes,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override;
  // Sets in_deriv (if given) to zero: the output does not depend on the
  // input.
  void Backprop(const std::string &debug_info,
                const ComponentPrecomputedIndexes *indexes,
                const CuMatrixBase<BaseFloat> &in_value,
                const CuMatrixBase<BaseFloat> &out_value,
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,
                Component *to_update,
                CuMatrixBase<BaseFloat> *in_deriv) const override;

  // No inputs are needed; every output Index is computable.
  void GetInputIndexes(const MiscComputationInfo &misc_info,
                       const Index &output_index,
                       std::vector<Index> *desired_indexes) const override;
  bool IsComputable(const MiscComputationInfo &misc_info,
                    const Index &output_index, const IndexSet &input_index_set,
                    std::vector<Index> *used_inputs) const override;

  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;

  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  int32 NumParameters() const override { return output_.Dim(); }
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;
  void FreezeNaturalGradient(bool freeze) override {
    preconditioner_.Freeze(freeze);
  }

  const CuVector<BaseFloat> &Output() const { return output_; }
  bool IsUpdatable() const { return is_updatable_; }
  bool UseNaturalGradient() const { return use_natural_gradient_; }

 private:
  CuVector<BaseFloat> output_;
  bool is_updatable_;
  bool use_natural_gradient_;
  OnlineNaturalGradient preconditioner_;
};

// Options: num-components (required, >= 1), max-rows-process (4096; 0 or
// less means no limit), component1='type=... ...' .. componentN=....
// The composite's own learning-rate fields are written and read (Kaldi's
// format) but configured only through the members' lines.
class CompositeComponent : public UpdatableComponent {
 public:
  CompositeComponent() : max_rows_process_(4096) {}
  explicit CompositeComponent(const CompositeComponent &other);
  ~CompositeComponent() override;

  int32 InputDim() const override;
  int32 OutputDim() const override;
  std::string Type() const override { return "CompositeComponent"; }
  // Simple; needs its input (to recompute the members' values); takes
  // kPropagateAdds, kBackpropNeedsOutput and kOutputContiguous from the last
  // member and kBackpropAdds and kInputContiguous from the first; updatable
  // if any member is; never kStoresStats (members' stats are stored during
  // Backprop, which is why a last member with stats makes it need the
  // output).
  int32 Properties() const override;
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override { return new CompositeComponent(*this); }

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
  void ZeroStats() override;

  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;

  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;
  void PerturbParams(BaseFloat stddev) override;
  BaseFloat DotProduct(const UpdatableComponent &other) const override;
  // The updatable members' parameters, concatenated in member order.
  int32 NumParameters() const override;
  void Vectorize(VectorBase<BaseFloat> *params) const override;
  void UnVectorize(const VectorBase<BaseFloat> &params) override;
  // These apply to every updatable member as well (the underlying rate is
  // passed on multiplied by this component's learning-rate-factor).
  void SetUnderlyingLearningRate(BaseFloat lrate) override;
  void SetActualLearningRate(BaseFloat lrate) override;
  void SetAsGradient() override;
  void FreezeNaturalGradient(bool freeze) override;

  // Takes ownership; checks the rules above (UserError if broken).
  void Init(const std::vector<Component *> &components,
            int32 max_rows_process);
  int32 NumComponents() const { return components_.size(); }
  const Component *GetComponent(int32 i) const { return components_.at(i); }
  // Replaces member i (takes ownership, frees the old one).
  void SetComponent(int32 i, Component *component);
  int32 MaxRowsProcess() const { return max_rows_process_; }

 private:
  bool AnyUpdatable() const;
  // Checks the member rules; names the offending member.
  void CheckMembers(const std::vector<Component *> &components) const;
  // Runs the members on at most max_rows_process_ rows.
  void PropagateChunk(const CuMatrixBase<BaseFloat> &in,
                      CuMatrixBase<BaseFloat> *out) const;
  void BackpropChunk(const std::string &debug_info,
                     const CuMatrixBase<BaseFloat> &in_value,
                     const CuMatrixBase<BaseFloat> &out_value,
                     const CuMatrixBase<BaseFloat> &out_deriv,
                     CompositeComponent *to_update,
                     CuMatrixBase<BaseFloat> *in_deriv) const;

  int32 max_rows_process_;
  std::vector<Component *> components_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_STRUCTURAL_H_
