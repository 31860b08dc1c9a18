// nnet3/analyze/validate.h
// Validation of an NnetComputation that comes from outside the program (a
// --read-cache file, a computation read from disk) before anything uses it.
// The ComputationChecker (checker.h) is written for computations this
// program compiled and may itself index out of range on garbage; the
// structural pass here never reads outside any table, whatever the
// computation holds, and once it passes the checker's semantic checks are
// safe to run.
//
// ValidateComputationStructure checks, in this order (the first failure
// throws):
//  - tables: matrix 0 is the empty matrix and every other matrix has
//    positive dimensions and fewer than 2^31 elements; matrix_debug_info is
//    empty or one entry per matrix with one cindex per row; submatrix 0 is
//    the empty submatrix and every other one names a matrix in range and
//    lies inside it (64-bit arithmetic); precomputed-indexes entry 0 is
//    empty and every other one holds an object; the variables the analysis
//    would create (analyze.h) stay under a bound, so the checker cannot be
//    made to allocate without limit;
//  - every command, by type: alpha finite; submatrix arguments in range and
//    non-zero where a submatrix is required, whole matrices where the
//    command needs one; component indexes in range, column counts equal to
//    the component's input/output dims; precomputed-indexes indexes in
//    range (non-zero for non-simple components) with as many input/output
//    Indexes as the submatrices have rows; 'indexes', 'indexes_multi' and
//    'indexes_ranges' indexes in range, one entry per row, and every entry
//    inside the submatrix it addresses; compression type, truncate flag and
//    range; network nodes in range, of the right kind and dimension;
//    kGotoLabel pointing back to a kNoOperationLabel and being last;
//  - with a request: its inputs are input nodes and its outputs output
//    nodes; every kAcceptInput / kProvideOutput matrix has as many rows as
//    the request has Indexes for that node, and every request input and
//    output (and every derivative it asks for) is accepted or provided.
// ValidateComputation runs that, then recomputes every precomputed-indexes
// object from its stored Index lists with the component that uses it and
// requires the stored one to be identical (so a component never sees
// indexes that do not fit its matrices), then runs CheckComputation().
//
// Failures are one UserError line naming the command ("command c17
// (kMatrixCopy): source submatrix index 912 is out of range (the
// computation has 40 submatrices)") or the table entry concerned.
#ifndef NNET3_NNET3_ANALYZE_VALIDATE_H_
#define NNET3_NNET3_ANALYZE_VALIDATE_H_

#include "nnet3/compile/computation.h"
#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// The structural pass described above; 'request' may be null (then the
// request checks are skipped). Never reads out of range.
void ValidateComputationStructure(const Nnet &nnet,
                                  const ComputationRequest *request,
                                  const NnetComputation &computation);

// The structural pass, the precomputed-indexes comparison and
// CheckComputation(); an internal check that fails inside the checker or a
// component (InternalError) is reported as a UserError too.
void ValidateComputation(const Nnet &nnet, const ComputationRequest &request,
                         const NnetComputation &computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_ANALYZE_VALIDATE_H_
