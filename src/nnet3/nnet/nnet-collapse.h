// nnet3/nnet/nnet-collapse.h
// CollapseModel(): merges fixed, test-time transforms into the components
// that read them, so the network computes the same function with fewer
// components. It runs on networks about to be computed (nnet3-compute,
// nnet3-xvector-compute, nnet3-compute-prob) and, as in Kaldi, in
// nnet3-am-copy --prepare-for-test; nnet3-copy --prepare-for-test folds
// nothing (it only sets test mode, as Kaldi's does). The pairs folded here are not exactly Kaldi's
// CollapseModel's either (Kaldi also merges affine into affine and does not
// fold FixedScale/FixedBias into a following affine). A component node
// whose input is exactly another component node (no Append, Offset or
// scale in between) is rewired to that node's input with one combined
// component, when the pair is one of:
//   DropoutComponent (test mode: x * (1 - p)) -> Affine/NaturalGradientAffine/Linear
//       : the second's parameters are scaled by (1 - p);
//   GeneralDropoutComponent -> any component
//       : the dropout is bypassed (its test mode is the identity);
//   BatchNormComponent (test mode) or FixedScale/FixedBias -> Affine/
//       NaturalGradientAffine (Linear too if there is no offset)
//       : the second is pre-multiplied by the diagonal transform;
//   Affine/NaturalGradientAffine -> FixedScaleComponent
//       : the first's rows are scaled.
// Then (collapse_batchnorm_through_appends) a test-mode BatchNormComponent
// node that reads one node directly and is read only by
// Affine/NaturalGradientAffine inputs, as whole Append parts
// "bn" or "Offset(bn, t)" (the spliced layers of a TDNN), is folded into
// each of those components on the columns of its parts; they read the
// batch-norm's input there instead. Parts under IfDefined, Failover, Sum,
// Switch or Round keep the batch-norm (a missing frame reads as zero there,
// which a folded offset would change).
// Combined components get new names ("<first>.<second>", or
// "<second>.scale<s>"; a folded batch-norm gives "<bn>.<affine>", with a
// number appended if that name is taken); nodes and components no output
// uses any more are removed afterwards. Invariant: the collapsed network's outputs equal the
// original's (in test mode) up to float rounding.
#ifndef NNET3_NNET3_NNET_NNET_COLLAPSE_H_
#define NNET3_NNET3_NNET_NNET_COLLAPSE_H_

#include "nnet3/nnet/nnet.h"

namespace nnet3 {

struct CollapseModelConfig {
  bool collapse_dropout = true;
  bool collapse_batchnorm = true;
  bool collapse_scale = true;
  // The fold of batch-norms read through spliced Appends (above). It goes
  // beyond what Kaldi folds, so a tool that writes the collapsed network
  // (nnet3-am-copy --prepare-for-test) turns it off; the tools that only
  // compute keep it.
  bool collapse_batchnorm_through_appends = true;
};

void CollapseModel(const CollapseModelConfig &config, Nnet *nnet);

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_NNET_COLLAPSE_H_
