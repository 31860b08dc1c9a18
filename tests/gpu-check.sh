#!/usr/bin/env bash
# The GPU checks of issue #13 in one command, for a machine with an NVIDIA
# GPU: every test binary of the label gpu (the backend against the CPU, the
# kernels, graph replay, every component type, the compute and training
# conformance cases with the tools on the GPU), then compute-sanitizer's
# memcheck on the backend and component tests and its racecheck on the
# kernel tests (the kernels that use shared memory). Each step prints one
# line, PASS or FAIL with its log file; the exit status is 1 if any failed.
#
# Usage: tests/gpu-check.sh [--build DIR] [--out DIR] [--no-sanitizer]
#   --build DIR   a build tree (default ./build), or any folder holding the
#                 test binaries and the tools, in its own layout or flat
#                 (as copied to another machine); binaries are found by name
#   --out DIR     where the logs go (default ./gpu-check-logs)
# The conformance binaries read tests/data of this tree and run the tools
# of the build (NNET3_TEST_DATA_DIR and NNET3_TOOLS_DIR override both).
# Without a GPU every test skips; the script then says so and exits 1.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$root/build
out=$PWD/gpu-check-logs
sanitizer=yes
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-sanitizer) sanitizer=no; shift ;;
    *) echo "gpu-check.sh: unknown option $1 (see the usage at the top of the script)" >&2
       exit 1 ;;
  esac
done
[[ -d $build ]] || { echo "gpu-check.sh: no folder $build (build the project first, or pass --build)" >&2; exit 1; }
build=$(cd "$build" && pwd)
mkdir -p "$out"

# find_bin NAME: the executable called NAME under the build folder.
find_bin() { find "$build" -type f -name "$1" -perm -u+x 2>/dev/null | head -1; }

tools_bin=$(find_bin nnet3-compute)
[[ -n $tools_bin ]] && export NNET3_TOOLS_DIR=${NNET3_TOOLS_DIR:-$(dirname "$tools_bin")}
export NNET3_TEST_DATA_DIR=${NNET3_TEST_DATA_DIR:-$root/tests/data}

failed=0
ran=0
# step NAME LOG COMMAND...: runs COMMAND, logs it, prints one line.
step() {
  local name=$1 log=$out/$2
  shift 2
  ran=$((ran + 1))
  if "$@" >"$log" 2>&1; then
    local note=
    grep -q '^\[  SKIPPED \]' "$log" && note=", some cases skipped"
    echo "PASS  $name  ($log$note)"
  else
    failed=$((failed + 1))
    echo "FAIL  $name  ($log)"
  fi
}

echo "gpu-check: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo 'nvidia-smi not found')"
gpu_tests=(cuda-probe-test cuda-runtime-test cublas-loader-test cuda-kernels-test
           cuda-nonlinear-test cuda-recurrent-test cu-backend-test cuda-graph-test
           gpu-component-test)
for t in "${gpu_tests[@]}"; do
  b=$(find_bin "$t")
  if [[ -z $b ]]; then
    echo "FAIL  $t  (not found under $build)"
    failed=$((failed + 1))
    continue
  fi
  step "$t" "$t.log" "$b"
done
# The conformance cases with the tools on the GPU.
for t in compute-conformance-test train-conformance-test; do
  b=$(find_bin "$t")
  if [[ -z $b ]]; then
    echo "FAIL  $t  (not found under $build)"
    failed=$((failed + 1))
    continue
  fi
  step "$t on the GPU" "$t.log" env NNET3_TEST_USE_GPU=yes "$b"
done

# A GPU that computed: cu-backend-test skips every case without one.
if grep -q '^\[  SKIPPED \]' "$out/cu-backend-test.log" 2>/dev/null; then
  echo "gpu-check: the tests skipped: no usable GPU ($(grep -m1 -i 'gpu' "$out/cu-backend-test.log" | head -c 200))"
  exit 1
fi

if [[ $sanitizer == yes ]]; then
  cs=$(command -v compute-sanitizer || true)
  [[ -z $cs && -x /usr/local/cuda/bin/compute-sanitizer ]] && cs=/usr/local/cuda/bin/compute-sanitizer
  if [[ -z $cs ]]; then
    echo "FAIL  compute-sanitizer  (not found; --no-sanitizer skips this part)"
    failed=$((failed + 1))
  else
    for t in cu-backend-test gpu-component-test cuda-nonlinear-test cuda-recurrent-test; do
      b=$(find_bin "$t")
      [[ -n $b ]] && step "memcheck $t" "memcheck-$t.log" \
        "$cs" --tool memcheck --error-exitcode 1 --leak-check no "$b"
    done
    for t in cuda-kernels-test cuda-nonlinear-test cu-backend-test; do
      b=$(find_bin "$t")
      [[ -n $b ]] && step "racecheck $t" "racecheck-$t.log" \
        "$cs" --tool racecheck --error-exitcode 1 "$b"
    done
  fi
fi
echo "gpu-check: $((ran - failed)) of $ran steps passed"
[[ $failed -eq 0 ]]
