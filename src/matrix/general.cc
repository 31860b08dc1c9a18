// matrix/general.cc
#include "matrix/general.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>

namespace nnet3 {

GeneralMatrix &GeneralMatrix::operator=(const MatrixBase<BaseFloat> &mat) {
  Clear();
  mat_ = mat;
  return *this;
}

GeneralMatrix &GeneralMatrix::operator=(const CompressedMatrix &cmat) {
  Clear();
  cmat_ = cmat;
  return *this;
}

GeneralMatrix &GeneralMatrix::operator=(const SparseMatrix<BaseFloat> &smat) {
  Clear();
  smat_ = smat;
  return *this;
}

GeneralMatrixType GeneralMatrix::Type() const {
  if (smat_.NumRows() != 0) return kSparseMatrix;
  if (cmat_.NumRows() != 0) return kCompressedMatrix;
  return kFullMatrix;
}

MatrixIndexT GeneralMatrix::NumRows() const {
  if (smat_.NumRows() != 0) return smat_.NumRows();
  if (cmat_.NumRows() != 0) return cmat_.NumRows();
  return mat_.NumRows();
}

MatrixIndexT GeneralMatrix::NumCols() const {
  if (smat_.NumRows() != 0) return smat_.NumCols();
  if (cmat_.NumRows() != 0) return cmat_.NumCols();
  return mat_.NumCols();
}

void GeneralMatrix::Compress() { Compress(kAutomaticMethod); }

void GeneralMatrix::Compress(CompressionMethod method) {
  if (mat_.NumRows() != 0) {
    cmat_.CopyFromMat(mat_, method);
    mat_.Resize(0, 0);
  }
}

void GeneralMatrix::Uncompress() {
  if (cmat_.NumRows() != 0) {
    mat_.Resize(cmat_.NumRows(), cmat_.NumCols(), kUndefined);
    cmat_.CopyToMat(&mat_);
    cmat_.Clear();
  }
}

void GeneralMatrix::GetMatrix(Matrix<BaseFloat> *mat) const {
  switch (Type()) {
    case kFullMatrix:
      *mat = mat_;
      return;
    case kCompressedMatrix:
      mat->Resize(cmat_.NumRows(), cmat_.NumCols(), kUndefined);
      cmat_.CopyToMat(mat);
      return;
    case kSparseMatrix:
      mat->Resize(smat_.NumRows(), smat_.NumCols(), kUndefined);
      smat_.CopyToMat(mat);
      return;
  }
}

void GeneralMatrix::CopyToMat(MatrixBase<BaseFloat> *mat,
                              MatrixTransposeType trans) const {
  switch (Type()) {
    case kFullMatrix:
      if (mat_.NumRows() == 0) {
        NNET3_ASSERT(mat->NumRows() == 0);
        return;
      }
      mat->CopyFromMat(mat_, trans);
      return;
    case kCompressedMatrix:
      cmat_.CopyToMat(mat, trans);
      return;
    case kSparseMatrix:
      smat_.CopyToMat(mat, trans);
      return;
  }
}

void GeneralMatrix::AddToMat(BaseFloat alpha, MatrixBase<BaseFloat> *mat,
                             MatrixTransposeType trans) const {
  switch (Type()) {
    case kFullMatrix:
      if (mat_.NumRows() == 0) {
        NNET3_ASSERT(mat->NumRows() == 0);
        return;
      }
      mat->AddMat(alpha, mat_, trans);
      return;
    case kCompressedMatrix: {
      Matrix<BaseFloat> full(cmat_);
      mat->AddMat(alpha, full, trans);
      return;
    }
    case kSparseMatrix:
      smat_.AddToMat(alpha, mat, trans);
      return;
  }
}

namespace {
const char *TypeName(GeneralMatrixType t) {
  switch (t) {
    case kFullMatrix: return "full";
    case kCompressedMatrix: return "compressed";
    case kSparseMatrix: return "sparse";
  }
  return "?";
}
}  // namespace

const Matrix<BaseFloat> &GeneralMatrix::GetFullMatrix() const {
  if (Type() != kFullMatrix)
    NNET3_ERR << "GetFullMatrix called on a GeneralMatrix holding a "
              << TypeName(Type()) << " matrix";
  return mat_;
}

const SparseMatrix<BaseFloat> &GeneralMatrix::GetSparseMatrix() const {
  if (mat_.NumRows() != 0 || cmat_.NumRows() != 0)
    NNET3_ERR << "GetSparseMatrix called on a GeneralMatrix holding a "
              << TypeName(Type()) << " matrix";
  return smat_;
}

const CompressedMatrix &GeneralMatrix::GetCompressedMatrix() const {
  if (mat_.NumRows() != 0 || smat_.NumRows() != 0)
    NNET3_ERR << "GetCompressedMatrix called on a GeneralMatrix holding a "
              << TypeName(Type()) << " matrix";
  return cmat_;
}

void GeneralMatrix::SwapFullMatrix(Matrix<BaseFloat> *mat) {
  if (Type() != kFullMatrix)
    NNET3_ERR << "SwapFullMatrix called on a GeneralMatrix holding a "
              << TypeName(Type()) << " matrix";
  mat_.Swap(mat);
}

void GeneralMatrix::SwapSparseMatrix(SparseMatrix<BaseFloat> *smat) {
  if (mat_.NumRows() != 0 || cmat_.NumRows() != 0)
    NNET3_ERR << "SwapSparseMatrix called on a GeneralMatrix holding a "
              << TypeName(Type()) << " matrix";
  smat_.Swap(smat);
}

void GeneralMatrix::SwapCompressedMatrix(CompressedMatrix *cmat) {
  if (mat_.NumRows() != 0 || smat_.NumRows() != 0)
    NNET3_ERR << "SwapCompressedMatrix called on a GeneralMatrix holding a "
              << TypeName(Type()) << " matrix";
  cmat_.Swap(cmat);
}

void GeneralMatrix::Scale(BaseFloat alpha) {
  switch (Type()) {
    case kFullMatrix:
      mat_.Scale(alpha);
      return;
    case kCompressedMatrix:
      cmat_.Scale(alpha);
      return;
    case kSparseMatrix:
      smat_.Scale(alpha);
      return;
  }
}

void GeneralMatrix::Clear() {
  mat_.Resize(0, 0);
  cmat_.Clear();
  smat_.Resize(0, 0);
}

void GeneralMatrix::Swap(GeneralMatrix *other) {
  mat_.Swap(&other->mat_);
  cmat_.Swap(&other->cmat_);
  smat_.Swap(&other->smat_);
}

void GeneralMatrix::Write(std::ostream &os, bool binary) const {
  switch (Type()) {
    case kFullMatrix:
      mat_.Write(os, binary);
      return;
    case kCompressedMatrix:
      cmat_.Write(os, binary);
      return;
    case kSparseMatrix:
      smat_.Write(os, binary);
      return;
  }
}

void GeneralMatrix::Read(std::istream &is, bool binary) {
  Clear();
  int c;
  if (binary) {
    c = is.peek();
    if (c == 'C') {
      cmat_.Read(is, binary);
      // An empty compressed matrix reads as an empty (full) GeneralMatrix.
      return;
    }
  } else {
    is >> std::ws;
    c = is.peek();
    if (c == 'r') {  // "rows=..."
      smat_.Read(is, binary);
      return;
    }
  }
  if (binary && c == 'S')
    smat_.Read(is, binary);
  else
    mat_.Read(is, binary);
}

// ---------------------------------------------------------------------------
// Row operations.

void AppendGeneralMatrixRows(const std::vector<const GeneralMatrix *> &src,
                             GeneralMatrix *mat) {
  mat->Clear();
  bool all_sparse = true;
  for (const GeneralMatrix *m : src) {
    NNET3_ASSERT(m != mat);
    if (m->NumRows() != 0 && m->Type() != kSparseMatrix) all_sparse = false;
  }
  if (src.empty()) return;
  if (all_sparse) {
    std::vector<SparseMatrix<BaseFloat> > parts(src.size());
    for (size_t i = 0; i < src.size(); i++)
      parts[i] = src[i]->GetSparseMatrix();
    SparseMatrix<BaseFloat> appended;
    appended.AppendSparseMatrixRows(&parts);
    mat->SwapSparseMatrix(&appended);
    return;
  }
  int32 total_rows = 0, num_cols = -1;
  for (const GeneralMatrix *m : src) {
    if (m->NumRows() == 0) continue;
    total_rows += m->NumRows();
    if (num_cols == -1)
      num_cols = m->NumCols();
    else if (num_cols != m->NumCols())
      NNET3_ERR << "AppendGeneralMatrixRows: inconsistent numbers of columns, "
                << num_cols << " vs. " << m->NumCols();
  }
  Matrix<BaseFloat> appended(total_rows, num_cols, kUndefined);
  int32 row_offset = 0;
  for (const GeneralMatrix *m : src) {
    int32 rows = m->NumRows();
    if (rows == 0) continue;
    SubMatrix<BaseFloat> dest(appended, row_offset, rows, 0, num_cols);
    m->CopyToMat(&dest);
    row_offset += rows;
  }
  NNET3_ASSERT(row_offset == total_rows);
  mat->SwapFullMatrix(&appended);
}

namespace {

// Clamps row index r into [0, num_rows).
inline int32 ClampRow(int32 r, int32 num_rows) {
  return r < 0 ? 0 : (r >= num_rows ? num_rows - 1 : r);
}

// Kaldi's CompressedMatrix(cmat, row_offset, num_rows, 0, num_cols,
// allow_padding = true). CompressedMatrix does not expose its storage, so
// this works on its binary serialization, whose layout compressed.h
// documents: token "CM"/"CM2"/"CM3", then min_value, range (float),
// num_rows, num_cols (int32), then the data.
void CompressedRowRangeWithPadding(const CompressedMatrix &in,
                                   int32 row_offset, int32 num_rows,
                                   CompressedMatrix *out) {
  NNET3_ASSERT(in.NumRows() > 0 && num_rows > 0);
  std::ostringstream os;
  in.Write(os, true);
  const std::string bytes = os.str();
  size_t space = bytes.find(' ');
  NNET3_ASSERT(space != std::string::npos);
  const std::string token = bytes.substr(0, space);
  int32 format =
      token == "CM" ? 1 : token == "CM2" ? 2 : token == "CM3" ? 3 : 0;
  NNET3_ASSERT(format != 0);
  const size_t header_pos = space + 1, header_size = 16;
  NNET3_ASSERT(bytes.size() >= header_pos + header_size);
  int32 old_rows, num_cols;
  std::memcpy(&old_rows, bytes.data() + header_pos + 8, 4);
  std::memcpy(&num_cols, bytes.data() + header_pos + 12, 4);
  NNET3_ASSERT(old_rows == in.NumRows() && num_cols == in.NumCols());
  const char *old_data = bytes.data() + header_pos + header_size;

  std::string new_bytes = bytes.substr(0, header_pos + header_size);
  std::memcpy(&new_bytes[header_pos + 8], &num_rows, 4);
  const size_t n_rows = num_rows, n_cols = num_cols;
  if (format == 1) {
    // Per-column headers (8 bytes each), then one byte per value, column by
    // column.
    const size_t col_headers = 8 * n_cols;
    NNET3_ASSERT(bytes.size() == header_pos + header_size + col_headers +
                                     n_cols * static_cast<size_t>(old_rows));
    new_bytes.append(old_data, col_headers);
    const char *old_values = old_data + col_headers;
    std::string values(n_cols * n_rows, '\0');
    for (size_t c = 0; c < n_cols; c++)
      for (size_t r = 0; r < n_rows; r++)
        values[c * n_rows + r] =
            old_values[c * old_rows +
                       ClampRow(row_offset + static_cast<int32>(r), old_rows)];
    new_bytes += values;
  } else {
    // Two (format 2) or one (format 3) bytes per value, row by row.
    const size_t row_bytes = (format == 2 ? 2 : 1) * n_cols;
    NNET3_ASSERT(bytes.size() ==
                 header_pos + header_size + row_bytes * old_rows);
    for (size_t r = 0; r < n_rows; r++) {
      int32 old_r = ClampRow(row_offset + static_cast<int32>(r), old_rows);
      new_bytes.append(old_data + row_bytes * old_r, row_bytes);
    }
  }
  std::istringstream is(new_bytes);
  out->Read(is, true);
  NNET3_ASSERT(out->NumRows() == num_rows && out->NumCols() == num_cols);
  if (format == 1 && num_rows < 8) {
    // Per-column headers cost more than they save on so few rows.
    Matrix<BaseFloat> full(*out);
    out->CopyFromMat(full, kTwoByteAuto);
  }
}

}  // namespace

void ExtractRowRangeWithPadding(const GeneralMatrix &in, int32 row_offset,
                                int32 num_rows, GeneralMatrix *out) {
  NNET3_ASSERT(out != &in && num_rows >= 0);
  out->Clear();
  if (num_rows == 0) return;
  int32 in_rows = in.NumRows();
  if (in_rows == 0)
    NNET3_ERR << "ExtractRowRangeWithPadding: cannot take " << num_rows
              << " rows from an empty matrix";
  switch (in.Type()) {
    case kFullMatrix: {
      const Matrix<BaseFloat> &mat_in = in.GetFullMatrix();
      Matrix<BaseFloat> mat_out(num_rows, mat_in.NumCols(), kUndefined);
      for (int32 r = 0; r < num_rows; r++)
        mat_out.Row(r).CopyFromVec(mat_in.Row(ClampRow(r + row_offset,
                                                        in_rows)));
      out->SwapFullMatrix(&mat_out);
      return;
    }
    case kSparseMatrix: {
      const SparseMatrix<BaseFloat> &smat_in = in.GetSparseMatrix();
      SparseMatrix<BaseFloat> smat_out(num_rows, smat_in.NumCols());
      for (int32 r = 0; r < num_rows; r++)
        smat_out.SetRow(r, smat_in.Row(ClampRow(r + row_offset, in_rows)));
      out->SwapSparseMatrix(&smat_out);
      return;
    }
    case kCompressedMatrix: {
      CompressedMatrix cmat_out;
      CompressedRowRangeWithPadding(in.GetCompressedMatrix(), row_offset,
                                    num_rows, &cmat_out);
      out->SwapCompressedMatrix(&cmat_out);
      return;
    }
  }
}

template <typename Real>
void FilterMatrixRows(const Matrix<Real> &in,
                      const std::vector<bool> &keep_rows, Matrix<Real> *out) {
  NNET3_ASSERT(keep_rows.size() == static_cast<size_t>(in.NumRows()));
  NNET3_ASSERT(out != &in);
  int32 num_kept = static_cast<int32>(
      std::count(keep_rows.begin(), keep_rows.end(), true));
  if (num_kept == 0) NNET3_ERR << "FilterMatrixRows: no kept rows";
  if (num_kept == in.NumRows()) {
    *out = in;
    return;
  }
  out->Resize(num_kept, in.NumCols(), kUndefined);
  int32 out_row = 0;
  for (int32 r = 0; r < in.NumRows(); r++)
    if (keep_rows[r]) out->Row(out_row++).CopyFromVec(in.Row(r));
}

void FilterCompressedMatrixRows(const CompressedMatrix &in,
                                const std::vector<bool> &keep_rows,
                                Matrix<BaseFloat> *out) {
  NNET3_ASSERT(keep_rows.size() == static_cast<size_t>(in.NumRows()));
  // Decompressing a row alone gives the same values as decompressing the
  // whole matrix, so this is simply decompress-then-filter.
  Matrix<BaseFloat> full(in);
  FilterMatrixRows(full, keep_rows, out);
}

void FilterGeneralMatrixRows(const GeneralMatrix &in,
                             const std::vector<bool> &keep_rows,
                             GeneralMatrix *out) {
  NNET3_ASSERT(out != &in);
  out->Clear();
  NNET3_ASSERT(keep_rows.size() == static_cast<size_t>(in.NumRows()));
  int32 num_kept = static_cast<int32>(
      std::count(keep_rows.begin(), keep_rows.end(), true));
  if (num_kept == 0) NNET3_ERR << "FilterGeneralMatrixRows: no kept rows";
  if (num_kept == in.NumRows()) {
    *out = in;
    return;
  }
  switch (in.Type()) {
    case kFullMatrix: {
      Matrix<BaseFloat> mat_out;
      FilterMatrixRows(in.GetFullMatrix(), keep_rows, &mat_out);
      out->SwapFullMatrix(&mat_out);
      return;
    }
    case kCompressedMatrix: {
      Matrix<BaseFloat> mat_out;
      FilterCompressedMatrixRows(in.GetCompressedMatrix(), keep_rows,
                                 &mat_out);
      out->SwapFullMatrix(&mat_out);
      return;
    }
    case kSparseMatrix: {
      SparseMatrix<BaseFloat> smat_out;
      FilterSparseMatrixRows(in.GetSparseMatrix(), keep_rows, &smat_out);
      out->SwapSparseMatrix(&smat_out);
      return;
    }
  }
}

template void FilterMatrixRows(const Matrix<float> &,
                               const std::vector<bool> &, Matrix<float> *);
template void FilterMatrixRows(const Matrix<double> &,
                               const std::vector<bool> &, Matrix<double> *);

}  // namespace nnet3
