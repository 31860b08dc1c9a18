// tests/matrix/matrix-test-util.h
// Shared helpers for the CPU matrix tests: a seeded random source whose seed
// is printed on failure, naive double-precision references (RefMat, RefVec)
// that never call the classes under test except through element access, and
// "test matrices/vectors" that are owned objects or views (strided
// submatrices, column ranges, packed rows, raw memory with padding, matrix
// rows) together with a check that a view's operation wrote nothing outside
// the view.
#ifndef NNET3_TESTS_MATRIX_MATRIX_TEST_UTIL_H_
#define NNET3_TESTS_MATRIX_MATRIX_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace test {

typedef ::testing::Types<float, double> RealTypes;

// Relative tolerance of a result computed in Real from Real inputs, against
// a double-precision reference computed from the same (rounded) inputs.
template <class Real> struct RealTraits;
template <> struct RealTraits<float> {
  static double Tol() { return 1e-4; }
  static const char *Name() { return "float"; }
};
template <> struct RealTraits<double> {
  static double Tol() { return 1e-10; }
  static const char *Name() { return "double"; }
};
template <class Real> double Tol() { return RealTraits<Real>::Tol(); }

inline double NaN() { return std::numeric_limits<double>::quiet_NaN(); }
inline double Inf() { return std::numeric_limits<double>::infinity(); }

// |got - ref| <= tol * max(1, |ref|); tol == 0 means exact (bitwise for
// NaN: both NaN). Infinite references must be matched exactly.
inline bool Close(double got, double ref, double tol) {
  if (std::isnan(ref)) return std::isnan(got);
  if (std::isnan(got)) return false;
  if (std::isinf(ref) || tol == 0.0) return got == ref;
  return std::abs(got - ref) <= tol * std::max(1.0, std::abs(ref));
}

inline ::testing::AssertionResult ScalarNear(double got, double ref,
                                             double tol) {
  if (Close(got, ref, tol)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << std::setprecision(17) << "got " << got << ", expected " << ref
         << " (relative tol " << tol << ")";
}

// Seeded random numbers. Every random test builds one per iteration from a
// fixed seed and puts Trace() into a SCOPED_TRACE, so a failure prints the
// seed that reproduces it.
class Rng {
 public:
  explicit Rng(uint64_t seed) : seed_(seed), engine_(seed) {}
  uint64_t seed() const { return seed_; }
  std::string Trace() const {
    return "random seed " + std::to_string(seed_) +
           " (construct Rng(seed) with this value to reproduce)";
  }
  int Int(int lo, int hi) {
    std::uniform_int_distribution<int> d(lo, hi);
    return d(engine_);
  }
  double Uniform(double lo = 0.0, double hi = 1.0) {
    std::uniform_real_distribution<double> d(lo, hi);
    return d(engine_);
  }
  double Gauss() {
    std::normal_distribution<double> d(0.0, 1.0);
    return d(engine_);
  }
  bool Prob(double p) { return Uniform() < p; }
  // A dimension: 1 with probability 0.2, else uniform in [1, max].
  int Dim(int max = 20) { return Prob(0.2) ? 1 : Int(1, max); }
  // An alpha/beta value, including 0 and 1 (exactly representable).
  double Scalar() {
    static const double kVals[] = {0.0, 1.0, -1.0, 0.5, -2.25, 3.0, 0.125};
    return kVals[Int(0, 6)];
  }
  MatrixTransposeType Trans() { return Prob(0.5) ? kTrans : kNoTrans; }

 private:
  uint64_t seed_;
  std::mt19937_64 engine_;
};

// Seeds: test-local constant + iteration, so each iteration is reproducible
// by itself.
inline uint64_t SeedFor(uint64_t base, int iter) {
  return base * 1000003ULL + static_cast<uint64_t>(iter);
}

// ---------------------------------------------------------------------------
// Naive references.

typedef std::vector<double> RefVec;

struct RefMat {
  int rows = 0, cols = 0;
  std::vector<double> d;
  RefMat() {}
  RefMat(int r, int c, double v = 0.0)
      : rows(r), cols(c), d(static_cast<size_t>(r) * c, v) {}
  double &operator()(int r, int c) {
    return d[static_cast<size_t>(r) * cols + c];
  }
  double operator()(int r, int c) const {
    return d[static_cast<size_t>(r) * cols + c];
  }
  RefMat T() const {
    RefMat t(cols, rows);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) t(c, r) = (*this)(r, c);
    return t;
  }
};

inline RefMat RefOp(const RefMat &A, MatrixTransposeType t) {
  return t == kTrans ? A.T() : A;
}

inline RefMat RefMul(const RefMat &A, const RefMat &B) {
  RefMat C(A.rows, B.cols);
  for (int i = 0; i < A.rows; i++)
    for (int j = 0; j < B.cols; j++) {
      long double s = 0;
      for (int k = 0; k < A.cols; k++) s += (long double)A(i, k) * B(k, j);
      C(i, j) = static_cast<double>(s);
    }
  return C;
}

template <class Real>
RefMat ToRef(const MatrixBase<Real> &M) {
  RefMat R(M.NumRows(), M.NumCols());
  for (int r = 0; r < M.NumRows(); r++)
    for (int c = 0; c < M.NumCols(); c++) R(r, c) = M(r, c);
  return R;
}

template <class Real>
RefVec ToRef(const VectorBase<Real> &v) {
  RefVec R(v.Dim());
  for (int i = 0; i < v.Dim(); i++) R[i] = v(i);
  return R;
}

// Writes values by element access (test setup only).
template <class Real>
void Fill(MatrixBase<Real> *M, const RefMat &R) {
  for (int r = 0; r < R.rows; r++)
    for (int c = 0; c < R.cols; c++) (*M)(r, c) = static_cast<Real>(R(r, c));
}
template <class Real>
void Fill(VectorBase<Real> *v, const RefVec &R) {
  for (size_t i = 0; i < R.size(); i++) (*v)(i) = static_cast<Real>(R[i]);
}
template <class Real>
void FillGauss(MatrixBase<Real> *M, Rng &rng, double scale = 1.0) {
  for (int r = 0; r < M->NumRows(); r++)
    for (int c = 0; c < M->NumCols(); c++)
      (*M)(r, c) = static_cast<Real>(scale * rng.Gauss());
}
template <class Real>
void FillUniform(MatrixBase<Real> *M, Rng &rng, double lo, double hi) {
  for (int r = 0; r < M->NumRows(); r++)
    for (int c = 0; c < M->NumCols(); c++)
      (*M)(r, c) = static_cast<Real>(rng.Uniform(lo, hi));
}
template <class Real>
void FillValue(MatrixBase<Real> *M, double v) {
  for (int r = 0; r < M->NumRows(); r++)
    for (int c = 0; c < M->NumCols(); c++) (*M)(r, c) = static_cast<Real>(v);
}
template <class Real>
void FillGauss(VectorBase<Real> *v, Rng &rng, double scale = 1.0) {
  for (int i = 0; i < v->Dim(); i++)
    (*v)(i) = static_cast<Real>(scale * rng.Gauss());
}
template <class Real>
void FillUniform(VectorBase<Real> *v, Rng &rng, double lo, double hi) {
  for (int i = 0; i < v->Dim(); i++)
    (*v)(i) = static_cast<Real>(rng.Uniform(lo, hi));
}
template <class Real>
void FillValue(VectorBase<Real> *v, double x) {
  for (int i = 0; i < v->Dim(); i++) (*v)(i) = static_cast<Real>(x);
}

template <class Real>
::testing::AssertionResult MatNear(const MatrixBase<Real> &M,
                                   const RefMat &R, double tol) {
  if (M.NumRows() != R.rows || M.NumCols() != R.cols)
    return ::testing::AssertionFailure()
           << "dimension mismatch: got " << M.NumRows() << "x" << M.NumCols()
           << ", expected " << R.rows << "x" << R.cols;
  for (int r = 0; r < R.rows; r++)
    for (int c = 0; c < R.cols; c++)
      if (!Close(M(r, c), R(r, c), tol))
        return ::testing::AssertionFailure()
               << std::setprecision(17) << "element (" << r << "," << c
               << ") of a " << R.rows << "x" << R.cols << " matrix: got "
               << M(r, c) << ", expected " << R(r, c) << " (tol " << tol
               << ")";
  return ::testing::AssertionSuccess();
}

template <class Real>
::testing::AssertionResult VecNear(const VectorBase<Real> &v,
                                   const RefVec &R, double tol) {
  if (v.Dim() != static_cast<int>(R.size()))
    return ::testing::AssertionFailure() << "dimension mismatch: got "
                                         << v.Dim() << ", expected "
                                         << R.size();
  for (size_t i = 0; i < R.size(); i++)
    if (!Close(v(i), R[i], tol))
      return ::testing::AssertionFailure()
             << std::setprecision(17) << "element " << i << " of "
             << R.size() << ": got " << v(i) << ", expected " << R[i]
             << " (tol " << tol << ")";
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------
// Test matrices: the object under test is an owned Matrix, a packed Matrix
// (kStrideEqualNumCols), a SubMatrix window of a larger matrix (row and
// column offsets, stride > cols), or a SubMatrix over raw memory with a
// padded stride. The memory around a view is filled with random values
// and OutsideUnchanged() checks that it was not touched.
enum class MatKind { kOwned = 0, kPacked, kWindow, kRaw, kCount };

inline const char *MatKindName(MatKind k) {
  switch (k) {
    case MatKind::kOwned: return "owned Matrix";
    case MatKind::kPacked: return "Matrix(kStrideEqualNumCols)";
    case MatKind::kWindow: return "SubMatrix window of a larger Matrix";
    case MatKind::kRaw: return "SubMatrix over raw padded memory";
    case MatKind::kCount: break;
  }
  return "?";
}

template <class Real>
class TestMatrix {
 public:
  // Random kind, Gaussian contents.
  TestMatrix(Rng &rng, int rows, int cols)
      : TestMatrix(rng, rows, cols,
                   static_cast<MatKind>(
                       rng.Int(0, static_cast<int>(MatKind::kCount) - 1))) {}
  TestMatrix(Rng &rng, int rows, int cols, MatKind kind)
      : kind_(kind), rows_(rows), cols_(cols) {
    switch (kind_) {
      case MatKind::kOwned:
        owned_.reset(new Matrix<Real>(rows, cols));
        break;
      case MatKind::kPacked:
        owned_.reset(
            new Matrix<Real>(rows, cols, kSetZero, kStrideEqualNumCols));
        break;
      case MatKind::kWindow: {
        ro_ = rng.Int(0, 3);
        co_ = rng.Int(0, 3);
        int pr = rows + ro_ + rng.Int(0, 3);
        int pc = cols + co_ + rng.Int(1, 5);  // stride > cols always
        owned_.reset(new Matrix<Real>(pr, pc));
        FillGauss(owned_.get(), rng, 7.0);
        snapshot_.assign(static_cast<size_t>(pr) * pc, 0);
        for (int r = 0; r < pr; r++)
          for (int c = 0; c < pc; c++)
            snapshot_[static_cast<size_t>(r) * pc + c] = (*owned_)(r, c);
        if (rows == 0)
          view_.reset(new SubMatrix<Real>(*owned_, ro_, 0, co_, 0));
        else
          view_.reset(new SubMatrix<Real>(*owned_, ro_, rows, co_, cols));
        break;
      }
      case MatKind::kRaw: {
        stride_ = cols + rng.Int(1, 5);
        lead_ = rng.Int(0, 3);  // also makes rows unaligned
        raw_.resize(lead_ + static_cast<size_t>(rows) * stride_ + 3);
        for (auto &x : raw_) x = static_cast<Real>(7.0 * rng.Gauss());
        snapshot_ = raw_;
        if (rows == 0)
          view_.reset(new SubMatrix<Real>(nullptr, 0, 0, 0));
        else
          view_.reset(new SubMatrix<Real>(raw_.data() + lead_, rows, cols,
                                          stride_));
        break;
      }
      case MatKind::kCount:
        break;
    }
    FillGauss(&M(), rng);
  }
  MatrixBase<Real> &M() {
    return view_ ? static_cast<MatrixBase<Real> &>(*view_) : *owned_;
  }
  const MatrixBase<Real> &M() const {
    return view_ ? static_cast<const MatrixBase<Real> &>(*view_) : *owned_;
  }
  MatKind kind() const { return kind_; }
  std::string Describe() const {
    std::ostringstream os;
    os << rows_ << "x" << cols_ << " " << MatKindName(kind_);
    if (kind_ == MatKind::kWindow)
      os << " at (" << ro_ << "," << co_ << ") of " << owned_->NumRows()
         << "x" << owned_->NumCols();
    if (kind_ == MatKind::kRaw) os << " stride " << stride_;
    return os.str();
  }
  // True if every element outside the view still has its initial value.
  ::testing::AssertionResult OutsideUnchanged() const {
    if (kind_ == MatKind::kWindow) {
      int pr = owned_->NumRows(), pc = owned_->NumCols();
      for (int r = 0; r < pr; r++)
        for (int c = 0; c < pc; c++) {
          bool inside = r >= ro_ && r < ro_ + rows_ && c >= co_ &&
                        c < co_ + cols_;
          Real now = (*owned_)(r, c),
               then = snapshot_[static_cast<size_t>(r) * pc + c];
          if (!inside && std::memcmp(&now, &then, sizeof(Real)) != 0)
            return ::testing::AssertionFailure()
                   << "element (" << r << "," << c << ") of the parent, "
                   << "outside the view " << Describe() << ", changed from "
                   << then << " to " << now;
        }
    } else if (kind_ == MatKind::kRaw) {
      for (size_t i = 0; i < raw_.size(); i++) {
        bool inside = false;
        if (i >= static_cast<size_t>(lead_)) {
          size_t off = i - lead_;
          size_t r = off / stride_, c = off % stride_;
          inside = r < static_cast<size_t>(rows_) &&
                   c < static_cast<size_t>(cols_);
        }
        if (!inside && std::memcmp(&raw_[i], &snapshot_[i], sizeof(Real)) != 0)
          return ::testing::AssertionFailure()
                 << "raw element " << i << " outside the view " << Describe()
                 << " changed from " << snapshot_[i] << " to " << raw_[i];
      }
    }
    return ::testing::AssertionSuccess();
  }

 private:
  MatKind kind_;
  int rows_, cols_;
  int ro_ = 0, co_ = 0, stride_ = 0, lead_ = 0;
  std::unique_ptr<Matrix<Real>> owned_;
  std::unique_ptr<SubMatrix<Real>> view_;
  std::vector<Real> raw_;
  std::vector<Real> snapshot_;
};

enum class VecKind { kOwned = 0, kRange, kMatRow, kRaw, kCount };

inline const char *VecKindName(VecKind k) {
  switch (k) {
    case VecKind::kOwned: return "owned Vector";
    case VecKind::kRange: return "Range() of a larger Vector";
    case VecKind::kMatRow: return "row of a Matrix";
    case VecKind::kRaw: return "SubVector over raw memory";
    case VecKind::kCount: break;
  }
  return "?";
}

template <class Real>
class TestVector {
 public:
  TestVector(Rng &rng, int dim)
      : TestVector(rng, dim,
                   static_cast<VecKind>(
                       rng.Int(0, static_cast<int>(VecKind::kCount) - 1))) {}
  TestVector(Rng &rng, int dim, VecKind kind) : kind_(kind), dim_(dim) {
    if (dim == 0 && kind_ == VecKind::kMatRow) kind_ = VecKind::kOwned;
    switch (kind_) {
      case VecKind::kOwned:
        owned_.reset(new Vector<Real>(dim));
        break;
      case VecKind::kRange: {
        off_ = rng.Int(0, 4);
        owned_.reset(new Vector<Real>(dim + off_ + rng.Int(0, 4)));
        FillGauss(owned_.get(), rng, 7.0);
        snapshot_ = RawCopy(*owned_);
        view_.reset(new SubVector<Real>(*owned_, off_, dim));
        break;
      }
      case VecKind::kMatRow: {
        int rows = rng.Int(1, 4);
        row_ = rng.Int(0, rows - 1);
        mat_.reset(new Matrix<Real>(rows, dim));
        FillGauss(mat_.get(), rng, 7.0);
        view_.reset(new SubVector<Real>(*mat_, row_));
        for (int r = 0; r < rows; r++)
          for (int c = 0; c < dim; c++) snapshot_.push_back((*mat_)(r, c));
        break;
      }
      case VecKind::kRaw: {
        off_ = rng.Int(0, 3);
        raw_.resize(dim + off_ + 3);
        for (auto &x : raw_) x = static_cast<Real>(7.0 * rng.Gauss());
        snapshot_ = raw_;
        view_.reset(new SubVector<Real>(dim == 0 ? nullptr : raw_.data() + off_,
                                        dim));
        break;
      }
      case VecKind::kCount:
        break;
    }
    FillGauss(&v(), rng);
  }
  VectorBase<Real> &v() {
    return view_ ? static_cast<VectorBase<Real> &>(*view_) : *owned_;
  }
  const VectorBase<Real> &v() const {
    return view_ ? static_cast<const VectorBase<Real> &>(*view_) : *owned_;
  }
  std::string Describe() const {
    return "dim " + std::to_string(dim_) + " " + VecKindName(kind_);
  }
  ::testing::AssertionResult OutsideUnchanged() const {
    std::vector<Real> now;
    size_t lo = 0, hi = 0;
    switch (kind_) {
      case VecKind::kRange:
        now = RawCopy(*owned_);
        lo = off_;
        hi = off_ + dim_;
        break;
      case VecKind::kMatRow:
        for (int r = 0; r < mat_->NumRows(); r++)
          for (int c = 0; c < dim_; c++) now.push_back((*mat_)(r, c));
        lo = static_cast<size_t>(row_) * dim_;
        hi = lo + dim_;
        break;
      case VecKind::kRaw:
        now = raw_;
        lo = off_;
        hi = off_ + dim_;
        break;
      default:
        return ::testing::AssertionSuccess();
    }
    for (size_t i = 0; i < now.size(); i++)
      if ((i < lo || i >= hi) &&
          std::memcmp(&now[i], &snapshot_[i], sizeof(Real)) != 0)
        return ::testing::AssertionFailure()
               << "element " << i << " of the memory around the view "
               << Describe() << " changed from " << snapshot_[i] << " to "
               << now[i];
    return ::testing::AssertionSuccess();
  }

 private:
  static std::vector<Real> RawCopy(const VectorBase<Real> &v) {
    std::vector<Real> out(v.Dim());
    for (int i = 0; i < v.Dim(); i++) out[i] = v(i);
    return out;
  }
  VecKind kind_;
  int dim_;
  int off_ = 0, row_ = 0;
  std::unique_ptr<Vector<Real>> owned_;
  std::unique_ptr<Matrix<Real>> mat_;
  std::unique_ptr<SubVector<Real>> view_;
  std::vector<Real> raw_;
  std::vector<Real> snapshot_;
};

// Runs body(rng, iter) for iterations 0..n-1, each with its own seed in a
// SCOPED_TRACE. Iteration 0 is the one where tests use empty dimensions.
template <class F>
void ForEachSeed(uint64_t base, int n, F body) {
  ::testing::Test::RecordProperty("random_seed_base", std::to_string(base));
  for (int iter = 0; iter < n; iter++) {
    Rng rng(SeedFor(base, iter));
    SCOPED_TRACE(rng.Trace() + ", iteration " + std::to_string(iter));
    body(rng, iter);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Hash of a test name, so each test has its own seed sequence.
inline uint64_t NameSeed(const char *name) {
  uint64_t h = 1469598103934665603ULL;
  for (const char *p = name; *p; p++)
    h = (h ^ static_cast<uint8_t>(*p)) * 1099511628211ULL;
  return h % 1000000007ULL;
}

// The seed base of the running test (from its name, the same for the float
// and the double instantiation).
inline uint64_t TestSeed() {
  return NameSeed(
      ::testing::UnitTest::GetInstance()->current_test_info()->name());
}

}  // namespace test
}  // namespace nnet3

#endif  // NNET3_TESTS_MATRIX_MATRIX_TEST_UTIL_H_
