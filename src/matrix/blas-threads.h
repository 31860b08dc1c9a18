// matrix/blas-threads.h
// Large matrix products on the matrix library's own threads. When BLAS runs
// on one thread (a tool handed the cores to the library, see
// bin/blas-threads.h) and the library has several row threads
// (matrix/row-threads.h), a large GEMM is cut into blocks of rows of C (or
// of columns, when C is wider than tall), and each block is one
// single-threaded BLAS call on one of the row threads. Elementwise work and
// products then share one pool of threads that sleep when idle, instead of
// BLAS's own workers, which keep spinning on the cores for a while after
// each product and slow down the library's loops that follow.
//
// Invariants:
//  - blocks start at multiples of kGemmSplitAlign rows (or columns), or,
//    with OpenBLAS's AVX2 kernels (Haswell, Zen), of kGemmSplitAlignAvx2Rows
//    rows and never at columns (those kernels sum a column block's
//    elements differently from the whole product's), so every element of C
//    is summed over k exactly as the unsplit call sums it: the result is
//    the same bits as one BLAS call on one thread;
//  - nothing is split (false is returned and nothing is computed) when BLAS
//    itself runs on several threads, when the library has one thread, when
//    the product is small, or when the pool is busy with another caller.
#ifndef NNET3_MATRIX_BLAS_THREADS_H_
#define NNET3_MATRIX_BLAS_THREADS_H_

#include <cstdint>

#include "matrix/common.h"

namespace nnet3 {
namespace blas {

// Products with m * n * k below this stay on the calling thread; above it,
// each thread gets at least half of it.
constexpr double kMinSplitGemmWork = 1 << 22;
// Block boundaries are multiples of this (a multiple of the register tile
// of OpenBLAS's AVX-512 and older kernels).
constexpr int kGemmSplitAlign = 64;
// Row block boundaries with OpenBLAS's AVX2 kernels: row blocks starting at
// multiples of 24 give the bits of the whole product with them (checked on
// every transpose by matrix-blas-threads-test, which ctest also runs with
// OPENBLAS_CORETYPE=Haswell).
constexpr int kGemmSplitAlignAvx2Rows = 24;

// Computes C = alpha op(A) op(B) + beta C (row-major, the arguments of
// cblas_?gemm) in blocks on the row threads and returns true, or returns
// false having done nothing (the caller then makes the one BLAS call).
bool GemmOnRowThreads(MatrixTransposeType ta, MatrixTransposeType tb, int m,
                      int n, int k, float alpha, const float *a, int lda,
                      const float *b, int ldb, float beta, float *c, int ldc);
bool GemmOnRowThreads(MatrixTransposeType ta, MatrixTransposeType tb, int m,
                      int n, int k, double alpha, const double *a, int lda,
                      const double *b, int ldb, double beta, double *c,
                      int ldc);

// How many products were split so far (tests check that a split happened).
int64_t SplitGemmCount();

}  // namespace blas
}  // namespace nnet3

#endif  // NNET3_MATRIX_BLAS_THREADS_H_
