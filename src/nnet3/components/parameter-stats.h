// nnet3/components/parameter-stats.h
// The parameter summaries that components append to their Info() line, in
// Kaldi's exact wording and number formatting (nnet3-info output is
// compared with Kaldi's): ", NAME-rms=..." or ", NAME-{mean,stddev}=m,s"
// at 4 significant digits, optional row/column norms summarized as a list
// (fewer than 10 values) or as percentiles, mean and stddev.
// The stream's precision is left at the default (6) afterwards.
#ifndef NNET3_NNET3_COMPONENTS_PARAMETER_STATS_H_
#define NNET3_NNET3_COMPONENTS_PARAMETER_STATS_H_

#include <sstream>
#include <string>

#include "cudamatrix/cu-matrix.h"

namespace nnet3 {

// "[ a b c ]" (2 significant digits, trailing zeros kept) for fewer than 10
// values; otherwise Kaldi's summary: thirteen percentiles from the minimum
// to the maximum, then the mean and the standard deviation (the exact text
// is in parameter-stats.cc, since scripts parse it).
std::string SummarizeVector(const VectorBase<BaseFloat> &vec);
// The same for a Cu vector (copied to the host first).
std::string SummarizeVector(const CuVectorBase<BaseFloat> &vec);

void PrintParameterStats(std::ostringstream &os, const std::string &name,
                         const CuVectorBase<BaseFloat> &params,
                         bool include_mean = false);

void PrintParameterStats(std::ostringstream &os, const std::string &name,
                         const CuMatrixBase<BaseFloat> &params,
                         bool include_mean = false,
                         bool include_row_norms = false,
                         bool include_column_norms = false);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_PARAMETER_STATS_H_
