// tests/nnet3/optimize/caching-compiler-test.cc
// CachingOptimizingCompiler: hits and misses, least-recently-used
// eviction, the result equals compile + Optimize(), the on-disk cache
// (round trips through streams and files give identical computations and
// only hits; a cache for another network structure or other options is
// ignored with a warning; parameters alone do not matter; a truncated or
// unparseable cache is an error naming the file; an entry that parses but
// does not validate is dropped with one warning and recompiled; see
// validate-test.cc for the validation itself), the time of a hit, and
// concurrent use from four threads; the after-compile callback.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <atomic>
#include <thread>
#include <vector>

#include "base/log.h"
#include "common/context-request.h"
#include "common/testing.h"
#include "nnet3/compile/shortcut.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

std::string Config(int32 hidden_dim) {
  std::ostringstream os;
  os << "input-node name=input dim=3\n"
     << "component name=affine1 type=AffineComponent input-dim=9 output-dim="
     << hidden_dim << "\n"
     << "component-node name=affine1 component=affine1 "
     << "input=Append(Offset(input, -1), input, Offset(input, 1))\n"
     << "component name=relu type=RectifiedLinearComponent dim=" << hidden_dim
     << "\n"
     << "component-node name=relu component=relu input=affine1\n"
     << "component name=affine2 type=AffineComponent input-dim="
     << 2 * hidden_dim << " output-dim=2\n"
     << "component-node name=affine2 component=affine2 "
     << "input=Append(Offset(relu, -1), Offset(relu, 1))\n"
     << "output-node name=output input=affine2\n";
  return os.str();
}

// Outputs t in [0, num_frames) for num_n sequences (n varying fastest),
// inputs with the network's context of 2 on each side.
ComputationRequest MakeRequest(int32 num_frames, int32 num_n = 1,
                               bool backprop = false) {
  return testing::ContextRequest(num_frames, num_n, 2, backprop, false);
}

std::string Bytes(const NnetComputation &computation) {
  std::ostringstream os;
  computation.Write(os, true);
  return os.str();
}

std::string CacheBytes(const CachingOptimizingCompiler &compiler,
                       bool binary) {
  std::ostringstream os;
  compiler.WriteCache(os, binary);
  return os.str();
}

// Collects warnings (and errors) logged while it lives.
class WarningCollector {
 public:
  WarningCollector() {
    previous_ = SetLogHandler([this](int severity, const std::string &line) {
      if (severity <= static_cast<int>(LogSeverity::kWarning))
        lines_.push_back(line);
    });
  }
  ~WarningCollector() { SetLogHandler(previous_); }
  std::string Text() const {
    std::string text;
    for (const std::string &line : lines_) text += line + "\n";
    return text;
  }
  size_t NumLines() const { return lines_.size(); }

 private:
  LogHandler previous_;
  std::vector<std::string> lines_;
};

TEST(CachingOptimizingCompiler, SameRequestTwiceIsOneCompilationAndOneHit) {
  Nnet nnet = NnetFromConfigString(Config(4));
  CachingOptimizingCompiler compiler(nnet);
  ComputationRequest request = MakeRequest(5);
  auto a = compiler.Compile(request);
  EXPECT_EQ(compiler.NumCompilations(), 1);
  EXPECT_EQ(compiler.NumHits(), 0);
  auto b = compiler.Compile(MakeRequest(5));
  EXPECT_EQ(compiler.NumCompilations(), 1);
  EXPECT_EQ(compiler.NumHits(), 1);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(compiler.NumCached(), 1);
  EXPECT_GE(compiler.CompileSeconds(), 0.0);
  int32 left, right;
  compiler.GetSimpleNnetContext(&left, &right);
  EXPECT_EQ(left, 2);
  EXPECT_EQ(right, 2);
}

// The after-compile callback runs once per compilation, after the result
// is cached (a hit from inside it finds it), and never for a hit.
TEST(CachingOptimizingCompiler, AfterCompileRunsOncePerCompilation) {
  Nnet nnet = NnetFromConfigString(Config(4));
  CachingOptimizingCompiler compiler(nnet);
  int calls = 0;
  int64 hits_seen_inside = -1;
  compiler.SetAfterCompile([&]() {
    calls++;
    hits_seen_inside = compiler.NumHits();
    compiler.Compile(MakeRequest(5));  // must not compile again
  });
  compiler.Compile(MakeRequest(5));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(hits_seen_inside, 0);
  EXPECT_EQ(compiler.NumHits(), 1);
  compiler.Compile(MakeRequest(5));
  EXPECT_EQ(calls, 1);
  compiler.Compile(MakeRequest(6));
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(compiler.NumCompilations(), 2);
}

TEST(CachingOptimizingCompiler, EvictsTheLeastRecentlyUsed) {
  Nnet nnet = NnetFromConfigString(Config(4));
  CachingOptimizingCompilerOptions config;
  config.cache_capacity = 2;
  CachingOptimizingCompiler compiler(nnet, NnetOptimizeOptions(), config);
  ComputationRequest r1 = MakeRequest(3), r2 = MakeRequest(4),
                     r3 = MakeRequest(5);
  auto c1 = compiler.Compile(r1);
  compiler.Compile(r2);
  compiler.Compile(r1);  // hit: r1 is now the most recently used
  EXPECT_EQ(compiler.NumHits(), 1);
  compiler.Compile(r3);  // evicts r2
  EXPECT_EQ(compiler.NumCompilations(), 3);
  EXPECT_EQ(compiler.NumCached(), 2);
  compiler.Compile(r1);
  compiler.Compile(r3);
  EXPECT_EQ(compiler.NumCompilations(), 3);
  EXPECT_EQ(compiler.NumHits(), 3);
  compiler.Compile(r2);  // compiled again, evicting r1
  EXPECT_EQ(compiler.NumCompilations(), 4);
  compiler.Compile(r1);
  EXPECT_EQ(compiler.NumCompilations(), 5);
  // An evicted computation stays valid for its holder.
  EXPECT_FALSE(c1->commands.empty());
  // Capacity 0 is refused.
  config.cache_capacity = 0;
  EXPECT_THROW(CachingOptimizingCompiler(nnet, NnetOptimizeOptions(), config),
               UserError);
}

TEST(CachingOptimizingCompiler, ResultIsTheOptimizedCompilation) {
  Nnet nnet = NnetFromConfigString(Config(4));
  for (bool use_shortcut : {true, false}) {
    CachingOptimizingCompilerOptions config;
    config.use_shortcut = use_shortcut;
    NnetOptimizeOptions opt;
    CachingOptimizingCompiler compiler(nnet, opt, config);
    ComputationRequest request = MakeRequest(6, 3, true);
    NnetComputation expected;
    if (use_shortcut)
      CompileWithShortcut(nnet, request, config.compiler, &expected);
    else
      CompileComputation(nnet, request, config.compiler, &expected);
    Optimize(opt, nnet, 5, &expected);
    EXPECT_EQ(Bytes(*compiler.Compile(request)), Bytes(expected))
        << "use_shortcut=" << use_shortcut;
  }
}

TEST(CachingOptimizingCompiler, DiskRoundTripGivesHitsAndIdenticalComputations) {
  Nnet nnet = NnetFromConfigString(Config(4));
  std::vector<ComputationRequest> requests = {
      MakeRequest(3), MakeRequest(7, 3), MakeRequest(5, 1, true),
      MakeRequest(4, 4, true)};
  CachingOptimizingCompiler writer(nnet);
  std::vector<std::string> expected;
  for (const ComputationRequest &r : requests)
    expected.push_back(Bytes(*writer.Compile(r)));
  for (bool binary : {true, false}) {
    std::string bytes = CacheBytes(writer, binary);
    std::istringstream is(bytes);
    CachingOptimizingCompiler reader(nnet);
    reader.ReadCache(is, binary);
    EXPECT_EQ(reader.NumCached(), 4);
    // The order (most recently used first) survives the round trip.
    EXPECT_EQ(CacheBytes(reader, binary), bytes);
    for (size_t i = 0; i < requests.size(); i++)
      EXPECT_EQ(Bytes(*reader.Compile(requests[i])), expected[i])
          << "binary=" << binary << ", request " << i;
    EXPECT_EQ(reader.NumCompilations(), 0);
    EXPECT_EQ(reader.NumHits(), 4);
  }
  // Through files, atomically replaced.
  testing::TempDir dir;
  std::string file = dir.File("cache");
  writer.WriteCacheFile(file, true);
  writer.WriteCacheFile(file, true);
  std::string contents = testing::ReadFile(file);
  EXPECT_EQ(contents.substr(0, 21), std::string("\0B<ComputationCache> ", 21));
  CachingOptimizingCompiler from_file(nnet);
  from_file.ReadCacheFile(file);
  for (size_t i = 0; i < requests.size(); i++)
    EXPECT_EQ(Bytes(*from_file.Compile(requests[i])), expected[i]);
  EXPECT_EQ(from_file.NumCompilations(), 0);
  // Reading keeps at most cache_capacity entries: the most recent ones.
  CachingOptimizingCompilerOptions small;
  small.cache_capacity = 2;
  CachingOptimizingCompiler two(nnet, NnetOptimizeOptions(), small);
  two.ReadCacheFile(file);
  EXPECT_EQ(two.NumCached(), 2);
  two.Compile(requests[3]);
  two.Compile(requests[2]);
  EXPECT_EQ(two.NumCompilations(), 0);
  two.Compile(requests[0]);
  EXPECT_EQ(two.NumCompilations(), 1);
}

TEST(CachingOptimizingCompiler, HeaderLayout) {
  Nnet nnet = NnetFromConfigString(Config(4));
  CachingOptimizingCompiler compiler(nnet);
  std::string key = compiler.StructureKey();
  ASSERT_EQ(key.size(), 16u);
  EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(CacheBytes(compiler, false),
            "<ComputationCache> <Version> 1 <NnetStructure> " + key +
                " <NumEntries> 0 \n</ComputationCache> \n");
  EXPECT_EQ(CacheBytes(compiler, true),
            "<ComputationCache> <Version> " + std::string("\x04\x01\0\0\0", 5) +
                "<NnetStructure> " + key + " <NumEntries> " +
                std::string("\x04\0\0\0\0", 5) + "</ComputationCache> ");
}

TEST(CachingOptimizingCompiler, StaleCacheIsIgnoredWithAWarning) {
  Nnet nnet = NnetFromConfigString(Config(4));
  CachingOptimizingCompiler writer(nnet);
  ComputationRequest request = MakeRequest(5);
  writer.Compile(request);
  testing::TempDir dir;
  std::string file = dir.File("old.cache");
  writer.WriteCacheFile(file, true);

  // Another dimension: another structure.
  Nnet other = NnetFromConfigString(Config(5));
  {
    CachingOptimizingCompiler reader(other);
    WarningCollector warnings;
    reader.ReadCacheFile(file);
    EXPECT_NE(warnings.Text().find("Computation cache in " + file +
                                   " was made for a different network "
                                   "structure or options; ignoring it"),
              std::string::npos)
        << warnings.Text();
    EXPECT_EQ(reader.NumCached(), 0);
    reader.Compile(request);
    EXPECT_EQ(reader.NumCompilations(), 1);
    EXPECT_EQ(reader.NumHits(), 0);
  }
  // Other optimizer options, or other compiler options.
  NnetOptimizeOptions no_in_place;
  no_in_place.propagate_in_place = false;
  CachingOptimizingCompilerOptions no_shortcut, no_debug;
  no_shortcut.use_shortcut = false;
  no_debug.compiler.output_debug_info = false;
  CachingOptimizingCompiler r1(nnet, no_in_place),
      r2(nnet, NnetOptimizeOptions(), no_shortcut),
      r3(nnet, NnetOptimizeOptions(), no_debug);
  for (CachingOptimizingCompiler *reader : {&r1, &r2, &r3}) {
    EXPECT_NE(reader->StructureKey(), writer.StructureKey());
    WarningCollector warnings;
    reader->ReadCacheFile(file);
    EXPECT_EQ(warnings.NumLines(), 1u) << warnings.Text();
    EXPECT_NE(warnings.Text().find("different network structure or options"),
              std::string::npos);
    EXPECT_EQ(reader->NumCached(), 0);
  }
  // A TdnnComponent's time offsets are: they shape the computation as the
  // offsets of a spliced Append do.
  {
    auto tdnn = [](const std::string &offsets) {
      return NnetFromConfigString(
          "input-node name=input dim=3\n"
          "component name=t type=TdnnComponent input-dim=3 output-dim=2 "
          "time-offsets=" + offsets + "\n"
          "component-node name=t component=t input=input\n"
          "output-node name=output input=t\n");
    };
    Nnet a = tdnn("-1,0,1"), b = tdnn("-3,0,3"), c = tdnn("-1,0,1");
    EXPECT_NE(CachingOptimizingCompiler(a).StructureKey(),
              CachingOptimizingCompiler(b).StructureKey());
    EXPECT_EQ(CachingOptimizingCompiler(a).StructureKey(),
              CachingOptimizingCompiler(c).StructureKey());
  }
  // The cache size is not part of the key, and neither are the parameters.
  Nnet scaled = nnet;
  for (int32 c = 0; c < scaled.NumComponents(); c++)
    scaled.GetComponent(c)->Scale(0.5);
  CachingOptimizingCompilerOptions bigger;
  bigger.cache_capacity = 100;
  CachingOptimizingCompiler same(scaled, NnetOptimizeOptions(), bigger);
  EXPECT_EQ(same.StructureKey(), writer.StructureKey());
  WarningCollector warnings;
  same.ReadCacheFile(file);
  EXPECT_EQ(warnings.NumLines(), 0u) << warnings.Text();
  same.Compile(request);
  EXPECT_EQ(same.NumHits(), 1);
  EXPECT_EQ(same.NumCompilations(), 0);
}

TEST(CachingOptimizingCompiler, DamagedCacheIsAnErrorNamingTheFile) {
  Nnet nnet = NnetFromConfigString(Config(4));
  CachingOptimizingCompiler writer(nnet);
  writer.Compile(MakeRequest(5));
  writer.Compile(MakeRequest(6, 3));
  testing::TempDir dir;
  std::string good = dir.File("good.cache");
  writer.WriteCacheFile(good, true);
  const std::string bytes = testing::ReadFile(good);
  std::string file = dir.File("bad.cache");
  // Truncations at many points (the header included) are errors that
  // name the file and leave the cache as it was.
  CachingOptimizingCompiler reader(nnet);
  reader.Compile(MakeRequest(9));
  size_t step = std::max<size_t>(1, bytes.size() / 40);
  for (size_t len = 2; len < bytes.size(); len += step) {
    testing::WriteFile(file, bytes.substr(0, len));
    try {
      reader.ReadCacheFile(file);
      ADD_FAILURE() << "no error for a cache truncated to " << len
                    << " bytes";
    } catch (const UserError &e) {
      EXPECT_NE(e.message().find("Corrupt computation cache in " + file),
                std::string::npos)
          << e.message();
    }
    EXPECT_EQ(reader.NumCached(), 1);
  }
  // A computation that uses a component this network lacks parses but does
  // not validate: it is dropped with one warning naming the entry and the
  // command, the other entry is kept, and its request is compiled again.
  std::string text = CacheBytes(writer, false);
  size_t pos = text.find("<Cmd> kPropagate\n");
  ASSERT_NE(pos, std::string::npos);
  pos = text.find("<Args> ", pos);
  ASSERT_NE(pos, std::string::npos);
  size_t end = text.find(' ', pos + 7);
  text.replace(pos + 7, end - (pos + 7), "17");
  std::istringstream is(text);
  {
    WarningCollector warnings;
    reader.ReadCache(is, false);
    EXPECT_EQ(warnings.NumLines(), 1u) << warnings.Text();
    EXPECT_NE(warnings.Text().find(
                  "Ignoring 1 invalid computation read from the stream (they "
                  "will be recompiled): cached computation 0 in the stream, "
                  "command c"),
              std::string::npos)
        << warnings.Text();
    EXPECT_NE(warnings.Text().find("(kPropagate): component index 17 is out "
                                   "of range (the network has 3 components)"),
              std::string::npos)
        << warnings.Text();
  }
  EXPECT_EQ(reader.NumCached(), 1);
  int64 compilations = reader.NumCompilations();
  reader.Compile(MakeRequest(6, 3));  // entry 0, the most recently used
  reader.Compile(MakeRequest(5));
  EXPECT_EQ(reader.NumCompilations(), compilations + 1);
  // A file that is not there.
  EXPECT_THROW(reader.ReadCacheFile(dir.File("missing.cache")), UserError);
}

TEST(CachingOptimizingCompiler, CacheHitIsFast) {
  Nnet nnet = NnetFromConfigString(Config(16));
  CachingOptimizingCompiler compiler(nnet);
  ComputationRequest request = MakeRequest(50, 1);
  compiler.Compile(request);
  const int32 kHits = 1000;
  auto start = std::chrono::steady_clock::now();
  for (int32 i = 0; i < kHits; i++) compiler.Compile(request);
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start).count();
  double ms_per_hit = 1000.0 * seconds / kHits;
  printf("cache hit: %.4f ms on average over %d hits (compiling took %.3f "
         "ms)\n", ms_per_hit, kHits, 1000.0 * compiler.CompileSeconds());
  EXPECT_EQ(compiler.NumHits(), kHits);
  EXPECT_LT(ms_per_hit, 50.0);
}

TEST(CachingOptimizingCompiler, FourThreadsCompileTheSameRequests) {
  Nnet nnet = NnetFromConfigString(Config(6));
  std::vector<ComputationRequest> requests;
  for (int32 i = 0; i < 8; i++)
    requests.push_back(MakeRequest(3 + i, 1 + i % 4, i % 2 == 1));
  std::vector<std::string> expected;
  {
    CachingOptimizingCompiler reference(nnet);
    for (const ComputationRequest &r : requests)
      expected.push_back(Bytes(*reference.Compile(r)));
  }
  CachingOptimizingCompiler compiler(nnet);
  const int32 kThreads = 4, kRounds = 5;
  std::vector<std::vector<std::string> > results(
      kThreads, std::vector<std::string>(requests.size()));
  std::vector<std::thread> threads;
  for (int32 t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t]() {
      for (int32 round = 0; round < kRounds; round++) {
        for (size_t k = 0; k < requests.size(); k++) {
          // Each thread walks the requests from a different start.
          size_t i = (k + 2 * t) % requests.size();
          std::shared_ptr<const NnetComputation> c =
              compiler.Compile(requests[i]);
          if (round == kRounds - 1) results[t][i] = Bytes(*c);
        }
      }
    });
  }
  for (std::thread &thread : threads) thread.join();
  for (int32 t = 0; t < kThreads; t++)
    for (size_t i = 0; i < requests.size(); i++)
      EXPECT_EQ(results[t][i], expected[i]) << "thread " << t << ", request "
                                            << i;
  EXPECT_EQ(compiler.NumCached(), 8);
  int64 total = kThreads * kRounds * static_cast<int64>(requests.size());
  EXPECT_EQ(compiler.NumHits() + compiler.NumCompilations(), total);
  // A request being compiled by one thread is waited for by the others,
  // never compiled twice.
  EXPECT_EQ(compiler.NumCompilations(), 8);
}

TEST(CachingOptimizingCompiler, ThreadsAskingForOneNewRequestShareOneCompilation) {
  Nnet nnet = NnetFromConfigString(Config(6));
  CachingOptimizingCompiler compiler(nnet);
  const int32 kThreads = 6;
  ComputationRequest request = MakeRequest(37, 3, true);
  std::vector<std::shared_ptr<const NnetComputation> > got(kThreads);
  std::atomic<int32> ready(0);
  std::vector<std::thread> threads;
  for (int32 t = 0; t < kThreads; t++)
    threads.emplace_back([&, t]() {
      ready++;
      while (ready.load() < kThreads) std::this_thread::yield();
      got[t] = compiler.Compile(request);
    });
  for (std::thread &thread : threads) thread.join();
  EXPECT_EQ(compiler.NumCompilations(), 1);
  EXPECT_EQ(compiler.NumHits(), kThreads - 1);
  for (int32 t = 1; t < kThreads; t++) EXPECT_EQ(got[t].get(), got[0].get());
}

}  // namespace
}  // namespace nnet3
