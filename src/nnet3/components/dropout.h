// nnet3/components/dropout.h
// The dropout-like components of Kaldi that are not "simple" (they look at
// the Indexes of the rows, or read no input at all). DropoutComponent, the
// simple per-element kind, lives in normalize.h.
//  - GeneralDropoutComponent: multiplies by a random mask that is shared by
//    all rows with the same sequence n (and, with time-period > 0, the same
//    block of time-period frames). The mask has block-dim columns and is
//    repeated dim / block-dim times across each row. Mask values are 0 or
//    1 / (1 - p) (expectation one), or 1 + 4p (u - 1/2) for u uniform on
//    (0, 1) with continuous=true; with specaugment-max-proportion > 0 each
//    mask row instead zeroes a random run of frequency bins (wrapping round),
//    split into up to specaugment-max-regions pieces.
//  - SpecAugmentTimeMaskComponent: zeroes whole rows (frames) of each
//    sequence in random runs of 1..time-mask-max-frames frames, so that
//    about zeroed-proportion of the frames are zero.
//  - DropoutMaskComponent: reads nothing and outputs the mask itself, 0 with
//    probability p and 1 otherwise (or 1 + 4p (u - 1/2) with continuous);
//    with 2 or 3 columns the first two columns are never both zero.
// All three are RandomComponents: in test mode the first two are the
// identity and DropoutMaskComponent outputs 1 - p (1 with continuous). The
// random numbers come from the component's own generator (RandomComponent::
// ResetGenerator), so a fixed seed gives a fixed mask; they are not meant to
// equal Kaldi's.
// Invariants: Propagate returns the mask as the memo (a Matrix for
// GeneralDropout, a per-row Vector for SpecAugmentTimeMask) exactly when it
// drew one, and Backprop multiplies the derivative by that same mask; the
// precomputed indexes map each row (and block) to its mask row.
#ifndef NNET3_NNET3_COMPONENTS_DROPOUT_H_
#define NNET3_NNET3_COMPONENTS_DROPOUT_H_

#include <string>
#include <vector>

#include "nnet3/components/component.h"

namespace nnet3 {

// For GeneralDropoutComponent: which mask row each block of each row uses.
// Written as "<GeneralDropoutComponentPrecomputedIndexes> <NumMaskRows> N
// <Indexes> [ ... ] </GeneralDropoutComponentPrecomputedIndexes>".
class GeneralDropoutComponentPrecomputedIndexes
    : public ComponentPrecomputedIndexes {
 public:
  // Rows of the mask matrix (its columns are the component's block-dim).
  int32 num_mask_rows = 0;
  // Entry r * (dim / block-dim) + b: the mask row of block b of row r.
  CuArray<int32> indexes;

  ComponentPrecomputedIndexes *Copy() const override {
    return new GeneralDropoutComponentPrecomputedIndexes(*this);
  }
  void Write(std::ostream &os, bool binary) const override;
  void Read(std::istream &is, bool binary) override;
  std::string Type() const override {
    return "GeneralDropoutComponentPrecomputedIndexes";
  }
};

class GeneralDropoutComponent : public RandomComponent {
 public:
  GeneralDropoutComponent() {}
  std::string Type() const override { return "GeneralDropoutComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  int32 Properties() const override {
    int32 props = kRandomComponent | kPropagateInPlace | kBackpropInPlace |
                  kUsesMemo;
    if (block_dim_ != dim_) props |= kInputContiguous | kOutputContiguous;
    return props;
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
  void DeleteMemo(void *memo) const override {
    delete static_cast<CuMatrix<BaseFloat> *>(memo);
  }
  ComponentPrecomputedIndexes *PrecomputeIndexes(
      const MiscComputationInfo &misc_info,
      const std::vector<Index> &input_indexes,
      const std::vector<Index> &output_indexes,
      bool need_backprop) const override;
  Component *Copy() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  std::string Info() const override;

  void SetDropoutProportion(BaseFloat p) { dropout_proportion_ = p; }
  BaseFloat DropoutProportion() const { return dropout_proportion_; }
  int32 BlockDim() const { return block_dim_; }
  int32 TimePeriod() const { return time_period_; }
  bool Continuous() const { return continuous_; }
  BaseFloat SpecAugmentMaxProportion() const {
    return specaugment_max_proportion_;
  }
  int32 SpecAugmentMaxRegions() const { return specaugment_max_regions_; }

 private:
  // Whether Propagate draws a mask (else it copies).
  bool DrawsMask() const {
    return !test_mode_ &&
           (dropout_proportion_ != 0.0 || specaugment_max_proportion_ != 0.0);
  }
  // A new num_rows x block_dim_ mask.
  CuMatrix<BaseFloat> *NewMask(int32 num_rows) const;
  // The SpecAugment frequency mask of one mask row (all ones on entry).
  void FrequencyMaskRow(BaseFloat *row) const;
  // data(r, b * block_dim_ + j) *= mask(indexes[r * multiple + b], j).
  void ApplyMask(const GeneralDropoutComponentPrecomputedIndexes &indexes,
                 const CuMatrixBase<BaseFloat> &mask,
                 CuMatrixBase<BaseFloat> *data) const;

  int32 dim_ = 0;
  int32 block_dim_ = 0;
  int32 time_period_ = 0;  // 0: one mask per sequence
  BaseFloat dropout_proportion_ = 0.5;
  BaseFloat specaugment_max_proportion_ = 0.0;
  int32 specaugment_max_regions_ = 1;
  bool continuous_ = false;
};

// For SpecAugmentTimeMaskComponent: the rows of each sequence in order of t.
// Written as "<SpecAugmentTimeMaskComponentPrecomputedIndexes> <Indexes>
// <num-sequences> [ rows of sequence 0 ] ... </...>".
class SpecAugmentTimeMaskComponentPrecomputedIndexes
    : public ComponentPrecomputedIndexes {
 public:
  // indexes[s]: the row numbers of the s'th distinct n (in increasing n),
  // sorted by t.
  std::vector<std::vector<int32> > indexes;
  // Total number of rows (the sum of the sizes).
  int32 tot_size = 0;

  ComponentPrecomputedIndexes *Copy() const override {
    return new SpecAugmentTimeMaskComponentPrecomputedIndexes(*this);
  }
  void Write(std::ostream &os, bool binary) const override;
  void Read(std::istream &is, bool binary) override;
  std::string Type() const override {
    return "SpecAugmentTimeMaskComponentPrecomputedIndexes";
  }
};

class SpecAugmentTimeMaskComponent : public RandomComponent {
 public:
  SpecAugmentTimeMaskComponent() {}
  std::string Type() const override { return "SpecAugmentTimeMaskComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  int32 Properties() const override {
    return kRandomComponent | kPropagateInPlace | kBackpropInPlace | kUsesMemo;
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
  void DeleteMemo(void *memo) const override {
    delete static_cast<CuVector<BaseFloat> *>(memo);
  }
  ComponentPrecomputedIndexes *PrecomputeIndexes(
      const MiscComputationInfo &misc_info,
      const std::vector<Index> &input_indexes,
      const std::vector<Index> &output_indexes,
      bool need_backprop) const override;
  Component *Copy() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  std::string Info() const override;

  BaseFloat ZeroedProportion() const { return zeroed_proportion_; }
  int32 TimeMaskMaxFrames() const { return time_mask_max_frames_; }

 private:
  bool DrawsMask() const { return !test_mode_ && zeroed_proportion_ != 0.0; }
  // One 0/1 value per row.
  CuVector<BaseFloat> *NewMask(
      const SpecAugmentTimeMaskComponentPrecomputedIndexes &indexes) const;

  int32 dim_ = 0;
  BaseFloat zeroed_proportion_ = 0.25;
  int32 time_mask_max_frames_ = 10;
};

class DropoutMaskComponent : public RandomComponent {
 public:
  DropoutMaskComponent() {}
  std::string Type() const override { return "DropoutMaskComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  // The input is never read; its dimension is nominal.
  int32 InputDim() const override { return output_dim_; }
  int32 OutputDim() const override { return output_dim_; }
  int32 Properties() const override { return kRandomComponent; }
  void *Propagate(const ComponentPrecomputedIndexes *indexes,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override;
  // The output does not depend on the input: in_deriv (if any) is zero.
  void Backprop(const std::string &debug_info,
                const ComponentPrecomputedIndexes *indexes,
                const CuMatrixBase<BaseFloat> &in_value,
                const CuMatrixBase<BaseFloat> &out_value,
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,
                Component *to_update,
                CuMatrixBase<BaseFloat> *in_deriv) const override;
  // Needs no input Indexes, and is always computable.
  void GetInputIndexes(const MiscComputationInfo &misc_info,
                       const Index &output_index,
                       std::vector<Index> *desired_indexes) const override;
  bool IsComputable(const MiscComputationInfo &misc_info,
                    const Index &output_index,
                    const IndexSet &input_index_set,
                    std::vector<Index> *used_inputs) const override;
  Component *Copy() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  std::string Info() const override;

  void SetDropoutProportion(BaseFloat p) { dropout_proportion_ = p; }
  BaseFloat DropoutProportion() const { return dropout_proportion_; }
  bool Continuous() const { return continuous_; }

 private:
  int32 output_dim_ = 0;
  BaseFloat dropout_proportion_ = 0.5;
  bool continuous_ = false;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_DROPOUT_H_
