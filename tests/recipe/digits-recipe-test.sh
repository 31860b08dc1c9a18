#!/usr/bin/env bash
# A shortened run of egs/digits (a few hundred utterances, two training
# iterations, the local job runner) on a copy of the recipe, checking what
# the full run promises: a %WER line under a loose bound (far below the 80%+
# of guessing), the progress table, plot and results table; that the same
# seed gives the same corpus and the same model bytes; and that a missing
# wav stops the feature stage with the path of the log, which names the
# utterance.
#   digits-recipe-test.sh SOURCE_ROOT TOOLS_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
export NNET3_ROOT=$src NNET3_BIN=$(cd "$2" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

for t in espeak-ng flite sox gnuplot; do
  command -v $t >/dev/null || fail "$t is not installed (tools/install-deps.sh installs it)"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/egs/digits" "$tmp/"
rm -rf "$tmp/digits/data" "$tmp/digits/exp"
cd "$tmp/digits"
small="--num-train-spk 16 --num-valid-spk 2 --num-test-spk 4 --utts-per-spk 14
  --test-utts-per-spk 10 --num-archives 2 --num-jobs 2 --num-epochs 2 --nj 2
  --num-combine 2"

./run.sh --stage 1 $small --max-wer 50 > run.log 2>&1 || {
  tail -20 run.log; fail "the shortened recipe failed"; }
grep -q '^%WER [0-9.]* \[ [0-9]* / [0-9]*, [0-9]* ins, [0-9]* del, [0-9]* sub \]$' \
  exp/tdnnf/decode_test/wer || fail "no Kaldi-style %WER line"
grep -q '^%SER ' exp/tdnnf/decode_test/wer || fail "no %SER line"
wer=$(awk '/^%WER/ {print $2}' exp/tdnnf/decode_test/wer)
echo "shortened recipe: %WER $wer"
[[ $(wc -l < exp/tdnnf/progress.txt) -eq 3 ]] || fail "progress.txt should have a header and 2 iterations"
grep -q "iter  2/2" run.log || fail "no per-iteration line for iteration 2"
[[ $(head -c 4 exp/tdnnf/progress.png | od -An -c | tr -d ' ') == "211PNG" ]] ||
  fail "progress.png is not a PNG"
grep -q "^| exp/tdnnf/final.raw | " exp/tdnnf/results.md || fail "no results table"
grep -q "plot: .*progress.png" run.log || fail "the run does not print the plot's path"
# Test voices never appear in training.
cut -d' ' -f2- data/test/spk2voice | while read -r v; do
  ! grep -qxF -- "$v" <(cut -d' ' -f2- data/train/spk2voice) || fail "test voice '$v' is also a training voice"
done

# Same seed: the same corpus and, trained again, the same model bytes.
. ./path.sh
$PYTHON local/make_data.py --num-train-spk 16 --num-valid-spk 2 --num-test-spk 4 \
  --utts-per-spk 14 --test-utts-per-spk 10 data2 > /dev/null
for f in train/text test/text valid/ctm train/spk2voice; do
  cmp -s data/$f data2/$f || fail "data/$f differs between two runs with the same seed"
done
cmp -s data/wav/test001-001.wav data2/wav/test001-001.wav || fail "wav files differ between runs"
./run.sh --stage 4 $small --dir exp/again --max-wer 100 > again.log 2>&1 || {
  tail -20 again.log; fail "the second training run failed"; }
cmp -s exp/tdnnf/final.raw exp/again/final.raw || fail "same seed, different model bytes"

# A missing wav: the feature stage stops, names its log, the log names the utterance.
rm data/wav/valid001-003.wav
if ./run.sh --stage 2 $small > bad.log 2>&1; then fail "a missing wav went unnoticed"; fi
grep -q "log is in .*make_fbank" bad.log || { cat bad.log; fail "no log path in the failure message"; }
grep -rq "valid001-003" data/valid/log/ || fail "the log does not name the utterance"
echo "PASS"
