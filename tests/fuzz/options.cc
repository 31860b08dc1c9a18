// tests/fuzz/options.cc
// Fuzz target: ParseOptions (util/options.h), the command-line and
// --config=FILE parser of every tool. A ParseOptions with options of every
// type, a prefixed group, and the option structs of nnet3-compute
// (NnetSimpleComputationOptions, which registers the optimization.* and
// compiler.* groups) reads a fuzzed command line; then the tool's use of
// the result: positional arguments, and the printed configuration.
//
// Input layout: the command line up to the first NUL byte, one argument
// per line (argv[0] is fixed); after the NUL, the contents of the file "c"
// in the scratch folder, which the command line may name with --config=c.
// Inputs whose command line contains '/' or '|' are skipped (config files
// are read from the scratch folder only), and so are those asking for
// --help, which prints the usage and exits as it should.
#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz-common.h"
#include "nnet3/compute/decodable-simple.h"
#include "util/options.h"

namespace {

// True if arg is --help (ParseOptions ignores case and reads '_' as '-').
bool AsksForHelp(const std::string &arg) {
  if (arg.compare(0, 2, "--") != 0) return false;
  size_t equal = arg.find('=');
  std::string key =
      arg.substr(2, equal == std::string::npos ? equal : equal - 2);
  for (char &c : key)
    c = c == '_' ? '-'
                 : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key == "help";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace nnet3;
  std::string input(reinterpret_cast<const char *>(data), size);
  size_t nul = input.find('\0');
  std::string command_line = input.substr(0, nul);
  std::string config =
      nul == std::string::npos ? std::string() : input.substr(nul + 1);
  if (fuzz::Contains(command_line, '/') || fuzz::Contains(command_line, '|'))
    return 0;
  std::vector<std::string> args = {"fuzz-options"};
  std::istringstream lines(command_line);
  for (std::string line; std::getline(lines, line);) {
    if (AsksForHelp(line)) return 0;
    args.push_back(line);
  }
  std::vector<const char *> argv;
  for (const std::string &arg : args) argv.push_back(arg.c_str());
  argv.push_back(nullptr);

  fuzz::Guarded("options", [&]() {
    fuzz::WriteScratchFile("c", config);
    fuzz::ScopedQuiet quiet;
    ParseOptions po("Usage: fuzz-options [options] <args>\n");
    bool b = false;
    int32 i = 0;
    uint32 u = 0;
    float f = 0.0f;
    double d = 0.0;
    std::string s;
    po.Register("bool-opt", &b, "a bool");
    po.Register("int-opt", &i, "an int32");
    po.Register("uint-opt", &u, "a uint32");
    po.Register("float-opt", &f, "a float");
    po.Register("double-opt", &d, "a double");
    po.Register("string-opt", &s, "a string");
    bool group_b = true;
    std::string group_s = "x";
    ParseOptions group("group", &po);
    group.Register("flag", &group_b, "a bool in a group");
    group.Register("name", &group_s, "a string in a group");
    NnetSimpleComputationOptions compute_opts;
    compute_opts.Register(&po);
    po.Read(static_cast<int>(args.size()), argv.data());
    for (int n = 1; n <= po.NumArgs(); n++) ParseOptions::Escape(po.GetArg(n));
    po.GetOptArg(po.NumArgs() + 1);
    std::ostringstream os;
    po.PrintConfig(os);
  });
  return 0;
}
