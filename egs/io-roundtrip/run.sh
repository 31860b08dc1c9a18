#!/usr/bin/env bash
# io-roundtrip: the project's first recipe. It builds the tools, generates a
# feature archive and alignments, and pushes them through the tools the way
# a Kaldi recipe would (archives, scp files, pipes, gzip, compression),
# checking at every step that nothing changed that should not have.
#
#   egs/io-roundtrip/run.sh [--stage N] [--num-utts N] [--dim N] [--seed N]
#
# Output goes to egs/io-roundtrip/work/. Exits non-zero at the first check
# that fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
stage=0
num_utts=200
dim=40
seed=7
while [[ $# -gt 0 ]]; do
  case "$1" in
    --stage) stage=$2; shift 2 ;;
    --num-utts) num_utts=$2; shift 2 ;;
    --dim) dim=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    *) echo "$0: unknown option $1" >&2; exit 1 ;;
  esac
done
. ./path.sh
work=work
mkdir -p $work

if [[ $stage -le 0 ]]; then
  echo "$0: stage 0: building the tools"
  "$NNET3_ROOT/tools/install-deps.sh"
  cmake -S "$NNET3_ROOT" -B "$NNET3_ROOT/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$NNET3_ROOT/build" -j"$(nproc)" --target \
    copy-feats copy-matrix copy-vector copy-int-vector copy-post ali-to-post \
    feat-to-dim feat-to-len matrix-sum-rows >/dev/null
fi

if [[ $stage -le 1 ]]; then
  echo "$0: stage 1: generating $num_utts utterances of $dim-dim features and alignments"
  # Smooth random trajectories, like filterbank features; lengths 50..549.
  awk -v n=$num_utts -v d=$dim -v seed=$seed 'BEGIN {
    srand(seed);
    for (u = 1; u <= n; u++) {
      len = 50 + int(rand() * 500);
      printf("utt%04d  [", u);
      for (j = 0; j < d; j++) x[j] = 10 * rand();
      for (t = 0; t < len; t++) {
        printf("\n  ");
        for (j = 0; j < d; j++) {
          x[j] = 0.9 * x[j] + rand() - 0.5 + 0.1 * j;
          printf("%.6g ", x[j]);
        }
      }
      printf("]\n");
      # A pdf alignment of the same length.
      ali = sprintf("utt%04d", u);
      for (t = 0; t < len; t++) ali = ali " " int(rand() * 100);
      print ali > "/dev/stderr";
    }
  }' > $work/feats.txt 2> $work/ali.txt
fi

if [[ $stage -le 2 ]]; then
  echo "$0: stage 2: text -> binary archive + scp -> text"
  copy-feats ark,t:$work/feats.txt ark,scp:$work/feats.ark,$work/feats.scp
  # The same archive read directly and through its scp gives the same text.
  copy-feats ark:$work/feats.ark ark,t:$work/feats_canon.txt
  copy-feats scp:$work/feats.scp ark,t:$work/feats_scp.txt
  cmp $work/feats_canon.txt $work/feats_scp.txt
  # Text written with 7 digits is a fixed point of text -> binary -> text.
  copy-feats ark,t:$work/feats_canon.txt ark:- | copy-feats ark:- ark,t:$work/feats_canon2.txt
  cmp $work/feats_canon.txt $work/feats_canon2.txt
  # Random access through the scp: the same bytes, in reverse order.
  sort -r $work/feats.scp > $work/feats_rev.scp
  copy-feats scp:$work/feats_rev.scp ark:- | copy-feats ark:- ark,scp:$work/rev.ark,$work/rev.scp
  [[ $(wc -l < $work/rev.scp) -eq $num_utts ]]
fi

if [[ $stage -le 3 ]]; then
  echo "$0: stage 3: gzip pipes and stdin/stdout"
  gzip -c $work/feats.ark > $work/feats.ark.gz
  copy-feats "ark:gunzip -c $work/feats.ark.gz |" "ark:| gzip -c > $work/feats_copy.ark.gz"
  gunzip -c $work/feats_copy.ark.gz | cmp - $work/feats.ark
  copy-feats ark:- ark,t:- < $work/feats.ark | cmp - $work/feats_canon.txt
fi

if [[ $stage -le 4 ]]; then
  echo "$0: stage 4: compression"
  for method in 1 2 3 5; do
    copy-feats --compress=true --compression-method=$method ark:$work/feats.ark ark:$work/feats_cm$method.ark
    # Decompressing and compressing again must be stable in shape.
    [[ $(feat-to-dim ark:$work/feats_cm$method.ark -) -eq $dim ]]
    orig=$(stat -c %s $work/feats.ark); comp=$(stat -c %s $work/feats_cm$method.ark)
    echo "  method $method: $orig bytes -> $comp bytes ($(( 100 * comp / orig ))%)"
  done
fi

if [[ $stage -le 5 ]]; then
  echo "$0: stage 5: lengths, dims, sums, alignments -> posteriors"
  feat-to-len scp:$work/feats.scp ark,t:$work/utt2num_frames
  feat-to-dim scp:$work/feats.scp - > $work/feat_dim
  [[ $(cat $work/feat_dim) -eq $dim ]]
  # Every alignment has as many frames as its features.
  awk '{print $1, NF-1}' $work/ali.txt | cmp - <(awk '{print $1, $2}' $work/utt2num_frames)
  matrix-sum-rows --do-average=true scp:$work/feats.scp ark,t:$work/means.txt
  copy-int-vector ark,t:$work/ali.txt ark:$work/ali.ark
  ali-to-post ark:$work/ali.ark ark:- | copy-post ark:- ark,t:$work/post.txt
  total=$(feat-to-len scp:$work/feats.scp)
  echo "$0: done: $num_utts utterances, $total frames of dim $dim round-tripped; see $work/"
fi
