// nnet3/nnet/nnet-svd.h
// The two SVD-based edit directives of nnet3-copy (see nnet-edit.h), with
// Kaldi's semantics:
//
//   reduce-rank name=<pattern> rank=<r>
//     Each AffineComponent (or NaturalGradientAffineComponent) whose name
//     matches keeps its type, dims and bias, but its linear parameters W
//     are replaced by their best rank-r approximation (the r largest
//     singular values of W and their vectors). Matching components of other
//     types, and those with input-dim <= r or output-dim <= r, are skipped
//     with a warning.
//
//   apply-svd name=<pattern> [bottleneck-dim=<d>] [energy-threshold=<e>]
//             [shrinkage-threshold=<t>]
//     Each matching affine component C (dims in -> out) is factored as
//     W ~= B A through a bottleneck of dim d: a LinearComponent "C_a"
//     (d x in, A = sqrt(S_d) Vt_d) followed by a NaturalGradientAffineComponent
//     "C_b" (out x d, B = U_d sqrt(S_d), C's bias), both taking C's
//     learning rate, learning-rate factor, max-change and l2. Every
//     component node N using C becomes the two nodes "N_a" (input: N's
//     input) and "N_b" (input: N_a); whatever referred to N now refers to
//     N_b, and then orphan nodes and components are removed (so C and N
//     disappear). With energy-threshold=e in (0, 1], d is instead the
//     smallest count of leading singular values whose squares sum to at
//     least e times the total. A component is left alone (logged) when its
//     shrinkage ratio d (in + out) / (in * out) exceeds shrinkage-threshold
//     (default 1.0, at most 1); skipped with a warning when it is not
//     affine or when in or out <= the current d. As in Kaldi, d is one value
//     carried from component to component: with energy-threshold the value
//     chosen for one component is the one the next component's size check
//     sees.
//
// The SVD is computed in double (matrix/svd.h); Kaldi's is in float, so the
// resulting parameters agree with Kaldi's only to float rounding, and the
// singular vectors (hence A and B) may differ from Kaldi's in sign.
#ifndef NNET3_NNET3_NNET_NNET_SVD_H_
#define NNET3_NNET3_NNET_NNET_SVD_H_

#include <string>

#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// reduce-rank (rank > 0). Returns the number of components changed.
int32 ReduceRankOfComponents(const std::string &name_pattern, int32 rank,
                             Nnet *nnet);

struct ApplySvdOptions {
  int32 bottleneck_dim = -1;          // used when energy_threshold <= 0
  BaseFloat energy_threshold = -1.0;  // in (0, 1] to choose d from energy
  BaseFloat shrinkage_threshold = 1.0;
};

// apply-svd. Throws a UserError for options out of range (neither a
// positive bottleneck-dim nor a positive energy-threshold, a threshold
// above 1) or when a new component or node name is already taken. Returns
// the number of components decomposed.
int32 ApplySvdToComponents(const std::string &name_pattern,
                           const ApplySvdOptions &opts, Nnet *nnet);

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_NNET_SVD_H_
