// nnet3/optimize/caching-optimizing-compiler.cc
// Compile + optimize + MRU cache of computations keyed by request, and the
// on-disk cache (see caching-optimizing-compiler.h for the format).
#include "nnet3/optimize/caching-optimizing-compiler.h"

#include <climits>
#include <cstdio>
#include <sstream>
#include <utility>
#include <vector>

#include "base/io.h"
#include "base/log.h"
#include "base/profile.h"
#include "base/timer.h"
#include "nnet3/analyze/validate.h"
#include "nnet3/components/tdnn.h"
#include "nnet3/compile/shortcut.h"
#include "nnet3/nnet/nnet-utils.h"
#include "util/stream.h"

namespace nnet3 {

namespace {

const int32 kCacheVersion = 1;

// An OptionsItf that writes "name=value;" for every option registered into
// it, so that an options struct's Register() lists all its values (new
// options are then part of the structure key without changes here).
class OptionsRecorder : public OptionsItf {
 public:
  void Register(const std::string &name, bool *ptr,
                const std::string &) override {
    Add(name, *ptr ? "true" : "false");
  }
  void Register(const std::string &name, int32 *ptr,
                const std::string &) override {
    Add(name, std::to_string(*ptr));
  }
  void Register(const std::string &name, uint32 *ptr,
                const std::string &) override {
    Add(name, std::to_string(*ptr));
  }
  void Register(const std::string &name, float *ptr,
                const std::string &) override {
    std::ostringstream os;
    os.precision(9);
    os << *ptr;
    Add(name, os.str());
  }
  void Register(const std::string &name, double *ptr,
                const std::string &) override {
    std::ostringstream os;
    os.precision(17);
    os << *ptr;
    Add(name, os.str());
  }
  void Register(const std::string &name, std::string *ptr,
                const std::string &) override {
    Add(name, *ptr);
  }
  const std::string &Text() const { return text_; }

 private:
  void Add(const std::string &name, const std::string &value) {
    text_ += name + "=" + value + ";";
  }
  std::string text_;
};

// 64-bit FNV-1a.
uint64 HashString(const std::string &s) {
  uint64 h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string ComputeStructureKey(const Nnet &nnet,
                                const NnetOptimizeOptions &opt_config,
                                const CachingOptimizingCompilerOptions &config) {
  std::ostringstream os;
  os << "nnet:\n";
  std::vector<std::string> lines;
  nnet.GetConfigLines(true, &lines);
  for (const std::string &line : lines) os << line << "\n";
  os << "components:\n";
  for (int32 c = 0; c < nnet.NumComponents(); c++) {
    const Component *component = nnet.GetComponent(c);
    os << nnet.GetComponentName(c) << " " << component->Type() << " "
       << component->InputDim() << " " << component->OutputDim() << " "
       << component->Properties();
    // A TdnnComponent's time offsets shape the computation as a spliced
    // Append does (the inference tools turn one into the other).
    if (const TdnnComponent *tdnn =
            dynamic_cast<const TdnnComponent *>(component))
      for (int32 t : tdnn->TimeOffsets()) os << " " << t;
    os << "\n";
  }
  NnetOptimizeOptions opt_copy = opt_config;
  OptionsRecorder opt_recorder;
  opt_copy.Register(&opt_recorder);
  os << "optimization:" << opt_recorder.Text();
  CompilerOptions compiler_copy = config.compiler;
  OptionsRecorder compiler_recorder;
  compiler_copy.Register(&compiler_recorder);
  os << "compiler:" << compiler_recorder.Text()
     << "use-shortcut=" << (config.use_shortcut ? "true" : "false") << "\n";
  char buf[17];
  snprintf(buf, sizeof(buf), "%016llx",
           static_cast<unsigned long long>(HashString(os.str())));
  return std::string(buf);
}

int32 LargestOutputTime(const ComputationRequest &request) {
  bool found = false;
  int32 ans = INT_MIN;
  for (const IoSpecification &spec : request.outputs) {
    for (const Index &index : spec.indexes) {
      if (!found || index.t > ans) ans = index.t;
      found = true;
    }
  }
  if (!found)
    NNET3_ERR << "The computation request has no output Indexes";
  return ans;
}

}  // namespace

void CachingOptimizingCompilerOptions::Register(OptionsItf *opts) {
  opts->Register("cache-capacity", &cache_capacity,
                 "Number of compiled computations to keep in memory");
  opts->Register("use-shortcut", &use_shortcut,
                 "Compile a request whose sequences all look alike for two "
                 "sequences ('n' values) only and then widen the result to "
                 "the real number; much faster compilation for minibatches");
  compiler.Register(opts);
}

CachingOptimizingCompiler::CachingOptimizingCompiler(
    const Nnet &nnet, const NnetOptimizeOptions &opt_config,
    const CachingOptimizingCompilerOptions &config)
    : nnet_(nnet), opt_config_(opt_config), config_(config) {
  if (config_.cache_capacity < 1)
    NNET3_ERR << "--compiler.cache-capacity must be at least 1, got "
              << config_.cache_capacity;
  structure_key_ = ComputeStructureKey(nnet_, opt_config_, config_);
}

std::shared_ptr<const NnetComputation> CachingOptimizingCompiler::Compile(
    const ComputationRequest &request) {
  ProfileScope profile("compilation and cache lookup");
  {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      auto it = cache_.find(request);
      if (it != cache_.end()) {
        mru_.splice(mru_.begin(), mru_, it->second.position);
        num_hits_++;
        return it->second.computation;
      }
      // Another thread is compiling this request: wait for its result
      // (if that compilation fails, or the entry is evicted at once, this
      // thread compiles it itself).
      if (in_flight_.count(request) == 0) break;
      in_flight_done_.wait(lock);
    }
    in_flight_.insert(request);
  }
  // Compile outside the lock; other requests are looked up and compiled by
  // other threads meanwhile.
  std::shared_ptr<NnetComputation> computation;
  double seconds = 0.0;
  try {
    Timer timer;
    computation = std::make_shared<NnetComputation>();
    if (config_.use_shortcut)
      CompileWithShortcut(nnet_, request, config_.compiler, computation.get());
    else
      CompileComputation(nnet_, request, config_.compiler, computation.get());
    Optimize(opt_config_, nnet_, LargestOutputTime(request),
             computation.get());
    seconds = timer.Elapsed();
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    in_flight_.erase(request);
    in_flight_done_.notify_all();
    throw;
  }
  std::shared_ptr<const NnetComputation> result = computation;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    num_compilations_++;
    compile_seconds_ += seconds;
    in_flight_.erase(request);
    in_flight_done_.notify_all();
    auto it = cache_.find(request);
    if (it != cache_.end())
      result = it->second.computation;
    else
      InsertLocked(request, computation);
  }
  computation.reset();
  if (after_compile_) after_compile_();
  return result;
}

void CachingOptimizingCompiler::InsertLocked(
    const ComputationRequest &request,
    const std::shared_ptr<const NnetComputation> &computation) {
  if (static_cast<int32>(cache_.size()) >= config_.cache_capacity) {
    cache_.erase(mru_.back());
    mru_.pop_back();
  }
  mru_.push_front(request);
  Entry entry;
  entry.computation = computation;
  entry.position = mru_.begin();
  cache_.insert(std::make_pair(request, entry));
}

void CachingOptimizingCompiler::GetSimpleNnetContext(int32 *left_context,
                                                     int32 *right_context) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (left_context_ < 0)
    ComputeSimpleNnetContext(nnet_, &left_context_, &right_context_);
  *left_context = left_context_;
  *right_context = right_context_;
}

int64 CachingOptimizingCompiler::NumCompilations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return num_compilations_;
}

int64 CachingOptimizingCompiler::NumHits() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return num_hits_;
}

double CachingOptimizingCompiler::CompileSeconds() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return compile_seconds_;
}

int32 CachingOptimizingCompiler::NumCached() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int32>(cache_.size());
}

void CachingOptimizingCompiler::ReadCacheInternal(std::istream &is,
                                                  bool binary,
                                                  const std::string &what) {
  typedef std::pair<ComputationRequest, std::shared_ptr<NnetComputation> >
      CachedPair;
  std::vector<CachedPair> entries;
  int32 num_invalid = 0;
  std::string first_problem;
  try {
    ExpectToken(is, binary, "<ComputationCache>");
    ExpectToken(is, binary, "<Version>");
    int32 version;
    ReadBasicType(is, binary, &version);
    if (version != kCacheVersion) {
      NNET3_WARN << "Computation cache in " << what << " has version "
                 << version << " but this program reads version "
                 << kCacheVersion << "; ignoring it";
      return;
    }
    ExpectToken(is, binary, "<NnetStructure>");
    std::string key;
    ReadToken(is, binary, &key);
    if (key != structure_key_) {
      NNET3_WARN << "Computation cache in " << what << " was made for a "
                 << "different network structure or options; ignoring it";
      return;
    }
    ExpectToken(is, binary, "<NumEntries>");
    int32 num_entries;
    ReadBasicType(is, binary, &num_entries);
    if (num_entries < 0)
      NNET3_ERR << "negative <NumEntries> " << num_entries;
    for (int32 i = 0; i < num_entries; i++) {
      ComputationRequest request;
      request.Read(is, binary);
      auto computation = std::make_shared<NnetComputation>();
      computation->Read(is, binary);
      // An entry that reads but does not validate is dropped (its request
      // is compiled again when it comes up); only the first problem is
      // reported, in one warning below.
      try {
        ValidateComputation(nnet_, request, *computation);
      } catch (const UserError &e) {
        if (num_invalid++ == 0)
          first_problem = "cached computation " + std::to_string(i) +
                          " in " + what + ", " + e.message();
        continue;
      }
      entries.emplace_back(std::move(request), std::move(computation));
    }
    ExpectToken(is, binary, "</ComputationCache>");
  } catch (const UserError &e) {
    NNET3_ERR << "Corrupt computation cache in " << what << ": "
              << e.message();
  }
  if (num_invalid > 0)
    NNET3_WARN << "Ignoring " << num_invalid << " invalid computation"
               << (num_invalid == 1 ? "" : "s") << " read from " << what
               << " (they will be recompiled): " << first_problem;
  std::lock_guard<std::mutex> lock(mutex_);
  cache_.clear();
  mru_.clear();
  // Entries are listed most recently used first: insert from the back so
  // that the first ends up at the front. Only the first cache_capacity
  // distinct requests are kept.
  std::vector<const CachedPair *> kept;
  std::unordered_map<ComputationRequest, bool, ComputationRequestHasher> seen;
  for (const CachedPair &entry : entries) {
    if (static_cast<int32>(kept.size()) >= config_.cache_capacity) break;
    if (seen.emplace(entry.first, true).second) kept.push_back(&entry);
  }
  for (auto it = kept.rbegin(); it != kept.rend(); ++it)
    InsertLocked((*it)->first, (*it)->second);
}

void CachingOptimizingCompiler::ReadCache(std::istream &is, bool binary) {
  ReadCacheInternal(is, binary, "the stream");
}

void CachingOptimizingCompiler::WriteCache(std::ostream &os,
                                           bool binary) const {
  std::lock_guard<std::mutex> lock(mutex_);
  WriteToken(os, binary, "<ComputationCache>");
  WriteToken(os, binary, "<Version>");
  WriteBasicType(os, binary, kCacheVersion);
  WriteToken(os, binary, "<NnetStructure>");
  WriteToken(os, binary, structure_key_);
  WriteToken(os, binary, "<NumEntries>");
  WriteBasicType(os, binary, static_cast<int32>(mru_.size()));
  if (!binary) os << '\n';
  for (const ComputationRequest &request : mru_) {
    request.Write(os, binary);
    cache_.at(request).computation->Write(os, binary);
  }
  WriteToken(os, binary, "</ComputationCache>");
  if (!binary) os << '\n';
  if (!os.good())
    NNET3_ERR << "Output stream error writing the computation cache";
}

void CachingOptimizingCompiler::ReadCacheFile(const std::string &rxfilename) {
  bool binary;
  Input ki(rxfilename, &binary);
  ReadCacheInternal(ki.Stream(), binary, PrintableRxfilename(rxfilename));
  ki.Close();
}

namespace {
// Adapts WriteCache() to WriteKaldiObject().
struct CacheWriter {
  const CachingOptimizingCompiler *compiler;
  void Write(std::ostream &os, bool binary) const {
    compiler->WriteCache(os, binary);
  }
};
}  // namespace

void CachingOptimizingCompiler::WriteCacheFile(const std::string &wxfilename,
                                               bool binary) const {
  CacheWriter writer{this};
  WriteKaldiObject(writer, wxfilename, binary);
}

}  // namespace nnet3
