// nnet3/egs/example-utils.h
// What is done with examples besides reading and writing them: merging
// single examples into a minibatch, the ComputationRequest an example asks
// of a network, time shifts and size queries.
// Merging (Kaldi's MergeExamples): the NnetIo of the result are the union of
// the names, sorted by name; member k of the minibatch gets n = k in every
// Index it contributes, and its rows follow those of member k - 1 (so rows
// are n-major). Merging examples that already have n != 0 is a UserError, as
// are inconsistent feature dims for one name.
#ifndef NNET3_NNET3_EGS_EXAMPLE_UTILS_H_
#define NNET3_NNET3_EGS_EXAMPLE_UTILS_H_

#include <string>
#include <vector>

#include "nnet3/compile/request.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// *merged = the minibatch made of src (src must not be empty). With
// compress, full matrices of the result are compressed (kAutomaticMethod).
void MergeExamples(const std::vector<NnetExample> &src, bool compress,
                   NnetExample *merged);

// Adds t_offset to the t of every Index of every NnetIo whose name is not
// in exclude_names (e.g. "ivector").
void ShiftExampleTimes(int32 t_offset,
                       const std::vector<std::string> &exclude_names,
                       NnetExample *eg);

// The request for a forward (and, with need_model_derivative, backward)
// pass on eg: each NnetIo named after an input node becomes an input, each
// named after an output node an output (has_deriv = need_model_derivative),
// in the order of eg.io. An NnetIo naming neither is a UserError, as is an
// example with no input or no output.
void GetComputationRequest(const Nnet &nnet, const NnetExample &eg,
                           bool need_model_derivative,
                           bool store_component_stats,
                           ComputationRequest *request);

// The largest number of Indexes of any NnetIo (Kaldi's measure of example
// size, which selects the --minibatch-size rule).
int32 GetNnetExampleSize(const NnetExample &eg);

// The number of distinct n values in the Indexes of io (the minibatch size
// of a merged example); all io are looked at.
int32 GetNumNvalues(const std::vector<NnetIo> &io);

// The number of Indexes of the NnetIo named name, or -1 if there is none.
int32 NumIndexesForIo(const NnetExample &eg, const std::string &name);

}  // namespace nnet3

#endif  // NNET3_NNET3_EGS_EXAMPLE_UTILS_H_
