// nnet3/optimize/deriv-time.h
// Derivative-time limiting (--min-deriv-time / --max-deriv-time, Kaldi's
// LimitDerivativeTimes): derivatives are only computed for Indexes with
// min_deriv_time <= t <= max_deriv_time; every row of a derivative matrix
// (matrix_debug_info is_deriv) whose t is outside that range is treated as
// zero. Commands that write such rows are restricted to the in-range rows
// (or removed when nothing in range is left), backprop commands whose
// output derivative lies entirely outside the range are removed (so those
// steps neither update the model nor pass derivatives on), derivative
// matrices that end up unused are removed and those used only inside the
// range shrink to it. The backward flow is therefore cut at the limits:
// input derivatives outside the range come out zero, and those inside it
// (and the model update) are what back-propagation gives when the
// derivative w.r.t. every Cindex outside the range is taken as zero.
// Needs: a freshly compiled computation (matrices zeroed when allocated,
// matrix_debug_info filled, no swaps, compression or loops). Keeps: the
// forward pass and the outputs exactly; the computation passes the checker.
#ifndef NNET3_NNET3_OPTIMIZE_DERIV_TIME_H_
#define NNET3_NNET3_OPTIMIZE_DERIV_TIME_H_

#include "nnet3/compile/computation.h"
#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// Limits 'computation' (compiled for 'nnet') as described above. Does
// nothing when min_deriv_time == INT_MIN and max_deriv_time == INT_MAX;
// errors (UserError) if min_deriv_time > max_deriv_time or the debug info
// is missing, and on command types that a fresh computation does not have.
void LimitDerivativeTimes(const Nnet &nnet, int32 min_deriv_time,
                          int32 max_deriv_time, NnetComputation *computation);

// The largest t of any output Index in the request (for
// --max-deriv-time-relative); errors (UserError) if there is none.
int32 MaxOutputTimeInRequest(const ComputationRequest &request);

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_DERIV_TIME_H_
