// tests/cli/tools-cli-test.cc
// The foundation tools run as a user runs them: through pipes, with scp
// files, gzip, single files, and with every kind of bad input. Expected
// bytes come from Kaldi's reference files (tests/data/kaldi/io) or from
// arithmetic done here on the text form of the data.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "common/sanitizers.h"
#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

std::string Io() { return DataDir() + "/kaldi/io"; }

// A parsed text archive of matrices: key -> rows of values.
std::map<std::string, std::vector<std::vector<double> > > ParseTextArchive(
    const std::string &text) {
  std::map<std::string, std::vector<std::vector<double> > > out;
  std::istringstream is(text);
  std::string key, tok;
  while (is >> key) {
    is >> tok;  // "["
    EXPECT_EQ(tok, "[");
    std::vector<std::vector<double> > rows;
    std::string line;
    std::getline(is, line);  // rest of the "[" line
    if (line.find(']') != std::string::npos) {  // empty matrix " [ ]"
      out[key] = rows;
      continue;
    }
    while (std::getline(is, line)) {
      std::istringstream ls(line);
      std::vector<double> row;
      bool end = false;
      while (ls >> tok) {
        if (tok == "]") { end = true; break; }
        row.push_back(std::stod(tok));
      }
      if (!row.empty()) rows.push_back(row);
      if (end) break;
    }
    out[key] = rows;
  }
  return out;
}

class ToolsCli : public ::testing::Test {
 protected:
  void SetUp() override { CopyTree(Io(), dir_.File("io")); }
  CommandResult Run(const std::string &cmd) { return RunCommand(cmd, dir_.path()); }
  std::string Read(const std::string &f) { return ReadFile(dir_.File(f)); }
  TempDir dir_;
};

TEST_F(ToolsCli, StdinToStdoutThroughPipes) {
  CommandResult r = Run("cat io/feats.ark | copy-feats ark:- ark,t:- | cat");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(Io() + "/feats.txt"));
  // Text in, binary out through a pipe, then back.
  // (Text keeps 7 digits, so the binary equals Kaldi's text-to-binary copy.)
  r = Run("copy-feats ark:io/feats.txt ark:- | copy-feats ark:- ark:-");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(Io() + "/feats_from_text.ark"));
}

TEST_F(ToolsCli, ArkScpWriteThenScpRead) {
  CommandResult r = Run(
      "copy-feats ark:io/feats.ark ark,scp:out.ark,out.scp && "
      "copy-feats scp:out.scp ark:-");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(Io() + "/feats.ark"));
  // scp lines point just past "key " in the archive.
  std::istringstream scp(Read("out.scp"));
  std::string ark = Read("out.ark"), key, loc;
  int n = 0;
  while (scp >> key >> loc) {
    size_t colon = loc.rfind(':');
    ASSERT_NE(colon, std::string::npos);
    EXPECT_EQ(loc.substr(0, colon), "out.ark");
    size_t off = std::stoul(loc.substr(colon + 1));
    ASSERT_GE(off, key.size() + 1);
    EXPECT_EQ(ark.substr(off - key.size() - 1, key.size() + 1), key + " ");
    EXPECT_EQ(ark.substr(off, 2), std::string("\0B", 2));
    n++;
  }
  EXPECT_GT(n, 3);
}

TEST_F(ToolsCli, GzipPipesBothWays) {
  CommandResult r = Run(
      "copy-feats 'ark:gunzip -c io/feats.ark.gz |' 'ark:| gzip -c > out.ark.gz' "
      "&& gunzip -c out.ark.gz");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(Io() + "/feats.ark"));
}

TEST_F(ToolsCli, ScpWithRangesSelectsRowsAndColumns) {
  CommandResult full = Run("copy-feats ark:io/feats.ark ark,t:-");
  ASSERT_EQ(full.exit_status, 0);
  auto feats = ParseTextArchive(full.out);
  WriteFile(dir_.File("r.scp"),
            "x io/feats2.ark:4[2:5,1:3]\ny io/feats2.ark:4[:,0:0]\n");
  CommandResult r = Run("copy-feats scp:r.scp ark,t:-");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto got = ParseTextArchive(r.out);
  const auto &a01 = feats.at("a01");
  ASSERT_EQ(got.at("x").size(), 4u);
  for (int i = 0; i < 4; i++) {
    ASSERT_EQ(got.at("x")[i].size(), 3u);
    for (int j = 0; j < 3; j++) EXPECT_EQ(got.at("x")[i][j], a01[2 + i][1 + j]);
  }
  ASSERT_EQ(got.at("y").size(), a01.size());
  for (size_t i = 0; i < a01.size(); i++) EXPECT_EQ(got.at("y")[i][0], a01[i][0]);
}

TEST_F(ToolsCli, FeatToDimLenAndSumRows) {
  auto feats = ParseTextArchive(ReadFile(Io() + "/feats.txt"));
  CommandResult r = Run("feat-to-len ark:io/feats_nonempty.ark ark,t:-");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::istringstream lens(r.out);
  std::string key;
  int len, total = 0;
  int n = 0;
  while (lens >> key >> len) {
    EXPECT_EQ(len, static_cast<int>(feats.at(key).size())) << key;
    total += len;
    n++;
  }
  EXPECT_EQ(n, static_cast<int>(feats.size()) - 1);  // minus the empty one
  r = Run("feat-to-len ark:io/feats_nonempty.ark");
  EXPECT_EQ(r.out, std::to_string(total) + "\n");
  r = Run("feat-to-dim ark:io/feats.ark -");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string(feats.begin()->second[0].size()) + "\n");
  r = Run("feat-to-dim io/mat_single.bin -");
  EXPECT_EQ(r.out, "6\n");

  r = Run("matrix-sum-rows ark:io/feats_nonempty.ark ark,t:-");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::istringstream sums(r.out);
  std::string tok;
  while (sums >> key) {
    sums >> tok;
    ASSERT_EQ(tok, "[");
    const auto &m = feats.at(key);
    for (size_t c = 0; c < m[0].size(); c++) {
      sums >> tok;
      double want = 0, scale = 0;
      for (const auto &row : m) {
        want += row[c];
        scale += std::fabs(row[c]);
      }
      EXPECT_NEAR(std::stod(tok), want, 1e-6 * scale + 1e-30) << key << " col " << c;
    }
    sums >> tok;
    EXPECT_EQ(tok, "]");
  }
}

TEST_F(ToolsCli, SingleFilesAndAtomicWrite) {
  CommandResult r = Run("copy-matrix --binary=false io/mat_single.bin m.txt && cat m.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(Io() + "/mat_single.txt"));
  // A failing copy leaves the existing output untouched and no temp files.
  WriteFile(dir_.File("good.mat"), "precious");
  r = Run("copy-matrix io/neg_ragged.txt good.mat");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_EQ(Read("good.mat"), "precious");
  CommandResult ls = Run("ls");
  EXPECT_EQ(ls.out.find("tmp"), std::string::npos) << ls.out;
  // Scaling: every value doubles.
  r = Run("copy-matrix --scale=2 --binary=false io/mat_single.bin -");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::istringstream a(ReadFile(Io() + "/mat_single.txt")), b(r.out);
  std::string x, y;
  while (a >> x && b >> y) {
    if (x == "[" || x == "]") { EXPECT_EQ(x, y); continue; }
    // Both sides went through 7-digit text: compare to that precision.
    EXPECT_NEAR(std::stod(y), 2 * std::stod(x), 2e-6 * std::fabs(std::stod(y)));
  }
  r = Run("copy-vector --binary=false io/vec_single.bin -");
  EXPECT_EQ(r.out, ReadFile(Io() + "/vec_single.txt"));
}

TEST_F(ToolsCli, AlignmentsToPosteriors) {
  CommandResult r = Run("copy-int-vector ark:io/ali.txt ark:- | ali-to-post ark:- ark,t:-");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(Io() + "/post.txt"));
  r = Run("copy-post --scale=0.5 ark:io/post.ark ark,t:-");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.out.find("[ 76 0.5 ]"), std::string::npos);
}

// ---- Error paths: exit status and the one-line message. ----------------

void ExpectError(const CommandResult &r, const std::vector<std::string> &fragments) {
  EXPECT_EQ(r.exit_status, 1) << r.err;
  std::string last = LastLine(r.err);
  EXPECT_EQ(last.rfind("ERROR (", 0), 0u) << r.err;
  for (const std::string &f : fragments)
    EXPECT_NE(last.find(f), std::string::npos)
        << "error line lacks '" << f << "': " << last;
}

TEST_F(ToolsCli, TruncatedArchiveNamesKeyAndFileAndKeepsEarlierOutput) {
  CommandResult r = Run("copy-feats ark:io/neg_truncated.ark ark,t:-");
  ExpectError(r, {"io/neg_truncated.ark", "a05"});
  EXPECT_EQ(r.out, ReadFile(Io() + "/neg_truncated_archive.stdout"));
}

// Sizes in a file that promise far more data than there is: one ERROR line
// naming the file, the key and the field, exit status 1, and no allocation
// of the declared size (the tool runs with 2 GB of address space, well
// under the 8-26 GB the headers ask for), from a file and through a pipe.
TEST_F(ToolsCli, LyingSizesGiveOneErrorLineWithoutAllocating) {
  // ASan-built tools cannot start under "ulimit -v" (their shadow memory
  // alone is terabytes of address space); the same readers are checked
  // in-process by the RunWithMemoryLimit tests (io-limits-test and others).
  if (testing::kAddressSanitizer)
    GTEST_SKIP() << "tools built with ASan cannot run under ulimit -v";
  auto int32_bytes = [](int32_t v) {
    std::string s(1, '\4');
    s.append(reinterpret_cast<const char *>(&v), 4);
    return s;
  };
  WriteFile(dir_.File("huge_int.ark"),
            std::string("utt1 \0B", 7) + int32_bytes(0x7fffffff) +
                std::string("\4\1\0\0\0", 5));
  WriteFile(dir_.File("huge_mat.ark"),
            std::string("utt2 \0BFM ", 10) + int32_bytes(50000) +
                int32_bytes(50000) + "12345678");
  const std::string limit = "ulimit -v 2000000; ";
  for (const char *input : {"ark:huge_int.ark", "ark:- < huge_int.ark",
                            "'ark:cat huge_int.ark |'"}) {
    CommandResult r =
        Run(limit + "copy-int-vector " + input + " ark,t:-");
    ExpectError(r, {"utt1", "BasicVectorHolder: the element count 2147483647"});
    EXPECT_EQ(r.err.find("ERROR ("), r.err.rfind("ERROR (")) << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
  }
  CommandResult r = Run(limit + "copy-int-vector ark:huge_int.ark ark,t:-");
  ExpectError(r, {"huge_int.ark"});
  for (const char *input : {"ark:huge_mat.ark", "ark:- < huge_mat.ark",
                            "'ark:cat huge_mat.ark |'"}) {
    r = Run(limit + "copy-feats " + input + " ark,t:-");
    ExpectError(r, {"utt2", "50000x50000"});
    EXPECT_EQ(r.err.find("ERROR ("), r.err.rfind("ERROR (")) << r.err;
    EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
  }
}

TEST_F(ToolsCli, CorruptTokenNamesToken) {
  ExpectError(Run("copy-feats ark:io/neg_badtoken.ark ark,t:-"), {"FX", "FM"});
}

TEST_F(ToolsCli, MissingScpTargetNamesFile) {
  ExpectError(Run("cd io && copy-feats scp:neg_missing.scp ark,t:-"),
              {"does_not_exist.ark"});
}

TEST_F(ToolsCli, BadRspecifierAndMissingFile) {
  ExpectError(Run("ali-to-post nonsense ark,t:-"), {"nonsense"});
  ExpectError(Run("copy-feats ark:no_such.ark ark,t:-"), {"no_such.ark"});
  ExpectError(Run("copy-feats ark:io/feats.ark ark:no_such_dir/x.ark"),
              {"no_such_dir/x.ark"});
}

TEST_F(ToolsCli, RaggedTextMatrix) {
  ExpectError(Run("copy-feats ark:io/neg_ragged.txt ark,t:-"),
              {"inconsistent #cols", "bad"});
}

TEST_F(ToolsCli, OutOfRangeScpRange) {
  ExpectError(Run("cd io && copy-feats scp:neg_bad_range.scp ark,t:-"),
              {"0:200", "37x13"});
}

TEST_F(ToolsCli, UnknownOptionAndBadValue) {
  ExpectError(Run("copy-feats --no-such-option=1 ark:io/feats.ark ark,t:-"),
              {"--no-such-option"});
  ExpectError(Run("copy-feats --binary=maybe io/mat_single.bin -"),
              {"binary", "maybe"});
  ExpectError(Run("copy-feats --compress=true --compression-method=9 "
                  "ark:io/feats.ark ark:/dev/null"),
              {"compression-method"});
}

TEST_F(ToolsCli, WrongArgumentCountPrintsUsage) {
  CommandResult r = Run("copy-feats ark:io/feats.ark");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("Usage: copy-feats"), std::string::npos) << r.err;
}

TEST_F(ToolsCli, HelpListsOptionsWithDefaults) {
  CommandResult r = Run("copy-feats --help");
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_NE(r.err.find("Usage: copy-feats"), std::string::npos);
  EXPECT_NE(r.err.find("--compression-method"), std::string::npos);
  EXPECT_NE(r.err.find("default = 1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--binary"), std::string::npos);
}

TEST_F(ToolsCli, ConfigFileAndPrintArgs) {
  WriteFile(dir_.File("conf"), "# options\n--binary=false\n");
  CommandResult r = Run("copy-matrix --config=conf io/mat_single.bin -");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(Io() + "/mat_single.txt"));
  // The command line is echoed to stderr (Kaldi's --print-args default).
  EXPECT_NE(r.err.find("copy-matrix --config=conf io/mat_single.bin -"),
            std::string::npos) << r.err;
}

TEST_F(ToolsCli, FailingOutputPipeIsAnError) {
  CommandResult r = Run("copy-feats ark:io/feats.ark 'ark:| exit 3'");
  EXPECT_NE(r.exit_status, 0);
  EXPECT_LT(r.exit_status, 128) << "died of a signal: " << r.err;
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
