// base/log.cc
#include "base/log.h"

#include <atomic>
#include <cstring>
#include <iostream>
#include <mutex>

#ifndef NNET3_VERSION_STRING
#define NNET3_VERSION_STRING "unknown"
#endif

namespace nnet3 {

namespace {
std::string g_program_name;
std::atomic<int> g_verbose_level{0};
std::mutex g_handler_mutex;
LogHandler g_handler;

const char *Basename(const char *path) {
  const char *slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

void Emit(int severity, const std::string &line) {
  LogHandler handler;
  {
    std::lock_guard<std::mutex> lock(g_handler_mutex);
    handler = g_handler;
  }
  if (handler) {
    handler(severity, line);
  } else {
    std::string out = line + "\n";
    std::cerr << out << std::flush;
  }
}
}  // namespace

void SetProgramName(const char *argv0) {
  g_program_name = argv0 ? Basename(argv0) : "";
}
const std::string &GetProgramName() { return g_program_name; }
const char *GetVersionString() { return NNET3_VERSION_STRING; }

int GetVerboseLevel() { return g_verbose_level.load(); }
void SetVerboseLevel(int level) { g_verbose_level.store(level); }

LogHandler SetLogHandler(LogHandler handler) {
  std::lock_guard<std::mutex> lock(g_handler_mutex);
  LogHandler old = g_handler;
  g_handler = std::move(handler);
  return old;
}

std::string LogPrefix(int severity, const LogLocation &loc) {
  std::ostringstream os;
  if (severity == static_cast<int>(LogSeverity::kError)) os << "ERROR";
  else if (severity == static_cast<int>(LogSeverity::kWarning)) os << "WARNING";
  else if (severity == static_cast<int>(LogSeverity::kInfo)) os << "LOG";
  else if (severity < -2) os << "ASSERTION_FAILED";
  else os << "VLOG[" << severity << "]";
  os << " (" << g_program_name << "[" << NNET3_VERSION_STRING << "]:"
     << loc.func << "():" << Basename(loc.file) << ':' << loc.line << ") ";
  return os.str();
}

LogMessage::LogMessage(int severity, const char *func, const char *file,
                       int line)
    : severity_(severity), loc_{func, file, line} {}

LogMessage::~LogMessage() noexcept(false) {
  std::string message = stream_.str();
  // Keep messages on one line: a trailing newline is dropped.
  while (!message.empty() && message.back() == '\n') message.pop_back();
  std::string line = LogPrefix(severity_, loc_) + message;
  if (severity_ == static_cast<int>(LogSeverity::kError)) {
    // Do not throw while another exception is unwinding the stack.
    if (std::uncaught_exceptions() > 0) {
      Emit(severity_, line);
      return;
    }
    throw UserError(line, message);
  }
  Emit(severity_, line);
}

void AssertFailed(const char *cond, const char *func, const char *file,
                  int line) {
  LogLocation loc{func, file, line};
  throw InternalError(LogPrefix(-3, loc) + "internal check failed: " + cond);
}

std::string PrintableString(const std::string &s, size_t max_len) {
  std::string out;
  for (size_t i = 0; i < s.size(); i++) {
    if (out.size() >= max_len) { out += "..."; break; }
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 32 && c < 127) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

}  // namespace nnet3
