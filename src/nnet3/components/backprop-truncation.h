// nnet3/components/backprop-truncation.h
// BackpropTruncationComponent: the identity (times 'scale') in the forward
// direction; in the backward direction it limits the derivatives that flow
// around a recurrence. Per row (one Index) of the output derivative it
//   - clips: scales the row down so its 2-norm is at most
//     clipping-threshold (30);
//   - zeroes: sets the row to zero when its 2-norm exceeds
//     zeroing-threshold (15) and the frame is a "zeroing boundary": the
//     interval (t - recurrence-interval, t] shifted by n contains a multiple
//     of zeroing-interval (20), i.e.
//       floor((t - n) / zi) != floor((t - ri - n) / zi).
// Which rows are boundaries depends on the Indexes, so it is precomputed by
// PrecomputeIndexes() into BackpropTruncationComponentPrecomputedIndexes
// (a -1 / 0 vector with one entry per row, and the number of -1 entries).
// A threshold <= 0 disables that part.
//
// Properties as in Kaldi: kPropagateInPlace | kBackpropInPlace (Kaldi does not
// declare it simple; its inputs are the default one-to-one Indexes).
// Statistics (double): rows clipped, rows zeroed, rows processed, boundary
// rows seen; gathered when Backprop has a component to update.
#ifndef NNET3_NNET3_COMPONENTS_BACKPROP_TRUNCATION_H_
#define NNET3_NNET3_COMPONENTS_BACKPROP_TRUNCATION_H_

#include <string>
#include <vector>

#include "nnet3/components/component.h"

namespace nnet3 {

class BackpropTruncationComponentPrecomputedIndexes
    : public ComponentPrecomputedIndexes {
 public:
  BackpropTruncationComponentPrecomputedIndexes() : zeroing_sum(0.0) {}
  // One entry per row: -1 for a zeroing boundary, else 0.
  CuVector<BaseFloat> zeroing;
  // The number of boundary rows (minus the sum of 'zeroing').
  BaseFloat zeroing_sum;

  ComponentPrecomputedIndexes *Copy() const override {
    BackpropTruncationComponentPrecomputedIndexes *ans =
        new BackpropTruncationComponentPrecomputedIndexes();
    ans->zeroing = zeroing;
    ans->zeroing_sum = zeroing_sum;
    return ans;
  }
  void Write(std::ostream &os, bool binary) const override;
  void Read(std::istream &is, bool binary) override;
  std::string Type() const override {
    return "BackpropTruncationComponentPrecomputedIndexes";
  }
};

class BackpropTruncationComponent : public Component {
 public:
  BackpropTruncationComponent()
      : dim_(0), scale_(1.0), clipping_threshold_(-1.0),
        zeroing_threshold_(-1.0), zeroing_interval_(0),
        recurrence_interval_(0), num_clipped_(0.0), num_zeroed_(0.0),
        count_(0.0), count_zeroing_boundaries_(0.0) {}

  int32 InputDim() const override { return dim_; }
  int32 OutputDim() const override { return dim_; }
  std::string Type() const override { return "BackpropTruncationComponent"; }
  int32 Properties() const override {
    return kPropagateInPlace | kBackpropInPlace;
  }
  // Options: dim (required), scale (1.0), clipping-threshold (30),
  // zeroing-threshold (15), zeroing-interval (20), recurrence-interval (1).
  void InitFromConfig(ConfigLine *cfl) override;
  std::string Info() const override;
  Component *Copy() const override;

  ComponentPrecomputedIndexes *PrecomputeIndexes(
      const MiscComputationInfo &misc_info,
      const std::vector<Index> &input_indexes,
      const std::vector<Index> &output_indexes,
      bool need_backprop) const override;

  void *Propagate(const ComponentPrecomputedIndexes *indexes,
                  const CuMatrixBase<BaseFloat> &in,
                  CuMatrixBase<BaseFloat> *out) const override;
  // 'indexes' must be the object PrecomputeIndexes() made for these rows.
  void Backprop(const std::string &debug_info,
                const ComponentPrecomputedIndexes *indexes,
                const CuMatrixBase<BaseFloat> &in_value,
                const CuMatrixBase<BaseFloat> &out_value,
                const CuMatrixBase<BaseFloat> &out_deriv, void *memo,
                Component *to_update,
                CuMatrixBase<BaseFloat> *in_deriv) const override;

  void Read(std::istream &is, bool binary) override;
  void Write(std::ostream &os, bool binary) const override;
  void ZeroStats() override;
  // Scale/Add act on the statistics only (there are no parameters).
  void Scale(BaseFloat scale) override;
  void Add(BaseFloat alpha, const Component &other) override;

  void Init(int32 dim, BaseFloat scale, BaseFloat clipping_threshold,
            BaseFloat zeroing_threshold, int32 zeroing_interval,
            int32 recurrence_interval);

  double NumClipped() const { return num_clipped_; }
  double NumZeroed() const { return num_zeroed_; }
  double Count() const { return count_; }
  double CountZeroingBoundaries() const { return count_zeroing_boundaries_; }

 private:
  int32 dim_;
  BaseFloat scale_;
  BaseFloat clipping_threshold_;
  BaseFloat zeroing_threshold_;
  int32 zeroing_interval_;
  int32 recurrence_interval_;
  double num_clipped_;
  double num_zeroed_;
  double count_;
  double count_zeroing_boundaries_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_BACKPROP_TRUNCATION_H_
