// cudamatrix/cu-matrix.h
// The CuMatrix API that the nnet3 layers program against. This is the CPU
// backend binding: each Cu* name is the corresponding CPU matrix type, so
// code written against CuMatrixBase/CuVector/CuArray runs on the CPU today
// and will switch to the CUDA backend (cudamatrix/cuda/) by backend
// selection, without edits in the layers above. Code above this layer must
// use only the Cu* names and the operations the two backends share (those
// of matrix/matrix.h and matrix/vector.h).
#ifndef NNET3_CUDAMATRIX_CU_MATRIX_H_
#define NNET3_CUDAMATRIX_CU_MATRIX_H_

#include <vector>

#include "matrix/compressed.h"
#include "matrix/matrix.h"
#include "matrix/sparse.h"
#include "matrix/vector.h"

namespace nnet3 {

template <typename Real> using CuMatrixBase = MatrixBase<Real>;
template <typename Real> using CuMatrix = Matrix<Real>;
template <typename Real> using CuSubMatrix = SubMatrix<Real>;
template <typename Real> using CuVectorBase = VectorBase<Real>;
template <typename Real> using CuVector = Vector<Real>;
template <typename Real> using CuSubVector = SubVector<Real>;
template <typename Real> using CuSparseMatrix = SparseMatrix<Real>;
template <typename T> using CuArray = std::vector<T>;

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_MATRIX_H_
