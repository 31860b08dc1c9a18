// tests/util/table-writer-test.cc
#include "util/table-writer.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "util-test-util.h"
#include "util/table-types.h"

namespace nnet3 {
namespace {

using test::Int32Bytes;
typedef std::vector<int32> V;

const std::string kB("\0B", 2);

TEST(TableWriterTest, BinaryInt32VectorArchiveBytes) {
  test::TempDir dir;
  std::string ark = dir.File("a.ark");
  {
    Int32VectorWriter writer("ark:" + ark);
    writer.Write("a01", {76, 147});
    writer.Write("a02", {});
    EXPECT_TRUE(writer.Close());
  }
  EXPECT_EQ(test::ReadFileBytes(ark),
            std::string("a01 \0B\x04\x02\x00\x00\x00\x04L\x00\x00\x00\x04\x93"
                        "\x00\x00\x00", 21) +
                "a02 " + kB + Int32Bytes(0));
}

TEST(TableWriterTest, TextArchives) {
  test::TempDir dir;
  std::string ark = dir.File("t.ark");
  {
    Int32VectorWriter writer("ark,t:" + ark);
    writer.Write("a01", {76, 147});
    writer.Write("a02", {});
  }  // The destructor closes.
  EXPECT_EQ(test::ReadFileBytes(ark), "a01 76 147 \na02 \n");
  {
    PosteriorWriter writer("ark,t:" + ark);
    writer.Write("u", {{{76, 1.0f}}, {{76, 1.0f}}});
  }
  EXPECT_EQ(test::ReadFileBytes(ark), "u [ 76 1 ] [ 76 1 ] \n");
  {
    PosteriorWriter writer("ark:" + ark);
    writer.Write("u", {{{76, 1.0f}}});
  }
  EXPECT_EQ(test::ReadFileBytes(ark),
            "u " + kB + Int32Bytes(1) + Int32Bytes(1) + Int32Bytes(76) +
                std::string("\x04\x00\x00\x80\x3f", 5));
  {
    Int32Writer writer("ark,t:" + ark);
    writer.Write("x", 5);
    BaseFloatWriter fw("ark,t:" + dir.File("f.ark"));
    fw.Write("y", 0.5f);
    TokenWriter tw("ark:" + dir.File("tok.ark"));
    tw.Write("z", "word");
  }
  EXPECT_EQ(test::ReadFileBytes(ark), "x 5 \n");
  EXPECT_EQ(test::ReadFileBytes(dir.File("f.ark")), "y 0.5 \n");
  EXPECT_EQ(test::ReadFileBytes(dir.File("tok.ark")), "z word\n");
}

TEST(TableWriterTest, ArchiveAndScriptOffsets) {
  test::TempDir dir;
  std::string ark = dir.File("a.ark"), scp = dir.File("a.scp");
  {
    Int32VectorWriter writer("ark,scp:" + ark + "," + scp);
    writer.Write("a01", {76, 147});
    writer.Write("a002", {1});
  }
  // a01's object starts after "a01 " (4); the entry is 4 + 2 + 5 + 2 * 5
  // bytes; a002's object starts 5 bytes into the next entry.
  EXPECT_EQ(test::ReadFileBytes(scp),
            "a01 " + ark + ":4\na002 " + ark + ":26\n");
  SequentialInt32VectorReader reader("scp:" + scp);
  EXPECT_EQ(reader.Key(), "a01");
  EXPECT_EQ(reader.Value(), (V{76, 147}));
  reader.Next();
  EXPECT_EQ(reader.Value(), V{1});
  {
    Int32VectorWriter writer("ark,scp,t:" + ark + "," + scp);
    writer.Write("a", {1, 2});
    writer.Write("b", {3});
  }
  EXPECT_EQ(test::ReadFileBytes(ark), "a 1 2 \nb 3 \n");
  EXPECT_EQ(test::ReadFileBytes(scp), "a " + ark + ":2\nb " + ark + ":9\n");
  RandomAccessInt32VectorReader random("scp:" + scp);
  EXPECT_EQ(random.Value("b"), V{3});
  EXPECT_EQ(random.Value("a"), (V{1, 2}));
}

TEST(TableWriterTest, ArchiveAndScriptNeedASeekableArchive) {
  test::TempDir dir;
  Int32VectorWriter writer("ark,scp:| cat > " + dir.File("a.ark") + "," +
                           dir.File("a.scp"));
  std::string err = test::UserErrorOf([&] { writer.Write("a", {1}); });
  EXPECT_NE(err.find("regular file"), std::string::npos) << err;
}

TEST(TableWriterTest, ScriptWriter) {
  test::TempDir dir;
  std::string scp = dir.File("w.scp");
  test::WriteFileBytes(scp, "a01 " + dir.File("a01.vec") + "\na02 " +
                                dir.File("a02.vec") + "\n");
  {
    Int32VectorWriter writer("scp:" + scp);
    writer.Write("a01", {76, 147});
    std::string err = test::UserErrorOf([&] { writer.Write("zz", {1}); });
    EXPECT_NE(err.find("Key zz is not in script file " + scp),
              std::string::npos) << err;
  }
  EXPECT_EQ(test::ReadFileBytes(dir.File("a01.vec")),
            std::string("\0B\x04\x02\0\0\0\x04L\0\0\0\x04\x93\0\0\0", 17));
  EXPECT_FALSE(test::FileExists(dir.File("a02.vec")));
  {
    Int32VectorWriter writer("scp,p,t:" + scp);
    writer.Write("zz", {1});  // Skipped silently.
    writer.Write("a02", {5});
  }
  EXPECT_EQ(test::ReadFileBytes(dir.File("a02.vec")), "5 \n");
}

TEST(TableWriterTest, Errors) {
  test::TempDir dir;
  std::string err = test::UserErrorOf([] { Int32VectorWriter w("a.ark"); });
  EXPECT_NE(err.find("Invalid wspecifier 'a.ark'"), std::string::npos) << err;
  err = test::UserErrorOf([] { Int32VectorWriter w("ark,scp:a.ark"); });
  EXPECT_NE(err.find("Invalid wspecifier"), std::string::npos) << err;
  std::string bad = dir.File("no/such/dir/x.ark");
  err = test::UserErrorOf([&] { Int32VectorWriter w("ark:" + bad); });
  EXPECT_NE(err.find(bad), std::string::npos) << err;
  Int32VectorWriter writer("ark:" + dir.File("k.ark"));
  err = test::UserErrorOf([&] { writer.Write("a b", {1}); });
  EXPECT_NE(err.find("Invalid key 'a b'"), std::string::npos) << err;
  err = test::UserErrorOf([&] { writer.Write("", {1}); });
  EXPECT_NE(err.find("Invalid key"), std::string::npos) << err;
  TokenWriter tokens("ark:" + dir.File("t.ark"));
  err = test::UserErrorOf([&] { tokens.Write("k", "two words"); });
  EXPECT_NE(err.find("Failed to write object for key k"), std::string::npos)
      << err;
  Int32VectorWriter unopened("");
  EXPECT_FALSE(unopened.IsOpen());
}

TEST(TableWriterTest, FailingPipeIsAnErrorOnClose) {
  Int32VectorWriter writer("ark:| cat > /dev/null; exit 3");
  writer.Write("a", {1});
  test::LogCapture log;
  std::string err = test::UserErrorOf([&] { writer.Close(); });
  EXPECT_NE(err.find("pipe command failed"), std::string::npos) << err;
  EXPECT_FALSE(writer.IsOpen());
}

TEST(TableWriterTest, GzipPipesRoundTrip) {
  test::TempDir dir;
  std::string gz = dir.File("a.ark.gz");
  {
    Int32VectorWriter writer("ark:| gzip -c > " + gz);
    for (int i = 0; i < 1000; i++)
      writer.Write("k" + std::to_string(i), V(i % 17, i));
  }
  SequentialInt32VectorReader reader("ark:gunzip -c " + gz + " |");
  int n = 0;
  for (; !reader.Done(); reader.Next(), n++) {
    EXPECT_EQ(reader.Key(), "k" + std::to_string(n));
    EXPECT_EQ(reader.Value(), V(n % 17, n));
  }
  EXPECT_EQ(n, 1000);
}

// The file being written is the temporary ".NAME.tmp.*" in dir; the final
// name appears only at Close().
std::string TempOf(const test::TempDir &dir, const std::string &name) {
  std::string found;
  for (const std::string &f : dir.List())
    if (f.compare(0, name.size() + 6, "." + name + ".tmp.") == 0) {
      EXPECT_EQ(found, "") << "two temporaries for " << name;
      found = dir.File(f);
    }
  return found;
}

TEST(TableWriterTest, FlushOption) {
  test::TempDir dir;
  std::string ark = dir.File("f.ark");
  Int32VectorWriter writer("ark,t,f:" + ark);
  writer.Write("a", {1});
  std::string temp = TempOf(dir, "f.ark");
  ASSERT_NE(temp, "");
  EXPECT_EQ(test::ReadFileBytes(temp), "a 1 \n");  // Before Close().
  Int32VectorWriter unflushed("ark,t:" + dir.File("nf.ark"));
  unflushed.Write("a", {1});
  std::string nf_temp = TempOf(dir, "nf.ark");
  ASSERT_NE(nf_temp, "");
  EXPECT_EQ(test::ReadFileBytes(nf_temp), "");
  unflushed.Flush();
  EXPECT_EQ(test::ReadFileBytes(nf_temp), "a 1 \n");
  // Nothing under the final names until Close().
  struct stat st;
  EXPECT_NE(stat(ark.c_str(), &st), 0);
  EXPECT_TRUE(writer.Close());
  EXPECT_TRUE(unflushed.Close());
  EXPECT_EQ(test::ReadFileBytes(ark), "a 1 \n");
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"f.ark", "nf.ark"}));
}

TEST(TableWriterTest, ArchiveAndScriptAppearTogetherAtClose) {
  test::TempDir dir;
  std::string ark = dir.File("a.ark"), scp = dir.File("a.scp");
  test::WriteFileBytes(ark, "OLD-ARK");
  test::WriteFileBytes(scp, "OLD-SCP");
  Int32VectorWriter writer("ark,scp,t,f:" + ark + "," + scp);
  writer.Write("a", {1, 2});
  writer.Write("b", {3});
  // Flushed, but only into the temporaries.
  EXPECT_EQ(test::ReadFileBytes(ark), "OLD-ARK");
  EXPECT_EQ(test::ReadFileBytes(scp), "OLD-SCP");
  std::string ark_temp = TempOf(dir, "a.ark"), scp_temp = TempOf(dir, "a.scp");
  EXPECT_EQ(test::ReadFileBytes(ark_temp), "a 1 2 \nb 3 \n");
  // The script names the final archive, with offsets into the same bytes.
  EXPECT_EQ(test::ReadFileBytes(scp_temp),
            "a " + ark + ":2\nb " + ark + ":9\n");
  EXPECT_TRUE(writer.Close());
  EXPECT_EQ(test::ReadFileBytes(ark), "a 1 2 \nb 3 \n");
  EXPECT_EQ(test::ReadFileBytes(scp), "a " + ark + ":2\nb " + ark + ":9\n");
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"a.ark", "a.scp"}));
  RandomAccessInt32VectorReader reader("scp:" + scp);
  EXPECT_EQ(reader.Value("b"), V{3});
}

TEST(TableWriterTest, FailedWriterKeepsTheOldFiles) {
  test::TempDir dir;
  std::string ark = dir.File("a.ark"), scp = dir.File("a.scp");
  test::WriteFileBytes(ark, "OLD-ARK");
  test::WriteFileBytes(scp, "OLD-SCP");
  // An error thrown while the writer is open (here a bad token) discards
  // the new archive and script: the destructor runs during unwinding.
  std::string err = test::UserErrorOf([&] {
    TokenWriter writer("ark,scp:" + ark + "," + scp);
    for (int i = 0; i < 1000; i++)
      writer.Write("k" + std::to_string(i), std::string(500, 'w'));
    writer.Write("bad", "two words");
  });
  EXPECT_NE(err.find("Failed to write object for key bad"), std::string::npos)
      << err;
  EXPECT_EQ(test::ReadFileBytes(ark), "OLD-ARK");
  EXPECT_EQ(test::ReadFileBytes(scp), "OLD-SCP");
  EXPECT_EQ(dir.List(), (std::vector<std::string>{"a.ark", "a.scp"}));
  // The same for a writer that fails on a later, unrelated error.
  err = test::UserErrorOf([&] {
    Int32VectorWriter writer("ark:" + ark);
    writer.Write("x", {1});
    NNET3_ERR << "unrelated failure";
  });
  EXPECT_EQ(test::ReadFileBytes(ark), "OLD-ARK");
  // A script writer's per-key files are each replaced whole.
  std::string wscp = dir.File("w.scp"), vec = dir.File("v.vec");
  test::WriteFileBytes(wscp, "v " + vec + "\n");
  test::WriteFileBytes(vec, "OLD");
  {
    TokenWriter writer("scp:" + wscp);
    err = test::UserErrorOf([&] { writer.Write("v", "two words"); });
    EXPECT_NE(err.find("Failed to write object for key v"), std::string::npos)
        << err;
  }
  EXPECT_EQ(test::ReadFileBytes(vec), "OLD");
  {
    TokenWriter writer("scp:" + wscp);
    writer.Write("v", "word");
  }
  EXPECT_EQ(test::ReadFileBytes(vec), "word\n");
  EXPECT_EQ(dir.List(),
            (std::vector<std::string>{"a.ark", "a.scp", "v.vec", "w.scp"}));
}

}  // namespace
}  // namespace nnet3
