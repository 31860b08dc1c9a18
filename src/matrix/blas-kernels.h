// matrix/blas-kernels.h
// Which OpenBLAS kernels the process computes with. OpenBLAS built for
// several CPUs (Debian's is) picks its kernels from the CPU model number;
// a model newer than the library (Debian 12 ships 0.3.21, which predates
// Emerald Rapids, for example) falls back to the generic "Prescott"
// kernels, SSE3 only, several times slower on a CPU with AVX2 or AVX-512.
// At start-up this library checks the CPU's features itself and, when
// OpenBLAS fell back to kernels older than those the CPU can run, switches
// it to the newest kernel family the features allow (SkylakeX for
// AVX-512, Haswell for AVX2 with FMA), exactly as OPENBLAS_CORETYPE would.
// One exception: on AMD's family 19h (Zen 4), whose AVX-512 units are half
// width, OpenBLAS's AVX-512 kernels are slower than its AVX2 ones, and
// Haswell is chosen instead of the AVX-512 family OpenBLAS picked.
//
// Invariants:
//  - nothing changes when OPENBLAS_CORETYPE is set (the user's choice
//    stands, whatever it is), when the BLAS in use has no run-time kernel
//    selection, or when the kernels it picked use the instruction set of
//    the preferred family (or one this library does not know);
//  - the switch happens once, during static initialization of this
//    library (before main, before any BLAS call of ours); only the
//    kernels change, never the results' meaning (they differ from the
//    fallback's only in rounding).
#ifndef NNET3_MATRIX_BLAS_KERNELS_H_
#define NNET3_MATRIX_BLAS_KERNELS_H_

#include <string>

namespace nnet3 {

// What start-up did, for logs and tests: e.g. "Prescott -> SkylakeX",
// "Haswell (kept)", "SkylakeX (OPENBLAS_CORETYPE)", or "" when the BLAS has
// no run-time kernel selection.
const std::string &BlasKernelSelection();

// The kernel name OpenBLAS uses now ("" when the BLAS cannot say).
std::string BlasKernelName();

// The OpenBLAS kernel family this CPU calls for: "SkylakeX", "Haswell", or
// "" when neither applies. Exposed for tests.
std::string PreferredBlasKernel();

// Whether this CPU is AMD's family 19h: Zen 3 (no AVX-512) and Zen 4 (each
// 512-bit operation runs as two 256-bit halves). Exposed for tests.
bool CpuIsAmdFamily19h();

// Whether start-up switches from kernels named 'current' to 'preferred':
// both are known families and their instruction sets differ (older
// kernels, or AVX-512 ones where PreferredBlasKernel asks for AVX2).
// Exposed for tests.
bool BlasKernelShouldSwitch(const std::string &current,
                            const std::string &preferred);

}  // namespace nnet3

#endif  // NNET3_MATRIX_BLAS_KERNELS_H_
