// matrix/ranges.cc
// Row/column range extraction for script-file entries ("[r1:r2,c1:c2]").
#include <algorithm>

#include "matrix/table-types.h"
#include "util/text.h"

namespace nnet3 {

namespace {
// Parses "a:b" into two integers; ":" or "" means the full range.
bool ParseOneRange(const std::string &s, int32 full_end, int32 *begin,
                   int32 *end) {
  if (s == ":" ) {
    *begin = 0;
    *end = full_end;
    return true;
  }
  std::vector<int32> v;
  if (!SplitStringToIntegers(s, ":", false, &v) || v.size() != 2) return false;
  *begin = v[0];
  *end = v[1];
  return true;
}
}  // namespace

void ParseMatrixRangeSpecifier(const std::string &range, int32 rows,
                               int32 cols, int32 *row_begin, int32 *row_end,
                               int32 *col_begin, int32 *col_end) {
  std::vector<std::string> parts;
  SplitStringToVector(range, ",", false, &parts);
  bool ok = !range.empty() && (parts.size() == 1 || parts.size() == 2);
  for (const std::string &p : parts) ok = ok && !p.empty();
  if (ok) ok = ParseOneRange(parts[0], rows - 1, row_begin, row_end);
  if (ok) {
    if (parts.size() == 2) {
      ok = ParseOneRange(parts[1], cols - 1, col_begin, col_end);
    } else {
      *col_begin = 0;
      *col_end = cols - 1;
    }
  }
  // Kaldi tolerates a row range ending up to two rows past the end (length
  // rounding in feature extraction); columns must be within the matrix.
  const int32 row_tolerance = 3;
  if (!ok || *row_begin < 0 || *row_begin > *row_end ||
      *row_end >= rows + row_tolerance || *col_begin < 0 ||
      *col_begin > *col_end || *col_end >= cols)
    NNET3_ERR << "Invalid range specifier: " << range << " for matrix of size "
              << rows << "x" << cols;
  if (*row_end >= rows) {
    NNET3_WARN << "Row range " << *row_begin << ":" << *row_end
               << " goes beyond the number of rows of the matrix " << rows;
    *row_end = rows - 1;
    if (*row_begin > *row_end)
      NNET3_ERR << "Invalid range specifier: " << range
                << " for matrix of size " << rows << "x" << cols;
  }
}

template <typename Real>
bool ExtractObjectRange(const Matrix<Real> &input, const std::string &range,
                        Matrix<Real> *output) {
  int32 r0, r1, c0, c1;
  ParseMatrixRangeSpecifier(range, input.NumRows(), input.NumCols(), &r0, &r1,
                            &c0, &c1);
  output->Resize(r1 - r0 + 1, c1 - c0 + 1, kUndefined);
  output->CopyFromMat(input.Range(r0, r1 - r0 + 1, c0, c1 - c0 + 1));
  return true;
}

template <typename Real>
bool ExtractObjectRange(const Vector<Real> &input, const std::string &range,
                        Vector<Real> *output) {
  std::vector<int32> v;
  if (!SplitStringToIntegers(range, ":", false, &v) || v.size() != 2 ||
      v[0] < 0 || v[0] > v[1] || v[1] >= input.Dim())
    NNET3_ERR << "Invalid range specifier: " << range
              << " for vector of size " << input.Dim();
  output->Resize(v[1] - v[0] + 1, kUndefined);
  output->CopyFromVec(input.Range(v[0], v[1] - v[0] + 1));
  return true;
}

bool ExtractObjectRange(const CompressedMatrix &input,
                        const std::string &range, CompressedMatrix *output) {
  int32 r0, r1, c0, c1;
  ParseMatrixRangeSpecifier(range, input.NumRows(), input.NumCols(), &r0, &r1,
                            &c0, &c1);
  Matrix<BaseFloat> part(r1 - r0 + 1, c1 - c0 + 1, kUndefined);
  input.CopyToMat(r0, c0, &part);
  // Recompress with the stored format's automatic counterpart.
  CompressionMethod method = input.Format() == 1   ? kSpeechFeature
                             : input.Format() == 2 ? kTwoByteAuto
                                                   : kOneByteAuto;
  output->CopyFromMat(part, method);
  return true;
}

template bool ExtractObjectRange(const Matrix<float> &, const std::string &,
                                 Matrix<float> *);
template bool ExtractObjectRange(const Matrix<double> &, const std::string &,
                                 Matrix<double> *);
template bool ExtractObjectRange(const Vector<float> &, const std::string &,
                                 Vector<float> *);
template bool ExtractObjectRange(const Vector<double> &, const std::string &,
                                 Vector<double> *);

}  // namespace nnet3
