// util/text.h
// String helpers with Kaldi's exact semantics: splitting on a set of
// delimiter characters, trimming, strict number conversion (the whole
// string must be a number; reals accept inf/nan spellings), and the tests
// for keys (IsToken) and one-line strings (IsLine).
// Invariants: the conversion functions never throw and leave *out untouched
// when they return false; nothing here depends on the locale beyond "C".
#ifndef NNET3_UTIL_TEXT_H_
#define NNET3_UTIL_TEXT_H_

#include <cerrno>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "base/types.h"

namespace nnet3 {

// Splits "full" at every character in "delims". With omit_empty_strings
// false, empty fields are kept (so "" gives one empty field and "a," gives
// "a" and ""); with it true they are dropped.
void SplitStringToVector(const std::string &full, const char *delims,
                         bool omit_empty_strings,
                         std::vector<std::string> *out);

// Joins with "delim" between elements, skipping empty ones if asked.
void JoinVectorToString(const std::vector<std::string> &vec_in,
                        const char *delim, bool omit_empty_strings,
                        std::string *str_out);

// Removes leading and trailing white space (" \t\n\r\f\v").
void Trim(std::string *str);

// Trims "line", then splits it at the first run of white space: "first" is
// what comes before, "rest" what comes after (itself trimmed; may be "").
void SplitStringOnFirstSpace(const std::string &line, std::string *first,
                             std::string *rest);

// True if "token" is non-empty and has no white space or non-printable
// ASCII characters (bytes >= 128 are allowed, except 255).
bool IsToken(const std::string &token);

// True if "line" has no newline, no leading or trailing white space and
// only printable characters. The empty string is a line.
bool IsLine(const std::string &line);

// Converts a whole string (surrounding white space allowed) to an integer
// of type Int; false if it is not an integer or does not fit.
template <class Int>
bool ConvertStringToInteger(const std::string &str, Int *out) {
  static_assert(std::is_integral<Int>::value, "integer types only");
  const char *begin = str.c_str();
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(begin, &end, 10);
  if (end == begin) return false;
  while (*end == ' ' || (*end >= '\t' && *end <= '\r')) end++;
  if (*end != '\0' || errno != 0) return false;
  Int converted = static_cast<Int>(value);
  if (static_cast<long long>(converted) != value ||
      (value < 0 && !std::numeric_limits<Int>::is_signed))
    return false;
  *out = converted;
  return true;
}

// Converts a whole string to float or double. Accepts what C's strtod
// accepts for decimal numbers, plus inf/infinity/nan in any case, with an
// optional sign; rejects hexadecimal forms and out-of-range values.
bool ConvertStringToReal(const std::string &str, float *out);
bool ConvertStringToReal(const std::string &str, double *out);

// Splits on "delims" and converts each field to an integer; false (and
// *out cleared) if any field is not one. An empty string gives an empty
// vector.
template <class I>
bool SplitStringToIntegers(const std::string &full, const char *delims,
                           bool omit_empty_strings, std::vector<I> *out) {
  out->clear();
  if (full.empty()) return true;
  std::vector<std::string> split;
  SplitStringToVector(full, delims, omit_empty_strings, &split);
  std::vector<I> ans(split.size());
  for (size_t i = 0; i < split.size(); i++) {
    // As strtoll: leading white space is skipped, nothing may follow.
    const char *begin = split[i].c_str();
    char *end = nullptr;
    errno = 0;
    long long value = std::strtoll(begin, &end, 10);
    if (end == begin || *end != '\0' || errno != 0) return false;
    I converted = static_cast<I>(value);
    if (static_cast<long long>(converted) != value ||
        (value < 0 && !std::numeric_limits<I>::is_signed))
      return false;
    ans[i] = converted;
  }
  out->swap(ans);
  return true;
}

// Same for floating-point fields.
template <class F>
bool SplitStringToFloats(const std::string &full, const char *delims,
                         bool omit_empty_strings, std::vector<F> *out) {
  out->clear();
  if (full.empty()) return true;
  std::vector<std::string> split;
  SplitStringToVector(full, delims, omit_empty_strings, &split);
  std::vector<F> ans(split.size());
  for (size_t i = 0; i < split.size(); i++)
    if (!ConvertStringToReal(split[i], &ans[i])) return false;
  out->swap(ans);
  return true;
}

}  // namespace nnet3

#endif  // NNET3_UTIL_TEXT_H_
