// util/holders.cc
#include "util/holders.h"

#include <algorithm>

#include "util/table-spec.h"
#include "util/text.h"

namespace nnet3 {

namespace internal {

namespace {
std::string DescribeChar(int c) {
  if (c == EOF) return "end of file";
  return "'" + PrintableString(std::string(1, static_cast<char>(c))) + "'";
}
}  // namespace

bool ReadHolderHeader(std::istream &is, const char *holder_name) {
  long long pos = StreamPosition(is);
  bool binary = false;
  if (!InitKaldiInputStream(is, &binary))
    NNET3_ERR << holder_name << ": corrupt binary header (\\0 not followed "
              << "by B) at file position " << pos;
  return binary;
}

std::string ReadHolderLine(std::istream &is, const char *holder_name) {
  long long pos = StreamPosition(is);
  std::string line;
  std::getline(is, line);
  if (is.fail())
    NNET3_ERR << holder_name << ": "
              << (is.bad() ? "read error" : "unexpected end of file")
              << " reading a line at file position " << pos;
  return line;
}

void ExpectHolderNewline(std::istream &is, const char *holder_name) {
  int c;
  while ((c = is.peek()) == ' ' || c == '\t') is.get();
  if (c == '\n') {
    is.get();
  } else if (c != EOF) {
    NNET3_ERR << holder_name << ": expected a newline after the value, got "
              << DescribeChar(c) << " at file position " << StreamPosition(is);
  }
}

void SkipSpacesInLine(std::istream &is, const char *holder_name) {
  int c;
  while ((c = is.peek()) == ' ' || c == '\t' || c == '\r') is.get();
  if (c == '\n')
    NNET3_ERR << holder_name << ": found a newline where a value was "
              << "expected, at file position " << StreamPosition(is);
}

void CheckHolderWrite(std::ostream &os, const char *holder_name) {
  if (os.fail()) NNET3_ERR << holder_name << ": write failure";
}

size_t ReserveSize(int64 size) {
  // Corrupt sizes must not allocate gigabytes before the data runs out.
  return static_cast<size_t>(std::min<int64>(std::max<int64>(size, 0),
                                             1 << 16));
}

void NoRanges(const char *holder_name) {
  ThrowUserError(std::string("range specifiers are not supported for ") +
                 holder_name + " objects");
}

}  // namespace internal

bool TokenHolder::Write(std::ostream &os, bool, const T &t) {
  if (!IsToken(t))
    NNET3_ERR << "TokenHolder: invalid token '" << PrintableString(t)
              << "' (tokens must be non-empty, without white space)";
  os << t << '\n';
  internal::CheckHolderWrite(os, "TokenHolder");
  return true;
}

bool TokenHolder::Read(std::istream &is) {
  is >> std::ws;
  long long pos = StreamPosition(is);
  is >> t_;
  if (is.fail())
    NNET3_ERR << "TokenHolder: failed to read a token at file position "
              << pos;
  internal::ExpectHolderNewline(is, "TokenHolder");
  return true;
}

bool TokenVectorHolder::Write(std::ostream &os, bool, const T &t) {
  for (const std::string &token : t) {
    if (!IsToken(token))
      NNET3_ERR << "TokenVectorHolder: invalid token '"
                << PrintableString(token)
                << "' (tokens must be non-empty, without white space)";
    os << token << ' ';
  }
  os << '\n';
  internal::CheckHolderWrite(os, "TokenVectorHolder");
  return true;
}

bool TokenVectorHolder::Read(std::istream &is) {
  std::string line = internal::ReadHolderLine(is, "TokenVectorHolder");
  SplitStringToVector(line, " \t\n\r\f\v", true, &t_);
  return true;
}

}  // namespace nnet3
