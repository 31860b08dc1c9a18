// nnet3/train/orthonormal.cc
#include "nnet3/train/orthonormal.h"

#include <cmath>

#include "base/log.h"
#include "base/random.h"
#include "nnet3/components/affine.h"
#include "nnet3/components/tdnn.h"

namespace nnet3 {

void ConstrainOrthonormalInternal(BaseFloat scale,
                                  CuMatrixBase<BaseFloat> *M) {
  NNET3_ASSERT(scale != 0.0);
  int32 rows = M->NumRows();
  CuMatrix<BaseFloat> P(rows, rows);
  P.AddMatMat(1.0, *M, kNoTrans, *M, kTrans, 0.0);
  BaseFloat update_speed = 0.125;
  if (scale < 0.0) {
    // Floating scale: the c^2 that best fits P's eigenvalues (the traces
    // in single precision, as Kaldi has them).
    BaseFloat trace_p = P.Trace(), trace_pp = TraceMatMat(P, P, kTrans);
    scale = std::sqrt(trace_pp / trace_p);
    // trace_pp * dim / trace_p^2 >= 1, with equality when all eigenvalues
    // are equal; when they are spread, slow down to stay stable.
    BaseFloat ratio = trace_pp * rows / (trace_p * trace_p);
    NNET3_ASSERT(ratio > 0.99);
    if (ratio > 1.02) {
      update_speed *= 0.5;
      if (ratio > 1.1) update_speed *= 0.5;
    }
  }
  P.AddToDiag(-(scale * scale));
  BaseFloat alpha = update_speed / (scale * scale);
  CuMatrix<BaseFloat> M_update(rows, M->NumCols());
  M_update.AddMatMat(-4.0 * alpha, P, kNoTrans, *M, kNoTrans, 0.0);
  M->AddMat(1.0, M_update);
}

void ConstrainOrthonormal(Nnet *nnet) {
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    Component *component = nnet->GetComponent(c);
    CuMatrix<BaseFloat> *params = nullptr;
    BaseFloat constraint = 0.0;
    if (auto *lc = dynamic_cast<LinearComponent *>(component)) {
      constraint = lc->OrthonormalConstraint();
      params = &lc->Params();
    } else if (auto *ac = dynamic_cast<AffineComponent *>(component)) {
      constraint = ac->OrthonormalConstraint();
      params = &ac->LinearParams();
    } else if (auto *tc = dynamic_cast<TdnnComponent *>(component)) {
      // All offsets' blocks together: W = [W_0 W_1 ...].
      constraint = tc->OrthonormalConstraint();
      params = &tc->LinearParams();
    }
    // Only every fourth call or so: the drift in between is small.
    if (constraint == 0.0 || RandInt(0, 3) != 0) continue;
    if (params->NumRows() <= params->NumCols()) {
      ConstrainOrthonormalInternal(constraint, params);
    } else {
      CuMatrix<BaseFloat> transposed(*params, kTrans);
      ConstrainOrthonormalInternal(constraint, &transposed);
      params->CopyFromMat(transposed, kTrans);
    }
  }
}

}  // namespace nnet3
