// tests/matrix/ranges-test.cc: script-file range specifiers ("[r1:r2,c1:c2]").
#include <gtest/gtest.h>

#include "matrix/table-types.h"

namespace nnet3 {
namespace {

struct R { int r0, r1, c0, c1; };

R Parse(const std::string &s, int rows, int cols) {
  R r;
  ParseMatrixRangeSpecifier(s, rows, cols, &r.r0, &r.r1, &r.c0, &r.c1);
  return r;
}

TEST(Ranges, Forms) {
  R a = Parse("2:5", 10, 4);
  EXPECT_EQ(a.r0, 2); EXPECT_EQ(a.r1, 5); EXPECT_EQ(a.c0, 0); EXPECT_EQ(a.c1, 3);
  R b = Parse("1:3,0:2", 10, 4);
  EXPECT_EQ(b.r0, 1); EXPECT_EQ(b.r1, 3); EXPECT_EQ(b.c0, 0); EXPECT_EQ(b.c1, 2);
  R c = Parse(":,3:3", 10, 4);
  EXPECT_EQ(c.r0, 0); EXPECT_EQ(c.r1, 9); EXPECT_EQ(c.c0, 3); EXPECT_EQ(c.c1, 3);
  R d = Parse("0:0", 10, 4);
  EXPECT_EQ(d.r0, 0); EXPECT_EQ(d.r1, 0);
}

// Kaldi's tolerance: the end index may be up to rows + 2 (three frames of
// feature-length rounding); the range is clipped to the matrix.
TEST(Ranges, RowsMayRunPastTheEndWithinKaldisToleranceAndAreClipped) {
  R a = Parse("5:11", 10, 4);
  EXPECT_EQ(a.r1, 9);
  R b = Parse("5:12", 10, 4);
  EXPECT_EQ(b.r1, 9);
  EXPECT_THROW(Parse("5:13", 10, 4), UserError);
  EXPECT_THROW(Parse("11:12", 10, 4), UserError);  // nothing left after clipping
}

TEST(Ranges, BadRangesNameRangeAndSize) {
  for (const char *s : {"0:200", "3:2", "-1:2", "1:2,0:4", "1", "a:b", "1:2,", ""}) {
    try {
      Parse(s, 37, 4);
      FAIL() << "accepted " << s;
    } catch (const UserError &e) {
      EXPECT_NE(e.message().find("37x4"), std::string::npos) << e.message();
    }
  }
}

TEST(Ranges, ExtractFromMatrixVectorAndCompressed) {
  Matrix<float> m(6, 5);
  for (int r = 0; r < 6; r++)
    for (int c = 0; c < 5; c++) m(r, c) = 10 * r + c;
  Matrix<float> out;
  ASSERT_TRUE(ExtractObjectRange(m, "1:2,3:4", &out));
  ASSERT_EQ(out.NumRows(), 2);
  ASSERT_EQ(out.NumCols(), 2);
  EXPECT_EQ(out(0, 0), 13);
  EXPECT_EQ(out(1, 1), 24);
  Vector<float> v(5), vo;
  for (int i = 0; i < 5; i++) v(i) = i;
  ASSERT_TRUE(ExtractObjectRange(v, "2:4", &vo));
  ASSERT_EQ(vo.Dim(), 3);
  EXPECT_EQ(vo(0), 2);
  EXPECT_THROW(ExtractObjectRange(v, "2:5", &vo), UserError);
  CompressedMatrix cm(m, kTwoByteAuto), co;
  ASSERT_TRUE(ExtractObjectRange(cm, "3:5,0:1", &co));
  Matrix<float> full(cm), part(co);
  ASSERT_EQ(part.NumRows(), 3);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 2; c++) EXPECT_NEAR(part(r, c), full(3 + r, c), 1e-3);
}

}  // namespace
}  // namespace nnet3
