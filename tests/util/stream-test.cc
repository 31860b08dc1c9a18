// tests/util/stream-test.cc
#include "util/stream.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "util-test-util.h"

namespace nnet3 {
namespace {

TEST(StreamTest, ClassifyRxfilename) {
  const std::vector<std::pair<std::string, InputType> > cases = {
      {"", kStandardInput},
      {"-", kStandardInput},
      {"foo", kFileInput},
      {"/a/b/foo.ark", kFileInput},
      {"foo.ark:123", kOffsetFileInput},
      {"/a/b:0", kOffsetFileInput},
      {":12", kOffsetFileInput},
      {"foo.ark:", kFileInput},
      {"foo:12a", kFileInput},
      {"12", kFileInput},
      {"a:b", kFileInput},
      {"s:foo", kFileInput},  // "s" alone is no rspecifier.
      {"gunzip -c foo.gz |", kPipeInput},
      {"foo|", kPipeInput},
      {" cat foo |", kPipeInput},
      {"| gzip -c > foo", kNoInput},
      {"|", kNoInput},
      {" foo", kNoInput},
      {"foo ", kNoInput},
      {"foo\t", kNoInput},
      {"ark:foo", kNoInput},
      {"scp:foo", kNoInput},
      {"ark,t:foo", kNoInput},
      {"ark,scp:a,b", kNoInput},
  };
  for (const auto &c : cases)
    EXPECT_EQ(ClassifyRxfilename(c.first), c.second) << "'" << c.first << "'";
}

TEST(StreamTest, ClassifyWxfilename) {
  const std::vector<std::pair<std::string, OutputType> > cases = {
      {"", kStandardOutput},
      {"-", kStandardOutput},
      {"foo", kFileOutput},
      {"/tmp/x.ark", kFileOutput},
      {"foo:bar", kFileOutput},
      {"12", kFileOutput},
      {"| gzip -c > foo.gz", kPipeOutput},
      {"|cat", kPipeOutput},
      {"foo:12", kNoOutput},
      {"foo|", kNoOutput},
      {" foo", kNoOutput},
      {"foo ", kNoOutput},
      {"ark:foo", kNoOutput},
      {"ark,scp:a,b", kNoOutput},
      {"scp:foo", kNoOutput},
  };
  for (const auto &c : cases)
    EXPECT_EQ(ClassifyWxfilename(c.first), c.second) << "'" << c.first << "'";
}

TEST(StreamTest, PrintableNames) {
  EXPECT_EQ(PrintableRxfilename("-"), "standard input");
  EXPECT_EQ(PrintableRxfilename(""), "standard input");
  EXPECT_EQ(PrintableRxfilename("a.ark"), "a.ark");
  EXPECT_EQ(PrintableWxfilename("-"), "standard output");
  EXPECT_EQ(PrintableWxfilename("| gzip"), "| gzip");
}

TEST(StreamTest, FileRoundTripWithHeader) {
  test::TempDir dir;
  std::string f = dir.File("a.bin");
  {
    Output ko(f, true, true);
    ko.Stream() << "xyz";
    EXPECT_TRUE(ko.Close());
  }
  EXPECT_EQ(test::ReadFileBytes(f), std::string("\0Bxyz", 5));
  bool binary = false;
  Input ki(f, &binary);
  EXPECT_TRUE(binary);
  std::string rest;
  ki.Stream() >> rest;
  EXPECT_EQ(rest, "xyz");
  EXPECT_EQ(ki.Close(), 0);

  {
    Output ko(f, false, true);  // Text: no header.
    ko.Stream() << "abc";
  }  // The destructor closes.
  EXPECT_EQ(test::ReadFileBytes(f), "abc");
  binary = true;
  Input ki2(f, &binary);
  EXPECT_FALSE(binary);
  EXPECT_EQ(ki2.Stream().get(), 'a');
}

TEST(StreamTest, CorruptHeaderIsAnError) {
  test::TempDir dir;
  std::string f = dir.File("bad");
  test::WriteFileBytes(f, std::string("\0Xabc", 5));
  bool binary;
  Input ki;
  std::string err = test::UserErrorOf([&] { ki.Open(f, &binary); });
  EXPECT_NE(err.find(f), std::string::npos) << err;
  EXPECT_FALSE(ki.IsOpen());
}

// A file of n bytes where byte i is (i * 7 + i / 251) % 256.
std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; i++)
    s[i] = static_cast<char>((i * 7 + i / 251) % 256);
  return s;
}

TEST(StreamTest, OffsetsAndSeeking) {
  test::TempDir dir;
  std::string f = dir.File("data");
  std::string data = Pattern(300000);
  test::WriteFileBytes(f, data);
  Input ki;
  ki.Open(f + ":200000");
  EXPECT_EQ(ki.Type(), kOffsetFileInput);
  EXPECT_EQ(ki.Stream().get(), static_cast<unsigned char>(data[200000]));
  EXPECT_EQ(static_cast<long long>(ki.Stream().tellg()), 200001);
  // Large read in one call, across the buffer size.
  std::string big(90000, '\0');
  ki.Stream().read(&big[0], big.size());
  ASSERT_TRUE(ki.Stream().good());
  EXPECT_TRUE(big == data.substr(200001, 90000));
  // Seek back within the file and read again.
  ki.Stream().clear();
  ki.Stream().seekg(17);
  EXPECT_EQ(ki.Stream().get(), static_cast<unsigned char>(data[17]));
  // Re-opening the same file at another offset reuses the open file: it
  // works even after the file is gone.
  ASSERT_EQ(unlink(f.c_str()), 0);
  ki.Open(f + ":3");
  EXPECT_EQ(ki.Stream().get(), static_cast<unsigned char>(data[3]));
  ki.Open(f + ":299999");
  EXPECT_EQ(ki.Stream().get(), static_cast<unsigned char>(data[299999]));
  EXPECT_EQ(ki.Stream().get(), EOF);
}

TEST(StreamTest, LargeReadsMatchTheFile) {
  test::TempDir dir;
  std::string f = dir.File("data");
  std::string data = Pattern(200000);
  test::WriteFileBytes(f, data);
  Input ki(f);
  std::string head(10, '\0'), big(150000, '\0'), tail(100000, '\0');
  ki.Stream().read(&head[0], head.size());
  ki.Stream().read(&big[0], big.size());
  EXPECT_TRUE(head == data.substr(0, 10));
  EXPECT_TRUE(big == data.substr(10, 150000));
  // unget() after a large read still works.
  ki.Stream().unget();
  EXPECT_EQ(ki.Stream().get(), static_cast<unsigned char>(data[150009]));
  ki.Stream().read(&tail[0], tail.size());
  EXPECT_EQ(ki.Stream().gcount(), 200000 - 150010);
  EXPECT_TRUE(tail.substr(0, 200000 - 150010) == data.substr(150010));
}

TEST(StreamTest, PipeInputPositionsAndShortSeeks) {
  test::TempDir dir;
  std::string f = dir.File("data");
  std::string data = Pattern(100000);
  test::WriteFileBytes(f, data);
  Input ki("cat " + f + " |");
  EXPECT_EQ(ki.Type(), kPipeInput);
  std::string buf(70000, '\0');
  ki.Stream().read(&buf[0], buf.size());
  EXPECT_TRUE(buf == data.substr(0, 70000));
  EXPECT_EQ(static_cast<long long>(ki.Stream().tellg()), 70000);
  // A short seek back works on a pipe (the bytes are still buffered).
  ki.Stream().seekg(69990);
  EXPECT_EQ(ki.Stream().get(), static_cast<unsigned char>(data[69990]));
  std::string rest((std::istreambuf_iterator<char>(ki.Stream())),
                   std::istreambuf_iterator<char>());
  EXPECT_TRUE(rest == data.substr(69991));
  EXPECT_EQ(ki.Close(), 0);
}

TEST(StreamTest, PipeInputReportsExitStatus) {
  Input ki("echo hello; exit 3 |");
  std::string word;
  ki.Stream() >> word;
  EXPECT_EQ(word, "hello");
  test::LogCapture log;
  EXPECT_EQ(ki.Close(), 3);
  EXPECT_TRUE(log.Contains("exit 3"));
}

TEST(StreamTest, PipeOutputAndGzipRoundTrip) {
  test::TempDir dir;
  std::string f = dir.File("out.txt"), gz = dir.File("out.gz");
  {
    Output ko("| cat > " + f, false, false);
    ko.Stream() << "line one\n";
    EXPECT_EQ(static_cast<long long>(ko.Stream().tellp()), -1);
    EXPECT_TRUE(ko.Close());
  }
  EXPECT_EQ(test::ReadFileBytes(f), "line one\n");
  std::string data = Pattern(100000);
  {
    Output ko("| gzip -c > " + gz, true, true);
    ko.Stream().write(data.data(), data.size());
    EXPECT_TRUE(ko.Close());
  }
  bool binary = false;
  Input ki("gunzip -c " + gz + " |", &binary);
  EXPECT_TRUE(binary);
  std::string back((std::istreambuf_iterator<char>(ki.Stream())),
                   std::istreambuf_iterator<char>());
  EXPECT_TRUE(back == data);
  EXPECT_EQ(ki.Close(), 0);
}

TEST(StreamTest, FailingPipeOutputCloseReturnsFalse) {
  Output ko("| cat > /dev/null; exit 2", false, false);
  ko.Stream() << "data\n";
  test::LogCapture log;
  EXPECT_FALSE(ko.Close());
  EXPECT_TRUE(log.Contains("exit status 2"));
}

TEST(StreamTest, FileOutputTellp) {
  test::TempDir dir;
  std::string f = dir.File("t");
  Output ko(f, true, true);
  EXPECT_EQ(static_cast<long long>(ko.Stream().tellp()), 2);
  std::string data = Pattern(70000);
  ko.Stream().write(data.data(), data.size());
  ko.Stream() << "abc";
  EXPECT_EQ(static_cast<long long>(ko.Stream().tellp()), 70005);
  EXPECT_TRUE(ko.Close());
  EXPECT_EQ(test::ReadFileBytes(f).size(), 70005u);
}

TEST(StreamTest, OpenErrorsNameTheFile) {
  test::TempDir dir;
  Input ki;
  std::string missing = dir.File("missing.ark");
  std::string err = test::UserErrorOf([&] { ki.Open(missing); });
  EXPECT_NE(err.find(missing), std::string::npos) << err;
  EXPECT_NE(err.find("No such file"), std::string::npos) << err;
  err = test::UserErrorOf([&] { ki.Open(dir.path()); });
  EXPECT_NE(err.find("directory"), std::string::npos) << err;
  err = test::UserErrorOf([&] { ki.Open(" foo"); });
  EXPECT_NE(err.find("Invalid input filename ' foo'"), std::string::npos);
  err = test::UserErrorOf([&] { ki.Open(missing + ":10"); });
  EXPECT_NE(err.find(missing), std::string::npos) << err;
  Output ko;
  std::string bad_out = dir.File("no/such/dir/x");
  err = test::UserErrorOf([&] { ko.Open(bad_out, true, true); });
  EXPECT_NE(err.find(bad_out), std::string::npos) << err;
  err = test::UserErrorOf([&] { ko.Open("x.ark:12", true, true); });
  EXPECT_NE(err.find("Invalid output filename 'x.ark:12'"),
            std::string::npos) << err;
}

TEST(StreamTest, StandardInputIsSharedBetweenInputs) {
  test::TempDir dir;
  std::string f = dir.File("stdin");
  test::WriteFileBytes(f, std::string("\0Bfirst second", 14));
  auto child = [&] {
    int fd = open(f.c_str(), O_RDONLY);
    dup2(fd, 0);
    bool binary = false;
    std::string a, b;
    {
      Input ki("-", &binary);
      ki.Stream() >> a;
    }
    {
      Input ki("");  // The buffered rest is still there.
      ki.Stream() >> b;
    }
    std::exit(binary && a == "first" && b == "second" ? 0 : 1);
  };
  EXPECT_EXIT(child(), testing::ExitedWithCode(0), "");
}

TEST(StreamTest, StandardOutput) {
  test::TempDir dir;
  std::string f = dir.File("stdout");
  auto child = [&] {
    int fd = open(f.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    Output ko("-", true, true);
    ko.Stream() << "abc";
    bool ok = ko.Stream().tellp() == 5;  // Seekable: a regular file.
    ok = ko.Close() && ok;
    std::exit(ok ? 0 : 1);
  };
  EXPECT_EXIT(child(), testing::ExitedWithCode(0), "");
  EXPECT_EQ(test::ReadFileBytes(f), std::string("\0Babc", 5));
}

// A Kaldi-style object; Write fails after some bytes if asked to.
struct Obj {
  std::vector<int32> v;
  bool fail_in_write = false;
  void Write(std::ostream &os, bool binary) const {
    WriteToken(os, binary, "<Obj>");
    if (fail_in_write) {
      os << std::string(100000, 'x');
      NNET3_ERR << "simulated write failure";
    }
    WriteIntegerVector(os, binary, v);
  }
  void Read(std::istream &is, bool binary) {
    ExpectToken(is, binary, "<Obj>");
    ReadIntegerVector(is, binary, &v);
  }
};

TEST(StreamTest, WriteAndReadKaldiObject) {
  test::TempDir dir;
  std::string f = dir.File("obj");
  Obj o;
  o.v = {1, 2};
  WriteKaldiObject(o, f, true);
  EXPECT_EQ(test::ReadFileBytes(f),
            std::string("\0B<Obj> \x04\x02\0\0\0\x01\0\0\0\x02\0\0\0", 21));
  Obj back;
  ReadKaldiObject(f, &back);
  EXPECT_EQ(back.v, o.v);
  WriteKaldiObject(o, f, false);
  EXPECT_EQ(test::ReadFileBytes(f), "<Obj> [ 1 2 ]\n");
  ReadKaldiObject(f, &back);
  EXPECT_EQ(back.v, o.v);
  EXPECT_EQ(dir.List(), std::vector<std::string>{"obj"});
  // Through a pipe, and to a device.
  WriteKaldiObject(o, "| cat > " + dir.File("piped"), true);
  EXPECT_EQ(test::ReadFileBytes(dir.File("piped")).size(), 21u);
  WriteKaldiObject(o, "/dev/null", true);
  // Reading garbage names the file.
  test::WriteFileBytes(dir.File("junk"), "<Other> 1");
  std::string err = test::UserErrorOf(
      [&] { ReadKaldiObject(dir.File("junk"), &back); });
  EXPECT_NE(err.find(dir.File("junk")), std::string::npos) << err;
  EXPECT_NE(err.find("<Obj>"), std::string::npos) << err;
}

TEST(StreamTest, WriteKaldiObjectIsAtomic) {
  test::TempDir dir;
  std::string f = dir.File("model");
  test::WriteFileBytes(f, "GOOD");
  ASSERT_EQ(chmod(f.c_str(), 0640), 0);
  Obj o;
  o.v = {5};
  o.fail_in_write = true;
  std::string err = test::UserErrorOf([&] { WriteKaldiObject(o, f, true); });
  EXPECT_NE(err.find("simulated write failure"), std::string::npos) << err;
  EXPECT_NE(err.find(f), std::string::npos) << err;
  EXPECT_EQ(test::ReadFileBytes(f), "GOOD");
  EXPECT_EQ(dir.List(), std::vector<std::string>{"model"});  // No temp left.
  o.fail_in_write = false;
  WriteKaldiObject(o, f, false);
  EXPECT_EQ(test::ReadFileBytes(f), "<Obj> [ 5 ]\n");
  struct stat st;
  ASSERT_EQ(stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // Permissions kept.
  EXPECT_EQ(dir.List(), std::vector<std::string>{"model"});
  // A new file gets the usual permissions (0666 minus the umask).
  mode_t mask = umask(022);
  WriteKaldiObject(o, dir.File("new"), false);
  umask(mask);
  ASSERT_EQ(stat(dir.File("new").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  // Failing to write into a missing directory names the file.
  err = test::UserErrorOf(
      [&] { WriteKaldiObject(o, dir.File("no/such/x"), true); });
  EXPECT_NE(err.find(dir.File("no/such/x")), std::string::npos) << err;
}

}  // namespace
}  // namespace nnet3
