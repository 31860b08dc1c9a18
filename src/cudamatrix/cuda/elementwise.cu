// cudamatrix/cuda/elementwise.cu
// Elementwise kernels; see elementwise.h. Each function is one
// ForEachElement launch whose device lambda is the CPU loop body.
#include "cudamatrix/cuda/elementwise.h"

#include "cudamatrix/cuda/kernel-util.cuh"

namespace nnet3 {
namespace cuda {

using internal::ForEachElement;

namespace {

template <typename Real>
bool SameDim(DevMat<const Real> a, DevMat<const Real> b) {
  return a.rows == b.rows && a.cols == b.cols;
}

}  // namespace

template <typename Real>
void ApplyFloor(DevMat<Real> m, Scalar<Real> floor_val) {
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    Real x = m(r, c);
    m(r, c) = x < floor_val ? floor_val : x;
  });
}

template <typename Real>
void ApplyCeiling(DevMat<Real> m, Scalar<Real> ceil_val) {
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    Real x = m(r, c);
    m(r, c) = x > ceil_val ? ceil_val : x;
  });
}

template <typename Real>
void ApplyExp(DevMat<Real> m) {
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    m(r, c) = internal::Exp(m(r, c));
  });
}

template <typename Real>
void ApplyLog(DevMat<Real> m) {
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    m(r, c) = internal::Log(m(r, c));
  });
}

template <typename Real>
void ApplyAbs(DevMat<Real> m) {
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    m(r, c) = internal::Abs(m(r, c));
  });
}

template <typename Real>
void ApplyPow(DevMat<Real> m, Scalar<Real> power) {
  if (power == Real(1)) return;
  if (power == Real(2)) {
    ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
      Real x = m(r, c);
      m(r, c) = x * x;
    });
  } else if (power == Real(0.5)) {
    ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
      m(r, c) = internal::Sqrt(m(r, c));
    });
  } else {
    ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
      m(r, c) = internal::Pow(m(r, c), power);
    });
  }
}

template <typename Real>
void ApplyPowAbs(DevMat<Real> m, Scalar<Real> power, bool include_sign) {
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    Real x = m(r, c);
    Real y = internal::Pow(internal::Abs(x), power);
    m(r, c) = (include_sign && x < Real(0)) ? -y : y;
  });
}

template <typename Real>
void ApplyHeaviside(DevMat<Real> m) {
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    m(r, c) = m(r, c) > Real(0) ? Real(1) : Real(0);
  });
}

template <typename Real>
void InvertElements(DevMat<Real> m) {
  ForEachElement(m.rows, m.cols, [=] __device__(int32 r, int32 c) {
    m(r, c) = Real(1) / m(r, c);
  });
}

template <typename Real>
void Sigmoid(DevMat<Real> dst, InMat<Real> src) {
  NNET3_ASSERT(SameDim<Real>(dst, src));
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    // The CPU's two-sided form: exp never overflows.
    Real x = src(r, c);
    if (x > Real(0)) {
      dst(r, c) = Real(1) / (Real(1) + internal::Exp(-x));
    } else {
      Real e = internal::Exp(x);
      dst(r, c) = e / (e + Real(1));
    }
  });
}

template <typename Real>
void Tanh(DevMat<Real> dst, InMat<Real> src) {
  NNET3_ASSERT(SameDim<Real>(dst, src));
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    dst(r, c) = internal::Tanh(src(r, c));
  });
}

template <typename Real>
void DiffSigmoid(DevMat<Real> dst, InMat<Real> value, InMat<Real> diff) {
  NNET3_ASSERT(SameDim<Real>(dst, value) && SameDim<Real>(dst, diff));
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Real y = value(r, c);
    dst(r, c) = diff(r, c) * y * (Real(1) - y);
  });
}

template <typename Real>
void DiffTanh(DevMat<Real> dst, InMat<Real> value, InMat<Real> diff) {
  NNET3_ASSERT(SameDim<Real>(dst, value) && SameDim<Real>(dst, diff));
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Real y = value(r, c);
    dst(r, c) = diff(r, c) * (Real(1) - y * y);
  });
}

template <typename Real>
void MulElements(DevMat<Real> dst, InMat<Real> A) {
  NNET3_ASSERT(SameDim<Real>(dst, A));
  ForEachElement(dst.rows, dst.cols,
                 [=] __device__(int32 r, int32 c) { dst(r, c) *= A(r, c); });
}

template <typename Real>
void DivElements(DevMat<Real> dst, InMat<Real> A) {
  NNET3_ASSERT(SameDim<Real>(dst, A));
  ForEachElement(dst.rows, dst.cols,
                 [=] __device__(int32 r, int32 c) { dst(r, c) /= A(r, c); });
}

template <typename Real>
void Max(DevMat<Real> dst, InMat<Real> A) {
  NNET3_ASSERT(SameDim<Real>(dst, A));
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Real x = dst(r, c), a = A(r, c);
    dst(r, c) = x < a ? a : x;  // std::max(x, a)
  });
}

template <typename Real>
void Min(DevMat<Real> dst, InMat<Real> A) {
  NNET3_ASSERT(SameDim<Real>(dst, A));
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Real x = dst(r, c), a = A(r, c);
    dst(r, c) = a < x ? a : x;  // std::min(x, a)
  });
}

template <typename Real>
void AddMat(DevMat<Real> dst, Scalar<Real> alpha, InMat<Real> A,
            MatrixTransposeType trans) {
  if (trans == kNoTrans) {
    NNET3_ASSERT(SameDim<Real>(dst, A));
    ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
      dst(r, c) += alpha * A(r, c);
    });
    return;
  }
  NNET3_ASSERT(A.cols == dst.rows && A.rows == dst.cols);
  if (dst.Empty()) return;
  if (static_cast<const Real *>(dst.data) == A.data) {
    // dst += alpha * dst^T (square): the thread of (r, c), c < r, updates
    // the pair (r, c), (c, r) from both old values; the diagonal scales.
    NNET3_ASSERT(A.stride == dst.stride);
    ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
      if (c > r) return;
      if (c == r) {
        dst(r, r) *= (Real(1) + alpha);
      } else {
        Real a = dst(r, c), b = dst(c, r);
        dst(r, c) = a + alpha * b;
        dst(c, r) = b + alpha * a;
      }
    });
    return;
  }
  internal::ForEachTransposed(
      dst, A, [=] __device__(Real & y, Real x) { y += alpha * x; });
}

template <typename Real>
void AddMatMatElements(DevMat<Real> dst, Scalar<Real> alpha, InMat<Real> A,
                       InMat<Real> B, Scalar<Real> beta) {
  NNET3_ASSERT(SameDim<Real>(dst, A) && SameDim<Real>(dst, B));
  ForEachElement(dst.rows, dst.cols, [=] __device__(int32 r, int32 c) {
    Real old = beta == Real(0) ? Real(0) : beta * dst(r, c);
    dst(r, c) = old + alpha * A(r, c) * B(r, c);
  });
}

#define NNET3_INSTANTIATE_ELEMENTWISE(R)                                    \
  template void ApplyFloor(DevMat<R>, Scalar<R>);                           \
  template void ApplyCeiling(DevMat<R>, Scalar<R>);                         \
  template void ApplyExp(DevMat<R>);                                        \
  template void ApplyLog(DevMat<R>);                                        \
  template void ApplyAbs(DevMat<R>);                                        \
  template void ApplyPow(DevMat<R>, Scalar<R>);                             \
  template void ApplyPowAbs(DevMat<R>, Scalar<R>, bool);                    \
  template void ApplyHeaviside(DevMat<R>);                                  \
  template void InvertElements(DevMat<R>);                                  \
  template void Sigmoid(DevMat<R>, InMat<R>);                               \
  template void Tanh(DevMat<R>, InMat<R>);                                  \
  template void DiffSigmoid(DevMat<R>, InMat<R>, InMat<R>);                 \
  template void DiffTanh(DevMat<R>, InMat<R>, InMat<R>);                    \
  template void MulElements(DevMat<R>, InMat<R>);                           \
  template void DivElements(DevMat<R>, InMat<R>);                           \
  template void Max(DevMat<R>, InMat<R>);                                   \
  template void Min(DevMat<R>, InMat<R>);                                   \
  template void AddMat(DevMat<R>, Scalar<R>, InMat<R>, MatrixTransposeType); \
  template void AddMatMatElements(DevMat<R>, Scalar<R>, InMat<R>, InMat<R>, \
                                  Scalar<R>);

NNET3_INSTANTIATE_ELEMENTWISE(float)
NNET3_INSTANTIATE_ELEMENTWISE(double)

}  // namespace cuda
}  // namespace nnet3
