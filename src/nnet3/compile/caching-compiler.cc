// nnet3/compile/caching-compiler.cc
// MRU cache of compiled computations keyed by request.
#include "nnet3/compile/caching-compiler.h"

#include "base/timer.h"
#include "nnet3/compile/shortcut.h"
#include "nnet3/nnet/nnet-utils.h"

namespace nnet3 {

void CachingCompilerOptions::Register(OptionsItf *opts) {
  opts->Register("cache-capacity", &cache_capacity,
                 "Number of compiled computations to keep in memory");
  opts->Register("use-shortcut", &use_shortcut,
                 "If true, use the 'shortcut' in compilation whereby "
                 "computation requests with regular structure are identified "
                 "as such, a computation with a smaller number of distinct "
                 "values of 'n' is compiled (e.g. 2), and the compiled "
                 "computation is expanded to match the size of the real "
                 "computation; this saves a lot of compilation time.");
  compiler.Register(opts);
}

CachingCompiler::CachingCompiler(const Nnet &nnet,
                                 const CachingCompilerOptions &opts)
    : nnet_(nnet), opts_(opts) {
  if (opts_.cache_capacity < 1)
    NNET3_ERR << "--compiler.cache-capacity must be at least 1, got "
              << opts_.cache_capacity;
}

std::shared_ptr<const NnetComputation> CachingCompiler::Compile(
    const ComputationRequest &request) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(request);
    if (it != cache_.end()) {
      mru_.splice(mru_.begin(), mru_, it->second.position);
      num_hits_++;
      return it->second.computation;
    }
  }
  // Compile outside the lock; two threads asking for the same new request
  // may both compile it, and the second result is simply dropped.
  Timer timer;
  auto computation = std::make_shared<NnetComputation>();
  if (opts_.use_shortcut)
    CompileWithShortcut(nnet_, request, opts_.compiler, computation.get());
  else
    CompileComputation(nnet_, request, opts_.compiler, computation.get());
  double seconds = timer.Elapsed();
  std::lock_guard<std::mutex> lock(mutex_);
  num_compilations_++;
  compile_seconds_ += seconds;
  auto it = cache_.find(request);
  if (it != cache_.end()) return it->second.computation;
  if (static_cast<int32>(cache_.size()) >= opts_.cache_capacity) {
    cache_.erase(mru_.back());
    mru_.pop_back();
  }
  mru_.push_front(request);
  Entry entry;
  entry.computation = computation;
  entry.position = mru_.begin();
  cache_.insert(std::make_pair(request, entry));
  return computation;
}

void CachingCompiler::GetSimpleNnetContext(int32 *left_context,
                                           int32 *right_context) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (left_context_ < 0)
    ComputeSimpleNnetContext(nnet_, &left_context_, &right_context_);
  *left_context = left_context_;
  *right_context = right_context_;
}

}  // namespace nnet3
