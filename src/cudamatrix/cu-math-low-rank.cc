// cudamatrix/cu-math-low-rank.cc
// The fused low-rank update of cu-math-low-rank.h. The host kernel uses
// AVX-512 intrinsics in functions compiled for that target only, chosen at
// run time from the CPU's features; everything else takes the BLAS path.
//
// SubtractProjection works on 8 rows of X and 32 columns at a time: the
// block stays in 16 registers while the R rank-1 terms H(:, r) W(r, :) are
// taken off it, then is stored and squared. Each vector loaded from W
// serves 8 rows, each broadcast of H two vectors.
#include "cudamatrix/cu-math-low-rank.h"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "matrix/row-threads.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NNET3_LOW_RANK_AVX512 1
#include <immintrin.h>
#endif

namespace nnet3 {
namespace cu {
namespace {

#ifdef NNET3_LOW_RANK_AVX512
#define NNET3_AVX512_FN __attribute__((target("avx512f,fma")))
#define NNET3_AVX512_INLINE \
  __attribute__((target("avx512f,fma"), always_inline)) inline

// The sum of the 16 lanes (through memory: GCC 12's _mm512_reduce_add_ps
// trips its own uninitialized-value warning).
NNET3_AVX512_INLINE float LaneSum(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  float a = 0, b = 0;
  for (int k = 0; k < 16; k += 2) {
    a += t[k];
    b += t[k + 1];
  }
  return a + b;
}

// X(0..IB, 0..16 KB) -= H(0..IB, :) W(:, 0..16 KB), the last vector of each
// row masked by 'last'; s[i] += the squares of the new values.
template <int IB, int KB>
NNET3_AVX512_INLINE void SubtractBlock(int R, const float *H, int ldh,
                                       const float *W, int ldw, float *X,
                                       int ldx, __mmask16 last, __m512 *s) {
  __m512 acc[IB][KB];
#pragma GCC unroll 8
  for (int i = 0; i < IB; i++) {
#pragma GCC unroll 2
    for (int k = 0; k < KB; k++)
      acc[i][k] = _mm512_maskz_loadu_ps(k == KB - 1 ? last : 0xFFFF,
                                        X + i * ldx + 16 * k);
  }
  for (int r = 0; r < R; r++) {
    __m512 w[KB];
#pragma GCC unroll 2
    for (int k = 0; k < KB; k++)
      w[k] = _mm512_maskz_loadu_ps(k == KB - 1 ? last : 0xFFFF,
                                   W + r * ldw + 16 * k);
#pragma GCC unroll 8
    for (int i = 0; i < IB; i++) {
      const __m512 h = _mm512_set1_ps(H[i * ldh + r]);
#pragma GCC unroll 2
      for (int k = 0; k < KB; k++) acc[i][k] = _mm512_fnmadd_ps(h, w[k], acc[i][k]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < IB; i++) {
#pragma GCC unroll 2
    for (int k = 0; k < KB; k++) {
      _mm512_mask_storeu_ps(X + i * ldx + 16 * k, k == KB - 1 ? last : 0xFFFF,
                            acc[i][k]);
      // Masked-off lanes hold zeros (zero X, zero W), adding nothing.
      s[i] = _mm512_fmadd_ps(acc[i][k], acc[i][k], s[i]);
    }
  }
}

template <int IB>
NNET3_AVX512_INLINE void SubtractRowGroup(int D, int R, const float *H,
                                          int ldh, const float *W, int ldw,
                                          float *X, int ldx, float *sq) {
  __m512 s[IB];
#pragma GCC unroll 8
  for (int i = 0; i < IB; i++) s[i] = _mm512_setzero_ps();
  int d = 0;
  for (; d + 32 <= D; d += 32)
    SubtractBlock<IB, 2>(R, H, ldh, W + d, ldw, X + d, ldx, 0xFFFF, s);
  const int rem = D - d;  // 0 to 31 columns left
  if (rem > 16) {
    SubtractBlock<IB, 2>(R, H, ldh, W + d, ldw, X + d, ldx,
                         static_cast<__mmask16>((1u << (rem - 16)) - 1), s);
  } else if (rem > 0) {
    SubtractBlock<IB, 1>(R, H, ldh, W + d, ldw, X + d, ldx,
                         static_cast<__mmask16>((1u << rem) - 1), s);
  }
#pragma GCC unroll 8
  for (int i = 0; i < IB; i++) sq[i] = LaneSum(s[i]);
}

NNET3_AVX512_FN void SubtractProjectionAvx512(int row_begin, int row_end,
                                              int D, int R, const float *H,
                                              int ldh, const float *W,
                                              int ldw, float *X, int ldx,
                                              float *sq) {
  int i = row_begin;
  for (; i + 8 <= row_end; i += 8)
    SubtractRowGroup<8>(D, R, H + std::ptrdiff_t(i) * ldh, ldh, W, ldw,
                        X + std::ptrdiff_t(i) * ldx, ldx, sq + i);
  const float *h = H + std::ptrdiff_t(i) * ldh;
  float *x = X + std::ptrdiff_t(i) * ldx;
  switch (row_end - i) {
    case 1: SubtractRowGroup<1>(D, R, h, ldh, W, ldw, x, ldx, sq + i); break;
    case 2: SubtractRowGroup<2>(D, R, h, ldh, W, ldw, x, ldx, sq + i); break;
    case 3: SubtractRowGroup<3>(D, R, h, ldh, W, ldw, x, ldx, sq + i); break;
    case 4: SubtractRowGroup<4>(D, R, h, ldh, W, ldw, x, ldx, sq + i); break;
    case 5: SubtractRowGroup<5>(D, R, h, ldh, W, ldw, x, ldx, sq + i); break;
    case 6: SubtractRowGroup<6>(D, R, h, ldh, W, ldw, x, ldx, sq + i); break;
    case 7: SubtractRowGroup<7>(D, R, h, ldh, W, ldw, x, ldx, sq + i); break;
    default: break;
  }
}

bool CpuHasKernels() {
  static const bool ok =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  return ok;
}
#else
bool CpuHasKernels() { return false; }
#endif  // NNET3_LOW_RANK_AVX512

// Sum of the per-row sums of squares, in row order (as TraceMatMat adds
// its per-row dot products), whatever the threads did.
float SumInRowOrder(const std::vector<float> &sq) {
  float sum = 0;
  for (float v : sq) sum += v;
  return sum;
}

template <typename Real>
bool UseKernels(const CuMatrixBase<Real> &a) {
  return std::is_same<Real, float>::value && !a.OnDevice() && CpuHasKernels();
}

}  // namespace

bool LowRankKernelsAvailable() { return CpuHasKernels(); }

template <typename Real>
Real SubtractProjection(const CuMatrixBase<Real> &H,
                        const CuMatrixBase<Real> &W, CuMatrixBase<Real> *X) {
  // An empty X leaves nothing to do (its operands may then be 0 x 0, as
  // matrices with no rows or no columns are).
  if (X->NumRows() == 0) return 0;
  NNET3_ASSERT(X->NumCols() == W.NumCols() && H.NumRows() == X->NumRows() &&
               H.NumCols() == W.NumRows());
  if (!UseKernels(*X) || W.NumRows() == 0) {
    X->AddMatMat(-1.0, H, kNoTrans, W, kNoTrans, 1.0);
    return TraceMatMat(*X, *X, kTrans);
  }
#ifdef NNET3_LOW_RANK_AVX512
  if constexpr (std::is_same<Real, float>::value) {
    const MatrixBase<float> &h = H.Mat(), &w = W.Mat();
    MatrixBase<float> &x = X->Mat();
    std::vector<float> sq(x.NumRows());
    ForRowBlocks(x.NumRows(), x.NumCols(), [&](MatrixIndexT r0, MatrixIndexT r1) {
      SubtractProjectionAvx512(r0, r1, x.NumCols(), w.NumRows(), h.Data(),
                               h.Stride(), w.Data(), w.Stride(), x.Data(),
                               x.Stride(), sq.data());
    });
    return SumInRowOrder(sq);
  }
#endif
  return 0;  // not reached
}

template <typename Real>
Real SumOfSquares(const std::vector<CuSubMatrix<Real> > &blocks) {
  NNET3_ASSERT(!blocks.empty());
  if (!blocks[0].OnDevice()) {
    Real sum = 0;
    for (const CuSubMatrix<Real> &b : blocks) sum += TraceMatMat(b, b, kTrans);
    return sum;
  }
  CuVector<Real> sum(1, kUndefined);
  SumOfSquares(blocks, &sum);
  return sum.Download()(0);
}

namespace {

// trace(0) += the sum of squares of M's elements, on the device, without
// waiting: the rows' sums of squares, then their sum.
template <typename Real>
void AddSquaresOnDevice(const CuMatrixBase<Real> &M, CuVectorBase<Real> *trace) {
  const int32 rows = M.NumRows();
  if (rows == 0 || M.NumCols() == 0) return;
  M.Where(*trace, "SumOfSquares");
  CuVector<Real> row_squares(rows, kUndefined);
  row_squares.AddDiagMat2(1.0, M, kNoTrans, 0.0);
  cu_backend::Ops<Real>().AddColSumMat(
      trace->DevV(), Real(1),
      cuda::DevMat<const Real>(row_squares.Data(), 1, rows, rows), Real(1));
}

}  // namespace

template <typename Real>
void SubtractProjection(const CuMatrixBase<Real> &H,
                        const CuMatrixBase<Real> &W, CuMatrixBase<Real> *X,
                        CuVectorBase<Real> *trace) {
  NNET3_ASSERT(trace->Dim() == 1);
  if (!X->OnDevice()) {
    trace->Set(SubtractProjection(H, W, X));
    return;
  }
  if (X->NumRows() != 0) {
    NNET3_ASSERT(X->NumCols() == W.NumCols() && H.NumRows() == X->NumRows() &&
                 H.NumCols() == W.NumRows());
    X->AddMatMat(-1.0, H, kNoTrans, W, kNoTrans, 1.0);
  }
  SumOfSquares(*X, trace);
}

template <typename Real>
void SumOfSquares(const std::vector<CuSubMatrix<Real> > &blocks,
                  CuVectorBase<Real> *trace) {
  NNET3_ASSERT(!blocks.empty() && trace->Dim() == 1);
  if (!blocks[0].OnDevice()) {
    trace->Set(SumOfSquares(blocks));
    return;
  }
  trace->SetZero();
  for (const CuSubMatrix<Real> &b : blocks) {
    NNET3_ASSERT(b.NumRows() == blocks[0].NumRows());
    AddSquaresOnDevice(b, trace);
  }
}

template <typename Real>
void SumOfSquares(const CuMatrixBase<Real> &M, CuVectorBase<Real> *trace) {
  NNET3_ASSERT(trace->Dim() == 1);
  if (!M.OnDevice()) {
    trace->Set(TraceMatMat(M, M, kTrans));
    return;
  }
  trace->SetZero();
  AddSquaresOnDevice(M, trace);
}

template <typename Real>
void SumOfSquares(const CuMatrixBase<Real> &M, const CuVectorBase<Real> &v,
                  CuVectorBase<Real> *trace) {
  NNET3_ASSERT(trace->Dim() == 1);
  if (!M.OnDevice()) {
    trace->Set(TraceMatMat(M, M, kTrans) + VecVec(v, v));
    return;
  }
  M.Where(v, "SumOfSquares");
  trace->SetZero();
  AddSquaresOnDevice(M, trace);
  if (v.Dim() != 0) {
    cu_backend::Scope device(true);
    AddSquaresOnDevice(CuSubMatrix<Real>(v.Data(), 1, v.Dim(), v.Dim()), trace);
  }
}

#define NNET3_INSTANTIATE(Real)                                              \
  template void SumOfSquares(const CuMatrixBase<Real> &,                    \
                             const CuVectorBase<Real> &, CuVectorBase<Real> *); \
  template void SubtractProjection(const CuMatrixBase<Real> &,              \
                                   const CuMatrixBase<Real> &,              \
                                   CuMatrixBase<Real> *, CuVectorBase<Real> *); \
  template void SumOfSquares(const std::vector<CuSubMatrix<Real> > &,       \
                             CuVectorBase<Real> *);                         \
  template void SumOfSquares(const CuMatrixBase<Real> &, CuVectorBase<Real> *);
NNET3_INSTANTIATE(float)
NNET3_INSTANTIATE(double)
#undef NNET3_INSTANTIATE

template float SumOfSquares(const std::vector<CuSubMatrix<float> > &);
template double SumOfSquares(const std::vector<CuSubMatrix<double> > &);

template float SubtractProjection(const CuMatrixBase<float> &,
                                  const CuMatrixBase<float> &,
                                  CuMatrixBase<float> *);
template double SubtractProjection(const CuMatrixBase<double> &,
                                   const CuMatrixBase<double> &,
                                   CuMatrixBase<double> *);

}  // namespace cu
}  // namespace nnet3
