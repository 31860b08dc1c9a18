// util/table-writer.h
// TableWriter<Holder>: writes (key, object) pairs to a wspecifier.
//
//   Int32VectorWriter writer("ark,scp:ali.ark,ali.scp");
//   writer.Write("utt1", alignment);
//
//   ark:x          an archive: "key " then the object (the holder writes
//                  the "\0B" header itself in binary mode);
//   ark,scp:x,y    the archive x plus a script y with one line per object,
//                  "key x:offset", offset being the byte position just
//                  after "key " (x is written as given; it must be a
//                  seekable file);
//   scp:y          reads the script y and writes each key's object to the
//                  wxfilename y names for it (a key not in y is an error,
//                  or silently skipped with the p option).
// Options: b (binary, the default) / t (text), f / nf (flush after every
// object), p (permissive, see scp).
// Errors are UserErrors naming the key and the file: an invalid key, a
// holder failure, a failed write. Close() throws if closing fails (for
// example a pipe command exiting non-zero); the destructor closes a writer
// left open, and throws the same way. When an exception is propagating,
// the destructor discards the output instead.
// Crash safety: archive and script files are written through temporaries
// (see util/stream.h) and appear under their names only at Close(), so a
// killed or failed tool leaves the old files or the complete new ones. For
// ark,scp, Close() first finishes both temporaries, then removes the old
// script, renames the archive, and renames the script last: a script on
// disk always matches the archive beside it (a kill in the instant between
// the renames leaves the script missing, never stale). The script names
// the archive by its final name; offsets are those in the temporary, which
// is the same file.
// A writer owned through std::unique_ptr or kept in a container should be
// closed explicitly: those destructors cannot pass an exception on.
#ifndef NNET3_UTIL_TABLE_WRITER_H_
#define NNET3_UTIL_TABLE_WRITER_H_

#include <algorithm>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "util/stream.h"
#include "util/table-common.h"
#include "util/table-spec.h"
#include "util/text.h"

namespace nnet3 {

namespace internal {

template <class Holder>
class TableWriterImpl {
 public:
  // Members (Output) may throw from their destructors when closing fails.
  virtual ~TableWriterImpl() noexcept(false) {}
  virtual void Write(const std::string &key,
                     const typename Holder::T &value) = 0;
  virtual void Flush() = 0;
  // Throws (NNET3_ERR) on failure.
  virtual void Close() = 0;
};

// "ark:x" and "ark,scp:x,y".
template <class Holder>
class ArchiveTableWriter : public TableWriterImpl<Holder> {
 public:
  ArchiveTableWriter(const std::string &archive_wxfilename,
                     const std::string &script_wxfilename,
                     const WspecifierOptions &opts)
      : archive_wxfilename_(archive_wxfilename),
        name_(PrintableWxfilename(archive_wxfilename)),
        script_name_(PrintableWxfilename(script_wxfilename)),
        with_script_(!script_wxfilename.empty()), opts_(opts) {
    archive_.Open(archive_wxfilename, opts.binary, false);
    if (with_script_) script_.Open(script_wxfilename, false, false);
  }

  void Write(const std::string &key,
             const typename Holder::T &value) override {
    std::ostream &os = archive_.Stream();
    os << key << ' ';
    long long offset = -1;
    if (with_script_) {
      offset = static_cast<long long>(os.tellp());
      if (offset < 0)
        ThrowUserError("Cannot get the write position in archive " + name_ +
                       " for key " + key + " (an ark,scp wspecifier needs "
                       "the archive to be a regular file)");
    }
    try {
      Holder::Write(os, opts_.binary, value);
    } catch (const UserError &e) {
      ThrowUserError("Failed to write object for key " + key +
                     " to archive " + name_ + ": " + e.message());
    }
    if (os.fail())
      ThrowUserError("Write error for key " + key + " to archive " + name_);
    if (with_script_) {
      std::ostream &script = script_.Stream();
      script << key << ' ' << archive_wxfilename_ << ':' << offset << '\n';
      if (script.fail())
        ThrowUserError("Write error for key " + key + " to script file " +
                       script_name_);
    }
    if (opts_.flush) Flush();
  }

  void Flush() override {
    archive_.Stream().flush();
    if (with_script_) script_.Stream().flush();
    if (archive_.Stream().fail())
      ThrowUserError("Write error flushing archive " + name_);
  }

  void Close() override {
    // On a throw, the destructors of archive_ and script_ run during the
    // unwinding and remove what is left of the temporaries.
    bool ok = archive_.Finish();
    if (with_script_) ok = script_.Finish() && ok;
    if (!ok) {
      archive_.Abort();
      script_.Abort();
      NNET3_ERR << "Error closing archive " << name_
                << (with_script_ ? " or script file " + script_name_ : "")
                << " (a pipe command failed)";
    }
    if (with_script_) Output::CommitTogether(&archive_, &script_);
    else archive_.Commit();
  }

 private:
  std::string archive_wxfilename_;
  std::string name_;
  std::string script_name_;
  bool with_script_;
  WspecifierOptions opts_;
  Output archive_;
  Output script_;
};

// "scp:y": one output per key, where the script says.
template <class Holder>
class ScriptTableWriter : public TableWriterImpl<Holder> {
 public:
  ScriptTableWriter(const std::string &wspecifier,
                    const std::string &script_rxfilename,
                    const WspecifierOptions &opts)
      : wspecifier_(wspecifier),
        name_(PrintableRxfilename(script_rxfilename)), opts_(opts) {
    ReadScriptFile(script_rxfilename, &script_);
    std::stable_sort(script_.begin(), script_.end(),
                     [](const ScriptEntry &a, const ScriptEntry &b) {
                       return a.key < b.key;
                     });
    for (size_t i = 0; i < script_.size(); i++) {
      if (i > 0 && script_[i - 1].key == script_[i].key)
        ThrowUserError("Duplicate key " + script_[i].key +
                       " in script file " + name_);
      if (!script_[i].range.empty())
        ThrowUserError("Range specifier [" + script_[i].range +
                       "] for key " + script_[i].key + " in script file " +
                       name_ + ": ranges cannot be written");
    }
  }

  void Write(const std::string &key,
             const typename Holder::T &value) override {
    auto it = std::lower_bound(
        script_.begin(), script_.end(), key,
        [](const ScriptEntry &e, const std::string &k) { return e.key < k; });
    if (it == script_.end() || it->key != key) {
      if (opts_.permissive) return;
      ThrowUserError("Key " + key + " is not in script file " + name_ +
                     " (wspecifier '" + wspecifier_ + "')");
    }
    const std::string &wxfilename = it->rxfilename;
    try {
      Output output(wxfilename, opts_.binary, false);
      Holder::Write(output.Stream(), opts_.binary, value);
      if (!output.Close())
        ThrowUserError("the pipe command failed");
    } catch (const UserError &e) {
      ThrowUserError("Failed to write object for key " + key + " to " +
                     PrintableWxfilename(wxfilename) + " (script file " +
                     name_ + "): " + e.message());
    }
  }

  void Flush() override {}
  void Close() override {}

 private:
  std::string wspecifier_;
  std::string name_;
  WspecifierOptions opts_;
  std::vector<ScriptEntry> script_;  // Sorted by key.
};

}  // namespace internal

template <class Holder>
class TableWriter {
 public:
  typedef typename Holder::T T;

  TableWriter() {}
  // Opens unless wspecifier is "" (then it stays closed). Throws on error.
  explicit TableWriter(const std::string &wspecifier) {
    if (!wspecifier.empty()) Open(wspecifier);
  }
  TableWriter(const TableWriter &) = delete;
  TableWriter &operator=(const TableWriter &) = delete;

  // Throws UserError on a bad wspecifier or a file that cannot be opened.
  bool Open(const std::string &wspecifier) {
    if (IsOpen()) Close();
    std::string archive_wxfilename, script_wxfilename;
    WspecifierOptions opts;
    WspecifierType type = ClassifyWspecifier(wspecifier, &archive_wxfilename,
                                             &script_wxfilename, &opts);
    if (type == kNoWspecifier)
      NNET3_ERR << "Invalid wspecifier '" << wspecifier
                << "' (expected ark:..., scp:... or ark,scp:...)";
    try {
      switch (type) {
        case kNoWspecifier:
          break;
        case kArchiveWspecifier:
          impl_.reset(new internal::ArchiveTableWriter<Holder>(
              archive_wxfilename, "", opts));
          break;
        case kBothWspecifier:
          if (script_wxfilename.empty())
            NNET3_ERR << "empty script filename";
          impl_.reset(new internal::ArchiveTableWriter<Holder>(
              archive_wxfilename, script_wxfilename, opts));
          break;
        case kScriptWspecifier:
          impl_.reset(new internal::ScriptTableWriter<Holder>(
              wspecifier, script_wxfilename, opts));
          break;
      }
    } catch (const UserError &e) {
      NNET3_ERR << "Error opening wspecifier '" << wspecifier
                << "': " << e.message();
    }
    wspecifier_ = wspecifier;
    exceptions_at_open_ = std::uncaught_exceptions();
    return true;
  }

  bool IsOpen() const { return impl_ != nullptr; }

  // Throws UserError on an invalid key or a failed write.
  void Write(const std::string &key, const T &value) const {
    NNET3_ASSERT(impl_ != nullptr && "TableWriter is not open");
    if (!IsToken(key))
      NNET3_ERR << "Invalid key '" << PrintableString(key)
                << "' written to wspecifier '" << wspecifier_
                << "' (keys must be non-empty, without white space)";
    impl_->Write(key, value);
  }

  void Flush() {
    NNET3_ASSERT(impl_ != nullptr && "TableWriter is not open");
    impl_->Flush();
  }

  // Throws UserError if closing fails; returns true.
  bool Close() {
    if (!impl_) return true;
    std::unique_ptr<internal::TableWriterImpl<Holder> > impl(
        std::move(impl_));
    impl->Close();
    return true;
  }

  // Discards the output (see the top) when an exception is propagating.
  ~TableWriter() noexcept(false) {
    if (std::uncaught_exceptions() > exceptions_at_open_) impl_.reset();
    else Close();
  }

 private:
  std::string wspecifier_;
  int exceptions_at_open_ = 0;
  std::unique_ptr<internal::TableWriterImpl<Holder> > impl_;
};

}  // namespace nnet3

#endif  // NNET3_UTIL_TABLE_WRITER_H_
