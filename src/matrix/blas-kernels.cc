// matrix/blas-kernels.cc
#include "matrix/blas-kernels.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

// OpenBLAS's run-time kernel selection, present only in builds for several
// CPUs (DYNAMIC_ARCH). Weak, so that a BLAS without them still links; the
// process then runs with whatever kernels it has.
extern "C" {
char *openblas_get_corename(void) __attribute__((weak));
void gotoblas_dynamic_init(void) __attribute__((weak));
void gotoblas_dynamic_quit(void) __attribute__((weak));
}

namespace nnet3 {

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The instruction-set level of an OpenBLAS kernel family: 1 SSE only,
// 2 AVX, 3 AVX2, 4 AVX-512; 0 for a name not listed here (never switched
// away from: we do not know what it is).
int KernelLevel(const std::string &name) {
  static const char *const kLevels[][2] = {
      {"katmai", "1"},       {"coppermine", "1"},     {"northwood", "1"},
      {"prescott", "1"},     {"banias", "1"},         {"atom", "1"},
      {"core2", "1"},        {"penryn", "1"},         {"dunnington", "1"},
      {"nehalem", "1"},      {"athlon", "1"},         {"opteron", "1"},
      {"opteron_sse3", "1"}, {"barcelona", "1"},      {"nano", "1"},
      {"bobcat", "1"},       {"sandybridge", "2"},    {"bulldozer", "2"},
      {"piledriver", "2"},   {"steamroller", "2"},    {"excavator", "3"},
      {"haswell", "3"},      {"zen", "3"},            {"skylakex", "4"},
      {"cooperlake", "4"},   {"sapphirerapids", "4"},
  };
  const std::string lower = Lower(name);
  for (const auto &entry : kLevels)
    if (lower == entry[0]) return entry[1][0] - '0';
  return 0;
}

std::string Select() {
  if (openblas_get_corename == nullptr || gotoblas_dynamic_init == nullptr ||
      gotoblas_dynamic_quit == nullptr)
    return "";
  const std::string current = BlasKernelName();
  if (std::getenv("OPENBLAS_CORETYPE") != nullptr)
    return current + " (OPENBLAS_CORETYPE)";
  const std::string preferred = PreferredBlasKernel();
  if (preferred.empty() || !BlasKernelShouldSwitch(current, preferred))
    return current + " (kept)";
  // OpenBLAS reads OPENBLAS_CORETYPE when it initializes its kernel table;
  // setting it for this process and initializing the table again is what
  // starting the process with it set would have done. Nothing computes yet
  // (static initialization), and the worker threads OpenBLAS has started
  // hold no kernel state of their own.
  // The variable is removed again afterwards: the environment that child
  // processes see stays the user's.
  if (setenv("OPENBLAS_CORETYPE", preferred.c_str(), 0) != 0)
    return current + " (kept)";
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
  unsetenv("OPENBLAS_CORETYPE");
  return current + " -> " + BlasKernelName();
}

}  // namespace

std::string BlasKernelName() {
  if (openblas_get_corename == nullptr) return "";
  const char *name = openblas_get_corename();
  return name != nullptr ? name : "";
}

bool CpuIsAmdFamily19h() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  return __builtin_cpu_is("amdfam19h");
#else
  return false;
#endif
}

std::string PreferredBlasKernel() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();  // may run before the C library's own constructors
  // On half-width AVX-512 the AVX2 kernels do the same work per cycle and
  // OpenBLAS's AVX2 blocking suits the cores better: measured on an AMD EPYC
  // (Zen 4), its Haswell sgemm ran 6-7% faster than the SkylakeX and
  // Cooperlake ones that OpenBLAS picks there (docs/matrix.md).
  if (CpuIsAmdFamily19h() && __builtin_cpu_supports("avx2") &&
      __builtin_cpu_supports("fma"))
    return "Haswell";
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return "Haswell";
#endif
  return "";
}

bool BlasKernelShouldSwitch(const std::string &current,
                            const std::string &preferred) {
  const int have = KernelLevel(current), want = KernelLevel(preferred);
  return have > 0 && want > 0 && have != want;
}

const std::string &BlasKernelSelection() {
  static const std::string selection = Select();
  return selection;
}

}  // namespace nnet3
