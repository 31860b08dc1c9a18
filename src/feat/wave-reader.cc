// feat/wave-reader.cc
#include "feat/wave-reader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {

namespace {

// Reads little- or big-endian unsigned integers from a byte stream.
class WavByteReader {
 public:
  explicit WavByteReader(std::istream &is) : is_(is) {}
  void SetBigEndian(bool big) { big_endian_ = big; }
  // Reads n bytes; throws a "truncated header" error naming "what".
  void ReadBytes(char *buf, size_t n, const char *what) {
    is_.read(buf, static_cast<std::streamsize>(n));
    if (static_cast<size_t>(is_.gcount()) != n)
      NNET3_ERR << "wav: truncated header (end of data while reading "
                << what << ")";
  }
  uint32 U32(const char *what) {
    unsigned char b[4];
    ReadBytes(reinterpret_cast<char *>(b), 4, what);
    if (big_endian_)
      return (uint32(b[0]) << 24) | (uint32(b[1]) << 16) |
             (uint32(b[2]) << 8) | uint32(b[3]);
    return (uint32(b[3]) << 24) | (uint32(b[2]) << 16) | (uint32(b[1]) << 8) |
           uint32(b[0]);
  }
  uint16 U16(const char *what) {
    unsigned char b[2];
    ReadBytes(reinterpret_cast<char *>(b), 2, what);
    if (big_endian_) return static_cast<uint16>((b[0] << 8) | b[1]);
    return static_cast<uint16>((b[1] << 8) | b[0]);
  }
  std::string Tag(const char *what) {
    char b[4];
    ReadBytes(b, 4, what);
    return std::string(b, 4);
  }
  void Skip(uint64 n, const char *what) {
    char buf[4096];
    while (n > 0) {
      size_t k = static_cast<size_t>(std::min<uint64>(n, sizeof(buf)));
      ReadBytes(buf, k, what);
      n -= k;
    }
  }

 private:
  std::istream &is_;
  bool big_endian_ = false;
};

// A tag for messages: printable characters kept, others as \xNN.
std::string PrintableTag(const std::string &tag) {
  std::string out;
  for (unsigned char c : tag) {
    if (c >= 32 && c < 127) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

const char *FormatName(uint32 tag) {
  switch (tag) {
    case 1: return "integer PCM";
    case 2: return "Microsoft ADPCM";
    case 3: return "IEEE float";
    case 6: return "A-law";
    case 7: return "mu-law";
    case 0x11: return "IMA ADPCM";
    case 0x55: return "MPEG layer 3";
    default: return "unknown";
  }
}

void WriteU32(std::ostream &os, uint32 v) {
  char b[4] = {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff),
               static_cast<char>((v >> 16) & 0xff),
               static_cast<char>((v >> 24) & 0xff)};
  os.write(b, 4);
}

void WriteU16(std::ostream &os, uint16 v) {
  char b[2] = {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff)};
  os.write(b, 2);
}

}  // namespace

void WaveInfo::Read(std::istream &is) {
  WavByteReader r(is);
  std::string riff = r.Tag("the RIFF tag");
  if (riff == "RIFX") {
    r.SetBigEndian(true);
    reverse_bytes_ = true;
  } else if (riff == "RIFF") {
    reverse_bytes_ = false;
  } else {
    NNET3_ERR << "wav: expected a RIFF header (\"RIFF\" or \"RIFX\"), got \""
              << PrintableTag(riff) << "\": not a wav file";
  }
  uint32 riff_size = r.U32("the RIFF chunk size");
  std::string wave = r.Tag("the WAVE tag");
  if (wave != "WAVE")
    NNET3_ERR << "wav: expected \"WAVE\" after the RIFF header, got \""
              << PrintableTag(wave) << "\"";

  // Chunks before "fmt " (e.g. "JUNK") are skipped.
  std::string tag = r.Tag("the fmt chunk");
  while (tag != "fmt ") {
    if (tag == "data")
      NNET3_ERR << "wav: data chunk before the fmt chunk";
    uint32 size = r.U32("a chunk size");
    r.Skip(size + (size & 1), "a chunk before fmt");
    tag = r.Tag("the fmt chunk");
  }
  uint32 fmt_size = r.U32("the fmt chunk size");
  if (fmt_size < 16)
    NNET3_ERR << "wav: fmt chunk too short (" << fmt_size << " bytes)";
  uint16 format = r.U16("the format tag");
  uint16 channels = r.U16("the channel count");
  uint32 rate = r.U32("the sample rate");
  uint32 byte_rate = r.U32("the byte rate");
  uint16 block_align = r.U16("the block alignment");
  uint16 bits = r.U16("the bits per sample");
  uint32 fmt_read = 16;
  uint32 effective_format = format;
  if (format == 0xFFFE) {  // WAVE_FORMAT_EXTENSIBLE
    if (fmt_size < 40)
      NNET3_ERR << "wav: malformed WAVE_FORMAT_EXTENSIBLE fmt chunk ("
                << fmt_size << " bytes, expected at least 40)";
    uint16 extra = r.U16("the extension size");
    if (extra < 22)
      NNET3_ERR << "wav: malformed WAVE_FORMAT_EXTENSIBLE fmt chunk "
                << "(extension of " << extra << " bytes)";
    r.U16("the valid bits");
    r.U32("the channel mask");
    // The sub-format GUID, read as four 32-bit words in the file's byte
    // order: the first holds the format tag, the rest are fixed.
    uint32 g1 = r.U32("the sub-format"), g2 = r.U32("the sub-format"),
           g3 = r.U32("the sub-format"), g4 = r.U32("the sub-format");
    fmt_read = 40;
    if (g2 != 0x00100000 || g3 != 0xAA000080 || g4 != 0x719B3800)
      NNET3_ERR << "wav: unsupported WAVE_FORMAT_EXTENSIBLE sub-format "
                << "(not a standard format GUID); only 16-bit PCM is read";
    effective_format = g1;
  }
  if (effective_format != 1)
    NNET3_ERR << "wav: unsupported sample format " << effective_format << " ("
              << FormatName(effective_format)
              << "); only 16-bit integer PCM can be read (convert with e.g. "
              << "'sox in.wav -b 16 -e signed-integer -t wav - |')";
  if (bits != 16)
    NNET3_ERR << "wav: unsupported sample size of " << bits
              << " bits per sample; only 16-bit PCM can be read (convert "
              << "with e.g. 'sox in.wav -b 16 -t wav - |')";
  if (channels == 0) NNET3_ERR << "wav: the file declares no channels";
  if (rate == 0) NNET3_ERR << "wav: the file declares a sample rate of 0";
  if (block_align != channels * 2)
    NNET3_ERR << "wav: unexpected block alignment " << block_align
              << " (expected " << channels << " channels * 2 bytes)";
  if (byte_rate != rate * block_align)
    NNET3_ERR << "wav: unexpected byte rate " << byte_rate << " (expected "
              << rate << " * " << block_align << ")";
  r.Skip(fmt_size - fmt_read + (fmt_size & 1), "the rest of the fmt chunk");

  // Skip other chunks ("fact", "LIST", ...) up to "data".
  tag = r.Tag("the data chunk");
  while (tag != "data") {
    uint32 size = r.U32("a chunk size");
    r.Skip(size + (size & 1), "a chunk before the data");
    tag = r.Tag("the data chunk");
  }
  uint32 data_size = r.U32("the data chunk size");
  uint32 max = std::numeric_limits<uint32>::max();
  is_streamed_ = (riff_size == 0 && data_size == 0) ||
                 (riff_size == max && data_size == max);
  samp_freq_ = static_cast<BaseFloat>(rate);
  num_channels_ = channels;
  block_align_ = block_align;
  data_bytes_ = is_streamed_ ? 0 : data_size;
}

void WaveData::Read(std::istream &is) {
  WaveInfo info;
  info.Read(is);
  std::vector<char> bytes;
  if (info.IsStreamed()) {
    char buf[65536];
    while (is) {
      is.read(buf, sizeof(buf));
      bytes.insert(bytes.end(), buf, buf + is.gcount());
      if (static_cast<int64>(bytes.size()) > MaxDeclaredBytes())
        NNET3_ERR << "wav: a streamed file longer than the limit of "
                  << MaxDeclaredBytes() << " bytes (NNET3_MAX_DECLARED_BYTES,"
                  << " see docs/io.md)";
    }
  } else {
    // The declared size is checked against what the input holds and read
    // in pieces, so a lying header allocates nothing ahead of the data.
    ReadRawArray(is, static_cast<int64>(info.DataBytes()), &bytes,
                 "wav: truncated or corrupt file: the data chunk size");
  }
  if (is.bad()) NNET3_ERR << "wav: read error";
  if (bytes.empty()) NNET3_ERR << "wav: no samples (empty data chunk)";
  int32 channels = info.NumChannels(), block = info.BlockAlign();
  if (bytes.size() % block != 0)
    NNET3_ERR << "wav: the data size " << bytes.size()
              << " is not a multiple of the block alignment " << block
              << " (truncated or corrupt file)";
  size_t num_samples = bytes.size() / block;
  if (num_samples > static_cast<size_t>(std::numeric_limits<int32>::max()))
    NNET3_ERR << "wav: too many samples (" << num_samples << ")";
  data_.Resize(channels, static_cast<MatrixIndexT>(num_samples), kUndefined);
  const unsigned char *p = reinterpret_cast<const unsigned char *>(bytes.data());
  bool big = info.ReverseBytes();
  std::vector<BaseFloat *> rows(channels);
  for (int32 c = 0; c < channels; c++) rows[c] = data_.RowData(c);
  for (size_t i = 0; i < num_samples; i++) {
    for (int32 c = 0; c < channels; c++, p += 2) {
      uint16 u = big ? static_cast<uint16>((p[0] << 8) | p[1])
                     : static_cast<uint16>((p[1] << 8) | p[0]);
      rows[c][i] = static_cast<BaseFloat>(static_cast<int16>(u));
    }
  }
  samp_freq_ = info.SampFreq();
}

void WaveData::Write(std::ostream &os) const {
  int32 channels = data_.NumRows(), samples = data_.NumCols();
  if (channels == 0) NNET3_ERR << "wav: cannot write audio with no channels";
  if (samp_freq_ <= 0) NNET3_ERR << "wav: cannot write a sample rate of 0";
  uint64 data_bytes = uint64(channels) * uint64(samples) * 2;
  if (data_bytes + 36 > std::numeric_limits<uint32>::max())
    NNET3_ERR << "wav: audio too long for a wav file";
  uint32 rate = static_cast<uint32>(samp_freq_);
  os.write("RIFF", 4);
  WriteU32(os, static_cast<uint32>(36 + data_bytes));
  os.write("WAVEfmt ", 8);
  WriteU32(os, 16);
  WriteU16(os, 1);
  WriteU16(os, static_cast<uint16>(channels));
  WriteU32(os, rate);
  WriteU32(os, rate * channels * 2);
  WriteU16(os, static_cast<uint16>(channels * 2));
  WriteU16(os, 16);
  os.write("data", 4);
  WriteU32(os, static_cast<uint32>(data_bytes));
  std::vector<char> buf(static_cast<size_t>(data_bytes));
  size_t k = 0;
  int64 num_clipped = 0;
  for (int32 i = 0; i < samples; i++) {
    for (int32 c = 0; c < channels; c++) {
      double v = std::trunc(static_cast<double>(data_(c, i)));
      if (v < -32768.0) {
        v = -32768.0;
        num_clipped++;
      } else if (v > 32767.0) {
        v = 32767.0;
        num_clipped++;
      }
      uint16 u = static_cast<uint16>(static_cast<int16>(v));
      buf[k++] = static_cast<char>(u & 0xff);
      buf[k++] = static_cast<char>(u >> 8);
    }
  }
  os.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  if (!os) NNET3_ERR << "wav: error writing audio";
  if (num_clipped > 0)
    NNET3_WARN << "Clipped " << num_clipped << " samples out of "
               << int64(channels) * samples << " when writing 16-bit audio";
}

bool WaveHolder::Write(std::ostream &os, bool, const T &t) {
  t.Write(os);
  internal::CheckHolderWrite(os, "WaveHolder");
  return true;
}

bool WaveHolder::Read(std::istream &is) {
  t_.Read(is);
  return true;
}

bool WaveInfoHolder::Write(std::ostream &, bool, const T &) {
  NNET3_ERR << "WaveInfoHolder cannot write (it holds only a wav header)";
  return false;
}

bool WaveInfoHolder::Read(std::istream &is) {
  t_.Read(is);
  return true;
}

}  // namespace nnet3
