// tests/cudamatrix/cublas-loader-test.cc
// cuBLAS is opened at run time (cudamatrix/cuda/cublas-loader.h): loading
// it needs no GPU, so a CUDA build checks here that the library is found by
// the name the build chose, that every entry point resolves to the symbol
// the library itself exports (compared with a dlsym of our own), and that
// the status texts come from it. A tool that computes on the CPU must not
// have cuBLAS mapped: the test reads /proc/self/maps before the first call.
#include <dlfcn.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cudamatrix/cuda/cublas-loader.h"

namespace nnet3 {
namespace cuda {
namespace {

bool CublasMapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libcublas") != std::string::npos) return true;
  return false;
}

TEST(CublasLoader, NotMappedUntilAskedForThenEveryEntryResolves) {
  // Nothing in this test binary has asked for cuBLAS yet.
  EXPECT_FALSE(CublasMapped());
  const CublasApi &api = Cublas();
  EXPECT_TRUE(CublasMapped());
  void *library = dlopen(CublasLibraryName(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(library, nullptr) << CublasLibraryName();
  const std::pair<const void *, const char *> entries[] = {
      {reinterpret_cast<const void *>(api.Create), "cublasCreate_v2"},
      {reinterpret_cast<const void *>(api.SetStream), "cublasSetStream_v2"},
      {reinterpret_cast<const void *>(api.SetMathMode), "cublasSetMathMode"},
      {reinterpret_cast<const void *>(api.Sgemm), "cublasSgemm_v2"},
      {reinterpret_cast<const void *>(api.Dgemm), "cublasDgemm_v2"},
      {reinterpret_cast<const void *>(api.Sgemv), "cublasSgemv_v2"},
      {reinterpret_cast<const void *>(api.Dgemv), "cublasDgemv_v2"},
      {reinterpret_cast<const void *>(api.Sger), "cublasSger_v2"},
      {reinterpret_cast<const void *>(api.Dger), "cublasDger_v2"},
      {reinterpret_cast<const void *>(api.GetStatusName), "cublasGetStatusName"},
      {reinterpret_cast<const void *>(api.GetStatusString),
       "cublasGetStatusString"}};
  for (const auto &entry : entries) {
    EXPECT_NE(entry.first, nullptr) << entry.second;
    EXPECT_EQ(entry.first, dlsym(library, entry.second)) << entry.second;
  }
  EXPECT_STREQ(api.GetStatusName(CUBLAS_STATUS_SUCCESS),
               "CUBLAS_STATUS_SUCCESS");
  EXPECT_STREQ(api.GetStatusName(CUBLAS_STATUS_INVALID_VALUE),
               "CUBLAS_STATUS_INVALID_VALUE");
  // The same table every time.
  EXPECT_EQ(&Cublas(), &api);
  dlclose(library);  // balances the RTLD_NOLOAD reference only
}

}  // namespace
}  // namespace cuda
}  // namespace nnet3
