// tests/cudamatrix/cuda-test-util.h
// Device buffers for the GPU tests of the CUDA kernel library:
//   DeviceMatrix<Real>: uploads a host MatrixBase into device memory with a
//     chosen row stride (cols + pad), the padding and a tail after the last
//     row filled with a sentinel value, so that a kernel writing outside
//     its view is caught (PaddingIntact); ToHost() downloads the view.
//   DeviceVector<Real>: the same for a vector, with guard elements on both
//     sides.
//   DeviceArray<T>: an uploaded index/pointer array (device memory).
//   NoGpuReason(): "" when a CUDA device is usable, else why not.
// Every transfer waits (cudaMemcpy), after Synchronize() on the library's
// stream so that an asynchronous kernel error is reported there.
#ifndef NNET3_TESTS_CUDAMATRIX_CUDA_TEST_UTIL_H_
#define NNET3_TESTS_CUDAMATRIX_CUDA_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cstring>
#include <iomanip>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudamatrix/cuda/context.h"
#include "cudamatrix/cuda/cuda-check.h"
#include "cudamatrix/cuda/device-view.h"
#include "matrix/matrix-test-util.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace test {

inline std::string NoGpuReason() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(e);
  }
  if (n == 0) return "cudaGetDeviceCount found 0 devices";
  return "";
}

// Owns n elements of device memory (none when n == 0).
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    if (n > 0) NNET3_CUDA_CHECK(cudaMalloc(&ptr_, sizeof(T) * n));
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  T *get() const { return ptr_; }
  size_t size() const { return n_; }
  void Upload(const std::vector<T> &host) {
    NNET3_ASSERT(host.size() == n_);
    cuda::Synchronize();
    if (n_ > 0)
      NNET3_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), sizeof(T) * n_,
                                  cudaMemcpyHostToDevice));
  }
  std::vector<T> Download() const {
    cuda::Synchronize();
    std::vector<T> host(n_);
    if (n_ > 0)
      NNET3_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, sizeof(T) * n_,
                                  cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T *ptr_ = nullptr;
  size_t n_;
};

template <typename Real>
inline Real Sentinel() {
  return static_cast<Real>(-98765.4375);
}

template <typename Real>
class DeviceMatrix {
 public:
  static constexpr int32 kTail = 5;
  DeviceMatrix(const MatrixBase<Real> &M, int32 pad)
      : rows_(M.NumRows()), cols_(M.NumCols()), stride_(M.NumCols() + pad),
        buf_(rows_ == 0 ? 0
                        : static_cast<size_t>(rows_) * stride_ + kTail) {
    std::vector<Real> host(buf_.size(), Sentinel<Real>());
    for (int32 r = 0; r < rows_; r++)
      for (int32 c = 0; c < cols_; c++)
        host[static_cast<size_t>(r) * stride_ + c] = M(r, c);
    buf_.Upload(host);
  }
  cuda::DevMat<Real> View() const {
    return cuda::DevMat<Real>(buf_.get(), rows_, cols_, stride_);
  }
  int32 Stride() const { return stride_; }
  Matrix<Real> ToHost() const {
    std::vector<Real> host = buf_.Download();
    Matrix<Real> M(rows_, cols_);
    for (int32 r = 0; r < rows_; r++)
      for (int32 c = 0; c < cols_; c++)
        M(r, c) = host[static_cast<size_t>(r) * stride_ + c];
    return M;
  }
  ::testing::AssertionResult PaddingIntact() const {
    std::vector<Real> host = buf_.Download();
    const Real s = Sentinel<Real>();
    for (size_t i = 0; i < host.size(); i++) {
      size_t r = i / stride_, c = i % stride_;
      bool inside = r < static_cast<size_t>(rows_) &&
                    c < static_cast<size_t>(cols_);
      if (!inside && std::memcmp(&host[i], &s, sizeof(Real)) != 0)
        return ::testing::AssertionFailure()
               << "element " << i << " (row " << r << ", column " << c
               << ") outside the " << rows_ << "x" << cols_ << " view (stride "
               << stride_ << ") was overwritten with " << host[i];
    }
    return ::testing::AssertionSuccess();
  }

 private:
  int32 rows_, cols_, stride_;
  DeviceBuffer<Real> buf_;
};

template <typename Real>
class DeviceVector {
 public:
  static constexpr int32 kGuard = 4;
  explicit DeviceVector(const VectorBase<Real> &v)
      : dim_(v.Dim()), buf_(v.Dim() + 2 * kGuard) {
    std::vector<Real> host(buf_.size(), Sentinel<Real>());
    for (int32 i = 0; i < dim_; i++) host[kGuard + i] = v(i);
    buf_.Upload(host);
  }
  cuda::DevVec<Real> View() const {
    return cuda::DevVec<Real>(dim_ == 0 ? nullptr : buf_.get() + kGuard, dim_);
  }
  Vector<Real> ToHost() const {
    std::vector<Real> host = buf_.Download();
    Vector<Real> v(dim_);
    for (int32 i = 0; i < dim_; i++) v(i) = host[kGuard + i];
    return v;
  }
  ::testing::AssertionResult PaddingIntact() const {
    std::vector<Real> host = buf_.Download();
    const Real s = Sentinel<Real>();
    for (size_t i = 0; i < host.size(); i++) {
      bool inside = i >= static_cast<size_t>(kGuard) &&
                    i < static_cast<size_t>(kGuard + dim_);
      if (!inside && std::memcmp(&host[i], &s, sizeof(Real)) != 0)
        return ::testing::AssertionFailure()
               << "guard element " << i << " around a vector of dim " << dim_
               << " was overwritten with " << host[i];
    }
    return ::testing::AssertionSuccess();
  }

 private:
  int32 dim_;
  DeviceBuffer<Real> buf_;
};

template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const std::vector<T> &host) : buf_(host.size()) {
    buf_.Upload(host);
  }
  const T *Data() const { return buf_.get(); }
  T *MutableData() { return buf_.get(); }

 private:
  DeviceBuffer<T> buf_;
};

// Random host data and the GPU-versus-CPU comparison shared by the GPU
// tests (Close and the fillers come from matrix/matrix-test-util.h).
template <class Real>
Matrix<Real> RandMat(Rng &rng, int32 rows, int32 cols, double scale = 1.0) {
  Matrix<Real> M(rows, cols);
  FillGauss(&M, rng, scale);
  return M;
}
template <class Real>
Vector<Real> RandVec(Rng &rng, int32 dim, double scale = 1.0) {
  Vector<Real> v(dim);
  FillGauss(&v, rng, scale);
  return v;
}
template <class Real>
Matrix<Real> Positive(Rng &rng, int32 rows, int32 cols) {
  Matrix<Real> M(rows, cols);
  FillUniform(&M, rng, 0.05, 4.0);
  return M;
}

// gpu == cpu elementwise within tol (relative above 1), NaN matching NaN,
// and nothing written outside the device view.
template <class Real>
::testing::AssertionResult Matches(const DeviceMatrix<Real> &gpu,
                                   const MatrixBase<Real> &cpu, double tol) {
  Matrix<Real> got = gpu.ToHost();
  if (got.NumRows() != cpu.NumRows() || got.NumCols() != cpu.NumCols())
    return ::testing::AssertionFailure() << "dimension mismatch";
  for (int32 r = 0; r < cpu.NumRows(); r++)
    for (int32 c = 0; c < cpu.NumCols(); c++)
      if (!Close(got(r, c), cpu(r, c), tol))
        return ::testing::AssertionFailure()
               << std::setprecision(17) << "element (" << r << "," << c
               << "): gpu " << got(r, c) << ", cpu " << cpu(r, c) << " (tol "
               << tol << ")";
  return gpu.PaddingIntact();
}

template <class Real>
::testing::AssertionResult Matches(const DeviceVector<Real> &gpu,
                                   const VectorBase<Real> &cpu, double tol) {
  Vector<Real> got = gpu.ToHost();
  if (got.Dim() != cpu.Dim())
    return ::testing::AssertionFailure() << "dimension mismatch";
  for (int32 i = 0; i < cpu.Dim(); i++)
    if (!Close(got(i), cpu(i), tol))
      return ::testing::AssertionFailure()
             << std::setprecision(17) << "element " << i << ": gpu " << got(i)
             << ", cpu " << cpu(i) << " (tol " << tol << ")";
  return gpu.PaddingIntact();
}

}  // namespace test
}  // namespace nnet3

#endif  // NNET3_TESTS_CUDAMATRIX_CUDA_TEST_UTIL_H_
