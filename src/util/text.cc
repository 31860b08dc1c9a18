// util/text.cc
#include "util/text.h"

#include <cctype>
#include <cmath>
#include <cstring>

namespace nnet3 {

namespace {
const char *kWhiteChars = " \t\n\r\f\v";

bool IsSpaceChar(unsigned char c) { return std::isspace(c) != 0; }

std::string ToLower(const std::string &s) {
  std::string ans(s);
  for (char &c : ans) c = static_cast<char>(std::tolower(
                          static_cast<unsigned char>(c)));
  return ans;
}

// Parses a trimmed, sign-stripped spelling of infinity or NaN.
bool ParseSpecialReal(const std::string &body, double *value) {
  std::string lower = ToLower(body);
  if (lower == "inf" || lower == "infinity") {
    *value = std::numeric_limits<double>::infinity();
    return true;
  }
  if (lower == "nan") {
    *value = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  return false;
}

template <class Real>
bool ConvertStringToRealImpl(const std::string &str, Real *out) {
  std::string s(str);
  Trim(&s);
  if (s.empty()) return false;
  // Special values, with an optional sign.
  {
    size_t start = (s[0] == '+' || s[0] == '-') ? 1 : 0;
    double special;
    if (ParseSpecialReal(s.substr(start), &special)) {
      *out = static_cast<Real>(s[0] == '-' ? -special : special);
      return true;
    }
  }
  // Only plain decimal numbers from here on: strtod would also accept hex
  // floats and "nan(...)", which Kaldi's stream-based parsing does not.
  for (char c : s) {
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '+' ||
          c == '-' || c == '.' || c == 'e' || c == 'E'))
      return false;
  }
  const char *begin = s.c_str();
  char *end = nullptr;
  errno = 0;
  Real value;
  if (std::is_same<Real, float>::value)
    value = static_cast<Real>(std::strtof(begin, &end));
  else
    value = static_cast<Real>(std::strtod(begin, &end));
  if (end == begin || *end != '\0') return false;
  if (errno == ERANGE && std::isinf(value)) return false;
  *out = value;
  return true;
}
}  // namespace

void SplitStringToVector(const std::string &full, const char *delims,
                         bool omit_empty_strings,
                         std::vector<std::string> *out) {
  out->clear();
  size_t start = 0;
  while (true) {
    size_t found = full.find_first_of(delims, start);
    size_t stop = (found == std::string::npos) ? full.size() : found;
    if (!omit_empty_strings || stop > start)
      out->push_back(full.substr(start, stop - start));
    if (found == std::string::npos) break;
    start = found + 1;
  }
}

void JoinVectorToString(const std::vector<std::string> &vec_in,
                        const char *delim, bool omit_empty_strings,
                        std::string *str_out) {
  std::string ans;
  bool first = true;
  for (const std::string &s : vec_in) {
    if (omit_empty_strings && s.empty()) continue;
    if (!first) ans += delim;
    ans += s;
    first = false;
  }
  str_out->swap(ans);
}

void Trim(std::string *str) {
  size_t first = str->find_first_not_of(kWhiteChars);
  if (first == std::string::npos) {
    str->clear();
    return;
  }
  size_t last = str->find_last_not_of(kWhiteChars);
  *str = str->substr(first, last - first + 1);
}

void SplitStringOnFirstSpace(const std::string &line, std::string *first,
                             std::string *rest) {
  std::string s(line);
  Trim(&s);
  size_t space = s.find_first_of(kWhiteChars);
  if (space == std::string::npos) {
    *first = s;
    rest->clear();
    return;
  }
  *first = s.substr(0, space);
  size_t rest_start = s.find_first_not_of(kWhiteChars, space);
  // s is trimmed, so there is a non-space character after any space.
  *rest = s.substr(rest_start);
}

bool IsToken(const std::string &token) {
  if (token.empty()) return false;
  for (char ch : token) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 128 && c != 255) continue;  // Non-ASCII letters are fine.
    if (c == 255 || !std::isprint(c) || IsSpaceChar(c)) return false;
  }
  return true;
}

bool IsLine(const std::string &line) {
  if (line.find('\n') != std::string::npos) return false;
  if (line.empty()) return true;
  if (IsSpaceChar(static_cast<unsigned char>(line.front())) ||
      IsSpaceChar(static_cast<unsigned char>(line.back())))
    return false;
  for (char ch : line)
    if (!std::isprint(static_cast<unsigned char>(ch))) return false;
  return true;
}

bool ConvertStringToReal(const std::string &str, float *out) {
  return ConvertStringToRealImpl(str, out);
}

bool ConvertStringToReal(const std::string &str, double *out) {
  return ConvertStringToRealImpl(str, out);
}

}  // namespace nnet3
