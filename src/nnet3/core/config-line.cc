// nnet3/core/config-line.cc
#include "nnet3/core/config-line.h"

#include <cctype>
#include <sstream>

#include "util/text.h"

namespace nnet3 {

bool IsValidName(const std::string &name) {
  if (name.empty()) return false;
  if (!std::isalpha(static_cast<unsigned char>(name[0])) && name[0] != '_')
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' &&
        c != '.')
      return false;
  return true;
}

bool ConfigLine::ParseLine(const std::string &line, std::string *error) {
  std::string dummy;
  if (!error) error = &dummy;
  data_.clear();
  first_token_.clear();
  whole_line_ = line;
  size_t size = line.size(), pos = 0;
  auto space = [&](size_t p) {
    return std::isspace(static_cast<unsigned char>(line[p])) != 0;
  };
  while (pos < size && space(pos)) pos++;
  if (pos == size) {
    *error = "empty line";
    return false;
  }
  size_t start = pos;
  while (pos < size && !space(pos)) {
    if (line[pos] == '=') {  // no first token: the line starts with key=value
      pos = start;
      break;
    }
    pos++;
  }
  first_token_ = line.substr(start, pos - start);
  if (!first_token_.empty() && !IsValidName(first_token_)) {
    *error = "bad first token '" + first_token_ + "'";
    return false;
  }
  while (pos < size) {
    if (space(pos)) {
      pos++;
      continue;
    }
    size_t eq = line.find('=', pos);
    if (eq == std::string::npos || eq == pos) {
      *error = "expected key=value at '" + line.substr(pos) + "'";
      return false;
    }
    std::string key = line.substr(pos, eq - pos);
    if (!IsValidName(key)) {
      *error = "bad key '" + key + "'";
      return false;
    }
    if (data_.count(key)) {
      *error = "key '" + key + "' given twice";
      return false;
    }
    if (eq + 1 < size && (line[eq + 1] == '\'' || line[eq + 1] == '"')) {
      char quote = line[eq + 1];
      size_t close = line.find(quote, eq + 2);
      if (close == std::string::npos) {
        *error = std::string("no closing ") + quote + " for key '" + key + "'";
        return false;
      }
      data_[key] = std::make_pair(line.substr(eq + 2, close - eq - 2), false);
      pos = close + 1;
      continue;
    }
    size_t next_eq = line.find('=', eq + 1);
    std::string value;
    if (next_eq == std::string::npos) {
      value = line.substr(eq + 1);
      pos = size;
    } else {
      size_t last_space = line.find_last_of(" \t", next_eq);
      if (last_space == std::string::npos || last_space <= eq) {
        *error = "cannot split the value of key '" + key +
                 "' from the next key=value";
        return false;
      }
      value = line.substr(eq + 1, last_space - eq - 1);
      pos = last_space;
    }
    Trim(&value);
    data_[key] = std::make_pair(value, false);
  }
  return true;
}

bool ConfigLine::HasValue(const std::string &key) const {
  return data_.count(key) != 0;
}

bool ConfigLine::GetValue(const std::string &key, std::string *value) {
  auto it = data_.find(key);
  if (it == data_.end()) return false;
  *value = it->second.first;
  it->second.second = true;
  return true;
}

bool ConfigLine::GetValue(const std::string &key, BaseFloat *value) {
  auto it = data_.find(key);
  if (it == data_.end()) return false;
  if (!ConvertStringToReal(it->second.first, value))
    NNET3_ERR << "Bad value for " << key << ": expected a number, got '"
              << it->second.first << "' in config line: " << whole_line_;
  it->second.second = true;
  return true;
}

bool ConfigLine::GetValue(const std::string &key, int32 *value) {
  auto it = data_.find(key);
  if (it == data_.end()) return false;
  if (!ConvertStringToInteger(it->second.first, value))
    NNET3_ERR << "Bad value for " << key << ": expected an integer, got '"
              << it->second.first << "' in config line: " << whole_line_;
  it->second.second = true;
  return true;
}

bool ConfigLine::GetValue(const std::string &key, std::vector<int32> *value) {
  auto it = data_.find(key);
  if (it == data_.end()) return false;
  value->clear();
  const std::string &s = it->second.first;
  if (!s.empty() && !SplitStringToIntegers(s, ":,", true, value))
    NNET3_ERR << "Bad value for " << key
              << ": expected integers separated by ':' or ',', got '" << s
              << "' in config line: " << whole_line_;
  it->second.second = true;
  return true;
}

bool ConfigLine::GetValue(const std::string &key, bool *value) {
  auto it = data_.find(key);
  if (it == data_.end()) return false;
  const std::string &s = it->second.first;
  if (s == "true" || s == "t" || s == "T" || s == "1" || s == "True") {
    *value = true;
  } else if (s == "false" || s == "f" || s == "F" || s == "0" ||
             s == "False") {
    *value = false;
  } else {
    NNET3_ERR << "Bad value for " << key << ": expected true or false, got '"
              << s << "' in config line: " << whole_line_;
  }
  it->second.second = true;
  return true;
}

bool ConfigLine::HasUnusedValues() const {
  for (const auto &kv : data_)
    if (!kv.second.second) return true;
  return false;
}

std::string ConfigLine::UnusedValues() const {
  std::string out;
  for (const auto &kv : data_) {
    if (kv.second.second) continue;
    if (!out.empty()) out += ' ';
    out += kv.first + "=" + kv.second.first;
  }
  return out;
}

void ReadConfigLines(std::istream &is,
                     std::vector<std::pair<int32, std::string> > *lines) {
  lines->clear();
  std::string line;
  int32 number = 0;
  while (std::getline(is, line)) {
    number++;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    Trim(&line);
    if (!line.empty()) lines->emplace_back(number, line);
  }
  if (is.bad()) NNET3_ERR << "Error reading config lines";
}

}  // namespace nnet3
