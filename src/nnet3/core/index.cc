// nnet3/core/index.cc
#include "nnet3/core/index.h"

#include <cstdlib>
#include <sstream>

namespace nnet3 {

void Index::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<I1>");
  WriteBasicType(os, binary, n);
  WriteBasicType(os, binary, t);
  WriteBasicType(os, binary, x);
}

void Index::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<I1>");
  ReadBasicType(is, binary, &n);
  ReadBasicType(is, binary, &t);
  ReadBasicType(is, binary, &x);
}

std::ostream &operator<<(std::ostream &os, const Index &index) {
  os << '(' << index.n << ", " << index.t;
  if (index.x != 0) os << ", " << index.x;
  return os << ')';
}

std::ostream &operator<<(std::ostream &os, const Cindex &cindex) {
  return os << cindex.first << cindex.second;
}

namespace {
// Length of the run starting at i: same n and x, t increasing by one.
size_t RunLength(const std::vector<Index> &v, size_t i) {
  size_t j = i + 1;
  while (j < v.size() && v[j].n == v[i].n && v[j].x == v[i].x &&
         v[j].t == v[j - 1].t + 1)
    j++;
  return j - i;
}

void PrintRun(std::ostream &os, const std::vector<Index> &v, size_t i,
              size_t len) {
  os << '(' << v[i].n << ", ";
  if (len == 1) os << v[i].t;
  else os << v[i].t << ':' << v[i + len - 1].t;
  if (v[i].x != 0) os << ", " << v[i].x;
  os << ')';
}
}  // namespace

void PrintIndexes(std::ostream &os, const std::vector<Index> &indexes) {
  os << "[ ";
  for (size_t i = 0; i < indexes.size();) {
    size_t len = RunLength(indexes, i);
    PrintRun(os, indexes, i, len);
    os << ' ';
    i += len;
  }
  os << ']';
}

std::string IndexesToString(const std::vector<Index> &indexes) {
  std::ostringstream os;
  PrintIndexes(os, indexes);
  return os.str();
}

void PrintCindexes(std::ostream &os, const std::vector<Cindex> &cindexes,
                   const std::vector<std::string> &node_names) {
  os << "[ ";
  for (size_t i = 0; i < cindexes.size();) {
    int32 node = cindexes[i].first;
    size_t j = i;
    std::vector<Index> run;
    while (j < cindexes.size() && cindexes[j].first == node)
      run.push_back(cindexes[j++].second);
    for (size_t k = 0; k < run.size();) {
      size_t len = RunLength(run, k);
      if (node >= 0 && static_cast<size_t>(node) < node_names.size())
        os << node_names[node];
      else
        os << node;
      PrintRun(os, run, k, len);
      os << ' ';
      k += len;
    }
    i = j;
  }
  os << ']';
}

void WriteIndexVector(std::ostream &os, bool binary,
                      const std::vector<Index> &vec) {
  WriteToken(os, binary, "<I1V>");
  int32 size = static_cast<int32>(vec.size());
  WriteBasicType(os, binary, size);
  if (!binary) {
    for (const Index &index : vec) index.Write(os, binary);
    return;
  }
  for (int32 i = 0; i < size; i++) {
    const Index &index = vec[i];
    bool small;
    int32 dt;
    if (i == 0) {
      small = index.n == 0 && index.x == 0 && std::abs(index.t) < 125;
      dt = index.t;
    } else {
      const Index &last = vec[i - 1];
      small = index.n == last.n && index.x == last.x &&
              std::abs(index.t - last.t) < 125;
      dt = index.t - last.t;
    }
    if (small) {
      os.put(static_cast<char>(static_cast<signed char>(dt)));
    } else {
      os.put(127);
      WriteBasicType(os, binary, index.n);
      WriteBasicType(os, binary, index.t);
      WriteBasicType(os, binary, index.x);
    }
  }
  if (!os.good()) NNET3_ERR << "Output stream error writing Index vector";
}

void ReadIndexVector(std::istream &is, bool binary, std::vector<Index> *vec) {
  ExpectToken(is, binary, "<I1V>");
  int32 size;
  ReadBasicType(is, binary, &size);
  if (size < 0)
    NNET3_ERR << "Negative size " << size << " reading an Index vector";
  vec->resize(size);
  if (!binary) {
    for (int32 i = 0; i < size; i++) (*vec)[i].Read(is, binary);
    return;
  }
  for (int32 i = 0; i < size; i++) {
    int c = is.get();
    if (c == EOF)
      NNET3_ERR << "Unexpected end of file reading an Index vector";
    signed char sc = static_cast<signed char>(c);
    Index &index = (*vec)[i];
    if (sc == 127) {
      ReadBasicType(is, binary, &index.n);
      ReadBasicType(is, binary, &index.t);
      ReadBasicType(is, binary, &index.x);
    } else if (i == 0) {
      index = Index(0, sc, 0);
    } else {
      index = (*vec)[i - 1];
      index.t += sc;
    }
  }
}

}  // namespace nnet3
