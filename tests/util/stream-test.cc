// tests/util/stream-test.cc
#include "util/stream.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

// --- Crash-safe output: plain files go through a temporary next to them.

// True if "path" is ".NAME.tmp.PID.*" for the name "name" and this process.
bool IsTempFor(const std::string &path, const std::string &dir,
               const std::string &name) {
  std::string prefix = dir + "/." + name + ".tmp." +
                       std::to_string(getpid()) + ".";
  return path.size() > prefix.size() &&
         path.compare(0, prefix.size(), prefix) == 0;
}

TEST(StreamTest, OutputWritesThroughATemporary) {
  test::TempDir dir;
  std::string f = dir.File("out.ark");
  test::WriteFileBytes(f, "OLD");
  Output ko(f, true, true);
  EXPECT_TRUE(IsTempFor(ko.TempFilename(), dir.path(), "out.ark"))
      << ko.TempFilename();
  ko.Stream() << std::string(200000, 'n');  // More than one buffer.
  EXPECT_EQ(ko.Stream().tellp(), 200002);
  EXPECT_EQ(test::ReadFileBytes(f), "OLD");  // Untouched while writing.
  EXPECT_EQ(dir.List().size(), 2u);
  EXPECT_TRUE(ko.Close());
  EXPECT_TRUE(test::ReadFileBytes(f) ==
              std::string("\0B", 2) + std::string(200000, 'n'));
  EXPECT_EQ(dir.List(), std::vector<std::string>{"out.ark"});
  // A name without a directory part gets its temporary in ".".
  char cwd[4096];
  ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
  ASSERT_EQ(chdir(dir.path().c_str()), 0);
  {
    Output rel("rel", false, false);
    std::string prefix = ".rel.tmp." + std::to_string(getpid()) + ".";
    EXPECT_EQ(rel.TempFilename().compare(0, prefix.size(), prefix), 0)
        << rel.TempFilename();
    rel.Stream() << "r";
  }
  ASSERT_EQ(chdir(cwd), 0);
  EXPECT_EQ(test::ReadFileBytes(dir.File("rel")), "r");
}

TEST(StreamTest, FinishThenCommit) {
  test::TempDir dir;
  std::string f = dir.File("m");
  test::WriteFileBytes(f, "OLD");
  Output ko(f, false, false);
  ko.Stream() << "NEW";
  std::string temp = ko.TempFilename();
  EXPECT_TRUE(ko.Finish());
  EXPECT_TRUE(ko.IsOpen());
  EXPECT_EQ(test::ReadFileBytes(temp), "NEW");
  EXPECT_EQ(test::ReadFileBytes(f), "OLD");
  ko.Commit();
  EXPECT_FALSE(ko.IsOpen());
  EXPECT_EQ(test::ReadFileBytes(f), "NEW");
  EXPECT_EQ(dir.List(), std::vector<std::string>{"m"});
  // RemoveOldFile() then Abort(): neither file is left.
  Output ko2(f, false, false);
  ko2.Stream() << "X";
  ko2.Finish();
  ko2.RemoveOldFile();
  EXPECT_FALSE(test::FileExists(f));
  ko2.Abort();
  EXPECT_TRUE(dir.List().empty());
}

TEST(StreamTest, OutputDiscardedOnExceptionOrAbort) {
  test::TempDir dir;
  std::string f = dir.File("model");
  test::WriteFileBytes(f, "OLD");
  std::string err = test::UserErrorOf([&] {
    Output ko(f, true, true);
    ko.Stream() << std::string(100000, 'x');
    NNET3_ERR << "failure while writing";
  });
  EXPECT_NE(err.find("failure while writing"), std::string::npos) << err;
  EXPECT_EQ(test::ReadFileBytes(f), "OLD");
  EXPECT_EQ(dir.List(), std::vector<std::string>{"model"});
  {
    Output ko(f, false, false);
    ko.Stream() << "half";
    ko.Abort();
    EXPECT_FALSE(ko.IsOpen());
  }
  EXPECT_EQ(test::ReadFileBytes(f), "OLD");
  EXPECT_EQ(dir.List(), std::vector<std::string>{"model"});
  // A new name that was never closed leaves nothing at all.
  std::string g = dir.File("new");
  err = test::UserErrorOf([&] {
    Output ko(g, false, false);
    ko.Stream() << "partial";
    NNET3_ERR << "boom";
  });
  EXPECT_FALSE(test::FileExists(g));
  EXPECT_EQ(dir.List(), std::vector<std::string>{"model"});
  // A destructor without an exception closes and commits (Kaldi's rule).
  {
    Output ko(f, false, false);
    ko.Stream() << "NEW";
  }
  EXPECT_EQ(test::ReadFileBytes(f), "NEW");
  // An Output opened while an exception is propagating (in a destructor)
  // still commits when closed normally there.
  struct Cleanup {
    std::string f;
    ~Cleanup() {
      Output ko(f, false, false);
      ko.Stream() << "FROM-DTOR";
    }
  };
  try {
    Cleanup c{f};
    throw std::runtime_error("x");
  } catch (const std::runtime_error &) {
  }
  EXPECT_EQ(test::ReadFileBytes(f), "FROM-DTOR");
}

TEST(StreamTest, PipesStdoutAndDevicesAreWrittenDirectly) {
  test::TempDir dir;
  {
    Output ko("| cat > " + dir.File("piped"), false, false);
    EXPECT_EQ(ko.TempFilename(), "");
    ko.Stream() << "p";
  }
  EXPECT_EQ(test::ReadFileBytes(dir.File("piped")), "p");
  Output null("/dev/null", true, true);
  EXPECT_EQ(null.TempFilename(), "");
  null.Stream() << "x";
  EXPECT_TRUE(null.Close());
  // A FIFO is opened directly (a temporary would never reach its reader).
  std::string fifo = dir.File("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto child = [&] {
    Output ko(fifo, false, false);
    bool ok = ko.TempFilename().empty();
    ko.Stream() << "via fifo";
    ok = ko.Close() && ok;
    std::exit(ok ? 0 : 1);
  };
  auto reader = [&] {
    // Reads what the writer child sends, in a child of its own.
    std::string got = test::ReadFileBytes(fifo);
    _exit(got == "via fifo" ? 0 : 1);
  };
  pid_t r = fork();
  ASSERT_GE(r, 0);
  if (r == 0) reader();
  EXPECT_EXIT(child(), testing::ExitedWithCode(0), "");
  int status = 0;
  ASSERT_EQ(waitpid(r, &status, 0), r);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  // Standard output: no temporary either.
  auto out_child = [&] {
    Output ko("-", false, false);
    std::exit(ko.TempFilename().empty() ? 0 : 1);
  };
  EXPECT_EXIT(out_child(), testing::ExitedWithCode(0), "");
}

TEST(StreamTest, SymlinkTargetIsReplaced) {
  test::TempDir dir;
  ASSERT_EQ(mkdir(dir.File("real").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(dir.File("links").c_str(), 0755), 0);
  std::string real = dir.File("real/final.mdl");
  std::string link = dir.File("links/final.mdl");
  test::WriteFileBytes(real, "OLD");
  ASSERT_EQ(symlink("../real/final.mdl", link.c_str()), 0);
  {
    Output ko(link, false, false);
    EXPECT_TRUE(IsTempFor(ko.TempFilename(), dir.File("links/../real"),
                          "final.mdl")) << ko.TempFilename();
    ko.Stream() << "NEW";
  }
  struct stat st;
  ASSERT_EQ(lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));  // Still a link...
  EXPECT_EQ(test::ReadFileBytes(real), "NEW");  // ...to the new file.
  EXPECT_EQ(test::ReadFileBytes(link), "NEW");
  // A chain of links, the last one dangling: the file is created where
  // the chain ends, as open() would do.
  ASSERT_EQ(symlink(dir.File("real/new.mdl").c_str(),
                    dir.File("links/b").c_str()), 0);
  ASSERT_EQ(symlink("b", dir.File("links/a").c_str()), 0);
  WriteKaldiObject(Obj{{3}}, dir.File("links/a"), false);
  EXPECT_EQ(test::ReadFileBytes(dir.File("real/new.mdl")), "<Obj> [ 3 ]\n");
  ASSERT_EQ(lstat(dir.File("links/a").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(test::ReadFileBytes(dir.File("links/a")), "<Obj> [ 3 ]\n");
}

TEST(StreamTest, DirectoryWithoutWriteAccessIsAClearError) {
  // The file itself is writable, its directory is not: no temporary can be
  // made, and the output fails at Open() rather than writing in place.
  test::TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  ASSERT_EQ(mkdir(dir.File("ro").c_str(), 0755), 0);
  std::string f = dir.File("ro/model");
  test::WriteFileBytes(f, "OLD");
  ASSERT_EQ(chmod(f.c_str(), 0666), 0);
  ASSERT_EQ(chmod(dir.File("ro").c_str(), 0555), 0);
  auto child = [&] {
    // Root ignores directory permissions: run as "nobody" then.
    if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
      std::exit(2);
    std::string err = test::UserErrorOf([&] { Output ko(f, true, true); });
    bool ok = err.find(f) != std::string::npos &&
              err.find("cannot create a temporary file in its directory") !=
                  std::string::npos;
    std::exit(ok ? 0 : 1);
  };
  EXPECT_EXIT(child(), testing::ExitedWithCode(0), "");
  ASSERT_EQ(chmod(dir.File("ro").c_str(), 0755), 0);
  EXPECT_EQ(test::ReadFileBytes(f), "OLD");
  EXPECT_EQ(dir.List(), std::vector<std::string>{"ro"});
}
}  // namespace
}  // namespace nnet3
