// nnet3/train/orthonormal.h
// The orthonormal constraint of AffineComponent / LinearComponent / TdnnComponent
// (orthonormal-constraint=c), applied by the trainer after each update as
// Kaldi does: the linear parameters M (taken transposed if they have more
// rows than columns) get one step of the semi-orthogonal update of Povey et
// al. (Interspeech 2018, "Semi-orthogonal low-rank matrix factorization"):
// with P = M M^T and Q = P - c^2 I, M -= 4 * (nu / c^2) * Q M, nu = 1/8,
// which drives M M^T towards c^2 I (quadratically when close to it).
// c < 0 means a "floating" scale: c^2 = tr(P P) / tr(P), with nu halved
// (twice) when the eigenvalues of P are spread (ratio > 1.02, > 1.1).
// A component with the constraint is visited with probability 1/4 per call,
// as in Kaldi, since the parameters drift little between minibatches.
#ifndef NNET3_NNET3_TRAIN_ORTHONORMAL_H_
#define NNET3_NNET3_TRAIN_ORTHONORMAL_H_

#include "cudamatrix/cu-matrix.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// One step of the update above on M (rows <= cols expected); scale != 0.
void ConstrainOrthonormalInternal(BaseFloat scale, CuMatrixBase<BaseFloat> *M);

// For every AffineComponent (and derived), LinearComponent or TdnnComponent
// (all its linear parameters) with a nonzero
// orthonormal-constraint, with probability 1/4 (RandInt(0, 3) == 0): one
// step on its linear parameters.
void ConstrainOrthonormal(Nnet *nnet);

}  // namespace nnet3

#endif  // NNET3_NNET3_TRAIN_ORTHONORMAL_H_
