// feat/htk-holder.cc
#include "feat/htk-holder.h"

#include <cstring>
#include <vector>

#include "base/log.h"

namespace nnet3 {

namespace {
// Appends the big-endian bytes of a value's object representation.
template <class T>
void PutBigEndian(T value, std::vector<char> *out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  uint16 probe = 1;
  bool little = *reinterpret_cast<char *>(&probe) == 1;
  for (size_t i = 0; i < sizeof(T); i++)
    out->push_back(bytes[little ? sizeof(T) - 1 - i : i]);
}
}  // namespace

void WriteHtk(std::ostream &os, const MatrixBase<BaseFloat> &m,
              const HtkHeader &header) {
  NNET3_ASSERT(header.num_samples == m.NumRows() &&
               header.sample_size ==
                   static_cast<int16>(sizeof(float) * m.NumCols()));
  std::vector<char> buffer;
  buffer.reserve(12 + sizeof(float) * m.NumRows() * m.NumCols());
  PutBigEndian(header.num_samples, &buffer);
  PutBigEndian(header.sample_period, &buffer);
  PutBigEndian(header.sample_size, &buffer);
  PutBigEndian(header.sample_kind, &buffer);
  for (MatrixIndexT r = 0; r < m.NumRows(); r++)
    for (MatrixIndexT c = 0; c < m.NumCols(); c++)
      PutBigEndian(static_cast<float>(m(r, c)), &buffer);
  os.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

bool HtkMatrixHolder::Write(std::ostream &os, bool binary, const T &t) {
  if (!binary)
    NNET3_ERR << "HTK-format output cannot be written in text mode (drop "
              << "',t' from the wspecifier)";
  WriteHtk(os, t.first, t.second);
  if (!os.good()) NNET3_ERR << "error writing an HTK-format matrix";
  return true;
}

}  // namespace nnet3
