// nnet3/components/convolution-model.h
// ConvolutionModel: the structure (not the parameters) of a time-height
// convolution, as TimeHeightConvolutionComponent stores it. Rows of the
// component's input and output are frames (time is the row axis); the
// columns of one frame are height x filters with the filter index varying
// fastest, so input column (h * num_filters_in + f) is filter f at height h.
//
// The kernel is a list of (time, height) offsets, kept sorted
// lexicographically and unique. Output height j (0 <= j < height_out) at
// time t reads input height (j * height_subsample_out + height_offset) at
// time (t + time_offset); heights outside [0, height_in) read zero
// (implicit zero padding). Time offsets are absolute (frame numbering of
// the input). The filter matrix is num_filters_out x (offsets.size() *
// num_filters_in), the offset index having the larger stride.
//
// required_time_offsets: the time offsets that must be present for an
// output frame to be computable; the others are zero-padded when absent.
// all_time_offsets and time_offsets_modulus (gcd of the differences of the
// distinct time offsets, 0 when there is only one) are derived from
// 'offsets' by ComputeDerived() and must be kept in step with it.
//
// A (kNoTime, kNoTime) offset (always first when present) stands for the
// average over the whole input image; it takes part in nothing derived
// here.
//
// Write()/Read() use Kaldi's <ConvolutionModel> format.
#ifndef NNET3_NNET3_COMPONENTS_CONVOLUTION_MODEL_H_
#define NNET3_NNET3_COMPONENTS_CONVOLUTION_MODEL_H_

#include <istream>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "base/common.h"
#include "nnet3/core/index.h"

namespace nnet3 {
namespace time_height_convolution {

struct ConvolutionModel {
  int32 num_filters_in = 0;
  int32 num_filters_out = 0;
  int32 height_in = 0;
  int32 height_out = 0;
  int32 height_subsample_out = 1;

  struct Offset {
    int32 time_offset;
    int32 height_offset;
    bool operator<(const Offset &o) const {
      return time_offset != o.time_offset ? time_offset < o.time_offset
                                          : height_offset < o.height_offset;
    }
    bool operator==(const Offset &o) const {
      return time_offset == o.time_offset && height_offset == o.height_offset;
    }
    bool operator!=(const Offset &o) const { return !(*this == o); }
  };
  std::vector<Offset> offsets;           // sorted, unique, nonempty
  std::set<int32> required_time_offsets;  // subset of all_time_offsets

  // Derived (ComputeDerived()).
  std::set<int32> all_time_offsets;
  int32 time_offsets_modulus = 0;

  int32 InputDim() const { return num_filters_in * height_in; }
  int32 OutputDim() const { return num_filters_out * height_out; }
  int32 ParamRows() const { return num_filters_out; }
  int32 ParamCols() const {
    return num_filters_in * static_cast<int32>(offsets.size());
  }

  // Sets all_time_offsets and time_offsets_modulus from 'offsets'.
  void ComputeDerived();

  // True if the model is consistent. check_heights_used: every input height
  // must be read by some output height. allow_height_padding: output
  // heights may read outside the input (zero padding). When it returns
  // false and 'why' is non-null, *why says what is wrong (one line).
  bool Check(bool check_heights_used = true, bool allow_height_padding = true,
             std::string *why = nullptr) const;

  // The filter counts (in, out), the heights (in, out), then
  // "height-subsample-out=..., {time,height}-offsets=[t,h t,h ...],
  // required-time-offsets=[a,b], input-dim=..., output-dim=..." (Kaldi's).
  std::string Info() const;

  bool operator==(const ConvolutionModel &other) const;

  void Write(std::ostream &os, bool binary) const;
  // Accepts the stream before or after "<ConvolutionModel>"; the model must
  // pass Check(false, true) (else a UserError).
  void Read(std::istream &is, bool binary);
};

}  // namespace time_height_convolution
}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_CONVOLUTION_MODEL_H_
