// util/random-access-reader.h
// RandomAccessTableReader<Holder>: looks objects up by key.
//
//   RandomAccessPosteriorReader post_reader("ark:post.ark");
//   if (post_reader.HasKey(key)) use(post_reader.Value(key));
//
// Scripts ("scp:x") are read whole into memory and sorted (with "s" they
// must already be sorted); lookups are binary searches and the object is
// loaded when asked for. Without "p", HasKey() only consults the script and
// a failing load in Value() throws; with "p", HasKey() loads the object and
// answers false (after a warning) if that fails.
// Archives ("ark:x") are read forward only as far as needed; every object
// read is kept in memory until it can be known never to be asked for again:
//   (none)  unsorted: a missing key reads to the end of the archive;
//   s       sorted archive: reading stops at the first larger key, and keys
//           are checked to be in strictly increasing order;
//   s,cs    also asked for in sorted order: objects before the key asked
//           for are freed (asking out of order is an error);
//   o       each key asked for once: its object is freed when another key
//           is asked for.
// Errors (unreadable objects, truncated archives, duplicate or unsorted
// keys) throw UserError naming the key and file; with "p", an archive read
// error warns and ends the archive instead.
// RandomAccessTableReaderMapped looks keys up through a map such as
// utt2spk (per-speaker objects asked for by utterance).
// Invariant: the reference Value() returns stays valid until the next call
// of HasKey() or Value() (for a different key, with "o" or "cs").
#ifndef NNET3_UTIL_RANDOM_ACCESS_READER_H_
#define NNET3_UTIL_RANDOM_ACCESS_READER_H_

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "util/holders.h"
#include "util/stream.h"
#include "util/table-common.h"
#include "util/table-spec.h"
#include "util/text.h"

namespace nnet3 {

namespace internal {

template <class Holder>
class RandomAccessReaderImpl {
 public:
  virtual ~RandomAccessReaderImpl() {}
  virtual bool HasKey(const std::string &key) = 0;
  virtual const typename Holder::T &Value(const std::string &key) = 0;
  virtual bool Close() = 0;
};

template <class Holder>
class RandomAccessScriptReader : public RandomAccessReaderImpl<Holder> {
 public:
  RandomAccessScriptReader(const std::string &rspecifier,
                           const std::string &rxfilename,
                           const RspecifierOptions &opts)
      : rspecifier_(rspecifier), name_(PrintableRxfilename(rxfilename)),
        opts_(opts) {
    ReadScriptFile(rxfilename, &script_);
    auto less = [](const ScriptEntry &a, const ScriptEntry &b) {
      return a.key < b.key;
    };
    if (opts_.sorted) {
      for (size_t i = 1; i < script_.size(); i++)
        if (script_[i].key < script_[i - 1].key)
          ThrowUserError("Script file " + name_ + " is not sorted (key " +
                         script_[i].key + " after " + script_[i - 1].key +
                         ") but the rspecifier has the s option");
    } else {
      std::stable_sort(script_.begin(), script_.end(), less);
    }
    for (size_t i = 1; i < script_.size(); i++)
      if (script_[i - 1].key == script_[i].key)
        ThrowUserError("Duplicate key " + script_[i].key +
                       " in script file " + name_);
  }

  bool HasKey(const std::string &key) override {
    long index = Find(key);
    if (index < 0) return false;
    if (!opts_.permissive) return true;
    std::string error = Load(index);
    if (error.empty()) return true;
    NNET3_WARN << "Treating key " << key << " as absent (permissive mode): "
               << "failed to load "
               << PrintableRxfilename(script_[index].rxfilename) << ": "
               << error;
    return false;
  }

  const typename Holder::T &Value(const std::string &key) override {
    long index = Find(key);
    if (index < 0)
      ThrowUserError("Value() called for key " + key +
                     ", which is not in script file " + name_ +
                     " (rspecifier '" + rspecifier_ + "')");
    std::string error = Load(index);
    if (!error.empty())
      ThrowUserError(ScriptLoadError(script_[index], error));
    return holder_->Value();
  }

  bool Close() override {
    loader_.Close();
    return true;
  }

 private:
  long Find(const std::string &key) const {
    auto it = std::lower_bound(
        script_.begin(), script_.end(), key,
        [](const ScriptEntry &e, const std::string &k) { return e.key < k; });
    if (it == script_.end() || it->key != key) return -1;
    return static_cast<long>(it - script_.begin());
  }

  std::string Load(long index) {
    if (index == current_ && holder_) return std::string();
    current_ = -1;
    std::string error = loader_.Load(script_[index], &holder_);
    if (error.empty()) current_ = index;
    return error;
  }

  std::string rspecifier_;
  std::string name_;
  RspecifierOptions opts_;
  std::vector<ScriptEntry> script_;  // Sorted by key.
  long current_ = -1;                // Entry whose object holder_ holds.
  std::unique_ptr<Holder> holder_;
  ScriptEntryLoader<Holder> loader_;
};

template <class Holder>
class RandomAccessArchiveReader : public RandomAccessReaderImpl<Holder> {
 public:
  RandomAccessArchiveReader(const std::string &rspecifier,
                            const std::string &rxfilename,
                            const RspecifierOptions &opts)
      : rspecifier_(rspecifier), name_(PrintableRxfilename(rxfilename)),
        opts_(opts) {
    input_.OpenTextMode(rxfilename);
  }

  bool HasKey(const std::string &key) override { return FindOrRead(key); }

  const typename Holder::T &Value(const std::string &key) override {
    if (!FindOrRead(key))
      ThrowUserError("Value() called for key " + key +
                     ", which is not in archive " + name_ +
                     " (rspecifier '" + rspecifier_ + "')");
    if (opts_.once) {
      to_free_ = key;
      have_to_free_ = true;
    }
    return objects_[key]->Value();
  }

  bool Close() override {
    input_.Close();
    objects_.clear();
    return true;
  }

 private:
  bool FindOrRead(const std::string &key) {
    if (have_to_free_ && to_free_ != key) {
      objects_.erase(to_free_);
      have_to_free_ = false;
    }
    if (opts_.sorted && opts_.called_sorted) {
      if (any_requested_ && key < last_requested_)
        ThrowUserError("Key " + key + " asked for after " + last_requested_ +
                       " from archive " + name_ + ", but the rspecifier '" +
                       rspecifier_ + "' has the cs (called sorted) option");
      objects_.erase(objects_.begin(), objects_.lower_bound(key));
    }
    last_requested_ = key;
    any_requested_ = true;
    if (objects_.count(key) != 0) return true;
    // In a sorted archive, a key before the last one read is not there.
    if (opts_.sorted && any_read_ && key < last_key_read_) return false;
    while (!eof_) {
      ReadNext();
      if (eof_) break;
      if (last_key_read_ == key) return true;
      if (opts_.sorted && key < last_key_read_) return false;
    }
    return false;
  }

  void ReadNext() {
    std::istream &is = input_.Stream();
    std::string key;
    bool got_key;
    try {
      got_key = ReadArchiveKey(is, name_, &key);
    } catch (const UserError &e) {
      Fail(e.message());
      return;
    }
    if (!got_key) {
      eof_ = true;
      if (input_.Type() == kPipeInput) {
        int32 status = input_.Close();
        if (status != 0)
          Fail("Error reading archive from pipe '" + name_ +
               "': the command exited with status " + std::to_string(status));
      }
      return;
    }
    if (opts_.sorted && any_read_ && !(last_key_read_ < key))
      Fail(key == last_key_read_
               ? "Duplicate key " + key + " in archive " + name_
               : "Archive " + name_ + " is not sorted (key " + key +
                     " after " + last_key_read_ +
                     ") but the rspecifier has the s option");
    else if (!opts_.sorted && objects_.count(key) != 0)
      Fail("Duplicate key " + key + " in archive " + name_);
    if (eof_) return;
    long long position = StreamPosition(is);
    std::unique_ptr<Holder> holder(new Holder());
    std::string error = TryReadHolder(holder.get(), is);
    if (!error.empty()) {
      Fail(ArchiveReadError(key, name_, position, error));
      return;
    }
    objects_[key] = std::move(holder);
    last_key_read_ = key;
    any_read_ = true;
  }

  // Ends the archive; throws unless permissive.
  void Fail(const std::string &message) {
    eof_ = true;
    if (opts_.permissive) {
      NNET3_WARN << message << " (ignored: permissive mode; the archive "
                 << "ends here)";
      return;
    }
    ThrowUserError(message);
  }

  std::string rspecifier_;
  std::string name_;
  RspecifierOptions opts_;
  Input input_;
  bool eof_ = false;
  std::map<std::string, std::unique_ptr<Holder> > objects_;
  std::string last_key_read_;
  bool any_read_ = false;
  std::string last_requested_;
  bool any_requested_ = false;
  std::string to_free_;  // With "o": the key given out last.
  bool have_to_free_ = false;
};

}  // namespace internal

template <class Holder>
class RandomAccessTableReader {
 public:
  typedef typename Holder::T T;

  RandomAccessTableReader() {}
  // Opens unless rspecifier is "" (then it stays closed). Throws on error.
  explicit RandomAccessTableReader(const std::string &rspecifier) {
    if (!rspecifier.empty()) Open(rspecifier);
  }
  RandomAccessTableReader(const RandomAccessTableReader &) = delete;
  RandomAccessTableReader &operator=(const RandomAccessTableReader &) =
      delete;

  // Throws UserError on a bad rspecifier or unreadable script/archive.
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
        impl_.reset(new internal::RandomAccessArchiveReader<Holder>(
            rspecifier, rxfilename, opts));
      else
        impl_.reset(new internal::RandomAccessScriptReader<Holder>(
            rspecifier, rxfilename, opts));
    } catch (const UserError &e) {
      NNET3_ERR << "Error opening rspecifier '" << rspecifier
                << "': " << e.message();
    }
    return true;
  }
  bool IsOpen() const { return impl_ != nullptr; }
  bool HasKey(const std::string &key) {
    CheckKey(key);
    return impl_->HasKey(key);
  }
  // Throws UserError if the key is absent or its object cannot be read.
  const T &Value(const std::string &key) {
    CheckKey(key);
    return impl_->Value(key);
  }
  bool Close() {
    if (!impl_) return true;
    bool ok = impl_->Close();
    impl_.reset();
    return ok;
  }
  ~RandomAccessTableReader() { Close(); }

 private:
  void CheckKey(const std::string &key) const {
    NNET3_ASSERT(impl_ != nullptr && "RandomAccessTableReader is not open");
    if (!IsToken(key))
      NNET3_ERR << "Invalid key '" << PrintableString(key)
                << "' (keys must be non-empty, without white space)";
  }
  std::unique_ptr<internal::RandomAccessReaderImpl<Holder> > impl_;
};

// Reads a table indexed by another key: HasKey(utt) and Value(utt) look up
// utt2spk[utt] in the table (e.g. per-speaker iVectors looked up by
// utterance, as in --utt2spk=ark:data/utt2spk). With an empty
// utt2spk_rspecifier it is a plain RandomAccessTableReader.
template <class Holder>
class RandomAccessTableReaderMapped {
 public:
  typedef typename Holder::T T;

  RandomAccessTableReaderMapped() {}
  RandomAccessTableReaderMapped(const std::string &table_rspecifier,
                                const std::string &utt2spk_rspecifier) {
    Open(table_rspecifier, utt2spk_rspecifier);
  }
  // Throws UserError on failure; returns true.
  bool Open(const std::string &table_rspecifier,
            const std::string &utt2spk_rspecifier) {
    Close();
    reader_.Open(table_rspecifier);
    if (!utt2spk_rspecifier.empty()) map_reader_.Open(utt2spk_rspecifier);
    utt2spk_rspecifier_ = utt2spk_rspecifier;
    return true;
  }
  bool IsOpen() const { return reader_.IsOpen(); }
  bool HasKey(const std::string &key) { return reader_.HasKey(Map(key)); }
  const T &Value(const std::string &key) { return reader_.Value(Map(key)); }
  bool Close() {
    map_reader_.Close();
    return reader_.Close();
  }

 private:
  std::string Map(const std::string &key) {
    if (!map_reader_.IsOpen()) return key;
    if (!map_reader_.HasKey(key))
      NNET3_ERR << "Key " << key << " is not in the map read from '"
                << utt2spk_rspecifier_ << "'";
    return map_reader_.Value(key);
  }

  RandomAccessTableReader<Holder> reader_;
  RandomAccessTableReader<TokenHolder> map_reader_;
  std::string utt2spk_rspecifier_;
};

}  // namespace nnet3

#endif  // NNET3_UTIL_RANDOM_ACCESS_READER_H_
