// nnet3/train/max-change.h
// Applying a parameter change with Kaldi's max-change limits
// (UpdateNnetWithMaxChange in Kaldi's nnet-utils.cc). The change is
// 'delta_nnet' times 'scale' (the trainer passes 1 - momentum). Two limits:
//  - per component: an updatable component whose max-change c > 0 and whose
//    change has L2 norm |d| * |scale| > c * max_change_scale is scaled by
//    c * max_change_scale / (|d| * |scale|);
//  - global: if max_param_change > 0 and the L2 norm of the whole
//    (per-component scaled) change exceeds max_param_change *
//    max_change_scale, everything is scaled down to that norm.
// 0 means "no limit" for both. Non-updatable components (statistics) are
// added with the final global scale. An infinite or NaN change is not
// applied (returns false, with a warning).
// Log line when a limit is active (the text Kaldi prints, as recorded in
// the conformance data):
//   "Per-component max-change active on N / M Updatable Components.
//    (Smallest factor=F on NAME with max-change=C). " and/or
//   "Global max-change factor was G with max-change=X."
#ifndef NNET3_NNET3_TRAIN_MAX_CHANGE_H_
#define NNET3_NNET3_TRAIN_MAX_CHANGE_H_

#include <vector>

#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// num_max_change_per_component_applied has one counter per updatable
// component (resized if empty); both counters are incremented when the
// corresponding limit was active.
bool UpdateNnetWithMaxChange(const Nnet &delta_nnet,
                             BaseFloat max_param_change,
                             BaseFloat max_change_scale, BaseFloat scale,
                             Nnet *nnet,
                             std::vector<int32> *num_max_change_per_component_applied,
                             int32 *num_max_change_global_applied);

}  // namespace nnet3

#endif  // NNET3_NNET3_TRAIN_MAX_CHANGE_H_
