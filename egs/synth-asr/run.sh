#!/usr/bin/env bash
# synth-asr: the project's main recipe, from audio to frame classification,
# in the shape of a Kaldi nnet3 recipe. It generates a small synthetic
# "speech" corpus (phone-like tone mixtures with frame-level labels), then
#   wav -> fbank (compute-fbank-feats) -> per-speaker CMVN
#   alignments -> posteriors (ali-to-post) -> egs (nnet3-get-egs, shuffle)
#   TDNN (nnet3-init) -> a few iterations of 2 parallel nnet3-train jobs,
#   averaged with nnet3-average -> nnet3-combine of the last models
#   -> nnet3-compute-prob and nnet3-compute on held-out speakers,
# and fails unless held-out frame accuracy reaches --min-accuracy.
#
#   egs/synth-asr/run.sh [--stage N] [--num-train N] [--num-test N]
#                        [--num-iters N] [--min-accuracy F]
#
# Needs python3 (installed by tools/install-deps.sh). Output: egs/synth-asr/work/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
stage=0
num_train=120
num_test=24
num_phones=12
num_iters=6
num_jobs=2
min_accuracy=0.7
while [[ $# -gt 0 ]]; do
  case "$1" in
    --stage) stage=$2; shift 2 ;;
    --num-train) num_train=$2; shift 2 ;;
    --num-test) num_test=$2; shift 2 ;;
    --num-iters) num_iters=$2; shift 2 ;;
    --min-accuracy) min_accuracy=$2; shift 2 ;;
    *) echo "$0: unknown option $1" >&2; exit 1 ;;
  esac
done
. ./path.sh
work=work
mkdir -p $work/log
tools="compute-fbank-feats compute-cmvn-stats apply-cmvn copy-feats feat-to-dim
  ali-to-post nnet3-init nnet3-info nnet3-copy nnet3-get-egs nnet3-shuffle-egs
  nnet3-copy-egs nnet3-merge-egs nnet3-train nnet3-average nnet3-combine
  nnet3-compute-prob nnet3-show-progress nnet3-compute"

if [[ $stage -le 0 ]]; then
  echo "$0: stage 0: building the tools"
  "$NNET3_ROOT/tools/install-deps.sh"
  cmake -S "$NNET3_ROOT" -B "$NNET3_ROOT/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$NNET3_ROOT/build" -j"$(nproc)" --target $tools >/dev/null
fi

if [[ $stage -le 1 ]]; then
  echo "$0: stage 1: generating $num_train training and $num_test test utterances"
  rm -rf $work/data
  python3 local/make_data.py $work/data/train $num_train $num_phones 1 spk
  python3 local/make_data.py $work/data/test $num_test $num_phones 2 tst
fi

if [[ $stage -le 2 ]]; then
  echo "$0: stage 2: fbank features and per-speaker CMVN"
  for set in train test; do
    d=$work/data/$set
    compute-fbank-feats --num-mel-bins=40 scp:$d/wav.scp \
      ark,scp:$d/raw_fbank.ark,$d/raw_fbank.scp 2>$work/log/fbank.$set.log
    compute-cmvn-stats --spk2utt=ark:$d/spk2utt scp:$d/raw_fbank.scp \
      ark:$d/cmvn.ark 2>$work/log/cmvn.$set.log
    apply-cmvn --utt2spk=ark:$d/utt2spk ark:$d/cmvn.ark scp:$d/raw_fbank.scp \
      ark,scp:$d/feats.ark,$d/feats.scp 2>>$work/log/cmvn.$set.log
    ali-to-post ark,t:$d/ali.txt ark:$d/post.ark 2>$work/log/post.$set.log
  done
  [[ $(feat-to-dim scp:$work/data/train/feats.scp - 2>/dev/null) -eq 40 ]]
fi

if [[ $stage -le 3 ]]; then
  echo "$0: stage 3: initial TDNN"
  cat > $work/tdnn.config <<EOC
input-node name=input dim=40
component name=tdnn1.affine type=NaturalGradientAffineComponent input-dim=200 output-dim=256 learning-rate=0.002 max-change=0.75
component-node name=tdnn1.affine component=tdnn1.affine input=Append(Offset(input, -2), Offset(input, -1), input, Offset(input, 1), Offset(input, 2))
component name=tdnn1.relu type=RectifiedLinearComponent dim=256
component-node name=tdnn1.relu component=tdnn1.relu input=tdnn1.affine
component name=tdnn1.batchnorm type=BatchNormComponent dim=256
component-node name=tdnn1.batchnorm component=tdnn1.batchnorm input=tdnn1.relu
component name=tdnn2.affine type=NaturalGradientAffineComponent input-dim=768 output-dim=256 learning-rate=0.002 max-change=0.75
component-node name=tdnn2.affine component=tdnn2.affine input=Append(Offset(tdnn1.batchnorm, -2), tdnn1.batchnorm, Offset(tdnn1.batchnorm, 2))
component name=tdnn2.relu type=RectifiedLinearComponent dim=256
component-node name=tdnn2.relu component=tdnn2.relu input=tdnn2.affine
component name=tdnn2.batchnorm type=BatchNormComponent dim=256
component-node name=tdnn2.batchnorm component=tdnn2.batchnorm input=tdnn2.relu
component name=output.affine type=NaturalGradientAffineComponent input-dim=256 output-dim=$num_phones learning-rate=0.002 max-change=1.5
component-node name=output.affine component=output.affine input=tdnn2.batchnorm
component name=output.log-softmax type=LogSoftmaxComponent dim=$num_phones
component-node name=output.log-softmax component=output.log-softmax input=output.affine
output-node name=output input=output.log-softmax objective=linear
EOC
  nnet3-init --srand=1 $work/tdnn.config $work/0.raw 2>$work/log/init.log
  nnet3-info $work/0.raw > $work/0.info 2>$work/log/info.log
fi
left=$(awk '/^left-context:/ {print $2}' $work/0.info)
right=$(awk '/^right-context:/ {print $2}' $work/0.info)

if [[ $stage -le 4 ]]; then
  echo "$0: stage 4: egs (8-frame chunks, context $left/$right)"
  for set in train test; do
    d=$work/data/$set
    nnet3-get-egs --num-pdfs=$num_phones --left-context=$left \
      --right-context=$right --num-frames=8 scp:$d/feats.scp ark:$d/post.ark \
      ark:- 2>$work/log/get_egs.$set.log | \
      nnet3-shuffle-egs --srand=0 ark:- ark:$work/egs.$set.ark \
      2>>$work/log/get_egs.$set.log
  done
  # One archive per job, round-robin.
  nnet3-copy-egs ark:$work/egs.train.ark \
    $(for j in $(seq $num_jobs); do echo ark:$work/egs.train.$j.ark; done) \
    2>$work/log/split_egs.log
fi

if [[ $stage -le 5 ]]; then
  echo "$0: stage 5: $num_iters iterations x $num_jobs jobs"
  for iter in $(seq 0 $((num_iters - 1))); do
    next=$((iter + 1))
    for j in $(seq $num_jobs); do
      ( nnet3-shuffle-egs --srand=$((iter * num_jobs + j)) \
          ark:$work/egs.train.$j.ark ark:- | \
        nnet3-merge-egs --minibatch-size=64 ark:- ark:- | \
        nnet3-train --use-gpu=no --srand=$iter $work/$iter.raw ark:- $work/$next.$j.raw
      ) 2>$work/log/train.$iter.$j.log &
    done
    wait
    nnet3-average $(for j in $(seq $num_jobs); do echo $work/$next.$j.raw; done) \
      $work/$next.raw 2>$work/log/average.$iter.log
    rm $work/$next.*.raw
    nnet3-compute-prob --compute-accuracy=true $work/$next.raw \
      "ark:nnet3-merge-egs ark:$work/egs.test.ark ark:- |" \
      2>$work/log/compute_prob_valid.$next.log
    awk -v i=$next '/Overall log-likelihood/ {ll = $(NF - 5)}
      /Overall accuracy/ {acc = $(NF - 5)}
      END {printf("  iter %d: held-out log-likelihood %s, accuracy %s\n", i, ll, acc)}' \
      $work/log/compute_prob_valid.$next.log
  done
  nnet3-show-progress $work/$((num_iters - 1)).raw $work/$num_iters.raw \
    > $work/log/progress.log 2>&1
fi

if [[ $stage -le 6 ]]; then
  echo "$0: stage 6: combining the last models"
  # Newest first: the combination starts from the last model alone.
  nnet3-combine --use-gpu=no $(for i in $(seq $num_iters -1 $((num_iters - 2))); do echo $work/$i.raw; done) \
    "ark:nnet3-merge-egs ark:$work/egs.test.ark ark:- |" $work/final.raw \
    2>$work/log/combine.log
fi

if [[ $stage -le 7 ]]; then
  echo "$0: stage 7: held-out frame accuracy"
  nnet3-compute --use-gpu=no $work/final.raw scp:$work/data/test/feats.scp \
    ark,t:$work/test_out.txt 2>$work/log/compute.log
  # Frame accuracy of the arg-max output against the labels.
  accuracy=$(awk 'FNR == NR { for (i = 2; i <= NF; i++) lab[$1, i - 2] = $i; next }
    /\[$/ { utt = $1; t = 0; next }
    { best = 1; for (i = 1; i <= NF && $i != "]"; i++) if ($i > $best) best = i;
      correct += (best - 1 == lab[utt, t]); total++; t++ }
    END { printf("%.4f", correct / total) }' $work/data/test/ali.txt $work/test_out.txt)
  echo "$0: held-out frame accuracy $accuracy (minimum $min_accuracy)"
  awk -v a=$accuracy -v m=$min_accuracy 'BEGIN { exit !(a >= m) }'
fi
echo "$0: done"
