// transform/lda-estimate.cc
// LDA statistics: accumulation, derived covariances and Kaldi's <LDAACCS>
// file format (see lda-estimate.h).
#include "transform/lda-estimate.h"

#include <cmath>
#include <string>
#include <vector>

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {

namespace {

// Lower triangle of a full symmetric matrix, in Kaldi's packed layout.
template <typename Real>
void WritePackedSymmetric(std::ostream &os, bool binary,
                          const MatrixBase<double> &m) {
  const int32 n = m.NumRows();
  if (binary) {
    WriteToken(os, binary, sizeof(Real) == 4 ? "FP" : "DP");
    WriteBasicType(os, binary, n);
    std::vector<Real> packed;
    packed.reserve(static_cast<size_t>(n) * (n + 1) / 2);
    for (int32 i = 0; i < n; i++)
      for (int32 j = 0; j <= i; j++) packed.push_back(static_cast<Real>(m(i, j)));
    if (!packed.empty())
      os.write(reinterpret_cast<const char *>(packed.data()),
               sizeof(Real) * packed.size());
  } else if (n == 0) {
    os << "[ ]\n";
  } else {
    os << "[\n";
    for (int32 i = 0; i < n; i++) {
      for (int32 j = 0; j <= i; j++)
        WriteBasicType(os, binary, static_cast<Real>(m(i, j)));
      os << (i + 1 == n ? "]\n" : "\n");
    }
  }
  if (os.fail()) NNET3_ERR << "Failed to write a packed symmetric matrix";
}

// Reads what WritePackedSymmetric writes (either precision in binary; the
// "[ ... ]" form, or a size-prefixed "FP"/"DP" one, in text) into a full
// symmetric *m.
void ReadPackedSymmetric(std::istream &is, bool binary, Matrix<double> *m) {
  std::vector<double> values;
  int32 n = -1;
  std::string token;
  ReadToken(is, binary, &token);
  if (token == "FP" || token == "DP") {
    ReadBasicType(is, binary, &n);
    if (n < 0) NNET3_ERR << "Bad packed-matrix size " << n;
    const int64 count = static_cast<int64>(n) * (n + 1) / 2;
    if (binary) {
      if (token == "FP") {
        std::vector<float> raw;
        ReadRawArray(is, count, &raw, "packed symmetric matrix: the values");
        values.assign(raw.begin(), raw.end());
      } else {
        ReadRawArray(is, count, &values, "packed symmetric matrix: the values");
      }
    } else {
      CheckDeclaredSize(is, count, 2, "packed symmetric matrix: the size");
      values.resize(count);
      for (int64 i = 0; i < count; i++) ReadBasicType(is, binary, &values[i]);
    }
  } else if (!binary && token == "[") {
    while (true) {
      is >> std::ws;
      int c = is.peek();
      if (c == EOF) NNET3_ERR << "End of file inside a packed matrix";
      if (c == ']') {
        is.get();
        break;
      }
      double x;
      ReadBasicType(is, binary, &x);
      values.push_back(x);
    }
    n = static_cast<int32>(std::floor(std::sqrt(2.0 * values.size())));
    if (static_cast<size_t>(n) * (n + 1) / 2 != values.size())
      NNET3_ERR << "A packed symmetric matrix cannot hold " << values.size()
                << " values";
  } else {
    NNET3_ERR << "Expected a packed symmetric matrix (FP, DP or [), got '"
              << token << "' at file position " << StreamPosition(is);
  }
  m->Resize(n, n);
  size_t k = 0;
  for (int32 i = 0; i < n; i++)
    for (int32 j = 0; j <= i; j++, k++) (*m)(i, j) = (*m)(j, i) = values[k];
}

// m += alpha * sum_c (1 / count_c) first_c first_c^T over classes with a
// non-zero count.
void AddClassScatter(double alpha, const Vector<double> &counts,
                     const Matrix<double> &first, Matrix<double> *m) {
  for (int32 c = 0; c < counts.Dim(); c++)
    if (counts(c) != 0.0)
      m->AddVecVec(alpha / counts(c), first.Row(c), first.Row(c));
}

}  // namespace

void LdaEstimate::Init(int32 num_classes, int32 dim) {
  if (num_classes < 0 || dim < 0)
    NNET3_ERR << "LdaEstimate: bad sizes " << num_classes << " classes, dim "
              << dim;
  zero_acc_.Resize(num_classes);
  first_acc_.Resize(num_classes, dim);
  total_second_acc_.Resize(dim, dim);
}

void LdaEstimate::ZeroAccumulators() {
  zero_acc_.SetZero();
  first_acc_.SetZero();
  total_second_acc_.SetZero();
}

void LdaEstimate::Scale(double f) {
  zero_acc_.Scale(f);
  first_acc_.Scale(f);
  total_second_acc_.Scale(f);
}

void LdaEstimate::Accumulate(const VectorBase<BaseFloat> &data,
                             int32 class_id, BaseFloat weight) {
  if (class_id < 0 || class_id >= NumClasses())
    NNET3_ERR << "LDA stats: class " << class_id << " out of range (there are "
              << NumClasses() << " classes)";
  if (data.Dim() != Dim())
    NNET3_ERR << "LDA stats: data of dimension " << data.Dim()
              << ", expected " << Dim();
  Vector<double> x(data);
  zero_acc_(class_id) += weight;
  first_acc_.Row(class_id).AddVec(static_cast<double>(weight), x);
  total_second_acc_.AddVecVec(weight, x, x);
}

void LdaEstimate::GetStats(Matrix<double> *total_covar,
                           Matrix<double> *between_covar,
                           Vector<double> *total_mean,
                           double *tot_count) const {
  const int32 dim = Dim();
  const double count = zero_acc_.Sum();
  if (!(count > 0.0))
    NNET3_ERR << "LDA stats have a total count of " << count
              << "; cannot estimate a transform";
  *tot_count = count;
  total_mean->Resize(dim);
  total_mean->AddRowSumMat(1.0 / count, first_acc_, 0.0);
  *total_covar = total_second_acc_;
  total_covar->Scale(1.0 / count);
  total_covar->AddVecVec(-1.0, *total_mean, *total_mean);
  between_covar->Resize(dim, dim);
  Vector<double> class_mean(dim);
  for (int32 c = 0; c < NumClasses(); c++) {
    if (zero_acc_(c) == 0.0) continue;
    class_mean.CopyFromVec(first_acc_.Row(c));
    class_mean.Scale(1.0 / zero_acc_(c));
    between_covar->AddVecVec(zero_acc_(c) / count, class_mean, class_mean);
  }
  between_covar->AddVecVec(-1.0, *total_mean, *total_mean);
}

void LdaEstimate::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<LDAACCS>");
  WriteToken(os, binary, "<VECSIZE>");
  WriteBasicType(os, binary, Dim());
  WriteToken(os, binary, "<NUMCLASSES>");
  WriteBasicType(os, binary, NumClasses());
  WriteToken(os, binary, "<ZERO_ACCS>");
  Vector<BaseFloat>(zero_acc_).Write(os, binary);
  WriteToken(os, binary, "<FIRST_ACCS>");
  Matrix<BaseFloat>(first_acc_).Write(os, binary);
  WriteToken(os, binary, "<SECOND_ACCS>");
  Matrix<double> within(total_second_acc_);
  AddClassScatter(-1.0, zero_acc_, first_acc_, &within);
  WritePackedSymmetric<BaseFloat>(os, binary, within);
  WriteToken(os, binary, "</LDAACCS>");
}

void LdaEstimate::Read(std::istream &is, bool binary, bool add) {
  ExpectToken(is, binary, "<LDAACCS>");
  ExpectToken(is, binary, "<VECSIZE>");
  int32 dim, num_classes;
  ReadBasicType(is, binary, &dim);
  ExpectToken(is, binary, "<NUMCLASSES>");
  ReadBasicType(is, binary, &num_classes);
  if (dim < 0 || num_classes < 0)
    NNET3_ERR << "LDA stats: bad sizes (dim " << dim << ", " << num_classes
              << " classes)";
  if (add && (NumClasses() != 0 || Dim() != 0)) {
    if (num_classes != NumClasses() || dim != Dim())
      NNET3_ERR << "LDA stats to be added have " << num_classes
                << " classes of dimension " << dim << ", the stats so far "
                << NumClasses() << " classes of dimension " << Dim();
  } else {
    Init(num_classes, dim);
  }
  // The counts and sums of this file, needed to turn its within-class
  // scatter back into a total second-order sum.
  Vector<double> counts(num_classes);
  Matrix<double> sums(num_classes, dim);
  std::string token;
  ReadToken(is, binary, &token);
  while (token != "</LDAACCS>") {
    if (token == "<ZERO_ACCS>") {
      Vector<double> v;
      v.Read(is, binary);
      if (v.Dim() != num_classes)
        NNET3_ERR << "LDA stats: <ZERO_ACCS> has " << v.Dim()
                  << " values, expected " << num_classes;
      counts.CopyFromVec(v);
      if (!add) zero_acc_.SetZero();
      zero_acc_.AddVec(1.0, counts);
    } else if (token == "<FIRST_ACCS>") {
      Matrix<double> m;
      m.Read(is, binary);
      if (m.NumRows() != num_classes || m.NumCols() != dim)
        NNET3_ERR << "LDA stats: <FIRST_ACCS> is " << m.NumRows() << " x "
                  << m.NumCols() << ", expected " << num_classes << " x "
                  << dim;
      sums.CopyFromMat(m);
      if (!add) first_acc_.SetZero();
      first_acc_.AddMat(1.0, sums);
    } else if (token == "<SECOND_ACCS>") {
      Matrix<double> second;
      ReadPackedSymmetric(is, binary, &second);
      if (second.NumRows() != dim)
        NNET3_ERR << "LDA stats: <SECOND_ACCS> has size " << second.NumRows()
                  << ", expected " << dim;
      AddClassScatter(1.0, counts, sums, &second);
      if (!add) total_second_acc_.SetZero();
      total_second_acc_.AddMat(1.0, second);
    } else {
      NNET3_ERR << "LDA stats: unexpected token '" << token << "'";
    }
    ReadToken(is, binary, &token);
  }
}

BaseFloat RandPrune(BaseFloat post, BaseFloat prune_thresh,
                    RandomSource *random) {
  NNET3_ASSERT(prune_thresh >= 0.0);
  if (post == 0.0 || std::abs(post) >= prune_thresh) return post;
  const BaseFloat kept =
      (random->Uniform() <= std::abs(post) / prune_thresh ? prune_thresh : 0.0f);
  return post >= 0.0 ? kept : -kept;
}

void AccumulateLdaStats(const MatrixBase<BaseFloat> &features,
                        const GeneralMatrix &targets,
                        const VectorBase<BaseFloat> &deriv_weights,
                        BaseFloat rand_prune, RandomSource *random,
                        LdaEstimate *stats) {
  const int32 num_rows = targets.NumRows();
  if (num_rows != features.NumRows())
    NNET3_ERR << "LDA stats: the supervision has " << num_rows
              << " rows but the network output " << features.NumRows();
  if (stats->Dim() == 0 && stats->NumClasses() == 0)
    stats->Init(targets.NumCols(), features.NumCols());
  if (targets.NumCols() != stats->NumClasses() ||
      features.NumCols() != stats->Dim())
    NNET3_ERR << "LDA stats: an example with " << targets.NumCols()
              << " classes and data of dimension " << features.NumCols()
              << " where earlier ones had " << stats->NumClasses() << " and "
              << stats->Dim();
  auto add = [&](int32 r, int32 c, BaseFloat post) {
    BaseFloat weight = RandPrune(post, rand_prune, random);
    if (r < deriv_weights.Dim()) weight *= deriv_weights(r);
    if (weight != 0.0) stats->Accumulate(features.Row(r), c, weight);
  };
  if (targets.Type() == kSparseMatrix) {
    const SparseMatrix<BaseFloat> &smat = targets.GetSparseMatrix();
    for (int32 r = 0; r < num_rows; r++) {
      const SparseVector<BaseFloat> &row = smat.Row(r);
      for (MatrixIndexT i = 0; i < row.NumElements(); i++)
        add(r, row.GetElement(i).first, row.GetElement(i).second);
    }
  } else {
    Matrix<BaseFloat> mat;
    targets.GetMatrix(&mat);
    for (int32 r = 0; r < num_rows; r++)
      for (int32 c = 0; c < mat.NumCols(); c++) add(r, c, mat(r, c));
  }
}

}  // namespace nnet3
