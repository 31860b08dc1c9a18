// matrix/io.cc
// Kaldi's on-disk forms of Vector and Matrix (and the dispatch to
// CompressedMatrix when a "CM*" token is found where a matrix is expected).
//   binary matrix: "FM " or "DM ", int32 rows, int32 cols (each with its size
//                  byte), then rows*cols raw values, row by row;
//   binary vector: "FV " or "DV ", int32 dim, raw values;
//   text matrix:   " [" then per row "\n  " and each value followed by a
//                  space, then "]\n"; empty: " [ ]\n";
//   text vector:   " [ " then each value followed by a space, then "]\n".
// Reading accepts either precision in binary, "inf"/"nan" in text, and
// reports malformed data with a UserError that says what was wrong and where.
#include <cctype>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <sstream>
#include <strings.h>
#include <string>
#include <vector>

#include "base/io.h"
#include "matrix/compressed.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {

namespace {

template <typename Real> const char *MatrixToken();
template <> const char *MatrixToken<float>() { return "FM"; }
template <> const char *MatrixToken<double>() { return "DM"; }
template <typename Real> const char *VectorToken();
template <> const char *VectorToken<float>() { return "FV"; }
template <> const char *VectorToken<double>() { return "DV"; }

std::string ShortToken(std::string s) {
  if (s.size() > 20) s = s.substr(0, 17) + "...";
  return PrintableString(s);
}

// Reads one text value at the stream position, where a number or a word
// (inf, nan) starts. Returns false with *error set on failure.
template <typename Real>
bool ReadTextValue(std::istream &is, Real *value, std::string *error) {
  int c = is.peek();
  if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.') {
    // Read the token ourselves so "-inf" and "-nan" work and so that
    // denormals and overflow are handled like strtod (no failbit).
    std::string tok;
    while (true) {
      c = is.peek();
      if (c == EOF || std::isspace(c) || c == ']' || c == ';') break;
      tok += static_cast<char>(is.get());
    }
    // Parse in the target precision (as operator>> would), so a float
    // written with 7 digits reads back to the same bits.
    const char *s = tok.c_str();
    char *end = nullptr;
    Real v = sizeof(Real) == 4 ? static_cast<Real>(std::strtof(s, &end))
                               : static_cast<Real>(std::strtod(s, &end));
    if (end == s || *end != '\0') {
      *error = "Expecting numeric data, got " + ShortToken(tok);
      return false;
    }
    *value = v;
    return true;
  }
  std::string tok;
  is >> tok;
  if (!strcasecmp(tok.c_str(), "inf") || !strcasecmp(tok.c_str(), "infinity")) {
    *value = std::numeric_limits<Real>::infinity();
    NNET3_WARN << "Reading infinite value into matrix or vector.";
    return true;
  }
  if (!strcasecmp(tok.c_str(), "nan")) {
    *value = std::numeric_limits<Real>::quiet_NaN();
    NNET3_WARN << "Reading NaN value into matrix or vector.";
    return true;
  }
  *error = "Expecting numeric data, got " + ShortToken(tok);
  return false;
}

}  // namespace

// ---- Vector -----------------------------------------------------------------

template <typename Real>
void VectorBase<Real>::Write(std::ostream &os, bool binary) const {
  if (!os.good()) NNET3_ERR << "Failed to write vector to stream: stream not good";
  if (binary) {
    WriteToken(os, binary, VectorToken<Real>());
    int32 dim = dim_;
    WriteBasicType(os, binary, dim);
    if (dim_ > 0)
      os.write(reinterpret_cast<const char *>(data_), sizeof(Real) * dim_);
  } else {
    os << " [ ";
    for (MatrixIndexT i = 0; i < dim_; i++) os << data_[i] << " ";
    os << "]\n";
  }
  if (!os.good()) NNET3_ERR << "Failed to write vector to stream";
}

template <typename Real>
void Vector<Real>::Read(std::istream &is, bool binary, bool add) {
  long long pos = StreamPosition(is);
  if (add) {
    Vector<Real> tmp;
    tmp.Read(is, binary, false);
    if (this->dim_ == 0) this->Resize(tmp.Dim());
    if (this->dim_ != tmp.Dim())
      NNET3_ERR << "Vector::Read with add: dimension mismatch " << this->dim_
                << " vs. " << tmp.Dim();
    this->AddVec(1.0, tmp);
    return;
  }
  std::string specific_error;
  if (binary) {
    int peek = Peek(is, binary);
    const char *my_token = VectorToken<Real>();
    char other_start = sizeof(Real) == 4 ? 'D' : 'F';
    if (peek == other_start) {
      typedef typename std::conditional<sizeof(Real) == 4, double,
                                        float>::type Other;
      Vector<Other> other;
      other.Read(is, binary, false);
      Resize(other.Dim(), kUndefined);
      this->CopyFromVec(other);
      return;
    }
    std::string token;
    try {
      ReadToken(is, binary, &token);
    } catch (const UserError &e) {
      NNET3_ERR << "Failed to read vector from stream: " << e.message()
                << " (file position at start " << pos << ")";
    }
    if (token != my_token) {
      NNET3_ERR << "Failed to read vector from stream: expected token "
                << my_token << ", got " << ShortToken(token)
                << " (file position at start " << pos << ")";
    }
    int32 dim;
    try {
      ReadBasicType(is, binary, &dim);
    } catch (const UserError &e) {
      NNET3_ERR << "Failed to read vector from stream: " << e.message();
    }
    if (dim < 0)
      NNET3_ERR << "Failed to read vector from stream: negative dimension "
                << dim << " (file position at start " << pos << ")";
    // The dimension is untrusted: check it against the input before
    // allocating; when the input's length is unknown, large data is staged
    // in pieces as it arrives (docs/io.md, "Limits on untrusted input").
    const char *what = "Failed to read vector from stream: the dimension";
    bool verified = CheckDeclaredSize(is, dim, sizeof(Real), what);
    if (!verified && static_cast<int64>(dim) * static_cast<int64>(
                         sizeof(Real)) > kReadChunkBytes) {
      std::vector<Real> staged;
      ReadRawArray(is, dim, &staged, what);
      Resize(dim, kUndefined);
      std::memcpy(this->data_, staged.data(), sizeof(Real) * dim);
      return;
    }
    try {
      Resize(dim, kUndefined);
    } catch (const std::bad_alloc &) {
      NNET3_ERR << "Failed to read vector from stream: cannot allocate a "
                   "vector of dimension " << dim << " (corrupt header?) (file "
                   "position at start " << pos << ")";
    }
    if (dim > 0) is.read(reinterpret_cast<char *>(this->data_),
                         sizeof(Real) * dim);
    if (is.fail())
      NNET3_ERR << "Failed to read vector from stream: unexpected end of data "
                   "(file position at start " << pos << ", expected " << dim
                << " values)";
    return;
  }
  // Text.
  std::string s;
  is >> s;
  if (is.fail())
    NNET3_ERR << "Failed to read vector from stream: expected \"[\", got end "
                 "of file (file position at start " << pos << ")";
  if (s == "[]") {
    Resize(0);
    return;
  }
  if (s != "[")
    NNET3_ERR << "Failed to read vector from stream: expected \"[\", got \""
              << ShortToken(s) << "\" (file position at start " << pos << ")";
  std::vector<Real> data;
  while (true) {
    int c = is.peek();
    if (c == EOF) {
      NNET3_ERR << "Failed to read vector from stream: end of file before "
                   "\"]\" (file position at start " << pos << ")";
    } else if (c == ']') {
      is.get();
      c = is.peek();
      if (c == '\r') {
        is.get();
        is.get();
      } else if (c == '\n') {
        is.get();
      }
      is.clear(is.rdstate() & ~std::ios::failbit & ~std::ios::eofbit);
      break;
    } else if (c == '\n' || c == '\r') {
      // As Kaldi: a vector is one line; this is probably a matrix.
      NNET3_ERR << "Failed to read vector from stream: newline found while "
                   "reading vector (maybe it's a matrix?) (file position at "
                   "start " << pos << ")";
    } else if (std::isspace(c)) {
      is.get();
    } else {
      Real v;
      std::string err;
      if (!ReadTextValue(is, &v, &err))
        NNET3_ERR << "Failed to read vector from stream: " << err
                  << " (file position at start " << pos << ")";
      data.push_back(v);
    }
  }
  Resize(static_cast<MatrixIndexT>(data.size()), kUndefined);
  for (size_t i = 0; i < data.size(); i++) this->data_[i] = data[i];
}

// ---- Matrix -----------------------------------------------------------------

template <typename Real>
void MatrixBase<Real>::Write(std::ostream &os, bool binary) const {
  if (!os.good()) NNET3_ERR << "Failed to write matrix to stream: stream not good";
  if (binary) {
    WriteToken(os, binary, MatrixToken<Real>());
    int32 rows = num_rows_, cols = num_cols_;
    WriteBasicType(os, binary, rows);
    WriteBasicType(os, binary, cols);
    if (stride_ == num_cols_) {
      if (num_rows_ > 0)
        os.write(reinterpret_cast<const char *>(data_),
                 sizeof(Real) * static_cast<size_t>(num_rows_) * num_cols_);
    } else {
      for (MatrixIndexT r = 0; r < num_rows_; r++)
        os.write(reinterpret_cast<const char *>(RowData(r)),
                 sizeof(Real) * num_cols_);
    }
  } else {
    if (num_cols_ == 0) {
      os << " [ ]\n";
    } else {
      os << " [";
      for (MatrixIndexT r = 0; r < num_rows_; r++) {
        os << "\n  ";
        const Real *row = RowData(r);
        for (MatrixIndexT c = 0; c < num_cols_; c++) os << row[c] << " ";
      }
      os << "]\n";
    }
  }
  if (!os.good()) NNET3_ERR << "Failed to write matrix to stream";
}

template <typename Real>
void MatrixBase<Real>::Read(std::istream &is, bool binary, bool add) {
  Matrix<Real> tmp;
  tmp.Read(is, binary, false);
  if (tmp.NumRows() != num_rows_ || tmp.NumCols() != num_cols_)
    NNET3_ERR << "Failed to read matrix from stream: size mismatch "
              << num_rows_ << "x" << num_cols_ << " versus " << tmp.NumRows()
              << "x" << tmp.NumCols();
  if (add) this->AddMat(1.0, tmp);
  else this->CopyFromMat(tmp);
}

template <typename Real>
void Matrix<Real>::Read(std::istream &is, bool binary, bool add) {
  if (add) {
    Matrix<Real> tmp;
    tmp.Read(is, binary, false);
    if (this->num_rows_ == 0) this->Resize(tmp.NumRows(), tmp.NumCols());
    if (!SameDim(tmp, *this))
      NNET3_ERR << "Failed to read matrix from stream: size mismatch "
                << this->num_rows_ << "x" << this->num_cols_ << " versus "
                << tmp.NumRows() << "x" << tmp.NumCols();
    this->AddMat(1.0, tmp);
    return;
  }
  long long pos = StreamPosition(is);
  if (binary) {
    int peek = Peek(is, binary);
    if (peek == 'C') {
      CompressedMatrix cmat;
      cmat.Read(is, binary);
      Resize(cmat.NumRows(), cmat.NumCols(), kUndefined);
      cmat.CopyToMat(this);
      return;
    }
    char other_start = sizeof(Real) == 4 ? 'D' : 'F';
    if (peek == other_start) {
      typedef typename std::conditional<sizeof(Real) == 4, double,
                                        float>::type Other;
      Matrix<Other> other;
      other.Read(is, binary, false);
      Resize(other.NumRows(), other.NumCols(), kUndefined);
      this->CopyFromMat(other);
      return;
    }
    std::string token;
    try {
      ReadToken(is, binary, &token);
    } catch (const UserError &e) {
      NNET3_ERR << "Failed to read matrix from stream: " << e.message()
                << " (file position at start " << pos << ")";
    }
    const char *my_token = MatrixToken<Real>();
    if (token != my_token)
      NNET3_ERR << "Failed to read matrix from stream: expected token "
                << my_token << ", got " << ShortToken(token)
                << " (file position at start " << pos << ", now "
                << StreamPosition(is) << ")";
    int32 rows, cols;
    try {
      ReadBasicType(is, binary, &rows);
      ReadBasicType(is, binary, &cols);
    } catch (const UserError &e) {
      NNET3_ERR << "Failed to read matrix from stream: " << e.message()
                << " (file position at start " << pos << ")";
    }
    if (rows < 0 || cols < 0 || (rows == 0) != (cols == 0))
      NNET3_ERR << "Failed to read matrix from stream: bad size " << rows
                << "x" << cols << " (file position at start " << pos << ")";
    // The size is untrusted: check it against the input before allocating;
    // when the input's length is unknown, large data is staged in pieces as
    // it arrives (docs/io.md, "Limits on untrusted input").
    std::string what = "Failed to read matrix from stream: the " +
                       std::to_string(rows) + "x" + std::to_string(cols) +
                       " size, element count";
    int64 count = static_cast<int64>(rows) * cols;
    bool verified = CheckDeclaredSize(is, count, sizeof(Real), what.c_str());
    if (!verified &&
        count * static_cast<int64>(sizeof(Real)) > kReadChunkBytes) {
      std::vector<Real> staged;
      ReadRawArray(is, count, &staged, what.c_str());
      Resize(rows, cols, kUndefined);
      for (MatrixIndexT r = 0; r < rows; r++)
        std::memcpy(this->RowData(r), staged.data() + static_cast<size_t>(r) * cols,
                    sizeof(Real) * cols);
      return;
    }
    try {
      Resize(rows, cols, kUndefined);
    } catch (const std::bad_alloc &) {
      NNET3_ERR << "Failed to read matrix from stream: cannot allocate a "
                << rows << "x" << cols << " matrix (corrupt header?) (file "
                   "position at start " << pos << ")";
    }
    for (MatrixIndexT r = 0; r < rows; r++) {
      is.read(reinterpret_cast<char *>(this->RowData(r)), sizeof(Real) * cols);
      if (is.fail())
        NNET3_ERR << "Failed to read matrix from stream: unexpected end of "
                     "data in row " << r << " of a " << rows << "x" << cols
                  << " matrix (file position at start " << pos << ")";
    }
    return;
  }
  // Text.
  std::string s;
  is >> s;
  if (is.fail())
    NNET3_ERR << "Failed to read matrix from stream: expected \"[\", got end "
                 "of file (file position at start " << pos << ")";
  if (s == "[]") {
    Resize(0, 0);
    return;
  }
  if (s != "[")
    NNET3_ERR << "Failed to read matrix from stream: expected \"[\", got \""
              << ShortToken(s) << "\" (file position at start " << pos << ")";
  std::vector<std::vector<Real> > rows;
  std::vector<Real> cur;
  while (true) {
    int c = is.peek();
    if (c == EOF) {
      NNET3_ERR << "Failed to read matrix from stream: end of file before "
                   "\"]\" (file position at start " << pos << ")";
    } else if (c == ']') {
      is.get();
      c = is.peek();
      if (c == '\r') {
        is.get();
        is.get();
      } else if (c == '\n') {
        is.get();
      }
      is.clear(is.rdstate() & ~std::ios::failbit & ~std::ios::eofbit);
      if (!cur.empty()) rows.push_back(std::move(cur));
      break;
    } else if (c == '\n' || c == ';') {
      is.get();
      if (!cur.empty()) {
        rows.push_back(std::move(cur));
        cur.clear();
      }
    } else if (std::isspace(c)) {
      is.get();
    } else {
      Real v;
      std::string err;
      if (!ReadTextValue(is, &v, &err))
        NNET3_ERR << "Failed to read matrix from stream: " << err
                  << " (file position at start " << pos << ")";
      cur.push_back(v);
    }
  }
  if (rows.empty()) {
    Resize(0, 0);
    return;
  }
  size_t num_cols = rows[0].size();
  for (size_t r = 0; r < rows.size(); r++) {
    if (rows[r].size() != num_cols)
      NNET3_ERR << "Failed to read matrix from stream: matrix has inconsistent "
                   "#cols: " << num_cols << " vs. " << rows[r].size()
                << " (processing row " << r << "; file position at start "
                << pos << ")";
  }
  Resize(static_cast<MatrixIndexT>(rows.size()),
         static_cast<MatrixIndexT>(num_cols), kUndefined);
  for (size_t r = 0; r < rows.size(); r++)
    std::memcpy(this->RowData(r), rows[r].data(), sizeof(Real) * num_cols);
}

template void VectorBase<float>::Write(std::ostream &, bool) const;
template void VectorBase<double>::Write(std::ostream &, bool) const;
template void Vector<float>::Read(std::istream &, bool, bool);
template void Vector<double>::Read(std::istream &, bool, bool);
template void MatrixBase<float>::Write(std::ostream &, bool) const;
template void MatrixBase<double>::Write(std::ostream &, bool) const;
template void MatrixBase<float>::Read(std::istream &, bool, bool);
template void MatrixBase<double>::Read(std::istream &, bool, bool);
template void Matrix<float>::Read(std::istream &, bool, bool);
template void Matrix<double>::Read(std::istream &, bool, bool);

}  // namespace nnet3
