// tests/util/text-test.cc
#include "util/text.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace nnet3 {
namespace {

typedef std::vector<std::string> Strings;

TEST(TextTest, SplitStringToVectorKeepsOrDropsEmptyFields) {
  Strings out;
  SplitStringToVector("a,b,,c", ",", false, &out);
  EXPECT_EQ(out, (Strings{"a", "b", "", "c"}));
  SplitStringToVector("a,b,,c", ",", true, &out);
  EXPECT_EQ(out, (Strings{"a", "b", "c"}));
  SplitStringToVector("", ",", false, &out);
  EXPECT_EQ(out, (Strings{""}));
  SplitStringToVector("", ",", true, &out);
  EXPECT_TRUE(out.empty());
  SplitStringToVector("a,", ",", false, &out);
  EXPECT_EQ(out, (Strings{"a", ""}));
  SplitStringToVector(",a", ",", false, &out);
  EXPECT_EQ(out, (Strings{"", "a"}));
  SplitStringToVector(" a \tb  c ", " \t", true, &out);
  EXPECT_EQ(out, (Strings{"a", "b", "c"}));
  SplitStringToVector("ark, t", ", ", false, &out);
  EXPECT_EQ(out, (Strings{"ark", "", "t"}));
}

TEST(TextTest, JoinVectorToString) {
  std::string s;
  JoinVectorToString({"a", "", "b"}, ",", false, &s);
  EXPECT_EQ(s, "a,,b");
  JoinVectorToString({"a", "", "b"}, ", ", true, &s);
  EXPECT_EQ(s, "a, b");
  JoinVectorToString({}, ",", false, &s);
  EXPECT_EQ(s, "");
}

TEST(TextTest, Trim) {
  std::string s = " \t a b \r\n";
  Trim(&s);
  EXPECT_EQ(s, "a b");
  s = "   ";
  Trim(&s);
  EXPECT_EQ(s, "");
  s = "x";
  Trim(&s);
  EXPECT_EQ(s, "x");
}

TEST(TextTest, SplitStringOnFirstSpace) {
  std::string first, rest;
  SplitStringOnFirstSpace("  utt1   gunzip -c a.gz |  ", &first, &rest);
  EXPECT_EQ(first, "utt1");
  EXPECT_EQ(rest, "gunzip -c a.gz |");
  SplitStringOnFirstSpace("key", &first, &rest);
  EXPECT_EQ(first, "key");
  EXPECT_EQ(rest, "");
  SplitStringOnFirstSpace("", &first, &rest);
  EXPECT_EQ(first, "");
  EXPECT_EQ(rest, "");
}

TEST(TextTest, ConvertStringToInteger) {
  int32 i = 99;
  EXPECT_TRUE(ConvertStringToInteger("12", &i));
  EXPECT_EQ(i, 12);
  EXPECT_TRUE(ConvertStringToInteger(" -5 ", &i));
  EXPECT_EQ(i, -5);
  i = 99;
  EXPECT_FALSE(ConvertStringToInteger("12a", &i));
  EXPECT_FALSE(ConvertStringToInteger("", &i));
  EXPECT_FALSE(ConvertStringToInteger("1.5", &i));
  EXPECT_FALSE(ConvertStringToInteger("3000000000", &i));
  EXPECT_EQ(i, 99);  // Untouched on failure.
  uint32 u = 0;
  EXPECT_FALSE(ConvertStringToInteger("-1", &u));
  EXPECT_TRUE(ConvertStringToInteger("4000000000", &u));
  EXPECT_EQ(u, 4000000000u);
  int8 c = 0;
  EXPECT_FALSE(ConvertStringToInteger("200", &c));
  EXPECT_TRUE(ConvertStringToInteger("-128", &c));
  EXPECT_EQ(c, -128);
  int64 l;
  EXPECT_TRUE(ConvertStringToInteger("-9000000000", &l));
  EXPECT_EQ(l, -9000000000LL);
  EXPECT_FALSE(ConvertStringToInteger("99999999999999999999", &l));
}

TEST(TextTest, ConvertStringToReal) {
  double d = 0;
  float f = 0;
  EXPECT_TRUE(ConvertStringToReal("1.5", &d));
  EXPECT_EQ(d, 1.5);
  EXPECT_TRUE(ConvertStringToReal(" -2e3 ", &d));
  EXPECT_EQ(d, -2000.0);
  EXPECT_TRUE(ConvertStringToReal("0.1", &f));
  EXPECT_EQ(f, 0.1f);
  EXPECT_TRUE(ConvertStringToReal("inf", &d));
  EXPECT_TRUE(std::isinf(d) && d > 0);
  EXPECT_TRUE(ConvertStringToReal("-Inf", &f));
  EXPECT_TRUE(std::isinf(f) && f < 0);
  EXPECT_TRUE(ConvertStringToReal("INFINITY", &d));
  EXPECT_TRUE(std::isinf(d));
  EXPECT_TRUE(ConvertStringToReal("nan", &d));
  EXPECT_TRUE(std::isnan(d));
  EXPECT_TRUE(ConvertStringToReal("-NaN", &f));
  EXPECT_TRUE(std::isnan(f));
  d = 7;
  EXPECT_FALSE(ConvertStringToReal("", &d));
  EXPECT_FALSE(ConvertStringToReal("abc", &d));
  EXPECT_FALSE(ConvertStringToReal("1.5x", &d));
  EXPECT_FALSE(ConvertStringToReal("0x10", &d));
  EXPECT_FALSE(ConvertStringToReal("1e500", &d));
  EXPECT_FALSE(ConvertStringToReal("1e39", &f));
  EXPECT_FALSE(ConvertStringToReal("1 2", &d));
  EXPECT_EQ(d, 7);
}

TEST(TextTest, SplitStringToIntegers) {
  std::vector<int32> v;
  EXPECT_TRUE(SplitStringToIntegers("1:2:-3", ":", false, &v));
  EXPECT_EQ(v, (std::vector<int32>{1, 2, -3}));
  EXPECT_FALSE(SplitStringToIntegers("1::2", ":", false, &v));
  EXPECT_TRUE(v.empty());
  EXPECT_TRUE(SplitStringToIntegers("1::2", ":", true, &v));
  EXPECT_EQ(v, (std::vector<int32>{1, 2}));
  EXPECT_TRUE(SplitStringToIntegers("", ":", false, &v));
  EXPECT_TRUE(v.empty());
  EXPECT_FALSE(SplitStringToIntegers("1:a", ":", false, &v));
  EXPECT_FALSE(SplitStringToIntegers("1:99999999999", ":", false, &v));
  EXPECT_FALSE(SplitStringToIntegers("1 ,2", ",", false, &v));
  std::vector<uint8> b;
  EXPECT_FALSE(SplitStringToIntegers("1,256", ",", false, &b));
}

TEST(TextTest, SplitStringToFloats) {
  std::vector<float> v;
  EXPECT_TRUE(SplitStringToFloats("0.5,1e1,-2", ",", false, &v));
  EXPECT_EQ(v, (std::vector<float>{0.5f, 10.0f, -2.0f}));
  EXPECT_FALSE(SplitStringToFloats("0.5,,1", ",", false, &v));
  EXPECT_TRUE(v.empty());
}

TEST(TextTest, IsToken) {
  EXPECT_TRUE(IsToken("abc"));
  EXPECT_TRUE(IsToken("<Nnet3>"));
  EXPECT_TRUE(IsToken("caf\xc3\xa9"));  // UTF-8 is fine.
  EXPECT_FALSE(IsToken(""));
  EXPECT_FALSE(IsToken("a b"));
  EXPECT_FALSE(IsToken("a\tb"));
  EXPECT_FALSE(IsToken("a\n"));
  EXPECT_FALSE(IsToken("a\x01"));
  EXPECT_FALSE(IsToken("a\xff"));
}

TEST(TextTest, IsLine) {
  EXPECT_TRUE(IsLine("abc def"));
  EXPECT_TRUE(IsLine(""));
  EXPECT_FALSE(IsLine(" abc"));
  EXPECT_FALSE(IsLine("abc "));
  EXPECT_FALSE(IsLine("a\nb"));
  EXPECT_FALSE(IsLine("a\x01z"));
}

}  // namespace
}  // namespace nnet3
