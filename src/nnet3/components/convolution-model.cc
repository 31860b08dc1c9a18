// nnet3/components/convolution-model.cc
#include "nnet3/components/convolution-model.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <utility>

#include "base/io.h"
#include "nnet3/components/component.h"

namespace nnet3 {
namespace time_height_convolution {

namespace {

constexpr int64 kInt32Max = std::numeric_limits<int32>::max();

// floor(a / b) and ceil(a / b) for b > 0.
int64 FloorDiv(int64 a, int64 b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
int64 CeilDiv(int64 a, int64 b) { return -FloorDiv(-a, b); }

// The smallest k in [0, last] that no closed interval in 'intervals' holds
// (an interval with first > second is empty), or -1 if there is none.
int64 FirstUncovered(std::vector<std::pair<int64, int64> > intervals,
                     int64 last) {
  if (last < 0) return -1;
  std::sort(intervals.begin(), intervals.end());
  int64 next = 0;  // [0, next) is covered
  for (const auto &iv : intervals) {
    if (iv.first > next) break;
    next = std::max(next, iv.second + 1);
    if (next > last) return -1;
  }
  return next;
}

}  // namespace

void ConvolutionModel::ComputeDerived() {
  all_time_offsets.clear();
  for (const Offset &o : offsets)
    if (o.time_offset != kNoTime) all_time_offsets.insert(o.time_offset);
  // gcd of the gaps between consecutive distinct offsets (0 if just one),
  // in 64 bits: two int32 offsets can be 2^32 apart. A gcd that does not
  // fit int32 is stored as 0; Check() rejects such a span.
  int64 modulus = 0;
  bool first = true;
  int64 prev = 0;
  for (int32 t : all_time_offsets) {
    if (!first) modulus = std::gcd(modulus, static_cast<int64>(t) - prev);
    prev = t;
    first = false;
  }
  time_offsets_modulus =
      modulus <= kInt32Max ? static_cast<int32>(modulus) : 0;
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

// The height checks work per offset on the interval of output heights j
// for which j * height_subsample_out + height_offset is an input height, so
// their cost does not grow with height-in or height-out (both can be near
// 2^31 in a damaged file). They find the same first failure, and say the
// same thing about it, as a walk over every (j, offset) pair would.
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
  {
    const int64 input_dim = static_cast<int64>(num_filters_in) * height_in,
                output_dim = static_cast<int64>(num_filters_out) * height_out,
                param_cols =
                    static_cast<int64>(num_filters_in) * offsets.size();
    if (input_dim > kInt32Max || output_dim > kInt32Max ||
        param_cols > kInt32Max) {
      reason << "the sizes do not fit a 32-bit dimension (at most "
             << kInt32Max << "): input-dim " << input_dim
             << " (num-filters-in x height-in), output-dim " << output_dim
             << " (num-filters-out x height-out), parameter columns "
             << param_cols << " (num-filters-in x " << offsets.size()
             << " offsets)";
      return fail();
    }
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
  if (!all_time_offsets.empty() &&
      static_cast<int64>(*all_time_offsets.rbegin()) -
              *all_time_offsets.begin() > kInt32Max) {
    reason << "the time offsets span more than " << kInt32Max
           << " frames (" << *all_time_offsets.begin() << " to "
           << *all_time_offsets.rbegin() << ")";
    return fail();
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
  // reads[i]: the output heights j (an interval, maybe empty) at which
  // offset i reads an input height. The image-average offset reads the
  // whole image and takes no part in the height checks.
  const int64 stride = height_subsample_out, last_j = height_out - 1;
  const int64 kNone = std::numeric_limits<int64>::max();
  std::vector<std::pair<int64, int64> > reads(offsets.size()), required;
  int64 pad_j = kNone;  // first output height that reads outside the input
  size_t pad_i = 0;
  for (size_t i = 0; i < offsets.size(); i++) {
    const Offset &o = offsets[i];
    if (o.time_offset == kNoTime) {
      reads[i] = std::make_pair(int64{0}, last_j);
      continue;
    }
    const int64 lo = std::max<int64>(0, CeilDiv(-int64{o.height_offset},
                                                stride)),
                hi = std::min<int64>(
                    last_j, FloorDiv(int64{height_in} - 1 - o.height_offset,
                                     stride));
    reads[i] = std::make_pair(lo, hi);
    if (required_time_offsets.count(o.time_offset)) required.push_back(reads[i]);
    int64 outside = lo > 0 ? 0 : (hi < last_j ? std::max<int64>(0, hi + 1)
                                              : kNone);
    if (outside < pad_j) {
      pad_j = outside;
      pad_i = i;
    }
  }
  const int64 unreachable_j = FirstUncovered(required, last_j);
  if (!allow_height_padding && pad_j != kNone &&
      (unreachable_j < 0 || pad_j <= unreachable_j)) {
    const int64 h = pad_j * stride + offsets[pad_i].height_offset;
    reason << "output height " << pad_j << " with height offset "
           << offsets[pad_i].height_offset << " reads input height " << h
           << ", outside [0, " << height_in << ") (no padding allowed here)";
    return fail();
  }
  if (unreachable_j >= 0) {
    reason << "output height " << unreachable_j << " (of height-out="
           << height_out << ") reads no input height in [0, " << height_in
           << ") at a required time offset";
    return fail();
  }
  if (check_heights_used) {
    // Offset i reads the input heights h = j * stride + height_offset,
    // j in reads[i]: within the class h mod stride, the indexes
    // (h - class) / stride form an interval.
    std::map<int64, std::vector<std::pair<int64, int64> > > by_class;
    for (size_t i = 0; i < offsets.size(); i++) {
      const Offset &o = offsets[i];
      if (o.time_offset == kNoTime || reads[i].first > reads[i].second)
        continue;
      const int64 cls = o.height_offset - FloorDiv(o.height_offset, stride) *
                                              stride,
                  base = (o.height_offset - cls) / stride;
      by_class[cls].push_back(
          std::make_pair(base + reads[i].first, base + reads[i].second));
    }
    const int64 num_classes = std::min<int64>(stride, height_in);
    int64 unread = kNone;
    int64 missing_class = 0;  // the first class no offset reads
    for (const auto &entry : by_class) {
      if (entry.first != missing_class) break;
      missing_class++;
    }
    if (missing_class < num_classes) unread = missing_class;
    for (const auto &entry : by_class) {
      const int64 cls = entry.first;
      if (cls >= num_classes || cls >= unread) break;
      const int64 k = FirstUncovered(
          entry.second, FloorDiv(int64{height_in} - 1 - cls, stride));
      if (k >= 0) unread = std::min(unread, cls + k * stride);
    }
    if (unread != kNone) {
      reason << "input height " << unread << " (of height-in=" << height_in
             << ") is never read";
      return fail();
    }
  }
  for (size_t i = 0; i < offsets.size(); i++) {
    if (reads[i].first > reads[i].second) {
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
