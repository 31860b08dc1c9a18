// nnet3/components/parameter-stats.cc
#include "nnet3/components/parameter-stats.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <vector>

namespace nnet3 {

std::string SummarizeVector(const VectorBase<BaseFloat> &vec) {
  std::ostringstream os;
  int32 dim = vec.Dim();
  if (dim < 10) {
    os << std::setprecision(2) << std::showpoint << "[ ";
    for (int32 i = 0; i < dim; i++) os << vec(i) << ' ';
    os << "]";
    return os.str();
  }
  BaseFloat mean = vec.Sum() / dim,
      stddev = std::sqrt(VecVec(vec, vec) / dim - mean * mean);
  static const int32 kPercentiles[] = {0, 1, 2, 5, 10, 20, 50,
                                       80, 90, 95, 98, 99, 100};
  const int32 num_percentiles = 13;
  std::vector<BaseFloat> sorted(vec.Data(), vec.Data() + dim);
  std::sort(sorted.begin(), sorted.end());
  int32 n = dim - 1;
  // Kaldi's layout: the list is grouped 4 + 5 + 4, groups separated by a
  // space, both in the header and in the values.
  auto separator = [&](int32 i) {
    return i + 1 == num_percentiles ? "" : (i == 3 || i == 8 ? " " : ",");
  };
  os << "[percentiles(";
  for (int32 i = 0; i < num_percentiles; i++)
    os << kPercentiles[i] << separator(i);
  os << ")=(" << std::setprecision(2) << std::showpoint;
  for (int32 i = 0; i < num_percentiles; i++)
    os << sorted[(n * kPercentiles[i]) / 100] << separator(i);
  os << std::noshowpoint << std::setprecision(3);
  os << "), mean=" << mean << ", stddev=" << stddev << "]";
  return os.str();
}

std::string SummarizeVector(const CuVectorBase<BaseFloat> &vec) {
  Vector<BaseFloat> host(vec.Dim(), kUndefined);
  vec.CopyToVec(&host);
  return SummarizeVector(host);
}

void PrintParameterStats(std::ostringstream &os, const std::string &name,
                         const CuVectorBase<BaseFloat> &params,
                         bool include_mean) {
  os << std::setprecision(4) << ", " << name << '-';
  BaseFloat dim = params.Dim(), sumsq = VecVec(params, params);
  if (include_mean) {
    BaseFloat mean = params.Sum() / dim,
        stddev = std::sqrt(sumsq / dim - mean * mean);
    os << "{mean,stddev}=" << mean << ',' << stddev;
  } else {
    os << "rms=" << std::sqrt(sumsq / dim);
  }
  os << std::setprecision(6);
}

void PrintParameterStats(std::ostringstream &os, const std::string &name,
                         const CuMatrixBase<BaseFloat> &params,
                         bool include_mean, bool include_row_norms,
                         bool include_column_norms) {
  os << std::setprecision(4) << ", " << name << '-';
  int32 rows = params.NumRows(), cols = params.NumCols();
  BaseFloat dim = static_cast<BaseFloat>(rows) * cols;
  BaseFloat sumsq = TraceMatMat(params, params, kTrans);
  if (include_mean) {
    BaseFloat mean = params.Sum() / dim,
        stddev = std::sqrt(sumsq / dim - mean * mean);
    os << "{mean,stddev}=" << mean << ',' << stddev;
  } else {
    os << "rms=" << std::sqrt(sumsq / dim);
  }
  if (include_row_norms) {
    CuVector<BaseFloat> norms(rows);
    norms.AddDiagMat2(1.0, params, kNoTrans, 0.0);
    norms.ApplyPow(0.5);
    os << ", " << name << "-row-norms=" << SummarizeVector(norms);
  }
  if (include_column_norms) {
    CuVector<BaseFloat> norms(cols);
    norms.AddDiagMat2(1.0, params, kTrans, 0.0);
    norms.ApplyPow(0.5);
    os << ", " << name << "-col-norms=" << SummarizeVector(norms);
  }
  os << std::setprecision(6);
}

}  // namespace nnet3
