// tests/matrix/sparse-test.cc
// SparseVector / SparseMatrix: arithmetic against dense loops written here,
// I/O against hand-written Kaldi bytes and text, round trips in both
// precisions, and the errors for malformed input.
#include "matrix/sparse.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace nnet3 {
namespace {

// Seed for the random tests: NNET3_TEST_SEED if set, else random; printed.
uint64 TestSeed() {
  const char *env = std::getenv("NNET3_TEST_SEED");
  uint64 seed = env ? std::strtoull(env, nullptr, 10)
                    : static_cast<uint64>(std::random_device{}());
  std::cout << "[ seed     ] NNET3_TEST_SEED=" << seed << std::endl;
  return seed;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s.push_back(static_cast<char>(b));
  return s;
}

template <typename T>
std::string WriteToString(const T &t, bool binary) {
  std::ostringstream os;
  t.Write(os, binary);
  return os.str();
}

template <typename T>
void ReadFromString(const std::string &s, bool binary, T *t) {
  std::istringstream is(s);
  t->Read(is, binary);
}

// Dense copy of a sparse vector, built element by element.
template <typename Real>
std::vector<double> Dense(const SparseVector<Real> &v) {
  std::vector<double> d(v.Dim(), 0.0);
  for (MatrixIndexT i = 0; i < v.NumElements(); i++)
    d[v.GetElement(i).first] = v.GetElement(i).second;
  return d;
}

template <typename Real>
std::vector<std::vector<double> > Dense(const SparseMatrix<Real> &m) {
  std::vector<std::vector<double> > d;
  for (MatrixIndexT r = 0; r < m.NumRows(); r++) d.push_back(Dense(m.Row(r)));
  return d;
}

template <typename Real>
void ExpectValid(const SparseVector<Real> &v) {
  for (MatrixIndexT i = 0; i < v.NumElements(); i++) {
    EXPECT_GE(v.GetElement(i).first, 0);
    EXPECT_LT(v.GetElement(i).first, v.Dim());
    if (i > 0) {
      EXPECT_LT(v.GetElement(i - 1).first, v.GetElement(i).first);
    }
  }
}

// ---------------------------------------------------------------------------
// SparseVector

TEST(SparseVectorTest, ConstructorSortsMergesAndDropsZeros) {
  std::vector<std::pair<MatrixIndexT, float> > pairs = {
      {3, 1.0f}, {1, 2.0f}, {3, -1.0f}, {0, 0.0f}, {1, 0.5f}, {4, -2.0f}};
  SparseVector<float> v(6, pairs);
  ASSERT_EQ(v.Dim(), 6);
  ASSERT_EQ(v.NumElements(), 2);
  EXPECT_EQ(v.GetElement(0).first, 1);
  EXPECT_EQ(v.GetElement(0).second, 2.5f);
  EXPECT_EQ(v.GetElement(1).first, 4);
  EXPECT_EQ(v.GetElement(1).second, -2.0f);
  EXPECT_EQ(v.Data()[1].first, 4);
  EXPECT_EQ(v.Sum(), 0.5f);
}

TEST(SparseVectorTest, ConstructorRejectsOutOfRange) {
  std::vector<std::pair<MatrixIndexT, double> > high = {{5, 1.0}};
  std::vector<std::pair<MatrixIndexT, double> > low = {{-1, 1.0}};
  EXPECT_THROW(SparseVector<double>(5, high), UserError);
  EXPECT_THROW(SparseVector<double>(5, low), UserError);
  std::vector<std::pair<MatrixIndexT, double> > edge = {{4, 1.0}};
  EXPECT_NO_THROW(SparseVector<double>(5, edge));
}

TEST(SparseVectorTest, FromDenseKeepsNonzeros) {
  Vector<float> d(5);
  d(1) = 3.0f;
  d(4) = -1.5f;
  SparseVector<float> v(d);
  EXPECT_EQ(v.Dim(), 5);
  ASSERT_EQ(v.NumElements(), 2);
  EXPECT_EQ(v.GetElement(0), std::make_pair(1, 3.0f));
  EXPECT_EQ(v.GetElement(1), std::make_pair(4, -1.5f));
  Vector<double> back(5);
  back.Set(7.0);
  v.CopyElementsToVec(&back);
  for (int i = 0; i < 5; i++) EXPECT_EQ(back(i), d(i)) << i;
}

TEST(SparseVectorTest, RandomArithmeticMatchesDense) {
  uint64 seed = TestSeed();
  RandomSource rs(seed);
  for (int iter = 0; iter < 50; iter++) {
    SCOPED_TRACE("iter " + std::to_string(iter));
    MatrixIndexT dim = rs.Int(1, 30);
    SparseVector<double> v(dim);
    v.SetRandn(static_cast<BaseFloat>(rs.Uniform()), &rs);
    ExpectValid(v);
    std::vector<double> d = Dense(v);

    double sum = 0.0;
    for (double x : d) sum += x;
    EXPECT_NEAR(v.Sum(), sum, 1e-12);

    Vector<double> dense(dim), other(dim);
    for (MatrixIndexT i = 0; i < dim; i++) other(i) = rs.Gauss();
    v.CopyElementsToVec(&dense);
    double dot = 0.0;
    for (MatrixIndexT i = 0; i < dim; i++) {
      EXPECT_EQ(dense(i), d[i]);
      dot += other(i) * d[i];
    }
    EXPECT_NEAR(VecSvec(other, v), dot, 1e-12);

    Vector<float> acc(dim);
    for (MatrixIndexT i = 0; i < dim; i++) acc(i) = static_cast<float>(i);
    v.AddToVec(-2.0, &acc);
    for (MatrixIndexT i = 0; i < dim; i++)
      EXPECT_NEAR(acc(i), i - 2.0 * d[i], 1e-5);

    // Max: the value is the dense maximum and sits at the index returned.
    MatrixIndexT index = -1;
    double m = v.Max(&index);
    double dense_max = d[0];
    for (double x : d) dense_max = std::max(dense_max, x);
    EXPECT_EQ(m, dense_max);
    ASSERT_GE(index, 0);
    ASSERT_LT(index, dim);
    EXPECT_EQ(d[index], m);

    SparseVector<float> f;
    f.CopyFromSvec(v);
    ASSERT_EQ(f.Dim(), dim);
    ASSERT_EQ(f.NumElements(), v.NumElements());
    for (MatrixIndexT i = 0; i < f.NumElements(); i++) {
      EXPECT_EQ(f.GetElement(i).first, v.GetElement(i).first);
      EXPECT_EQ(f.GetElement(i).second,
                static_cast<float>(v.GetElement(i).second));
    }

    v.Scale(3.0);
    for (MatrixIndexT i = 0; i < v.NumElements(); i++)
      EXPECT_EQ(v.GetElement(i).second, 3.0 * d[v.GetElement(i).first]);
  }
}

TEST(SparseVectorTest, SetRandnZeroProbExtremes) {
  RandomSource rs(TestSeed());
  SparseVector<float> v(40);
  v.SetRandn(1.0f, &rs);
  EXPECT_EQ(v.NumElements(), 0);
  v.SetRandn(0.0f, &rs);
  EXPECT_EQ(v.NumElements(), 40);
  ExpectValid(v);
}

TEST(SparseVectorTest, MaxCountsImplicitZeros) {
  MatrixIndexT index = -1;
  // All stored elements negative: 0 at the first index not stored.
  SparseVector<float> a(5, {{0, -1.0f}, {1, -2.0f}, {3, -0.5f}});
  EXPECT_EQ(a.Max(&index), 0.0f);
  EXPECT_EQ(index, 2);
  // Every index stored: a negative maximum.
  SparseVector<float> b(3, {{0, -3.0f}, {1, -1.0f}, {2, -2.0f}});
  EXPECT_EQ(b.Max(&index), -1.0f);
  EXPECT_EQ(index, 1);
  // Nothing stored.
  SparseVector<double> c(4);
  EXPECT_EQ(c.Max(&index), 0.0);
  EXPECT_EQ(index, 0);
  // A positive stored element beats the zeros.
  SparseVector<double> d(4, {{2, 0.25}, {3, -1.0}});
  EXPECT_EQ(d.Max(&index), 0.25);
  EXPECT_EQ(index, 2);
  // Stored prefix 0..2 negative, rest implicit.
  SparseVector<double> e(4, {{0, -1.0}, {1, -1.0}, {2, -1.0}});
  EXPECT_EQ(e.Max(&index), 0.0);
  EXPECT_EQ(index, 3);
}

TEST(SparseVectorTest, ResizeAndSwap) {
  SparseVector<float> v(10, {{1, 1.0f}, {5, 2.0f}, {9, 3.0f}});
  SparseVector<float> w = v;
  w.Resize(6, kCopyData);
  EXPECT_EQ(w.Dim(), 6);
  ASSERT_EQ(w.NumElements(), 2);
  EXPECT_EQ(w.GetElement(1).first, 5);
  w.Resize(20, kCopyData);
  EXPECT_EQ(w.NumElements(), 2);
  w.Resize(3);
  EXPECT_EQ(w.Dim(), 3);
  EXPECT_EQ(w.NumElements(), 0);
  w.Swap(&v);
  EXPECT_EQ(w.Dim(), 10);
  EXPECT_EQ(w.NumElements(), 3);
  EXPECT_EQ(v.Dim(), 3);
  EXPECT_EQ(v.NumElements(), 0);
}

TEST(SparseVectorTest, BinaryBytesFloat) {
  SparseVector<float> v(5, {{1, 0.5f}});
  std::string expected =
      Bytes({'S', 'V', ' ', 4, 5, 0, 0, 0, 4, 1, 0, 0, 0, 4, 1, 0, 0, 0, 4,
             0x00, 0x00, 0x00, 0x3f});
  EXPECT_EQ(WriteToString(v, true), expected);
}

TEST(SparseVectorTest, BinaryBytesDouble) {
  SparseVector<double> v(5, {{1, 0.5}, {3, -2.0}});
  std::string expected = Bytes(
      {'S', 'V', ' ', 4, 5, 0, 0, 0, 4, 2, 0, 0, 0,
       4, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f,
       4, 3, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0x00, 0xc0});
  EXPECT_EQ(WriteToString(v, true), expected);
}

TEST(SparseVectorTest, TextForm) {
  SparseVector<float> v(5, {{1, 0.5f}});
  EXPECT_EQ(WriteToString(v, false), "dim=5 [ 1 0.5 ] ");
  SparseVector<double> w(7, {{0, -1.25}, {6, 3.0}});
  EXPECT_EQ(WriteToString(w, false), "dim=7 [ 0 -1.25 6 3 ] ");
  SparseVector<float> e(3);
  EXPECT_EQ(WriteToString(e, false), "dim=3 [ ] ");
}

TEST(SparseVectorTest, ReadHandWrittenText) {
  SparseVector<double> v;
  ReadFromString("  dim=8 [ 0 1.5\n 7 -2 ]", false, &v);
  EXPECT_EQ(v.Dim(), 8);
  ASSERT_EQ(v.NumElements(), 2);
  EXPECT_EQ(v.GetElement(0), std::make_pair(0, 1.5));
  EXPECT_EQ(v.GetElement(1), std::make_pair(7, -2.0));
  // A stored zero from a file is kept, as Kaldi does.
  ReadFromString("dim=2 [ 1 0 ]", false, &v);
  EXPECT_EQ(v.NumElements(), 1);
  ReadFromString("dim=0 [ ]", false, &v);
  EXPECT_EQ(v.Dim(), 0);
  EXPECT_EQ(v.NumElements(), 0);
}

template <typename Real>
void RoundTrip(bool binary, uint64 seed) {
  RandomSource rs(seed);
  for (int iter = 0; iter < 20; iter++) {
    SparseVector<Real> v(rs.Int(0, 20));
    v.SetRandn(0.6f, &rs);
    std::string s = WriteToString(v, binary);
    SparseVector<Real> w(3, {{0, 1.0}});
    ReadFromString(s, binary, &w);
    ASSERT_EQ(w.Dim(), v.Dim());
    ASSERT_EQ(w.NumElements(), v.NumElements());
    for (MatrixIndexT i = 0; i < v.NumElements(); i++) {
      EXPECT_EQ(w.GetElement(i).first, v.GetElement(i).first);
      if (binary)
        EXPECT_EQ(w.GetElement(i).second, v.GetElement(i).second);
      else
        EXPECT_NEAR(w.GetElement(i).second, v.GetElement(i).second,
                    1e-5 * (1 + std::fabs(v.GetElement(i).second)));
    }
    // Writing what was read gives the same bytes.
    EXPECT_EQ(WriteToString(w, binary), s);
  }
}

TEST(SparseVectorTest, RoundTrips) {
  uint64 seed = TestSeed();
  RoundTrip<float>(true, seed);
  RoundTrip<float>(false, seed);
  RoundTrip<double>(true, seed);
  RoundTrip<double>(false, seed);
}

TEST(SparseVectorTest, CrossPrecisionRead) {
  SparseVector<float> f(4, {{0, 0.1f}, {2, -3.5f}});
  SparseVector<double> d;
  ReadFromString(WriteToString(f, true), true, &d);
  ASSERT_EQ(d.NumElements(), 2);
  EXPECT_EQ(d.GetElement(0).second, static_cast<double>(0.1f));
  EXPECT_EQ(d.GetElement(1).second, -3.5);

  SparseVector<double> d2(4, {{3, 0.1}});
  SparseVector<float> f2;
  ReadFromString(WriteToString(d2, true), true, &f2);
  ASSERT_EQ(f2.NumElements(), 1);
  EXPECT_EQ(f2.GetElement(0).second, 0.1f);
  EXPECT_EQ(f2.Dim(), 4);
}

TEST(SparseVectorTest, MalformedTextThrows) {
  const char *bad[] = {
      "",                        // nothing
      "dims=5 [ ]",              // wrong prefix
      "dim=x [ ]",               // not a number
      "dim=-2 [ ]",              // negative
      "dim=5 ]",                 // no '['
      "dim=5 [ 1 0.5",           // no ']'
      "dim=5 [ 1 ]",             // index without value
      "dim=5 [ 5 1.0 ]",         // out of range
      "dim=5 [ -1 1.0 ]",        // negative index
      "dim=5 [ 3 1.0 1 1.0 ]",   // unsorted
      "dim=5 [ 2 1.0 2 1.0 ]",   // repeated
      "dim=5 [ a 1.0 ]",         // not a number
  };
  for (const char *text : bad) {
    SCOPED_TRACE(text);
    SparseVector<float> v;
    EXPECT_THROW(ReadFromString(text, false, &v), UserError);
  }
}

TEST(SparseVectorTest, MalformedBinaryThrows) {
  std::string good =
      WriteToString(SparseVector<float>(5, {{1, 0.5f}, {3, 1.0f}}), true);
  SparseVector<float> v;
  ASSERT_NO_THROW(ReadFromString(good, true, &v));
  EXPECT_EQ(v.NumElements(), 2);

  std::vector<std::string> bad;
  bad.push_back("SM" + good.substr(2));                   // wrong token
  bad.push_back(good.substr(0, good.size() - 2));         // truncated
  std::string neg_dim = good;
  neg_dim[4] = static_cast<char>(0xff);                   // dim = -1
  neg_dim[5] = neg_dim[6] = neg_dim[7] = static_cast<char>(0xff);
  bad.push_back(neg_dim);
  std::string too_many = good;
  too_many[9] = 6;                                        // num_elems 6 > dim 5
  bad.push_back(too_many);
  std::string unsorted = good;
  unsorted[14] = 3;                                       // indexes 3, 3
  bad.push_back(unsorted);
  std::string out_of_range = good;
  out_of_range[24] = 5;                                   // index 5 of dim 5
  bad.push_back(out_of_range);
  std::string bad_size = good;
  bad_size[3] = 8;                                        // int32 with size 8
  bad.push_back(bad_size);
  for (size_t i = 0; i < bad.size(); i++) {
    SCOPED_TRACE("case " + std::to_string(i));
    EXPECT_THROW(ReadFromString(bad[i], true, &v), UserError);
  }
}

// ---------------------------------------------------------------------------
// SparseMatrix

SparseMatrix<float> SmallMatrix() {
  // 3 x 4:
  //   [ 0 1 0 2 ]
  //   [ 0 0 0 0 ]
  //   [ -3 0 0.5 0 ]
  std::vector<std::vector<std::pair<MatrixIndexT, float> > > pairs = {
      {{3, 2.0f}, {1, 1.0f}}, {}, {{0, -3.0f}, {2, 0.5f}}};
  return SparseMatrix<float>(4, pairs);
}

TEST(SparseMatrixTest, Basics) {
  SparseMatrix<float> m = SmallMatrix();
  EXPECT_EQ(m.NumRows(), 3);
  EXPECT_EQ(m.NumCols(), 4);
  EXPECT_EQ(m.NumElements(), 4);
  EXPECT_EQ(m.Sum(), 0.5f);
  EXPECT_NEAR(m.FrobeniusNorm(), std::sqrt(1.0 + 4.0 + 9.0 + 0.25), 1e-6);
  Vector<float> elems(4);
  m.CopyElementsToVec(&elems);
  EXPECT_EQ(elems(0), 1.0f);
  EXPECT_EQ(elems(1), 2.0f);
  EXPECT_EQ(elems(2), -3.0f);
  EXPECT_EQ(elems(3), 0.5f);
  m.Scale(2.0f);
  EXPECT_EQ(m.Row(2).GetElement(0).second, -6.0f);

  SparseMatrix<double> empty(0, 7);
  EXPECT_EQ(empty.NumRows(), 0);
  EXPECT_EQ(empty.NumCols(), 0);  // as in Kaldi
  SparseMatrix<double> z(2, 7);
  EXPECT_EQ(z.NumCols(), 7);
  EXPECT_EQ(z.NumElements(), 0);
}

TEST(SparseMatrixTest, FromDenseAndOneHot) {
  Matrix<double> d(2, 3);
  d(0, 2) = 1.5;
  d(1, 0) = -1.0;
  SparseMatrix<double> s(d);
  EXPECT_EQ(s.NumRows(), 2);
  EXPECT_EQ(s.NumCols(), 3);
  EXPECT_EQ(s.NumElements(), 2);
  Matrix<double> back(2, 3);
  s.CopyToMat(&back);
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++) EXPECT_EQ(back(r, c), d(r, c));

  std::vector<int32> idx = {2, -1, 0, 2};
  SparseMatrix<float> onehot(idx, 3);
  ASSERT_EQ(onehot.NumRows(), 4);
  EXPECT_EQ(onehot.NumCols(), 3);
  EXPECT_EQ(onehot.Row(1).NumElements(), 0);
  EXPECT_EQ(onehot.Row(3).GetElement(0), std::make_pair(2, 1.0f));
  SparseMatrix<float> onehot_t(idx, 3, kTrans);
  ASSERT_EQ(onehot_t.NumRows(), 3);
  EXPECT_EQ(onehot_t.NumCols(), 4);
  ASSERT_EQ(onehot_t.Row(2).NumElements(), 2);
  EXPECT_EQ(onehot_t.Row(2).GetElement(1).first, 3);
  Vector<float> w(4);
  w(0) = 0.5f; w(2) = 2.0f; w(3) = 4.0f;
  SparseMatrix<float> weighted(idx, w, 3);
  EXPECT_EQ(weighted.Sum(), 6.5f);
  EXPECT_EQ(weighted.NumElements(), 3);
  std::vector<int32> bad_idx = {3};
  EXPECT_THROW(SparseMatrix<float>(bad_idx, 3), UserError);
}

TEST(SparseMatrixTest, RandomDenseOperations) {
  uint64 seed = TestSeed();
  RandomSource rs(seed);
  for (int iter = 0; iter < 30; iter++) {
    SCOPED_TRACE("iter " + std::to_string(iter));
    MatrixIndexT rows = rs.Int(1, 9), cols = rs.Int(1, 9);
    SparseMatrix<double> s(rows, cols);
    s.SetRandn(0.7f, &rs);
    std::vector<std::vector<double> > d = Dense(s);
    for (MatrixIndexT r = 0; r < rows; r++) ExpectValid(s.Row(r));

    // CopyToMat, both ways, and into the other precision.
    Matrix<double> m(rows, cols), mt(cols, rows);
    m.Set(9.0);
    mt.Set(9.0);
    s.CopyToMat(&m);
    s.CopyToMat(&mt, kTrans);
    Matrix<float> mf(rows, cols);
    s.CopyToMat(&mf);
    double sum = 0.0, sumsq = 0.0;
    for (MatrixIndexT r = 0; r < rows; r++) {
      for (MatrixIndexT c = 0; c < cols; c++) {
        EXPECT_EQ(m(r, c), d[r][c]);
        EXPECT_EQ(mt(c, r), d[r][c]);
        EXPECT_EQ(mf(r, c), static_cast<float>(d[r][c]));
        sum += d[r][c];
        sumsq += d[r][c] * d[r][c];
      }
    }
    EXPECT_NEAR(s.Sum(), sum, 1e-10);
    EXPECT_NEAR(s.FrobeniusNorm(), std::sqrt(sumsq), 1e-10);

    // AddToMat, both ways.
    Matrix<double> a(rows, cols), at(cols, rows);
    a.SetRandn(&rs);
    at.SetRandn(&rs);
    Matrix<double> a0(a), at0(at);
    s.AddToMat(0.5, &a);
    s.AddToMat(-2.0, &at, kTrans);
    for (MatrixIndexT r = 0; r < rows; r++) {
      for (MatrixIndexT c = 0; c < cols; c++) {
        EXPECT_NEAR(a(r, c), a0(r, c) + 0.5 * d[r][c], 1e-12);
        EXPECT_NEAR(at(c, r), at0(c, r) - 2.0 * d[r][c], 1e-12);
      }
    }

    // TraceMatSmat: trace(A B) with A cols x rows; trace(A^T B) with A
    // rows x cols.
    Matrix<double> A(cols, rows), B(rows, cols);
    A.SetRandn(&rs);
    B.SetRandn(&rs);
    double tr = 0.0, tr_t = 0.0;
    for (MatrixIndexT i = 0; i < cols; i++)
      for (MatrixIndexT j = 0; j < rows; j++) tr += A(i, j) * d[j][i];
    for (MatrixIndexT i = 0; i < rows; i++)
      for (MatrixIndexT j = 0; j < cols; j++) tr_t += B(i, j) * d[i][j];
    EXPECT_NEAR(TraceMatSmat(A, s, kNoTrans), tr, 1e-10);
    EXPECT_NEAR(TraceMatSmat(B, s, kTrans), tr_t, 1e-10);

    // CopyFromSmat: other precision, and transposed.
    SparseMatrix<float> f, ft;
    f.CopyFromSmat(s);
    ft.CopyFromSmat(s, kTrans);
    ASSERT_EQ(f.NumRows(), rows);
    ASSERT_EQ(ft.NumRows(), cols);
    EXPECT_EQ(ft.NumCols(), rows);
    EXPECT_EQ(ft.NumElements(), s.NumElements());
    std::vector<std::vector<double> > df = Dense(f), dft = Dense(ft);
    for (MatrixIndexT r = 0; r < rows; r++) {
      ExpectValid(f.Row(r));
      for (MatrixIndexT c = 0; c < cols; c++) {
        EXPECT_EQ(df[r][c], static_cast<float>(d[r][c]));
        EXPECT_EQ(dft[c][r], static_cast<float>(d[r][c]));
      }
    }
    for (MatrixIndexT c = 0; c < cols; c++) ExpectValid(ft.Row(c));
  }
}

TEST(SparseMatrixTest, AppendSelectFilterResize) {
  SparseMatrix<float> a = SmallMatrix();
  SparseMatrix<float> b(2, 4);
  b.SetRow(1, SparseVector<float>(4, {{0, 7.0f}}));
  std::vector<SparseMatrix<float> > inputs = {a, SparseMatrix<float>(), b};
  SparseMatrix<float> c;
  c.AppendSparseMatrixRows(&inputs);
  EXPECT_TRUE(inputs.empty());
  ASSERT_EQ(c.NumRows(), 5);
  EXPECT_EQ(c.NumCols(), 4);
  EXPECT_EQ(c.Row(4).GetElement(0), std::make_pair(0, 7.0f));
  EXPECT_EQ(c.Row(2).GetElement(1), std::make_pair(2, 0.5f));

  std::vector<SparseMatrix<float> > mismatched = {a, SparseMatrix<float>(1, 5)};
  SparseMatrix<float> d;
  EXPECT_THROW(d.AppendSparseMatrixRows(&mismatched), UserError);

  SparseMatrix<float> sel;
  sel.SelectRows({4, 0, 0}, c);
  ASSERT_EQ(sel.NumRows(), 3);
  EXPECT_EQ(sel.Row(0).GetElement(0).second, 7.0f);
  EXPECT_EQ(sel.Row(2).NumElements(), 2);

  SparseMatrix<float> filtered;
  FilterSparseMatrixRows(c, {false, true, true, false, true}, &filtered);
  ASSERT_EQ(filtered.NumRows(), 3);
  EXPECT_EQ(filtered.NumCols(), 4);
  EXPECT_EQ(filtered.Row(0).NumElements(), 0);
  EXPECT_EQ(filtered.Row(1).GetElement(0).second, -3.0f);
  EXPECT_EQ(filtered.Row(2).GetElement(0).second, 7.0f);
  EXPECT_THROW(FilterSparseMatrixRows(c, {false, false, false, false, false},
                                      &filtered),
               UserError);

  SparseMatrix<float> r = SmallMatrix();
  r.Resize(2, 2, kCopyData);
  EXPECT_EQ(r.NumRows(), 2);
  EXPECT_EQ(r.NumCols(), 2);
  ASSERT_EQ(r.Row(0).NumElements(), 1);  // (0,3) dropped, (0,1) kept
  EXPECT_EQ(r.Row(0).GetElement(0).first, 1);
  r.Resize(4, 3, kCopyData);
  EXPECT_EQ(r.NumRows(), 4);
  EXPECT_EQ(r.Row(3).Dim(), 3);
  EXPECT_EQ(r.NumElements(), 1);
  r.Resize(1, 3);
  EXPECT_EQ(r.NumElements(), 0);
  SparseMatrix<float> other = SmallMatrix();
  r.Swap(&other);
  EXPECT_EQ(r.NumRows(), 3);
  EXPECT_EQ(other.NumRows(), 1);
}

TEST(SparseMatrixTest, BinaryBytes) {
  std::vector<std::vector<std::pair<MatrixIndexT, float> > > pairs = {
      {{2, 1.0f}}, {}};
  SparseMatrix<float> m(3, pairs);
  std::string expected = Bytes({'S', 'M', ' ', 4, 2, 0, 0, 0,
                                'S', 'V', ' ', 4, 3, 0, 0, 0, 4, 1, 0, 0, 0,
                                4, 2, 0, 0, 0, 4, 0x00, 0x00, 0x80, 0x3f,
                                'S', 'V', ' ', 4, 3, 0, 0, 0, 4, 0, 0, 0, 0});
  EXPECT_EQ(WriteToString(m, true), expected);
}

TEST(SparseMatrixTest, TextForm) {
  std::vector<std::vector<std::pair<MatrixIndexT, float> > > pairs = {
      {{0, 1.0f}, {2, -0.25f}}, {}};
  SparseMatrix<float> m(3, pairs);
  EXPECT_EQ(WriteToString(m, false),
            "rows=2 dim=3 [ 0 1 2 -0.25 ] dim=3 [ ] \n");
  EXPECT_EQ(WriteToString(SparseMatrix<double>(), false), "rows=0 \n");
  SparseMatrix<double> d;
  ReadFromString("rows=2 dim=3 [ 0 1 2 -0.25 ] dim=3 [ ] \n", false, &d);
  ASSERT_EQ(d.NumRows(), 2);
  EXPECT_EQ(d.NumCols(), 3);
  EXPECT_EQ(d.Row(0).GetElement(1), std::make_pair(2, -0.25));
}

template <typename Real, typename ReadReal>
void MatrixRoundTrip(bool binary, uint64 seed) {
  RandomSource rs(seed);
  for (int iter = 0; iter < 10; iter++) {
    SparseMatrix<Real> m(rs.Int(0, 6), rs.Int(0, 12));
    m.SetRandn(0.5f, &rs);
    std::string s = WriteToString(m, binary);
    SparseMatrix<ReadReal> r(2, 2);
    ReadFromString(s, binary, &r);
    ASSERT_EQ(r.NumRows(), m.NumRows());
    ASSERT_EQ(r.NumCols(), m.NumCols());
    ASSERT_EQ(r.NumElements(), m.NumElements());
    for (MatrixIndexT row = 0; row < m.NumRows(); row++) {
      for (MatrixIndexT i = 0; i < m.Row(row).NumElements(); i++) {
        EXPECT_EQ(r.Row(row).GetElement(i).first,
                  m.Row(row).GetElement(i).first);
        double want = m.Row(row).GetElement(i).second,
               got = r.Row(row).GetElement(i).second;
        if (binary)
          EXPECT_EQ(got, static_cast<ReadReal>(want));
        else
          EXPECT_NEAR(got, want, 1e-5 * (1 + std::fabs(want)));
      }
    }
    if (sizeof(Real) == sizeof(ReadReal)) {
      EXPECT_EQ(WriteToString(r, binary), s);
    }
  }
}

TEST(SparseMatrixTest, RoundTrips) {
  uint64 seed = TestSeed();
  for (bool binary : {true, false}) {
    SCOPED_TRACE(binary ? "binary" : "text");
    MatrixRoundTrip<float, float>(binary, seed);
    MatrixRoundTrip<double, double>(binary, seed);
    MatrixRoundTrip<float, double>(binary, seed);
    MatrixRoundTrip<double, float>(binary, seed);
  }
}

TEST(SparseMatrixTest, MalformedThrows) {
  const char *bad_text[] = {
      "row=1 dim=2 [ ]",
      "rows=x dim=2 [ ]",
      "rows=2 dim=2 [ ]",                    // a row missing
      "rows=2 dim=2 [ ] dim=3 [ ]",          // rows of different dims
      "rows=1 dim=2 [ 0 1 0 1 ]",            // repeated index
  };
  for (const char *text : bad_text) {
    SCOPED_TRACE(text);
    SparseMatrix<float> m;
    EXPECT_THROW(ReadFromString(text, false, &m), UserError);
  }
  std::string good = WriteToString(SmallMatrix(), true);
  SparseMatrix<float> m;
  ASSERT_NO_THROW(ReadFromString(good, true, &m));
  EXPECT_THROW(ReadFromString(good.substr(0, good.size() - 3), true, &m),
               UserError);
  EXPECT_THROW(ReadFromString("SV" + good.substr(2), true, &m), UserError);
  std::string neg = good;
  neg[7] = static_cast<char>(0x80);  // num_rows negative
  EXPECT_THROW(ReadFromString(neg, true, &m), UserError);
  SparseMatrix<float> mixed(2, 3);
  mixed.SetRow(0, SparseVector<float>(3, {{1, 1.0f}}));
  std::string mixed_bytes = WriteToString(mixed, true);
  // Change the dim of the second row from 3 to 4.
  size_t second = mixed_bytes.rfind("SV ");
  mixed_bytes[second + 4] = 4;
  EXPECT_THROW(ReadFromString(mixed_bytes, true, &m), UserError);
}

}  // namespace
}  // namespace nnet3
