// util/sequential-reader.h
// SequentialTableReader<Holder>: reads a table in order from "ark:..." or
// "scp:..." rspecifiers.
//
//   SequentialInt32VectorReader reader("ark:ali.ark");
//   for (; !reader.Done(); reader.Next()) use(reader.Key(), reader.Value());
//
// Archives: objects are read eagerly in Next(). A clean end of file between
// objects ends the table; anything else (a key at the end of the file, a
// truncated or corrupt object, a pipe whose command fails) throws a
// UserError naming the key and the archive, unless the rspecifier has the
// permissive option "p", in which case it warns and ends the table there.
// Scripts: the script is read line by line and each object is loaded when
// Value() is first called (so a tool that only needs keys opens nothing);
// with "p", objects are loaded in Next() and unreadable ones are skipped
// with a warning. Consecutive entries with ranges of the same file load the
// file once. Options o, s, cs, bg are accepted and change nothing here.
// Invariant: Key() and Value() are valid between Next() calls while !Done().
// The impl constructors only open files; Open() then calls Next() once.
#ifndef NNET3_UTIL_SEQUENTIAL_READER_H_
#define NNET3_UTIL_SEQUENTIAL_READER_H_

#include <memory>
#include <string>

#include "base/log.h"
#include "util/stream.h"
#include "util/table-common.h"
#include "util/table-spec.h"

namespace nnet3 {

namespace internal {

template <class Holder>
class SequentialReaderImpl {
 public:
  virtual ~SequentialReaderImpl() {}
  virtual bool Done() const = 0;
  virtual const std::string &Key() const = 0;
  virtual typename Holder::T &Value() = 0;
  virtual void FreeCurrent() = 0;
  virtual void Next() = 0;
  // Returns false if the table ended with an error that was not thrown.
  virtual bool Close() = 0;
};

template <class Holder>
class SequentialArchiveReader : public SequentialReaderImpl<Holder> {
 public:
  SequentialArchiveReader(const std::string &rxfilename,
                          const RspecifierOptions &opts)
      : name_(PrintableRxfilename(rxfilename)), opts_(opts) {
    input_.OpenTextMode(rxfilename);
  }
  bool Done() const override { return state_ == kEnd || state_ == kError; }
  const std::string &Key() const override {
    NNET3_ASSERT(!Done());
    return key_;
  }
  typename Holder::T &Value() override {
    NNET3_ASSERT(!Done());
    if (state_ == kFreed)
      NNET3_ERR << "SequentialTableReader: Value() called after "
                << "FreeCurrent() for key " << key_ << " in archive "
                << name_;
    return holder_.Value();
  }
  void FreeCurrent() override {
    if (state_ == kHaveObject) {
      holder_.Clear();
      state_ = kFreed;
    }
  }
  void Next() override {
    NNET3_ASSERT(!Done() || state_ == kStart);
    holder_.Clear();
    std::istream &is = input_.Stream();
    bool got_key;
    try {
      got_key = ReadArchiveKey(is, name_, &key_);
    } catch (const UserError &e) {
      Fail(e.message());
      return;
    }
    if (!got_key) {
      state_ = kEnd;
      if (input_.Type() == kPipeInput) {
        int32 status = input_.Close();
        if (status != 0)
          Fail("Error reading archive from pipe '" + name_ +
               "': the command exited with status " + std::to_string(status));
      }
      return;
    }
    long long position = StreamPosition(is);
    std::string error = TryReadHolder(&holder_, is);
    if (!error.empty()) {
      Fail(ArchiveReadError(key_, name_, position, error));
      return;
    }
    state_ = kHaveObject;
  }
  bool Close() override {
    input_.Close();
    bool ok = state_ != kError;
    state_ = kEnd;
    return ok;
  }

 private:
  void Fail(const std::string &message) {
    holder_.Clear();
    if (opts_.permissive) {
      NNET3_WARN << message << " (ignored: permissive mode; the table ends "
                 << "here)";
      state_ = kEnd;
      return;
    }
    state_ = kError;
    ThrowUserError(message);
  }

  enum State { kStart, kHaveObject, kFreed, kEnd, kError };
  Input input_;
  std::string name_;
  RspecifierOptions opts_;
  State state_ = kStart;
  std::string key_;
  Holder holder_;
};

template <class Holder>
class SequentialScriptReader : public SequentialReaderImpl<Holder> {
 public:
  SequentialScriptReader(const std::string &rxfilename,
                         const RspecifierOptions &opts)
      : script_rxfilename_(rxfilename),
        name_(PrintableRxfilename(rxfilename)), opts_(opts) {
    script_input_.OpenTextMode(rxfilename);
  }
  bool Done() const override { return done_; }
  const std::string &Key() const override {
    NNET3_ASSERT(!done_);
    return entry_.key;
  }
  typename Holder::T &Value() override {
    NNET3_ASSERT(!done_);
    if (freed_)
      NNET3_ERR << "SequentialTableReader: Value() called after "
                << "FreeCurrent() for key " << entry_.key;
    if (!holder_) {
      std::string error = Load();
      if (!error.empty()) ThrowUserError(ScriptLoadError(entry_, error));
    }
    return holder_->Value();
  }
  void FreeCurrent() override {
    holder_.reset();
    loader_.FreeCache();
    freed_ = true;
  }
  void Next() override {
    NNET3_ASSERT(!done_);
    while (true) {
      holder_.reset();
      freed_ = false;
      if (!ReadScriptLine()) {
        done_ = true;
        loader_.Close();
        return;
      }
      if (!opts_.permissive) return;
      std::string error = Load();
      if (error.empty()) return;
      NNET3_WARN << "Skipping key " << entry_.key << " of script file "
                 << name_ << " (permissive mode): failed to load "
                 << PrintableRxfilename(entry_.rxfilename) << ": " << error;
    }
  }
  bool Close() override {
    loader_.Close();
    script_input_.Close();
    done_ = true;
    return true;
  }

 private:
  // Reads and parses the next line; false at the end of the script.
  bool ReadScriptLine() {
    std::istream &is = script_input_.Stream();
    std::string line;
    if (!std::getline(is, line)) {
      if (is.bad())
        ThrowUserError("Error reading script file " + name_);
      if (script_input_.Type() == kPipeInput) {
        int32 status = script_input_.Close();
        if (status != 0)
          ThrowUserError("Error reading script file " + name_ +
                         ": the command exited with status " +
                         std::to_string(status));
      }
      return false;
    }
    line_number_++;
    if (!ParseScriptLine(line, &entry_))
      ThrowUserError("Invalid line " + std::to_string(line_number_) +
                     " in script file " + name_ + ": '" +
                     PrintableString(line, 200) +
                     "' (expected: key rxfilename[range])");
    return true;
  }
  // Loads the current entry's object into holder_; "" or the reason.
  std::string Load() { return loader_.Load(entry_, &holder_); }

  Input script_input_;
  std::string script_rxfilename_;
  std::string name_;
  RspecifierOptions opts_;
  size_t line_number_ = 0;
  bool done_ = false;
  bool freed_ = false;
  ScriptEntry entry_;
  std::unique_ptr<Holder> holder_;  // The current object, if loaded.
  ScriptEntryLoader<Holder> loader_;
};

}  // namespace internal

template <class Holder>
class SequentialTableReader {
 public:
  typedef typename Holder::T T;

  SequentialTableReader() {}
  // Opens unless rspecifier is "" (then it stays closed). Throws on error.
  explicit SequentialTableReader(const std::string &rspecifier) {
    if (!rspecifier.empty()) Open(rspecifier);
  }
  SequentialTableReader(const SequentialTableReader &) = delete;
  SequentialTableReader &operator=(const SequentialTableReader &) = delete;

  // Throws UserError on a bad rspecifier or an unreadable file; reads the
  // first object. Returns true.
  bool Open(const std::string &rspecifier) {
    if (IsOpen()) Close();
    std::string rxfilename;
    RspecifierOptions opts;
    RspecifierType type = ClassifyRspecifier(rspecifier, &rxfilename, &opts);
    if (type == kNoRspecifier)
      NNET3_ERR << "Invalid rspecifier '" << rspecifier
                << "' (expected ark:... or scp:...)";
    try {
      if (type == kArchiveRspecifier)
        impl_.reset(
            new internal::SequentialArchiveReader<Holder>(rxfilename, opts));
      else
        impl_.reset(
            new internal::SequentialScriptReader<Holder>(rxfilename, opts));
    } catch (const UserError &e) {
      NNET3_ERR << "Error opening rspecifier '" << rspecifier
                << "': " << e.message();
    }
    impl_->Next();  // Reads the first entry.
    return true;
  }
  bool IsOpen() const { return impl_ != nullptr; }
  bool Done() const {
    CheckOpen();
    return impl_->Done();
  }
  // Valid until Next().
  const std::string &Key() const {
    CheckOpen();
    return impl_->Key();
  }
  T &Value() {
    CheckOpen();
    return impl_->Value();
  }
  // Frees the current object's memory (Value() may not be called after).
  void FreeCurrent() {
    CheckOpen();
    impl_->FreeCurrent();
  }
  void Next() {
    CheckOpen();
    impl_->Next();
  }
  // Returns false if the table ended with an error (only possible where
  // errors were not thrown).
  bool Close() {
    if (!impl_) return true;
    bool ok = impl_->Close();
    impl_.reset();
    return ok;
  }
  ~SequentialTableReader() { Close(); }

 private:
  void CheckOpen() const {
    NNET3_ASSERT(impl_ != nullptr && "SequentialTableReader is not open");
  }
  std::unique_ptr<internal::SequentialReaderImpl<Holder> > impl_;
};

}  // namespace nnet3

#endif  // NNET3_UTIL_SEQUENTIAL_READER_H_
