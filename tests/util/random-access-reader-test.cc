// tests/util/random-access-reader-test.cc
#include "util/random-access-reader.h"

#include <gtest/gtest.h>

#include "util-test-util.h"
#include "util/holders.h"

namespace nnet3 {
namespace {

using test::Int32Bytes;
typedef RandomAccessTableReader<BasicVectorHolder<int32> > VecReader;
typedef std::vector<int32> V;

const std::string kB("\0B", 2);

std::string VecEntry(const std::string &key, const V &v) {
  std::string s = key + " " + kB + Int32Bytes(static_cast<int32>(v.size()));
  for (int32 x : v) s += Int32Bytes(x);
  return s;
}

TEST(RandomAccessReaderTest, UnsortedArchive) {
  test::TempDir dir;
  std::string ark = dir.File("u.ark");
  test::WriteFileBytes(ark, VecEntry("c", {3}) + VecEntry("a", {1}) +
                                VecEntry("b", {2, 2}));
  VecReader reader("ark:" + ark);
  EXPECT_TRUE(reader.HasKey("b"));
  EXPECT_EQ(reader.Value("a"), V{1});
  EXPECT_EQ(reader.Value("c"), V{3});
  EXPECT_EQ(reader.Value("b"), (V{2, 2}));
  EXPECT_FALSE(reader.HasKey("zz"));
  EXPECT_EQ(reader.Value("a"), V{1});  // Still there.
  std::string err = test::UserErrorOf([&] { reader.Value("zz"); });
  EXPECT_NE(err.find("Value() called for key zz, which is not in archive " +
                     ark),
            std::string::npos) << err;
  err = test::UserErrorOf([&] { reader.HasKey("a b"); });
  EXPECT_NE(err.find("Invalid key 'a b'"), std::string::npos) << err;
}

TEST(RandomAccessReaderTest, SortedArchiveStopsEarly) {
  test::TempDir dir;
  std::string ark = dir.File("s.ark");
  // Sorted, with a truncated entry after "e".
  test::WriteFileBytes(ark, VecEntry("a", {1}) + VecEntry("b", {2}) +
                                VecEntry("e", {5}) + "f " + kB + "\x04");
  {
    VecReader reader("ark,s:" + ark);
    EXPECT_FALSE(reader.HasKey("d"));  // Stops at "e": never sees "f".
    EXPECT_TRUE(reader.HasKey("a"));   // Kept in memory.
    EXPECT_EQ(reader.Value("e"), V{5});
    EXPECT_FALSE(reader.HasKey("c"));
  }
  {
    // Unsorted, the same question reads on and finds the truncation.
    VecReader reader("ark:" + ark);
    std::string err = test::UserErrorOf([&] { reader.HasKey("d"); });
    EXPECT_NE(err.find("Failed to read object for key f from archive " + ark),
              std::string::npos) << err;
  }
  {
    // Permissive: the truncation ends the archive with a warning.
    test::LogCapture log;
    VecReader reader("ark,p:" + ark);
    EXPECT_FALSE(reader.HasKey("d"));
    EXPECT_TRUE(reader.HasKey("e"));
    EXPECT_TRUE(log.Contains("key f"));
  }
}

TEST(RandomAccessReaderTest, SortedChecks) {
  test::TempDir dir;
  std::string ark = dir.File("x.ark");
  test::WriteFileBytes(ark, VecEntry("a", {1}) + VecEntry("c", {3}) +
                                VecEntry("b", {2}));
  VecReader reader("ark,s:" + ark);
  EXPECT_FALSE(reader.HasKey("b"));  // Stops at "c", before the disorder.
  std::string err = test::UserErrorOf([&] { reader.HasKey("d"); });
  EXPECT_NE(err.find("not sorted (key b after c)"), std::string::npos) << err;

  test::WriteFileBytes(ark, VecEntry("a", {1}) + VecEntry("b", {2}) +
                                VecEntry("c", {3}));
  VecReader cs("ark,s,cs:" + ark);
  EXPECT_EQ(cs.Value("b"), V{2});
  EXPECT_TRUE(cs.HasKey("b"));
  EXPECT_EQ(cs.Value("c"), V{3});
  err = test::UserErrorOf([&] { cs.HasKey("a"); });
  EXPECT_NE(err.find("cs"), std::string::npos) << err;

  test::WriteFileBytes(ark, VecEntry("a", {1}) + VecEntry("a", {2}));
  VecReader dup("ark:" + ark);
  err = test::UserErrorOf([&] { dup.HasKey("b"); });
  EXPECT_NE(err.find("Duplicate key a in archive " + ark), std::string::npos)
      << err;
}

TEST(RandomAccessReaderTest, OnceFreesObjects) {
  test::TempDir dir;
  std::string ark = dir.File("o.ark");
  test::WriteFileBytes(ark, VecEntry("a", {1}) + VecEntry("b", {2}));
  VecReader reader("ark,o:" + ark);
  EXPECT_TRUE(reader.HasKey("a"));
  EXPECT_EQ(reader.Value("a"), V{1});
  EXPECT_EQ(reader.Value("b"), V{2});
  EXPECT_FALSE(reader.HasKey("a"));  // Freed once "b" was asked for.
}

TEST(RandomAccessReaderTest, TextArchiveThroughPipe) {
  test::TempDir dir;
  std::string ark = dir.File("t.ark");
  test::WriteFileBytes(ark, "b 2 3\na 1\n");
  VecReader reader("ark:cat " + ark + " |");
  EXPECT_EQ(reader.Value("a"), V{1});
  EXPECT_EQ(reader.Value("b"), (V{2, 3}));
}

TEST(RandomAccessReaderTest, Scripts) {
  test::TempDir dir;
  std::string ark = dir.File("data.ark");
  std::string e1 = VecEntry("a01", {76, 147}), e2 = VecEntry("a02", {});
  test::WriteFileBytes(ark, e1 + e2);
  test::WriteFileBytes(dir.File("a03.vec"), kB + Int32Bytes(1) + Int32Bytes(9));
  std::string scp = dir.File("a.scp");
  test::WriteFileBytes(scp, "a03 " + dir.File("a03.vec") + "\n" +
                                "a02 " + ark + ":" +
                                std::to_string(e1.size() + 4) + "\n" +
                                "a01 " + ark + ":4\n" +
                                "m2 does_not_exist.ark:17\n");
  VecReader reader("scp:" + scp);
  EXPECT_EQ(reader.Value("a01"), (V{76, 147}));
  EXPECT_EQ(reader.Value("a03"), V{9});
  EXPECT_EQ(reader.Value("a02"), V{});
  EXPECT_EQ(reader.Value("a01"), (V{76, 147}));
  EXPECT_FALSE(reader.HasKey("a04"));
  EXPECT_TRUE(reader.HasKey("m2"));  // Only the script is consulted.
  std::string err = test::UserErrorOf([&] { reader.Value("m2"); });
  EXPECT_NE(err.find("Failed to load object from does_not_exist.ark:17 for "
                     "key m2 (to suppress this error, add the permissive "
                     "(p, ) option to the rspecifier)"),
            std::string::npos) << err;
  err = test::UserErrorOf([&] { reader.Value("a04"); });
  EXPECT_NE(err.find("key a04, which is not in script file " + scp),
            std::string::npos) << err;

  test::LogCapture log;
  VecReader permissive("scp,p:" + scp);
  EXPECT_FALSE(permissive.HasKey("m2"));
  EXPECT_TRUE(log.Contains("m2"));
  EXPECT_TRUE(permissive.HasKey("a02"));
  EXPECT_EQ(permissive.Value("a02"), V{});

  err = test::UserErrorOf([&] { VecReader r("scp,s:" + scp); });
  EXPECT_NE(err.find("not sorted"), std::string::npos) << err;
  EXPECT_NE(err.find("scp,s:" + scp), std::string::npos) << err;

  test::WriteFileBytes(scp, "a x\nb y\na z\n");
  err = test::UserErrorOf([&] { VecReader r("scp:" + scp); });
  EXPECT_NE(err.find("Duplicate key a in script file " + scp),
            std::string::npos) << err;
}

TEST(RandomAccessReaderTest, Mapped) {
  test::TempDir dir;
  std::string ark = dir.File("spk.ark"), map = dir.File("utt2spk");
  test::WriteFileBytes(ark, VecEntry("spk1", {1}) + VecEntry("spk2", {2}));
  test::WriteFileBytes(map, "u1 spk1\nu2 spk2\nu3 spk1\n");
  RandomAccessTableReaderMapped<BasicVectorHolder<int32> > reader(
      "ark:" + ark, "ark:" + map);
  EXPECT_EQ(reader.Value("u3"), V{1});
  EXPECT_EQ(reader.Value("u2"), V{2});
  EXPECT_TRUE(reader.HasKey("u1"));
  std::string err = test::UserErrorOf([&] { reader.Value("u9"); });
  EXPECT_NE(err.find("Key u9 is not in the map read from 'ark:" + map + "'"),
            std::string::npos) << err;
  RandomAccessTableReaderMapped<BasicVectorHolder<int32> > plain("ark:" + ark,
                                                                 "");
  EXPECT_EQ(plain.Value("spk2"), V{2});
  EXPECT_FALSE(plain.HasKey("u1"));
}

TEST(RandomAccessReaderTest, BadRspecifier) {
  std::string err = test::UserErrorOf([] { VecReader r("a.ark"); });
  EXPECT_NE(err.find("Invalid rspecifier 'a.ark'"), std::string::npos);
  VecReader unopened("");
  EXPECT_FALSE(unopened.IsOpen());
}

}  // namespace
}  // namespace nnet3
