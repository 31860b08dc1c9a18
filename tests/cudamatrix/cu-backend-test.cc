// tests/cudamatrix/cu-backend-test.cc
// The Cu* types on the GPU backend against the same types on the CPU
// backend (the oracle): every operation of CuMatrixBase, CuVectorBase,
// CuSparseMatrix, CuArray and the cu:: component functions runs on
// identical operands in both places, and every operand and returned value
// must agree (floats to rounding; index results exactly). Operands are
// views with odd strides into larger matrices, on shapes with 0 and 1 rows,
// 1 column and large sizes. Also checked: objects keep their location,
// mixing locations is an InternalError, host views of device data are
// refused. Without a GPU every test skips with one line.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/random.h"
#include "cudamatrix/cu-backend.h"
#include "cudamatrix/cu-compressed-matrix.h"
#include "cudamatrix/cu-device.h"
#include "cudamatrix/cu-math-attention.h"
#include "cudamatrix/cu-math-convolution.h"
#include "cudamatrix/cu-math-fused.h"
#include "cudamatrix/cu-math-low-rank.h"
#include "cudamatrix/cu-math-nonlinear.h"
#include "cudamatrix/cu-math-recurrent.h"
#include "cudamatrix/cu-math-update.h"
#include "cudamatrix/cu-matrix.h"
#include "cudamatrix/gpu-backend-test-util.h"
#include "matrix/sparse.h"

namespace nnet3 {
namespace {

// "" once a GPU computes for this process, else why it cannot.
const std::string &NoGpuReason() { return test::GpuBackendUnavailable(); }

struct Shape {
  int32 rows, cols;
};

std::vector<Shape> Shapes() {
  return {{0, 0}, {1, 1}, {1, 7}, {9, 1}, {13, 29}, {130, 517}};
}

// The operands every operation may read and write, on one backend. The
// matrices are views (offset 1 row, 2 columns) into larger stores, so their
// stride is not their width.
template <typename Real>
struct Operands {
  int32 r, c;
  CuMatrix<Real> store_a, store_b, store_c, store_sr, store_sc;
  std::unique_ptr<CuSubMatrix<Real>> A, B, C, Sr, Sc;  // Sr: r x r, Sc: c x c
  CuVector<Real> vr, vc, wr, wc, vrc;                  // vrc: r * c
  std::vector<double> results;                         // returned values
  std::vector<int32> int_results;

  explicit Operands(const Shape &s, uint64 seed) : r(s.rows), c(s.cols) {
    RandomSource rs(seed);
    auto make = [&](CuMatrix<Real> *store, int32 rows, int32 cols) {
      Matrix<Real> h(rows + 2, cols + 3);
      h.SetRandn(&rs);
      store->Resize(h.NumRows(), h.NumCols(), kUndefined);
      store->CopyFromMat(h);
      return std::unique_ptr<CuSubMatrix<Real>>(
          new CuSubMatrix<Real>(*store, 1, rows, 2, cols));
    };
    A = make(&store_a, r, c);
    B = make(&store_b, r, c);
    C = make(&store_c, r, c);
    Sr = make(&store_sr, r, r);
    Sc = make(&store_sc, c, c);
    auto vec = [&](CuVector<Real> *v, int32 dim) {
      Vector<Real> h(dim);
      h.SetRandn(&rs);
      v->Resize(dim, kUndefined);
      v->CopyFromVec(h);
    };
    vec(&vr, r);
    vec(&vc, c);
    vec(&wr, r);
    vec(&wc, c);
    vec(&vrc, r * c);
  }
  // Makes B's and wr/wc's elements safely away from zero (for division).
  void AwayFromZero() {
    B->ApplyAbs();
    B->Add(0.5);
    wr.ApplyAbs();
    wr.Add(0.5);
    wc.ApplyAbs();
    wc.Add(0.5);
  }
};

template <typename Real>
using Op = std::function<void(Operands<Real> &)>;

template <typename Real>
::testing::AssertionResult Close(const Matrix<Real> &gpu,
                                 const Matrix<Real> &cpu, double tol,
                                 const std::string &what) {
  if (gpu.NumRows() != cpu.NumRows() || gpu.NumCols() != cpu.NumCols())
    return ::testing::AssertionFailure() << what << ": dimensions differ";
  double scale = 1.0;
  for (int32 i = 0; i < cpu.NumRows(); i++)
    for (int32 j = 0; j < cpu.NumCols(); j++)
      if (std::isfinite(cpu(i, j)))
        scale = std::max(scale, std::fabs(static_cast<double>(cpu(i, j))));
  for (int32 i = 0; i < cpu.NumRows(); i++)
    for (int32 j = 0; j < cpu.NumCols(); j++) {
      double a = gpu(i, j), b = cpu(i, j);
      if (std::isnan(a) && std::isnan(b)) continue;
      if (std::isinf(b) && a == b) continue;
      if (!(std::fabs(a - b) <= tol * scale))
        return ::testing::AssertionFailure()
               << what << "(" << i << "," << j << "): gpu " << a << ", cpu "
               << b << " (allowed " << tol * scale << ")";
    }
  return ::testing::AssertionSuccess();
}

template <typename Real>
Matrix<Real> AsMatrix(const CuVectorBase<Real> &v) {
  Vector<Real> h = v.Download();
  Matrix<Real> m(1, h.Dim());
  if (h.Dim() > 0) m.CopyRowsFromVec(h);
  return m;
}

template <typename Real>
double Tolerance() {
  return sizeof(Real) == 4 ? 2e-4 : 1e-10;
}

// Runs "op" on both backends and compares every operand and result.
template <typename Real>
void CheckOp(const std::string &name, const Op<Real> &op,
             bool away_from_zero = false) {
  uint64 seed = 1234;
  for (const Shape &s : Shapes()) {
    seed++;
    SCOPED_TRACE(name + " on " + std::to_string(s.rows) + "x" +
                 std::to_string(s.cols));
    std::unique_ptr<Operands<Real>> cpu, gpu;
    {
      cu_backend::Scope host(false);
      cpu.reset(new Operands<Real>(s, seed));
      if (away_from_zero) cpu->AwayFromZero();
      op(*cpu);
    }
    {
      cu_backend::Scope device(true);
      gpu.reset(new Operands<Real>(s, seed));
      ASSERT_TRUE(gpu->A->OnDevice() && gpu->vr.OnDevice());
      if (away_from_zero) gpu->AwayFromZero();
      op(*gpu);
    }
    const double tol = Tolerance<Real>();
    EXPECT_TRUE(Close(gpu->A->Download(), cpu->A->Download(), tol, "A"));
    EXPECT_TRUE(Close(gpu->B->Download(), cpu->B->Download(), tol, "B"));
    EXPECT_TRUE(Close(gpu->C->Download(), cpu->C->Download(), tol, "C"));
    EXPECT_TRUE(Close(gpu->Sr->Download(), cpu->Sr->Download(), tol, "Sr"));
    EXPECT_TRUE(Close(gpu->Sc->Download(), cpu->Sc->Download(), tol, "Sc"));
    // The stores: nothing outside the views was touched.
    EXPECT_TRUE(Close(gpu->store_c.Download(), cpu->store_c.Download(), tol,
                      "store_c"));
    EXPECT_TRUE(Close(AsMatrix(gpu->vr), AsMatrix(cpu->vr), tol, "vr"));
    EXPECT_TRUE(Close(AsMatrix(gpu->vc), AsMatrix(cpu->vc), tol, "vc"));
    EXPECT_TRUE(Close(AsMatrix(gpu->vrc), AsMatrix(cpu->vrc), tol, "vrc"));
    ASSERT_EQ(gpu->results.size(), cpu->results.size());
    for (size_t i = 0; i < cpu->results.size(); i++) {
      double a = gpu->results[i], b = cpu->results[i];
      if (std::isnan(b) || std::isinf(b)) {
        EXPECT_TRUE(std::isnan(b) ? std::isnan(a) : a == b)
            << "result " << i << ": gpu " << a << ", cpu " << b;
        continue;
      }
      EXPECT_NEAR(a, b, tol * std::max(1.0, std::fabs(b))) << "result " << i;
    }
    EXPECT_EQ(gpu->int_results, cpu->int_results);
  }
}

template <typename Real>
class CuBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NoGpuReason().empty()) GTEST_SKIP() << NoGpuReason();
  }
};
typedef ::testing::Types<float, double> RealTypes;
TYPED_TEST_SUITE(CuBackendTest, RealTypes);

// Random indexes in [lo, n) (lo = -1 allows the "skip/zero" index).
std::vector<int32> RandomIndexes(int32 count, int32 n, int32 lo, uint64 seed) {
  RandomSource rs(seed);
  std::vector<int32> v(count, -1);
  for (int32 &i : v) i = n > 0 ? rs.Int(lo, n - 1) : -1;
  return v;
}

// A permutation of [0, n) with about a quarter replaced by -1 (distinct
// destinations, as the scatter operations need).
std::vector<int32> PartialPermutation(int32 n, uint64 seed) {
  RandomSource rs(seed);
  std::vector<int32> v(n);
  for (int32 i = 0; i < n; i++) v[i] = i;
  for (int32 i = n - 1; i > 0; i--) std::swap(v[i], v[rs.Int(0, i)]);
  for (int32 &i : v)
    if (rs.WithProb(0.25)) i = -1;
  return v;
}

TYPED_TEST(CuBackendTest, CopyAndSet) {
  typedef TypeParam R;
  CheckOp<R>("SetZero", [](Operands<R> &x) { x.C->SetZero(); });
  CheckOp<R>("Set", [](Operands<R> &x) { x.C->Set(-2.5); });
  CheckOp<R>("SetUnit", [](Operands<R> &x) { x.Sr->SetUnit(); });
  CheckOp<R>("SetRandn", [](Operands<R> &x) {
    RandomSource rs(7);
    x.C->SetRandn(&rs);
    x.vr.SetRandUniform(&rs);
  });
  CheckOp<R>("CopyFromMat", [](Operands<R> &x) { x.C->CopyFromMat(*x.A); });
  CheckOp<R>("CopyFromMat-trans",
             [](Operands<R> &x) { x.Sr->CopyFromMat(*x.Sr, kNoTrans);
                                  CuMatrix<R> t(*x.Sc);
                                  x.Sc->CopyFromMat(t, kTrans); });
  CheckOp<R>("CopyFromMat-other", [](Operands<R> &x) {
    typedef typename DeviceOps<R>::Other O;
    CuMatrix<O> other(*x.A);
    x.C->CopyFromMat(other);
    CuMatrix<O> other_t(*x.A, kTrans);
    x.C->CopyFromMat(other_t, kTrans);
  });
  CheckOp<R>("CopyFromMat-host", [](Operands<R> &x) {
    Matrix<R> h = x.A->Download();
    h.Scale(3.0);
    x.C->CopyFromMat(h);
    Matrix<R> ht(x.Sc->Download(), kTrans);
    x.Sc->CopyFromMat(ht, kTrans);
  });
  CheckOp<R>("CopyToMat-trans", [](Operands<R> &x) {
    Matrix<R> t(x.c, x.r);
    x.A->CopyToMat(&t, kTrans);
    x.C->CopyFromMat(t, kTrans);
  });
  CheckOp<R>("CopyRowsFromVec", [](Operands<R> &x) {
    x.C->CopyRowsFromVec(x.vrc);
    if (x.r > 0) x.A->CopyRowsFromVec(x.vc);
  });
  CheckOp<R>("CopyRowsFromVec-host", [](Operands<R> &x) {
    x.C->CopyRowsFromVec(x.vrc.Download());
  });
  CheckOp<R>("CopyColsFromVec", [](Operands<R> &x) {
    x.C->CopyColsFromVec(x.vrc);
    if (x.c > 0) x.A->CopyColsFromVec(x.vr);
  });
  CheckOp<R>("CopyColFromVec", [](Operands<R> &x) {
    if (x.c == 0) return;
    x.C->CopyColFromVec(x.vr, 0);
    x.C->CopyColFromVec(x.wr, x.c - 1);
  });
  CheckOp<R>("CopyDiagFromVec", [](Operands<R> &x) { x.Sr->CopyDiagFromVec(x.vr); });
  CheckOp<R>("Elements", [](Operands<R> &x) {
    if (x.r == 0) return;
    x.results.push_back(x.A->GetElement(x.r - 1, x.c - 1));
    x.C->SetElement(0, x.c / 2, 42.0);
    x.results.push_back(x.vr.GetElement(x.r / 2));
    x.vc.SetElement(0, -3.0);
  });
  CheckOp<R>("CopyFromGeneralMat", [](Operands<R> &x) {
    if constexpr (std::is_same<R, BaseFloat>::value) {
      Matrix<BaseFloat> h(x.r, x.c);
      h.CopyFromMat(x.A->Download());
      GeneralMatrix g;
      g = h;
      x.C->CopyFromGeneralMat(g);
      CompressedMatrix cm(h);
      x.B->CopyFromMat(cm);
    }
  });
}

TYPED_TEST(CuBackendTest, Elementwise) {
  typedef TypeParam R;
  CheckOp<R>("Add", [](Operands<R> &x) { x.C->Add(0.25); });
  CheckOp<R>("Scale", [](Operands<R> &x) { x.C->Scale(-1.5); });
  CheckOp<R>("AddMat", [](Operands<R> &x) {
    x.C->AddMat(0.5, *x.A);
    x.Sr->AddMat(-2.0, *x.Sr, kNoTrans);
    CuMatrix<R> t(*x.Sc);
    x.Sc->AddMat(1.5, t, kTrans);
  });
  CheckOp<R>("MulElements", [](Operands<R> &x) { x.C->MulElements(*x.A); });
  CheckOp<R>("DivElements", [](Operands<R> &x) { x.C->DivElements(*x.B); },
             true);
  CheckOp<R>("MaxMin", [](Operands<R> &x) {
    x.C->Max(*x.A);
    x.B->Min(*x.A);
  });
  CheckOp<R>("InvertElements", [](Operands<R> &x) { x.B->InvertElements(); },
             true);
  CheckOp<R>("ApplyFloorCeiling", [](Operands<R> &x) {
    x.A->ApplyFloor(-0.3);
    x.C->ApplyCeiling(0.2);
  });
  CheckOp<R>("ApplyExpLog", [](Operands<R> &x) {
    x.A->ApplyExp();
    x.B->ApplyLog();
  }, true);
  CheckOp<R>("ApplyAbsPow", [](Operands<R> &x) {
    x.A->ApplyAbs();
    x.B->ApplyPow(2.5);
    x.C->ApplyPowAbs(1.5, true);
    x.Sr->ApplyPowAbs(0.5, false);
  }, true);
  CheckOp<R>("ApplyHeaviside", [](Operands<R> &x) { x.C->ApplyHeaviside(); });
  CheckOp<R>("SigmoidTanh", [](Operands<R> &x) {
    x.C->Sigmoid(*x.A);
    x.B->Tanh(*x.A);
  });
  CheckOp<R>("DiffSigmoidTanh", [](Operands<R> &x) {
    x.C->DiffSigmoid(*x.A, *x.B);
    x.Sr->DiffTanh(*x.Sr, *x.Sr);
  });
  CheckOp<R>("Softmax", [](Operands<R> &x) {
    x.C->SoftMaxPerRow(*x.A);
    x.B->LogSoftMaxPerRow(*x.B);
  });
  CheckOp<R>("AddMatMatElements", [](Operands<R> &x) {
    x.C->AddMatMatElements(0.5, *x.A, *x.B, -1.0);
    x.Sr->AddMatMatElements(1.0, *x.Sr, *x.Sr, 0.0);
  });
}

TYPED_TEST(CuBackendTest, BroadcastsAndBlas) {
  typedef TypeParam R;
  CheckOp<R>("MulRowsColsVec", [](Operands<R> &x) {
    x.C->MulRowsVec(x.vr);
    x.A->MulColsVec(x.vc);
  });
  CheckOp<R>("DivRowsVec", [](Operands<R> &x) { x.C->DivRowsVec(x.wr); },
             true);
  CheckOp<R>("AddVecToRowsCols", [](Operands<R> &x) {
    x.C->AddVecToRows(0.5, x.vc);
    x.A->AddVecToCols(-1.0, x.vr, 0.0);
    x.B->AddVecToRows(2.0, x.vc, 0.0);
  });
  CheckOp<R>("AddToDiag", [](Operands<R> &x) { x.Sr->AddToDiag(3.0); });
  CheckOp<R>("AddMatMat", [](Operands<R> &x) {
    x.C->AddMatMat(1.0, *x.Sr, kNoTrans, *x.A, kNoTrans, 0.5);
    x.C->AddMatMat(0.5, *x.A, kNoTrans, *x.Sc, kTrans, 1.0);
    x.C->AddMatMat(-1.0, *x.Sr, kTrans, *x.B, kNoTrans, 1.0);
    x.Sr->AddMatMat(1.0, *x.A, kNoTrans, *x.B, kTrans, 0.0);
    x.Sc->AddMatMat(0.25, *x.A, kTrans, *x.B, kNoTrans, 1.0);
  });
  CheckOp<R>("AddVecVec", [](Operands<R> &x) { x.C->AddVecVec(0.5, x.vr, x.vc); });
  CheckOp<R>("AddDiagVecMat", [](Operands<R> &x) {
    x.C->AddDiagVecMat(0.5, x.vr, *x.A, kNoTrans, 1.0);
    CuMatrix<R> t(*x.Sr);
    x.Sr->AddDiagVecMat(1.0, x.vr, t, kTrans, 0.0);
  });
  CheckOp<R>("AddMatDiagVec", [](Operands<R> &x) {
    x.C->AddMatDiagVec(0.5, *x.A, kNoTrans, x.vc, 1.0);
    CuMatrix<R> t(*x.Sc);
    x.Sc->AddMatDiagVec(-1.0, t, kTrans, x.vc, 0.5);
  });
  CheckOp<R>("AddSmat", [](Operands<R> &x) {
    std::vector<std::vector<std::pair<MatrixIndexT, R>>> rows(x.r);
    for (int32 i = 0; i < x.r; i++)
      for (int32 j = i % 3; j < x.c; j += 3)
        rows[i].push_back(std::make_pair(j, static_cast<R>(0.5 * i - j)));
    SparseMatrix<R> host(x.c, rows);
    CuSparseMatrix<R> s(host);
    x.C->AddSmat(0.5, s);
    x.results.push_back(TraceMatSmat(*x.A, s, kTrans));
    s.CopyToMat(x.A.get());
    CuMatrix<R> t(x.c, x.r);
    s.AddToMat(2.0, &t, kTrans);
    x.A->AddMat(1.0, t, kTrans);
    // New rows after device use: the device layout must follow them.
    for (auto &row : rows)
      for (auto &e : row) e.second = -2 * e.second + 1;
    s.CopyFromSmat(SparseMatrix<R>(x.c, rows));
    x.B->AddSmat(1.0, s);
    SparseMatrix<R> swapped(host);
    s.Swap(&swapped);
    x.B->AddSmat(0.25, s);
    CuSparseMatrix<R> copy(s);
    x.results.push_back(TraceMatSmat(*x.B, copy, kTrans));
  });
}

TYPED_TEST(CuBackendTest, RowAndColumnIndexes) {
  typedef TypeParam R;
  CheckOp<R>("CopyRowsAddRows", [](Operands<R> &x) {
    CuArray<int32> idx(RandomIndexes(x.r, x.r, -1, 5));
    x.C->CopyRows(*x.A, idx);
    x.B->AddRows(0.5, *x.A, idx);
  });
  CheckOp<R>("CopyRowsPointers", [](Operands<R> &x) {
    std::vector<int32> idx = RandomIndexes(x.r, x.r, -1, 6);
    std::vector<const R *> src(x.r, nullptr);
    std::vector<R *> dst(x.r, nullptr);
    for (int32 i = 0; i < x.r; i++)
      if (idx[i] >= 0) {
        src[i] = x.A->Data() + static_cast<size_t>(idx[i]) * x.A->Stride();
        dst[i] = x.B->Data() + static_cast<size_t>(i) * x.B->Stride();
      }
    x.C->CopyRows(CuArray<const R *>(src));
    x.C->AddRows(2.0, CuArray<const R *>(src));
    x.A->CopyToRows(CuArray<R *>(dst));
    x.A->AddToRows(-1.0, CuArray<R *>(dst));
  });
  CheckOp<R>("CopyToRowsAddToRows", [](Operands<R> &x) {
    CuArray<int32> perm(PartialPermutation(x.r, 8));
    x.A->CopyToRows(perm, x.C.get());
    x.A->AddToRows(0.5, perm, x.B.get());
  });
  CheckOp<R>("AddRowRanges", [](Operands<R> &x) {
    RandomSource rs(9);
    std::vector<Int32Pair> ranges(x.r);
    for (Int32Pair &p : ranges) {
      p.first = rs.Int(0, x.r);
      p.second = rs.Int(p.first, x.r);
    }
    x.C->AddRowRanges(*x.A, CuArray<Int32Pair>(ranges));
  });
  CheckOp<R>("SumColumnRanges", [](Operands<R> &x) {
    RandomSource rs(10);
    std::vector<Int32Pair> ranges(x.c);
    for (Int32Pair &p : ranges) {
      p.first = rs.Int(0, x.c);
      p.second = rs.Int(p.first, x.c);
    }
    x.C->SumColumnRanges(*x.A, CuArray<Int32Pair>(ranges));
  });
  CheckOp<R>("CopyColsAddCols", [](Operands<R> &x) {
    CuArray<int32> idx(RandomIndexes(x.c, x.c, -1, 11));
    x.C->CopyCols(*x.A, idx);
    x.B->AddCols(*x.A, idx);
  });
  CheckOp<R>("FindRowMaxId", [](Operands<R> &x) {
    CuArray<int32> ids;
    x.A->FindRowMaxId(&ids);
    x.int_results = ids.Vec();
  });
}

TYPED_TEST(CuBackendTest, Reductions) {
  typedef TypeParam R;
  CheckOp<R>("MatrixReductions", [](Operands<R> &x) {
    x.results.push_back(x.A->Sum());
    x.results.push_back(x.Sr->Trace());
    x.results.push_back(x.Sr->FrobeniusNorm());
    if (x.r > 0) {
      x.results.push_back(x.A->Max());
      x.results.push_back(x.A->Min());
    }
    x.int_results.push_back(x.A->IsZero());
    x.int_results.push_back(x.A->IsFinite());
    x.int_results.push_back(x.A->ApproxEqual(*x.B));
    x.int_results.push_back(x.A->Equal(*x.A));
    x.results.push_back(TraceMatMat(*x.A, *x.B, kTrans));
    x.results.push_back(TraceMatMat(*x.Sr, *x.Sr, kNoTrans));
  });
  CheckOp<R>("VectorReductions", [](Operands<R> &x) {
    x.results.push_back(x.vr.Sum());
    x.results.push_back(x.vc.Norm(1.0));
    x.results.push_back(x.vc.Norm(2.0));
    x.results.push_back(x.vc.Norm(3.0));
    x.results.push_back(VecVec(x.vr, x.wr));
    x.results.push_back(x.vc.LogSumExp());
    if (x.c > 0) {
      MatrixIndexT i = -1, j = -1;
      x.results.push_back(x.vc.Max());
      x.results.push_back(x.vc.Min());
      x.results.push_back(x.vc.Max(&i));
      x.results.push_back(x.vc.Min(&j));
      x.int_results.push_back(i);
      x.int_results.push_back(j);
    }
    x.results.push_back(x.wc.SumLog());
    x.int_results.push_back(x.vr.IsZero());
    x.int_results.push_back(x.vr.ApproxEqual(x.wr));
  }, true);
  CheckOp<R>("RowColSums", [](Operands<R> &x) {
    x.vc.AddRowSumMat(0.5, *x.A, 1.0);
    x.vr.AddColSumMat(-1.0, *x.A, 0.0);
    x.wr.AddDiagMat2(0.5, *x.A, kNoTrans, 1.0);
    x.wc.AddDiagMat2(1.0, *x.A, kTrans, 0.0);
    x.results.push_back(x.wr.Sum() + x.wc.Sum());
  });
  CheckOp<R>("AddMatVec", [](Operands<R> &x) {
    x.vr.AddMatVec(0.5, *x.A, kNoTrans, x.vc, 1.0);
    x.vc.AddMatVec(1.0, *x.A, kTrans, x.wr, 0.0);
  });
}

TYPED_TEST(CuBackendTest, VectorOperations) {
  typedef TypeParam R;
  CheckOp<R>("VectorCopies", [](Operands<R> &x) {
    typedef typename DeviceOps<R>::Other O;
    x.vr.CopyFromVec(x.wr);
    CuVector<O> other(x.vc);
    other.Scale(2.0);
    x.vc.CopyFromVec(other);
    x.vrc.CopyRowsFromMat(*x.A);
    if (x.r > 0) {
      x.wc.CopyRowFromMat(*x.A, x.r - 1);
      x.wr.CopyColFromMat(*x.A, 0);
      CuMatrix<O> a_other(*x.A);
      x.wc.CopyRowFromMat(a_other, 0);
      x.wr.CopyColFromMat(a_other, x.c - 1);
    }
    x.vr.CopyDiagFromMat(*x.Sr);
    x.C->CopyRowsFromVec(x.vrc);
    if (x.r > 0) x.C->Row(x.r - 1).CopyFromVec(x.wc);
  });
  CheckOp<R>("VectorElementwise", [](Operands<R> &x) {
    MatrixIndexT floored = 0, ceiled = 0;
    x.vr.ApplyFloor(-0.5, &floored);
    x.vc.ApplyCeiling(0.5, &ceiled);
    x.int_results.push_back(floored);
    x.int_results.push_back(ceiled);
    x.vrc.ApplyFloor(0.1);
    x.vrc.ApplyCeiling(1.0);
    x.wr.ApplyLog();
    x.wc.ApplyPow(1.5);
    x.vr.ApplyExp();
    x.vc.ApplyAbs();
    x.vc.ApplyPowAbs(0.5, true);
    x.vc.ApplyHeaviside();
    x.vr.InvertElements();
  }, true);
  CheckOp<R>("VectorSoftmax", [](Operands<R> &x) {
    x.results.push_back(x.vc.ApplySoftMax());
    x.results.push_back(x.vr.ApplyLogSoftMax());
    x.wr.Sigmoid(x.vr);
    x.wc.Tanh(x.vc);
    x.vrc.ApplyLogAndCopy(x.vrc);
  });
  CheckOp<R>("VectorArithmetic", [](Operands<R> &x) {
    typedef typename DeviceOps<R>::Other O;
    x.vr.Add(1.5);
    x.vr.Scale(-0.5);
    x.vr.AddVec(2.0, x.wr);
    CuVector<O> other(x.wc);
    x.vc.AddVec(0.5, other);
    x.vc.AddVec2(1.0, x.wc);
    x.vr.MulElements(x.wr);
    x.vc.DivElements(x.wc);
    x.wr.AddVecVec(0.5, x.vr, x.wr, 1.0);
    x.results.push_back(VecVec(x.vc, other));
  }, true);
  CheckOp<R>("VectorResizeAndSwap", [](Operands<R> &x) {
    CuVector<R> v(x.vr);
    v.Resize(x.r + 3, kCopyData);
    x.results.push_back(v.Sum());
    v.RemoveElement(0);
    x.results.push_back(v.Sum());
    Vector<R> host(4);
    host.Set(2.0);
    v.Swap(&host);
    x.results.push_back(v.Sum() + host.Sum());
    std::ostringstream os;
    x.wr.Write(os, true);
    std::istringstream is(os.str());
    CuVector<R> back;
    back.Read(is, true);
    x.vr.CopyFromVec(back);
  });
}

TYPED_TEST(CuBackendTest, MatrixResizeAndSwap) {
  typedef TypeParam R;
  CheckOp<R>("MatrixResize", [](Operands<R> &x) {
    CuMatrix<R> m(*x.A);
    m.Resize(x.r + 2, x.c + 1, kCopyData);
    x.results.push_back(m.Sum());
    if (m.NumRows() > 1) m.RemoveRow(1);
    x.results.push_back(m.Sum());
    m.Transpose();
    x.results.push_back(m.NumRows() > 0 ? m.GetElement(0, m.NumCols() - 1) : 0);
    Matrix<R> host(2, 3);
    host.Set(1.5);
    m.Swap(&host);
    x.results.push_back(m.Sum() + host.Sum());
    CuMatrix<R> stride_equal(x.r, x.c, kUndefined, kStrideEqualNumCols);
    stride_equal.CopyFromMat(*x.A);
    x.int_results.push_back(stride_equal.Stride() == x.c || x.r == 0);
    x.C->CopyFromMat(stride_equal);
    std::ostringstream os;
    x.B->Write(os, false);
    std::istringstream is(os.str());
    CuMatrix<R> back;
    back.Read(is, false);
    x.C->AddMat(1.0, back);
  });
}

TYPED_TEST(CuBackendTest, ComponentFunctions) {
  typedef TypeParam R;
  CheckOp<R>("NonlinearBackprops", [](Operands<R> &x) {
    CuMatrix<R> relu(*x.A);
    relu.ApplyFloor(0.0);
    cu::BackpropRectifiedLinear(relu, *x.B, x.C.get());
    CuMatrix<R> soft(x.r, x.c);
    soft.SoftMaxPerRow(*x.A);
    cu::DiffSoftmaxPerRow(soft, *x.B, x.C.get());
    CuMatrix<R> logsoft(x.r, x.c), d(x.r, x.c);
    logsoft.LogSoftMaxPerRow(*x.A);
    cu::DiffLogSoftmaxPerRow(logsoft, *x.B, &d);
    x.A->AddMat(1.0, d);
    CuVector<R> dots(x.c);
    cu::ColumnDotProducts(R(0.5), *x.A, *x.B, &dots);
    x.vc.AddVec(1.0, dots);
    cu::BackpropDropoutFromValues(*x.A, relu, *x.B, &d);
    x.B->AddMat(1.0, d);
  });
  CheckOp<R>("SumOfSquares", [](Operands<R> &x) {
    if (x.r == 0) return;
    std::vector<CuSubMatrix<R> > blocks;
    blocks.push_back(x.A->ColRange(0, x.c));
    blocks.push_back(x.B->ColRange(0, x.c));
    blocks.push_back(x.A->ColRange(0, (x.c + 1) / 2));
    x.results.push_back(cu::SumOfSquares(blocks));
    // The forms that leave the result where the computation runs.
    CuVector<R> slots(3);
    CuSubVector<R> s0(slots, 0, 1), s1(slots, 1, 1), s2(slots, 2, 1);
    cu::SumOfSquares(blocks, &s0);
    cu::SumOfSquares(*x.B, &s1);
    CuMatrix<R> w(2, x.c);
    w.Set(0.5);
    w.Row(1).CopyFromVec(x.vc);
    CuMatrix<R> h(x.r, 2);
    h.Set(0.25);
    cu::SubtractProjection(h, w, x.C.get(), &s2);
    for (int32 i = 0; i < 3; i++) x.results.push_back(slots.Download()(i));
    cu::SumOfSquares(*x.A, x.vc, &s0);
    x.results.push_back(slots.Download()(0));
  });
  CheckOp<R>("NormalizeAndPnorm", [](Operands<R> &x) {
    if (x.r == 0) return;
    CuMatrix<R> out(x.r, x.c + 1);
    cu::NormalizePerRow(*x.A, R(0.5), true, &out);
    x.results.push_back(out.Sum());
    CuMatrix<R> out_deriv(x.r, x.c + 1);
    out_deriv.ColRange(0, x.c).CopyFromMat(*x.B);
    cu::DiffNormalizePerRow(*x.A, out_deriv, R(0.5), true, x.C.get());
    CuMatrix<R> y(x.r, 1), dy(x.r, 1);
    cu::GroupPnorm(*x.A, &y);
    dy.Set(0.5);
    cu::DiffGroupPnorm(*x.A, y, dy, x.B.get());
    CuMatrix<R> excess(x.r, x.c);
    cu::ExcessMagnitude(*x.A, R(0.5), &excess);
    x.A->AddMat(1.0, excess);
  });
  CheckOp<R>("FusedNormalizeAndRectifier", [](Operands<R> &x) {
    CuVector<R> sums(x.c), sumsq(x.c), positive(x.c);
    cu::ColumnSumsAndSquares(R(0.25), *x.A, &sums, &sumsq);
    cu::ColumnSumsAndPositiveCounts(*x.B, &positive, &x.vc);
    x.vc.AddVec(1.0, sums);
    x.vc.AddVec(2.0, sumsq);
    x.vc.AddVec(3.0, positive);
    sumsq.Add(1.0);
    cu::SubtractAndScaleColumns(*x.A, sums, sumsq, x.C.get());
    cu::ScaleAndShiftColumns(*x.B, sumsq, sums, x.B.get());
    CuVector<R> vdm(x.c), neg_mean(x.c);
    cu::BatchNormBackprop(*x.C, *x.B, sumsq, R(-0.5), &vdm, &neg_mean,
                          x.A.get());
    x.vc.AddVec(4.0, vdm);
    x.vc.AddVec(5.0, neg_mean);
    CuMatrix<R> relu(*x.C);
    relu.ApplyFloor(0.0);
    cu::BackpropRectifiedLinearWithStats(relu, *x.B, &sumsq, &sums,
                                         x.B.get());
    x.vc.AddVec(6.0, sumsq);
  });
  CheckOp<R>("MulRowBlocks", [](Operands<R> &x) {
    if (x.r == 0) return;
    CuArray<int32> idx(RandomIndexes(x.r, x.r, 0, 12));
    CuMatrix<R> block(x.r, x.c);
    block.CopyFromMat(*x.B);
    cu::MulRowBlocks(block, idx, x.C.get());
  });
  CheckOp<R>("Lstm", [](Operands<R> &x) {
    const int32 C = 3, rows = x.r;
    RandomSource rs(13);
    Matrix<R> in_h(rows, 5 * C + 3), params_h(3, C), dy_h(rows, 2 * C);
    in_h.SetRandn(&rs);
    params_h.SetRandn(&rs);
    dy_h.SetRandn(&rs);
    CuMatrix<R> in(in_h), params(params_h), dy(dy_h), out(rows, 2 * C);
    cu::ComputeLstmNonlinearity(in, params, &out);
    CuMatrix<double> deriv_sum_in(5, C), value_sum(5, C), deriv_sum(5, C);
    deriv_sum_in.Set(0.3);
    CuVector<R> config(10);
    config.Set(0.05);
    CuMatrix<R> in_deriv(rows, 5 * C + 3), params_deriv(3, C),
        self_repair(5, C);
    cu::BackpropLstmNonlinearity(in, params, dy, deriv_sum_in, config, 10.0,
                                 &in_deriv, &params_deriv, &value_sum,
                                 &deriv_sum, &self_repair);
    x.results.push_back(out.Sum());
    x.results.push_back(in_deriv.Sum());
    x.results.push_back(params_deriv.Sum());
    x.results.push_back(value_sum.Sum());
    x.results.push_back(deriv_sum.Sum());
    x.results.push_back(self_repair.Sum());
    Vector<R> flat(3 * C);
    cu::CopyRowsToVec(params_deriv, &flat);
    cu::CopyRowsFromVec(flat, &params);
    x.results.push_back(params.FrobeniusNorm());
  });
  CheckOp<R>("Compression", [](Operands<R> &x) {
    if constexpr (std::is_same<R, BaseFloat>::value) {
      int32 k = 0;
      for (int32 type = 1; type <= 4; type++)
        for (BaseFloat range : {0.0f, 1.5f, 10.0f})
          for (bool truncate : {true, false}) {
            if (!truncate && range < 5.0f) continue;  // values must fit
            CuCompressedMatrix cm(type, *x.A, range, truncate);
            CuMatrix<BaseFloat> back(x.r, x.c);
            cm.CopyToMat(&back);
            x.results.push_back(back.Sum() + 0.001 * (k++));
            if (type == 3 && range == 1.5f) x.C->CopyFromMat(back);
          }
    }
  });
  CheckOp<R>("Attention", [](Operands<R> &x) {
    // A (r rows) is the taller matrix; n_out = r - 2 shift rows attend to
    // 3 positions each.
    if (x.r < 3) return;
    const int32 shift = x.r >= 9 ? 2 : 1, n_out = x.r - 2 * shift, n_pos = 3;
    CuMatrix<R> w(n_out, n_pos);
    cu::ShiftedRowDots(R(0.5), x.B->RowRange(0, n_out), *x.A, shift, &w);
    CuSubMatrix<R> c_part = x.C->RowRange(0, n_out);
    cu::AddWeightedShiftedRows(R(0.25), *x.A, w, shift, &c_part);
    cu::ScatterWeightedRows(R(0.5), c_part, w, shift, x.B.get());
    x.results.push_back(w.Sum());
    x.results.push_back(w.FrobeniusNorm());
    if (x.c < 6) return;
    // Two heads of three positions; a column of zeros (0 log 0).
    CuMatrix<R> weights(x.A->ColRange(0, 6));
    weights.ApplyAbs();
    weights.ColRange(4, 1).SetZero();
    CuMatrix<double> posterior(2, 3);
    CuVector<double> entropy(2);
    posterior.Set(1.0);
    entropy.Set(2.0);
    cu::AccumulateAttentionStats(weights, 2, &posterior, &entropy);
    Matrix<double> p = posterior.Download();
    for (int32 h = 0; h < 2; h++) {
      x.results.push_back(entropy.Download()(h));
      for (int32 k = 0; k < 3; k++) x.results.push_back(p(h, k));
    }
  });
  CheckOp<R>("Convolution", [](Operands<R> &x) {
    if (x.r == 0) return;
    CuMatrix<R> tile(std::min(3, x.r), std::min(5, x.c));
    tile.Set(0.5);
    cu::AddTiledBlockSums(*x.A, &tile);
    Matrix<R> t = tile.Download();
    for (int32 i = 0; i < t.NumRows(); i++)
      for (int32 f = 0; f < t.NumCols(); f++) x.results.push_back(t(i, f));
    cu::AddTiled(tile, x.C.get());
    // ref == B where B >= 0: B becomes A there and 0 elsewhere.
    CuMatrix<R> ref(*x.B);
    ref.ApplyFloor(0.0);
    cu::SelectWhereEqual(ref, *x.A, x.B.get());
  });
  CheckOp<R>("Update", [](Operands<R> &x) {
    if (x.r == 0) return;
    // Rows' squared norms are about c: clip at half of them, zero at the
    // largest, with every other row a boundary.
    Vector<R> zeroing_h(x.r);
    for (int32 i = 0; i < x.r; i += 2) zeroing_h(i) = -1.0;
    CuVector<R> zeroing(zeroing_h);
    int32 num_clipped = 0;
    R num_zeroed = 0;
    cu::TruncationRowScales(*x.A, &zeroing, R(1.0 / x.c), R(1.5 * x.c), &x.vr,
                            &num_clipped, &num_zeroed);
    x.int_results.push_back(num_clipped);
    x.results.push_back(num_zeroed);
    cu::TruncationRowScales(*x.B, static_cast<const CuVector<R> *>(nullptr),
                            R(0.5 / x.c), R(0), &x.wr,
                            static_cast<int32 *>(nullptr),
                            static_cast<R *>(nullptr));
    x.results.push_back(x.wr.Sum());
    cu::FloorMagnitude(R(0.5), &x.vc);
    if (x.r <= x.c) {
      cu::OrthonormalizeRows(x.C.get());
      if (x.r >= 2) {
        // A vanishing row: the device hands the matrix to the host, which
        // draws the replacement from the default source (reseeded so that
        // both backends draw the same numbers).
        x.A->Row(1).CopyFromVec(x.A->Row(0));
        Srand(77);
        cu::OrthonormalizeRows(x.A.get());
      }
    }
  });
}

TEST(CuBackendPlaces, ObjectsKeepTheirPlaceAndMixingIsRefused) {
  if (!NoGpuReason().empty()) GTEST_SKIP() << NoGpuReason();
  CuMatrix<float> host_m(3, 4);
  CuVector<float> host_v(4);
  std::unique_ptr<CuMatrix<float>> dev_m;
  std::unique_ptr<CuVector<float>> dev_v;
  {
    cu_backend::Scope device(true);
    dev_m.reset(new CuMatrix<float>(3, 4));
    dev_v.reset(new CuVector<float>(4));
    EXPECT_TRUE(dev_m->RowRange(1, 2).OnDevice());
    EXPECT_TRUE(dev_m->Row(0).OnDevice());
  }
  EXPECT_FALSE(host_m.OnDevice());
  EXPECT_TRUE(dev_m->OnDevice());
  EXPECT_THROW(host_m.AddMat(1.0, *dev_m), InternalError);
  EXPECT_THROW(dev_m->AddVecToRows(1.0, host_v), InternalError);
  EXPECT_THROW(dev_m->Mat(), InternalError);
  EXPECT_THROW(dev_v->Vec(), InternalError);
  // An empty device matrix stays a device matrix.
  cu_backend::Scope device(true);
  CuMatrix<float> empty;
  EXPECT_TRUE(empty.OnDevice());
  empty.Resize(0, 0);
  EXPECT_TRUE(empty.OnDevice());
  // A sparse matrix uploads its elements once, on its first device
  // operation, and drops them when its rows change.
  std::vector<std::vector<std::pair<MatrixIndexT, float>>> rows(3);
  rows[0].push_back(std::make_pair(1, 2.0f));
  rows[2].push_back(std::make_pair(3, 1.0f));
  CuSparseMatrix<float> s{SparseMatrix<float>(4, rows)};
  EXPECT_FALSE(s.HasDeviceLayout());
  CuMatrix<float> d(3, 4);
  s.AddToMat(1.0, &d);
  EXPECT_TRUE(s.HasDeviceLayout());
  EXPECT_EQ(TraceMatSmat(d, s, kTrans), 5.0f);
  EXPECT_EQ(d.Download()(0, 1), 2.0f);
  s.CopyFromSmat(SparseMatrix<float>(4, rows));
  EXPECT_FALSE(s.HasDeviceLayout());
}

}  // namespace
}  // namespace nnet3
