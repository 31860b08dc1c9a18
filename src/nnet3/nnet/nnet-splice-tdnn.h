// nnet3/nnet/nnet-splice-tdnn.h
// ComputeSplicedAffinesAsTdnn(): for networks about to be computed (not
// trained or written), turns each affine that reads one node spliced at
// several time offsets, such as input=Append(Offset(X, -3), X, Offset(X, 3)),
// into a TdnnComponent with those time offsets that reads X itself. The
// function is the same (up to float rounding: the product is summed one
// offset at a time), but the computation no longer builds the spliced
// matrix: each offset is one matrix product on a row-shifted view of X.
// For the wide layers of a TDNN that saves the copies that fill the spliced
// matrix and, since the spliced matrix is as wide as all the offsets
// together, most of the memory a chunk needs.
//
// A node is rewritten only when all of these hold, so that the rewrite
// never changes what is computable or computed:
//  - its component is an AffineComponent or NaturalGradientAffineComponent
//    that no other node uses (the parameters move into the new component
//    by swapping, not copying);
//  - its input is an Append of at least two parts, each X or Offset(X, t)
//    (time offset only, scale 1) of the same node X, with strictly
//    increasing time offsets (as TdnnComponent's config requires);
//  - X is at least 'min_part_dim' wide: with narrow parts the per-offset
//    products are too small to run at full speed, and the spliced matrix
//    is small anyway.
// The network keeps its node and component names; models rewritten here
// must not be written out as Kaldi's (the tools that call this only
// compute).
//
// SplicedAffinesAsTdnn does the same rewrite reversibly, for training: the
// trainer applies it around each minibatch, so that the network its caller
// sees (and writes) keeps Kaldi's components, while the computation works
// on row-shifted views of X in the forward pass, the backward pass and the
// natural-gradient update (TdnnComponent's update never forms the spliced
// matrix when the output is narrower than it). The TdnnComponents get the
// affines' learning-rate settings, orthonormal constraint and, for natural
// gradient, copies of their preconditioners (options and state), so the
// update is the affine's up to float rounding.
#ifndef NNET3_NNET3_NNET_NNET_SPLICE_TDNN_H_
#define NNET3_NNET3_NNET_NNET_SPLICE_TDNN_H_

#include <vector>

#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// The part width from which the inference tools rewrite.
constexpr int32 kMinSplicedPartDimForTdnn = 256;

// Rewrites as described above; returns how many nodes it rewrote.
int32 ComputeSplicedAffinesAsTdnn(int32 min_part_dim, Nnet *nnet);

class SplicedAffinesAsTdnn {
 public:
  // Finds the nodes to rewrite in 'nnet' (not changed) and prepares a
  // TdnnComponent for each.
  SplicedAffinesAsTdnn(int32 min_part_dim, const Nnet &nnet);
  ~SplicedAffinesAsTdnn();
  int32 NumRewritten() const;
  // Rewrites 'nnet', which must be the network given to the constructor (or
  // one of the same structure, such as a copy) in its original form: the
  // parameters move into the TdnnComponents by swapping, the learning-rate
  // settings, orthonormal constraints and natural-gradient preconditioners
  // are copied, and the TdnnComponents and the Append descriptors take the
  // affines' places (kept here).
  void Apply(Nnet *nnet);
  // Undoes Apply() on the same network: the affines come back with the
  // parameters, learning-rate settings and preconditioners (state included)
  // the TdnnComponents have now.
  void Undo(Nnet *nnet);
  bool Applied() const { return applied_; }

 private:
  struct Site;
  std::vector<Site> sites_;
  bool applied_ = false;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_NNET_SPLICE_TDNN_H_
