// base/io.h
// Kaldi's binary/text serialization primitives, byte for byte:
//  - a binary stream starts with the two bytes "\0B" (InitKaldiOutputStream);
//    text streams get precision 7 so floats survive a text round trip;
//  - integers are written as one signed size byte (+sizeof for signed types,
//    -sizeof for unsigned) followed by their little-endian bytes, or in text
//    as the decimal value and a space;
//  - float/double as a size byte (4 or 8) and the raw value; reading accepts
//    either size into either type;
//  - bool as "T"/"F" (plus a space in text);
//  - tokens as the string followed by one space, in both modes;
//  - integer vectors as size byte, int32 count and packed values, or in text
//    as "[ 1 2 3 ]\n".
// Every read failure throws UserError (NNET3_ERR) with the stream position.
//
// Sizes read from a stream are untrusted (docs/io.md, "Limits on untrusted
// input"): before a reader allocates for a declared count it calls
// CheckDeclaredSize(), which rejects a count that the bytes left in the
// stream cannot hold (when the stream can tell) or that exceeds
// MaxDeclaredBytes() (when it cannot), and it reads large arrays with
// ReadRawArray() or element by element with a BoundedReserve(), so that a
// lying header never allocates more than kReadChunkBytes ahead of the data
// that has actually arrived.
#ifndef NNET3_BASE_IO_H_
#define NNET3_BASE_IO_H_

#include <istream>
#include <limits>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/log.h"
#include "base/types.h"

namespace nnet3 {

// Writes "\0B" in binary mode; in text mode raises the precision to 7.
void InitKaldiOutputStream(std::ostream &os, bool binary);
// Consumes "\0B" if present and sets *binary. Returns false if the stream
// starts with "\0" but not "\0B" (a corrupt header).
bool InitKaldiInputStream(std::istream &is, bool *binary);

// Stream position for messages (-1 when the stream cannot tell).
long long StreamPosition(std::istream &is);

// ---- Limits on sizes declared by untrusted input ----

// Declared sizes up to this many bytes are allocated at once; larger arrays
// are read in pieces of this size, so memory grows only with the data that
// has actually arrived.
constexpr int64 kReadChunkBytes = int64(1) << 20;

// The most bytes one declared size may stand for when the stream cannot
// tell how much is left (pipes, standard input): 8 GiB unless the
// environment variable NNET3_MAX_DECLARED_BYTES (a byte count, read once)
// or SetMaxDeclaredBytes() says otherwise.
int64 MaxDeclaredBytes();
// Sets the limit above (for tests and tools); returns the previous value.
int64 SetMaxDeclaredBytes(int64 bytes);

// Bytes from the current read position to the end of the stream, or -1 if
// the stream cannot tell (a pipe, a stream buffer without seeking). Leaves
// the read position where it was. Cheap when the stream buffer already
// holds the bytes; otherwise it seeks to the end and back.
int64 StreamBytesLeft(std::istream &is);

// Checks a count just read from "is" before anything is allocated for it:
// "count" elements that take at least "min_element_bytes" bytes each in the
// stream. Throws UserError naming "what" (the reader and field, e.g.
// "ReadIntegerVector: the element count") with the count and stream position
// if the count is negative, if the bytes left in a stream that can tell are
// fewer than count * min_element_bytes, or if a stream that cannot tell
// declares more than MaxDeclaredBytes(). Counts whose bytes fit in
// kReadChunkBytes pass without asking the stream for its length. Returns
// true if the stream was seen to hold the bytes (so allocating them all at
// once is safe), false if the count passed only because it is small or
// under the limit.
bool CheckDeclaredSize(std::istream &is, int64 count, int64 min_element_bytes,
                       const char *what);

// An initial capacity for a reader that appends element by element:
// "count" but at most kReadChunkBytes' worth of T.
template <class T>
size_t BoundedReserve(int64 count) {
  int64 cap = kReadChunkBytes / static_cast<int64>(sizeof(T));
  if (cap < 1) cap = 1;
  return static_cast<size_t>(count < 0 ? 0 : (count < cap ? count : cap));
}

// Checks "count" with CheckDeclaredSize() and reads that many elements of
// the trivially copyable T as raw bytes into *v (replacing its contents).
// Unless the stream was seen to hold them, *v grows in pieces as the data
// arrives (never more than kReadChunkBytes, or the size read so far, ahead
// of it). A short stream throws UserError naming "what".
template <class T>
void ReadRawArray(std::istream &is, int64 count, std::vector<T> *v,
                  const char *what);

namespace internal {
// The check and read loop behind ReadRawArray: "resize" grows the
// destination to n elements and returns its data pointer.
void ReadRawChunks(std::istream &is, int64 count, size_t element_bytes,
                   const char *what, void *dest_state,
                   char *(*resize)(void *dest_state, size_t n));
void WriteIntegerBytes(std::ostream &os, bool binary, int64 value,
                       int size_byte, const char *bytes);
void ReadIntegerBytes(std::istream &is, bool binary, int expected_size_byte,
                      char *bytes, bool is_signed, int64 *text_value);
}  // namespace internal

// Integers (int8..int64, unsigned too).
template <class T>
void WriteBasicType(std::ostream &os, bool binary, T t) {
  static_assert(std::is_integral<T>::value && !std::is_same<T, bool>::value,
                "WriteBasicType<T>: T must be an integer type");
  int size_byte = (std::numeric_limits<T>::is_signed ? 1 : -1) *
                  static_cast<int>(sizeof(T));
  internal::WriteIntegerBytes(os, binary, static_cast<int64>(t), size_byte,
                              reinterpret_cast<const char *>(&t));
}

template <class T>
void ReadBasicType(std::istream &is, bool binary, T *t) {
  static_assert(std::is_integral<T>::value && !std::is_same<T, bool>::value,
                "ReadBasicType<T>: T must be an integer type");
  int size_byte = (std::numeric_limits<T>::is_signed ? 1 : -1) *
                  static_cast<int>(sizeof(T));
  int64 text_value = 0;
  internal::ReadIntegerBytes(is, binary, size_byte,
                             reinterpret_cast<char *>(t),
                             std::numeric_limits<T>::is_signed, &text_value);
  if (!binary) {
    if (text_value < static_cast<int64>(std::numeric_limits<T>::min()) ||
        (text_value > 0 && static_cast<uint64>(text_value) >
                               static_cast<uint64>(std::numeric_limits<T>::max())))
      NNET3_ERR << "ReadBasicType: value " << text_value
                << " out of range for a " << sizeof(T) << "-byte integer"
                << " at file position " << StreamPosition(is);
    *t = static_cast<T>(text_value);
  }
}

template <> void WriteBasicType<bool>(std::ostream &os, bool binary, bool b);
template <> void ReadBasicType<bool>(std::istream &is, bool binary, bool *b);
void WriteBasicType(std::ostream &os, bool binary, float f);
void WriteBasicType(std::ostream &os, bool binary, double d);
void ReadBasicType(std::istream &is, bool binary, float *f);
void ReadBasicType(std::istream &is, bool binary, double *d);
void WriteBasicType(std::ostream &os, bool binary, bool b);
void ReadBasicType(std::istream &is, bool binary, bool *b);

// Tokens: non-empty, no whitespace. Written followed by one space.
void WriteToken(std::ostream &os, bool binary, const char *token);
void WriteToken(std::ostream &os, bool binary, const std::string &token);
// Reads a token and the single whitespace character after it.
void ReadToken(std::istream &is, bool binary, std::string *token);
// Returns the next character without consuming it (text mode: after
// skipping whitespace); -1 at end of stream.
int Peek(std::istream &is, bool binary);
// Like Peek but looks past a '<' at the character after it, for tokens
// like "<Dim>"; returns -1 if the next character is not '<'.
int PeekToken(std::istream &is, bool binary);
// Reads a token and fails with a message naming both tokens if it differs.
void ExpectToken(std::istream &is, bool binary, const char *token);
void ExpectToken(std::istream &is, bool binary, const std::string &token);
// Reads "token" and returns true if it comes next; otherwise leaves the
// stream where it was (the stream must be seekable) and returns false.
bool ReadTokenIf(std::istream &is, bool binary, const std::string &token);

template <class T>
void ReadRawArray(std::istream &is, int64 count, std::vector<T> *v,
                  const char *what) {
  static_assert(std::is_trivially_copyable<T>::value,
                "ReadRawArray<T>: T must be trivially copyable");
  v->clear();
  internal::ReadRawChunks(
      is, count, sizeof(T), what, v, [](void *state, size_t n) -> char * {
        auto *vec = static_cast<std::vector<T> *>(state);
        vec->resize(n);
        return reinterpret_cast<char *>(vec->data());
      });
}

// Vectors of integers: binary = size byte, int32 count, raw values; text =
// "[ 1 2 3 ]\n".
template <class T>
void WriteIntegerVector(std::ostream &os, bool binary,
                        const std::vector<T> &v);
template <class T>
void ReadIntegerVector(std::istream &is, bool binary, std::vector<T> *v);

// Vectors of integer pairs (same scheme, "[ 1,2 3,4 ]" in text).
template <class T>
void WriteIntegerPairVector(std::ostream &os, bool binary,
                            const std::vector<std::pair<T, T> > &v);
template <class T>
void ReadIntegerPairVector(std::istream &is, bool binary,
                           std::vector<std::pair<T, T> > *v);

}  // namespace nnet3

#endif  // NNET3_BASE_IO_H_
