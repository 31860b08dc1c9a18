// matrix/common.h
// Enums and forward declarations shared by the CPU matrix classes.
#ifndef NNET3_MATRIX_COMMON_H_
#define NNET3_MATRIX_COMMON_H_

#include "base/common.h"

namespace nnet3 {

enum MatrixTransposeType { kNoTrans = 0, kTrans = 1 };

// What Resize() does with the memory.
enum MatrixResizeType {
  kSetZero,    // the new matrix is all zeros
  kUndefined,  // contents undefined
  kCopyData    // keep the overlapping part, zero the rest
};

// kDefaultStride pads each row so that rows start on 16-byte boundaries;
// kStrideEqualNumCols packs rows (needed by a few reshaping operations).
enum MatrixStrideType { kDefaultStride, kStrideEqualNumCols };

template <typename Real> class VectorBase;
template <typename Real> class Vector;
template <typename Real> class SubVector;
template <typename Real> class MatrixBase;
template <typename Real> class Matrix;
template <typename Real> class SubMatrix;
template <typename Real> class SparseVector;
template <typename Real> class SparseMatrix;
class CompressedMatrix;
class GeneralMatrix;

}  // namespace nnet3

#endif  // NNET3_MATRIX_COMMON_H_
