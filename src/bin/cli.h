// bin/cli.h
// The shared shell of every command-line tool. RunTool() sets the program
// name used in log lines, runs the tool's body, and turns exceptions into
// one line on stderr and a non-zero exit status:
//   UserError (bad input, options, files)  -> the ERROR line, exit 1
//   InternalError (a broken invariant)     -> the ASSERTION_FAILED line, exit 2
//   std::bad_alloc, std::length_error      -> an ERROR line, exit 1 (a size
//                                             read from a file is bounded
//                                             first, see docs/io.md; this
//                                             is the last resort)
//   other exceptions                       -> an ERROR line, exit 1
// SIGPIPE is ignored, so writing to a pipe whose reader has gone is a write
// error reported like any other. Tools never call exit() or abort().
#ifndef NNET3_BIN_CLI_H_
#define NNET3_BIN_CLI_H_

#include <string>

#include "util/options.h"

namespace nnet3 {

// Runs body(argc, argv). Name the body after the tool (CopyFeats): the name
// appears in its log lines.
int RunTool(int argc, char *argv[], int (*body)(int, char *[]));

// Prints the usage and returns the exit status for "wrong arguments" (1).
int UsageError(const ParseOptions &po);

// For tools that take either tables or single files: true if "in" is an
// rspecifier and "out" a wspecifier, false if both are plain file names;
// mixing the two is a UserError naming both.
bool TablesNotFiles(const std::string &in, const std::string &out);

}  // namespace nnet3

#endif  // NNET3_BIN_CLI_H_
