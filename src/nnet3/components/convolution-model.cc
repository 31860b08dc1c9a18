// nnet3/components/convolution-model.cc
#include "nnet3/components/convolution-model.h"

#include <numeric>
#include <sstream>
#include <utility>

#include "base/io.h"
#include "nnet3/components/component.h"

namespace nnet3 {
namespace time_height_convolution {

void ConvolutionModel::ComputeDerived() {
  all_time_offsets.clear();
  for (const Offset &o : offsets)
    if (o.time_offset != kNoTime) all_time_offsets.insert(o.time_offset);
  // gcd of the gaps between consecutive distinct offsets (0 if just one).
  time_offsets_modulus = 0;
  bool first = true;
  int32 prev = 0;
  for (int32 t : all_time_offsets) {
    if (!first) time_offsets_modulus = std::gcd(time_offsets_modulus, t - prev);
    prev = t;
    first = false;
  }
}

bool ConvolutionModel::operator==(const ConvolutionModel &o) const {
  return num_filters_in == o.num_filters_in &&
         num_filters_out == o.num_filters_out && height_in == o.height_in &&
         height_out == o.height_out &&
         height_subsample_out == o.height_subsample_out &&
         offsets == o.offsets &&
         required_time_offsets == o.required_time_offsets &&
         all_time_offsets == o.all_time_offsets &&
         time_offsets_modulus == o.time_offsets_modulus;
}

bool ConvolutionModel::Check(bool check_heights_used,
                             bool allow_height_padding,
                             std::string *why) const {
  std::ostringstream reason;
  auto fail = [&]() {
    if (why != nullptr) *why = reason.str();
    return false;
  };
  if (num_filters_in <= 0 || num_filters_out <= 0 || height_in <= 0 ||
      height_out <= 0 || height_subsample_out <= 0) {
    reason << "num-filters-in=" << num_filters_in
           << ", num-filters-out=" << num_filters_out
           << ", height-in=" << height_in << ", height-out=" << height_out
           << " and height-subsample-out=" << height_subsample_out
           << " must all be positive";
    return fail();
  }
  if (offsets.empty()) {
    reason << "the list of (time, height) offsets is empty";
    return fail();
  }
  if (required_time_offsets.empty()) {
    reason << "required-time-offsets is empty";
    return fail();
  }
  for (size_t i = 0; i + 1 < offsets.size(); i++) {
    if (!(offsets[i] < offsets[i + 1])) {
      reason << "the offsets are not sorted and unique (offset "
             << offsets[i + 1].time_offset << ","
             << offsets[i + 1].height_offset << ")";
      return fail();
    }
  }
  for (size_t i = 0; i < offsets.size(); i++) {
    bool is_average = offsets[i].time_offset == kNoTime;
    if (is_average &&
        (i != 0 || offsets[i].height_offset != kNoTime)) {
      reason << "a kNoTime offset must be the pair (kNoTime, kNoTime)";
      return fail();
    }
  }
  {
    ConvolutionModel copy(*this);
    copy.ComputeDerived();
    if (!(copy == *this)) {
      reason << "the derived time offsets are out of date";
      return fail();
    }
  }
  if (all_time_offsets.empty()) {
    reason << "there is no time offset other than the image average";
    return fail();
  }
  for (int32 t : required_time_offsets) {
    if (all_time_offsets.count(t) == 0) {
      reason << "required time offset " << t
             << " is not one of the time offsets";
      return fail();
    }
  }
  std::vector<bool> height_used(height_in, false),
      offset_used(offsets.size(), false);
  for (int32 j = 0; j < height_out; j++) {
    int32 h_base = j * height_subsample_out;
    bool reachable = false;  // some input height in range at a required time
    for (size_t i = 0; i < offsets.size(); i++) {
      const Offset &o = offsets[i];
      if (o.time_offset == kNoTime) {
        offset_used[i] = true;
        continue;
      }
      int32 h = h_base + o.height_offset;
      if (h < 0 || h >= height_in) {
        if (!allow_height_padding) {
          reason << "output height " << j << " with height offset "
                 << o.height_offset << " reads input height " << h
                 << ", outside [0, " << height_in
                 << ") (no padding allowed here)";
          return fail();
        }
        continue;
      }
      offset_used[i] = true;
      height_used[h] = true;
      if (required_time_offsets.count(o.time_offset)) reachable = true;
    }
    if (!reachable) {
      reason << "output height " << j << " (of height-out=" << height_out
             << ") reads no input height in [0, " << height_in
             << ") at a required time offset";
      return fail();
    }
  }
  if (check_heights_used) {
    for (int32 h = 0; h < height_in; h++) {
      if (!height_used[h]) {
        reason << "input height " << h << " (of height-in=" << height_in
               << ") is never read";
        return fail();
      }
    }
  }
  for (size_t i = 0; i < offsets.size(); i++) {
    if (!offset_used[i]) {
      reason << "offset (" << offsets[i].time_offset << ","
             << offsets[i].height_offset
             << ") never reads an input height";
      return fail();
    }
  }
  return true;
}

std::string ConvolutionModel::Info() const {
  std::ostringstream os;
  os << "num-filters-in=" << num_filters_in
     << ", num-filters-out=" << num_filters_out << ", height-in=" << height_in
     << ", height-out=" << height_out
     << ", height-subsample-out=" << height_subsample_out
     << ", {time,height}-offsets=[";
  const char *sep = "";
  for (const Offset &o : offsets) {
    os << sep << o.time_offset << ',' << o.height_offset;
    sep = " ";
  }
  os << "], required-time-offsets=[";
  sep = "";
  for (int32 t : required_time_offsets) {
    os << sep << t;
    sep = ",";
  }
  os << "], input-dim=" << InputDim() << ", output-dim=" << OutputDim();
  return os.str();
}

void ConvolutionModel::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<ConvolutionModel>");
  WriteToken(os, binary, "<NumFiltersIn>");
  WriteBasicType(os, binary, num_filters_in);
  WriteToken(os, binary, "<NumFiltersOut>");
  WriteBasicType(os, binary, num_filters_out);
  WriteToken(os, binary, "<HeightIn>");
  WriteBasicType(os, binary, height_in);
  WriteToken(os, binary, "<HeightOut>");
  WriteBasicType(os, binary, height_out);
  WriteToken(os, binary, "<HeightSubsampleOut>");
  WriteBasicType(os, binary, height_subsample_out);
  WriteToken(os, binary, "<Offsets>");
  std::vector<std::pair<int32, int32> > pairs;
  pairs.reserve(offsets.size());
  for (const Offset &o : offsets)
    pairs.emplace_back(o.time_offset, o.height_offset);
  WriteIntegerPairVector(os, binary, pairs);
  WriteToken(os, binary, "<RequiredTimeOffsets>");
  std::vector<int32> required(required_time_offsets.begin(),
                              required_time_offsets.end());
  WriteIntegerVector(os, binary, required);
  WriteToken(os, binary, "</ConvolutionModel>");
}

void ConvolutionModel::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<ConvolutionModel>", "<NumFiltersIn>");
  ReadBasicType(is, binary, &num_filters_in);
  ExpectToken(is, binary, "<NumFiltersOut>");
  ReadBasicType(is, binary, &num_filters_out);
  ExpectToken(is, binary, "<HeightIn>");
  ReadBasicType(is, binary, &height_in);
  ExpectToken(is, binary, "<HeightOut>");
  ReadBasicType(is, binary, &height_out);
  ExpectToken(is, binary, "<HeightSubsampleOut>");
  ReadBasicType(is, binary, &height_subsample_out);
  ExpectToken(is, binary, "<Offsets>");
  std::vector<std::pair<int32, int32> > pairs;
  ReadIntegerPairVector(is, binary, &pairs);
  offsets.clear();
  for (const auto &p : pairs) offsets.push_back(Offset{p.first, p.second});
  ExpectToken(is, binary, "<RequiredTimeOffsets>");
  std::vector<int32> required;
  ReadIntegerVector(is, binary, &required);
  required_time_offsets.clear();
  required_time_offsets.insert(required.begin(), required.end());
  ExpectToken(is, binary, "</ConvolutionModel>");
  ComputeDerived();
  std::string why;
  if (!Check(false, true, &why))
    NNET3_ERR << "ConvolutionModel read from the model file is invalid: "
              << why;
}

}  // namespace time_height_convolution
}  // namespace nnet3
