// nnet3/compile/caching-compiler.h
// A compiler that remembers what it compiled: computations are kept in a
// most-recently-used cache keyed by the ComputationRequest, so a tool that
// sees many utterances of the same shape compiles each shape once. Also
// answers the network's context (left/right) for simple networks.
// Invariants: at most 'cache_capacity' computations are held; a returned
// computation stays valid as long as the caller holds its shared_ptr, even
// after eviction; Compile() is safe to call from several threads.
#ifndef NNET3_NNET3_COMPILE_CACHING_COMPILER_H_
#define NNET3_NNET3_COMPILE_CACHING_COMPILER_H_

#include <list>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "nnet3/compile/compiler.h"

namespace nnet3 {

struct CachingCompilerOptions {
  int32 cache_capacity = 64;
  // Compile regular requests for two sequences and expand (shortcut.h).
  bool use_shortcut = true;
  CompilerOptions compiler;
  void Register(OptionsItf *opts);
};

class CachingCompiler {
 public:
  // 'nnet' must outlive this object and keep its structure.
  CachingCompiler(const Nnet &nnet, const CachingCompilerOptions &opts =
                                         CachingCompilerOptions());
  std::shared_ptr<const NnetComputation> Compile(
      const ComputationRequest &request);
  // Left and right context of the network (computed once).
  void GetSimpleNnetContext(int32 *left_context, int32 *right_context);
  int64 NumCompilations() const { return num_compilations_; }
  int64 NumHits() const { return num_hits_; }
  double CompileSeconds() const { return compile_seconds_; }

 private:
  typedef std::list<ComputationRequest> MruList;
  struct Entry {
    std::shared_ptr<const NnetComputation> computation;
    MruList::iterator position;
  };
  const Nnet &nnet_;
  CachingCompilerOptions opts_;
  std::mutex mutex_;
  MruList mru_;  // front = most recently used
  std::unordered_map<ComputationRequest, Entry, ComputationRequestHasher>
      cache_;
  int32 left_context_ = -1, right_context_ = -1;
  int64 num_compilations_ = 0, num_hits_ = 0;
  double compile_seconds_ = 0.0;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPILE_CACHING_COMPILER_H_
