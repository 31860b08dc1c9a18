// tests/base/io-test.cc: Kaldi's binary/text primitives, checked against
// hand-written bytes.
#include <gtest/gtest.h>

#include <sstream>

#include "base/io.h"

namespace nnet3 {
namespace {

std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int c : b) s += static_cast<char>(c);
  return s;
}

TEST(Io, BinaryHeader) {
  std::ostringstream os;
  InitKaldiOutputStream(os, true);
  EXPECT_EQ(os.str(), std::string("\0B", 2));
  std::istringstream is(std::string("\0Bxyz", 5));
  bool binary = false;
  ASSERT_TRUE(InitKaldiInputStream(is, &binary));
  EXPECT_TRUE(binary);
  EXPECT_EQ(is.get(), 'x');
  std::istringstream is2(" [ 1 ]");
  ASSERT_TRUE(InitKaldiInputStream(is2, &binary));
  EXPECT_FALSE(binary);
  std::istringstream is3(std::string("\0X", 2));
  EXPECT_FALSE(InitKaldiInputStream(is3, &binary));
}

TEST(Io, IntegersBinaryHaveSignedSizeByte) {
  std::ostringstream os;
  WriteBasicType<int32>(os, true, 37);
  WriteBasicType<uint16>(os, true, 258);
  WriteBasicType<int64>(os, true, -1);
  std::string expected = Bytes({4, 37, 0, 0, 0}) + Bytes({-2, 2, 1}) +
                         Bytes({8, 255, 255, 255, 255, 255, 255, 255, 255});
  EXPECT_EQ(os.str(), expected);
  std::istringstream is(os.str());
  int32 a;
  uint16 b;
  int64 c;
  ReadBasicType(is, true, &a);
  ReadBasicType(is, true, &b);
  ReadBasicType(is, true, &c);
  EXPECT_EQ(a, 37);
  EXPECT_EQ(b, 258);
  EXPECT_EQ(c, -1);
}

TEST(Io, IntegerWrongSizeOrTruncatedIsAnError) {
  std::istringstream is(Bytes({8, 1, 0, 0, 0, 0, 0, 0, 0}));
  int32 a;
  EXPECT_THROW(ReadBasicType(is, true, &a), UserError);
  std::istringstream is2(Bytes({4, 1, 0}));
  EXPECT_THROW(ReadBasicType(is2, true, &a), UserError);
}

TEST(Io, IntegersText) {
  std::ostringstream os;
  WriteBasicType<int32>(os, false, -5);
  WriteBasicType<int8>(os, false, 7);
  EXPECT_EQ(os.str(), "-5 7 ");
  std::istringstream is("  -5\n7 300");
  int32 a;
  int8 b, c;
  ReadBasicType(is, false, &a);
  ReadBasicType(is, false, &b);
  EXPECT_EQ(a, -5);
  EXPECT_EQ(b, 7);
  EXPECT_THROW(ReadBasicType(is, false, &c), UserError);  // 300 > int8 max
}

TEST(Io, FloatsReadEitherPrecision) {
  std::ostringstream os;
  WriteBasicType(os, true, 0.5f);
  WriteBasicType(os, true, 0.25);
  std::string s = os.str();
  ASSERT_EQ(s.size(), 1u + 4 + 1 + 8);
  EXPECT_EQ(s[0], 4);
  EXPECT_EQ(s[5], 8);
  std::istringstream is(s);
  double d;
  float f;
  ReadBasicType(is, true, &d);
  ReadBasicType(is, true, &f);
  EXPECT_EQ(d, 0.5);
  EXPECT_EQ(f, 0.25f);
}

TEST(Io, FloatText) {
  std::ostringstream os;
  InitKaldiOutputStream(os, false);
  WriteBasicType(os, false, 3.14159265f);
  EXPECT_EQ(os.str(), "3.141593 ");
}

TEST(Io, Bools) {
  std::ostringstream os;
  WriteBasicType(os, true, true);
  WriteBasicType(os, false, false);
  EXPECT_EQ(os.str(), "TF ");
  std::istringstream is("TF x");
  bool a, b, c;
  ReadBasicType(is, true, &a);
  ReadBasicType(is, false, &b);
  EXPECT_TRUE(a);
  EXPECT_FALSE(b);
  EXPECT_THROW(ReadBasicType(is, false, &c), UserError);
}

TEST(Io, Tokens) {
  std::ostringstream os;
  WriteToken(os, true, "<Nnet3>");
  WriteToken(os, false, "FM");
  EXPECT_EQ(os.str(), "<Nnet3> FM ");
  std::istringstream is("<Nnet3> FM <Dim>");
  std::string t;
  ReadToken(is, true, &t);
  EXPECT_EQ(t, "<Nnet3>");
  EXPECT_EQ(PeekToken(is, false), -1);  // next is 'F', not '<'
  ExpectToken(is, false, "FM");
  EXPECT_EQ(PeekToken(is, false), 'D');
  try {
    ExpectToken(is, false, "<Foo>");
    FAIL();
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("<Foo>"), std::string::npos);
  }
  std::istringstream no_space("FM");
  EXPECT_THROW(ReadToken(no_space, true, &t), UserError);
  // Found by the egs fuzz target: a NnetIo name with a NUL byte was read,
  // and writing it back failed an assertion.
  std::istringstream nul(std::string("in\0put ", 7));
  try {
    ReadToken(nul, true, &t);
    FAIL();
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("contains a NUL byte"), std::string::npos);
  }
}

TEST(Io, ReadTokenIf) {
  std::istringstream is("<A> <B> ");
  EXPECT_FALSE(ReadTokenIf(is, false, "<B>"));
  EXPECT_TRUE(ReadTokenIf(is, false, "<A>"));
  EXPECT_TRUE(ReadTokenIf(is, false, "<B>"));
}

TEST(Io, IntegerVectors) {
  std::vector<int32> v = {1, -2, 300};
  std::ostringstream os;
  WriteIntegerVector(os, true, v);
  EXPECT_EQ(os.str(), Bytes({4, 3, 0, 0, 0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff,
                             0x2c, 1, 0, 0}));
  std::ostringstream ot;
  WriteIntegerVector(ot, false, v);
  EXPECT_EQ(ot.str(), "[ 1 -2 300 ]\n");
  std::vector<int32> r;
  std::istringstream is(os.str());
  ReadIntegerVector(is, true, &r);
  EXPECT_EQ(r, v);
  std::istringstream it(ot.str());
  ReadIntegerVector(it, false, &r);
  EXPECT_EQ(r, v);
  std::istringstream bad("[ 1 x ]");
  EXPECT_THROW(ReadIntegerVector(bad, false, &r), UserError);
  std::vector<std::pair<int32, int32> > p = {{1, 2}, {3, 4}}, pr;
  std::ostringstream op;
  WriteIntegerPairVector(op, false, p);
  EXPECT_EQ(op.str(), "[ 1,2 3,4 ]\n");
  std::istringstream ip(op.str());
  ReadIntegerPairVector(ip, false, &pr);
  EXPECT_EQ(pr, p);
}

}  // namespace
}  // namespace nnet3
