// tests/cli/nnet3-xvector-compute-cli-test.cc
// nnet3-xvector-compute as a user runs it. The x-vectors are checked
// against a computation done here independently: every chunk the tool
// should use (cut, and padded with repeated edge frames, by this test's own
// code) is written as its own utterance, run through nnet3-compute, and
// row 0 of each output is averaged by hand with chunk-length weights.
// Covered: whole-utterance and chunked extraction, padding of short chunks,
// skipping them with --pad-input=false, utterances that fail (too short,
// empty), and errors (feature dimension, missing output node, bad
// options, outputs that cannot be computed, usage), with exit statuses. A
// statistics-pooling network is checked against plain mean/stddev sums,
// also on utterances long enough for --reuse-compilation's blocks (and
// with it off). --num-threads: several threads give the naive values and
// the same bytes, warnings and order as one thread. Spliced frame layers
// computed as TdnnComponents give the x-vectors of the layers as built.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "common/testing.h"
#include "matrix/table-types.h"
#include "util/table.h"

namespace nnet3 {
namespace testing {
namespace {

// Left context 0, right context 1: output t=0 uses input frames 0 and 1.
const char *kConfig =
    "input-node name=input dim=4\n"
    "component name=affine type=AffineComponent input-dim=8 output-dim=5 "
    "bias-stddev=1\n"
    "component-node name=affine component=affine "
    "input=Append(input, Offset(input, 1))\n"
    "component name=tanh type=TanhComponent dim=5\n"
    "component-node name=tanh component=tanh input=affine\n"
    "output-node name=output input=tanh\n";

typedef std::vector<std::vector<double> > Frames;

class XvectorCli : public ::testing::Test {
 protected:
  CommandResult Run(const std::string &cmd) {
    return RunCommand(cmd, dir_.path());
  }
  void Write(const std::string &name, const std::string &text) {
    WriteFile(dir_.File(name), text);
  }
  static Frames Utterance(int32 u, int32 length, int32 dim) {
    Frames f(length, std::vector<double>(dim));
    for (int32 t = 0; t < length; t++)
      for (int32 d = 0; d < dim; d++)
        f[t][d] = std::sin(0.7 * t + 1.3 * d + u) + 0.1 * d;
    return f;
  }
  static void AppendMatrix(const std::string &key, const Frames &f,
                           std::ostringstream *os) {
    *os << key << "  [";
    for (const auto &row : f) {
      *os << "\n ";
      for (double v : row) *os << " " << v;
    }
    *os << " ]\n";
  }
  // Writes utterances "utt0", "utt1", ... of these lengths to feats.txt.
  void WriteUtterances(const std::vector<int32> &lengths, int32 dim) {
    std::ostringstream feats;
    for (size_t u = 0; u < lengths.size(); u++)
      AppendMatrix("utt" + std::to_string(u), Utterance(u, lengths[u], dim),
                   &feats);
    Write("feats.txt", feats.str());
  }
  std::map<std::string, Vector<BaseFloat> > ReadVectors(const std::string &name) {
    std::map<std::string, Vector<BaseFloat> > out;
    SequentialBaseFloatVectorReader reader("ark,t:" + dir_.File(name));
    for (; !reader.Done(); reader.Next()) out[reader.Key()] = reader.Value();
    return out;
  }
  std::map<std::string, Matrix<BaseFloat> > ReadMatrices(const std::string &name) {
    std::map<std::string, Matrix<BaseFloat> > out;
    SequentialBaseFloatMatrixReader reader("ark,t:" + dir_.File(name));
    for (; !reader.Done(); reader.Next()) out[reader.Key()] = reader.Value();
    return out;
  }

  // The chunks of an utterance of 'length' frames, as (start, length,
  // padded length); padded length 0 means not padded; skipped chunks are
  // left out.
  struct Chunk { int32 start, len, padded; };
  static std::vector<Chunk> Chunks(int32 length, int32 chunk_size,
                                   int32 min_chunk, bool pad) {
    std::vector<Chunk> v;
    int32 size = (chunk_size < 0 || chunk_size > length) ? length : chunk_size;
    for (int32 start = 0; start < length; start += size) {
      int32 len = std::min(size, length - start);
      if (len >= min_chunk) v.push_back({start, len, 0});
      else if (pad) v.push_back({start, len, min_chunk});
    }
    return v;
  }

  // Expected x-vectors (nnet3-compute on each chunk, row 0, averaged).
  std::map<std::string, std::vector<double> > Expected(
      const std::vector<int32> &lengths, int32 chunk_size, int32 min_chunk,
      bool pad) {
    std::ostringstream os;
    std::map<std::string, std::vector<std::pair<std::string, int32> > > parts;
    for (size_t u = 0; u < lengths.size(); u++) {
      if (!pad && lengths[u] < min_chunk) continue;  // fails in the tool
      Frames f = Utterance(u, lengths[u], 4);
      std::string utt = "utt" + std::to_string(u);
      int32 c = 0;
      for (const Chunk &ch : Chunks(lengths[u], chunk_size, min_chunk, pad)) {
        Frames piece(f.begin() + ch.start, f.begin() + ch.start + ch.len);
        if (ch.padded > 0) {
          // Independent padding: front copies first, then the chunk, then
          // back copies, (padded - len) split with the smaller half first.
          int32 front = (ch.padded - ch.len) / 2,
                back = ch.padded - ch.len - front;
          Frames p(front, piece.front());
          p.insert(p.end(), piece.begin(), piece.end());
          p.insert(p.end(), back, piece.back());
          piece = p;
        }
        std::string key = utt + "-c" + std::to_string(c++);
        AppendMatrix(key, piece, &os);
        parts[utt].push_back(std::make_pair(key, ch.len));
      }
    }
    Write("chunks.txt", os.str());
    CommandResult r = Run(
        "nnet3-compute --use-gpu=no nnet.raw ark,t:chunks.txt ark,t:chunk-out.txt");
    EXPECT_EQ(r.exit_status, 0) << r.err;
    std::map<std::string, Matrix<BaseFloat> > outs = ReadMatrices("chunk-out.txt");
    std::map<std::string, std::vector<double> > expected;
    for (const auto &kv : parts) {
      std::vector<double> avg(5, 0.0);
      double weight = 0;
      for (const auto &part : kv.second) {
        const Matrix<BaseFloat> &m = outs[part.first];
        EXPECT_GT(m.NumRows(), 0) << part.first;
        if (m.NumRows() == 0) continue;
        for (int32 d = 0; d < 5; d++) avg[d] += part.second * m(0, d);
        weight += part.second;
      }
      for (double &v : avg) v /= weight;
      expected[kv.first] = avg;
    }
    return expected;
  }

  void CheckAgainstNaive(const std::vector<int32> &lengths, int32 chunk_size,
                         int32 min_chunk, bool pad, const std::string &opts) {
    WriteUtterances(lengths, 4);
    CommandResult r = Run("nnet3-xvector-compute " + opts +
                          " nnet.raw ark,t:feats.txt ark,t:xvectors.txt");
    ASSERT_EQ(r.exit_status, 0) << r.err;
    std::map<std::string, Vector<BaseFloat> > got = ReadVectors("xvectors.txt");
    std::map<std::string, std::vector<double> > want =
        Expected(lengths, chunk_size, min_chunk, pad);
    ASSERT_EQ(got.size(), want.size()) << opts;
    for (const auto &kv : want) {
      ASSERT_TRUE(got.count(kv.first)) << kv.first;
      const Vector<BaseFloat> &v = got[kv.first];
      ASSERT_EQ(v.Dim(), 5);
      for (int32 d = 0; d < 5; d++)
        EXPECT_NEAR(v(d), kv.second[d], 1e-5) << kv.first << " " << opts;
    }
  }

  void SetUp() override {
    Write("nnet.config", kConfig);
    CommandResult r = Run("nnet3-init nnet.config nnet.raw");
    ASSERT_EQ(r.exit_status, 0) << r.err;
  }
  TempDir dir_;
};

TEST_F(XvectorCli, DefaultsPadEachShortUtteranceToOneChunk) {
  // Default chunk-size -1, min-chunk-size 100, pad-input true: every
  // utterance here is one chunk padded to 100 frames.
  CheckAgainstNaive({7, 3, 12}, -1, 100, true, "");
}

TEST_F(XvectorCli, ChunksAreAveragedByLength) {
  CheckAgainstNaive({7, 3, 12, 10}, 5, 2, true,
                    "--chunk-size=5 --min-chunk-size=2");
  // Long utterances in one chunk.
  CheckAgainstNaive({7, 3, 12}, -1, 2, true, "--min-chunk-size=2");
}

TEST_F(XvectorCli, SeveralThreadsGiveTheSameXvectorsInInputOrder) {
  CheckAgainstNaive({7, 3, 12, 10, 1, 9, 4}, 5, 2, true,
                    "--chunk-size=5 --min-chunk-size=2 --num-threads=3");
  // Failing utterances in between: the same output bytes and the same
  // warnings in the same order as one thread.
  std::ostringstream feats;
  for (int32 u = 0; u < 11; u++) {
    if (u % 4 == 1) feats << "empty" << u << "  [ ]\n";
    else AppendMatrix("utt" + std::to_string(u), Utterance(u, 3 + u, 4), &feats);
  }
  Write("feats.txt", feats.str());
  std::string one, warnings_one;
  for (const char *n : {"1", "3"}) {
    CommandResult r = Run(std::string("nnet3-xvector-compute --num-threads=") +
                          n + " --chunk-size=4 --min-chunk-size=3 "
                          "--pad-input=false nnet.raw ark,t:feats.txt "
                          "ark,t:out.txt");
    ASSERT_EQ(r.exit_status, 0) << r.err;
    std::string out = ReadFile(dir_.File("out.txt")), warnings;
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);)
      if (line.find("No x-vector") != std::string::npos) warnings += line + "\n";
    EXPECT_NE(r.err.find("Done 8 utterances, failed for 3"), std::string::npos)
        << r.err;
    if (std::string(n) == "1") {
      one = out;
      warnings_one = warnings;
      EXPECT_FALSE(one.empty());
    } else {
      EXPECT_EQ(out, one);
      EXPECT_EQ(warnings, warnings_one);
    }
  }
  CommandResult bad = Run("nnet3-xvector-compute --num-threads=-2 nnet.raw "
                          "ark,t:feats.txt ark,t:out.txt");
  EXPECT_NE(bad.exit_status, 0);
  EXPECT_NE(bad.err.find("Invalid --num-threads=-2"), std::string::npos)
      << bad.err;
}

TEST_F(XvectorCli, ShortChunksArePaddedOrSkipped) {
  // Chunks of 2 (and the 3-frame utterance) are padded to 4 frames.
  CheckAgainstNaive({7, 3, 12}, 5, 4, true,
                    "--chunk-size=5 --min-chunk-size=4 --pad-input=true");
  // Without padding the short last chunks are left out of the average and
  // the 3-frame utterance fails.
  CheckAgainstNaive({7, 3, 12}, 5, 4, false,
                    "--chunk-size=5 --min-chunk-size=4 --pad-input=false");
}

TEST_F(XvectorCli, FailedUtterancesAreCountedAndAllFailingIsExitOne) {
  std::ostringstream feats;
  AppendMatrix("short", Utterance(0, 3, 4), &feats);
  feats << "empty  [ ]\n";
  AppendMatrix("long", Utterance(1, 8, 4), &feats);
  Write("feats.txt", feats.str());
  CommandResult r = Run(
      "nnet3-xvector-compute --pad-input=false --min-chunk-size=5 nnet.raw "
      "ark,t:feats.txt ark,t:out.txt");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_NE(r.err.find("No x-vector for utterance short: the utterance has 3 "
                       "frames, fewer than --min-chunk-size=5"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("No x-vector for utterance empty: zero-length"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Done 1 utterances, failed for 2"), std::string::npos)
      << r.err;
  EXPECT_EQ(ReadVectors("out.txt").size(), 1u);

  // All chunks skipped (chunks of 2 < min 3, no padding): a failure, not
  // NaNs.
  r = Run("nnet3-xvector-compute --pad-input=false --chunk-size=2 "
          "--min-chunk-size=3 nnet.raw ark,t:feats.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_NE(r.err.find("every chunk of --chunk-size=2 is shorter than "
                       "--min-chunk-size=3"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("Done 0 utterances, failed for 3"), std::string::npos)
      << r.err;
}

TEST_F(XvectorCli, ErrorsAreReported) {
  std::ostringstream feats;
  feats << "u1  [\n 1 2 3\n 4 5 6 ]\n";
  Write("bad-dim.txt", feats.str());
  CommandResult r = Run(
      "nnet3-xvector-compute nnet.raw ark,t:bad-dim.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("Utterance u1: Feature dimension is 3 but the "
                       "network's input dimension is 4"),
            std::string::npos)
      << r.err;

  std::ostringstream good;
  AppendMatrix("u2", Utterance(0, 6, 4), &good);
  Write("feats.txt", good.str());
  for (const char *opt : {"--chunk-size=0", "--chunk-size=-3"}) {
    r = Run(std::string("nnet3-xvector-compute ") + opt +
            " nnet.raw ark,t:feats.txt ark,t:out.txt");
    EXPECT_EQ(r.exit_status, 1) << opt;
    EXPECT_NE(r.err.find(std::string("Invalid ") + opt), std::string::npos)
        << r.err;
  }
  r = Run("nnet3-xvector-compute --min-chunk-size=-1 nnet.raw ark,t:feats.txt "
          "ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("Invalid --min-chunk-size=-1"), std::string::npos)
      << r.err;
  r = Run("nnet3-xvector-compute --use-gpu=maybe nnet.raw ark,t:feats.txt "
          "ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("--use-gpu=maybe"), std::string::npos) << r.err;
  // --use-gpu, --cache-capacity and the computation options are accepted.
  r = Run("nnet3-xvector-compute --use-gpu=no --cache-capacity=2 "
          "--optimization.optimize=false --min-chunk-size=2 nnet.raw "
          "ark,t:feats.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 0) << r.err;

  // Single-frame chunks: t=0 needs frame 1 too.
  r = Run("nnet3-xvector-compute --chunk-size=1 --min-chunk-size=1 nnet.raw "
          "ark,t:feats.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("Utterance u2"), std::string::npos) << r.err;

  // No output node named 'output'.
  Write("other.config",
        "input-node name=input dim=4\n"
        "component name=a type=AffineComponent input-dim=4 output-dim=2\n"
        "component-node name=a component=a input=input\n"
        "output-node name=embedding input=a\n");
  r = Run("nnet3-init other.config other.raw && nnet3-xvector-compute "
          "other.raw ark,t:feats.txt ark,t:out.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("needs an input node named 'input' and an output "
                       "node named 'output'"),
            std::string::npos)
      << r.err;

  r = Run("nnet3-xvector-compute nnet.raw ark,t:feats.txt");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("Usage: nnet3-xvector-compute"), std::string::npos)
      << r.err;
}

TEST_F(XvectorCli, StatisticsPoolingNetworkGivesMeanAndStddev) {
  // An x-vector-like network whose output at t=0 is the mean and standard
  // deviation of every input frame (window t-0 .. t+1000).
  Write("stats.config",
        "input-node name=input dim=3\n"
        "component name=ext type=StatisticsExtractionComponent input-dim=3\n"
        "component-node name=ext component=ext input=input\n"
        "component name=pool type=StatisticsPoolingComponent input-dim=7 "
        "left-context=0 right-context=1000 output-stddevs=true\n"
        "component-node name=pool component=pool input=ext\n"
        "output-node name=output input=pool\n");
  std::vector<int32> lengths = {9, 4};
  WriteUtterances(lengths, 3);
  CommandResult r = Run(
      "nnet3-init stats.config stats.raw && nnet3-xvector-compute "
      "--chunk-size=5 --min-chunk-size=3 stats.raw ark,t:feats.txt "
      "ark,t:out.txt");
  if (r.exit_status != 0 &&
      r.err.find("needs its precomputed indexes") != std::string::npos)
    GTEST_SKIP() << "the compiler does not call PrecomputeIndexes yet";
  ASSERT_EQ(r.exit_status, 0) << r.err;
  std::map<std::string, Vector<BaseFloat> > got = ReadVectors("out.txt");
  ASSERT_EQ(got.size(), 2u);
  for (size_t u = 0; u < lengths.size(); u++) {
    Frames f = Utterance(u, lengths[u], 3);
    std::vector<double> expected(6, 0.0);
    double weight = 0;
    for (const Chunk &ch : Chunks(lengths[u], 5, 3, true)) {
      // Padded chunks include the repeated frames in their statistics.
      Frames piece(f.begin() + ch.start, f.begin() + ch.start + ch.len);
      if (ch.padded > 0) {
        int32 front = (ch.padded - ch.len) / 2;
        Frames p(front, piece.front());
        p.insert(p.end(), piece.begin(), piece.end());
        p.insert(p.end(), ch.padded - ch.len - front, piece.back());
        piece = p;
      }
      for (int32 d = 0; d < 3; d++) {
        double s = 0, s2 = 0;
        for (const auto &row : piece) {
          s += row[d];
          s2 += row[d] * row[d];
        }
        double mean = s / piece.size(),
               var = std::max(s2 / piece.size() - mean * mean, 1e-10);
        expected[d] += ch.len * mean;
        expected[3 + d] += ch.len * std::sqrt(var);
      }
      weight += ch.len;
    }
    const Vector<BaseFloat> &v = got["utt" + std::to_string(u)];
    ASSERT_EQ(v.Dim(), 6);
    for (int32 d = 0; d < 6; d++)
      EXPECT_NEAR(v(d), expected[d] / weight, 1e-4) << u << " " << d;
  }
}

TEST_F(XvectorCli, ReusedCompilationsGiveThePooledStatisticsOfLongUtterances) {
  // Utterances long enough for the reusable blocks (256 rows); the window
  // t-0 .. t+1000 clips the longest one to frames 0..1000. Reuse on and
  // off must both give the plain statistics, with 2 compilations for
  // three lengths when reusing.
  Write("stats.config",
        "input-node name=input dim=3\n"
        "component name=ext type=StatisticsExtractionComponent input-dim=3\n"
        "component-node name=ext component=ext input=input\n"
        "component name=pool type=StatisticsPoolingComponent input-dim=7 "
        "left-context=0 right-context=1000 output-stddevs=true\n"
        "component-node name=pool component=pool input=ext\n"
        "output-node name=output input=pool\n");
  std::vector<int32> lengths = {300, 777, 1200};
  WriteUtterances(lengths, 3);
  ASSERT_EQ(Run("nnet3-init stats.config stats.raw").exit_status, 0);
  for (const char *reuse : {"true", "false"}) {
    SCOPED_TRACE(reuse);
    CommandResult r = Run(std::string("nnet3-xvector-compute "
                                      "--reuse-compilation=") + reuse +
                          " stats.raw ark,t:feats.txt ark,t:out.txt");
    ASSERT_EQ(r.exit_status, 0) << r.err;
    if (std::string(reuse) == "true")
      EXPECT_NE(r.err.find("Compilations: 2 "), std::string::npos) << r.err;
    else
      EXPECT_NE(r.err.find("Compilations: 3 "), std::string::npos) << r.err;
    std::map<std::string, Vector<BaseFloat> > got = ReadVectors("out.txt");
    ASSERT_EQ(got.size(), lengths.size());
    for (size_t u = 0; u < lengths.size(); u++) {
      Frames f = Utterance(u, lengths[u], 3);
      int32 used = std::min(lengths[u], 1001);
      const Vector<BaseFloat> &v = got["utt" + std::to_string(u)];
      ASSERT_EQ(v.Dim(), 6);
      for (int32 d = 0; d < 3; d++) {
        double s = 0, s2 = 0;
        for (int32 t = 0; t < used; t++) {
          s += f[t][d];
          s2 += f[t][d] * f[t][d];
        }
        double mean = s / used,
               stddev = std::sqrt(std::max(s2 / used - mean * mean, 1e-10));
        EXPECT_NEAR(v(d), mean, 1e-4) << u << " " << d;
        EXPECT_NEAR(v(3 + d), stddev, 1e-4) << u << " " << d;
      }
    }
  }
}

TEST_F(XvectorCli, SplicedLayersComputedAsTdnnGiveTheSameXvectors) {
  // Spliced frame layers before the pooling: computed as TdnnComponents
  // (--spliced-affine-min-dim=1) or as built (0), the x-vectors agree, on
  // the reusable blocks of long utterances and without them.
  Write("splice.config",
        "input-node name=input dim=3\n"
        "component name=a1 type=AffineComponent input-dim=9 output-dim=6 "
        "bias-stddev=0.5\n"
        "component-node name=a1 component=a1 input=Append(Offset(input, -2), "
        "input, Offset(input, 1))\n"
        "component name=r1 type=RectifiedLinearComponent dim=6\n"
        "component-node name=r1 component=r1 input=a1\n"
        "component name=a2 type=NaturalGradientAffineComponent input-dim=12 "
        "output-dim=4 bias-stddev=0.5\n"
        "component-node name=a2 component=a2 input=Append(Offset(r1, -3), "
        "Offset(r1, 3))\n"
        "component name=ext type=StatisticsExtractionComponent input-dim=4\n"
        "component-node name=ext component=ext input=a2\n"
        "component name=pool type=StatisticsPoolingComponent input-dim=9 "
        "left-context=0 right-context=1000 output-stddevs=true\n"
        "component-node name=pool component=pool input=ext\n"
        "output-node name=output input=pool\n");
  std::vector<int32> lengths = {40, 300, 1200};
  WriteUtterances(lengths, 3);
  ASSERT_EQ(Run("nnet3-init splice.config splice.raw").exit_status, 0);
  for (const char *reuse : {"true", "false"}) {
    SCOPED_TRACE(reuse);
    std::map<std::string, Vector<BaseFloat> > got[2];
    for (int32 min_dim = 0; min_dim < 2; min_dim++) {
      CommandResult r = Run(
          std::string("nnet3-xvector-compute --verbose=1 --reuse-compilation=") +
          reuse + " --spliced-affine-min-dim=" + std::to_string(min_dim) +
          " splice.raw ark,t:feats.txt ark,t:out.txt");
      ASSERT_EQ(r.exit_status, 0) << r.err;
      EXPECT_NE(r.err.find(min_dim == 0 ? "Computing 0 spliced"
                                        : "Computing 2 spliced"),
                std::string::npos)
          << r.err;
      got[min_dim] = ReadVectors("out.txt");
      ASSERT_EQ(got[min_dim].size(), lengths.size());
    }
    for (const auto &kv : got[0]) {
      const Vector<BaseFloat> &a = kv.second, &b = got[1][kv.first];
      ASSERT_EQ(a.Dim(), 8);
      ASSERT_EQ(b.Dim(), 8);
      for (int32 d = 0; d < 8; d++)
        EXPECT_NEAR(a(d), b(d), 1e-4 * (1 + std::fabs(a(d))))
            << kv.first << " " << d;
    }
  }
  CommandResult bad = Run(
      "nnet3-xvector-compute --spliced-affine-min-dim=-1 splice.raw "
      "ark,t:feats.txt ark,t:out.txt");
  EXPECT_NE(bad.exit_status, 0);
  EXPECT_NE(bad.err.find("--spliced-affine-min-dim must be >= 0"),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
