// nnet3/egs/nnet-example.cc
#include "nnet3/egs/nnet-example.h"

#include <cmath>

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {

namespace {
void SetTimeIndexes(int32 num_rows, int32 t_begin, int32 t_stride,
                    std::vector<Index> *indexes) {
  indexes->assign(num_rows, Index());
  for (int32 i = 0; i < num_rows; i++) (*indexes)[i].t = t_begin + i * t_stride;
}

void CheckRows(const NnetIo &io) {
  if (static_cast<size_t>(io.features.NumRows()) != io.indexes.size())
    NNET3_ERR << "NnetIo '" << io.name << "' has " << io.indexes.size()
              << " indexes but its matrix has " << io.features.NumRows()
              << " rows";
}
}  // namespace

NnetIo::NnetIo(const std::string &name_in, int32 t_begin,
               const MatrixBase<BaseFloat> &feats, int32 t_stride)
    : name(name_in), features(feats) {
  NNET3_ASSERT(feats.NumRows() > 0);
  SetTimeIndexes(feats.NumRows(), t_begin, t_stride, &indexes);
}

NnetIo::NnetIo(const std::string &name_in, int32 t_begin,
               const GeneralMatrix &feats, int32 t_stride)
    : name(name_in), features(feats) {
  NNET3_ASSERT(feats.NumRows() > 0);
  SetTimeIndexes(feats.NumRows(), t_begin, t_stride, &indexes);
}

NnetIo::NnetIo(const std::string &name_in, int32 dim, int32 t_begin,
               const Posterior &labels, int32 t_stride)
    : name(name_in) {
  int32 num_rows = static_cast<int32>(labels.size());
  NNET3_ASSERT(num_rows > 0);
  SparseMatrix<BaseFloat> smat(dim, labels);
  features = smat;
  SetTimeIndexes(num_rows, t_begin, t_stride, &indexes);
}

void NnetIo::Swap(NnetIo *other) {
  name.swap(other->name);
  indexes.swap(other->indexes);
  features.Swap(&other->features);
}

void NnetIo::Write(std::ostream &os, bool binary) const {
  NNET3_ASSERT(static_cast<size_t>(features.NumRows()) == indexes.size());
  WriteToken(os, binary, "<NnetIo>");
  WriteToken(os, binary, name);
  WriteIndexVector(os, binary, indexes);
  features.Write(os, binary);
  WriteToken(os, binary, "</NnetIo>");
}

void NnetIo::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<NnetIo>");
  ReadToken(is, binary, &name);
  ReadIndexVector(is, binary, &indexes);
  features.Read(is, binary);
  ExpectToken(is, binary, "</NnetIo>");
  CheckRows(*this);
}

bool NnetIo::operator==(const NnetIo &other) const {
  if (name != other.name || indexes != other.indexes) return false;
  if (features.NumRows() != other.features.NumRows() ||
      features.NumCols() != other.features.NumCols())
    return false;
  Matrix<BaseFloat> a, b;
  features.GetMatrix(&a);
  other.features.GetMatrix(&b);
  return a.ApproxEqual(b);
}

size_t NnetIoStructureHasher::operator()(const NnetIo &io) const noexcept {
  size_t ans = std::hash<std::string>()(io.name);
  IndexHasher index_hasher;
  for (const Index &index : io.indexes) ans = ans * 31 + index_hasher(index);
  ans = ans * 17 + static_cast<size_t>(io.features.NumCols());
  return ans;
}

bool NnetIoStructureCompare::operator()(const NnetIo &a,
                                        const NnetIo &b) const {
  return a.name == b.name && a.features.NumRows() == b.features.NumRows() &&
         a.features.NumCols() == b.features.NumCols() &&
         a.indexes == b.indexes;
}

void NnetExample::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<Nnet3Eg>");
  WriteToken(os, binary, "<NumIo>");
  int32 size = static_cast<int32>(io.size());
  NNET3_ASSERT(size > 0);
  WriteBasicType(os, binary, size);
  for (const NnetIo &item : io) item.Write(os, binary);
  WriteToken(os, binary, "</Nnet3Eg>");
}

void NnetExample::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<Nnet3Eg>");
  ExpectToken(is, binary, "<NumIo>");
  int32 size;
  ReadBasicType(is, binary, &size);
  if (size <= 0 || size > 1000000)
    NNET3_ERR << "Invalid <NumIo> " << size << " reading an example";
  std::vector<NnetIo> new_io(size);
  for (int32 i = 0; i < size; i++) new_io[i].Read(is, binary);
  ExpectToken(is, binary, "</Nnet3Eg>");
  io.swap(new_io);
}

void NnetExample::Compress() {
  for (NnetIo &item : io) item.features.Compress();
}

size_t NnetExampleStructureHasher::operator()(
    const NnetExample &eg) const noexcept {
  NnetIoStructureHasher io_hasher;
  size_t ans = eg.io.size();
  for (const NnetIo &io : eg.io) ans = ans * 35099 + io_hasher(io);
  return ans;
}

bool NnetExampleStructureCompare::operator()(const NnetExample &a,
                                             const NnetExample &b) const {
  if (a.io.size() != b.io.size()) return false;
  NnetIoStructureCompare io_compare;
  for (size_t i = 0; i < a.io.size(); i++)
    if (!io_compare(a.io[i], b.io[i])) return false;
  return true;
}

bool ExampleIsFinite(const NnetExample &eg, std::string *io_name,
                     int32 *row) {
  for (const NnetIo &io : eg.io) {
    int32 num_rows = io.features.NumRows();
    if (io.features.Type() == kSparseMatrix) {
      const SparseMatrix<BaseFloat> &smat = io.features.GetSparseMatrix();
      for (int32 r = 0; r < num_rows; r++) {
        const SparseVector<BaseFloat> &v = smat.Row(r);
        for (int32 e = 0; e < v.NumElements(); e++) {
          if (!std::isfinite(v.GetElement(e).second)) {
            *io_name = io.name;
            *row = r;
            return false;
          }
        }
      }
      continue;
    }
    Matrix<BaseFloat> mat;
    io.features.GetMatrix(&mat);
    for (int32 r = 0; r < num_rows; r++) {
      const BaseFloat *data = mat.RowData(r);
      for (int32 c = 0; c < mat.NumCols(); c++) {
        if (!std::isfinite(data[c])) {
          *io_name = io.name;
          *row = r;
          return false;
        }
      }
    }
  }
  return true;
}

void CheckExampleIsFinite(const std::string &key, const NnetExample &eg) {
  std::string io_name;
  int32 row;
  if (!ExampleIsFinite(eg, &io_name, &row))
    NNET3_ERR << "Example " << key << ": NaN or infinity in '" << io_name
              << "', row " << row;
}

}  // namespace nnet3
