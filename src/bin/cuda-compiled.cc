// bin/cuda-compiled.cc
// Exit status 0 when this build can compute on a GPU, 1 otherwise; Kaldi's
// training scripts call it before they pass --use-gpu=yes to any tool. It
// looks only at the build, not at the machine: a CUDA build on a host
// without a GPU still answers 0, as Kaldi's does.
#include "bin/cli.h"
#include "cudamatrix/gpu-runtime.h"

namespace nnet3 {

int CudaCompiled(int argc, char *argv[]) {
  const char *usage =
      "Tells scripts whether this build computes on NVIDIA GPUs: exits with\n"
      "status 0 if it has the CUDA backend and 1 if it does not (whether this\n"
      "machine has a GPU is not looked at). Prints nothing.\n"
      "Usage: cuda-compiled\n";
  ParseOptions po(usage);
  po.Read(argc, argv);
  if (po.NumArgs() != 0) return UsageError(po);
  GpuRuntime *runtime = SystemGpuRuntime();
  return runtime->Compiled() && runtime->BackendComputes() ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::CudaCompiled);
}
