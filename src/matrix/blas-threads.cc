// matrix/blas-threads.cc
// GEMMs cut into aligned row or column blocks, one single-threaded BLAS call
// per block on the row threads (matrix/blas-threads.h); the alignment, and
// whether columns may be cut, follow the BLAS kernels in use.
#include "matrix/blas-threads.h"

#include <strings.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>

#include "matrix/blas-kernels.h"
#include "matrix/blas.h"
#include "matrix/row-threads.h"

extern "C" int openblas_get_num_threads(void);

namespace nnet3 {
namespace blas {
namespace {

std::atomic<int64_t> g_split_count(0);

// How a product may be cut so that the blocks sum exactly as one call.
struct SplitRule {
  int align;          // block boundaries are multiples of this
  bool columns_too;   // whether column blocks are exact as well
};

// OpenBLAS's AVX2 kernels (its Haswell family, and Zen, which uses them)
// give the same bits for row blocks starting at multiples of 24, but not
// for column blocks; the others for row or column blocks at multiples of
// kGemmSplitAlign. Decided once, after start-up chose the kernels.
SplitRule Rule() {
  static const SplitRule rule = []() {
    const std::string name = BlasKernelName();
    if (strcasecmp(name.c_str(), "haswell") == 0 ||
        strcasecmp(name.c_str(), "zen") == 0)
      return SplitRule{kGemmSplitAlignAvx2Rows, false};
    return SplitRule{kGemmSplitAlign, true};
  }();
  return rule;
}

template <typename Real, typename Gemm>
bool Split(MatrixTransposeType ta, MatrixTransposeType tb, int m, int n,
           int k, const Real *a, int lda, const Real *b, int ldb, Real *c,
           int ldc, const Gemm &gemm) {
  const double work = static_cast<double>(m) * n * k;
  if (work < kMinSplitGemmWork) return false;
  const int32_t threads = RowThreads();
  if (threads < 2 || openblas_get_num_threads() != 1) return false;
  // Split the longer side of C, so each block keeps the other side whole
  // (rows only where column blocks would not be exact).
  const SplitRule rule = Rule();
  const int align = rule.align;
  const bool by_rows = m >= n || !rule.columns_too;
  const int dim = by_rows ? m : n;
  const int64_t units = (dim + align - 1) / align;
  int64_t parts = std::min<int64_t>(threads, units);
  parts = std::min<int64_t>(parts,
                            static_cast<int64_t>(work / (kMinSplitGemmWork / 2)));
  if (parts < 2) return false;
  const bool ran = internal::RunPartsOnPool(
      static_cast<int32_t>(parts), static_cast<MatrixIndexT>(units),
      [&](MatrixIndexT u0, MatrixIndexT u1) {
        const int begin = u0 * align, end = std::min(dim, u1 * align);
        if (begin >= end) return;
        if (by_rows) {
          // Rows [begin, end) of op(A) and of C.
          const Real *ap = ta == kNoTrans
                               ? a + static_cast<std::ptrdiff_t>(begin) * lda
                               : a + begin;
          gemm(end - begin, n, ap, b,
               c + static_cast<std::ptrdiff_t>(begin) * ldc);
        } else {
          // Columns [begin, end) of op(B) and of C.
          const Real *bp = tb == kNoTrans
                               ? b + begin
                               : b + static_cast<std::ptrdiff_t>(begin) * ldb;
          gemm(m, end - begin, a, bp, c + begin);
        }
      });
  if (ran) g_split_count++;
  return ran;
}

}  // namespace

bool GemmOnRowThreads(MatrixTransposeType ta, MatrixTransposeType tb, int m,
                      int n, int k, float alpha, const float *a, int lda,
                      const float *b, int ldb, float beta, float *c, int ldc) {
  return Split(ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
               [&](int bm, int bn, const float *ap, const float *bp,
                   float *cp) {
                 cblas_sgemm(CblasRowMajor, Trans(ta), Trans(tb), bm, bn, k,
                             alpha, ap, lda, bp, ldb, beta, cp, ldc);
               });
}

bool GemmOnRowThreads(MatrixTransposeType ta, MatrixTransposeType tb, int m,
                      int n, int k, double alpha, const double *a, int lda,
                      const double *b, int ldb, double beta, double *c,
                      int ldc) {
  return Split(ta, tb, m, n, k, a, lda, b, ldb, c, ldc,
               [&](int bm, int bn, const double *ap, const double *bp,
                   double *cp) {
                 cblas_dgemm(CblasRowMajor, Trans(ta), Trans(tb), bm, bn, k,
                             alpha, ap, lda, bp, ldb, beta, cp, ldc);
               });
}

int64_t SplitGemmCount() { return g_split_count.load(); }

}  // namespace blas
}  // namespace nnet3
