// matrix/compressed.cc
// Compression arithmetic mirrors Kaldi's step for step (which operations are
// done in float and which in double), because archives must be
// byte-identical. See compressed.h for the layout.
#include "matrix/compressed.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/io.h"

namespace nnet3 {

namespace {

typedef CompressedMatrix::GlobalHeader GlobalHeader;
typedef CompressedMatrix::PerColHeader PerColHeader;

enum DataFormat { kOneByteWithColHeaders = 1, kTwoByte = 2, kOneByte = 3 };

static_assert(sizeof(GlobalHeader) == 20, "GlobalHeader must be 20 bytes");
static_assert(sizeof(PerColHeader) == 8, "PerColHeader must be 8 bytes");

inline uint16 FloatToUint16(const GlobalHeader &h, float value) {
  float f = (value - h.min_value) / h.range;
  if (f > 1.0) f = 1.0;
  if (f < 0.0) f = 0.0;
  return static_cast<int>(f * 65535 + 0.499);
}

inline uint8 FloatToUint8(const GlobalHeader &h, float value) {
  float f = (value - h.min_value) / h.range;
  if (f > 1.0) f = 1.0;
  if (f < 0.0) f = 0.0;
  return static_cast<int>(f * 255 + 0.499);
}

inline float Uint16ToFloat(const GlobalHeader &h, uint16 value) {
  // 1.52590218966964e-05 is 1/65535.
  return h.min_value + h.range * 1.52590218966964e-05F * value;
}

// static_cast<int>(x) clamped to [lo, hi], with the clamping done before the
// conversion: the same result whenever x converts, and no undefined
// conversion when x is NaN (gives lo) or beyond the int range. Percentiles
// that a matrix with a huge offset and a tiny spread rounds to the same
// float make the fractions below 0/0 or x/0.
inline int ClampedToInt(double x, int lo, int hi) {
  if (!(x > lo)) return lo;
  if (x >= hi) return hi;
  return static_cast<int>(x);
}

inline uint8 FloatToChar(float p0, float p25, float p75, float p100,
                         float value) {
  int ans;
  if (value < p25) {
    // [p0, p25) maps to 0..64.
    float f = (value - p0) / (p25 - p0);
    ans = ClampedToInt(f * 64 + 0.5, 0, 64);
  } else if (value < p75) {
    // [p25, p75) maps to 64..192.
    float f = (value - p25) / (p75 - p25);
    ans = 64 + ClampedToInt(f * 128 + 0.5, 0, 128);
  } else {
    // [p75, p100] maps to 192..255.
    float f = (value - p75) / (p100 - p75);
    ans = 192 + ClampedToInt(f * 63 + 0.5, 0, 63);
  }
  return static_cast<uint8>(ans);
}

inline float CharToFloat(float p0, float p25, float p75, float p100,
                         uint8 value) {
  if (value <= 64) return p0 + (p25 - p0) * value * (1 / 64.0);
  if (value <= 192) return p25 + (p75 - p25) * (value - 64) * (1 / 128.0);
  return p75 + (p100 - p75) * (value - 192) * (1 / 63.0);
}

template <typename Real>
void ComputeGlobalHeader(const MatrixBase<Real> &mat, CompressionMethod method,
                         GlobalHeader *header) {
  if (method == kAutomaticMethod)
    method = mat.NumRows() > 8 ? kSpeechFeature : kTwoByteAuto;
  switch (method) {
    case kSpeechFeature:
      header->format = kOneByteWithColHeaders;
      break;
    case kTwoByteAuto:
    case kTwoByteSignedInteger:
      header->format = kTwoByte;
      break;
    case kOneByteAuto:
    case kOneByteUnsignedInteger:
    case kOneByteZeroOne:
      header->format = kOneByte;
      break;
    case kAutomaticMethod:
      NNET3_ASSERT(false);
  }
  header->num_rows = mat.NumRows();
  header->num_cols = mat.NumCols();
  // NaN has no byte code (and converting it to an integer is undefined), so
  // it is an error for every method; infinities are clamped by the fixed-
  // range methods and rejected below by the others.
  for (MatrixIndexT r = 0; r < mat.NumRows(); r++) {
    const Real *row = mat.RowData(r);
    for (MatrixIndexT c = 0; c < mat.NumCols(); c++)
      if (std::isnan(row[c]))
        NNET3_ERR << "Cannot compress a matrix with NaN values (row " << r
                  << ", column " << c << " of a " << mat.NumRows() << " x "
                  << mat.NumCols() << " matrix)";
  }
  switch (method) {
    case kSpeechFeature:
    case kTwoByteAuto:
    case kOneByteAuto: {
      float min_value = mat.Min(), max_value = mat.Max();
      // A constant matrix still needs a positive range.
      if (max_value == min_value)
        max_value = min_value + (1.0 + std::fabs(min_value));
      if (!std::isfinite(max_value - min_value))
        NNET3_ERR << "Cannot compress a matrix with non-finite values or "
                     "range (min " << min_value << ", max " << max_value
                  << ")";
      header->min_value = min_value;
      header->range = max_value - min_value;
      NNET3_ASSERT(header->range > 0.0);
      break;
    }
    case kTwoByteSignedInteger:
      header->min_value = -32768.0;
      header->range = 65535.0;
      break;
    case kOneByteUnsignedInteger:
      header->min_value = 0.0;
      header->range = 255.0;
      break;
    case kOneByteZeroOne:
      header->min_value = 0.0;
      header->range = 1.0;
      break;
    case kAutomaticMethod:
      NNET3_ASSERT(false);
  }
}

// Percentile headers of one column. The values at sorted positions 0, n/4,
// 3n/4 and n-1 are what matter (not how the sort gets them).
template <typename Real>
void ComputeColHeader(const GlobalHeader &h, const Real *data,
                      MatrixIndexT stride, int32 num_rows,
                      PerColHeader *header) {
  NNET3_ASSERT(num_rows > 0);
  std::vector<Real> s(num_rows);
  for (int32 i = 0; i < num_rows; i++) s[i] = data[static_cast<size_t>(i) * stride];
  if (num_rows >= 5) {
    int32 q = num_rows / 4;
    std::nth_element(s.begin(), s.begin() + q, s.end());
    std::nth_element(s.begin(), s.begin(), s.begin() + q);
    std::nth_element(s.begin() + q + 1, s.begin() + 3 * q, s.end());
    std::nth_element(s.begin() + 3 * q + 1, s.end() - 1, s.end());
    header->percentile_0 = std::min<uint16>(FloatToUint16(h, s[0]), 65532);
    header->percentile_25 = std::min<uint16>(
        std::max<uint16>(FloatToUint16(h, s[q]),
                         header->percentile_0 + static_cast<uint16>(1)),
        65533);
    header->percentile_75 = std::min<uint16>(
        std::max<uint16>(FloatToUint16(h, s[3 * q]),
                         header->percentile_25 + static_cast<uint16>(1)),
        65534);
    header->percentile_100 = std::max<uint16>(
        FloatToUint16(h, s[num_rows - 1]),
        header->percentile_75 + static_cast<uint16>(1));
  } else {
    std::sort(s.begin(), s.end());
    header->percentile_0 = std::min<uint16>(FloatToUint16(h, s[0]), 65532);
    if (num_rows > 1)
      header->percentile_25 = std::min<uint16>(
          std::max<uint16>(FloatToUint16(h, s[1]), header->percentile_0 + 1),
          65533);
    else
      header->percentile_25 = header->percentile_0 + 1;
    if (num_rows > 2)
      header->percentile_75 = std::min<uint16>(
          std::max<uint16>(FloatToUint16(h, s[2]), header->percentile_25 + 1),
          65534);
    else
      header->percentile_75 = header->percentile_25 + 1;
    if (num_rows > 3)
      header->percentile_100 = std::max<uint16>(FloatToUint16(h, s[3]),
                                                header->percentile_75 + 1);
    else
      header->percentile_100 = header->percentile_75 + 1;
  }
}

template <typename Real>
void CompressColumn(const GlobalHeader &h, const Real *data,
                    MatrixIndexT stride, int32 num_rows, PerColHeader *header,
                    uint8 *byte_data) {
  ComputeColHeader(h, data, stride, num_rows, header);
  float p0 = Uint16ToFloat(h, header->percentile_0),
        p25 = Uint16ToFloat(h, header->percentile_25),
        p75 = Uint16ToFloat(h, header->percentile_75),
        p100 = Uint16ToFloat(h, header->percentile_100);
  for (int32 i = 0; i < num_rows; i++)
    byte_data[i] = FloatToChar(p0, p25, p75, p100,
                               data[static_cast<size_t>(i) * stride]);
}

void *AllocateData(size_t size) {
  void *p = std::malloc(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

size_t CompressedMatrix::DataSize(const GlobalHeader &h) {
  size_t rows = h.num_rows, cols = h.num_cols;
  switch (static_cast<DataFormat>(h.format)) {
    case kOneByteWithColHeaders:
      return sizeof(GlobalHeader) + cols * (sizeof(PerColHeader) + rows);
    case kTwoByte:
      return sizeof(GlobalHeader) + 2 * rows * cols;
    case kOneByte:
      return sizeof(GlobalHeader) + rows * cols;
  }
  NNET3_ERR << "Bad compressed-matrix format " << h.format;
  return 0;
}

void CompressedMatrix::Clear() {
  std::free(data_);
  data_ = nullptr;
}

CompressedMatrix::CompressedMatrix(const CompressedMatrix &other)
    : data_(nullptr) {
  *this = other;
}

CompressedMatrix &CompressedMatrix::operator=(const CompressedMatrix &other) {
  if (this == &other) return *this;
  Clear();
  if (other.data_ != nullptr) {
    size_t size = other.DataSizeInBytes();
    data_ = AllocateData(size);
    std::memcpy(data_, other.data_, size);
  }
  return *this;
}

CompressedMatrix &CompressedMatrix::operator=(CompressedMatrix &&other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = other.data_;
    other.data_ = nullptr;
  }
  return *this;
}

size_t CompressedMatrix::DataSizeInBytes() const {
  if (data_ == nullptr) return 0;
  return DataSize(*static_cast<const GlobalHeader *>(data_));
}

MatrixIndexT CompressedMatrix::NumRows() const {
  return data_ ? static_cast<const GlobalHeader *>(data_)->num_rows : 0;
}
MatrixIndexT CompressedMatrix::NumCols() const {
  return data_ ? static_cast<const GlobalHeader *>(data_)->num_cols : 0;
}
int32 CompressedMatrix::Format() const {
  return data_ ? static_cast<const GlobalHeader *>(data_)->format : 0;
}

template <typename Real>
void CompressedMatrix::CopyFromMat(const MatrixBase<Real> &mat,
                                   CompressionMethod method) {
  Clear();
  if (mat.NumRows() == 0) return;
  GlobalHeader h;
  ComputeGlobalHeader(mat, method, &h);
  size_t size = DataSize(h);
  data_ = AllocateData(size);
  *static_cast<GlobalHeader *>(data_) = h;
  char *body = static_cast<char *>(data_) + sizeof(GlobalHeader);
  int32 rows = h.num_rows, cols = h.num_cols;
  if (h.format == kOneByteWithColHeaders) {
    PerColHeader *col_headers = reinterpret_cast<PerColHeader *>(body);
    uint8 *bytes = reinterpret_cast<uint8 *>(col_headers + cols);
    for (int32 c = 0; c < cols; c++) {
      CompressColumn(h, mat.Data() + c, mat.Stride(), rows, col_headers + c,
                     bytes);
      bytes += rows;
    }
  } else if (h.format == kTwoByte) {
    uint16 *out = reinterpret_cast<uint16 *>(body);
    for (int32 r = 0; r < rows; r++, out += cols) {
      const Real *in = mat.RowData(r);
      for (int32 c = 0; c < cols; c++) out[c] = FloatToUint16(h, in[c]);
    }
  } else {
    uint8 *out = reinterpret_cast<uint8 *>(body);
    for (int32 r = 0; r < rows; r++, out += cols) {
      const Real *in = mat.RowData(r);
      for (int32 c = 0; c < cols; c++) out[c] = FloatToUint8(h, in[c]);
    }
  }
}

template <typename Real>
void CompressedMatrix::CopyToMat(MatrixBase<Real> *mat,
                                 MatrixTransposeType trans) const {
  if (trans == kTrans) {
    Matrix<Real> tmp(NumRows(), NumCols(), kUndefined);
    CopyToMat(&tmp, kNoTrans);
    mat->CopyFromMat(tmp, kTrans);
    return;
  }
  NNET3_ASSERT(mat->NumRows() == NumRows() && mat->NumCols() == NumCols());
  if (data_ == nullptr) return;
  CopyToMat(0, 0, mat);
}

template <typename Real>
void CompressedMatrix::CopyToMat(int32 row_offset, int32 col_offset,
                                 MatrixBase<Real> *mat) const {
  NNET3_ASSERT(row_offset >= 0 && col_offset >= 0 &&
               row_offset + mat->NumRows() <= NumRows() &&
               col_offset + mat->NumCols() <= NumCols());
  if (mat->NumRows() == 0) return;
  const GlobalHeader &h = *static_cast<const GlobalHeader *>(data_);
  const char *body = static_cast<const char *>(data_) + sizeof(GlobalHeader);
  int32 rows = mat->NumRows(), cols = mat->NumCols();
  if (h.format == kOneByteWithColHeaders) {
    const PerColHeader *col_headers =
        reinterpret_cast<const PerColHeader *>(body);
    const uint8 *bytes =
        reinterpret_cast<const uint8 *>(col_headers + h.num_cols);
    for (int32 c = 0; c < cols; c++) {
      const PerColHeader &ch = col_headers[col_offset + c];
      float p0 = Uint16ToFloat(h, ch.percentile_0),
            p25 = Uint16ToFloat(h, ch.percentile_25),
            p75 = Uint16ToFloat(h, ch.percentile_75),
            p100 = Uint16ToFloat(h, ch.percentile_100);
      const uint8 *col_bytes =
          bytes + static_cast<size_t>(col_offset + c) * h.num_rows + row_offset;
      for (int32 r = 0; r < rows; r++)
        (*mat)(r, c) = CharToFloat(p0, p25, p75, p100, col_bytes[r]);
    }
  } else if (h.format == kTwoByte) {
    const uint16 *in = reinterpret_cast<const uint16 *>(body);
    float min_value = h.min_value, increment = h.range * (1.0 / 65535.0);
    for (int32 r = 0; r < rows; r++) {
      const uint16 *row_in =
          in + static_cast<size_t>(row_offset + r) * h.num_cols + col_offset;
      Real *out = mat->RowData(r);
      for (int32 c = 0; c < cols; c++) out[c] = min_value + row_in[c] * increment;
    }
  } else {
    const uint8 *in = reinterpret_cast<const uint8 *>(body);
    float min_value = h.min_value, increment = h.range * (1.0 / 255.0);
    for (int32 r = 0; r < rows; r++) {
      const uint8 *row_in =
          in + static_cast<size_t>(row_offset + r) * h.num_cols + col_offset;
      Real *out = mat->RowData(r);
      for (int32 c = 0; c < cols; c++) out[c] = min_value + row_in[c] * increment;
    }
  }
}

template <typename Real>
void CompressedMatrix::CopyRowToVec(MatrixIndexT row,
                                    VectorBase<Real> *v) const {
  NNET3_ASSERT(row >= 0 && row < NumRows() && v->Dim() == NumCols());
  SubMatrix<Real> m(v->Data(), 1, v->Dim(), v->Dim());
  CopyToMat(row, 0, &m);
}

template <typename Real>
void CompressedMatrix::CopyColToVec(MatrixIndexT col,
                                    VectorBase<Real> *v) const {
  NNET3_ASSERT(col >= 0 && col < NumCols() && v->Dim() == NumRows());
  SubMatrix<Real> m(v->Data(), v->Dim(), 1, 1);
  CopyToMat(0, col, &m);
}

void CompressedMatrix::Scale(float alpha) {
  if (data_ == nullptr) return;
  GlobalHeader &h = *static_cast<GlobalHeader *>(data_);
  h.min_value *= alpha;
  h.range *= alpha;
}

void CompressedMatrix::Write(std::ostream &os, bool binary) const {
  if (binary) {
    if (data_ != nullptr) {
      const GlobalHeader &h = *static_cast<const GlobalHeader *>(data_);
      const char *token = h.format == kOneByteWithColHeaders ? "CM"
                          : h.format == kTwoByte             ? "CM2"
                                                             : "CM3";
      WriteToken(os, binary, token);
      // The format field is implied by the token and not written.
      os.write(static_cast<const char *>(data_) + 4, DataSize(h) - 4);
    } else {
      WriteToken(os, binary, "CM");
      GlobalHeader h;
      h.format = kOneByteWithColHeaders;
      h.min_value = h.range = 0.0;
      h.num_rows = h.num_cols = 0;
      os.write(reinterpret_cast<const char *>(&h) + 4, sizeof(h) - 4);
    }
  } else {
    Matrix<BaseFloat> tmp(NumRows(), NumCols(), kUndefined);
    CopyToMat(&tmp);
    tmp.Write(os, binary);
  }
  if (os.fail()) NNET3_ERR << "Error writing compressed matrix to stream.";
}

void CompressedMatrix::Read(std::istream &is, bool binary) {
  Clear();
  long long pos = StreamPosition(is);
  if (binary) {
    int peek = Peek(is, binary);
    if (peek == 'C') {
      std::string token;
      ReadToken(is, binary, &token);
      GlobalHeader h;
      if (token == "CM") h.format = kOneByteWithColHeaders;
      else if (token == "CM2") h.format = kTwoByte;
      else if (token == "CM3") h.format = kOneByte;
      else
        NNET3_ERR << "Failed to read compressed matrix: unexpected token "
                  << PrintableString(token) << ", expecting CM, CM2 or CM3"
                  << " (file position " << pos << ")";
      is.read(reinterpret_cast<char *>(&h) + 4, sizeof(h) - 4);
      if (is.fail())
        NNET3_ERR << "Failed to read compressed matrix: truncated header "
                     "(file position " << pos << ")";
      if (h.num_rows < 0 || h.num_cols < 0)
        NNET3_ERR << "Failed to read compressed matrix: bad size "
                  << h.num_rows << "x" << h.num_cols << " (file position "
                  << pos << ")";
      if (h.num_cols == 0 || h.num_rows == 0) return;
      size_t size = DataSize(h);
      // The header's size is untrusted: check it against the input before
      // allocating, and stage large data of unknown length in pieces as it
      // arrives (docs/io.md, "Limits on untrusted input").
      std::string what = "Failed to read compressed matrix: the " +
                         std::to_string(h.num_rows) + "x" +
                         std::to_string(h.num_cols) + " size, data bytes";
      int64 body = static_cast<int64>(size - sizeof(GlobalHeader));
      bool verified = CheckDeclaredSize(is, body, 1, what.c_str());
      if (!verified && body > kReadChunkBytes) {
        std::vector<char> staged;
        ReadRawArray(is, body, &staged, what.c_str());
        data_ = AllocateData(size);
        *static_cast<GlobalHeader *>(data_) = h;
        std::memcpy(static_cast<char *>(data_) + sizeof(GlobalHeader),
                    staged.data(), staged.size());
        return;
      }
      data_ = AllocateData(size);
      *static_cast<GlobalHeader *>(data_) = h;
      is.read(static_cast<char *>(data_) + sizeof(GlobalHeader),
              size - sizeof(GlobalHeader));
      if (is.fail()) {
        Clear();
        NNET3_ERR << "Failed to read compressed matrix: unexpected end of "
                     "data for a " << h.num_rows << "x" << h.num_cols
                  << " matrix (file position " << pos << ")";
      }
      return;
    }
  }
  // A regular matrix where a compressed one was expected: compress it.
  Matrix<BaseFloat> m;
  m.Read(is, binary);
  CopyFromMat(m);
}

// Matrix members that involve CompressedMatrix live here.
template <typename Real>
Matrix<Real>::Matrix(const CompressedMatrix &M) : MatrixBase<Real>() {
  Resize(M.NumRows(), M.NumCols(), kUndefined);
  M.CopyToMat(this);
}

template <typename Real>
void MatrixBase<Real>::CopyFromMat(const CompressedMatrix &M) {
  M.CopyToMat(this);
}

#define NNET3_INSTANTIATE_COMPRESSED(R)                                       \
  template void CompressedMatrix::CopyFromMat(const MatrixBase<R> &,          \
                                              CompressionMethod);             \
  template void CompressedMatrix::CopyToMat(MatrixBase<R> *,                  \
                                            MatrixTransposeType) const;       \
  template void CompressedMatrix::CopyToMat(int32, int32, MatrixBase<R> *)    \
      const;                                                                  \
  template void CompressedMatrix::CopyRowToVec(MatrixIndexT, VectorBase<R> *) \
      const;                                                                  \
  template void CompressedMatrix::CopyColToVec(MatrixIndexT, VectorBase<R> *) \
      const;                                                                  \
  template Matrix<R>::Matrix(const CompressedMatrix &);                       \
  template void MatrixBase<R>::CopyFromMat(const CompressedMatrix &);

NNET3_INSTANTIATE_COMPRESSED(float)
NNET3_INSTANTIATE_COMPRESSED(double)

}  // namespace nnet3
