// util/posterior.h
// Posterior: per frame, a list of (id, weight) pairs, as Kaldi's alignment
// and target tools exchange them (e.g. ali-to-post). Only the type and its
// Kaldi I/O live here; arithmetic on posteriors belongs to the layers that
// use them. Formats (Kaldi's):
//   binary: int32 frame count, then per frame an int32 pair count and per
//           pair WriteBasicType(int32 id), WriteBasicType(float weight);
//   text:   per frame "[ " then "id weight " per pair then "] ", and one
//           "\n" at the end, e.g. "[ 76 1 ] [ 76 0.5 12 0.5 ] \n".
// Reading text consumes exactly one line.
#ifndef NNET3_UTIL_POSTERIOR_H_
#define NNET3_UTIL_POSTERIOR_H_

#include <istream>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "base/types.h"
#include "util/holders.h"

namespace nnet3 {

typedef std::vector<std::vector<std::pair<int32, BaseFloat> > > Posterior;

// Without the "\0B" header. Throw UserError on failure.
void WritePosterior(std::ostream &os, bool binary, const Posterior &post);
void ReadPosterior(std::istream &is, bool binary, Posterior *post);

class PosteriorHolder {
 public:
  typedef Posterior T;
  static bool Write(std::ostream &os, bool binary, const T &t);
  bool Read(std::istream &is);
  static bool IsReadInBinary() { return true; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() { T().swap(t_); }
  void Swap(PosteriorHolder *other) { t_.swap(other->t_); }
  bool ExtractRange(const PosteriorHolder &, const std::string &) {
    internal::NoRanges("PosteriorHolder");
  }

 private:
  T t_;
};

}  // namespace nnet3

#endif  // NNET3_UTIL_POSTERIOR_H_
