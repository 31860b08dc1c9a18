#!/usr/bin/env bash
# slurm-pl-test.sh: checks egs/digits/utils/slurm.pl against a private
# one-node Slurm cluster started by slurm-test-lib.sh: job arrays and their
# logs, --max-jobs-run, sbatch flags from options and --config, failure
# reporting, a task cancelled under slurm.pl, and --max-wait.
# Exits 77 (ctest's skip code here) with one "SKIP: ..." line when no cluster
# can be started; the daemons are always stopped on exit.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
slurm_pl=$root/egs/digits/utils/slurm.pl
# Every call is bounded so that a broken slurm.pl fails the test instead of
# hanging it (the --max-wait check itself uses a shorter limit).
sp() { "$slurm_pl" --max-wait 40 "$@"; }
# shellcheck source=tests/recipe/slurm-test-lib.sh
. "$here/slurm-test-lib.sh"

if ! slurm_start; then
  echo "SKIP: $(slurm_skip_reason)"
  exit 77
fi
work=$SLURM_TEST_DIR/work
mkdir -p "$work"
cd "$work"
# A cluster that starts but runs no job is an environment problem: skip.
if ! "$slurm_pl" --max-wait 60 probe/probe.log true > probe.err 2>&1; then
  echo "SKIP: Slurm started but ran no job within 60 s: $(tail -n 1 probe.err)"
  exit 77
fi

fail() {
  echo "FAIL: $*" >&2
  for f in "$SLURM_TEST_DIR"/log/slurmctld.log "$SLURM_TEST_DIR"/log/slurmd.log; do
    echo "--- last lines of $f" >&2
    tail -n 5 "$f" >&2 || true
  done
  exit 1
}
expect_eq() { [[ $2 == "$3" ]] || fail "$1: expected '$2', got '$3'"; }
expect_match() { [[ $3 =~ $2 ]] || fail "$1: expected to match /$2/, got '$3'"; }
capture() {
  rc=0
  "$@" >"$work/stdout" 2>"$work/stderr" || rc=$?
  err=$(cat "$work/stderr")
}
check_log_frame() {  # log, command line, exit code, threads
  [[ -f $1 ]] || fail "missing log $1"
  expect_eq "$1 line 1" "# $2" "$(sed -n 1p "$1")"
  expect_match "$1 line 2" '^# Started at [A-Z][a-z]{2} ' "$(sed -n 2p "$1")"
  expect_match "$1 accounting line" "^# Accounting: time=[0-9]+ threads=$4\$" "$(tail -n 2 "$1" | head -n 1)"
  expect_match "$1 last line" "^# Ended \\(code $3\\) at " "$(tail -n 1 "$1")"
}
max_overlap() {
  sort -k2,2n -k1,1 "$1" | awk '
    $1 == "start" { n++; if (n > m) m = n }
    $1 == "end"   { n-- }
    END { print m + 0 }'
}
# Waits (at most 20 s) until squeue shows a job named $1 in a state matching
# $2 and prints squeue's line for it, formatted with $3.
wait_for_job() {
  local t line
  for ((t = 0; t < 80; t++)); do
    line=$(squeue -h -r -n "$1" -o "%T|$3" 2>/dev/null | grep -E "^($2)\\|" | head -n 1 || true)
    if [[ -n $line ]]; then echo "${line#*|}"; return 0; fi
    sleep 0.25
  done
  return 1
}

echo "== slurm.pl: a three-task array"
capture sp JOB=1:3 log/x.JOB.log echo JOB "a  b" \| tr a-z A-Z
expect_eq "exit status (stderr: $err)" 0 "$rc"
for j in 1 2 3; do
  check_log_frame "log/x.$j.log" "echo $j 'a  b' | tr a-z A-Z" 0 1
  expect_eq "log/x.$j.log body" "$j A  B" "$(sed -n 3p log/x.$j.log)"
  expect_eq "done file of task $j" 0 "$(cat log/q/x.$j.done)"
done
[[ -x log/q/x.sh ]] || fail "batch script log/q/x.sh missing"

echo "== slurm.pl: --max-jobs-run 1 serialises"
body="echo start \$(date +%s.%N) >> $work/ev-ser; sleep 0.5; echo end \$(date +%s.%N) >> $work/ev-ser"
capture sp --max-jobs-run 1 JOB=1:3 log/ser.JOB.log "$body"
expect_eq "exit status (stderr: $err)" 0 "$rc"
expect_eq "events" 6 "$(wc -l <ev-ser)"
expect_eq "tasks alive at once with --max-jobs-run 1" 1 "$(max_overlap ev-ser)"

echo "== slurm.pl: a failing task"
capture sp JOB=1:3 log/f.JOB.log "echo ran JOB; [ JOB -ne 2 ]"
expect_eq "exit status" 1 "$rc"
expect_eq "failure line" "slurm.pl: 1 / 3 failed, log is in log/f.*.log" "$err"
for j in 1 3; do check_log_frame "log/f.$j.log" "echo ran $j; [ $j -ne 2 ]" 0 1; done
check_log_frame log/f.2.log "echo ran 2; [ 2 -ne 2 ]" 1 1
expect_eq "failed task still logged its output" "ran 2" "$(sed -n 3p log/f.2.log)"
capture sp log/single.log "exit 4"
expect_eq "single job exit status" 1 "$rc"
expect_eq "single job failure line" "slurm.pl: job failed, log is in log/single.log" "$err"
check_log_frame log/single.log "exit 4" 4 1

echo "== slurm.pl: sbatch flags from options and --config"
printf '# test config\noption comment=cfgtest\n--nice=7\n' >"$work/slurm.conf"
sp --num-threads 2 --mem 50M --config "$work/slurm.conf" \
  log/cfg.log sleep 3 >"$work/cfg.out" 2>&1 &
pid=$!
line=$(wait_for_job cfg 'PENDING|RUNNING' '%k|%y|%C|%m') ||
  fail "job cfg never appeared in squeue"
expect_eq "comment|nice|cpus|mem of the submitted job" "cfgtest|7|2|50M" "$line"
rc=0; wait "$pid" || rc=$?
expect_eq "exit status of the config job ($(cat "$work/cfg.out"))" 0 "$rc"
check_log_frame log/cfg.log "sleep 3" 0 2
capture sp --frobnicate 1 log/u.log true
expect_eq "unknown option exit status" 1 "$rc"
expect_match "unknown option message" '^slurm\.pl: unknown option --frobnicate' "$err"

echo "== slurm.pl: a task cancelled while slurm.pl waits"
sp --done-grace 1 JOB=1:2 log/v.JOB.log "[ JOB = 1 ] || sleep 60" \
  >"$work/v.out" 2>"$work/v.err" &
pid=$!
jobid=$(wait_for_job v 'RUNNING' '%F') || fail "job v never ran"
# Cancel task 2 only once it is running.
for ((t = 0; t < 80; t++)); do
  if squeue -h -r -j "$jobid" -o '%K %T' 2>/dev/null | grep -q '^2 RUNNING'; then break; fi
  sleep 0.25
done
scancel "${jobid}_2"
rc=0; wait "$pid" || rc=$?
expect_eq "exit status after a cancelled task" 1 "$rc"
err=$(cat "$work/v.err")
expect_match "vanished-task line" "task 2 of job $jobid left the queue without finishing; its Slurm output is in $work/log/q/v\\.2\\.out" "$err"
expect_match "failure line" 'slurm\.pl: 1 / 2 failed, log is in log/v\.\*\.log$' "$err"
check_log_frame log/v.1.log "[ 1 = 1 ] || sleep 60" 0 1

echo "== slurm.pl: --max-wait gives up and cancels"
capture "$slurm_pl" --max-wait 3 log/w.log sleep 60
expect_eq "exit status after --max-wait" 1 "$rc"
expect_match "give-up line" 'slurm\.pl: gave up after [0-9]+ s waiting for job [0-9]+' "$err"
expect_match "failure line" 'slurm\.pl: job failed, log is in log/w\.log$' "$err"
for ((t = 0; t < 40; t++)); do
  [[ -z $(squeue -h -n w -t PD,R,CG 2>/dev/null) ]] && break
  sleep 0.25
done
expect_eq "job w still in the queue" "" "$(squeue -h -n w -t PD,R,CG -o %i)"

slurm_stop
echo "PASS: slurm-pl-test"
