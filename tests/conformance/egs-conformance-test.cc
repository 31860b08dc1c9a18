// tests/conformance/egs-conformance-test.cc
// The egs tools against Kaldi's reference files in tests/data/kaldi/train
// (commands from train/commands.txt, run with tests/data/kaldi as working
// directory, outputs written to a scratch directory):
//  - nnet3-get-egs, nnet3-copy-egs (binary -> text, text -> binary -> text,
//    scp input) and nnet3-merge-egs (ark and scp output): byte-identical;
//  - shuffle / subset / frame selection / keep-proportion / round-robin:
//    properties with independent oracles (the C library's rand() and the
//    standard library's std::shuffle for the random choices, the input egs
//    for the content; egsrand-conformance-test compares with Kaldi's bytes);
//  - bad input: one ERROR line naming the archive and key, or a warning
//    naming the utterance.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "common/testing.h"
#include "nnet3/egs/nnet-example.h"

namespace nnet3 {
namespace testing {
namespace {

std::string Kaldi() { return DataDir() + "/kaldi"; }
std::string Train(const std::string &file) {
  return Kaldi() + "/train/" + file;
}

// Runs command in tests/data/kaldi; fails the test unless it exits 0.
void RunOk(const std::string &command) {
  CommandResult r = RunCommand(command, Kaldi());
  ASSERT_EQ(r.exit_status, 0) << command << "\nstderr:\n" << r.err;
}

// The line of train/commands.txt that starts with tool and mentions
// train/NAME.
std::string KaldiCommand(const std::string &tool, const std::string &name) {
  std::istringstream is(ReadFile(Train("commands.txt")));
  std::string line;
  while (std::getline(is, line))
    if (line.compare(0, tool.size() + 1, tool + " ") == 0 &&
        line.find("train/" + name + ".") != std::string::npos)
      return line;
  ADD_FAILURE() << "no " << tool << " command for " << name;
  return "";
}

std::string Replace(std::string s, const std::string &from,
                    const std::string &to) {
  size_t pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from << " not in " << s;
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

// (key, example in text form) for every entry of an archive.
std::vector<std::pair<std::string, std::string> > ReadEgs(
    const std::string &rspecifier) {
  std::vector<std::pair<std::string, std::string> > ans;
  SequentialNnetExampleReader reader(rspecifier);
  for (; !reader.Done(); reader.Next()) {
    std::ostringstream os;
    reader.Value().Write(os, false);
    ans.push_back(std::make_pair(reader.Key(), os.str()));
  }
  return ans;
}

std::vector<std::string> Keys(
    const std::vector<std::pair<std::string, std::string> > &egs) {
  std::vector<std::string> keys;
  for (const auto &eg : egs) keys.push_back(eg.first);
  return keys;
}

int CountErrorLines(const std::string &err) {
  int n = 0;
  std::istringstream is(err);
  std::string line;
  while (std::getline(is, line))
    if (line.compare(0, 5, "ERROR") == 0) n++;
  return n;
}

class EgsConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(EgsConformance, GetEgsMatchesKaldi) {
  const std::string &name = GetParam();
  TempDir dir;
  std::string command = Replace(KaldiCommand("nnet3-get-egs", name),
                                "ark:train/" + name + ".egs.ark",
                                "ark:" + dir.File("egs.ark"));
  RunOk(command);
  EXPECT_TRUE(ReadFile(dir.File("egs.ark")) ==
              ReadFile(Train(name + ".egs.ark")))
      << command;
}

TEST_P(EgsConformance, CopyToTextAndBack) {
  const std::string &name = GetParam();
  TempDir dir;
  RunOk("nnet3-copy-egs ark:train/" + name + ".egs.ark ark,t:" +
      dir.File("egs.txt"));
  EXPECT_TRUE(ReadFile(dir.File("egs.txt")) ==
              ReadFile(Train(name + ".egs.txt")));
  // Text -> binary -> text is the identity. Text -> binary equals Kaldi's
  // binary when the features are full matrices (compressed ones come back
  // from text as full matrices).
  RunOk("nnet3-copy-egs ark,t:train/" + name + ".egs.txt ark:" +
      dir.File("back.ark"));
  RunOk("nnet3-copy-egs ark:" + dir.File("back.ark") + " ark,t:" +
      dir.File("back.txt"));
  EXPECT_TRUE(ReadFile(dir.File("back.txt")) ==
              ReadFile(Train(name + ".egs.txt")));
  if (KaldiCommand("nnet3-get-egs", name).find("--compress=false") !=
      std::string::npos) {
    EXPECT_TRUE(ReadFile(dir.File("back.ark")) ==
                ReadFile(Train(name + ".egs.ark")));
  }
}

TEST_P(EgsConformance, MergeMatchesKaldi) {
  const std::string &name = GetParam();
  TempDir dir;
  std::string command = Replace(
      KaldiCommand("nnet3-merge-egs", name),
      "ark,scp:train/" + name + ".merged.ark,train/" + name + ".merged.scp",
      "ark,scp:" + dir.File("m.ark") + "," + dir.File("m.scp"));
  RunOk(command);
  EXPECT_TRUE(ReadFile(dir.File("m.ark")) ==
              ReadFile(Train(name + ".merged.ark")));
  // Same keys and offsets; the file names differ.
  std::string ours = ReadFile(dir.File("m.scp")),
              kaldi = ReadFile(Train(name + ".merged.scp"));
  std::string our_dir_prefix = dir.File("m.ark"),
              kaldi_prefix = "train/" + name + ".merged.ark";
  size_t pos;
  while ((pos = ours.find(our_dir_prefix)) != std::string::npos)
    ours.replace(pos, our_dir_prefix.size(), kaldi_prefix);
  EXPECT_EQ(ours, kaldi);
  RunOk("nnet3-copy-egs ark:train/" + name + ".merged.ark ark,t:" +
      dir.File("m.txt"));
  EXPECT_TRUE(ReadFile(dir.File("m.txt")) ==
              ReadFile(Train(name + ".merged.txt")));
}

TEST_P(EgsConformance, CopyFromScpMatchesKaldi) {
  const std::string &name = GetParam();
  TempDir dir;
  for (const char *mb : {"mb1", "mb3"}) {
    RunOk("nnet3-copy-egs scp:train/" + name + "." + mb + ".scp ark:" +
        dir.File("out.ark"));
    EXPECT_TRUE(ReadFile(dir.File("out.ark")) ==
                ReadFile(Train(name + "." + mb + ".ark")))
        << mb;
  }
  RunOk("nnet3-copy-egs ark:train/" + name + ".mb1.ark ark,t:" +
      dir.File("mb1.txt"));
  EXPECT_TRUE(ReadFile(dir.File("mb1.txt")) ==
              ReadFile(Train(name + ".mb1.txt")));
}

INSTANTIATE_TEST_SUITE_P(Train, EgsConformance,
                         ::testing::Values("affine", "batchnorm", "natgrad"));

// The affine egs: kEgs for commands (run in tests/data/kaldi), InputEgs()
// for reading here.
const char kEgs[] = "ark:train/affine.egs.ark";
std::string InputEgs() { return "ark:" + Train("affine.egs.ark"); }

// The order Kaldi's shuffle gives n items for --srand=seed: std::shuffle
// over std::mt19937(seed), computed here with the standard library itself
// (tests/nnet3/egs checks that library's algorithm against libstdc++'s, and
// the egsrand conformance test against Kaldi's own output).
std::vector<int> ShuffledOrder(int n, unsigned seed) {
  std::vector<int> order(n);
  for (int i = 0; i < n; i++) order[i] = i;
  std::mt19937 engine(seed);
  std::shuffle(order.begin(), order.end(), engine);
  return order;
}

TEST(EgsTools, ShuffleIsKaldisPermutation) {
  TempDir dir;
  auto input = ReadEgs(InputEgs());
  ASSERT_EQ(input.size(), 63u);
  RunOk(std::string("nnet3-shuffle-egs --srand=5 ") + kEgs + " ark:" +
      dir.File("a.ark"));
  RunOk(std::string("nnet3-shuffle-egs --srand=5 ") + kEgs + " ark:" +
      dir.File("b.ark"));
  EXPECT_TRUE(ReadFile(dir.File("a.ark")) == ReadFile(dir.File("b.ark")));
  auto shuffled = ReadEgs("ark:" + dir.File("a.ark"));
  std::vector<int> order = ShuffledOrder(63, 5);
  ASSERT_EQ(shuffled.size(), 63u);
  for (int i = 0; i < 63; i++) EXPECT_EQ(shuffled[i], input[order[i]]) << i;

  // With a buffer: still a permutation of the input, examples intact.
  RunOk(std::string("nnet3-shuffle-egs --buffer-size=8 --srand=1 ") + kEgs +
      " ark:" + dir.File("c.ark"));
  auto buffered = ReadEgs("ark:" + dir.File("c.ark"));
  EXPECT_NE(Keys(buffered), Keys(input));
  std::sort(buffered.begin(), buffered.end());
  auto sorted_input = input;
  std::sort(sorted_input.begin(), sorted_input.end());
  EXPECT_EQ(buffered, sorted_input);
}

TEST(EgsTools, Subset) {
  TempDir dir;
  auto input = ReadEgs(InputEgs());
  std::map<std::string, std::string> by_key(input.begin(), input.end());
  RunOk(std::string("nnet3-subset-egs --n=10 --srand=2 ") + kEgs + " ark:" +
      dir.File("s.ark"));
  auto subset = ReadEgs("ark:" + dir.File("s.ark"));
  ASSERT_EQ(subset.size(), 10u);
  std::set<std::string> keys;
  for (const auto &eg : subset) {
    keys.insert(eg.first);
    ASSERT_TRUE(by_key.count(eg.first)) << eg.first;
    EXPECT_EQ(eg.second, by_key[eg.first]);
  }
  EXPECT_EQ(keys.size(), 10u);
  // A subset larger than the input, in order: the input itself.
  RunOk(std::string("nnet3-subset-egs --n=100 --randomize-order=false ") +
      kEgs + " ark:" + dir.File("all.ark"));
  EXPECT_TRUE(ReadFile(dir.File("all.ark")) ==
              ReadFile(Train("affine.egs.ark")));
  // --n=0 (Kaldi's get_egs.sh asks for it): an empty archive, exit 0.
  RunOk(std::string("nnet3-subset-egs --n=0 ") + kEgs + " ark:" +
        dir.File("none.ark"));
  EXPECT_EQ(ReadFile(dir.File("none.ark")), "");
}

TEST(EgsTools, CopyFrameAndContext) {
  TempDir dir;
  // affine egs: input t = -3 .. 10, output t = 0 .. 7. --frame alone keeps
  // the input; with the contexts, input t = 0 .. 6 remains.
  RunOk(std::string("nnet3-copy-egs --frame=3 ") + kEgs + " ark:" +
        dir.File("f1.ark"));
  for (const auto &eg : ReadEgs("ark:" + dir.File("f1.ark"))) {
    EXPECT_NE(eg.second.find("input <I1V> 14 "), std::string::npos);
    EXPECT_NE(eg.second.find("output <I1V> 1 <I1> 0 3 0 "),
              std::string::npos);
  }
  RunOk(std::string("nnet3-copy-egs --frame=3 --left-context=3 "
                    "--right-context=3 ") +
        kEgs + " ark:" + dir.File("f.ark"));
  SequentialNnetExampleReader in(InputEgs());
  SequentialNnetExampleReader out("ark:" + dir.File("f.ark"));
  int num = 0;
  for (; !in.Done() && !out.Done(); in.Next(), out.Next(), num++) {
    const NnetExample &a = in.Value(), &b = out.Value();
    ASSERT_EQ(b.io.size(), 2u);
    ASSERT_EQ(b.io[0].name, "input");
    ASSERT_EQ(b.io[0].indexes.size(), 7u);  // t = 0 .. 6
    EXPECT_EQ(b.io[0].indexes.front().t, 0);
    EXPECT_EQ(b.io[0].indexes.back().t, 6);
    ASSERT_EQ(b.io[1].indexes.size(), 1u);
    EXPECT_EQ(b.io[1].indexes[0].t, 3);
    Matrix<BaseFloat> fa, fb, oa, ob;
    a.io[0].features.GetMatrix(&fa);
    b.io[0].features.GetMatrix(&fb);
    for (int32 r = 0; r < 7; r++)
      for (int32 c = 0; c < fa.NumCols(); c++)
        EXPECT_EQ(fb(r, c), fa(r + 3, c));
    a.io[1].features.GetMatrix(&oa);
    b.io[1].features.GetMatrix(&ob);
    for (int32 c = 0; c < oa.NumCols(); c++) EXPECT_EQ(ob(0, c), oa(3, c));
  }
  EXPECT_EQ(num, 63);
  EXPECT_TRUE(in.Done() && out.Done());

  RunOk(std::string("nnet3-copy-egs --left-context=1 --right-context=2 ") +
      kEgs + " ark:" + dir.File("c.ark"));
  for (const auto &eg : ReadEgs("ark:" + dir.File("c.ark"))) {
    EXPECT_NE(eg.second.find("input <I1V> 11 <I1> 0 -1 0 "),
              std::string::npos);
    EXPECT_NE(eg.second.find("output <I1V> 8 "), std::string::npos);
  }
  // A frame no example has: nothing written, exit status 1.
  CommandResult r = RunCommand(std::string("nnet3-copy-egs --frame=9 ") +
                                   kEgs + " ark:" + dir.File("none.ark"),
                               Kaldi());
  EXPECT_EQ(r.exit_status, 1);
}

TEST(EgsTools, KeepProportionAndRoundRobin) {
  TempDir dir;
  auto input = ReadEgs(InputEgs());
  // Kaldi draws WithProb(0.5) per example: rand() < 2^31 * 0.5.
  std::srand(1);
  std::vector<std::string> expected;
  for (const auto &eg : input)
    if (static_cast<float>(std::rand()) < 2147483648.0f * 0.5f)
      expected.push_back(eg.first);
  RunOk(std::string("nnet3-copy-egs --keep-proportion=0.5 --srand=1 ") + kEgs +
      " ark:" + dir.File("half.ark"));
  EXPECT_EQ(Keys(ReadEgs("ark:" + dir.File("half.ark"))), expected);

  RunOk(std::string("nnet3-copy-egs --keep-proportion=2 ") + kEgs + " ark:" +
      dir.File("twice.ark"));
  auto twice = ReadEgs("ark:" + dir.File("twice.ark"));
  ASSERT_EQ(twice.size(), 2 * input.size());
  for (size_t i = 0; i < input.size(); i++) {
    EXPECT_EQ(twice[2 * i], input[i]);
    EXPECT_EQ(twice[2 * i + 1], input[i]);
  }

  RunOk(std::string("nnet3-copy-egs ") + kEgs + " ark:" + dir.File("0.ark") +
      " ark:" + dir.File("1.ark") + " ark:" + dir.File("2.ark"));
  for (int k = 0; k < 3; k++) {
    auto part = ReadEgs("ark:" + dir.File(std::to_string(k) + ".ark"));
    ASSERT_EQ(part.size(), 21u);
    for (size_t i = 0; i < part.size(); i++)
      EXPECT_EQ(part[i], input[3 * i + k]);
  }
}

TEST(EgsTools, TruncatedArchivesFailWithOneLine) {
  TempDir dir;
  std::string bin = ReadFile(Train("affine.egs.ark")),
              txt = ReadFile(Train("affine.egs.txt"));
  WriteFile(dir.File("t.ark"), bin.substr(0, 30000));
  WriteFile(dir.File("t.txt"), txt.substr(0, 30000));
  for (const std::string &spec :
       {"ark:" + dir.File("t.ark"), "ark,t:" + dir.File("t.txt")}) {
    for (const char *tool : {"nnet3-copy-egs", "nnet3-merge-egs",
                             "nnet3-shuffle-egs"}) {
      CommandResult r = RunCommand(std::string(tool) + " " + spec + " ark:" +
                                       dir.File("out.ark"),
                                   Kaldi());
      EXPECT_NE(r.exit_status, 0) << tool << " " << spec;
      EXPECT_EQ(CountErrorLines(r.err), 1) << r.err;
      EXPECT_NE(r.err.find(spec.substr(spec.find(':') + 1)),
                std::string::npos)
          << r.err;
      EXPECT_NE(r.err.find("for key affine-utt"), std::string::npos)
          << r.err;
    }
  }
}

TEST(EgsTools, RowCountMismatchNamesTheKey) {
  TempDir dir;
  std::string txt = ReadFile(Train("affine.egs.txt"));
  // The second example's input claims 15 indexes, its matrix has 14 rows.
  size_t pos = txt.find("affine-utt1-7 <Nnet3Eg> <NumIo> 2 <NnetIo> input "
                        "<I1V> 14 ");
  ASSERT_NE(pos, std::string::npos);
  std::string bad = txt;
  size_t count = bad.find("<I1V> 14 ", pos);
  bad.replace(count, 9, "<I1V> 15 <I1> 0 11 0 ");
  WriteFile(dir.File("bad.txt"), bad);
  CommandResult r = RunCommand("nnet3-copy-egs ark,t:" + dir.File("bad.txt") +
                                   " ark:" + dir.File("out.ark"),
                               Kaldi());
  EXPECT_NE(r.exit_status, 0);
  EXPECT_EQ(CountErrorLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("affine-utt1-7"), std::string::npos) << r.err;
}

TEST(EgsTools, GetEgsBadInput) {
  TempDir dir;
  std::string base = KaldiCommand("nnet3-get-egs", "affine");
  // NaN in utterance 2's features: a warning names it, its egs are left
  // out, the others are written.
  std::string feats = ReadFile(Train("affine.feats.txt"));
  size_t utt2 = feats.find("affine-utt2");
  ASSERT_NE(utt2, std::string::npos);
  size_t row = feats.find('\n', feats.find('\n', utt2) + 1) + 1;
  size_t first = feats.find_first_not_of(' ', row);
  size_t end = feats.find(' ', first);
  feats.replace(first, end - first, "nan");
  WriteFile(dir.File("nan.feats.txt"), feats);
  std::string command = Replace(
      Replace(base, "ark,t:train/affine.feats.txt",
              "ark,t:" + dir.File("nan.feats.txt")),
      "ark:train/affine.egs.ark", "ark:" + dir.File("nan.ark"));
  CommandResult r = RunCommand(command, Kaldi());
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("affine-utt2: NaN or infinity in the features (row 1)"),
            std::string::npos)
      << r.err;
  auto egs = ReadEgs("ark:" + dir.File("nan.ark"));
  auto all = ReadEgs(InputEgs());
  std::vector<std::pair<std::string, std::string> > expected;
  for (const auto &eg : all)
    if (eg.first.compare(0, 12, "affine-utt2-") != 0) expected.push_back(eg);
  EXPECT_EQ(egs, expected);

  // A pdf id beyond --num-pdfs: one ERROR line naming the utterance.
  r = RunCommand(Replace(Replace(base, "--num-pdfs=12", "--num-pdfs=5"),
                         "ark:train/affine.egs.ark",
                         "ark:" + dir.File("x.ark")),
                 Kaldi());
  EXPECT_NE(r.exit_status, 0);
  EXPECT_EQ(CountErrorLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("Utterance affine-utt1"), std::string::npos) << r.err;

  r = RunCommand("nnet3-get-egs ark,t:train/affine.feats.txt "
                 "ark,t:train/affine.post.txt ark:" + dir.File("x.ark"),
                 Kaldi());
  EXPECT_NE(r.exit_status, 0);
  EXPECT_NE(r.err.find("--num-pdfs"), std::string::npos) << r.err;

  r = RunCommand(std::string("nnet3-merge-egs --minibatch-size=64:x ") +
                     kEgs + " ark:" + dir.File("x.ark"),
                 Kaldi());
  EXPECT_NE(r.exit_status, 0);
  EXPECT_EQ(CountErrorLines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("--minibatch-size=64:x"), std::string::npos) << r.err;
}

TEST(EgsTools, GetEgsWithOnlineIvectors) {
  TempDir dir;
  // Online iVectors for the affine utterances: one row per 10 frames,
  // row r = (r, -r).
  std::string feats = ReadFile(Train("affine.feats.txt"));
  std::ostringstream ivectors;
  std::map<std::string, int> num_rows;
  std::istringstream is(feats);
  std::string line, utt;
  int frames = 0;
  auto finish = [&]() {
    if (utt.empty()) return;
    int rows = (frames + 9) / 10;
    num_rows[utt] = rows;
    ivectors << utt << "  [\n";
    for (int r = 0; r < rows; r++)
      ivectors << "  " << r << " " << -r << (r + 1 < rows ? " \n" : " ]\n");
  };
  while (std::getline(is, line)) {
    if (line.find('[') != std::string::npos) {
      finish();
      utt = line.substr(0, line.find(' '));
      frames = 0;
    } else {
      frames++;
    }
  }
  finish();
  WriteFile(dir.File("ivec.txt"), ivectors.str());
  std::string command =
      Replace(KaldiCommand("nnet3-get-egs", "affine"),
              "ark:train/affine.egs.ark", "ark:" + dir.File("iv.ark"));
  command = Replace(command, "nnet3-get-egs ",
                    "nnet3-get-egs --online-ivectors=ark,t:" +
                        dir.File("ivec.txt") + " --online-ivector-period=10 ");
  RunOk(command);
  SequentialNnetExampleReader with(("ark:" + dir.File("iv.ark")));
  SequentialNnetExampleReader without(InputEgs());
  int num = 0;
  for (; !with.Done() && !without.Done(); with.Next(), without.Next()) {
    num++;
    ASSERT_EQ(with.Key(), without.Key());
    const NnetExample &a = with.Value(), &b = without.Value();
    ASSERT_EQ(a.io.size(), 3u);
    // input and output as without iVectors; the iVector is one row at t=0.
    EXPECT_TRUE(a.io[0].indexes == b.io[0].indexes &&
                a.io[2].indexes == b.io[1].indexes);
    EXPECT_EQ(a.io[1].name, "ivector");
    ASSERT_EQ(a.io[1].indexes.size(), 1u);
    EXPECT_EQ(a.io[1].indexes[0], Index(0, 0, 0));
    Matrix<BaseFloat> iv;
    a.io[1].features.GetMatrix(&iv);
    ASSERT_EQ(iv.NumCols(), 2);
    std::string utt_id = with.Key().substr(0, with.Key().rfind('-'));
    EXPECT_GE(iv(0, 0), 0.0f);
    EXPECT_LT(iv(0, 0), num_rows[utt_id]);
    EXPECT_EQ(iv(0, 1), -iv(0, 0));
  }
  EXPECT_EQ(num, 63);
  EXPECT_TRUE(with.Done() && without.Done());
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
