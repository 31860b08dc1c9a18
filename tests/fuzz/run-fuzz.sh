#!/usr/bin/env bash
# Runs the libFuzzer targets of a fuzz build (cmake -DNNET3_FUZZ=ON, see
# docs/fuzz.md) for a fixed time each, one after the other, and prints a
# summary line per target (executions, coverage, outcome).
#   tests/fuzz/run-fuzz.sh BUILD_DIR SECONDS [TARGET...]
# Each target starts from its stored inputs (tests/data/fuzz/TARGET: seeds
# and past failures) and keeps what it finds in $FUZZ_WORK/TARGET/corpus
# (FUZZ_WORK defaults to a new folder under /tmp); a crash, leak, timeout or
# out-of-memory report is written to $FUZZ_WORK/TARGET/crash-* and makes
# the script exit non-zero after the remaining targets ran. Copy such a file
# into tests/data/fuzz/TARGET/ once the bug is fixed, so that the replay
# test keeps checking it. Full libFuzzer output: $FUZZ_WORK/TARGET/log.
# FUZZ_MAX_RUNS=N also stops each target after N executions (the
# campaign's "10 million executions or 2 hours, whichever comes first").
# FUZZ_JOBS=N runs up to N targets at once (default 1: one at a time, each
# with a core to itself); the summary lines keep the targets' order.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [[ $# -lt 2 ]]; then
  echo "usage: $0 BUILD_DIR SECONDS [TARGET...]" >&2
  exit 1
fi
build=$(cd "$1" && pwd)
seconds=$2
shift 2
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
  targets=(nnet-config descriptor nnet-read table egs wav computation-cache
           options)
fi
work=${FUZZ_WORK:-$(mktemp -d /tmp/nnet3-fuzz-run.XXXXXX)}
mkdir -p "$work"
export OPENBLAS_NUM_THREADS=1
jobs=${FUZZ_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || {
  echo "run-fuzz: FUZZ_JOBS must be a positive integer, not '$jobs'" >&2
  exit 1
}

# Runs one target and writes its summary line to $work/TARGET/summary;
# returns non-zero when the target is missing or failed.
run_target() {
  local target=$1
  local dir=$work/$target
  local binary=$build/tests/fuzz/fuzz-$target
  mkdir -p "$dir/corpus"
  if [[ ! -x $binary ]]; then
    echo "run-fuzz: $binary is missing (configure with -DNNET3_FUZZ=ON)" \
      >"$dir/summary"
    return 1
  fi
  # A config file chooses its own dimensions: allocations that ASan
  # refuses (over 512 MiB) become std::bad_alloc, which the tool reports
  # in one line. The readers of sized data must never get there: for them
  # an allocation of 512 MiB or more is reported as a failure.
  local asan limits
  if [[ $target == nnet-config ]]; then
    asan="allocator_may_return_null=1:max_allocation_size_mb=512"
    limits=()
  else
    asan="allocator_may_return_null=0"
    limits=(-malloc_limit_mb=512)
  fi
  ASAN_OPTIONS="$asan:detect_leaks=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    "$binary" "$dir/corpus" "$root/tests/data/fuzz/$target" \
      -max_total_time="$seconds" ${FUZZ_MAX_RUNS:+-runs=$FUZZ_MAX_RUNS} \
      -rss_limit_mb=2048 "${limits[@]}" \
      -timeout=30 -print_final_stats=1 -artifact_prefix="$dir/" \
      >"$dir/log" 2>&1
  local rc=$?
  local runs last cov ft corpus outcome
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$dir/log" |
         grep -o '[0-9]*$')
  last=$(grep -E '^#[0-9]+' "$dir/log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+')
  ft=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+')
  corpus=$(find "$dir/corpus" -type f | wc -l)
  if [[ $rc -eq 0 ]]; then
    outcome=ok
  else
    outcome="FAILED (exit $rc; see $dir/log)"
  fi
  printf 'run-fuzz: %-18s %4ss  runs %-9s cov %-6s ft %-6s new-corpus %-5s %s\n' \
    "$target" "$seconds" "${runs:-?}" "${cov:-?}" "${ft:-?}" "$corpus" \
    "$outcome" >"$dir/summary"
  [[ $rc -eq 0 ]]
}

status=0
running=0
for target in "${targets[@]}"; do
  if [[ $running -ge $jobs ]]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  run_target "$target" &
  running=$((running + 1))
done
while [[ $running -gt 0 ]]; do
  wait -n || status=1
  running=$((running - 1))
done
for target in "${targets[@]}"; do
  cat "$work/$target/summary"
done
exit $status
