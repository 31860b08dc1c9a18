// util/stream.cc
#include "util/stream.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <random>
#include <streambuf>
#include <vector>

#include "util/table-spec.h"
#include "util/text.h"

namespace nnet3 {

namespace internal {

// A buffered std::streambuf over a file descriptor, for reading or for
// writing (not both). Reading keeps up to kPutback bytes before the read
// position so that unget() and short backward seeks work on pipes too, and
// tracks the logical position so tellg() always works. Writing reports
// positions only for regular files.
class FdStreamBuf : public std::streambuf {
 public:
  enum Mode { kRead, kWrite };
  static constexpr size_t kBufSize = 64 * 1024;
  static constexpr size_t kPutback = 256;

  FdStreamBuf(int fd, Mode mode, bool own_fd)
      : fd_(fd), mode_(mode), own_fd_(own_fd) {
    struct stat st;
    seekable_ = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    pos_ = 0;
    if (seekable_) {
      int flags = fcntl(fd, F_GETFL);
      bool append = mode == kWrite && flags != -1 && (flags & O_APPEND);
      off_t p = lseek(fd, 0, append ? SEEK_END : SEEK_CUR);
      if (p >= 0) pos_ = p;
      else seekable_ = false;
    }
    if (mode == kRead) {
      buf_.resize(kPutback + kBufSize);
      char *start = buf_.data() + kPutback;
      setg(start, start, start);
    } else {
      buf_.resize(kBufSize);
      setp(buf_.data(), buf_.data() + buf_.size());
    }
  }

  ~FdStreamBuf() override {
    if (mode_ == kWrite) FlushBuffer();
    if (own_fd_ && fd_ >= 0) ::close(fd_);
  }

  // Writes out the buffered bytes. False (and error() set) on failure.
  bool FlushBuffer() {
    if (mode_ != kWrite) return true;
    size_t n = pptr() - pbase();
    bool ok = error_ == 0 && WriteAll(pbase(), n);
    if (ok) pos_ += n;
    setp(buf_.data(), buf_.data() + buf_.size());
    return ok;
  }
  // Drops buffered output without writing it.
  void DiscardBuffer() {
    if (mode_ == kWrite) setp(buf_.data(), buf_.data() + buf_.size());
  }
  // Flushes and closes the descriptor (if owned). Returns false on error.
  bool CloseFd() {
    bool ok = FlushBuffer();
    if (own_fd_ && fd_ >= 0) {
      if (::close(fd_) != 0 && error_ == 0) error_ = errno;
      fd_ = -1;
    }
    return ok && error_ == 0;
  }
  int error() const { return error_; }
  bool seekable() const { return seekable_; }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (mode_ != kRead || fd_ < 0) return traits_type::eof();
    size_t keep = std::min(kPutback, static_cast<size_t>(gptr() - eback()));
    char *start = buf_.data() + kPutback;
    std::memmove(start - keep, gptr() - keep, keep);
    ssize_t n = ReadSome(start, kBufSize);
    setg(start - keep, start, start + std::max<ssize_t>(n, 0));
    if (n <= 0) return traits_type::eof();
    pos_ += n;
    return traits_type::to_int_type(*gptr());
  }

  std::streamsize xsgetn(char *s, std::streamsize n) override {
    std::streamsize got = 0;
    while (got < n) {
      std::streamsize avail = egptr() - gptr();
      if (avail > 0) {
        std::streamsize k = std::min(avail, n - got);
        std::memcpy(s + got, gptr(), k);
        gbump(static_cast<int>(k));
        got += k;
        continue;
      }
      if (n - got >= static_cast<std::streamsize>(kBufSize)) {
        // Large read: bypass the buffer, then keep its tail for putback.
        ssize_t r = ReadSome(s + got, n - got);
        if (r <= 0) break;
        got += r;
        pos_ += r;
        size_t keep = std::min<size_t>(kPutback, got);
        char *start = buf_.data() + kPutback;
        std::memcpy(start - keep, s + got - keep, keep);
        setg(start - keep, start, start);
        continue;
      }
      if (traits_type::eq_int_type(underflow(), traits_type::eof())) break;
    }
    return got;
  }

  int_type pbackfail(int_type c) override {
    // Only plain unget() within the kept bytes is supported.
    if (gptr() > eback() && (traits_type::eq_int_type(c, traits_type::eof())
                             || traits_type::to_char_type(c) == gptr()[-1])) {
      gbump(-1);
      return traits_type::to_int_type(*gptr());
    }
    return traits_type::eof();
  }

  std::streamsize showmanyc() override { return egptr() - gptr(); }

  int_type overflow(int_type c) override {
    if (mode_ != kWrite) return traits_type::eof();
    if (!FlushBuffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }

  std::streamsize xsputn(const char *s, std::streamsize n) override {
    if (mode_ != kWrite || error_ != 0) return 0;
    std::streamsize space = epptr() - pptr();
    if (n <= space) {
      std::memcpy(pptr(), s, n);
      pbump(static_cast<int>(n));
      return n;
    }
    if (!FlushBuffer()) return 0;
    if (n >= static_cast<std::streamsize>(kBufSize)) {
      if (!WriteAll(s, n)) return 0;
      pos_ += n;
      return n;
    }
    std::memcpy(pptr(), s, n);
    pbump(static_cast<int>(n));
    return n;
  }

  int sync() override { return FlushBuffer() ? 0 : -1; }

  pos_type seekoff(off_type off, std::ios_base::seekdir dir,
                   std::ios_base::openmode) override {
    const pos_type fail = pos_type(off_type(-1));
    if (mode_ == kRead) {
      int64 cur = pos_ - (egptr() - gptr());
      if (dir == std::ios_base::cur && off == 0) return pos_type(cur);
      int64 target;
      if (dir == std::ios_base::beg) {
        target = off;
      } else if (dir == std::ios_base::cur) {
        target = cur + off;
      } else {
        struct stat st;
        if (!seekable_ || fstat(fd_, &st) != 0) return fail;
        target = st.st_size + off;
      }
      int64 lowest = pos_ - (egptr() - eback());
      if (target >= lowest && target <= pos_) {
        setg(eback(), egptr() - (pos_ - target), egptr());
        return pos_type(target);
      }
      if (!seekable_ || target < 0) return fail;
      if (lseek(fd_, target, SEEK_SET) < 0) return fail;
      pos_ = target;
      char *start = buf_.data() + kPutback;
      setg(start, start, start);
      return pos_type(target);
    }
    // Writing.
    if (!seekable_) return fail;
    if (dir == std::ios_base::cur && off == 0)
      return pos_type(pos_ + (pptr() - pbase()));
    if (!FlushBuffer()) return fail;
    int whence = dir == std::ios_base::beg ? SEEK_SET
                 : dir == std::ios_base::cur ? SEEK_CUR : SEEK_END;
    off_t p = lseek(fd_, off, whence);
    if (p < 0) return fail;
    pos_ = p;
    return pos_type(p);
  }

  pos_type seekpos(pos_type pos, std::ios_base::openmode which) override {
    return seekoff(off_type(pos), std::ios_base::beg, which);
  }

 private:
  // Reads up to n bytes; 0 at end of file. A read error is reported by
  // throwing, which the istream turns into badbit.
  ssize_t ReadSome(char *dest, size_t n) {
    while (true) {
      ssize_t r = ::read(fd_, dest, n);
      if (r >= 0) return r;
      if (errno == EINTR) continue;
      error_ = errno;
      throw std::ios_base::failure(std::strerror(errno));
    }
  }
  bool WriteAll(const char *data, size_t n) {
    while (n > 0) {
      ssize_t w = ::write(fd_, data, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        error_ = errno;
        return false;
      }
      data += w;
      n -= w;
    }
    return true;
  }

  int fd_;
  Mode mode_;
  bool own_fd_;
  bool seekable_;
  int error_ = 0;
  // Reading: file position of egptr(); writing: file position of pbase().
  int64 pos_;
  std::vector<char> buf_;
};

namespace {
// Standard input and output each have one buffer for the whole process.
FdStreamBuf *StdinBuf() {
  static FdStreamBuf *buf = new FdStreamBuf(0, FdStreamBuf::kRead, false);
  return buf;
}
FdStreamBuf *StdoutBuf() {
  static FdStreamBuf *buf = [] {
    FdStreamBuf *b = new FdStreamBuf(1, FdStreamBuf::kWrite, false);
    std::atexit([] { StdoutBuf()->FlushBuffer(); });
    return b;
  }();
  return buf;
}

std::string ErrnoString(int err) { return std::strerror(err); }

// Decodes a pclose() status: the exit code, 128+signal, or -1.
int32 DecodeStatus(int status) {
  if (status == -1) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return status;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

// True for "name:123": digits after the last colon, something before it.
bool SplitOffset(const std::string &name, std::string *file, int64 *offset) {
  size_t colon = name.rfind(':');
  if (colon == std::string::npos || colon + 1 == name.size()) return false;
  for (size_t i = colon + 1; i < name.size(); i++)
    if (!IsDigit(name[i])) return false;
  if (file) *file = name.substr(0, colon);
  if (offset && !ConvertStringToInteger(name.substr(colon + 1), offset))
    return false;
  return true;
}

bool LooksLikeSpecifier(const std::string &name) {
  return (name[0] == 'a' || name[0] == 's') &&
         name.find(':') != std::string::npos &&
         (ClassifyWspecifier(name, nullptr, nullptr, nullptr) !=
              kNoWspecifier ||
          ClassifyRspecifier(name, nullptr, nullptr) != kNoRspecifier);
}

bool StartsWith(const std::string &s, const char *prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// The directory part of a path including its final '/', or "".
std::string DirPart(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// Decides how a kFileOutput is written. Returns true and sets *target to
// the file to replace (the end of any chain of symlinks) when the name is a
// regular file or does not exist yet; false when it must be opened
// directly: a device, FIFO or other special file, anything under /dev/ or
// /proc/ (/dev/stdout leads to whatever descriptor 1 is), or a symlink loop
// (which then fails at open with the system's message).
bool FindReplaceTarget(const std::string &name, std::string *target) {
  std::string cur = name;
  for (int hops = 0; hops < 40; hops++) {
    if (StartsWith(cur, "/dev/") || StartsWith(cur, "/proc/")) return false;
    struct stat st;
    if (lstat(cur.c_str(), &st) != 0) {
      // Missing (a new file, maybe through a dangling link), or not
      // reachable: the temporary's creation reports the problem.
      *target = cur;
      return true;
    }
    if (S_ISREG(st.st_mode)) {
      *target = cur;
      return true;
    }
    if (!S_ISLNK(st.st_mode)) return false;
    std::vector<char> link(st.st_size > 0 ? st.st_size + 1 : 4096);
    ssize_t n = readlink(cur.c_str(), link.data(), link.size());
    if (n < 0 || static_cast<size_t>(n) >= link.size()) return false;
    std::string dest(link.data(), n);
    cur = dest[0] == '/' ? dest : DirPart(cur) + dest;
  }
  return false;
}

// Tries "create" on fresh names ".NAME.tmp.PID.RANDOM" next to "target"
// until it succeeds or fails other than with EEXIST. Returns its result
// (-1 with errno set on failure) and the name used in *temp.
template <class Create>
int WithTempName(const std::string &target, std::string *temp,
                 Create create) {
  std::string dir = DirPart(target);
  std::string base = target.substr(dir.size());
  if (base.size() > 200) base.resize(200);  // Room within NAME_MAX.
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; attempt++) {
    uint64_t r = std::random_device{}();
    r = (r << 32) ^ std::random_device{}() ^ counter++;
    char suffix[40];
    std::snprintf(suffix, sizeof(suffix), ".tmp.%ld.%06llx",
                  static_cast<long>(getpid()),
                  static_cast<unsigned long long>(r & 0xffffffULL));
    *temp = dir + "." + base + suffix;
    int rc = create(*temp);
    if (rc >= 0 || errno != EEXIST) return rc;
  }
  errno = EEXIST;
  return -1;
}

// Creates a temporary for "target" with O_EXCL and mode 0666 (so the umask
// applies as for a fresh file). Returns the descriptor, or -1.
int CreateTempFile(const std::string &target, std::string *temp) {
  return WithTempName(target, temp, [](const std::string &name) {
    return ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                  0666);
  });
}
}  // namespace

}  // namespace internal

using internal::FdStreamBuf;

InputType ClassifyRxfilename(const std::string &filename) {
  if (filename.empty() || filename == "-") return kStandardInput;
  char first = filename.front(), last = filename.back();
  if (first == '|') return kNoInput;  // An output pipe.
  if (last == '|') return kPipeInput;
  if (internal::IsSpace(first) || internal::IsSpace(last)) return kNoInput;
  if (internal::LooksLikeSpecifier(filename)) return kNoInput;
  if (internal::IsDigit(last) &&
      internal::SplitOffset(filename, nullptr, nullptr))
    return kOffsetFileInput;
  return kFileInput;
}

OutputType ClassifyWxfilename(const std::string &filename) {
  if (filename.empty() || filename == "-") return kStandardOutput;
  char first = filename.front(), last = filename.back();
  if (first == '|') return kPipeOutput;
  if (internal::IsSpace(first) || internal::IsSpace(last) || last == '|')
    return kNoOutput;
  if (internal::LooksLikeSpecifier(filename)) return kNoOutput;
  if (internal::IsDigit(last) &&
      internal::SplitOffset(filename, nullptr, nullptr))
    return kNoOutput;  // "name:123" could not be read back.
  return kFileOutput;
}

std::string PrintableRxfilename(const std::string &rxfilename) {
  if (rxfilename.empty() || rxfilename == "-") return "standard input";
  return rxfilename;
}

std::string PrintableWxfilename(const std::string &wxfilename) {
  if (wxfilename.empty() || wxfilename == "-") return "standard output";
  return wxfilename;
}

// ---------------------------------------------------------------- Input

Input::Input() {}

Input::Input(const std::string &rxfilename, bool *contents_binary) {
  Open(rxfilename, contents_binary);
}

Input::~Input() {
  if (IsOpen()) Close();
}

bool Input::IsOpen() const { return type_ != kNoInput; }

std::istream &Input::Stream() {
  NNET3_ASSERT(IsOpen());
  return *stream_;
}

void Input::Reset() {
  stream_.reset();
  buf_.reset();
  pipe_ = nullptr;
  type_ = kNoInput;
}

bool Input::Open(const std::string &rxfilename, bool *contents_binary) {
  OpenInternal(rxfilename);
  if (contents_binary != nullptr &&
      !InitKaldiInputStream(*stream_, contents_binary)) {
    Close();
    NNET3_ERR << "Corrupt Kaldi header in " << PrintableRxfilename(rxfilename)
              << ": the file starts with \\0 but not \\0B";
  }
  return true;
}

bool Input::OpenTextMode(const std::string &rxfilename) {
  OpenInternal(rxfilename);
  return true;
}

void Input::OpenInternal(const std::string &rxfilename) {
  InputType type = ClassifyRxfilename(rxfilename);
  if (type == kNoInput)
    NNET3_ERR << "Invalid input filename '" << rxfilename << "'";
  std::string file;
  int64 offset = 0;
  if (type == kOffsetFileInput &&
      !internal::SplitOffset(rxfilename, &file, &offset))
    NNET3_ERR << "Invalid offset in input filename '" << rxfilename << "'";
  if (type == kOffsetFileInput && type_ == kOffsetFileInput &&
      file == filename_) {
    // Same file, other offset: just seek.
    stream_->clear();
    if (stream_->rdbuf()->pubseekpos(offset) == std::streampos(-1))
      NNET3_ERR << "Failed to seek to offset " << offset << " in file "
                << file;
    rxfilename_ = rxfilename;
    return;
  }
  if (IsOpen()) Close();
  rxfilename_ = rxfilename;
  switch (type) {
    case kNoInput:
      break;
    case kFileInput:
    case kOffsetFileInput: {
      if (type == kFileInput) file = rxfilename;
      int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        NNET3_ERR << "Failed to open input file " << file << ": "
                  << internal::ErrnoString(errno);
      struct stat st;
      if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        ::close(fd);
        NNET3_ERR << "Failed to open input file " << file
                  << ": it is a directory";
      }
      buf_.reset(new FdStreamBuf(fd, FdStreamBuf::kRead, true));
      if (type == kOffsetFileInput &&
          buf_->pubseekpos(offset) == std::streampos(-1)) {
        buf_.reset();
        NNET3_ERR << "Failed to seek to offset " << offset << " in file "
                  << file << " (is it a regular file?)";
      }
      filename_ = file;
      stream_.reset(new std::istream(buf_.get()));
      break;
    }
    case kStandardInput:
      filename_ = "-";
      stream_.reset(new std::istream(internal::StdinBuf()));
      break;
    case kPipeInput: {
      std::string command = rxfilename.substr(0, rxfilename.size() - 1);
      std::fflush(stdout);
      FILE *f = popen(command.c_str(), "re");
      if (f == nullptr)
        NNET3_ERR << "Failed to open input pipe '" << rxfilename
                  << "': " << internal::ErrnoString(errno);
      pipe_ = f;
      filename_ = command;
      buf_.reset(new FdStreamBuf(fileno(f), FdStreamBuf::kRead, false));
      stream_.reset(new std::istream(buf_.get()));
      break;
    }
  }
  type_ = type;
}

int32 Input::Close() {
  if (!IsOpen()) return 0;
  int32 status = 0;
  if (type_ == kPipeInput) {
    buf_.reset();
    status = internal::DecodeStatus(pclose(pipe_));
    pipe_ = nullptr;
    if (status != 0)
      NNET3_WARN << "Pipe '" << rxfilename_ << "' had non-zero exit status "
                 << status;
  }
  Reset();
  return status;
}

// --------------------------------------------------------------- Output

Output::Output() {}

Output::Output(const std::string &wxfilename, bool binary,
               bool write_header) {
  Open(wxfilename, binary, write_header);
}

Output::~Output() noexcept(false) {
  if (!IsOpen()) return;
  if (std::uncaught_exceptions() > exceptions_at_open_) {
    Abort();
    return;
  }
  std::string name = PrintableWxfilename(wxfilename_);
  if (!Close())
    NNET3_ERR << "Error closing output " << name;
}

bool Output::IsOpen() const { return type_ != kNoOutput; }

std::ostream &Output::Stream() {
  NNET3_ASSERT(IsOpen() && stream_ != nullptr);
  return *stream_;
}

void Output::Reset() {
  stream_.reset();
  buf_.reset();
  pipe_ = nullptr;
  temp_filename_.clear();
  target_filename_.clear();
  finished_ = false;
  type_ = kNoOutput;
}

bool Output::Open(const std::string &wxfilename, bool binary,
                  bool write_header) {
  if (IsOpen()) Close();
  OutputType type = ClassifyWxfilename(wxfilename);
  if (type == kNoOutput)
    NNET3_ERR << "Invalid output filename '" << wxfilename << "'";
  wxfilename_ = wxfilename;
  exceptions_at_open_ = std::uncaught_exceptions();
  switch (type) {
    case kNoOutput:
      break;
    case kFileOutput: {
      int fd = -1;
      std::string target;
      if (internal::FindReplaceTarget(wxfilename, &target)) {
        std::string temp;
        fd = internal::CreateTempFile(target, &temp);
        if (fd < 0)
          NNET3_ERR << "Failed to open output file " << wxfilename
                    << " (cannot create a temporary file in its directory: "
                    << internal::ErrnoString(errno) << ")";
        struct stat st;
        if (stat(target.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
            fchmod(fd, st.st_mode & 07777) != 0) {
          // Not fatal: the file gets a fresh file's permissions.
        }
        temp_filename_ = temp;
        target_filename_ = target;
      } else {
        fd = ::open(wxfilename.c_str(),
                    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0)
          NNET3_ERR << "Failed to open output file " << wxfilename << ": "
                    << internal::ErrnoString(errno);
      }
      buf_.reset(new FdStreamBuf(fd, FdStreamBuf::kWrite, true));
      stream_.reset(new std::ostream(buf_.get()));
      break;
    }
    case kStandardOutput:
      std::cout.flush();
      stream_.reset(new std::ostream(internal::StdoutBuf()));
      break;
    case kPipeOutput: {
      std::string command = wxfilename.substr(1);
      std::fflush(stdout);
      std::cout.flush();
      FILE *f = popen(command.c_str(), "we");
      if (f == nullptr)
        NNET3_ERR << "Failed to open output pipe '" << wxfilename
                  << "': " << internal::ErrnoString(errno);
      pipe_ = f;
      buf_.reset(new FdStreamBuf(fileno(f), FdStreamBuf::kWrite, false));
      stream_.reset(new std::ostream(buf_.get()));
      break;
    }
  }
  type_ = type;
  if (write_header) InitKaldiOutputStream(*stream_, binary);
  return true;
}

bool Output::Finish() {
  if (!IsOpen() || finished_) return true;
  std::string name = PrintableWxfilename(wxfilename_);
  std::string error;
  bool stream_failed = stream_->fail();
  bool ok = true;
  switch (type_) {
    case kNoOutput:
      break;
    case kFileOutput:
      if (!buf_->CloseFd() || stream_failed) {
        error = buf_->error() != 0 ? internal::ErrnoString(buf_->error())
                                   : std::string("write failed");
      }
      break;
    case kStandardOutput: {
      FdStreamBuf *buf = internal::StdoutBuf();
      if (!buf->FlushBuffer() || stream_failed)
        error = buf->error() != 0 ? internal::ErrnoString(buf->error())
                                  : std::string("write failed");
      break;
    }
    case kPipeOutput: {
      if (!buf_->FlushBuffer() || stream_failed)
        error = buf_->error() != 0 ? internal::ErrnoString(buf_->error())
                                   : std::string("write failed");
      buf_.reset();
      int32 status = internal::DecodeStatus(pclose(pipe_));
      pipe_ = nullptr;
      if (status != 0) {
        NNET3_WARN << "Pipe '" << wxfilename_ << "' had non-zero exit status "
                   << status;
        ok = false;
      }
      break;
    }
  }
  if (!error.empty()) {
    if (!temp_filename_.empty()) ::unlink(temp_filename_.c_str());
    Reset();
    NNET3_ERR << "Error writing to " << name << ": " << error;
  }
  if (temp_filename_.empty()) {
    Reset();
  } else {
    stream_.reset();
    buf_.reset();
    finished_ = true;
  }
  return ok;
}

void Output::Commit() {
  if (!IsOpen()) return;
  if (!finished_) Finish();
  if (!IsOpen()) return;  // Not written through a temporary.
  std::string temp = temp_filename_, target = target_filename_;
  Reset();
  if (std::rename(temp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    NNET3_ERR << "Error writing to " << PrintableWxfilename(wxfilename_)
              << ": cannot rename " << temp << " to " << target << ": "
              << internal::ErrnoString(err);
  }
}

bool Output::Close() {
  if (!IsOpen()) return true;
  bool ok = Finish();
  Commit();
  return ok;
}

void Output::RemoveOldFile() {
  if (IsOpen() && !temp_filename_.empty()) ::unlink(target_filename_.c_str());
}

void Output::CommitTogether(Output *archive, Output *script) {
  archive->Finish();
  script->Finish();
  if (!archive->IsOpen() || !script->IsOpen()) {
    // One of them is not a file written through a temporary: there is no
    // old state to protect the other from.
    archive->Commit();
    script->Commit();
    return;
  }
  // Freeing the old archive's blocks can take milliseconds (rename does it
  // when it replaces the last link), which would widen the time without a
  // script. A second link to the old archive moves that work after the
  // script's rename; a kill in between leaves that link as a stray
  // ".NAME.tmp.*" file. Where links are not supported, we do without.
  std::string hold;
  int linked = internal::WithTempName(
      archive->target_filename_, &hold, [&](const std::string &name) {
        return ::link(archive->target_filename_.c_str(), name.c_str());
      });
  if (linked != 0) hold.clear();
  try {
    script->RemoveOldFile();
    archive->Commit();
    script->Commit();
  } catch (...) {
    if (!hold.empty()) ::unlink(hold.c_str());
    throw;
  }
  if (!hold.empty()) ::unlink(hold.c_str());
}

void Output::Abort() {
  if (!IsOpen()) return;
  if (!temp_filename_.empty()) {
    if (!finished_) {
      buf_->DiscardBuffer();
      buf_->CloseFd();
    }
    ::unlink(temp_filename_.c_str());
  } else if (type_ == kPipeOutput) {
    buf_->FlushBuffer();
    buf_.reset();
    pclose(pipe_);
  } else if (type_ == kStandardOutput) {
    internal::StdoutBuf()->FlushBuffer();
  }
  Reset();
}

}  // namespace nnet3
