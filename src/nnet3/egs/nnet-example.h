// nnet3/egs/nnet-example.h
// Training examples ("egs"): an NnetExample is a list of NnetIo, each a
// named block of rows (features for an input node, targets for an output
// node) with one Index (n, t, x) per row. Single examples have n == 0
// everywhere; a merged minibatch numbers its members n = 0, 1, ...
// Invariant: io[i].features.NumRows() == io[i].indexes.size() for every
// NnetIo (Write checks it; Read checks it too, so a corrupt file is reported
// rather than carried on).
// On disk, byte for byte as Kaldi (nnet-example.cc):
//   <Nnet3Eg> <NumIo> N  (N x) <NnetIo> name <I1V>... GeneralMatrix </NnetIo>
//   </Nnet3Eg>
// with the Index vector in Kaldi's compact "<I1V>" encoding
// (nnet3/core/index.h) and the features as a GeneralMatrix (full, "CM*"
// compressed or sparse; matrix/general.h). The table types
// (NnetExampleWriter, SequentialNnetExampleReader,
// RandomAccessNnetExampleReader) use KaldiObjectHolder<NnetExample>, so
// archives and scp files of egs are Kaldi's.
#ifndef NNET3_NNET3_EGS_NNET_EXAMPLE_H_
#define NNET3_NNET3_EGS_NNET_EXAMPLE_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "matrix/general.h"
#include "matrix/matrix.h"
#include "nnet3/core/index.h"
#include "util/holders.h"
#include "util/posterior.h"
#include "util/table.h"

namespace nnet3 {

struct NnetIo {
  // The node this block feeds ("input", "ivector") or supervises ("output").
  std::string name;
  // One Index per row of features.
  std::vector<Index> indexes;
  // Features (full or compressed) or targets (usually sparse).
  GeneralMatrix features;

  NnetIo() {}
  // Rows t = t_begin, t_begin + t_stride, ... (n = x = 0), features copied
  // from feats (kept as a full matrix). feats must have rows.
  NnetIo(const std::string &name, int32 t_begin,
         const MatrixBase<BaseFloat> &feats, int32 t_stride = 1);
  // As above, keeping the type of feats (full, compressed or sparse).
  NnetIo(const std::string &name, int32 t_begin, const GeneralMatrix &feats,
         int32 t_stride = 1);
  // Targets: a SparseMatrix with dim columns, row i = labels[i] (pairs
  // sorted, repeated ids summed, zero weights dropped), at t = t_begin +
  // i * t_stride. An id outside [0, dim) is a UserError.
  NnetIo(const std::string &name, int32 dim, int32 t_begin,
         const Posterior &labels, int32 t_stride = 1);

  void Swap(NnetIo *other);
  void Write(std::ostream &os, bool binary) const;
  // UserError on malformed input (including a row count that disagrees
  // with the Index vector).
  void Read(std::istream &is, bool binary);
  // Same name and indexes, and features equal to within Kaldi's
  // ApproxEqual (relative 0.01 in the Frobenius norm) after expansion to full
  // matrices. For tests.
  bool operator==(const NnetIo &other) const;
};

// Hash/compare of the structure only (name, indexes, feature dim), not the
// values: examples that agree here can share one compiled computation.
struct NnetIoStructureHasher {
  size_t operator()(const NnetIo &io) const noexcept;
};
struct NnetIoStructureCompare {
  bool operator()(const NnetIo &a, const NnetIo &b) const;
};

struct NnetExample {
  // Inputs and outputs, in any order (merging sorts them by name).
  std::vector<NnetIo> io;

  NnetExample() {}
  void Swap(NnetExample *other) { io.swap(other->io); }
  void Write(std::ostream &os, bool binary) const;
  // UserError on malformed input; <NumIo> must be in [1, 1000000].
  void Read(std::istream &is, bool binary);
  // Compresses every full matrix (kAutomaticMethod: CM for more than 8 rows,
  // else CM2); sparse and already compressed features are left alone.
  void Compress();
  bool operator==(const NnetExample &other) const { return io == other.io; }
};

// Structure hash/compare of a whole example; sensitive to the order of io.
struct NnetExampleStructureHasher {
  size_t operator()(const NnetExample &eg) const noexcept;
  size_t operator()(const NnetExample *eg) const noexcept {
    return (*this)(*eg);
  }
};
struct NnetExampleStructureCompare {
  bool operator()(const NnetExample &a, const NnetExample &b) const;
  bool operator()(const NnetExample *a, const NnetExample *b) const {
    return (*this)(*a, *b);
  }
};

typedef KaldiObjectHolder<NnetExample> NnetExampleHolder;
typedef TableWriter<NnetExampleHolder> NnetExampleWriter;
typedef SequentialTableReader<NnetExampleHolder> SequentialNnetExampleReader;
typedef RandomAccessTableReader<NnetExampleHolder>
    RandomAccessNnetExampleReader;

// The first row (in order) holding a NaN or infinity in any NnetIo's
// features: returns false and sets *io_name and *row if there is one, true
// if every value is finite. Sparse targets are checked too.
bool ExampleIsFinite(const NnetExample &eg, std::string *io_name,
                     int32 *row);
// UserError "Example KEY: NaN or infinity in 'NAME', row R" unless every
// value of eg is finite (the check the training tools make on their input).
void CheckExampleIsFinite(const std::string &key, const NnetExample &eg);

}  // namespace nnet3

#endif  // NNET3_NNET3_EGS_NNET_EXAMPLE_H_
