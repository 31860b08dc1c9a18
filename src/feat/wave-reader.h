// feat/wave-reader.h
// RIFF/WAVE audio input and output, and the table holders that let tools
// read "scp:wav.scp" (files or pipes such as "sox in.flac -t wav - |") and
// wav archives. Only 16-bit integer PCM can be read (format tag 1, or
// WAVE_FORMAT_EXTENSIBLE with the PCM sub-format), little-endian ("RIFF")
// or big-endian ("RIFX"), any number of channels and any sample rate.
// Everything else (8-bit, 24/32-bit, IEEE float, A-law, ...) is a
// UserError that names what the file holds; the table readers add the key.
//
// Invariants: WaveData::Data() is channels x samples, each value the int16
// sample as a float (not scaled to [-1, 1]), as Kaldi stores it. A header
// whose data chunk declares more bytes than the stream holds is an error
// ("truncated"), except in streaming mode (declared sizes 0 or 0xFFFFFFFF),
// where the data runs to the end of the stream.
#ifndef NNET3_FEAT_WAVE_READER_H_
#define NNET3_FEAT_WAVE_READER_H_

#include <istream>
#include <ostream>
#include <string>
#include <utility>

#include "base/types.h"
#include "matrix/matrix.h"
#include "util/holders.h"
#include "util/table.h"

namespace nnet3 {

// The header of a wav file: format, channels, rate, and the data size.
class WaveInfo {
 public:
  WaveInfo() {}
  // Reads the RIFF header up to (and including) the "data" chunk's size;
  // the stream is left at the first sample. Throws UserError.
  void Read(std::istream &is);

  BaseFloat SampFreq() const { return samp_freq_; }
  int32 NumChannels() const { return num_channels_; }
  int32 BlockAlign() const { return block_align_; }
  // Bytes of sample data declared in the header (0 in streaming mode).
  uint32 DataBytes() const { return data_bytes_; }
  // True if the sizes in the header mean "unknown, read to the end".
  bool IsStreamed() const { return is_streamed_; }
  bool ReverseBytes() const { return reverse_bytes_; }
  // Samples per channel declared in the header; -1 in streaming mode.
  int64 SampleCount() const {
    return is_streamed_ ? -1 : static_cast<int64>(data_bytes_ / block_align_);
  }
  // Duration in seconds from the header; -1 in streaming mode.
  BaseFloat Duration() const {
    return is_streamed_ ? -1.0f : SampleCount() / samp_freq_;
  }

 private:
  BaseFloat samp_freq_ = 0.0f;
  int32 num_channels_ = 0;
  int32 block_align_ = 0;
  uint32 data_bytes_ = 0;
  bool is_streamed_ = false;
  bool reverse_bytes_ = false;
};

// Audio: one row per channel.
class WaveData {
 public:
  WaveData() {}
  WaveData(BaseFloat samp_freq, const MatrixBase<BaseFloat> &data)
      : data_(data), samp_freq_(samp_freq) {}

  // Reads a whole wav file (header and samples). Throws UserError.
  void Read(std::istream &is);
  // Writes 16-bit PCM, little-endian, values truncated toward zero and
  // clipped to the int16 range (with a warning counting the clipped ones).
  void Write(std::ostream &os) const;

  const Matrix<BaseFloat> &Data() const { return data_; }
  Matrix<BaseFloat> &Data() { return data_; }
  BaseFloat SampFreq() const { return samp_freq_; }
  // Seconds.
  BaseFloat Duration() const {
    return samp_freq_ > 0 ? data_.NumCols() / samp_freq_ : 0.0f;
  }
  void Clear() {
    data_.Resize(0, 0);
    samp_freq_ = 0.0f;
  }
  void Swap(WaveData *other) {
    data_.Swap(&other->data_);
    std::swap(samp_freq_, other->samp_freq_);
  }

 private:
  Matrix<BaseFloat> data_;
  BaseFloat samp_freq_ = 0.0f;
};

// Table holder for WaveData: the object is the wav file itself (no Kaldi
// binary header). Ranges are not supported.
class WaveHolder {
 public:
  typedef WaveData T;
  static bool Write(std::ostream &os, bool binary, const T &t);
  bool Read(std::istream &is);
  static bool IsReadInBinary() { return true; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() { t_.Clear(); }
  void Swap(WaveHolder *other) { t_.Swap(&other->t_); }
  bool ExtractRange(const WaveHolder &, const std::string &) {
    internal::NoRanges("WaveHolder");
  }

 private:
  T t_;
};

// Reads only the header (for durations and sample counts); it cannot
// write, and it does not consume the samples, so it is meant for script
// files (each entry its own file or pipe), not archives.
class WaveInfoHolder {
 public:
  typedef WaveInfo T;
  static bool Write(std::ostream &os, bool binary, const T &t);
  bool Read(std::istream &is);
  static bool IsReadInBinary() { return true; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() { t_ = WaveInfo(); }
  void Swap(WaveInfoHolder *other) { std::swap(t_, other->t_); }
  bool ExtractRange(const WaveInfoHolder &, const std::string &) {
    internal::NoRanges("WaveInfoHolder");
  }

 private:
  T t_;
};

typedef TableWriter<WaveHolder> WaveWriter;
typedef SequentialTableReader<WaveHolder> SequentialWaveReader;
typedef RandomAccessTableReader<WaveHolder> RandomAccessWaveReader;
typedef SequentialTableReader<WaveInfoHolder> SequentialWaveInfoReader;
typedef RandomAccessTableReader<WaveInfoHolder> RandomAccessWaveInfoReader;

}  // namespace nnet3

#endif  // NNET3_FEAT_WAVE_READER_H_
