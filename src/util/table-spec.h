// util/table-spec.h
// The non-template half of tables: parsing rspecifiers ("ark:x", "scp:x",
// with options before the colon) and wspecifiers ("ark:x", "scp:x",
// "ark,scp:x.ark,x.scp"), parsing script-file lines ("key rxfilename",
// with an optional trailing range like "[2:5]" or "[1:3,0:4]"), reading an
// archive's keys, and the shared message helpers of readers and writers.
// Rules (Kaldi's): options are separated by commas (a space also splits,
// so an empty field makes the specifier invalid); unknown options, repeated
// "ark"/"scp", "scp,ark" and trailing white space make it kNo*.
// Invariant: the Classify* functions never throw; malformed input is kNo*.
#ifndef NNET3_UTIL_TABLE_SPEC_H_
#define NNET3_UTIL_TABLE_SPEC_H_

#include <istream>
#include <string>
#include <vector>

namespace nnet3 {

enum RspecifierType {
  kNoRspecifier,
  kArchiveRspecifier,
  kScriptRspecifier
};

struct RspecifierOptions {
  bool once = false;           // o / no: each key is asked for once.
  bool sorted = false;         // s / ns: keys in the table are sorted.
  bool called_sorted = false;  // cs / ncs: keys are asked for in order.
  bool permissive = false;     // p / np: unreadable entries are skipped.
  bool background = false;     // bg: read ahead (accepted; reads in line).
};

// b and t are accepted and ignored. *rxfilename is what follows the first
// colon (set only for a valid rspecifier). Either pointer may be null.
RspecifierType ClassifyRspecifier(const std::string &rspecifier,
                                  std::string *rxfilename,
                                  RspecifierOptions *opts);

enum WspecifierType {
  kNoWspecifier,
  kArchiveWspecifier,
  kScriptWspecifier,
  kBothWspecifier
};

struct WspecifierOptions {
  bool binary = true;       // b / t
  bool flush = false;       // f / nf: flush after every object.
  bool permissive = false;  // p: for scp, skip keys not in the script.
};

// For "ark,scp:a,b", *archive_wxfilename = "a", *script_wxfilename = "b"
// (split at the first comma after the colon). Pointers may be null.
WspecifierType ClassifyWspecifier(const std::string &wspecifier,
                                  std::string *archive_wxfilename,
                                  std::string *script_wxfilename,
                                  WspecifierOptions *opts);

// One line of a script file.
struct ScriptEntry {
  std::string key;
  std::string rxfilename;  // Without the range.
  std::string range;       // "2:5" for "foo.ark:12[2:5]"; "" if none.
};

// Splits "foo.ark:12[2:5]" into "foo.ark:12" and "2:5". The input must end
// in ']'; returns false if it is not exactly "name[range]" with both parts
// non-empty.
bool ExtractRangeSpecifier(const std::string &rxfilename_with_range,
                           std::string *data_rxfilename, std::string *range);

// Parses "key rest-of-line" (surrounding white space ignored; the rest may
// contain spaces, as pipes do). Returns false if the key or the rest is
// missing or the range is malformed.
bool ParseScriptLine(const std::string &line, ScriptEntry *entry);

// Reads a whole script file; throws UserError naming the file and line on
// a malformed line.
void ReadScriptFile(const std::string &rxfilename,
                    std::vector<ScriptEntry> *entries);

namespace internal {

// Reads an archive entry's key and the separator after it: one space or tab
// is consumed, a newline is left for the holder. Returns false at a clean
// end of the archive (only white space left). Throws UserError naming
// "archive_name" if the key is followed by the end of the file, by another
// character, or if reading fails.
bool ReadArchiveKey(std::istream &is, const std::string &archive_name,
                    std::string *key);

// Throws UserError with "message", with the usual "ERROR (...)" prefix
// naming the caller. Unlike NNET3_ERR it throws even while another
// exception propagates, so it must not be called from destructors.
[[noreturn]] void ThrowUserError(const std::string &message,
                                 const char *func = __builtin_FUNCTION(),
                                 const char *file = __builtin_FILE(),
                                 int line = __builtin_LINE());

}  // namespace internal

}  // namespace nnet3

#endif  // NNET3_UTIL_TABLE_SPEC_H_
