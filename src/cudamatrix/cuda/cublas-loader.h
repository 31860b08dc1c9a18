// cudamatrix/cuda/cublas-loader.h
// cuBLAS, opened with dlopen the first time a GPU context needs it, instead
// of being linked into every tool. Loading libcublas (and the libcublasLt it
// pulls in) costs about 200 MB of resident memory at process start, which
// every CPU-only run of every tool used to pay; now only a run that actually
// computes on a GPU does.
//
// Cublas() returns the entry points this project calls, resolved once (the
// first call loads the library, later calls return the same table; the
// first call is thread-safe). A library or symbol that cannot be found is a
// UserError naming the library and the loader's message.
#ifndef NNET3_CUDAMATRIX_CUDA_CUBLAS_LOADER_H_
#define NNET3_CUDAMATRIX_CUDA_CUBLAS_LOADER_H_

#include <cublas_v2.h>

namespace nnet3 {
namespace cuda {

struct CublasApi {
  decltype(&cublasCreate_v2) Create;
  decltype(&cublasSetStream_v2) SetStream;
  decltype(&cublasSetMathMode) SetMathMode;
  decltype(&cublasSgemm_v2) Sgemm;
  decltype(&cublasDgemm_v2) Dgemm;
  decltype(&cublasSgemv_v2) Sgemv;
  decltype(&cublasDgemv_v2) Dgemv;
  decltype(&cublasSger_v2) Sger;
  decltype(&cublasDger_v2) Dger;
  decltype(&cublasGetStatusName) GetStatusName;
  decltype(&cublasGetStatusString) GetStatusString;
};

const CublasApi &Cublas();

// The file name dlopen is given first (the soname of the toolkit the
// project was built with).
const char *CublasLibraryName();

}  // namespace cuda
}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CUDA_CUBLAS_LOADER_H_
