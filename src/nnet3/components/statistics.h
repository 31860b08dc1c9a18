// nnet3/components/statistics.h
// The two non-simple components behind x-vector style "stats" layers:
//  - StatisticsExtractionComponent turns frames into per-block sums. Output
//    row (n, t, x) covers the input frames of the same (n, x) whose time
//    lies in [floor(t / output-period) * output-period, that + output-period)
//    on the grid of input-period. Output columns: the number of frames found
//    (a count), their sum, and (include-variance) their sum of squares.
//  - StatisticsPoolingComponent adds those sums over a window
//    [t - left-context, t + right-context] (step input-period) and turns them
//    into means: column 0 of its input is the count it divides by. Output:
//    num-log-count-features copies of log(count), then the means of the
//    other input columns; with output-stddevs the second half of those is
//    turned into sqrt(max(E[x^2] - E[x]^2, variance-floor)).
// Both reorder the rows of a step by (n, x, t) (kReordersIndexes), so that
// each window is a contiguous range of input rows; their precomputed indexes
// hold those ranges (forward) and the inverse map (backward, only when
// backprop is needed). Rows of a step never hold blank (kNoTime) Indexes.
// File formats, option names, defaults and the arithmetic follow Kaldi's
// nnet-general-component.{h,cc} (including its token "<IncludeVarinance>").
#ifndef NNET3_NNET3_COMPONENTS_STATISTICS_H_
#define NNET3_NNET3_COMPONENTS_STATISTICS_H_

#include <string>
#include <vector>

#include "cudamatrix/cu-copy-cache.h"
#include "nnet3/components/component.h"

namespace nnet3 {

// Precomputed for one step of a StatisticsExtractionComponent.
class StatisticsExtractionComponentPrecomputedIndexes
    : public ComponentPrecomputedIndexes {
 public:
  // Per output row: the half-open range of input rows it sums.
  std::vector<Int32Pair> forward_indexes;
  // Per output row: how many input rows that range has.
  Vector<BaseFloat> counts;
  // Per input row: the output row it belongs to (empty when the step was
  // compiled without backprop).
  std::vector<int32> backward_indexes;
  // The three above as Cu objects, made on first use.
  CuCopyCache<CuArray<Int32Pair> > forward_cu;
  CuCopyCache<CuVector<BaseFloat> > counts_cu;
  CuCopyCache<CuArray<int32> > backward_cu;

  ComponentPrecomputedIndexes *Copy() const override;
  void Write(std::ostream &os, bool binary) const override;
  void Read(std::istream &is, bool binary) override;
  std::string Type() const override {
    return "StatisticsExtractionComponentPrecomputedIndexes";
  }
};

// Precomputed for one step of a StatisticsPoolingComponent.
class StatisticsPoolingComponentPrecomputedIndexes
    : public ComponentPrecomputedIndexes {
 public:
  // Per output row: the half-open range of input rows in its window.
  std::vector<Int32Pair> forward_indexes;
  // Per input row: the half-open range of output rows whose windows contain
  // it (contiguous because rows are sorted by (n, x, t)); empty when the
  // step was compiled without backprop.
  std::vector<Int32Pair> backward_indexes;
  // The two above as Cu arrays, made on first use.
  CuCopyCache<CuArray<Int32Pair> > forward_cu, backward_cu;

  ComponentPrecomputedIndexes *Copy() const override;
  void Write(std::ostream &os, bool binary) const override;
  void Read(std::istream &is, bool binary) override;
  std::string Type() const override {
    return "StatisticsPoolingComponentPrecomputedIndexes";
  }
};

class StatisticsExtractionComponent : public Component {
 public:
  StatisticsExtractionComponent() {}
  std::string Type() const override { return "StatisticsExtractionComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  int32 InputDim() const override { return input_dim_; }
  // count, sums [, sums of squares].
  int32 OutputDim() const override {
    return 1 + (include_variance_ ? 2 : 1) * input_dim_;
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

  int32 InputPeriod() const { return input_period_; }
  int32 OutputPeriod() const { return output_period_; }
  bool IncludeVariance() const { return include_variance_; }

 private:
  // Throws a UserError unless the configuration is usable.
  void Check() const;
  // First input time of the block that output time t falls in.
  int64 BlockStart(int32 t) const;

  int32 input_dim_ = -1;
  int32 input_period_ = 1;
  int32 output_period_ = 1;
  bool include_variance_ = true;
};

class StatisticsPoolingComponent : public Component {
 public:
  StatisticsPoolingComponent() {}
  std::string Type() const override { return "StatisticsPoolingComponent"; }
  void InitFromConfig(ConfigLine *cfl) override;
  int32 InputDim() const override { return input_dim_; }
  // log-count copies, then one column per non-count input column.
  int32 OutputDim() const override {
    return num_log_count_features_ + input_dim_ - 1;
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
  // Note: as in Kaldi, a copy gets variance-floor 1e-10 whatever this
  // component's value is (Kaldi's copy constructor does not copy it).
  Component *Copy() const override;
  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;

  int32 InputPeriod() const { return input_period_; }
  int32 LeftContext() const { return left_context_; }
  int32 RightContext() const { return right_context_; }
  int32 NumLogCountFeatures() const { return num_log_count_features_; }
  bool OutputStddevs() const { return output_stddevs_; }
  BaseFloat VarianceFloor() const { return variance_floor_; }

 private:
  void Check() const;

  int32 input_dim_ = -1;
  int32 input_period_ = 1;
  int32 left_context_ = -1;
  int32 right_context_ = -1;
  int32 num_log_count_features_ = 0;
  bool output_stddevs_ = false;
  BaseFloat variance_floor_ = 1.0e-10;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_STATISTICS_H_
