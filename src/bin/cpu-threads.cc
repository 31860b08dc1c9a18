// bin/cpu-threads.cc
#include "bin/cpu-threads.h"

#include "base/log.h"
#include "cudamatrix/cu-backend.h"
#include "matrix/row-threads.h"

extern "C" void openblas_set_num_threads(int);
extern "C" int openblas_get_num_threads(void);

namespace nnet3 {

void HandBlasThreadsToLibrary() {
  if (cu_backend::OnDevice()) return;
  const int threads = openblas_get_num_threads();
  if (threads <= 1 || threads > kMaxLibraryThreads) return;
  openblas_set_num_threads(1);
  SetRowThreads(threads);
  NNET3_VLOG(1) << "Computing on " << threads
                << " threads of the matrix library (BLAS on one thread)";
}

}  // namespace nnet3
