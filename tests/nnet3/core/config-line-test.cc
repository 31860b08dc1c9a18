// tests/nnet3/core/config-line-test.cc: splitting config lines into a first
// token and key=value pairs (values with spaces), typed values, errors.
#include <gtest/gtest.h>

#include <sstream>

#include "nnet3/core/config-line.h"

namespace nnet3 {
namespace {

TEST(ConfigLine, ValuesMayContainSpaces) {
  ConfigLine c;
  ASSERT_TRUE(c.ParseLine(
      "component-node name=a component=b input=Append(Offset(x, -1), x) foo='a b'"));
  EXPECT_EQ(c.FirstToken(), "component-node");
  std::string s;
  ASSERT_TRUE(c.GetValue("input", &s));
  EXPECT_EQ(s, "Append(Offset(x, -1), x)");
  ASSERT_TRUE(c.GetValue("foo", &s));
  EXPECT_EQ(s, "a b");
  EXPECT_TRUE(c.HasUnusedValues());
  EXPECT_EQ(c.UnusedValues(), "component=b name=a");
  c.GetValue("name", &s);
  c.GetValue("component", &s);
  EXPECT_FALSE(c.HasUnusedValues());
}

TEST(ConfigLine, TypedValues) {
  ConfigLine c;
  ASSERT_TRUE(c.ParseLine("x dim=12 scale=0.5 flag=true sizes=1:2:3 bad=abc"));
  int32 dim;
  BaseFloat scale;
  bool flag;
  std::vector<int32> sizes;
  ASSERT_TRUE(c.GetValue("dim", &dim));
  ASSERT_TRUE(c.GetValue("scale", &scale));
  ASSERT_TRUE(c.GetValue("flag", &flag));
  ASSERT_TRUE(c.GetValue("sizes", &sizes));
  EXPECT_EQ(dim, 12);
  EXPECT_EQ(scale, 0.5f);
  EXPECT_TRUE(flag);
  EXPECT_EQ(sizes, std::vector<int32>({1, 2, 3}));
  EXPECT_FALSE(c.GetValue("missing", &dim));
  EXPECT_THROW(c.GetValue("bad", &dim), UserError);
  EXPECT_THROW(c.GetValue("bad", &flag), UserError);
}

TEST(ConfigLine, NoFirstTokenAndErrors) {
  ConfigLine c;
  ASSERT_TRUE(c.ParseLine("a=1 b=2"));
  EXPECT_EQ(c.FirstToken(), "");
  std::string error;
  EXPECT_FALSE(c.ParseLine("node name", &error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(c.ParseLine("node 9x=1", &error));
  EXPECT_FALSE(c.ParseLine("node a='unclosed", &error));
  EXPECT_FALSE(c.ParseLine("node a=1 a=2", &error));
  EXPECT_FALSE(c.ParseLine("   ", &error));
}

TEST(ConfigLine, ReadConfigLinesDropsCommentsAndKeepsNumbers) {
  std::istringstream is("# header\n\ninput-node name=x dim=3  # trailing\n  \nfoo a=1\n");
  std::vector<std::pair<int32, std::string> > lines;
  ReadConfigLines(is, &lines);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].first, 3);
  EXPECT_EQ(lines[0].second, "input-node name=x dim=3");
  EXPECT_EQ(lines[1].first, 5);
}

TEST(ConfigLine, ValidNames) {
  EXPECT_TRUE(IsValidName("affine1_node"));
  EXPECT_TRUE(IsValidName("_x.y-z"));
  EXPECT_FALSE(IsValidName("1abc"));
  EXPECT_FALSE(IsValidName("a b"));
  EXPECT_FALSE(IsValidName(""));
}

}  // namespace
}  // namespace nnet3
