// matrix/general.h
// GeneralMatrix: a BaseFloat matrix that is stored either full
// (Matrix<BaseFloat>), compressed (CompressedMatrix) or sparse
// (SparseMatrix<BaseFloat>). Examples (egs) hold their features and targets
// this way, so that each keeps the form it was written in.
// Invariant (as in Kaldi): at most one of the three members has rows; Type()
// is that one, and an empty GeneralMatrix (no rows at all) has type
// kFullMatrix. Every setter clears the other two members first.
// Kaldi I/O, byte for byte: Write writes the held matrix in its own format
// (sparse "SM"/"rows=", compressed "CM"/"CM2"/"CM3" in binary and a plain
// matrix in text, full "FM" or "[ ... ]"). Read chooses by the first
// character: binary 'C' compressed, 'S' sparse, else full; text (after
// whitespace) 'r' sparse, else full.
// Also here: the row operations that the egs code needs on GeneralMatrix
// (append rows, extract a padded row range, keep selected rows).
#ifndef NNET3_MATRIX_GENERAL_H_
#define NNET3_MATRIX_GENERAL_H_

#include <istream>
#include <ostream>
#include <vector>

#include "matrix/compressed.h"
#include "matrix/matrix.h"
#include "matrix/sparse.h"

namespace nnet3 {

enum GeneralMatrixType { kFullMatrix, kCompressedMatrix, kSparseMatrix };

class GeneralMatrix {
 public:
  GeneralMatrix() {}
  explicit GeneralMatrix(const MatrixBase<BaseFloat> &mat) { *this = mat; }
  explicit GeneralMatrix(const CompressedMatrix &cmat) { *this = cmat; }
  explicit GeneralMatrix(const SparseMatrix<BaseFloat> &smat) {
    *this = smat;
  }
  GeneralMatrix(const GeneralMatrix &other) = default;
  GeneralMatrix &operator=(const GeneralMatrix &other) = default;
  GeneralMatrix(GeneralMatrix &&other) noexcept { Swap(&other); }
  GeneralMatrix &operator=(GeneralMatrix &&other) noexcept {
    Swap(&other);
    return *this;
  }

  GeneralMatrix &operator=(const MatrixBase<BaseFloat> &mat);
  GeneralMatrix &operator=(const CompressedMatrix &cmat);
  GeneralMatrix &operator=(const SparseMatrix<BaseFloat> &smat);

  GeneralMatrixType Type() const;
  MatrixIndexT NumRows() const;
  MatrixIndexT NumCols() const;

  // Full -> compressed (kAutomaticMethod, or the method given); a no-op for
  // the other types.
  void Compress();
  void Compress(CompressionMethod method);
  // Compressed -> full; a no-op for the other types.
  void Uncompress();

  // *mat = this as a full matrix (resized; 0 x 0 if empty).
  void GetMatrix(Matrix<BaseFloat> *mat) const;
  // *mat = op(this); mat must already have the size of op(this).
  void CopyToMat(MatrixBase<BaseFloat> *mat,
                 MatrixTransposeType trans = kNoTrans) const;
  // *mat += alpha * op(this).
  void AddToMat(BaseFloat alpha, MatrixBase<BaseFloat> *mat,
                MatrixTransposeType trans = kNoTrans) const;

  // Accessors; each is a UserError if another type is held (an empty
  // GeneralMatrix can be read as any type).
  const Matrix<BaseFloat> &GetFullMatrix() const;
  const SparseMatrix<BaseFloat> &GetSparseMatrix() const;
  const CompressedMatrix &GetCompressedMatrix() const;
  // Swap the held matrix with *mat; a UserError if another type is held
  // (Clear() first to change the type).
  void SwapFullMatrix(Matrix<BaseFloat> *mat);
  void SwapSparseMatrix(SparseMatrix<BaseFloat> *smat);
  void SwapCompressedMatrix(CompressedMatrix *cmat);

  // Scales the values (for compressed: the header only, see CompressedMatrix).
  void Scale(BaseFloat alpha);
  void Clear();
  void Swap(GeneralMatrix *other);

  void Write(std::ostream &os, bool binary) const;
  void Read(std::istream &is, bool binary);

 private:
  Matrix<BaseFloat> mat_;
  CompressedMatrix cmat_;
  SparseMatrix<BaseFloat> smat_;
};

// Vertical concatenation of *src[0], *src[1], ... into *mat (empty inputs
// are skipped). If every non-empty input is sparse the result is sparse;
// otherwise (full, compressed or mixed) it is full, compressed inputs being
// uncompressed. Inconsistent column counts are a UserError.
void AppendGeneralMatrixRows(const std::vector<const GeneralMatrix *> &src,
                             GeneralMatrix *mat);

// *out = rows [row_offset, row_offset + num_rows) of in, where a row index
// below 0 takes row 0 and one past the end takes the last row (so in must
// have rows unless num_rows == 0). The type is kept:
//  - full and sparse: the rows are copied;
//  - compressed: the stored bytes of the rows are copied under the same
//    global (and, for format 1, per-column) headers, exactly as Kaldi's
//    CompressedMatrix row-range constructor does, so the values are the
//    input's values bit for bit and the bytes match Kaldi's; except that a
//    format-1 (CM) result with fewer than 8 rows is then uncompressed and
//    recompressed with kTwoByteAuto (CM2), as Kaldi does.
// out must not be &in.
void ExtractRowRangeWithPadding(const GeneralMatrix &in, int32 row_offset,
                                int32 num_rows, GeneralMatrix *out);

// Keep the rows r with keep_rows[r] true (keep_rows.size() == NumRows());
// keeping no row is a UserError. FilterGeneralMatrixRows keeps full and
// sparse types; a compressed input gives a full output, uncompressed (as
// in Kaldi), unless every row is kept, in which case out is a copy of in.
template <typename Real>
void FilterMatrixRows(const Matrix<Real> &in,
                      const std::vector<bool> &keep_rows, Matrix<Real> *out);
void FilterCompressedMatrixRows(const CompressedMatrix &in,
                                const std::vector<bool> &keep_rows,
                                Matrix<BaseFloat> *out);
void FilterGeneralMatrixRows(const GeneralMatrix &in,
                             const std::vector<bool> &keep_rows,
                             GeneralMatrix *out);

}  // namespace nnet3

#endif  // NNET3_MATRIX_GENERAL_H_
