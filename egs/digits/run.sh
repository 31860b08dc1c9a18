#!/usr/bin/env bash
# egs/digits: connected spoken digits ("zero" to "nine" and "oh") from
# synthetic voices, in the shape of a Kaldi nnet3 recipe:
#   stage 0  tools: checks the Debian packages, builds the nnet3 tools
#   stage 1  data: train / valid (training-style voices set aside) / test
#            (voices never seen in training) Kaldi data directories
#   stage 2  fbank features (parallel jobs) and per-speaker CMVN stats
#   stage 3  frame targets from the exact word times
#   stage 4  the initial TDNN-F (nnet3-init from conf/tdnnf.config)
#   stage 5  egs: several training archives, diagnostic and validation egs
#   stage 6  training: jobs per iteration averaged by nnet3-average, the
#            effective learning rate decaying exponentially
#   stage 7  nnet3-combine of the last models on the validation egs
#   stage 8  decoding of the test set (digit-loop Viterbi) and scoring
#   stage 9  the plot and the results table
# Usage: egs/digits/run.sh [--stage N] [--stop-stage N] [--num-epochs N] ...
# (--help lists the options)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

stage=0
stop_stage=9
seed=1
nj=4                      # feature and decoding jobs
num_train_spk=48
num_valid_spk=6
num_test_spk=12
utts_per_spk=24
test_utts_per_spk=20
num_archives=4            # training egs archives
num_jobs=2                # parallel training jobs per iteration
num_epochs=4
minibatch_size=128
initial_effective_lrate=0.002
final_effective_lrate=0.0002
num_combine=4             # last models offered to nnet3-combine
min_frames=auto           # decoder: minimum frames per third of a word;
                          # auto: 1st percentile of training word lengths / 3
word_penalty=0            # decoder: log-probability cost of each word
max_wer=25                # the run fails above this %WER
dir=exp/tdnnf
data=data                 # where stage 1 writes the corpus
help_message="Usage: $0 [options]
  --stage N              first stage to run (0..9; default $stage)
  --stop-stage N         last stage to run (default $stop_stage)
  --seed N               corpus seed (default $seed)
  --data DIR / --dir DIR where the corpus / the experiment go (default $data, $dir)
  --num-epochs N         passes over the training egs (default $num_epochs)
  --num-train-spk N      training voices (default $num_train_spk)
  --utts-per-spk N       utterances per training voice (default $utts_per_spk)
  --num-jobs N           parallel training jobs per iteration (default $num_jobs)
  --nj N                 feature and decoding jobs (default $nj)
  --min-frames N|auto    decoder's minimum frames per third of a word (default $min_frames)
  --max-wer F            fail if the test %WER is above F (default $max_wer)
  (every variable at the top of this script is an option)"

. ./path.sh
. ./cmd.sh
. utils/parse_options.sh

say() { echo "$0: $*"; }
run_stage() { [[ $stage -le $1 && $stop_stage -ge $1 ]]; }

mkdir -p $dir/log

if run_stage 0; then
  say "stage 0: checking packages and building the tools"
  missing=()
  for p in espeak-ng:espeak-ng flite:flite sox:sox gnuplot:gnuplot-nox \
           cmake:cmake g++:g++; do
    command -v ${p%%:*} >/dev/null 2>&1 || missing+=(${p#*:})
  done
  $PYTHON -c 'import numpy' 2>/dev/null || missing+=(python3-numpy)
  if [[ ${#missing[@]} -gt 0 ]]; then
    say "installing missing packages: ${missing[*]}"
    "$NNET3_ROOT/tools/install-deps.sh" || {
      say "missing packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}" >&2; exit 1; }
  fi
  "$NNET3_ROOT/tools/install-deps.sh"
  cmake -S "$NNET3_ROOT" -B "$NNET3_ROOT/build" -DCMAKE_BUILD_TYPE=Release > $dir/log/cmake.log
  cmake --build "$NNET3_ROOT/build" -j"$(nproc)" --target compute-fbank-feats \
    compute-cmvn-stats apply-cmvn feat-to-len ali-to-post nnet3-init nnet3-info \
    nnet3-copy nnet3-get-egs nnet3-copy-egs nnet3-shuffle-egs nnet3-subset-egs \
    nnet3-merge-egs nnet3-train nnet3-average nnet3-combine nnet3-compute-prob \
    nnet3-compute > $dir/log/build.log || { say "build failed, see $dir/log/build.log" >&2; exit 1; }
fi

if run_stage 1; then
  say "stage 1: synthesising the corpus (seed $seed)"
  rm -rf $data
  $PYTHON local/make_data.py --seed $seed --num-train-spk $num_train_spk \
    --num-valid-spk $num_valid_spk --num-test-spk $num_test_spk \
    --utts-per-spk $utts_per_spk --test-utts-per-spk $test_utts_per_spk $data
fi

if run_stage 2; then
  say "stage 2: fbank features ($nj jobs per set) and per-speaker CMVN stats"
  for set in train valid test; do
    d=$data/$set
    mkdir -p $d/split$nj $d/fbank
    awk -v n=$nj -v d=$d/split$nj '{ print > (d "/wav." ((NR - 1) % n + 1) ".scp") }' $d/wav.scp
    $train_cmd JOB=1:$nj $d/log/make_fbank.JOB.log \
      compute-fbank-feats --config=conf/fbank.conf scp:$d/split$nj/wav.JOB.scp \
        ark,scp:$PWD/$d/fbank/raw.JOB.ark,$PWD/$d/fbank/raw.JOB.scp
    cat $d/fbank/raw.*.scp | sort > $d/feats.scp
    compute-cmvn-stats --spk2utt=ark:$d/spk2utt scp:$d/feats.scp \
      ark,scp:$PWD/$d/cmvn.ark,$d/cmvn.scp 2> $d/log/cmvn.log
    feat-to-len scp:$d/feats.scp ark,t:$d/utt2num_frames 2> $d/log/feat_to_len.log
    [[ $(wc -l < $d/feats.scp) -eq $(wc -l < $d/wav.scp) ]] || {
      say "$set: features missing for some utterances, see $d/log/" >&2; exit 1; }
  done
fi

# Normalised features, the way Kaldi recipes read them: through a pipe.
feats() {
  echo "ark,s,cs:apply-cmvn --utt2spk=ark:$data/$1/utt2spk scp:$data/$1/cmvn.scp scp:$data/$1/feats.scp ark:- |"
}

if run_stage 3; then
  say "stage 3: frame targets from the word times"
  for set in train valid test; do
    d=$data/$set
    $PYTHON local/make_targets.py $d/ctm $d/utt2num_frames > $d/ali.txt
    ali-to-post ark,t:$d/ali.txt ark:$d/post.ark 2> $d/log/ali_to_post.log
  done
fi
num_targets=$($PYTHON local/make_targets.py --num-targets)

if run_stage 4; then
  say "stage 4: initial TDNN-F from conf/tdnnf.config"
  nnet3-init --srand=$seed conf/tdnnf.config $dir/0.raw 2> $dir/log/init.log
  nnet3-info $dir/0.raw > $dir/0.info 2> $dir/log/info.log
fi
left=$(awk '/^left-context:/ {print $2}' $dir/0.info)
right=$(awk '/^right-context:/ {print $2}' $dir/0.info)

if run_stage 5; then
  say "stage 5: egs (8-frame chunks, context $left/$right) in $num_archives archives"
  egs=$dir/egs
  rm -rf $egs; mkdir -p $egs
  egs_opts="--num-pdfs=$num_targets --left-context=$left --right-context=$right --num-frames=8"
  nnet3-get-egs $egs_opts "$(feats train)" ark:$data/train/post.ark ark:- 2> $egs/log.get_egs_train |
    nnet3-copy-egs --random=true --srand=$seed ark:- \
      $(for a in $(seq $num_archives); do echo ark:$egs/egs.$a.ark; done) 2> $egs/log.split
  nnet3-get-egs $egs_opts "$(feats valid)" ark:$data/valid/post.ark ark:$egs/valid.egs \
    2> $egs/log.get_egs_valid
  nnet3-subset-egs --srand=$seed --n=3000 ark:$egs/egs.1.ark ark:$egs/train_diagnostic.egs \
    2> $egs/log.subset
fi

# The last "Overall ..." figure of a nnet3-compute-prob log.
prob() { awk -v w="$2" '$0 ~ "Overall " w {v = $(NF - 5)} END {print v}' $1; }

num_iters=$(( num_epochs * num_archives / num_jobs ))
if run_stage 6; then
  say "stage 6: $num_iters iterations of $num_jobs jobs ($num_epochs epochs)"
  echo "iter lrate train_obj train_acc valid_obj valid_acc seconds" > $dir/progress.txt
  for iter in $(seq 0 $((num_iters - 1))); do
    start=$SECONDS
    lrate=$(awk -v i=$iter -v n=$num_iters -v a=$initial_effective_lrate \
      -v b=$final_effective_lrate -v j=$num_jobs \
      'BEGIN { printf("%.6g", j * a * exp(i / n * log(b / a))) }')
    $train_cmd JOB=1:$num_jobs $dir/log/train.$iter.JOB.log \
      nnet3-train --use-gpu=no --srand=$iter \
        "nnet3-copy --learning-rate=$lrate $dir/$iter.raw - |" \
        "ark,bg:nnet3-shuffle-egs --srand=$iter ark:$dir/egs/egs.\$(( ($iter * $num_jobs + JOB - 1) % $num_archives + 1 )).ark ark:- | nnet3-merge-egs --minibatch-size=$minibatch_size ark:- ark:- |" \
        $dir/$((iter + 1)).JOB.raw
    nnet3-average $(for j in $(seq $num_jobs); do echo $dir/$((iter + 1)).$j.raw; done) \
      $dir/$((iter + 1)).raw 2> $dir/log/average.$iter.log
    rm $dir/$((iter + 1)).*.raw
    for s in train_diagnostic:train valid:valid; do
      nnet3-compute-prob --compute-accuracy=true $dir/$((iter + 1)).raw \
        "ark:nnet3-merge-egs ark:$dir/egs/${s%%:*}.egs ark:- |" \
        2> $dir/log/compute_prob_${s#*:}.$((iter + 1)).log
    done
    line="$((iter + 1)) $lrate $(prob $dir/log/compute_prob_train.$((iter + 1)).log log-likelihood) \
$(prob $dir/log/compute_prob_train.$((iter + 1)).log accuracy) \
$(prob $dir/log/compute_prob_valid.$((iter + 1)).log log-likelihood) \
$(prob $dir/log/compute_prob_valid.$((iter + 1)).log accuracy) $((SECONDS - start))"
    echo $line >> $dir/progress.txt
    echo $line | awk '{ printf("  iter %2d/%d  lrate %-9s train: obj %7.4f acc %.4f   valid: obj %7.4f acc %.4f   %ds\n", $1, n, $2, $3, $4, $5, $6, $7) }' n=$num_iters
  done
fi

if run_stage 7; then
  say "stage 7: combining the last $num_combine models on the validation egs"
  first=$(( num_iters - num_combine + 1 )); [[ $first -ge 1 ]] || first=1
  nnet3-combine --use-gpu=no $(for i in $(seq $num_iters -1 $first); do echo $dir/$i.raw; done) \
    "ark:nnet3-merge-egs ark:$dir/egs/valid.egs ark:- |" $dir/final.raw 2> $dir/log/combine.log
  nnet3-compute-prob --compute-accuracy=true $dir/final.raw \
    "ark:nnet3-merge-egs ark:$dir/egs/valid.egs ark:- |" 2> $dir/log/compute_prob_valid.final.log
fi

if run_stage 8; then
  if [[ $min_frames == auto ]]; then
    min_frames=$(awk '{print $4}' $data/train/ctm | sort -n |
      awk '{ d[NR] = $1 } END { k = int(NR * 0.01); if (k < 1) k = 1; m = int(d[k] * 100 / 3); print (m < 1 ? 1 : m) }')
  fi
  say "stage 8: decoding the test set ($nj jobs, at least $min_frames frames per third of a word) and scoring"
  d=$data/test; out=$dir/decode_test
  rm -rf $out; mkdir -p $out
  split=$d/split$nj
  for j in $(seq $nj); do
    awk 'NR == FNR { keep[$1]; next } $1 in keep' $split/wav.$j.scp $d/feats.scp > $split/feats.$j.scp
  done
  $decode_cmd JOB=1:$nj $out/log/decode.JOB.log \
    nnet3-compute --use-gpu=no $dir/final.raw \
      "ark,s,cs:apply-cmvn --utt2spk=ark:$d/utt2spk scp:$d/cmvn.scp scp:$split/feats.JOB.scp ark:- |" \
      ark,t:$out/logpost.JOB.txt \
    "&&" $PYTHON local/decode.py --min-frames=$min_frames --word-penalty=$word_penalty \
      $out/logpost.JOB.txt ">" $out/hyp.JOB.txt
  cat $out/hyp.*.txt | sort > $out/hyp.txt
  $PYTHON local/score.py $d/text $out/hyp.txt $out/per_utt > $out/wer
  # Frame accuracy of the arg-max target against the known targets.
  cat $out/logpost.*.txt | awk 'FNR == NR { for (i = 2; i <= NF; i++) lab[$1, i - 2] = $i; next }
    /\[$/ { utt = $1; t = 0; next }
    { best = 1; for (i = 1; i <= NF && $i != "]"; i++) if ($i > $best) best = i;
      correct += (best - 1 == lab[utt, t]); total++; t++ }
    END { printf("%.4f\n", correct / total) }' $d/ali.txt - > $out/frame_accuracy
  rm $out/logpost.*.txt
  cat $out/wer
fi

if run_stage 9; then
  say "stage 9: plot and results"
  gnuplot <<EOG 2> $dir/log/plot.log
set terminal png size 900,420
set output "$dir/progress.png"
set multiplot layout 1,2 title "egs/digits TDNN-F training"
set xlabel "iteration"; set key bottom right; set grid
set ylabel "log-likelihood per frame"
plot "$dir/progress.txt" every ::1 using 1:3 with linespoints title "train", \
     "" every ::1 using 1:5 with linespoints title "valid"
set ylabel "frame accuracy"
plot "$dir/progress.txt" every ::1 using 1:4 with linespoints title "train", \
     "" every ::1 using 1:6 with linespoints title "valid"
unset multiplot
EOG
  valid_acc=$(prob $dir/log/compute_prob_valid.final.log accuracy)
  wer_line=$(grep '^%WER' $dir/decode_test/wer)
  ser_line=$(grep '^%SER' $dir/decode_test/wer)
  {
    echo "| model | valid frame acc | test frame acc | %WER | %SER |"
    echo "|---|---|---|---|---|"
    echo "| $dir/final.raw | $valid_acc | $(cat $dir/decode_test/frame_accuracy) | $(echo $wer_line | awk '{print $2}') | $(echo $ser_line | awk '{print $2}') |"
    echo
    echo "$wer_line"
    echo "$ser_line"
  } > $dir/results.md
  cat $dir/results.md
  say "plot: $PWD/$dir/progress.png"
  wer=$(echo $wer_line | awk '{print $2}')
  awk -v w=$wer -v m=$max_wer 'BEGIN { exit !(w <= m) }' || {
    say "%WER $wer is above the limit $max_wer" >&2; exit 1; }
fi
say "done"
