// tests/matrix/matrix-io-test.cc
// Kaldi I/O of Vector and Matrix: byte-exact binary ("FM"/"DM"/"FV"/"DV",
// size byte + int32 dims + raw values, no "\0B" header: that belongs to the
// stream layer) and text (" [\n  1 2 3 \n  4 5 6 ]\n", " [ 1 2 3 ]\n"),
// round trips on random shapes and views, reading across precisions, and
// the errors that malformed input must raise (nnet3::UserError).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "base/io.h"
#include "matrix/matrix-test-util.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace test {
namespace {

template <class Real>
class MatrixIoTest : public ::testing::Test {};
TYPED_TEST_SUITE(MatrixIoTest, RealTypes);

template <class Real> struct Other;
template <> struct Other<float> { typedef double Type; };
template <> struct Other<double> { typedef float Type; };

// Kaldi's binary int32: size byte 4, then the little-endian value.
std::string Int32Bytes(int32 v) {
  std::string s(1, '\x04');
  char b[4];
  for (int i = 0; i < 4; i++)
    b[i] = static_cast<char>((static_cast<uint32>(v) >> (8 * i)) & 0xff);
  s.append(b, 4);
  return s;
}

template <class Real>
std::string RawBytes(const std::vector<Real> &v) {
  return std::string(reinterpret_cast<const char *>(v.data()),
                     v.size() * sizeof(Real));
}

template <class Real>
std::string MatToken() { return sizeof(Real) == 4 ? "FM " : "DM "; }
template <class Real>
std::string VecToken() { return sizeof(Real) == 4 ? "FV " : "DV "; }

// The expected binary form of a matrix, built by element access.
template <class Real>
std::string ExpectedBinary(const MatrixBase<Real> &M) {
  std::vector<Real> vals;
  for (int r = 0; r < M.NumRows(); r++)
    for (int c = 0; c < M.NumCols(); c++) vals.push_back(M(r, c));
  return MatToken<Real>() + Int32Bytes(M.NumRows()) + Int32Bytes(M.NumCols()) +
         RawBytes(vals);
}
template <class Real>
std::string ExpectedBinary(const VectorBase<Real> &v) {
  std::vector<Real> vals;
  for (int i = 0; i < v.Dim(); i++) vals.push_back(v(i));
  return VecToken<Real>() + Int32Bytes(v.Dim()) + RawBytes(vals);
}

std::string Printable(const std::string &s) {
  std::ostringstream os;
  for (unsigned char c : s) {
    if (c == '\n') os << "\\n";
    else if (c >= 32 && c < 127) os << c;
    else os << "\\x" << std::hex << int(c) << std::dec;
  }
  return os.str();
}

// "UserError: " + the message of the UserError that f throws, or a
// description of what happened instead.
template <class F>
std::string UserErrorMessage(F f) {
  try {
    f();
  } catch (const UserError &e) {
    return std::string("UserError: ") + e.what();
  } catch (const std::exception &e) {
    return std::string("<not a UserError: ") + e.what() + ">";
  }
  return "<none>";
}

bool IsUserError(const std::string &msg) {
  return msg.rfind("UserError: ", 0) == 0;
}

template <class Real>
std::string WriteToString(const MatrixBase<Real> &M, bool binary,
                          int precision = -1) {
  std::ostringstream os;
  if (precision > 0) os.precision(precision);
  M.Write(os, binary);
  return os.str();
}
template <class Real>
std::string WriteToString(const VectorBase<Real> &v, bool binary,
                          int precision = -1) {
  std::ostringstream os;
  if (precision > 0) os.precision(precision);
  v.Write(os, binary);
  return os.str();
}

template <class Real>
void Set23(MatrixBase<Real> *M) {
  for (int r = 0; r < 2; r++)
    for (int c = 0; c < 3; c++) (*M)(r, c) = Real(3 * r + c + 1);
}

// ---------------------------------------------------------------------------
// Byte-exact output.

TYPED_TEST(MatrixIoTest, MatrixBinaryBytes) {
  typedef TypeParam Real;
  Matrix<Real> M(2, 3);
  Set23(&M);
  std::vector<Real> vals = {1, 2, 3, 4, 5, 6};
  std::string expected = MatToken<Real>() + std::string("\x04\x02\x00\x00\x00", 5) +
                         std::string("\x04\x03\x00\x00\x00", 5) + RawBytes(vals);
  std::string got = WriteToString(M, true);
  EXPECT_EQ(got, expected) << "got " << Printable(got) << "\nexpected "
                           << Printable(expected);
  // A window with stride > cols writes only its own columns.
  Matrix<Real> big(4, 7);
  big.Set(Real(-9));
  SubMatrix<Real> w(big, 1, 2, 3, 3);
  Set23(&w);
  EXPECT_EQ(WriteToString(w, true), expected);
  // Empty.
  Matrix<Real> E;
  EXPECT_EQ(WriteToString(E, true),
            MatToken<Real>() + Int32Bytes(0) + Int32Bytes(0));
}

TYPED_TEST(MatrixIoTest, VectorBinaryBytes) {
  typedef TypeParam Real;
  Vector<Real> v(3);
  v(0) = 1;
  v(1) = -2.5;
  v(2) = 1e-3;
  std::vector<Real> vals = {Real(1), Real(-2.5), Real(1e-3)};
  std::string expected = VecToken<Real>() + Int32Bytes(3) + RawBytes(vals);
  EXPECT_EQ(WriteToString(v, true), expected);
  Vector<Real> e;
  EXPECT_EQ(WriteToString(e, true), VecToken<Real>() + Int32Bytes(0));
}

TYPED_TEST(MatrixIoTest, MatrixTextBytes) {
  typedef TypeParam Real;
  Matrix<Real> M(2, 3);
  Set23(&M);
  EXPECT_EQ(WriteToString(M, false), " [\n  1 2 3 \n  4 5 6 ]\n");
  Matrix<Real> E;
  EXPECT_EQ(WriteToString(E, false), " [ ]\n");
  Matrix<Real> one(1, 1);
  one(0, 0) = Real(-0.5);
  EXPECT_EQ(WriteToString(one, false), " [\n  -0.5 ]\n");
  // A column range writes only its columns.
  Matrix<Real> big(3, 6);
  big.Set(Real(7));
  SubMatrix<Real> w = big.Range(1, 2, 2, 3);
  Set23(&w);
  EXPECT_EQ(WriteToString(w, false), " [\n  1 2 3 \n  4 5 6 ]\n");
  // operator<< writes the text form.
  std::ostringstream os;
  os << M;
  EXPECT_EQ(os.str(), " [\n  1 2 3 \n  4 5 6 ]\n");
}

TYPED_TEST(MatrixIoTest, VectorTextBytes) {
  typedef TypeParam Real;
  Vector<Real> v(3);
  v(0) = 1;
  v(1) = 2;
  v(2) = 3;
  EXPECT_EQ(WriteToString(v, false), " [ 1 2 3 ]\n");
  Vector<Real> e;
  EXPECT_EQ(WriteToString(e, false), " [ ]\n");
  std::ostringstream os;
  os << v;
  EXPECT_EQ(os.str(), " [ 1 2 3 ]\n");
}

TYPED_TEST(MatrixIoTest, TextUsesStreamPrecision) {
  typedef TypeParam Real;
  Matrix<Real> M(1, 1);
  M(0, 0) = Real(1.0) / Real(3.0);
  Vector<Real> v(1);
  v(0) = Real(1.0) / Real(3.0);
  EXPECT_EQ(WriteToString(M, false, 7), " [\n  0.3333333 ]\n");
  EXPECT_EQ(WriteToString(v, false, 7), " [ 0.3333333 ]\n");
  EXPECT_EQ(WriteToString(v, false, 3), " [ 0.333 ]\n");
  // InitKaldiOutputStream raises the precision to 7.
  std::ostringstream os;
  InitKaldiOutputStream(os, false);
  v.Write(os, false);
  EXPECT_EQ(os.str(), " [ 0.3333333 ]\n");
}

// ---------------------------------------------------------------------------
// Reading.

TYPED_TEST(MatrixIoTest, ReadHandWrittenBinary) {
  typedef TypeParam Real;
  std::vector<Real> vals = {1, 2, 3, 4, 5, 6};
  std::istringstream is(MatToken<Real>() + Int32Bytes(2) + Int32Bytes(3) +
                        RawBytes(vals));
  Matrix<Real> M(5, 5);
  M.Read(is, true);
  RefMat ref(2, 3);
  for (int i = 0; i < 6; i++) ref.d[i] = i + 1;
  EXPECT_TRUE(MatNear(M, ref, 0));
  EXPECT_EQ(is.peek(), EOF);

  std::vector<Real> vv = {Real(0.5), Real(-1)};
  std::istringstream vis(VecToken<Real>() + Int32Bytes(2) + RawBytes(vv));
  Vector<Real> v(7);
  v.Read(vis, true);
  EXPECT_TRUE(VecNear(v, RefVec{0.5, -1}, 0));
}

TYPED_TEST(MatrixIoTest, ReadOtherPrecisionBinary) {
  typedef TypeParam Real;
  typedef typename Other<Real>::Type OReal;
  // "DM" into Matrix<float> and "FM" into Matrix<double>.
  std::vector<OReal> vals = {OReal(0.1), OReal(-2), OReal(1e-7), OReal(3)};
  std::istringstream is(MatToken<OReal>() + Int32Bytes(2) + Int32Bytes(2) +
                        RawBytes(vals) + VecToken<OReal>() + Int32Bytes(4) +
                        RawBytes(vals));
  Matrix<Real> M;
  M.Read(is, true);
  RefMat ref(2, 2);
  for (int i = 0; i < 4; i++) ref.d[i] = static_cast<Real>(vals[i]);
  EXPECT_TRUE(MatNear(M, ref, 0));
  Vector<Real> v;
  v.Read(is, true);
  RefVec vref(4);
  for (int i = 0; i < 4; i++) vref[i] = static_cast<Real>(vals[i]);
  EXPECT_TRUE(VecNear(v, vref, 0));
  // And through Write of the other type.
  Rng rng(99);
  SCOPED_TRACE(rng.Trace());
  Matrix<OReal> O(3, 4);
  FillGauss(&O, rng);
  std::istringstream is2(WriteToString(O, true));
  Matrix<Real> R;
  R.Read(is2, true);
  RefMat oref = ToRef(O);
  for (auto &x : oref.d) x = static_cast<Real>(x);
  EXPECT_TRUE(MatNear(R, oref, 0));
}

TYPED_TEST(MatrixIoTest, ReadText) {
  typedef TypeParam Real;
  {
    std::istringstream is(" [\n  1 2 3 \n  4 5 6 ]\n");
    Matrix<Real> M;
    M.Read(is, false);
    RefMat ref(2, 3);
    for (int i = 0; i < 6; i++) ref.d[i] = i + 1;
    EXPECT_TRUE(MatNear(M, ref, 0));
  }
  {
    // One line: one row.
    std::istringstream is("[ 1.5 -2 3e2 ]");
    Matrix<Real> M;
    M.Read(is, false);
    RefMat ref(1, 3);
    ref.d = {1.5, -2, 300};
    EXPECT_TRUE(MatNear(M, ref, 0));
  }
  {
    // Closing bracket on its own line.
    std::istringstream is("[\n 1 2\n 3 4\n]\n");
    Matrix<Real> M;
    M.Read(is, false);
    RefMat ref(2, 2);
    ref.d = {1, 2, 3, 4};
    EXPECT_TRUE(MatNear(M, ref, 0));
  }
  {
    // Kaldi's other row separator, and Windows line endings.
    for (const char *text : {"[ 1 2 ; 3 4 ]\n", "[\r\n 1 2\r\n 3 4 ]\r\n"}) {
      std::istringstream is(text);
      Matrix<Real> M;
      M.Read(is, false);
      RefMat ref(2, 2);
      ref.d = {1, 2, 3, 4};
      EXPECT_TRUE(MatNear(M, ref, 0)) << Printable(text);
      EXPECT_EQ(is.peek(), EOF) << Printable(text);
    }
  }
  {
    // "[]" is tolerated for both.
    std::istringstream is("[]\n[]\n");
    Matrix<Real> M(2, 2);
    M.Read(is, false);
    EXPECT_EQ(M.NumRows(), 0);
    Vector<Real> v(2);
    v.Read(is, false);
    EXPECT_EQ(v.Dim(), 0);
  }
  {
    std::istringstream is(" [ ]\n");
    Matrix<Real> M(3, 3);
    M.Read(is, false);
    EXPECT_EQ(M.NumRows(), 0);
    EXPECT_EQ(M.NumCols(), 0);
  }
  {
    std::istringstream is(" [ 1 2.25 -3 ]\n");
    Vector<Real> v;
    v.Read(is, false);
    EXPECT_TRUE(VecNear(v, RefVec{1, 2.25, -3}, 0));
  }
  {
    std::istringstream is(" [ ]\n");
    Vector<Real> v(4);
    v.Read(is, false);
    EXPECT_EQ(v.Dim(), 0);
  }
}

TYPED_TEST(MatrixIoTest, ReadTextInfAndNaN) {
  typedef TypeParam Real;
  const Real inf = std::numeric_limits<Real>::infinity();
  {
    std::istringstream is(" [ 1 inf nan 2 ]\n");
    Vector<Real> v;
    v.Read(is, false);
    ASSERT_EQ(v.Dim(), 4);
    EXPECT_EQ(v(0), Real(1));
    EXPECT_EQ(v(1), inf);
    EXPECT_TRUE(std::isnan(v(2)));
    EXPECT_EQ(v(3), Real(2));
  }
  {
    std::istringstream is(" [\n  inf 1 \n  2 nan ]\n");
    Matrix<Real> M;
    M.Read(is, false);
    ASSERT_EQ(M.NumRows(), 2);
    ASSERT_EQ(M.NumCols(), 2);
    EXPECT_EQ(M(0, 0), inf);
    EXPECT_EQ(M(0, 1), Real(1));
    EXPECT_EQ(M(1, 0), Real(2));
    EXPECT_TRUE(std::isnan(M(1, 1)));
  }
  {
    // What Write produces for -inf must read back.
    Vector<Real> v(3);
    v(0) = -inf;
    v(1) = inf;
    v(2) = std::numeric_limits<Real>::quiet_NaN();
    std::istringstream is(WriteToString(v, false));
    Vector<Real> w;
    w.Read(is, false);
    ASSERT_EQ(w.Dim(), 3) << "text: " << WriteToString(v, false);
    EXPECT_EQ(w(0), -inf);
    EXPECT_EQ(w(1), inf);
    EXPECT_TRUE(std::isnan(w(2)));
    Matrix<Real> M(1, 3);
    M.CopyRowsFromVec(v);
    std::istringstream ism(WriteToString(M, false));
    Matrix<Real> N;
    N.Read(ism, false);
    ASSERT_EQ(N.NumCols(), 3) << "text: " << WriteToString(M, false);
    EXPECT_EQ(N(0, 0), -inf);
    EXPECT_EQ(N(0, 1), inf);
    EXPECT_TRUE(std::isnan(N(0, 2)));
  }
}

TYPED_TEST(MatrixIoTest, RoundTrips) {
  typedef TypeParam Real;
  ForEachSeed(TestSeed(), 30, [](Rng &rng, int iter) {
    int rows = iter == 0 ? 0 : rng.Dim(12), cols = rows == 0 ? 0 : rng.Dim(12);
    TestMatrix<Real> t(rng, rows, cols);
    TestVector<Real> tv(rng, iter == 0 ? 0 : rng.Dim(20));
    SCOPED_TRACE(t.Describe() + ", " + tv.Describe());
    RefMat X = ToRef(t.M());
    RefVec x = ToRef(tv.v());
    for (bool binary : {true, false}) {
      SCOPED_TRACE(binary ? "binary" : "text");
      // Full precision text is exact.
      int precision = sizeof(Real) == 4 ? 9 : 17;
      std::ostringstream os;
      os.precision(precision);
      // Several objects in one stream: each Read must stop at its end.
      t.M().Write(os, binary);
      tv.v().Write(os, binary);
      t.M().Write(os, binary);
      std::string bytes = os.str();
      if (binary) {
        EXPECT_EQ(bytes, ExpectedBinary(t.M()) + ExpectedBinary(tv.v()) +
                             ExpectedBinary(t.M()));
      }
      std::istringstream is(bytes);
      Matrix<Real> M1(2, 2), M2;
      Vector<Real> v1(3);
      M1.Read(is, binary);
      v1.Read(is, binary);
      // MatrixBase::Read into a view of the right size.
      TestMatrix<Real> dst(rng, rows, cols);
      dst.M().Read(is, binary);
      EXPECT_TRUE(MatNear(M1, X, 0));
      EXPECT_TRUE(VecNear(v1, x, 0));
      EXPECT_TRUE(MatNear(dst.M(), X, 0)) << "MatrixBase::Read";
      EXPECT_TRUE(dst.OutsideUnchanged());
      is >> std::ws;
      EXPECT_EQ(is.peek(), EOF);

      // Precision 7: close, not exact.
      std::ostringstream os7;
      os7.precision(7);
      t.M().Write(os7, binary);
      std::istringstream is7(os7.str());
      M2.Read(is7, binary);
      EXPECT_TRUE(MatNear(M2, X, binary ? 0.0 : 1e-6));
    }
  });
}

TYPED_TEST(MatrixIoTest, ReadWithAdd) {
  typedef TypeParam Real;
  const double tol = Tol<Real>();
  ForEachSeed(TestSeed(), 10, [tol](Rng &rng, int iter) {
    int rows = rng.Dim(8), cols = rng.Dim(8);
    Matrix<Real> A(rows, cols), B(rows, cols);
    FillGauss(&A, rng);
    FillGauss(&B, rng);
    Vector<Real> a(cols), b(cols);
    FillGauss(&a, rng);
    FillGauss(&b, rng);
    RefMat RA = ToRef(A), RB = ToRef(B), sum(rows, cols);
    for (size_t i = 0; i < RA.d.size(); i++) sum.d[i] = RA.d[i] + RB.d[i];
    RefVec ra = ToRef(a), rb = ToRef(b), vsum(cols);
    for (int i = 0; i < cols; i++) vsum[i] = ra[i] + rb[i];
    bool binary = iter % 2 == 0;
    SCOPED_TRACE(binary ? "binary" : "text");
    std::ostringstream os;
    os.precision(sizeof(Real) == 4 ? 9 : 17);
    B.Write(os, binary);
    b.Write(os, binary);
    B.Write(os, binary);
    B.Write(os, binary);
    std::istringstream is(os.str());
    A.Read(is, binary, true);
    EXPECT_TRUE(MatNear(A, sum, tol)) << "Matrix::Read add";
    a.Read(is, binary, true);
    EXPECT_TRUE(VecNear(a, vsum, tol)) << "Vector::Read add";
    // MatrixBase::Read with add, on a view.
    TestMatrix<Real> t(rng, rows, cols);
    Fill(&t.M(), RA);
    t.M().Read(is, binary, true);
    EXPECT_TRUE(MatNear(t.M(), sum, tol)) << "MatrixBase::Read add";
    EXPECT_TRUE(t.OutsideUnchanged());
    // Adding into an empty matrix just reads.
    Matrix<Real> E;
    E.Read(is, binary, true);
    EXPECT_TRUE(MatNear(E, RB, 0)) << "Matrix::Read add into empty";
  });
}

// ---------------------------------------------------------------------------
// Errors.

TYPED_TEST(MatrixIoTest, MalformedBinaryThrowsUserError) {
  typedef TypeParam Real;
  std::vector<Real> six = {1, 2, 3, 4, 5, 6}, five = {1, 2, 3, 4, 5};
  std::string good = MatToken<Real>() + Int32Bytes(2) + Int32Bytes(3);
  const std::vector<std::pair<std::string, std::string>> bad_matrices = {
      {"truncated data", good + RawBytes(five)},
      {"no data", good},
      {"truncated header", MatToken<Real>() + Int32Bytes(2)},
      {"truncated int", MatToken<Real>() + std::string("\x04\x02\x00", 3)},
      {"wrong token FX", "FX " + Int32Bytes(2) + Int32Bytes(3) + RawBytes(six)},
      {"vector token", VecToken<Real>() + Int32Bytes(6) + RawBytes(six)},
      {"negative rows", MatToken<Real>() + Int32Bytes(-2) + Int32Bytes(3) +
                            RawBytes(six)},
      {"bad size byte", MatToken<Real>() + std::string("\x08", 1) +
                            Int32Bytes(2).substr(1) + Int32Bytes(3) +
                            RawBytes(six)},
      {"empty stream", ""},
      // A corrupt header must not end in std::bad_alloc.
      {"huge dims", MatToken<Real>() + Int32Bytes(1 << 30) +
                        Int32Bytes(1 << 30) + RawBytes(six)},
  };
  for (const auto &c : bad_matrices) {
    std::istringstream is(c.second);
    Matrix<Real> M;
    std::string msg = UserErrorMessage([&] { M.Read(is, true); });
    EXPECT_TRUE(IsUserError(msg))
        << c.first << ": expected a UserError, got " << msg;
    std::istringstream is2(c.second);
    Matrix<Real> N(2, 3);
    SubMatrix<Real> view(N, 0, 2, 0, 3);
    msg = UserErrorMessage([&] { view.Read(is2, true); });
    EXPECT_TRUE(IsUserError(msg))
        << c.first << " (MatrixBase::Read): expected a UserError, got " << msg;
  }
  std::vector<Real> two = {1, 2};
  const std::vector<std::pair<std::string, std::string>> bad_vectors = {
      {"truncated data", VecToken<Real>() + Int32Bytes(3) + RawBytes(two)},
      {"truncated header", VecToken<Real>() + std::string("\x04\x03", 2)},
      {"wrong token FX", "FX " + Int32Bytes(2) + RawBytes(two)},
      {"matrix token", MatToken<Real>() + Int32Bytes(1) + Int32Bytes(2) +
                           RawBytes(two)},
      {"negative dim", VecToken<Real>() + Int32Bytes(-1) + RawBytes(two)},
      {"huge dim", VecToken<Real>() + Int32Bytes(0x7fffffff) + RawBytes(two)},
      {"empty stream", ""},
  };
  for (const auto &c : bad_vectors) {
    std::istringstream is(c.second);
    Vector<Real> v;
    std::string msg = UserErrorMessage([&] { v.Read(is, true); });
    EXPECT_TRUE(IsUserError(msg))
        << c.first << ": expected a UserError, got " << msg;
  }
}

TYPED_TEST(MatrixIoTest, MalformedTextThrowsUserError) {
  typedef TypeParam Real;
  {
    std::istringstream is(" [\n  1 2 3 \n  4 5 ]\n");
    Matrix<Real> M;
    std::string msg = UserErrorMessage([&] { M.Read(is, false); });
    EXPECT_TRUE(IsUserError(msg)) << msg;
    EXPECT_NE(msg.find("inconsistent"), std::string::npos)
        << "ragged rows: the message must mention inconsistent #cols; got "
        << msg;
    EXPECT_TRUE(msg.find("#cols") != std::string::npos ||
                msg.find("columns") != std::string::npos)
        << msg;
  }
  const std::vector<std::pair<std::string, std::string>> bad_matrices = {
      {"non-numeric token", " [\n  1 abc 3 ]\n"},
      {"garbage after a number", " [\n  1 2x 3 ]\n"},
      {"no closing bracket", " [\n  1 2 3 \n  4 5 6 \n"},
      {"no opening bracket", "1 2 3 ]\n"},
      {"empty stream", ""},
  };
  for (const auto &c : bad_matrices) {
    std::istringstream is(c.second);
    Matrix<Real> M;
    std::string msg = UserErrorMessage([&] { M.Read(is, false); });
    EXPECT_TRUE(IsUserError(msg))
        << c.first << ": expected a UserError, got " << msg;
  }
  const std::vector<std::pair<std::string, std::string>> bad_vectors = {
      {"non-numeric token", " [ 1 abc 3 ]\n"},
      {"no closing bracket", " [ 1 2 3"},
      {"no opening bracket", "1 2 3 ]\n"},
      {"newline inside (a matrix?)", " [ 1 2\n 3 4 ]\n"},
      {"empty stream", ""},
  };
  for (const auto &c : bad_vectors) {
    std::istringstream is(c.second);
    Vector<Real> v;
    std::string msg = UserErrorMessage([&] { v.Read(is, false); });
    EXPECT_TRUE(IsUserError(msg))
        << c.first << ": expected a UserError, got " << msg;
  }
}

TYPED_TEST(MatrixIoTest, MatrixBaseReadSizeMismatchThrows) {
  typedef TypeParam Real;
  Matrix<Real> src(2, 3);
  Set23(&src);
  for (bool binary : {true, false}) {
    std::istringstream is(WriteToString(src, binary));
    Matrix<Real> big(4, 4);
    SubMatrix<Real> view(big, 0, 3, 0, 3);
    std::string msg = UserErrorMessage([&] { view.Read(is, binary); });
    EXPECT_TRUE(IsUserError(msg))
        << (binary ? "binary" : "text") << ": got " << msg;
  }
  // Vector::Read with add into a vector of another size.
  Vector<Real> v(3), w(5);
  std::istringstream is(WriteToString(v, true));
  std::string msg = UserErrorMessage([&] { w.Read(is, true, true); });
  EXPECT_TRUE(IsUserError(msg)) << msg;
}

}  // namespace
}  // namespace test
}  // namespace nnet3
