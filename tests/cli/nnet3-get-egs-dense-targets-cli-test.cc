// tests/cli/nnet3-get-egs-dense-targets-cli-test.cc
// nnet3-get-egs-dense-targets through the real tool. The oracle is
// nnet3-get-egs on the same features with posteriors from the same
// alignment: with one-hot dense targets and chunks that do not overlap,
// both must give the same keys, the same input rows and indexes, and the
// same output values (one dense, one sparse). Also: --compress compresses
// the targets too, and bad input (wrong --num-targets, missing or NaN
// targets, targets too long or too short for the chunks) gives warnings or
// one ERROR line, never a crash.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/testing.h"
#include "nnet3/egs/nnet-example.h"

namespace nnet3 {
namespace testing {
namespace {

// Text archive of one matrix per (key, rows), entry (r, c) = f(key, r, c).
std::string FeatureArchive(const std::vector<std::pair<std::string, int>> &utts,
                           int dim) {
  std::ostringstream os;
  for (size_t u = 0; u < utts.size(); u++) {
    os << utts[u].first << " [\n";
    for (int r = 0; r < utts[u].second; r++) {
      for (int c = 0; c < dim; c++) os << " " << (0.25 * r - 0.5 * c + u);
      os << (r + 1 == utts[u].second ? " ]\n" : "\n");
    }
  }
  return os.str();
}

// Alignment of utterance u, frame t (pdfs 0..3).
int Pdf(size_t u, int t) { return static_cast<int>((3 * t + u) % 4); }

class DenseTargetsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    utts_ = {{"u1", 24}, {"u2", 16}};
    WriteFile(dir_.File("feats.txt"), FeatureArchive(utts_, 5));
    std::ostringstream ali, targets;
    for (size_t u = 0; u < utts_.size(); u++) {
      ali << utts_[u].first;
      targets << utts_[u].first << " [\n";
      for (int t = 0; t < utts_[u].second; t++) {
        ali << " " << Pdf(u, t);
        for (int k = 0; k < 4; k++) targets << (k == Pdf(u, t) ? " 1" : " 0");
        targets << (t + 1 == utts_[u].second ? " ]\n" : "\n");
      }
      ali << "\n";
    }
    WriteFile(dir_.File("ali.txt"), ali.str());
    WriteFile(dir_.File("targets.txt"), targets.str());
  }
  CommandResult Run(const std::string &command) {
    return RunCommand(command, dir_.path());
  }
  std::vector<std::pair<std::string, NnetExample>> ReadEgs(
      const std::string &file) {
    std::vector<std::pair<std::string, NnetExample>> egs;
    SequentialNnetExampleReader reader("ark:" + dir_.File(file));
    for (; !reader.Done(); reader.Next())
      egs.push_back(std::make_pair(reader.Key(), reader.Value()));
    return egs;
  }
  const NnetIo *Io(const NnetExample &eg, const std::string &name) {
    for (const NnetIo &io : eg.io)
      if (io.name == name) return &io;
    return nullptr;
  }
  std::vector<std::pair<std::string, int>> utts_;
  TempDir dir_;
};

const char *kSplit = " --num-frames=8 --left-context=2 --right-context=2 ";

TEST_F(DenseTargetsCli, OneHotTargetsGiveTheSparseEgsValues) {
  CommandResult r = Run(
      std::string("ali-to-post ark:ali.txt ark:post.ark && "
                  "nnet3-get-egs --num-pdfs=4 --compress=false") +
      kSplit + "ark:feats.txt ark:post.ark ark:sparse.egs && "
      "nnet3-get-egs-dense-targets --num-targets=4 --compress=false" + kSplit +
      "ark:feats.txt ark:targets.txt ark:dense.egs");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto sparse = ReadEgs("sparse.egs"), dense = ReadEgs("dense.egs");
  ASSERT_EQ(dense.size(), 5u);  // 24 / 8 + 16 / 8 chunks
  ASSERT_EQ(dense.size(), sparse.size());
  for (size_t i = 0; i < dense.size(); i++) {
    SCOPED_TRACE(dense[i].first);
    EXPECT_EQ(dense[i].first, sparse[i].first);
    const NnetIo *din = Io(dense[i].second, "input"),
                 *sin = Io(sparse[i].second, "input"),
                 *dout = Io(dense[i].second, "output"),
                 *sout = Io(sparse[i].second, "output");
    ASSERT_TRUE(din && sin && dout && sout);
    EXPECT_TRUE(din->indexes == sin->indexes);
    Matrix<BaseFloat> a, b;
    din->features.GetMatrix(&a);
    sin->features.GetMatrix(&b);
    EXPECT_TRUE(a.Equal(b));
    EXPECT_TRUE(dout->indexes == sout->indexes);
    EXPECT_EQ(dout->features.Type(), kFullMatrix);
    EXPECT_EQ(sout->features.Type(), kSparseMatrix);
    dout->features.GetMatrix(&a);
    sout->features.GetMatrix(&b);
    EXPECT_TRUE(a.Equal(b));
    EXPECT_EQ(a.NumRows(), 8);
    EXPECT_EQ(a.NumCols(), 4);
  }
}

TEST_F(DenseTargetsCli, CompressCoversTheTargets) {
  CommandResult r = Run(std::string("nnet3-get-egs-dense-targets") + kSplit +
                        "ark:feats.txt ark:targets.txt ark:c.egs");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  auto egs = ReadEgs("c.egs");
  ASSERT_FALSE(egs.empty());
  EXPECT_EQ(Io(egs[0].second, "input")->features.Type(), kCompressedMatrix);
  EXPECT_EQ(Io(egs[0].second, "output")->features.Type(), kCompressedMatrix);
}

TEST_F(DenseTargetsCli, BadTargets) {
  // A wrong --num-targets is one ERROR line naming the utterance.
  CommandResult r = Run(std::string("nnet3-get-egs-dense-targets "
                                    "--num-targets=5") +
                        kSplit + "ark:feats.txt ark:targets.txt ark:x.egs");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_EQ(LastLine(r.err).rfind("ERROR (", 0), 0u) << r.err;
  EXPECT_NE(LastLine(r.err).find("u1"), std::string::npos) << r.err;
  EXPECT_NE(LastLine(r.err).find("--num-targets=5"), std::string::npos);

  // u2 without targets, u1's targets too short for its last chunk: both
  // skipped with warnings (where Kaldi's tool stops on an assertion) and
  // nothing is written. The exit status is the splitter's, as Kaldi's.
  WriteFile(dir_.File("short.txt"), "u1 [\n" + std::string(
      "1 0 0 0\n1 0 0 0\n1 0 0 0\n1 0 0 0\n1 0 0 0\n1 0 0 0\n1 0 0 0\n"
      "1 0 0 0\n1 0 0 0\n1 0 0 0 ]\n"));
  r = Run(std::string("nnet3-get-egs-dense-targets") + kSplit +
          "ark:feats.txt ark:short.txt ark:s.egs");
  EXPECT_TRUE(ReadEgs("s.egs").empty());
  EXPECT_NE(r.err.find("No target matrix for key u2"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("needs target row"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("ERROR"), std::string::npos) << r.err;

  // Targets longer than the features by more than --length-tolerance, and
  // NaN in the targets: skipped with a warning; the other utterance is used.
  std::string targets = ReadFile(dir_.File("targets.txt"));
  std::string nan_targets = targets;
  nan_targets.replace(nan_targets.find("u2 [\n") + 6, 1, "nan");
  WriteFile(dir_.File("nan.txt"), nan_targets);
  r = Run(std::string("nnet3-get-egs-dense-targets") + kSplit +
          "ark:feats.txt ark:nan.txt ark:n.egs");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("NaN or infinity in the targets"), std::string::npos)
      << r.err;
  EXPECT_EQ(ReadEgs("n.egs").size(), 3u);
  std::string longer = targets;
  std::string extra;
  for (int i = 0; i < 5; i++) extra += "0 0 0 1\n";
  longer.insert(longer.find("u2 [\n") + 5, extra);
  WriteFile(dir_.File("long.txt"), longer);
  r = Run(std::string("nnet3-get-egs-dense-targets --length-tolerance=2") +
          kSplit + "ark:feats.txt ark:long.txt ark:l.egs");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("exceeds tolerance 2 for utterance u2"),
            std::string::npos) << r.err;
  EXPECT_EQ(ReadEgs("l.egs").size(), 3u);
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
