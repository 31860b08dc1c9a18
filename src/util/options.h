// util/options.h
// Command-line options in Kaldi's conventions. Option structs in every
// layer have `void Register(OptionsItf *opts)`; a tool creates one
// ParseOptions, lets each struct register into it, then calls Read():
//
//   --name=value      sets an option ("_" and "-" in names are the same,
//                     and names are case-insensitive)
//   --flag            the same as --flag=true (bool options only)
//   --config=FILE     reads "--name=value" lines from FILE ("#" starts a
//                     comment); options given on the command line win
//   --help            prints the usage and every option to stderr, exits 0
//   --print-args      (default true) echoes the command line to stderr
//   --verbose=N       sets the verbose level (nnet3::SetVerboseLevel)
//   --                ends the options; everything after is positional
//
// Options must come before positional arguments. Booleans accept
// true/false, t/f, 1/0 in any case. Every malformed or unknown option is a
// UserError that names it ("Invalid option --foo").
//
// ParseOptions(prefix, other) is a view that registers "--prefix.name" into
// "other" (for --optimization.*, --compiler.* and the like); nesting joins
// the prefixes with dots.
// Invariant: every registered pointer outlives the ParseOptions.
#ifndef NNET3_UTIL_OPTIONS_H_
#define NNET3_UTIL_OPTIONS_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "base/types.h"

namespace nnet3 {

// What an options struct registers into.
class OptionsItf {
 public:
  virtual void Register(const std::string &name, bool *ptr,
                        const std::string &doc) = 0;
  virtual void Register(const std::string &name, int32 *ptr,
                        const std::string &doc) = 0;
  virtual void Register(const std::string &name, uint32 *ptr,
                        const std::string &doc) = 0;
  virtual void Register(const std::string &name, float *ptr,
                        const std::string &doc) = 0;
  virtual void Register(const std::string &name, double *ptr,
                        const std::string &doc) = 0;
  virtual void Register(const std::string &name, std::string *ptr,
                        const std::string &doc) = 0;
  virtual ~OptionsItf() {}
};

class ParseOptions : public OptionsItf {
 public:
  // "usage" is printed by --help and PrintUsage(). Registers the standard
  // options config, help, print-args and verbose.
  explicit ParseOptions(const char *usage);

  // A prefixed view: Register("name", ...) registers "prefix.name" into
  // "other" (which must outlive this object). Read() is not available on a
  // view.
  ParseOptions(const std::string &prefix, OptionsItf *other);

  ParseOptions(const ParseOptions &) = delete;
  ParseOptions &operator=(const ParseOptions &) = delete;
  ~ParseOptions() override {}

  void Register(const std::string &name, bool *ptr,
                const std::string &doc) override;
  void Register(const std::string &name, int32 *ptr,
                const std::string &doc) override;
  void Register(const std::string &name, uint32 *ptr,
                const std::string &doc) override;
  void Register(const std::string &name, float *ptr,
                const std::string &doc) override;
  void Register(const std::string &name, double *ptr,
                const std::string &doc) override;
  void Register(const std::string &name, std::string *ptr,
                const std::string &doc) override;

  // Removes an option registered earlier (so a tool can hide it).
  void DisableOption(const std::string &name);

  // Parses the command line. Returns the index in argv of the first
  // positional argument. Throws UserError on a bad option or value; --help
  // prints the usage and calls exit(0).
  int Read(int argc, const char *const *argv);

  // Reads options from a config file, as --config=FILE does.
  void ReadConfigFile(const std::string &filename);

  // Prints the usage message and the options to stderr; with
  // print_command_line, also the command line that was given.
  void PrintUsage(bool print_command_line = false) const;
  // Prints "name = value" for every option.
  void PrintConfig(std::ostream &os) const;

  // Positional arguments, 1-based.
  int NumArgs() const { return static_cast<int>(positional_args_.size()); }
  // Throws UserError if i is out of range.
  std::string GetArg(int i) const;
  // Returns "" if i > NumArgs().
  std::string GetOptArg(int i) const;

  // Quotes a string, if needed, so that bash would pass it unchanged.
  static std::string Escape(const std::string &str);

 private:
  enum OptionType { kBool, kInt, kUint, kFloat, kDouble, kString };
  struct OptionInfo {
    std::string name;  // As registered (before normalization).
    std::string doc;
    OptionType type;
    void *ptr;
    bool is_standard;
  };

  void RegisterCommon(const std::string &name, OptionType type, void *ptr,
                      const std::string &doc, bool is_standard);
  template <class T>
  void RegisterStandard(const std::string &name, T *ptr,
                        const std::string &doc);
  template <class T>
  void RegisterOrForward(const std::string &name, T *ptr,
                         const std::string &doc);
  static std::string NormalizeName(const std::string &name);
  // Splits "--key=value" / "--key"; "where" names the source in errors.
  static void SplitLongArg(const std::string &arg, std::string *key,
                           std::string *value, bool *has_equal_sign);
  // Returns false if there is no such option; throws on a bad value.
  bool SetOption(const std::string &key, const std::string &value,
                 bool has_equal_sign);
  static std::string TypeName(OptionType type);
  static std::string ValueString(const OptionInfo &info);

  // Standard options.
  std::string config_;
  bool print_args_ = true;
  bool help_ = false;
  int32 verbose_ = 0;

  std::string usage_;
  std::map<std::string, OptionInfo> options_;  // Keyed by normalized name.
  std::vector<std::string> positional_args_;
  std::vector<std::string> command_line_;

  // For a prefixed view.
  std::string prefix_;
  OptionsItf *other_parser_ = nullptr;
};

}  // namespace nnet3

#endif  // NNET3_UTIL_OPTIONS_H_
