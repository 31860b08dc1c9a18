// util/stream.h
// Kaldi's extended filenames for reading (rxfilename) and writing
// (wxfilename), and the Input/Output classes that open them:
//
//   "" or "-"        standard input / standard output
//   "cmd args |"     (rx) a pipe from the command (popen "r")
//   "| cmd args"     (wx) a pipe into the command (popen "w")
//   "name:123"       (rx) the file "name" from byte offset 123
//   anything else    a file, unless it is malformed: leading or trailing
//                    white space, "name:123" for writing, a "|cmd" for
//                    reading, or something that looks like an r/wspecifier
//                    ("ark:x", "scp:x") is kNoInput / kNoOutput.
//
// Streams use their own 64 KiB buffers over file descriptors. Input streams
// always know their position (tellg works on pipes too, for messages) and
// can seek: anywhere in a regular file, and backwards within the buffered
// data otherwise. Output tellp() works on seekable outputs only (-1 on
// pipes), which is what an ark,scp writer needs. Standard input keeps one
// process-wide buffer, so data read ahead by one Input is seen by the next.
//
// Errors: Open() throws UserError naming the file when it cannot open it
// (it returns true otherwise, so Kaldi-style `if (!ki.Open(x))` still
// reads well). Output::Close() throws on a write error (disk full, ...)
// and warns and returns false if a pipe's command exited non-zero;
// Input::Close() returns the pipe's exit status (0 = success).
//
// Crash-safe files: an Output opened on a plain file never writes the file
// in place. It writes a temporary ".NAME.tmp.PID.RANDOM" in the same
// directory (created with O_EXCL) and Close() renames it over NAME only
// when everything was written, so a process killed at any moment (even by
// SIGKILL) leaves either the old NAME or the complete new one; a failed
// write or an exception unwinding through the Output removes the
// temporary and keeps the old file. A symlink is followed, and the file it
// points to is replaced (the link stays). An existing file keeps its
// permission bits; a new one gets 0666 minus the umask. No fsync is done:
// this protects against the death of the process, not of the machine.
// Standard output, pipes, and existing non-regular files (/dev/null,
// FIFOs, anything under /dev/ or /proc/) are written directly.
// A killed process leaves its temporary behind; such stray files match
// ".*.tmp.*" and are never opened under the final name.
#ifndef NNET3_UTIL_STREAM_H_
#define NNET3_UTIL_STREAM_H_

#include <cstdio>
#include <istream>
#include <memory>
#include <ostream>
#include <string>

#include "base/io.h"
#include "base/log.h"
#include "base/types.h"

namespace nnet3 {

enum InputType {
  kNoInput,
  kFileInput,
  kStandardInput,
  kOffsetFileInput,
  kPipeInput
};

enum OutputType {
  kNoOutput,
  kFileOutput,
  kStandardOutput,
  kPipeOutput
};

InputType ClassifyRxfilename(const std::string &rxfilename);
OutputType ClassifyWxfilename(const std::string &wxfilename);

// "standard input" for "" and "-", else the name itself.
std::string PrintableRxfilename(const std::string &rxfilename);
// "standard output" for "" and "-", else the name itself.
std::string PrintableWxfilename(const std::string &wxfilename);

namespace internal {
class FdStreamBuf;
}

class Input {
 public:
  Input();
  // Opens (see Open); throws UserError on failure.
  explicit Input(const std::string &rxfilename,
                 bool *contents_binary = nullptr);
  Input(const Input &) = delete;
  Input &operator=(const Input &) = delete;
  ~Input();

  // Opens "rxfilename". If contents_binary is not null, reads the Kaldi
  // header ("\0B" or none) and sets it. Re-opening "name:N" while "name:M"
  // is open just seeks. Throws UserError on failure; returns true.
  bool Open(const std::string &rxfilename, bool *contents_binary = nullptr);
  // The same without reading a header (there is no text/binary distinction
  // on POSIX systems).
  bool OpenTextMode(const std::string &rxfilename);

  bool IsOpen() const;
  // Valid while open.
  std::istream &Stream();
  // Closes; returns the pipe command's exit status for pipes (non-zero
  // after a warning if it failed), else 0. Does nothing if not open.
  int32 Close();

  InputType Type() const { return type_; }
  // The rxfilename given to the last Open().
  const std::string &Rxfilename() const { return rxfilename_; }

 private:
  void OpenInternal(const std::string &rxfilename);
  void Reset();

  InputType type_ = kNoInput;
  std::string rxfilename_;
  std::string filename_;  // File name without the offset; pipe command.
  std::unique_ptr<internal::FdStreamBuf> buf_;  // Not for stdin.
  std::unique_ptr<std::istream> stream_;
  FILE *pipe_ = nullptr;
};

class Output {
 public:
  Output();
  // Opens (see Open); throws UserError on failure.
  Output(const std::string &wxfilename, bool binary, bool write_header = true);
  Output(const Output &) = delete;
  Output &operator=(const Output &) = delete;
  // When an exception is propagating (one thrown after Open), discards the
  // output: a file's temporary is removed and the old file stays. Else
  // closes if still open, and throws UserError if that fails. Close
  // explicitly an Output owned through std::unique_ptr or a container.
  ~Output() noexcept(false);

  // Opens "wxfilename" for writing (a plain file through a temporary, see
  // the top of this file); with write_header, writes the binary header
  // "\0B" if binary. Throws UserError on failure; returns true.
  bool Open(const std::string &wxfilename, bool binary, bool write_header);
  // The same as Open (every plain file is written atomically now).
  bool OpenAtomic(const std::string &wxfilename, bool binary,
                  bool write_header) {
    return Open(wxfilename, binary, write_header);
  }

  bool IsOpen() const;
  // Valid while open and not yet finished.
  std::ostream &Stream();
  // Finish() then Commit(): flushes, closes and puts the file in place.
  // Throws UserError if writing failed (the old file stays); returns false
  // (after a warning) if a pipe command exited non-zero.
  bool Close();
  // The first half of Close(), for outputs that must appear together:
  // writes out everything and closes the descriptor (throwing on an error,
  // after removing the temporary). A file's new contents then wait under
  // the temporary name until Commit(); other outputs are closed for good.
  // Returns false if a pipe command exited non-zero.
  bool Finish();
  // The second half: renames a finished temporary over the final name
  // (Finish()es first if needed). Throws UserError if that fails.
  void Commit();
  // For a file written through a temporary: removes the file that Commit()
  // will replace, if any.
  void RemoveOldFile();
  // Finishes both, then puts an archive and the script that points into it
  // in place so that a script on disk always matches the archive beside
  // it: removes the old script, renames the archive, then the script. A
  // kill between the renames leaves the script missing, never stale (the
  // window is kept to two renames). Throws like Finish() and Commit().
  static void CommitTogether(Output *archive, Output *script);
  // Closes without committing: a file's temporary is removed.
  void Abort();

  OutputType Type() const { return type_; }
  const std::string &Wxfilename() const { return wxfilename_; }
  // The temporary file being written, or "" when writing directly.
  const std::string &TempFilename() const { return temp_filename_; }

 private:
  void Reset();

  OutputType type_ = kNoOutput;
  std::string wxfilename_;
  std::string temp_filename_;    // Set when writing through a temporary.
  std::string target_filename_;  // What the temporary replaces.
  bool finished_ = false;        // Finish() done, Commit() not yet.
  int exceptions_at_open_ = 0;   // std::uncaught_exceptions() at Open.
  std::unique_ptr<internal::FdStreamBuf> buf_;  // Not for stdout.
  std::unique_ptr<std::ostream> stream_;
  FILE *pipe_ = nullptr;
};

// Reads an object with `void Read(std::istream &is, bool binary)` from a
// whole rxfilename (which begins with the Kaldi binary header or not).
template <class C>
void ReadKaldiObject(const std::string &rxfilename, C *c) {
  bool binary_in;
  Input ki(rxfilename, &binary_in);
  try {
    c->Read(ki.Stream(), binary_in);
  } catch (const UserError &e) {
    NNET3_ERR << "Failed to read object from "
              << PrintableRxfilename(rxfilename) << ": " << e.message();
  }
  ki.Close();
}

// Writes an object with `void Write(std::ostream &os, bool binary) const`,
// with the binary header. A plain file is replaced atomically (see above).
template <class C>
void WriteKaldiObject(const C &c, const std::string &wxfilename,
                      bool binary) {
  Output ko(wxfilename, binary, true);
  try {
    c.Write(ko.Stream(), binary);
  } catch (const UserError &e) {
    ko.Abort();
    NNET3_ERR << "Failed to write object to "
              << PrintableWxfilename(wxfilename) << ": " << e.message();
  }
  if (!ko.Close())
    NNET3_ERR << "Failed to write object to "
              << PrintableWxfilename(wxfilename)
              << " (the pipe command failed)";
}

}  // namespace nnet3

#endif  // NNET3_UTIL_STREAM_H_
