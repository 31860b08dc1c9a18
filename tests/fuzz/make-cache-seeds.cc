// tests/fuzz/make-cache-seeds.cc
// Writes the seed inputs of the computation-cache fuzz target: the cache
// of the fixed network of cache-network.h after compiling its requests, in
// binary and in text form.
//   fuzz-make-cache-seeds tests/data/fuzz/computation-cache/seeds
#include <cstdio>
#include <string>

#include "fuzz/cache-network.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"

int main(int argc, char *argv[]) {
  using namespace nnet3;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <output-folder>\n", argv[0]);
    return 1;
  }
  std::string dir = argv[1];
  Nnet nnet = fuzz::CacheNetwork();
  CachingOptimizingCompiler compiler(nnet);
  for (const ComputationRequest &request : fuzz::CacheRequests())
    compiler.Compile(request);
  compiler.WriteCacheFile(dir + "/binary.cache", true);
  compiler.WriteCacheFile(dir + "/text.cache", false);
  // One entry only: a smaller seed for the fuzzer to start from.
  CachingOptimizingCompiler one(nnet);
  one.Compile(fuzz::CacheRequests()[0]);
  one.WriteCacheFile(dir + "/one-binary.cache", true);
  return 0;
}
