#!/usr/bin/env bash
# run-pl-test.sh: checks egs/digits/utils/run.pl (job arrays, command
# building, log format, concurrency limit, failure reporting) and
# egs/digits/utils/parse_options.sh. Needs only bash and perl; every check
# prints what it expected on failure and the script exits 1 at the first one.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
utils=$root/egs/digits/utils
run_pl=$utils/run.pl
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run-pl-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() {  # what, expected, actual
  [[ $2 == "$3" ]] || fail "$1: expected '$2', got '$3'"
}
expect_match() {  # what, regex, actual
  [[ $3 =~ $2 ]] || fail "$1: expected to match /$2/, got '$3'"
}
expect_file() { [[ -f $1 ]] || fail "missing file $1"; }
# Runs "$@", keeping stdout in $out, stderr in $err and the status in $rc.
capture() {
  rc=0
  "$@" >"$tmp/stdout" 2>"$tmp/stderr" || rc=$?
  out=$(cat "$tmp/stdout")
  err=$(cat "$tmp/stderr")
}

# Checks a log's header and footer: $1 log, $2 command line, $3 exit code,
# $4 threads.
check_log_frame() {
  local log=$1 first second penult last
  expect_file "$log"
  first=$(sed -n 1p "$log")
  second=$(sed -n 2p "$log")
  penult=$(tail -n 2 "$log" | head -n 1)
  last=$(tail -n 1 "$log")
  expect_eq "$log line 1" "# $2" "$first"
  expect_match "$log line 2" '^# Started at [A-Z][a-z]{2} ' "$second"
  expect_match "$log accounting line" "^# Accounting: time=[0-9]+ threads=$4\$" "$penult"
  expect_match "$log last line" "^# Ended \\(code $3\\) at [A-Z][a-z]{2} " "$last"
}

echo "== run.pl: JOB substitution in log names and commands"
capture "$run_pl" JOB=1:3 log/sub/x.JOB.log echo job JOB of x.JOB
expect_eq "exit status" 0 "$rc"
expect_eq "stderr" "" "$err"
for j in 1 2 3; do
  check_log_frame "log/sub/x.$j.log" "echo job $j of x.$j" 0 1
  expect_eq "log/sub/x.$j.log body" "job $j of x.$j" "$(sed -n 3p log/sub/x.$j.log)"
done
[[ ! -e log/sub/x.JOB.log && ! -e log/sub/x.4.log ]] || fail "unexpected extra logs: $(ls log/sub)"

echo "== run.pl: any variable name (TASK=2:3), nested new log directory"
capture "$run_pl" TASK=2:3 deep/a/b/t.TASK.log echo task TASK
expect_eq "exit status" 0 "$rc"
[[ ! -e deep/a/b/t.1.log ]] || fail "task 1 should not have run"
for j in 2 3; do
  expect_eq "deep/a/b/t.$j.log body" "task $j" "$(sed -n 3p deep/a/b/t.$j.log)"
done

echo "== run.pl: single job without a range; --num-threads in the footer"
capture "$run_pl" --num-threads 3 --mem 2G --gpu 0 log/single.log echo one
expect_eq "exit status" 0 "$rc"
check_log_frame log/single.log "echo one" 0 3

echo "== run.pl: pipes and redirections"
capture "$run_pl" JOB=1:2 log/pipe.JOB.log "echo abcJOB | tr a-z A-Z | sed 's/B/-/'"
expect_eq "exit status" 0 "$rc"
expect_eq "pipe in one quoted word" "A-C1" "$(sed -n 3p log/pipe.1.log)"
expect_eq "pipe in one quoted word" "A-C2" "$(sed -n 3p log/pipe.2.log)"
capture "$run_pl" JOB=1:2 log/redir.JOB.log "echo out JOB > $tmp/redir.JOB.txt"
expect_eq "redirection exit status" 0 "$rc"
expect_eq "redirected output" "out 2" "$(cat redir.2.txt)"
# Several words: a word with spaces stays one argument, bare | is a pipe.
capture "$run_pl" log/words.log printf '%s:' "a b  c" it\'s \| tr : -
expect_eq "exit status" 0 "$rc"
expect_eq "quoted words" "a b  c-it's-" "$(sed -n 3p log/words.log)"
# pipefail: a failing first stage fails the job.
capture "$run_pl" log/pipefail.log "false | cat"
expect_eq "pipefail exit status" 1 "$rc"
check_log_frame log/pipefail.log "false | cat" 1 1
# A job's own exit code goes into the footer.
capture "$run_pl" log/code.log "echo -n partial; exit 3"
expect_eq "exit status" 1 "$rc"
check_log_frame log/code.log "echo -n partial; exit 3" 3 1
expect_eq "output without newline" "partial" "$(sed -n 3p log/code.log)"

# Concurrency: each job appends "start T" and "end T" lines to one file; the
# largest number of jobs alive at once is computed from them.
max_overlap() {
  sort -k2,2n -k1,1 "$1" | awk '
    $1 == "start" { n++; if (n > m) m = n }
    $1 == "end"   { n-- }
    END { print m + 0 }'
}
# shellcheck disable=SC2016  # $(date) expands inside the job, not here
job_body='echo start $(date +%s.%N) >> '$tmp'/EVENTS; sleep SECS; echo end $(date +%s.%N) >> '$tmp'/EVENTS'

echo "== run.pl: --max-jobs-run 1 serialises"
capture "$run_pl" --max-jobs-run 1 JOB=1:3 log/ser.JOB.log "${job_body//SECS/0.3}"
expect_eq "exit status" 0 "$rc"
expect_file EVENTS
mv EVENTS ev-ser
expect_eq "lines in event file" 6 "$(wc -l <ev-ser)"
expect_eq "jobs alive at once with --max-jobs-run 1" 1 "$(max_overlap ev-ser)"

echo "== run.pl: --max-jobs-run 2 of 4"
capture "$run_pl" --max-jobs-run=2 JOB=1:4 log/two.JOB.log "${job_body//SECS/0.6}"
expect_eq "exit status" 0 "$rc"
mv EVENTS ev-two
expect_eq "lines in event file" 8 "$(wc -l <ev-two)"
n=$(max_overlap ev-two)
expect_eq "jobs alive at once with --max-jobs-run 2" 2 "$n"

echo "== run.pl: by default all jobs run at once"
capture "$run_pl" JOB=1:4 log/par.JOB.log "${job_body//SECS/1.5}"
expect_eq "exit status" 0 "$rc"
mv EVENTS ev-par
expect_eq "jobs alive at once by default" 4 "$(max_overlap ev-par)"

echo "== run.pl: failing jobs"
capture "$run_pl" JOB=1:4 log/fail.JOB.log "echo ran JOB >> $tmp/ran.JOB; [ JOB -ne 2 ] && [ JOB -ne 4 ]"
expect_eq "exit status with failures" 1 "$rc"
expect_eq "failure line" "run.pl: 2 / 4 failed, log is in log/fail.*.log" "$err"
for j in 1 2 3 4; do
  expect_eq "job $j ran" "ran $j" "$(cat ran.$j)"
done
for j in 1 3; do check_log_frame log/fail.$j.log "echo ran $j >> $tmp/ran.$j; [ $j -ne 2 ] && [ $j -ne 4 ]" 0 1; done
for j in 2 4; do check_log_frame log/fail.$j.log "echo ran $j >> $tmp/ran.$j; [ $j -ne 2 ] && [ $j -ne 4 ]" 1 1; done
capture "$run_pl" log/onefail.log false
expect_eq "single job exit status" 1 "$rc"
expect_eq "single job failure line" "run.pl: job failed, log is in log/onefail.log" "$err"
capture "$run_pl" JOB=3:3 log/arr1.JOB.log false
expect_eq "one-job array failure line" "run.pl: job failed, log is in log/arr1.3.log" "$err"

echo "== run.pl: bad command lines"
capture "$run_pl" --frobnicate 2 log/u.log true
expect_eq "unknown option exit status" 1 "$rc"
expect_match "unknown option message" '^run\.pl: unknown option --frobnicate' "$err"
[[ ! -e log/u.log ]] || fail "a job ran despite the unknown option"
capture "$run_pl" -x log/u.log true
expect_eq "unknown short option exit status" 1 "$rc"
capture "$run_pl" JOB=1:3 log/nojobvar.log true
expect_eq "array without JOB in the log name" 1 "$rc"
capture "$run_pl" JOB=3:1 log/x.JOB.log true
expect_eq "empty range" 1 "$rc"
capture "$run_pl" --max-jobs-run two log/x.log true
expect_eq "non-numeric --max-jobs-run" 1 "$rc"
capture "$run_pl" log/only-log.log
expect_eq "missing command" 1 "$rc"

echo "== parse_options.sh"
cat >"$tmp/opts.sh" <<EOF
#!/usr/bin/env bash
set -euo pipefail
nj=4
use_gpu=false
train_stage=-10
cmd=run.pl
help_message="Usage: opts.sh [options] <data> <exp>"
. $utils/parse_options.sh
echo "nj=\$nj use_gpu=\$use_gpu train_stage=\$train_stage cmd=\$cmd n=\$# args=\$*"
EOF
capture bash "$tmp/opts.sh" data exp
expect_eq "defaults" "nj=4 use_gpu=false train_stage=-10 cmd=run.pl n=2 args=data exp" "$out"
capture bash "$tmp/opts.sh" --nj 8 --use-gpu true --train-stage=3 --cmd "slurm.pl --mem 4G" data "exp dir"
expect_eq "options set" "nj=8 use_gpu=true train_stage=3 cmd=slurm.pl --mem 4G n=2 args=data exp dir" "$out"
capture bash "$tmp/opts.sh" --nj 2 data --nj 9
expect_eq "parsing stops at the first positional argument" "nj=2 use_gpu=false train_stage=-10 cmd=run.pl n=3 args=data --nj 9" "$out"
capture bash "$tmp/opts.sh" --num-jobs 3 data
expect_eq "undefined variable exit status" 1 "$rc"
expect_match "undefined variable message" 'invalid option --num-jobs' "$err"
expect_eq "undefined variable: one error line" 1 "$(wc -l <"$tmp/stderr")"
capture bash "$tmp/opts.sh" --use-gpu yes
expect_eq "boolean given a non-boolean" 1 "$rc"
expect_match "boolean message" '--use-gpu' "$err"
capture bash "$tmp/opts.sh" --nj
expect_eq "option without value" 1 "$rc"
printf 'nj=16\ntrain_stage=5\n' >"$tmp/opts.conf"
capture bash "$tmp/opts.sh" --train-stage 7 --config "$tmp/opts.conf" x
expect_eq "--config, command line wins" "nj=16 use_gpu=false train_stage=7 cmd=run.pl n=1 args=x" "$out"
capture bash "$tmp/opts.sh" --config "$tmp/missing.conf" x
expect_eq "missing config exit status" 1 "$rc"
capture bash "$tmp/opts.sh" --help
expect_eq "--help exit status" 0 "$rc"
expect_eq "--help text" "Usage: opts.sh [options] <data> <exp>" "$out"
capture bash "$tmp/opts.sh" -h
expect_eq "-h exit status" 0 "$rc"
expect_eq "-h text" "Usage: opts.sh [options] <data> <exp>" "$out"
capture bash "$tmp/opts.sh" -- --nj 3
expect_eq "-- ends the options" "nj=4 use_gpu=false train_stage=-10 cmd=run.pl n=2 args=--nj 3" "$out"

echo "PASS: run-pl-test"
