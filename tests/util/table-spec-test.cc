// tests/util/table-spec-test.cc
#include "util/table-spec.h"

#include <sstream>

#include <gtest/gtest.h>

#include "util-test-util.h"

namespace nnet3 {
namespace {

struct RCase {
  std::string spec;
  RspecifierType type;
  std::string rxfilename;
  bool once, sorted, called_sorted, permissive, background;
};

TEST(TableSpecTest, ClassifyRspecifier) {
  const std::vector<RCase> cases = {
      {"ark:foo", kArchiveRspecifier, "foo", 0, 0, 0, 0, 0},
      {"scp:foo.scp", kScriptRspecifier, "foo.scp", 0, 0, 0, 0, 0},
      {"ark,s,cs:-", kArchiveRspecifier, "-", 0, 1, 1, 0, 0},
      {"ark,o,p:x", kArchiveRspecifier, "x", 1, 0, 0, 1, 0},
      {"b,ark:x", kArchiveRspecifier, "x", 0, 0, 0, 0, 0},
      {"t,scp:x", kScriptRspecifier, "x", 0, 0, 0, 0, 0},
      {"ark,bg:x", kArchiveRspecifier, "x", 0, 0, 0, 0, 1},
      {"scp,p,o,no,np,s,ns,cs,ncs:x", kScriptRspecifier, "x", 0, 0, 0, 0, 0},
      {"ark:", kArchiveRspecifier, "", 0, 0, 0, 0, 0},
      {"ark:gunzip -c a.gz|", kArchiveRspecifier, "gunzip -c a.gz|", 0, 0, 0,
       0, 0},
      {"ark:a:b", kArchiveRspecifier, "a:b", 0, 0, 0, 0, 0},
      {"foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"ark:foo ", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"ark, s:foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"ark,,s:foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"ark,scp:foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"scp,ark:foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"ark,ark:foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"ark,x:foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"s:foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
      {"ark,f:foo", kNoRspecifier, "", 0, 0, 0, 0, 0},
  };
  for (const RCase &c : cases) {
    std::string rx = "junk";
    RspecifierOptions o;
    EXPECT_EQ(ClassifyRspecifier(c.spec, &rx, &o), c.type) << c.spec;
    EXPECT_EQ(rx, c.rxfilename) << c.spec;
    if (c.type == kNoRspecifier) continue;
    EXPECT_EQ(o.once, c.once) << c.spec;
    EXPECT_EQ(o.sorted, c.sorted) << c.spec;
    EXPECT_EQ(o.called_sorted, c.called_sorted) << c.spec;
    EXPECT_EQ(o.permissive, c.permissive) << c.spec;
    EXPECT_EQ(o.background, c.background) << c.spec;
    EXPECT_EQ(ClassifyRspecifier(c.spec, nullptr, nullptr), c.type);
  }
}

struct WCase {
  std::string spec;
  WspecifierType type;
  std::string archive, script;
  bool binary, flush, permissive;
};

TEST(TableSpecTest, ClassifyWspecifier) {
  const std::vector<WCase> cases = {
      {"ark:foo", kArchiveWspecifier, "foo", "", 1, 0, 0},
      {"ark,t:foo", kArchiveWspecifier, "foo", "", 0, 0, 0},
      {"t,ark:foo", kArchiveWspecifier, "foo", "", 0, 0, 0},
      {"ark,b,f:foo", kArchiveWspecifier, "foo", "", 1, 1, 0},
      {"ark,f,nf:foo", kArchiveWspecifier, "foo", "", 1, 0, 0},
      {"ark,t,b:foo", kArchiveWspecifier, "foo", "", 1, 0, 0},
      {"scp:foo.scp", kScriptWspecifier, "", "foo.scp", 1, 0, 0},
      {"scp,p:foo.scp", kScriptWspecifier, "", "foo.scp", 1, 0, 1},
      {"ark,scp:a.ark,a.scp", kBothWspecifier, "a.ark", "a.scp", 1, 0, 0},
      {"ark,scp,t:a,b", kBothWspecifier, "a", "b", 0, 0, 0},
      {"ark,scp:a,b,c", kBothWspecifier, "a", "b,c", 1, 0, 0},
      {"ark:| gzip -c > a.gz", kArchiveWspecifier, "| gzip -c > a.gz", "", 1,
       0, 0},
      {"ark:-", kArchiveWspecifier, "-", "", 1, 0, 0},
      {"ark,scp:a", kNoWspecifier, "", "", 1, 0, 0},
      {"scp,ark:a,b", kNoWspecifier, "", "", 1, 0, 0},
      {"ark,scp,scp:a,b", kNoWspecifier, "", "", 1, 0, 0},
      {"ark,ark:a", kNoWspecifier, "", "", 1, 0, 0},
      {"foo", kNoWspecifier, "", "", 1, 0, 0},
      {"ark:foo ", kNoWspecifier, "", "", 1, 0, 0},
      {"ark, t:foo", kNoWspecifier, "", "", 1, 0, 0},
      {"ark,s:foo", kNoWspecifier, "", "", 1, 0, 0},
      {"t:foo", kNoWspecifier, "", "", 1, 0, 0},
  };
  for (const WCase &c : cases) {
    std::string a = "junk", s = "junk";
    WspecifierOptions o;
    EXPECT_EQ(ClassifyWspecifier(c.spec, &a, &s, &o), c.type) << c.spec;
    EXPECT_EQ(a, c.archive) << c.spec;
    EXPECT_EQ(s, c.script) << c.spec;
    if (c.type == kNoWspecifier) continue;
    EXPECT_EQ(o.binary, c.binary) << c.spec;
    EXPECT_EQ(o.flush, c.flush) << c.spec;
    EXPECT_EQ(o.permissive, c.permissive) << c.spec;
    EXPECT_EQ(ClassifyWspecifier(c.spec, nullptr, nullptr, nullptr), c.type);
  }
}

TEST(TableSpecTest, ParseScriptLine) {
  ScriptEntry e;
  ASSERT_TRUE(ParseScriptLine("utt1 foo.ark:12", &e));
  EXPECT_EQ(e.key, "utt1");
  EXPECT_EQ(e.rxfilename, "foo.ark:12");
  EXPECT_EQ(e.range, "");
  ASSERT_TRUE(ParseScriptLine("  utt2 \t gunzip -c x.gz |  \r", &e));
  EXPECT_EQ(e.key, "utt2");
  EXPECT_EQ(e.rxfilename, "gunzip -c x.gz |");
  ASSERT_TRUE(ParseScriptLine("u foo.ark:12[2:5]", &e));
  EXPECT_EQ(e.rxfilename, "foo.ark:12");
  EXPECT_EQ(e.range, "2:5");
  ASSERT_TRUE(ParseScriptLine("u foo[1:3,0:4]", &e));
  EXPECT_EQ(e.rxfilename, "foo");
  EXPECT_EQ(e.range, "1:3,0:4");
  ASSERT_TRUE(ParseScriptLine("u foo.ark:7[:,3:7]", &e));
  EXPECT_EQ(e.range, ":,3:7");
  EXPECT_FALSE(ParseScriptLine("u foo[]", &e));
  EXPECT_FALSE(ParseScriptLine("u [1:2]", &e));
  EXPECT_FALSE(ParseScriptLine("u foo[1][2]", &e));
  EXPECT_FALSE(ParseScriptLine("utt1", &e));
  EXPECT_FALSE(ParseScriptLine("", &e));
  EXPECT_FALSE(ParseScriptLine("   ", &e));
}

TEST(TableSpecTest, ReadScriptFile) {
  test::TempDir dir;
  std::string scp = dir.File("a.scp");
  test::WriteFileBytes(scp, "a x.ark:1\nb  y z |\nc w[0:1]\n");
  std::vector<ScriptEntry> entries;
  ReadScriptFile(scp, &entries);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].key, "b");
  EXPECT_EQ(entries[1].rxfilename, "y z |");
  EXPECT_EQ(entries[2].range, "0:1");
  test::WriteFileBytes(scp, "a x.ark:1\n\nc w\n");
  std::string err = test::UserErrorOf([&] { ReadScriptFile(scp, &entries); });
  EXPECT_NE(err.find("Invalid line 2 in script file " + scp),
            std::string::npos) << err;
  err = test::UserErrorOf(
      [&] { ReadScriptFile(dir.File("none.scp"), &entries); });
  EXPECT_NE(err.find(dir.File("none.scp")), std::string::npos) << err;
}

TEST(TableSpecTest, ReadArchiveKey) {
  std::string key;
  {
    std::istringstream is("a01 x");
    EXPECT_TRUE(internal::ReadArchiveKey(is, "f.ark", &key));
    EXPECT_EQ(key, "a01");
    EXPECT_EQ(is.peek(), 'x');
  }
  {
    std::istringstream is("\n\n  a01\tx");
    EXPECT_TRUE(internal::ReadArchiveKey(is, "f.ark", &key));
    EXPECT_EQ(key, "a01");
    EXPECT_EQ(is.peek(), 'x');
  }
  {
    std::istringstream is("a01\n[ 1 ]");  // The newline stays.
    EXPECT_TRUE(internal::ReadArchiveKey(is, "f.ark", &key));
    EXPECT_EQ(is.peek(), '\n');
  }
  {
    std::istringstream is(" \n\t ");
    EXPECT_FALSE(internal::ReadArchiveKey(is, "f.ark", &key));
  }
  {
    std::istringstream is("");
    EXPECT_FALSE(internal::ReadArchiveKey(is, "f.ark", &key));
  }
  {
    std::istringstream is("x 1\na03");
    std::string err = test::UserErrorOf([&] {
      is.ignore(4);
      internal::ReadArchiveKey(is, "f.ark", &key);
    });
    EXPECT_NE(err.find("a03"), std::string::npos) << err;
    EXPECT_NE(err.find("f.ark"), std::string::npos) << err;
    EXPECT_NE(err.find("end of the file"), std::string::npos) << err;
  }
  {
    std::istringstream is("a01\r\n");
    std::string err = test::UserErrorOf(
        [&] { internal::ReadArchiveKey(is, "f.ark", &key); });
    EXPECT_NE(err.find("expected a space after key a01"), std::string::npos)
        << err;
  }
}

}  // namespace
}  // namespace nnet3
