// nnet3/core/index.h
// Index (n, t, x) and Cindex (node-index, Index): the labels of the rows of
// every matrix in an nnet3 computation. n is the sequence within a
// minibatch, t the time, x a spare dimension (e.g. for convolution).
// Ordering is by n, then t, then x, so sorting keeps each sequence's frames
// together and in time order. Kaldi's binary/text encodings of Index
// vectors are implemented here (the compact per-element form used inside
// egs and cached computations) and of Cindex vectors (matrix debug info in
// cached computations), as is the short printed form
// "[ (0, -1:1) (1, -1:1) ]".
#ifndef NNET3_NNET3_CORE_INDEX_H_
#define NNET3_NNET3_CORE_INDEX_H_

#include <limits>
#include <istream>
#include <ostream>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/common.h"

namespace nnet3 {

// The t value of a "blank" Index: a padding row that some non-simple
// components (convolution, attention, TDNN) insert to make their input or
// output regular; nothing computes it and its value is zero.
const int32 kNoTime = std::numeric_limits<int32>::min();

struct Index {
  int32 n;  // sequence (member of the minibatch)
  int32 t;  // time
  int32 x;  // spare dimension
  Index() : n(0), t(0), x(0) {}
  Index(int32 n_in, int32 t_in, int32 x_in = 0) : n(n_in), t(t_in), x(x_in) {}
  bool operator==(const Index &a) const {
    return n == a.n && t == a.t && x == a.x;
  }
  bool operator!=(const Index &a) const { return !(*this == a); }
  // Kaldi's order: by t, then x, then n (so n varies fastest, the layout
  // the compiler gives each step's rows).
  bool operator<(const Index &a) const {
    if (t != a.t) return t < a.t;
    if (x != a.x) return x < a.x;
    return n < a.n;
  }
  Index operator+(const Index &other) const {
    return Index(n + other.n, t + other.t, x + other.x);
  }
  Index &operator+=(const Index &other) {
    n += other.n;
    t += other.t;
    x += other.x;
    return *this;
  }
  // Kaldi's per-Index form: "<I1> n t x".
  void Write(std::ostream &os, bool binary) const;
  void Read(std::istream &is, bool binary);
};

struct IndexHasher {
  size_t operator()(const Index &i) const noexcept {
    return static_cast<size_t>(i.n) + 1619 * static_cast<size_t>(i.t) +
           15649 * static_cast<size_t>(i.x);
  }
};

// (node index, Index).
typedef std::pair<int32, Index> Cindex;

struct CindexHasher {
  size_t operator()(const Cindex &c) const noexcept {
    return static_cast<size_t>(c.first) * 1747 + IndexHasher()(c.second);
  }
};

// "(n, t)" or "(n, t, x)" when x != 0.
std::ostream &operator<<(std::ostream &os, const Index &index);
std::ostream &operator<<(std::ostream &os, const Cindex &cindex);

// Prints a vector of Indexes compactly: runs of consecutive t with the same
// n and x become "(n, t1:t2)", e.g. "[ (0, -1:1) (1, -1:1) ]".
void PrintIndexes(std::ostream &os, const std::vector<Index> &indexes);
std::string IndexesToString(const std::vector<Index> &indexes);
// Cindexes: "[ node(n, t1:t2) ... ]" with the node given by name.
void PrintCindexes(std::ostream &os, const std::vector<Cindex> &cindexes,
                   const std::vector<std::string> &node_names);

// Kaldi's "<I1V>" encoding: binary uses one signed byte per Index when it
// differs from the previous one only in t (by less than 125), else byte 127
// and the three integers; text writes each Index's "<I1>" form.
void WriteIndexVector(std::ostream &os, bool binary,
                      const std::vector<Index> &vec);
void ReadIndexVector(std::istream &is, bool binary, std::vector<Index> *vec);

// Kaldi's Cindex-vector encoding (also under the token "<I1V>", then the
// int32 count). Binary: wherever the node differs from the previous
// element's (and always at element 0) a '|' byte and the node as an int32;
// then one signed byte for the Index: at element 0, t when n == x == 0 and
// |t| < 125, else 125 + n when t == x == 0 and n is 0 or 1; later, the step
// in t when n and x are unchanged and |step| < 124 (so 124, '|', never
// starts an Index), else 125/126 when only n grows by 0/1; otherwise byte
// 127 and the three integers. Text: each run of one node is
// "[node :<I1> n t x <I1> n t x ...]" with runs written back to back, e.g.
// "<I1V> 3 [1 :<I1> 0 0 0 <I1> 0 1 0 ][2 :<I1> 0 0 0 ]".
void WriteCindexVector(std::ostream &os, bool binary,
                       const std::vector<Cindex> &vec);
void ReadCindexVector(std::istream &is, bool binary, std::vector<Cindex> *vec);

// A set of Indexes, answering "is this Index present" (used when asking a
// component or descriptor what it can compute from what is available).
class IndexSet {
 public:
  virtual bool operator()(const Index &index) const = 0;
  virtual ~IndexSet() {}
};

// Information a component may need about the whole computation; nothing
// yet (as in Kaldi).
struct MiscComputationInfo {};

}  // namespace nnet3

#endif  // NNET3_NNET3_CORE_INDEX_H_
