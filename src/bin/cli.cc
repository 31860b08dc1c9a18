// bin/cli.cc
#include "bin/cli.h"

#include <csignal>
#include <iostream>
#include <new>
#include <stdexcept>

#include "base/log.h"
#include "util/table-spec.h"

namespace nnet3 {

int RunTool(int argc, char *argv[], int (*body)(int, char *[])) {
  SetProgramName(argv[0]);
  // A closed output pipe becomes a write error with a message (EPIPE)
  // rather than a silent death by SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  try {
    int status = body(argc, argv);
    std::cout.flush();
    if (!std::cout.good()) {
      std::cerr << "ERROR (" << GetProgramName() << "[" << GetVersionString()
                << "]) failed to write to standard output\n";
      return 1;
    }
    return status;
  } catch (const UserError &e) {
    std::cerr << e.what() << '\n';
    return 1;
  } catch (const InternalError &e) {
    std::cerr << e.what() << '\n';
    return 2;
  } catch (const std::bad_alloc &) {
    std::cerr << "ERROR (" << GetProgramName() << "[" << GetVersionString()
              << "]) out of memory (is a size in the input corrupt?)\n";
    return 1;
  } catch (const std::length_error &e) {
    std::cerr << "ERROR (" << GetProgramName() << "[" << GetVersionString()
              << "]) impossible size (is a size in the input corrupt?): "
              << e.what() << '\n';
    return 1;
  } catch (const std::exception &e) {
    std::cerr << "ERROR (" << GetProgramName() << "[" << GetVersionString()
              << "]) " << e.what() << '\n';
    return 1;
  }
}

int UsageError(const ParseOptions &po) {
  po.PrintUsage();
  return 1;
}

bool TablesNotFiles(const std::string &in, const std::string &out) {
  bool in_table = ClassifyRspecifier(in, nullptr, nullptr) != kNoRspecifier;
  bool out_table =
      ClassifyWspecifier(out, nullptr, nullptr, nullptr) != kNoWspecifier;
  if (in_table != out_table)
    NNET3_ERR << "Cannot mix tables and single files: input '" << in
              << "' is " << (in_table ? "a table" : "a file") << ", output '"
              << out << "' is " << (out_table ? "a table" : "a file");
  return in_table;
}

}  // namespace nnet3
