// util/holders.h
// Holders: how one table entry (the object after "key " in an archive, or
// a whole file named in a script) is written and read. Formats are Kaldi's,
// byte for byte. Every holder H has:
//
//   typedef ... T;
//   static bool Write(std::ostream &os, bool binary, const T &t);
//       writes the Kaldi header ("\0B" when binary) and the object;
//       throws UserError on failure, returns true.
//   bool Read(std::istream &is);
//       reads the header and the object; throws UserError with a message
//       (positions included) on failure, returns true.
//   static bool IsReadInBinary();
//   T &Value();  void Clear();  void Swap(H *other);
//   bool ExtractRange(const H &other, const std::string &range);
//       makes this hold the part of other.Value() named by a script range
//       like "2:5" or "1:3,0:4"; false if the range is bad, throws if the
//       type has no ranges.
//
// Table code catches the UserError and rethrows it with the key and file.
//
// KaldiObjectHolder<T> serves any T with Read(std::istream&, bool binary)
// and Write(std::ostream&, bool binary) const. Its ExtractRange calls
//   bool ExtractObjectRange(const T &in, const std::string &range, T *out);
// unqualified, so overloads declared next to T (the matrix layer, in
// namespace nnet3) are found by argument-dependent lookup; the generic
// fallback below throws "range specifiers are not supported".
//
// Text formats: BasicHolder "5 \n"; BasicVectorHolder "1 2 3 \n";
// BasicVectorVectorHolder "1 2 ; 3 ; \n" (';' ends each inner vector);
// BasicPairVectorHolder "1 2 ; 3 4 \n" (';' separates pairs);
// TokenHolder "tok\n"; TokenVectorHolder "a b c \n". The binary forms
// write every element with WriteBasicType (a size byte each).
#ifndef NNET3_UTIL_HOLDERS_H_
#define NNET3_UTIL_HOLDERS_H_

#include <istream>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/io.h"
#include "base/log.h"
#include "base/types.h"

namespace nnet3 {

// Generic fallback for ranges; more specific overloads win.
template <class T>
bool ExtractObjectRange(const T &, const std::string &range, T *) {
  NNET3_ERR << "range specifiers (here [" << range
            << "]) are not supported for this type";
  return false;
}

namespace internal {
// Reads the Kaldi header; throws "<holder>: corrupt binary header ...".
bool ReadHolderHeader(std::istream &is, const char *holder_name);
// Reads the rest of the current line (the newline is consumed); throws if
// nothing at all can be read.
std::string ReadHolderLine(std::istream &is, const char *holder_name);
// After a text value: skips spaces and tabs, then requires a newline
// (consumed) or the end of the stream.
void ExpectHolderNewline(std::istream &is, const char *holder_name);
// Before a text value: skips spaces and tabs and throws if a newline comes
// first (an empty entry).
void SkipSpacesInLine(std::istream &is, const char *holder_name);
// Checks that a stream written to is still good.
void CheckHolderWrite(std::ostream &os, const char *holder_name);
// Guards a size read from a file before it is used to reserve memory.
size_t ReserveSize(int64 size);
[[noreturn]] void NoRanges(const char *holder_name);
}  // namespace internal

template <class KaldiType>
class KaldiObjectHolder {
 public:
  typedef KaldiType T;
  KaldiObjectHolder() {}
  static bool Write(std::ostream &os, bool binary, const T &t) {
    InitKaldiOutputStream(os, binary);
    t.Write(os, binary);
    internal::CheckHolderWrite(os, "KaldiObjectHolder");
    return true;
  }
  bool Read(std::istream &is) {
    t_.reset();
    bool binary = internal::ReadHolderHeader(is, "KaldiObjectHolder");
    std::unique_ptr<T> t(new T());
    t->Read(is, binary);
    t_ = std::move(t);
    return true;
  }
  static bool IsReadInBinary() { return true; }
  T &Value() {
    NNET3_ASSERT(t_ != nullptr);
    return *t_;
  }
  const T &Value() const {
    NNET3_ASSERT(t_ != nullptr);
    return *t_;
  }
  void Clear() { t_.reset(); }
  void Swap(KaldiObjectHolder *other) { t_.swap(other->t_); }
  bool ExtractRange(const KaldiObjectHolder &other, const std::string &range) {
    std::unique_ptr<T> t(new T());
    if (!ExtractObjectRange(other.Value(), range, t.get())) return false;
    t_ = std::move(t);
    return true;
  }

 private:
  std::unique_ptr<T> t_;
};

// int32, int64, float, double, bool.
template <class BasicType>
class BasicHolder {
 public:
  typedef BasicType T;
  BasicHolder() : t_() {}
  static bool Write(std::ostream &os, bool binary, const T &t) {
    InitKaldiOutputStream(os, binary);
    WriteBasicType(os, binary, t);
    if (!binary) os << '\n';
    internal::CheckHolderWrite(os, "BasicHolder");
    return true;
  }
  bool Read(std::istream &is) {
    bool binary = internal::ReadHolderHeader(is, "BasicHolder");
    if (!binary) internal::SkipSpacesInLine(is, "BasicHolder");
    ReadBasicType(is, binary, &t_);
    if (!binary) internal::ExpectHolderNewline(is, "BasicHolder");
    return true;
  }
  static bool IsReadInBinary() { return true; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() {}
  void Swap(BasicHolder *other) { std::swap(t_, other->t_); }
  bool ExtractRange(const BasicHolder &, const std::string &) {
    internal::NoRanges("BasicHolder");
  }

 private:
  T t_;
};

// std::vector<BasicType>.
template <class BasicType>
class BasicVectorHolder {
 public:
  typedef std::vector<BasicType> T;
  static bool Write(std::ostream &os, bool binary, const T &t) {
    InitKaldiOutputStream(os, binary);
    if (binary) {
      NNET3_ASSERT(t.size() < static_cast<size_t>(1u << 31));
      WriteBasicType(os, binary, static_cast<int32>(t.size()));
    }
    for (const BasicType &x : t) WriteBasicType(os, binary, x);
    if (!binary) os << '\n';
    internal::CheckHolderWrite(os, "BasicVectorHolder");
    return true;
  }
  bool Read(std::istream &is) {
    t_.clear();
    bool binary = internal::ReadHolderHeader(is, "BasicVectorHolder");
    if (binary) {
      int32 size;
      ReadBasicType(is, true, &size);
      if (size < 0)
        NNET3_ERR << "BasicVectorHolder: negative size " << size;
      CheckDeclaredSize(is, size, 1 + sizeof(BasicType),
                        "BasicVectorHolder: the element count");
      t_.reserve(internal::ReserveSize(size));
      for (int32 i = 0; i < size; i++) {
        BasicType x;
        ReadBasicType(is, true, &x);
        t_.push_back(x);
      }
    } else {
      std::string line = internal::ReadHolderLine(is, "BasicVectorHolder");
      std::istringstream line_is(line);
      while (true) {
        line_is >> std::ws;
        if (line_is.eof()) break;
        BasicType x;
        try {
          ReadBasicType(line_is, false, &x);
        } catch (const UserError &e) {
          NNET3_ERR << "BasicVectorHolder: bad value in line '"
                    << PrintableString(line, 100) << "': " << e.message();
        }
        t_.push_back(x);
      }
    }
    return true;
  }
  static bool IsReadInBinary() { return true; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() { T().swap(t_); }
  void Swap(BasicVectorHolder *other) { t_.swap(other->t_); }
  bool ExtractRange(const BasicVectorHolder &, const std::string &) {
    internal::NoRanges("BasicVectorHolder");
  }

 private:
  T t_;
};

// std::vector<std::vector<BasicType>>.
template <class BasicType>
class BasicVectorVectorHolder {
 public:
  typedef std::vector<std::vector<BasicType> > T;
  static bool Write(std::ostream &os, bool binary, const T &t) {
    InitKaldiOutputStream(os, binary);
    if (binary) {
      WriteBasicType(os, binary, static_cast<int32>(t.size()));
      for (const std::vector<BasicType> &v : t) {
        WriteBasicType(os, binary, static_cast<int32>(v.size()));
        for (const BasicType &x : v) WriteBasicType(os, binary, x);
      }
    } else {
      for (const std::vector<BasicType> &v : t) {
        for (const BasicType &x : v) WriteBasicType(os, binary, x);
        os << "; ";
      }
      os << '\n';
    }
    internal::CheckHolderWrite(os, "BasicVectorVectorHolder");
    return true;
  }
  bool Read(std::istream &is) {
    t_.clear();
    bool binary = internal::ReadHolderHeader(is, "BasicVectorVectorHolder");
    if (binary) {
      int32 size;
      ReadBasicType(is, true, &size);
      if (size < 0)
        NNET3_ERR << "BasicVectorVectorHolder: negative size " << size;
      CheckDeclaredSize(is, size, 5,
                        "BasicVectorVectorHolder: the vector count");
      t_.reserve(internal::ReserveSize(size));
      for (int32 i = 0; i < size; i++) {
        int32 size2;
        ReadBasicType(is, true, &size2);
        if (size2 < 0)
          NNET3_ERR << "BasicVectorVectorHolder: negative size " << size2;
        CheckDeclaredSize(is, size2, 1 + sizeof(BasicType),
                          "BasicVectorVectorHolder: the element count");
        std::vector<BasicType> v;
        v.reserve(internal::ReserveSize(size2));
        for (int32 j = 0; j < size2; j++) {
          BasicType x;
          ReadBasicType(is, true, &x);
          v.push_back(x);
        }
        t_.push_back(std::move(v));
      }
    } else {
      std::string line =
          internal::ReadHolderLine(is, "BasicVectorVectorHolder");
      std::istringstream line_is(line);
      std::vector<BasicType> current;
      while (true) {
        line_is >> std::ws;
        if (line_is.eof()) break;
        if (line_is.peek() == ';') {
          line_is.get();
          t_.push_back(current);
          current.clear();
          continue;
        }
        BasicType x;
        try {
          ReadBasicType(line_is, false, &x);
        } catch (const UserError &e) {
          NNET3_ERR << "BasicVectorVectorHolder: bad value in line '"
                    << PrintableString(line, 100) << "': " << e.message();
        }
        current.push_back(x);
      }
      if (!current.empty())
        NNET3_ERR << "BasicVectorVectorHolder: line '"
                  << PrintableString(line, 100)
                  << "' does not end with ';'";
    }
    return true;
  }
  static bool IsReadInBinary() { return true; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() { T().swap(t_); }
  void Swap(BasicVectorVectorHolder *other) { t_.swap(other->t_); }
  bool ExtractRange(const BasicVectorVectorHolder &, const std::string &) {
    internal::NoRanges("BasicVectorVectorHolder");
  }

 private:
  T t_;
};

// std::vector<std::pair<BasicType, BasicType>>.
template <class BasicType>
class BasicPairVectorHolder {
 public:
  typedef std::vector<std::pair<BasicType, BasicType> > T;
  static bool Write(std::ostream &os, bool binary, const T &t) {
    InitKaldiOutputStream(os, binary);
    if (binary) {
      WriteBasicType(os, binary, static_cast<int32>(t.size()));
      for (const auto &p : t) {
        WriteBasicType(os, binary, p.first);
        WriteBasicType(os, binary, p.second);
      }
    } else {
      for (size_t i = 0; i < t.size(); i++) {
        if (i > 0) os << "; ";
        WriteBasicType(os, binary, t[i].first);
        WriteBasicType(os, binary, t[i].second);
      }
      os << '\n';
    }
    internal::CheckHolderWrite(os, "BasicPairVectorHolder");
    return true;
  }
  bool Read(std::istream &is) {
    t_.clear();
    bool binary = internal::ReadHolderHeader(is, "BasicPairVectorHolder");
    if (binary) {
      int32 size;
      ReadBasicType(is, true, &size);
      if (size < 0)
        NNET3_ERR << "BasicPairVectorHolder: negative size " << size;
      CheckDeclaredSize(is, size, 2 * (1 + sizeof(BasicType)),
                        "BasicPairVectorHolder: the pair count");
      t_.reserve(internal::ReserveSize(size));
      for (int32 i = 0; i < size; i++) {
        std::pair<BasicType, BasicType> p;
        ReadBasicType(is, true, &p.first);
        ReadBasicType(is, true, &p.second);
        t_.push_back(p);
      }
    } else {
      std::string line = internal::ReadHolderLine(is, "BasicPairVectorHolder");
      std::istringstream line_is(line);
      try {
        while (true) {
          line_is >> std::ws;
          if (line_is.eof()) break;
          std::pair<BasicType, BasicType> p;
          ReadBasicType(line_is, false, &p.first);
          line_is >> std::ws;
          if (line_is.eof())
            NNET3_ERR << "odd number of values";
          ReadBasicType(line_is, false, &p.second);
          t_.push_back(p);
          line_is >> std::ws;
          if (line_is.eof()) break;
          if (line_is.peek() != ';') NNET3_ERR << "expected ';' after a pair";
          line_is.get();
        }
      } catch (const UserError &e) {
        NNET3_ERR << "BasicPairVectorHolder: cannot parse line '"
                  << PrintableString(line, 100) << "': " << e.message();
      }
    }
    return true;
  }
  static bool IsReadInBinary() { return true; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() { T().swap(t_); }
  void Swap(BasicPairVectorHolder *other) { t_.swap(other->t_); }
  bool ExtractRange(const BasicPairVectorHolder &, const std::string &) {
    internal::NoRanges("BasicPairVectorHolder");
  }

 private:
  T t_;
};

// One token (no white space) per entry; no header, binary mode ignored.
class TokenHolder {
 public:
  typedef std::string T;
  static bool Write(std::ostream &os, bool binary, const T &t);
  bool Read(std::istream &is);
  static bool IsReadInBinary() { return false; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() { t_.clear(); }
  void Swap(TokenHolder *other) { t_.swap(other->t_); }
  bool ExtractRange(const TokenHolder &, const std::string &) {
    internal::NoRanges("TokenHolder");
  }

 private:
  T t_;
};

// A line of tokens per entry; no header, binary mode ignored.
class TokenVectorHolder {
 public:
  typedef std::vector<std::string> T;
  static bool Write(std::ostream &os, bool binary, const T &t);
  bool Read(std::istream &is);
  static bool IsReadInBinary() { return false; }
  T &Value() { return t_; }
  const T &Value() const { return t_; }
  void Clear() { T().swap(t_); }
  void Swap(TokenVectorHolder *other) { t_.swap(other->t_); }
  bool ExtractRange(const TokenVectorHolder &, const std::string &) {
    internal::NoRanges("TokenVectorHolder");
  }

 private:
  T t_;
};

}  // namespace nnet3

#endif  // NNET3_UTIL_HOLDERS_H_
