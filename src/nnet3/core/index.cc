// nnet3/core/index.cc
#include "nnet3/core/index.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
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
    // In 64 bits: t may be anything, kNoTime (the most negative int32)
    // included, and the difference of two such values overflows int32.
    int64 diff;
    if (i == 0) {
      diff = index.t;
      small = index.n == 0 && index.x == 0 && diff > -125 && diff < 125;
    } else {
      const Index &last = vec[i - 1];
      diff = static_cast<int64>(index.t) - last.t;
      small = index.n == last.n && index.x == last.x && diff > -125 &&
              diff < 125;
    }
    dt = static_cast<int32>(small ? diff : 0);
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
  // Every element takes at least one byte (binary) or two (text); a lying
  // count must not allocate ahead of the data.
  CheckDeclaredSize(is, size, binary ? 1 : 2,
                    "ReadIndexVector (<I1V>): the element count");
  std::vector<Index> ans;
  ans.reserve(BoundedReserve<Index>(size));
  for (int32 i = 0; i < size; i++) {
    if (!binary) {
      Index index;
      index.Read(is, binary);
      ans.push_back(index);
      continue;
    }
    int c = is.get();
    if (c == EOF)
      NNET3_ERR << "ReadIndexVector (<I1V>): unexpected end of file at "
                << "element " << i << " of the " << size << " declared";
    signed char sc = static_cast<signed char>(c);
    Index index;
    if (sc == 127) {
      ReadBasicType(is, binary, &index.n);
      ReadBasicType(is, binary, &index.t);
      ReadBasicType(is, binary, &index.x);
    } else if (i == 0) {
      index = Index(0, sc, 0);
    } else {
      index = ans.back();
      int64 t = static_cast<int64>(index.t) + sc;
      if (t < std::numeric_limits<int32>::min() ||
          t > std::numeric_limits<int32>::max())
        NNET3_ERR << "ReadIndexVector (<I1V>): element " << i
                  << " moves t from " << index.t << " by " << int(sc)
                  << ", outside the int32 range";
      index.t = static_cast<int32>(t);
    }
    ans.push_back(index);
  }
  vec->swap(ans);
}

namespace {
// A byte of a binary stream as a message fragment: "end of file" or its
// signed value.
std::string ByteForMessage(int c) {
  if (c == EOF) return "end of file";
  return "byte " + std::to_string(static_cast<int>(static_cast<signed char>(c)));
}

void ExpectCharInText(std::istream &is, char want, int32 element) {
  is >> std::ws;
  long long pos = StreamPosition(is);
  int c = is.peek();
  if (c != static_cast<unsigned char>(want))
    NNET3_ERR << "ReadCindexVector: expected '" << want << "' at element "
              << element << ", got "
              << (c == EOF ? std::string("end of file")
                           : PrintableString(std::string(1, char(c))))
              << " at file position " << pos;
  is.get();
}

void WriteCindexElementBinary(std::ostream &os,
                              const std::vector<Cindex> &vec, size_t i) {
  const Cindex &cindex = vec[i];
  if (i == 0 || cindex.first != vec[i - 1].first) {
    os.put('|');
    WriteBasicType(os, true, cindex.first);
  }
  const Index &index = cindex.second;
  int code = 127;  // the general form unless a one-byte form applies
  if (i == 0) {
    if (index.n == 0 && index.x == 0 && std::abs(index.t) < 125)
      code = index.t;
    else if (index.t == 0 && index.x == 0 && (index.n == 0 || index.n == 1))
      code = 125 + index.n;
  } else {
    const Index &last = vec[i - 1].second;
    int64 dt = static_cast<int64>(index.t) - last.t;
    if (index.n == last.n && index.x == last.x && dt > -124 && dt < 124)
      code = static_cast<int>(dt);
    else if (index.t == last.t && index.x == last.x &&
             (index.n == last.n || static_cast<int64>(index.n) == last.n + 1LL))
      code = 125 + (index.n - last.n);
  }
  os.put(static_cast<char>(static_cast<signed char>(code)));
  if (code == 127) {
    WriteBasicType(os, true, index.n);
    WriteBasicType(os, true, index.t);
    WriteBasicType(os, true, index.x);
  }
}

void ReadCindexElementBinary(std::istream &is, size_t i,
                             std::vector<Cindex> *vec) {
  Cindex cindex;
  long long pos = StreamPosition(is);
  int c = is.peek();
  if (c == '|') {
    is.get();
    ReadBasicType(is, true, &cindex.first);
  } else if (i == 0) {
    NNET3_ERR << "ReadCindexVector: expected '|' and a node index before the "
              << "first Cindex, got " << ByteForMessage(c)
              << " at file position " << pos;
  } else {
    cindex.first = (*vec)[i - 1].first;
  }
  pos = StreamPosition(is);
  c = is.get();
  if (c == EOF)
    NNET3_ERR << "ReadCindexVector: unexpected end of file at element " << i;
  int code = static_cast<signed char>(c);
  Index &index = cindex.second;
  const Index last = (i == 0 ? Index() : (*vec)[i - 1].second);
  if (code == 127) {
    ReadBasicType(is, true, &index.n);
    ReadBasicType(is, true, &index.t);
    ReadBasicType(is, true, &index.x);
  } else if (code == 125 || code == 126) {
    const int64 n = static_cast<int64>(last.n) + (code - 125);
    if (n > std::numeric_limits<int32>::max())
      NNET3_ERR << "ReadCindexVector: element " << i << " moves n past "
                << last.n << ", outside the int32 range (file position "
                << pos << ")";
    index = Index(static_cast<int32>(n), last.t, last.x);
  } else if (i == 0 && std::abs(code) < 125) {
    index = Index(0, code, 0);
  } else if (i > 0 && std::abs(code) < 124) {
    const int64 t = static_cast<int64>(last.t) + code;
    if (t < std::numeric_limits<int32>::min() ||
        t > std::numeric_limits<int32>::max())
      NNET3_ERR << "ReadCindexVector: element " << i << " moves t from "
                << last.t << " by " << code << ", outside the int32 range "
                << "(file position " << pos << ")";
    index = Index(last.n, static_cast<int32>(t), last.x);
  } else {
    NNET3_ERR << "ReadCindexVector: unexpected byte " << code
              << " at element " << i << ", file position " << pos;
  }
  vec->push_back(cindex);
}
}  // namespace

void WriteCindexVector(std::ostream &os, bool binary,
                       const std::vector<Cindex> &vec) {
  WriteToken(os, binary, "<I1V>");
  int32 size = static_cast<int32>(vec.size());
  NNET3_ASSERT(static_cast<size_t>(size) == vec.size());
  WriteBasicType(os, binary, size);
  for (size_t i = 0; i < vec.size(); i++) {
    if (binary) {
      WriteCindexElementBinary(os, vec, i);
      continue;
    }
    if (i == 0 || vec[i].first != vec[i - 1].first) {
      if (i > 0) os.put(']');
      os.put('[');
      WriteBasicType(os, binary, vec[i].first);
      os.put(':');
    }
    vec[i].second.Write(os, binary);
    if (i + 1 == vec.size()) os.put(']');
  }
  if (!os.good()) NNET3_ERR << "Output stream error writing Cindex vector";
}

void ReadCindexVector(std::istream &is, bool binary,
                      std::vector<Cindex> *vec) {
  ExpectToken(is, binary, "<I1V>");
  int32 size;
  ReadBasicType(is, binary, &size);
  CheckDeclaredSize(is, size, binary ? 1 : 2,
                    "ReadCindexVector (<I1V>): the element count");
  std::vector<Cindex> ans;
  // A corrupt size must not allocate wildly: grow as elements arrive.
  ans.reserve(BoundedReserve<Cindex>(size));
  for (int32 i = 0; i < size; i++) {
    if (binary) {
      ReadCindexElementBinary(is, i, &ans);
      continue;
    }
    Cindex cindex;
    is >> std::ws;
    if (i == 0 || is.peek() == ']') {
      if (i != 0) is.get();
      ExpectCharInText(is, '[', i);
      ReadBasicType(is, binary, &cindex.first);
      ExpectCharInText(is, ':', i);
    } else {
      cindex.first = ans.back().first;
    }
    cindex.second.Read(is, binary);
    ans.push_back(cindex);
    if (i + 1 == size) ExpectCharInText(is, ']', i);
  }
  vec->swap(ans);
}
}  // namespace nnet3
