// nnet3/components/statistics.cc
#include "nnet3/components/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <utility>

namespace nnet3 {

namespace {

// Calls f(t) for t = lo, lo + step, ... while t <= hi, skipping the values
// an int32 cannot hold (no Index has them), until f returns false. The
// bounds are 64-bit so that a context or period near the int32 limits
// cannot overflow.
template <typename F>
void ForEachTime(int64 lo, int64 hi, int32 step, const F &f) {
  const int64 kMin = std::numeric_limits<int32>::min(),
              kMax = std::numeric_limits<int32>::max();
  if (lo < kMin) lo += (kMin - lo + step - 1) / step * step;
  if (hi > kMax) hi = kMax;
  for (int64 t = lo; t <= hi; t += step)
    if (!f(static_cast<int32>(t))) return;
}

// Orders Indexes by n, then x, then t: each sequence's frames become
// contiguous and time-ordered, which makes every window a row range.
bool LessByNxt(const Index &a, const Index &b) {
  if (a.n != b.n) return a.n < b.n;
  if (a.x != b.x) return a.x < b.x;
  return a.t < b.t;
}

void SortByNxt(std::vector<Index> *indexes) {
  std::sort(indexes->begin(), indexes->end(), LessByNxt);
}

typedef std::unordered_map<Index, int32, IndexHasher> RowOfIndex;

void MapRows(const std::vector<Index> &indexes, RowOfIndex *rows) {
  rows->reserve(indexes.size());
  for (size_t i = 0; i < indexes.size(); i++)
    (*rows)[indexes[i]] = static_cast<int32>(i);
}

// Appends row 'pos' to the half-open range *range ({-1, -1} when empty);
// rows must come in increasing order without gaps.
void ExtendRange(int32 pos, Int32Pair *range) {
  if (range->first == -1) {
    range->first = pos;
    range->second = pos + 1;
  } else {
    // Fails if the rows were not sorted by (n, x, t).
    NNET3_ASSERT(range->second == pos);
    range->second = pos + 1;
  }
}

void WritePairs(std::ostream &os, bool binary,
                const std::vector<Int32Pair> &pairs) {
  std::vector<std::pair<int32, int32> > tmp(pairs.size());
  for (size_t i = 0; i < pairs.size(); i++)
    tmp[i] = std::make_pair(pairs[i].first, pairs[i].second);
  WriteIntegerPairVector(os, binary, tmp);
}

void ReadPairs(std::istream &is, bool binary, std::vector<Int32Pair> *pairs) {
  std::vector<std::pair<int32, int32> > tmp;
  ReadIntegerPairVector(is, binary, &tmp);
  pairs->resize(tmp.size());
  for (size_t i = 0; i < tmp.size(); i++) {
    (*pairs)[i].first = tmp[i].first;
    (*pairs)[i].second = tmp[i].second;
  }
}

template <class T>
void ReadField(std::istream &is, bool binary, const char *token, T *value) {
  ExpectToken(is, binary, token);
  ReadBasicType(is, binary, value);
}

template <class T>
void WriteField(std::ostream &os, bool binary, const char *token, T value) {
  WriteToken(os, binary, token);
  WriteBasicType(os, binary, value);
}

// Row r of m is divided by d(r).
void DivideRows(const CuVectorBase<BaseFloat> &d_cu,
                CuMatrixBase<BaseFloat> *m_cu) {
  NNET3_ASSERT(d_cu.Dim() == m_cu->NumRows());
  m_cu->DivRowsVec(d_cu);
}

}  // namespace

// ---- Precomputed indexes ----------------------------------------------------

ComponentPrecomputedIndexes *
StatisticsExtractionComponentPrecomputedIndexes::Copy() const {
  auto *ans = new StatisticsExtractionComponentPrecomputedIndexes();
  ans->forward_indexes = forward_indexes;
  ans->counts = counts;
  ans->backward_indexes = backward_indexes;
  return ans;
}

void StatisticsExtractionComponentPrecomputedIndexes::Write(std::ostream &os,
                                                            bool binary) const {
  WriteToken(os, binary, "<StatisticsExtractionComponentPrecomputedIndexes>");
  WriteToken(os, binary, "<ForwardIndexes>");
  WritePairs(os, binary, forward_indexes);
  WriteToken(os, binary, "<Counts>");
  counts.Write(os, binary);
  WriteToken(os, binary, "<BackwardIndexes>");
  WriteIntegerVector(os, binary, backward_indexes);
  WriteToken(os, binary, "</StatisticsExtractionComponentPrecomputedIndexes>");
}

void StatisticsExtractionComponentPrecomputedIndexes::Read(std::istream &is,
                                                           bool binary) {
  ExpectOneOrTwoTokens(is, binary,
                       "<StatisticsExtractionComponentPrecomputedIndexes>",
                       "<ForwardIndexes>");
  forward_cu.Clear();
  counts_cu.Clear();
  backward_cu.Clear();
  ReadPairs(is, binary, &forward_indexes);
  ExpectToken(is, binary, "<Counts>");
  counts.Read(is, binary);
  ExpectToken(is, binary, "<BackwardIndexes>");
  ReadIntegerVector(is, binary, &backward_indexes);
  ExpectToken(is, binary, "</StatisticsExtractionComponentPrecomputedIndexes>");
  if (counts.Dim() != static_cast<int32>(forward_indexes.size()))
    NNET3_ERR << "StatisticsExtractionComponentPrecomputedIndexes: "
              << counts.Dim() << " counts for " << forward_indexes.size()
              << " forward indexes";
}

ComponentPrecomputedIndexes *
StatisticsPoolingComponentPrecomputedIndexes::Copy() const {
  auto *ans = new StatisticsPoolingComponentPrecomputedIndexes();
  ans->forward_indexes = forward_indexes;
  ans->backward_indexes = backward_indexes;
  return ans;
}

void StatisticsPoolingComponentPrecomputedIndexes::Write(std::ostream &os,
                                                         bool binary) const {
  WriteToken(os, binary, "<StatisticsPoolingComponentPrecomputedIndexes>");
  WriteToken(os, binary, "<ForwardIndexes>");
  WritePairs(os, binary, forward_indexes);
  WriteToken(os, binary, "<BackwardIndexes>");
  WritePairs(os, binary, backward_indexes);
  WriteToken(os, binary, "</StatisticsPoolingComponentPrecomputedIndexes>");
}

void StatisticsPoolingComponentPrecomputedIndexes::Read(std::istream &is,
                                                        bool binary) {
  ExpectOneOrTwoTokens(is, binary,
                       "<StatisticsPoolingComponentPrecomputedIndexes>",
                       "<ForwardIndexes>");
  forward_cu.Clear();
  backward_cu.Clear();
  ReadPairs(is, binary, &forward_indexes);
  ExpectToken(is, binary, "<BackwardIndexes>");
  ReadPairs(is, binary, &backward_indexes);
  ExpectToken(is, binary, "</StatisticsPoolingComponentPrecomputedIndexes>");
}

// ---- StatisticsExtractionComponent -----------------------------------------

void StatisticsExtractionComponent::InitFromConfig(ConfigLine *cfl) {
  input_dim_ = -1;
  input_period_ = 1;
  output_period_ = 1;
  include_variance_ = true;
  if (!cfl->GetValue("input-dim", &input_dim_))
    NNET3_ERR << Type() << ": input-dim is required";
  cfl->GetValue("input-period", &input_period_);
  cfl->GetValue("output-period", &output_period_);
  cfl->GetValue("include-variance", &include_variance_);
  CheckNoUnusedValues(*cfl, *this);
  Check();
}

void StatisticsExtractionComponent::Check() const {
  if (input_dim_ <= 0)
    NNET3_ERR << Type() << ": input-dim=" << input_dim_ << " must be > 0";
  if (input_period_ <= 0)
    NNET3_ERR << Type() << ": input-period=" << input_period_
              << " must be > 0";
  if (output_period_ <= 0)
    NNET3_ERR << Type() << ": output-period=" << output_period_
              << " must be > 0";
  if (output_period_ % input_period_ != 0)
    NNET3_ERR << Type() << ": output-period=" << output_period_
              << " must be a multiple of input-period=" << input_period_;
}

int32 StatisticsExtractionComponent::Properties() const {
  return kPropagateAdds | kReordersIndexes |
         (include_variance_ ? kBackpropNeedsInput : 0);
}

int64 StatisticsExtractionComponent::BlockStart(int32 t) const {
  // Floor division (C++ division truncates towards zero).
  int64 q = t / output_period_;
  if (q * output_period_ > t) q--;
  return q * output_period_;
}

void StatisticsExtractionComponent::GetInputIndexes(
    const MiscComputationInfo &, const Index &output_index,
    std::vector<Index> *desired_indexes) const {
  desired_indexes->clear();
  int64 begin = BlockStart(output_index.t);
  Index in_index(output_index);
  ForEachTime(begin, begin + output_period_ - 1, input_period_, [&](int32 t) {
    in_index.t = t;
    desired_indexes->push_back(in_index);
    return true;
  });
}

bool StatisticsExtractionComponent::IsComputable(
    const MiscComputationInfo &, const Index &output_index,
    const IndexSet &input_index_set, std::vector<Index> *used_inputs) const {
  // Computable when any frame of the block is there; all present frames
  // are used.
  if (used_inputs != nullptr) used_inputs->clear();
  bool any = false;
  int64 begin = BlockStart(output_index.t);
  Index in_index(output_index);
  ForEachTime(begin, begin + output_period_ - 1, input_period_, [&](int32 t) {
    in_index.t = t;
    if (!input_index_set(in_index)) return true;
    any = true;
    if (used_inputs == nullptr) return false;
    used_inputs->push_back(in_index);
    return true;
  });
  return any;
}

void StatisticsExtractionComponent::ReorderIndexes(
    std::vector<Index> *input_indexes,
    std::vector<Index> *output_indexes) const {
  SortByNxt(input_indexes);
  SortByNxt(output_indexes);
}

ComponentPrecomputedIndexes *StatisticsExtractionComponent::PrecomputeIndexes(
    const MiscComputationInfo &, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool need_backprop) const {
  RowOfIndex input_row;
  MapRows(input_indexes, &input_row);
  int32 num_out = output_indexes.size(), num_in = input_indexes.size();
  Int32Pair none;
  none.first = -1;
  none.second = -1;
  std::vector<Int32Pair> ranges(num_out, none);
  std::vector<int32> owner(num_in, -1);
  Vector<BaseFloat> counts(num_out);
  for (int32 o = 0; o < num_out; o++) {
    const Index &out_index = output_indexes[o];
    int64 begin = BlockStart(out_index.t);
    Index in_index(out_index);
    ForEachTime(begin, begin + output_period_ - 1, input_period_, [&](int32 t) {
      in_index.t = t;
      auto it = input_row.find(in_index);
      if (it == input_row.end()) return true;
      ExtendRange(it->second, &ranges[o]);
      counts(o) += 1.0;
      // Blocks do not overlap, so each input row may feed one output row
      // only; two requested outputs in one block break that.
      if (owner[it->second] != -1)
        NNET3_ERR << Type() << ": outputs at t="
                  << output_indexes[owner[it->second]].t << " and t="
                  << out_index.t << " use the same block of "
                  << "output-period=" << output_period_
                  << " frames; read this component through Round(name, "
                  << output_period_ << ")";
      owner[it->second] = o;
      return true;
    });
    NNET3_ASSERT(counts(o) != 0.0 && "output row with no input rows");
  }
  for (int32 i = 0; i < num_in; i++)
    NNET3_ASSERT(owner[i] != -1 && "input row that no output row uses");
  auto *ans = new StatisticsExtractionComponentPrecomputedIndexes();
  ans->forward_indexes.swap(ranges);
  ans->counts.Swap(&counts);
  if (need_backprop) ans->backward_indexes.swap(owner);
  return ans;
}

void *StatisticsExtractionComponent::Propagate(
    const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &in, CuMatrixBase<BaseFloat> *out) const {
  const auto *indexes =
      dynamic_cast<const StatisticsExtractionComponentPrecomputedIndexes *>(
          indexes_in);
  NNET3_ASSERT(indexes != nullptr && "needs its precomputed indexes");
  int32 rows = out->NumRows(), d = input_dim_;
  NNET3_ASSERT(static_cast<int32>(indexes->forward_indexes.size()) == rows &&
               indexes->counts.Dim() == rows && in.NumCols() == d &&
               out->NumCols() == OutputDim());
  // kPropagateAdds: the count column and the sums are added to *out.
  const bool dev = out->OnDevice();
  out->ColRange(0, 1).AddVecToCols(1.0,
                                   indexes->counts_cu.Get(indexes->counts, dev));
  const CuArray<Int32Pair> &ranges =
      indexes->forward_cu.Get(indexes->forward_indexes, dev);
  CuSubMatrix<BaseFloat> sums(*out, 0, rows, 1, d);
  sums.AddRowRanges(in, ranges);
  if (include_variance_) {
    CuMatrix<BaseFloat> squares(in);
    squares.ApplyPow(2.0);
    CuSubMatrix<BaseFloat> sum_squares(*out, 0, rows, 1 + d, d);
    sum_squares.AddRowRanges(squares, ranges);
  }
  return nullptr;
}

void StatisticsExtractionComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &in_value, const CuMatrixBase<BaseFloat> &,
    const CuMatrixBase<BaseFloat> &out_deriv, void *, Component *,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  const auto *indexes =
      dynamic_cast<const StatisticsExtractionComponentPrecomputedIndexes *>(
          indexes_in);
  NNET3_ASSERT(indexes != nullptr && "needs its precomputed indexes");
  int32 d = input_dim_, rows_in = in_deriv->NumRows();
  const std::vector<int32> &owner = indexes->backward_indexes;
  NNET3_ASSERT(static_cast<int32>(owner.size()) == rows_in &&
               "precomputed without backprop");
  // The count does not depend on the input; the sum's derivative is copied
  // back to each frame; the sum of squares contributes 2 x.
  in_deriv->SetZero();
  const CuArray<int32> &owner_cu =
      indexes->backward_cu.Get(owner, in_deriv->OnDevice());
  CuSubMatrix<BaseFloat> sum_deriv(out_deriv, 0, out_deriv.NumRows(), 1, d);
  in_deriv->AddRows(1.0, sum_deriv, owner_cu);
  if (include_variance_) {
    NNET3_ASSERT(in_value.NumRows() == rows_in);
    CuSubMatrix<BaseFloat> sq_deriv(out_deriv, 0, out_deriv.NumRows(), 1 + d,
                                    d);
    CuMatrix<BaseFloat> per_frame(rows_in, d, kUndefined);
    per_frame.CopyRows(sq_deriv, owner_cu);
    in_deriv->AddMatMatElements(2.0, per_frame, in_value, 1.0);
  }
}

Component *StatisticsExtractionComponent::Copy() const {
  auto *ans = new StatisticsExtractionComponent();
  ans->input_dim_ = input_dim_;
  ans->input_period_ = input_period_;
  ans->output_period_ = output_period_;
  ans->include_variance_ = include_variance_;
  return ans;
}

void StatisticsExtractionComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<StatisticsExtractionComponent>",
                       "<InputDim>");
  ReadBasicType(is, binary, &input_dim_);
  ReadField(is, binary, "<InputPeriod>", &input_period_);
  ReadField(is, binary, "<OutputPeriod>", &output_period_);
  // Kaldi's spelling.
  ReadField(is, binary, "<IncludeVarinance>", &include_variance_);
  ExpectToken(is, binary, "</StatisticsExtractionComponent>");
  Check();
}

void StatisticsExtractionComponent::Write(std::ostream &os,
                                          bool binary) const {
  WriteToken(os, binary, "<StatisticsExtractionComponent>");
  WriteField(os, binary, "<InputDim>", input_dim_);
  WriteField(os, binary, "<InputPeriod>", input_period_);
  WriteField(os, binary, "<OutputPeriod>", output_period_);
  WriteField(os, binary, "<IncludeVarinance>", include_variance_);
  WriteToken(os, binary, "</StatisticsExtractionComponent>");
}

// ---- StatisticsPoolingComponent --------------------------------------------

void StatisticsPoolingComponent::InitFromConfig(ConfigLine *cfl) {
  input_dim_ = -1;
  input_period_ = 1;
  left_context_ = -1;
  right_context_ = -1;
  num_log_count_features_ = 0;
  output_stddevs_ = false;
  variance_floor_ = 1.0e-10;
  if (!cfl->GetValue("input-dim", &input_dim_))
    NNET3_ERR << Type() << ": input-dim is required";
  cfl->GetValue("input-period", &input_period_);
  cfl->GetValue("left-context", &left_context_);
  cfl->GetValue("right-context", &right_context_);
  cfl->GetValue("num-log-count-features", &num_log_count_features_);
  cfl->GetValue("output-stddevs", &output_stddevs_);
  cfl->GetValue("variance-floor", &variance_floor_);
  CheckNoUnusedValues(*cfl, *this);
  // Kaldi's config-time test: the context is checked as a sum first, so
  // that leaving both out is reported as such.
  if (int64(left_context_) + right_context_ <= 0)
    NNET3_ERR << Type() << ": left-context=" << left_context_
              << " right-context=" << right_context_
              << " (both >= 0, sum > 0 required)";
  Check();
}

void StatisticsPoolingComponent::Check() const {
  if (input_dim_ <= 0)
    NNET3_ERR << Type() << ": input-dim=" << input_dim_ << " must be > 0";
  if (input_period_ <= 0)
    NNET3_ERR << Type() << ": input-period=" << input_period_
              << " must be > 0";
  if (left_context_ < 0)
    NNET3_ERR << Type() << ": left-context=" << left_context_
              << " must be >= 0";
  if (right_context_ < 0)
    NNET3_ERR << Type() << ": right-context=" << right_context_
              << " must be >= 0";
  if (int64(left_context_) + right_context_ <= 0)
    NNET3_ERR << Type() << ": left-context + right-context must be > 0";
  if (left_context_ % input_period_ != 0)
    NNET3_ERR << Type() << ": left-context=" << left_context_
              << " must be a multiple of input-period=" << input_period_;
  if (right_context_ % input_period_ != 0)
    NNET3_ERR << Type() << ": right-context=" << right_context_
              << " must be a multiple of input-period=" << input_period_;
  if (num_log_count_features_ < 0)
    NNET3_ERR << Type() << ": num-log-count-features="
              << num_log_count_features_ << " must be >= 0";
  if (!(variance_floor_ > 0.0 && variance_floor_ < 1.0))
    NNET3_ERR << Type() << ": variance-floor=" << variance_floor_
              << " must be in (0, 1)";
  if (output_stddevs_ && (input_dim_ - 1) % 2 != 0)
    NNET3_ERR << Type() << ": output-stddevs=true needs input-dim=2k+1 "
              << "(count, sums, sums of squares), not input-dim="
              << input_dim_;
}

int32 StatisticsPoolingComponent::Properties() const {
  int32 props = kReordersIndexes | kBackpropAdds;
  if (output_stddevs_ || num_log_count_features_ > 0)
    props |= kBackpropNeedsOutput;
  if (num_log_count_features_ == 0) props |= kBackpropNeedsInput;
  return props;
}

void StatisticsPoolingComponent::GetInputIndexes(
    const MiscComputationInfo &, const Index &output_index,
    std::vector<Index> *desired_indexes) const {
  desired_indexes->clear();
  int32 center = output_index.t;
  if (center % input_period_ != 0)
    NNET3_ERR << Type() << ": output requested at t=" << center
              << ", which is not a multiple of input-period=" << input_period_
              << " (use Round() to reach this component)";
  Index in_index(output_index);
  ForEachTime(int64(center) - left_context_, int64(center) + right_context_,
              input_period_, [&](int32 t) {
    in_index.t = t;
    desired_indexes->push_back(in_index);
    return true;
  });
}

bool StatisticsPoolingComponent::IsComputable(
    const MiscComputationInfo &, const Index &output_index,
    const IndexSet &input_index_set, std::vector<Index> *used_inputs) const {
  if (used_inputs != nullptr) used_inputs->clear();
  int32 center = output_index.t;
  // Defined only on multiples of the input period (same sign rule as C's %).
  if (center % input_period_ != 0) return false;
  bool any = false;
  Index in_index(output_index);
  ForEachTime(int64(center) - left_context_, int64(center) + right_context_,
              input_period_, [&](int32 t) {
    in_index.t = t;
    if (!input_index_set(in_index)) return true;
    any = true;
    if (used_inputs == nullptr) return false;
    used_inputs->push_back(in_index);
    return true;
  });
  return any;
}

void StatisticsPoolingComponent::ReorderIndexes(
    std::vector<Index> *input_indexes,
    std::vector<Index> *output_indexes) const {
  SortByNxt(input_indexes);
  SortByNxt(output_indexes);
}

ComponentPrecomputedIndexes *StatisticsPoolingComponent::PrecomputeIndexes(
    const MiscComputationInfo &, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes, bool need_backprop) const {
  RowOfIndex input_row;
  MapRows(input_indexes, &input_row);
  int32 num_out = output_indexes.size(), num_in = input_indexes.size();
  Int32Pair none;
  none.first = -1;
  none.second = -1;
  std::vector<Int32Pair> window(num_out, none), users(num_in, none);
  for (int32 o = 0; o < num_out; o++) {
    Index in_index(output_indexes[o]);
    int32 center = in_index.t;
    ForEachTime(int64(center) - left_context_, int64(center) + right_context_,
                input_period_, [&](int32 t) {
      in_index.t = t;
      auto it = input_row.find(in_index);
      if (it == input_row.end()) return true;
      ExtendRange(it->second, &window[o]);
      ExtendRange(o, &users[it->second]);
      return true;
    });
    NNET3_ASSERT(window[o].first != -1 && "output row with no input rows");
  }
  for (int32 i = 0; i < num_in; i++)
    NNET3_ASSERT(users[i].first != -1 && "input row that no output row uses");
  auto *ans = new StatisticsPoolingComponentPrecomputedIndexes();
  ans->forward_indexes.swap(window);
  if (need_backprop) ans->backward_indexes.swap(users);
  return ans;
}

void *StatisticsPoolingComponent::Propagate(
    const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &in, CuMatrixBase<BaseFloat> *out) const {
  const auto *indexes =
      dynamic_cast<const StatisticsPoolingComponentPrecomputedIndexes *>(
          indexes_in);
  NNET3_ASSERT(indexes != nullptr && "needs its precomputed indexes");
  int32 rows = out->NumRows(), num_stats = input_dim_ - 1,
        nlc = num_log_count_features_;
  NNET3_ASSERT(static_cast<int32>(indexes->forward_indexes.size()) == rows &&
               in.NumCols() == input_dim_ && out->NumCols() == OutputDim());
  out->SetZero();
  // Total count per window (a one-column view of 'counts').
  const CuArray<Int32Pair> &ranges =
      indexes->forward_cu.Get(indexes->forward_indexes, out->OnDevice());
  CuVector<BaseFloat> counts(rows);
  CuSubMatrix<BaseFloat> counts_col(counts.Data(), rows, 1, 1);
  counts_col.AddRowRanges(in.ColRange(0, 1), ranges);
  // Window sums of the other columns, divided by the count.
  CuSubMatrix<BaseFloat> means(*out, 0, rows, nlc, num_stats);
  means.AddRowRanges(in.ColRange(1, num_stats), ranges);
  DivideRows(counts, &means);
  if (nlc > 0) {
    // The log-count columns.
    CuVector<BaseFloat> log_counts(counts);
    log_counts.ApplyLog();
    for (int32 c = 0; c < nlc; c++) out->CopyColFromVec(log_counts, c);
  }
  if (output_stddevs_) {
    // Second half: E[x^2] -> sqrt(max(E[x^2] - E[x]^2, floor)).
    int32 f = num_stats / 2;
    CuSubMatrix<BaseFloat> mean(*out, 0, rows, nlc, f),
        spread(*out, 0, rows, nlc + f, f);
    spread.AddMatMatElements(-1.0, mean, mean, 1.0);
    spread.ApplyFloor(variance_floor_);
    spread.ApplyPow(0.5);
  }
  return nullptr;
}

void StatisticsPoolingComponent::Backprop(
    const std::string &, const ComponentPrecomputedIndexes *indexes_in,
    const CuMatrixBase<BaseFloat> &in_value,
    const CuMatrixBase<BaseFloat> &out_value,
    const CuMatrixBase<BaseFloat> &out_deriv_in, void *, Component *,
    CuMatrixBase<BaseFloat> *in_deriv) const {
  if (in_deriv == nullptr) return;
  const auto *indexes =
      dynamic_cast<const StatisticsPoolingComponentPrecomputedIndexes *>(
          indexes_in);
  NNET3_ASSERT(indexes != nullptr && "needs its precomputed indexes");
  int32 rows = out_deriv_in.NumRows(), num_stats = input_dim_ - 1,
        nlc = num_log_count_features_;
  NNET3_ASSERT(static_cast<int32>(indexes->backward_indexes.size()) ==
                   in_deriv->NumRows() &&
               "precomputed without backprop");
  CuMatrix<BaseFloat> deriv(out_deriv_in);
  if (output_stddevs_) {
    // Through s = sqrt(v), v = E[x^2] - m^2 (the floor is ignored, as Kaldi
    // does): dF/dv = dF/ds / (2 s) and dF/dm gets -2 m dF/dv.
    int32 f = num_stats / 2;
    CuSubMatrix<BaseFloat> d_mean(deriv, 0, rows, nlc, f),
        d_spread(deriv, 0, rows, nlc + f, f),
        mean(out_value, 0, rows, nlc, f),
        stddev(out_value, 0, rows, nlc + f, f);
    d_spread.DivElements(stddev);
    d_spread.Scale(0.5);
    d_mean.AddMatMatElements(-2.0, mean, d_spread, 1.0);
  }
  // The window count: from the log-count output when there is one, else
  // summed again from the input.
  CuVector<BaseFloat> counts(rows);
  if (nlc > 0) {
    counts.CopyColFromMat(out_value, 0);
    counts.ApplyExp();
  } else {
    CuSubMatrix<BaseFloat> counts_col(counts.Data(), rows, 1, 1);
    counts_col.AddRowRanges(
        in_value.ColRange(0, 1),
        indexes->forward_cu.Get(indexes->forward_indexes, in_deriv->OnDevice()));
  }
  DivideRows(counts, &deriv);
  // Each input row gets the sum over the windows it is in; the count column
  // is treated as constant (no derivative).
  CuSubMatrix<BaseFloat> stats_deriv(*in_deriv, 0, in_deriv->NumRows(), 1,
                                     num_stats);
  stats_deriv.AddRowRanges(
      deriv.ColRange(nlc, num_stats),
      indexes->backward_cu.Get(indexes->backward_indexes,
                               in_deriv->OnDevice()));
}

Component *StatisticsPoolingComponent::Copy() const {
  auto *ans = new StatisticsPoolingComponent();
  ans->input_dim_ = input_dim_;
  ans->input_period_ = input_period_;
  ans->left_context_ = left_context_;
  ans->right_context_ = right_context_;
  ans->num_log_count_features_ = num_log_count_features_;
  ans->output_stddevs_ = output_stddevs_;
  // Kaldi's copy does not carry the floor over; copies get the default.
  ans->variance_floor_ = 1.0e-10;
  return ans;
}

void StatisticsPoolingComponent::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<StatisticsPoolingComponent>",
                       "<InputDim>");
  ReadBasicType(is, binary, &input_dim_);
  ReadField(is, binary, "<InputPeriod>", &input_period_);
  ReadField(is, binary, "<LeftContext>", &left_context_);
  ReadField(is, binary, "<RightContext>", &right_context_);
  ReadField(is, binary, "<NumLogCountFeatures>", &num_log_count_features_);
  ReadField(is, binary, "<OutputStddevs>", &output_stddevs_);
  ReadField(is, binary, "<VarianceFloor>", &variance_floor_);
  ExpectToken(is, binary, "</StatisticsPoolingComponent>");
  Check();
}

void StatisticsPoolingComponent::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<StatisticsPoolingComponent>");
  WriteField(os, binary, "<InputDim>", input_dim_);
  WriteField(os, binary, "<InputPeriod>", input_period_);
  WriteField(os, binary, "<LeftContext>", left_context_);
  WriteField(os, binary, "<RightContext>", right_context_);
  WriteField(os, binary, "<NumLogCountFeatures>", num_log_count_features_);
  WriteField(os, binary, "<OutputStddevs>", output_stddevs_);
  WriteField(os, binary, "<VarianceFloor>", variance_floor_);
  WriteToken(os, binary, "</StatisticsPoolingComponent>");
}

void RegisterStatisticsComponents(ComponentRegistry *r) {
  r->Add("StatisticsExtractionComponent",
         [] { return new StatisticsExtractionComponent(); });
  r->Add("StatisticsPoolingComponent",
         [] { return new StatisticsPoolingComponent(); });
  r->AddPrecomputedIndexes(
      "StatisticsExtractionComponentPrecomputedIndexes",
      [] { return new StatisticsExtractionComponentPrecomputedIndexes(); });
  r->AddPrecomputedIndexes(
      "StatisticsPoolingComponentPrecomputedIndexes",
      [] { return new StatisticsPoolingComponentPrecomputedIndexes(); });
}

}  // namespace nnet3
