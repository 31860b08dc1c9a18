// util/table-spec.cc
#include "util/table-spec.h"

#include <cctype>

#include "base/log.h"
#include "util/stream.h"
#include "util/table-common.h"
#include "util/text.h"

namespace nnet3 {

namespace {
bool EndsInSpace(const std::string &s) {
  return !s.empty() && std::isspace(static_cast<unsigned char>(s.back()));
}
}  // namespace

RspecifierType ClassifyRspecifier(const std::string &rspecifier,
                                  std::string *rxfilename,
                                  RspecifierOptions *opts) {
  if (rxfilename) rxfilename->clear();
  if (opts) *opts = RspecifierOptions();
  size_t colon = rspecifier.find(':');
  if (colon == std::string::npos || EndsInSpace(rspecifier))
    return kNoRspecifier;
  std::vector<std::string> fields;
  SplitStringToVector(rspecifier.substr(0, colon), ", ", false, &fields);
  RspecifierOptions o;
  RspecifierType type = kNoRspecifier;
  for (const std::string &f : fields) {
    if (f == "b" || f == "t") {
      // Accepted so that the same options work for reading and writing.
    } else if (f == "o") { o.once = true;
    } else if (f == "no") { o.once = false;
    } else if (f == "p") { o.permissive = true;
    } else if (f == "np") { o.permissive = false;
    } else if (f == "s") { o.sorted = true;
    } else if (f == "ns") { o.sorted = false;
    } else if (f == "cs") { o.called_sorted = true;
    } else if (f == "ncs") { o.called_sorted = false;
    } else if (f == "bg") { o.background = true;
    } else if (f == "ark" || f == "scp") {
      if (type != kNoRspecifier) return kNoRspecifier;
      type = (f == "ark") ? kArchiveRspecifier : kScriptRspecifier;
    } else {
      return kNoRspecifier;
    }
  }
  if (type == kNoRspecifier) return kNoRspecifier;
  if (rxfilename) *rxfilename = rspecifier.substr(colon + 1);
  if (opts) *opts = o;
  return type;
}

WspecifierType ClassifyWspecifier(const std::string &wspecifier,
                                  std::string *archive_wxfilename,
                                  std::string *script_wxfilename,
                                  WspecifierOptions *opts) {
  if (archive_wxfilename) archive_wxfilename->clear();
  if (script_wxfilename) script_wxfilename->clear();
  if (opts) *opts = WspecifierOptions();
  size_t colon = wspecifier.find(':');
  if (colon == std::string::npos || EndsInSpace(wspecifier))
    return kNoWspecifier;
  std::vector<std::string> fields;
  SplitStringToVector(wspecifier.substr(0, colon), ", ", false, &fields);
  WspecifierOptions o;
  WspecifierType type = kNoWspecifier;
  for (const std::string &f : fields) {
    if (f == "b") { o.binary = true;
    } else if (f == "t") { o.binary = false;
    } else if (f == "f") { o.flush = true;
    } else if (f == "nf") { o.flush = false;
    } else if (f == "p") { o.permissive = true;
    } else if (f == "ark") {
      if (type != kNoWspecifier) return kNoWspecifier;
      type = kArchiveWspecifier;
    } else if (f == "scp") {
      if (type == kNoWspecifier) type = kScriptWspecifier;
      else if (type == kArchiveWspecifier) type = kBothWspecifier;
      else return kNoWspecifier;
    } else {
      return kNoWspecifier;
    }
  }
  std::string after = wspecifier.substr(colon + 1);
  switch (type) {
    case kNoWspecifier:
      return kNoWspecifier;
    case kArchiveWspecifier:
      if (archive_wxfilename) *archive_wxfilename = after;
      break;
    case kScriptWspecifier:
      if (script_wxfilename) *script_wxfilename = after;
      break;
    case kBothWspecifier: {
      size_t comma = after.find(',');
      if (comma == std::string::npos) return kNoWspecifier;
      if (archive_wxfilename) *archive_wxfilename = after.substr(0, comma);
      if (script_wxfilename) *script_wxfilename = after.substr(comma + 1);
      break;
    }
  }
  if (opts) *opts = o;
  return type;
}

bool ExtractRangeSpecifier(const std::string &rxfilename_with_range,
                           std::string *data_rxfilename, std::string *range) {
  NNET3_ASSERT(!rxfilename_with_range.empty() &&
               rxfilename_with_range.back() == ']');
  size_t open = rxfilename_with_range.find('[');
  if (open == std::string::npos || open == 0 ||
      rxfilename_with_range.find('[', open + 1) != std::string::npos)
    return false;
  // Between '[' and the final ']' there must be something.
  size_t len = rxfilename_with_range.size() - open - 2;
  if (len == 0) return false;
  *data_rxfilename = rxfilename_with_range.substr(0, open);
  *range = rxfilename_with_range.substr(open + 1, len);
  return true;
}

bool ParseScriptLine(const std::string &line, ScriptEntry *entry) {
  std::string key, rest;
  SplitStringOnFirstSpace(line, &key, &rest);
  if (key.empty() || rest.empty()) return false;
  if (rest.back() == ']') {
    std::string data, range;
    if (!ExtractRangeSpecifier(rest, &data, &range)) return false;
    entry->rxfilename = data;
    entry->range = range;
  } else {
    entry->rxfilename = rest;
    entry->range.clear();
  }
  entry->key = key;
  return true;
}

void ReadScriptFile(const std::string &rxfilename,
                    std::vector<ScriptEntry> *entries) {
  entries->clear();
  Input input;
  input.OpenTextMode(rxfilename);
  std::istream &is = input.Stream();
  std::string line;
  size_t line_number = 0;
  while (std::getline(is, line)) {
    line_number++;
    ScriptEntry entry;
    if (!ParseScriptLine(line, &entry))
      NNET3_ERR << "Invalid line " << line_number << " in script file "
                << PrintableRxfilename(rxfilename) << ": '"
                << PrintableString(line, 200)
                << "' (expected: key rxfilename[range])";
    entries->push_back(std::move(entry));
  }
  if (is.bad())
    NNET3_ERR << "Error reading script file "
              << PrintableRxfilename(rxfilename);
  int32 status = input.Close();
  if (status != 0)
    NNET3_ERR << "Error reading script file "
              << PrintableRxfilename(rxfilename)
              << ": the command exited with status " << status;
}

namespace internal {

bool ReadArchiveKey(std::istream &is, const std::string &archive_name,
                    std::string *key) {
  key->clear();
  int c;
  while ((c = is.peek()) != EOF && std::isspace(c)) is.get();
  if (c == EOF) {
    if (is.bad())
      NNET3_ERR << "Error reading archive " << archive_name
                << " (read failure at file position " << StreamPosition(is)
                << ")";
    return false;
  }
  while ((c = is.peek()) != EOF && !std::isspace(c)) {
    key->push_back(static_cast<char>(c));
    is.get();
  }
  if (c == EOF) {
    if (is.bad())
      NNET3_ERR << "Error reading archive " << archive_name
                << " (read failure after key " << PrintableString(*key)
                << ")";
    NNET3_ERR << "Invalid archive " << archive_name << ": key "
              << PrintableString(*key)
              << " is followed by the end of the file (truncated archive?)";
  }
  if (c == ' ' || c == '\t') {
    is.get();
  } else if (c != '\n') {
    NNET3_ERR << "Invalid archive " << archive_name
              << ": expected a space after key " << PrintableString(*key)
              << ", got " << PrintableString(std::string(1, char(c)))
              << " at file position " << StreamPosition(is);
  }
  return true;
}

std::string ScriptLoadError(const ScriptEntry &entry,
                            const std::string &reason) {
  std::string name = PrintableRxfilename(entry.rxfilename);
  if (!entry.range.empty()) name += "[" + entry.range + "]";
  return "Failed to load object from " + name + " for key " + entry.key +
         " (to suppress this error, add the permissive (p, ) option to the "
         "rspecifier): " + reason;
}

std::string ArchiveReadError(const std::string &key,
                             const std::string &archive, long long position,
                             const std::string &reason) {
  return "Failed to read object for key " + key + " from archive " +
         archive + " (file position " + std::to_string(position) + "): " +
         reason;
}

void ThrowUserError(const std::string &message, const char *func,
                    const char *file, int line) {
  LogLocation loc{func, file, line};
  throw UserError(LogPrefix(static_cast<int>(LogSeverity::kError), loc) +
                      message,
                  message);
}

}  // namespace internal

}  // namespace nnet3
