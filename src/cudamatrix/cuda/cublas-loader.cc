// cudamatrix/cuda/cublas-loader.cc
// dlopen of cuBLAS and the lookup of its entry points (see cublas-loader.h).
#include "cudamatrix/cuda/cublas-loader.h"

#include <dlfcn.h>

#include <string>

#include "base/log.h"

#ifndef NNET3_CUBLAS_SONAME
#define NNET3_CUBLAS_SONAME "libcublas.so"
#endif

namespace nnet3 {
namespace cuda {
namespace {

template <typename Fn>
void Resolve(void *library, const char *library_name, const char *symbol,
             Fn *fn) {
  dlerror();
  void *address = dlsym(library, symbol);
  if (address == nullptr) {
    const char *why = dlerror();
    NNET3_ERR << "cuBLAS library " << library_name << " has no " << symbol
              << (why != nullptr ? std::string(": ") + why : std::string());
  }
  *fn = reinterpret_cast<Fn>(address);
}

CublasApi Load() {
  const char *names[] = {NNET3_CUBLAS_SONAME, "libcublas.so"};
  void *library = nullptr;
  std::string errors;
  const char *loaded = nullptr;
  for (const char *name : names) {
    library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) {
      loaded = name;
      break;
    }
    const char *why = dlerror();
    errors += std::string(errors.empty() ? "" : "; ") +
              (why != nullptr ? why : name);
  }
  if (library == nullptr)
    NNET3_ERR << "cannot load cuBLAS (" << NNET3_CUBLAS_SONAME
              << ", needed to compute on the GPU): " << errors
              << "; add the CUDA libraries' directory to LD_LIBRARY_PATH";
  CublasApi api;
  Resolve(library, loaded, "cublasCreate_v2", &api.Create);
  Resolve(library, loaded, "cublasSetStream_v2", &api.SetStream);
  Resolve(library, loaded, "cublasSetMathMode", &api.SetMathMode);
  Resolve(library, loaded, "cublasSgemm_v2", &api.Sgemm);
  Resolve(library, loaded, "cublasDgemm_v2", &api.Dgemm);
  Resolve(library, loaded, "cublasSgemv_v2", &api.Sgemv);
  Resolve(library, loaded, "cublasDgemv_v2", &api.Dgemv);
  Resolve(library, loaded, "cublasSger_v2", &api.Sger);
  Resolve(library, loaded, "cublasDger_v2", &api.Dger);
  Resolve(library, loaded, "cublasGetStatusName", &api.GetStatusName);
  Resolve(library, loaded, "cublasGetStatusString", &api.GetStatusString);
  return api;  // the library stays open for the life of the process
}

}  // namespace

const CublasApi &Cublas() {
  static const CublasApi api = Load();
  return api;
}

const char *CublasLibraryName() { return NNET3_CUBLAS_SONAME; }

}  // namespace cuda
}  // namespace nnet3
