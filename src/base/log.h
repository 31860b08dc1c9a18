// base/log.h
// Logging and the two kinds of error, in Kaldi's style.
//
//   NNET3_LOG << "...";      LOG (prog[version]:Func():file.cc:12) ...
//   NNET3_WARN << "...";     WARNING (prog[version]:Func():file.cc:12) ...
//   NNET3_VLOG(2) << "...";  VLOG[2] (...) ..., printed only under --verbose>=2
//   NNET3_ERR << "...";      throws nnet3::UserError (bad input, data or options)
//   NNET3_ASSERT(cond);      throws nnet3::InternalError (a broken invariant)
//
// Errors never abort(): they throw, and the tool's main() (see bin/cli.h)
// prints the one formatted line that the exception carries and exits
// non-zero. Log lines go to stderr, or to a handler installed by tests.
// Invariant: what() of both exception types is the complete, single-line
// message, prefix included, without a trailing newline.
#ifndef NNET3_BASE_LOG_H_
#define NNET3_BASE_LOG_H_

#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace nnet3 {

// Set once from main(); the basename of argv[0] appears in every log line.
void SetProgramName(const char *argv0);
const std::string &GetProgramName();
// The version string printed in log lines ("0.1.0").
const char *GetVersionString();

// Verbosity: messages from NNET3_VLOG(v) are printed if v <= GetVerboseLevel().
int GetVerboseLevel();
void SetVerboseLevel(int level);

// Thrown by NNET3_ERR: the input, data, options or environment are wrong.
class UserError : public std::runtime_error {
 public:
  UserError(const std::string &full_line, const std::string &message)
      : std::runtime_error(full_line), message_(message) {}
  // The message without the "ERROR (prog...)" prefix.
  const std::string &message() const { return message_; }
 private:
  std::string message_;
};

// Thrown by NNET3_ASSERT: the code itself is wrong.
class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string &full_line)
      : std::logic_error(full_line) {}
};

enum class LogSeverity { kError = -2, kWarning = -1, kInfo = 0 };
// Severity >= 1 means VLOG[severity].

struct LogLocation {
  const char *func;
  const char *file;
  int line;
};

// Formats the "KIND (prog[version]:Func():file.cc:12) " prefix.
std::string LogPrefix(int severity, const LogLocation &loc);

// A handler receives complete lines (prefix + message, no newline) of
// severity >= kWarning. The default writes them to stderr.
typedef std::function<void(int severity, const std::string &line)> LogHandler;
// Installs a handler; returns the previous one. Pass nullptr for the default.
LogHandler SetLogHandler(LogHandler handler);

// Collects one message and emits it when destroyed.
class LogMessage {
 public:
  LogMessage(int severity, const char *func, const char *file, int line);
  ~LogMessage() noexcept(false);
  std::ostream &stream() { return stream_; }
 private:
  int severity_;
  LogLocation loc_;
  std::ostringstream stream_;
};

// Used by NNET3_ASSERT.
[[noreturn]] void AssertFailed(const char *cond, const char *func,
                               const char *file, int line);

// Makes "x" printable in a message: control characters escaped, long
// strings cut.
std::string PrintableString(const std::string &s, size_t max_len = 40);

}  // namespace nnet3

#define NNET3_ERR \
  ::nnet3::LogMessage(static_cast<int>(::nnet3::LogSeverity::kError), \
                      __func__, __FILE__, __LINE__).stream()
#define NNET3_WARN \
  ::nnet3::LogMessage(static_cast<int>(::nnet3::LogSeverity::kWarning), \
                      __func__, __FILE__, __LINE__).stream()
#define NNET3_LOG \
  ::nnet3::LogMessage(static_cast<int>(::nnet3::LogSeverity::kInfo), \
                      __func__, __FILE__, __LINE__).stream()
#define NNET3_VLOG(v) \
  if ((v) > ::nnet3::GetVerboseLevel()) {} else \
    ::nnet3::LogMessage((v), __func__, __FILE__, __LINE__).stream()

#define NNET3_ASSERT(cond) \
  do { if (!(cond)) ::nnet3::AssertFailed(#cond, __func__, __FILE__, \
                                          __LINE__); } while (0)

// Internal checks that are too costly for release builds.
#ifdef NDEBUG
#define NNET3_PARANOID_ASSERT(cond) do {} while (0)
#else
#define NNET3_PARANOID_ASSERT(cond) NNET3_ASSERT(cond)
#endif

#endif  // NNET3_BASE_LOG_H_
