#!/usr/bin/env bash
# Runs the training stage of a shortened egs/digits through utils/slurm.pl on
# a private one-node Slurm cluster (slurm-test-lib.sh): data, features, egs
# and the initial model are made locally, then stage 6 runs with
# NNET3_CMD=slurm, so every nnet3-train job is a Slurm task. Checks that the
# iterations completed, that their logs came from Slurm tasks (done files and
# Slurm output under log/q/) and that the model equals the one the local
# runner trains from the same egs. Exits 77 with one "SKIP: ..." line when no
# cluster can be started.
#   digits-slurm-test.sh SOURCE_ROOT TOOLS_DIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=$(cd "$1" && pwd)
export NNET3_ROOT=$src NNET3_BIN=$(cd "$2" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in espeak-ng flite sox; do
  command -v $t >/dev/null || fail "$t is not installed (tools/install-deps.sh installs it)"
done
# shellcheck source=tests/recipe/slurm-test-lib.sh
. "$here/slurm-test-lib.sh"
if ! slurm_start; then
  echo "SKIP: $(slurm_skip_reason)"
  exit 77
fi
cp -r "$src/egs/digits" "$SLURM_TEST_DIR/"
rm -rf "$SLURM_TEST_DIR/digits/data" "$SLURM_TEST_DIR/digits/exp"
cd "$SLURM_TEST_DIR/digits"
# A cluster that starts but runs no job (e.g. a container without the
# resources slurmd needs) is an environment problem, not a failure.
if ! utils/slurm.pl --max-wait 60 probe/probe.log true > probe.err 2>&1; then
  echo "SKIP: Slurm started but ran no job within 60 s: $(tail -n 1 probe.err)"
  exit 77
fi
# Bound every call, so that a stuck job fails the test instead of hanging it.
sed -i 's|utils/slurm.pl --config|utils/slurm.pl --max-wait 300 --config|' cmd.sh
small="--num-train-spk 8 --num-valid-spk 2 --num-test-spk 2 --utts-per-spk 10
  --test-utts-per-spk 5 --num-archives 2 --num-jobs 2 --num-epochs 2 --nj 2"

./run.sh --stage 1 --stop-stage 5 $small > prep.log 2>&1 || {
  tail -20 prep.log; fail "preparing the data locally failed"; }
cp -r exp/tdnnf exp/local
NNET3_CMD=slurm ./run.sh --stage 6 --stop-stage 6 $small > slurm.log 2>&1 || {
  tail -20 slurm.log; fail "the training stage failed under slurm.pl"; }
grep -q "iter  2/2" slurm.log || fail "no line for iteration 2"
for iter in 0 1; do
  for job in 1 2; do
    [[ -f exp/tdnnf/log/q/train.$iter.$job.done ]] ||
      fail "no Slurm done file for job $job of iteration $iter"
    grep -q "^# Ended (code 0)" exp/tdnnf/log/train.$iter.$job.log ||
      fail "log of job $job of iteration $iter does not end with code 0"
  done
done
./run.sh --stage 6 --stop-stage 6 --dir exp/local $small > local.log 2>&1 || {
  tail -20 local.log; fail "the training stage failed under run.pl"; }
cmp -s exp/tdnnf/2.raw exp/local/2.raw || fail "Slurm and local training gave different models"
echo "PASS"
