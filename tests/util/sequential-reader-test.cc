// tests/util/sequential-reader-test.cc
#include "util/sequential-reader.h"

#include <gtest/gtest.h>

#include "util-test-util.h"
#include "util/holders.h"
#include "util/posterior.h"
#include "util/text.h"

namespace nnet3 {
namespace {

using test::Int32Bytes;
typedef SequentialTableReader<BasicVectorHolder<int32> > VecReader;
typedef std::vector<int32> V;

const std::string kB("\0B", 2);

// Binary archive entries, written out by hand.
std::string VecEntry(const std::string &key, const V &v) {
  std::string s = key + " " + kB + Int32Bytes(static_cast<int32>(v.size()));
  for (int32 x : v) s += Int32Bytes(x);
  return s;
}

std::vector<std::pair<std::string, V> > ReadAll(const std::string &rspec) {
  std::vector<std::pair<std::string, V> > out;
  VecReader reader(rspec);
  for (; !reader.Done(); reader.Next())
    out.emplace_back(reader.Key(), reader.Value());
  EXPECT_TRUE(reader.Close());
  return out;
}

const std::vector<std::pair<std::string, V> > kExpected = {
    {"a01", {76, 147}}, {"a02", {}}, {"a03", {1}}};

TEST(SequentialReaderTest, BinaryAndTextArchives) {
  test::TempDir dir;
  std::string bin = dir.File("b.ark"), txt = dir.File("t.ark");
  test::WriteFileBytes(bin, VecEntry("a01", {76, 147}) + VecEntry("a02", {}) +
                                VecEntry("a03", {1}) + "\n");
  test::WriteFileBytes(txt, "a01 76 147 \na02 \n\na03\t1\n");
  EXPECT_EQ(ReadAll("ark:" + bin), kExpected);
  EXPECT_EQ(ReadAll("ark,s,cs,o,bg:" + bin), kExpected);
  EXPECT_EQ(ReadAll("ark:" + txt), kExpected);
  EXPECT_EQ(ReadAll("ark:cat " + bin + " |"), kExpected);
  test::WriteFileBytes(dir.File("empty.ark"), "");
  EXPECT_TRUE(ReadAll("ark:" + dir.File("empty.ark")).empty());
}

TEST(SequentialReaderTest, TruncatedArchiveNamesKeyAndFile) {
  test::TempDir dir;
  std::string good = VecEntry("a01", {76, 147}) + VecEntry("a02", {}) +
                     VecEntry("a03", {1, 2, 3});
  std::string ark = dir.File("trunc.ark");
  // Cut inside a03's object.
  test::WriteFileBytes(ark, good.substr(0, good.size() - 3));
  VecReader reader("ark:" + ark);
  ASSERT_FALSE(reader.Done());
  reader.Next();
  ASSERT_FALSE(reader.Done());
  EXPECT_EQ(reader.Key(), "a02");
  std::string err = test::UserErrorOf([&] { reader.Next(); });
  size_t a03_object = VecEntry("a01", {76, 147}).size() +
                      VecEntry("a02", {}).size() + 4;
  EXPECT_NE(err.find("Failed to read object for key a03 from archive " + ark +
                     " (file position " + std::to_string(a03_object) + "): "),
            std::string::npos) << err;
  // Cut right after a key.
  test::WriteFileBytes(ark, VecEntry("a01", {5}) + "a02");
  err = test::UserErrorOf([&] { ReadAll("ark:" + ark); });
  EXPECT_NE(err.find("a02"), std::string::npos) << err;
  EXPECT_NE(err.find(ark), std::string::npos) << err;
  // Cut after the space after a key.
  test::WriteFileBytes(ark, VecEntry("a01", {5}) + "a02 ");
  err = test::UserErrorOf([&] { ReadAll("ark:" + ark); });
  EXPECT_NE(err.find("key a02"), std::string::npos) << err;
  // The error in the first object comes from Open().
  test::WriteFileBytes(ark, "a01 " + kB + "\x04");
  err = test::UserErrorOf([&] { VecReader r("ark:" + ark); });
  EXPECT_NE(err.find("key a01"), std::string::npos) << err;
}

TEST(SequentialReaderTest, PermissiveArchiveStopsAtTheError) {
  test::TempDir dir;
  std::string ark = dir.File("trunc.ark");
  test::WriteFileBytes(ark, VecEntry("a01", {7}) + VecEntry("a02", {8}) +
                                "a03 " + kB + Int32Bytes(4));
  test::LogCapture log;
  auto all = ReadAll("ark,p:" + ark);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].first, "a02");
  EXPECT_TRUE(log.Contains("key a03"));
}

TEST(SequentialReaderTest, FailingPipeIsAnError) {
  test::TempDir dir;
  std::string missing = dir.File("missing.gz");
  std::string err = test::UserErrorOf(
      [&] { ReadAll("ark:gunzip -c " + missing + " 2>/dev/null |"); });
  EXPECT_NE(err.find("exited with status 1"), std::string::npos) << err;
}

TEST(SequentialReaderTest, BadRspecifiers) {
  std::string err = test::UserErrorOf([] { VecReader r("foo"); });
  EXPECT_NE(err.find("Invalid rspecifier 'foo' (expected ark:... or scp:...)"),
            std::string::npos) << err;
  err = test::UserErrorOf([] { VecReader r("ark,x:foo"); });
  EXPECT_NE(err.find("Invalid rspecifier 'ark,x:foo'"), std::string::npos);
  err = test::UserErrorOf([] { VecReader r("ark:/no/such/file.ark"); });
  EXPECT_NE(err.find("/no/such/file.ark"), std::string::npos) << err;
  EXPECT_NE(err.find("ark:/no/such/file.ark"), std::string::npos) << err;
  VecReader unopened("");
  EXPECT_FALSE(unopened.IsOpen());
}

TEST(SequentialReaderTest, FreeCurrent) {
  test::TempDir dir;
  std::string ark = dir.File("a.ark");
  test::WriteFileBytes(ark, "a 1\nb 2\n");
  VecReader reader("ark:" + ark);
  reader.FreeCurrent();
  std::string err = test::UserErrorOf([&] { reader.Value(); });
  EXPECT_NE(err.find("FreeCurrent"), std::string::npos) << err;
  reader.Next();
  EXPECT_EQ(reader.Value(), V{2});
}

// Writes a01..a03 into one archive and returns the script lines for it.
std::string MakeArchiveAndScript(const test::TempDir &dir) {
  std::string ark = dir.File("data.ark");
  std::string e1 = VecEntry("a01", {76, 147}), e2 = VecEntry("a02", {}),
              e3 = VecEntry("a03", {1});
  test::WriteFileBytes(ark, e1 + e2 + e3);
  test::WriteFileBytes(dir.File("a03.vec"), kB + Int32Bytes(1) + Int32Bytes(1));
  // Objects start 4 bytes ("a0N ") into each entry.
  return "a01 " + ark + ":4\n" + "a02 " + ark + ":" +
         std::to_string(e1.size() + 4) + "\n" + "a03 " + dir.File("a03.vec") +
         "\n";
}

TEST(SequentialReaderTest, ScriptWithOffsetsAndFiles) {
  test::TempDir dir;
  std::string scp = dir.File("a.scp");
  test::WriteFileBytes(scp, MakeArchiveAndScript(dir));
  EXPECT_EQ(ReadAll("scp:" + scp), kExpected);
  EXPECT_EQ(ReadAll("scp,p:" + scp), kExpected);
  EXPECT_EQ(ReadAll("scp:cat " + scp + " |"), kExpected);
  // An entry that is a pipe.
  test::WriteFileBytes(scp, "a03 cat " + dir.File("a03.vec") + " |\n");
  EXPECT_EQ(ReadAll("scp:" + scp),
            (std::vector<std::pair<std::string, V> >{{"a03", {1}}}));
}

TEST(SequentialReaderTest, ScriptMissingFile) {
  test::TempDir dir;
  std::string scp = dir.File("a.scp");
  test::WriteFileBytes(scp, MakeArchiveAndScript(dir) +
                                "m2 does_not_exist.ark:17\n");
  std::string err = test::UserErrorOf([&] { ReadAll("scp:" + scp); });
  EXPECT_NE(err.find("Failed to load object from does_not_exist.ark:17 for "
                     "key m2 (to suppress this error, add the permissive "
                     "(p, ) option to the rspecifier)"),
            std::string::npos) << err;
  // Keys alone never open the file.
  VecReader keys("scp:" + scp);
  int n = 0;
  for (; !keys.Done(); keys.Next()) n++;
  EXPECT_EQ(n, 4);
  // Permissive: skipped with a warning.
  test::LogCapture log;
  EXPECT_EQ(ReadAll("scp,p:" + scp), kExpected);
  EXPECT_TRUE(log.Contains("m2"));
}

TEST(SequentialReaderTest, ScriptErrors) {
  test::TempDir dir;
  std::string scp = dir.File("a.scp");
  test::WriteFileBytes(scp, "a01 x.ark:1\nbadline\n");
  std::string err = test::UserErrorOf([&] {
    VecReader r("scp:" + scp);
    r.Next();
  });
  EXPECT_NE(err.find("Invalid line 2 in script file " + scp),
            std::string::npos) << err;
  // A range on a type without ranges.
  test::WriteFileBytes(scp, MakeArchiveAndScript(dir));
  test::WriteFileBytes(dir.File("r.scp"),
                       "a01 " + dir.File("data.ark") + ":4[0:1]\n");
  err = test::UserErrorOf([&] { ReadAll("scp:" + dir.File("r.scp")); });
  EXPECT_NE(err.find("for key a01"), std::string::npos) << err;
  EXPECT_NE(err.find("not supported"), std::string::npos) << err;
  err = test::UserErrorOf([&] { ReadAll("scp:" + dir.File("none.scp")); });
  EXPECT_NE(err.find(dir.File("none.scp")), std::string::npos) << err;
}

// A type with ranges, to check that ranges of one file share one load.
struct Counted {
  static int reads;
  std::vector<int32> v;
  void Write(std::ostream &os, bool binary) const {
    WriteIntegerVector(os, binary, v);
  }
  void Read(std::istream &is, bool binary) {
    reads++;
    ReadIntegerVector(is, binary, &v);
  }
};
int Counted::reads = 0;
bool ExtractObjectRange(const Counted &in, const std::string &range,
                        Counted *out) {
  std::vector<int32> ab;
  if (!SplitStringToIntegers(range, ":", false, &ab) || ab.size() != 2 ||
      ab[0] < 0 || ab[1] >= static_cast<int32>(in.v.size()) || ab[0] > ab[1])
    return false;
  out->v.assign(in.v.begin() + ab[0], in.v.begin() + ab[1] + 1);
  return true;
}

TEST(SequentialReaderTest, ScriptRanges) {
  test::TempDir dir;
  std::string f = dir.File("obj");
  test::WriteFileBytes(f, "[ 10 11 12 13 ]\n");
  std::string scp = dir.File("r.scp");
  test::WriteFileBytes(scp, "x " + f + "[0:1]\ny " + f + "[2:3]\nz " + f +
                                "\nw " + f + "[3:9]\n");
  Counted::reads = 0;
  SequentialTableReader<KaldiObjectHolder<Counted> > reader("scp:" + scp);
  EXPECT_EQ(reader.Value().v, (V{10, 11}));
  reader.Next();
  EXPECT_EQ(reader.Value().v, (V{12, 13}));
  EXPECT_EQ(Counted::reads, 1);
  reader.Next();
  EXPECT_EQ(reader.Value().v, (V{10, 11, 12, 13}));
  reader.Next();
  std::string err = test::UserErrorOf([&] { reader.Value(); });
  EXPECT_NE(err.find("invalid range specifier [3:9]"), std::string::npos)
      << err;
  EXPECT_NE(err.find("for key w"), std::string::npos) << err;
}

TEST(SequentialReaderTest, KeyFollowedByNewline) {
  // Kaldi allows a newline after the key; it is left for the holder.
  test::TempDir dir;
  std::string ark = dir.File("a.ark");
  test::WriteFileBytes(ark, "x\n[ 1 2 ]\ny [ 3 ]\n");
  SequentialTableReader<KaldiObjectHolder<Counted> > reader("ark:" + ark);
  EXPECT_EQ(reader.Value().v, (V{1, 2}));
  reader.Next();
  EXPECT_EQ(reader.Key(), "y");
  EXPECT_EQ(reader.Value().v, (V{3}));
  reader.Next();
  EXPECT_TRUE(reader.Done());
}

TEST(SequentialReaderTest, Posteriors) {
  test::TempDir dir;
  std::string ark = dir.File("p.ark");
  test::WriteFileBytes(ark, "u1 [ 76 1 ] [ 76 1 ] \nu2 [ 3 0.5 4 0.5 ] \n");
  SequentialTableReader<PosteriorHolder> reader("ark:" + ark);
  EXPECT_EQ(reader.Value(), (Posterior{{{76, 1.0f}}, {{76, 1.0f}}}));
  reader.Next();
  EXPECT_EQ(reader.Value(), (Posterior{{{3, 0.5f}, {4, 0.5f}}}));
}

}  // namespace
}  // namespace nnet3
