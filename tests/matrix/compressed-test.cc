// tests/matrix/compressed-test.cc
// CompressedMatrix: error bounds of every method against the uncompressed
// data, sub-range decompression against full decompression, I/O round trips,
// and exact bytes of a hand-computed two-byte compression.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "matrix/compressed.h"

namespace nnet3 {
namespace {

Matrix<float> RandomMatrix(int rows, int cols, uint64 seed, float scale = 10) {
  Matrix<float> m(rows, cols);
  RandomSource rs(seed);
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) m(r, c) = scale * rs.Gauss() + 0.1 * c;
  return m;
}

double MaxAbsDiff(const Matrix<float> &a, const Matrix<float> &b) {
  double d = 0;
  for (int r = 0; r < a.NumRows(); r++)
    for (int c = 0; c < a.NumCols(); c++)
      d = std::max(d, std::fabs(double(a(r, c)) - b(r, c)));
  return d;
}

TEST(Compressed, ErrorBoundsPerMethod) {
  for (uint64 seed = 1; seed <= 5; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Matrix<float> m = RandomMatrix(30 + seed, 7 + seed, seed);
    double range = m.Max() - m.Min();
    struct Case { CompressionMethod method; int format; double bound; };
    // Two bytes: half a step of range/65535 (plus float rounding). One byte:
    // half a step of range/255. Column-percentile bytes: a step is at most
    // (p25-p0)/64, (p75-p25)/128 or (p100-p75)/63 of that column, below
    // range/63.
    Case cases[] = {{kTwoByteAuto, 2, range / 65535 * 0.51 + 1e-5 * range},
                    {kOneByteAuto, 3, range / 255 * 0.51 + 1e-5 * range},
                    {kSpeechFeature, 1, range / 63 * 0.51 + 1e-5 * range},
                    {kAutomaticMethod, 1, range / 63 * 0.51 + 1e-5 * range}};
    for (const Case &c : cases) {
      CompressedMatrix cm(m, c.method);
      EXPECT_EQ(cm.Format(), c.format);
      EXPECT_EQ(cm.NumRows(), m.NumRows());
      EXPECT_EQ(cm.NumCols(), m.NumCols());
      Matrix<float> back(cm);
      EXPECT_LE(MaxAbsDiff(m, back), c.bound) << "method " << c.method;
    }
  }
}

TEST(Compressed, AutomaticPicksTwoBytesForShortMatrices) {
  EXPECT_EQ(CompressedMatrix(RandomMatrix(8, 3, 1)).Format(), 2);
  EXPECT_EQ(CompressedMatrix(RandomMatrix(9, 3, 1)).Format(), 1);
}

TEST(Compressed, IntegerMethodsAreExactOnIntegers) {
  Matrix<float> pcm(5, 4), bytes(5, 4), unit(5, 4);
  RandomSource rs(3);
  for (int r = 0; r < 5; r++)
    for (int c = 0; c < 4; c++) {
      pcm(r, c) = rs.Int(-32768, 32767);
      bytes(r, c) = rs.Int(0, 255);
      unit(r, c) = rs.Int(0, 1);
    }
  EXPECT_EQ(MaxAbsDiff(pcm, Matrix<float>(CompressedMatrix(pcm, kTwoByteSignedInteger))), 0.0);
  EXPECT_EQ(MaxAbsDiff(bytes, Matrix<float>(CompressedMatrix(bytes, kOneByteUnsignedInteger))), 0.0);
  EXPECT_EQ(MaxAbsDiff(unit, Matrix<float>(CompressedMatrix(unit, kOneByteZeroOne))), 0.0);
}

TEST(Compressed, TwoByteBytesByHand) {
  // 1x2 matrix [0, 1]: min 0, range 1, values 0 and 65535.
  Matrix<float> m(1, 2);
  m(0, 1) = 1.0f;
  CompressedMatrix cm(m, kTwoByteAuto);
  std::ostringstream os;
  cm.Write(os, true);
  std::string expected = "CM2 ";
  float min = 0.0f, range = 1.0f;
  int32 rows = 1, cols = 2;
  uint16 v0 = 0, v1 = 65535;
  expected.append(reinterpret_cast<char *>(&min), 4);
  expected.append(reinterpret_cast<char *>(&range), 4);
  expected.append(reinterpret_cast<char *>(&rows), 4);
  expected.append(reinterpret_cast<char *>(&cols), 4);
  expected.append(reinterpret_cast<char *>(&v0), 2);
  expected.append(reinterpret_cast<char *>(&v1), 2);
  EXPECT_EQ(os.str(), expected);
}

TEST(Compressed, ConstantMatrixStillHasARange) {
  Matrix<float> m(20, 3);
  m.Set(-2.0f);
  for (CompressionMethod method : {kSpeechFeature, kTwoByteAuto, kOneByteAuto}) {
    Matrix<float> back(CompressedMatrix(m, method));
    EXPECT_LE(MaxAbsDiff(m, back), 3.0 / 63) << method;
  }
}

TEST(Compressed, SubRangesMatchFullDecompression) {
  Matrix<float> m = RandomMatrix(25, 6, 11);
  for (CompressionMethod method : {kSpeechFeature, kTwoByteAuto, kOneByteAuto}) {
    CompressedMatrix cm(m, method);
    Matrix<float> full(cm);
    Matrix<float> part(7, 3);
    cm.CopyToMat(4, 2, &part);
    for (int r = 0; r < 7; r++)
      for (int c = 0; c < 3; c++) EXPECT_EQ(part(r, c), full(4 + r, 2 + c));
    Vector<float> row(6), col(25);
    cm.CopyRowToVec(9, &row);
    cm.CopyColToVec(5, &col);
    for (int c = 0; c < 6; c++) EXPECT_EQ(row(c), full(9, c));
    for (int r = 0; r < 25; r++) EXPECT_EQ(col(r), full(r, 5));
    Matrix<float> t(6, 25);
    cm.CopyToMat(&t, kTrans);
    for (int r = 0; r < 25; r++)
      for (int c = 0; c < 6; c++) EXPECT_EQ(t(c, r), full(r, c));
    Matrix<double> d(25, 6);
    cm.CopyToMat(&d);
    for (int r = 0; r < 25; r++)
      for (int c = 0; c < 6; c++) EXPECT_EQ(float(d(r, c)), full(r, c));
  }
}

TEST(Compressed, BinaryRoundTripIsExactAndTextIsUncompressed) {
  Matrix<float> m = RandomMatrix(12, 5, 4);
  for (CompressionMethod method : {kSpeechFeature, kTwoByteAuto, kOneByteAuto}) {
    CompressedMatrix cm(m, method);
    std::ostringstream os;
    cm.Write(os, true);
    std::istringstream is(os.str());
    CompressedMatrix cm2;
    cm2.Read(is, true);
    std::ostringstream os2;
    cm2.Write(os2, true);
    EXPECT_EQ(os.str(), os2.str());
    // A Matrix reads CM data by decompressing it.
    std::istringstream is3(os.str());
    Matrix<float> back;
    back.Read(is3, true);
    EXPECT_TRUE(back.Equal(Matrix<float>(cm)));
    std::ostringstream text;
    cm.Write(text, false);
    std::ostringstream plain;
    Matrix<float>(cm).Write(plain, false);
    EXPECT_EQ(text.str(), plain.str());
  }
}

TEST(Compressed, EmptyMatrixRoundTrips) {
  CompressedMatrix empty;
  std::ostringstream os;
  empty.Write(os, true);
  EXPECT_EQ(os.str().size(), 3u + 16u);  // "CM " + header without format
  std::istringstream is(os.str() + "next");
  CompressedMatrix back;
  back.Read(is, true);
  EXPECT_EQ(back.NumRows(), 0);
  std::string rest;
  is >> rest;
  EXPECT_EQ(rest, "next");
}

TEST(Compressed, TruncatedDataIsAnError) {
  CompressedMatrix cm(RandomMatrix(12, 5, 4));
  std::ostringstream os;
  cm.Write(os, true);
  std::string s = os.str();
  std::istringstream is(s.substr(0, s.size() - 3));
  CompressedMatrix back;
  EXPECT_THROW(back.Read(is, true), UserError);
  std::istringstream bad("CM4 xxxxxxxxxxxxxxxx");
  EXPECT_THROW(back.Read(bad, true), UserError);
}

TEST(Compressed, NonFiniteDataIsAnError) {
  Matrix<float> m = RandomMatrix(10, 2, 1);
  m(3, 1) = std::numeric_limits<float>::infinity();
  EXPECT_THROW(CompressedMatrix cm(m), UserError);
}

// Found by the egs fuzz target: a NaN in merged egs reached the float to
// integer conversion (undefined behaviour) for every method.
TEST(Compressed, NaNIsAnErrorForEveryMethod) {
  for (int method = 1; method <= 7; method++) {
    Matrix<float> m = RandomMatrix(10, 2, 1);
    m(4, 0) = std::numeric_limits<float>::quiet_NaN();
    EXPECT_THROW(CompressedMatrix cm(m, static_cast<CompressionMethod>(method)),
                 UserError)
        << "method " << method;
  }
}

// Found by the table fuzz target (a compressed matrix read through an scp
// range, recompressed): values near 1e30 that differ by a few float steps
// make the column percentiles round to the same float, so the byte codes
// came from 0/0 (a NaN converted to int: undefined behaviour). The codes
// are now clamped before the conversion; the values still come back within
// the matrix's range.
TEST(Compressed, PercentilesThatCollapseToOneFloatStayDefined) {
  const float base = 1e30f, step = std::nextafter(base, 2e30f) - base;
  Matrix<float> m(12, 3);
  for (int r = 0; r < m.NumRows(); r++)
    for (int c = 0; c < m.NumCols(); c++) m(r, c) = base + step * ((r + c) % 3);
  for (CompressionMethod method : {kSpeechFeature, kTwoByteAuto, kOneByteAuto}) {
    CompressedMatrix cm(m, method);
    Matrix<float> back(cm);
    for (int r = 0; r < m.NumRows(); r++)
      for (int c = 0; c < m.NumCols(); c++) {
        EXPECT_GE(back(r, c), m.Min()) << "method " << method;
        EXPECT_LE(back(r, c), m.Max()) << "method " << method;
      }
  }
}

TEST(Compressed, ScaleMultipliesValues) {
  Matrix<float> m = RandomMatrix(10, 3, 8);
  CompressedMatrix cm(m, kTwoByteAuto);
  Matrix<float> before(cm);
  cm.Scale(-2.0f);
  Matrix<float> after(cm);
  for (int r = 0; r < 10; r++)
    for (int c = 0; c < 3; c++)
      EXPECT_NEAR(after(r, c), -2.0f * before(r, c), 1e-4 * std::fabs(before(r, c)) + 1e-4);
}

}  // namespace
}  // namespace nnet3
