// tests/fuzz/computation-cache.cc
// Fuzz target: a computation cache file (the --read-cache path of
// nnet3-compute and nnet3-train): CachingOptimizingCompiler::ReadCacheFile
// over a fixed network (cache-network.h), which parses every
// ComputationRequest and NnetComputation and validates each computation
// against the network before keeping it. Then, as the tools do, each of the
// network's requests is compiled (a cache hit hands out the computation
// read from the file) and run by NnetComputer on random input, forward and,
// when the request asks for it, backward. Whatever validation let through
// must run without a sanitizer report.
//
// The cache key: a cache is only used if the 16 hex digits after
// <NnetStructure> match the network and options, a hash no mutation finds.
// When the input has 16 hex digits there, they are replaced by the right
// key before reading, so the fuzzer reaches the entries; other bytes there
// still exercise the "different structure" path.
#include <cctype>
#include <string>

#include "cudamatrix/cu-matrix.h"
#include "fuzz/cache-network.h"
#include "fuzz/fuzz-common.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"

namespace {

void FixKey(const std::string &key, std::string *bytes) {
  const std::string token = "<NnetStructure> ";
  size_t pos = bytes->find(token);
  if (pos == std::string::npos) return;
  pos += token.size();
  if (pos + key.size() > bytes->size()) return;
  for (size_t i = 0; i < key.size(); i++)
    if (!std::isxdigit(static_cast<unsigned char>((*bytes)[pos + i]))) return;
  bytes->replace(pos, key.size(), key);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  using namespace nnet3;
  static const Nnet nnet = fuzz::CacheNetwork();
  static const std::vector<ComputationRequest> requests =
      fuzz::CacheRequests();
  std::string bytes(reinterpret_cast<const char *>(data), size);
  fuzz::Guarded("computation-cache", [&]() {
    CachingOptimizingCompiler compiler(nnet);
    FixKey(compiler.StructureKey(), &bytes);
    std::string file = fuzz::WriteScratchFile("c.cache", bytes);
    compiler.ReadCacheFile(file);
    for (const ComputationRequest &request : requests) {
      std::shared_ptr<const NnetComputation> computation =
          compiler.Compile(request);
      Nnet to_update(nnet);
      NnetComputer computer(NnetComputeOptions(), *computation, nnet,
                            request.need_model_derivative ? &to_update
                                                          : nullptr);
      CuMatrix<BaseFloat> input(
          static_cast<int32>(request.inputs[0].indexes.size()), 3);
      input.SetRandn();
      computer.AcceptInput("input", &input);
      computer.Run();
      const CuMatrixBase<BaseFloat> &output = computer.GetOutput("output");
      if (request.outputs[0].has_deriv) {
        CuMatrix<BaseFloat> deriv(output.NumRows(), output.NumCols());
        deriv.SetRandn();
        computer.AcceptOutputDeriv("output", &deriv);
        computer.Run();
      }
    }
  });
  return 0;
}
