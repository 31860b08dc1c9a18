#!/usr/bin/env bash
# The sanitizer stage of CI: builds the project and its tests with
# AddressSanitizer and UndefinedBehaviorSanitizer in a separate build
# directory (CPU backend only), runs the test suite there, and, when the
# compiler is clang, also builds the libFuzzer targets in the same build
# (NNET3_FUZZ=ON) and runs each for a few seconds from its stored corpus,
# as many at once as there are cores (FUZZ_JOBS), linking with lld when
# it is installed.
#   tests/sanitize.sh                       build in ./build-asan, run
#   BUILD_DIR=... tests/sanitize.sh         another build directory
#   FUZZ_SECONDS=0 tests/sanitize.sh        no fuzzing (default 10 s each)
#   CTEST_ARGS="-R util" tests/sanitize.sh  pass arguments to ctest
# The ctest run leaves out the labels slow, gpu and recipe; the two tests
# that cap the address space skip themselves under ASan (see
# tests/common/sanitizers.h and docs/fuzz.md).
# The fuzz corpora are replayed by the fuzz-replay.* tests of the suite.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build-asan}
fuzz_seconds=${FUZZ_SECONDS:-10}
jobs=$(nproc)

# Debug information: line tables only (file:line in the sanitizers' stack
# traces is all this stage needs); full -g made nnet-computer.cc's object
# 60% larger and its compile 8% slower (the whole build: 2%).
debug_flag=-g1
compiler_args=()
fuzz=OFF
if command -v clang++ >/dev/null 2>&1 && command -v clang >/dev/null 2>&1; then
  compiler_args=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang)
  debug_flag=-gline-tables-only
  fuzz=ON
  # lld links an ASan binary about four times faster than ld.bfd (0.2
  # against 0.8 s for nnet3-train), and this stage links some 200 of them.
  if command -v ld.lld >/dev/null 2>&1; then
    compiler_args+=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld
                    -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld
                    -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld)
  fi
fi
compiler_args+=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 $debug_flag -DNDEBUG"
                "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 $debug_flag -DNDEBUG")
echo "sanitize: ASan+UBSan build in $build (fuzz targets: $fuzz)" >&2
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DNNET3_CUDA=OFF -DNNET3_SANITIZE=address,undefined -DNNET3_FUZZ=$fuzz \
  -DNNET3_BUILD_BENCHMARKS=OFF "${compiler_args[@]}" ${CMAKE_ARGS:-} >/dev/null
start=$SECONDS
cmake --build "$build" -j"$jobs"
echo "sanitize: build took $((SECONDS - start)) s" >&2

export OPENBLAS_NUM_THREADS=1
# ASan's stack frames are several times larger: the recursion that the
# readers allow (e.g. decision trees nested 10000 deep, which the tree test
# reads) needs more than the usual 8 MiB of stack. 64 MiB keeps the margin
# of an ordinary build.
ulimit -s 65536 || echo "sanitize: could not raise the stack limit" >&2
# Errors stop the program; leaks are reported at exit. A tool that runs out
# of memory on purpose gets a null pointer (std::bad_alloc), as without
# ASan.
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:abort_on_error=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
start=$SECONDS
(cd "$build" && ctest --output-on-failure -j"$jobs" -LE "slow|gpu|recipe" \
   ${CTEST_ARGS:-})
echo "sanitize: tests took $((SECONDS - start)) s" >&2

if [[ $fuzz == ON && $fuzz_seconds -gt 0 ]]; then
  start=$SECONDS
  FUZZ_JOBS=${FUZZ_JOBS:-$jobs} \
    "$root/tests/fuzz/run-fuzz.sh" "$build" "$fuzz_seconds"
  echo "sanitize: fuzzing took $((SECONDS - start)) s" >&2
fi
