// tests/matrix/general-test.cc
// GeneralMatrix: type bookkeeping, conversions against dense loops, I/O
// dispatch against hand-written Kaldi bytes, and the row operations
// (append, padded row range, filter) against naive row copies. The
// compressed row range is checked bit for bit against the decompressed
// input and byte for byte against the input's headers.
#include "matrix/general.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace nnet3 {
namespace {

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

Matrix<BaseFloat> RandomMatrix(int rows, int cols, RandomSource *rs) {
  Matrix<BaseFloat> m(rows, cols);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      m(r, c) = static_cast<BaseFloat>(rs->Gauss());
  return m;
}

SparseMatrix<BaseFloat> RandomSparse(int rows, int cols, RandomSource *rs) {
  SparseMatrix<BaseFloat> s(rows, cols);
  s.SetRandn(0.6f, rs);
  return s;
}

// Dense copy of a sparse matrix, element by element.
Matrix<BaseFloat> DenseOf(const SparseMatrix<BaseFloat> &s) {
  Matrix<BaseFloat> m(s.NumRows(), s.NumCols());
  for (int r = 0; r < s.NumRows(); r++)
    for (int i = 0; i < s.Row(r).NumElements(); i++)
      m(r, s.Row(r).GetElement(i).first) = s.Row(r).GetElement(i).second;
  return m;
}

void ExpectEqual(const MatrixBase<BaseFloat> &a, const MatrixBase<BaseFloat> &b,
                 double tol = 0.0) {
  ASSERT_EQ(a.NumRows(), b.NumRows());
  ASSERT_EQ(a.NumCols(), b.NumCols());
  for (int r = 0; r < a.NumRows(); r++)
    for (int c = 0; c < a.NumCols(); c++) {
      if (tol == 0.0)
        EXPECT_EQ(a(r, c), b(r, c)) << "(" << r << "," << c << ")";
      else
        EXPECT_NEAR(a(r, c), b(r, c), tol) << "(" << r << "," << c << ")";
    }
}

int Clamp(int r, int n) { return r < 0 ? 0 : (r >= n ? n - 1 : r); }

// The parts of a binary CompressedMatrix: token, min/range/rows/cols
// header, data.
struct CompressedBytes {
  std::string token;
  float min_value, range;
  int32 rows, cols;
  std::string data;
};
CompressedBytes ParseCompressed(const CompressedMatrix &cm) {
  std::string s = WriteToString(cm, true);
  CompressedBytes b;
  size_t sp = s.find(' ');
  b.token = s.substr(0, sp);
  std::memcpy(&b.min_value, s.data() + sp + 1, 4);
  std::memcpy(&b.range, s.data() + sp + 5, 4);
  std::memcpy(&b.rows, s.data() + sp + 9, 4);
  std::memcpy(&b.cols, s.data() + sp + 13, 4);
  b.data = s.substr(sp + 17);
  return b;
}

// ---------------------------------------------------------------------------

TEST(GeneralMatrixTest, TypesAndAccessors) {
  RandomSource rs(TestSeed());
  GeneralMatrix g;
  EXPECT_EQ(g.Type(), kFullMatrix);
  EXPECT_EQ(g.NumRows(), 0);
  EXPECT_EQ(g.NumCols(), 0);
  // An empty GeneralMatrix can be read as any type.
  EXPECT_EQ(g.GetSparseMatrix().NumRows(), 0);
  EXPECT_EQ(g.GetCompressedMatrix().NumRows(), 0);

  Matrix<BaseFloat> full = RandomMatrix(3, 4, &rs);
  g = full;
  EXPECT_EQ(g.Type(), kFullMatrix);
  EXPECT_EQ(g.NumRows(), 3);
  EXPECT_EQ(g.NumCols(), 4);
  ExpectEqual(g.GetFullMatrix(), full);
  EXPECT_THROW(g.GetSparseMatrix(), UserError);
  EXPECT_THROW(g.GetCompressedMatrix(), UserError);
  SparseMatrix<BaseFloat> sp = RandomSparse(2, 5, &rs);
  EXPECT_THROW(g.SwapSparseMatrix(&sp), UserError);

  g = sp;
  EXPECT_EQ(g.Type(), kSparseMatrix);
  EXPECT_EQ(g.NumRows(), 2);
  EXPECT_EQ(g.NumCols(), 5);
  EXPECT_EQ(g.GetSparseMatrix().NumElements(), sp.NumElements());
  EXPECT_THROW(g.GetFullMatrix(), UserError);
  EXPECT_THROW(g.GetCompressedMatrix(), UserError);
  Matrix<BaseFloat> m2(1, 1);
  EXPECT_THROW(g.SwapFullMatrix(&m2), UserError);

  CompressedMatrix cm(full);
  g = cm;
  EXPECT_EQ(g.Type(), kCompressedMatrix);
  EXPECT_EQ(g.NumRows(), 3);
  EXPECT_EQ(g.NumCols(), 4);
  EXPECT_THROW(g.GetFullMatrix(), UserError);
  EXPECT_THROW(g.GetSparseMatrix(), UserError);
  CompressedMatrix other;
  g.SwapCompressedMatrix(&other);
  EXPECT_EQ(other.NumRows(), 3);
  EXPECT_EQ(g.Type(), kFullMatrix);
  EXPECT_EQ(g.NumRows(), 0);

  g.SwapSparseMatrix(&sp);
  EXPECT_EQ(g.Type(), kSparseMatrix);
  EXPECT_EQ(sp.NumRows(), 0);
  GeneralMatrix h(full);
  g.Swap(&h);
  EXPECT_EQ(g.Type(), kFullMatrix);
  EXPECT_EQ(h.Type(), kSparseMatrix);
  GeneralMatrix copy(h);
  EXPECT_EQ(copy.Type(), kSparseMatrix);
  EXPECT_EQ(copy.NumRows(), 2);
  GeneralMatrix moved(std::move(copy));
  EXPECT_EQ(moved.Type(), kSparseMatrix);
  h.Clear();
  EXPECT_EQ(h.Type(), kFullMatrix);
  EXPECT_EQ(h.NumRows(), 0);
}

TEST(GeneralMatrixTest, CompressUncompress) {
  RandomSource rs(TestSeed());
  Matrix<BaseFloat> full = RandomMatrix(10, 3, &rs);
  GeneralMatrix g(full);
  g.Compress();
  ASSERT_EQ(g.Type(), kCompressedMatrix);
  EXPECT_EQ(g.GetCompressedMatrix().Format(), 1);  // > 8 rows: CM
  Matrix<BaseFloat> oracle(g.GetCompressedMatrix());
  g.Uncompress();
  ASSERT_EQ(g.Type(), kFullMatrix);
  ExpectEqual(g.GetFullMatrix(), oracle);
  ExpectEqual(g.GetFullMatrix(), full, 0.05);

  g = full;
  g.Compress(kTwoByteAuto);
  EXPECT_EQ(g.GetCompressedMatrix().Format(), 2);
  g = full;
  g.Compress(kOneByteAuto);
  EXPECT_EQ(g.GetCompressedMatrix().Format(), 3);

  // No-ops on the other types.
  SparseMatrix<BaseFloat> sp = RandomSparse(3, 3, &rs);
  g = sp;
  g.Compress();
  EXPECT_EQ(g.Type(), kSparseMatrix);
  g.Uncompress();
  EXPECT_EQ(g.Type(), kSparseMatrix);
}

TEST(GeneralMatrixTest, CopyAndAddToMat) {
  RandomSource rs(TestSeed());
  Matrix<BaseFloat> full = RandomMatrix(9, 4, &rs);
  SparseMatrix<BaseFloat> sp = RandomSparse(9, 4, &rs);
  CompressedMatrix cm(full, kTwoByteAuto);
  std::vector<GeneralMatrix> mats;
  std::vector<Matrix<BaseFloat> > oracles;
  mats.push_back(GeneralMatrix(full));
  oracles.push_back(full);
  mats.push_back(GeneralMatrix(sp));
  oracles.push_back(DenseOf(sp));
  mats.push_back(GeneralMatrix(cm));
  oracles.push_back(Matrix<BaseFloat>(cm));
  for (size_t k = 0; k < mats.size(); k++) {
    SCOPED_TRACE("type " + std::to_string(mats[k].Type()));
    const Matrix<BaseFloat> &d = oracles[k];
    Matrix<BaseFloat> got;
    mats[k].GetMatrix(&got);
    ExpectEqual(got, d);

    Matrix<BaseFloat> copy(9, 4), copy_t(4, 9);
    copy.Set(5.0f);
    copy_t.Set(5.0f);
    mats[k].CopyToMat(&copy);
    mats[k].CopyToMat(&copy_t, kTrans);
    ExpectEqual(copy, d);
    for (int r = 0; r < 9; r++)
      for (int c = 0; c < 4; c++) EXPECT_EQ(copy_t(c, r), d(r, c));

    Matrix<BaseFloat> acc = RandomMatrix(9, 4, &rs),
                      acc_t = RandomMatrix(4, 9, &rs);
    Matrix<BaseFloat> acc0(acc), acc_t0(acc_t);
    mats[k].AddToMat(0.5f, &acc);
    mats[k].AddToMat(-1.0f, &acc_t, kTrans);
    for (int r = 0; r < 9; r++)
      for (int c = 0; c < 4; c++) {
        EXPECT_NEAR(acc(r, c), acc0(r, c) + 0.5f * d(r, c), 1e-6);
        EXPECT_NEAR(acc_t(c, r), acc_t0(c, r) - d(r, c), 1e-6);
      }

    GeneralMatrix scaled(mats[k]);
    scaled.Scale(-2.0f);
    EXPECT_EQ(scaled.Type(), mats[k].Type());
    Matrix<BaseFloat> s;
    scaled.GetMatrix(&s);
    for (int r = 0; r < 9; r++)
      for (int c = 0; c < 4; c++)
        EXPECT_NEAR(s(r, c), -2.0f * d(r, c), 1e-5);
  }
  GeneralMatrix empty;
  Matrix<BaseFloat> e(3, 3);
  empty.GetMatrix(&e);
  EXPECT_EQ(e.NumRows(), 0);
}

TEST(GeneralMatrixTest, WriteBytes) {
  Matrix<BaseFloat> full(1, 2);
  full(0, 0) = 1.0f;
  full(0, 1) = 2.0f;
  GeneralMatrix g(full);
  EXPECT_EQ(WriteToString(g, true),
            Bytes({'F', 'M', ' ', 4, 1, 0, 0, 0, 4, 2, 0, 0, 0,
                   0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40}));
  EXPECT_EQ(WriteToString(g, false), " [\n  1 2 ]\n");

  SparseMatrix<BaseFloat> sp(2, {{{1, 2.0f}}});
  g = sp;
  EXPECT_EQ(WriteToString(g, true),
            Bytes({'S', 'M', ' ', 4, 1, 0, 0, 0,
                   'S', 'V', ' ', 4, 2, 0, 0, 0, 4, 1, 0, 0, 0,
                   4, 1, 0, 0, 0, 4, 0x00, 0x00, 0x00, 0x40}));
  EXPECT_EQ(WriteToString(g, false), "rows=1 dim=2 [ 1 2 ] \n");

  CompressedMatrix cm(full, kTwoByteAuto);
  g = cm;
  EXPECT_EQ(WriteToString(g, true), WriteToString(cm, true));
  EXPECT_EQ(WriteToString(g, true).substr(0, 4), "CM2 ");
  // Compressed matrices are written as plain matrices in text.
  Matrix<BaseFloat> decompressed(cm);
  EXPECT_EQ(WriteToString(g, false), WriteToString(decompressed, false));
}

TEST(GeneralMatrixTest, ReadDispatch) {
  RandomSource rs(TestSeed());
  Matrix<BaseFloat> full = RandomMatrix(4, 3, &rs);
  SparseMatrix<BaseFloat> sp = RandomSparse(3, 6, &rs);
  CompressedMatrix cm(full);
  GeneralMatrix g;

  // Binary, each type, and bytes identical when written back.
  for (int k = 0; k < 3; k++) {
    GeneralMatrix src;
    if (k == 0) src = full;
    if (k == 1) src = sp;
    if (k == 2) src = cm;
    std::string bytes = WriteToString(src, true);
    g = RandomMatrix(2, 2, &rs);
    ReadFromString(bytes, true, &g);
    EXPECT_EQ(g.Type(), src.Type());
    EXPECT_EQ(WriteToString(g, true), bytes);
  }

  // Binary double matrix ("DM") reads as a full float matrix.
  Matrix<double> dm(2, 2);
  dm(0, 1) = 0.25;
  dm(1, 0) = -3.0;
  ReadFromString(WriteToString(dm, true), true, &g);
  ASSERT_EQ(g.Type(), kFullMatrix);
  EXPECT_EQ(g.GetFullMatrix()(0, 1), 0.25f);
  EXPECT_EQ(g.GetFullMatrix()(1, 0), -3.0f);

  // Text: "rows=" is sparse, "[" is full; leading whitespace is skipped.
  g = full;
  ReadFromString("\n  rows=2 dim=3 [ 1 4 ] dim=3 [ ] \n", false, &g);
  ASSERT_EQ(g.Type(), kSparseMatrix);
  EXPECT_EQ(g.NumRows(), 2);
  EXPECT_EQ(g.GetSparseMatrix().Row(0).GetElement(0), std::make_pair(1, 4.0f));
  g = sp;
  ReadFromString(" [\n  1 2\n  3 4 ]\n", false, &g);
  ASSERT_EQ(g.Type(), kFullMatrix);
  EXPECT_EQ(g.NumRows(), 2);
  EXPECT_EQ(g.GetFullMatrix()(1, 0), 3.0f);
  // Compressed written as text reads back as full.
  GeneralMatrix gc(cm);
  ReadFromString(WriteToString(gc, false), false, &g);
  EXPECT_EQ(g.Type(), kFullMatrix);
  ExpectEqual(g.GetFullMatrix(), Matrix<BaseFloat>(cm), 1e-5);

  // Malformed input.
  EXPECT_THROW(ReadFromString("rows=2 dim=3 [ ]", false, &g), UserError);
  EXPECT_THROW(ReadFromString(std::string("SX "), true, &g), UserError);
  EXPECT_THROW(ReadFromString(std::string("CM4 "), true, &g), UserError);
}

TEST(GeneralMatrixTest, AppendRows) {
  RandomSource rs(TestSeed());
  Matrix<BaseFloat> f1 = RandomMatrix(2, 3, &rs), f2 = RandomMatrix(3, 3, &rs);
  SparseMatrix<BaseFloat> s1 = RandomSparse(2, 3, &rs),
                          s2 = RandomSparse(4, 3, &rs);
  CompressedMatrix c1(RandomMatrix(3, 3, &rs), kOneByteAuto);
  GeneralMatrix gf1(f1), gf2(f2), gs1(s1), gs2(s2), gc1(c1), empty;
  GeneralMatrix out;

  AppendGeneralMatrixRows({&gf1, &empty, &gf2}, &out);
  ASSERT_EQ(out.Type(), kFullMatrix);
  ASSERT_EQ(out.NumRows(), 5);
  for (int r = 0; r < 5; r++)
    for (int c = 0; c < 3; c++)
      EXPECT_EQ(out.GetFullMatrix()(r, c), r < 2 ? f1(r, c) : f2(r - 2, c));

  AppendGeneralMatrixRows({&gs1, &gs2, &empty}, &out);
  ASSERT_EQ(out.Type(), kSparseMatrix);
  ASSERT_EQ(out.NumRows(), 6);
  Matrix<BaseFloat> d1 = DenseOf(s1), d2 = DenseOf(s2),
                    dout = DenseOf(out.GetSparseMatrix());
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 3; c++)
      EXPECT_EQ(dout(r, c), r < 2 ? d1(r, c) : d2(r - 2, c));

  // Mixed and compressed inputs give a full matrix.
  AppendGeneralMatrixRows({&gs1, &gc1, &gf1}, &out);
  ASSERT_EQ(out.Type(), kFullMatrix);
  ASSERT_EQ(out.NumRows(), 7);
  Matrix<BaseFloat> dc(c1);
  for (int r = 0; r < 7; r++)
    for (int c = 0; c < 3; c++) {
      float want = r < 2 ? d1(r, c) : r < 5 ? dc(r - 2, c) : f1(r - 5, c);
      EXPECT_EQ(out.GetFullMatrix()(r, c), want) << r << "," << c;
    }
  AppendGeneralMatrixRows({&gc1}, &out);
  EXPECT_EQ(out.Type(), kFullMatrix);
  ExpectEqual(out.GetFullMatrix(), dc);

  AppendGeneralMatrixRows({}, &out);
  EXPECT_EQ(out.NumRows(), 0);

  GeneralMatrix wide(RandomMatrix(1, 4, &rs));
  EXPECT_THROW(AppendGeneralMatrixRows({&gf1, &wide}, &out), UserError);
  GeneralMatrix wide_sparse(RandomSparse(1, 4, &rs));
  EXPECT_THROW(AppendGeneralMatrixRows({&gs1, &wide_sparse}, &out), UserError);
}

TEST(GeneralMatrixTest, ExtractRowRangeFullAndSparse) {
  RandomSource rs(TestSeed());
  Matrix<BaseFloat> full = RandomMatrix(5, 3, &rs);
  SparseMatrix<BaseFloat> sp = RandomSparse(5, 3, &rs);
  Matrix<BaseFloat> dsp = DenseOf(sp);
  GeneralMatrix gf(full), gs(sp), out;
  const int cases[][2] = {{0, 5}, {1, 3}, {-2, 4}, {3, 6}, {-3, 12}, {7, 2}};
  for (const auto &cs : cases) {
    int offset = cs[0], n = cs[1];
    SCOPED_TRACE("offset " + std::to_string(offset) + " n " +
                 std::to_string(n));
    ExtractRowRangeWithPadding(gf, offset, n, &out);
    ASSERT_EQ(out.Type(), kFullMatrix);
    ASSERT_EQ(out.NumRows(), n);
    for (int r = 0; r < n; r++)
      for (int c = 0; c < 3; c++)
        EXPECT_EQ(out.GetFullMatrix()(r, c), full(Clamp(r + offset, 5), c));
    ExtractRowRangeWithPadding(gs, offset, n, &out);
    ASSERT_EQ(out.Type(), kSparseMatrix);
    ASSERT_EQ(out.NumRows(), n);
    EXPECT_EQ(out.NumCols(), 3);
    Matrix<BaseFloat> d = DenseOf(out.GetSparseMatrix());
    for (int r = 0; r < n; r++)
      for (int c = 0; c < 3; c++)
        EXPECT_EQ(d(r, c), dsp(Clamp(r + offset, 5), c));
  }
  ExtractRowRangeWithPadding(gf, 2, 0, &out);
  EXPECT_EQ(out.NumRows(), 0);
  GeneralMatrix empty;
  EXPECT_THROW(ExtractRowRangeWithPadding(empty, 0, 2, &out), UserError);
}

TEST(GeneralMatrixTest, ExtractRowRangeCompressedKeepsBytes) {
  RandomSource rs(TestSeed());
  const int in_rows = 12, cols = 5;
  Matrix<BaseFloat> full = RandomMatrix(in_rows, cols, &rs);
  const CompressionMethod methods[] = {kSpeechFeature, kTwoByteAuto,
                                       kOneByteAuto};
  const int cases[][2] = {{0, 12}, {2, 8}, {-3, 10}, {5, 9}, {-4, 20},
                          {1, 3},  {-2, 4}, {11, 2}};
  for (CompressionMethod method : methods) {
    CompressedMatrix cin(full, method);
    int in_format = cin.Format();
    CompressedBytes in_bytes = ParseCompressed(cin);
    Matrix<BaseFloat> oracle(cin);
    GeneralMatrix g(cin), out;
    for (const auto &cs : cases) {
      int offset = cs[0], n = cs[1];
      SCOPED_TRACE("format " + std::to_string(in_format) + " offset " +
                   std::to_string(offset) + " n " + std::to_string(n));
      ExtractRowRangeWithPadding(g, offset, n, &out);
      ASSERT_EQ(out.Type(), kCompressedMatrix);
      const CompressedMatrix &cmat_out = out.GetCompressedMatrix();
      ASSERT_EQ(cmat_out.NumRows(), n);
      ASSERT_EQ(cmat_out.NumCols(), cols);
      Matrix<BaseFloat> got(cmat_out);
      CompressedBytes out_bytes = ParseCompressed(cmat_out);
      EXPECT_EQ(out_bytes.rows, n);
      EXPECT_EQ(out_bytes.cols, cols);
      if (in_format == 1 && n < 8) {
        // Kaldi recompresses short CM ranges as CM2.
        EXPECT_EQ(cmat_out.Format(), 2);
        EXPECT_EQ(out_bytes.token, "CM2");
        for (int r = 0; r < n; r++)
          for (int c = 0; c < cols; c++)
            EXPECT_NEAR(got(r, c), oracle(Clamp(r + offset, in_rows), c),
                        1e-3);
        continue;
      }
      EXPECT_EQ(cmat_out.Format(), in_format);
      // Same global header, and (format 1) the same column headers.
      EXPECT_EQ(out_bytes.token, in_bytes.token);
      EXPECT_EQ(out_bytes.min_value, in_bytes.min_value);
      EXPECT_EQ(out_bytes.range, in_bytes.range);
      // The stored bytes are the input's, row for row.
      std::string want;
      if (in_format == 1) {
        want = in_bytes.data.substr(0, 8 * cols);
        const char *values = in_bytes.data.data() + 8 * cols;
        for (int c = 0; c < cols; c++)
          for (int r = 0; r < n; r++)
            want.push_back(values[c * in_rows + Clamp(r + offset, in_rows)]);
      } else {
        int row_bytes = (in_format == 2 ? 2 : 1) * cols;
        for (int r = 0; r < n; r++)
          want += in_bytes.data.substr(row_bytes * Clamp(r + offset, in_rows),
                                       row_bytes);
      }
      EXPECT_EQ(out_bytes.data, want);
      // Hence bit-exact values.
      for (int r = 0; r < n; r++)
        for (int c = 0; c < cols; c++)
          EXPECT_EQ(got(r, c), oracle(Clamp(r + offset, in_rows), c));
    }
  }
}

TEST(GeneralMatrixTest, FilterRows) {
  RandomSource rs(TestSeed());
  Matrix<BaseFloat> full = RandomMatrix(4, 3, &rs);
  SparseMatrix<BaseFloat> sp = RandomSparse(4, 3, &rs);
  CompressedMatrix cm(full, kTwoByteAuto);
  std::vector<bool> keep = {true, false, false, true};
  const int kept[] = {0, 3};
  GeneralMatrix out;

  FilterGeneralMatrixRows(GeneralMatrix(full), keep, &out);
  ASSERT_EQ(out.Type(), kFullMatrix);
  ASSERT_EQ(out.NumRows(), 2);
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++)
      EXPECT_EQ(out.GetFullMatrix()(r, c), full(kept[r], c));

  FilterGeneralMatrixRows(GeneralMatrix(sp), keep, &out);
  ASSERT_EQ(out.Type(), kSparseMatrix);
  Matrix<BaseFloat> d = DenseOf(out.GetSparseMatrix()), dsp = DenseOf(sp);
  ASSERT_EQ(d.NumRows(), 2);
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++) EXPECT_EQ(d(r, c), dsp(kept[r], c));

  FilterGeneralMatrixRows(GeneralMatrix(cm), keep, &out);
  ASSERT_EQ(out.Type(), kFullMatrix);
  Matrix<BaseFloat> dc(cm);
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++)
      EXPECT_EQ(out.GetFullMatrix()(r, c), dc(kept[r], c));

  // Keeping every row keeps the type; keeping none is an error.
  FilterGeneralMatrixRows(GeneralMatrix(cm), {true, true, true, true}, &out);
  EXPECT_EQ(out.Type(), kCompressedMatrix);
  EXPECT_THROW(FilterGeneralMatrixRows(GeneralMatrix(full),
                                       {false, false, false, false}, &out),
               UserError);
}

}  // namespace
}  // namespace nnet3
