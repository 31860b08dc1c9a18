// base/io.cc
#include "base/io.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace nnet3 {

void InitKaldiOutputStream(std::ostream &os, bool binary) {
  if (binary) {
    os.put('\0');
    os.put('B');
  }
  if (os.precision() < 7) os.precision(7);
}

bool InitKaldiInputStream(std::istream &is, bool *binary) {
  if (is.peek() == '\0') {
    is.get();
    if (is.peek() != 'B') return false;
    is.get();
    *binary = true;
  } else {
    *binary = false;
  }
  return true;
}

long long StreamPosition(std::istream &is) {
  if (is.fail()) return -1;
  return static_cast<long long>(is.tellg());
}

namespace {

int64 InitialMaxDeclaredBytes() {
  const char *env = std::getenv("NNET3_MAX_DECLARED_BYTES");
  if (env != nullptr && *env != '\0') {
    char *end = nullptr;
    long long v = std::strtoll(env, &end, 10);
    if (end != nullptr && *end == '\0' && v > 0) return v;
  }
  return int64(8) << 30;
}

std::atomic<int64> &MaxDeclaredBytesRef() {
  static std::atomic<int64> limit(InitialMaxDeclaredBytes());
  return limit;
}

}  // namespace

int64 MaxDeclaredBytes() { return MaxDeclaredBytesRef().load(); }

int64 SetMaxDeclaredBytes(int64 bytes) {
  NNET3_ASSERT(bytes > 0);
  return MaxDeclaredBytesRef().exchange(bytes);
}

int64 StreamBytesLeft(std::istream &is) {
  std::streambuf *sb = is.rdbuf();
  if (sb == nullptr) return -1;
  const std::ios_base::openmode in = std::ios_base::in;
  std::streampos cur = sb->pubseekoff(0, std::ios_base::cur, in);
  if (cur == std::streampos(-1)) return -1;
  std::streampos end = sb->pubseekoff(0, std::ios_base::end, in);
  if (end == std::streampos(-1)) {
    // Some buffers move even when they fail; put it back to be safe.
    sb->pubseekpos(cur, in);
    return -1;
  }
  if (sb->pubseekpos(cur, in) == std::streampos(-1))
    NNET3_ERR << "Could not seek back to file position "
              << static_cast<long long>(cur)
              << " after measuring the input's length";
  int64 left = static_cast<int64>(end - cur);
  return left < 0 ? 0 : left;
}

bool CheckDeclaredSize(std::istream &is, int64 count, int64 min_element_bytes,
                       const char *what) {
  NNET3_ASSERT(min_element_bytes > 0);
  if (count < 0)
    NNET3_ERR << what << ": negative size " << count << " at file position "
              << StreamPosition(is);
  const int64 kMax = std::numeric_limits<int64>::max();
  bool overflow = count > kMax / min_element_bytes;
  int64 needed = overflow ? kMax : count * min_element_bytes;
  std::streamsize buffered = is.rdbuf() ? is.rdbuf()->in_avail() : 0;
  if (!overflow && buffered > 0 && needed <= static_cast<int64>(buffered))
    return true;
  if (!overflow && needed <= kReadChunkBytes) return false;
  int64 left = StreamBytesLeft(is);
  if (left >= 0) {
    if (overflow || needed > left)
      NNET3_ERR << what << " " << count << " needs at least "
                << (overflow ? std::string("more than 2^63") :
                    std::to_string(needed)) << " bytes but only " << left
                << " are left in the input (corrupt or truncated file?) at"
                << " file position " << StreamPosition(is);
    return true;
  }
  if (overflow || needed > MaxDeclaredBytes())
    NNET3_ERR << what << " " << count << " needs at least "
              << (overflow ? std::string("more than 2^63") :
                  std::to_string(needed)) << " bytes, more than the limit of "
              << MaxDeclaredBytes() << " bytes for input whose length is not"
              << " known (NNET3_MAX_DECLARED_BYTES; see docs/io.md) at file"
              << " position " << StreamPosition(is);
  return false;
}

namespace internal {

void ReadRawChunks(std::istream &is, int64 count, size_t element_bytes,
                   const char *what, void *dest_state,
                   char *(*resize)(void *dest_state, size_t n)) {
  NNET3_ASSERT(element_bytes > 0);
  long long pos = StreamPosition(is);
  bool verified = CheckDeclaredSize(is, count, static_cast<int64>(element_bytes),
                                    what);
  if (count == 0) {
    resize(dest_state, 0);
    return;
  }
  const int64 eb = static_cast<int64>(element_bytes);
  // Seen to be there (or small): one allocation, one read.
  int64 step = verified ? count
               : std::max<int64>(1, kReadChunkBytes / eb);
  int64 done = 0;
  while (done < count) {
    int64 k = std::min(step, count - done);
    char *data = resize(dest_state, static_cast<size_t>(done + k));
    is.read(data + done * eb, static_cast<std::streamsize>(k * eb));
    int64 got = static_cast<int64>(is.gcount());
    if (got != k * eb)
      NNET3_ERR << what << " " << count << " declares " << count * eb
                << " bytes of data but the input ends after "
                << done * eb + got << " of them (data starting at file"
                << " position " << pos << ")";
    done += k;
    // Read pieces grow with what has arrived: memory stays within about
    // twice the data actually read.
    step = std::max(step, done);
  }
}

void WriteIntegerBytes(std::ostream &os, bool binary, int64 value,
                       int size_byte, const char *bytes) {
  if (binary) {
    char c = static_cast<char>(size_byte);
    os.put(c);
    os.write(bytes, size_byte < 0 ? -size_byte : size_byte);
  } else {
    if (size_byte == 1 || size_byte == -1) {
      os << static_cast<int16>(size_byte < 0 ? static_cast<uint8>(value)
                                             : static_cast<int8>(value))
         << " ";
    } else if (size_byte < 0) {
      os << static_cast<uint64>(value) << " ";
    } else {
      os << value << " ";
    }
  }
  if (os.fail()) NNET3_ERR << "Write failure in WriteBasicType.";
}

void ReadIntegerBytes(std::istream &is, bool binary, int expected_size_byte,
                      char *bytes, bool is_signed, int64 *text_value) {
  if (binary) {
    long long pos = StreamPosition(is);
    int c = is.get();
    if (c == EOF)
      NNET3_ERR << "ReadBasicType: unexpected end of stream at file position "
                << pos;
    if (static_cast<signed char>(c) != expected_size_byte)
      NNET3_ERR << "ReadBasicType: expected an integer of size byte "
                << expected_size_byte << ", got "
                << static_cast<int>(static_cast<signed char>(c))
                << " at file position " << pos;
    int n = expected_size_byte < 0 ? -expected_size_byte : expected_size_byte;
    is.read(bytes, n);
    if (is.fail())
      NNET3_ERR << "ReadBasicType: unexpected end of stream at file position "
                << pos;
  } else {
    is >> std::ws;
    long long pos = StreamPosition(is);
    if (is_signed) {
      long long v;
      is >> v;
      if (is.fail())
        NNET3_ERR << "ReadBasicType: failed to read an integer at file "
                     "position " << pos;
      *text_value = v;
    } else {
      int p = is.peek();
      if (p == '-')
        NNET3_ERR << "ReadBasicType: negative value for an unsigned integer "
                     "at file position " << pos;
      unsigned long long v;
      is >> v;
      if (is.fail())
        NNET3_ERR << "ReadBasicType: failed to read an integer at file "
                     "position " << pos;
      *text_value = static_cast<int64>(v);
    }
  }
}

}  // namespace internal

template <>
void WriteBasicType<bool>(std::ostream &os, bool binary, bool b) {
  os << (b ? "T" : "F");
  if (!binary) os << " ";
  if (os.fail()) NNET3_ERR << "Write failure in WriteBasicType<bool>";
}

template <>
void ReadBasicType<bool>(std::istream &is, bool binary, bool *b) {
  if (!binary) is >> std::ws;
  int c = is.peek();
  if (c == 'T') {
    *b = true;
  } else if (c == 'F') {
    *b = false;
  } else {
    NNET3_ERR << "ReadBasicType<bool>: expected T or F, got "
              << (c == EOF ? std::string("end of file")
                           : PrintableString(std::string(1, char(c))))
              << " at file position " << StreamPosition(is);
  }
  is.get();
}

void WriteBasicType(std::ostream &os, bool binary, bool b) {
  WriteBasicType<bool>(os, binary, b);
}
void ReadBasicType(std::istream &is, bool binary, bool *b) {
  ReadBasicType<bool>(is, binary, b);
}

namespace {
template <class Real>
void WriteFloatType(std::ostream &os, bool binary, Real f) {
  if (binary) {
    char c = sizeof(f);
    os.put(c);
    os.write(reinterpret_cast<const char *>(&f), sizeof(f));
  } else {
    os << f << " ";
  }
  if (os.fail()) NNET3_ERR << "Write failure in WriteBasicType.";
}

template <class Real>
void ReadFloatType(std::istream &is, bool binary, Real *f) {
  if (binary) {
    long long pos = StreamPosition(is);
    int c = is.get();
    if (c == 4) {
      float v;
      is.read(reinterpret_cast<char *>(&v), sizeof(v));
      *f = static_cast<Real>(v);
    } else if (c == 8) {
      double v;
      is.read(reinterpret_cast<char *>(&v), sizeof(v));
      *f = static_cast<Real>(v);
    } else {
      NNET3_ERR << "ReadBasicType: expected a float (size byte 4 or 8), got "
                << (c == EOF ? std::string("end of file")
                             : std::to_string(static_cast<int>(
                                   static_cast<signed char>(c))))
                << " at file position " << pos;
    }
    if (is.fail())
      NNET3_ERR << "ReadBasicType: unexpected end of stream reading a float "
                   "at file position " << pos;
  } else {
    is >> std::ws;
    long long pos = StreamPosition(is);
    is >> *f;
    if (is.fail())
      NNET3_ERR << "ReadBasicType: failed to read a floating-point number at "
                   "file position " << pos;
  }
}
}  // namespace

void WriteBasicType(std::ostream &os, bool binary, float f) {
  WriteFloatType(os, binary, f);
}
void WriteBasicType(std::ostream &os, bool binary, double d) {
  WriteFloatType(os, binary, d);
}
void ReadBasicType(std::istream &is, bool binary, float *f) {
  ReadFloatType(is, binary, f);
}
void ReadBasicType(std::istream &is, bool binary, double *d) {
  ReadFloatType(is, binary, d);
}

void WriteToken(std::ostream &os, bool binary, const char *token) {
  (void)binary;
  NNET3_ASSERT(token != nullptr && *token != '\0');
  NNET3_ASSERT(std::strpbrk(token, " \t\n\r") == nullptr);
  os << token << " ";
  if (os.fail()) NNET3_ERR << "Write failure in WriteToken.";
}

void WriteToken(std::ostream &os, bool binary, const std::string &token) {
  WriteToken(os, binary, token.c_str());
}

void ReadToken(std::istream &is, bool binary, std::string *token) {
  if (!binary) is >> std::ws;
  long long pos = StreamPosition(is);
  is >> *token;
  if (is.fail())
    NNET3_ERR << "ReadToken: failed to read a token at file position " << pos;
  // A NUL byte cannot be written back (WriteToken takes a C string), so a
  // token holding one is refused here rather than asserted on later.
  if (token->find('\0') != std::string::npos)
    NNET3_ERR << "ReadToken: the token " << PrintableString(*token)
              << " at file position " << pos << " contains a NUL byte";
  int c = is.peek();
  if (!std::isspace(c)) {
    NNET3_ERR << "ReadToken: expected a space after token "
              << PrintableString(*token) << ", got "
              << (c == EOF ? std::string("end of file")
                           : PrintableString(std::string(1, char(c))))
              << " at file position " << StreamPosition(is);
  }
  is.get();
}

int Peek(std::istream &is, bool binary) {
  if (!binary) is >> std::ws;
  return is.peek();
}

int PeekToken(std::istream &is, bool binary) {
  if (!binary) is >> std::ws;
  bool read_bracket;
  if (static_cast<char>(is.peek()) == '<') {
    read_bracket = true;
    is.get();
  } else {
    read_bracket = false;
  }
  int ans = is.peek();
  if (read_bracket) {
    if (!is.unget()) {
      is.clear();
      NNET3_ERR << "PeekToken: could not un-get a character from the stream";
    }
  }
  return read_bracket ? ans : -1;
}

void ExpectToken(std::istream &is, bool binary, const char *token) {
  long long pos = StreamPosition(is);
  std::string got;
  try {
    ReadToken(is, binary, &got);
  } catch (const UserError &e) {
    NNET3_ERR << "Expected token " << token << ": " << e.message();
  }
  if (got != token)
    NNET3_ERR << "Expected token " << token << ", got "
              << PrintableString(got) << " at file position " << pos;
}

void ExpectToken(std::istream &is, bool binary, const std::string &token) {
  ExpectToken(is, binary, token.c_str());
}

bool ReadTokenIf(std::istream &is, bool binary, const std::string &token) {
  if (!binary) is >> std::ws;
  // Tokens we look for start with '<'; compare the peeked prefix cheaply.
  if (is.peek() != static_cast<unsigned char>(token[0])) return false;
  std::streampos start = is.tellg();
  std::string got;
  ReadToken(is, binary, &got);
  if (got == token) return true;
  is.clear();
  if (start == std::streampos(-1) || !is.seekg(start))
    NNET3_ERR << "Expected token " << token << ", got " << got
              << " (and the stream cannot seek back)";
  return false;
}

template <class T>
void WriteIntegerVector(std::ostream &os, bool binary,
                        const std::vector<T> &v) {
  static_assert(std::is_integral<T>::value, "integer vectors only");
  if (binary) {
    char sz = sizeof(T);
    os.put(sz);
    int32 n = static_cast<int32>(v.size());
    NNET3_ASSERT(static_cast<size_t>(n) == v.size());
    os.write(reinterpret_cast<const char *>(&n), sizeof(n));
    if (n != 0)
      os.write(reinterpret_cast<const char *>(v.data()), sizeof(T) * n);
  } else {
    os << "[ ";
    for (const T &x : v) {
      if (sizeof(T) == 1) os << static_cast<int16>(x) << " ";
      else os << x << " ";
    }
    os << "]\n";
  }
  if (os.fail()) NNET3_ERR << "Write failure in WriteIntegerVector.";
}

template <class T>
void ReadIntegerVector(std::istream &is, bool binary, std::vector<T> *v) {
  static_assert(std::is_integral<T>::value, "integer vectors only");
  long long pos = StreamPosition(is);
  if (binary) {
    int sz = is.peek();
    if (sz != static_cast<int>(sizeof(T)))
      NNET3_ERR << "ReadIntegerVector: expected element size " << sizeof(T)
                << ", got " << sz << " at file position " << pos;
    is.get();
    int32 n;
    is.read(reinterpret_cast<char *>(&n), sizeof(n));
    if (is.fail() || n < 0)
      NNET3_ERR << "ReadIntegerVector: bad or missing size at file position "
                << pos;
    ReadRawArray(is, n, v, "ReadIntegerVector: the element count");
  } else {
    std::vector<T> tmp;
    is >> std::ws;
    if (is.peek() != '[')
      NNET3_ERR << "ReadIntegerVector: expected [ at file position " << pos;
    is.get();
    while (true) {
      is >> std::ws;
      if (is.peek() == ']') { is.get(); break; }
      long long x;
      is >> x;
      if (is.fail())
        NNET3_ERR << "ReadIntegerVector: failed to read an integer in the "
                     "vector starting at file position " << pos;
      tmp.push_back(static_cast<T>(x));
    }
    *v = std::move(tmp);
  }
}

template <class T>
void WriteIntegerPairVector(std::ostream &os, bool binary,
                            const std::vector<std::pair<T, T> > &v) {
  if (binary) {
    char sz = sizeof(T);
    os.put(sz);
    int32 n = static_cast<int32>(v.size());
    os.write(reinterpret_cast<const char *>(&n), sizeof(n));
    for (const auto &p : v) {
      os.write(reinterpret_cast<const char *>(&p.first), sizeof(T));
      os.write(reinterpret_cast<const char *>(&p.second), sizeof(T));
    }
  } else {
    os << "[ ";
    for (const auto &p : v) os << p.first << ',' << p.second << ' ';
    os << "]\n";
  }
  if (os.fail()) NNET3_ERR << "Write failure in WriteIntegerPairVector.";
}

template <class T>
void ReadIntegerPairVector(std::istream &is, bool binary,
                           std::vector<std::pair<T, T> > *v) {
  long long pos = StreamPosition(is);
  if (binary) {
    int sz = is.peek();
    if (sz != static_cast<int>(sizeof(T)))
      NNET3_ERR << "ReadIntegerPairVector: expected element size "
                << sizeof(T) << ", got " << sz << " at file position " << pos;
    is.get();
    int32 n;
    is.read(reinterpret_cast<char *>(&n), sizeof(n));
    if (is.fail() || n < 0)
      NNET3_ERR << "ReadIntegerPairVector: bad size at file position " << pos;
    std::vector<std::array<T, 2> > raw;
    ReadRawArray(is, n, &raw, "ReadIntegerPairVector: the pair count");
    v->resize(n);
    for (int32 i = 0; i < n; i++) (*v)[i] = std::make_pair(raw[i][0], raw[i][1]);
  } else {
    std::vector<std::pair<T, T> > tmp;
    is >> std::ws;
    if (is.peek() != '[')
      NNET3_ERR << "ReadIntegerPairVector: expected [ at file position "
                << pos;
    is.get();
    while (true) {
      is >> std::ws;
      if (is.peek() == ']') { is.get(); break; }
      long long a, b;
      char comma;
      is >> a >> comma >> b;
      if (is.fail() || comma != ',')
        NNET3_ERR << "ReadIntegerPairVector: bad pair in the vector starting "
                     "at file position " << pos;
      tmp.emplace_back(static_cast<T>(a), static_cast<T>(b));
    }
    *v = std::move(tmp);
  }
}

#define NNET3_INSTANTIATE_INT_VECTOR_IO(T)                                   \
  template void WriteIntegerVector<T>(std::ostream &, bool,                 \
                                      const std::vector<T> &);              \
  template void ReadIntegerVector<T>(std::istream &, bool, std::vector<T> *); \
  template void WriteIntegerPairVector<T>(                                  \
      std::ostream &, bool, const std::vector<std::pair<T, T> > &);         \
  template void ReadIntegerPairVector<T>(std::istream &, bool,              \
                                         std::vector<std::pair<T, T> > *);

NNET3_INSTANTIATE_INT_VECTOR_IO(int8)
NNET3_INSTANTIATE_INT_VECTOR_IO(int16)
NNET3_INSTANTIATE_INT_VECTOR_IO(int32)
NNET3_INSTANTIATE_INT_VECTOR_IO(int64)
NNET3_INSTANTIATE_INT_VECTOR_IO(uint8)
NNET3_INSTANTIATE_INT_VECTOR_IO(uint16)
NNET3_INSTANTIATE_INT_VECTOR_IO(uint32)
NNET3_INSTANTIATE_INT_VECTOR_IO(uint64)

}  // namespace nnet3
