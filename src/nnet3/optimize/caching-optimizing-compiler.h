// nnet3/optimize/caching-optimizing-compiler.h
// A compiler that optimizes what it compiles and remembers it: each
// ComputationRequest is compiled (through the shortcut of shortcut.h when
// enabled), optimized with Optimize() and kept in a most-recently-used
// cache keyed by the request, so a tool that sees many utterances of the
// same shape compiles each shape once. The cache can be written to disk and
// read back by a later run (WriteCache / ReadCache), and the compiler also
// answers the network's context (left/right) for simple networks.
//
// Cache format (Kaldi's token conventions; binary or text):
//   <ComputationCache> <Version> 1 <NnetStructure> KEY <NumEntries> N
//   N x (ComputationRequest::Write, NnetComputation::Write)
//   </ComputationCache>
// Version and N are int32; entries are listed most recently used first.
// KEY (a token of 16 hex digits) is a 64-bit hash of everything a stored
// computation depends on: the network's config lines with dimensions, each
// component's name, type, dimensions and properties (not its parameters,
// which computations do not depend on), the optimizer options and the
// compiler options (shortcut, debug info). A cache whose KEY differs from
// this compiler's is ignored with a warning.
//
// Invariants: at most cache_capacity computations are held; a returned
// computation stays valid as long as the caller holds its shared_ptr, even
// after eviction; Compile() and the other methods are safe to call from
// several threads. The network must outlive the compiler and keep its
// structure (its parameters may change).
#ifndef NNET3_NNET3_OPTIMIZE_CACHING_OPTIMIZING_COMPILER_H_
#define NNET3_NNET3_OPTIMIZE_CACHING_OPTIMIZING_COMPILER_H_

#include <condition_variable>
#include <functional>
#include <istream>
#include <list>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "nnet3/compile/compiler.h"
#include "nnet3/compile/request.h"
#include "nnet3/optimize/optimize.h"
#include "util/options.h"

namespace nnet3 {

struct CachingOptimizingCompilerOptions {
  // Compile regular requests for two sequences and expand (shortcut.h).
  bool use_shortcut = true;
  int32 cache_capacity = 64;
  CompilerOptions compiler;
  // Registers cache-capacity, use-shortcut and the CompilerOptions (a tool
  // registers this under the "compiler." prefix).
  void Register(OptionsItf *opts);
};

class CachingOptimizingCompiler {
 public:
  // 'nnet' must outlive this object and keep its structure.
  CachingOptimizingCompiler(
      const Nnet &nnet,
      const NnetOptimizeOptions &opt_config = NnetOptimizeOptions(),
      const CachingOptimizingCompilerOptions &config =
          CachingOptimizingCompilerOptions());

  // The optimized computation for 'request', from the cache or compiled
  // now (and then cached, evicting the least recently used entry if full).
  std::shared_ptr<const NnetComputation> Compile(
      const ComputationRequest &request);

  // Left and right context of the network (computed once).
  void GetSimpleNnetContext(int32 *left_context, int32 *right_context);

  // Called (outside the cache's lock, in the compiling thread) after each
  // computation this object compiles, before Compile() returns it; null (the
  // default) calls nothing. Tools give the compiler's freed temporaries
  // back to the system here (ReleaseFreeHeapPages), before the computation
  // they were made for allocates its matrices. Set before compiling.
  void SetAfterCompile(std::function<void()> after_compile) {
    after_compile_ = std::move(after_compile);
  }

  int64 NumCompilations() const;
  int64 NumHits() const;
  // Seconds spent compiling and optimizing.
  double CompileSeconds() const;
  // Number of computations in the cache now.
  int32 NumCached() const;

  // Reads a cache in the format above. If it was made for this network
  // structure and these options, the cache then holds its entries (the
  // first most recently used, at most cache_capacity) and nothing else;
  // otherwise a warning is logged, the rest of the stream is left unread
  // and the cache is left as it was. A malformed cache (one that does not
  // parse) is an error (UserError) and also leaves the cache as it was.
  // Every entry that parses is then validated against this network and its
  // request (ValidateComputation, nnet3/analyze/validate.h) before it is
  // used: entries that fail are dropped, so their requests are compiled
  // again when they come up, and one warning names how many were dropped
  // and the first problem ("cached computation 3 in foo.cache, command c17
  // (kMatrixCopy): source submatrix index 912 is out of range (the
  // computation has 40 submatrices)"; entries are numbered from 0 in file
  // order).
  void ReadCache(std::istream &is, bool binary);
  // Writes the cache in the format above.
  void WriteCache(std::ostream &os, bool binary) const;
  // The same on an rxfilename / wxfilename (util/stream.h); errors name the
  // file. Writing a regular file replaces it atomically.
  void ReadCacheFile(const std::string &rxfilename);
  void WriteCacheFile(const std::string &wxfilename, bool binary) const;

  // The KEY written after <NnetStructure> (16 hex digits).
  const std::string &StructureKey() const { return structure_key_; }

 private:
  typedef std::list<ComputationRequest> MruList;
  struct Entry {
    std::shared_ptr<const NnetComputation> computation;
    MruList::iterator position;
  };
  // 'what' names the source in messages ("file.cache", "the stream").
  void ReadCacheInternal(std::istream &is, bool binary,
                         const std::string &what);
  // Adds an entry at the front; the caller holds mutex_ and has checked
  // that 'request' is not cached.
  void InsertLocked(const ComputationRequest &request,
                    const std::shared_ptr<const NnetComputation> &computation);

  const Nnet &nnet_;
  std::function<void()> after_compile_;
  NnetOptimizeOptions opt_config_;
  CachingOptimizingCompilerOptions config_;
  std::string structure_key_;
  mutable std::mutex mutex_;
  MruList mru_;  // front = most recently used
  std::unordered_map<ComputationRequest, Entry, ComputationRequestHasher>
      cache_;
  // Requests some thread is compiling now: another thread asking for one
  // waits on in_flight_done_ for that result instead of compiling it again.
  std::unordered_set<ComputationRequest, ComputationRequestHasher> in_flight_;
  std::condition_variable in_flight_done_;
  int32 left_context_ = -1, right_context_ = -1;
  int64 num_compilations_ = 0, num_hits_ = 0;
  double compile_seconds_ = 0.0;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_OPTIMIZE_CACHING_OPTIMIZING_COMPILER_H_
