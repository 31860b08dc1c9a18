// tests/feat/wav-test-util.h
// Builds wav files byte by byte for the tests, independently of the
// library's writer: any format tag, bit depth, endianness, extra chunks,
// and sizes that lie (for truncated and streamed files).
#ifndef NNET3_TESTS_FEAT_WAV_TEST_UTIL_H_
#define NNET3_TESTS_FEAT_WAV_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <vector>

namespace nnet3 {
namespace testing {

struct WavSpec {
  uint32_t rate = 16000;
  uint16_t channels = 1;
  uint16_t bits = 16;
  uint16_t format = 1;          // 1 PCM, 3 float, 0xFFFE extensible
  uint16_t sub_format = 1;      // for extensible
  bool big_endian = false;      // "RIFX"
  bool extra_chunk = false;     // a "LIST" chunk (odd size) before "data"
  bool streamed = false;        // sizes 0xFFFFFFFF
  int64_t declared_extra = 0;   // added to the declared data size
};

inline void PutU(std::string *s, uint64_t v, int bytes, bool big) {
  for (int i = 0; i < bytes; i++) {
    int shift = big ? 8 * (bytes - 1 - i) : 8 * i;
    s->push_back(static_cast<char>((v >> shift) & 0xff));
  }
}

// samples: interleaved int16 values (for bits == 16); for other bit depths
// the payload is raw bytes of the right size filled with the low bytes.
inline std::string MakeWav(const WavSpec &w,
                           const std::vector<int16_t> &samples) {
  bool big = w.big_endian;
  std::string fmt;
  PutU(&fmt, w.format, 2, big);
  PutU(&fmt, w.channels, 2, big);
  PutU(&fmt, w.rate, 4, big);
  uint32_t block = w.channels * (w.bits / 8);
  PutU(&fmt, w.rate * block, 4, big);
  PutU(&fmt, block, 2, big);
  PutU(&fmt, w.bits, 2, big);
  if (w.format == 0xFFFE) {
    PutU(&fmt, 22, 2, big);
    PutU(&fmt, w.bits, 2, big);
    PutU(&fmt, 0, 4, big);
    // GUID: sub-format tag, then 00 00 00 00 10 00 80 00 00 aa 00 38 9b 71
    // (as stored by little-endian writers).
    std::string guid;
    PutU(&guid, w.sub_format, 2, false);
    const unsigned char tail[14] = {0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80,
                                    0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71};
    guid.append(reinterpret_cast<const char *>(tail), 14);
    if (big) {  // a big-endian writer stores each 4-byte group reversed
      std::string g;
      for (int i = 0; i < 16; i += 4)
        for (int j = 3; j >= 0; j--) g.push_back(guid[i + j]);
      guid = g;
    }
    fmt += guid;
  }
  std::string data;
  for (int16_t v : samples) {
    if (w.bits == 16) PutU(&data, static_cast<uint16_t>(v), 2, big);
    else PutU(&data, static_cast<uint32_t>(v), w.bits / 8, big);
  }
  std::string body = "WAVE";
  body += "fmt ";
  PutU(&body, fmt.size(), 4, big);
  body += fmt;
  if (w.extra_chunk) {
    body += "LIST";
    PutU(&body, 3, 4, big);
    body += std::string("abc") + '\0';  // odd size, padded
  }
  body += "data";
  uint32_t declared = w.streamed ? 0xFFFFFFFFu
                                 : static_cast<uint32_t>(data.size() +
                                                         w.declared_extra);
  PutU(&body, declared, 4, big);
  body += data;
  std::string out = big ? "RIFX" : "RIFF";
  PutU(&out, w.streamed ? 0xFFFFFFFFu : body.size(), 4, big);
  return out + body;
}

}  // namespace testing
}  // namespace nnet3

#endif  // NNET3_TESTS_FEAT_WAV_TEST_UTIL_H_
