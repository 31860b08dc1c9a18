// nnet3/core/config-line.h
// One line of an nnet3 config file: an optional first token ("component",
// "input-node", ...) followed by key=value pairs. A value runs up to the
// white space before the next "key=", so "input=Append(a, Offset(b, -1))"
// keeps its spaces; 'quoted' and "quoted" values are also accepted. Values
// are fetched with GetValue(), which marks them used; whatever is left
// unused afterwards is an error for the caller to report (Kaldi's rule: no
// option is silently ignored).
#ifndef NNET3_NNET3_CORE_CONFIG_LINE_H_
#define NNET3_NNET3_CORE_CONFIG_LINE_H_

#include <istream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/common.h"

namespace nnet3 {

class ConfigLine {
 public:
  // Parses a line (comments already removed). Returns false with *error set
  // if it is malformed (e.g. a token without "=", a bad key, an unmatched
  // quote).
  bool ParseLine(const std::string &line, std::string *error = nullptr);

  const std::string &FirstToken() const { return first_token_; }
  const std::string &WholeLine() const { return whole_line_; }

  bool HasValue(const std::string &key) const;
  // Each returns false if the key is absent; throws UserError if it is
  // present but not of the right type (naming the key and the value).
  bool GetValue(const std::string &key, std::string *value);
  bool GetValue(const std::string &key, BaseFloat *value);
  bool GetValue(const std::string &key, int32 *value);
  // "1:2:3" or "1,2,3".
  bool GetValue(const std::string &key, std::vector<int32> *value);
  // "true"/"false" (also "t"/"f", "1"/"0").
  bool GetValue(const std::string &key, bool *value);

  bool HasUnusedValues() const;
  // "key1=value1 key2=value2" for the values nobody asked for.
  std::string UnusedValues() const;

 private:
  std::string whole_line_;
  std::string first_token_;
  // key -> (value, used)
  std::map<std::string, std::pair<std::string, bool> > data_;
};

// True for names of nodes, components and keys: non-empty, starting with a
// letter or '_', then letters, digits, '_', '-' or '.'.
bool IsValidName(const std::string &name);

// Reads a config file's lines, dropping comments (from '#') and blank
// lines; the result keeps the original line numbers (1-based).
void ReadConfigLines(std::istream &is,
                     std::vector<std::pair<int32, std::string> > *lines);

}  // namespace nnet3

#endif  // NNET3_NNET3_CORE_CONFIG_LINE_H_
