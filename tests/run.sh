#!/usr/bin/env bash
# The project's test command: installs missing dependencies, configures,
# builds everything and runs every test through ctest.
#   tests/run.sh                 build in ./build and run all tests
#   BUILD_DIR=... tests/run.sh   use another build directory
#   CTEST_ARGS="-L unit" tests/run.sh   pass arguments to ctest
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${BUILD_DIR:-$root/build}

"$root/tools/install-deps.sh"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
# Tests and benchmarks use one BLAS thread: results do not depend on threading.
export OPENBLAS_NUM_THREADS=1
ctest --output-on-failure -j"$(nproc)" ${CTEST_ARGS:-}
