// util/options.cc
#include "util/options.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "base/log.h"
#include "util/text.h"

namespace nnet3 {

namespace {
// Characters bash leaves alone when they appear in a word.
const char *kShellSafeChars = "[]~#^_-+=:.,/";

bool NeedsQuoting(const std::string &str) {
  if (str.empty()) return true;
  for (char c : str) {
    if (std::isalnum(static_cast<unsigned char>(c))) continue;
    if (c == '\0' || std::strchr(kShellSafeChars, c) == nullptr) return true;
  }
  return false;
}

// Maps a C++ type to the position of its ParseOptions::OptionType.
template <class T> struct OptionTypeOf;
template <> struct OptionTypeOf<bool> { static const int value = 0; };
template <> struct OptionTypeOf<int32> { static const int value = 1; };
template <> struct OptionTypeOf<uint32> { static const int value = 2; };
template <> struct OptionTypeOf<float> { static const int value = 3; };
template <> struct OptionTypeOf<double> { static const int value = 4; };
template <> struct OptionTypeOf<std::string> { static const int value = 5; };
}  // namespace

ParseOptions::ParseOptions(const char *usage) : usage_(usage ? usage : "") {
  verbose_ = GetVerboseLevel();
  RegisterStandard("config", &config_,
                   "Read options from this file, one --name=value per line "
                   "(may be given more than once)");
  RegisterStandard("print-args", &print_args_,
                   "Echo the command line to stderr");
  RegisterStandard("help", &help_, "Print this message and exit");
  RegisterStandard("verbose", &verbose_,
                   "Logging level: VLOG(n) messages with n <= this are "
                   "printed");
}

ParseOptions::ParseOptions(const std::string &prefix, OptionsItf *other)
    : print_args_(false) {
  NNET3_ASSERT(other != nullptr && !prefix.empty());
  ParseOptions *po = dynamic_cast<ParseOptions *>(other);
  if (po != nullptr && po->other_parser_ != nullptr) {
    // A view of a view: register straight into the underlying parser.
    other_parser_ = po->other_parser_;
    prefix_ = po->prefix_ + "." + prefix;
  } else {
    other_parser_ = other;
    prefix_ = prefix;
  }
}

std::string ParseOptions::NormalizeName(const std::string &name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '_') out += '-';
    else out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

void ParseOptions::RegisterCommon(const std::string &name, OptionType type,
                                  void *ptr, const std::string &doc,
                                  bool is_standard) {
  NNET3_ASSERT(ptr != nullptr);
  NNET3_ASSERT(!name.empty() && name.find('=') == std::string::npos);
  std::string key = NormalizeName(name);
  if (options_.count(key) != 0) {
    NNET3_WARN << "Option registered twice, keeping the first: " << name;
    return;
  }
  options_[key] = OptionInfo{name, doc, type, ptr, is_standard};
}

template <class T>
void ParseOptions::RegisterStandard(const std::string &name, T *ptr,
                                    const std::string &doc) {
  RegisterCommon(name, static_cast<OptionType>(OptionTypeOf<T>::value), ptr,
                 doc, true);
}

template <class T>
void ParseOptions::RegisterOrForward(const std::string &name, T *ptr,
                                     const std::string &doc) {
  if (other_parser_ != nullptr) {
    other_parser_->Register(prefix_ + "." + name, ptr, doc);
  } else {
    RegisterCommon(name, static_cast<OptionType>(OptionTypeOf<T>::value),
                   ptr, doc, false);
  }
}

void ParseOptions::Register(const std::string &name, bool *ptr,
                            const std::string &doc) {
  RegisterOrForward(name, ptr, doc);
}
void ParseOptions::Register(const std::string &name, int32 *ptr,
                            const std::string &doc) {
  RegisterOrForward(name, ptr, doc);
}
void ParseOptions::Register(const std::string &name, uint32 *ptr,
                            const std::string &doc) {
  RegisterOrForward(name, ptr, doc);
}
void ParseOptions::Register(const std::string &name, float *ptr,
                            const std::string &doc) {
  RegisterOrForward(name, ptr, doc);
}
void ParseOptions::Register(const std::string &name, double *ptr,
                            const std::string &doc) {
  RegisterOrForward(name, ptr, doc);
}
void ParseOptions::Register(const std::string &name, std::string *ptr,
                            const std::string &doc) {
  RegisterOrForward(name, ptr, doc);
}

void ParseOptions::DisableOption(const std::string &name) {
  NNET3_ASSERT(other_parser_ == nullptr);
  if (options_.erase(NormalizeName(name)) == 0)
    NNET3_ERR << "DisableOption: option --" << name
              << " was never registered";
}

std::string ParseOptions::TypeName(OptionType type) {
  switch (type) {
    case kBool: return "bool";
    case kInt: return "int";
    case kUint: return "uint";
    case kFloat: return "float";
    case kDouble: return "double";
    case kString: return "string";
  }
  return "unknown";
}

std::string ParseOptions::ValueString(const OptionInfo &info) {
  std::ostringstream os;
  switch (info.type) {
    case kBool: os << (*static_cast<bool *>(info.ptr) ? "true" : "false");
      break;
    case kInt: os << *static_cast<int32 *>(info.ptr); break;
    case kUint: os << *static_cast<uint32 *>(info.ptr); break;
    case kFloat: os << *static_cast<float *>(info.ptr); break;
    case kDouble: os << *static_cast<double *>(info.ptr); break;
    case kString: os << *static_cast<std::string *>(info.ptr); break;
  }
  return os.str();
}

void ParseOptions::SplitLongArg(const std::string &arg, std::string *key,
                                std::string *value, bool *has_equal_sign) {
  NNET3_ASSERT(arg.compare(0, 2, "--") == 0);
  size_t pos = arg.find('=');
  if (pos == std::string::npos) {
    *key = arg.substr(2);
    value->clear();
    *has_equal_sign = false;
  } else if (pos == 2) {
    NNET3_ERR << "Invalid option (no name before '='): " << arg;
  } else {
    *key = arg.substr(2, pos - 2);
    *value = arg.substr(pos + 1);
    *has_equal_sign = true;
  }
  if (key->empty()) NNET3_ERR << "Invalid option (no name): " << arg;
}

bool ParseOptions::SetOption(const std::string &key, const std::string &value,
                             bool has_equal_sign) {
  auto it = options_.find(key);
  if (it == options_.end()) return false;
  const OptionInfo &info = it->second;
  bool ok = true;
  switch (info.type) {
    case kBool: {
      if (has_equal_sign && value.empty()) {
        ok = false;
        break;
      }
      std::string lower = value;
      for (char &c : lower)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower.empty() || lower == "true" || lower == "t" || lower == "1")
        *static_cast<bool *>(info.ptr) = true;
      else if (lower == "false" || lower == "f" || lower == "0")
        *static_cast<bool *>(info.ptr) = false;
      else
        ok = false;
      break;
    }
    case kInt: ok = ConvertStringToInteger(value,
                                           static_cast<int32 *>(info.ptr));
      break;
    case kUint: ok = ConvertStringToInteger(value,
                                            static_cast<uint32 *>(info.ptr));
      break;
    case kFloat: ok = ConvertStringToReal(value,
                                          static_cast<float *>(info.ptr));
      break;
    case kDouble: ok = ConvertStringToReal(value,
                                           static_cast<double *>(info.ptr));
      break;
    case kString:
      if (!has_equal_sign)
        NNET3_ERR << "Invalid option --" << key
                  << " (a string option needs a value: --" << key << "=x)";
      *static_cast<std::string *>(info.ptr) = value;
      break;
  }
  if (!ok)
    NNET3_ERR << "Invalid value '" << value << "' for option --" << key
              << " (" << TypeName(info.type) << ")";
  if (key == "verbose") SetVerboseLevel(verbose_);
  return true;
}

void ParseOptions::ReadConfigFile(const std::string &filename) {
  std::ifstream is(filename.c_str());
  if (!is.good()) NNET3_ERR << "Cannot open config file: " << filename;
  std::string line, key, value;
  int line_number = 0;
  while (std::getline(is, line)) {
    line_number++;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.erase(hash);
    Trim(&line);
    if (line.empty()) continue;
    if (line.compare(0, 2, "--") != 0)
      NNET3_ERR << "Config file " << filename << ", line " << line_number
                << ": expected --name=value, got '" << line
                << "' (config files sourced by shell scripts lack the --)";
    bool has_equal_sign;
    try {
      SplitLongArg(line, &key, &value, &has_equal_sign);
      key = NormalizeName(key);
      Trim(&value);
      if (!SetOption(key, value, has_equal_sign))
        NNET3_ERR << "Invalid option " << line;
    } catch (const UserError &e) {
      NNET3_ERR << "Config file " << filename << ", line " << line_number
                << ": " << e.message();
    }
  }
  if (is.bad()) NNET3_ERR << "Error reading config file " << filename;
}

int ParseOptions::Read(int argc, const char *const *argv) {
  NNET3_ASSERT(other_parser_ == nullptr);
  command_line_.assign(argv, argv + argc);
  positional_args_.clear();
  if (argc > 0 && GetProgramName().empty()) SetProgramName(argv[0]);
  std::string key, value;
  bool has_equal_sign;
  int i;
  // First pass: config files and --help, wherever they are.
  for (i = 1; i < argc; i++) {
    if (std::strncmp(argv[i], "--", 2) != 0) continue;
    if (std::strcmp(argv[i], "--") == 0) break;
    SplitLongArg(argv[i], &key, &value, &has_equal_sign);
    key = NormalizeName(key);
    Trim(&value);
    if (key == "config") ReadConfigFile(value);
    if (key == "help") {
      PrintUsage();
      std::exit(0);
    }
  }
  // Second pass: the options on the command line, which override the
  // config files.
  bool double_dash_seen = false;
  for (i = 1; i < argc; i++) {
    if (std::strncmp(argv[i], "--", 2) != 0) break;
    if (std::strcmp(argv[i], "--") == 0) {
      i++;
      double_dash_seen = true;
      break;
    }
    SplitLongArg(argv[i], &key, &value, &has_equal_sign);
    key = NormalizeName(key);
    Trim(&value);
    if (!SetOption(key, value, has_equal_sign)) {
      PrintUsage(true);
      NNET3_ERR << "Invalid option " << argv[i];
    }
  }
  int first_positional = i;
  for (; i < argc; i++) {
    if (std::strcmp(argv[i], "--") == 0 && !double_dash_seen)
      double_dash_seen = true;
    else
      positional_args_.push_back(argv[i]);
  }
  SetVerboseLevel(verbose_);
  if (print_args_) {
    std::ostringstream os;
    for (int j = 0; j < argc; j++) os << Escape(argv[j]) << " ";
    os << '\n';
    std::cerr << os.str() << std::flush;
  }
  return first_positional;
}

void ParseOptions::PrintUsage(bool print_command_line) const {
  std::ostringstream os;
  os << '\n' << usage_ << '\n';
  auto print_option = [&os](const OptionInfo &info) {
    std::string doc = info.doc + " (" + TypeName(info.type) + ", default = ";
    if (info.type == kString) doc += "\"" + ValueString(info) + "\")";
    else doc += ValueString(info) + ")";
    os << "  --" << std::setw(25) << std::left << info.name << " : " << doc
       << '\n';
  };
  bool any_specific = false;
  for (const auto &kv : options_) {
    if (kv.second.is_standard) continue;
    if (!any_specific) os << "Options:\n";
    any_specific = true;
    print_option(kv.second);
  }
  if (any_specific) os << '\n';
  os << "Standard options:\n";
  for (const auto &kv : options_)
    if (kv.second.is_standard) print_option(kv.second);
  os << '\n';
  if (print_command_line) {
    os << "Command line was: ";
    for (const std::string &arg : command_line_) os << Escape(arg) << " ";
    os << '\n';
  }
  std::cerr << os.str() << std::flush;
}

void ParseOptions::PrintConfig(std::ostream &os) const {
  os << "\n[[ Configuration of UI-Registered options ]]\n";
  for (const auto &kv : options_)
    os << kv.second.name << " = " << ValueString(kv.second) << '\n';
  os << '\n';
}

std::string ParseOptions::GetArg(int i) const {
  if (i < 1 || i > NumArgs())
    NNET3_ERR << "ParseOptions::GetArg: invalid index " << i << " (there "
              << (NumArgs() == 1 ? "is " : "are ") << NumArgs()
              << " positional argument" << (NumArgs() == 1 ? "" : "s") << ")";
  return positional_args_[i - 1];
}

std::string ParseOptions::GetOptArg(int i) const {
  if (i < 1) NNET3_ERR << "ParseOptions::GetOptArg: invalid index " << i;
  return i > NumArgs() ? std::string() : positional_args_[i - 1];
}

std::string ParseOptions::Escape(const std::string &str) {
  if (!NeedsQuoting(str)) return str;
  // Single quotes by default ('\'' for a quote inside); double quotes when
  // the string has a single quote and nothing double quotes would expand.
  bool use_double = str.find('\'') != std::string::npos &&
                    str.find_first_of("\"`$\\") == std::string::npos;
  char quote = use_double ? '"' : '\'';
  std::string ans(1, quote);
  for (char c : str) {
    if (c == quote) ans += "'\\''";  // Only reached with single quotes.
    else ans += c;
  }
  ans += quote;
  return ans;
}

}  // namespace nnet3
