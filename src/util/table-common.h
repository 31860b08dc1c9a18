// util/table-common.h
// Helpers shared by the table readers and writers (internal to util): read
// a holder and turn every failure into a message, and load one object from
// a script entry's rxfilename. Callers add the key, rspecifier and file to
// the message; nothing here decides whether a failure is fatal.
// Invariant: the Try* functions never throw UserError (internal errors
// still propagate); they return "" on success or the reason for failure.
#ifndef NNET3_UTIL_TABLE_COMMON_H_
#define NNET3_UTIL_TABLE_COMMON_H_

#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "base/log.h"
#include "util/stream.h"
#include "util/table-spec.h"

namespace nnet3 {
namespace internal {

// Reads one object into "holder" from "is".
template <class Holder>
std::string TryReadHolder(Holder *holder, std::istream &is) {
  try {
    if (!holder->Read(is)) return "the holder failed to read the object";
    return std::string();
  } catch (const UserError &e) {
    return e.message();
  } catch (const std::bad_alloc &) {
    return "out of memory (is a size in the file corrupt?)";
  } catch (const std::length_error &) {
    return "impossible size (is the file corrupt?)";
  }
}

// Opens "rxfilename" on "input" (an open "name:offset" of the same file is
// reused: just a seek) and reads one object. Plain files and pipes are
// closed afterwards; a pipe that exits non-zero is a failure.
template <class Holder>
std::string TryLoadObject(Input *input, const std::string &rxfilename,
                          Holder *holder) {
  try {
    input->Open(rxfilename);
  } catch (const UserError &e) {
    return e.message();
  }
  std::string error = TryReadHolder(holder, input->Stream());
  InputType type = input->Type();
  if (type == kFileInput || type == kPipeInput) {
    int32 status = input->Close();
    if (error.empty() && status != 0)
      error = "the command '" + rxfilename + "' exited with status " +
              std::to_string(status);
  }
  return error;
}

// Extracts a range of "full" into "out"; "" or the reason it failed.
template <class Holder>
std::string TryExtractRange(const Holder &full, const std::string &range,
                            Holder *out) {
  try {
    if (!out->ExtractRange(full, range))
      return "invalid range specifier [" + range + "]";
    return std::string();
  } catch (const UserError &e) {
    return e.message();
  }
}

// Loads the object a script entry names into a fresh holder, applying the
// entry's range if it has one. The whole object behind a range is kept, so
// consecutive entries that take ranges of the same file read it only once.
template <class Holder>
class ScriptEntryLoader {
 public:
  // Replaces *out with the entry's object; "" or the reason for failure
  // (then *out is empty).
  std::string Load(const ScriptEntry &entry, std::unique_ptr<Holder> *out) {
    out->reset();
    std::string error;
    if (entry.range.empty()) {
      out->reset(new Holder());
      error = TryLoadObject(&data_input_, entry.rxfilename, out->get());
    } else {
      if (!full_holder_ || full_rxfilename_ != entry.rxfilename) {
        full_holder_.reset(new Holder());
        full_rxfilename_.clear();
        error = TryLoadObject(&data_input_, entry.rxfilename,
                              full_holder_.get());
        if (error.empty()) full_rxfilename_ = entry.rxfilename;
        else full_holder_.reset();
      }
      if (error.empty()) {
        out->reset(new Holder());
        error = TryExtractRange(*full_holder_, entry.range, out->get());
      }
    }
    if (!error.empty()) out->reset();
    return error;
  }
  // Drops the cached whole object.
  void FreeCache() {
    full_holder_.reset();
    full_rxfilename_.clear();
  }
  void Close() { data_input_.Close(); }

 private:
  Input data_input_;                     // Kept open across entries.
  std::string full_rxfilename_;          // What full_holder_ was read from.
  std::unique_ptr<Holder> full_holder_;  // Whole object behind a range.
};

// "Failed to load object from foo.ark:17[0:3] for key m2 (to suppress this
// error, add the permissive (p, ) option to the rspecifier): <reason>"
std::string ScriptLoadError(const ScriptEntry &entry,
                            const std::string &reason);

// "Failed to read object for key k from archive a (file position p): why"
std::string ArchiveReadError(const std::string &key,
                             const std::string &archive, long long position,
                             const std::string &reason);

}  // namespace internal
}  // namespace nnet3

#endif  // NNET3_UTIL_TABLE_COMMON_H_
