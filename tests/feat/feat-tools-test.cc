// tests/feat/feat-tools-test.cc
// The compute-*-feats tools end to end: error paths (unsupported or broken
// wav files, sample-rate mismatch) fail with one ERROR line naming the
// utterance; pipes, --channel, --min-duration, --write-utt2dur,
// --subtract-mean, VTLN maps, dither seeds, resampling and HTK output
// behave as documented; wav-to-duration (header or counted samples) and
// extract-segments (cuts, overshoot, channels, skipped lines).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "common/testing.h"
#include "feat/wav-test-util.h"
#include "feat/wave-reader.h"
#include "matrix/table-types.h"

namespace nnet3 {
namespace testing {
namespace {

std::vector<int16_t> Noise(int n, int seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> g(0, 2000);
  std::vector<int16_t> s(n);
  for (int16_t &x : s) x = static_cast<int16_t>(g(rng));
  return s;
}

// Reads a text/binary feature archive into key -> matrix.
std::map<std::string, Matrix<BaseFloat> > ReadFeats(const std::string &rspec) {
  std::map<std::string, Matrix<BaseFloat> > out;
  SequentialBaseFloatMatrixReader r(rspec);
  for (; !r.Done(); r.Next()) out[r.Key()] = r.Value();
  return out;
}

bool SameMatrix(const Matrix<BaseFloat> &a, const Matrix<BaseFloat> &b) {
  if (a.NumRows() != b.NumRows() || a.NumCols() != b.NumCols()) return false;
  for (int i = 0; i < a.NumRows(); i++)
    for (int j = 0; j < a.NumCols(); j++)
      if (a(i, j) != b(i, j)) return false;
  return true;
}

class FeatTools : public ::testing::Test {
 protected:
  void AddWav(const std::string &name, const std::string &bytes) {
    WriteFile(dir_.File(name), bytes);
  }
  // Runs a command in the temp dir; the last stderr line on failure.
  CommandResult Run(const std::string &cmd) {
    return RunCommand(cmd, dir_.path());
  }
  void ExpectFailureNaming(const std::string &cmd,
                           const std::vector<std::string> &fragments) {
    CommandResult r = Run(cmd);
    EXPECT_NE(r.exit_status, 0) << cmd;
    EXPECT_LT(r.exit_status, 128) << cmd << "\n" << r.err;
    std::string last = LastLine(r.err);
    EXPECT_EQ(last.rfind("ERROR (", 0), 0u) << last;
    for (const std::string &f : fragments)
      EXPECT_NE(last.find(f), std::string::npos)
          << "'" << f << "' not in: " << last;
  }
  TempDir dir_;
};

TEST_F(FeatTools, UnsupportedAndBrokenWavsNameTheKey) {
  WavSpec eight;
  eight.bits = 8;
  AddWav("u8.wav", MakeWav(eight, Noise(800, 1)));
  WavSpec flt;
  flt.format = 3;
  flt.bits = 32;
  AddWav("f32.wav", MakeWav(flt, Noise(800, 2)));
  WavSpec cut;
  cut.declared_extra = 1000;
  AddWav("cut.wav", MakeWav(cut, Noise(800, 3)));
  WriteFile(dir_.File("a.scp"), "utt-u8 u8.wav\n");
  WriteFile(dir_.File("b.scp"), "utt-f32 f32.wav\n");
  WriteFile(dir_.File("c.scp"), "utt-cut cut.wav\n");
  for (const char *tool : {"compute-fbank-feats", "compute-mfcc-feats",
                           "compute-spectrogram-feats"}) {
    std::string t = tool;
    ExpectFailureNaming(t + " scp:a.scp ark:/dev/null", {"utt-u8", "8 bits"});
    ExpectFailureNaming(t + " scp:b.scp ark:/dev/null",
                        {"utt-f32", "IEEE float"});
    ExpectFailureNaming(t + " scp:c.scp ark:/dev/null",
                        {"utt-cut", "truncated"});
  }
}

TEST_F(FeatTools, SampleRateMismatchNamesTheKey) {
  WavSpec w8;
  w8.rate = 8000;
  AddWav("x.wav", MakeWav(w8, Noise(8000, 4)));
  WriteFile(dir_.File("wav.scp"), "utt-8k x.wav\n");
  for (const char *tool : {"compute-fbank-feats", "compute-mfcc-feats",
                           "compute-spectrogram-feats"})
    ExpectFailureNaming(std::string(tool) + " scp:wav.scp ark:/dev/null",
                        {"utt-8k", "8000", "16000"});
  // The message says how to resample.
  ExpectFailureNaming("compute-fbank-feats scp:wav.scp ark:/dev/null",
                      {"allow-upsample"});
  // With the right rate it works.
  CommandResult r = Run(
      "compute-fbank-feats --sample-frequency=8000 scp:wav.scp ark,t:o.txt");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  // Resampled (up to 16 kHz, down to 4 kHz) one second of audio gives the
  // 98 frames of 25 ms every 10 ms at the new rate (resample-test checks
  // the samples themselves).
  r = Run("compute-fbank-feats --allow-upsample=true scp:wav.scp "
          "ark,t:up.txt && feat-to-len ark,t:up.txt ark,t:-");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "utt-8k 98 \n");
  r = Run("compute-mfcc-feats --sample-frequency=4000 --num-mel-bins=10 "
          "--num-ceps=8 --allow-downsample=true scp:wav.scp ark,t:- | "
          "feat-to-len ark,t:- ark,t:-");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "utt-8k 98 \n");
}

// HTK output: "key " then a big-endian 12-byte header (frames, 100000 x
// 100 ns, 4 bytes x dim, kind) and big-endian floats equal to the Kaldi-
// format output; kind 006|0100 for MFCC with energy, 007|020000 for fbank
// without; text mode and the spectrogram tool refuse it.
TEST_F(FeatTools, HtkOutput) {
  AddWav("a.wav", MakeWav(WavSpec(), Noise(8000, 9)));
  WriteFile(dir_.File("wav.scp"), "utt1 a.wav\n");
  auto big32 = [](const std::string &b, size_t pos) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
      v = (v << 8) | static_cast<unsigned char>(b[pos + i]);
    return v;
  };
  auto big16 = [](const std::string &b, size_t pos) {
    return (static_cast<unsigned char>(b[pos]) << 8) |
           static_cast<unsigned char>(b[pos + 1]);
  };
  struct Case {
    std::string tool;
    unsigned kind;
  };
  for (const Case &c : {Case{"compute-mfcc-feats", 006 | 0100},
                        Case{"compute-fbank-feats", 007 | 020000}}) {
    ASSERT_EQ(Run(c.tool + " --dither=0 scp:wav.scp ark:k.ark").exit_status,
              0);
    CommandResult r =
        Run(c.tool + " --dither=0 --output-format=htk scp:wav.scp ark:h.ark");
    ASSERT_EQ(r.exit_status, 0) << r.err;
    Matrix<BaseFloat> expected = ReadFeats("ark:" + dir_.File("k.ark"))["utt1"];
    std::string b = ReadFile(dir_.File("h.ark"));
    ASSERT_EQ(b.substr(0, 5), "utt1 ");
    const size_t h = 5;
    int rows = expected.NumRows(), cols = expected.NumCols();
    ASSERT_EQ(b.size(), h + 12 + 4u * rows * cols) << c.tool;
    EXPECT_EQ(big32(b, h), static_cast<uint32_t>(rows));
    EXPECT_EQ(big32(b, h + 4), 100000u);
    EXPECT_EQ(big16(b, h + 8), 4 * cols);
    EXPECT_EQ(static_cast<unsigned>(big16(b, h + 10)), c.kind) << c.tool;
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < cols; j++) {
        uint32_t bits = big32(b, h + 12 + 4 * (i * cols + j));
        float v;
        std::memcpy(&v, &bits, 4);
        ASSERT_EQ(v, expected(i, j)) << c.tool << " row " << i << " col " << j;
      }
  }
  ExpectFailureNaming("compute-mfcc-feats --output-format=htk scp:wav.scp "
                      "ark,t:t.txt", {"text mode"});
  ExpectFailureNaming("compute-spectrogram-feats --output-format=htk "
                      "scp:wav.scp ark:s.ark", {"htk", "not available"});
  ExpectFailureNaming("compute-fbank-feats --output-format=wav scp:wav.scp "
                      "ark:s.ark", {"Invalid --output-format=wav"});
}

TEST_F(FeatTools, PipesChannelsAndDurations) {
  std::vector<int16_t> left = Noise(16000, 5), right = Noise(16000, 6);
  std::vector<int16_t> both;
  for (int i = 0; i < 16000; i++) {
    both.push_back(left[i]);
    both.push_back(right[i]);
  }
  WavSpec st;
  st.channels = 2;
  AddWav("st.wav", MakeWav(st, both));
  AddWav("r.wav", MakeWav(WavSpec(), right));
  AddWav("short.wav", MakeWav(WavSpec(), Noise(1600, 7)));
  WriteFile(dir_.File("st.scp"), "s cat st.wav |\n");
  WriteFile(dir_.File("r.scp"), "s r.wav\n");
  ASSERT_EQ(Run("compute-mfcc-feats --dither=0 --channel=1 scp:st.scp "
                "ark:st1.ark").exit_status, 0);
  ASSERT_EQ(Run("compute-mfcc-feats --dither=0 scp:r.scp ark:r.ark")
                .exit_status, 0);
  auto a = ReadFeats("ark:" + dir_.File("st1.ark"));
  auto b = ReadFeats("ark:" + dir_.File("r.ark"));
  ASSERT_EQ(a.count("s"), 1u);
  EXPECT_TRUE(SameMatrix(a["s"], b["s"]));
  EXPECT_EQ(a["s"].NumRows(), 98);
  EXPECT_EQ(a["s"].NumCols(), 13);
  // A channel that does not exist: warning, no output, exit 1.
  CommandResult r = Run("compute-mfcc-feats --channel=2 scp:st.scp ark:x.ark");
  EXPECT_EQ(r.exit_status, 1);
  EXPECT_NE(r.err.find("channel"), std::string::npos);
  // --min-duration skips; --write-utt2dur writes seconds.
  WriteFile(dir_.File("two.scp"), "long r.wav\nshort short.wav\n");
  r = Run("compute-fbank-feats --min-duration=0.5 --write-utt2dur=ark,t:dur "
          "scp:two.scp ark:f.ark");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  auto f = ReadFeats("ark:" + dir_.File("f.ark"));
  EXPECT_EQ(f.size(), 1u);
  EXPECT_EQ(f.count("long"), 1u);
  EXPECT_EQ(ReadFile(dir_.File("dur")), "long 1 \n");
}

TEST_F(FeatTools, WavToDurationFromHeadersOrSamples) {
  // 1 s at 16 kHz, 0.25 s at 8 kHz, a stereo 0.5 s, and a streamed wav
  // (sizes unknown) of 0.1 s.
  AddWav("a.wav", MakeWav(WavSpec(), Noise(16000, 1)));
  WavSpec r8;
  r8.rate = 8000;
  AddWav("b.wav", MakeWav(r8, Noise(2000, 2)));
  WavSpec st;
  st.channels = 2;
  AddWav("c.wav", MakeWav(st, Noise(16000, 3)));
  WavSpec streamed;
  streamed.streamed = true;
  AddWav("d.wav", MakeWav(streamed, Noise(1600, 4)));
  WriteFile(dir_.File("wav.scp"),
            "a a.wav\nb cat b.wav |\nc c.wav\n");
  CommandResult r = Run("wav-to-duration scp:wav.scp ark,t:dur");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_.File("dur")), "a 1 \nb 0.25 \nc 0.5 \n");
  // Counting the samples gives the same here...
  r = Run("wav-to-duration --read-entire-file=true scp:wav.scp ark,t:dur2");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_.File("dur2")), ReadFile(dir_.File("dur")));
  // ...and is the only way for a streamed wav.
  WriteFile(dir_.File("s.scp"), "d d.wav\n");
  ExpectFailureNaming("wav-to-duration scp:s.scp ark,t:x",
                      {"'d'", "--read-entire-file=true"});
  r = Run("wav-to-duration --read-entire-file=true scp:s.scp ark,t:dur3");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(ReadFile(dir_.File("dur3")), "d 0.1 \n");
  // A missing file names the key.
  WriteFile(dir_.File("m.scp"), "m missing.wav\n");
  ExpectFailureNaming("wav-to-duration scp:m.scp ark,t:y", {"missing.wav"});
}

TEST_F(FeatTools, ExtractSegmentsCutsAndSkipsAsDocumented) {
  std::vector<int16_t> a = Noise(32000, 8), left = Noise(16000, 9),
                       right = Noise(16000, 10), both;
  for (int i = 0; i < 16000; i++) {
    both.push_back(left[i]);
    both.push_back(right[i]);
  }
  AddWav("a.wav", MakeWav(WavSpec(), a));  // 2 s
  WavSpec st;
  st.channels = 2;
  AddWav("b.wav", MakeWav(st, both));      // 1 s, stereo
  WriteFile(dir_.File("wav.scp"), "a a.wav\nb b.wav\n");
  WriteFile(dir_.File("segments"),
            "s1 a 0.5 1.5\n"        // samples 8000..23999
            "s2 a 1.8 -1\n"         // to the end: 28800..31999
            "s3 a 1.9 2.3\n"        // 0.3 s past the end: cut at the end
            "s4 a 1.0 2.8\n"        // 0.8 s past the end: skipped
            "s5 b 0.25 0.75 1\n"    // channel 1 only
            "s6 a 0.0 0.05\n"       // shorter than 0.1 s: skipped
            "s7 zzz 0 1\n"          // unknown recording: skipped
            "s8 a x 1\n");          // bad time: skipped
  CommandResult r = Run("extract-segments scp:wav.scp segments ark:out.ark");
  ASSERT_EQ(r.exit_status, 0) << r.err;
  for (const char *skipped : {"s4", "s6", "s7", "s8"})
    EXPECT_NE(r.err.find(std::string("segment ") + skipped),
              std::string::npos) << skipped << " not warned about: " << r.err;
  std::map<std::string, WaveData> got;
  SequentialWaveReader reader("ark:" + dir_.File("out.ark"));
  for (; !reader.Done(); reader.Next()) got[reader.Key()] = reader.Value();
  ASSERT_EQ(got.size(), 4u);
  auto expect = [&](const std::string &key, const std::vector<int16_t> &src,
                    int begin, int end) {
    ASSERT_EQ(got.count(key), 1u) << key;
    const Matrix<BaseFloat> &d = got[key].Data();
    ASSERT_EQ(d.NumRows(), 1) << key;
    ASSERT_EQ(d.NumCols(), end - begin) << key;
    for (int i = begin; i < end; i++)
      ASSERT_EQ(d(0, i - begin), src[i]) << key << " sample " << i;
    EXPECT_EQ(got[key].SampFreq(), 16000.0f);
  };
  expect("s1", a, 8000, 24000);
  expect("s2", a, 28800, 32000);
  expect("s3", a, 30400, 32000);
  expect("s5", right, 4000, 12000);
  // Nothing usable: exit 1.
  WriteFile(dir_.File("bad"), "s9 zzz 0 1\n");
  r = Run("extract-segments scp:wav.scp bad ark:none.ark");
  EXPECT_EQ(r.exit_status, 1);
}

TEST_F(FeatTools, SubtractMeanVtlnAndDither) {
  AddWav("a.wav", MakeWav(WavSpec(), Noise(24000, 8)));
  AddWav("b.wav", MakeWav(WavSpec(), Noise(20000, 9)));
  WriteFile(dir_.File("wav.scp"), "a a.wav\nb b.wav\n");
  ASSERT_EQ(Run("compute-fbank-feats --dither=0 --subtract-mean=true "
                "scp:wav.scp ark:m.ark").exit_status, 0);
  for (auto &kv : ReadFeats("ark:" + dir_.File("m.ark"))) {
    for (int c = 0; c < kv.second.NumCols(); c++) {
      double sum = 0;
      for (int r = 0; r < kv.second.NumRows(); r++) sum += kv.second(r, c);
      EXPECT_NEAR(sum / kv.second.NumRows(), 0.0, 1e-4);
    }
  }
  // Per-speaker warps through --vtln-map and --utt2spk.
  WriteFile(dir_.File("utt2spk"), "a s1\nb s2\n");
  WriteFile(dir_.File("warps"), "s1 0.9\ns2 1.1\n");
  ASSERT_EQ(Run("compute-mfcc-feats --dither=0 --vtln-map=ark:warps "
                "--utt2spk=ark:utt2spk scp:wav.scp ark:v.ark").exit_status, 0);
  ASSERT_EQ(Run("compute-mfcc-feats --dither=0 --vtln-warp=0.9 scp:wav.scp "
                "ark:v09.ark").exit_status, 0);
  ASSERT_EQ(Run("compute-mfcc-feats --dither=0 --vtln-warp=1.1 scp:wav.scp "
                "ark:v11.ark").exit_status, 0);
  ASSERT_EQ(Run("compute-mfcc-feats --dither=0 scp:wav.scp ark:v10.ark")
                .exit_status, 0);
  auto v = ReadFeats("ark:" + dir_.File("v.ark"));
  auto v09 = ReadFeats("ark:" + dir_.File("v09.ark"));
  auto v11 = ReadFeats("ark:" + dir_.File("v11.ark"));
  auto v10 = ReadFeats("ark:" + dir_.File("v10.ark"));
  EXPECT_TRUE(SameMatrix(v["a"], v09["a"]));
  EXPECT_TRUE(SameMatrix(v["b"], v11["b"]));
  EXPECT_FALSE(SameMatrix(v["a"], v10["a"]));
  // Dither: the same seed gives the same features; another seed does not.
  ASSERT_EQ(Run("compute-fbank-feats scp:wav.scp ark:d1.ark").exit_status, 0);
  ASSERT_EQ(Run("compute-fbank-feats scp:wav.scp ark:d2.ark").exit_status, 0);
  ASSERT_EQ(Run("compute-fbank-feats --dither-seed=5 scp:wav.scp ark:d3.ark")
                .exit_status, 0);
  EXPECT_EQ(ReadFile(dir_.File("d1.ark")), ReadFile(dir_.File("d2.ark")));
  EXPECT_NE(ReadFile(dir_.File("d1.ark")), ReadFile(dir_.File("d3.ark")));
  // The noise of one utterance does not depend on the others.
  WriteFile(dir_.File("b.scp"), "b b.wav\n");
  ASSERT_EQ(Run("compute-fbank-feats scp:b.scp ark:d4.ark").exit_status, 0);
  EXPECT_TRUE(SameMatrix(ReadFeats("ark:" + dir_.File("d1.ark"))["b"],
                         ReadFeats("ark:" + dir_.File("d4.ark"))["b"]));
}

TEST_F(FeatTools, ThreadsGiveTheSameBytes) {
  std::string scp;
  for (int i = 0; i < 11; i++) {
    std::string name = "u" + std::to_string(i);
    AddWav(name + ".wav", MakeWav(WavSpec(), Noise(4000 + 700 * i, 20 + i)));
    scp += name + " " + name + ".wav\n";
  }
  WriteFile(dir_.File("wav.scp"), scp);
  for (const char *tool : {"compute-fbank-feats", "compute-mfcc-feats"}) {
    std::string t = tool;
    ASSERT_EQ(Run(t + " scp:wav.scp ark:1.ark").exit_status, 0);
    ASSERT_EQ(Run(t + " --num-threads=3 scp:wav.scp ark:3.ark").exit_status,
              0);
    EXPECT_EQ(ReadFile(dir_.File("1.ark")), ReadFile(dir_.File("3.ark")))
        << tool;
  }
  // A bad entry in the middle: everything before it is still written to
  // standard output; an output file is not created at all (crash-safe
  // output: no partial file under the final name).
  WavSpec eight;
  eight.bits = 8;
  AddWav("bad.wav", MakeWav(eight, Noise(4000, 1)));
  WriteFile(dir_.File("bad.scp"), "u0 u0.wav\nu1 u1.wav\nbad bad.wav\n");
  ExpectFailureNaming("compute-fbank-feats --num-threads=2 scp:bad.scp "
                      "ark:- > b.ark", {"bad"});
  EXPECT_EQ(ReadFeats("ark:" + dir_.File("b.ark")).size(), 2u);
  ExpectFailureNaming("compute-fbank-feats --num-threads=2 scp:bad.scp "
                      "ark:c.ark", {"bad"});
  EXPECT_FALSE(FileExists(dir_.File("c.ark")));
  EXPECT_EQ(Run("ls -A | grep -c tmp").out, "0\n");
}

TEST_F(FeatTools, ShortAudioAndUsage) {
  AddWav("tiny.wav", MakeWav(WavSpec(), Noise(300, 10)));
  WriteFile(dir_.File("wav.scp"), "tiny tiny.wav\n");
  // Fewer samples than a frame: an empty matrix, as Kaldi writes it.
  CommandResult r = Run("compute-fbank-feats scp:wav.scp ark,t:-");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  EXPECT_EQ(r.out, "tiny  [ ]\n");
  // With --snip-edges=false the frames are round(300 / 160) = 2.
  r = Run("compute-spectrogram-feats --snip-edges=false scp:wav.scp "
          "ark:s.ark");
  EXPECT_EQ(r.exit_status, 0) << r.err;
  auto s = ReadFeats("ark:" + dir_.File("s.ark"));
  EXPECT_EQ(s["tiny"].NumRows(), 2);
  EXPECT_EQ(s["tiny"].NumCols(), 257);
  EXPECT_EQ(Run("compute-fbank-feats").exit_status, 1);
  ExpectFailureNaming("compute-spectrogram-feats --vtln-warp=0.9 scp:wav.scp "
                      "ark:/dev/null", {"vtln-warp"});
  ExpectFailureNaming("compute-fbank-feats --window-type=kaiser scp:wav.scp "
                      "ark:/dev/null", {"kaiser"});
  ExpectFailureNaming("compute-mfcc-feats --num-ceps=30 scp:wav.scp "
                      "ark:/dev/null", {"--num-ceps=30"});
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
