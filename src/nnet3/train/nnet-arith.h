// nnet3/train/nnet-arith.h
// Whole-network arithmetic used by training, averaging and diagnostics, with
// Kaldi's nnet-utils.cc semantics: a network is treated as the vector of its
// components' parameters and statistics. ScaleNnet (nnet-edit.h) and
// AddNnet act on every component (so stored statistics, e.g. BatchNorm
// counts, scale and add too); DotProduct and the per-component functions look at updatable
// components only, numbered in component order ("updatable index").
// Invariant: the binary functions require two networks of identical
// structure (same number and types of components); a mismatch is a
// UserError naming the component.
#ifndef NNET3_NNET3_TRAIN_NNET_ARITH_H_
#define NNET3_NNET3_TRAIN_NNET_ARITH_H_

#include <string>

#include "matrix/vector.h"
#include "nnet3/nnet/nnet-edit.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

int32 NumUpdatableComponents(const Nnet &nnet);

// ScaleNnet(scale, nnet) (every component, scale == 1 does nothing) is in
// nnet3/nnet/nnet-edit.h.
// dest += alpha * src, component by component (parameters and statistics).
void AddNnet(const Nnet &src, BaseFloat alpha, Nnet *dest);
// Updatable component i of dest gets alphas(i) * src's; every other
// component gets scale * src's (its statistics).
void AddNnetComponents(const Nnet &src, const VectorBase<BaseFloat> &alphas,
                       BaseFloat scale, Nnet *dest);
// Sum over updatable components of their parameter dot products.
BaseFloat DotProduct(const Nnet &nnet1, const Nnet &nnet2);
// (*dots)(i) = dot product of updatable component i of the two networks;
// dots is resized.
void ComponentDotProducts(const Nnet &nnet1, const Nnet &nnet2,
                          Vector<BaseFloat> *dots);
// "[ name1:v1 name2:v2 ... ]" over the updatable components.
std::string PrintVectorPerUpdatableComponent(const Nnet &nnet,
                                             const VectorBase<BaseFloat> &vec);

// ZeroStats() on every component.
void ZeroComponentStats(Nnet *nnet);
// Scale(scale) on every BatchNormComponent (scale in [0, 1]; 1 = nothing).
void ScaleBatchnormStats(BaseFloat scale, Nnet *nnet);
// For every updatable component with l2-regularize > 0:
// delta += (-2 * l2_scale * learning_rate * l2) * nnet's parameters, the
// learning rate being delta's. Nothing if l2_scale == 0.
void ApplyL2Regularization(const Nnet &nnet, BaseFloat l2_scale,
                           Nnet *delta_nnet);
// Makes every updatable component a plain gradient (learning rate 1, no
// natural gradient): for networks that hold derivatives.
void SetNnetAsGradient(Nnet *nnet);
// Reseeds the generator of every random (dropout) component: component c
// gets seed + c.
void ResetGenerators(uint64 seed, Nnet *nnet);
// FreezeNaturalGradient(freeze) on every updatable component: while frozen,
// natural-gradient components precondition with their current estimate and
// do not update it (used by backstitch's first step).
void FreezeNaturalGradient(bool freeze, Nnet *nnet);
// True if any component is a BatchNormComponent.
bool HasBatchnorm(const Nnet &nnet);
// Checks that two networks have the same components (number, names, types)
// for the binary functions; UserError naming the first difference.
void CheckSameStructure(const Nnet &a, const Nnet &b, const std::string &what);

}  // namespace nnet3

#endif  // NNET3_NNET3_TRAIN_NNET_ARITH_H_
