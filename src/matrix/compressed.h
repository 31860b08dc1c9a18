// matrix/compressed.h
// CompressedMatrix: Kaldi's lossy matrix storage, bit-compatible with the
// "CM" (one byte per value with per-column percentile headers), "CM2" (two
// bytes per value) and "CM3" (one byte per value) binary formats.
//
// Layout of data_ (exactly what follows the token on disk, plus the 4-byte
// format field that is not written): GlobalHeader {int32 format; float
// min_value; float range; int32 num_rows; int32 num_cols}, then
//   format 1: num_cols PerColHeader {uint16 p0, p25, p75, p100}, then bytes
//             column by column (num_rows bytes per column);
//   format 2: uint16 values row by row;
//   format 3: uint8 values row by row.
// Invariant: data_ == nullptr iff the matrix is empty (0 x 0).
// The arithmetic (rounding, float vs double steps) follows Kaldi exactly, so
// compressing the same input gives the same bytes.
#ifndef NNET3_MATRIX_COMPRESSED_H_
#define NNET3_MATRIX_COMPRESSED_H_

#include <istream>
#include <ostream>

#include "matrix/matrix.h"

namespace nnet3 {

// The --compression-method values of copy-feats and friends.
enum CompressionMethod {
  kAutomaticMethod = 1,        // kSpeechFeature if rows > 8, else kTwoByteAuto
  kSpeechFeature = 2,          // format 1 (CM)
  kTwoByteAuto = 3,            // format 2 (CM2), range from the data
  kTwoByteSignedInteger = 4,   // format 2, range [-32768, 32767]
  kOneByteAuto = 5,            // format 3 (CM3), range from the data
  kOneByteUnsignedInteger = 6, // format 3, range [0, 255]
  kOneByteZeroOne = 7          // format 3, range [0, 1]
};

class CompressedMatrix {
 public:
  CompressedMatrix() : data_(nullptr) {}
  ~CompressedMatrix() { Clear(); }
  template <typename Real>
  explicit CompressedMatrix(const MatrixBase<Real> &mat,
                            CompressionMethod method = kAutomaticMethod)
      : data_(nullptr) {
    CopyFromMat(mat, method);
  }
  CompressedMatrix(const CompressedMatrix &other);
  CompressedMatrix &operator=(const CompressedMatrix &other);
  CompressedMatrix(CompressedMatrix &&other) noexcept : data_(other.data_) {
    other.data_ = nullptr;
  }
  CompressedMatrix &operator=(CompressedMatrix &&other) noexcept;

  // Compresses mat (any size; an empty matrix gives an empty result). A
  // NaN anywhere in mat is a UserError naming its row and column, as is an
  // infinity for the methods that take their range from the data.
  template <typename Real>
  void CopyFromMat(const MatrixBase<Real> &mat,
                   CompressionMethod method = kAutomaticMethod);

  // Decompresses into mat, which must have the right size (transposed size
  // for kTrans).
  template <typename Real>
  void CopyToMat(MatrixBase<Real> *mat,
                 MatrixTransposeType trans = kNoTrans) const;
  // Decompresses rows [row_offset, row_offset + mat->NumRows()) and columns
  // [col_offset, col_offset + mat->NumCols()).
  template <typename Real>
  void CopyToMat(int32 row_offset, int32 col_offset,
                 MatrixBase<Real> *mat) const;
  template <typename Real>
  void CopyRowToVec(MatrixIndexT row, VectorBase<Real> *v) const;
  template <typename Real>
  void CopyColToVec(MatrixIndexT col, VectorBase<Real> *v) const;

  MatrixIndexT NumRows() const;
  MatrixIndexT NumCols() const;
  // 1, 2 or 3 (0 if empty).
  int32 Format() const;

  // Binary: "CM"/"CM2"/"CM3" token and the data. An empty matrix is written
  // as "CM " and a 16-byte zero header (Kaldi writes 4 extra undefined bytes
  // here that it cannot read back; we write what it reads). Text: written
  // uncompressed, as a regular matrix.
  void Write(std::ostream &os, bool binary) const;
  // Binary: a "CM*" token, or a regular "FM"/"DM" matrix which is then
  // compressed with kAutomaticMethod. Text: a regular matrix, compressed.
  void Read(std::istream &is, bool binary);

  void Swap(CompressedMatrix *other) { std::swap(data_, other->data_); }
  void Clear();
  // Multiplies the stored values by alpha (exact for the headers: only
  // min_value and range change).
  void Scale(float alpha);
  // Size of the stored data in bytes (header included).
  size_t DataSizeInBytes() const;

  struct GlobalHeader {
    int32 format;
    float min_value;
    float range;
    int32 num_rows;
    int32 num_cols;
  };
  struct PerColHeader {
    uint16 percentile_0;
    uint16 percentile_25;
    uint16 percentile_75;
    uint16 percentile_100;
  };

 private:
  static size_t DataSize(const GlobalHeader &header);
  void *data_;
};

}  // namespace nnet3

#endif  // NNET3_MATRIX_COMPRESSED_H_
