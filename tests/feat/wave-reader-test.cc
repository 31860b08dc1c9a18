// tests/feat/wave-reader-test.cc
// Wav reading against files built byte by byte (wav-test-util.h): formats,
// channels, byte orders, extra chunks, streaming sizes, the error messages
// for what is not supported, and the holder inside the table framework
// (scp with files and pipes, archives, the key in error messages).
#include <gtest/gtest.h>

#include <sstream>

#include "common/memory-limit.h"
#include "common/testing.h"
#include "feat/wave-reader.h"
#include "feat/wav-test-util.h"

namespace nnet3 {
namespace testing {
namespace {

WaveData ReadWav(const std::string &bytes) {
  std::istringstream is(bytes);
  WaveData w;
  w.Read(is);
  return w;
}

// The UserError message of reading bytes (fails the test if none).
std::string ReadError(const std::string &bytes) {
  try {
    ReadWav(bytes);
  } catch (const UserError &e) {
    return e.message();
  }
  ADD_FAILURE() << "reading succeeded";
  return "";
}

TEST(WaveReader, MonoSamplesAndRate) {
  WavSpec spec;
  spec.rate = 8000;
  std::vector<int16_t> s = {0, 1, -1, 32767, -32768, 1234};
  WaveData w = ReadWav(MakeWav(spec, s));
  EXPECT_EQ(w.SampFreq(), 8000.0f);
  ASSERT_EQ(w.Data().NumRows(), 1);
  ASSERT_EQ(w.Data().NumCols(), 6);
  for (int i = 0; i < 6; i++) EXPECT_EQ(w.Data()(0, i), s[i]);
  EXPECT_FLOAT_EQ(w.Duration(), 6.0f / 8000.0f);
}

TEST(WaveReader, StereoIsDeinterleaved) {
  WavSpec spec;
  spec.channels = 2;
  spec.rate = 44100;
  WaveData w = ReadWav(MakeWav(spec, {1, -1, 2, -2, 3, -3}));
  ASSERT_EQ(w.Data().NumRows(), 2);
  ASSERT_EQ(w.Data().NumCols(), 3);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(w.Data()(0, i), i + 1);
    EXPECT_EQ(w.Data()(1, i), -(i + 1));
  }
}

TEST(WaveReader, BigEndianRifx) {
  WavSpec spec;
  spec.big_endian = true;
  WaveData w = ReadWav(MakeWav(spec, {258, -2, 0x7f00}));
  ASSERT_EQ(w.Data().NumCols(), 3);
  EXPECT_EQ(w.Data()(0, 0), 258);
  EXPECT_EQ(w.Data()(0, 1), -2);
  EXPECT_EQ(w.Data()(0, 2), 0x7f00);
}

TEST(WaveReader, ExtensiblePcmAndExtraChunks) {
  for (bool big : {false, true}) {
    WavSpec spec;
    spec.format = 0xFFFE;
    spec.channels = 3;
    spec.extra_chunk = true;
    spec.big_endian = big;
    WaveData w = ReadWav(MakeWav(spec, {1, 2, 3, 4, 5, 6}));
    ASSERT_EQ(w.Data().NumRows(), 3);
    ASSERT_EQ(w.Data().NumCols(), 2);
    EXPECT_EQ(w.Data()(2, 1), 6);
  }
}

TEST(WaveReader, StreamedSizesReadToTheEnd) {
  WavSpec spec;
  spec.streamed = true;
  WaveData w = ReadWav(MakeWav(spec, {7, 8, 9, 10}));
  ASSERT_EQ(w.Data().NumCols(), 4);
  EXPECT_EQ(w.Data()(0, 3), 10);
  std::istringstream is(MakeWav(spec, {7, 8}));
  WaveInfo info;
  info.Read(is);
  EXPECT_TRUE(info.IsStreamed());
  EXPECT_EQ(info.SampleCount(), -1);
}

TEST(WaveReader, HeaderInfo) {
  WavSpec spec;
  spec.channels = 2;
  std::istringstream is(MakeWav(spec, std::vector<int16_t>(3200, 5)));
  WaveInfo info;
  info.Read(is);
  EXPECT_EQ(info.NumChannels(), 2);
  EXPECT_EQ(info.SampleCount(), 1600);
  EXPECT_FLOAT_EQ(info.Duration(), 0.1f);
  EXPECT_EQ(info.BlockAlign(), 4);
}

TEST(WaveReader, UnsupportedFormatsAreNamed) {
  WavSpec eight;
  eight.bits = 8;
  EXPECT_NE(ReadError(MakeWav(eight, {1, 2, 3, 4})).find("8 bits"),
            std::string::npos);
  WavSpec i32;
  i32.bits = 32;
  EXPECT_NE(ReadError(MakeWav(i32, {1, 2})).find("32 bits"),
            std::string::npos);
  WavSpec flt;
  flt.format = 3;
  flt.bits = 32;
  EXPECT_NE(ReadError(MakeWav(flt, {1, 2})).find("IEEE float"),
            std::string::npos);
  WavSpec ext_float;
  ext_float.format = 0xFFFE;
  ext_float.sub_format = 3;
  EXPECT_NE(ReadError(MakeWav(ext_float, {1, 2})).find("IEEE float"),
            std::string::npos);
  WavSpec alaw;
  alaw.format = 6;
  EXPECT_NE(ReadError(MakeWav(alaw, {1, 2})).find("A-law"),
            std::string::npos);
}

TEST(WaveReader, BrokenFilesAreErrors) {
  WavSpec spec;
  spec.declared_extra = 100;  // header claims more than there is
  EXPECT_NE(ReadError(MakeWav(spec, {1, 2, 3})).find("truncated"),
            std::string::npos);
  std::string good = MakeWav(WavSpec(), {1, 2, 3});
  EXPECT_NE(ReadError(good.substr(0, 30)).find("truncated header"),
            std::string::npos);
  EXPECT_NE(ReadError("FORM....AIFF").find("RIFF"), std::string::npos);
  EXPECT_NE(ReadError(MakeWav(WavSpec(), {})).find("no samples"),
            std::string::npos);
  // Odd number of data bytes: half a sample.
  std::string odd = MakeWav(WavSpec(), {1, 2});
  odd[40] = 3;  // the data size (little-endian) at offset 40
  odd.resize(odd.size() - 1);
  EXPECT_NE(ReadError(odd).find("block alignment"), std::string::npos);
}

TEST(WaveReader, WriteReadRoundTripAndClipping) {
  Matrix<BaseFloat> m(2, 4);
  float vals[2][4] = {{0, 1.9f, -1.9f, 40000}, {-40000, 5, -5, 32767}};
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 4; i++) m(c, i) = vals[c][i];
  WaveData w(16000, m);
  std::ostringstream os;
  w.Write(os);
  WaveData r = ReadWav(os.str());
  EXPECT_EQ(r.SampFreq(), 16000.0f);
  // Truncated toward zero, clipped to int16.
  float want[2][4] = {{0, 1, -1, 32767}, {-32768, 5, -5, 32767}};
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < 4; i++) EXPECT_EQ(r.Data()(c, i), want[c][i]);
  // The bytes are a plain 44-byte header plus the samples.
  EXPECT_EQ(os.str().size(), 44u + 16u);
}

TEST(WaveTables, ScpWithFilesAndPipesAndArchives) {
  TempDir dir;
  WriteFile(dir.File("a.wav"), MakeWav(WavSpec(), {1, 2, 3}));
  WavSpec st;
  st.channels = 2;
  WriteFile(dir.File("b.wav"), MakeWav(st, {4, 5, 6, 7}));
  WriteFile(dir.File("wav.scp"), "a " + dir.File("a.wav") + "\nb cat " +
                                     dir.File("b.wav") + " |\n");
  std::vector<std::string> keys;
  {
    SequentialWaveReader reader("scp:" + dir.File("wav.scp"));
    WaveWriter writer("ark:" + dir.File("w.ark"));
    for (; !reader.Done(); reader.Next()) {
      keys.push_back(reader.Key());
      writer.Write(reader.Key(), reader.Value());
    }
  }
  ASSERT_EQ(keys, (std::vector<std::string>{"a", "b"}));
  RandomAccessWaveReader ra("ark:" + dir.File("w.ark"));
  ASSERT_TRUE(ra.HasKey("b"));
  EXPECT_EQ(ra.Value("b").Data().NumRows(), 2);
  EXPECT_EQ(ra.Value("b").Data()(1, 1), 7);
  EXPECT_EQ(ra.Value("a").Data()(0, 2), 3);
  SequentialWaveInfoReader info("scp:" + dir.File("wav.scp"));
  EXPECT_EQ(info.Value().SampleCount(), 3);
}

TEST(WaveTables, ErrorsNameTheKey) {
  TempDir dir;
  WavSpec eight;
  eight.bits = 8;
  WriteFile(dir.File("bad.wav"), MakeWav(eight, {1, 2}));
  WriteFile(dir.File("wav.scp"), "utt-8bit " + dir.File("bad.wav") + "\n");
  try {
    SequentialWaveReader reader("scp:" + dir.File("wav.scp"));
    reader.Value();
    ADD_FAILURE() << "no error";
  } catch (const UserError &e) {
    std::string msg = e.message();
    EXPECT_NE(msg.find("utt-8bit"), std::string::npos) << msg;
    EXPECT_NE(msg.find("8 bits"), std::string::npos) << msg;
  }
}

// The example: a 44-byte file whose data chunk declares 4 GiB fails
// on the size, before anything is allocated for it (the reader runs in a
// child whose address space may grow by only 64 MiB), on seekable input and
// on input of unknown length alike.
TEST(WaveReader, HugeDeclaredDataChunkFailsWithoutAllocating) {
  WavSpec spec;
  spec.declared_extra = 0xFFFFFFF0;  // 44 bytes in all, ~4 GiB declared
  std::string wav = MakeWav(spec, {});
  ASSERT_EQ(wav.size(), 44u);
  for (int unsized = 0; unsized < 2; unsized++) {
    LimitedRun run = RunWithMemoryLimit(size_t(64) << 20, [&] {
      WaveData w;
      if (unsized) {
        UnsizedIstream is(wav);
        w.Read(is);
      } else {
        std::istringstream is(wav);
        w.Read(is);
      }
    });
    ASSERT_EQ(run.outcome, LimitedRun::kUserError) << Describe(run);
    EXPECT_NE(run.message.find("the data chunk size 4294967280"),
              std::string::npos) << run.message;
    EXPECT_NE(run.message.find("truncated"), std::string::npos)
        << run.message;
  }
  // Valid files of unknown length still read in full.
  std::vector<int16_t> samples(700000);
  for (size_t i = 0; i < samples.size(); i++)
    samples[i] = static_cast<int16_t>(i * 31);
  std::string good = MakeWav(WavSpec(), samples);
  UnsizedIstream is(good);
  WaveData w;
  w.Read(is);
  ASSERT_EQ(w.Data().NumCols(), static_cast<int>(samples.size()));
  EXPECT_EQ(w.Data()(0, 123456), static_cast<float>(samples[123456]));
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
