// nnet3/components/normalize.h
// Normalization and dropout components, as Kaldi defines them:
//  - NormalizeComponent: scales each row (or each block of block-dim
//    columns of it) to a target RMS; optionally appends log(stddev) per
//    block. Stateless.
//  - BatchNormComponent: per-column normalization to zero mean and target
//    RMS, with minibatch statistics in training mode (the memo carries the
//    minibatch mean, variance and scale to Backprop, and StoreStats
//    accumulates count/sum/sum-of-squares) and the stored statistics in test
//    mode. Files hold <Count> and the mean/variance (not the sums).
//  - DropoutComponent: multiplies by a random 0/1 mask (per element, or per
//    row with dropout-per-frame) in training mode, by (1 - proportion) in
//    test mode.
// Components with block-dim < dim need contiguous matrices (stride equal to
// the number of columns): they reshape rows into blocks.
#ifndef NNET3_NNET3_COMPONENTS_NORMALIZE_H_
#define NNET3_NNET3_COMPONENTS_NORMALIZE_H_

#include <string>

#include "nnet3/components/component.h"

namespace nnet3 {

class NormalizeComponent : public Component {
 public:
  NormalizeComponent() {}
  std::string Type() const override { return "NormalizeComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  int32 InputDim() const override { return input_dim_; }
  int32 OutputDim() const override {
    return input_dim_ + (add_log_stddev_ ? input_dim_ / block_dim_ : 0);
  }
  int32 Properties() const override;
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
  Component *Copy() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  std::string Info() const override;

 private:
  int32 input_dim_ = 0;
  int32 block_dim_ = 0;
  BaseFloat target_rms_ = 1.0;
  bool add_log_stddev_ = false;
};

class BatchNormComponent : public Component {
 public:
  BatchNormComponent() {}
  std::string Type() const override { return "BatchNormComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  int32 Properties() const override;
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
  void StoreStats(const CuMatrixBase<BaseFloat> &in_value,
                  const CuMatrixBase<BaseFloat> &out_value,
                  void *memo) override;
  void ZeroStats() override;
  void DeleteMemo(void *memo) const override;
  Component *Copy() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  std::string Info() const override;
  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;

  // Switches between minibatch statistics (false) and stored ones (true).
  void SetTestMode(bool test_mode);
  bool TestMode() const { return test_mode_; }
  double Count() const { return count_; }
  // Test mode: out = in .* TestModeScale() + TestModeOffset() (per column of
  // each block); empty in training mode.
  const CuVector<BaseFloat> &TestModeScale() const { return scale_; }
  const CuVector<BaseFloat> &TestModeOffset() const { return offset_; }

 private:
  // Per-minibatch values passed from Propagate to Backprop/StoreStats:
  // rows mean, uncentered variance, scale, and two scratch rows.
  struct Memo {
    int32 num_frames;
    CuMatrix<BaseFloat> mean_uvar_scale;
  };
  // offset_ and scale_ for test mode, from the statistics.
  void ComputeDerived();
  void Check() const;

  int32 dim_ = 0;
  int32 block_dim_ = 0;
  BaseFloat epsilon_ = 1.0e-03;
  BaseFloat target_rms_ = 1.0;
  bool test_mode_ = false;
  double count_ = 0.0;
  CuVector<double> stats_sum_;
  CuVector<double> stats_sumsq_;
  CuVector<BaseFloat> offset_;  // test mode: -mean * scale
  CuVector<BaseFloat> scale_;   // test mode: target_rms / sqrt(var + eps)
};

class DropoutComponent : public RandomComponent {
 public:
  DropoutComponent() {}
  std::string Type() const override { return "DropoutComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  int32 Properties() const override {
    return kSimpleComponent | kBackpropNeedsInput | kBackpropNeedsOutput |
           kRandomComponent;
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
  Component *Copy() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  std::string Info() const override;

  void SetDropoutProportion(BaseFloat p) { dropout_proportion_ = p; }
  BaseFloat DropoutProportion() const { return dropout_proportion_; }

 private:
  int32 dim_ = 0;
  BaseFloat dropout_proportion_ = 0.5;
  bool dropout_per_frame_ = false;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_NORMALIZE_H_
